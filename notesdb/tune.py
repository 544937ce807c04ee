"""``notesdb tune``: sweep the judgement's settings on a labelled set and pick one.

Each case is ranked once per distinct set of scoring weights and judged under every setting of
the grid; the settings no other beats on precision, hit rate and silence rate form a Pareto
front, and :func:`choose` picks the best hit rate that keeps precision and silence high. Every
field of :class:`notesdb.settings.Settings` can be an axis; the default grid varies the gate's
main thresholds around their configured values.
"""

from __future__ import annotations

import itertools
import math
import os
import sqlite3
import stat
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from notesdb.cases import Case, Outcome, outcome, score
from notesdb.errors import ConfigError, NotesdbError
from notesdb.gate import Route, Settings, lead, named_notes
from notesdb.rank import Ranking
from notesdb.settings import SCORING

__all__ = [
    "TUNED",
    "DEFAULT_FACTORS",
    "default_axes",
    "threshold_marks",
    "Ranked",
    "rank_cases",
    "judge_case",
    "make_grid",
    "sweep",
    "sweep_ranked",
    "pareto_front",
    "choose",
    "choose_silent",
    "generic_cases",
    "rates",
    "features",
    "QUANTILES",
    "quantiles",
    "TuneReport",
    "tune",
    "write_gate",
]


#: The gate's main thresholds, most important first; ``tune`` sweeps at most ``MAX_TUNED`` of
#: them by default (the other fields, scoring weights included, stay as configured unless a
#: grid names them).
_MAIN_THRESHOLDS = (
    "strong_coverage",
    "lead_coverage",
    "lead_ratio",
    "rare_coverage",
    "strong_evidence",
    "rare_weight",
    "lead_evidence",
)
MAX_TUNED = 6
TUNED: tuple[str, ...] = _MAIN_THRESHOLDS[:MAX_TUNED]

#: The default grid tries each tuned threshold at these multiples of its configured value
#: (coverages capped at 1): 3 ** 6 = 729 settings at most, about a second of judging for a
#: hundred cases, always centred on the current settings.
DEFAULT_FACTORS: tuple[float, ...] = (2 / 3, 1.0, 1.5)


def _round3(x: float) -> float:
    return float(f"{x:.3g}")


def default_axes(base: Settings | None = None) -> dict[str, tuple[float, ...]]:
    """Values tried per tuned threshold: :data:`DEFAULT_FACTORS` times ``base``'s value, to
    three significant digits; coverage thresholds stay at most 1.

    :returns: ``{threshold name: values}`` for every name in :data:`TUNED`
    """
    base = base or Settings()
    axes = {}
    for k in TUNED:
        v = float(getattr(base, k))
        vals = {_round3(v * f) for f in DEFAULT_FACTORS}
        if k.endswith("_coverage"):
            vals = {min(x, 1.0) for x in vals}
        axes[k] = tuple(sorted(vals))
    return axes


def threshold_marks(settings: Settings) -> dict[str, dict[str, float]]:
    """The thresholds that apply to each feature :func:`features` measures, for charts.

    :returns: ``{"coverage": {name: value}, "evidence": {...}, "lead": {...}}`` (names
        shortened: ``strong``, ``lead``, ``rare`` for coverages)
    """
    have = {f: getattr(settings, f) for f in Settings.__dataclass_fields__}
    return {
        "coverage": {k[: -len("_coverage")]: v for k, v in have.items() if k.endswith("_coverage")},
        "evidence": {k: v for k, v in have.items() if k in ("strong_evidence", "lead_evidence")},
        "lead": {k: v for k, v in have.items() if k == "lead_ratio"},
    }


@dataclass
class Ranked:
    """One case ranked once (``notesdb.decide.decide_with_ranking``), to be judged many times.

    ``ranking`` is None for a message that is never judged (a slash command).
    """

    case: Case
    ranking: Ranking | None


def rank_cases(conn: sqlite3.Connection, cases: list[Case], settings: Settings | None = None) -> list[Ranked]:
    """Rank every case once under ``settings``' scoring weights (:data:`SCORING`); the ranking
    does not depend on the gate's thresholds.

    :returns: one :class:`Ranked` per case, in order
    """
    from notesdb.decide import decide_with_ranking

    settings = settings or Settings()
    return [Ranked(c, decide_with_ranking(conn, c.message, settings)[1]) for c in cases]


def judge_case(ranked: Ranked, settings: Settings) -> Outcome:
    """Judge one ranked case under ``settings`` (``gate.named_notes``: the route and notes of
    ``gate.judge`` without its reasons) and classify it (:func:`outcome`)."""
    if ranked.ranking is None:  # never judged (a slash command, or text the client wrote)
        return outcome(ranked.case, [], Route.SLASH_COMMAND)
    route, named = named_notes(ranked.ranking, settings)
    return outcome(ranked.case, named, route)


def make_grid(base: Settings | None = None, axes: dict[str, tuple[float, ...]] | None = None) -> list[Settings]:
    """Every combination of the values in ``axes`` (default :func:`default_axes`), other fields
    from ``base``; each axis also gets ``base``'s own value, so the current settings are tried.

    :param axes: ``{Settings field: values}``, e.g. ``{"lead_ratio": (1.5, 2.0, 3.0)}``
    :returns: settings, in the order of the product of the sorted axes
    :raises ValueError: an axis that is not a field of ``Settings``, or an empty axis
    """
    base = base or Settings()
    axes = dict(default_axes(base) if axes is None else axes)
    known = set(Settings.__dataclass_fields__)
    keys = list(axes)
    values = []
    for k in keys:
        if k not in known:
            raise ValueError(f"unknown gate setting {k!r}")
        if not axes[k]:
            raise ValueError(f"no values for {k!r}")
        cast = int if isinstance(getattr(base, k), int) else float
        values.append(sorted({cast(v) for v in axes[k]} | {getattr(base, k)}))
    grid = []
    for combo in itertools.product(*values):
        changes: dict[str, Any] = dict(zip(keys, combo))
        grid.append(replace(base, **changes))
    return grid


def sweep_ranked(ranked: list[Ranked], grid: list[Settings]) -> list[tuple[Settings, dict[str, Any]]]:
    """Judge already ranked cases under each setting of ``grid`` (whose scoring weights must be
    those the cases were ranked with).

    :returns: ``(settings, summary)`` per setting, in grid order; summaries as from :func:`score`
    """
    return [(s, score([judge_case(r, s) for r in ranked])) for s in grid]


def _scoring(s: Settings) -> tuple[float, ...]:
    return tuple(getattr(s, k) for k in SCORING)


def _rank_and_sweep(
    conn: sqlite3.Connection, cases: list[Case], grid: list[Settings], base: Settings
) -> tuple[list[Ranked], list[tuple[Settings, dict[str, Any]]], float, float]:
    """Rank the cases once per distinct set of scoring weights in ``grid`` (once when the grid
    varies thresholds only) and judge each setting on its ranking.

    :returns: (the cases ranked with ``base``'s weights, results in grid order, ranking and
        judging times in ms)
    """
    t0 = time.perf_counter()
    rankings = {_scoring(base): rank_cases(conn, cases, base)}
    for s in grid:
        if _scoring(s) not in rankings:
            rankings[_scoring(s)] = rank_cases(conn, cases, s)
    t1 = time.perf_counter()
    results = [(s, score([judge_case(r, s) for r in rankings[_scoring(s)]])) for s in grid]
    t2 = time.perf_counter()
    return rankings[_scoring(base)], results, (t1 - t0) * 1000, (t2 - t1) * 1000


def sweep(
    conn: sqlite3.Connection, cases: list[Case], grid: list[Settings], base: Settings | None = None
) -> list[tuple[Settings, dict[str, Any]]]:
    """Score ``cases`` under every setting of ``grid``, ranking each case once per distinct set of
    scoring weights.

    The result for a setting equals ``evaluate(conn, cases, setting)[0]`` without ``failures``.

    :param grid: settings to try, e.g. from :func:`make_grid`
    :param base: the settings whose scoring weights rank the cases first
    :returns: ``(settings, summary)`` per setting, in grid order
    """
    return _rank_and_sweep(conn, cases, grid, base or Settings())[1]


def rates(summary: dict[str, Any]) -> tuple[float, float, float]:
    """(precision, hit rate, silence rate) of a summary; none named counts as precision 0."""
    # no note named: precision counts as 0; no uncovered case: any silence rate will do
    p = summary["precision"] if summary["precision"] is not None else 0.0
    h = summary["hit_rate"] if summary["hit_rate"] is not None else 0.0
    s = summary["silence_rate"] if summary["silence_rate"] is not None else 1.0
    return p, h, s


def _distance(s: Settings, base: Settings) -> float:
    return sum(abs(getattr(s, k) - getattr(base, k)) / max(abs(getattr(base, k)), 1e-9) for k in TUNED)


def pareto_front(
    results: list[tuple[Settings, dict[str, Any]]], base: Settings | None = None
) -> list[tuple[Settings, dict[str, Any], int]]:
    """The settings no other setting beats: none is at least as good on precision, hit rate and
    silence rate and better on one. Settings with identical rates count once, represented by
    the one closest to ``base``.

    :returns: ``(settings, summary, settings sharing these rates)``, best hit rate first
    """
    base = base or Settings()
    groups: dict[tuple[float, float, float], list[tuple[Settings, dict[str, Any]]]] = {}
    for s, summ in results:
        groups.setdefault(rates(summ), []).append((s, summ))
    keys = list(groups)
    front = []
    for k in keys:
        dominated = any(
            o != k and all(a >= b for a, b in zip(o, k)) for o in keys
        )
        if not dominated:
            s, summ = min(groups[k], key=lambda r: _distance(r[0], base))
            front.append((s, summ, len(groups[k])))
    front.sort(key=lambda r: (-rates(r[1])[1], -rates(r[1])[0], -rates(r[1])[2]))
    return front


def choose(
    results: list[tuple[Settings, dict[str, Any]]],
    base: Settings | None = None,
    min_precision: float = 0.95,
    min_silence: float = 0.95,
) -> tuple[Settings, dict[str, Any], str]:
    """Pick one setting: the best hit rate among those with precision >= ``min_precision`` and
    silence rate >= ``min_silence``; when none qualifies, the best harmonic mean of precision,
    hit rate and silence rate. Ties go to higher precision, then silence, then the setting
    closest to ``base``.

    :returns: ``(settings, summary, the rule that picked it)``
    :raises ValueError: ``results`` is empty
    """
    if not results:
        raise ValueError("no settings to choose from")
    base = base or Settings()
    ok = [
        r for r in results
        if r[1]["precision"] is not None and rates(r[1])[0] >= min_precision and rates(r[1])[2] >= min_silence
    ]
    if ok:
        rule = (
            f"best hit rate with precision >= {min_precision:g} and silence rate >= {min_silence:g}"
        )
        s, summ = max(ok, key=lambda r: (*(rates(r[1])[i] for i in (1, 0, 2)), -_distance(r[0], base)))
        return s, summ, rule

    def hmean(r: tuple[Settings, dict[str, Any]]) -> float:
        vals = rates(r[1])
        return 0.0 if min(vals) <= 0 else len(vals) / sum(1 / v for v in vals)

    rule = (
        f"no setting reaches precision >= {min_precision:g} and silence rate >= {min_silence:g}: "
        "best harmonic mean of precision, hit rate and silence rate"
    )
    s, summ = max(results, key=lambda r: (hmean(r), rates(r[1])[0], rates(r[1])[2], -_distance(r[0], base)))
    return s, summ, rule


def choose_silent(
    results: list[tuple[Settings, dict[str, Any]]], base: Settings | None = None
) -> tuple[Settings, dict[str, Any], str]:
    """Pick a setting with no covered case to go by (only the generic messages of
    ``notesdb.meter``, or only uncovered cases): the one nearest ``base`` whose silence rate is
    at least ``1 - meter.WARN_SHARE``; when none is, the most silent (then nearest).

    :returns: ``(settings, summary, the rule that picked it)``
    :raises ValueError: ``results`` is empty
    """
    from notesdb.meter import WARN_SHARE

    if not results:
        raise ValueError("no settings to choose from")
    base = base or Settings()
    floor = 1.0 - WARN_SHARE
    ok = [r for r in results if rates(r[1])[2] >= floor]
    if ok:
        s, summ = min(ok, key=lambda r: _distance(r[0], base))
        return s, summ, f"no labelled hits: the setting nearest the current one with silence rate >= {floor:g}"
    s, summ = max(results, key=lambda r: (rates(r[1])[2], -_distance(r[0], base)))
    return s, summ, f"no labelled hits and no setting reaches silence rate {floor:g}: the most silent"


def generic_cases() -> list[Case]:
    """The bundled generic messages (``notesdb.meter``) as uncovered cases of kind ``generic``."""
    from notesdb.meter import generic_messages

    return [Case("generic-" + m["id"], m["text"], (), "generic") for m in generic_messages()]


def features(ranked: list[Ranked]) -> dict[str, Any]:
    """The top candidate's coverage, evidence and lead over the second (evidence ratio; inf
    with no second), for real matches (covered cases whose top candidate is expected) and
    noise (uncovered cases; with no candidate, coverage and evidence are 0 and lead is left
    out). ``stretch-*`` cases are left out.

    :returns: ``{"real": {"coverage": [..], "evidence": [..], "lead": [..]}, "noise": {...},
        "unreachable": covered cases whose top candidate is not expected, "unreachable_cases":
        those cases as ``{"id": str, "top": note path or None}``, in the cases' order}``
    """
    out: dict[str, Any] = {
        g: {"coverage": [], "evidence": [], "lead": []} for g in ("real", "noise")
    }
    unreachable: list[dict[str, str | None]] = []
    for r in ranked:
        if r.case.stretch:
            continue
        cands = r.ranking.candidates if r.ranking is not None else []
        if r.case.covered:
            if not cands or cands[0].path not in r.case.expect:
                unreachable.append({"id": r.case.id, "top": cands[0].path if cands else None})
                continue
            group = out["real"]
        else:
            group = out["noise"]
        if not cands:
            group["coverage"].append(0.0)
            group["evidence"].append(0.0)
            continue
        top = cands[0]
        second = cands[1] if len(cands) > 1 else None
        group["coverage"].append(top.coverage)
        group["evidence"].append(top.evidence)
        group["lead"].append(lead(top, second))
    out["unreachable"] = len(unreachable)
    out["unreachable_cases"] = unreachable
    return out


#: Quantiles reported by ``tune``.
QUANTILES = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)


def quantiles(values: list[float], qs: tuple[float, ...] = QUANTILES) -> list[float | None]:
    """Nearest-rank quantiles (values may hold ``inf``); None for every q when ``values`` is empty."""
    if not values:
        return [None for _ in qs]
    v = sorted(values)
    return [v[min(len(v) - 1, max(0, round(q * (len(v) - 1))))] for q in qs]


@dataclass
class TuneReport:
    """What :func:`tune` found.

    ``results`` holds ``(settings, summary)`` for every setting tried; ``front`` the Pareto
    front as from :func:`pareto_front`; ``chosen`` / ``chosen_summary`` / ``rule`` the pick
    of :func:`choose`; ``current_summary`` the score of ``base``; ``features`` as from
    :func:`features`; times in milliseconds.
    """

    base: Settings
    cases: int
    results: list[tuple[Settings, dict[str, Any]]]
    front: list[tuple[Settings, dict[str, Any], int]]
    chosen: Settings
    chosen_summary: dict[str, Any]
    rule: str
    current_summary: dict[str, Any]
    features: dict[str, Any]
    rank_ms: float
    judge_ms: float

    def at_edge(self) -> list[str]:
        """Thresholds whose chosen value is the lowest or highest the grid tried (a wider grid
        may do better there)."""
        out = []
        for k in TUNED:
            tried = {getattr(s, k) for s, _ in self.results}
            if len(tried) > 1 and getattr(self.chosen, k) in (min(tried), max(tried)):
                out.append(k)
        return out

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (``inf`` leads become null)."""

        def th(s: Settings) -> dict[str, float]:
            return {k: getattr(s, k) for k in TUNED}

        def short(summ: dict[str, Any]) -> dict[str, Any]:
            return {k: v for k, v in summ.items() if k not in ("by_kind", "failures")}

        def fin(x: float | None) -> float | None:
            return None if x is None or math.isinf(x) else round(x, 4)

        dist = {
            g: {
                f: {"n": len(vals), "quantiles": dict(zip([str(q) for q in QUANTILES], map(fin, quantiles(vals))))}
                for f, vals in self.features[g].items()
            }
            for g in ("real", "noise")
        }
        return {
            "cases": self.cases,
            "settings_tried": len(self.results),
            "current": {"settings": th(self.base), "summary": short(self.current_summary)},
            "chosen": {
                "settings": th(self.chosen),
                "summary": short(self.chosen_summary),
                "rule": self.rule,
                "at_edge": self.at_edge(),
            },
            "pareto": [
                {"settings": th(s), "summary": short(summ), "same_rates": n} for s, summ, n in self.front
            ],
            "distributions": dist,
            "unreachable": self.features["unreachable"],
            "unreachable_cases": self.features["unreachable_cases"],
            "rank_ms": round(self.rank_ms, 1),
            "judge_ms": round(self.judge_ms, 1),
        }


def tune(
    conn: sqlite3.Connection,
    cases: list[Case],
    base: Settings | None = None,
    grid: list[Settings] | None = None,
) -> TuneReport:
    """Sweep the gate's thresholds on a labelled set: rank each case once, judge it under every
    setting of ``grid`` (default ``make_grid(base)``), and pick one with :func:`choose`.

    :raises NotesdbError: ``cases`` is empty
    """
    if not cases:
        raise NotesdbError("no cases to tune on")
    base = base or Settings()
    grid = grid if grid is not None else make_grid(base)
    ranked, results, rank_ms, judge_ms = _rank_and_sweep(conn, cases, grid, base)
    current = next((summ for s, summ in results if s == base), None)
    if current is None:
        current = score([judge_case(r, base) for r in ranked])
    if all(not c.covered for c in cases):
        chosen, chosen_summary, rule = choose_silent(results, base)
    else:
        chosen, chosen_summary, rule = choose(results, base)
    return TuneReport(
        base=base,
        cases=len(cases),
        results=results,
        front=pareto_front(results, base),
        chosen=chosen,
        chosen_summary=chosen_summary,
        rule=rule,
        current_summary=current,
        features=features(ranked),
        rank_ms=rank_ms,
        judge_ms=judge_ms,
    )


def write_gate(
    config: str | os.PathLike[str] | None, settings: Settings, keys: tuple[str, ...] = TUNED
) -> Path:
    """Save ``keys`` of ``settings`` into the ``[gate]`` table of the config file that
    ``notesdb.config.load_config(config)`` reads, keeping everything else as it was: other
    tables and keys, comments, order and layout (the file is edited with tomlkit, which keeps
    them), through a symbolic link to the file it names, with the file's mode kept. Creates the
    file (mode 0600) when missing.

    :returns: the path written
    :raises ConfigError: the existing file is not valid TOML, its ``gate`` is not a table, or
        it cannot be written
    """
    import tomlkit

    from notesdb.config import config_path, parse_toml

    path = config_path(config)
    try:  # a config file that is a link to one kept elsewhere is written there, link kept
        path = path.resolve() if path.is_symlink() else path
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        mode = 0o600
    text = ""
    try:
        raw = path.read_bytes()
        parse_toml(raw, path, refusing=", not overwriting it")  # the errors load_config gives
        text = raw.decode("utf-8").removeprefix("\ufeff")
    except FileNotFoundError:
        pass
    except OSError as e:
        raise ConfigError(f"config file cannot be read: {path} ({e.strerror})") from None
    doc = tomlkit.parse(text)
    if "gate" not in doc:
        doc.add("gate", tomlkit.table())
    gate = doc["gate"]
    if not isinstance(gate, dict):
        raise ConfigError(f"config file {path}: 'gate' is not a table")
    for k in keys:
        gate[k] = getattr(settings, k)
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(tomlkit.dumps(doc), encoding="utf-8")
        os.chmod(tmp, mode)  # the file keeps its mode (a new one: owner only)
        os.replace(tmp, path)
    except OSError as e:
        raise ConfigError(f"cannot write config file {path}: {e.strerror or e}") from None
    return path

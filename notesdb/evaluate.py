"""Judging notesdb on labelled messages (the format of ``fixtures/FORMAT.md``).

A cases file is JSON Lines: ``{"id", "message", "expect": [paths], "kind"}``. A case whose
``expect`` is not empty is *covered*: a *hit* when notesdb speaks and its first note is
expected, *wrong* when the first note is not, *missed* when it stays silent. A case with an
empty ``expect`` is *uncovered*: *silent* (right) or a *false alarm*.

- precision = named notes that are expected / all named notes (every note named counts)
- hit rate = hits / covered cases
- silence rate = silent / uncovered cases

``stretch-*`` kinds (meaning-only matches) are reported apart and left out of the headline.
Every case goes through :func:`notesdb.decide.decide`, the same judgement as the hook.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import sqlite3
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from notesdb.errors import CasesFileError, ConfigError, NotesdbError
from notesdb.gate import Decision, Settings, judge

__all__ = ["Case", "load_cases", "score", "evaluate", "Outcome"]


@dataclass(frozen=True)
class Case:
    """One labelled message."""

    id: str
    message: str
    expect: tuple[str, ...]
    kind: str = ""

    @property
    def covered(self) -> bool:
        """True when some note is a right answer."""
        return bool(self.expect)

    @property
    def stretch(self) -> bool:
        """True for ``stretch-*`` kinds, reported apart."""
        return self.kind.startswith("stretch")


@dataclass
class Outcome:
    """How one case went."""

    case: Case
    named: list[str]
    route: str
    result: str  # hit, wrong, missed, silent, false_alarm


def load_cases(path: str | Path) -> list[Case]:
    """Read a cases file.

    :raises CasesFileError: the file cannot be read, holds no case, or a line is not a valid
        case (the message names the line number)
    """
    p = Path(path)
    try:
        if p.exists() and not p.is_file():  # a fifo or a device would hang or fill memory
            raise CasesFileError(f"cases file is not a regular file: {p}")
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CasesFileError(f"cases file not found: {p}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CasesFileError(f"cases file cannot be read: {p} ({e})") from None
    cases: list[Case] = []
    seen: set[str] = set()
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise CasesFileError(f"{p}:{n}: not valid JSON ({e.args[0]})") from None
        if not isinstance(obj, dict):
            raise CasesFileError(f"{p}:{n}: a case must be a JSON object")
        cid, message, expect = obj.get("id"), obj.get("message"), obj.get("expect")
        if not isinstance(cid, (str, int)) or str(cid) == "":
            raise CasesFileError(f"{p}:{n}: missing 'id'")
        if not isinstance(message, str):
            raise CasesFileError(f"{p}:{n}: 'message' must be a string")
        if not isinstance(expect, list) or not all(isinstance(e, str) for e in expect):
            raise CasesFileError(f"{p}:{n}: 'expect' must be a list of note paths")
        if str(cid) in seen:
            raise CasesFileError(f"{p}:{n}: duplicate id {cid!r}")
        seen.add(str(cid))
        kind = obj.get("kind", "")
        cases.append(Case(str(cid), message, tuple(expect), kind if isinstance(kind, str) else ""))
    if not cases:
        raise CasesFileError(f"{p}: no cases (one JSON object a line: id, message, expect, kind)")
    return cases


def outcome(case: Case, named: list[str], route: str) -> Outcome:
    """Classify one case by the notes named (empty when silent)."""
    if case.covered:
        if not named:
            result = "missed"
        elif named[0] in case.expect:
            result = "hit"
        else:
            result = "wrong"
    else:
        result = "false_alarm" if named else "silent"
    return Outcome(case, list(named), route, result)


def score(outcomes: list[Outcome]) -> dict[str, Any]:
    """The summary of FORMAT.md: counts, precision, hit rate, silence rate, by kind, stretch.

    Rates of an empty denominator are reported as ``None``.
    """
    head = [o for o in outcomes if not o.case.stretch]
    stretch = [o for o in outcomes if o.case.stretch]
    count = lambda rs, r: sum(1 for o in rs if o.result == r)  # noqa: E731
    covered = [o for o in head if o.case.covered]
    uncovered = [o for o in head if not o.case.covered]
    named = sum(len(o.named) for o in head)
    right_named = sum(1 for o in head for p in o.named if p in o.case.expect)
    by_kind: dict[str, dict[str, int]] = {}
    for o in outcomes:
        k = by_kind.setdefault(o.case.kind or "-", {"cases": 0, "right": 0})
        k["cases"] += 1
        k["right"] += o.result in ("hit", "silent")

    def rate(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None

    return {
        "cases": len(head),
        "covered": len(covered),
        "uncovered": len(uncovered),
        "hits": count(head, "hit"),
        "wrong": count(head, "wrong"),
        "missed": count(head, "missed"),
        "silent": count(head, "silent"),
        "false_alarms": count(head, "false_alarm"),
        "named": named,
        "hit_rate": rate(count(head, "hit"), len(covered)),
        "precision": rate(right_named, named),
        "silence_rate": rate(count(head, "silent"), len(uncovered)),
        "by_kind": dict(sorted(by_kind.items())),
        "stretch": {"cases": len(stretch), "hits": count(stretch, "hit")},
    }


def evaluate(
    conn: sqlite3.Connection,
    cases: list[Case],
    settings: Settings,
    decide_fn: Callable[[sqlite3.Connection, str, Settings], Decision] | None = None,
) -> tuple[dict[str, Any], list[Outcome]]:
    """Run every case through the hook's judgement and score the set.

    :returns: (summary as from :func:`score` plus ``failures``, the outcomes)
    """
    if decide_fn is None:
        from notesdb.decide import decide as decide_fn  # type: ignore[assignment]
    outcomes = []
    for case in cases:
        d = decide_fn(conn, case.message, settings)  # type: ignore[misc]
        outcomes.append(outcome(case, d.notes if d.spoken else [], d.route))
    summary = score(outcomes)
    summary["failures"] = [
        {
            "id": o.case.id,
            "kind": o.case.kind,
            "result": o.result,
            "message": o.case.message[:200],
            "named": o.named,
            "expected": list(o.case.expect),
            "route": o.route,
        }
        for o in outcomes
        if o.result not in ("hit", "silent")
    ]
    return summary, outcomes


# --- Review and tuning on real messages: replay, labels, threshold sweeps -------------------

__all__ += [
    "Replayed",
    "replay",
    "replay_summary",
    "VERDICTS",
    "set_label",
    "unlabelled",
    "labelled_cases",
    "labels_jsonl",
    "export_labels",
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
    "features",
    "quantiles",
    "text_histogram",
    "TuneReport",
    "tune",
    "write_gate",
    "evidence_cap",
    "plot_tune",
]


@dataclass
class Replayed:
    """One logged decision, re-decided with the current notes and settings.

    ``before`` and ``after`` are ``{"spoken": bool, "notes": [paths], "route": str}``.
    """

    id: int
    time: str
    prompt: str
    before: dict[str, Any]
    after: dict[str, Any]

    @property
    def changed(self) -> bool:
        """True when what the assistant is shown differs: speaking or not, or the notes named."""
        b, a = self.before, self.after
        return (b["spoken"], b["notes"]) != (a["spoken"], a["notes"])

    @property
    def route_changed(self) -> bool:
        """True when the route (or the reason for silence) differs."""
        return self.before["route"] != self.after["route"]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: id, time, prompt, before, after, changed, route_changed."""
        return {
            "id": self.id,
            "time": self.time,
            "prompt": self.prompt,
            "before": self.before,
            "after": self.after,
            "changed": self.changed,
            "route_changed": self.route_changed,
        }


def replay(conn: sqlite3.Connection, settings: Settings, limit: int | None = None) -> list[Replayed]:
    """Re-decide the logged messages (decisions whose prompt was stored) with today's index.

    Each prompt goes through :func:`notesdb.decide.decide`, the hook's judgement. A prompt the
    hook stored shortened is replayed as stored.

    :param conn: an open notesdb database, synced with the notes if fresh answers are wanted
    :param settings: the gate settings to judge with
    :param limit: replay only the newest ``limit`` decisions; None for all
    :returns: one :class:`Replayed` per decision, newest first
    """
    from notesdb.decide import decide

    sql = (
        "SELECT id, time, prompt, spoken, notes, route FROM decisions "
        "WHERE prompt IS NOT NULL ORDER BY id DESC"
    )
    params: tuple[Any, ...] = ()
    if limit is not None:
        sql += " LIMIT ?"
        params = (limit,)
    out = []
    for did, when, prompt, spoken, notes, route in conn.execute(sql, params).fetchall():
        d = decide(conn, prompt, settings)
        before = {"spoken": bool(spoken), "notes": json.loads(notes or "[]") if spoken else [], "route": route}
        after = {"spoken": d.spoken, "notes": list(d.notes) if d.spoken else [], "route": d.route}
        out.append(Replayed(int(did), when, prompt, before, after))
    return out


def replay_summary(rows: list[Replayed]) -> dict[str, int]:
    """Counts for :func:`replay`: ``replayed``, ``changed``, ``unchanged`` and ``route_only``
    (unchanged answers whose route or silence reason differs; part of ``unchanged``)."""
    changed = sum(r.changed for r in rows)
    return {
        "replayed": len(rows),
        "changed": changed,
        "unchanged": len(rows) - changed,
        "route_only": sum(1 for r in rows if not r.changed and r.route_changed),
    }


#: Verdicts for a logged decision: ``right`` (what it did was right), ``wrong`` (it named a
#: note it should not have: the note that should have come, or silence), ``missed`` (it was
#: silent but a note covers the message).
VERDICTS = ("right", "wrong", "missed")


def _decision_row(conn: sqlite3.Connection, decision_id: int) -> dict[str, Any]:
    cur = conn.execute(
        "SELECT id, time, prompt, spoken, notes, route, label, label_note FROM decisions WHERE id = ?",
        (decision_id,),
    )
    row = cur.fetchone()
    if row is None:
        raise NotesdbError(f"no logged decision #{decision_id} (see 'notesdb label list')")
    item = dict(zip([c[0] for c in cur.description], row))
    item["spoken"] = bool(item["spoken"])
    item["notes"] = json.loads(item["notes"] or "[]") if item["spoken"] else []
    return item


def _check_note(conn: sqlite3.Connection, note: str) -> str:
    path = note.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    if conn.execute("SELECT 1 FROM notes WHERE path = ?", (path,)).fetchone():
        return path
    import difflib

    paths = [r[0] for r in conn.execute("SELECT path FROM notes")]
    close = difflib.get_close_matches(path, paths, n=3, cutoff=0.5)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise NotesdbError(f"no note {path!r} in the index: give its path relative to the notes folder{hint}")


def set_label(
    conn: sqlite3.Connection, decision_id: int, verdict: str, note: str | None = None
) -> dict[str, Any]:
    """Mark a logged decision right, wrong or missed (a new label replaces an old one).

    - ``right``: what it did was right (the first note named, or its silence); no ``note``.
    - ``wrong``: it spoke and should not have named that note: ``note`` is the note that
      should have come first, or None / ``""`` when it should have stayed silent.
    - ``missed``: it stayed silent and ``note`` covers the message (required).

    :param decision_id: the ``decisions.id`` (as shown by ``notesdb log`` / ``label list``)
    :param verdict: one of :data:`VERDICTS`
    :param note: a note path relative to the notes folder, as in the index
    :returns: the decision as a dict (``id``, ``time``, ``prompt``, ``spoken``, ``notes``,
        ``route``, ``label``, ``label_note``) after labelling
    :raises NotesdbError: an unknown verdict or decision, a decision whose prompt was not
        logged, a note not in the index, or a verdict that does not fit the decision
        (``wrong`` on a silent one, ``missed`` on a spoken one, ``right`` with a note)
    """
    if verdict not in VERDICTS:
        raise NotesdbError(f"verdict must be one of {', '.join(VERDICTS)}, not {verdict!r}")
    row = _decision_row(conn, decision_id)
    if row["prompt"] is None:
        raise NotesdbError(f"decision #{decision_id} has no logged message, so it cannot be labelled")
    note = (note or "").strip()
    if verdict == "right":
        if note:
            raise NotesdbError("'right' takes no --note: it says the decision was right as it was")
    elif verdict == "wrong":
        if not row["spoken"]:
            raise NotesdbError(
                f"decision #{decision_id} was silent: label it 'missed --note PATH' if a note covers it"
            )
        if note:
            note = _check_note(conn, note)
            if row["notes"] and note == row["notes"][0]:
                raise NotesdbError(f"{note} is the note it named first: label it 'right' instead")
    else:
        if row["spoken"]:
            raise NotesdbError(
                f"decision #{decision_id} spoke: label it 'wrong --note PATH' if another note should have come"
            )
        if not note:
            raise NotesdbError("'missed' needs --note PATH: the note that covers the message")
        note = _check_note(conn, note)
    conn.execute("UPDATE decisions SET label = ?, label_note = ? WHERE id = ?", (verdict, note, decision_id))
    return _decision_row(conn, decision_id)


def unlabelled(conn: sqlite3.Connection, limit: int = 20) -> list[dict[str, Any]]:
    """The newest logged decisions with a message and no label, newest first.

    :returns: dicts with ``id``, ``time``, ``prompt``, ``spoken``, ``notes`` (list), ``route``,
        ``label``, ``label_note``
    """
    ids = [
        r[0]
        for r in conn.execute(
            "SELECT id FROM decisions WHERE prompt IS NOT NULL AND label = '' ORDER BY id DESC LIMIT ?",
            (limit,),
        )
    ]
    return [_decision_row(conn, i) for i in ids]


def _labelled(conn: sqlite3.Connection) -> list[tuple[Case, str]]:
    ids = [
        r[0]
        for r in conn.execute(
            "SELECT id FROM decisions WHERE label != '' AND prompt IS NOT NULL ORDER BY id"
        )
    ]
    out = []
    for i in ids:
        row = _decision_row(conn, i)
        label, note, named = row["label"], row["label_note"], row["notes"]
        said = f"named {named[0]}" if row["spoken"] and named else "silent"
        if label == "right":
            expect = [named[0]] if row["spoken"] and named else []
        elif label == "wrong":
            expect = [note] if note else []
        elif label == "missed":
            expect = [note] if note else []
        else:
            continue
        why = f"logged decision #{i} at {row['time'][:19]}: {said}, labelled {label}"
        kind = "hit" if expect else "quiet-uncovered"
        out.append((Case(f"log/{i}", row["prompt"], tuple(expect), kind), why))
    return out


def labelled_cases(conn: sqlite3.Connection) -> list[Case]:
    """Labelled decisions as cases, oldest first.

    right + spoken -> expect [the first note named]; right + silent -> []; wrong with a note ->
    [note]; wrong without -> [] (it should have been silent); missed -> [note]. Ids are
    ``log/<decision id>``; kind is ``hit`` when something is expected, else ``quiet-uncovered``.
    """
    return [c for c, _ in _labelled(conn)]


def labels_jsonl(conn: sqlite3.Connection) -> tuple[str, list[Case]]:
    """The labelled decisions as the text of a cases file (FORMAT.md), and the cases."""
    pairs = _labelled(conn)
    lines = [
        json.dumps(
            {"id": c.id, "message": c.message, "expect": list(c.expect), "kind": c.kind, "why": why},
            ensure_ascii=False,
        )
        for c, why in pairs
    ]
    return "".join(line + "\n" for line in lines), [c for c, _ in pairs]


def export_labels(conn: sqlite3.Connection, path: str | os.PathLike[str]) -> list[Case]:
    """Write the labelled decisions to a cases file (replacing it) that :func:`load_cases` reads.

    :returns: the cases written
    :raises NotesdbError: the file cannot be written
    """
    text, cases = labels_jsonl(conn)
    p = Path(path)
    try:
        p.write_text(text, encoding="utf-8")
    except OSError as e:
        raise NotesdbError(f"cannot write {p}: {e.strerror or e}") from None
    return cases


#: The gate's main thresholds, most important first; ``tune`` sweeps those that ``Settings``
#: has, at most ``MAX_TUNED`` of them (the other fields stay as configured).
_MAIN_THRESHOLDS = (
    "strong_coverage",
    "lead_coverage",
    "lead_ratio",
    "rare_coverage",
    "min_evidence",
    "strong_evidence",
    "rare_weight",
    "lead_evidence",
)
MAX_TUNED = 6
TUNED: tuple[str, ...] = tuple(
    k for k in _MAIN_THRESHOLDS if k in Settings.__dataclass_fields__
)[:MAX_TUNED]

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
        "evidence": {k: v for k, v in have.items() if k in ("min_evidence", "strong_evidence", "lead_evidence")},
        "lead": {k: v for k, v in have.items() if k == "lead_ratio"},
    }


@dataclass
class Ranked:
    """One case ranked once (``notesdb.decide.decide_with_ranking``), to be judged many times.

    ``ranking`` is None for a message that is never judged (a slash command).
    """

    case: Case
    ranking: Any  # notesdb.rank.Ranking | None
    n_notes: int


def rank_cases(conn: sqlite3.Connection, cases: list[Case], settings: Settings | None = None) -> list[Ranked]:
    """Rank every case once; the ranking does not depend on the gate's thresholds.

    :returns: one :class:`Ranked` per case, in order
    """
    from notesdb.decide import decide_with_ranking
    from notesdb.store import note_count

    settings = settings or Settings()
    n = note_count(conn)
    return [Ranked(c, decide_with_ranking(conn, c.message, settings)[1], n) for c in cases]


def judge_case(ranked: Ranked, settings: Settings) -> Outcome:
    """Judge one ranked case under ``settings`` (``gate.judge``) and classify it (:func:`outcome`)."""
    if ranked.ranking is None:
        return outcome(ranked.case, [], "slash-command")
    d = judge(ranked.ranking, ranked.n_notes, settings)
    return outcome(ranked.case, d.notes if d.spoken else [], d.route)


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
    return [replace(base, **dict(zip(keys, combo))) for combo in itertools.product(*values)]


def sweep_ranked(ranked: list[Ranked], grid: list[Settings]) -> list[tuple[Settings, dict[str, Any]]]:
    """Judge already ranked cases under each setting of ``grid``.

    :returns: ``(settings, summary)`` per setting, in grid order; summaries as from :func:`score`
    """
    return [(s, score([judge_case(r, s) for r in ranked])) for s in grid]


def sweep(
    conn: sqlite3.Connection, cases: list[Case], grid: list[Settings], base: Settings | None = None
) -> list[tuple[Settings, dict[str, Any]]]:
    """Score ``cases`` under every setting of ``grid``, ranking each case only once.

    The result for a setting equals ``evaluate(conn, cases, setting)[0]`` without ``failures``.

    :param grid: settings to try, e.g. from :func:`make_grid`
    :param base: settings passed to the ranking step (it does not read the thresholds)
    :returns: ``(settings, summary)`` per setting, in grid order
    """
    return sweep_ranked(rank_cases(conn, cases, base), grid)


def _rates(summary: dict[str, Any]) -> tuple[float, float, float]:
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
        groups.setdefault(_rates(summ), []).append((s, summ))
    keys = list(groups)
    front = []
    for k in keys:
        dominated = any(
            o != k and all(a >= b for a, b in zip(o, k)) for o in keys
        )
        if not dominated:
            s, summ = min(groups[k], key=lambda r: _distance(r[0], base))
            front.append((s, summ, len(groups[k])))
    front.sort(key=lambda r: (-_rates(r[1])[1], -_rates(r[1])[0], -_rates(r[1])[2]))
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
        if r[1]["precision"] is not None and _rates(r[1])[0] >= min_precision and _rates(r[1])[2] >= min_silence
    ]
    if ok:
        rule = (
            f"best hit rate with precision >= {min_precision:g} and silence rate >= {min_silence:g}"
        )
        s, summ = max(ok, key=lambda r: (*(_rates(r[1])[i] for i in (1, 0, 2)), -_distance(r[0], base)))
        return s, summ, rule

    def hmean(r: tuple[Settings, dict[str, Any]]) -> float:
        vals = _rates(r[1])
        return 0.0 if min(vals) <= 0 else len(vals) / sum(1 / v for v in vals)

    rule = (
        f"no setting reaches precision >= {min_precision:g} and silence rate >= {min_silence:g}: "
        "best harmonic mean of precision, hit rate and silence rate"
    )
    s, summ = max(results, key=lambda r: (hmean(r), _rates(r[1])[0], _rates(r[1])[2], -_distance(r[0], base)))
    return s, summ, rule


def features(ranked: list[Ranked]) -> dict[str, Any]:
    """The top candidate's coverage, evidence and lead over the second (evidence ratio; inf
    with no second), for real matches (covered cases whose top candidate is expected) and
    noise (uncovered cases; with no candidate, coverage and evidence are 0 and lead is left
    out). ``stretch-*`` cases are left out.

    :returns: ``{"real": {"coverage": [..], "evidence": [..], "lead": [..]}, "noise": {...},
        "unreachable": covered cases whose top candidate is not expected}``
    """
    out: dict[str, Any] = {
        g: {"coverage": [], "evidence": [], "lead": []} for g in ("real", "noise")
    }
    unreachable = 0
    for r in ranked:
        if r.case.stretch:
            continue
        cands = r.ranking.candidates if r.ranking is not None else []
        if r.case.covered:
            if not cands or cands[0].path not in r.case.expect:
                unreachable += 1
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
        group["lead"].append(
            math.inf if second is None or second.evidence <= 0 else top.evidence / second.evidence
        )
    out["unreachable"] = unreachable
    return out


#: Quantiles reported by ``tune``.
QUANTILES = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)


def quantiles(values: list[float], qs: tuple[float, ...] = QUANTILES) -> list[float | None]:
    """Nearest-rank quantiles (values may hold ``inf``); None for every q when ``values`` is empty."""
    if not values:
        return [None for _ in qs]
    v = sorted(values)
    return [v[min(len(v) - 1, max(0, round(q * (len(v) - 1))))] for q in qs]


def text_histogram(
    real: list[float],
    noise: list[float],
    lo: float,
    hi: float,
    bins: int = 10,
    width: int = 24,
    marks: dict[str, float] | None = None,
    top_open: bool = False,
) -> list[str]:
    """Two side-by-side text histograms (``#`` real, ``=`` noise) over ``[lo, hi)``.

    Values at or above ``hi`` (and ``inf``) go to the last bin, whose label then reads ``hi+``
    when ``top_open``. ``marks`` names thresholds; a bin holding one is tagged ``<- name v``.

    :returns: lines, one per bin
    """
    step = (hi - lo) / bins if hi > lo else 1.0

    def counts(vals: list[float]) -> list[int]:
        c = [0] * bins
        for x in vals:
            i = bins - 1 if x >= hi else max(0, int((x - lo) / step))
            c[min(i, bins - 1)] += 1
        return c

    cr, cn = counts(real), counts(noise)
    peak = max(cr + cn + [1])
    lines = []
    for i in range(bins):
        a, b = lo + i * step, lo + (i + 1) * step
        label = f"{a:5.2f}+     " if top_open and i == bins - 1 else f"{a:5.2f}-{b:<5.2f}"
        bar_r = "#" * math.ceil(cr[i] * width / peak) if cr[i] else ""
        bar_n = "=" * math.ceil(cn[i] * width / peak) if cn[i] else ""
        tag = ", ".join(
            f"{name} {v:g}" for name, v in (marks or {}).items()
            if a <= v < b or (i == bins - 1 and v >= b)
        )
        line = f"  {label} {cr[i]:>4} {bar_r:<{width}} {cn[i]:>4} {bar_n:<{width}}"
        lines.append((line + (f" <- {tag}" if tag else "")).rstrip())
    return lines


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
    t0 = time.perf_counter()
    ranked = rank_cases(conn, cases, base)
    t1 = time.perf_counter()
    results = sweep_ranked(ranked, grid)
    t2 = time.perf_counter()
    chosen, chosen_summary, rule = choose(results, base)
    current = next((summ for s, summ in results if s == base), None)
    if current is None:
        current = score([judge_case(r, base) for r in ranked])
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
        rank_ms=(t1 - t0) * 1000,
        judge_ms=(t2 - t1) * 1000,
    )


def write_gate(
    config: str | os.PathLike[str] | None, settings: Settings, keys: tuple[str, ...] = TUNED
) -> Path:
    """Save ``keys`` of ``settings`` into the ``[gate]`` table of the config file that
    ``notesdb.config.load_config(config)`` reads, keeping every other table and key (comments
    are not kept: the file is rewritten with tomli-w). Creates the file when missing.

    :returns: the path written
    :raises ConfigError: the existing file is not valid TOML, its ``gate`` is not a table, or
        it cannot be written
    """
    import tomllib

    import tomli_w

    from notesdb.config import config_path

    path = config_path(config)
    data: dict[str, Any] = {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        pass
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"config file {path} is not valid TOML, not overwriting it: {e}") from None
    except OSError as e:
        raise ConfigError(f"config file cannot be read: {path} ({e.strerror})") from None
    gate = data.setdefault("gate", {})
    if not isinstance(gate, dict):
        raise ConfigError(f"config file {path}: 'gate' is not a table")
    for k in keys:
        gate[k] = getattr(settings, k)
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(tomli_w.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as e:
        raise ConfigError(f"cannot write config file {path}: {e.strerror or e}") from None
    return path


def evidence_cap(report: TuneReport) -> float:
    """Where charts of top evidence stop (it has a long tail): about its 90th percentile, and
    beyond every evidence threshold, at least 10."""
    ev = report.features["real"]["evidence"] + report.features["noise"]["evidence"]
    top = max([quantiles(ev, (0.9,))[0] or 0.0] + [1.5 * v for v in threshold_marks(report.base)["evidence"].values()])
    return float(max(10, 2 * math.ceil(top / 2)))


def plot_tune(report: TuneReport, path: str | os.PathLike[str]) -> Path:
    """Draw ``report`` to a PNG: histograms of top coverage, evidence and lead (real against
    noise, with the current thresholds) and hit rate against precision for every setting.

    :returns: the path written
    :raises NotesdbError: matplotlib is not installed (``pip install 'notesdb[plot]'``) or the
        file cannot be written
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise NotesdbError("--plot needs matplotlib: pip install 'notesdb[plot]'") from None
    f = report.features
    marks = threshold_marks(report.base)
    fig, axs = plt.subplots(2, 2, figsize=(11, 8))
    ev_cap = evidence_cap(report)
    panels = [
        ("coverage", "top coverage", marks["coverage"], 0.0, 1.0),
        ("evidence", f"top evidence (capped at {ev_cap:g})", marks["evidence"], 0.0, ev_cap),
        ("lead", "lead over the second (capped at 6; inf: no second)", marks["lead"], 1.0, 6.0),
    ]
    for ax, (key, title, mark, lo, cap) in zip(axs.flat, panels):
        real = [min(x, cap) for x in f["real"][key]]
        noise = [min(x, cap) for x in f["noise"][key]]
        bins = [lo + (cap - lo) * i / 20 for i in range(21)]
        ax.hist(real, bins=bins, alpha=0.6, label=f"real matches (n={len(real)})")
        ax.hist(noise, bins=bins, alpha=0.6, label=f"noise (n={len(noise)})")
        for name, v in mark.items():
            ax.axvline(v, linestyle="--", color="black", linewidth=1)
            ax.text(v, ax.get_ylim()[1] * 0.95, f" {name}", fontsize=8, va="top")
        ax.set_title(title)
        ax.legend(fontsize=8)
    ax = axs.flat[3]
    pts = [_rates(summ) for _, summ in report.results]
    sc = ax.scatter([p for p, _, _ in pts], [h for _, h, _ in pts], c=[s for _, _, s in pts], cmap="viridis", s=12)
    fig.colorbar(sc, ax=ax, label="silence rate")
    cp, ch, _ = _rates(report.chosen_summary)
    bp, bh, _ = _rates(report.current_summary)
    ax.scatter([bp], [bh], marker="s", facecolors="none", edgecolors="black", s=80, label="current")
    ax.scatter([cp], [ch], marker="*", color="red", s=140, label="chosen")
    ax.set_xlabel("precision")
    ax.set_ylabel("hit rate")
    ax.set_title(f"{len(report.results)} settings")
    ax.legend(fontsize=8)
    fig.tight_layout()
    p = Path(path)
    try:
        fig.savefig(p, dpi=100)
    except OSError as e:
        raise NotesdbError(f"cannot write {p}: {e.strerror or e}") from None
    finally:
        plt.close(fig)
    return p

#!/usr/bin/env python3
"""Choose the gate's settings on the tuning halves of the labelled sets; report the check halves
and leave-one-set-out.

    .venv/bin/python bench/choose.py [--sets personal,chat,...] [--keep DIR] [--json OUT]
                                     [--config-out FILE] [--loso] [--rounds 3] [--gate-only]
                                     [--axes strong_held,strong_held_lead]

The split is ``bench/judgement.py``'s: a case is in the *tune* half when the first byte of
``sha256("notesdb-judgement/" + id)`` is even, else in the *check* half. Settings are chosen on
tune halves only; check halves are only reported.

How a setting is chosen (:func:`objective`): each set has floors (:data:`TARGETS`, the targets
the project holds itself to; sets without targets of their own get :data:`DEFAULT_FLOORS`).
A setting's *shortfall* is the sum over sets and floors of how far its rate falls below the
floor; among the settings with the least shortfall, the one with the best mean hit rate over
the sets that have covered cases wins, then the best mean precision, then the one nearest the
starting settings. The search is coordinate descent over :data:`AXES` (each axis swept with
the others fixed, ``--rounds`` passes), starting from ``Settings()``; scoring axes re-rank the
cases (cached per distinct set of scoring weights).

Leave-one-set-out (``--loso``): for each set, settings chosen on the tune halves of all the
other sets, figures on the whole left-out set (it took no part in choosing them).

``household2`` and ``devnotes`` are held out always (``tests/data/README.md``: do not tune on them): their figures
are reported, they never take part in choosing. Sets are indexed through the console script
(``notesdb index``) and judged in process with ``notesdb.tune`` (the same ``gate.verdict`` the
hook runs).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import judgement as jm  # noqa: E402

from notesdb.cases import Case  # noqa: E402
from notesdb.db import open_db  # noqa: E402
from notesdb.gate import verdict  # noqa: E402
from notesdb.meter import generic_messages  # noqa: E402
from notesdb.settings import SCORING, Settings  # noqa: E402
from notesdb.tune import Ranked, rank_cases  # noqa: E402

#: Floors per set: the project's targets (precision, hit rate, silence rate).
TARGETS: dict[str, dict[str, float]] = {
    "personal": {"precision": 0.97, "hit_rate": 0.90, "silence_rate": 0.97},
    "chat": {"silence_rate": 0.99},
    "memory": {"precision": 0.90, "hit_rate": 0.40},
    "til": {"precision": 0.85},
    "tech": {"silence_rate": 0.97, "precision": 0.50},
}
#: Floors for a set without targets of its own (folders, tiny): those of a careful tool.
DEFAULT_FLOORS: dict[str, float] = {"precision": 0.90, "silence_rate": 0.95}
#: Never chosen on.
HELD_OUT = ("household2", "devnotes")
#: The bundled generic messages (``notesdb.meter``) run against each set's folder form a
#: silence set ``<set>+generic`` whose floor is the meter's warning line: silence >= 0.97.
GENERIC_FLOORS: dict[str, float] = {"silence_rate": 0.97}

#: Values tried per setting in the coordinate descent.
AXES: dict[str, tuple[float, ...]] = {
    "min_lead": (1.0, 1.1, 1.2, 1.3, 1.5, 1.75, 2.0),
    "strong_evidence": (4.0, 4.5, 5.0, 5.5, 6.0, 7.0, 8.0),
    "strong_coverage": (0.1, 0.15, 0.2, 0.25, 0.3, 0.4),
    "lead_ratio": (1.25, 1.5, 1.75, 2.0, 2.5, 3.0),
    "lead_evidence": (2.5, 3.0, 3.5, 4.0, 4.5, 5.0),
    "lead_coverage": (0.25, 0.3, 0.35, 0.4, 0.5, 0.6),
    "rare_weight": (2.0, 2.5, 3.0, 3.5),
    "rare_coverage": (0.35, 0.4, 0.5, 0.6, 0.7, 0.8),
    "margin_evidence": (1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 99.0),
    "margin_coverage": (0.3, 0.4, 0.5, 0.6, 0.7, 0.8),
    "about_weight": (0.5, 1.0, 1.5, 2.0),
    "about_min_lead": (1.25, 1.5, 2.0),
    "about_lead_cap": (3.0, 4.0, 6.0),
    "about_evidence": (4.5, 5.0, 5.5, 6.0, 7.0, 8.0, 99.0),
    "about_held": (0.5, 0.6, 0.7, 0.8, 0.9),
    "strong_min_lead": (1.1, 1.2, 1.3, 1.5),
    "strong_held": (0.0, 0.4, 0.45, 0.5, 0.55, 0.6),
    "strong_held_lead": (1.2, 1.3, 1.4, 1.5),
    "ahead_min_lead": (1.25, 1.35, 1.5, 1.75, 2.0),
    "ahead_coverage": (0.4, 0.45, 0.5, 0.55, 0.6, 0.7),
    "ahead_evidence": (4.0, 4.5, 5.0, 5.5, 6.0, 7.0, 8.0, 99.0),
    "ahead_lead_cap": (2.5, 3.0, 4.0),
    "ahead_words": (1, 2, 3),
    "sole_min_lead": (1.5, 2.0, 2.5, 3.0),
    "named_min_lead": (1.1, 1.3, 1.5, 2.0, 99.0),
    "named_coverage": (0.0, 0.1, 0.2, 0.3, 0.4),
    "sole_held": (0.6, 0.7, 0.75, 0.8, 0.85, 0.9),
    "sole_doc_freq": (0, 1, 2, 3),
    "sole_max_zipf": (2.0, 3.0, 3.5, 4.0),
    "subject_held": (0.8, 0.9, 1.0, 1.1),
    "subject_max_zipf": (2.5, 3.0, 3.5, 4.0, 4.5),
    "subject_min_lead": (1.1, 1.25, 1.5, 2.0, 99.0),
    "tie_max_zipf": (0.0, 2.5, 3.0, 3.5, 4.0),
    "title_share": (0.25, 0.34, 0.5, 0.67),
    "title_held": (0.0, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7),
    "off_title_words": (0, 6, 8, 10, 12),
    "extra_share": (0.6, 0.7, 0.85, 1.0),
    "extra_evidence": (1.5, 2.5, 3.5, 5.0, 99.0),
    # scoring: each value re-ranks every case
    "body_place": (0.35, 0.5, 0.65),
    "body_saturation": (0.5, 0.6, 0.75, 0.85, 1.0, 1.25),
    "headings_saturation": (0.5, 0.6, 0.75, 0.85, 1.0, 1.25),
    "english_midpoint": (4.4, 4.8, 5.2),
    "english_slope": (1.5, 2.0, 3.0),
    "reference_notes": (100, 300, 1000),
    "prefix_max_zipf": (3.0, 3.5, 4.0, 4.5, 5.0),
    "correct_max_zipf": (3.0, 3.5, 4.0, 4.5, 5.0),
    "correct_min_gain": (-99.0, 0.0, 0.5, 1.0, 1.5, 2.0),
    "phrase_weight": (0.0, 0.25, 0.5, 0.75, 1.0),
}


def split(cases: list[dict[str, Any]]) -> dict[str, list[Case]]:
    """Cases by half (``tune`` / ``check``), as :class:`notesdb.cases.Case`."""
    out: dict[str, list[Case]] = {"tune": [], "check": []}
    for c in cases:
        kind = c.get("kind", "")
        case = Case(str(c["id"]), c["message"], tuple(c["expect"]), kind if isinstance(kind, str) else "")
        out[jm.half_of(case.id)].append(case)
    return out


def summarise(ranked: list[Ranked], s: Settings) -> dict[str, Any]:
    """Counts and rates of ``ranked`` judged under ``s`` (``stretch-*`` cases left out)."""
    hits = wrong = missed = silent = alarms = named = right = covered = uncovered = 0
    for r in ranked:
        case = r.case
        if case.stretch:
            continue
        notes = [c.path for c in verdict(r.ranking, s)[1]] if r.ranking is not None else []
        named += len(notes)
        right += sum(1 for p in notes if p in case.expect)
        if case.covered:
            covered += 1
            if not notes:
                missed += 1
            elif notes[0] in case.expect:
                hits += 1
            else:
                wrong += 1
        else:
            uncovered += 1
            if notes:
                alarms += 1
            else:
                silent += 1
    return {
        "covered": covered, "uncovered": uncovered, "hits": hits, "wrong": wrong, "missed": missed,
        "false_alarms": alarms,
        "precision": right / named if named else None,
        "hit_rate": hits / covered if covered else None,
        "silence_rate": silent / uncovered if uncovered else None,
    }


class Pool:
    """The labelled sets, indexed once, with each half ranked once per set of scoring weights."""

    def __init__(self, names: list[str], work: Path, cmd: list[str], env: dict[str, str]) -> None:
        self.halves: dict[str, dict[str, list[Case]]] = {}
        self.conns = {}
        self.notes: dict[str, int] = {}
        self._ranked: dict[tuple[Any, ...], list[Ranked]] = {}
        jm.build_made(names, work / "made")
        for name in names:
            vault, cases_path = jm.locate(name, work / "made")
            db = work / f"{name}.db"
            idx, err = jm.run_json(cmd + ["index", "--notes", str(vault), "--db", str(db), "--json"], env)
            if err:
                sys.exit(f"Error: index {name}: {err}")
            self.notes[name] = idx["notes"]
            self.conns[name] = open_db(db)
            self.halves[name] = split(jm.read_cases(cases_path))
            if name != "chat":  # chat's folder is personal's
                gname = name + "+generic"
                self.conns[gname] = self.conns[name]
                self.halves[gname] = split(
                    [{"id": m["id"], "message": m["text"], "expect": [], "kind": "generic"}
                     for m in generic_messages()]
                )

    def ranked(self, name: str, half: str, s: Settings) -> list[Ranked]:
        key = (name, half, tuple(getattr(s, k) for k in SCORING))
        if key not in self._ranked:
            cases = self.halves[name]["tune"] + self.halves[name]["check"] if half == "all" else self.halves[name][half]
            self._ranked[key] = rank_cases(self.conns[name], cases, s)
        return self._ranked[key]

    def figures(self, name: str, half: str, s: Settings) -> dict[str, Any]:
        return summarise(self.ranked(name, half, s), s)


def shortfall(name: str, f: dict[str, Any]) -> float:
    """How far the rates in ``f`` fall below the floors of set ``name`` (0 when all are met)."""
    floors = GENERIC_FLOORS if name.endswith("+generic") else TARGETS.get(name, DEFAULT_FLOORS)
    return sum(max(0.0, v - f[k]) for k, v in floors.items() if f.get(k) is not None)


def _distance(s: Settings, base: Settings) -> float:
    return sum(
        abs(getattr(s, k) - getattr(base, k)) / max(abs(getattr(base, k)), 1e-9) for k in AXES
    )


def objective(pool: Pool, names: list[str], s: Settings, base: Settings) -> tuple[float, ...]:
    """Bigger is better: (-shortfall, mean hit rate, mean precision, -distance from ``base``)."""
    figs = {n: pool.figures(n, "tune", s) for n in names}
    short = sum(shortfall(n, f) for n, f in figs.items())
    hr = [f["hit_rate"] for f in figs.values() if f["hit_rate"] is not None]
    pr = [f["precision"] for f in figs.values() if f["precision"] is not None]
    return (
        -round(short, 6),
        round(sum(hr) / len(hr), 6) if hr else 0.0,
        round(sum(pr) / len(pr), 6) if pr else 0.0,
        -_distance(s, base),
    )


def descend(pool: Pool, names: list[str], base: Settings, rounds: int, log: bool = True) -> Settings:
    """Coordinate descent over :data:`AXES` from ``base``, on the tune halves of ``names``."""
    best = base
    best_obj = objective(pool, names, best, base)
    for r in range(rounds):
        changed = False
        for axis, values in AXES.items():
            cast = int if isinstance(getattr(base, axis), int) else float
            for v in values:
                cand = replace(best, **{axis: cast(v)})
                if cand == best:
                    continue
                o = objective(pool, names, cand, base)
                if o > best_obj:
                    best, best_obj, changed = cand, o, True
        if log:
            print(f"  round {r + 1}: shortfall {-best_obj[0]:.3f}, mean hit rate {best_obj[1]:.3f}, "
                  f"mean precision {best_obj[2]:.3f}", file=sys.stderr)
        if not changed:
            break
    return best


def fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def table(rows: list[tuple[str, str, dict[str, Any]]]) -> str:
    out = ["| set | half | covered | uncovered | precision | hit rate | silence | wrong | false al. |",
           "|---|---|---|---|---|---|---|---|---|"]
    for name, half, f in rows:
        out.append(f"| {name} | {half} | {f['covered']} | {f['uncovered']} | {fmt(f['precision'])} | "
                   f"{fmt(f['hit_rate'])} | {fmt(f['silence_rate'])} | {f['wrong']} | {f['false_alarms']} |")
    return "\n".join(out)


def changed(s: Settings, base: Settings) -> dict[str, Any]:
    return {f.name: getattr(s, f.name) for f in fields(s) if getattr(s, f.name) != getattr(base, f.name)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default=",".join(jm.ALL_SETS))
    ap.add_argument("--keep", type=Path, help="keep built sets and databases in DIR (reused)")
    ap.add_argument("--json", dest="json_out", type=Path)
    ap.add_argument("--config-out", type=Path, help="write the chosen settings as a [gate] table here")
    ap.add_argument("--loso", action="store_true", help="also leave-one-set-out")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--gate-only", action="store_true",
                    help="sweep only the gate's thresholds, not the scoring weights (no re-ranking)")
    ap.add_argument("--axes", help="sweep only these settings (comma-separated names of AXES)")
    ap.add_argument("--notesdb", help="the notesdb console script (default: this venv's)")
    args = ap.parse_args(argv)
    names = [s for s in args.sets.split(",") if s]
    tmp = Path(tempfile.mkdtemp(prefix="notesdb-choose-"))
    work = args.keep.resolve() if args.keep else tmp
    work.mkdir(parents=True, exist_ok=True)
    (tmp / "config-home").mkdir(exist_ok=True)
    env = jm.child_env(tmp / "config-home")
    start = time.perf_counter()
    try:
        pool = Pool(names, work, jm.notesdb_command(args.notesdb), env)
        chosen_on = [n for n in pool.halves if n.split("+")[0] not in HELD_OUT]
        base = Settings()
        print(f"choosing on the tune halves of {', '.join(chosen_on)}", file=sys.stderr)
        if args.gate_only:
            for axis in SCORING:
                AXES.pop(axis, None)
        if args.axes:
            wanted = [a for a in args.axes.split(",") if a]
            unknown = [a for a in wanted if a not in AXES]
            if unknown:
                sys.exit(f"Error: unknown axes {', '.join(unknown)} (known: {', '.join(AXES)})")
            for axis in list(AXES):
                if axis not in wanted:
                    AXES.pop(axis)
        chosen = descend(pool, chosen_on, base, args.rounds)
        rows = []
        for n in pool.halves:
            for half in ("tune", "check"):
                rows.append((n, half, pool.figures(n, half, base), pool.figures(n, half, chosen)))
        print("\nchosen (differences from the defaults):", json.dumps(changed(chosen, base)))
        print("\nbefore (defaults):")
        print(table([(n, h, b) for n, h, b, _ in rows]))
        print("\nafter (chosen on tune halves):")
        print(table([(n, h, a) for n, h, _, a in rows]))
        loso = []
        if args.loso:
            for left in [n for n in chosen_on if "+" not in n]:
                others = [n for n in chosen_on if n.split("+")[0] != left]
                print(f"leave out {left}", file=sys.stderr)
                s = descend(pool, others, base, args.rounds, log=False)
                loso.append((left, "all", pool.figures(left, "all", s), changed(s, chosen)))
            print("\nleave-one-set-out (settings chosen without the set; figures on the whole set):")
            print(table([(n, h, f) for n, h, f, _ in loso]))
            for n, _, _, d in loso:
                print(f"  without {n}: differs from the chosen settings in {json.dumps(d)}")
        if args.config_out:
            lines = ["[gate]"] + [f"{k} = {v!r}" for k, v in changed(chosen, base).items()]
            args.config_out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        if args.json_out:
            args.json_out.write_text(json.dumps({
                "chosen": asdict(chosen),
                "rows": [{"set": n, "half": h, "before": b, "after": a} for n, h, b, a in rows],
                "loso": [{"set": n, "figures": f, "differs": d} for n, _, f, d in loso],
            }, indent=2) + "\n", encoding="utf-8")
        print(f"\n{time.perf_counter() - start:.0f} s", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

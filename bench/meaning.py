#!/usr/bin/env python3
"""Choose the thresholds of matching by meaning on the tuning halves; report the check halves
with and without it.

    .venv/bin/python bench/meaning.py [--sets personal,chat,...] [--keep DIR] [--json OUT]

Needs the ``meaning`` extra. The split is ``bench/judgement.py``'s (tune: first byte of
``sha256("notesdb-judgement/" + id)`` even). Each set is indexed through the console script
(``notesdb index``), its notes embedded in process (``notesdb.meaning.Meaning.refresh_db``,
timed), and every case judged once lexically (``notesdb.decide.decide``) and once by meaning
(the nearest notes and the cosine of the lexical choice). The route and veto of
``notesdb.meaning.apply`` are then replayed for every threshold on the grid (:func:`outcome_of`
mirrors ``apply``; ``bench/judgement.py --config`` with ``[meaning] enabled = true`` gives the
real figures through ``notesdb eval``).

Each folder is also judged on the bundled generic messages (``notesdb.meter``): a silence set
``<set>+generic``. household2 is held out (never chosen on), as in ``bench/choose.py``.

How thresholds are chosen, on the tune halves of every set but household2, generic sets
included: *gain* = hits + stretch hits, *errors* = wrong notes + false alarms, summed over the
sets; a setting's score is gain - ``ERROR_COST`` x errors, relative to the lexical judgement.
First the veto (route off), then the route's cosine and margin (with that veto). Ties go to the
more conservative setting (a lower veto, a higher cosine, a higher margin). A rule that does
not score above zero is left off.

With ``--keep DIR`` the databases (and their vectors) are kept and reused by the next run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import judgement as jm  # noqa: E402

from notesdb.cases import Case, outcome, score  # noqa: E402
from notesdb.db import open_db  # noqa: E402
from notesdb.decide import decide  # noqa: E402
from notesdb.meaning import Meaning, Nearest  # noqa: E402
from notesdb.meter import generic_messages  # noqa: E402
from notesdb.settings import Settings  # noqa: E402

#: An error (wrong note, false alarm) costs this many hits: an eager tool is worse than none.
ERROR_COST = 2.0
HELD_OUT = ("household2",)
COSINES = [round(0.30 + 0.01 * i, 2) for i in range(31)]  # 0.30 .. 0.60
MARGINS = [round(0.01 * i, 2) for i in range(21)]  # 0 .. 0.20
VETOES = [round(0.05 * i, 2) for i in range(10)]  # 0 .. 0.45
OFF = 2.0  # a cosine no pair of unit vectors reaches: the route is off


@dataclass
class Judged:
    case: Case
    half: str
    lexical: list[str]
    route: str
    near: Nearest


def outcome_of(j: Judged, cos_t: float, margin_t: float, veto: float) -> list[str]:
    """The notes named under these thresholds (mirrors ``notesdb.meaning.apply``)."""
    n = j.near
    if j.route in ("slash-command", "not-typed"):
        return j.lexical
    if j.lexical:
        c = (n.of or {}).get(j.lexical[0])
        return [] if c is not None and c < veto else j.lexical
    if n.top is not None and n.top_cos >= cos_t and n.top_cos - n.second_cos >= margin_t:
        return [n.top]
    return []


def figures(js: list[Judged], cos_t: float, margin_t: float, veto: float) -> dict[str, Any]:
    return score([outcome(j.case, outcome_of(j, cos_t, margin_t, veto), "") for j in js])


def value(f: dict[str, Any]) -> float:
    return f["hits"] + f["stretch"]["hits"] - ERROR_COST * (f["wrong"] + f["false_alarms"])


def judge_set(name: str, cases: list[dict[str, Any]], conn: Any, meaning: Meaning) -> list[Judged]:
    s = Settings()
    out = []
    for c in cases:
        kind = c.get("kind", "")
        case = Case(str(c["id"]), c["message"], tuple(c["expect"]), kind if isinstance(kind, str) else "")
        d = decide(conn, case.message, s)
        named = d.notes if d.spoken else []
        near = meaning.nearest(conn, case.message, named[:1])
        out.append(Judged(case, jm.half_of(case.id), named, d.route, near))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default=",".join(jm.DEFAULT_SETS))
    ap.add_argument("--keep", type=Path, help="keep (and reuse) the databases in DIR")
    ap.add_argument("--json", dest="json_out", type=Path)
    ap.add_argument("--threads", type=int, default=2, help="onnxruntime threads for embedding notes")
    ap.add_argument("--also", help="VETO,COSINE,MARGIN: also report these thresholds (a third column)")
    args = ap.parse_args(argv)
    names = [s for s in args.sets.split(",") if s]
    also = [float(x) for x in args.also.split(",")] if args.also else None
    tmp = Path(tempfile.mkdtemp(prefix="notesdb-meaning-"))
    work = args.keep.resolve() if args.keep else tmp
    work.mkdir(parents=True, exist_ok=True)
    (tmp / "config-home").mkdir()
    env = jm.child_env(tmp / "config-home")
    cmd = jm.notesdb_command(None)
    meaning = Meaning(threads=args.threads)
    assert meaning.model is not None, meaning.error
    timing: dict[str, Any] = {"model": meaning.model.name, "load_ms": round(meaning.model.load_ms)}
    sets: dict[str, list[Judged]] = {}
    try:
        jm.build_made(names, work / "made")
        generic = [{"id": m["id"], "message": m["text"], "expect": [], "kind": "generic"} for m in generic_messages()]
        for name in names:
            vault, cases_path = jm.locate(name, work / "made")
            db = work / ("personal.db" if name == "chat" else f"{name}.db")  # chat's folder is personal's
            idx, err = jm.run_json(cmd + ["index", "--notes", str(vault), "--db", str(db), "--json"], env)
            if err:
                sys.exit(f"Error: index {name}: {err}")
            conn = open_db(db)
            done = meaning.refresh_db(conn)
            t0 = time.perf_counter()
            sets[name] = judge_set(name, jm.read_cases(cases_path), conn, meaning)
            per_msg = (time.perf_counter() - t0) * 1000 / max(len(sets[name]), 1)
            if name != "chat":  # chat's folder is personal's
                sets[name + "+generic"] = judge_set(name, generic, conn, meaning)
            vecs = conn.execute("SELECT count(*) FROM note_vectors").fetchone()[0]
            timing[name] = {"notes": idx["notes"], "vectors": vecs, "embedded": done.embedded,
                            "ms_per_note": round(done.ms_per_note, 1),
                            "ms_per_message_lexical_plus_meaning": round(per_msg, 1)}
            print(f"{name}: {idx['notes']} notes, {vecs} vectors, embedded {done.embedded} "
                  f"({done.ms_per_note:.0f} ms/note), {per_msg:.1f} ms/message", flush=True)
            conn.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    tune = {k: [j for j in v if j.half == "tune"] for k, v in sets.items() if k.split("+")[0] not in HELD_OUT}
    base = sum(value(figures(js, OFF, OFF, 0.0)) for js in tune.values())
    best_v, best_vs = 0.0, 0.0
    for v in VETOES:
        gain = sum(value(figures(js, OFF, OFF, v)) for js in tune.values()) - base
        print(f"veto {v:.2f}: {gain:+.1f}")
        if gain > best_vs:
            best_v, best_vs = v, gain
    base_v = base + best_vs
    best = (OFF, OFF, 0.0)
    for t in sorted(COSINES, reverse=True):
        for m in sorted(MARGINS, reverse=True):
            gain = sum(value(figures(js, t, m, best_v)) for js in tune.values()) - base_v
            if gain > best[2]:
                best = (t, m, gain)
    t, m, g = best
    print(f"chosen on tune halves: veto {best_v} ({best_vs:+.1f}), route cosine {t} margin {m} ({g:+.1f})")

    rows = []
    for name, js in sets.items():
        for half in ("tune", "check"):
            mine = [j for j in js if j.half == half]
            a, b = figures(mine, OFF, OFF, 0.0), figures(mine, t, m, best_v)
            rows.append({"set": name, "half": half, "without": a, "with": b})
            if also:
                rows[-1]["also"] = figures(mine, also[1], also[2], also[0])

    def cell(f: dict[str, Any]) -> str:
        r = lambda x: "-" if x is None else f"{x:.3f}"  # noqa: E731
        st = f"{f['stretch']['hits']}/{f['stretch']['cases']}" if f["stretch"]["cases"] else "-"
        return f"{r(f['precision'])} / {r(f['hit_rate'])} / {r(f['silence_rate'])} / {st}"

    extra = f" veto {also[0]}, cosine {also[1]}, margin {also[2]} |" if also else ""
    print(f"\n| set | half | without meaning: precision / hit rate / silence / stretch | with meaning |{extra}")
    print("|---|---|---|---|" + ("---|" if also else ""))
    for r in rows:
        more = f" {cell(r['also'])} |" if also else ""
        print(f"| {r['set']} | {r['half']} | {cell(r['without'])} | {cell(r['with'])} |{more}")
    if args.json_out:
        args.json_out.write_text(json.dumps({"chosen": {"meaning_veto": best_v, "meaning_cosine": t,
                                                        "meaning_margin": m},
                                             "timing": timing, "rows": rows}, indent=2) + "\n")
    print(json.dumps(timing, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

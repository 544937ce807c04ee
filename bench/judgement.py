#!/usr/bin/env python3
"""Judgement of notesdb on every labelled set, split into a tuning half and a check half.

    .venv/bin/python bench/judgement.py [--sets personal,chat,...] [--half tune|check|both]
                                        [--config FILE] [--json OUT] [--keep DIR]

Sets (``--sets``, comma-separated; default: all but ``tech``):

- ``personal``: ``shared/fixtures/personal`` (vault + cases), read in place;
- ``chat``, ``memory``, ``til``, ``tech``: built at run time by
  ``python shared/eval/make_sets.py TMP --sets ...`` into a temporary directory that is deleted
  at the end (``memory`` derives from CC BY-NC data: it is never written anywhere else).
  ``tech`` is large (7,219 notes, about 2,300 cases in the dev half): it is left out unless
  named; it adds about 30 s (index and both halves, measured on a 2-core machine);
- ``folders``, ``tiny``, ``household2``, ``kept``, ``devnotes``, ``frmemory``, ``recipes``: ``tests/data/<set>``
  of this repository.

The split. ``make_sets.py`` already keeps only its dev half (``sha1(id)`` ending in an even hex
digit), so the same rule cannot split it again. Here a case is in the **tune** half when the
first byte of ``sha256("notesdb-judgement/" + id)`` is even, else in the **check** half: a
stable split, independent of the one ``make_sets.py`` makes, the same for an id in every set
and on every run. Choose settings on the tune halves only; report the check halves.

Each set is indexed once into a temporary database and each half is scored through the
console script, exactly as a user would: ``notesdb index --notes V --db D --json`` (for the
number of notes), then ``notesdb eval HALF.jsonl --notes V --db D --json``, with ``--config``
passed on when given. Without ``--config`` the children run with an empty
``XDG_CONFIG_HOME`` and no ``NOTESDB_*`` variables, so a user's own config cannot leak in.
Going through the CLI keeps this script independent of how the package's modules are laid out.

Figures follow ``shared/fixtures/FORMAT.md``: precision over every note named, hit rate over
covered cases (first note named in ``expect``), silence rate over uncovered cases; ``stretch-*``
cases are counted apart. ``-`` marks a rate with an empty denominator.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
MADE = ("chat", "memory", "til", "tech")  # built by shared/eval/make_sets.py
LOCAL = ("folders", "tiny", "household2", "kept", "devnotes", "frmemory", "recipes")  # tests/data/<set>
ALL_SETS = ("personal", "chat", "memory", "til", "folders", "tiny", "household2", "kept", "devnotes", "frmemory", "recipes", "tech")
DEFAULT_SETS = tuple(s for s in ALL_SETS if s != "tech")
SALT = "notesdb-judgement/"


def half_of(case_id: str) -> str:
    """``"tune"`` when the first byte of ``sha256(SALT + id)`` is even, else ``"check"``."""
    return "tune" if hashlib.sha256((SALT + case_id).encode("utf-8")).digest()[0] % 2 == 0 else "check"


@dataclass
class Row:
    """One line of the table: a set's half (or the whole set) scored once."""

    set: str
    half: str
    notes: int | None
    cases: int
    covered: int
    uncovered: int
    stretch: int
    hits: int | None = None
    wrong: int | None = None
    missed: int | None = None
    false_alarms: int | None = None
    stretch_hits: int | None = None
    precision: float | None = None
    hit_rate: float | None = None
    silence_rate: float | None = None
    seconds: float | None = None
    error: str | None = None


def notesdb_command(given: str | None) -> list[str]:
    """The console script: ``--notesdb``, else the one beside this interpreter, else on PATH."""
    if given:
        return [given]
    beside = Path(sys.executable).with_name("notesdb")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("notesdb")
    if not found:
        sys.exit("Error: no notesdb console script (install with pip install -e '.[test]')")
    return [found]


def child_env(config_home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NOTESDB_")}
    env["XDG_CONFIG_HOME"] = str(config_home)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def read_cases(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line.strip()]


def locate(name: str, made: Path) -> tuple[Path, Path]:
    """(vault, cases.jsonl) of a set."""
    if name == "personal":
        base = SHARED / "fixtures" / "personal"
    elif name in MADE:
        base = made / name
    else:
        base = REPO / "tests" / "data" / name
    return base / "vault", base / "cases.jsonl"


def build_made(names: list[str], out: Path) -> None:
    wanted = [n for n in names if n in MADE]
    if not wanted:
        return
    cmd = [sys.executable, str(SHARED / "eval" / "make_sets.py"), str(out), "--sets", ",".join(wanted)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"Error: make_sets.py failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")


def run_json(cmd: list[str], env: dict[str, str]) -> tuple[dict[str, Any] | None, str | None]:
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        return None, lines[-1] if lines else f"exit {done.returncode}"
    try:
        return json.loads(done.stdout), None
    except ValueError:
        return None, "not JSON: " + done.stdout.strip()[:120]


def score_set(name: str, halves: list[str], made: Path, work: Path, base_cmd: list[str],
              config: list[str], env: dict[str, str]) -> list[Row]:
    vault, cases_path = locate(name, made)
    if not cases_path.exists():
        return [Row(name, h, None, 0, 0, 0, 0, error=f"no cases at {cases_path}") for h in halves]
    cases = read_cases(cases_path)
    db = work / f"{name}.db"
    index, err = run_json(base_cmd + ["index", "--notes", str(vault), "--db", str(db), "--json"] + config, env)
    n_notes = index.get("notes") if index else None
    rows = []
    for half in halves:
        mine = [c for c in cases if half == "all" or half_of(str(c["id"])) == half]
        stretch = sum(1 for c in mine if str(c.get("kind", "")).startswith("stretch"))
        covered = sum(1 for c in mine if c["expect"] and not str(c.get("kind", "")).startswith("stretch"))
        row = Row(name, half, n_notes, len(mine), covered, len(mine) - covered - stretch, stretch)
        if err:
            row.error = err
        elif not mine:
            row.error = "no cases in this half"
        else:
            half_file = work / f"{name}-{half}.jsonl"
            half_file.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in mine),
                                 encoding="utf-8")
            start = time.perf_counter()
            s, row.error = run_json(base_cmd + ["eval", str(half_file), "--notes", str(vault),
                                                "--db", str(db), "--json"] + config, env)
            row.seconds = round(time.perf_counter() - start, 1)
            if s:
                row.hits, row.wrong, row.missed = s["hits"], s["wrong"], s["missed"]
                row.false_alarms, row.stretch_hits = s["false_alarms"], s["stretch"]["hits"]
                row.precision, row.hit_rate, row.silence_rate = s["precision"], s["hit_rate"], s["silence_rate"]
        rows.append(row)
    return rows


def fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def table(rows: list[Row]) -> str:
    head = ["set", "half", "notes", "covered", "uncovered", "precision", "hit rate", "silence",
            "wrong", "false al.", "stretch", "s"]
    body = []
    for r in rows:
        if r.error:
            body.append([r.set, r.half, str(r.notes or "-"), str(r.covered), str(r.uncovered),
                         "error: " + r.error, "", "", "", "", "", ""])
            continue
        body.append([r.set, r.half, str(r.notes), str(r.covered), str(r.uncovered),
                     fmt(r.precision), fmt(r.hit_rate), fmt(r.silence_rate), str(r.wrong),
                     str(r.false_alarms), f"{r.stretch_hits}/{r.stretch}" if r.stretch else "-",
                     f"{r.seconds:.1f}"])
    widths = [max(len(x[i]) for x in [head] + body if i < len(x)) for i in range(len(head))]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    for b in body:
        if b[5].startswith("error:"):
            lines.append("| " + " | ".join(x.ljust(w) for x, w in zip(b[:5], widths)) + " | " + b[5] + " |")
        else:
            lines.append("| " + " | ".join(x.ljust(w) for x, w in zip(b, widths)) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default=",".join(DEFAULT_SETS),
                    help=f"comma-separated, from {','.join(ALL_SETS)} (default: all but tech)")
    ap.add_argument("--half", choices=("tune", "check", "both", "all"), default="both",
                    help="which half to score; 'all' scores each set whole")
    ap.add_argument("--config", type=Path, help="a notesdb config file (e.g. other [gate] settings)")
    ap.add_argument("--json", dest="json_out", type=Path, help="also write the rows as JSON here")
    ap.add_argument("--notesdb", help="the notesdb console script to run (default: this venv's)")
    ap.add_argument("--keep", type=Path, help="keep the built sets, halves and databases in DIR")
    args = ap.parse_args(argv)
    names = [s for s in args.sets.split(",") if s]
    unknown = sorted(set(names) - set(ALL_SETS))
    if unknown:
        ap.error(f"unknown set(s): {', '.join(unknown)}")
    if args.config and not args.config.is_file():
        ap.error(f"config file not found: {args.config}")
    if "memory" in names and args.keep:
        print("note: the memory set is CC BY-NC 4.0: keep it for internal evaluation only")
    halves = ["tune", "check"] if args.half == "both" else [args.half]
    config = ["--config", str(args.config.resolve())] if args.config else []
    base_cmd = notesdb_command(args.notesdb)

    tmp = Path(tempfile.mkdtemp(prefix="notesdb-judgement-"))
    work = args.keep.resolve() if args.keep else tmp
    work.mkdir(parents=True, exist_ok=True)
    (tmp / "config-home").mkdir()
    env = child_env(tmp / "config-home")
    start = time.perf_counter()
    try:
        build_made(names, work / "made")
        rows: list[Row] = []
        for name in names:
            rows += score_set(name, halves, work / "made", work, base_cmd, config, env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(table(rows))
    print(f"\nsplit: tune = first byte of sha256('{SALT}' + id) even; "
          f"config: {args.config or 'defaults'}; {time.perf_counter() - start:.0f} s")
    if args.json_out:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
        args.json_out.write_text(json.dumps({
            "commit": commit, "config": str(args.config) if args.config else None,
            "split": f"tune: sha256('{SALT}' + id)[0] even; check: odd",
            "rows": [asdict(r) for r in rows]}, indent=2) + "\n", encoding="utf-8")
    return 1 if any(r.error and r.error != "no cases in this half" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())

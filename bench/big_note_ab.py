#!/usr/bin/env python3
"""The hook right after one large note changed, two builds side by side: median wall time of
``notesdb hook`` when a note of 1 MiB was edited since the last message, runs interleaved so that
both builds see the same machine load.

    .venv/bin/python bench/big_note_ab.py --before CMD [--after CMD] [--runs 7] [--kib 1024]

``CMD`` is a notesdb console script (``--after`` defaults to this venv's). The folder is the
shipped example notes plus one large note, in two shapes: ``prose`` (the example notes' text
repeated: a long journal or a pasted article, whose words repeat) and ``new-words`` (one word
a line, 4-9 letters drawn with a fixed seed from a-z and é ß ø ł: every word new to the index,
the costliest text to index), of ``--kib`` KiB (default 1000: under the 1 MiB an earlier build
indexed whole). Before each run the note's first line is rewritten, so every hook call finds it
changed (its hash covers the bytes indexed, from the start) and indexes it before answering. Each build has its own database,
indexed once before the runs.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples" / "notes"
EVENT = '{"session_id": "bench", "hook_event_name": "UserPromptSubmit", "prompt": "what temperature does the silvia brew at?"}'


def prose(size: int) -> str:
    """The example notes' text, repeated to ``size`` bytes."""
    text = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.rglob("*.md")))
    out, n = ["# Journal\n"], 0
    while n < size:
        out.append(text)
        n += len(text.encode())
    return "\n".join(out)


def new_words(size: int) -> str:
    """One word a line, every word new: 4-9 letters of a-z é ß ø ł, seed 1."""
    rnd, letters = random.Random(1), "abcdefghijklmnopqrstuvwxyzéßøł"
    out, n = ["# Dump"], 0
    while n < size:
        w = "".join(rnd.choice(letters) for _ in range(rnd.randint(4, 9)))
        out.append(w)
        n += len(w.encode()) + 1
    return "\n".join(out)


def hook_ms(cmd: str, notes: Path, db: Path) -> float:
    t = time.perf_counter()
    subprocess.run([cmd, "hook", "--notes", str(notes), "--db", str(db)], input=EVENT.encode(),
                   capture_output=True, check=True, timeout=120)  # fmt: skip
    return (time.perf_counter() - t) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", default=str(Path(sys.executable).with_name("notesdb")))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--kib", type=int, default=1000)
    args = ap.parse_args()
    builds = {"before": args.before, "after": args.after}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        print(f"hook after a {args.kib} KiB note changed at its start, median of {args.runs} runs per build (ms)")
        print(f"{'shape':10} {'before':>8} {'after':>8} {'after/before':>13}")
        for shape, make in (("prose", prose), ("new-words", new_words)):
            notes = work / shape
            shutil.copytree(EXAMPLES, notes)
            big = notes / "big.md"
            body = make(args.kib * 1024)
            big.write_text(body, encoding="utf-8")
            dbs = {name: work / f"{shape}-{name}.db" for name in builds}
            for name, cmd in builds.items():
                subprocess.run([cmd, "index", "--notes", str(notes), "--db", str(dbs[name])],
                               capture_output=True, check=True, timeout=600)  # fmt: skip
            times: dict[str, list[float]] = {name: [] for name in builds}
            for i in range(args.runs):
                for name, cmd in builds.items():
                    big.write_text(f"edit {i} {name}\n" + body, encoding="utf-8")
                    times[name].append(hook_ms(cmd, notes, dbs[name]))
            b, a = statistics.median(times["before"]), statistics.median(times["after"])
            print(f"{shape:10} {b:8.0f} {a:8.0f} {a / b:13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

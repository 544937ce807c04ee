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
indexed whole), and ``drawing`` (an Excalidraw drawing: a few text elements and the drawing's
JSON in an Obsidian comment, which is not indexed as text). Before each run the note's first
line (a drawing's first after its front matter) is rewritten, so every hook call finds it
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


def drawing(size: int) -> str:
    """An Excalidraw drawing as the plugin saves it: front matter ``excalidraw-plugin``, a few
    text elements with block IDs, and the drawing's JSON (freehand strokes: coordinates,
    colours and random IDs, seed 1) inside an Obsidian comment, to ``size`` bytes."""
    rnd = random.Random(1)
    ids = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    head = ("---\n\nexcalidraw-plugin: parsed\ntags: [excalidraw]\n\n---\n"
            "==\u26a0  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. \u26a0==\n\n\n"
            "# Excalidraw Data\n## Text Elements\nRidge route via Helvellyn ^MpjsVHsE\n\n"
            "Striding Edge in wind: skip ^XmNRYfey\n\n%%\n## Drawing\n```json\n"
            '{"type": "excalidraw", "version": 2, "elements": [\n')
    out, n = [head], len(head)
    while n < size:
        points = ", ".join(f"[{rnd.uniform(-500, 500):.4f}, {rnd.uniform(-500, 500):.4f}]" for _ in range(12))
        el = (f'{{"id": "{"".join(rnd.choice(ids) for _ in range(21))}", "type": "freedraw", '
              f'"x": {rnd.uniform(-900, 900):.6f}, "y": {rnd.uniform(-900, 900):.6f}, "strokeColor": "#1e1e1e", '
              f'"backgroundColor": "transparent", "seed": {rnd.randint(1, 2**31)}, "points": [{points}]}},\n')
        out.append(el)
        n += len(el.encode())
    out.append("{}]}\n```\n%%\n")
    return "".join(out)


def edited(body: str, edit: str) -> str:
    """``body`` with the line ``edit`` first, or after its front matter (a drawing's front
    matter must stay first to be read as one)."""
    if body.startswith("---\n"):
        end = body.index("\n---\n", 4) + 5
        return body[:end] + edit + "\n" + body[end:]
    return edit + "\n" + body


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
        for shape, make in (("prose", prose), ("new-words", new_words), ("drawing", drawing)):
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
                    big.write_text(edited(body, f"edit {i} {name}"), encoding="utf-8")
                    times[name].append(hook_ms(cmd, notes, dbs[name]))
            b, a = statistics.median(times["before"]), statistics.median(times["after"])
            print(f"{shape:10} {b:8.0f} {a:8.0f} {a / b:13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The no-change hook, two builds side by side: median wall time on the personal vault and on a
vault of 10,000 notes, runs interleaved so that both see the same machine load.

    .venv/bin/python bench/hook_ab.py --before CMD [--after CMD] [--runs 30] [--prompt-file F]

``CMD`` is a notesdb console script (``--after`` defaults to this venv's). Each build indexes
each vault into its own temporary database first; then every run sends the same
UserPromptSubmit event (``bench.HOOK_PROMPT``, or the text of ``--prompt-file``: a pasted log,
a code-heavy request; one session id) to ``CMD hook``. The 10,000-note
vault is built by ``shared/eval/make_sets.py --sets chat --sizes`` into a temporary directory
that is deleted at the end.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402

PERSONAL = bench.SHARED / "fixtures" / "personal" / "vault"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", default=str(Path(sys.executable).with_name("notesdb")))
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--prompt-file", type=Path, help="send this file's text as the prompt")
    args = ap.parse_args()
    prompt = args.prompt_file.read_text(encoding="utf-8") if args.prompt_file else bench.HOOK_PROMPT
    env = bench.child_env()
    out = {}
    with tempfile.TemporaryDirectory(prefix="notesdb-ab-") as tmp:
        work = Path(tmp)
        bench.build_vaults(work / "sets")
        vaults = {"personal": PERSONAL, "10000": work / "sets" / "size-10000"}
        event = json.dumps({"session_id": "bench", "cwd": str(work), "hook_event_name": "UserPromptSubmit",
                            "prompt": prompt}).encode()
        for name, vault in vaults.items():
            builds = {"before": args.before, "after": args.after}
            dbs = {}
            for b, cmd in builds.items():
                dbs[b] = work / f"{name}-{b}.db"
                subprocess.run([cmd, "index", "--notes", str(vault), "--db", str(dbs[b])], check=True,
                               capture_output=True, env=env)
                for _ in range(3):  # warm the bytecode cache and the page cache
                    subprocess.run([cmd, "hook", "--notes", str(vault), "--db", str(dbs[b])], input=event,
                                   capture_output=True, env=env)
            times: dict[str, list[float]] = {b: [] for b in builds}
            for _ in range(args.runs):
                for b, cmd in builds.items():
                    t0 = time.perf_counter()
                    subprocess.run([cmd, "hook", "--notes", str(vault), "--db", str(dbs[b])], input=event,
                                   capture_output=True, env=env)
                    times[b].append((time.perf_counter() - t0) * 1000)
            med = {b: statistics.median(v) for b, v in times.items()}
            out[name] = med
            print(f"{name}: hook median before {med['before']:.1f} ms, after {med['after']:.1f} ms "
                  f"({(med['after'] / med['before'] - 1) * 100:+.1f}%), {args.runs} runs each, interleaved")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""What matching by meaning costs in the resident process, on one indexed folder.

    .venv/bin/python bench/meaning_cost.py --notes DIR --db FILE [--messages CASES.jsonl] [--embed N]

Prints: model load time; with one onnxruntime thread, as ``notesdb mcp`` runs it, the time to
embed N notes of the folder from scratch (into a copy of the database) in ms per note and per
vector; and per message (the first 60 of CASES, else the bundled generic messages), the
lexical decision alone and meaning's second opinion (embedding the message + cosines with
every note vector), as medians and 90th percentiles; the process's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notes", type=Path, required=True)
    ap.add_argument("--db", type=Path, required=True, help="an indexed database (not changed)")
    ap.add_argument("--messages", type=Path)
    ap.add_argument("--embed", type=int, default=60, help="notes to embed for the per-note figure")
    args = ap.parse_args()

    from notesdb.db import open_db
    from notesdb.decide import decide
    from notesdb.meaning import Meaning
    from notesdb.settings import Settings

    t0 = time.perf_counter()
    meaning = Meaning(threads=1)
    load_ms = (time.perf_counter() - t0) * 1000
    assert meaning.model is not None, meaning.error
    tmp = Path(tempfile.mkdtemp())
    try:
        copy = tmp / "copy.db"
        shutil.copy(args.db, copy)
        conn = open_db(copy)
        conn.execute("DELETE FROM note_vectors")
        conn.execute("UPDATE notes SET searchable = 0 WHERE path NOT IN "
                     "(SELECT path FROM notes WHERE searchable ORDER BY path LIMIT ?)", (args.embed,))
        conn.commit()
        done = meaning.refresh_db(conn)
        conn.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    if args.messages:
        texts = [json.loads(x)["message"] for x in args.messages.read_text().splitlines() if x.strip()][:60]
    else:
        from notesdb.meter import generic_messages

        texts = [m["text"] for m in generic_messages()][:60]
    conn = open_db(args.db)
    meaning.refresh_db(conn)
    s = Settings()
    lex, sem = [], []
    meaning.nearest(conn, "warm up")
    for text in texts:
        a = time.perf_counter()
        d = decide(conn, text, s)
        b = time.perf_counter()
        meaning(conn, text, d, s, None)
        c = time.perf_counter()
        lex.append((b - a) * 1000)
        sem.append((c - b) * 1000)
    vectors = conn.execute("SELECT count(*) FROM note_vectors").fetchone()[0]
    notes = conn.execute("SELECT count(*) FROM notes WHERE searchable").fetchone()[0]
    conn.close()

    def q(xs: list[float], p: float) -> float:
        return sorted(xs)[min(len(xs) - 1, int(p * len(xs)))]

    print(f"model load: {load_ms:.0f} ms")
    print(f"embedding {done.embedded} notes ({done.vectors} vectors), 1 thread: {done.ms_per_note:.0f} ms/note, "
          f"{done.seconds * 1000 / max(done.vectors, 1):.0f} ms/vector")
    print(f"per message ({len(texts)}, {notes} notes, {vectors} vectors): lexical median {statistics.median(lex):.1f} "
          f"ms (p90 {q(lex, 0.9):.1f}); meaning median {statistics.median(sem):.1f} ms (p90 {q(sem, 0.9):.1f})")
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

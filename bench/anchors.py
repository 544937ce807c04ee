#!/usr/bin/env python3
"""What working out the anchor text costs a sync (``notesdb.sync.refresh_anchors``), beside the
rest of a sync that takes in one edited note whose links changed, on indexed databases.

    .venv/bin/python bench/anchors.py DB [DB ...] [--runs 15]

Each database is copied to a temporary folder first. Per database it prints the notes, the
notes with links kept for anchor text and those links, the median of ``refresh_anchors`` alone
(in a transaction rolled back), and the median of a whole ``sync`` after the last linking note
was touched (its links' text changed, so the sync refreshes), with their ratio.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from notesdb.db import open_db
from notesdb.sync import refresh_anchors, sync


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dbs", nargs="+", type=Path)
    ap.add_argument("--runs", type=int, default=15)
    a = ap.parse_args()
    print(f"{'database':<24} {'notes':>6} {'linking':>7} {'links':>6} {'refresh ms':>10} {'sync ms':>8} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for src in a.dbs:
            db = Path(tmp) / src.name
            shutil.copyfile(src, db)
            conn = open_db(db)
            root = Path(conn.execute("SELECT value FROM meta WHERE key = 'notes_root'").fetchone()[0])
            notes = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
            linking = conn.execute("SELECT path, anchors_out FROM notes WHERE anchors_out != '[]' ORDER BY path").fetchall()
            links = sum(len(json.loads(raw)) for _, raw in linking)
            refresh = []
            for _ in range(a.runs):
                t = time.perf_counter()
                conn.execute("BEGIN")
                refresh_anchors(conn)
                conn.execute("ROLLBACK")
                refresh.append((time.perf_counter() - t) * 1000)
            whole = []
            if linking:  # the stored links of one note marked as changed: the next sync reads it and refreshes
                path = linking[-1][0]
                for _ in range(a.runs):
                    with conn:
                        conn.execute("UPDATE notes SET size = -1, hash = '', anchors_out = '[]' WHERE path = ?", (path,))
                        conn.execute("DELETE FROM meta WHERE key = 'listing_hash'")
                    t = time.perf_counter()
                    sync(conn, root)
                    whole.append((time.perf_counter() - t) * 1000)
            conn.close()
            r = statistics.median(refresh)
            w = statistics.median(whole) if whole else float("nan")
            print(f"{src.name:<24} {notes:>6} {len(linking):>7} {links:>6} {r:>10.1f} {w:>8.1f} {r / w:>6.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()

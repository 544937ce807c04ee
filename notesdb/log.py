"""The ``decisions`` table: every message the hook judged, what it surfaced, and why.

Prompts are stored so that judgements can be reviewed, labelled (``notesdb label``) and
replayed (``notesdb replay``) on real messages. They never leave this file; ``--no-log`` or
``[log] prompts = false`` stores decisions without the prompt text, and ``notesdb log --purge``
deletes prompts.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from notesdb.clock import now_iso
from notesdb.gate import Decision

__all__ = ["record", "latest", "purge"]


def record(
    conn: sqlite3.Connection,
    decision: Decision,
    prompt: str | None,
    *,
    session_id: str = "",
    cwd: str = "",
    log_prompt: bool = True,
) -> int:
    """Insert one decision; returns its id.

    :param prompt: the message, or None when there was none (bad hook input)
    :param log_prompt: False stores the decision without the prompt text
    """
    cur = conn.execute(
        """INSERT INTO decisions(time, session_id, cwd, prompt, spoken, line, notes, top_scores,
                                 route, elapsed_ms, error)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (
            now_iso(),
            session_id,
            cwd,
            prompt if log_prompt else None,
            int(decision.spoken),
            decision.line,
            json.dumps(decision.notes),
            json.dumps(
                [
                    {k: s[k] for k in ("path", "evidence", "coverage", "bm25")}
                    for s in decision.top_scores[:3]
                ]
            ),
            decision.route,
            round(decision.elapsed_ms, 3),
            decision.error,
        ),
    )
    return int(cur.lastrowid or 0)


def latest(conn: sqlite3.Connection, limit: int = 20) -> list[dict[str, Any]]:
    """The newest ``limit`` decisions, newest first, as dicts with ``notes`` decoded."""
    cur = conn.execute(
        "SELECT id, time, session_id, cwd, prompt, spoken, line, notes, top_scores, route, "
        "elapsed_ms, error, label, label_note FROM decisions ORDER BY id DESC LIMIT ?",
        (limit,),
    )
    cols = [c[0] for c in cur.description]
    out = []
    for row in cur.fetchall():
        item = dict(zip(cols, row))
        item["spoken"] = bool(item["spoken"])
        item["notes"] = json.loads(item["notes"] or "[]")
        item["top_scores"] = json.loads(item["top_scores"] or "[]")
        out.append(item)
    return out


def purge(conn: sqlite3.Connection, before: str | None = None) -> int:
    """Delete logged prompt text (the whole decision rows), all or older than ``before``.

    :param before: an ISO date or time (UTC); rows with ``time < before`` go
    :returns: rows deleted
    """
    # overwrite the deleted text in the file, and empty the write-ahead log that held it
    conn.execute("PRAGMA secure_delete = ON")
    if before:
        cur = conn.execute("DELETE FROM decisions WHERE time < ?", (before,))
    else:
        cur = conn.execute("DELETE FROM decisions")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return cur.rowcount

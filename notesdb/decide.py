"""The one judgement: a message -> a :class:`~notesdb.gate.Decision`.

The hook, ``notesdb check``, ``eval``, ``replay`` and ``tune`` all call :func:`decide`; there is
no second copy of the judgement anywhere.
"""

from __future__ import annotations

import sqlite3
import time

from notesdb.gate import Decision, Route, Settings, judge
from notesdb.query import build_query
from notesdb.rank import Ranking, rank
from notesdb.db import searchable_count

__all__ = ["decide", "decide_with_ranking", "is_slash_command"]


def is_slash_command(message: str) -> bool:
    """True for a Claude Code slash command such as ``/clear`` or ``/model opus``."""
    head = message.lstrip()[:64]
    if not head.startswith("/") or len(head) < 2:
        return False
    word = head[1:].split(None, 1)[0] if head[1:].strip() else ""
    return bool(word) and "/" not in word and all(c.isalnum() or c in "-_:." for c in word)


def decide_with_ranking(
    conn: sqlite3.Connection, message: str, settings: Settings, folder: str | None = None
) -> tuple[Decision, Ranking | None]:
    """Like :func:`decide`, also returning the ranking the gate saw (for ``tune``)."""
    t0 = time.perf_counter()
    if is_slash_command(message):
        d = Decision(spoken=False, route=Route.SLASH_COMMAND, reasons=["slash commands are not judged"])
        d.elapsed_ms = (time.perf_counter() - t0) * 1000
        return d, None
    n = searchable_count(conn)
    query = build_query(conn, message, n, settings)
    ranking = rank(conn, query, settings=settings)
    d = judge(ranking, settings, folder)
    d.corrections = query.corrections
    d.expansions = query.expansions
    d.elapsed_ms = (time.perf_counter() - t0) * 1000
    return d, ranking


def decide(
    conn: sqlite3.Connection, message: str, settings: Settings | None = None, folder: str | None = None
) -> Decision:
    """Do the notes in ``conn`` cover anything in ``message``?

    Reads only; the caller syncs the index first if it wants fresh notes.

    :param conn: an open notesdb database (``db.open_db``)
    :param message: the text as the person typed it, any length or content
    :param settings: thresholds and scoring weights; defaults when None
    :param folder: the notes folder's absolute path: the line then names each note by its
        absolute path (the assistant runs elsewhere); ``Decision.notes`` stay relative
    :returns: the decision; ``elapsed_ms`` is the wall time of this call in milliseconds
    """
    return decide_with_ranking(conn, message, settings or Settings(), folder)[0]

"""Say it once per conversation: a note already named in a session is not named again unless the
message is about it much more strongly.

The assistant keeps every earlier turn of a conversation, so a line naming a note stays in its
context until the session ends; naming the same note on the next messages is noise. The hook
logs each decision with its ``session_id`` (``notesdb.log``); before it answers, the notes named
earlier in the same session, and the evidence each was named with, are read back
(:func:`earlier`), and :func:`hold_back` drops a note whose evidence now is less than
``Settings.repeat_ratio`` times its evidence then. When every note would be dropped, the
decision turns silent with route ``said-before``. A note an earlier message attached itself
with an ``@``-mention (``notesdb.mentions``; the log's ``attached`` column) is held back
whatever the evidence now: the client put the whole note in the assistant's context.

Standard library only: it runs on the hook path.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

from notesdb.gate import Decision, Route, keep_notes
from notesdb.settings import Settings

TYPE_CHECKING = False  # not typing's: the hook does not import typing (about 3 ms of every message)
if TYPE_CHECKING:
    from typing import Final

__all__ = ["SESSION_HOURS", "UNLOGGED", "ATTACHED", "earlier", "named_in", "attached_in", "hold_back"]

#: Decisions older than this are not read back: a Claude Code session is one sitting, and the
#: bound lets the query use the ``decisions_time`` index however long the log grows.
SESSION_HOURS: Final = 24

#: What :func:`earlier` gives as the evidence of a note an earlier message attached itself with
#: an ``@``-mention (``notesdb.mentions``): the client put the whole note in the assistant's
#: context, so :func:`hold_back` holds it back whatever the evidence now.
ATTACHED: Final = -1.0

#: The start of the ``error`` of a spoken decision the hook could not write to the log (the
#: database locked past its wait): it went to ``hook-errors.jsonl`` with the notes it named.
UNLOGGED: Final = "decision not logged: "

#: How much of the end of ``hook-errors.jsonl`` is read for such decisions, in bytes: the
#: entries of the last day, however long the file has grown.
UNLOGGED_TAIL_BYTES: Final = 256 * 1024


def earlier(
    conn: sqlite3.Connection,
    session_id: str,
    hours: float = SESSION_HOURS,
    db_path: "Path | None" = None,
) -> dict[str, float]:
    """Notes named in the session ``session_id`` within the last ``hours``, with the highest
    evidence each was named with (0.0 when it was named but its evidence was not logged).

    :param db_path: the database ``conn`` is, or None: the spoken decisions the hook could not
        log for it (``UNLOGGED``), in the ``hook-errors.jsonl`` beside it, count as named too,
        so that a note named while another process held the database is not named again on
        the next message. A missing or unreadable file, and a damaged line, count for nothing.
    :returns: ``{note path: evidence}``; :data:`ATTACHED` for a note a message attached
        itself; empty for an empty ``session_id``
    """
    if not session_id:
        return {}
    # the log's own time format (clock.now_iso), without importing datetime on the hook's path
    since = time.strftime("%Y-%m-%dT%H:%M:%S.000+00:00", time.gmtime(time.time() - hours * 3600))
    named: dict[str, float] = {}
    rows = conn.execute(
        "SELECT spoken, notes, top_scores, attached FROM decisions "
        "WHERE time >= ? AND session_id = ? AND (spoken = 1 OR attached != '[]')",
        (since, session_id),
    )
    attached: set[str] = set()
    for spoken, notes_json, scores_json, attached_json in rows:
        if spoken:
            for path, evidence in named_in(notes_json, scores_json).items():
                named[path] = max(named.get(path, 0.0), evidence)
        attached.update(attached_in(attached_json))
    if db_path is not None:
        from notesdb.hook import _absolute  # the database as the hook names it in that file

        for path, evidence in _unlogged(db_path.with_name("hook-errors.jsonl"), _absolute(db_path), session_id, since).items():
            if evidence == ATTACHED:
                attached.add(path)
            else:
                named[path] = max(named.get(path, 0.0), evidence)
    for path in attached:
        named[path] = ATTACHED
    return named


def _unlogged(errors_file: "os.PathLike[str] | str", db: str | None, session_id: str, since: str) -> dict[str, float]:
    """The notes named by the spoken decisions of ``session_id`` since ``since`` (ISO 8601 UTC)
    that the hook wrote to ``errors_file`` instead of the log, with their evidence (0.0 when
    the entry has none; :data:`ATTACHED` for a note the message attached itself). Reads the
    last ``UNLOGGED_TAIL_BYTES`` of the file; never raises."""
    try:
        with open(errors_file, "rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - UNLOGGED_TAIL_BYTES))
            tail = f.read(UNLOGGED_TAIL_BYTES).decode("utf-8", "replace")
    except OSError:
        return {}
    named: dict[str, float] = {}
    for line in tail.split("\n"):
        if session_id not in line:  # most lines: no need to parse them
            continue
        try:
            entry = json.loads(line)
            if not (
                isinstance(entry, dict)
                and entry.get("session_id") == session_id
                and entry.get("db") == db
                and str(entry.get("error", "")).startswith(UNLOGGED)
                and str(entry.get("time", "")) >= since
            ):
                continue
            scores = entry.get("evidence") or {}
            for path in entry.get("notes") or []:
                if isinstance(path, str) and named.get(path) != ATTACHED:
                    evidence = float(scores.get(path, 0.0)) if isinstance(scores, dict) else 0.0
                    named[path] = max(named.get(path, 0.0), evidence)
            for path in entry.get("attached") or []:
                if isinstance(path, str):
                    named[path] = ATTACHED
        except (ValueError, TypeError, AttributeError):
            continue
    return named


def attached_in(attached_json: str | None) -> list[str]:
    """The notes one logged decision's message attached itself (its ``attached`` column, JSON:
    ``notesdb.mentions``); ``[]`` when the column cannot be read."""
    try:
        paths = json.loads(attached_json or "[]")
    except ValueError:
        return []
    return [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else []


def named_in(notes_json: str | None, scores_json: str | None) -> dict[str, float]:
    """The notes one logged decision named (its ``notes`` and ``top_scores`` columns, JSON),
    with the evidence each was named with (0.0 when it was not logged).

    :returns: ``{note path: evidence}``; empty when the columns cannot be read
    """
    try:
        notes = json.loads(notes_json or "[]")
        scores = {s["path"]: float(s["evidence"]) for s in json.loads(scores_json or "[]")}
    except (ValueError, TypeError, KeyError):
        return {}
    return {path: scores.get(path, 0.0) for path in notes if isinstance(path, str)}


def hold_back(decision: Decision, before: dict[str, float], settings: Settings) -> Decision:
    """Drop from a spoken ``decision`` the notes named earlier in the conversation (``before``,
    from :func:`earlier`) whose evidence now is below ``settings.repeat_ratio`` times their
    evidence then, and those an earlier message attached (:data:`ATTACHED`) whatever their
    evidence now. Changes and returns ``decision``; its reasons say what was held back; silent
    with route ``said-before`` when no note is left (``notesdb.gate.keep_notes``).
    """
    if not decision.spoken or not before:
        return decision
    now = {s["path"]: float(s["evidence"]) for s in decision.top_scores}
    keep, held = [], []
    for path in decision.notes:
        # a note named without lexical evidence (by meaning, ``notesdb.meaning``) is held back
        # whatever its evidence now: no ratio of nothing measures "much more about it"
        if path in before and before[path] == ATTACHED:
            held.append(path)
            decision.reasons.append(
                f"held back {path}: an earlier message of this conversation attached it (an @-mention)"
            )
        elif path in before and (before[path] <= 0 or now.get(path, 0.0) < settings.repeat_ratio * before[path]):
            held.append(path)
            decision.reasons.append(
                f"held back {path}: named earlier in this conversation (evidence "
                f"{before[path]:.2f}); now {now.get(path, 0.0):.2f} < {settings.repeat_ratio}x that"
            )
        else:
            keep.append(path)
    if not held:
        return decision
    return keep_notes(decision, keep, Route.SAID)

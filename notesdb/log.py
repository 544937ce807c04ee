"""The ``decisions`` table: every message the hook judged, what it surfaced, and why.

Prompts are stored so that judgements can be reviewed, labelled (``notesdb label``) and
replayed (``notesdb replay``) on real messages. ``--no-log`` or ``[log] prompts = false`` stores
decisions without the prompt text, and ``notesdb log --purge`` deletes them: from the database,
its write-ahead log, the copies of it moved aside, and ``hook-errors.jsonl``; the files
``notesdb label export`` wrote are named (they are the person's files now).
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from notesdb.clock import now_iso
from notesdb.errors import NotesdbError, PurgeIncomplete
from notesdb.gate import Decision

TYPE_CHECKING = False  # not typing's: the hook does not import typing (about 3 ms of every message)
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["record", "latest", "purge", "purge_files", "PurgedFiles", "note_export", "exports", "moved_aside"]

#: How long purging waits for readers of the write-ahead log to finish before it reports that
#: the log could not be emptied: a hook call holds the database about 1 s at most
#: (``notesdb.hook.LOG_BOUND_S``), so twice that lets one finish.
CHECKPOINT_WAIT_MS: Final = 2000


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
                                 route, elapsed_ms, error, attached)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
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
                    {k: s[k] for k in ("path", "evidence", "coverage", "bm25", "phrase")}
                    for s in decision.top_scores[:3]
                ]
            ),
            decision.route,
            round(decision.elapsed_ms, 3),
            decision.error,
            json.dumps(decision.attached),
        ),
    )
    return int(cur.lastrowid or 0)


def latest(conn: sqlite3.Connection, limit: int = 20, before: str | None = None) -> list[dict[str, Any]]:
    """The newest ``limit`` decisions, newest first, as dicts with ``notes`` decoded.

    :param before: an ISO date or time (UTC): only decisions with ``time < before``
    """
    cur = conn.execute(
        "SELECT id, time, session_id, cwd, prompt, spoken, line, notes, top_scores, route, "
        "elapsed_ms, error, label, label_note FROM decisions WHERE ? IS NULL OR time < ? "
        "ORDER BY id DESC LIMIT ?",
        (before, before, limit),
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
    """Delete logged prompt text (the whole decision rows), all or older than ``before``, and
    empty the write-ahead log that held them.

    :param before: an ISO date or time (UTC); rows with ``time < before`` go
    :returns: rows deleted
    :raises PurgeIncomplete: the rows are deleted but another process kept the write-ahead log
        busy for ``CHECKPOINT_WAIT_MS``, so their text may still be in it (run it again)
    """
    # overwrite the deleted text in the file, and empty the write-ahead log that held it
    conn.execute("PRAGMA secure_delete = ON")
    if before:
        cur = conn.execute("DELETE FROM decisions WHERE time < ?", (before,))
    else:
        cur = conn.execute("DELETE FROM decisions")
    deleted = cur.rowcount
    timeout = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    conn.execute(f"PRAGMA busy_timeout = {CHECKPOINT_WAIT_MS}")
    try:
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    finally:
        conn.execute(f"PRAGMA busy_timeout = {timeout}")
    if busy:
        name = conn.execute("PRAGMA database_list").fetchone()[2]
        raise PurgeIncomplete(
            f"deleted {deleted} logged decision{'s' if deleted != 1 else ''}, but another process "
            f"is using the database, so their text may remain in {name}-wal: "
            "run 'notesdb log --purge' again in a moment"
        )
    return deleted


class PurgedFiles:
    """What :func:`purge_files` did beside the database. (A plain class: the hook imports this
    module on every message and skips a dataclass's creation time.)"""

    __slots__ = ("copies", "unreadable", "hook_errors", "exports")

    def __init__(self) -> None:
        self.copies: dict[str, int] = {}  # moved-aside copy -> rows deleted
        self.unreadable: list[str] = []  # copies that cannot be purged
        self.hook_errors = 0  # entries deleted from hook-errors.jsonl
        self.exports: list[str] = []  # files label export wrote, still there


def moved_aside(db_path: Path) -> list[Path]:
    """The copies of the database moved aside (``<name>.damaged-<time>``), oldest first."""
    return sorted(
        p for p in db_path.parent.glob(db_path.name + ".damaged-*")
        if not p.name.endswith(("-wal", "-shm"))
    )  # fmt: skip


def _purge_copy(path: Path, before: str | None) -> int:
    from notesdb.db import check_ours, sqlite_uri

    check_ours(path)
    conn = sqlite3.connect(sqlite_uri(path, mode="rw"), uri=True, isolation_level=None)
    try:
        return purge(conn, before)
    finally:
        conn.close()


def _purge_hook_errors(path: Path, before: str | None) -> int:
    """Delete the entries of ``hook-errors.jsonl`` (older than ``before``); returns how many.

    :raises NotesdbError: the file cannot be read or rewritten (its folder is read-only)
    """
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    except FileNotFoundError:
        return 0
    except OSError as e:
        raise NotesdbError(f"{path} cannot be read to purge it: {e.strerror or e} (check its permissions)") from None
    keep = []
    for line in lines:
        if not line.strip():
            continue
        try:
            when = str(json.loads(line).get("time", ""))
        except (ValueError, AttributeError, RecursionError):  # damaged, or nested too deeply
            when = ""
        if before and when and when[:19] >= before[:19]:
            keep.append(line)
    dropped = sum(1 for line in lines if line.strip()) - len(keep)
    if dropped:
        try:
            write_private(path, "".join(line + "\n" for line in keep))
        except OSError as e:
            raise NotesdbError(f"the logged decisions are deleted, but {path} cannot be rewritten to purge it: "
                               f"{e.strerror or e} (check the permissions of its folder)") from None
    return dropped


def purge_files(conn: sqlite3.Connection, db_path: Path, before: str | None = None) -> PurgedFiles:
    """Purge what notesdb wrote beside the database that holds logged decisions: the copies
    moved aside (the unreadable ones are named) and ``hook-errors.jsonl``; and name the cases
    files ``label export`` wrote that still exist.

    :param before: as in :func:`purge`
    :raises PurgeIncomplete: a copy's write-ahead log stayed busy (see :func:`purge`)
    :raises NotesdbError: ``hook-errors.jsonl`` cannot be read or rewritten
    """
    out = PurgedFiles()
    for copy in moved_aside(db_path):
        try:
            out.copies[copy.name] = _purge_copy(copy, before)
        except PurgeIncomplete:
            raise
        except (NotesdbError, sqlite3.Error):  # damaged, which is why it was moved aside
            out.unreadable.append(str(copy))
    out.hook_errors = _purge_hook_errors(db_path.with_name("hook-errors.jsonl"), before)
    out.exports = [p for p in exports(conn) if Path(p).exists()]
    return out


def note_export(conn: sqlite3.Connection, path: Path) -> None:
    """Remember that ``label export`` wrote logged messages to ``path`` (``meta`` key
    ``exports``, a JSON list of absolute paths), so that a purge can name it, and a digest of
    what it wrote (``export_digests``), so that a file edited since is not replaced unasked."""
    known = exports(conn)
    name = str(path.expanduser().resolve())
    if name not in known:
        conn.execute(
            "INSERT INTO meta(key, value) VALUES ('exports', ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (json.dumps([*known, name]),),
        )
    digests = _export_digests(conn)
    digests[name] = _digest(path)
    conn.execute(
        "INSERT INTO meta(key, value) VALUES ('export_digests', ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (json.dumps(digests),),
    )


def edited_since_export(conn: sqlite3.Connection, path: Path) -> bool:
    """True when ``path``, an earlier export, no longer holds what ``label export`` wrote there
    (cases added or changed by hand); False when it does, or when no digest was kept (an
    export of an older notesdb)."""
    kept = _export_digests(conn).get(str(path.expanduser().resolve()))
    return kept is not None and kept != _digest(path)


def _digest(path: Path) -> str:
    from hashlib import blake2b

    try:
        return blake2b(path.read_bytes(), digest_size=16).hexdigest()
    except OSError:
        return ""


def _export_digests(conn: sqlite3.Connection) -> dict[str, str]:
    row = conn.execute("SELECT value FROM meta WHERE key = 'export_digests'").fetchone()
    try:
        value = json.loads(row[0]) if row else {}
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def exports(conn: sqlite3.Connection) -> list[str]:
    """The files ``label export`` wrote logged messages to (absolute paths)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'exports'").fetchone()
    try:
        value = json.loads(row[0]) if row else []
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def write_private(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8), readable by its owner only (0600) from the
    first byte: written to a new file beside it, then renamed over it.

    :raises OSError: the folder cannot be written
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

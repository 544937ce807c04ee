"""``notesdb mcp``: an MCP server on stdio (the official ``mcp`` SDK, 2.x ``MCPServer``).

Tools for the assistant:

- ``search(query, limit)``: the notes ranked for the words, with the same ranking and typo
  corrections as ``notesdb search``;
- ``read_note(path)``: the text of one indexed note, by its path inside the notes folder
  (anything else is refused);
- ``why(session_id)``: the last logged decision (of that session, when given), and why it
  named what it named, judged again on today's index;
- ``hook(message, session_id, cwd)``: the ``UserPromptSubmit`` answer as hook JSON
  (``{"hookSpecificOutput": {...}}``), or ``{}`` for silence, for a hook of type
  ``mcp_tool``. Decided and logged by :func:`notesdb.hook.run`, exactly as ``notesdb hook``.

Every tool syncs the index first (a no-change sync costs a directory listing). The process
also serves ``notesdb hook --warm`` on a Unix socket beside the database
(:mod:`notesdb.warm`), started before ``mcp`` is imported, and warms itself up (imports,
index, English word list) in the background. For those answers it watches the notes folder
(:mod:`notesdb.watch`) and syncs after each change, so that a message is judged without a
walk of the folder.

Needs the ``mcp`` extra (``pip install -e '.[mcp]'`` in a checkout of notesdb); nothing on the command hook's path
imports this module.
"""

# No ``from __future__ import annotations``: the SDK reads each tool's argument types from its
# signature, and the ``search`` tool's ``limit`` type is built inside ``build_server`` (pydantic
# is imported only there, after the hook socket is up), which a string annotation could not see.

import json
import os
import signal
import sqlite3
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Final

__all__ = ["Place", "build_server", "main", "MAX_SEARCH_LIMIT", "MAX_READ_CHARS"]

#: Notes one ``search`` call returns at most (the CLI's default is 10).
MAX_SEARCH_LIMIT: Final = 50
#: Characters of a note ``read_note`` returns at most (the indexer reads less of a note,
#: ``parse.MAX_NOTE_BYTES``; the assistant may read more of it).
MAX_READ_CHARS: Final = 1024 * 1024
#: Decisions searched backwards for one session by ``why``.
WHY_LOOKBACK: Final = 500

INSTRUCTIONS = (
    "notesdb indexes the person's Markdown notes. Use search to find notes about something, "
    "read_note to read one by the path that search or notesdb's line before a message gives, "
    "and why to see why that line named the notes it named (or stayed silent)."
)


@dataclass
class Place:
    """Where the server works: the options it was started with (None: environment, config
    file, defaults; resolved on every call, like ``notesdb hook``)."""

    notes: str | None = None
    db: str | None = None
    config: str | None = None
    no_log: bool = False

    def hook_argv(self) -> list[str]:
        """The arguments ``notesdb hook`` would get."""
        out: list[str] = []
        for name, value in (("--notes", self.notes), ("--db", self.db), ("--config", self.config)):
            if value:
                out += [name, value]
        if self.no_log:
            out.append("--no-log")
        return out

    def paths(self) -> tuple[Path, Path]:
        """The notes folder and database.

        :raises NotesdbError: no notes folder is set, it does not exist, or the database
            would be inside it
        """
        from notesdb import config as cfg
        from notesdb.errors import NotesdbError

        notes = cfg.resolve_notes(self.notes)
        if not notes.is_dir():
            raise NotesdbError(f"notes folder not found: {notes}")
        return notes, cfg.resolve_db(self.db, notes)

    def open(self) -> tuple[Path, sqlite3.Connection, Any]:
        """Open the database and sync it with the folder; the caller closes the connection.

        :returns: (notes folder, connection, config)
        :raises NotesdbError: as :meth:`paths`, or the database cannot be opened
        """
        from notesdb import config as cfg
        from notesdb.db import open_db
        from notesdb.sync import sync

        notes, db = self.paths()
        conf = cfg.load_config(self.config)
        conn = open_db(db)
        try:
            sync(conn, notes, skip=conf.skip)
        except sqlite3.OperationalError:  # busy: another process is writing; answer from the index
            pass
        return notes, conn, conf


def _error(e: Exception) -> Exception:
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(str(e))


def search_notes(place: Place, query: str, limit: int = 10) -> dict[str, Any]:
    """The ``search`` tool: notes ranked for ``query``; the ``--json`` shape of ``notesdb search``.

    :returns: ``{"query", "corrections": [{"from","to"}], "expansions": [...], "results":
        [{"rank", "score", "bm25", "title", "path", "desc"}]}``
    :param limit: notes to return, 1 to ``MAX_SEARCH_LIMIT``
    :raises NotesdbError: ``query`` is empty or blank (as ``notesdb search`` refuses it),
        ``limit`` is not an integer from 1 to ``MAX_SEARCH_LIMIT``, or see :meth:`Place.open`
    """
    from notesdb.errors import NotesdbError
    from notesdb.query import build_query
    from notesdb.rank import rank
    from notesdb.db import note_count

    if not query.strip():
        raise NotesdbError("nothing to search for: the query is empty (give one or more words)")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_SEARCH_LIMIT:
        raise NotesdbError(f"limit must be a whole number from 1 to {MAX_SEARCH_LIMIT}, not {limit!r}")
    _, conn, _ = place.open()
    try:
        q = build_query(conn, query, note_count(conn))
        r = rank(conn, q, limit=max(limit, 20))
    finally:
        conn.close()
    return {
        "query": query,
        "corrections": [{"from": a, "to": b} for a, b in q.corrections],
        "expansions": [{"from": a, "to": b} for a, b in q.expansions],
        "results": [
            {"rank": i + 1, "score": round(c.evidence, 3), "bm25": round(c.bm25, 3),
             "title": c.title, "path": c.path, "desc": c.desc}
            for i, c in enumerate(r.candidates[:limit])
        ],
    }


def read_note(place: Place, path: str) -> str:
    """The ``read_note`` tool: the text of the indexed note at ``path``, at most
    ``MAX_READ_CHARS`` characters. ``path`` is relative to the notes folder, as ``search``
    gives it (``./`` and doubled slashes allowed), or absolute inside the folder, as the hook's
    line gives it (:func:`notesdb.notepath.index_path`).

    :raises NotesdbError: ``path`` is not an indexed note, or leads outside the notes folder
        (``..``, an absolute path elsewhere, a symlink out), or cannot be read
    """
    from notesdb.errors import NotesdbError
    from notesdb.notepath import index_path

    notes, conn, _ = place.open()
    root = notes.resolve()
    rel = index_path(path, (root, notes.absolute()))
    try:
        known = rel is not None and conn.execute("SELECT 1 FROM notes WHERE path = ?", (rel,)).fetchone()
    finally:
        conn.close()
    if not known or rel is None:
        raise NotesdbError(f"not a note in the notes folder: {path!r} (use a path that search returns)")
    full = (root / rel).resolve()
    if not full.is_relative_to(root):  # indexed through a link: searchable, but not read here
        raise NotesdbError(
            f"refused: {path!r} leads through a symbolic link to {full}, outside the notes folder: "
            "read_note reads only files inside it (search shows what the index holds of it)"
        )
    if not full.is_file():
        raise NotesdbError(f"refused: {path!r} does not lead to a file inside the notes folder")
    try:
        with open(full, "rb") as f:
            data = f.read(MAX_READ_CHARS * 4)
    except OSError as e:
        raise NotesdbError(f"cannot read {path!r}: {e.strerror}") from None
    from notesdb.parse import as_utf8

    text = as_utf8(data).decode("utf-8", "replace")
    if len(text) > MAX_READ_CHARS:
        text = text[:MAX_READ_CHARS] + "\n[... cut at 1 MiB]"
    return text


def why(place: Place, session_id: str = "") -> dict[str, Any]:
    """The ``why`` tool: the last logged decision (of ``session_id`` when given) and, when its
    prompt was logged, the same message judged again now (route, reasons, candidates,
    corrections; the index may have changed since).

    :returns: ``{"decision": {...} | None, "now": {...} | None}``
    :raises NotesdbError: see :meth:`Place.open`
    """
    from notesdb.decide import decide
    from notesdb.log import latest

    _, conn, conf = place.open()
    try:
        rows = latest(conn, WHY_LOOKBACK if session_id else 1)
        if session_id:
            rows = [r for r in rows if r["session_id"] == session_id]
        if not rows:
            return {"decision": None, "now": None,
                    "note": "no decision logged" + (f" for session {session_id}" if session_id else "")}
        row = rows[0]
        keep = ("time", "session_id", "prompt", "spoken", "line", "notes", "route", "top_scores", "error")
        now = decide(conn, row["prompt"], conf.gate).to_json() if row["prompt"] is not None else None
    finally:
        conn.close()
    return {"decision": {k: row[k] for k in keep}, "now": now}


def hook_answer(place: Place, message: str, session_id: str = "", cwd: str = "") -> str:
    """The ``hook`` tool: what ``notesdb hook`` prints for this message, or ``"{}"`` for
    silence (an empty answer is not silence for Claude Code's ``mcp_tool`` hooks). Logged.
    Never raises."""
    from notesdb.hook import run

    raw = json.dumps({"prompt": message, "session_id": session_id, "cwd": cwd,
                      "hook_event_name": "UserPromptSubmit"}, ensure_ascii=False)
    return run(raw.encode("utf-8", "surrogatepass"), place.hook_argv()) or "{}"


def warm_up(place: Place) -> None:
    """Load what judging needs (modules, index, English word list) before the first message;
    logs nothing. Problems are left for the first real call to report."""
    try:
        from notesdb.decide import decide

        _, conn, conf = place.open()
        try:
            decide(conn, "warm up notes index", conf.gate)
        finally:
            conn.close()
    except Exception:
        pass


def start_meaning(place: Place) -> Any:
    """With ``[meaning] enabled`` in the config and the ``meaning`` extra installed: load the
    embedding model and keep the note vectors current in the background
    (:func:`notesdb.meaning.start_background`); every decision of this process then gets
    meaning's second opinion once the model is loaded. Problems go to stderr; judgement stays
    lexical.

    :returns: the stop event of the background work, or None when meaning is not used
    """
    try:
        from notesdb import config as cfg

        conf = cfg.load_config(place.config)
        if not conf.meaning:
            return None
        from notesdb.meaning import available, start_background

        if not available():
            print("notesdb mcp: [meaning] is enabled but the meaning extra is not installed", file=sys.stderr)
            return None
        _, db = place.paths()
        return start_background(str(db), conf.meaning_model)[1]
    except Exception as e:
        print(f"notesdb mcp: matching by meaning not started: {e}", file=sys.stderr)
        return None


def warm_judge(watch: Any) -> Callable[[bytes, list[str]], str]:
    """The warm process's answer to ``notesdb hook --warm``: :func:`notesdb.hook.run`, given
    the watched folder's last sync when it still holds (``watch``, a
    :class:`notesdb.watch.FolderWatch`), so that a message costs no walk of the folder."""
    from notesdb.hook import run

    def judge(raw: bytes, argv: list[str]) -> str:
        return run(raw, argv, watch.current(argv))

    return judge


def build_server(place: Place) -> Any:
    """The MCP server with its four tools (``mcp.server.MCPServer``)."""
    from typing import Annotated

    from mcp.server import MCPServer
    from pydantic import Field

    from notesdb import __version__
    from notesdb.errors import NotesdbError

    server = MCPServer("notesdb", instructions=INSTRUCTIONS, version=__version__)
    # Declared in the tool's input schema (integer, minimum, maximum) and checked by the SDK's
    # validation against the same: strict, so that the string "3" is refused as the schema says,
    # not coerced.
    Limit = Annotated[int, Field(ge=1, le=MAX_SEARCH_LIMIT, strict=True)]

    @server.tool()
    def search(query: str, limit: Limit = 10) -> dict[str, Any]:
        """Search the Markdown notes (BM25 over title, description, headings, body, with typo
        correction). Returns ranked notes with their paths."""
        try:
            return search_notes(place, query, limit)
        except NotesdbError as e:
            raise _error(e) from None

    @server.tool(name="read_note")
    def read_note_tool(path: str) -> str:
        """Read one note by its path: relative to the notes folder as search returns it, or
        the absolute path notesdb's line before a message gives."""
        try:
            return read_note(place, path)
        except NotesdbError as e:
            raise _error(e) from None

    @server.tool(name="why")
    def why_tool(session_id: str = "") -> dict[str, Any]:
        """Why the last 'Notes that may cover this' decision named what it named (or stayed
        silent): the logged decision and the same message judged again now."""
        try:
            return why(place, session_id)
        except NotesdbError as e:
            raise _error(e) from None

    @server.tool()
    def hook(message: str, session_id: str = "", cwd: str = "") -> str:
        """For a UserPromptSubmit hook of type mcp_tool: hook JSON naming the notes that cover
        the message, or {} when none does."""
        return hook_answer(place, message, session_id, cwd)

    return server


def main(place: Place, warm: bool = True) -> int:
    """Serve MCP on stdio until the client closes it; with ``warm``, also serve
    ``notesdb hook --warm`` on the database's socket. Returns the exit code."""
    listener = None
    watch = None
    if warm:
        try:
            from notesdb.warm import WarmListener, socket_path
            from notesdb.watch import FolderWatch

            notes, db = place.paths()
            watch = FolderWatch(notes, db, place.config)
            listener = WarmListener(socket_path(db), warm_judge(watch))
            listener.start()
            watch.start()
        except Exception as e:  # no notes folder yet: the tools say so when called
            print(f"notesdb mcp: not serving the hook socket: {e}", file=sys.stderr)
    threading.Thread(target=warm_up, args=(place,), name="notesdb-warm-up", daemon=True).start()
    start_meaning(place)

    def stop(signum: int, frame: Any) -> None:
        # Clients stop a stdio server with SIGINT, then SIGTERM. The SDK reads stdin in a
        # worker thread that a signal cannot interrupt, so end here: remove the socket, exit.
        if listener is not None:
            listener.close()
        os._exit(0)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        build_server(place).run()  # stdio, until the client closes it
    finally:
        if listener is not None:
            listener.close()
        if watch is not None:
            watch.close()
    return 0


if __name__ == "__main__":  # python -m notesdb.server
    sys.exit(main(Place(os.environ.get("NOTESDB_NOTES"), os.environ.get("NOTESDB_DB"))))

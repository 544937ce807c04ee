"""The per-prompt hook of Claude Code, Codex CLI and Gemini CLI: event JSON on stdin -> one
JSON object, or nothing.

Contract (https://docs.claude.com/en/docs/claude-code/hooks, and :mod:`notesdb.clients` for
the others): stdin holds one JSON object with ``prompt`` and ``hook_event_name``
(``UserPromptSubmit`` from Claude Code and Codex CLI, ``BeforeAgent`` from Gemini CLI; absent
is read as ``UserPromptSubmit``), plus ``session_id``, ``cwd`` and fields notesdb ignores.
When notesdb speaks, stdout is exactly::

    {"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": LINE}}

with the event it received, and LINE names each note by its absolute path (the assistant is
not started in the notes folder). When it is silent stdout is empty. Another event is
answered with silence (route ``bad-input``). While the notes folder is missing, a file or
unreadable, or a note the line would name is missing, the hook is silent (route
``notes-missing``, ``note-missing``): the index may describe a folder that moved away. The exit code is always 0 and nothing else is ever written
to stdout: bad input, a missing or damaged database or an unreadable folder are recorded in
the log (the ``decisions`` table, or ``hook-errors.jsonl`` beside the database when the
database itself cannot be opened; each of its lines names the database and notes folder it
was for, or null when they could not be known) and the assistant carries on. A database that was missing
or empty is created and indexed; if the index cannot be finished within the call, that call
stays silent (route ``new-index``) and later calls finish it. A database file SQLite cannot
read (not a database, malformed) is moved aside to ``<name>.damaged-<time>`` and rebuilt the
same way: the notes are the source of truth. The answer is written before the decision is
logged: one that cannot be written (the client closed stdout) is logged as silent, with why.

Speed: this module imports only the standard library, jellyfish and the lean notesdb modules.
None of them imports ``typing`` (about 3 ms): each names its types under ``if TYPE_CHECKING:``
with a module constant ``TYPE_CHECKING = False``, which type checkers read as true.
Markdown and YAML parsing, and sqlite-utils, are imported only when a note changed or the
schema must be migrated. A first index of a large folder is spread over several calls: each
call parses notes for at most ``SYNC_BUDGET_S`` and answers from what is indexed so far, its
logged reason saying ``index incomplete: N of M notes indexed``.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import time
from pathlib import Path

TYPE_CHECKING = False  # not typing's: the hook does not import typing (about 3 ms of every message)
if TYPE_CHECKING:
    import sqlite3
    from typing import Callable, Final, Iterator

    from notesdb.sync import SyncStats

__all__ = ["main", "run", "answer", "EVENTS", "SYNC_BUDGET_S"]

#: Seconds one hook call may spend parsing changed notes before it answers from what is
#: indexed (the rest is picked up by later calls). Keeps every call near or under 1 s.
SYNC_BUDGET_S: Final = 0.5
#: Seconds after the start of the call that creates a new database until which it may parse
#: notes. Creating it (the migrations) takes about 0.5-0.6 s on 2 cores and leaves little of
#: ``SYNC_BUDGET_S``; until 0.75 s the 13 example notes are indexed whole in that call (about
#: 0.1 s), while the call stays under the 1 s target for a cold call: Python's start, writing
#: the last batch and logging add about 0.25 s (later calls of a first index of 3,000 notes:
#: 0.73 s of wall time for a budget of 0.5 s; the first call on 10,000 notes: 0.79-0.87 s;
#: measured on 2026-11-30).
NEW_DB_SYNC_UNTIL_S: Final = 0.75
#: Prompt characters kept in the log for one message (a pasted 1 MB log is cut to this).
MAX_LOGGED_PROMPT: Final = 100_000
#: Seconds after the start of a call until which logging its decision waits for a database
#: another process is writing (at least ``MIN_LOG_WAIT_S``).
LOG_BOUND_S: Final = 1.0
MIN_LOG_WAIT_S: Final = 0.2
#: Notes with problems named in one decision's ``error`` (each is named again while it lasts).
MAX_LOGGED_PROBLEMS: Final = 20


#: The events notesdb answers: ``UserPromptSubmit`` (Claude Code, Codex CLI) and
#: ``BeforeAgent`` (Gemini CLI); see :mod:`notesdb.clients` for each client's entry.
EVENTS: Final = frozenset({"UserPromptSubmit", "BeforeAgent"})


def answer(event_name: str, line: str) -> str:
    """What the hook prints to add ``line`` to the context, for the event it received.

    Claude Code and Codex CLI (``UserPromptSubmit``) and Gemini CLI (``BeforeAgent``) all read
    ``hookSpecificOutput.additionalContext``; ``hookEventName`` names the event answered (Codex
    requires it, and its schema allows no other property).

    :returns: one JSON object, no trailing newline
    """
    out = {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": line}}
    return json.dumps(out, ensure_ascii=False)


def _int(digits: str) -> int | float:
    """A JSON integer: as Python reads it, or a float (``inf`` past its range) when it has more
    digits than Python converts (``sys.get_int_max_str_digits``, 4,300)."""
    try:
        return int(digits)
    except ValueError:
        return float(digits)


def _text(value: object, limit: int) -> str:
    """At most ``limit`` characters SQLite and UTF-8 accept: a lone surrogate (``"\\ud800"`` in
    the event JSON) becomes U+FFFD."""
    s = (value if isinstance(value, str) else str(value or ""))[:limit]
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        s = re.sub("[\ud800-\udfff]", "\ufffd", s)
    return s


#: Characters of a ``session_id`` kept as they are; real ones are UUIDs (36).
SESSION_ID_CHARS: Final = 200


def _session_id(value: object) -> str:
    """The event's ``session_id``, as typed when it is short; a longer one keeps its first 180
    characters and gains its length and CRC-32 (zlib), so that two long ids sharing a start stay
    two conversations (not hashlib: the hook does not import it, see ``notesdb.config``)."""
    s = value if isinstance(value, str) else str(value or "")
    if len(s) <= SESSION_ID_CHARS:
        return _text(s, SESSION_ID_CHARS)
    import zlib

    whole = s.encode("utf-8", "surrogatepass")
    return _text(s, 180) + f"~{len(s)}:{zlib.crc32(whole):08x}"


def _parse_args(argv: list[str]) -> dict[str, str | bool]:
    opts: dict[str, str | bool] = {}
    it = iter(argv)
    for arg in it:
        if arg == "--no-log":
            opts["no_log"] = True
            continue
        for name in ("--notes", "--db", "--config"):
            if arg == name:
                opts[name[2:]] = next(it, "")
                break
            if arg.startswith(name + "="):
                opts[name[2:]] = arg.split("=", 1)[1]
                break
    return opts


def _option(opts: dict[str, str | bool], name: str) -> str | None:
    """A path option's value, or None when it is missing or empty."""
    value = opts.get(name)
    return value if isinstance(value, str) and value else None


def _absolute(path: Path | None) -> str | None:
    """``path`` made absolute with its links resolved, or None when it is not known."""
    if path is None:
        return None
    try:
        return str(path.expanduser().resolve())
    except (OSError, RuntimeError):
        return str(path)


def _fallback_log(db_path: Path | None, record: dict[str, object], notes: Path | None = None) -> None:
    """Append one JSON line to ``hook-errors.jsonl`` beside the database (mode 0600), or in the
    user data folder when the database's folder cannot be written (:func:`_fallback_folders`).

    The line is ``record`` with ``db`` and ``notes_folder``: the absolute paths of the database
    and the notes folder the call was for, each None when it could not be known (the options or
    the environment name no usable path); ``record``'s own keys (``notes``: the notes a decision
    named) are kept. Several databases share one folder (the default location keeps them all in
    the user data directory), so ``notesdb doctor`` reads ``db`` to tell its own entries from
    those of other databases. Nothing is written when that folder is inside the notes folder
    (notes kept in the home folder hold the user data folder too): the notes are read-only.
    """
    record = {**record, "db": _absolute(db_path), "notes_folder": _absolute(notes)}
    line = json.dumps(record) + "\n"
    for folder in _fallback_folders(db_path):
        try:
            from notesdb.config import inside_folder

            if notes is not None and inside_folder(folder, notes):
                continue  # notesdb never writes in the notes folder, not even this line
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            # O_NONBLOCK: a FIFO of that name would block the open until someone reads it; only a
            # regular file is written (a FIFO, a device or a socket is another program's)
            fd = os.open(folder / "hook-errors.jsonl", os.O_CREAT | os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK, 0o600)
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                continue
            with os.fdopen(fd, "a", encoding="utf-8") as f:
                f.write(line)
            return
        except Exception:
            continue


def _fallback_folders(db_path: Path | None) -> Iterator[Path]:
    """Where ``hook-errors.jsonl`` is written, first that can be: beside the database, then the
    user data folder (``platformdirs.user_data_dir("notesdb")``, where the default databases
    live), so that a database whose folder cannot be written still has its problem recorded.
    A ``--db`` naming a device (``/dev/null``) has no folder of databases beside it: its
    problem goes to the user data folder, not into ``/dev``.
    platformdirs is imported only when the first place would not do."""
    if db_path is not None and not _device(db_path):
        yield db_path.parent
    try:
        import platformdirs

        data = Path(platformdirs.user_data_dir("notesdb"))
    except Exception:
        return
    if db_path is None or data != db_path.parent:
        yield data


def _device(path: Path) -> bool:
    """True when ``path`` is a character or block device (its links followed); False for
    anything else, or a path that does not exist."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode)


def _unreadable(e: BaseException) -> bool:
    """True when SQLite says the file is not a database or is malformed: a file to move aside.
    A valid database notesdb cannot use (busy, read-only, another program's tables, newer
    schema) is never moved by the hook."""
    text = str(e).lower()
    # "vtable constructor failed": FTS5 cannot read its own tables (a damaged notes_fts_data page)
    return any(w in text for w in ("file is not a database", "malformed", "disk image", "vtable constructor failed"))


def _open_or_replace(db_path: Path, errors: list[str]) -> "tuple[sqlite3.Connection, bool]":
    """Open the database; move aside and recreate one SQLite cannot read, when notesdb has
    used it (its ``<name>.lock`` is beside it).

    :raises NotesdbError: SQLite cannot read it and notesdb never used it

    :returns: (connection, True when the database is new or empty)
    """
    from notesdb.errors import DatabaseDamaged
    from notesdb.db import move_aside, open_db

    try:
        fresh = not db_path.exists() or db_path.stat().st_size == 0
    except OSError:
        fresh = False
    try:
        return open_db(db_path), fresh
    except DatabaseDamaged as e:
        if not _unreadable(e):
            raise
        if not db_path.with_name(db_path.name + ".lock").exists():
            # every database notesdb has synced has its lock file beside it: this one is another
            # program's file (a Thumbs.db, a Berkeley DB) that a --db names by mistake
            from notesdb.errors import NotesdbError

            raise NotesdbError(
                f"SQLite cannot read {db_path} and notesdb never used it (no {db_path.name}.lock beside "
                "it): left as it is; name another --db, or 'notesdb doctor --repair' rebuilds it there"
            ) from None
        moved = move_aside(db_path)
        errors.append(f"{e}: moved it aside to {moved.name} and rebuilt it from the notes; {LOG_BACK}")
        return open_db(db_path), True


#: What the hook's note says of the log in a database it moved aside: copying it back is a
#: command's work (it has no time limit; a log of 300,000 decisions takes seconds).
LOG_BACK: Final = "'notesdb doctor --repair' copies its logged decisions back"


def _folder_advice(problem: str) -> str:
    """The log's reason for a notes folder that cannot be used (from
    :func:`notesdb.sync.folder_problem`), with what brings the hook back."""
    if "cannot be read" in problem:
        return f"{problem}: nothing is said until it can be read; check the folder's permissions"
    if "not found" in problem:
        return (f"{problem}: nothing is said until it is back; if it moved, install the hook again "
                "with --notes NEW_FOLDER ('notesdb doctor' shows the entries)")  # fmt: skip
    return (f"{problem}: nothing is said until --notes names a folder; install the hook again "
            "with --notes FOLDER ('notesdb doctor' shows the entries)")  # fmt: skip


def _indexed_root(conn: "sqlite3.Connection") -> str | None:
    """The notes folder the database was last synced with (``meta.notes_root``), or None."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'notes_root'").fetchone()
    return row[0] if row else None


def run(
    raw: bytes,
    argv: list[str],
    synced: "SyncStats | None" = None,
    deliver: "Callable[[str], str] | None" = None,
) -> str:
    """Judge one hook event; returns exactly what to print (``""`` for silence). Never raises.

    :param raw: the bytes read from stdin
    :param argv: the hook's arguments (``--notes DIR``, ``--db PATH``, ``--config F``,
        ``--no-log``)
    :param synced: the result of a sync that still holds for this folder and database (a
        resident process that watches the folder, :mod:`notesdb.watch`): used instead of
        syncing again. Ignored when the database is new or empty.
    :param deliver: writes a spoken answer to the client before the decision is logged and
        returns ``""``, or why it could not (stdout closed, a full device): the decision is then
        logged as silent with that reason in its ``error``, so the log, the conversation's
        hold-back and the labels hold only what reached the assistant. None: the caller prints
        the returned answer itself.
    """
    t0 = time.perf_counter()
    start = time.monotonic()
    deadline = start + SYNC_BUDGET_S
    from notesdb.clock import now_iso
    from notesdb.gate import Decision, Route

    opts = _parse_args(argv)

    event: dict[str, object] = {}
    event_name = "UserPromptSubmit"
    prompt: str | None = None
    problem = ""
    try:
        # a number of more than 4,300 digits in a field notesdb does not read is not bad input
        loaded = json.loads(raw.decode("utf-8-sig", "replace"), parse_int=_int) if raw.strip() else None
        if loaded is None:
            problem = "empty stdin" if not raw.strip() else "stdin JSON is null"
        elif not isinstance(loaded, dict):
            problem = f"stdin JSON is a {type(loaded).__name__}, not an object"
        else:
            event = loaded
            p = event.get("prompt")
            name = event.get("hook_event_name")
            if name is None:  # missing or null: Claude Code's event
                name = "UserPromptSubmit"
            if not isinstance(name, str) or name not in EVENTS:
                problem = f"unsupported hook event {_text(name, 100)!r}: notesdb answers {' and '.join(sorted(EVENTS))}"
            elif isinstance(p, str):
                prompt = _text(p, len(p))
                event_name = str(name)
            else:
                problem = "no prompt in the event" if p is None else "prompt is not a string"
    except (ValueError, RecursionError) as e:  # RecursionError: JSON nested too deep
        from notesdb.entry import MAX_STDIN_BYTES

        if len(raw) >= MAX_STDIN_BYTES:  # read up to the limit only: its end was never seen
            problem = f"stdin is larger than {MAX_STDIN_BYTES // (1024 * 1024)} MiB: not read to its end"
        else:
            problem = f"stdin is not valid JSON: {type(e).__name__}: {e}"[:300]

    db_path: Path | None = None
    notes: Path | None = None
    conn = None
    decision = Decision(spoken=False)
    try:
        from notesdb import config as cfg
        from notesdb.decide import decide
        from notesdb.log import record
        from notesdb.sync import folder_problem, sync

        notes = cfg.resolve_notes(_option(opts, "notes"))
        db_path = cfg.resolve_db(_option(opts, "db"), notes)
        config = cfg.load_config(_option(opts, "config"))
        errors: list[str] = []
        conn, fresh = _open_or_replace(db_path, errors)
        if fresh:  # creating it spent most of the usual budget: a small folder may still fit
            deadline = start + NEW_DB_SYNC_UNTIL_S
        unusable = folder_problem(notes) if prompt is not None else ""
        if unusable:
            # moved, renamed, unmounted, unreadable: the index describes notes the assistant
            # cannot open
            decision.route = "notes-missing"
            decision.error = "; ".join(errors + [_folder_advice(unusable)])
        elif prompt is not None:
            stats = None
            try:
                if synced is not None and not fresh and _indexed_root(conn) == str(notes.resolve()):
                    # the folder is as that sync left it (watched by a resident process), and no
                    # other command has indexed another folder into the database since
                    stats = synced
                else:
                    # a database created in this call is silent until whole: the few notes
                    # past the deadline are for an index that is (an edited note in a big folder)
                    stats = sync(conn, notes, deadline=deadline, skip=config.skip, min_parsed=0 if fresh else -1)
                if fresh:
                    errors.append(
                        f"the database was missing or empty: created it and indexed "
                        f"{len(stats.added)} notes ({stats.pending} left for the next messages)"
                    )
                elif stats.incomplete:  # judged on part of the folder: not a real no-match
                    errors.append(
                        f"index incomplete: {stats.scanned - stats.pending} of {stats.scanned} notes "
                        f"indexed ({stats.pending} left for the next messages)"
                    )
                errors += [f"{path}: {'; '.join(p)}" for path, p in list(stats.problems.items())[:MAX_LOGGED_PROBLEMS]]
            except Exception as e:  # a locked or unreadable folder: answer from the index
                if fresh:
                    errors.append("the database was missing or empty: created it")
                errors.append(f"sync skipped: {type(e).__name__}: {e}")
            if fresh and (stats is None or stats.incomplete):
                # lost or never built, and only begun: a partial index would judge unfairly
                decision.route = Route.NEW_INDEX
            else:
                decision = decide(conn, prompt, config.gate, str(notes.resolve()))
                # deleted, moved or made unreadable since the index last saw it: the assistant
                # could not open it (isfile is False in a folder that cannot be searched)
                gone = [p for p in decision.notes if not (os.path.isfile(notes / p) and os.access(notes / p, os.R_OK))]
                if decision.spoken and gone:
                    decision = Decision(spoken=False, route="note-missing")
                    errors.append(f"named notes no longer on disk or not readable: {', '.join(gone[:MAX_LOGGED_PROBLEMS])}")
                session_id = _session_id(event.get("session_id"))
                if decision.spoken and session_id:
                    from notesdb.conversation import earlier, hold_back

                    hold_back(decision, earlier(conn, session_id, db_path=db_path), config.gate)
                # a note the message attached is in the assistant's context: Gemini CLI lists
                # the files it attached in the prompt, Claude Code attaches its @-mentions
                # (Codex CLI's events carry a turn_id; it attaches none)
                if "@" in prompt and (event_name == "BeforeAgent" or "turn_id" not in event):
                    from notesdb.mentions import hold_back_attached

                    cwd = event.get("cwd")
                    cwd = cwd if isinstance(cwd, str) and os.path.isabs(cwd) else None
                    hold_back_attached(decision, prompt, event_name == "BeforeAgent", cwd, str(notes), conn)
            if deliver is not None and decision.spoken and decision.line:
                undelivered = deliver(answer(event_name, decision.line))
                if undelivered:
                    decision.spoken = False
                    errors.append(f"answer not delivered ({undelivered}): {', '.join(decision.notes)}")
            decision.error = "; ".join(errors)
        else:
            decision.route = Route.BAD_INPUT
            decision.error = "; ".join(errors + [problem])
        decision.elapsed_ms = (time.perf_counter() - t0) * 1000
        log_prompt = config.log_prompts and not opts.get("no_log")
        text = prompt[:MAX_LOGGED_PROMPT] if prompt is not None else None
        # another process may be writing: wait for it, within the hook's time bound
        wait_s = max(MIN_LOG_WAIT_S, LOG_BOUND_S - (time.perf_counter() - t0))
        conn.execute(f"PRAGMA busy_timeout = {int(wait_s * 1000)}")
        try:
            record(
                conn,
                decision,
                text,
                session_id=_session_id(event.get("session_id")),
                cwd=_text(event.get("cwd"), 1000),
                log_prompt=bool(log_prompt),
            )
        except Exception as e:  # the answer stands; the decision goes to the fallback file
            from notesdb.conversation import UNLOGGED

            _fallback_log(
                db_path,
                {
                    "time": now_iso(),
                    "error": f"{UNLOGGED}{type(e).__name__}: {e}",
                    "route": decision.route,
                    "notes": decision.notes,
                    # read back by conversation.earlier: the note is in the assistant's context
                    "evidence": {s["path"]: s["evidence"] for s in decision.top_scores if s["path"] in decision.notes},
                    "attached": decision.attached,
                    "session_id": _session_id(event.get("session_id")),
                },
                notes,
            )
    except BaseException as e:  # noqa: BLE001 - the hook must never break the assistant
        decision = Decision(spoken=False, route=Route.ERROR)
        error = f"{type(e).__name__}: {e}"
        if db_path is not None and _unreadable(e):
            # damage found past opening (a malformed page): move it aside now, so that the
            # next call rebuilds it instead of failing the same way on every message
            try:
                if conn is not None:
                    conn.close()
                    conn = None
                from notesdb.db import move_aside

                error += f": moved it aside to {move_aside(db_path).name}; the next message rebuilds it; {LOG_BACK}"
            except Exception as e2:
                error += f" (could not move it aside: {e2})"
        _fallback_log(
            db_path,
            {
                "time": now_iso(),
                "error": error,
                "input_problem": problem,
                "session_id": _session_id(event.get("session_id")),
            },
            notes,
        )
    finally:
        if conn is not None:
            try:
                conn.close()
            except Exception:
                pass
    if not decision.spoken or not decision.line:
        return ""
    return answer(event_name, decision.line)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``notesdb hook``: read stdin, print the answer, return 0. Always 0."""
    from notesdb.entry import read_event, write_stdout

    raw = read_event()
    try:
        run(raw, list(sys.argv[2:] if argv is None else argv), deliver=write_stdout)
    except BaseException:
        pass
    return 0

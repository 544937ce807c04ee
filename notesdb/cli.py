"""The ``notesdb`` commands (typer). Each is a thin wrapper over a library function; errors a
user can act on (``NotesdbError``) become one ``Error: ...`` line and exit code 1."""

from __future__ import annotations

import json
import os
from dataclasses import asdict
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final, Optional

import typer

from notesdb import config as cfg
from notesdb.errors import ConfigError, DatabaseDamaged, NotesdbError, extra_hint

if TYPE_CHECKING:
    from notesdb.sync import SyncStats

#: ``-h`` as well as ``--help``, for every command (click hands it down to each subcommand).
HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}
#: Code names ``check --explain`` lists before "and N more": a pasted file can hold hundreds.
EXPLAIN_NAMES = 10

app = typer.Typer(
    help="Tell your AI assistant which of your Markdown notes cover each message, or nothing.",
    no_args_is_help=True,
    context_settings=HELP_OPTIONS,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
hook_app = typer.Typer(
    help="The per-prompt hook of Claude Code, Codex CLI and Gemini CLI: run it (reads event JSON on stdin), install or uninstall it.",
    invoke_without_command=True,
    add_completion=False,
    rich_markup_mode=None,
)
app.add_typer(hook_app, name="hook")

def _path(value: str) -> Path:
    """A path option's value; an empty one is a usage error (``Path("")`` would be ``.``)."""
    if not value:
        raise typer.BadParameter("an empty path names nothing")
    return Path(value)


NotesOpt = Annotated[
    Optional[Path],
    typer.Option("--notes", metavar="DIR", parser=_path, help="Notes folder [env: NOTESDB_NOTES].", show_default=False),
]
DbOpt = Annotated[
    Optional[Path],
    typer.Option("--db", metavar="PATH", parser=_path, help="Database file [env: NOTESDB_DB; default: one per folder in the user data dir].", show_default=False),
]
ConfigOpt = Annotated[
    Optional[Path],
    typer.Option("--config", metavar="FILE", parser=_path, help="Config file [env: NOTESDB_CONFIG].", show_default=False),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _version(value: bool) -> None:
    if value:
        from notesdb import __version__

        echo(f"notesdb {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """Tell your AI assistant which of your Markdown notes cover each message, or nothing."""


#: The database the running command works on, named by :func:`run` when SQLite refuses to write it.
_DATABASE_IN_USE: list[Path] = []


def _in_use(db_path: Path) -> Path:
    """Remember ``db_path`` as the database of the running command; returns it."""
    _DATABASE_IN_USE[:] = [db_path]
    return db_path


def _unwritable(e: BaseException) -> bool:
    """True for SQLite's errors that mean the database or its folder cannot be written (the
    file, its -wal or -shm file, or the folder where they are made are read-only)."""
    text = str(e).lower()
    return any(w in text for w in ("readonly", "read-only", "unable to open database file"))


#: What a terminal reads as commands, not text: the C0 controls but tab and newline, DEL and
#: the C1 controls (ESC opens a sequence that sets the window title or clears the screen; 0x9B
#: is CSI). A note's file name, title or words may hold them (a cloned folder).
_TERMINAL_CONTROLS: Final = dict.fromkeys((*(c for c in range(0x20) if c not in (0x09, 0x0A)), *range(0x7F, 0xA0)), "?")


def echo(message: str = "", err: bool = False, nl: bool = True) -> None:
    """``typer.echo`` for text a person reads, each terminal control (:data:`_TERMINAL_CONTROLS`)
    shown as ``?``. JSON and exported cases are written with ``typer.echo`` as they are (JSON
    escapes the C0 controls)."""
    typer.echo(message.translate(_TERMINAL_CONTROLS), err=err, nl=nl)


def fail(message: str, code: int = 1) -> None:
    """Print ``Error: message`` on stderr and exit with ``code``."""
    echo(f"Error: {message}", err=True)
    raise typer.Exit(code)


def notes_folder(notes: Path | None) -> Path:
    """The notes folder from ``--notes`` or ``NOTESDB_NOTES``.

    :raises NotesdbError: none is given, or it is not an existing folder
    """
    folder = cfg.resolve_notes(notes)
    if not folder.is_dir():
        if folder.exists():
            raise NotesdbError(f"notes folder {folder} is a file, not a folder: give the folder that holds the notes")
        raise NotesdbError(f"notes folder not found: {folder}")
    return folder


class Opened:
    """The notes folder, database connection and config a command works on."""

    def __init__(self, notes: Path | None, db: Path | None, config: Path | None, *, sync: bool = True,
                 progress: bool = False, db_only: bool = False) -> None:
        """:param db_only: the command reads the database only: ``--db`` (or ``NOTESDB_DB``)
        alone is enough, and without a notes folder nothing is synced (``notes`` is None)"""
        from notesdb.db import open_db
        from notesdb.sync import sync as do_sync

        self.config = cfg.load_config(config)
        self.notes: Path | None
        self.db_path: Path
        self.stats = None
        if db_only and not (notes or os.environ.get("NOTESDB_NOTES")):
            self.notes = None
            self.db_path = cfg.resolve_db(db, None)
            self.conn = open_db(_in_use(self.db_path), create=False, busy_timeout_ms=COMMAND_BUSY_TIMEOUT_MS)
            return
        if db_only and not cfg.resolve_notes(notes).is_dir():
            # the folder is gone (an unmounted drive, a renamed vault): its database, the one
            # named or the folder's default, still holds the log
            self.notes = None
            self.db_path = cfg.resolve_db(db, cfg.resolve_notes(notes))
            self.conn = open_db(_in_use(self.db_path), create=False, busy_timeout_ms=COMMAND_BUSY_TIMEOUT_MS)
            return
        self.notes = notes_folder(notes)
        self.db_path = cfg.resolve_db(db, self.notes)
        # a command that reads the log never makes a database (nor the folders above it) to read
        self.conn = open_db(_in_use(self.db_path), create=not db_only, busy_timeout_ms=COMMAND_BUSY_TIMEOUT_MS)
        if sync:
            if progress:
                self.stats = _sync_with_progress(self.conn, self.notes, self.config.skip)
            else:
                self.stats = do_sync(self.conn, self.notes, skip=self.config.skip)


class _Bar:
    """A sync's progress callback: a transient bar on a terminal, for 200 notes or more.
    ``close()`` removes it (call it in ``finally``)."""

    def __init__(self) -> None:
        self.bar: Any = None
        self.task: Any = None

    def __call__(self, done: int, total: int) -> None:
        if total < 200 or not sys.stderr.isatty():
            return
        if self.bar is None:
            from rich.progress import Progress

            self.bar = Progress(transient=True)
            self.bar.start()
            self.task = self.bar.add_task("indexing notes", total=total)
        self.bar.update(self.task, completed=done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def _sync_with_progress(conn: sqlite3.Connection, notes: Path, skip: tuple[str, ...]) -> SyncStats:
    from notesdb.sync import sync

    bar = _Bar()
    try:
        return sync(conn, notes, skip=skip, progress=bar)
    finally:
        bar.close()


def _rebuild_in_place_with_progress(conn: sqlite3.Connection, notes: Path, skip: tuple[str, ...]) -> SyncStats:
    from notesdb.sync import rebuild_in_place

    bar = _Bar()
    try:
        return rebuild_in_place(conn, notes, skip=skip, progress=bar)
    finally:
        bar.close()


def _rebuild_with_progress(db_path: Path, notes: Path, skip: tuple[str, ...]) -> tuple[sqlite3.Connection, SyncStats, Path | None]:
    from notesdb.sync import rebuild_index

    bar = _Bar()
    try:
        return rebuild_index(db_path, notes, skip=skip, busy_timeout_ms=COMMAND_BUSY_TIMEOUT_MS, progress=bar)
    finally:
        bar.close()


def _indexed_root(conn: sqlite3.Connection) -> Path | None:
    """The notes folder the database was last synced with (``meta.notes_root``), or None."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'notes_root'").fetchone()
    return Path(row[0]) if row and row[0] else None


def _echo(lines: list[str]) -> None:
    for line in lines:
        echo(line)


#: Said after "no database" or "no notes folder" when the installed hook entries disagree.
_ENTRIES_DISAGREE = (
    "the installed notesdb hooks name different folders, databases or configs ({entries}),"
    " so none of them is the default"
)


def _installed_defaults(
    notes: Path | None, db: Path | None, config: Path | None
) -> tuple[Path | None, Path | None, Path | None, str]:
    """``(notes, db, config, hint)`` with the installed hook's, when none of them is given (options
    or ``NOTESDB_NOTES``/``NOTESDB_DB``/``NOTESDB_CONFIG``) and every notesdb hook entry found in
    the assistants' settings (``install.find_installed``) names the same folder, database and
    config: after ``notesdb hook install``, ``notesdb log`` and ``notesdb search`` work on what the
    hook uses. Otherwise they are returned as given, and when installed entries disagree,
    ``hint`` says so (:data:`_ENTRIES_DISAGREE`, to follow a "no database" error); else ``""``."""
    if notes or db or any(os.environ.get(v) for v in ("NOTESDB_NOTES", "NOTESDB_DB")):
        return notes, db, config, ""
    from notesdb.install import find_installed

    try:
        entries = find_installed()
    except Exception:  # a settings file notesdb cannot read: as if nothing were installed
        return notes, db, config, ""
    found = {f.points_at for f in entries}
    if len(found) > 1:
        named = sorted({f"{f.client.name} {f.scope}: " + " ".join(
            f"{opt} {val}" for opt in ("--notes", "--db", "--config") if (val := f.option(opt))
        ) for f in entries})
        return notes, db, config, _ENTRIES_DISAGREE.format(entries="; ".join(named))
    if len(found) != 1:
        return notes, db, config, ""
    (n, d, c), = found
    if not n:
        return notes, db, config, ""
    if config or os.environ.get("NOTESDB_CONFIG") or not c:
        return Path(n), Path(d) if d else None, config, ""
    return Path(n), Path(d) if d else None, Path(c), ""


def _with_hint(message: str, hint: str) -> str:
    """``message``, followed by ``hint`` when it says that no database or notes folder was named."""
    if hint and message.startswith(("no database", "no notes folder")):
        return f"{message}; {hint}"
    return message


def _open(notes: Path | None, db: Path | None, config: Path | None, **kw: Any) -> Opened:
    notes, db, config, hint = _installed_defaults(notes, db, config)
    try:
        return Opened(notes, db, config, **kw)
    except NotesdbError as e:
        fail(_with_hint(str(e), hint))
        raise  # unreachable


@app.command()
def index(
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Rebuild the index from the notes, in the same file (the decisions log is kept).")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every note with a problem, also those unchanged since the last run (else one line per kind of problem found in this run).")] = False,
    meaning: Annotated[bool, typer.Option("--meaning", help="Also embed new and changed notes for matching by meaning (needs the meaning extra).")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Bring the database in line with the notes folder (new, changed, renamed, deleted notes)."""
    from notesdb.db import open_db

    if meaning:
        from notesdb.meaning import available

        if not available():
            fail(f"--meaning needs the meaning model: {extra_hint('meaning')}")
    embedded = None

    notes, db, config, hint = _installed_defaults(notes, db, config)
    try:
        conf = cfg.load_config(config)
        folder = notes_folder(notes)
        from notesdb.sync import folder_problem

        problem = folder_problem(folder)  # before the database is made: nothing to index it from
        if problem:
            raise NotesdbError(problem)
        db_path = cfg.resolve_db(db, folder)
        moved = None
        conn = None
        try:
            conn = open_db(_in_use(db_path), busy_timeout_ms=COMMAND_BUSY_TIMEOUT_MS)
            from notesdb.db import missing_tables, probe_tables

            # dropped by hand or by another program: rebuilt, its log copied back; english_rare
            # only guards corrections, and every command works without it (doctor names it)
            lost = [t for t in missing_tables(conn) if t != "english_rare"]
            if lost:
                raise DatabaseDamaged(f"tables are missing: {', '.join(lost)}")
            probe_tables(conn)  # a damaged table's root page: rebuilt, not reported in line
            if rebuild:  # in place: the file, and the decisions log in it, stay
                stats = _rebuild_in_place_with_progress(conn, folder, conf.skip)
            else:
                stats = _sync_with_progress(conn, folder, conf.skip)
        except (DatabaseDamaged, sqlite3.DatabaseError) as e:
            if not _damaged(e):
                raise NotesdbError(f"database {db_path} cannot be written: {_sqlite_reason(e)}") from None
            if conn is not None:
                conn.close()
            conn, stats, moved = _rebuild_with_progress(db_path, folder, conf.skip)
        back = ""
        if moved:  # the log of the database moved aside is the user's: it comes back
            from notesdb.db import copy_decisions_back, disk_refused

            try:
                back = copy_decisions_back(conn, moved)
            except sqlite3.OperationalError as e:
                if not disk_refused(e):
                    raise
                raise NotesdbError(
                    f"moved the unreadable database aside to {moved} and rebuilt it, but its logged decisions "
                    f"could not be copied back ({e}): free some space, then 'notesdb doctor --repair' copies them"
                ) from None
        total = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
        from notesdb.meter import measure, still_valid, store

        # a folder that did not change keeps its reading (same notes, settings and version)
        reading = None if (stats.changed or rebuild or moved) else still_valid(conn, conf.gate)
        if reading is None:
            reading = measure(conn, conf.gate)
            store(conn, reading, conf.gate)
        if meaning:
            embedded = _embed_notes(conn, conf.meaning_model, progress=not json_out and sys.stderr.isatty())
    except NotesdbError as e:
        fail(_with_hint(str(e), hint))
        return
    if json_out:
        out = {
            "false_alarm_meter": asdict(reading),
            "db": str(db_path),
            "notes": total,
            "scanned": stats.scanned,
            "added": stats.added,
            "modified": stats.modified,
            "renamed": [list(r) for r in stats.renamed],
            "removed": stats.removed,
            "problems": stats.problems,
            "skipped": stats.skipped,
            "elapsed_ms": round(stats.elapsed_ms, 2),
            "moved_aside": str(moved) if moved else None,
            "rebuilt": rebuild or bool(moved),
        }
        if embedded is not None:
            out["meaning"] = embedded
        typer.echo(json.dumps(out, indent=2, ensure_ascii=_ascii_json()))
        return
    if moved:
        echo(f"The database could not be read; moved it aside to {moved} and rebuilt it from the notes"
                   + (f", and {back}." if back else "."))
    elif rebuild:
        echo("Rebuilt the index from the notes in the same file (the decisions log is kept).")
    echo(
        f"{total} notes in {db_path}: {len(stats.added)} added, {len(stats.modified)} changed, "
        f"{len(stats.renamed)} renamed, {len(stats.removed)} removed ({stats.elapsed_ms:.0f} ms)"
    )
    from notesdb.sync import stored_problems

    # --verbose: every note with a problem, also those read before this run (found unchanged)
    _echo(problem_lines({**stored_problems(conn), **stats.problems} if verbose else stats.problems, verbose))
    if stats.changed:  # what [index] skip and template detection left out, once per change
        for path in sorted(stats.skipped):
            echo(f"skipped: {path}")
    echo(_meter_line(reading))
    if embedded is not None:
        echo(
            f"meaning: embedded {embedded['embedded']} notes ({embedded['ms_per_note']} ms a note), "
            f"{embedded['vectors_total']} vectors in the database"
        )


def problem_lines(problems: dict[str, list[str]], verbose: bool = False) -> list[str]:
    """``problem:`` lines for the notes of ``problems`` (path -> what was wrong with it): one
    line per note with ``verbose`` or when a kind of problem concerns one note, else one line
    per kind ("empty file: 269 notes"), so that a folder full of empty placeholder notes gives
    one line. A problem's kind is its text up to the first ": "."""
    if verbose:
        return [f"problem: {path}: {'; '.join(p)}" for path, p in sorted(problems.items())]
    kinds: dict[str, list[str]] = {}
    for path, found in problems.items():
        for problem in found:
            kinds.setdefault(problem.split(": ", 1)[0], []).append(path)
    lines = []
    for kind, paths in sorted(kinds.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        if len(paths) == 1:
            path = paths[0]
            lines.append(f"problem: {path}: {next(p for p in problems[path] if p.split(': ', 1)[0] == kind)}")
        else:
            lines.append(f"problem: {kind}: {len(paths)} notes (--verbose lists them)")
    return lines


def _meter_line(reading: Any) -> str:
    """One line about the false-alarm meter (``notesdb.meter.Reading``), with a warning above
    ``meter.WARN_SHARE``."""
    from notesdb.meter import WARN_SHARE

    line = (
        f"false-alarm meter: would speak on {reading.spoken} of {reading.messages} generic "
        f"messages ({reading.share:.1%}, {reading.elapsed_ms:.0f} ms)"
    )
    if reading.warn:
        line += f" - warning: above {WARN_SHARE:.0%}; 'notesdb tune --generic' can choose quieter settings"
    return line


@app.command()
def search(
    query: Annotated[str, typer.Argument(metavar="QUERY", help="Words to search for.", show_default=False)],
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=1_000_000, help="Notes to show.")] = 10,
    json_out: JsonOpt = False,
    sql: Annotated[bool, typer.Option("--sql", help="Print the SQL it runs, its values filled in, instead.")] = False,
) -> None:
    """Rank the notes for QUERY (BM25 with column weights 3, 2, 2, 1), with typo corrections."""
    from notesdb.query import build_query, match_expression
    from notesdb.rank import MAX_CANDIDATES, rank, search_sql
    from notesdb.db import note_count

    if not query.strip():
        fail("nothing to search for: QUERY is empty (give one or more words)")
    o = _open(notes, db, config)
    n = note_count(o.conn)
    q = build_query(o.conn, query, n, o.config.gate)
    if sql:
        expr = match_expression(q.words)
        candidates = max(limit, MAX_CANDIDATES)
        if expr:  # a statement to paste into sqlite3 as it is: the values in SQL's quoting
            quoted = "'" + expr.replace("'", "''") + "'"
            echo(search_sql().replace("MATCH ?", f"MATCH {quoted}").replace("LIMIT ?", f"LIMIT {candidates}") + ";")
        else:
            echo(search_sql())
        echo(f"-- MATCH: {expr}" if expr else "-- MATCH: (none: no word of QUERY is in the notes, so no note matches)")
        echo(f"-- LIMIT: {candidates}")
        return
    r = rank(o.conn, q, limit=max(limit, MAX_CANDIDATES), settings=o.config.gate)
    results: list[dict[str, Any]] = [
        {
            "rank": i + 1,
            "score": round(c.evidence, 3),
            "bm25": round(c.bm25, 3),
            "title": c.title,
            "path": c.path,
            "desc": c.desc,
        }
        for i, c in enumerate(r.candidates[:limit])
    ]
    if json_out:
        typer.echo(json.dumps({
            "query": query,
            "corrections": [{"from": a, "to": b} for a, b in q.corrections],
            "expansions": [{"from": a, "to": b} for a, b in q.expansions],
            "results": results,
        }, indent=2, ensure_ascii=_ascii_json()))
        return
    for a, b in q.corrections:
        echo(f"corrected: {a} → {b}")
    for a, b in q.expansions:
        echo(f"expanded: {a} → {b}")
    if not results:
        echo("no notes match")
    else:  # score: the evidence the gate weighs (check --explain); bm25 is in --json
        echo(f"{'rank':>4}  {'score':>6}  title  (path)")
    from notesdb.gate import one_line, shown_path

    for r_ in results:  # no control character of a note reaches the terminal
        echo(f"{r_['rank']:>3}. {r_['score']:6.2f}  {one_line(r_['title'])}  ({shown_path(r_['path'], 400)})")
        if r_["desc"]:
            echo(f"              {one_line(r_['desc'])[:160]}")


def _embed_notes(conn: sqlite3.Connection, model_folder: str | None, progress: bool) -> dict[str, Any]:
    """``index --meaning``: embed the notes without a current vector.

    :raises NotesdbError: the model cannot be loaded or the vectors cannot be written
    """
    from notesdb.meaning import Meaning

    m = Meaning(model_folder, threads=0, quiet=True)
    if m.model is None:
        raise NotesdbError(m.error)

    def show(done: int, todo: int) -> None:
        echo(f"\rembedding notes for meaning: {done}/{todo}", nl=done >= todo, err=True)

    try:
        from notesdb.embed import COMMAND_BATCH

        done = m.refresh_db(conn, progress=show if progress else None, batch=COMMAND_BATCH)
    except sqlite3.Error as e:
        raise NotesdbError(f"note vectors cannot be written: {e}") from None
    total = conn.execute("SELECT count(*) FROM note_vectors").fetchone()[0]
    return {"model": m.model.name, "load_ms": round(m.model.load_ms, 1), "embedded": done.embedded,
            "vectors": done.vectors, "removed": done.removed, "ms_per_note": round(done.ms_per_note, 1),
            "vectors_total": total}


def _meaning(o: Opened) -> None:
    """With ``[meaning] enabled``, load the embedding model, embed the notes that lack a
    vector, and let it give its second opinion on this command's decisions."""
    if not o.config.meaning:
        return
    from notesdb.meaning import available, for_command

    if not available():
        echo("warning: [meaning] is enabled but the meaning extra is not installed: judging by words alone", err=True)
        return
    try:
        for_command(o.conn, o.config.meaning_model, progress=sys.stderr.isatty())
    except sqlite3.Error as e:
        fail(f"note vectors cannot be written: {e}")


@app.command()
def check(
    message: Annotated[str, typer.Argument(metavar="MESSAGE", help="The message, as typed; - reads it from stdin (up to 64 MiB).", show_default=False)],
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show why: terms, candidates, route.")] = False,
    session: Annotated[Optional[str], typer.Option("--session", metavar="ID", help="Judge as the next message of this logged conversation (its session_id): notes it already named are held back.", show_default=False)] = None,
    json_out: JsonOpt = False,
) -> None:
    """Print the line notesdb would add for MESSAGE, or say that it stays silent."""
    from notesdb.decide import decide

    if message == "-":
        data = sys.stdin.buffer.read(MAX_STDIN_MESSAGE + 1)
        if len(data) > MAX_STDIN_MESSAGE:  # /dev/zero, a disk image: read until memory ran out
            fail(f"the message on stdin is longer than {MAX_STDIN_MESSAGE // (1024 * 1024)} MiB: give a shorter one")
        message = data.decode("utf-8", "replace")
    o = _open(notes, db, config)
    _meaning(o)
    d = decide(o.conn, message, o.config.gate, str(o.notes.resolve()) if o.notes else None)
    if session:
        from notesdb.conversation import earlier, hold_back

        # as the hook reads it: with the decisions it could not log (database locked)
        hold_back(d, earlier(o.conn, session, db_path=o.db_path), o.config.gate)
    if "@" in message and o.notes:
        from notesdb.mentions import REFERENCED, hold_back_attached

        # as the hook reads Claude Code's mentions (or the files Gemini CLI appended), from the
        # folder the command runs in
        hold_back_attached(d, message, REFERENCED in message, None, str(o.notes), o.conn)
    if json_out:
        typer.echo(json.dumps(d.to_json(), indent=2, ensure_ascii=_ascii_json()))
        return
    echo(d.line if d.spoken else f"(silent: {d.route})")
    if explain:
        echo("")
        for a, b in d.corrections:
            echo(f"corrected: {a} → {b}")
        for a, b in d.expansions:
            echo(f"expanded:  {a} → {b}")
        if d.whole_names:
            shown = ", ".join(d.whole_names[:EXPLAIN_NAMES])
            more = len(d.whole_names) - EXPLAIN_NAMES
            echo(
                f"code names: {shown}{f' and {more} more' if more > 0 else ''} "
                "(their words count only in a note holding all of a name's words, together)"
            )
        echo("candidates (evidence = sum of weight x IDF x place; coverage = share of the message):")
        for i, c in enumerate(d.top_scores):
            echo(
                f"  {i + 1}. {c['path']}  evidence {c['evidence']:.2f}  coverage {c['coverage']:.2f}  bm25 {c['bm25']:.2f}"
            )
            echo(f"     words: {', '.join(c['hits'])}; about: {', '.join(c['about']) or '-'}")
            if c.get("phrases"):
                echo(f"     phrases: {', '.join(c['phrases'])} (evidence {c['phrase']:.2f} of it)")
        echo(f"route: {d.route}")
        for reason in d.reasons:
            echo(f"  {reason}")


@hook_app.callback()
def hook(
    ctx: typer.Context,
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    no_log: Annotated[bool, typer.Option("--no-log", help="Do not store prompt text in the log.")] = False,
    warm: Annotated[bool, typer.Option("--warm", help="Ask a running 'notesdb mcp' over its socket first; judge here when none answers.")] = False,
) -> None:
    """Run the hook (Claude Code, Codex CLI, Gemini CLI): event JSON on stdin, one JSON object or nothing on stdout, exit 0."""
    if ctx.invoked_subcommand is not None:
        return
    if warm:
        from notesdb.warm import hook_main
    else:
        from notesdb.hook import main as hook_main

    args: list[str] = ["--warm"] if warm else []
    for name, value in (("--notes", notes), ("--db", db), ("--config", config)):
        if value is not None:
            args += [name, str(value)]
    if no_log:
        args.append("--no-log")
    raise typer.Exit(hook_main(args))


ClientOpt = Annotated[str, typer.Option("--client", help="claude, codex or gemini.")]


@hook_app.command("install")
def hook_install(
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: Annotated[Optional[Path], typer.Option("--config", metavar="FILE", parser=_path, help="Config file the hook reads (checked now, written into the entry) [default: NOTESDB_CONFIG or the user config file, read when the hook runs].", show_default=False)] = None,
    client: ClientOpt = "claude",
    scope: Annotated[str, typer.Option("--scope", help="user, project (shared, committed) or local (claude only: .claude/settings.local.json).")] = "user",
    timeout: Annotated[int, typer.Option("--timeout", min=1, help="Seconds the assistant waits for the hook.")] = 10,
    warm: Annotated[Optional[bool], typer.Option("--warm/--no-warm", help="Ask a running 'notesdb mcp' first (hook --warm) [default: as the entry it replaces, else off].", show_default=False)] = None,
) -> None:
    """Add the hook to an assistant's settings (idempotent; keeps every other setting)."""
    from notesdb.install import check_can_install, install

    try:
        folder = notes_folder(notes)
        # a bad client, scope or settings file, a hook in another file the client merges with
        # this one, or a settings file inside the notes folder stops before any indexing
        check_can_install(scope, client, notes=folder)
        db_path = cfg.resolve_db(db, folder).resolve()
        # build the index first: the first message is then judged against every note, and a
        # database that cannot be written stops the install before a broken hook is added
        config_path = cfg.config_path(config).resolve() if config is not None else None
        if config_path is not None and not config_path.is_file():
            raise NotesdbError(f"config file not found: {config}")
        o = Opened(folder, db_path, config_path, progress=True)  # reads (checks) the config
        count = o.conn.execute("SELECT count(*) FROM notes").fetchone()[0]
        from notesdb.meter import measure, store, stored

        if stored(o.conn) is None:  # measured once here, so that doctor has it from the start
            store(o.conn, measure(o.conn, o.config.gate), o.config.gate)
        done = install(folder.resolve(), db_path, scope, timeout, client=client, config=config_path, warm=warm)
    except NotesdbError as e:
        fail(str(e))
        return
    notes_word = f"{count} note{'s' if count != 1 else ''}"
    s = o.stats
    if s is None or not s.changed:
        index_line = f"index up to date ({notes_word} in {db_path})"
    elif len(s.added) == count and not (s.modified or s.renamed or s.removed):  # a first index
        index_line = f"indexed {notes_word} into {db_path}"
    else:
        index_line = (
            f"index updated ({len(s.added)} added, {len(s.modified)} changed, {len(s.renamed)} renamed, "
            f"{len(s.removed)} removed; {notes_word} in {db_path})"
        )
    if done.changed:
        echo(f"wrote to {done.path}:")
        typer.echo(json.dumps(done.entry, indent=2, ensure_ascii=_ascii_json()))
        for old, old_db in zip(done.replaced, done.replaced_dbs):
            echo(f"replaced the entry for {old}")
            kept = _kept_database(old_db, db_path)
            if kept:
                echo(kept)
    else:
        echo(f"already installed in {done.path}, unchanged")
    echo(index_line)
    for line in done.advice:
        echo(line)
    from notesdb.clients import handler_argv
    from notesdb.install import venv_warning

    warning = venv_warning((handler_argv(done.entry) or [""])[0])
    if warning:
        echo(warning, err=True)


@hook_app.command("uninstall")
def hook_uninstall(
    client: ClientOpt = "claude",
    scope: Annotated[str, typer.Option("--scope", help="user, project or local.")] = "user",
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Remove the notesdb hook from an assistant's settings (and nothing else).

    Every notesdb entry of that settings file goes, whatever folder, database or config it
    names: --notes, --db and --config are accepted as by every command and change nothing."""
    from notesdb.install import uninstall

    try:
        path, removed = uninstall(scope, client=client)
    except NotesdbError as e:
        fail(str(e))
        return
    if removed == 0 and not path.exists():
        echo(f"no settings file at {path}: no notesdb hook to remove")
        return
    echo(f"removed {removed} notesdb hook entr{'y' if removed == 1 else 'ies'} from {path}")


@app.command("log")
def log_cmd(
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=1_000_000, help="Decisions to show.")] = 20,
    json_out: JsonOpt = False,
    purge: Annotated[bool, typer.Option("--purge", help="Delete logged decisions and their prompts.")] = False,
    before: Annotated[Optional[str], typer.Option("--before", metavar="DATE", help="Only decisions older than this date (YYYY-MM-DD, or a time): those shown, or with --purge those deleted.", show_default=False)] = None,
) -> None:
    """Show the latest decisions the hook made (or purge them)."""
    from notesdb import log

    o = _open(notes, db, config, sync=False, db_only=True)
    if before is not None:
        from datetime import datetime, timezone

        try:
            when = datetime.fromisoformat(before)
        except ValueError:
            fail(f"--before takes a date like 2026-01-31, not {before!r}")
            return
        if when.tzinfo is not None:  # the log's times are UTC
            before = when.astimezone(timezone.utc).replace(tzinfo=None).isoformat()
    if purge:
        try:
            n = log.purge(o.conn, before)
            files = log.purge_files(o.conn, o.db_path, before)
        except NotesdbError as e:
            fail(str(e))
            return
        echo(f"deleted {n} logged decision{'s' if n != 1 else ''}")
        for name, count in files.copies.items():
            echo(f"deleted {count} from {name}, a copy moved aside earlier")
        if files.hook_errors:
            echo(f"deleted {files.hook_errors} entr{'y' if files.hook_errors == 1 else 'ies'} from {o.db_path.with_name('hook-errors.jsonl')}")
        for path in files.unreadable:
            echo(f"warning: {path} (a damaged copy moved aside) may still hold logged messages and cannot be "
                       "purged: delete it if they must go", err=True)
        for path in files.exports:
            echo(f"warning: {path} (written by 'notesdb label export') still holds logged messages: "
                       "delete it if they must go", err=True)
        return
    rows = log.latest(o.conn, limit, before)
    if json_out:
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=_ascii_json()))
        return
    if not rows:
        echo("no decisions logged yet" if before is None else f"no decisions logged before {before}")
    from notesdb.render import shown_prompt

    for r in rows:
        prompt = shown_prompt(r["prompt"]).replace("\n", " ")
        if len(prompt) > 70:
            prompt = prompt[:67] + "..."
        said = ", ".join(r["notes"]) if r["spoken"] else "silent"
        echo(f"#{r['id']} {r['time'][:19]} {r['elapsed_ms']:.0f} ms [{r['route']}] {prompt!r} -> {said}")
        if r["error"]:  # what went wrong or out of the ordinary (a database created, an index incomplete)
            echo(f"    notice: {r['error']}")


def _kept_database(old_db: str, new_db: Path) -> str:
    """A line about the database a replaced hook entry used, when it is another file that still
    exists: it keeps that entry's logged decisions and labels, and notesdb deletes nothing."""
    if not old_db:
        return ""
    old = Path(old_db)
    try:
        if not old.is_file() or old.resolve() == new_db.resolve():
            return ""
    except OSError:
        return ""
    decisions = ""
    try:
        from notesdb.db import sqlite_uri

        conn = sqlite3.connect(sqlite_uri(old, mode="ro"), uri=True)
        try:
            n = conn.execute("SELECT count(*) FROM decisions").fetchone()[0]
            decisions = f"{n} decision{'s' if n != 1 else ''} logged, "
        finally:
            conn.close()
    except sqlite3.Error:
        pass
    return (f"the database that entry used is kept: {old} ({decisions}read them with 'notesdb log --db {old}'; "
            "delete the file when you no longer need them)")  # fmt: skip


def _full_short_help(typer_app: typer.Typer) -> None:
    """Give each command of ``typer_app`` (and of its groups) its docstring's first paragraph
    as the line of the command list: click would cut it at 45 characters with "..."."""
    import inspect

    def first(doc: str | None) -> str | None:
        return " ".join(inspect.cleandoc(doc).split("\n\n")[0].split()) if doc else None

    for command in typer_app.registered_commands:
        if command.short_help is None and command.callback is not None:
            command.short_help = first(command.help or command.callback.__doc__)
    for group in typer_app.registered_groups:
        sub = group.typer_instance
        if sub is not None:
            if not isinstance(group.short_help, str):  # unset: typer's placeholder
                text = next((h for h in (group.help, sub.info.help) if isinstance(h, str)), None)
                group.short_help = first(text)
            _full_short_help(sub)


def _ascii_json() -> bool:
    """True when standard output is not UTF-8 (a Latin-1 terminal, a Windows pipe in cp1252):
    ``--json`` then escapes every other character (``\\u00e9``), which any JSON reader reads
    back whole, instead of printing "?" for what the encoding lacks."""
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    return encoding not in ("utf8", "utf8sig")


def run() -> None:
    """Run the typer app; unexpected bugs stay visible, user errors are one line."""
    try:
        from typer._click.exceptions import ClickException, NoArgsIsHelpError
    except ImportError:  # a typer that uses click itself
        from click.exceptions import ClickException, NoArgsIsHelpError  # type: ignore[assignment]

    # a terminal whose encoding lacks a character of a note ("—" on a Latin-1 one) shows "?"
    # for it instead of failing the command half-way
    import io

    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            stream.reconfigure(errors="replace")
    try:
        code = app(standalone_mode=False)
    except NotesdbError as e:
        echo(f"Error: {e}", err=True)
        sys.exit(1)
    except NoArgsIsHelpError as e:
        echo(e.format_message())
        sys.exit(2)
    except ClickException as e:  # usage errors: one line instead of typer's box
        echo(f"Error: {' '.join(e.format_message().split())}", err=True)
        sys.exit(e.exit_code)
    except typer.Abort:
        echo("Error: aborted", err=True)
        sys.exit(1)
    except sqlite3.DatabaseError as e:
        from notesdb.db import disk_refused

        name = f"database {_DATABASE_IN_USE[0]}" if _DATABASE_IN_USE else "the database"
        if _unwritable(e):
            echo(f"Error: {name} cannot be written: {e} (check its permissions and those of its folder)", err=True)
            sys.exit(1)
        if disk_refused(e):
            echo(f"Error: {name} cannot be written: {e} (free some space on its disk; nothing was moved or lost)", err=True)
            sys.exit(1)
        if not _damaged(e) and "locked" not in str(e) and "busy" not in str(e):
            raise
        echo(
            f"Error: the database cannot be used ({_sqlite_reason(e)}): "
            "run 'notesdb doctor --repair' or 'notesdb index'",
            err=True,
        )
        sys.exit(1)
    except OSError as e:  # the machine's, not notesdb's: a path it may not look up, a full disk
        _stdout_gone(e)
        echo(f"Error: {_os_reason(e)}", err=True)
        sys.exit(1)
    except UnicodeError as e:  # a path of bytes that are not UTF-8 (os.fsdecode's surrogates)
        echo(f"Error: a path that is not valid UTF-8 cannot be used ({getattr(e, 'reason', e)}): rename it or choose another", err=True)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)


def _os_reason(e: OSError) -> str:
    """An OSError in one line: what failed and on which path (``[Errno 13] Permission denied:
    '/root/a.db'`` -> ``permission denied: /root/a.db``)."""
    what = (e.strerror or str(e)).rstrip(".")
    what = what[:1].lower() + what[1:]
    where = e.filename if e.filename is not None else None
    if isinstance(where, bytes):
        where = os.fsdecode(where)
    return f"{what}: {str(where)[:300]}" if where else what


def _stdout_gone(e: OSError) -> None:
    """After standard output failed (a full disk, a closed pipe), point it at /dev/null, so the
    interpreter's last flush at exit does not fail again and print a traceback."""
    try:
        sys.stdout.flush()
    except OSError:
        from notesdb.entry import stdout_to_devnull

        stdout_to_devnull()


#: Bytes ``check -`` reads from stdin at most: far more than any message (the hook's event
#: limit is far below it), and a bound on what an endless stream (``< /dev/zero``) can take.
MAX_STDIN_MESSAGE = 64 * 1024 * 1024
#: How long a command waits for another process writing the database (the hook waits less).
COMMAND_BUSY_TIMEOUT_MS = 30_000


def _sqlite_reason(e: BaseException) -> str:
    return "another process is using it" if "locked" in str(e) or "busy" in str(e) else str(e)


def _damaged(e: BaseException) -> bool:
    """True for errors that mean the file is not a usable notesdb database (not for a busy,
    read-only or full one)."""
    if isinstance(e, DatabaseDamaged):
        return True
    text = str(e).lower()
    if any(w in text for w in ("locked", "busy", "readonly", "read-only", "full", "unable to open", "disk i/o")):
        return False
    return isinstance(e, sqlite3.DatabaseError)


@app.command("eval")
def eval_cmd(
    cases: Annotated[Path, typer.Argument(metavar="CASES", parser=_path, help="Labelled cases, JSON Lines (id, message, expect, kind).", show_default=False)],
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Score notesdb on a labelled set: precision, hit rate, silence rate, failures."""
    from notesdb.cases import evaluate, load_cases
    from notesdb.render import summary_lines

    try:
        loaded = load_cases(cases)
    except NotesdbError as e:
        fail(str(e))
        return
    o = _open(notes, db, config, progress=True)
    _meaning(o)
    summary, _ = evaluate(o.conn, loaded, o.config.gate)
    from notesdb.meter import current

    reading, _ = current(o.conn, o.config.gate)  # measured again when the settings changed
    assert reading is not None  # measured when missing
    summary["false_alarm_meter"] = asdict(reading)
    if json_out:
        # the failures first and the headline figures last, where a reader of the tail sees them
        first = ("failures", "by_kind", "stretch", "false_alarm_meter")
        ordered = {k: summary[k] for k in first} | {k: v for k, v in summary.items() if k not in first}
        typer.echo(json.dumps(ordered, indent=2, ensure_ascii=_ascii_json()))
        return
    _echo(summary_lines(summary))
    echo(_meter_line(reading))


# --- review and tuning on the user's own messages: replay, label, tune ---------------------


@app.command("replay")
def replay_cmd(
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    limit: Annotated[Optional[int], typer.Option("--limit", min=1, max=1_000_000, help="Replay only the newest N logged messages.", show_default=False)] = None,
    show_all: Annotated[bool, typer.Option("--all", help="List unchanged decisions too.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Re-decide the logged messages with the current notes and settings; show what would change."""
    from notesdb.render import said, snippet
    from notesdb.review import not_replayed, replay, replay_summary

    o = _open(notes, db, config, progress=True)
    rows = replay(o.conn, o.config.gate, limit)
    summary = {**replay_summary(rows), "not_replayed": not_replayed(o.conn, rows)}
    if json_out:
        typer.echo(json.dumps({**summary, "decisions": [r.to_json() for r in rows]}, indent=2, ensure_ascii=_ascii_json()))
        return
    unstored = (
        f"; {summary['not_replayed']} logged without their text ([log] prompts = false) not replayed"
        if summary["not_replayed"]
        else ""
    )
    if not rows:
        echo(f"no logged messages to replay (decisions are logged by the hook with their prompt){unstored}")
        return
    for r in rows:
        if not (r.changed or show_all):
            continue
        b, a = r.before, r.after
        mark = "changed" if r.changed else "same"
        echo(f"#{r.id} {r.time[:19]} {mark}: {snippet(r.prompt)}")
        echo(f"    before: {said(b['spoken'], b['notes'], b['route'])}")
        echo(f"    after:  {said(a['spoken'], a['notes'], a['route'])}")
    echo(
        f"replayed {summary['replayed']} logged message{'s' if summary['replayed'] != 1 else ''}: "
        f"{summary['changed']} changed, {summary['unchanged']} unchanged"
        + (f" ({summary['route_only']} of them with another route)" if summary["route_only"] else "")
        + unstored
    )


label_app = typer.Typer(
    help="Label logged decisions right, wrong or missed, and export them as a cases file for eval and tune.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
app.add_typer(label_app, name="label")


@label_app.command("set")
def label_set(
    decision_id: Annotated[int, typer.Argument(metavar="ID", min=1, help="The decision's id (notesdb label list / notesdb log).", show_default=False)],
    verdict: Annotated[str, typer.Argument(metavar="VERDICT", help="right, wrong or missed.")],
    note: Annotated[
        Optional[str],
        typer.Option(
            "--note",
            help="wrong: the note that should have come first (omit or \"\" if it should have been silent); "
            "missed: the note that covers the message (required). Path relative to the notes folder, "
            "or absolute inside it (as the hook's line shows it).",
            show_default=False,
        ),
    ] = None,
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Mark logged decision ID right, wrong or missed (replacing an earlier label)."""
    from notesdb.review import set_label

    o = _open(notes, db, config, db_only=True)
    try:
        if decision_id > 2**63 - 1:  # beyond SQLite's integers: no such decision
            raise NotesdbError(f"no logged decision #{decision_id}")
        row = set_label(o.conn, decision_id, verdict, note, o.notes)
    except NotesdbError as e:
        fail(str(e))
        return
    if row["label"] == "right":
        what = f"named {row['notes'][0]}" if row["spoken"] else "stayed silent"
        if row["held_back"]:
            what = (f"held back {row['held_back'][0]}, {row['held_why']} (as a case on "
                    "its own, the message names that note)")  # fmt: skip
        echo(f"#{row['id']} labelled right: it {what}")
    elif row["label_note"]:
        echo(f"#{row['id']} labelled {row['label']}: should have named {row['label_note']}")
    else:
        echo(f"#{row['id']} labelled wrong: should have stayed silent")


@label_app.command("list")
def label_list(
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=1_000_000, help="Decisions to show.")] = 20,
    json_out: JsonOpt = False,
) -> None:
    """Show the newest unlabelled decisions (with their message), to label."""
    from notesdb.render import said, snippet
    from notesdb.review import unlabelled

    o = _open(notes, db, config, sync=False, db_only=True)
    rows = unlabelled(o.conn, limit)
    if json_out:
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=_ascii_json()))
        return
    if not rows:
        echo("no unlabelled decisions with a logged message")
        return
    for r in rows:
        echo(f"#{r['id']} {r['time'][:19]} {snippet(r['prompt'])} -> {said(r['spoken'], r['notes'], r['route'])}")
    echo("label one with: notesdb label set ID right|wrong|missed [--note PATH]")


@label_app.command("export")
def label_export(
    file: Annotated[Path, typer.Argument(metavar="FILE", parser=_path, help="Cases file to write (JSON Lines); - for stdout.")],
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Replace FILE even if it is not an earlier export of this database.")] = False,
) -> None:
    """Write the labelled decisions as a cases file (the format notesdb eval and tune read)."""
    from notesdb import log
    from notesdb.review import export_labels, labels_jsonl

    o = _open(notes, db, config, sync=False, db_only=True)
    text, cases = labels_jsonl(o.conn)
    if not cases:
        fail("no labelled decisions to export: label some with 'notesdb label set ID VERDICT'")
    if str(file) == "-":
        typer.echo(text, nl=False)
        return
    try:
        # the folder named now and the one the database indexes: neither is written to
        for folder in dict.fromkeys(f for f in (o.notes, _indexed_root(o.conn)) if f is not None):
            # resolved, and as written: a folder linked into the notes folder is read as notes
            spelled = Path(os.path.abspath(file.expanduser()))
            if cfg.inside_folder(file, folder) or any(
                spelled.is_relative_to(f) for f in (Path(folder), Path(folder).absolute())
            ):
                raise NotesdbError(f"{file} is inside the notes folder {folder}: notesdb never writes there")
        exported_before = str(file.expanduser().resolve()) in log.exports(o.conn)
        if (file.exists() or file.is_symlink()) and not (force or exported_before):
            raise NotesdbError(f"{file} exists and is not an earlier export: pass --force to replace it")
        if exported_before and not force and file.exists() and log.edited_since_export(o.conn, file):
            raise NotesdbError(f"{file} was changed since notesdb exported it: pass --force to replace it")
        cases = export_labels(o.conn, file)
        log.note_export(o.conn, file)
    except NotesdbError as e:
        fail(str(e))
        return
    covered = sum(1 for c in cases if c.covered)
    echo(
        f"wrote {len(cases)} case{'s' if len(cases) != 1 else ''} to {file} "
        f"({covered} expect a note, {len(cases) - covered} expect silence)"
    )


@app.command("tune")
def tune_cmd(
    cases: Annotated[Optional[Path], typer.Argument(metavar="CASES", parser=_path, help="Labelled cases, JSON Lines (see notesdb eval); optional with --generic.", show_default=False)] = None,
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    generic: Annotated[bool, typer.Option("--generic", help="Add the bundled generic messages as cases that must stay silent (the false-alarm meter); with no CASES, tune for silence alone.")] = False,
    write: Annotated[bool, typer.Option("--write", help="Save the chosen thresholds to the [gate] table of the config file.")] = False,
    plot: Annotated[Optional[Path], typer.Option("--plot", metavar="FILE", help="Also draw the distributions and the trade-off to a PNG (needs matplotlib).", show_default=False)] = None,
    json_out: JsonOpt = False,
) -> None:
    """Sweep the gate's thresholds on a labelled set: distributions, Pareto front, a chosen setting."""
    from notesdb.cases import load_cases
    from notesdb.render import plot_tune, tune_lines
    from notesdb.tune import tune, write_gate

    if plot is not None:
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:
            from notesdb.render import PLOT_HINT

            fail(PLOT_HINT)
    from notesdb.tune import generic_cases

    if cases is None and not generic:
        fail("give a cases file, or --generic to tune on the generic messages alone")
        return
    try:
        loaded = load_cases(cases) if cases is not None else []
    except NotesdbError as e:
        fail(str(e))
        return
    if generic:
        loaded += generic_cases()
    o = _open(notes, db, config, progress=True)
    try:
        # the folder named now and the one the database indexes: neither is written to
        for folder in dict.fromkeys(f for f in (o.notes, _indexed_root(o.conn)) if f is not None):
            if write:
                cfg.refuse_inside_notes(cfg.config_path(config), folder, "the config file")
            if plot is not None:
                cfg.refuse_inside_notes(plot, folder, "the plot file")
        rep = tune(o.conn, loaded, o.config.gate)
        plotted = plot_tune(rep, plot) if plot is not None else None
        written = write_gate(config, rep.chosen) if write else None
        if written is not None:
            cfg.load_config(written)
    except NotesdbError as e:
        fail(str(e))
        return
    if json_out:
        out = rep.to_json()
        out["written"] = str(written) if written else None
        out["plot"] = str(plotted) if plotted else None
        typer.echo(json.dumps(out, indent=2, ensure_ascii=_ascii_json()))
        return
    _echo(tune_lines(rep))
    if plotted:
        echo(f"drew {plotted}")
    if written:
        echo(f"wrote the chosen thresholds to the [gate] table of {written}")
    else:
        echo(f"(--write saves them to {cfg.config_path(config)})")


@app.command("datasette", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def datasette_cmd(
    ctx: typer.Context,
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    metadata_only: Annotated[bool, typer.Option("--metadata", help="Print the Datasette metadata for this database (for datasette -m) instead.")] = False,
) -> None:
    """Browse the database in Datasette: ranked search and canned queries (needs the datasette extra).
    Further options go to datasette serve, e.g. notesdb datasette -- --port 8010 --open."""
    from notesdb import datasette as ds

    if not metadata_only and not ds.installed():
        fail(f"Datasette is not installed: {ds.INSTALL_HINT}")
    o = _open(notes, db, config)
    o.conn.close()
    if metadata_only:
        typer.echo(json.dumps(ds.metadata(o.db_path), indent=2, ensure_ascii=_ascii_json()))
        return
    raise typer.Exit(ds.serve(o.db_path, ctx.args))


@app.command("doctor")
def doctor_cmd(
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    repair: Annotated[bool, typer.Option("--repair", help="Mend what can be mended (rebuild FTS, recount vocab, sync, move aside an unreadable database, fix permissions).")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Check the database against the notes folder; exit 0 when healthy, 1 when problems remain
    or nothing could be checked (no notes folder given and no hook installed)."""
    from notesdb.doctor import diagnose, diagnose_hooks

    try:
        try:
            conf, config_problem = cfg.load_config(config), ""
        except ConfigError as e:  # a check that fails, not a reason to check nothing
            conf, config_problem = cfg.Config(), str(e)
        if notes is None and db is None and not os.environ.get("NOTESDB_NOTES"):
            report = diagnose_hooks(repair=repair)  # no folder named: the installed hook entries
        else:
            folder = cfg.resolve_notes(notes)
            report = diagnose(
                folder, _in_use(cfg.resolve_db(db, folder)), skip=conf.skip, repair=repair,
                config=(cfg.config_path(config), config_problem), gate=conf.gate,
                meaning=(conf.meaning_model,) if conf.meaning else None,
            )  # fmt: skip
    except NotesdbError as e:
        fail(str(e))
        return
    checked = report.checked  # no hook installed and no folder named: "healthy" would mislead
    if json_out:
        typer.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=_ascii_json()))
    else:
        for c in report.checks:
            echo(f"{c.status:<8} {c.name}: {c.detail}")
        left = sum(c.status == "problem" for c in report.checks)
        if report.healthy and not checked:
            echo(NOTHING_CHECKED)
        else:
            echo("healthy" if report.healthy else f"{left} problem{'s' if left != 1 else ''} left")
    if not report.healthy or not checked:
        raise typer.Exit(1)


#: ``notesdb doctor``'s last line when it found nothing to check.
NOTHING_CHECKED = (
    "nothing checked: no notesdb hook is installed and no notes folder was given "
    "(--notes DIR or NOTESDB_NOTES)"
)


@app.command("mcp")
def mcp_cmd(
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    no_log: Annotated[bool, typer.Option("--no-log", help="Do not store prompt text in the log.")] = False,
    no_warm: Annotated[bool, typer.Option("--no-warm", help="Do not answer 'notesdb hook --warm' on the database's socket.")] = False,
) -> None:
    """Run the MCP server on stdio (search, read_note, why, hook); needs the mcp extra."""
    try:
        import mcp.server  # noqa: F401
    except ImportError:
        fail(f"the MCP server needs the mcp package: {extra_hint('mcp')}")
    from notesdb.server import Place, main

    place = Place(
        notes=str(notes) if notes else None, db=str(db) if db else None,
        config=str(config) if config else None, no_log=no_log,
    )  # fmt: skip
    raise typer.Exit(main(place, warm=not no_warm))


_full_short_help(app)  # every command is defined by now

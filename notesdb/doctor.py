"""``notesdb doctor``: the state of a database and its notes folder, and what can be repaired.

Each check says what it looked at and whether it is fine. With ``repair`` a check that fails
is mended where that is safe: the FTS index is rebuilt from ``notes``, ``vocab`` is recounted,
a stale index is synced, a database missing some of its tables is moved aside (kept) and
rebuilt with its logged decisions copied back, loose file permissions are set back to 0600, past hook errors (a
decision was logged since) are cleared from ``hook-errors.jsonl``, and a database that
cannot be read is moved aside to ``<name>.damaged-<time>`` (never deleted) and rebuilt from
the notes. A database written by a newer notesdb is left alone.

Problems inside notes (bad YAML, undecodable bytes, unreadable files) are reported as
warnings: they are the person's files, which notesdb never writes, and the rest of the folder
is indexed regardless.

Every notesdb hook entry found in an assistant's settings files (:func:`check_hooks`) is
checked too: the program it starts must exist (a deleted virtualenv makes every prompt show an
error), its notes folder must exist (else the hook stays silent), and one client must not
run two of them (each prompt would get the line twice).
"""

from __future__ import annotations

import os
import sqlite3
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from notesdb.errors import DatabaseDamaged, NotesdbError, NotOurDatabase, SchemaTooNew
from notesdb.db import (
    BUSY_TIMEOUT_MS,
    SCHEMA_VERSION,
    SQLITE_SIDE_SUFFIXES,
    check_ours,
    copy_decisions,
    copy_decisions_back,
    pending_decisions,
    missing_tables,
    open_db,
    private_side_files,
    sqlite_uri,
    transaction,
)
from notesdb.sync import DEFAULT_SKIP, SyncStats, folder_problem, rebuild_index, stored_problems, sync, walk_notes
from notesdb.vocab import english_rare_filled, fill_english_rare, rebuild_vocab
from notesdb.settings import Settings

__all__ = ["Check", "Report", "diagnose", "diagnose_hooks", "check_hooks", "side_files"]

#: Statuses of a check: fine, failing, failing and mended, or worth knowing but not a failure.
OK, PROBLEM, FIXED, WARNING = "ok", "problem", "fixed", "warning"


@dataclass
class Check:
    """One thing the doctor looked at."""

    name: str
    status: str  # ok, problem, fixed or warning
    detail: str


@dataclass
class Report:
    """Every check, in the order they ran."""

    db: str
    notes: str
    checks: list[Check] = field(default_factory=list)
    #: the database file is another application's: nothing about it is changed
    foreign: bool = False
    #: SQLite's files beside the database set to 0600 before it was opened, with their former modes
    side_modes_fixed: list[tuple[Path, int]] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        """True when no check is left failing."""
        return all(c.status != PROBLEM for c in self.checks)

    @property
    def checked(self) -> bool:
        """True when some check passed: False when nothing could be checked (no notes folder
        named and no hook installed), which is not healthy either."""
        return any(c.status in (OK, FIXED) for c in self.checks)

    def add(self, name: str, status: str, detail: str) -> None:
        self.checks.append(Check(name, status, detail))

    def to_json(self) -> dict[str, Any]:
        return {
            "db": self.db,
            "notes": self.notes,
            "healthy": self.healthy,
            "checked": self.checked,
            "checks": [asdict(c) for c in self.checks],
        }


def side_files(db_path: Path) -> list[Path]:
    """The database and the files notesdb keeps beside it, whether or not they exist."""
    name = db_path.name
    return [
        db_path,
        db_path.with_name(name + "-wal"),
        db_path.with_name(name + "-shm"),
        db_path.with_name(name + "-journal"),
        db_path.with_name(name + ".lock"),
        db_path.with_name("hook-errors.jsonl"),
    ]


def _size(n: int) -> str:
    size: float = n
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{n} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return str(size)


def _connect(db_path: Path) -> sqlite3.Connection:
    """A plain connection that neither creates nor migrates the file."""
    uri = sqlite_uri(db_path.resolve(), mode="rw")
    return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000 * 10, isolation_level=None)


def _readable(db_path: Path) -> tuple[sqlite3.Connection | None, int, str]:
    """Open the database and read its version; ``(None, 0, why)`` when it cannot be read."""
    try:
        conn = _connect(db_path)
    except sqlite3.Error as e:
        return None, 0, f"cannot be opened: {e}"
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        result = conn.execute("PRAGMA quick_check").fetchone()[0]
        if result != "ok":
            conn.close()
            return None, version, f"quick_check: {result}"
        return conn, version, ""
    except sqlite3.DatabaseError as e:
        conn.close()
        return None, 0, f"cannot be read: {e}"


def _indexed(stats: SyncStats) -> int:
    return len(stats.added) + len(stats.renamed)


def diagnose(
    notes: Path,
    db_path: Path,
    *,
    skip: tuple[str, ...] = DEFAULT_SKIP,
    repair: bool = False,
    config: tuple[Path, str] | None = None,
    hooks: bool = True,
    gate: Settings | None = None,
    meaning: tuple[str | None] | None = None,
) -> Report:
    """Check the database at ``db_path`` against the notes folder ``notes``.

    :param skip: patterns of folders and files that are not notes (``sync.skipped_by``)
    :param repair: mend what can be mended (see the module docstring)
    :param config: the config file the hook reads and why it cannot be used (``""`` when it
        can), or None to leave the config out
    :param hooks: also check every assistant's notesdb hook entries (:func:`check_hooks`)
    :param gate: the gate's settings (the config file's): the false-alarm meter stored for
        other settings is measured again for these; None leaves the stored reading as it is
    :param meaning: ``([meaning] model,)`` when the config turns matching by meaning on (None:
        off): the model is loaded and the notes without a vector counted (:func:`_check_meaning`)
    :returns: the checks; ``Report.healthy`` is False when one is left failing
    A notes folder that is missing, a file or unreadable is reported (with what to do) and the
    checks that need it skipped.
    The notesdb hook entries of every assistant are checked too (:func:`check_hooks`).
    """
    report = Report(str(db_path), str(notes))
    if config is not None:
        path, problem = config
        if problem:
            report.add("config", PROBLEM, f"{problem}: the hook stays silent on every message until it is fixed")
        else:
            report.add("config", OK, str(path) if path.exists() else f"{path} does not exist: the defaults apply")
    unusable = folder_problem(notes)
    if unusable:
        if "not found" in unusable:
            detail = (
                f"{notes} does not exist (moved, renamed or unmounted?): the hook stays silent until it "
                "is back; if it moved, run 'notesdb hook install --notes NEW_FOLDER' to point the hook there"
            )
        elif "cannot be read" in unusable:  # "cannot be read: DIR (REASON)"
            detail = (
                unusable.replace("notes folder ", "", 1) + ": the hook stays silent until it can be read; "
                f"check the folder's owner and permissions (ls -ld {notes})"
            )
        else:  # "DIR is a file, not a folder"
            detail = (
                unusable.replace("notes folder ", "", 1) + ": the hook stays silent; run 'notesdb hook "
                "install --notes FOLDER' with the folder that holds the notes"
            )
        report.add("notes folder", PROBLEM, detail)
        if hooks:
            check_hooks(report)
        return report
    conn = _check_database(report, notes, db_path, skip, repair)
    try:
        if conn is not None:
            _check_index(report, conn, notes, skip, repair)
            _check_fts(report, conn, repair)
            _check_vocab(report, conn, repair)
            _check_log(report, conn, db_path, repair)
            _check_meter(report, conn, gate)
            if meaning is not None:
                _check_meaning(report, conn, meaning[0])
        else:
            _check_hook_errors(report, db_path, None, repair)
        if not report.foreign:
            _check_permissions(report, db_path, repair)
        _check_notes(report, notes, skip, conn)
        if hooks:
            check_hooks(report)
    finally:
        if conn is not None:
            conn.close()
    return report


def _check_meter(report: Report, conn: sqlite3.Connection, gate: Settings | None = None) -> None:
    """The false-alarm meter (``notesdb.meter``): the reading stored at the last ``notesdb
    index``, or, when ``gate`` is given and the reading was taken with other settings or
    another number of notes, one measured now (``meter.current``)."""
    from notesdb.meter import WARN_SHARE, current, stored

    now = False
    try:
        r, now = current(conn, gate, if_missing=False) if gate is not None else (stored(conn), False)
    except sqlite3.Error as e:  # a database that cannot be written (read-only, full disk)
        r = stored(conn)
        if r is not None:
            report.add("false alarms", WARNING, f"the stored reading may be of other settings and could not be "
                       f"measured again ({e})")
            return
    if r is None:
        report.add("false alarms", WARNING, "never measured: run 'notesdb index'")
        return
    detail = (
        f"would speak on {r.spoken} of {r.messages} generic messages ({r.share:.1%}) "
        f"with {r.notes} notes" + (" (measured now: the settings or the notes changed since the last)" if now else "")
    )
    if r.warn:
        examples = "; ".join(repr(e) for e in r.examples[:3])
        report.add("false alarms", WARNING, f"{detail}: above {WARN_SHARE:.0%}, e.g. {examples}; "
                   "'notesdb tune --generic' can choose quieter settings")
    else:
        report.add("false alarms", OK, detail)


def _check_meaning(report: Report, conn: sqlite3.Connection, model_folder: str | None) -> None:
    """``[meaning] enabled``: the meaning extra is installed, its model loads (``[meaning] model``,
    None: the wheel's), and how many searchable notes have a current vector. A model that
    cannot be used is a warning, not a problem: the judgement falls back to the words alone."""
    from notesdb.embed import model_files
    from notesdb.errors import extra_hint
    from notesdb.meaning import Meaning, available
    from notesdb.vectors import stale_count

    fallback = "the resident process (notesdb mcp), check and eval judge by words alone until it is"
    if not available():
        report.add("meaning", WARNING, f"[meaning] is enabled but the meaning extra is not installed: {fallback}; "
                   + extra_hint("meaning"))
        return
    m = Meaning(model_folder, quiet=True)
    if m.model is None:
        report.add("meaning", WARNING, f"{m.error}: {fallback} fixed ([meaning] model in the config file)")
        return
    total = conn.execute("SELECT count(*) FROM notes WHERE searchable").fetchone()[0]
    stale = stale_count(conn, m.model.name)
    detail = (f"the model ({model_files(model_folder)[0]}) loads in {m.model.load_ms:.0f} ms; "
              f"{total - stale} of {total} notes have a current vector")
    if stale:
        detail += ": 'notesdb index --meaning' embeds the rest (the resident process also does, in the background)"
    report.add("meaning", OK, detail)


def _log_back(conn: sqlite3.Connection, moved: Path | None) -> str:
    """Copy the log of the database moved aside to ``moved`` into ``conn`` (its rebuilt
    replacement): " and copied back its N logged decisions", "" for none, or what stopped it
    (a full disk: the next ``doctor --repair`` copies them, :func:`_check_moved_aside`)."""
    from notesdb.db import disk_refused

    try:
        words = copy_decisions_back(conn, moved)
    except sqlite3.OperationalError as e:
        if not disk_refused(e):
            raise
        return f"; its logged decisions could not be copied back ({e}): free some space and run 'notesdb doctor --repair' again"
    return f" and {words}" if words else ""


def _check_database(
    report: Report, notes: Path, db_path: Path, skip: tuple[str, ...], repair: bool
) -> sqlite3.Connection | None:
    """The file, its readability and its schema version; returns a connection or None."""
    if not db_path.exists():
        if not repair:
            report.add("database", PROBLEM, f"{db_path} does not exist: run 'notesdb index'")
            return None
        fresh, stats, _ = rebuild_index(db_path, notes, skip=skip)
        report.add("database", FIXED, f"{db_path} did not exist: created it and indexed {_indexed(stats)} notes")
        return fresh
    if not db_path.is_file():
        report.add("database", PROBLEM, f"{db_path} is not a file")
        return None
    try:
        check_ours(db_path)
    except NotOurDatabase as e:  # readable, but another application's: never touched
        report.add("database", PROBLEM, str(e))
        report.foreign = True
        return None
    if repair:  # before SQLite opens them: a -shm it opens read-only stays so for this process
        report.side_modes_fixed = private_side_files(db_path)
    conn, version, why = _readable(db_path)
    if conn is None:
        if not repair:
            report.add("database", PROBLEM, f"{db_path} {why}")
            return None
        conn, stats, moved = rebuild_index(db_path, notes, skip=skip)
        where = moved.name if moved else "nowhere"
        report.add("database", FIXED, f"{db_path} {why}: moved it to {where}, rebuilt {_indexed(stats)} notes"
                                      f"{_log_back(conn, moved)}")  # fmt: skip
        return conn
    report.add("database", OK, f"{db_path} ({_size(db_path.stat().st_size)})")
    if version > SCHEMA_VERSION:
        conn.close()
        report.add(
            "schema", PROBLEM,
            f"version {version} is newer than this notesdb understands ({SCHEMA_VERSION}): "
            "upgrade notesdb or use another --db",
        )  # fmt: skip
        return None
    if version < SCHEMA_VERSION:
        if not repair:
            if version == 0:  # an empty file: nothing to check
                conn.close()
                report.add("schema", PROBLEM, "version 0: the database is empty: run 'notesdb index'")
                return None
            report.add("schema", WARNING, f"version {version}: migrations to {SCHEMA_VERSION} run on next use")
            return conn
        conn.close()
        try:
            conn = open_db(db_path)
        except (DatabaseDamaged, SchemaTooNew) as e:
            report.add("schema", PROBLEM, f"version {version}: migrating failed: {e}")
            return None
        report.add("schema", FIXED, f"version {version}: migrated to {SCHEMA_VERSION}")
        return conn
    missing = missing_tables(conn)
    if missing:
        what = f"version {version}, but tables are missing: {', '.join(missing)}"
        conn.close()
        if not repair:
            report.add("schema", PROBLEM, f"{what}: run 'notesdb doctor --repair' (it moves the database aside, "
                                          "kept, and rebuilds it from the notes)")  # fmt: skip
            return None
        conn, stats, moved = rebuild_index(db_path, notes, skip=skip)
        where = moved.name if moved else "nowhere"
        report.add("schema", FIXED, f"{what}: moved it to {where}, rebuilt {_indexed(stats)} notes"
                                    f"{_log_back(conn, moved)}")  # fmt: skip
        return conn
    if not english_rare_filled(conn):
        # what keeps rare English words from being corrected, or read as made-up names
        if repair and fill_english_rare(conn):
            report.add("schema", FIXED, f"version {version}: filled english_rare")
        else:
            report.add("schema", WARNING, f"version {version}, but english_rare is empty: rare English words may be "
                                          "corrected into notes' words; 'notesdb index' or 'notesdb doctor --repair' fills it")  # fmt: skip
        return conn
    report.add("schema", OK, f"version {version}")
    return conn


def _check_index(
    report: Report, conn: sqlite3.Connection, notes: Path, skip: tuple[str, ...], repair: bool
) -> None:
    on_disk = dict(walk_notes(notes, skip))
    rows = {p: (size, mtime) for p, size, mtime in conn.execute("SELECT path, size, mtime_ns FROM notes")}
    missing = [p for p in on_disk if p not in rows]
    unreadable = _cannot_open(notes, missing)  # 'notesdb index' cannot help these
    if unreadable:
        shown = "; ".join(f"{p} ({why})" for p, why in list(unreadable.items())[:SHOWN_UNREADABLE])
        more = f" and {len(unreadable) - SHOWN_UNREADABLE} more" if len(unreadable) > SHOWN_UNREADABLE else ""
        report.add(
            "notes", WARNING,
            f"{len(unreadable)} note file(s) cannot be read, so they are not indexed: {shown}{more}: "
            "check their owner and permissions (ls -l); the next sync indexes them once they can be read",
        )  # fmt: skip
        missing = [p for p in missing if p not in unreadable]
    extra = [p for p in rows if p not in on_disk]
    stale = [
        p for p, st in on_disk.items() if p in rows and rows[p] != (st.st_size, st.st_mtime_ns)
    ]
    detail = f"{len(rows)} indexed, {len(on_disk)} note files on disk"
    if not (missing or extra or stale):
        report.add("notes", OK, detail)
        return
    detail += f" ({len(missing)} not indexed, {len(stale)} changed since, {len(extra)} gone)"
    if not repair:
        report.add("notes", PROBLEM, detail + ": run 'notesdb index'")
        return
    stats = sync(conn, notes, skip=skip)
    report.add(
        "notes", FIXED,
        f"{detail}: synced ({len(stats.added)} added, {len(stats.modified)} changed, "
        f"{len(stats.renamed)} renamed, {len(stats.removed)} removed)",
    )  # fmt: skip


#: Unreadable notes the doctor names in its line (the rest are counted).
SHOWN_UNREADABLE = 5


def _cannot_open(notes: Path, paths: list[str]) -> dict[str, str]:
    """The notes of ``paths`` (relative to ``notes``) that cannot be opened for reading, with
    the system's reason (``Permission denied``)."""
    found = {}
    for rel in paths:
        try:
            os.close(os.open(notes / rel, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)))
        except OSError as e:
            found[rel] = str(e.strerror or e)
    return found


def _fts_ok(conn: sqlite3.Connection) -> str:
    try:
        conn.execute("INSERT INTO notes_fts(notes_fts, rank) VALUES('integrity-check', 1)")
        return ""
    except sqlite3.DatabaseError as e:
        return str(e)


def _check_fts(report: Report, conn: sqlite3.Connection, repair: bool) -> None:
    why = _fts_ok(conn)
    if not why:
        report.add("fts", OK, "integrity-check passed")
        return
    if not repair:
        report.add("fts", PROBLEM, f"integrity-check failed: {why}")
        return
    conn.execute("INSERT INTO notes_fts(notes_fts) VALUES('rebuild')")
    after = _fts_ok(conn)
    report.add("fts", PROBLEM if after else FIXED,
               f"integrity-check failed ({why}): rebuilt" + (f", still failing: {after}" if after else ""))  # fmt: skip


_VOCAB_ROWS = "SELECT word, length, doc_freq, phonetic FROM vocab"


class _Undo(Exception):
    """Raised inside a transaction to roll it back on purpose."""


def _check_vocab(report: Report, conn: sqlite3.Connection, repair: bool) -> None:
    try:
        with transaction(conn):
            before = set(conn.execute(_VOCAB_ROWS))
            words = rebuild_vocab(conn)
            after = set(conn.execute(_VOCAB_ROWS))
            differ = len({r[0] for r in before ^ after})
            if not (repair and differ):
                raise _Undo
    except _Undo:
        pass
    if not differ:
        report.add("vocab", OK, f"{words} words, the same as a recount")
    elif repair:
        report.add("vocab", FIXED, f"{differ} words differed from a recount: recounted")
    else:
        report.add("vocab", PROBLEM, f"{differ} of {words} words differ from a recount")


def _check_log(report: Report, conn: sqlite3.Connection, db_path: Path, repair: bool = False) -> None:
    total, prompts, oldest = conn.execute(
        "SELECT count(*), count(prompt), min(time) FROM decisions"
    ).fetchone()
    detail = f"{total} decisions, {prompts} with the prompt text"
    if oldest:
        detail += f", oldest {oldest[:10]}"
    report.add("log", OK, detail)
    _check_moved_aside(report, conn, db_path, repair)
    _check_hook_errors(report, db_path, conn.execute("SELECT max(time) FROM decisions").fetchone()[0], repair)


def _check_moved_aside(report: Report, conn: sqlite3.Connection, db_path: Path, repair: bool) -> None:
    """The copies of the database moved aside (``<name>.damaged-<time>``) whose logged decisions
    the database lacks: the hook moves a damaged database aside and leaves copying its log back
    to a command. ``repair`` copies them (``notesdb.db.copy_decisions``: never a decision twice);
    otherwise a warning names them, since a database deleted on purpose may be meant to
    start empty (``notesdb log --purge`` deletes the copies)."""
    from notesdb.log import moved_aside

    for copy in moved_aside(db_path):
        missing, found = pending_decisions(conn, copy)
        if not missing:
            continue
        if repair:
            copied, _ = copy_decisions(conn, copy)
            report.add("moved aside", FIXED, f"{copy.name}: copied back {copied} of its {found} logged decisions "
                                             "that the database lacked")  # fmt: skip
        else:
            report.add("moved aside", WARNING, f"{copy.name} holds {missing} logged decisions the database lacks: "
                                               "'notesdb doctor --repair' copies them back; 'notesdb log --purge' "
                                               "deletes them with the rest of the log")  # fmt: skip


#: Entries of ``hook-errors.jsonl`` whose text the doctor shows, newest first.
SHOWN_HOOK_ERRORS = 3


def _check_hook_errors(report: Report, db_path: Path, last_decision: str | None, repair: bool = False) -> None:
    """What the hook could not log in this database: the newest entries' text. While the
    newest is later than the newest logged decision, the hook is failing on every call: a
    problem. Otherwise they are past (a decision was logged since) and ``repair`` clears them:
    the entries of this database and those whose database is unknown are taken out of the
    file, the other databases' entries stay.

    Several databases share the folder of ``hook-errors.jsonl`` (the default location keeps
    every database there), so only the entries whose ``db`` is this database count, with those
    whose database could not be known (``db`` null, or a line written before entries named
    their database, or not JSON): those are shown as such. Entries of other databases are
    left to their own doctor.
    """
    import json

    try:
        own_db = str(db_path.expanduser().resolve())
    except (OSError, RuntimeError):
        own_db = str(db_path)
    entries = []  # (time, error, whose database: True this one, False unknown)
    others: dict[Path, list[str]] = {}  # per file, the lines of other databases: never cleared here
    read: list[Path] = []
    elsewhere: list[Path] = []  # the user data folder's file, once per entry read there
    for path in _hook_error_files(db_path):
        try:
            lines = [x for x in path.read_text(encoding="utf-8", errors="replace").split("\n") if x.strip()]
        except OSError:
            continue
        read.append(path)
        others[path] = []
        beside = path == db_path.with_name("hook-errors.jsonl")
        for line in lines:
            try:
                entry = json.loads(line)
            except (ValueError, RecursionError):  # damaged, or nested too deeply
                entry = None
            if not isinstance(entry, dict):  # a damaged line: shown, with no time of its own
                if beside:
                    entries.append(("", line[:200], False))
                else:
                    others[path].append(line)
                continue
            db = entry.get("db")
            # in the user data folder, only this database's lines (the others' doctors read them)
            if (db and db != own_db) or (not beside and not db):
                others[path].append(line)
                continue
            when = entry.get("time")
            entries.append((when if isinstance(when, str) else "", str(entry.get("error", "")), bool(db)))
            if not beside:
                elsewhere.append(path)
    if not entries:
        return
    names = ["hook-errors.jsonl"] if len(elsewhere) < len(entries) else []  # some beside the database
    if elsewhere:  # some in the user data folder: said with its path
        names.append(str(elsewhere[0]))
    where = " and ".join(names)
    # oldest first by their time (ISO 8601 strings sort as times), lines without one before all
    # others in file order: a damaged line written last does not hide a failing hook
    entries.sort(key=lambda e: e[0])
    own = sum(1 for e in entries if e[2])
    counts = [f"{n} entr{'y' if n == 1 else 'ies'} {whose}"
              for n, whose in ((own, "for this database"), (len(entries) - own, "whose database is unknown")) if n]  # fmt: skip
    newest = entries[-SHOWN_HOOK_ERRORS:][::-1]
    shown = "; ".join(f"{t[:19]} {'' if mine else '(database unknown) '}{e}".strip() for t, e, mine in newest)
    detail = f"{where}: {', '.join(counts)}, newest first: {shown}"
    failing = bool(newest[0][0]) and (last_decision is None or newest[0][0] > last_decision)
    if repair and not failing:
        from notesdb.log import write_private

        try:
            for done in read:
                write_private(done, "".join(line + "\n" for line in others[done]))
        except OSError as e:
            report.add("hook errors", WARNING, f"{detail} (could not clear them: {e.strerror or e})")
        else:
            report.add("hook errors", FIXED, f"{detail} (past: a decision was logged since; cleared)")
        return
    report.add("hook errors", PROBLEM if failing else WARNING,
               detail + (" (no decision logged since: the hook is failing)" if failing else ""))  # fmt: skip


def _hook_error_files(db_path: Path) -> list[Path]:
    """The ``hook-errors.jsonl`` files the hook may have written for this database: beside it,
    and in the user data folder, where it writes when the database's folder cannot be written
    (``notesdb.hook._fallback_folders``)."""
    files = [db_path.with_name("hook-errors.jsonl")]
    try:
        import platformdirs

        data = Path(platformdirs.user_data_dir("notesdb")) / "hook-errors.jsonl"
        if data.resolve() != files[0].resolve():
            files.append(data)
    except Exception:
        pass
    return files


def _check_permissions(report: Report, db_path: Path, repair: bool) -> None:
    """The database and the files beside it: none readable by others; SQLite's ``-wal``,
    ``-shm`` and ``-journal`` files exactly 0600 (owner read and write: one left read-only
    makes every write fail, :func:`notesdb.db.private_side_files`)."""
    loose, fixed = [], [f"{path.name} {mode:o}" for path, mode in report.side_modes_fixed]
    for path in side_files(db_path):
        try:
            st = path.stat()
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):  # a FIFO or device named as the database: never ours to change
            continue
        mode = stat.S_IMODE(st.st_mode)
        sqlite_side = any(path.name == db_path.name + s for s in SQLITE_SIDE_SUFFIXES)
        if not (mode != 0o600 if sqlite_side else mode & 0o077):
            continue
        if repair:
            try:
                os.chmod(path, 0o600)
                fixed.append(f"{path.name} {mode:o}")
                continue
            except OSError:
                pass
        loose.append(f"{path.name} {mode:o}")
    if loose:
        report.add("permissions", PROBLEM, "readable by others or not writable by their owner: "
                   + ", ".join(loose) + " (should be 600)")  # fmt: skip
    elif fixed:
        report.add("permissions", FIXED, "set to 600: " + ", ".join(fixed))
    else:
        report.add("permissions", OK, "the database and its files are 600 (owner only)")


def _check_notes(
    report: Report, notes: Path, skip: tuple[str, ...], conn: sqlite3.Connection | None
) -> None:
    problems: dict[str, list[str]] = {}
    on_disk = dict(walk_notes(notes, skip, problems))
    if conn is not None:
        for path, found in stored_problems(conn).items():
            if path in on_disk:
                problems.setdefault(path, found)
    for path in sorted(problems):
        report.add("note", WARNING, f"{path}: {'; '.join(problems[path])}")


def diagnose_hooks(cwd: Path | None = None, repair: bool = False) -> Report:
    """``notesdb doctor`` without a notes folder: the hook entries (:func:`check_hooks`), then,
    for each entry whose notes folder exists, what that hook runs with (:func:`diagnose`): its
    config file (its ``--config``, else ``NOTESDB_CONFIG``, else the default place), its
    database (its ``--db``, else the default for the folder) and its ``hook-errors.jsonl``. A
    misspelt setting keeps every hook call silent; without this the bare doctor would call the
    installation healthy.

    :param repair: mend what can be mended in each entry's database (see the module docstring)
    :returns: the checks; with more than one folder, each folder's checks are named after it
    """
    from notesdb import config as cfg
    from notesdb.errors import ConfigError
    from notesdb.install import find_installed

    report = Report("", "")
    check_hooks(report, cwd)
    targets: dict[tuple[Path, Path, str | None], None] = {}
    for f in find_installed(cwd):
        notes = f.option("--notes")
        try:
            folder = Path(notes).expanduser() if notes else None
            if folder is None or not folder.is_dir() or f.program is None:
                continue  # nothing that runs, or no folder to check: check_hooks said so
            targets.setdefault((folder, cfg.resolve_db(f.option("--db"), folder), f.option("--config")))
        except (NotesdbError, OSError, RuntimeError):
            continue
    for folder, db_path, config_option in targets:
        gate: Settings | None = None
        try:
            loaded = cfg.load_config(config_option)
            skip, problem, gate = loaded.skip, "", loaded.gate
        except ConfigError as e:
            skip, problem = DEFAULT_SKIP, str(e)
        config_file = cfg.config_path(config_option)
        # the hook's settings: a meter stored for other ones is measured again for these
        sub = diagnose(folder, db_path, skip=skip, repair=repair, config=(config_file, problem), hooks=False, gate=gate)
        for c in sub.checks:
            report.checks.append(Check(c.name if len(targets) == 1 else f"{c.name} ({folder})", c.status, c.detail))
    return report


def check_hooks(report: Report, cwd: Path | None = None) -> None:
    """Add one ``hook`` check per notesdb entry in any assistant's settings (project files: in
    ``cwd``), and a problem for a client that would run notesdb twice.

    A problem: the entry's executable is missing, or its notes folder is. No entry at all is
    a warning: the hook is not installed anywhere.
    """
    from notesdb.install import find_installed

    found = find_installed(cwd)
    if not found:
        report.add("hook", WARNING, "no notesdb hook in the settings of Claude Code, Codex CLI or Gemini CLI: "
                                    "'notesdb hook install --notes DIR' adds one")  # fmt: skip
    for f in found:
        where = f"{f.client.title}, {f.scope} ({f.path})"
        again = f"'notesdb hook install --client {f.client.name} --scope {f.scope} --notes DIR'"
        notes = f.option("--notes")
        if f.program is None and (os.sep in f.executable and Path(f.executable).exists()):
            report.add(
                "hook", PROBLEM,
                f"{where}: runs {f.executable}, which is not an executable file: every prompt shows a hook "
                f"error; run {again}",
            )  # fmt: skip
        elif f.program is None:
            report.add(
                "hook", PROBLEM,
                f"{where}: runs {f.executable}, which does not exist (a deleted virtualenv?): every prompt "
                f"shows a hook error. Install notesdb where it stays (pipx install, uv tool install), then "
                f"run {again}; or delete the notesdb entry under hooks.{f.client.event} in that file by hand",
            )  # fmt: skip
        elif notes and not Path(notes).expanduser().is_dir():
            report.add(
                "hook", PROBLEM,
                f"{where}: notes folder {notes} does not exist (moved, renamed or unmounted?): the hook "
                f"stays silent until it is back; if it moved, run {again.replace('DIR', 'NEW_FOLDER')}",
            )  # fmt: skip
        else:
            report.add("hook", OK, f"{where}: {f.handler.get('command')}")
    by_client: dict[str, list[str]] = {}
    for f in found:
        by_client.setdefault(f.client.name, []).append(f"{f.path}")
    for name, paths in by_client.items():
        if len(paths) > 1:
            report.add(
                "hook", PROBLEM,
                f"{len(paths)} notesdb hooks for {name} ({', '.join(paths)}): it merges these files, so every "
                f"prompt gets the line {len(paths)} times; keep one ('notesdb hook uninstall --client {name} "
                "--scope SCOPE' removes the others)",
            )  # fmt: skip
    if len({f.points_at for f in found}) > 1:
        report.add(
            "hook", WARNING,
            f"the {len(found)} notesdb hooks name different folders, databases or configs: commands "
            "run without --notes (log, search, index, label) cannot tell which to use; pass --notes DIR "
            "or set NOTESDB_NOTES",
        )  # fmt: skip

"""The SQLite file: opening it safely, migrating it, moving a damaged one aside, and the one
transaction helper every writer uses.

Migrating imports sqlite-utils only when a migration is pending, which keeps the hook's usual
path to the standard library.
"""

from __future__ import annotations

import _thread
import os
import sqlite3
import stat as statmod
import sys
import time
import urllib.parse
from pathlib import Path
from types import TracebackType

from notesdb.clock import file_stamp
from notesdb.errors import DatabaseDamaged, DatabaseUnavailable, NotOurDatabase, SchemaTooNew

TYPE_CHECKING = False  # not typing's: the hook does not import typing (about 3 ms of every message)
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = [
    "SCHEMA_VERSION",
    "APPLICATION_ID",
    "BUSY_TIMEOUT_MS",
    "open_db",
    "sqlite_uri",
    "check_ours",
    "foreign",
    "move_aside",
    "disk_refused",
    "transaction",
    "mark_for_reread",
    "note_count",
    "searchable_count",
    "TABLES",
    "FTS_SHADOW_TABLES",
    "missing_tables",
    "copy_decisions",
    "copy_decisions_back",
    "pending_decisions",
]

#: ``PRAGMA user_version`` after the last migration in ``notesdb/migrations.py``.
SCHEMA_VERSION: Final = 27
#: ``PRAGMA application_id`` of a notesdb database (stamped by migration 10): the four ASCII
#: bytes "ntdb" read as a big-endian integer, the convention the SQLite file format describes
#: for this header field (https://www.sqlite.org/fileformat.html#application_id).
APPLICATION_ID: Final = 0x6E746462
#: The table sqlite-utils records applied migrations in, and the name of our migration set:
#: a database made before the stamp is recognised as ours by its rows there.
MIGRATIONS_TABLE: Final = "_sqlite_migrations"
MIGRATION_SET: Final = "notesdb"
#: Busy timeout in ms: how long a writer waits for another before giving up (WAL makes readers
#: never wait). Chosen to sit under the hook's own time bound of about 1 s.
BUSY_TIMEOUT_MS: Final = 800
#: How long opening a database waits for another process that is migrating it.
MIGRATION_WAIT_MS: Final = 3000


def mark_for_reread(conn: sqlite3.Connection, where: str) -> None:
    """Mark the notes matching the SQL condition ``where`` to be read and parsed again at the
    next sync: no stored size or hash matches, and the folder's listing is forgotten. The
    full-text rows do not change, so the update trigger (which rewrites a note's notes_fts row)
    is left out while the rows are marked; until a note is read again its row answers as before.
    Runs inside the caller's transaction."""
    (trigger,) = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'notes_au'").fetchone()
    conn.execute("DROP TRIGGER notes_au")
    conn.execute(f"UPDATE notes SET size = -1, hash = '' WHERE {where}")
    conn.execute(trigger)
    conn.execute("DELETE FROM meta WHERE key = 'listing_hash'")


class transaction:
    """``with transaction(conn):`` runs the block in one ``BEGIN IMMEDIATE`` transaction:
    committed when the block ends, rolled back when it raises (the exception goes on).

    :param conn: a connection in autocommit mode (``isolation_level=None``, as from :func:`open_db`)
    :param wait_ms: busy timeout for taking the write lock only (then set back), or None to
        keep the connection's
    :raises sqlite3.OperationalError: the write lock was not free in time
    """

    def __init__(self, conn: sqlite3.Connection, *, wait_ms: int | None = None) -> None:
        self.conn = conn
        self.wait_ms = wait_ms

    def __enter__(self) -> sqlite3.Connection:
        conn = self.conn
        if self.wait_ms is None:
            conn.execute("BEGIN IMMEDIATE")
            return conn
        timeout = conn.execute("PRAGMA busy_timeout").fetchone()[0]
        conn.execute(f"PRAGMA busy_timeout = {self.wait_ms}")
        try:
            conn.execute("BEGIN IMMEDIATE")
        finally:
            conn.execute(f"PRAGMA busy_timeout = {timeout}")
        return conn

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if kind is None:
            self.conn.execute("COMMIT")
        elif self.conn.in_transaction:
            self.conn.execute("ROLLBACK")


def note_count(conn: sqlite3.Connection) -> int:
    """Number of notes in the index."""
    return int(conn.execute("SELECT count(*) FROM notes").fetchone()[0])


def searchable_count(conn: sqlite3.Connection) -> int:
    """Number of notes in the full-text index: the N of every IDF. Empty notes and templates
    (``notes.searchable = 0``) are not counted, so a folder padded with hundreds of empty
    placeholders judges as the same folder without them."""
    return int(conn.execute("SELECT count(*) FROM notes_fts_docsize").fetchone()[0])


def sqlite_uri(path: str | os.PathLike[str], **params: str) -> str:
    """An SQLite ``file:`` URI for ``path``, every character outside ``/`` and the unreserved
    ones percent-quoted (a folder named ``a%41b``, ``x?y`` or ``#1`` stays itself).

    :param params: URI query parameters, e.g. ``mode="ro"``
    """
    uri = "file:" + urllib.parse.quote(os.path.abspath(os.fsdecode(path)), safe="/")
    if params:
        uri += "?" + urllib.parse.urlencode(params)
    return uri


def foreign(conn: sqlite3.Connection) -> str:
    """Why the open database is not a notesdb database, or ``""`` when it is ours (stamped, or
    made before the stamp and recorded in the migrations table) or holds nothing yet.

    :raises sqlite3.DatabaseError: the file cannot be read
    """
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    if app_id == APPLICATION_ID:
        return ""
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")]
    if app_id == 0 and not names:
        return ""
    if app_id == 0 and MIGRATIONS_TABLE in names:
        ours = conn.execute(
            f"SELECT 1 FROM {MIGRATIONS_TABLE} WHERE migration_set = ? LIMIT 1", (MIGRATION_SET,)
        ).fetchone()
        if ours:
            return ""
    if app_id:
        return f"application_id {app_id:#x}, not notesdb's {APPLICATION_ID:#x}"
    return "tables: " + ", ".join(sorted(names)[:5]) + (", ..." if len(names) > 5 else "")


#: The tables and views the migrations create (``notesdb.migrations``), which every current
#: database holds; ``tests/test_migrations.py`` checks this list against a new database.
TABLES: Final = (
    "decisions", "english", "english_rare", "lexicon", "lexicon_rare", "meta", "note_vectors", "notes", "notes_fts", "notes_fts_terms", "notes_text",
    "vocab",
)


#: The tables FTS5 keeps for ``notes_fts`` (sqlite.org/fts5.html, "shadow tables"): without
#: one of them the full-text index cannot be opened, so it is checked like :data:`TABLES`.
FTS_SHADOW_TABLES: Final = ("notes_fts_config", "notes_fts_data", "notes_fts_docsize", "notes_fts_idx")


def missing_tables(conn: sqlite3.Connection) -> list[str]:
    """The tables of :data:`TABLES` and :data:`FTS_SHADOW_TABLES` the open database lacks
    (dropped by hand or by another program), sorted; empty for a whole database."""
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    return sorted(t for t in TABLES + FTS_SHADOW_TABLES if t not in have)


def probe_tables(conn: sqlite3.Connection) -> None:
    """Read the first row of every table of :data:`TABLES` and :data:`FTS_SHADOW_TABLES` the
    database holds, so that a table whose root page is damaged is found before a sync that has
    nothing to do reports success over it. One page or two per table (well under 1 ms); a
    damaged page deeper in a table is found only when it is read.

    :raises sqlite3.DatabaseError: "database disk image is malformed" and the like
    """
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    for table in TABLES + FTS_SHADOW_TABLES:
        if table in have:
            conn.execute(f'SELECT 1 FROM "{table}" LIMIT 1').fetchall()


#: What a database records about its log beside the decisions (``meta`` keys): the files
#: ``label export`` wrote (``log --purge`` names them) and digests of what it wrote there, and
#: the false-alarm meter's last reading.
LOG_META_KEYS: Final = ("exports", "export_digests", "false_alarm_meter")


def copy_decisions_back(conn: sqlite3.Connection, old: Path | None) -> str:
    """:func:`copy_decisions` from the database moved aside to ``old`` into ``conn``, its rebuilt
    replacement, and what was done in words: ``"copied back its 3 logged decisions"``, ``"copied
    back 2 of its 3 logged decisions (the rest stay there)"``, or ``""`` when ``old`` is None or
    held no readable decisions."""
    copied, found = copy_decisions(conn, old) if old is not None else (0, 0)
    if not found:
        return ""
    if copied == found:
        return f"copied back its {copied} logged decisions"
    return f"copied back {copied} of its {found} logged decisions (the rest stay there)"


#: The columns that tell one logged decision from another when a log is copied back: a
#: decision the database already holds (copied back before, by another process or an earlier
#: repair) is not copied twice.
_DECISION_KEY: Final = ("time", "session_id", "prompt", "route", "elapsed_ms")


def _old_decisions(old: Path, conn: sqlite3.Connection) -> tuple[list[str], list[tuple[Any, ...]], list[tuple[Any, ...]]] | None:
    """``(columns, rows, meta rows)`` of the decisions in the database file ``old`` that
    ``conn``'s ``decisions`` table can take (the columns both have but ``id``), in their order;
    None when ``old`` is not a regular file or has no readable decisions table."""
    try:
        if not statmod.S_ISREG(os.stat(old).st_mode):  # a FIFO or a device of that name: never opened
            return None
    except OSError:
        return None
    # without a write-ahead log beside it the file is read as immutable: no -wal or -shm is made
    # beside a copy kept as it was
    params = {"mode": "ro"} if old.with_name(old.name + "-wal").exists() else {"mode": "ro", "immutable": "1"}
    try:
        src = sqlite3.connect(sqlite_uri(old, **params), uri=True)
        try:
            theirs = [r[1] for r in src.execute("PRAGMA table_info(decisions)")]
            ours = {r[1] for r in conn.execute("PRAGMA table_info(decisions)")}
            cols = [c for c in theirs if c in ours and c != "id"]
            rows = src.execute(f"SELECT {', '.join(cols)} FROM decisions ORDER BY rowid").fetchall() if cols else []
            try:
                meta = src.execute(
                    f"SELECT key, value FROM meta WHERE key IN ({', '.join('?' * len(LOG_META_KEYS))})", LOG_META_KEYS
                ).fetchall()
            except sqlite3.Error:  # no meta table (dropped): nothing more to keep
                meta = []
        finally:
            src.close()
    except sqlite3.Error:
        return None
    return cols, rows, meta


def _not_held(conn: sqlite3.Connection, cols: list[str], rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The rows of ``rows`` (of columns ``cols``) whose :data:`_DECISION_KEY` ``conn``'s log lacks."""
    key = [c for c in _DECISION_KEY if c in cols]
    if not key:
        return rows
    held = set(conn.execute(f"SELECT {', '.join(key)} FROM decisions"))
    at = [cols.index(c) for c in key]
    return [r for r in rows if tuple(r[i] for i in at) not in held]


def pending_decisions(conn: sqlite3.Connection, old: Path) -> tuple[int, int]:
    """``(missing, found)``: how many logged decisions the database file ``old`` (a copy moved
    aside) holds that ``conn``'s log lacks, and how many it holds (``(0, 0)`` when it has no
    readable decisions table)."""
    got = _old_decisions(Path(old), conn)
    if got is None:
        return 0, 0
    cols, rows, _ = got
    return len(_not_held(conn, cols, rows)), len(rows)


def copy_decisions(conn: sqlite3.Connection, old: Path) -> tuple[int, int]:
    """Copy the logged decisions (labels included) of the database file ``old`` into ``conn``'s
    ``decisions`` table, the columns both have but ``id``, with what it records about them
    (:data:`LOG_META_KEYS`); used when a database is rebuilt from the notes, and by ``doctor
    --repair`` for a copy moved aside whose log was not copied back. A decision ``conn``
    already holds (the same :data:`_DECISION_KEY`) is not copied again. They get new ids after
    any decision logged meanwhile (a hook answering while the database was rebuilt), in their
    old order; a row the table refuses (a column emptied by hand that must hold a value) is
    left out and counted.

    :returns: ``(copied, found)``: decisions copied, and decisions ``old`` holds that ``conn``
        lacked (``(0, 0)`` when it has no readable decisions table)
    :raises sqlite3.OperationalError: the copy cannot be written (a full disk)
    """
    got = _old_decisions(Path(old), conn)
    if got is None:
        return 0, 0
    cols, rows, meta = got
    copied = 0
    insert = f"INSERT INTO decisions ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
    with transaction(conn):
        conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", meta)
        if not cols:
            return 0, 0
        rows = _not_held(conn, cols, rows)
        for row in rows:
            try:
                conn.execute(insert, row)
                copied += 1
            except sqlite3.IntegrityError:
                pass
    return copied, len(rows)


_MAGIC: Final = b"SQLite format 3\x00"


#: Database files found stamped in this process, by (device, inode): each is read once.
#: ``foreign`` still checks every connection through SQL.
_STAMPED: set[tuple[int, int]] = set()

#: Descriptors this process reads database headers through, by (device, inode), never closed.
#: Closing any descriptor of a file drops every POSIX lock the process holds on it, SQLite's
#: included ("How To Corrupt An SQLite Database File", section 2.2.1): a process keeping a
#: connection open (the warm process) would lose its shared lock, and the next program to close
#: the database would delete the write-ahead log from under it. One descriptor per database
#: file a process looks at, at most :data:`MAX_HEADER_FDS` (the oldest is closed beyond that:
#: a process looking at that many databases is a test run or a script, not the hook or the
#: warm process, which look at one).
_HEADER_FDS: dict[tuple[int, int], int] = {}
MAX_HEADER_FDS: Final = 64

#: One ``open_db`` at a time in a process: a thread creating or migrating a database keeps the
#: others from checking its half-made header (with an SQLite connection that, closed, would
#: drop the first thread's locks) until it is stamped. ``_thread``: no import cost on the hook.
_OPEN_LOCK = _thread.RLock()


def _read_header(p: Path, size: int) -> bytes:
    """The first ``size`` bytes of the file ``p``, read through a descriptor kept open for the
    life of the process (:data:`_HEADER_FDS`).

    :raises OSError: the file cannot be opened or read
    """
    st = os.stat(p)
    fd = _HEADER_FDS.get((st.st_dev, st.st_ino))
    if fd is None:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        opened = os.fstat(fd)  # the path may have been replaced between stat and open
        _HEADER_FDS.setdefault((opened.st_dev, opened.st_ino), fd)
        while len(_HEADER_FDS) > MAX_HEADER_FDS:
            os.close(_HEADER_FDS.pop(next(iter(_HEADER_FDS))))
    return os.pread(fd, size, 0)


def _regular(p: Path) -> bool:
    """True when ``p`` (followed through links) is a regular file, not a FIFO, device or socket:
    reading a FIFO blocks until someone writes to it, and SQLite would change a device's mode
    and create its journal beside it (``/dev/null-journal``)."""
    try:
        return statmod.S_ISREG(os.stat(p).st_mode)
    except OSError:
        return True  # cannot tell: opening it reports the problem


def _stamped(p: Path) -> bool:
    """True when the file's header carries our application_id (bytes 68-71, big-endian); read
    once per process and file (:data:`_STAMPED`)."""
    try:
        st = os.stat(p)
        key = (st.st_dev, st.st_ino)
        if key in _STAMPED:
            return True
        head = _read_header(p, 72)
    except OSError:
        return False
    if head[:16] == _MAGIC and int.from_bytes(head[68:72], "big") == APPLICATION_ID:
        _STAMPED.add(key)
        return True
    return False


def _refuse(p: Path, why: str) -> NotOurDatabase:
    return NotOurDatabase(
        f"{p} is an SQLite database of another application ({why}): notesdb leaves it alone; "
        "choose another --db"
    )


def check_ours(path: str | os.PathLike[str]) -> None:
    """Refuse a file that is a readable SQLite database of another application.

    The file is opened read-only as immutable, so that nothing is written, not even the
    ``-wal`` and ``-shm`` files a WAL-mode database gets beside it when opened; what it holds in
    a write-ahead log is not read. A file that cannot be read as a database passes (it may be a
    damaged notesdb database, which may be moved aside).

    :raises NotOurDatabase: the file is a readable database that notesdb did not make
    """
    p = Path(path)
    try:
        if _read_header(p, 16) != _MAGIC:
            return
        conn = sqlite3.connect(sqlite_uri(p, mode="ro", immutable="1"), uri=True, isolation_level=None)
    except (OSError, sqlite3.Error):
        return
    try:
        why = foreign(conn)
    except sqlite3.Error:
        return
    finally:
        conn.close()
    if why:
        raise _refuse(p, why)


def _create_private(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o600)
    os.close(fd)


#: The files SQLite keeps beside a database: its write-ahead log, its shared memory index and
#: its rollback journal (sqlite.org/tempfiles.html).
SQLITE_SIDE_SUFFIXES = ("-wal", "-shm", "-journal")


def private_side_files(p: Path) -> list[tuple[Path, int]]:
    """Set the ``-wal``, ``-shm`` and ``-journal`` files of the database ``p`` that belong to
    the current user to 0600 (owner read and write) when their mode is any other.

    SQLite creates them with the database file's mode: after the database was made read-only
    (0400) once, a ``-shm`` left at 0400 would make every later write fail with "attempt to
    write a readonly database" even once the database is writable again; one readable by
    others would show them the logged messages. Another user's file is left as it is.

    :returns: each file changed and its former mode (``st_mode & 0o7777``)
    """
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    changed = []
    for suffix in SQLITE_SIDE_SUFFIXES:
        f = p.with_name(p.name + suffix)
        try:
            st = os.lstat(f)
            mode = statmod.S_IMODE(st.st_mode)
            if statmod.S_ISREG(st.st_mode) and mode != 0o600 and st.st_uid == uid:
                os.chmod(f, 0o600)
                changed.append((f, mode))
        except OSError:  # gone, or not ours to change: left as it is
            pass
    return changed


def _owner_only(p: Path) -> None:
    """Set the database to 0600 when others may read it and it belongs to the current user
    (another user's file is left as it is; a database made read-only, 0400, stays so), and its
    side files to 0600 (:func:`private_side_files`)."""
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    try:
        st = os.stat(p)
        if st.st_mode & 0o077 and st.st_uid == uid:
            os.chmod(p, 0o600)
    except OSError:  # gone, or not ours to change: left as it is
        pass
    private_side_files(p)


def open_db(
    path: str | os.PathLike[str], *, create: bool = True, busy_timeout_ms: int = BUSY_TIMEOUT_MS
) -> sqlite3.Connection:
    """Open (and create, and migrate) a notesdb database.

    The file is created readable by its owner only (0600), in WAL mode with a busy timeout of
    ``BUSY_TIMEOUT_MS``; an existing file of the current user that others may read is set to
    0600, and its ``-wal``, ``-shm`` and ``-journal`` files to 0600 whatever their mode
    (:func:`private_side_files`). Pending migrations are applied (importing sqlite-utils only then).

    :param path: the database file
    :param create: create the file when missing; when False a missing file raises
    :param busy_timeout_ms: how long a write waits for another writer (commands that are
        not the hook wait longer)
    :returns: a connection in autocommit mode (``isolation_level=None``)
    :raises DatabaseUnavailable: the file cannot be created or opened (or is missing and
        ``create`` is False)
    :raises DatabaseDamaged: the file is not a database or fails to read
    :raises NotOurDatabase: the file is a database of another application (left unchanged:
        ours are stamped with ``APPLICATION_ID``, older ones are known by their migrations)
    :raises SchemaTooNew: the file was written by a newer notesdb
    """
    with _OPEN_LOCK:
        return _open(Path(path), create, busy_timeout_ms)


def _open(p: Path, create: bool, busy_timeout_ms: int) -> sqlite3.Connection:
    try:
        if not p.exists():
            if not create:
                raise DatabaseUnavailable(f"no database at {p}: run 'notesdb index' first")
            _create_private(p)
        elif not _regular(p):  # before reading it: a FIFO would block, a device be changed
            raise DatabaseUnavailable(f"database path {p} is not a regular file (a FIFO, device or socket): --db names a file")
        elif not _stamped(p):  # before opening it for writing: nothing beside it is created
            check_ours(p)
        # before SQLite opens them: a -shm it opened read-only stays so for this process
        private_side_files(p)
        conn = sqlite3.connect(p, timeout=busy_timeout_ms / 1000, isolation_level=None)
    except (DatabaseUnavailable, NotOurDatabase):
        raise
    except (OSError, sqlite3.Error) as e:
        raise DatabaseUnavailable(f"cannot open database {p}: {e}") from None
    try:
        why = foreign(conn)
        if why:
            conn.close()
            raise _refuse(p, why)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            conn.close()
            raise SchemaTooNew(
                f"database {p} has schema version {version}, newer than this notesdb "
                f"understands ({SCHEMA_VERSION}): upgrade notesdb or use another --db"
            )
        _owner_only(p)
        _use_wal(conn, max(busy_timeout_ms, MIGRATION_WAIT_MS))
        conn.execute("PRAGMA synchronous = NORMAL")
        if version < SCHEMA_VERSION:
            _migrate(conn)
        st = os.stat(p)
        _STAMPED.add((st.st_dev, st.st_ino))  # ours and stamped (migration 10): never read again
    except OSError as e:
        conn.close()
        raise DatabaseUnavailable(f"cannot open database {p}: {e}") from None
    except sqlite3.DatabaseError as e:
        conn.close()
        if "readonly" in str(e) or "unable to open" in str(e):
            raise DatabaseUnavailable(f"cannot write database {p}: {e}") from None
        if disk_refused(e):  # the disk's state, not the file's: never move it aside
            raise DatabaseUnavailable(f"cannot write database {p}: {e} (free some space on its disk)") from None
        if "locked" in str(e) or "busy" in str(e):  # in use, not damaged: never move it aside
            raise DatabaseUnavailable(f"database {p} is in use by another process: try again") from None
        raise DatabaseDamaged(f"database {p} cannot be read: {e}") from None
    return conn


def _use_wal(conn: sqlite3.Connection, wait_ms: int) -> None:
    """Set the database to WAL mode unless it is already, waiting up to ``wait_ms`` (ms) for
    another process that holds it.

    Changing the journal mode takes an exclusive lock from a shared one. When two processes
    open a new file at once, SQLite answers one of them "database is locked" at once, without
    calling its busy handler (it would wait on the other for ever); by the time it asks again
    the other has usually made the file WAL, and there is nothing left to change.

    :raises sqlite3.OperationalError: still locked after ``wait_ms``
    """
    deadline = time.monotonic() + wait_ms / 1000
    pause = 0.005
    while conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        try:
            conn.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError as e:
            if ("locked" not in str(e) and "busy" not in str(e)) or time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.1)


def disk_refused(e: BaseException) -> bool:
    """True for SQLite's errors that mean the disk refused a write (full, a quota, a file size
    limit: SQLITE_FULL's "database or disk is full", SQLITE_IOERR's "disk I/O error"): the
    disk's state, not damage in the file, so the database is never moved aside for it."""
    text = str(e).lower()
    return "full" in text or "disk i/o" in text


def _migrate(conn: sqlite3.Connection) -> None:
    # One process migrates at a time: the others wait here (a first migration takes a while,
    # so longer than the usual busy timeout), then find nothing left to do and import nothing.
    timeout = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    with transaction(conn, wait_ms=max(timeout, MIGRATION_WAIT_MS)):
        if conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
            _apply_migrations(conn)


def _apply_migrations(conn: sqlite3.Connection) -> None:
    # sqlite-utils imports numpy and pandas when they are installed, only to map their types in
    # inserts, which no migration makes. Kept out, the hook's first call on a new database is
    # about 90 ms faster and 13 MB smaller; they stay importable for anything else.
    hidden = [name for name in ("numpy", "pandas") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        from sqlite_utils import Database

        from notesdb.migrations import migrations
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
    migrations.apply(Database(conn))


def move_aside(path: str | os.PathLike[str]) -> Path:
    """Rename a damaged database (and its -wal/-shm files) to ``<name>.damaged-<UTC time>``
    (``-2``, ``-3``... after it when that name is taken: an earlier copy is never replaced).

    Only what looks like a database is moved: a regular file that starts with the SQLite header,
    is empty, or is named ``*.db``, ``*.sqlite`` or ``*.sqlite3``. Anything else (a note, a
    device, ``/etc/passwd`` given by mistake) is left alone, and so is a readable database of
    another application.

    :returns: the new path of the database file
    :raises DatabaseUnavailable: the path does not look like a database
    :raises NotOurDatabase: the file is a readable database notesdb did not make
    """
    p = Path(path)
    check_ours(p)
    if not _looks_like_database(p):
        raise DatabaseUnavailable(
            f"{p} is not a notesdb database and does not look like one: leaving it alone; "
            "choose another --db"
        )
    stamp = file_stamp()
    target = p.with_name(f"{p.name}.damaged-{stamp}")
    n = 1
    while any(target.with_name(target.name + s).exists() or target.with_name(target.name + s).is_symlink() for s in ("", "-wal", "-shm")):
        n += 1  # moved aside twice within one second: never over the first copy
        target = p.with_name(f"{p.name}.damaged-{stamp}-{n}")
    for suffix in ("-wal", "-shm"):
        side = p.with_name(p.name + suffix)
        if side.exists():
            side.rename(target.with_name(target.name + suffix))
    p.rename(target)
    return target


def _looks_like_database(p: Path) -> bool:
    try:
        st = p.lstat()
        if not statmod.S_ISREG(st.st_mode):
            return False
        if st.st_size == 0 or p.suffix.lower() in (".db", ".sqlite", ".sqlite3"):
            return True
        return _read_header(p, 16) == _MAGIC
    except OSError:
        return False

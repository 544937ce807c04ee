"""The SQLite file: opening it safely, migrating it, and keeping it in line with the notes folder.

One database mirrors one notes folder. ``sync`` walks the folder with ``stat`` only and
re-reads just the files whose size or mtime changed, so a sync with nothing to do costs one
``stat`` per note and one hash of the folder's listing, compared with the hash stored when the
index last matched the folder. Parsing (markdown-it-py, PyYAML) and migrating (sqlite-utils) are imported
only when they are needed, which keeps the hook's usual path to the standard library.

The notes folder is read-only to us: nothing here writes to it.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import stat as statmod
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Final, Iterable, Iterator

try:  # hashlib's blake2b itself, without the OpenSSL that importing hashlib loads (about 2 ms)
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b as _blake2b

from notesdb.errors import (
    DatabaseDamaged,
    DatabaseUnavailable,
    IndexBusy,
    NotesFolderEmpty,
    NotesFolderMissing,
    SchemaTooNew,
)
from notesdb.query import tokenize

__all__ = [
    "SCHEMA_VERSION",
    "SyncStats",
    "open_db",
    "sync",
    "walk_notes",
    "note_count",
    "rebuild_vocab",
    "move_aside",
]

#: ``PRAGMA user_version`` after the last migration in ``migrations/``.
SCHEMA_VERSION: Final = 6
#: Note files read: Markdown by extension, case-insensitive.
NOTE_SUFFIXES: Final = (".md", ".markdown")
#: Files skipped at the notes root by default: an index already loaded into every session.
DEFAULT_SKIP: Final = ("MEMORY.md",)
#: Bytes read from one file at most (the parser indexes the first 1 MiB and reports the rest).
READ_LIMIT: Final = 1024 * 1024 + 1
#: Busy timeout in ms: how long a writer waits for another before giving up (WAL makes readers
#: never wait). Chosen to sit under the hook's own time bound of about 1 s.
BUSY_TIMEOUT_MS: Final = 800
#: How long opening a database waits for another process that is migrating it.
MIGRATION_WAIT_MS: Final = 3000
#: Notes written per transaction during a sync, so that a long first index lets readers (and
#: the hook) see its progress and another writer get in between batches.
COMMIT_EVERY: Final = 500


@dataclass
class SyncStats:
    """What one sync did. ``problems`` maps a note path to what could not be read."""

    scanned: int = 0
    added: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    problems: dict[str, list[str]] = field(default_factory=dict)
    incomplete: bool = False  # stopped at its deadline; the rest waits for the next sync
    pending: int = 0  # changed files left for the next sync
    elapsed_ms: float = 0.0

    @property
    def changed(self) -> bool:
        """True when the sync wrote anything."""
        return bool(self.added or self.modified or self.renamed or self.removed)


def _create_private(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o600)
    os.close(fd)


def open_db(
    path: str | os.PathLike[str], *, create: bool = True, busy_timeout_ms: int = BUSY_TIMEOUT_MS
) -> sqlite3.Connection:
    """Open (and create, and migrate) a notesdb database.

    The file is created readable by its owner only (0600), in WAL mode with a busy timeout of
    ``BUSY_TIMEOUT_MS``. Pending migrations are applied (importing sqlite-utils only then).

    :param path: the database file
    :param create: create the file when missing; when False a missing file raises
    :param busy_timeout_ms: how long a write waits for another writer (commands that are
        not the hook wait longer)
    :returns: a connection in autocommit mode (``isolation_level=None``)
    :raises DatabaseUnavailable: the file cannot be created or opened (or is missing and
        ``create`` is False)
    :raises DatabaseDamaged: the file is not a database or fails to read
    :raises SchemaTooNew: the file was written by a newer notesdb
    """
    p = Path(path)
    try:
        if not p.exists():
            if not create:
                raise DatabaseUnavailable(f"no database at {p}: run 'notesdb index' first")
            _create_private(p)
        conn = sqlite3.connect(p, timeout=busy_timeout_ms / 1000, isolation_level=None)
    except DatabaseUnavailable:
        raise
    except (OSError, sqlite3.Error) as e:
        raise DatabaseUnavailable(f"cannot open database {p}: {e}") from None
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            conn.close()
            raise SchemaTooNew(
                f"database {p} has schema version {version}, newer than this notesdb "
                f"understands ({SCHEMA_VERSION}): upgrade notesdb or use another --db"
            )
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if mode != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        if version < SCHEMA_VERSION:
            _migrate(conn)
    except sqlite3.DatabaseError as e:
        conn.close()
        if "readonly" in str(e) or "unable to open" in str(e):
            raise DatabaseUnavailable(f"cannot write database {p}: {e}") from None
        if "locked" in str(e) or "busy" in str(e):  # in use, not damaged: never move it aside
            raise DatabaseUnavailable(f"database {p} is in use by another process: try again") from None
        raise DatabaseDamaged(f"database {p} cannot be read: {e}") from None
    return conn


def _migrate(conn: sqlite3.Connection) -> None:
    # One process migrates at a time: the others wait here (a first migration takes a while,
    # so longer than the usual busy timeout), then find nothing left to do and import nothing.
    timeout = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    conn.execute(f"PRAGMA busy_timeout = {max(timeout, MIGRATION_WAIT_MS)}")
    try:
        conn.execute("BEGIN IMMEDIATE")
    finally:
        conn.execute(f"PRAGMA busy_timeout = {timeout}")
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
            _apply_migrations(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


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
    """Rename a damaged database (and its -wal/-shm files) to ``<name>.damaged-<UTC time>``.

    Only what looks like a database is moved: a regular file that starts with the SQLite header,
    is empty, or is named ``*.db``, ``*.sqlite`` or ``*.sqlite3``. Anything else (a note, a
    device, ``/etc/passwd`` given by mistake) is left alone.

    :returns: the new path of the database file
    :raises DatabaseUnavailable: the path does not look like a database
    """
    p = Path(path)
    if not _looks_like_database(p):
        raise DatabaseUnavailable(
            f"{p} is not a notesdb database and does not look like one: leaving it alone; "
            "choose another --db"
        )
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    target = p.with_name(f"{p.name}.damaged-{stamp}")
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
        with open(p, "rb") as f:
            return f.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def walk_notes(
    root: Path, skip: tuple[str, ...] = DEFAULT_SKIP, problems: dict[str, list[str]] | None = None
) -> Iterator[tuple[str, os.stat_result]]:
    """Yield ``(relative POSIX path, stat)`` for every note file under ``root``.

    Hidden files and folders (``.git``, ``.obsidian``, ``.trash``) are skipped, and so are the
    ``skip`` names at the root. Symbolic links are followed, each real folder once (a link loop
    ends). Note files that cannot be stat'ed (a dangling link), are not regular files (a fifo)
    or whose names are not UTF-8 are left out, and so are folders that cannot be listed or
    that a link leads back to; each is put in ``problems`` when it is given.
    """
    def left_out(rel: str, why: str) -> None:
        if problems is not None:
            problems[_printable(rel)] = [why]

    seen_dirs: set[tuple[int, int]] = set()
    stack: list[tuple[str, str, bool]] = [(os.fspath(root), "", False)]
    while stack:
        folder, prefix, linked = stack.pop()
        try:
            st = os.stat(folder)
        except OSError:
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen_dirs:
            if linked:
                left_out(prefix.rstrip("/"), "link to a folder already indexed (a loop): skipped")
            continue
        seen_dirs.add(key)
        try:
            entries = list(os.scandir(folder))
        except OSError as e:
            left_out(prefix.rstrip("/") or ".", f"folder cannot be read: {e.strerror or e}")
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            rel = prefix + name
            try:
                if entry.is_dir():
                    stack.append((entry.path, rel + "/", entry.is_symlink()))
                    continue
                if not name.lower().endswith(NOTE_SUFFIXES):
                    continue
                if not prefix and name in skip:
                    continue
                est = entry.stat()
            except OSError as e:
                if name.lower().endswith(NOTE_SUFFIXES):
                    dangling = isinstance(e, FileNotFoundError) and entry.is_symlink()
                    left_out(rel, "cannot be read: " + ("dangling symbolic link" if dangling else str(e.strerror or e)))
                continue
            if not statmod.S_ISREG(est.st_mode):
                left_out(rel, "not a regular file: skipped")
            elif not rel.isascii() and _printable(rel) != rel:
                left_out(rel, "file name is not valid UTF-8: not indexed")
            else:
                yield rel, est


def _printable(rel: str) -> str:
    """A path as text SQLite and a terminal accept: undecodable bytes become U+FFFD."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def note_count(conn: sqlite3.Connection) -> int:
    """Number of notes in the index."""
    return conn.execute("SELECT count(*) FROM notes").fetchone()[0]


def _meta_words(title: str, desc: str, headings: str) -> tuple[set[str], set[str], set[str]]:
    return set(tokenize(title)), set(tokenize(desc)), set(tokenize(headings))


def _row_words(row: tuple[str, str, str, str, str, str]) -> tuple[set[str], set[str], set[str], set[str]]:
    """Word sets (title, desc, headings, all) of a note row as notes_fts indexes it."""
    title, aliases, desc, headings, tags, body = row
    t, d, h = _meta_words(title + " " + aliases, desc, headings + " " + tags)
    return t, d, h, t | d | h | set(tokenize(body))


def _add_counts(delta: dict[str, list[int]], words: tuple[set[str], ...], sign: int) -> None:
    title, desc, headings, everything = words
    meta = title | desc | headings
    for w in everything:
        c = delta[w]
        c[0] += sign
        if w in title:
            c[1] += sign
        if w in desc:
            c[2] += sign
        if w in headings:
            c[3] += sign
        if w in meta:
            c[4] += sign


def _apply_vocab(conn: sqlite3.Connection, delta: dict[str, list[int]]) -> None:
    import jellyfish

    rows = [
        (w, len(w), c[0], c[1], c[2], c[3], c[4], jellyfish.metaphone(w) if w.isalpha() else "")
        for w, c in delta.items()
        if any(c)
    ]
    conn.executemany(
        """
        INSERT INTO vocab(word, length, doc_freq, title_doc_freq, desc_doc_freq,
                          headings_doc_freq, meta_doc_freq, phonetic)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(word) DO UPDATE SET
            doc_freq = doc_freq + excluded.doc_freq,
            title_doc_freq = title_doc_freq + excluded.title_doc_freq,
            desc_doc_freq = desc_doc_freq + excluded.desc_doc_freq,
            headings_doc_freq = headings_doc_freq + excluded.headings_doc_freq,
            meta_doc_freq = meta_doc_freq + excluded.meta_doc_freq
        """,
        rows,
    )
    conn.execute("DELETE FROM vocab WHERE doc_freq <= 0")


_ROW_TEXT = "SELECT title, aliases, desc, headings, tags, body FROM notes"


def rebuild_vocab(conn: sqlite3.Connection) -> int:
    """Recount the whole ``vocab`` table from ``notes``.

    :returns: the number of distinct words
    """
    delta: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    for row in conn.execute(_ROW_TEXT):
        _add_counts(delta, _row_words(row), +1)
    conn.execute("DELETE FROM vocab")
    _apply_vocab(conn, delta)
    return len(delta)


def _read(path: Path) -> bytes:
    # O_NONBLOCK: a file replaced by a fifo after the walk must not hang the hook
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        if not statmod.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return f.read(READ_LIMIT)


def sync(
    conn: sqlite3.Connection,
    root: str | os.PathLike[str],
    *,
    deadline: float | None = None,
    skip: tuple[str, ...] = DEFAULT_SKIP,
    progress: object | None = None,
) -> SyncStats:
    """Bring ``notes``, ``notes_fts`` and ``vocab`` in line with the notes folder.

    New, changed, renamed and deleted notes are all handled; a file whose size and mtime are
    unchanged is not opened. A file whose bytes are unchanged (same blake2b hash) is not
    re-parsed. A renamed file keeps its row (and rowid). Files that cannot be read fully are
    indexed with what could be read; their problems are in ``SyncStats.problems``.

    :param conn: from :func:`open_db`
    :param root: the notes folder
    :param deadline: a ``time.monotonic()`` value; parsing stops once it passes, what is done
        is committed and ``incomplete`` is set, so the next sync continues
    :param skip: file names at the root that are not notes
    :param progress: a callable ``progress(done, total)`` called while parsing, or None
    :returns: what changed, in milliseconds of wall time
    :raises NotesFolderMissing: ``root`` is not a readable folder
    :raises NotesFolderEmpty: ``root`` holds no notes while the index holds some (an unmounted
        or emptied folder must not wipe the index silently)
    """
    t0 = time.perf_counter()
    root_path = Path(root)
    if not root_path.is_dir():
        raise NotesFolderMissing(f"notes folder not found: {root_path}")
    try:
        os.scandir(root_path).close()
    except OSError as e:
        raise NotesFolderMissing(f"notes folder cannot be read: {root_path} ({e.strerror})") from None
    stats = SyncStats()
    walked = [(rel, st.st_size, st.st_mtime_ns) for rel, st in walk_notes(root_path, skip, stats.problems)]
    stats.scanned = len(walked)
    if _stored_listing(conn) == _listing(walked):  # as at the end of the last full sync
        stats.elapsed_ms = (time.perf_counter() - t0) * 1000
        return stats
    on_disk = {rel: _Stat(size, mtime) for rel, size, mtime in walked}
    version = conn.execute("PRAGMA data_version").fetchone()[0]
    indexed = _indexed(conn)
    changed = _changed(on_disk, indexed)
    gone = [p for p in indexed if p not in on_disk]
    if not on_disk and indexed:
        raise NotesFolderEmpty(
            f"notes folder {root_path} holds no notes but the index has {len(indexed)}: "
            "not removing them (is the folder mounted?); run 'notesdb index --rebuild' to empty it"
        )
    if not changed and not gone:
        _save_listing(conn, on_disk)
        stats.elapsed_ms = (time.perf_counter() - t0) * 1000
        return stats

    lock = _sync_lock(conn, wait=deadline is None)
    try:
        from notesdb.parse import parse_note  # only now: markdown-it-py and PyYAML

        # another process may have brought the index up to date while we waited for the lock
        # (data_version moves when another connection commits; unmoved, the rows are as read)
        if conn.execute("PRAGMA data_version").fetchone()[0] != version:
            indexed = _indexed(conn)
            changed = _changed(on_disk, indexed)
        changed = sorted(changed)
        gone_hashes = {indexed[p][3] for p in indexed if p not in on_disk}
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        total = len(changed)
        done = 0
        while True:
            # Read and parse outside any transaction, so that other processes (a hook logging
            # its decision) can write while a long index runs; the write itself is short.
            prepared: list[_Prepared] = []
            size = 0
            while done < total and len(prepared) < COMMIT_EVERY and size < BATCH_BYTES:
                if deadline is not None and time.monotonic() > deadline:
                    stats.incomplete = True
                    break
                if progress is not None:
                    progress(done, total)  # type: ignore[operator]
                rel = changed[done]
                done += 1
                item = _prepare(root_path, rel, on_disk[rel], indexed, gone_hashes, stats, parse_note)
                if item is not None:
                    prepared.append(item)
                    size += item.st.st_size
            finished = not stats.incomplete and done >= total
            if prepared or finished:
                _write(conn, root_path, prepared, on_disk, finished, stats, now, parse_note)
            if stats.incomplete or finished:
                break
        stats.pending = total - done
        if finished and stats.changed:
            _merge_segments(conn)
    finally:
        _unlock(lock)
    if progress is not None:
        progress(done, total)  # type: ignore[operator]
    stats.elapsed_ms = (time.perf_counter() - t0) * 1000
    return stats


#: Bytes of notes read and parsed before they are written in one transaction.
BATCH_BYTES: Final = 64 * 1024 * 1024
#: Segments of the full-text index above which a sync that wrote notes merges them into one.
#: FTS5 looks every term of a query up in every segment: a first index of 10,000 notes leaves
#: about a dozen, each later write adds one (up to 16), and ``decide`` then took twice as long.
MAX_FTS_SEGMENTS: Final = 8


def _merge_segments(conn: sqlite3.Connection) -> None:
    """Merge the full-text index into one segment once it has more than ``MAX_FTS_SEGMENTS``
    (FTS5 ``optimize``: about 0.1 s for 10,000 notes). Search results are the same before and
    after; only the lookups are fewer. Skipped when another process is writing."""
    try:
        segments = conn.execute("SELECT count(DISTINCT segid) FROM notes_fts_idx").fetchone()[0]
        if segments > MAX_FTS_SEGMENTS:
            conn.execute("INSERT INTO notes_fts(notes_fts) VALUES ('optimize')")
    except sqlite3.OperationalError:
        pass

_Indexed = dict[str, tuple[int, int, int, str]]  # path -> (rowid, size, mtime_ns, hash)


def _indexed(conn: sqlite3.Connection) -> _Indexed:
    return {
        path: (rowid, size, mtime, digest)
        for rowid, path, size, mtime, digest in conn.execute(
            "SELECT id, path, size, mtime_ns, hash FROM notes"
        )
    }


def _changed(on_disk: dict[str, os.stat_result], indexed: _Indexed) -> list[str]:
    return [
        p
        for p, st in on_disk.items()
        if p not in indexed or indexed[p][1] != st.st_size or indexed[p][2] != st.st_mtime_ns
    ]


class _Stat:
    """The two fields of a note's ``os.stat_result`` that a sync reads, in a fifth of its
    memory (5 MB less for 10,000 notes, which matters on the hook's first calls)."""

    __slots__ = ("st_size", "st_mtime_ns")

    def __init__(self, size: int, mtime_ns: int) -> None:
        self.st_size = size
        self.st_mtime_ns = mtime_ns


def _listing(walked: Iterable[tuple[str, int, int]]) -> str:
    """The folder as a sync sees it, hashed: blake2b of one ``path<TAB>size<TAB>mtime_ns`` line
    per note, in the order of the walk."""
    text = "\n".join(f"{p}\t{size}\t{mtime}" for p, size, mtime in walked)
    return _blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def _listing_of(on_disk: dict[str, _Stat]) -> str:
    return _listing((p, st.st_size, st.st_mtime_ns) for p, st in on_disk.items())


def _stored_listing(conn: sqlite3.Connection) -> str | None:
    """The hashed listing of the folder when ``notes`` last matched it exactly, or None.

    Comparing it with the folder's is one short read and one hash, where comparing ``notes``
    row by row costs about a third of a sync of 10,000 notes that finds nothing to do. Every
    write to ``notes`` deletes it; a sync that ends with ``notes`` matching the folder exactly
    stores it again (see :func:`_write`).
    """
    row = conn.execute("SELECT value FROM meta WHERE key = 'listing_hash'").fetchone()
    return row[0] if row else None


def _matches(conn: sqlite3.Connection, on_disk: dict[str, _Stat]) -> bool:
    """True when ``notes`` holds exactly the files of ``on_disk``, with their size and mtime."""
    rows = conn.execute("SELECT path, size, mtime_ns FROM notes").fetchall()
    if len(rows) != len(on_disk):
        return False
    for path, size, mtime in rows:
        st = on_disk.get(path)
        if st is None or st.st_size != size or st.st_mtime_ns != mtime:
            return False
    return True


def _save_listing(conn: sqlite3.Connection, on_disk: dict[str, _Stat]) -> None:
    """Store the hashed listing of a folder that ``notes`` matches but whose hash is not stored
    (an index built before the hash was kept, or a folder listed in another order).

    Best effort: when another process is syncing or writing, or the database is read-only,
    nothing is stored and a later sync tries again.
    """
    try:
        lock = _sync_lock(conn, wait=False)
    except (IndexBusy, OSError):
        return
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if _matches(conn, on_disk):
                conn.execute(
                    "INSERT INTO meta(key, value) VALUES ('listing_hash', ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (_listing_of(on_disk),),
                )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    except sqlite3.OperationalError:
        pass
    finally:
        _unlock(lock)


def _sync_lock(conn: sqlite3.Connection, *, wait: bool) -> int | None:
    """Take the advisory lock ``<database>.lock`` so that one process syncs at a time.

    :param wait: wait for the lock (commands) or give up at once (the hook, which then answers
        from the index as it is)
    :returns: the lock's file descriptor, or None where advisory locks do not exist
    :raises IndexBusy: ``wait`` is False and another process is syncing
    """
    try:
        import fcntl
    except ImportError:  # no flock: SQLite's locking alone still keeps the index consistent
        return None
    name = conn.execute("PRAGMA database_list").fetchone()[2]
    if not name:
        return None
    try:
        fd = os.open(name + ".lock", os.O_CREAT | os.O_RDWR, 0o600)
    except OSError:  # a folder we cannot create files in: go without
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError:
        os.close(fd)
        raise IndexBusy("another process is updating the index") from None
    return fd


def _unlock(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)


def _digest(data: bytes) -> str:
    """blake2b of a file's bytes."""
    return _blake2b(data, digest_size=16).hexdigest()


def _stored_row(conn: sqlite3.Connection, rowid: int) -> tuple[str, str, str, str, str, str]:
    return conn.execute(_ROW_TEXT + " WHERE id = ?", (rowid,)).fetchone()


@dataclass
class _Prepared:
    """One new or changed file, read (and parsed unless its bytes are already indexed)."""

    rel: str
    st: os.stat_result
    digest: str
    note: object | None
    words: tuple[set[str], ...] | None = None  # of the parsed note, counted outside the lock


def _prepare(root_path, rel, st, indexed, gone_hashes, stats, parse_note):  # type: ignore[no-untyped-def]
    """Read and hash one new or changed file; parse it unless its bytes are indexed already."""
    try:
        data = _read(root_path / rel)
    except OSError as e:
        stats.problems[rel] = [f"cannot be read: {e.strerror or e}"]
        return None
    digest = _digest(data)
    same = (rel in indexed and indexed[rel][3] == digest) or (rel not in indexed and digest in gone_hashes)
    note = None if same else parse_note(rel, data)
    if note is not None and note.problems:
        stats.problems[rel] = list(note.problems)
    return _Prepared(rel, st, digest, note, _row_words(_note_row(note)) if note is not None else None)


def _write(conn, root_path, prepared, on_disk, finished, stats, now, parse_note):  # type: ignore[no-untyped-def]
    """Write prepared notes (and, when ``finished``, remove deleted ones) in one transaction.

    Decides against the rows as they are now, not as they were when the files were read.
    """
    delta: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    conn.execute("BEGIN IMMEDIATE")
    try:
        current = _indexed(conn)
        gone = [p for p in current if p not in on_disk]
        gone_by_hash = {current[p][3]: p for p in gone}
        for item in prepared:
            _write_one(conn, root_path, item, current, gone_by_hash, gone, delta, stats, now, parse_note)
        if finished:
            for rel in gone:
                rowid = current[rel][0]
                _add_counts(delta, _row_words(_stored_row(conn, rowid)), -1)
                conn.execute("DELETE FROM notes WHERE id = ?", (rowid,))
                stats.removed.append(rel)
        _apply_vocab(conn, delta)
        conn.execute(
            "INSERT INTO meta(key, value) VALUES ('notes_root', ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (str(root_path.resolve()),),
        )
        conn.execute("DELETE FROM meta WHERE key = 'listing_hash'")
        if finished and _matches(conn, on_disk):
            conn.execute("INSERT INTO meta(key, value) VALUES ('listing_hash', ?)", (_listing_of(on_disk),))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _write_one(conn, root_path, item, indexed, gone_by_hash, gone, delta, stats, now, parse_note):  # type: ignore[no-untyped-def]
    """Write one prepared file (inside the caller's transaction)."""
    rel, st, digest, note, words = item.rel, item.st, item.digest, item.note, item.words
    if rel in indexed and indexed[rel][3] == digest:
        conn.execute(
            "UPDATE notes SET size = ?, mtime_ns = ? WHERE id = ?",
            (st.st_size, st.st_mtime_ns, indexed[rel][0]),
        )
        return
    if rel not in indexed and digest in gone_by_hash:
        old = gone_by_hash.pop(digest)
        gone.remove(old)
        conn.execute(
            "UPDATE notes SET path = ?, size = ?, mtime_ns = ?, indexed_at = ? WHERE path = ?",
            (rel, st.st_size, st.st_mtime_ns, now, old),
        )
        stats.renamed.append((old, rel))
        return
    if note is None:  # the rows changed since the file was read: parse it after all
        try:
            data = _read(root_path / rel)
        except OSError as e:
            stats.problems[rel] = [f"cannot be read: {e.strerror or e}"]
            return
        digest = _digest(data)
        note = parse_note(rel, data)
        words = None
        if note.problems:
            stats.problems[rel] = list(note.problems)
    values = (
        rel, note.title, note.desc, note.headings, note.body, note.type,
        json.dumps(note.aliases, ensure_ascii=False),
        json.dumps(note.tags, ensure_ascii=False),
        st.st_size, st.st_mtime_ns, digest, now,
        json.dumps(note.problems, ensure_ascii=False),
    )  # fmt: skip
    if rel in indexed:
        rowid = indexed[rel][0]
        _add_counts(delta, _row_words(_stored_row(conn, rowid)), -1)
        conn.execute(
            """UPDATE notes SET path=?, title=?, desc=?, headings=?, body=?, type=?,
               aliases=?, tags=?, size=?, mtime_ns=?, hash=?, indexed_at=?, problems=?
               WHERE id = ?""",
            (*values, rowid),
        )
        stats.modified.append(rel)
    else:
        conn.execute(
            """INSERT INTO notes(path, title, desc, headings, body, type, aliases, tags,
               size, mtime_ns, hash, indexed_at, problems)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            values,
        )
        stats.added.append(rel)
    _add_counts(delta, words or _row_words(_note_row(note)), +1)


def _note_row(note: object) -> tuple[str, str, str, str, str, str]:
    return (
        note.title,  # type: ignore[attr-defined]
        json.dumps(note.aliases, ensure_ascii=False),  # type: ignore[attr-defined]
        note.desc,  # type: ignore[attr-defined]
        note.headings,  # type: ignore[attr-defined]
        json.dumps(note.tags, ensure_ascii=False),  # type: ignore[attr-defined]
        note.body,  # type: ignore[attr-defined]
    )

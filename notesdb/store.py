"""The SQLite file: opening it safely, migrating it, and keeping it in line with the notes folder.

One database mirrors one notes folder. ``sync`` walks the folder with ``stat`` only and
re-reads just the files whose size or mtime changed, so a sync with nothing to do costs one
``stat`` per note. Parsing (markdown-it-py, PyYAML) and migrating (sqlite-utils) are imported
only when they are needed, which keeps the hook's usual path to the standard library.

The notes folder is read-only to us: nothing here writes to it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat as statmod
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Final, Iterator

from notesdb.errors import DatabaseDamaged, DatabaseUnavailable, NotesFolderMissing, SchemaTooNew
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
SCHEMA_VERSION: Final = 5
#: Note files read: Markdown by extension, case-insensitive.
NOTE_SUFFIXES: Final = (".md", ".markdown")
#: Files skipped at the notes root by default: an index already loaded into every session.
DEFAULT_SKIP: Final = ("MEMORY.md",)
#: Bytes read from one file at most (the parser indexes the first 1 MiB and reports the rest).
READ_LIMIT: Final = 1024 * 1024 + 1
#: Busy timeout in ms: how long a writer waits for another before giving up (WAL makes readers
#: never wait). Chosen to sit under the hook's own time bound of about 1 s.
BUSY_TIMEOUT_MS: Final = 800
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


def open_db(path: str | os.PathLike[str], *, create: bool = True) -> sqlite3.Connection:
    """Open (and create, and migrate) a notesdb database.

    The file is created readable by its owner only (0600), in WAL mode with a busy timeout of
    ``BUSY_TIMEOUT_MS``. Pending migrations are applied (importing sqlite-utils only then).

    :param path: the database file
    :param create: create the file when missing; when False a missing file raises
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
        conn = sqlite3.connect(p, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
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
        raise DatabaseDamaged(f"database {p} cannot be read: {e}") from None
    return conn


def _migrate(conn: sqlite3.Connection) -> None:
    from sqlite_utils import Database

    from notesdb.migrations import migrations

    migrations.apply(Database(conn))


def move_aside(path: str | os.PathLike[str]) -> Path:
    """Rename a damaged database (and its -wal/-shm files) to ``<name>.damaged-<UTC time>``.

    :returns: the new path of the database file
    """
    p = Path(path)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    target = p.with_name(f"{p.name}.damaged-{stamp}")
    for suffix in ("-wal", "-shm"):
        side = p.with_name(p.name + suffix)
        if side.exists():
            side.rename(target.with_name(target.name + suffix))
    p.rename(target)
    return target


def walk_notes(root: Path, skip: tuple[str, ...] = DEFAULT_SKIP) -> Iterator[tuple[str, os.stat_result]]:
    """Yield ``(relative POSIX path, stat)`` for every note file under ``root``.

    Hidden files and folders (``.git``, ``.obsidian``, ``.trash``) are skipped, and so are the
    ``skip`` names at the root. Symbolic links are followed, each real folder once (a link loop
    ends). Files that vanish or cannot be stat'ed while walking are left out.
    """
    seen_dirs: set[tuple[int, int]] = set()
    stack = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            st = folder.stat()
        except OSError:
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen_dirs:
            continue
        seen_dirs.add(key)
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            rel = prefix + name
            try:
                if entry.is_dir():
                    stack.append((Path(entry.path), rel + "/"))
                    continue
                if not name.lower().endswith(NOTE_SUFFIXES):
                    continue
                if not prefix and name in skip:
                    continue
                est = entry.stat()
            except OSError:
                continue
            if statmod.S_ISREG(est.st_mode):
                yield rel, est


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
    with open(path, "rb") as f:
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
    on_disk = dict(walk_notes(root_path, skip))
    stats.scanned = len(on_disk)
    indexed = {
        path: (rowid, size, mtime, digest)
        for rowid, path, size, mtime, digest in conn.execute(
            "SELECT id, path, size, mtime_ns, hash FROM notes"
        )
    }
    changed = [
        p
        for p, st in on_disk.items()
        if p not in indexed or indexed[p][1] != st.st_size or indexed[p][2] != st.st_mtime_ns
    ]
    gone = [p for p in indexed if p not in on_disk]
    if not changed and not gone:
        stats.elapsed_ms = (time.perf_counter() - t0) * 1000
        return stats

    from notesdb.parse import parse_note  # only now: markdown-it-py and PyYAML

    changed.sort()
    gone_by_hash = {indexed[p][3]: p for p in gone}
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    total = len(changed)
    done = 0
    while True:
        batch = changed[done : done + COMMIT_EVERY]
        delta: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
        conn.execute("BEGIN IMMEDIATE")
        try:
            for rel in batch:
                if deadline is not None and time.monotonic() > deadline:
                    stats.incomplete = True
                    break
                if progress is not None:
                    progress(done, total)  # type: ignore[operator]
                done += 1
                _sync_one(conn, root_path, rel, on_disk[rel], indexed, gone_by_hash, gone,
                          delta, stats, now, parse_note)  # fmt: skip
            if not stats.incomplete and done >= total:
                for rel in gone:
                    rowid = indexed[rel][0]
                    _add_counts(delta, _row_words(_stored_row(conn, rowid)), -1)
                    conn.execute("DELETE FROM notes WHERE id = ?", (rowid,))
                    stats.removed.append(rel)
            _apply_vocab(conn, delta)
            conn.execute(
                "INSERT INTO meta(key, value) VALUES ('notes_root', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(root_path.resolve()),),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        if stats.incomplete or done >= total:
            break
    stats.pending = total - done
    if progress is not None:
        progress(done, total)  # type: ignore[operator]
    stats.elapsed_ms = (time.perf_counter() - t0) * 1000
    return stats


def _stored_row(conn: sqlite3.Connection, rowid: int) -> tuple[str, str, str, str, str, str]:
    return conn.execute(_ROW_TEXT + " WHERE id = ?", (rowid,)).fetchone()


def _sync_one(conn, root_path, rel, st, indexed, gone_by_hash, gone, delta, stats, now, parse_note):  # type: ignore[no-untyped-def]
    """Read, parse and write one new or changed file (inside the caller's transaction)."""
    try:
        data = _read(root_path / rel)
    except OSError as e:
        stats.problems[rel] = [f"cannot be read: {e.strerror or e}"]
        return
    digest = hashlib.blake2b(data, digest_size=16).hexdigest()
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
    note = parse_note(rel, data)
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
    _add_counts(delta, _row_words(_note_row(note)), +1)


def _note_row(note: object) -> tuple[str, str, str, str, str, str]:
    return (
        note.title,  # type: ignore[attr-defined]
        json.dumps(note.aliases, ensure_ascii=False),  # type: ignore[attr-defined]
        note.desc,  # type: ignore[attr-defined]
        note.headings,  # type: ignore[attr-defined]
        json.dumps(note.tags, ensure_ascii=False),  # type: ignore[attr-defined]
        note.body,  # type: ignore[attr-defined]
    )

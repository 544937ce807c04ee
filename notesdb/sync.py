"""Keeping the database in line with the notes folder: walk, listing hash, lock, batches.

``sync`` walks the folder with ``stat`` only and re-reads just the files whose size or mtime
changed, so a sync with nothing to do costs one ``stat`` per note and one hash of the folder's
listing, compared with the hash stored when the index last matched the folder. Parsing
(markdown-it-py, PyYAML) is imported only when a file must be parsed, which keeps the hook's
usual path to the standard library.

The notes folder is read-only to us: nothing here writes to it.
"""

from __future__ import annotations

import errno
import json
import os
import re
import sqlite3
import stat as statmod
import time
from collections import Counter
from functools import lru_cache
from pathlib import Path

try:  # hashlib's blake2b itself, without the OpenSSL that importing hashlib loads (about 2 ms)
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b as _blake2b

from notesdb.clock import now_iso
from notesdb.db import BUSY_TIMEOUT_MS, move_aside, open_db, transaction
from notesdb.errors import IndexBusy, NotesFolderEmpty, NotesFolderMissing
from notesdb.vocab import ROW_TEXT, Row, add_counts, apply_counts, fill_english_rare, rare_words_filled, note_row, row_words

TYPE_CHECKING = False  # not typing's: the hook does not import typing (about 3 ms of every message)
if TYPE_CHECKING:
    from typing import Callable, Final, Iterable, Iterator

    from notesdb.parse import Note

    Progress = Callable[[int, int], None]
    ParseNote = Callable[[str, bytes], Note]

__all__ = ["DEFAULT_SKIP", "SyncStats", "folder_problem", "sync", "walk_notes", "rebuild_index", "rebuild_in_place", "stored_problems"]

#: Note files read: Markdown by extension, case-insensitive.
NOTE_SUFFIXES: Final = (".md", ".markdown")
#: Skipped by default: ``MEMORY.md`` at the root (an index already loaded into every session),
#: template folders (Obsidian's and Templater's usual ``Templates/``, ``_templates/``) and the
#: copies Logseq keeps of a graph's pages in ``logseq/bak/`` and ``logseq/version-files/``.
#: The ``[index] skip`` setting replaces this list; see :func:`skipped_by`.
DEFAULT_SKIP: Final = ("MEMORY.md", "Templates/", "_templates/", "logseq/bak/", "logseq/version-files/")
#: Bytes read from one file at most: ``parse.MAX_NOTE_BYTES`` + 1 (the parser indexes the first
#: 256 KiB and reports the rest; not imported from it, which would load the Markdown parser
#: on every hook call).
READ_LIMIT: Final = 256 * 1024 + 1
#: Notes written per transaction during a sync, so that a long first index lets readers (and
#: the hook) see its progress and another writer get in between batches.
COMMIT_EVERY: Final = 500


class SyncStats:
    """What one sync did. ``problems`` maps a note path to what could not be read. (A plain
    class, like :class:`_Run`: the hook makes one on every message and skips a dataclass's
    creation time.)"""

    __slots__ = (
        "scanned", "added", "modified", "renamed", "removed", "problems", "skipped", "incomplete",
        "pending", "elapsed_ms",
    )  # fmt: skip

    def __init__(self) -> None:
        self.scanned = 0
        self.added: list[str] = []
        self.modified: list[str] = []
        self.renamed: list[tuple[str, str]] = []
        self.removed: list[str] = []
        self.problems: dict[str, list[str]] = {}
        # folders and files left out by a skip pattern ("Templates/"), and notes parsed as
        # templates (indexed but never searched)
        self.skipped: list[str] = []
        self.incomplete = False  # stopped at its deadline; the rest waits for the next sync
        self.pending = 0  # changed files left for the next sync
        self.elapsed_ms = 0.0

    @property
    def changed(self) -> bool:
        """True when the sync wrote anything."""
        return bool(self.added or self.modified or self.renamed or self.removed)


def folder_problem(root: Path) -> str:
    """Why ``root`` cannot be used as the notes folder, or ``""`` when it is a folder that can
    be listed: ``"notes folder not found: ROOT"``, ``"notes folder ROOT is a file, not a
    folder"`` (``"is not a folder"`` for a fifo or device) or ``"notes folder cannot be read: ROOT (REASON)"`` (the system's reason, e.g.
    ``Permission denied``)."""
    try:
        st = os.stat(root)
    except OSError as e:
        if isinstance(e, (FileNotFoundError, NotADirectoryError)):
            return f"notes folder not found: {root}"
        return f"notes folder cannot be read: {root} ({e.strerror or e})"
    if not statmod.S_ISDIR(st.st_mode):
        return f"notes folder {root} is {'a file, not a folder' if statmod.S_ISREG(st.st_mode) else 'not a folder'}"
    try:
        os.scandir(root).close()
    except OSError as e:
        return f"notes folder cannot be read: {root} ({e.strerror or e})"
    return ""


def skipped_by(rel: str, skip: tuple[str, ...], folder: bool = False) -> bool:
    """Whether a relative path is left out by one of the ``skip`` patterns, ignoring case.

    A pattern ending in ``/`` names folders (``"Templates/"`` at the root, ``"*/archive/"``
    deeper); any other pattern is matched against the whole path with ``fnmatch`` (``*``
    crosses folders: ``"archive/*"``, ``"*-archive.md"`` at the root, ``"*/*-archive.md"``
    deeper; a plain name such as ``"MEMORY.md"`` matches that file at the root).

    :param rel: POSIX path relative to the notes root (a folder without its trailing ``/``)
    :param folder: ``rel`` is a folder
    """
    folders, files = _skip_patterns(skip)
    pattern = folders if folder else files
    return pattern is not None and pattern.match(rel.lower()) is not None


@lru_cache(maxsize=8)
def _skip_patterns(skip: tuple[str, ...]) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """The skip patterns as one compiled regular expression for folders and one for files
    (a walk tests every folder and file of the notes, on every message)."""
    from fnmatch import translate

    folders = [translate(p.lower().rstrip("/")) for p in skip if p.endswith("/")]
    files = [translate(p.lower()) for p in skip if not p.endswith("/")]
    return (
        re.compile("|".join(folders)) if folders else None,
        re.compile("|".join(files)) if files else None,
    )


def walk_notes(
    root: Path,
    skip: tuple[str, ...] = DEFAULT_SKIP,
    problems: dict[str, list[str]] | None = None,
    skipped: list[str] | None = None,
) -> Iterator[tuple[str, os.stat_result]]:
    """Yield ``(relative POSIX path, stat)`` for every note file under ``root``.

    Hidden files and folders (``.git``, ``.obsidian``, ``.trash``) are skipped, and so are the
    folders and files a ``skip`` pattern names (:func:`skipped_by`; each goes in ``skipped``
    when it is given). Symbolic links are followed, each real folder once (a link loop
    ends). Note files that cannot be stat'ed (a dangling link), are not regular files (a fifo)
    or whose names are not UTF-8 are left out, and so are folders that cannot be listed, that a
    link leads back to, or that a link leads to and that hold the notes folder itself (a link
    to ``/`` would index the whole disk); each is put in ``problems`` when it is given.
    """
    def left_out(rel: str, why: str) -> None:
        if problems is not None:
            problems[_printable(rel)] = [why]

    skip_folders, skip_files = _skip_patterns(tuple(skip))
    seen_dirs: set[tuple[int, int]] = set()
    stack: list[tuple[str, str, bool]] = [(os.fspath(root), "", False)]
    real_root = ""
    while stack:
        folder, prefix, linked = stack.pop()
        try:
            st = os.stat(folder)
        except OSError as e:
            if prefix:  # the root's own problem is folder_problem's; a path too long (over
                # PATH_MAX, ENAMETOOLONG) or a folder gone since its parent was listed is named
                left_out(prefix.rstrip("/"), f"folder cannot be read: {e.strerror or e}")
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen_dirs:
            if linked:
                left_out(prefix.rstrip("/"), "link to a folder already indexed (a loop): skipped")
            continue
        if linked:
            # a link to a folder that holds the notes folder ("/", the home folder, "..")
            # would index the notes again and everything around them
            real_root = real_root or os.path.realpath(root)
            target = os.path.realpath(folder)
            if real_root == target or real_root.startswith(target.rstrip(os.sep) + os.sep):
                left_out(prefix.rstrip("/"), f"link to {target}, a folder that holds the notes folder: skipped")
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
                    if skip_folders is not None and skip_folders.match(rel.lower()):
                        if skipped is not None:
                            skipped.append(rel + "/")
                        continue
                    stack.append((entry.path, rel + "/", entry.is_symlink()))
                    continue
                if not name.lower().endswith(NOTE_SUFFIXES):
                    continue
                if skip_files is not None and skip_files.match(rel.lower()):
                    if skipped is not None:
                        skipped.append(rel)
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


def stored_problems(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """What could not be read in each indexed note, as stored when it was last read (the notes
    table's ``problems``, a JSON list): path -> problems, only notes that have some."""
    out: dict[str, list[str]] = {}
    for path, text in conn.execute("SELECT path, problems FROM notes WHERE problems != '[]'"):
        try:
            found = json.loads(text)
        except ValueError:
            found = [text]
        out[path] = [str(p) for p in found] if isinstance(found, list) else [str(found)]
    return out


def _printable(rel: str) -> str:
    """A path as text SQLite and a terminal accept: undecodable bytes become U+FFFD."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


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
    progress: Progress | None = None,
    min_parsed: int = -1,
) -> SyncStats:
    """Bring ``notes``, ``notes_fts`` and ``vocab`` in line with the notes folder.

    New, changed, renamed and deleted notes are all handled; a file whose size and mtime are
    unchanged is not opened. A file whose bytes are unchanged (same blake2b hash) is not
    re-parsed, unless it was renamed: a renamed file keeps its row (and rowid) and is read
    again, since its title may come from its file name and its folder names are heading words. Files that cannot be read fully are
    indexed with what could be read; their problems are in ``SyncStats.problems``.

    :param conn: from :func:`open_db`
    :param root: the notes folder
    :param deadline: a ``time.monotonic()`` value; parsing stops once it passes, or once the
        write of what is parsed would (``WRITE_S_PER_WORD``; at least one note is parsed while
        time remains, and up to ``MIN_PARSED`` whatever the time while their write stays under
        ``MIN_PARSED_WRITE_S`` and their lines under ``MIN_PARSED_LINES``), what is done is
        committed and ``incomplete`` is set, so the next sync continues. Without one, the
        sync also fills the ``english_rare`` table once (``notesdb.vocab.fill_english_rare``)
    :param skip: patterns of folders and files that are not notes (:func:`skipped_by`)
    :param progress: a callable ``progress(done, total)`` called while parsing, or None
    :param min_parsed: notes parsed past the deadline (-1: ``MIN_PARSED``); the hook passes 0
        for a database it has just created, which stays silent until it is whole anyway
    :returns: what changed, in milliseconds of wall time
    :raises NotesFolderMissing: ``root`` is not a readable folder
    :raises IndexBusy: ``deadline`` is given and another process is syncing (the message says
        how many of the notes on disk are indexed as they are now)
    :raises NotesFolderEmpty: ``root`` holds no notes while the index holds some (an unmounted
        or emptied folder must not wipe the index silently)
    """
    t0 = time.perf_counter()
    root_path = Path(root)
    problem = folder_problem(root_path)
    if problem:
        raise NotesFolderMissing(problem)
    stats = SyncStats()
    if deadline is None:  # a full sync has the time the hook's first call lacks (migration 12)
        fill_english_rare(conn)
    walked = [
        (rel, st.st_size, st.st_mtime_ns) for rel, st in walk_notes(root_path, skip, stats.problems, stats.skipped)
    ]
    stats.scanned = len(walked)
    if deadline is None:  # anchor text a sync with a deadline left to this one
        _refresh_stale_anchors(conn)
    if _stored_listing(conn) == _listing(walked):  # as at the end of the last full sync
        stats.elapsed_ms = (time.perf_counter() - t0) * 1000
        return stats
    on_disk = {rel: _Stat(size, mtime) for rel, size, mtime in walked}
    version = conn.execute("PRAGMA data_version").fetchone()[0]
    indexed = _indexed(conn)
    changed = _changed(on_disk, indexed)
    gone = [p for p in indexed if p not in on_disk]
    if not on_disk and indexed:
        if stats.skipped:  # the folder is there and full: the skip patterns left nothing in it
            raise NotesFolderEmpty(
                f"the [index] skip patterns {list(skip)} leave no notes in {root_path} "
                f"({len(stats.skipped)} files and folders skipped, e.g. {stats.skipped[0]}) but the index "
                f"has {len(indexed)}: not removing them; fix the patterns in the config file"
            )
        raise NotesFolderEmpty(
            f"notes folder {root_path} holds no notes but the index has {len(indexed)}: "
            "not removing them (is the folder mounted?); run 'notesdb index --rebuild' to empty it"
        )
    if not changed and not gone:
        _save_listing(conn, on_disk)
        stats.elapsed_ms = (time.perf_counter() - t0) * 1000
        return stats

    try:
        lock = _sync_lock(conn, wait=deadline is None)
    except IndexBusy as e:  # the hook then answers from the index as it is: say how far it is
        raise IndexBusy(
            f"{e}; index incomplete: {len(on_disk) - len(changed)} of {len(on_disk)} notes indexed"
        ) from None
    try:
        from notesdb.parse import parse_note  # only now: markdown-it-py and PyYAML

        # another process may have brought the index up to date while we waited for the lock
        # (data_version moves when another connection commits; unmoved, the rows are as read)
        if conn.execute("PRAGMA data_version").fetchone()[0] != version:
            indexed = _indexed(conn)
            changed = _changed(on_disk, indexed)
        changed = sorted(changed)
        run = _Run(
            conn=conn,
            root=root_path,
            on_disk=on_disk,
            indexed=indexed,
            gone_hashes={indexed[p][3] for p in indexed if p not in on_disk},
            stats=stats,
            now=now_iso("seconds"),
            parse=parse_note,
        )
        run.deadline = deadline
        total = len(changed)
        done = 0
        least = MIN_PARSED if min_parsed < 0 else min_parsed
        lines_past = 0  # lines of the notes parsed past the deadline
        while True:
            # Read and parse outside any transaction, so that other processes (a hook logging
            # its decision) can write while a long index runs; the write itself is short.
            prepared: list[_Prepared] = []
            size = 0
            words = 0  # distinct words of each prepared note, added up: the write's cost
            while done < total and len(prepared) < COMMIT_EVERY and size < BATCH_BYTES:
                past = deadline is not None and time.monotonic() + words * WRITE_S_PER_WORD > deadline
                if past and (
                    done >= least or words * WRITE_S_PER_WORD > MIN_PARSED_WRITE_S or lines_past > MIN_PARSED_LINES
                ):
                    stats.incomplete = True
                    break
                if progress is not None:
                    progress(done, total)
                rel = changed[done]
                done += 1
                item = _prepare(run, rel)
                if item is not None:
                    if past:
                        lines_past += item.lines
                    prepared.append(item)
                    size += item.st.st_size
                    words += len(item.words or ())
            finished = not stats.incomplete and done >= total
            if prepared or finished:
                _write(run, prepared, finished)
            if stats.incomplete or finished:
                break
        stats.pending = total - done
        if finished and stats.changed:
            _merge_segments(conn)
    finally:
        _unlock(lock)
    if progress is not None:
        progress(done, total)
    stats.elapsed_ms = (time.perf_counter() - t0) * 1000
    return stats


#: Seconds writing a prepared note costs per distinct word of it (its row, its full-text row,
#: its share of the vocabulary): a sync with a deadline stops preparing notes once the time
#: their write will take would carry it past the deadline, so a call that must answer soon
#: does not spend seconds writing notes it had time to parse. Measured by timing ``_write``
#: over whole first indexes: 8.3 us a word on the shared personal vault (296 notes), 8.0 on
#: the til folder (2,448 notes), 14 on notes of 250 KiB of made-up words; 10 us between.
WRITE_S_PER_WORD: Final = 10e-6
#: Changed notes a sync with a deadline parses even when the deadline has passed: walking
#: 20,000 notes or more takes the hook's whole budget (0.47 s for 50,000), and a sync that
#: parsed nothing then would never take in an edited or new note. A note takes 1-5 ms to parse
#: and write, so the one or two notes just written count at once.
MIN_PARSED: Final = 4
#: Lines those notes may hold together, the first one aside: markdown-it-py's time grows with
#: a note's lines (``parse.MARKDOWN_MAX_LINES``: up to 0.2 s for 5,000), and six notes of
#: 65,000 empty headings each held one message 6.7 s and the next 3.6 s (now 0.26 s and 0.09
#: s: past 5,000 lines the parser reads a note as plain text).
#: Equal to ``parse.MARKDOWN_MAX_LINES``; not imported from it (the hook would load the parser).
MIN_PARSED_LINES: Final = 5_000
#: Seconds of writing those notes may cost at most past the deadline (``WRITE_S_PER_WORD``):
#: 5,000 distinct words, a long note; a larger one waits for a call with time to spare.
MIN_PARSED_WRITE_S: Final = 0.05
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


def _changed(on_disk: dict[str, _Stat], indexed: _Indexed) -> list[str]:
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
        with transaction(conn):
            if _matches(conn, on_disk):
                conn.execute(
                    "INSERT INTO meta(key, value) VALUES ('listing_hash', ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (_listing_of(on_disk),),
                )
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


def _stored_row(conn: sqlite3.Connection, rowid: int) -> Row:
    row: Row = conn.execute(ROW_TEXT + " WHERE id = ?", (rowid,)).fetchone()
    return row


class _Run:
    """One sync's state, shared by the steps that read, parse and write notes. (A plain class:
    a dataclass costs the hook its creation time on every message.)"""

    __slots__ = ("conn", "root", "on_disk", "indexed", "gone_hashes", "stats", "now", "parse", "_names", "_ends",
                 "links_moved", "deadline", "_rare_filled")

    def __init__(
        self,
        conn: sqlite3.Connection,
        root: Path,
        on_disk: dict[str, _Stat],  # the folder as walked
        indexed: _Indexed,  # the rows as read before parsing began
        gone_hashes: set[str],  # hashes of indexed files no longer on disk (renames keep rows)
        stats: SyncStats,
        now: str,  # ``indexed_at`` of the rows written
        parse: ParseNote,
    ) -> None:
        self.conn = conn
        self.root = root
        self.on_disk = on_disk
        self.indexed = indexed
        self.gone_hashes = gone_hashes
        self.stats = stats
        self.now = now
        self.parse = parse
        self._names: dict[str, list[str]] | None = None
        self._ends: set[str] | None = None
        #: a note was added, renamed or removed, or its links' anchor text changed: the anchor
        #: text of the notes they name is worked out again once the sync finishes
        self.links_moved = False
        self.deadline: float | None = None  # the sync's (``time.monotonic()``), or None
        self._rare_filled: bool | None = None  # ``english_rare`` filled (read when first needed)

    def names(self) -> dict[str, list[str]]:
        """The folder's notes by file name (``links.names_index``), made when first asked for."""
        if self._names is None:
            from notesdb.links import names_index

            self._names = names_index(self.on_disk)
        return self._names

    def english(self, word: str) -> bool:
        """True when ``word`` (folded) is a word of the database's English tables (``english``
        and ``english_rare``): a camel-case name English knows as it is ("GitHub",
        "StackOverflow") is not read as its parts (``notesdb.text.extra_words``). Until a full
        sync has filled ``english_rare`` (the hook's first sync does not) every word counts as
        known, so no name is split that the rare words would have kept whole; the fill marks
        the notes with such names to be read again (``notesdb.vocab.fill_english_rare``)."""
        if self._rare_filled is None:
            self._rare_filled = rare_words_filled(self.conn)
        if not self._rare_filled:
            return True
        return self.conn.execute(
            "SELECT 1 FROM english WHERE word = ?1 UNION ALL SELECT 1 FROM english_rare WHERE word = ?1 LIMIT 1", (word,)
        ).fetchone() is not None

    def ends(self) -> set[str]:
        """The ends of the folder's note paths of two parts or more, folded, ``.md`` dropped
        (``links.path_ends``), made when first asked for."""
        if self._ends is None:
            from notesdb.links import path_ends

            self._ends = path_ends(self.on_disk)
        return self._ends


class _Prepared:
    """One new or changed file, read (and parsed unless its bytes are already indexed)."""

    __slots__ = ("rel", "st", "digest", "note", "words", "row", "lines")

    def __init__(self, rel: str, st: _Stat, digest: str, note: Note | None, words: set[str] | None = None,
                 row: Row | None = None, lines: int = 0) -> None:
        self.rel = rel
        self.lines = lines  # newlines of the file parsed (0: not parsed, its bytes were indexed)
        self.st = st
        self.digest = digest
        self.note = note
        self.words = words  # of the parsed note, counted outside the lock
        self.row = row  # its text columns (``vocab.note_row``), made once


class _Batch:
    """The rows as they are inside one write transaction, and the vocabulary change it makes."""

    __slots__ = ("current", "gone", "gone_by_hash", "delta")

    def __init__(self, current: _Indexed, gone: list[str], gone_by_hash: dict[str, str]) -> None:
        self.current = current
        self.gone = gone
        self.gone_by_hash = gone_by_hash
        self.delta: Counter[str] = Counter()


def _read_note(run: _Run, rel: str) -> bytes | None:
    """A note's bytes, or None (and a problem recorded) when it cannot be read."""
    try:
        return _read(run.root / rel)
    except OSError as e:
        run.stats.problems[rel] = [f"cannot be read: {e.strerror or e}"]
        return None


def _parse(run: _Run, rel: str, data: bytes) -> Note:
    note = run.parse(rel, data)
    if note.links:
        from notesdb.links import resolve

        note.links = resolve(note.links, rel, run.names())
    if note.anchors:  # a link to a web page counts only when its path is a note's (most are not)
        from notesdb.links import MAX_TARGETS

        note.anchors = [a for a in note.anchors if a[0] or a[1] in run.ends()][:MAX_TARGETS]
    if note.problems:
        run.stats.problems[rel] = list(note.problems)
    if note.template:
        run.stats.skipped.append(rel)
    return note


def _prepare(run: _Run, rel: str) -> _Prepared | None:
    """Read and hash one new or changed file; parse it unless its bytes are indexed already."""
    data = _read_note(run, rel)
    if data is None:
        return None
    digest = _digest(data)
    indexed = run.indexed
    # a renamed file is parsed again: its title may come from its file name and its folder
    # names are heading words
    if rel in indexed and indexed[rel][3] == digest:
        return _Prepared(rel, run.on_disk[rel], digest, None)
    note = _parse(run, rel, data)
    row = note_row(note, run.english)
    return _Prepared(rel, run.on_disk[rel], digest, note, row_words(row), row, data.count(b"\n"))


def _write(run: _Run, prepared: list[_Prepared], finished: bool) -> None:
    """Write prepared notes (and, when ``finished``, remove deleted ones) in one transaction.

    Decides against the rows as they are now, not as they were when the files were read.
    """
    conn = run.conn
    with transaction(conn):
        current = _indexed(conn)
        gone = [p for p in current if p not in run.on_disk]
        batch = _Batch(current, gone, {current[p][3]: p for p in gone})
        for item in prepared:
            _write_one(run, batch, item)
        if finished:
            run.links_moved = run.links_moved or bool(batch.gone)
            for rel in batch.gone:
                rowid = current[rel][0]
                add_counts(batch.delta, row_words(_stored_row(conn, rowid)), -1)
                conn.execute("DELETE FROM notes WHERE id = ?", (rowid,))
                run.stats.removed.append(rel)
        apply_counts(conn, batch.delta)
        # The anchor text of the notes links name is worked out again when the sync finishes.
        # A sync stopped by its deadline leaves a mark for the one that finishes; a sync with a
        # deadline leaves a folder of many links to one without (``notesdb index``, the
        # resident process), which reads the mark first thing (:func:`_refresh_stale_anchors`).
        stale = run.links_moved or conn.execute("SELECT 1 FROM meta WHERE key = 'anchors_stale'").fetchone()
        if stale and finished and (run.deadline is None or _link_bytes(conn) <= ANCHOR_BYTES_IN_DEADLINE):
            refresh_anchors(conn)
            conn.execute("DELETE FROM meta WHERE key = 'anchors_stale'")
        elif run.links_moved:
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('anchors_stale', '1')")
        conn.execute(
            "INSERT INTO meta(key, value) VALUES ('notes_root', ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (str(run.root.resolve()),),
        )
        conn.execute("DELETE FROM meta WHERE key = 'listing_hash'")
        if finished and _matches(conn, run.on_disk):
            conn.execute("INSERT INTO meta(key, value) VALUES ('listing_hash', ?)", (_listing_of(run.on_disk),))


#: Bytes of stored links (``notes.anchors_out``) above which a sync with a deadline (the hook's)
#: leaves the anchor text to a sync without one (``notesdb index``, the resident process):
#: working it out reads every stored link, about 27 ns a byte (3,000 notes of 250 links each,
#: 75 MB of links: 1.9 s), so 2 MB is about 50 ms. The personal wiki of 1,062 notes keeps 0.2 MB.
ANCHOR_BYTES_IN_DEADLINE: Final = 2_000_000


def _refresh_stale_anchors(conn: sqlite3.Connection) -> None:
    """Work out the anchor text a sync with a deadline left marked (``meta.anchors_stale``).
    A database that cannot be written (read-only storage) keeps the mark and answers as it is:
    the anchor text is a help to ranking, never a reason for a command to fail."""
    if conn.execute("SELECT 1 FROM meta WHERE key = 'anchors_stale'").fetchone() is None:
        return
    try:
        lock = _sync_lock(conn, wait=True)
        try:
            with transaction(conn):
                refresh_anchors(conn)
                conn.execute("DELETE FROM meta WHERE key = 'anchors_stale'")
        finally:
            _unlock(lock)
    except (sqlite3.Error, OSError):
        return


def _link_bytes(conn: sqlite3.Connection) -> int:
    """Bytes of stored links as the last :func:`refresh_anchors` counted them (counted now when
    it never ran)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'anchor_link_bytes'").fetchone()
    if row is not None and str(row[0]).isdigit():
        return int(row[0])
    return int(conn.execute("SELECT total(length(anchors_out)) FROM notes WHERE anchors_out != '[]'").fetchone()[0])


def refresh_anchors(conn: sqlite3.Connection) -> int:
    """Give every note the anchor text of the links to it (``notes.anchors``, indexed with its
    headings: ``notesdb.links.incoming``), from the ``anchors_out`` of the notes with links;
    rows whose text is unchanged are not written. Run inside the transaction of a sync that
    finished after a note was added, renamed or removed or its links changed.

    Reads every note's path once (``bench/anchors.py``, medians on 2 cores: 0.7 ms for the 296
    notes of the personal vault, 8 ms for 2,448 notes with 160 kept links, 21 ms for 1,062
    notes with 1,416, 19 ms for 7,219 notes with 79; a tenth to a fifth of such a sync).

    :returns: the notes whose anchor text changed
    """
    from notesdb.links import anchor_text, incoming

    linking = conn.execute("SELECT path, anchors_out FROM notes WHERE anchors_out != '[]' ORDER BY path").fetchall()
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES ('anchor_link_bytes', ?)", (str(sum(len(raw) for _, raw in linking)),)
    )
    had = {path: (rowid, text) for rowid, path, text in conn.execute("SELECT id, path, anchors FROM notes WHERE anchors != ''")}
    if not linking and not had:
        return 0
    texts = incoming((p for (p,) in conn.execute("SELECT path FROM notes")), linking) if linking else {}
    changed = 0
    for path, shown in texts.items():
        rowid, title, have = conn.execute("SELECT id, title, anchors FROM notes WHERE path = ?", (path,)).fetchone()
        text = anchor_text(shown, title, path)
        if text != have:
            conn.execute("UPDATE notes SET anchors = ? WHERE id = ?", (text, rowid))
            changed += 1
    for path, (rowid, _) in had.items():
        if path not in texts:
            conn.execute("UPDATE notes SET anchors = '' WHERE id = ?", (rowid,))
            changed += 1
    return changed


def _write_one(run: _Run, batch: _Batch, item: _Prepared) -> None:
    """Write one prepared file (inside the caller's transaction)."""
    conn, stats = run.conn, run.stats
    rel, st, digest, note, words, row = item.rel, item.st, item.digest, item.note, item.words, item.row
    indexed = batch.current
    if rel in indexed and indexed[rel][3] == digest:
        conn.execute(
            "UPDATE notes SET size = ?, mtime_ns = ? WHERE id = ?",
            (st.st_size, st.st_mtime_ns, indexed[rel][0]),
        )
        return
    renamed_from = None
    if rel not in indexed and digest in batch.gone_by_hash:
        # the same bytes under a new path: the row (and rowid) is kept, its text read again
        renamed_from = batch.gone_by_hash.pop(digest)
        batch.gone.remove(renamed_from)
    if note is None:  # the rows changed since the file was read: parse it after all
        data = _read_note(run, rel)
        if data is None:
            return
        digest = _digest(data)
        note = _parse(run, rel, data)
        words = row = None
    if row is None:
        row = note_row(note, run.english)
    values = (
        rel, note.title, note.desc, note.headings, note.body, note.type,
        row[1], row[4],  # aliases, tags
        st.st_size, st.st_mtime_ns, digest, run.now,
        json.dumps(note.problems, ensure_ascii=False),
        *row[6:],  # extra words per column, searchable
        json.dumps(note.links, ensure_ascii=False),
        json.dumps(note.anchors, ensure_ascii=False),
    )  # fmt: skip
    if rel in indexed or renamed_from is not None:
        rowid = indexed[renamed_from if renamed_from is not None else rel][0]
        add_counts(batch.delta, row_words(_stored_row(conn, rowid)), -1)
        # the anchor text a note keeps leaves out its own title: a new title is worked out too
        if renamed_from is not None or conn.execute(
            "SELECT anchors_out, title FROM notes WHERE id = ?", (rowid,)
        ).fetchone() != (values[-1], note.title):
            run.links_moved = True
        conn.execute(
            """UPDATE notes SET path=?, title=?, desc=?, headings=?, body=?, type=?,
               aliases=?, tags=?, size=?, mtime_ns=?, hash=?, indexed_at=?, problems=?,
               title_extra=?, desc_extra=?, headings_extra=?, body_extra=?, searchable=?, links=?,
               anchors_out=? WHERE id = ?""",
            (*values, rowid),
        )
        if renamed_from is not None:
            stats.renamed.append((renamed_from, rel))
        else:
            stats.modified.append(rel)
    else:
        conn.execute(
            """INSERT INTO notes(path, title, desc, headings, body, type, aliases, tags,
               size, mtime_ns, hash, indexed_at, problems,
               title_extra, desc_extra, headings_extra, body_extra, searchable, links, anchors_out)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            values,
        )
        stats.added.append(rel)
        run.links_moved = True
    add_counts(batch.delta, words if words is not None else row_words(row), +1)


def rebuild_in_place(
    conn: sqlite3.Connection,
    notes: Path,
    *,
    skip: tuple[str, ...] = DEFAULT_SKIP,
    progress: Progress | None = None,
) -> SyncStats:
    """Empty the index (``notes``, ``notes_fts``, ``vocab``, the stored listing) and index the
    notes folder again, in the same file: the decisions log and the other settings stay.

    Used by ``notesdb index --rebuild`` on a database that can be read.

    :returns: what the sync did (every note is added)
    :raises NotesFolderMissing: ``notes`` is not a readable folder
    """
    if not Path(notes).is_dir():
        raise NotesFolderMissing(f"notes folder not found: {notes}")
    lock = _sync_lock(conn, wait=True)
    try:
        with transaction(conn):
            conn.execute("DELETE FROM notes")  # the triggers take the rows out of notes_fts
            conn.execute("INSERT INTO notes_fts(notes_fts) VALUES ('rebuild')")  # whatever was left
            conn.execute("DELETE FROM vocab")
            conn.execute("DELETE FROM meta WHERE key = 'listing_hash'")
    finally:
        _unlock(lock)
    return sync(conn, notes, skip=skip, progress=progress)


def rebuild_index(
    db_path: Path,
    notes: Path,
    *,
    skip: tuple[str, ...] = DEFAULT_SKIP,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    progress: Progress | None = None,
) -> tuple[sqlite3.Connection, SyncStats, Path | None]:
    """Move the database aside (when there is one) and index the notes into a new one.

    Used by ``index`` and ``doctor --repair`` on a database that cannot be read: the old file
    is renamed (:func:`notesdb.db.move_aside`), never deleted.

    :returns: (connection to the new database, what the sync did, where the old file went or None)
    :raises DatabaseUnavailable: the path does not look like a database, or cannot be created
    :raises NotesFolderMissing: ``notes`` is not a readable folder
    """
    moved = move_aside(db_path) if db_path.exists() else None
    conn = open_db(db_path, busy_timeout_ms=busy_timeout_ms)
    return conn, sync(conn, notes, skip=skip, progress=progress), moved

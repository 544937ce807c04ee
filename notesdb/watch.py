"""A resident process keeps its index in step with the notes folder, so that answering a
message needs no walk of the folder.

Before it judges a message the hook syncs the index with the folder (:mod:`notesdb.sync`);
when nothing changed that sync still stats every note, about 30-60 ms at 10,000 notes, most
of what the warm process (``notesdb mcp``, :mod:`notesdb.warm`) would spend per message.
Here the folder is watched with ``watchdog`` (inotify on Linux, FSEvents on macOS, kqueue on
the BSDs, ReadDirectoryChangesW on Windows) and a background thread syncs after each change
notice. :meth:`FolderWatch.current` tells the answer path whether the index is as the folder
is, and gives the result of that sync, which :func:`notesdb.hook.run` then uses instead of
syncing again. While a change is being synced, the answer waits for it (at most
``WAIT_S``). A note saved before a message is sent is therefore judged with that message: a
change notice reaches this process within milliseconds of the write on a local disk.

The watch is not trusted, and every answer syncs as before, when:

- ``watchdog`` is not installed (it comes with the ``mcp`` extra), or the watch cannot be set
  up (on Linux, more folders than ``fs.inotify.max_user_watches``);
- the folder holds a symbolic link outside hidden folders (the sync follows links; a watch
  does not see changes behind them), now or later;
- the notes folder itself was deleted, moved away or replaced, or the watching thread ended.

A full sync every ``RESYNC_S`` seconds also catches what a watch can miss (events dropped
when the kernel's event queue overflows; a folder on a network file system changed from
another machine).
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from notesdb.sync import SyncStats

__all__ = ["FolderWatch", "WAIT_S", "RESYNC_S"]

#: Seconds an answer waits for the background sync of a change before it syncs itself: the
#: hook's own sync budget (``notesdb.hook.SYNC_BUDGET_S``), so a message is never held longer
#: than the hook would hold it.
WAIT_S: Final = 0.5
#: Seconds between full syncs while no change notice arrives: a walk of 10,000 notes costs
#: 30-60 ms of one core, about 0.1% at this interval.
RESYNC_S: Final = 60.0
#: Seconds before a failed background sync is tried again (a locked or unmounted folder).
RETRY_S: Final = 1.0
#: Opens of the fence file per answer (:meth:`FolderWatch._fence`). Another program's open of
#: that file made before the message, still on its way through the watch, is counted as one of
#: ours; the fence holds unless this many such opens are in flight at once. One was not enough:
#: reading every note just before a change fooled it (``tests/test_watch.py``, a watch slowed
#: to 5 ms per event). Each open costs a few microseconds; their notices arrive together.
FENCE_OPENS: Final = 3
#: Event types that say nothing about a note's bytes or place (reading a note opens it).
_IGNORED: Final = frozenset({"opened", "closed_no_write"})


def _has_link(root: str) -> bool:
    """True when a symbolic link sits anywhere under ``root`` outside hidden folders and
    files (the ones :func:`notesdb.sync.walk_notes` skips)."""
    stack = [root]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_symlink():
                return True
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
            except OSError:
                continue
    return False


def _any_file(root: str) -> str | None:
    """A regular file under ``root`` outside hidden folders (a note first), or None."""
    stack = [root] if root else []
    while stack:
        try:
            entries = sorted(os.scandir(stack.pop()), key=lambda e: not e.name.lower().endswith(".md"))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_file(follow_symlinks=False):
                    return entry.path
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
            except OSError:
                continue
    return None


class FolderWatch:
    """Watch one notes folder and keep one database's index in step with it.

    :param notes: the notes folder
    :param db: the database file
    :param config: the config file as ``--config`` names it (None: ``NOTESDB_CONFIG`` or the
        default one); its ``[index] skip`` is used by every sync
    :param resync_s: seconds between full syncs while no change notice arrives

    ``start()`` returns at once; the watch, a first full sync and the later ones run in
    background threads. ``close()`` stops them.
    """

    def __init__(self, notes: str | os.PathLike[str], db: str | os.PathLike[str],
                 config: str | None = None, resync_s: float = RESYNC_S) -> None:
        self.notes = Path(os.path.abspath(notes))
        self.db = Path(os.path.abspath(db))
        self.config = config
        self.resync_s = resync_s
        #: Completed background syncs (a count, for diagnostics).
        self.syncs = 0
        #: The last paths (relative to the folder, ``.`` for itself) that counted as changes.
        self.noticed: deque[str] = deque(maxlen=100)
        self._cond = threading.Condition()
        self._changes = 0  # change notices so far
        self._synced: tuple[int, SyncStats, tuple[str, ...]] | None = None  # (changes, stats, skip)
        self._failed_at: int | None = None  # the change count at the last failed sync
        self._trusted = False
        self._stop = threading.Event()
        self._observer: Any = None
        self._thread: threading.Thread | None = None
        self._folder: tuple[str, int, int] | None = None  # real path, device, inode
        self._conn: Any = None  # the watch thread's own connection
        self._db_id: tuple[int, int, bool] | None = None  # _file_id of the database it opened
        self._fence_lock = threading.Lock()
        self._fence_file: str | None = None
        self._fenced = 0  # opens of the fence file seen through the watch
        self._ordered = False  # the watch reports opens, in order with changes (inotify)

    # --- the answer side ------------------------------------------------------------------

    def current(self, argv: list[str], wait_s: float = WAIT_S) -> SyncStats | None:
        """The result of the last sync when it still holds for the hook arguments ``argv``
        (``--notes``, ``--db``, ``--config`` as :mod:`notesdb.warm` sends them), else None
        (the caller syncs itself).

        Waits up to ``wait_s`` seconds while a change notice is being synced. None at once
        when the watch is not trusted, the arguments name another folder, database or skip
        list, or the last sync failed and nothing changed since.
        """
        notes, db, config = _paths(argv)
        if notes != self.notes or db != self.db or not self._trusted or not self._same_folder():
            return None
        if self._db_id is not None and _file_id(self.db) != self._db_id:
            self.changed()  # moved aside and made anew: the watch syncs the new file
            return None
        deadline = time.monotonic() + wait_s
        if not self._fence(wait_s):
            return None
        with self._cond:
            done = self._cond.wait_for(self._settled, timeout=max(0.0, deadline - time.monotonic()))
            if not done or not self._trusted or self._synced is None or self._synced[0] != self._changes:
                return None
            _, stats, skip = self._synced
        from notesdb.config import load_config

        try:
            if load_config(config).skip != skip:
                return None
        except Exception:  # the hook reports a bad config file itself
            return None
        return stats

    def _settled(self) -> bool:
        return (not self._trusted or self._stop.is_set() or self._failed_at == self._changes
                or (self._synced is not None and self._synced[0] == self._changes))

    def _same_folder(self) -> bool:
        """The notes path still leads to the folder being watched, and the watch runs."""
        if self._folder is None or self._observer is None:
            return False
        try:
            real = os.path.realpath(self.notes)
            st = os.stat(real)
        except OSError:
            return False
        if (real, st.st_dev, st.st_ino) != self._folder:
            return False
        return bool(self._observer.is_alive() and all(e.is_alive() for e in list(self._observer.emitters)))

    def _fence(self, wait_s: float) -> bool:
        """Wait until every change made before this call has been noticed.

        With inotify, events of one watch arrive in the order they happened: this process
        opens a note of the folder for reading (a read, never a write) ``FENCE_OPENS`` times
        and waits for that many opens of it to come through the watch. Opens by other programs
        look the same, so one open made before the call and still in flight could stand for
        ours; several cannot, unless that many are in flight. Elsewhere the notices are taken as they come (FSEvents and
        kqueue report no opens); a change then counts once its notice arrives, within
        milliseconds on a local disk.

        :returns: False when the open did not come through within ``wait_s`` seconds, or no
            file could be opened (the caller then syncs itself)
        """
        if not self._ordered:
            return True
        if not self._fence_lock.acquire(timeout=wait_s):
            return False
        try:
            for _ in range(2):
                path = self._fence_file or _any_file(self._folder[0] if self._folder else "")
                if path is None:
                    return False
                self._fence_file = path
                with self._cond:
                    before = self._fenced
                try:
                    for _ in range(FENCE_OPENS):  # open, close, open...: no two notices alike
                        os.close(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)))
                except OSError:  # gone: take another file
                    self._fence_file = None
                    continue
                with self._cond:
                    return self._cond.wait_for(
                        lambda: self._fenced >= before + FENCE_OPENS or not self._trusted,
                        timeout=wait_s) and self._trusted
            return False
        finally:
            self._fence_lock.release()

    # --- the watching side ------------------------------------------------------------------

    def start(self) -> None:
        """Begin watching and syncing in a daemon thread."""
        self._thread = threading.Thread(target=self._run, name="notesdb-watch", daemon=True)
        self._thread.start()

    def changed(self) -> None:
        """Record a change notice: answers wait for the next sync."""
        with self._cond:
            self._changes += 1
            self._cond.notify_all()

    def distrust(self) -> None:
        """Stop trusting the watch: every later answer syncs itself."""
        with self._cond:
            self._trusted = False
            self._cond.notify_all()

    def _watch(self) -> bool:
        try:
            from watchdog.events import FileSystemEventHandler
            from watchdog.observers import Observer
        except ImportError:
            return False
        real = os.path.realpath(self.notes)
        try:
            st = os.stat(real)
        except OSError:
            return False
        watch = self

        class Handler(FileSystemEventHandler):
            def dispatch(self, event: Any) -> None:
                watch._notice(real, event)

        observer = Observer()
        try:
            observer.schedule(Handler(), real, recursive=True)
            observer.start()
        except Exception:  # too many folders for the watch limit, a folder gone meanwhile
            try:
                observer.stop()
            except Exception:
                pass
            return False
        self._observer = observer
        self._folder = (real, st.st_dev, st.st_ino)
        self._ordered = type(observer).__name__.startswith("Inotify")
        if _has_link(real):  # checked after the watch is up: a link made meanwhile is noticed
            return False
        return True

    def _notice(self, root: str, event: Any) -> None:
        """One event from the watch -> a change notice, a loss of trust, or nothing."""
        kind = event.event_type
        if kind == "opened" and self._fence_file is not None and os.fsdecode(event.src_path) == self._fence_file:
            with self._cond:
                self._fenced += 1
                self._cond.notify_all()
            return
        if kind in _IGNORED:
            return
        relevant = False
        for path in (event.src_path, getattr(event, "dest_path", "")):
            if not path:
                continue
            path = os.fsdecode(path)
            if path == root:
                if kind in ("deleted", "moved"):
                    self.distrust()
                relevant = True
                self.noticed.append(".")
                continue
            rel = os.path.relpath(path, root)
            if rel.startswith("..") or any(part.startswith(".") for part in rel.split(os.sep)):
                continue  # hidden (.git, .obsidian), as the sync skips them
            relevant = True
            self.noticed.append(rel.replace(os.sep, "/"))
            if kind in ("created", "moved") and os.path.islink(path):
                self.distrust()
        if relevant:
            self.changed()

    def _sync(self) -> tuple[SyncStats, tuple[str, ...]]:
        """Sync on this thread's own connection, kept open for the life of the watch: while it
        is open, closing an answer's connection is not closing the database's last one, which
        would checkpoint the write-ahead log each time (about 12 ms per message at 10,000
        notes, measured). A database file replaced meanwhile (moved aside and rebuilt) is
        opened anew."""
        from notesdb.config import load_config
        from notesdb.db import open_db
        from notesdb.sync import sync

        conf = load_config(self.config)
        if self._conn is None or _file_id(self.db) != self._db_id:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            self._conn = open_db(self.db)
            self._db_id = _file_id(self.db)
        return sync(self._conn, self.notes, skip=conf.skip), conf.skip  # no deadline: all of it

    def _run(self) -> None:
        try:
            trusted = self._watch()
        except Exception:
            trusted = False
        with self._cond:
            self._trusted = trusted and not self._stop.is_set()
            self._cond.notify_all()
        if not self._trusted:
            self._stop_observer()
            return
        while not self._stop.is_set() and self._trusted:
            with self._cond:
                seen = self._changes
            try:
                stats, skip = self._sync()
                failed = stats.incomplete
            except Exception:
                failed = True
            with self._cond:
                if failed:
                    self._failed_at = seen
                else:
                    self._synced = (seen, stats, skip)
                    self._failed_at = None
                    self.syncs += 1
                self._cond.notify_all()
                self._cond.wait_for(lambda: self._changes != seen or self._stop.is_set(),
                                    timeout=RETRY_S if failed else self.resync_s)
        self._stop_observer()
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:
                pass
            self._conn = None

    def _stop_observer(self) -> None:
        if self._observer is not None:
            try:
                self._observer.stop()
            except Exception:
                pass

    def close(self) -> None:
        """Stop watching and syncing."""
        self._stop.set()
        with self._cond:
            self._trusted = False
            self._cond.notify_all()
        self._stop_observer()
        if self._thread is not None:
            self._thread.join(timeout=2.0)


def _file_id(path: Path) -> tuple[int, int, bool] | None:
    """(device, inode, emptied) of a file, or None when it is not there: a database replaced
    or emptied (size 0, which the hook makes anew) is another database."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size == 0


def _paths(argv: list[str]) -> tuple[Path | None, Path | None, str | None]:
    """``--notes``, ``--db`` (absolute) and ``--config`` from hook arguments."""
    opts: dict[str, str] = {}
    it = iter(argv)
    for arg in it:
        for name in ("notes", "db", "config"):
            if arg == "--" + name:
                opts[name] = next(it, "")
            elif arg.startswith("--" + name + "="):
                opts[name] = arg.split("=", 1)[1]
    notes, db = opts.get("notes"), opts.get("db")
    return (Path(os.path.abspath(notes)) if notes else None, Path(os.path.abspath(db)) if db else None,
            opts.get("config") or None)

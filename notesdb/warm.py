"""The warm path: a resident notesdb process answers the hook over a Unix socket.

A process that stays up for the assistant's session (``notesdb mcp``) has already paid for
Python's start, the imports and the English word list; ``notesdb hook --warm`` hands it the
hook event over a local socket and prints its answer. When nothing listens there (the
server crashed, is still starting, or was never started) or it does not answer in time, the
same process judges the message itself with :func:`notesdb.hook.run`. Both sides run
:func:`notesdb.hook.run` with the same arguments, so the judgement is the same either way.

Wire format (one request per connection, no JSON so that the hook loads neither ``json`` nor
``re``): the client sends ``<n>\\n``, then ``n`` bytes of hook arguments joined by NUL, then
the hook's stdin as it came, and shuts down its side; the server answers ``ok\\n`` followed
by exactly what the hook prints (UTF-8, empty for silence) and closes. Anything else (no
answer, a closed connection, a timeout) means "judge it yourself".

The socket lives beside the database (``<db>.sock``), or, when that path is too long for a
Unix socket, in a private folder of the temporary directory. Only the owner may connect (the
socket is 0600 and, on Linux, the peer's uid is checked).

This module is on the hook's path: the client side imports only ``os``, ``sys`` and the C
module ``_socket`` (``socket.py`` with ``selectors`` costs about 5 ms); the server side
imports what it needs when it starts.
"""

from __future__ import annotations

import _socket
import os
import sys
TYPE_CHECKING = False  # importing typing costs the hook about 5 ms (it imports re)
if TYPE_CHECKING:
    from typing import Any, Callable, Final

__all__ = ["socket_path", "ask", "parse_request", "hook_main", "client_main", "WarmListener", "CLIENT_TIMEOUT_S"]

#: Seconds the hook waits for the warm process (connect, judge, answer) before judging the
#: message itself. Above the hook's own sync budget plus its log wait (0.5 s + 1 s, see
#: ``notesdb.hook``) so a busy but healthy process is not doubled; far under Claude Code's
#: hook timeout (10 s as the plugin sets it).
CLIENT_TIMEOUT_S: Final = 2.0
#: Longest socket path used beside the database: ``sun_path`` holds 108 bytes on Linux and
#: 104 on macOS, terminating NUL included.
MAX_SOCKET_PATH: Final = 100
#: Largest answer the hook takes from the warm process: the line is at most 600 characters
#: (``gate.MAX_LINE_CHARS``), so its JSON is far under this.
MAX_ANSWER_BYTES: Final = 64 * 1024
#: Largest request the warm process reads: 16 MiB of event (a pasted message may be long;
#: the hook itself logs at most 100,000 characters of it).
MAX_REQUEST_BYTES: Final = 16 * 1024 * 1024


def socket_path(db_path: str | os.PathLike[str]) -> str:
    """Where the warm process for the database ``db_path`` listens.

    :param db_path: the database file (need not exist)
    :returns: ``<absolute db>.sock`` when that fits in a Unix socket address, else
        ``$TMPDIR/notesdb-<uid>/<16 hex of sha1(absolute db path)>.sock`` (``/tmp`` when
        ``TMPDIR`` is unset or too long)
    """
    db = os.path.abspath(os.path.expanduser(os.fspath(db_path)))
    beside = db + ".sock"
    if len(os.fsencode(beside)) <= MAX_SOCKET_PATH:
        return beside
    try:  # the built-in module: hashlib loads OpenSSL (about 15 ms)
        from _sha1 import sha1
    except ImportError:
        from hashlib import sha1
    digest = sha1(os.fsencode(db)).hexdigest()[:16]
    uid = os.getuid() if hasattr(os, "getuid") else 0
    tmp = os.environ.get("TMPDIR") or "/tmp"
    if len(os.fsencode(tmp)) > MAX_SOCKET_PATH - 40:
        tmp = "/tmp"
    return os.path.join(tmp, f"notesdb-{uid}", f"{digest}.sock")


def client_argv(argv: list[str]) -> tuple[list[str], str] | None:
    """The hook's arguments with the notes folder and database made absolute, so the warm
    process judges exactly what this process would; and the database path. None when no
    notes folder is given (judging here logs that problem).

    Options as ``notesdb hook`` reads them: ``--notes``, ``--db``, ``--config`` (also as
    ``--x=value``), ``--no-log``; else ``NOTESDB_NOTES``, ``NOTESDB_DB``, ``NOTESDB_CONFIG``.
    Without a database path the default one is computed by :func:`notesdb.config.resolve_db`.
    A config file that is neither named nor in the environment is the warm process's default
    one (the same user's).
    """
    opts: dict[str, str] = {}
    no_log = False
    it = iter(argv)
    for arg in it:
        if arg == "--no-log":
            no_log = True
            continue
        for name in ("notes", "db", "config"):
            if arg == "--" + name:
                opts[name] = next(it, "")
            elif arg.startswith("--" + name + "="):
                opts[name] = arg.split("=", 1)[1]
    env = os.environ
    notes = opts.get("notes") or env.get("NOTESDB_NOTES")
    if not notes:
        return None
    notes = os.path.abspath(os.path.expanduser(notes))
    db = opts.get("db") or env.get("NOTESDB_DB")
    if db:
        db = os.path.abspath(os.path.expanduser(db))
    else:
        from pathlib import Path

        from notesdb.config import resolve_db

        db = str(resolve_db(None, Path(notes)))
    out = ["--notes", notes, "--db", db]
    conf = opts.get("config") or env.get("NOTESDB_CONFIG")
    if conf:
        out += ["--config", os.path.abspath(os.path.expanduser(conf))]
    if no_log:
        out.append("--no-log")
    return out, db


def ask(path: str | os.PathLike[str], argv: list[str], raw: bytes, timeout: float = CLIENT_TIMEOUT_S) -> str | None:
    """Ask the warm process at ``path`` to judge one hook event.

    :param path: the socket (:func:`socket_path`)
    :param argv: explicit hook arguments (``--notes``, ``--db``, ``--config``, ``--no-log``)
    :param raw: the hook's stdin bytes
    :param timeout: seconds for the whole exchange
    :returns: what the hook prints (``""`` for silence, else one JSON object), or None when no
        warm process answered so (nothing listening, refused, timed out, closed early, an answer
        longer than ``MAX_ANSWER_BYTES`` or that is not what the hook prints)
    """
    import time

    deadline = time.monotonic() + timeout
    head = "\0".join(argv).encode("utf-8", "surrogateescape")
    chunks = []
    size = 0
    s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        s.settimeout(timeout)
        s.connect(os.fspath(path))
        if not _served_by_me(s):  # a socket someone else put there: never trust its answer
            return None
        s.sendall(b"%d\n" % len(head) + head + raw)
        s.shutdown(_socket.SHUT_WR)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:  # the whole exchange, not each read: a trickle of bytes is a timeout
                return None
            s.settimeout(left)
            chunk = s.recv(65536)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_ANSWER_BYTES + 3:
                return None
            chunks.append(chunk)
    except (OSError, ValueError):
        return None
    finally:
        s.close()
    data = b"".join(chunks)
    if not data.startswith(b"ok\n"):  # a process that died mid-answer sends nothing
        return None
    answer = data[3:].decode("utf-8", "replace")
    return answer if _hook_output(answer) else None


def _hook_output(answer: str) -> bool:
    """True for what ``notesdb hook`` prints: nothing, or one line of JSON, an object whose
    first key is ``hookSpecificOutput`` (``notesdb.hook``), with no control character (JSON
    escapes them). Checked by its shape, not parsed: the client imports no ``json``."""
    if not answer:
        return True
    return (
        answer.startswith('{"hookSpecificOutput": {')
        and answer.endswith("}}")
        and not any(c < " " or c == "\x7f" for c in answer)
    )


def _served_by_me(s: Any) -> bool:
    """True when the process at the other end of ``s`` runs as this user (Linux
    ``SO_PEERCRED``, read without ``struct``); elsewhere the private folders are the guard."""
    cred = getattr(_socket, "SO_PEERCRED", None)
    if cred is None or not hasattr(os, "getuid"):
        return True
    raw = s.getsockopt(_socket.SOL_SOCKET, cred, 12)  # struct ucred: pid, uid, gid
    return int.from_bytes(raw[4:8], sys.byteorder) == os.getuid()


def parse_request(data: bytes) -> tuple[list[str], bytes]:
    """The server side of :func:`ask`: request bytes -> (hook arguments, stdin bytes).

    :raises ValueError: the bytes are not a request
    """
    size, sep, rest = data.partition(b"\n")
    n = int(size)
    if not sep or n < 0 or n > len(rest):
        raise ValueError("not a notesdb warm request")
    head = rest[:n].decode("utf-8", "surrogateescape")
    return (head.split("\0") if head else []), rest[n:]


def hook_main(argv: list[str]) -> int:
    """``notesdb hook --warm``: ask the warm process, else judge here. Always returns 0.

    Prints exactly what ``notesdb hook`` would print for the same event.
    """
    from notesdb.entry import read_event

    argv = [a for a in argv if a != "--warm"]
    raw = read_event()
    out: str | None = None
    resolved = None
    try:
        resolved = client_argv(argv)
        if resolved is not None:
            out = ask(socket_path(resolved[1]), resolved[0], raw)
    except Exception:  # judging here logs the problem
        out = None
    try:
        from notesdb.entry import write_stdout

        if out is None:
            from notesdb.hook import run

            run(raw, argv, deliver=write_stdout)
        elif out:
            undelivered = write_stdout(out)
            if undelivered and resolved is not None:
                mark_undelivered(resolved[1], raw, out, undelivered)
    except BaseException:
        pass
    return 0


def mark_undelivered(db_path: str, raw: bytes, out: str, reason: str) -> None:
    """Record in the database that an answer the warm process judged and logged never reached
    the client (stdout closed, a full device): the newest spoken decision of the event's
    session with that line becomes silent, with why in its ``error``, as ``notesdb hook`` logs
    it (:func:`notesdb.hook.run`'s ``deliver``). Standard library only; never raises.

    :param raw: the event as read from stdin (for its ``session_id``)
    :param out: the answer that could not be written (one JSON object)
    """
    try:
        import json
        import sqlite3

        line = json.loads(out)["hookSpecificOutput"]["additionalContext"]
        event = json.loads(raw.decode("utf-8-sig", "replace"))
        from notesdb.hook import _session_id  # the standard library only, like this client

        session = _session_id(event.get("session_id") if isinstance(event, dict) else None)
        conn = sqlite3.connect(db_path, timeout=1.0)
        try:
            with conn:
                conn.execute(
                    "UPDATE decisions SET spoken = 0, error = ltrim(error || '; ' || ?, '; ') WHERE id = "
                    "(SELECT max(id) FROM decisions WHERE spoken = 1 AND line = ? AND session_id = ?)",
                    (f"answer not delivered ({reason})", line, session),
                )
        finally:
            conn.close()
    except Exception:
        pass


#: The smallest pipe buffer of the systems notesdb runs on (macOS starts at 16 KiB, Linux at
#: 64 KiB): an event up to this size is handed on through a pipe without a writer process.
PIPE_MIN_BYTES: Final = 16 * 1024


def client_main(argv: list[str]) -> None:
    """The hook as the Claude Code plugin runs it (``plugin/bin/notesdb hook --warm``): a
    client of the standard library alone, started as ``python -I -S`` (no site-packages, about
    a third of Python's usual start) with this project's folder first on ``sys.path``.

    :param argv: the command line after the program name (``hook --warm --notes ...``)

    Asks the warm process and prints its answer. When no warm process answers, or the
    command line is not a hook call, or the database is not named (its default path needs
    ``platformdirs``), it replaces itself with the full ``notesdb`` of its virtualenv (the
    ``notesdb`` script beside this Python), which judges the message from the same stdin, so
    the answer is always the one ``notesdb hook`` gives. Never returns.
    """
    from notesdb.entry import is_hook_call, read_event

    raw = b""
    out: str | None = None
    resolved = None
    hook_args = [a for a in argv[1:] if a != "--warm"]
    try:
        if is_hook_call(argv):
            raw = read_event()
            resolved = client_argv(hook_args)  # ImportError without a named database: no site-packages
            if resolved is not None:
                out = ask(socket_path(resolved[1]), resolved[0], raw)
    except BaseException:
        out = None
    if out is not None:
        try:
            view = memoryview((out + "\n").encode("utf-8") if out else b"")
            while view:
                view = view[os.write(1, view):]
        except OSError as e:
            if resolved is not None:
                mark_undelivered(resolved[1], raw, out, f"{type(e).__name__}: {e}"[:200])
        os._exit(0)
    _exec_full(argv if not is_hook_call(argv) else ["hook", *hook_args], raw, consumed=is_hook_call(argv))


def _exec_full(argv: list[str], raw: bytes, consumed: bool) -> None:
    """Replace this process with the virtualenv's ``notesdb ARGV``; ``raw`` (the stdin this
    process read, when ``consumed``) becomes its stdin again."""
    here = os.path.dirname(sys.executable)
    script = os.path.join(here, "notesdb")
    cmd = [script, *argv] if os.access(script, os.X_OK) else [sys.executable, "-m", "notesdb", *argv]
    try:
        if consumed:
            r, w = os.pipe()
            if len(raw) <= PIPE_MIN_BYTES:
                os.write(w, raw)
            elif os.fork() == 0:  # a writer that holds no output the client waits on
                try:
                    os.close(r)
                    os.close(1)
                    os.close(2)
                    view = memoryview(raw)
                    while view:
                        view = view[os.write(w, view):]
                finally:
                    os._exit(0)
            os.close(w)
            os.dup2(r, 0)
            os.close(r)
        os.execv(cmd[0], cmd)
    except BaseException:
        pass
    os._exit(0)  # nothing could run: silence, as the hook never fails a prompt


def _peer_is_owner(conn: Any) -> bool:
    """True when the connecting process runs as this user (Linux ``SO_PEERCRED``); elsewhere
    the socket's 0600 mode and private folder are the guard."""
    import socket
    import struct

    cred = getattr(socket, "SO_PEERCRED", None)
    if cred is None:
        return True
    try:
        _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, cred, struct.calcsize("3i")))
    except OSError:
        return False
    return bool(uid == os.getuid())


class WarmListener:
    """Serve hook requests on a Unix socket from background threads of a resident process.

    :param path: the socket path (:func:`socket_path` of the database)
    :param judge: ``(raw_event_bytes, argv) -> str``, normally :func:`notesdb.hook.run`
    :param retry_s: seconds between attempts to take the socket over while another live
        process holds it (several sessions, one database: the first one serves)

    ``start()`` returns at once; ``close()`` stops serving and removes the socket file if it is
    still ours. A stale socket file (its process gone) is replaced.
    """

    def __init__(self, path: str | os.PathLike[str], judge: Callable[[bytes, list[str]], str],
                 retry_s: float = 10.0) -> None:
        import threading
        from pathlib import Path

        self.path = Path(path)
        self.judge = judge
        self.retry_s = retry_s
        self.serving = threading.Event()
        self._stop = threading.Event()
        self._sock: Any = None
        self._ino: int | None = None
        self._thread: Any = None

    def start(self) -> None:
        """Begin serving in a daemon thread."""
        import threading

        self._thread = threading.Thread(target=self._run, name="notesdb-warm", daemon=True)
        self._thread.start()

    def _bind(self) -> bool:
        import socket

        p = self.path
        p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        st = p.parent.stat()
        if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022):
            return False  # a folder others own or may write to: someone could swap the socket
        if p.exists() or p.is_symlink():
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            probe.settimeout(0.5)
            try:
                probe.connect(os.fspath(p))
                return False  # another warm process answers there
            except OSError:
                try:
                    p.unlink()  # stale: its process is gone
                except OSError:
                    return False
            finally:
                probe.close()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            s.bind(os.fspath(p))
        except OSError:
            s.close()
            return False
        finally:
            os.umask(old)
        s.listen(16)
        s.settimeout(0.5)
        self._sock = s
        self._ino = p.stat().st_ino
        return True

    def _run(self) -> None:
        import threading

        while not self._stop.is_set():
            try:
                bound = self._bind()
            except OSError:
                bound = False
            if bound:
                break
            self._stop.wait(self.retry_s)
        if self._sock is None:
            return
        self.serving.set()
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: Any) -> None:
        with conn:
            try:
                conn.settimeout(CLIENT_TIMEOUT_S)
                if not _peer_is_owner(conn):
                    return
                chunks, size = [], 0
                while size <= MAX_REQUEST_BYTES:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
                if size > MAX_REQUEST_BYTES:
                    return
                argv, raw = parse_request(b"".join(chunks))
                out = self.judge(raw, argv)
                conn.sendall(b"ok\n" + out.encode("utf-8"))
            except Exception:
                return  # the client judges the message itself

    def close(self) -> None:
        """Stop serving; remove the socket file when it is still the one this process made."""
        self._stop.set()
        if self._sock is not None:
            try:  # shutdown wakes the accepting thread at once (close alone may not)
                self._sock.shutdown(2)  # SHUT_RDWR
            except OSError:
                pass
            try:
                self._sock.close()
            except OSError:
                pass
            try:
                if self.path.stat().st_ino == self._ino:
                    self.path.unlink()
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=0.6)  # at most one accept timeout

"""The ``notesdb`` console script: ``notesdb hook`` is dispatched before the CLI framework loads.

The hook runs before every message the person sends, so its process must not pay for typer
(about 60 ms). Only the hook's own argument forms take that path (:func:`is_hook_call`);
everything else, ``hook install``, ``hook --help`` or an unknown option included, goes to
:mod:`notesdb.cli`, which answers with help or a usage error.

An assistant runs its hook command with the event on stdin, not a terminal, and reads exit
code 2 as "block this prompt" (Claude Code, Gemini CLI). A notesdb started that way without a
command (an entry an older client cut short, such as Claude Code before 2.1.139 dropping the
exec form's ``args``) prints its usage on stderr and exits 1, which every client treats as a
failed hook that does not block; so does a ``hook`` command line with a usage error (an
unknown option in a hand-edited entry).
"""

from __future__ import annotations

import os
import sys

__all__ = ["main", "is_hook_call", "read_event", "write_stdout", "stdout_to_devnull"]

#: The longest a hook waits for its event on stdin: clients write it and close stdin at once,
#: and one that left stdin open would otherwise hold the person's prompt until the client's own
#: timeout (10 s in Claude Code) with nothing logged.
STDIN_WAIT_S = 2.0
#: Once what arrived is a whole JSON object, how long to wait for more before taking it as the event.
STDIN_IDLE_S = 0.2
#: The most of stdin a hook reads (bytes): a prompt is judged on its first and last 6,000
#: characters and logged up to 100,000; an event larger than this is not read to its end (logged
#: as too large, ``notesdb.hook.run``). Reading 2.8 GB of /dev/zero took 7 s and 2.8 GB.
MAX_STDIN_BYTES = 64 * 1024 * 1024

#: Options of ``notesdb hook`` that take a value, and the one flag.
HOOK_VALUE_OPTIONS = ("--notes", "--db", "--config")
HOOK_FLAGS = ("--no-log", "--warm")


def is_hook_call(argv: list[str]) -> bool:
    """True when ``argv`` (without the program name) is ``hook`` followed only by the hook's own
    options, in any order: ``--notes DIR``, ``--db PATH``, ``--config FILE`` (or ``--opt=value``),
    ``--no-log`` and ``--warm`` (ask the resident process first, :mod:`notesdb.warm`)."""
    if argv[:1] != ["hook"]:
        return False
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg in HOOK_FLAGS:
            i += 1
        elif arg in HOOK_VALUE_OPTIONS:
            if i + 1 >= len(argv):
                return False
            i += 2
        elif any(arg.startswith(name + "=") for name in HOOK_VALUE_OPTIONS):
            i += 1
        else:
            return False
    return True


def read_event() -> bytes:
    """The hook's stdin: everything up to its end, or what arrived within ``STDIN_WAIT_S``
    (seconds) when it is not closed, taken early once it is one whole JSON object
    (:func:`whole_object`) and nothing more comes for ``STDIN_IDLE_S``; at most
    ``MAX_STDIN_BYTES``. Never raises: b"" when stdin is missing or unreadable."""
    import time

    try:
        if sys.stdin is None:
            return b""
        fd = sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):
        return b""
    try:
        import select

        chunks: list[bytes] = []
        size = 0
        end = time.monotonic() + STDIN_WAIT_S
        unfinished = -1  # the size at which what arrived was found not to be a whole object
        while size < MAX_STDIN_BYTES:
            left = end - time.monotonic()
            if left <= 0:
                break
            wait = left
            idle = bool(chunks) and size != unfinished and chunks[-1].rstrip().endswith(b"}")
            if idle:
                wait = min(left, STDIN_IDLE_S)
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                if idle and wait < left and not whole_object(b"".join(chunks)):
                    unfinished = size  # a "}" inside the prompt: wait for the rest
                    continue
                break
            data = os.read(fd, min(1 << 16, MAX_STDIN_BYTES - size))
            if not data:
                break
            chunks.append(data)
            size += len(data)
        return b"".join(chunks)
    except (OSError, ValueError):  # not a file select takes: read it as it is
        try:
            return sys.stdin.buffer.read(MAX_STDIN_BYTES)
        except Exception:
            return b""


def whole_object(data: bytes) -> bool:
    """True when ``data`` holds a JSON object whose braces close (those inside strings, and
    escaped quotes, aside): the event has arrived whole. The standard library's ``json`` is not
    imported for this (the warm client does without it)."""
    depth = 0
    in_string = escaped = False
    for b in data:
        if in_string:
            if escaped:
                escaped = False
            elif b == 0x5C:  # backslash
                escaped = True
            elif b == 0x22:
                in_string = False
        elif b == 0x22:
            in_string = True
        elif b == 0x7B:
            depth += 1
        elif b == 0x7D:
            depth -= 1
            if depth == 0:
                return True
    return False


def write_stdout(out: str) -> str:
    """Write one answer line to stdout (UTF-8 whatever the locale says); ``""`` when it was
    written, else the reason, e.g. ``"BrokenPipeError: [Errno 32] Broken pipe"``."""
    try:
        sys.stdout.buffer.write((out + "\n").encode("utf-8"))
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError) as e:  # closed, full, or no stdout at all
        stdout_to_devnull()
        return f"{type(e).__name__}: {e}"[:200]
    return ""


def stdout_to_devnull() -> None:
    """Point file descriptor 1 at /dev/null after standard output failed (a full disk, a closed
    pipe): what is left in its buffer goes nowhere, so the interpreter's last flush at exit does
    not fail again and print a traceback. Never raises."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.close(fd)
    except OSError:
        pass


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):
        return False


def main() -> None:
    """Run ``notesdb`` with ``sys.argv``."""
    argv = sys.argv[1:]
    if is_hook_call(argv):
        if "--warm" in argv:  # ask the resident process first (notesdb.warm)
            from notesdb.warm import hook_main
        else:
            from notesdb.hook import main as hook_main

        code = hook_main(argv[1:])
        # The answer is written and the database closed: end here, without the interpreter's
        # teardown of every loaded module (5 to 8 ms of each message).
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    from notesdb.cli import run

    as_hook = not argv or argv[0] == "hook" or argv[0].startswith("-")
    if not as_hook or _stdin_is_terminal():
        run()
        return
    # no command, or a ``hook`` command line the hook does not take (an unknown option), with
    # stdin not a terminal, as an assistant runs its hook: a usage error (exit 2) becomes exit
    # 1 so that no assistant blocks a prompt on it, and bare ``notesdb`` prints its usage on
    # stderr, where an assistant does not take it for context
    if not argv:
        sys.stdout.flush()
        sys.stdout = sys.stderr
    try:
        run()
    except SystemExit as e:
        if e.code == 2:
            sys.exit(1)
        raise


if __name__ == "__main__":
    main()

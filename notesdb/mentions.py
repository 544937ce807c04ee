"""Notes the message attaches itself: a client's file mentions.

Claude Code and Gemini CLI read a file the prompt names with ``@`` into the model's context with
the message: ``@projects/voice-bay.md``, ``@"My Notes/voice bay.md"`` (a path with spaces, in
quotes), ``@~/notes/voice-bay.md``, ``@projects/voice-bay.md#L5-10`` (some of its lines). A
note the message attaches is in the assistant's context already, so naming it again is noise:
:func:`hold_back_mentioned` drops it from the line, as ``notesdb.conversation`` drops a note
named earlier in the conversation, and the log keeps it (``decisions.attached``), so that
the next messages of the conversation do not name it either. The mention is resolved as the
client resolves it: a relative path against the session's working folder (the hook event's
``cwd``), ``~`` against the home folder, symbolic links followed on both sides.

Standard library only: it runs on the hook path, and only for a message holding an ``@``.
"""

from __future__ import annotations

import os
import re
import sqlite3

from notesdb.gate import Decision, Route, format_line

TYPE_CHECKING = False  # not typing's: the hook does not import typing
if TYPE_CHECKING:
    from typing import Final

__all__ = ["MAX_MENTIONS", "mentions", "attached_notes", "hold_back_mentioned"]

#: Mentions read per message at most, in order: a paste full of ``@`` (a log of e-mail
#: addresses, decorators) is not a list of files to attach.
MAX_MENTIONS: Final = 32

#: ``@"path with spaces"`` or ``@path`` (backslash-escaped spaces allowed), at the start of the
#: message or after a space or an opening bracket, so that an e-mail address
#: (``me@example.org``) and a decorator inside code (``x.@y``) are not mentions.
_MENTION: Final = re.compile(r'(?:^|(?<=[\s(\[{]))@(?:"([^"\n]{1,1000})"|((?:\\ |[^\s"\\]){1,1000}))')
#: A line range after the path (``#L5``, ``#L5-10``), which names part of the same file.
_LINES: Final = re.compile(r"#L\d+(?:-\d+)?$")
#: Punctuation that ends a sentence rather than a path ("see @notes/a.md, then ...").
_TRAILING: Final = ".,;:!?)]}'"


def mentions(message: str) -> list[str]:
    """The paths a message names with ``@``, as typed: quotes, a line range (``#L5-10``),
    escaped spaces and sentence punctuation after the path taken off. At most
    :data:`MAX_MENTIONS`, in order.

    :param message: the prompt as the person typed it
    :returns: e.g. ``["projects/voice-bay.md", "My Notes/voice bay.md"]`` for
        ``'@projects/voice-bay.md, and @"My Notes/voice bay.md"'``; ``[]`` without an ``@``
    """
    if "@" not in message:
        return []
    out = []
    for m in _MENTION.finditer(message):
        path = m.group(1) if m.group(1) is not None else m.group(2).replace("\\ ", " ").rstrip(_TRAILING)
        path = _LINES.sub("", path)
        if path:
            out.append(path)
        if len(out) >= MAX_MENTIONS:
            break
    return out


def attached_notes(message: str, cwd: str | None, folder: str, conn: sqlite3.Connection) -> list[str]:
    """The indexed notes the message attaches with a mention (:func:`mentions`).

    :param message: the prompt
    :param cwd: the folder a relative mention is read from (the hook event's ``cwd``); None or
        empty: the process's working folder
    :param folder: the notes folder (absolute, or relative to the process's working folder)
    :param conn: the notes folder's database: a mention names a note only when the index holds
        the path it resolves to (a file of the folder that is no note, a folder, is not one)
    :returns: note paths relative to ``folder``, each once, in the message's order; ``[]`` when
        no mention names a note. A path that cannot be resolved (a NUL in it, a loop of links)
        names nothing.
    """
    found = mentions(message)
    if not found:
        return []
    try:
        root = os.path.realpath(folder)
    except (OSError, ValueError):
        return []
    base = cwd or os.getcwd()
    out: list[str] = []
    for path in found:
        try:
            full = os.path.realpath(os.path.join(base, os.path.expanduser(path)))
        except (OSError, ValueError):  # ValueError: a NUL in the path
            continue
        if not full.startswith(root + os.sep):
            continue
        rel = full[len(root) + 1 :].replace(os.sep, "/")
        if rel not in out and conn.execute("SELECT 1 FROM notes WHERE path = ?", (rel,)).fetchone():
            out.append(rel)
    return out


def hold_back_mentioned(decision: Decision, mentioned: list[str]) -> Decision:
    """Drop from a spoken ``decision`` the notes the message attaches itself (``mentioned``,
    from :func:`attached_notes`). Changes and returns ``decision``; its reasons say what was
    held back. When every note is dropped, it turns silent with route ``in-message``.
    """
    if not decision.spoken or not mentioned:
        return decision
    held = [p for p in decision.notes if p in mentioned]
    if not held:
        return decision
    for path in held:
        decision.reasons.append(f"held back {path}: the message attaches it (an @-mention): it is in the assistant's context already")
    keep = [p for p in decision.notes if p not in mentioned]
    if not keep:
        decision.spoken = False
        decision.notes = []
        decision.line = ""
        decision.route = Route.MENTIONED
        return decision
    parts = {p: (t, p, d) for t, p, d in decision.parts}
    decision.notes = keep
    decision.parts = [parts[p] for p in keep]
    decision.line = format_line(decision.parts, folder=decision.folder)
    return decision

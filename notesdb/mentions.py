"""Notes the message attaches itself: a client's file mentions.

Claude Code and Gemini CLI read a file the prompt names with ``@`` into the model's context with
the message. A note the message attaches is in the assistant's context already, so naming it
again is noise: :func:`hold_back_mentioned` drops it from the line, as ``notesdb.conversation``
drops a note named earlier in the conversation, and the log keeps it (``decisions.attached``),
so that the next messages of the conversation do not name it either. Each client is read as it
attaches, checked with Claude Code 2.1.332 and Gemini CLI 0.61.0:

- Claude Code (:func:`mentions`): ``@projects/voice-bay.md``, ``@"My Notes/voice bay.md"`` (a
  path with spaces in quotes), ``@~/notes/voice-bay.md``; the path ends at a ``#``
  (``@voice-bay.md#L5-10``, ``@voice-bay.md#wiring``) and before trailing punctuation
  (``@voice-bay.md**``, ``@voice-bay.md,``); ``@`` after a letter or digit is an address, not a
  mention; a backslash-escaped space is not read (``@varroa\\ log.md`` attaches nothing);
- Gemini CLI (:func:`referenced`): it appends the files it attached to the prompt the hook
  receives, under ``--- Content from referenced files ---`` with a ``Content from @PATH:`` line
  for each; those paths are what it attached, and the appended text is not the person's
  message (:func:`typed_part`, which ``notesdb.decide`` judges in its place);
- Codex CLI (0.171.0, checked with ``codex exec``) attaches no file for an ``@``: nothing is held
  back for it (its events carry a ``turn_id``, which Claude Code's do not).

A path is resolved as the client resolves it: relative to the session's working folder (the
hook event's ``cwd``), ``~`` against the home folder, symbolic links followed.

Standard library only: it runs on the hook path, and only for a message holding an ``@``.
"""

from __future__ import annotations

import os
import re
import sqlite3

from notesdb.gate import Decision, Route, keep_notes

TYPE_CHECKING = False  # not typing's: the hook does not import typing
if TYPE_CHECKING:
    from typing import Final

__all__ = ["MAX_MENTIONS", "REFERENCED", "mentions", "referenced", "typed_part", "attached_notes", "hold_back_mentioned", "hold_back_attached"]

#: Mentions read per message at most, in order: Claude Code 2.1.332 attaches the files of the
#: first 100 ``@``-mentions of a message, not the 101st (measured).
MAX_MENTIONS: Final = 100

#: ``@"path"`` or ``@path`` not after a letter, digit or ``_`` (``me@example.org`` is no mention).
_MENTION: Final = re.compile(r'(?<!\w)@(?:"([^"\n]{0,1000})"|([^\s"]{1,1000}))')
#: The end of a mentioned path: its last letter, digit or ``_`` (``notes.md**`` is ``notes.md``).
_PATH_END: Final = re.compile(r".*\w", re.DOTALL)

#: How Gemini CLI opens the files it attached, appended to the prompt, and how it heads each one.
REFERENCED: Final = "\n--- Content from referenced files ---"
_REFERENCED_FILE: Final = re.compile(r"^Content from @(.+):$", re.MULTILINE)


def mentions(message: str) -> list[str]:
    """The paths of a message's ``@``-mentions as Claude Code reads them (module docstring):
    at most :data:`MAX_MENTIONS`, in order, as typed.

    :param message: the prompt as the person typed it
    :returns: e.g. ``["projects/voice-bay.md", "My Notes/voice bay.md"]`` for
        ``'@projects/voice-bay.md, and @"My Notes/voice bay.md"'``; ``[]`` without an ``@``
    """
    if "@" not in message:
        return []
    out = []
    for m in _MENTION.finditer(message):
        path = m.group(1) if m.group(1) is not None else m.group(2)
        path = path.split("#", 1)[0]
        if m.group(1) is None:
            end = _PATH_END.match(path)
            path = end.group(0) if end else ""
        if path.strip():
            out.append(path)
        if len(out) >= MAX_MENTIONS:
            break
    return out


def referenced(prompt: str) -> list[str]:
    """The files Gemini CLI attached to ``prompt``: the paths of the ``Content from @PATH:``
    lines after :data:`REFERENCED`, in order; ``[]`` when it attached none."""
    at = prompt.find(REFERENCED)
    return [] if at < 0 else _REFERENCED_FILE.findall(prompt, at)


def typed_part(prompt: str) -> str:
    """The prompt without the files Gemini CLI appended to it (:data:`REFERENCED` and what
    follows): what the person typed. A prompt without them is returned as it is."""
    at = prompt.find(REFERENCED)
    return prompt if at < 0 else prompt[:at]


def attached_notes(paths: list[str], cwd: str | None, folder: str, conn: sqlite3.Connection) -> list[str]:
    """The indexed notes that ``paths`` (from :func:`mentions` or :func:`referenced`) name.

    :param paths: paths as the message holds them: absolute, ``~/...``, or relative to ``cwd``
    :param cwd: the folder a relative path is read from (the hook event's ``cwd``); None or
        empty: the process's working folder
    :param folder: the notes folder (absolute, or relative to the process's working folder)
    :param conn: the notes folder's database: a path names a note only when the index holds
        it (a file of the folder that is no note, a folder, is not one). A note reached through
        a link inside the folder (a linked subfolder) counts: the path is matched as written
        and with its links followed.
    :returns: note paths relative to ``folder``, each once, in order; ``[]`` when none is
        named. A path that cannot be resolved (a NUL in it, a loop of links) names nothing.
    """
    if not paths:
        return []
    try:
        roots = list(dict.fromkeys((os.path.abspath(folder), os.path.realpath(folder))))
    except (OSError, ValueError):
        return []
    base = cwd or os.getcwd()
    out: list[str] = []
    for path in paths:
        try:
            full = os.path.join(base, os.path.expanduser(path))
            real = os.path.realpath(full)
            forms = (os.path.normpath(full), real)
        except (OSError, ValueError):  # ValueError: a NUL in the path
            continue
        for form in forms:
            rel = next((form[len(r) + 1 :] for r in roots if form.startswith(r + os.sep)), None)
            if rel is None:
                continue
            rel = rel.replace(os.sep, "/")
            if rel in out or not conn.execute("SELECT 1 FROM notes WHERE path = ?", (rel,)).fetchone():
                continue
            try:
                same = os.path.realpath(os.path.join(folder, rel)) == real
            except (OSError, ValueError):
                same = False
            if same:
                out.append(rel)
                break
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
    return keep_notes(decision, [p for p in decision.notes if p not in mentioned], Route.MENTIONED)


def hold_back_attached(
    decision: Decision, message: str, gemini: bool, cwd: str | None, folder: str, conn: sqlite3.Connection
) -> Decision:
    """Read the notes ``message`` attaches (:func:`referenced` for Gemini CLI's prompt,
    :func:`mentions` for Claude Code's) into ``decision.attached`` and hold them back
    (:func:`hold_back_mentioned`); the hook and ``notesdb check`` both judge a message so.
    Changes and returns ``decision``."""
    paths = referenced(message) if gemini else mentions(message)
    decision.attached = attached_notes(paths, cwd, folder, conn)
    return hold_back_mentioned(decision, decision.attached)

"""The one judgement: a message -> a :class:`~notesdb.gate.Decision`.

The hook, ``notesdb check``, ``eval``, ``replay`` and ``tune`` all call :func:`decide`; there is
no second copy of the judgement anywhere.
"""

from __future__ import annotations

import os
import sqlite3
import time

from notesdb.gate import Decision, Route, Settings, judge
from notesdb.mentions import typed_part
from notesdb.general import general_request
from notesdb.query import build_query
from notesdb.rank import Ranking, rank
from notesdb.db import searchable_count

TYPE_CHECKING = False  # not typing's: the hook does not import typing (about 3 ms of every message)
if TYPE_CHECKING:
    from typing import Callable, Final

__all__ = ["decide", "decide_with_ranking", "is_slash_command", "client_text", "second_opinion"]

#: A second opinion on every decision of this process: ``(conn, message, decision, settings,
#: folder) -> decision``. Set by a process that loaded the embedding model
#: (``notesdb.meaning.install``: the resident ``notesdb mcp``, ``check``/``eval`` with meaning
#: enabled); None, the lexical judgement alone, everywhere else and always in the command hook.
second_opinion: "Callable[[sqlite3.Connection, str, Decision, Settings, str | None], Decision] | None" = None


#: Built-in Claude Code commands (https://docs.claude.com/en/docs/claude-code/slash-commands):
#: always commands, even where a file of that name sits at the root (``/init`` on WSL).
BUILT_IN_COMMANDS: Final = frozenset(
    "add-dir agents bashes bug clear compact config context cost doctor exit export help hooks "
    "ide init install-github-app login logout mcp memory model output-style permissions "
    "plugin pr_comments pr-comments privacy-settings release-notes resume review rewind "
    "security-review status statusline terminal-setup todos upgrade usage vim".split()
)


def is_slash_command(message: str) -> bool:
    """True for a Claude Code command such as ``/clear``, ``/model opus``, ``/project:deploy``
    or ``/mcp__github__list_prs``: a first word of ``/`` and a name of letters, digits, ``-``,
    ``_`` and ``:`` (Claude Code's command and namespace names).

    A path is a message, not a command, and is judged: a first word with a second ``/`` or a
    dot (``/var/log/syslog``, ``/tmp/x.log``), or naming an entry at the root of the file system
    (``/etc is full``), unless it is a built-in command (:data:`BUILT_IN_COMMANDS`).
    """
    head = message.lstrip()[:64]
    if not head.startswith("/") or len(head) < 2:
        return False
    word = head[1:].split(None, 1)[0] if head[1:].strip() else ""
    if not word or not all(c.isalnum() or c in "-_:" for c in word):
        return False
    if word.lower() in BUILT_IN_COMMANDS:
        return True
    try:
        return not os.path.lexists("/" + word)
    except (OSError, ValueError):
        return True


#: Tags Claude Code opens a prompt with when it writes the prompt itself: a slash command or a
#: skill expanded into its file's text (``<command-message>``, ``<command-name>``,
#: ``<command-args>``: a hook receives "the entire body of SKILL.md", as a public bug report of
#: another hook found, github.com/DietrichGebert/ponytail/issues/584), a local command's output,
#: a background task's notice. The person typed none of it but the command.
COMMAND_TAGS: Final = ("command-message", "command-name", "command-args")
CLIENT_TAGS: Final = ("local-command-caveat", "local-command-stdout", "local-command-stderr", "task-notification",
                      "bash-input", "bash-stdout", "bash-stderr")


def client_text(message: str) -> str | None:
    """What a prompt the client wrote in the person's place is: ``"command"`` for a slash command
    or skill the client expanded (the prompt opens with one of :data:`COMMAND_TAGS`), ``"client"``
    for a local command's output or a background task's notice (:data:`CLIENT_TAGS`), None for a
    message as typed. Only the opening tag counts: a message that quotes such a tag later is
    judged as usual.

    :param message: the prompt as the hook received it
    """
    head = message.lstrip()[:32]
    if not head.startswith("<"):
        return None
    name = head[1:].split(">", 1)[0]
    if name in COMMAND_TAGS:
        return "command"
    if name in CLIENT_TAGS:
        return "client"
    return None


def decide_with_ranking(
    conn: sqlite3.Connection, message: str, settings: Settings, folder: str | None = None
) -> tuple[Decision, Ranking | None]:
    """Like :func:`decide`, also returning the ranking the gate saw (for ``tune``)."""
    t0 = time.perf_counter()
    written = client_text(message)
    if written == "command" or is_slash_command(message):
        why = "slash commands are not judged" + (" (this one as the client expanded it)" if written else "")
        d = Decision(spoken=False, route=Route.SLASH_COMMAND, reasons=[why])
        d.elapsed_ms = (time.perf_counter() - t0) * 1000
        return d, None
    if written:
        d = Decision(spoken=False, route=Route.NOT_TYPED, reasons=[
            "not judged: the client wrote this prompt (a local command's output or a background task's notice)"
        ])
        d.elapsed_ms = (time.perf_counter() - t0) * 1000
        return d, None
    message = typed_part(message)  # without the files Gemini CLI appended to it
    n = searchable_count(conn)
    query = build_query(conn, message, n, settings)
    ranking = rank(conn, query, settings=settings)
    ranking.general = general_request(message)
    d = judge(ranking, settings, folder)
    d.corrections = query.corrections
    d.expansions = query.expansions
    d.whole_names = query.whole_names
    if second_opinion is not None:
        d = second_opinion(conn, message, d, settings, folder)
    d.elapsed_ms = (time.perf_counter() - t0) * 1000
    return d, ranking


def decide(
    conn: sqlite3.Connection, message: str, settings: Settings | None = None, folder: str | None = None
) -> Decision:
    """Do the notes in ``conn`` cover anything in ``message``?

    Reads only; the caller syncs the index first if it wants fresh notes.

    :param conn: an open notesdb database (``db.open_db``)
    :param message: the text as the person typed it, any length or content; the files Gemini
        CLI appended to it are not judged (``notesdb.mentions.typed_part``)
    :param settings: thresholds and scoring weights; defaults when None
    :param folder: the notes folder's absolute path: the line then names each note by its
        absolute path (the assistant runs elsewhere); ``Decision.notes`` stay relative
    :returns: the decision; ``elapsed_ms`` is the wall time of this call in milliseconds
    """
    return decide_with_ranking(conn, message, settings or Settings(), folder)[0]

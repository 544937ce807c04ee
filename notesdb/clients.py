"""The assistant CLIs with a per-prompt command hook: where each keeps its hooks, the entry
notesdb writes there, and the answer each one reads.

============  =================  =====================================  ============
client        event              settings file (scope)                   timeout unit
============  =================  =====================================  ============
claude        UserPromptSubmit   ~/.claude/settings.json (user),         seconds
                                 .claude/settings.json (project),
                                 .claude/settings.local.json (local)
codex         UserPromptSubmit   $CODEX_HOME/hooks.json, default         seconds
                                 ~/.codex/hooks.json (user),
                                 .codex/hooks.json (project)
gemini        BeforeAgent        ~/.gemini/settings.json (user),         milliseconds
                                 .gemini/settings.json (project)
============  =================  =====================================  ============

Sources: Claude Code hooks reference (https://docs.claude.com/en/docs/claude-code/hooks and
https://docs.claude.com/en/docs/claude-code/settings for the three settings files); Codex CLI
0.171 (the ``user-prompt-submit.command.input``/``output`` JSON schemas in its binary: the
output allows no properties beyond ``continue``, ``decision``, ``reason``, ``stopReason``,
``suppressOutput``, ``systemMessage`` and ``hookSpecificOutput``); Gemini CLI 0.61
(``docs/hooks/reference.md`` in its package). Each was run against a local fake of its model
API to confirm the entry and the answer below.

The entry's ``command`` is one shell string with every part quoted (``shlex.join``): Claude Code
before 2.1.139, Codex and Gemini CLI have no exec form (``args``) and run ``command`` through a
shell; a shell string works on every version of all three, paths with spaces included.

This module imports only the standard library: the hook reads :func:`answer` from it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Mapping

from notesdb.hook import EVENTS, answer  # the answer lives with the hook, which runs on every message

__all__ = [
    "Client",
    "CLIENTS",
    "EVENTS",
    "get_client",
    "settings_path",
    "answer",
    "hook_argv",
    "is_notesdb_handler",
]


@dataclass(frozen=True)
class Client:
    """One assistant CLI's hook conventions."""

    name: str  # "claude", "codex" or "gemini"
    title: str  # as the product names itself
    event: str  # the hook event that runs before each prompt
    folder: str  # its per-user and per-project folder name (".claude")
    file: str  # its settings file name in that folder
    local_file: str | None  # a per-user file inside the project, when the client has one
    timeout_scale: int  # the entry's timeout = seconds x this (1 or 1000)
    named: bool  # the client shows a handler's "name"


CLIENTS: Final = {
    "claude": Client("claude", "Claude Code", "UserPromptSubmit", ".claude", "settings.json",
                     "settings.local.json", 1, False),
    "codex": Client("codex", "Codex CLI", "UserPromptSubmit", ".codex", "hooks.json", None, 1, False),
    "gemini": Client("gemini", "Gemini CLI", "BeforeAgent", ".gemini", "settings.json", None, 1000, True),
}  # fmt: skip
#: Hook events notesdb answers, and the event name its answer carries.
SCOPES: Final = ("user", "project", "local")


def get_client(name: str) -> Client:
    """The client called ``name``.

    :raises ValueError: not one of ``CLIENTS``
    """
    try:
        return CLIENTS[name]
    except KeyError:
        raise ValueError(f"--client must be one of {', '.join(CLIENTS)}, not {name!r}") from None


def _user_folder(client: Client) -> Path:
    if client.name == "codex" and os.environ.get("CODEX_HOME"):
        return Path(os.environ["CODEX_HOME"]).expanduser()
    return Path.home() / client.folder


def settings_path(client: Client, scope: str, cwd: Path | None = None) -> Path:
    """The settings file of ``client`` for ``scope`` (``user``, ``project`` or ``local``).

    ``project`` and ``local`` are relative to ``cwd`` (default: the current folder): each client
    reads its project file from the folder it was started in.

    :raises ValueError: an unknown scope, or ``local`` for a client without a per-user project file
    """
    base = cwd if cwd is not None else Path.cwd()
    if scope == "user":
        return _user_folder(client) / client.file
    if scope == "project":
        return base / client.folder / client.file
    if scope == "local":
        if client.local_file is None:
            raise ValueError(f"--scope local exists only for claude; {client.title} has user and project")
        return base / client.folder / client.local_file
    raise ValueError(f"--scope must be user, project or local, not {scope!r}")


def scopes(client: Client) -> tuple[str, ...]:
    """The scopes ``client`` has, in the order its settings are merged (broadest first)."""
    return SCOPES if client.local_file else SCOPES[:2]


def hook_argv(executable: str, notes: Path, db: Path, config: Path | None = None, warm: bool = False) -> list[str]:
    """The hook's command line: ``EXE hook [--warm] --notes NOTES --db DB [--config CONFIG]``
    (``--warm``: ask a running ``notesdb mcp`` first, ``notesdb.warm``)."""
    argv = [executable, "hook", *(["--warm"] if warm else []), "--notes", str(notes), "--db", str(db)]
    return argv + ["--config", str(config)] if config is not None else argv


def entry(client: Client, argv: list[str], timeout_s: int) -> dict[str, Any]:
    """The handler notesdb writes into ``client``'s settings: one shell-quoted command string.

    :param argv: from :func:`hook_argv`
    :param timeout_s: seconds the client waits for the hook
    """
    handler: dict[str, Any] = {"type": "command"}
    if client.named:
        handler["name"] = "notesdb"
    import shlex  # not on the hook's path

    handler["command"] = shlex.join(argv)
    handler["timeout"] = timeout_s * client.timeout_scale
    return handler


def handler_argv(handler: Any) -> list[str] | None:
    """The command line a settings handler runs (exec form or shell string), or None."""
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return None
    args = handler.get("args")
    if isinstance(args, list):
        argv = [handler["command"], *(str(a) for a in args)]
    else:
        words = shell_words(handler["command"])
        if words is None:
            return None
        argv = words
    if any("\x00" in a for a in argv):
        return None  # no program can be given a NUL: not a command that runs
    return argv


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def shell_words(command: str, environ: "Mapping[str, str] | None" = None) -> list[str] | None:
    """The words a POSIX shell makes of a simple command line, as a client runs a hook's command
    string with ``sh -c``: blanks split words outside quotes; ``'...'`` is literal; in
    ``"..."`` and outside quotes ``$NAME``, ``${NAME}`` and ``${NAME:-default}`` are expanded
    (an unset name to nothing) and a backslash escapes the next character (in ``"..."`` only
    ``$``, ``"``, ``\\`` and a backquote); an unquoted ``~`` starting a word (alone or before
    ``/``) is ``$HOME``. Nothing is run: no command substitution, globbing or word splitting of
    an expansion.

    :param environ: the environment to expand from (default ``os.environ``)
    :returns: the words, or None for an unterminated quote
    """
    env: Mapping[str, str] = os.environ if environ is None else environ
    words: list[str] = []
    word: list[str] = []
    started = False  # a word is under way (an empty "" counts)
    i, n = 0, len(command)

    def expand(at: int) -> tuple[str, int]:
        """The expansion of the ``$`` at ``at`` and the index after it."""
        if command.startswith("${", at):
            end = command.find("}", at)
            if end < 0:
                return "$", at + 1
            inner = command[at + 2 : end]
            name, sep, default = inner.partition(":-")
            value = env.get(name, "")
            if sep and not value:
                value = env.get("HOME", "~") + default[1:] if default == "~" or default.startswith("~/") else default
            return value, end + 1
        m = _NAME.match(command, at + 1)
        if not m:
            return "$", at + 1
        return env.get(m.group(), ""), m.end()

    while i < n:
        ch = command[i]
        if ch in " \t\n":
            if started:
                words.append("".join(word))
                word, started = [], False
            i += 1
        elif ch == "'":
            end = command.find("'", i + 1)
            if end < 0:
                return None
            word.append(command[i + 1 : end])
            started, i = True, end + 1
        elif ch == '"':
            i += 1
            while True:
                if i >= n:
                    return None
                c = command[i]
                if c == '"':
                    i += 1
                    break
                if c == "\\" and i + 1 < n and command[i + 1] in '$"\\`':
                    word.append(command[i + 1])
                    i += 2
                elif c == "$":
                    value, i = expand(i)
                    word.append(value)
                else:
                    word.append(c)
                    i += 1
            started = True
        elif ch == "\\":
            if i + 1 < n:
                word.append(command[i + 1])
            started, i = True, i + 2
        elif ch == "$":
            value, i = expand(i)
            word.append(value)
            started = True
        elif ch == "~" and not started and (i + 1 == n or command[i + 1] in "/ \t\n"):
            word.append(env.get("HOME", "~"))
            started, i = True, i + 1
        else:
            word.append(ch)
            started, i = True, i + 1
    if started:
        words.append("".join(word))
    return words


def is_notesdb_handler(handler: Any) -> bool:
    """True for a handler that runs ``notesdb hook`` (written by any version of notesdb)."""
    argv = handler_argv(handler)
    return argv is not None and len(argv) >= 2 and Path(argv[0]).name.startswith("notesdb") and argv[1] == "hook"

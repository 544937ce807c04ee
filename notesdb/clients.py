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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

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
        try:
            import shlex  # not on the hook's path

            # the client runs a command string through the shell, which expands ~ and $HOME
            argv = [os.path.expandvars(os.path.expanduser(a)) for a in shlex.split(handler["command"])]
        except ValueError:
            return None
    if any("\x00" in a for a in argv):
        return None  # no program can be given a NUL: not a command that runs
    return argv


def is_notesdb_handler(handler: Any) -> bool:
    """True for a handler that runs ``notesdb hook`` (written by any version of notesdb)."""
    argv = handler_argv(handler)
    return argv is not None and len(argv) >= 2 and Path(argv[0]).name.startswith("notesdb") and argv[1] == "hook"

"""Merging the notesdb hook into an assistant CLI's settings file (and taking it out again).

The entry (see :mod:`notesdb.clients`) runs the absolute path of the installed ``notesdb``
executable (a version-manager shim would add tens of ms to every message) as one shell-quoted
command string, with an explicit timeout. The entry is added and taken out by editing the
file's text where it goes (:mod:`notesdb.jsonc`): every other setting keeps its form and its
comments, the new lines follow the file's indentation and way of writing non-ASCII
characters, and ``uninstall`` after ``install`` gives back the file's bytes. A file that held
nothing but the notesdb hook is removed when the hook is taken out.

One notesdb hook per client: each client merges its settings files (Claude Code: user,
project and local), so a notesdb hook found in another of them is reported instead of adding
a second one that would give every prompt the line twice.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from notesdb import clients, jsonc
from notesdb.clients import Client
from notesdb.errors import NotesdbError

__all__ = ["Installed", "Found", "executable", "check_can_install", "install", "uninstall", "find_installed", "settings_path", "venv_warning"]


@dataclass
class Installed:
    """What ``install`` did."""

    path: Path  # the settings file
    entry: dict[str, Any]  # the handler in it
    changed: bool  # False when the same entry was already there
    advice: list[str] = field(default_factory=list)  # what the user should know or do
    #: the notesdb entries of that settings file the new one took the place of (each named by
    #: its notes folder, or by its command when it names none), in file order
    replaced: list[str] = field(default_factory=list)
    #: the databases those entries named (``--db``), in the same order ("" when one names none)
    replaced_dbs: list[str] = field(default_factory=list)


@dataclass
class Found:
    """A notesdb hook handler found in some client's settings file."""

    client: Client
    scope: str
    path: Path
    handler: dict[str, Any]
    argv: list[str]

    @property
    def executable(self) -> str:
        """The program the handler starts."""
        return self.argv[0]

    @property
    def program(self) -> Path | None:
        """The file :attr:`executable` runs: the path itself, or for a bare name (``notesdb``)
        the first match on ``PATH`` as the shell would find it (``shutil.which``, with this
        process's ``PATH``); None when there is no such executable file."""
        exe = self.executable
        if os.sep not in exe:
            found = shutil.which(exe)
            return Path(found) if found else None
        path = Path(exe)
        return path if path.is_file() and os.access(path, os.X_OK) else None

    def option(self, name: str) -> str | None:
        """The value of ``--notes`` or ``--db`` on the handler's command line, if given."""
        return _option(self.argv, name)

    @property
    def points_at(self) -> tuple[str | None, str | None, str | None]:
        """``(--notes, --db, --config)`` as the handler's command line gives them (None: not given):
        entries that differ here make commands run without ``--notes`` unable to choose a default."""
        return self.option("--notes"), self.option("--db"), self.option("--config")


def _option(argv: list[str], name: str) -> str | None:
    """The value of option ``name`` (``--notes``) in a handler's command line, if given."""
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def _described(handler: dict[str, Any]) -> str:
    """A notesdb handler as the person knows it: its notes folder, else its command."""
    return _option(clients.handler_argv(handler) or [], "--notes") or str(handler.get("command", ""))


def _client(name: str) -> Client:
    try:
        return clients.get_client(name)
    except ValueError as e:
        raise NotesdbError(str(e)) from None


def settings_path(scope: str, client: str = "claude", cwd: Path | None = None) -> Path:
    """The settings file of ``client`` for ``scope``.

    :raises NotesdbError: an unknown client or scope
    """
    try:
        return clients.settings_path(_client(client), scope, cwd)
    except ValueError as e:
        raise NotesdbError(str(e)) from None


def executable() -> str:
    """The absolute path of the ``notesdb`` executable running (or beside this interpreter).

    :raises NotesdbError: none can be found
    """
    exe = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if exe and exe.name.startswith("notesdb") and exe.exists():
        return str(exe.resolve())
    beside = Path(sys.executable).with_name("notesdb")
    if beside.exists():
        return str(beside)
    found = shutil.which("notesdb")
    if found:
        return str(Path(found).resolve())
    raise NotesdbError("cannot find the notesdb executable; install notesdb with pip first")


@dataclass
class _Form:
    """How a settings file was written, to write it back the same way."""

    indent: str | None = "  "  # None: all on one line
    ascii_only: bool = False  # non-ASCII written as \\u escapes
    newline: bool = True  # ends with a newline
    existed: bool = False


def _read(path: Path) -> str | None:
    """The settings file's text, or None when it does not exist or holds only spaces."""
    if not path.exists():
        return None
    try:
        with open(path, encoding="utf-8", newline="") as f:  # line endings as they are
            text = f.read()
    except (ValueError, OSError) as e:
        raise NotesdbError(f"{path} cannot be read ({e}); fix it by hand first") from None
    return text if text.strip() else None


def _load(path: Path) -> tuple[dict[str, Any], _Form]:
    text = _read(path)
    if text is None:
        return {}, _Form()
    try:
        data = jsonc.loads(text)  # comments allowed: Gemini CLI strips them, people write them
    except ValueError as e:
        raise NotesdbError(f"{path} is not valid JSON ({e}); fix it by hand first") from None
    if not isinstance(data, dict):
        raise NotesdbError(f"{path} does not hold a JSON object; fix it by hand first")
    form = _Form(existed=True, newline=text.endswith("\n") or not text.strip())
    body = text.strip()
    if body and "\n" not in body and len(body) > 2:
        form.indent = None
    else:
        m = re.search(r"^\{[ \t]*\r?\n([ \t]+)\S", body)
        form.indent = m.group(1) if m else "  "
    # non-ASCII written as escapes (json.dumps' default): a \u escape above U+007F, no raw non-ASCII
    form.ascii_only = text.isascii() and bool(re.search(r"\\u(?!00[0-7])[0-9a-fA-F]{4}", text))
    return data, form


def _dump(data: dict[str, Any], form: _Form) -> str:
    text = json.dumps(data, indent=form.indent, ensure_ascii=form.ascii_only)
    return text + ("\n" if form.newline else "")


def _save(path: Path, text: str) -> None:
    """Replace the file atomically, writing through a symlink and keeping its permissions."""
    target = path.resolve() if path.is_symlink() else path
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".notesdb-tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:  # the text's own line endings
        f.write(text)
    try:
        os.chmod(tmp, target.stat().st_mode & 0o7777)
    except FileNotFoundError:
        pass
    os.replace(tmp, target)


def _groups(data: dict[str, Any], client: Client, path: Path, create: bool) -> list[Any] | None:
    hooks = data.setdefault("hooks", {}) if create else data.get("hooks")
    if hooks is None:
        return None
    if not isinstance(hooks, dict):
        raise NotesdbError(f"{path}: 'hooks' is not an object; fix it by hand first")
    groups = hooks.setdefault(client.event, []) if create else hooks.get(client.event)
    if groups is None:
        return None
    if not isinstance(groups, list):
        raise NotesdbError(f"{path}: 'hooks.{client.event}' is not a list; fix it by hand first")
    return groups


def _ours_in(groups: list[Any] | None) -> list[dict[str, Any]]:
    return [
        h
        for g in groups or []
        if isinstance(g, dict) and isinstance(g.get("hooks"), list)
        for h in g["hooks"]
        if clients.is_notesdb_handler(h)
    ]


def _event_nodes(text: str, client: Client) -> tuple[jsonc.Node, jsonc.Node | None, jsonc.Node | None]:
    """The file's object, its ``hooks`` object and the client's event list (None if absent);
    the shapes were checked by :func:`_groups` on the same text."""
    root = jsonc.parse(text)
    hooks = jsonc.member(root, "hooks")
    groups = jsonc.member(hooks, client.event) if hooks is not None else None
    return root, hooks, groups


def _remove_ours(text: str, client: Client) -> tuple[str, int]:
    """``text`` without any notesdb handler in the client's event list: a group holding only
    notesdb handlers goes whole, and so do the event list and the ``hooks`` object when that
    leaves them empty. Only those spans of the text change.

    :returns: (new text, handlers removed)
    """
    removed = 0
    while True:
        root, hooks, groups = _event_nodes(text, client)
        if hooks is None or groups is None:
            return text, removed
        for gi, group in enumerate(groups.children):
            handlers = jsonc.member(group, "hooks") if group.kind == "object" else None
            if handlers is None or handlers.kind != "array":
                continue
            ours = [hi for hi, h in enumerate(handlers.value) if clients.is_notesdb_handler(h)]
            if not ours:
                continue
            removed += len(ours) if len(ours) == len(handlers.children) else 1
            event = hooks.keys.index(client.event)
            if len(ours) < len(handlers.children):
                text = jsonc.remove(text, handlers, ours[0])
            elif len(groups.children) > 1 or _holds_more(text, groups, gi):
                text = jsonc.remove(text, groups, gi)
            elif len(hooks.children) > 1 or _holds_more(text, hooks, event):
                text = jsonc.remove(text, hooks, event)
            else:
                text = jsonc.remove(text, root, root.keys.index("hooks"))
            break
        else:
            return text, removed


def _holds_more(text: str, node: jsonc.Node, i: int) -> bool:
    """True when the object or array ``node`` holds more than its child ``i`` and the commas
    around it: a comment the user wrote in it ("// my hooks"), which stays with the container."""
    start, end = node.span(i)
    rest = text[node.start + 1:start] + text[end:node.end - 1]
    return bool(rest.replace(",", "").strip())


def find_installed(cwd: Path | None = None) -> list[Found]:
    """Every notesdb hook handler in every client's settings files (project files: in ``cwd``).

    Files that cannot be read or parsed are skipped.
    """
    found: list[Found] = []
    for client in clients.CLIENTS.values():
        for scope in clients.scopes(client):
            path = clients.settings_path(client, scope, cwd)
            try:
                data, _ = _load(path)
                groups = _groups(data, client, path, create=False)
            except (NotesdbError, OSError):
                continue
            for h in _ours_in(groups):
                found.append(Found(client, scope, path, h, clients.handler_argv(h) or []))
    return found


def venv_warning(exe: str) -> str | None:
    """A ``warning:`` line when the executable ``exe`` lies in a virtualenv that is not a pipx
    or uv tool environment, or None.

    A virtualenv is the folder above ``bin/`` holding ``pyvenv.cfg``; pipx marks its own with
    ``pipx_metadata.json`` and ``uv tool`` with ``uv-receipt.toml``. Those stay put; any other
    virtualenv may be deleted or rebuilt, and the hook entry names the executable in it.
    """
    env = Path(exe).parent.parent
    if not (env / "pyvenv.cfg").is_file():
        return None
    if (env / "pipx_metadata.json").is_file() or (env / "uv-receipt.toml").is_file():
        return None
    return (
        f"warning: {exe} is in the virtualenv {env}: if it is deleted or rebuilt, every prompt "
        "shows a failed hook; a stable install is pipx install /path/to/notesdb (or uv tool install)"
    )


def _advice(client: Client, scope: str, path: Path) -> list[str]:
    out = []
    if scope == "project":
        out.append(
            f"warning: {path} is the project's shared settings file, usually committed: it now holds "
            "this machine's paths (notesdb, notes, database)"
            + (", which fail on anyone else's machine; --scope local writes the personal "
               f"{client.folder}/{client.local_file} instead" if client.local_file else
               ", which fail on anyone else's machine")
        )  # fmt: skip
    if scope in ("project", "local"):
        out.append(f"{client.title} reads it only when started in {path.parent.parent} (not in a subfolder)")
    if client.name == "codex":
        out.append(
            "Codex runs a new or changed hook only after you trust it: start `codex` once and choose "
            "'Trust all and continue' (or review the hook). Until then `codex exec` skips it without a word."
        )
    if client.name == "gemini":
        out.append("Gemini CLI runs hooks only in folders you trust (`gemini -p` stops in an untrusted one).")
    return out


def check_can_install(scope: str = "user", client: str = "claude", cwd: Path | None = None, notes: Path | None = None) -> Path:
    """What :func:`install` checks before it writes, without writing: run it before building
    an index for a hook that could not be added.

    :param notes: the notes folder the hook is for: the settings file must not lie in it
    :returns: the settings file the entry would go to
    :raises NotesdbError: bad client or scope, a settings file that is not a JSON object, a
        notesdb hook already registered in another settings file the client merges with this
        one, or a settings file inside the notes folder (a project or local scope run from the
        notes folder: notesdb never writes there)
    """
    c = _client(client)
    path = settings_path(scope, client, cwd)
    if notes is not None and scope != "user":  # the user's own file: notes kept in the home folder
        from notesdb.config import inside_folder

        if inside_folder(path, notes):
            raise NotesdbError(
                f"the {scope} settings file {path} is inside the notes folder {notes}, and notesdb never "
                f"writes there: use '--scope user', or run it from the project's folder outside the notes"
            )
    elif notes is not None:  # the user's file, under ~/.claude even when the notes are the home
        # folder (a hidden folder is never read as notes), unless a link leads it into the notes
        from notesdb.config import refuse_inside_notes

        refuse_inside_notes(path, notes, "the user settings file")
    for other in clients.scopes(c):
        if other == scope:
            continue
        other_path = clients.settings_path(c, other, cwd)
        try:
            data, _ = _load(other_path)
            theirs = _ours_in(_groups(data, c, other_path, create=False))
        except NotesdbError:
            continue
        if theirs:
            raise NotesdbError(
                f"a notesdb hook is already registered in {other_path}, which {c.title} merges with "
                f"{path}: every prompt would get the line twice; remove it first with "
                f"'notesdb hook uninstall --client {c.name} --scope {other}'"
            )
    data, _ = _load(path)
    _groups(data, c, path, create=False)
    return path


def install(
    notes: Path, db: Path, scope: str = "user", timeout: int = 10, *, client: str = "claude",
    cwd: Path | None = None, config: Path | None = None, warm: bool | None = None,
) -> Installed:  # fmt: skip
    """Add (or update) the notesdb hook in ``client``'s settings file for ``scope``.

    :param notes: the notes folder (absolute)
    :param db: the database (absolute)
    :param config: a config file for the hook (absolute), or None for its default
    :param timeout: seconds the client waits for the hook
    :param warm: write ``hook --warm`` (ask a running ``notesdb mcp`` first) or not; None keeps
        what the entry being replaced in that file had (off when there is none)
    :returns: what was done; ``changed`` is False when the same entry was already there, and
        ``replaced`` names the notesdb entries of that file the new one replaced
    :raises NotesdbError: bad client or scope, a settings file that is not a JSON object, or a
        notesdb hook already registered in another settings file the client merges with this one
    """
    c = _client(client)
    path = check_can_install(scope, client, cwd, notes)
    data, form = _load(path)
    exe = executable()
    groups = _groups(data, c, path, create=False)
    advice = _advice(c, scope, path)
    old = _ours_in(groups)
    if warm is None:  # a --warm added to the entry (by hand or by an earlier install) stays
        warm = any("--warm" in (clients.handler_argv(h) or [])[2:] for h in old)
    entry = clients.entry(c, clients.hook_argv(exe, notes, db, config, warm), timeout)
    if old == [entry]:
        return Installed(path, entry, False, advice)
    replaced = [_described(h) for h in old]
    replaced_dbs = [_option(clients.handler_argv(h) or [], "--db") or "" for h in old]
    text = _read(path)
    if text is None:  # a new file: notesdb's form
        _save(path, _dump({"hooks": {c.event: [{"hooks": [entry]}]}}, form))
        return Installed(path, entry, True, advice)
    text, _ = _remove_ours(text, c)
    root, hooks, event = _event_nodes(text, c)
    # a null "hooks" or event list reads as absent (``_groups`` refused any other non-object or
    # non-list): take the null out, then add the entry as to a file without it
    if hooks is not None and hooks.kind != "object":
        text = jsonc.remove(text, root, root.keys.index("hooks"))
        root, hooks, event = _event_nodes(text, c)
    if hooks is not None and event is not None and event.kind != "array":
        text = jsonc.remove(text, hooks, hooks.keys.index(c.event))
        root, hooks, event = _event_nodes(text, c)
    group = {"hooks": [entry]}
    value: Any
    if hooks is None:
        node, key, value = root, "hooks", {c.event: [group]}
    elif event is None:
        node, key, value = hooks, c.event, [group]
    else:
        node, key, value = event, None, group
    text = jsonc.append(text, node, value, key=key, indent=form.indent, ascii_only=form.ascii_only)
    _save(path, text)
    return Installed(path, entry, True, advice, replaced, replaced_dbs)


def uninstall(scope: str = "user", *, client: str = "claude", cwd: Path | None = None) -> tuple[Path, int]:
    """Remove every notesdb hook handler from ``client``'s settings file for ``scope``.

    Nothing else changes; a file left holding nothing (``{}``) is removed.

    :returns: (settings path, handlers removed)
    :raises NotesdbError: bad client or scope, or a settings file that is not a JSON object
    """
    c = _client(client)
    path = settings_path(scope, client, cwd)
    data, form = _load(path)
    groups = _groups(data, c, path, create=False)
    if not _ours_in(groups):
        return path, 0
    text = _read(path)
    assert text is not None
    text, removed = _remove_ours(text, c)
    if text.strip() == "{}" and not path.is_symlink():
        path.unlink()  # it held only the notesdb hook (as when install created it)
    else:
        _save(path, text)
    return path, removed

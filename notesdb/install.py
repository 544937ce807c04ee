"""Merging the notesdb hook into Claude Code's ``settings.json`` (and taking it out again).

The entry is a ``UserPromptSubmit`` command hook in exec form (``command`` plus ``args``, so
paths with spaces work), naming the absolute path of the installed ``notesdb`` executable (a
version-manager shim would add tens of ms to every message) and an explicit ``timeout``.
Every other setting is kept; installing twice leaves one entry.
See https://docs.claude.com/en/docs/claude-code/hooks.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from notesdb.errors import NotesdbError

__all__ = ["settings_path", "hook_entry", "install", "uninstall"]


def settings_path(scope: str) -> Path:
    """``~/.claude/settings.json`` for scope ``user``, ``./.claude/settings.json`` for ``project``.

    :raises NotesdbError: another scope
    """
    if scope == "user":
        return Path.home() / ".claude" / "settings.json"
    if scope == "project":
        return Path.cwd() / ".claude" / "settings.json"
    raise NotesdbError(f"--scope must be user or project, not {scope!r}")


def _executable() -> str:
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


def hook_entry(notes: Path, db: Path, timeout: int) -> dict[str, Any]:
    """The hook handler written into settings.json."""
    return {
        "type": "command",
        "command": _executable(),
        "args": ["hook", "--notes", str(notes), "--db", str(db)],
        "timeout": timeout,
    }


def _is_ours(handler: Any) -> bool:
    return (
        isinstance(handler, dict)
        and isinstance(handler.get("args"), list)
        and handler["args"][:1] == ["hook"]
        and Path(str(handler.get("command", ""))).name.startswith("notesdb")
    )


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (ValueError, OSError) as e:
        raise NotesdbError(f"{path} is not valid JSON ({e}); fix it by hand first") from None
    if not isinstance(data, dict):
        raise NotesdbError(f"{path} does not hold a JSON object; fix it by hand first")
    return data


def _save(path: Path, data: dict[str, Any]) -> None:
    """Replace the file atomically, writing through a symlink and keeping its permissions."""
    target = path.resolve() if path.is_symlink() else path
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".notesdb-tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    try:
        os.chmod(tmp, target.stat().st_mode & 0o7777)
    except FileNotFoundError:
        pass
    os.replace(tmp, target)


def install(notes: Path, db: Path, scope: str = "user", timeout: int = 10) -> tuple[Path, dict[str, Any]]:
    """Add (or update) the notesdb ``UserPromptSubmit`` hook in Claude Code's settings.

    :returns: (settings path, the handler written)
    :raises NotesdbError: bad scope, or a settings file that is not a JSON object
    """
    path = settings_path(scope)
    data = _load(path)
    entry = hook_entry(notes, db, timeout)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise NotesdbError(f"{path}: 'hooks' is not an object; fix it by hand first")
    groups = hooks.setdefault("UserPromptSubmit", [])
    if not isinstance(groups, list):
        raise NotesdbError(f"{path}: 'hooks.UserPromptSubmit' is not a list; fix it by hand first")
    for group in groups:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            group["hooks"] = [h for h in group["hooks"] if not _is_ours(h)]
    groups[:] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
    groups.append({"hooks": [entry]})
    _save(path, data)
    return path, entry


def uninstall(scope: str = "user") -> tuple[Path, int]:
    """Remove every notesdb hook handler from Claude Code's settings; nothing else changes.

    :returns: (settings path, handlers removed)
    """
    path = settings_path(scope)
    data = _load(path)
    groups = data.get("hooks", {}).get("UserPromptSubmit") if isinstance(data.get("hooks"), dict) else None
    removed = 0
    if isinstance(groups, list):
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                before = len(group["hooks"])
                group["hooks"] = [h for h in group["hooks"] if not _is_ours(h)]
                removed += before - len(group["hooks"])
        groups[:] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
        if not groups:
            del data["hooks"]["UserPromptSubmit"]
        if not data["hooks"]:
            del data["hooks"]
    if removed:
        _save(path, data)
    return path, removed

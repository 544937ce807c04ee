"""``notesdb hook install`` / ``uninstall``: merging the hook into Claude Code's settings.json."""

from __future__ import annotations

import copy
import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import COVERED_MESSAGE, COVERED_NOTE, NOTESDB_EXE
from typer.testing import CliRunner

from notesdb.cli import app


OTHER_HANDLER = {"type": "command", "command": "/usr/local/bin/audit-prompt", "timeout": 5}
EXISTING: dict[str, Any] = {
    "model": "opus",
    "permissions": {"allow": ["Bash(git status:*)"], "deny": ["Read(./.env)"]},
    "env": {"DISABLE_TELEMETRY": "1"},
    "hooks": {
        "UserPromptSubmit": [{"hooks": [OTHER_HANDLER]}],
        "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    """A small notes folder: the installer only needs one that exists."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "note.md").write_text("# A note\n")
    return folder


def notesdb(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``notesdb ARGS`` in this process (typer's runner), in ``cwd`` when given."""
    old = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        r = CliRunner().invoke(app, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)
    return subprocess.CompletedProcess(list(args), r.exit_code, r.stdout, r.stderr)


def notesdb_process(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed console script, as a person would."""
    return subprocess.run([str(NOTESDB_EXE), *args], capture_output=True, text=True, timeout=60)


def user_settings(home: Path) -> Path:
    return home / ".claude" / "settings.json"


def ours(settings: dict[str, Any]) -> list[dict[str, Any]]:
    """Every notesdb handler under UserPromptSubmit."""
    return [
        h
        for group in settings.get("hooks", {}).get("UserPromptSubmit", [])
        for h in group.get("hooks", [])
        if h.get("args", [])[:1] == ["hook"]
    ]


def check_entry(entry: dict[str, Any], notes: Path) -> None:
    assert entry["type"] == "command"
    command = Path(entry["command"])
    assert command.is_absolute() and command.exists() and os.access(command, os.X_OK)
    assert command.resolve() == NOTESDB_EXE.resolve()
    args = entry["args"]
    assert args[0] == "hook"
    assert args[args.index("--notes") + 1] == str(notes.resolve())
    assert Path(args[args.index("--db") + 1]).is_absolute()
    assert isinstance(entry["timeout"], int) and entry["timeout"] > 0


def test_install_writes_user_settings(notes: Path, isolated_home: Path) -> None:
    r = notesdb("hook", "install", "--notes", str(notes))
    assert r.returncode == 0, r.stderr
    path = user_settings(isolated_home)
    assert r.stdout.startswith(f"wrote to {path}:\n")
    settings = json.loads(path.read_text())
    assert list(settings) == ["hooks"]
    assert list(settings["hooks"]) == ["UserPromptSubmit"]
    [group] = settings["hooks"]["UserPromptSubmit"]
    [entry] = group["hooks"]
    check_entry(entry, notes)
    assert entry["timeout"] == 10
    # without --db the database goes to the user data directory (XDG_DATA_HOME here)
    db = Path(entry["args"][entry["args"].index("--db") + 1])
    assert db.is_relative_to(isolated_home / ".local" / "share" / "notesdb")
    # the index is built at install time, so the very first message is judged on every note
    assert r.stdout.endswith(f"indexed 1 note into {db}\n")
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT path FROM notes").fetchall() == [("note.md",)]
    conn.close()


def test_relative_notes_path_is_made_absolute(notes: Path, tmp_path: Path, isolated_home: Path) -> None:
    r = notesdb("hook", "install", "--notes", "notes", "--timeout", "3", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    [entry] = ours(json.loads(user_settings(isolated_home).read_text()))
    check_entry(entry, notes)
    assert entry["timeout"] == 3


def test_install_keeps_other_settings_and_hooks(notes: Path, isolated_home: Path) -> None:
    path = user_settings(isolated_home)
    path.parent.mkdir()
    path.write_text(json.dumps(EXISTING, indent=2))
    r = notesdb("hook", "install", "--notes", str(notes))
    assert r.returncode == 0, r.stderr
    settings = json.loads(path.read_text())
    [entry] = ours(settings)
    expected = copy.deepcopy(EXISTING)
    expected["hooks"]["UserPromptSubmit"].append({"hooks": [entry]})
    assert settings == expected


def test_install_twice_leaves_one_entry(notes: Path, isolated_home: Path) -> None:
    path = user_settings(isolated_home)
    path.parent.mkdir()
    path.write_text(json.dumps(EXISTING))
    assert notesdb("hook", "install", "--notes", str(notes)).returncode == 0
    first = path.read_bytes()
    assert notesdb("hook", "install", "--notes", str(notes)).returncode == 0
    assert path.read_bytes() == first
    # a second install with other options replaces the entry, still one
    assert notesdb("hook", "install", "--notes", str(notes), "--timeout", "4").returncode == 0
    settings = json.loads(path.read_text())
    [entry] = ours(settings)
    assert entry["timeout"] == 4
    assert OTHER_HANDLER in settings["hooks"]["UserPromptSubmit"][0]["hooks"]


def test_installed_command_runs_with_spaces_in_paths(
    tmp_path: Path, isolated_home: Path, indexed: tuple[Path, Path]
) -> None:
    vault, db = indexed
    spaced = tmp_path / "My Notes" / "personal vault"
    spaced.parent.mkdir()
    vault.rename(spaced)
    spaced_db = tmp_path / "app data" / "notes index.db"
    spaced_db.parent.mkdir()
    shutil.move(db, spaced_db)
    r = notesdb_process("hook", "install", "--notes", str(spaced), "--db", str(spaced_db))
    assert r.returncode == 0, r.stderr
    [entry] = ours(json.loads(user_settings(isolated_home).read_text()))
    check_entry(entry, spaced)
    assert entry["args"][entry["args"].index("--db") + 1] == str(spaced_db)
    # run it as Claude Code does in exec form: command and args, no shell
    event = {"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit",
             "transcript_path": "/tmp/t.jsonl", "permission_mode": "default",
             "prompt": COVERED_MESSAGE}  # fmt: skip
    out = subprocess.run(
        [entry["command"], *entry["args"]], input=json.dumps(event), capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0
    assert COVERED_NOTE in json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]


def test_project_scope_writes_under_cwd(notes: Path, tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    r = notesdb("hook", "install", "--notes", str(notes), "--scope", "project", cwd=project)
    assert r.returncode == 0, r.stderr
    [entry] = ours(json.loads((project / ".claude" / "settings.json").read_text()))
    check_entry(entry, notes)
    assert not user_settings(isolated_home).exists()
    r = notesdb("hook", "uninstall", "--scope", "project", cwd=project)
    assert r.returncode == 0, r.stderr
    assert json.loads((project / ".claude" / "settings.json").read_text()) == {}


def test_uninstall_removes_exactly_the_entry(notes: Path, isolated_home: Path) -> None:
    path = user_settings(isolated_home)
    path.parent.mkdir()
    path.write_text(json.dumps(EXISTING))
    assert notesdb("hook", "install", "--notes", str(notes)).returncode == 0
    r = notesdb("hook", "uninstall")
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"removed 1 notesdb hook entry from {path}\n"
    assert json.loads(path.read_text()) == EXISTING
    # again: nothing to remove, nothing written
    before = path.read_bytes()
    r = notesdb("hook", "uninstall")
    assert r.stdout == f"removed 0 notesdb hook entries from {path}\n"
    assert path.read_bytes() == before


def test_uninstall_drops_the_hooks_it_emptied(notes: Path, isolated_home: Path) -> None:
    path = user_settings(isolated_home)
    path.parent.mkdir()
    path.write_text(json.dumps({"model": "opus"}))
    assert notesdb("hook", "install", "--notes", str(notes)).returncode == 0
    assert notesdb("hook", "uninstall").returncode == 0
    assert json.loads(path.read_text()) == {"model": "opus"}


@pytest.mark.parametrize(
    "content, command",
    [
        ('{"model": "opus",', "install"),  # truncated JSON
        ('["a", "list"]', "install"),  # JSON, but not an object
        ('{"hooks": ["not", "an", "object"]}', "install"),  # hooks is not an object
        ('{"hooks": {"UserPromptSubmit": {"hooks": []}}}', "install"),  # the event is not a list
        ('{"model": "opus",', "uninstall"),  # truncated JSON, uninstalling
        ('["a", "list"]', "uninstall"),  # not an object, uninstalling
    ],
)
def test_invalid_settings_are_left_alone(notes: Path, isolated_home: Path, content: str, command: str) -> None:
    path = user_settings(isolated_home)
    path.parent.mkdir()
    path.write_text(content)
    args = ["hook", command] + (["--notes", str(notes)] if command == "install" else [])
    r = notesdb_process(*args)
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr.startswith("Error: ") and r.stderr.endswith("\n") and r.stderr.count("\n") == 1
    assert str(path) in r.stderr
    assert path.read_text() == content
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temporary file left


def test_install_needs_an_existing_notes_folder(tmp_path: Path, isolated_home: Path) -> None:
    r = notesdb("hook", "install", "--notes", str(tmp_path / "nowhere"))
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == f"Error: notes folder not found: {tmp_path / 'nowhere'}\n"
    assert not user_settings(isolated_home).exists()


def test_bad_scope_is_refused(notes: Path, isolated_home: Path) -> None:
    r = notesdb("hook", "install", "--notes", str(notes), "--scope", "global")
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == "Error: --scope must be user or project, not 'global'\n"


def test_install_writes_through_a_symlinked_settings_file(notes: Path, isolated_home: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "claude-settings.json"
    real.write_text('{"model": "opus"}\n')
    real.chmod(0o600)
    link = user_settings(isolated_home)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(real)
    r = notesdb("hook", "install", "--notes", str(notes))
    assert r.returncode == 0, r.stderr
    assert link.is_symlink()  # still a link, and the file behind it was updated
    data = json.loads(real.read_text())
    assert data["model"] == "opus" and "UserPromptSubmit" in data["hooks"]
    assert oct(real.stat().st_mode & 0o777) == "0o600"


def test_a_database_that_cannot_be_written_installs_nothing(notes: Path, isolated_home: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "regular-file"
    blocker.write_text("x")
    r = notesdb("hook", "install", "--notes", str(notes), "--db", str(blocker / "x.db"))
    assert r.returncode == 1
    assert r.stderr.startswith("Error: cannot open database") and r.stderr.count("\n") == 1
    assert not user_settings(isolated_home).exists()


def test_install_refuses_a_config_the_hook_could_not_read(notes: Path, isolated_home: Path) -> None:
    config = isolated_home / ".config" / "notesdb" / "notesdb.toml"  # the file the hook reads
    config.parent.mkdir(parents=True)
    config.write_text("[gate\nstrong_words = 2\n")
    r = notesdb_process("hook", "install", "--notes", str(notes), "--db", str(notes.parent / "n.db"))
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith(f"Error: config file {config} is not valid TOML") and r.stderr.count("\n") == 1
    assert not user_settings(isolated_home).exists()  # no hook that would stay silent on every message

"""``notesdb hook install`` / ``uninstall``: merging the hook into Claude Code's settings.json."""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
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
        if shlex.split(h.get("command", ""))[1:2] == ["hook"]
    ]


def argv(entry: dict[str, Any]) -> list[str]:
    """The command line a shell runs for the entry's one command string."""
    return shlex.split(entry["command"])


def check_entry(entry: dict[str, Any], notes: Path) -> None:
    assert entry["type"] == "command"
    assert "args" not in entry  # one shell string: Claude Code before 2.1.139 ignores "args"
    command, *args = argv(entry)
    assert Path(command).is_absolute() and Path(command).exists() and os.access(command, os.X_OK)
    assert Path(command).resolve() == NOTESDB_EXE.resolve()
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
    db = Path(argv(entry)[argv(entry).index("--db") + 1])
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
    assert argv(entry)[argv(entry).index("--db") + 1] == str(spaced_db)
    # run it as every client does: the one command string through a shell
    event = {"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit",
             "transcript_path": "/tmp/t.jsonl", "permission_mode": "default",
             "prompt": COVERED_MESSAGE}  # fmt: skip
    out = subprocess.run(
        ["/bin/sh", "-c", entry["command"]], input=json.dumps(event), capture_output=True, text=True, timeout=60
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
    # the file held only the hook notesdb wrote into it: it is gone, not left as "{}"
    assert not (project / ".claude" / "settings.json").exists()


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
    # no settings file at all: said so, and none is created
    path.unlink()
    r = notesdb("hook", "uninstall")
    assert (r.returncode, r.stdout) == (0, f"no settings file at {path}: no notesdb hook to remove\n")
    assert not path.exists()


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


@pytest.mark.parametrize(
    "content",
    [
        '{"hooks": null, "model": "x"}',
        '{"hooks": {"UserPromptSubmit": null}, "model": "x"}',
        '{\n  "model": "x",\n  "hooks": {\n    "UserPromptSubmit": null\n  }\n}\n',
        '{"hooks": null}',
    ],
)
def test_a_null_hooks_or_event_list_reads_as_absent(notes: Path, isolated_home: Path, content: str) -> None:
    """A settings file another tool wrote with ``null`` where the hooks go: the entry replaces
    the null and the file stays valid JSON (it was spliced into the word ``null`` before)."""
    path = user_settings(isolated_home)
    path.parent.mkdir()
    path.write_text(content)
    r = notesdb("hook", "install", "--notes", str(notes))
    assert r.returncode == 0, r.stderr
    data = json.loads(path.read_text())
    assert data.get("model") == ("x" if "model" in content else None)
    groups = data["hooks"]["UserPromptSubmit"]
    assert len(groups) == 1 and len(groups[0]["hooks"]) == 1
    assert shlex.split(groups[0]["hooks"][0]["command"])[1:3] == ["hook", "--notes"]
    assert notesdb("hook", "uninstall").returncode == 0
    if "model" in content:
        assert json.loads(path.read_text()) == {"model": "x"}
    else:  # it held only the notesdb hook: uninstall removes the file, as after a fresh install
        assert not path.exists()


def test_install_needs_an_existing_notes_folder(tmp_path: Path, isolated_home: Path) -> None:
    r = notesdb("hook", "install", "--notes", str(tmp_path / "nowhere"))
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == f"Error: notes folder not found: {tmp_path / 'nowhere'}\n"
    assert not user_settings(isolated_home).exists()


def test_bad_scope_is_refused(notes: Path, isolated_home: Path) -> None:
    r = notesdb("hook", "install", "--notes", str(notes), "--scope", "global")
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == "Error: --scope must be user, project or local, not 'global'\n"


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


def test_install_keeps_the_files_form(notes: Path, isolated_home: Path) -> None:
    """Indentation, non-ASCII characters and the missing final newline come back as written."""
    path = user_settings(isolated_home)
    path.parent.mkdir()
    before = {"env": {"GREETING": "grüß dich ✓"}, "model": "opus"}
    written = json.dumps(before, indent=4, ensure_ascii=False)  # 4 spaces, UTF-8, no newline
    path.write_text(written, encoding="utf-8")
    assert notesdb("hook", "install", "--notes", str(notes)).returncode == 0
    raw = path.read_text(encoding="utf-8")
    assert "grüß dich ✓" in raw and "\\u00fc" not in raw
    assert raw.startswith('{\n    "env": {\n        "GREETING"') and not raw.endswith("\n")
    assert notesdb("hook", "uninstall").returncode == 0
    assert path.read_text(encoding="utf-8") == written


def test_install_keeps_escapes_and_tabs_where_the_file_had_them(notes: Path, isolated_home: Path) -> None:
    path = user_settings(isolated_home)
    path.parent.mkdir()
    written = json.dumps({"env": {"G": "grüß"}}, indent="\t") + "\n"  # \u00fc escapes, tabs
    path.write_text(written)
    assert notesdb("hook", "install", "--notes", str(notes)).returncode == 0
    assert "\\u00fc" in path.read_text() and '\n\t"hooks"' in path.read_text()
    assert notesdb("hook", "uninstall").returncode == 0
    assert path.read_text() == written


def test_a_file_install_created_is_removed_by_uninstall(notes: Path, isolated_home: Path) -> None:
    path = user_settings(isolated_home)
    assert notesdb("hook", "install", "--notes", str(notes)).returncode == 0
    assert path.exists()
    r = notesdb("hook", "uninstall")
    assert r.stdout == f"removed 1 notesdb hook entry from {path}\n"
    assert not path.exists()
    # a file the person wrote, even one left empty by the removal, is written back, not removed
    path.write_text("{}\n")
    assert notesdb("hook", "install", "--notes", str(notes)).returncode == 0
    assert notesdb("hook", "uninstall").returncode == 0
    assert not path.exists()  # it held nothing but the hook: the same as no file for Claude Code


def test_install_for_another_folder_says_which_entry_it_replaced(notes: Path, tmp_path: Path, isolated_home: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.md").write_text("# A\n")
    (other / "b.md").write_text("# B\n")
    assert notesdb("hook", "install", "--notes", str(notes)).returncode == 0
    [first] = ours(json.loads(user_settings(isolated_home).read_text()))
    old_db = argv(first)[argv(first).index("--db") + 1]
    r = notesdb("hook", "install", "--notes", str(other))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    [entry] = ours(json.loads(user_settings(isolated_home).read_text()))
    db = argv(entry)[argv(entry).index("--db") + 1]
    # the first folder's database (its logged decisions) is kept, and said so
    assert lines[-3:] == [
        f"replaced the entry for {notes.resolve()}",
        f"the database that entry used is kept: {old_db} (0 decisions logged, read them with "
        f"'notesdb log --db {old_db}'; delete the file when you no longer need them)",
        f"indexed 2 notes into {db}",
    ]
    assert Path(old_db).is_file() and old_db != db
    check_entry(entry, other)


def test_install_says_when_the_index_was_already_up_to_date(notes: Path, tmp_path: Path, isolated_home: Path) -> None:
    db = tmp_path / "notes.db"
    assert notesdb("index", "--notes", str(notes), "--db", str(db)).returncode == 0
    r = notesdb("hook", "install", "--notes", str(notes), "--db", str(db))
    assert r.returncode == 0, r.stderr
    assert r.stdout.endswith(f"\nindex up to date (1 note in {db})\n")
    assert "replaced" not in r.stdout  # no entry was there before
    # a note added since: the index is brought up to date, and says how
    (notes / "new.md").write_text("# New\n")
    r = notesdb("hook", "install", "--notes", str(notes), "--db", str(db), "--timeout", "5")
    assert r.stdout.splitlines()[-2:] == [
        f"replaced the entry for {notes.resolve()}",
        f"index updated (1 added, 0 changed, 0 renamed, 0 removed; 2 notes in {db})",
    ]


def test_second_identical_install_is_unchanged(notes: Path, isolated_home: Path) -> None:
    assert notesdb("hook", "install", "--notes", str(notes)).returncode == 0
    path = user_settings(isolated_home)
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    r = notesdb("hook", "install", "--notes", str(notes))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"already installed in {path}, unchanged\nindex up to date (1 note in ")
    assert "wrote" not in r.stdout
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    # a note edited since: the entry is unchanged, and the index update is said
    note = next(notes.rglob("*.md"))
    note.write_text(note.read_text() + "\nOne more line.\n")
    r = notesdb("hook", "install", "--notes", str(notes))
    assert r.stdout.startswith(f"already installed in {path}, unchanged\nindex updated (0 added, 1 changed, 0 renamed, "
                               "0 removed; 1 note in ")  # fmt: skip
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_local_scope_writes_the_personal_project_file(notes: Path, tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    r = notesdb("hook", "install", "--notes", str(notes), "--scope", "local", cwd=project)
    assert r.returncode == 0, r.stderr
    [entry] = ours(json.loads((project / ".claude" / "settings.local.json").read_text()))
    check_entry(entry, notes)
    assert not (project / ".claude" / "settings.json").exists()
    assert "warning" not in r.stdout
    assert notesdb("hook", "uninstall", "--scope", "local", cwd=project).returncode == 0
    assert not (project / ".claude" / "settings.local.json").exists()


def test_project_scope_warns_that_the_file_is_shared(notes: Path, tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    r = notesdb("hook", "install", "--notes", str(notes), "--scope", "project", cwd=project)
    assert r.returncode == 0, r.stderr
    warning = [ln for ln in r.stdout.splitlines() if ln.startswith("warning: ")]
    assert warning == [
        f"warning: {project / '.claude' / 'settings.json'} is the project's shared settings file, usually "
        "committed: it now holds this machine's paths (notesdb, notes, database), which fail on anyone "
        "else's machine; --scope local writes the personal .claude/settings.local.json instead"
    ]


@pytest.mark.parametrize("first, second", [("user", "project"), ("project", "user"), ("local", "project")])
def test_a_second_registration_in_a_merged_file_is_refused(
    notes: Path, tmp_path: Path, isolated_home: Path, first: str, second: str
) -> None:
    """Claude Code merges user, project and local settings: two notesdb hooks would both run."""
    project = tmp_path / "project"
    project.mkdir()
    assert notesdb("hook", "install", "--notes", str(notes), "--scope", first, cwd=project).returncode == 0
    from notesdb.install import settings_path

    first_path = settings_path(first, "claude", project)
    second_path = settings_path(second, "claude", project)
    before = first_path.read_bytes()
    r = notesdb("hook", "install", "--notes", str(notes), "--scope", second, cwd=project)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == (
        f"Error: a notesdb hook is already registered in {first_path}, which Claude Code merges with "
        f"{second_path}: every prompt would get the line twice; remove it first with "
        f"'notesdb hook uninstall --client claude --scope {first}'\n"
    )
    assert first_path.read_bytes() == before and not second_path.exists()
    # refused before any indexing: no database is built for a hook that is not added
    fresh = tmp_path / "second.db"
    r = notesdb("hook", "install", "--notes", str(notes), "--scope", second, "--db", str(fresh), cwd=project)
    assert r.returncode == 1 and r.stderr.startswith("Error: a notesdb hook is already registered in ")
    assert not fresh.exists() and not second_path.exists()


def test_an_old_exec_form_entry_is_replaced(notes: Path, isolated_home: Path) -> None:
    """An entry written by an earlier notesdb (command + args) is upgraded, not doubled."""
    path = user_settings(isolated_home)
    path.parent.mkdir()
    old = {"type": "command", "command": str(NOTESDB_EXE), "args": ["hook", "--notes", str(notes)], "timeout": 10}
    path.write_text(json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [old, OTHER_HANDLER]}]}}))
    r = notesdb("hook", "install", "--notes", str(notes))
    assert r.stdout.startswith("wrote to"), r.stderr
    settings = json.loads(path.read_text())
    [entry] = ours(settings)
    check_entry(entry, notes)
    assert "args" not in json.dumps(settings) and OTHER_HANDLER in settings["hooks"]["UserPromptSubmit"][0]["hooks"]
    r = notesdb("hook", "uninstall")
    assert r.stdout == f"removed 1 notesdb hook entry from {path}\n"


def harness_command(notes: Path, db: Path) -> str:
    """The command line the real-client harness wires into Codex and Gemini CLI by hand (and
    found working in both): every part quoted with shlex.quote, joined by spaces."""
    return " ".join(shlex.quote(str(x)) for x in (NOTESDB_EXE.resolve(), "hook", "--notes", notes, "--db", db))


def test_codex_entry(notes: Path, tmp_path: Path, isolated_home: Path) -> None:
    db = tmp_path / "my data" / "n.db"
    r = notesdb("hook", "install", "--client", "codex", "--notes", str(notes), "--db", str(db))
    assert r.returncode == 0, r.stderr
    path = isolated_home / ".codex" / "hooks.json"
    assert json.loads(path.read_text()) == {"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": harness_command(notes.resolve(), db), "timeout": 10}]}]}}  # fmt: skip
    assert "Codex runs a new or changed hook only after you trust it" in r.stdout
    assert not user_settings(isolated_home).exists()
    assert notesdb("hook", "uninstall", "--client", "codex").stdout == f"removed 1 notesdb hook entry from {path}\n"


def test_codex_home_is_honoured(notes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codexhome"))
    assert notesdb("hook", "install", "--client", "codex", "--notes", str(notes)).returncode == 0
    assert ours(json.loads((tmp_path / "codexhome" / "hooks.json").read_text()))


def test_gemini_entry(notes: Path, tmp_path: Path, isolated_home: Path) -> None:
    path = isolated_home / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}, indent=2) + "\n")
    db = tmp_path / "n.db"
    r = notesdb("hook", "install", "--client", "gemini", "--notes", str(notes), "--db", str(db), "--timeout", "7")
    assert r.returncode == 0, r.stderr
    assert json.loads(path.read_text()) == {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "name": "notesdb",
                                              "command": harness_command(notes.resolve(), db), "timeout": 7000}]}]},
    }  # fmt: skip
    r = notesdb("hook", "uninstall", "--client", "gemini")
    assert r.returncode == 0
    assert json.loads(path.read_text()) == {"security": {"auth": {"selectedType": "gemini-api-key"}}}


@pytest.mark.parametrize("args, error", [
    (["--client", "cursor"], "Error: --client must be one of claude, codex, gemini, not 'cursor'\n"),
    (["--client", "codex", "--scope", "local"], "Error: --scope local exists only for claude; Codex CLI has user and project\n"),
])  # fmt: skip
def test_bad_client_or_scope(notes: Path, isolated_home: Path, args: list[str], error: str) -> None:
    r = notesdb("hook", "install", "--notes", str(notes), *args)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", error)
    r = notesdb("hook", "uninstall", *args)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", error)


def test_install_refuses_a_config_the_hook_could_not_read(notes: Path, isolated_home: Path) -> None:
    config = isolated_home / ".config" / "notesdb" / "notesdb.toml"  # the file the hook reads
    config.parent.mkdir(parents=True)
    config.write_text("[gate\nstrong_words = 2\n")
    r = notesdb_process("hook", "install", "--notes", str(notes), "--db", str(notes.parent / "n.db"))
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith(f"Error: config file {config} is not valid TOML") and r.stderr.count("\n") == 1
    assert not user_settings(isolated_home).exists()  # no hook that would stay silent on every message


# --- the settings file as the person wrote it: comments, compact objects, bytes ------------

GEMINI_WITH_COMMENTS = """{
  // Gemini CLI strips comments before it reads this file
  "security": {"auth": {"selectedType": "gemini-api-key"}}, /* compact, on purpose */
  "ui": {
    "theme": "GitHub", // a URL in a string is not a comment:
    "footer": "see https://example.org/a//b /* not a comment */"
  }
}
"""


def test_gemini_settings_with_comments_are_accepted_and_kept(notes: Path, tmp_path: Path, isolated_home: Path) -> None:
    from notesdb import jsonc

    path = isolated_home / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(GEMINI_WITH_COMMENTS)
    db = tmp_path / "n.db"
    r = notesdb("hook", "install", "--client", "gemini", "--notes", str(notes), "--db", str(db))
    assert r.returncode == 0, r.stderr
    text = path.read_text()
    # every comment and the compact line stay; the entry is added after the last member
    assert text.startswith(GEMINI_WITH_COMMENTS[: GEMINI_WITH_COMMENTS.rindex("\n}")])
    settings = jsonc.loads(text)
    assert settings["ui"]["footer"] == "see https://example.org/a//b /* not a comment */"
    assert [h["name"] for g in settings["hooks"]["BeforeAgent"] for h in g["hooks"]] == ["notesdb"]
    r = notesdb("hook", "uninstall", "--client", "gemini")
    assert r.stdout == f"removed 1 notesdb hook entry from {path}\n"
    assert path.read_text() == GEMINI_WITH_COMMENTS


COMPACT = {
    "no hooks": '{\n  "model": "opus",\n  "statusLine": {"type": "command", "command": "~/bin/status"}\n}\n',
    "other events": (
        '{\n  "statusLine": {"type": "command", "command": "~/bin/status"},\n'
        '  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]\n  }\n}\n'
    ),
    "a compact group": (
        '{\n  "statusLine": {"type": "command", "command": "~/bin/status"},\n  "hooks": {\n'
        '    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "/usr/local/bin/audit-prompt"}]}]\n'
        "  }\n}\n"
    ),
    "one line": '{"statusLine": {"type": "command", "command": "s"}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "n"}]}]}}',
    "crlf": '{\r\n  "statusLine": {"type": "command", "command": "s"}\r\n}\r\n',
}


@pytest.mark.parametrize("before", COMPACT.values(), ids=COMPACT.keys())
def test_install_then_uninstall_gives_back_the_bytes(notes: Path, isolated_home: Path, before: str) -> None:
    path = user_settings(isolated_home)
    path.parent.mkdir()
    path.write_bytes(before.encode())
    assert notesdb("hook", "install", "--notes", str(notes)).returncode == 0
    after = path.read_bytes().decode()
    # the parts notesdb did not touch keep their form: the compact objects stay on one line
    compact = re.findall(r'"statusLine": \{[^{}]*\}|\{"hooks": \[\{[^{}]*\}\]\}', before)
    assert compact
    for kept in compact:
        assert kept in after
    settings = json.loads(after)
    assert settings["statusLine"]["type"] == "command"
    assert len(ours(settings)) == 1
    assert notesdb("hook", "install", "--notes", str(notes)).stdout.startswith("already installed")
    assert notesdb("hook", "uninstall").returncode == 0
    assert path.read_bytes() == before.encode()


def test_install_and_uninstall_take_config(notes: Path, tmp_path: Path, isolated_home: Path) -> None:
    config = tmp_path / "quiet.toml"
    config.write_text("[gate]\nstrong_words = 3\n")
    r = notesdb_process("hook", "install", "--notes", str(notes), "--db", str(tmp_path / "n.db"), "--config", str(config))
    assert r.returncode == 0, r.stderr
    (entry,) = ours(json.loads(user_settings(isolated_home).read_text()))
    assert argv(entry)[argv(entry).index("--config") + 1] == str(config.resolve())
    # the entry runs: the hook reads that config
    event = json.dumps({"prompt": COVERED_MESSAGE, "session_id": "s", "cwd": "/tmp"})
    p = subprocess.run(argv(entry), input=event, capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stderr) == (0, "")
    r = notesdb_process("hook", "uninstall", "--config", str(config))
    assert (r.returncode, r.stderr) == (0, "")
    assert ours(json.loads(user_settings(isolated_home).read_text() or "{}") if user_settings(isolated_home).exists() else {}) == []
    # a config with a mistake, or none at that path: refused before anything is written
    bad = tmp_path / "bad.toml"
    bad.write_text("[gate]\nstrong_words = inf\n")
    for given in (bad, tmp_path / "none.toml"):
        r = notesdb_process("hook", "install", "--notes", str(notes), "--config", str(given))
        assert r.returncode == 1 and r.stdout == "" and r.stderr.count("\n") == 1, r.stderr
        assert r.stderr.startswith("Error: ") and str(given.name) in r.stderr
        assert not user_settings(isolated_home).exists()


def test_install_from_a_virtualenv_warns_once(notes: Path, tmp_path: Path, isolated_home: Path) -> None:
    from notesdb.install import venv_warning

    # the console script the tests run lives in a plain virtualenv
    r = notesdb_process("hook", "install", "--notes", str(notes), "--db", str(tmp_path / "n.db"))
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"warning: {NOTESDB_EXE.resolve()} is in the virtualenv ")
    assert "pipx install" in r.stderr
    # pipx and uv tool environments stay put; a program outside any virtualenv is fine too
    for marker in (None, "pipx_metadata.json", "uv-receipt.toml"):
        env = tmp_path / f"env-{marker}"
        (env / "bin").mkdir(parents=True)
        (env / "pyvenv.cfg").write_text("home = /usr/bin\n")
        if marker:
            (env / marker).write_text("")
        exe = str(env / "bin" / "notesdb")
        assert (venv_warning(exe) is None) == (marker is not None), marker
    assert venv_warning("/usr/bin/notesdb") is None


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@given(JSON_VALUES, st.sampled_from([None, 2, "\t"]))
def test_settings_reader_reads_what_json_writes(value: Any, indent: Any) -> None:
    from notesdb import jsonc

    text = json.dumps(value, indent=indent)
    assert jsonc.loads(text) == value
    assert jsonc.loads("// a comment\n/* another */ " + text + " // trailing\n") == value


def test_install_warm_writes_it_and_a_later_install_keeps_it(notes: Path, isolated_home: Path) -> None:
    """`--warm` is an install option; an install without it keeps the --warm the entry had (added
    by an earlier install or by hand), and `--no-warm` takes it out."""
    path = user_settings(isolated_home)
    assert notesdb("hook", "install", "--notes", str(notes), "--warm").returncode == 0
    [entry] = ours(json.loads(path.read_text()))
    assert argv(entry)[1:3] == ["hook", "--warm"]
    check_entry(entry, notes)
    r = notesdb("hook", "install", "--notes", str(notes))
    assert r.stdout.startswith(f"already installed in {path}, unchanged\n"), r.stdout
    # appended by hand at the end, as an older README said: kept too
    data = json.loads(path.read_text())
    [handler] = ours(data)
    handler["command"] = shlex.join([a for a in argv(handler) if a != "--warm"] + ["--warm"])
    path.write_text(json.dumps(data))
    assert notesdb("hook", "install", "--notes", str(notes), "--timeout", "5").returncode == 0
    [entry] = ours(json.loads(path.read_text()))
    assert argv(entry)[1:3] == ["hook", "--warm"] and entry["timeout"] == 5
    assert notesdb("hook", "install", "--notes", str(notes), "--no-warm").returncode == 0
    [entry] = ours(json.loads(path.read_text()))
    assert "--warm" not in argv(entry)


def test_after_install_the_commands_find_the_hooks_folder_and_database(notes: Path, tmp_path: Path, isolated_home: Path) -> None:
    """`hook install` is the one set-up step: afterwards `log`, `search` and `index` work on the
    folder and database the hook uses, without --notes or NOTESDB_NOTES."""
    db = tmp_path / "hooked.db"
    assert notesdb("hook", "install", "--notes", str(notes), "--db", str(db)).returncode == 0
    r = notesdb("log")
    assert (r.returncode, r.stdout) == (0, "no decisions logged yet\n"), r.stderr
    r = notesdb("index")
    assert r.returncode == 0 and f" notes in {db}: " in r.stdout, r.stderr
    # given explicitly, a folder wins; with two installs naming different folders, nothing is guessed
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.md").write_text("# X\n")
    assert notesdb("index", "--notes", str(other), "--db", str(tmp_path / "o.db")).returncode == 0
    assert notesdb("hook", "install", "--client", "codex", "--notes", str(other), "--db", str(tmp_path / "o.db")).returncode == 0
    r = notesdb("log")
    assert r.returncode == 1 and r.stderr.startswith("Error: no database: pass --db FILE"), r.stderr
    # and the error says why: the installed entries disagree, each named with its options
    assert "the installed notesdb hooks name different folders, databases or configs" in r.stderr, r.stderr
    assert f"claude user: --notes {notes} --db {db}" in r.stderr and f"codex user: --notes {other}" in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    r = notesdb("index")
    assert r.returncode == 1 and r.stderr.startswith("Error: no notes folder: pass --notes DIR"), r.stderr
    assert "the installed notesdb hooks name different" in r.stderr, r.stderr
    # doctor says so too, beside the entries it finds in order
    r = notesdb("doctor")
    assert (
        "warning  hook: the 2 notesdb hooks name different folders, databases or configs: commands run "
        "without --notes (log, search, index, label) cannot tell which to use; pass --notes DIR or set NOTESDB_NOTES"
    ) in r.stdout.splitlines(), r.stdout


@pytest.mark.parametrize("client", ["claude", "codex", "gemini"])
def test_a_project_scope_run_from_the_notes_folder_writes_nothing_there(
    notes: Path, tmp_path: Path, isolated_home: Path, client: str
) -> None:
    """Claude Code started in an Obsidian vault has its project settings in the vault:
    notesdb never writes into the notes folder, so it refuses with what to do instead."""
    before = sorted(p.relative_to(notes) for p in notes.rglob("*"))
    for scope in ("project", "local") if client == "claude" else ("project",):
        r = notesdb("hook", "install", "--notes", ".", "--db", str(tmp_path / "n.db"), "--scope", scope,
                    "--client", client, cwd=notes)  # fmt: skip
        assert r.returncode == 1 and r.stderr.startswith(f"Error: the {scope} settings file "), r.stderr
        assert "inside the notes folder" in r.stderr and "'--scope user'" in r.stderr and r.stderr.count("\n") == 1
    assert sorted(p.relative_to(notes) for p in notes.rglob("*")) == before
    assert not (tmp_path / "n.db").exists()  # refused before any indexing


def test_notes_kept_in_the_home_folder_still_get_the_user_scope(isolated_home: Path, tmp_path: Path) -> None:
    """The user's settings file is the user's, not a note: notes kept in the home folder itself
    still install at the user scope (only a project's or local file inside the notes is refused)."""
    (isolated_home / "kettle.md").write_text("# Kettle\n\nDescale monthly.\n", encoding="utf-8")
    r = notesdb("hook", "install", "--notes", str(isolated_home), "--db", str(tmp_path / "n.db"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert ours(json.loads(user_settings(isolated_home).read_text()))


def test_a_user_settings_file_linked_into_the_notes_folder_is_not_written(notes: Path, tmp_path: Path, isolated_home: Path) -> None:
    """``~/.claude/settings.json`` a link to a file kept in the notes folder: the user scope
    wrote the entry through the link, into the notes."""
    kept = notes / "claude-settings.json"
    kept.write_text('{"theme": "dark"}\n', encoding="utf-8")
    user_settings(isolated_home).parent.mkdir(parents=True, exist_ok=True)
    user_settings(isolated_home).symlink_to(kept)
    r = notesdb("hook", "install", "--notes", str(notes), "--db", str(tmp_path / "n.db"), cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr == (f"Error: the user settings file {user_settings(isolated_home)} (a link to {kept.resolve()}) "
                        f"is inside the notes folder {notes}: notesdb never writes there\n")
    assert kept.read_text(encoding="utf-8") == '{"theme": "dark"}\n'
    assert not (tmp_path / "n.db").exists()  # refused before any indexing


@pytest.mark.parametrize(
    "before",
    [
        '{\n  "hooks": {\n    // my hooks\n  }\n}\n',
        '{"hooks": {"UserPromptSubmit": [ /* TODO */ ]}}\n',
    ],
)
def test_uninstall_keeps_a_comment_the_user_wrote_in_the_hooks(tmp_path: Path, isolated_home: Path, before: str) -> None:
    """A comment inside the hooks object or the event list: uninstall took the container out
    with it, and then removed the file, left holding ``{}``."""
    path = user_settings(isolated_home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(before, encoding="utf-8")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "kettle.md").write_text("# Kettle\n\nDescale monthly.\n", encoding="utf-8")
    assert notesdb("hook", "install", "--notes", str(notes), "--db", str(tmp_path / "n.db"), cwd=tmp_path).returncode == 0
    r = notesdb("hook", "uninstall", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    after = path.read_text(encoding="utf-8")
    comment = "// my hooks" if "//" in before else "/* TODO */"
    assert comment in after and not ours(json.loads(after.replace(comment, "")))
    assert jsonc_load(after) == jsonc_load(before)


def jsonc_load(text: str) -> object:
    from notesdb import jsonc

    return jsonc.parse(text).value

"""The hook as each assistant CLI runs it: the event JSON each one sends, the answer each one
reads, and what the hook does when the notes it would name are not there.

The events are the ones Claude Code 2.1.332, Codex CLI 0.171 and Gemini CLI 0.61 were seen to
send; the answer schemas are those CLIs' (Codex: ``user-prompt-submit.command.output``, no
extra properties; Gemini CLI: ``docs/hooks/reference.md``), written out here field by field.
"""

from __future__ import annotations

import json
import sqlite3
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import COVERED_MESSAGE, COVERED_NOTE, NOTESDB_EXE, decision_rows
from notesdb.gate import MAX_LINE_CHARS

pytestmark = pytest.mark.skipif(not NOTESDB_EXE.exists(), reason="the notesdb console script is not installed")

COVERED = COVERED_MESSAGE

EVENTS: dict[str, dict[str, Any]] = {
    "claude": {"session_id": "22ffc1bd", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp/proj",
               "prompt_id": "16f82348", "permission_mode": "default", "hook_event_name": "UserPromptSubmit"},
    "codex": {"session_id": "0199a", "turn_id": "1", "transcript_path": None, "cwd": "/tmp/proj",
              "hook_event_name": "UserPromptSubmit", "model": "gpt-fake", "permission_mode": "default"},
    "gemini": {"session_id": "5e1f", "transcript_path": "/tmp/g.json", "cwd": "/tmp/proj",
               "hook_event_name": "BeforeAgent", "timestamp": "2026-11-30T18:00:00.000Z"},
}  # fmt: skip


def _output_schema(event: str, strict: bool) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "continue": {"type": "boolean"},
            "decision": {"enum": ["block"]} if strict else {"type": "string"},
            "reason": {"type": "string"},
            "stopReason": {"type": "string"},
            "suppressOutput": {"type": "boolean"},
            "systemMessage": {"type": "string"},
            "hookSpecificOutput": {
                "type": "object",
                "properties": {"hookEventName": {"const": event}, "additionalContext": {"type": "string"}},
                "required": ["hookEventName"],
                "additionalProperties": not strict,
            },
        },
        "additionalProperties": not strict,
    }


SCHEMAS = {
    # Claude Code reads the same object; Codex allows nothing beyond these fields
    "claude": _output_schema("UserPromptSubmit", strict=True),
    "codex": _output_schema("UserPromptSubmit", strict=True),
    "gemini": _output_schema("BeforeAgent", strict=False),
}


def hook(vault: Path, db: Path, event: dict[str, Any]) -> tuple[subprocess.CompletedProcess[bytes], Any]:
    proc = subprocess.run(
        [str(NOTESDB_EXE), "hook", "--notes", str(vault), "--db", str(db)],
        input=json.dumps(event).encode(), capture_output=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0 and proc.stderr == b""
    return proc, json.loads(proc.stdout) if proc.stdout else None


@pytest.mark.parametrize("client", list(EVENTS))
def test_each_client_gets_its_own_answer(client: str, indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    proc, out = hook(vault, db, dict(EVENTS[client], prompt=COVERED))
    assert out is not None
    jsonschema.validate(out, SCHEMAS[client])
    assert out["hookSpecificOutput"]["hookEventName"] == EVENTS[client]["hook_event_name"]
    assert f"({vault.resolve()}/{COVERED_NOTE})" in out["hookSpecificOutput"]["additionalContext"]
    assert proc.stdout.endswith(b"}\n") and proc.stdout.count(b"\n") == 1  # stdout is JSON only


@pytest.mark.parametrize("client", list(EVENTS))
def test_each_client_gets_silence_for_an_uncovered_prompt(client: str, indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    proc, out = hook(vault, db, dict(EVENTS[client], prompt="thanks, that worked"))
    assert proc.stdout == b"" and out is None


def test_another_event_is_answered_with_silence(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    proc, out = hook(vault, db, dict(EVENTS["gemini"], hook_event_name="BeforeModel", prompt=COVERED))
    assert out is None
    row = decision_rows(db)[-1]
    assert row["route"] == "bad-input" and "unsupported hook event 'BeforeModel'" in row["error"]


def test_every_note_named_can_be_opened(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    """The assistant runs in some project folder: each path in the line opens from anywhere."""
    vault, db = indexed
    elsewhere = tmp_path / "project"
    elsewhere.mkdir()
    from notesdb.db import open_db

    conn = open_db(db)
    rows = conn.execute("SELECT path, title FROM notes ORDER BY path LIMIT 30").fetchall()
    conn.close()
    spoken = 0
    for path, title in rows:
        _, out = hook(vault, db, dict(EVENTS["claude"], prompt=f"{title}?"))
        if out is None:
            continue
        spoken += 1
        line = out["hookSpecificOutput"]["additionalContext"]
        assert len(line) <= MAX_LINE_CHARS
        named = re.findall(r'"[^"]*" \(([^)]+)\)', line)
        assert named
        for p in named:
            assert Path(p).is_absolute() and (elsewhere / p).is_file(), (p, line)
    assert spoken >= 10  # most titles name their note


def test_the_line_cap_holds_with_a_long_folder_path(tmp_path: Path, indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / ("and-another-one-" * 6) / "notes"
    deep.parent.mkdir(parents=True)
    vault.rename(deep)
    _, out = hook(deep, db, dict(EVENTS["claude"], prompt=COVERED))
    line = out["hookSpecificOutput"]["additionalContext"]
    assert len(line) <= MAX_LINE_CHARS and f"({deep}/{COVERED_NOTE})" in line


def test_a_moved_notes_folder_makes_the_hook_silent(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    _, out = hook(vault, db, dict(EVENTS["claude"], prompt=COVERED))
    assert out is not None
    vault.rename(vault.with_name("vault-moved"))
    proc, out = hook(vault, db, dict(EVENTS["claude"], prompt=COVERED))
    assert proc.stdout == b"" and out is None
    row = decision_rows(db)[-1]
    assert row["route"] == "notes-missing" and row["spoken"] == 0
    assert f"notes folder not found: {vault}" in row["error"] and "--notes NEW_FOLDER" in row["error"]
    vault.with_name("vault-moved").rename(vault)  # back: it speaks again (in a new conversation,
    _, out = hook(vault, db, dict(EVENTS["claude"], prompt=COVERED, session_id="s-after-move"))  # once is enough in one)
    assert out is not None


def test_a_named_note_gone_from_disk_is_not_named(indexed: tuple[Path, Path]) -> None:
    """The index can lag behind the folder (another process holds the index lock, so this
    call answers from the index as it is): a note that is no longer there is never named."""
    import fcntl

    vault, db = indexed
    (vault / COVERED_NOTE).unlink()
    fd = os.open(str(db) + ".lock", os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)  # "another process is updating the index"
    try:
        proc, out = hook(vault, db, dict(EVENTS["claude"], prompt=COVERED))
    finally:
        os.close(fd)
    assert proc.stdout == b"" and out is None
    row = decision_rows(db)[-1]
    assert row["route"] == "note-missing" and row["spoken"] == 0
    assert f"named notes no longer on disk or not readable: {COVERED_NOTE}" in row["error"]
    assert "IndexBusy" in row["error"]


def test_a_decision_on_an_incomplete_index_says_so(indexed: tuple[Path, Path]) -> None:
    """While another process holds the index lock, new notes are not indexed yet: the call
    answers from the index as it is, and its logged reason says how far the index is, so that
    its silence is not read as a real no-match."""
    import fcntl

    vault, db = indexed
    for i in range(2):
        (vault / f"new-{i}.md").write_text(f"# Gazebo {i}\n\nThe gazebo kit, panel {i}.\n")
    fd = os.open(str(db) + ".lock", os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)  # "another process is updating the index"
    try:
        proc, out = hook(vault, db, dict(EVENTS["claude"], prompt="which screws does the gazebo kit take"))
    finally:
        os.close(fd)
    assert proc.stdout == b"" and out is None
    row = decision_rows(db)[-1]
    assert row["spoken"] == 0 and row["route"] == "weak"  # the notes it holds bring too little for the gazebo
    assert row["error"] == (
        "sync skipped: IndexBusy: another process is updating the index; index incomplete: 63 of 65 notes indexed"
    )
    proc, out = hook(vault, db, dict(EVENTS["claude"], prompt="which screws does the gazebo kit take", session_id="s-2"))
    assert decision_rows(db)[-1]["error"] == ""  # the lock is free: indexed, a real decision


def test_doctor_names_a_missing_notes_folder_and_what_to_do(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    shutil.move(vault, vault.with_name("elsewhere"))
    proc = subprocess.run([str(NOTESDB_EXE), "doctor", "--notes", str(vault), "--db", str(db)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[1] == (  # after the config check
        f"problem  notes folder: {vault} does not exist (moved, renamed or unmounted?): the hook stays "
        "silent until it is back; if it moved, run 'notesdb hook install --notes NEW_FOLDER' to point the hook there"
    )
    assert proc.stdout.splitlines()[-1] == "1 problem left"


def doctor(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(NOTESDB_EXE), "doctor", *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def settings_with(path: Path, event: str, command: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": {event: [{"hooks": [{"type": "command", "command": command}]}]}}))


def test_doctor_reports_every_entry_of_every_client(indexed: tuple[Path, Path], isolated_home: Path, tmp_path: Path) -> None:
    vault, db = indexed
    project = tmp_path / "project"
    good = f"'{NOTESDB_EXE}' hook --notes '{vault}' --db '{db}'"
    settings_with(isolated_home / ".claude" / "settings.json", "UserPromptSubmit", good)
    settings_with(project / ".claude" / "settings.local.json", "UserPromptSubmit", good)  # a duplicate
    gone = tmp_path / "deleted-venv" / "bin" / "notesdb"
    settings_with(isolated_home / ".codex" / "hooks.json", "UserPromptSubmit", f"{gone} hook --notes {vault}")
    settings_with(isolated_home / ".gemini" / "settings.json", "BeforeAgent",
                  f"{NOTESDB_EXE} hook --notes {tmp_path / 'moved-away'}")  # fmt: skip
    proc = doctor(cwd=project)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1
    hook_lines = [ln for ln in lines if ln.split()[1:2] == ["hook:"]]
    assert len(hook_lines) == 6, lines
    assert hook_lines[0] == f"ok       hook: Claude Code, user ({isolated_home / '.claude' / 'settings.json'}): {good}"
    assert hook_lines[1].startswith(f"ok       hook: Claude Code, local ({project / '.claude' / 'settings.local.json'})")
    assert hook_lines[2].startswith(f"problem  hook: Codex CLI, user ({isolated_home / '.codex' / 'hooks.json'}): "
                                    f"runs {gone}, which does not exist (a deleted virtualenv?)")  # fmt: skip
    assert "pipx install, uv tool install" in hook_lines[2] and "by hand" in hook_lines[2]
    assert hook_lines[3].startswith("problem  hook: Gemini CLI, user") and "moved-away does not exist" in hook_lines[3]
    assert hook_lines[4].startswith("problem  hook: 2 notesdb hooks for claude (") and "2 times" in hook_lines[4]
    # the entries name two folders and two databases: commands without --notes cannot choose
    assert hook_lines[5].startswith("warning  hook: the 4 notesdb hooks name different folders, databases or configs")
    assert lines[-1] == "3 problems left"


def test_doctor_without_a_folder_checks_the_config_and_errors_of_the_installed_hook(
    indexed: tuple[Path, Path], isolated_home: Path, tmp_path: Path
) -> None:
    """A misspelt setting in the default config keeps every hook call silent (the error goes to
    hook-errors.jsonl): the bare doctor, which checks what the installed entry runs with, says
    so. It used to check only that the entry's program and folder exist, and said healthy."""
    vault, db = indexed
    settings_with(isolated_home / ".claude" / "settings.json", "UserPromptSubmit",
                  f"'{NOTESDB_EXE}' hook --notes '{vault}' --db '{db}'")  # fmt: skip
    config = isolated_home / ".config" / "notesdb" / "notesdb.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[log]\nprompt = false\n")
    hook = subprocess.run([str(NOTESDB_EXE), "hook", "--notes", str(vault), "--db", str(db)], capture_output=True,
                          input=json.dumps({"session_id": "s", "hook_event_name": "UserPromptSubmit",
                                            "prompt": COVERED_MESSAGE}).encode(), timeout=120)  # fmt: skip
    assert (hook.returncode, hook.stdout, hook.stderr) == (0, b"", b"")
    proc = doctor(cwd=tmp_path)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1, lines
    assert lines[1] == (f"problem  config: config file {config}: unknown [log] setting 'prompt', did you mean "
                        "'prompts'? (known: prompts): the hook stays silent on every message until it is fixed")  # fmt: skip
    errors = next(ln for ln in lines if ln.startswith("problem  hook errors: "))
    assert errors.endswith("(no decision logged since: the hook is failing)")
    assert lines[-1] == "2 problems left"


def test_doctor_without_a_folder_measures_the_meter_for_the_hook_s_settings(
    indexed: tuple[Path, Path], isolated_home: Path, tmp_path: Path
) -> None:
    """After the config file changes (``tune --write``, an edit), the bare doctor showed the
    false-alarm reading stored for the old settings: it now measures it again for the settings
    the installed hook runs with, as ``doctor --notes`` does."""
    vault, db = indexed
    settings_with(isolated_home / ".claude" / "settings.json", "UserPromptSubmit",
                  f"'{NOTESDB_EXE}' hook --notes '{vault}' --db '{db}'")  # fmt: skip

    def meter_line() -> str:
        proc = doctor(cwd=tmp_path)
        return next(ln for ln in proc.stdout.splitlines() if "false alarms:" in ln)

    index = subprocess.run([str(NOTESDB_EXE), "index", "--notes", str(vault), "--db", str(db)], capture_output=True, timeout=120)
    assert index.returncode == 0, index.stderr
    stored = json.loads(sqlite3.connect(db).execute("SELECT value FROM meta WHERE key = 'false_alarm_meter'").fetchone()[0])
    config = isolated_home / ".config" / "notesdb" / "notesdb.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[gate]\nstrong_evidence = 0.5\nstrong_coverage = 0.05\nstrong_words = 1\n", encoding="utf-8")
    loose = meter_line()
    assert "(measured now: the settings or the notes changed since the last): above 3%" in loose, loose
    loose_spoken = int(loose.split("would speak on ")[1].split()[0])
    assert loose_spoken > stored["spoken"], (loose, stored)
    config.unlink()  # back to the defaults: measured again for them, then read as stored
    line = meter_line()
    assert f"would speak on {stored['spoken']} of 510 generic messages" in line and "measured now" in line, line
    assert "measured now" not in meter_line()


def test_doctor_with_no_hook_installed_says_so(isolated_home: Path, tmp_path: Path) -> None:
    """Nothing to check is not "healthy": the exit is 1, so a set-up script does not read it as done."""
    proc = doctor(cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        "warning  hook: no notesdb hook in the settings of Claude Code, Codex CLI or Gemini CLI: "
        "'notesdb hook install --notes DIR' adds one",
        "nothing checked: no notesdb hook is installed and no notes folder was given (--notes DIR or NOTESDB_NOTES)",
    ]


def test_doctor_reads_a_hand_written_entry_as_the_shell_runs_it(
    indexed: tuple[Path, Path], isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """"notesdb hook --notes $HOME/notes": the shell finds notesdb on PATH and expands $HOME and
    ~; doctor reads the entry the same way instead of calling it broken."""
    vault, db = indexed
    shutil.copytree(vault, isolated_home / "notes")
    monkeypatch.setenv("PATH", f"{NOTESDB_EXE.parent}{os.pathsep}{os.environ['PATH']}")
    settings_with(isolated_home / ".claude" / "settings.json", "UserPromptSubmit",
                  "notesdb hook --notes $HOME/notes --db ~/n.db")  # fmt: skip
    proc = doctor(cwd=tmp_path)
    hook_lines = [ln for ln in proc.stdout.splitlines() if ln.split()[1:2] == ["hook:"]]
    assert hook_lines and hook_lines[0].startswith("ok       hook: Claude Code, user"), proc.stdout
    # the folder and database it checks are the expanded ones ($HOME/notes, ~/n.db)
    assert f"problem  database: {isolated_home / 'n.db'} does not exist: run 'notesdb index'" in proc.stdout


def test_an_entry_holding_a_nul_is_not_taken_for_a_command(isolated_home: Path, tmp_path: Path) -> None:
    """A NUL cannot reach a program: such an entry is no notesdb hook, and commands that look
    for the installed hook's folder give a one-line error instead of a traceback."""
    settings_with(isolated_home / ".claude" / "settings.json", "UserPromptSubmit",
                  f"{NOTESDB_EXE} hook --notes /tmp/notes\x00x")  # fmt: skip
    proc = subprocess.run([str(NOTESDB_EXE), "log"], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") <= 1, proc.stderr


@pytest.mark.parametrize(
    "command, words",
    [
        ("notesdb hook --notes ~/notes", ["notesdb", "hook", "--notes", "/h/notes"]),
        ('"~/.local/bin/notesdb" hook', ["~/.local/bin/notesdb", "hook"]),  # a quoted ~ stays
        ("notesdb --notes '$HOME/n'", ["notesdb", "--notes", "$HOME/n"]),  # single quotes: literal
        ("notesdb --notes \\$HOME/n", ["notesdb", "--notes", "$HOME/n"]),  # escaped
        ('notesdb --notes "$HOME/my notes"', ["notesdb", "--notes", "/h/my notes"]),
        ("notesdb --notes ${NOTES:-~/notes} ${HOME}x $UNSET", ["notesdb", "--notes", "/h/notes", "/hx", ""]),
        ("'/p q/notesdb' hook --notes '/a b'", ["/p q/notesdb", "hook", "--notes", "/a b"]),
        ("x ~user/y ~ ~/", ["x", "~user/y", "/h", "/h/"]),
        ('notesdb "unterminated', None),
    ],
)
def test_a_command_string_is_read_as_the_shell_reads_it(command: str, words: list[str] | None) -> None:
    from notesdb.clients import shell_words

    assert shell_words(command, {"HOME": "/h"}) == words


def test_doctor_says_an_entry_runs_a_file_that_is_not_executable(isolated_home: Path, tmp_path: Path) -> None:
    script = tmp_path / "bin" / "notesdb"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")  # mode 0644
    settings_with(isolated_home / ".claude" / "settings.json", "UserPromptSubmit", f"{script} hook --notes {tmp_path}")
    lines = doctor(cwd=tmp_path).stdout.splitlines()
    assert any(ln.startswith("problem  hook: Claude Code, user") and f"runs {script}, which is not an executable file" in ln
               for ln in lines), lines  # fmt: skip

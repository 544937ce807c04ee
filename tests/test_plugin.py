"""The Claude Code plugin in this repository: its manifests, and its launcher as Claude Code runs
it (``plugin/bin/notesdb`` with ``CLAUDE_PLUGIN_ROOT`` and ``CLAUDE_PLUGIN_DATA`` set).

The launcher's first install (a virtualenv made with uv, pipx or pip) needs the package
registry; it is exercised by ``bench/claude_plugin.py`` with the real Claude Code. Here the
virtualenv is the one running the tests, linked where the launcher looks for it."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import COVERED_MESSAGE, COVERED_NOTE, NOTESDB_EXE, decision_rows

REPO = Path(__file__).resolve().parents[1]
LAUNCHER = REPO / "plugin" / "bin" / "notesdb"
HIT = json.dumps({"prompt": COVERED_MESSAGE, "session_id": "s"}).encode()


def test_marketplace_and_plugin_manifests_point_at_real_files() -> None:
    market = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text())
    assert market["name"] == "notesdb"
    [entry] = market["plugins"]
    assert (entry["name"], entry["source"]) == ("notesdb", "./")
    plugin = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())
    assert plugin["name"] == "notesdb"
    assert plugin["userConfig"]["notes"]["type"] == "directory"
    hooks = json.loads((REPO / plugin["hooks"]).read_text())["hooks"]
    servers = json.loads((REPO / plugin["mcpServers"]).read_text())["mcpServers"]
    [prompt_hook] = hooks["UserPromptSubmit"][0]["hooks"]
    [start_hook] = hooks["SessionStart"][0]["hooks"]
    # a command hook (not mcp_tool): it works whether or not the MCP server is connected
    assert prompt_hook["type"] == "command" and prompt_hook["args"] == ["hook", "--warm"]
    assert start_hook["args"] == ["setup"]
    assert servers["notesdb"]["args"] == ["mcp"]
    for cmd in (prompt_hook["command"], start_hook["command"], servers["notesdb"]["command"]):
        assert cmd == "${CLAUDE_PLUGIN_ROOT}/plugin/bin/notesdb"
    assert os.access(LAUNCHER, os.X_OK)
    # the version Claude Code shows is the package's
    assert f'version = "{plugin["version"]}"' in (REPO / "pyproject.toml").read_text()


def launcher_env(data: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NOTESDB_", "CLAUDE_"))}
    env.update(CLAUDE_PLUGIN_ROOT=str(REPO), CLAUDE_PLUGIN_DATA=str(data), **extra)
    return env


def test_hook_before_notesdb_is_installed_stays_silent_at_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    t0 = time.monotonic()
    proc = subprocess.run([str(LAUNCHER), "hook", "--warm"], input=HIT, capture_output=True,
                          env=launcher_env(data), timeout=30)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert time.monotonic() - t0 < 5  # no install running: nothing to wait for


@pytest.mark.skipif(not NOTESDB_EXE.exists(), reason="the notesdb console script is not installed")
@pytest.mark.parametrize("how", ["option", "placeholder", "environment"])
def test_hook_through_the_launcher_uses_the_option_and_the_data_folder(
    indexed: tuple[Path, Path], tmp_path: Path, how: str
) -> None:
    vault, db = indexed
    data = fake_install(tmp_path)
    shutil.copyfile(db, data / "notesdb.db")  # as the SessionStart setup leaves it
    extra = {
        "option": {"CLAUDE_PLUGIN_OPTION_NOTES": str(vault)},
        # an option left empty arrives as the literal placeholder: NOTESDB_NOTES counts then
        "placeholder": {"CLAUDE_PLUGIN_OPTION_NOTES": "${user_config.notes}", "NOTESDB_NOTES": str(vault)},
        "environment": {"NOTESDB_NOTES": str(vault)},
    }[how]
    proc = subprocess.run([str(LAUNCHER), "hook", "--warm"], input=HIT, capture_output=True,
                          env=launcher_env(data, **extra), timeout=60)
    assert proc.returncode == 0 and proc.stderr == b""
    out = json.loads(proc.stdout)
    assert f"({vault / COVERED_NOTE})" in out["hookSpecificOutput"]["additionalContext"]
    db = data / "notesdb.db"  # the database lives in the plugin's data folder
    assert [r["prompt"] for r in decision_rows(db)] == [COVERED_MESSAGE]


def fake_install(tmp_path: Path) -> Path:
    """A plugin data folder whose virtualenv is the one running the tests, stamped as made
    from this checkout (so the launcher does not install again)."""
    data = tmp_path / "data"
    (data / "venv" / "bin").mkdir(parents=True)
    (data / "venv" / "bin" / "notesdb").symlink_to(NOTESDB_EXE)
    stamp = subprocess.run([str(LAUNCHER), "--stamp"], capture_output=True, check=True, text=True,
                           env=launcher_env(data)).stdout
    assert stamp.startswith(f"{REPO}\n")
    (data / "venv.stamp").write_text(stamp)
    return data


@pytest.mark.skipif(not NOTESDB_EXE.exists(), reason="the notesdb console script is not installed")
def test_session_start_setup_indexes_a_new_database_and_prints_nothing(vault: Path, tmp_path: Path) -> None:
    data = fake_install(tmp_path)
    proc = subprocess.run([str(LAUNCHER), "setup"], capture_output=True, stdin=subprocess.DEVNULL,
                          env=launcher_env(data, CLAUDE_PLUGIN_OPTION_NOTES=str(vault)), timeout=120)
    # whatever a SessionStart hook prints reaches the model
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert not (data / "install.lock").exists()
    conn = sqlite3.connect(data / "notesdb.db")
    try:
        assert conn.execute("SELECT count(*) FROM notes").fetchone()[0] == 63  # the contract vault: 64 files, MEMORY.md skipped
    finally:
        conn.close()
    # and the first message is judged against every note
    proc = subprocess.run([str(LAUNCHER), "hook", "--warm"], input=HIT, capture_output=True,
                          env=launcher_env(data, CLAUDE_PLUGIN_OPTION_NOTES=str(vault)), timeout=60)
    assert f"({vault / COVERED_NOTE})".encode() in proc.stdout


def recording_install(tmp_path: Path) -> tuple[Path, Path]:
    """A plugin data folder whose virtualenv has this Python and a ``notesdb`` that records
    each run in a file before it runs the real console script; returns (data, record)."""
    data = fake_install(tmp_path)
    record = tmp_path / "full-runs"
    exe = data / "venv" / "bin" / "notesdb"
    exe.unlink()
    exe.write_text(f'#!/bin/sh\necho "$*" >>"{record}"\nexec "{NOTESDB_EXE}" "$@"\n')
    exe.chmod(0o755)
    (data / "venv" / "bin" / "python").symlink_to(sys.executable)
    return data, record


@pytest.mark.skipif(not NOTESDB_EXE.exists(), reason="the notesdb console script is not installed")
def test_launcher_asks_the_warm_process_through_the_small_client_and_hands_over_when_it_is_gone(
    indexed: tuple[Path, Path], tmp_path: Path
) -> None:
    from test_warm import start_server

    from notesdb.warm import socket_path

    vault, db = indexed
    data, record = recording_install(tmp_path)
    db = data / "notesdb.db"
    shutil.copyfile(indexed[1], db)
    env = launcher_env(data, CLAUDE_PLUGIN_OPTION_NOTES=str(vault))

    def prompt(session: str) -> bytes:
        proc = subprocess.run([str(LAUNCHER), "hook", "--warm"], capture_output=True, env=env, timeout=60,
                              input=json.dumps({"prompt": COVERED_MESSAGE, "session_id": session}).encode())
        assert (proc.returncode, proc.stderr) == (0, b"")
        assert f"({vault / COVERED_NOTE})" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
        return proc.stdout

    no_socket = prompt("s-1")  # no warm process: the full hook at once
    assert record.read_text() == "hook --warm\n"
    server = start_server(vault, db)
    try:
        assert prompt("s-2") == no_socket
        assert record.read_text() == "hook --warm\n"  # answered by the small client alone
    finally:
        server.kill()
        server.wait(timeout=30)
    assert Path(socket_path(db)).exists()  # killed: its socket is left behind
    assert prompt("s-3") == no_socket  # the client found nobody and handed over
    assert record.read_text() == "hook --warm\nhook\n"
    assert [r["session_id"] for r in decision_rows(db)] == ["s-1", "s-2", "s-3"]

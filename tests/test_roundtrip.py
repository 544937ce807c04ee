"""Data that must come back as it went in: any message, logged by the real hook, labelled and
exported, is read by ``eval`` as the very same message (JSON Lines split on ``\\n`` only)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import NOTESDB_EXE, copy_vault, decision_rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notesdb.cases import load_cases
from notesdb.decide import client_text, is_slash_command
from notesdb.review import is_blank

#: Characters ``str.splitlines()`` breaks lines at besides ``\n``: each must stay inside a line.
LINE_BREAKERS = ["\u2028", "\u2029", "\x85", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\r", "\r\n", "\n"]

messages = st.lists(
    st.one_of(st.sampled_from(LINE_BREAKERS), st.text(max_size=20)), min_size=1, max_size=8
).map("".join)


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory, indexed_template: Path) -> tuple[Path, Path, Path]:
    base = tmp_path_factory.mktemp("roundtrip")
    vault = copy_vault(base / "vault")
    db = base / "data" / "notes.db"
    db.parent.mkdir(mode=0o700)
    shutil.copyfile(indexed_template, db)
    return vault, db, base


def test_eval_reads_every_line_breaker_inside_a_message(logged: tuple[Path, Path, Path]) -> None:
    """The case the bug was found with: U+2028 and friends in a logged message."""
    roundtrip(logged, "before\u2028after \u2029 \x85 \x0c form feed: the worcester boiler")


@settings(
    max_examples=20, derandomize=True, deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
@given(message=messages)
def test_any_message_round_trips(logged: tuple[Path, Path, Path], message: str) -> None:
    if is_slash_command(message) or client_text(message) or is_blank(message):  # never judged, or nothing to judge: it cannot be labelled
        return
    roundtrip(logged, message)


def notesdb(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(NOTESDB_EXE), *args], input=stdin, capture_output=True, timeout=120)


def roundtrip(logged: tuple[Path, Path, Path], message: str) -> None:
    vault, db, base = logged
    where = ["--notes", str(vault), "--db", str(db)]
    event = json.dumps({"session_id": "s", "cwd": "/tmp", "prompt": message}).encode()
    proc = notesdb("hook", *where, stdin=event)
    assert proc.returncode == 0 and proc.stderr == b""
    row = decision_rows(db)[-1]
    assert row["prompt"] == message  # logged whole
    verdict = ["right"] if row["spoken"] else ["missed", "--note", "home/boiler-worcester.md"]
    proc = notesdb("label", "set", str(row["id"]), *verdict, *where)
    assert proc.returncode == 0, proc.stderr
    cases_file = base / "cases.jsonl"
    proc = notesdb("label", "export", str(cases_file), *where)
    assert proc.returncode == 0, proc.stderr
    by_id = {c.id: c for c in load_cases(cases_file)}
    assert by_id[f"log/{row['id']}"].message == message
    proc = notesdb("eval", str(cases_file), "--json", *where)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["cases"] == len(by_id)

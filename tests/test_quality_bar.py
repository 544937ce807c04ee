"""The measured bar: ``notesdb eval`` on the shared labelled sets must not fall below it.

- personal (``fixtures/personal``): precision >= 0.95, hit rate >= 0.85, silence rate >= 0.95
- chat (messages no note covers, built by ``eval/make_sets.py`` on the personal vault):
  silence rate >= 0.98
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import NOTESDB_EXE, PERSONAL_VAULT, copy_vault


def run_eval(cases: Path, vault: Path, db: Path) -> dict:
    out = subprocess.run(
        [str(NOTESDB_EXE), "eval", str(cases), "--notes", str(vault), "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_personal_set_meets_the_bar(tmp_path: Path, shared: Path, personal_template: Path) -> None:
    vault = copy_vault(tmp_path / "vault", PERSONAL_VAULT)
    db = tmp_path / "eval.db"
    shutil.copy(personal_template, db)
    s = run_eval(shared / "fixtures" / "personal" / "cases.jsonl", vault, db)
    assert s["cases"] == 83 and s["covered"] == 45 and s["uncovered"] == 38
    assert s["stretch"]["cases"] == 6
    assert s["precision"] >= 0.95, s["failures"]
    assert s["hit_rate"] >= 0.85, s["failures"]
    assert s["silence_rate"] >= 0.95, s["failures"]


def test_chat_set_stays_silent(tmp_path: Path, shared: Path) -> None:
    script = shared / "eval" / "make_sets.py"
    assert script.exists(), f"{script} is missing from the shared folder"
    out = tmp_path / "sets"
    subprocess.run([sys.executable, str(script), str(out), "--sets", "chat"], check=True,
                   capture_output=True, timeout=300)  # fmt: skip
    s = run_eval(out / "chat" / "cases.jsonl", out / "chat" / "vault", tmp_path / "chat.db")
    assert s["uncovered"] == s["cases"] > 100
    assert s["silence_rate"] >= 0.98, s["failures"]

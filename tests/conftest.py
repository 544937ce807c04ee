"""Shared fixtures: every test runs away from the real home, on copies of the shared notes."""

from __future__ import annotations

import shutil
import sqlite3
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
PERSONAL_VAULT = SHARED / "fixtures" / "personal" / "vault"
#: The installed console script, beside the interpreter running the tests.
NOTESDB_EXE = Path(sys.executable).with_name("notesdb")


def pytest_report_header(config: pytest.Config) -> str:
    from importlib.metadata import version

    return f"sqlite: {sqlite3.sqlite_version}, sqlite-utils: {version('sqlite-utils')}"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point HOME and the XDG folders at tmp_path and drop every NOTESDB_* override.

    Subprocesses started by a test inherit the same environment.
    """
    home = tmp_path / "home"
    for sub in ("", ".local/share", ".config"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for name in ("NOTESDB_DB", "NOTESDB_NOTES", "NOTESDB_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    return home


def decision_rows(db: Path) -> list[dict[str, Any]]:
    """Every row of a database's ``decisions`` log, oldest first, as dicts."""
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute("SELECT * FROM decisions ORDER BY id")]
    finally:
        conn.close()


def copy_vault(target: Path) -> Path:
    """Copy the personal vault to ``target`` (mtimes kept) and make the copy writable."""
    if not PERSONAL_VAULT.is_dir():
        pytest.skip(f"shared fixtures not found at {SHARED}")
    shutil.copytree(PERSONAL_VAULT, target)
    for path in [target, *target.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod(mode | stat.S_IWUSR | (stat.S_IXUSR if path.is_dir() else 0))
    return target


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A writable copy of ``shared/fixtures/personal/vault``."""
    return copy_vault(tmp_path / "vault")


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where a test's database goes (not created)."""
    return tmp_path / "data" / "notes.db"


@pytest.fixture(scope="session")
def indexed_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database of the personal vault, indexed once per session; copy it, never open it."""
    from notesdb.db import open_db
    from notesdb.sync import sync

    folder = tmp_path_factory.mktemp("template")
    notes = copy_vault(folder / "vault")
    db = folder / "template.db"
    conn = open_db(db)
    stats = sync(conn, notes)
    assert not stats.incomplete
    conn.close()
    assert not Path(str(db) + "-wal").exists()
    return db


@pytest.fixture
def indexed(vault: Path, db_path: Path, indexed_template: Path) -> tuple[Path, Path]:
    """``(vault, db_path)`` with the database already in line with the vault.

    The copy of the vault keeps the shared files' sizes and mtimes, so the template database
    (built from another copy) needs no sync.
    """
    db_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    shutil.copyfile(indexed_template, db_path)
    db_path.chmod(0o600)
    return vault, db_path

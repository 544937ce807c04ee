"""Shared fixtures: every test runs away from the real home, on copies of notes kept in the
repository (``tests/data``), so that the contract tests run on any clone. Only the quality bars
on the shared labelled sets read ``../shared``."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import stat
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
PERSONAL_VAULT = SHARED / "fixtures" / "personal" / "vault"
#: The notes folder of the contract tests: an invented household written for this project
#: (tests/data/README.md), 64 notes in four front-matter styles, one with a BOM, one with CRLF.
CONTRACT_VAULT = Path(__file__).resolve().parent / "data" / "household2" / "vault"
#: A message the contract vault clearly covers, and the note it names.
COVERED_MESSAGE = "the worcester boiler shows EA229 again"
COVERED_NOTE = "home/boiler-worcester.md"
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


def copy_vault(target: Path, source: Path = CONTRACT_VAULT) -> Path:
    """Copy a notes folder (the contract vault by default) to ``target``, mtimes kept, and make
    the copy writable."""
    shutil.copytree(source, target)
    for path in [target, *target.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod(mode | stat.S_IWUSR | (stat.S_IXUSR if path.is_dir() else 0))
    return target


#: Why the quality bars are not measured: the one skip reason of a clone without ../shared.
SHARED_MISSING = f"the shared labelled sets are not at {SHARED}: quality bars on them not measured"
_SHARED_LINE = sys._getframe().f_lineno


def write_and_index(vault: Path, db: Path, notes: dict[str, str]) -> tuple[Path, Path]:
    """Write ``notes`` (relative path -> text) into a new folder ``vault`` and index it into
    ``db`` with the real sync; returns ``(vault, db)``."""
    from notesdb.db import open_db
    from notesdb.sync import sync

    for rel, text in notes.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    conn = open_db(db)
    try:
        sync(conn, vault)
    finally:
        conn.close()
    return vault, db


@contextlib.contextmanager
def indexed_connection(tmp_path: Path, notes: dict[str, str]) -> Iterator[sqlite3.Connection]:
    """An open connection to ``tmp_path/notes.db``, indexed from ``notes`` written into
    ``tmp_path/notes`` (:func:`write_and_index`); closed on leaving."""
    from notesdb.db import open_db

    _, db = write_and_index(tmp_path / "notes", tmp_path / "notes.db", notes)
    conn = open_db(db)
    try:
        yield conn
    finally:
        conn.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Every quality bar skipped for want of ../shared is reported at one place, so that the
    summary says it in one line."""
    outcome = yield
    rep = outcome.get_result()
    if rep.skipped and isinstance(rep.longrepr, tuple) and rep.longrepr[2].endswith(SHARED_MISSING):
        rep.longrepr = (__file__, _SHARED_LINE, rep.longrepr[2])


@pytest.fixture(scope="session")
def shared() -> Path:
    """The shared folder (labelled sets, the personal vault); skips the test when it is absent.
    Only the quality bars on the shared labelled sets use it."""
    if not PERSONAL_VAULT.is_dir():
        pytest.skip(SHARED_MISSING)
    return SHARED



@pytest.fixture(scope="session")
def personal_template(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database of the shared personal vault, indexed once per session; copy it, never open it."""
    from notesdb.db import open_db
    from notesdb.sync import sync

    folder = tmp_path_factory.mktemp("personal")
    notes = copy_vault(folder / "vault", PERSONAL_VAULT)
    db = folder / "personal.db"
    conn = open_db(db)
    assert not sync(conn, notes).incomplete
    conn.close()
    return db


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A writable copy of the contract vault (``tests/data/household2/vault``)."""
    return copy_vault(tmp_path / "vault")


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where a test's database goes (not created)."""
    return tmp_path / "data" / "notes.db"


@pytest.fixture(scope="session")
def indexed_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database of the contract vault, indexed once per session; copy it, never open it."""
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
    # the sync lock file every database notesdb has synced has beside it
    lock = db_path.with_name(db_path.name + ".lock")
    shutil.copyfile(indexed_template.with_name(indexed_template.name + ".lock"), lock)
    lock.chmod(0o600)
    return vault, db_path

"""Files that are not ours: a database of another application given as ``--db`` is refused and
left byte for byte as it was; paths that become SQLite URIs keep every character."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from conftest import COVERED_MESSAGE, COVERED_NOTE, NOTESDB_EXE, decision_rows
from sqlite_utils import Database

from notesdb import db as store
from notesdb.errors import NotOurDatabase
from notesdb.migrations import migrations


def run(*args: str | Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(NOTESDB_EXE), *map(str, args)], input=stdin, capture_output=True, timeout=120)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def event(prompt: str) -> bytes:
    return json.dumps({"session_id": "s", "cwd": "/tmp", "prompt": prompt}).encode()


# --- a database of another application ---------------------------------------------


def customers(path: Path) -> None:
    """Another application's database: one table of customers, in rollback-journal mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO customers (name) VALUES ('Ann'), ('Bo')")
    conn.commit()
    conn.close()


def clashing(path: Path) -> None:
    """Another application's database whose tables have our names."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    conn.execute("CREATE TABLE meta (k TEXT, v TEXT)")
    conn.execute("INSERT INTO notes (text) VALUES ('buy milk')")
    conn.commit()
    conn.close()


def stamped(path: Path) -> None:
    """An empty database another application has stamped with its own application_id."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA application_id = 1196444237")  # "GPKG", a GeoPackage
    conn.close()


def wal_mode(path: Path) -> None:
    """Another application's database in WAL mode, checkpointed: opening it for reading would
    create its -wal and -shm files."""
    customers(path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


FOREIGN = {"customers": customers, "clashing tables": clashing, "other application_id": stamped, "wal mode": wal_mode}
COMMANDS = [
    ["index"],
    ["index", "--rebuild"],
    ["search", "worcester"],
    ["check", COVERED_MESSAGE],
    ["log"],
    ["log", "--purge"],
]


@pytest.mark.parametrize("make", FOREIGN.values(), ids=list(FOREIGN))
@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c[:2]) for c in COMMANDS])
def test_a_foreign_database_is_refused_and_left_unchanged(
    vault: Path, tmp_path: Path, make: object, command: list[str]
) -> None:
    db = tmp_path / "data" / "app.db"
    make(db)  # type: ignore[operator]
    before, listing = digest(db), sorted(p.name for p in db.parent.iterdir())
    proc = run(*command, "--notes", vault, "--db", db)
    err = proc.stderr.decode()
    assert proc.returncode == 1 and proc.stdout == b""
    assert err.startswith(f"Error: {db} is an SQLite database of another application (") and err.count("\n") == 1, err
    assert err.endswith(": notesdb leaves it alone; choose another --db\n")
    assert digest(db) == before  # byte for byte
    assert sorted(p.name for p in db.parent.iterdir()) == listing  # nothing moved aside, nothing beside it


@pytest.mark.parametrize("make", FOREIGN.values(), ids=list(FOREIGN))
def test_doctor_reports_a_foreign_database_and_repairs_nothing(vault: Path, tmp_path: Path, make: object) -> None:
    db = tmp_path / "data" / "app.db"
    make(db)  # type: ignore[operator]
    db.chmod(0o644)
    before = digest(db)
    for repair in ([], ["--repair"]):
        proc = run("doctor", "--notes", vault, "--db", db, *repair)
        out = proc.stdout.decode()
        assert proc.returncode == 1, out
        assert "another application" in out and "healthy" not in out.splitlines()[-1]
    assert digest(db) == before and db.stat().st_mode & 0o777 == 0o644  # not even its mode
    assert sorted(p.name for p in db.parent.iterdir()) == ["app.db"]


def test_the_hook_logs_a_foreign_database_and_stays_silent(vault: Path, tmp_path: Path) -> None:
    db = tmp_path / "data" / "app.db"
    customers(db)
    before = digest(db)
    proc = run("hook", "--notes", vault, "--db", db, stdin=event(COVERED_MESSAGE))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    entries = [json.loads(x) for x in (db.parent / "hook-errors.jsonl").read_text().split("\n") if x]
    assert len(entries) == 1 and "another application" in entries[0]["error"]
    assert digest(db) == before


def test_a_new_database_is_stamped(db_path: Path) -> None:
    conn = store.open_db(db_path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == store.APPLICATION_ID
    conn.close()
    store.check_ours(db_path)  # ours: no error


def test_a_database_made_before_the_stamp_is_recognised_and_stamped(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path, isolation_level=None)
    migrations.apply(Database(conn), stop_before="m010_application_id")
    conn.execute("INSERT INTO decisions(time, prompt) VALUES ('2026-01-01T00:00:00', 'kept')")
    assert conn.execute("PRAGMA application_id").fetchone()[0] == 0
    conn.close()
    conn = store.open_db(db_path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == store.APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION
    assert [r[0] for r in conn.execute("SELECT prompt FROM decisions")] == ["kept"]


def test_move_aside_refuses_a_foreign_database(tmp_path: Path) -> None:
    db = tmp_path / "data" / "app.db"
    customers(db)
    with pytest.raises(NotOurDatabase):
        store.move_aside(db)
    assert [p.name for p in db.parent.iterdir()] == ["app.db"]


# --- paths as SQLite URIs -----------------------------------------------------------

FOLDER_NAMES = ["a%41b", "what?mode=ro", "#1", "two words", "Ünïcødé 笔记", "100%", "%2e%2e"]


@pytest.mark.parametrize("name", FOLDER_NAMES)
def test_sqlite_uri_keeps_every_character(tmp_path: Path, name: str) -> None:
    path = tmp_path / name / "notes.db"
    path.parent.mkdir()
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.close()
    conn = sqlite3.connect(store.sqlite_uri(path, mode="ro"), uri=True)
    assert [r[0] for r in conn.execute("PRAGMA database_list")][0] == 0
    assert conn.execute("PRAGMA database_list").fetchone()[2] == str(path)
    conn.close()


@pytest.mark.parametrize("name", FOLDER_NAMES)
def test_index_hook_doctor_log_under_a_folder_with_uri_characters(indexed: tuple[Path, Path], tmp_path: Path, name: str) -> None:
    vault, template = indexed
    db = tmp_path / name / "notes.db"
    db.parent.mkdir()
    shutil.copyfile(template, db)
    db.chmod(0o600)
    assert run("index", "--notes", vault, "--db", db).returncode == 0
    proc = run("hook", "--notes", vault, "--db", db, stdin=event(COVERED_MESSAGE))
    assert proc.returncode == 0 and COVERED_NOTE.encode() in proc.stdout
    for repair in ([], ["--repair"]):
        proc = run("doctor", "--notes", vault, "--db", db, *repair)
        assert proc.returncode == 0 and proc.stdout.splitlines()[-1] == b"healthy", proc.stdout
    assert sorted(p.name for p in db.parent.iterdir() if ".damaged-" in p.name) == []  # nothing moved aside
    assert [r["prompt"] for r in decision_rows(db)] == [COVERED_MESSAGE]  # the log survived
    proc = run("log", "--notes", vault, "--db", db)
    assert proc.returncode == 0 and COVERED_MESSAGE.encode() in proc.stdout

"""Eight hook processes and a ``notesdb index`` started at once on one database.

Every hook must answer (exit 0, the documented output), nothing may print "database is
locked", every decision must reach the log, and the index must end consistent with the folder.
Lock waits are counted: a hook that finds another process syncing answers from the index as
it is and says so in its decision's ``error`` ("sync skipped").
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import COVERED_MESSAGE, NOTESDB_EXE, copy_vault
from test_faults import consistent, contract


HOOKS = 8
PROMPTS = [
    COVERED_MESSAGE,
    "the ecowitt weather station stopped uploading",
    "which week is the black bin",
    "garage door sensor battery died",
    "the inverter keeps saying grid lost in the afternoons",
    "how many eggs are the hens laying",
    "what did I say about british english",
    "prompt caching costs for long sessions",
]


def change_notes(vault: Path) -> None:
    """Edit a third of the notes, add 40, delete 20 and rename 10: work for every sync."""
    files = sorted(p for p in vault.rglob("*.md") if p.name != "MEMORY.md")
    for i, p in enumerate(files):
        if i % 3 == 0:
            p.write_text(p.read_text(encoding="utf-8", errors="replace") + f"\n\nedited {i} zanzibar{i}\n")
    for p in files[1:61:3]:
        p.unlink()
    for p in files[2:32:3]:
        p.rename(p.with_name("renamed-" + p.name))
    (vault / "added").mkdir()
    for i in range(40):
        (vault / "added" / f"new-{i}.md").write_text(f"# New note {i}\n\nquokka{i} and other things {i}\n")


def start_all(vault: Path, db: Path, tmp_path: Path) -> list[tuple[str, float, subprocess.Popen[bytes]]]:
    """Start the hooks and the index back to back, each with its input already waiting."""
    exe = str(NOTESDB_EXE)
    procs = []
    for i, prompt in enumerate(PROMPTS[:HOOKS]):
        f = tmp_path / f"event-{i}.json"
        f.write_text(json.dumps({"session_id": f"session-{i}", "cwd": "/tmp", "prompt": prompt}))
        with open(f, "rb") as stdin:
            procs.append(("hook", time.perf_counter(), subprocess.Popen(
                [exe, "hook", "--notes", str(vault), "--db", str(db)],
                stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            )))  # fmt: skip
        if i == HOOKS // 2:
            procs.append(("index", time.perf_counter(), subprocess.Popen(
                [exe, "index", "--notes", str(vault), "--db", str(db)],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            )))  # fmt: skip
    return procs


@pytest.mark.parametrize("state", ["notes just changed", "database deleted"])
def test_eight_hooks_and_an_index_at_once(tmp_path: Path, state: str) -> None:
    vault = copy_vault(tmp_path / "vault")
    db = tmp_path / "data" / "notes.db"
    proc = subprocess.run([str(NOTESDB_EXE), "index", "--notes", str(vault), "--db", str(db)], capture_output=True)
    assert proc.returncode == 0, proc.stderr
    if state == "notes just changed":
        change_notes(vault)
    else:
        change_notes(vault)
        for f in db.parent.iterdir():
            f.unlink()

    t0 = time.perf_counter()
    procs = start_all(vault, db, tmp_path)
    results = []
    for kind, started, p in procs:
        out, err = p.communicate(timeout=120)
        results.append((kind, p.returncode, time.perf_counter() - started, out, err))
    total = time.perf_counter() - t0

    for kind, code, _, out, err in results:
        assert code == 0, (kind, err[-2000:])
        assert b"database is locked" not in out + err
        assert b"Traceback" not in err, err[-2000:]
        if kind == "hook":
            assert err == b""
            contract(out)
    errors = db.parent / "hook-errors.jsonl"
    assert not errors.exists(), errors.read_text(errors="replace")[-2000:]

    conn = sqlite3.connect(db)
    decisions = conn.execute("SELECT session_id, route, error, elapsed_ms FROM decisions").fetchall()
    conn.close()
    assert sorted(d[0] for d in decisions) == [f"session-{i}" for i in range(HOOKS)]  # none lost
    assert not any(d[1] in ("error", "bad-input") for d in decisions)

    consistent(db, vault)  # as the processes left it, with no further sync

    waits = sum("sync skipped" in d[2] for d in decisions)
    hook_walls = [r[2] for r in results if r[0] == "hook"]
    index_wall = next(r[2] for r in results if r[0] == "index")
    print(
        f"\n[{state}] {HOOKS} hooks + 1 index on {os.cpu_count()} CPUs: {len(decisions)} decisions logged, "
        f"{waits} lock waits (sync skipped), hook wall {min(hook_walls):.2f}-{max(hook_walls):.2f} s, "
        f"hook in-process {min(d[3] for d in decisions):.0f}-{max(d[3] for d in decisions):.0f} ms, "
        f"index {index_wall:.2f} s, all done in {total:.2f} s"
    )


def test_concurrent_first_migration(tmp_path: Path) -> None:
    """Hooks racing to create and migrate a new database: each migration runs once."""
    vault = copy_vault(tmp_path / "vault")
    db = tmp_path / "data" / "notes.db"
    procs = start_all(vault, db, tmp_path)
    for kind, _, p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0 and b"Traceback" not in err, err[-2000:]
        if kind == "hook":
            contract(out)
    errors = db.parent / "hook-errors.jsonl"
    assert not errors.exists(), errors.read_text(errors="replace")[-2000:]
    conn = sqlite3.connect(db)
    names = [n for (n,) in conn.execute("SELECT name FROM _sqlite_migrations")]
    assert len(names) == len(set(names))
    assert conn.execute("SELECT count(*) FROM decisions").fetchone()[0] == HOOKS
    conn.close()
    consistent(db, vault)


def assert_held_connection_survives_an_outside_close(db: Path, held: sqlite3.Connection) -> None:
    """Another process opens and closes ``db`` while ``held`` is open: the write-ahead log must
    stay, and a write through ``held`` must reach a new connection. Closes ``held``."""
    held.execute("INSERT INTO meta (key, value) VALUES ('probe', 'before')")
    outside = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('SELECT 1 FROM meta').fetchall(); c.close()"
    subprocess.run([sys.executable, "-c", outside, str(db)], check=True)
    assert Path(f"{db}-wal").exists(), "the write-ahead log was deleted under an open connection"
    held.execute("UPDATE meta SET value = 'after' WHERE key = 'probe'")
    fresh = sqlite3.connect(db)
    try:
        assert fresh.execute("SELECT value FROM meta WHERE key = 'probe'").fetchone() == ("after",)
    finally:
        fresh.close()
        held.close()


def test_opening_the_database_again_keeps_the_process_locks(tmp_path: Path) -> None:
    """A process that keeps a connection open (the warm process) opens the database again for
    every answer. That must not drop the process's POSIX locks on the file (closing any other
    descriptor of it would), or the next program that opens and closes the database, such as
    ``sqlite3`` or ``notesdb log``, deletes the write-ahead log from under the open connection
    and every later write through it is lost."""
    from notesdb.db import open_db

    db = tmp_path / "notes.db"
    held = open_db(db)
    for _ in range(3):  # what each warm answer does
        open_db(db).close()
    assert_held_connection_survives_an_outside_close(db, held)


def test_checking_the_database_in_another_thread_keeps_the_locks(tmp_path: Path) -> None:
    """Whatever checks a database's header while this process holds a connection to it (a
    second thread creating or checking it, ``check_ours``, the test for moving a damaged file
    aside) reads through a descriptor it never closes, so the connection keeps its locks; and
    threads opening one new database at once take turns, so none checks a half-made header."""
    import threading

    from notesdb.db import SCHEMA_VERSION, _looks_like_database, check_ours, open_db

    db = tmp_path / "notes.db"
    versions: list[int] = []
    errors: list[BaseException] = []

    def opener() -> None:
        try:
            conn = open_db(db)
            versions.append(conn.execute("PRAGMA user_version").fetchone()[0])
            conn.close()
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=opener) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and versions == [SCHEMA_VERSION] * 4
    held = open_db(db)
    check_ours(db)
    assert _looks_like_database(db)
    assert_held_connection_survives_an_outside_close(db, held)


def test_a_new_database_waits_for_a_reader_to_become_wal(tmp_path: Path) -> None:
    """Making a new file WAL needs it to itself. Another process reading the file then (as when
    hooks open a new database at once) makes SQLite answer "database is locked" after the busy
    timeout, or at once when both want the change; opening waits as long as for a migration
    (``MIGRATION_WAIT_MS``), so a reader holding it 1.5 s, longer than ``BUSY_TIMEOUT_MS``,
    delays the open and fails nothing."""
    import threading

    from notesdb.db import BUSY_TIMEOUT_MS, MIGRATION_WAIT_MS, open_db

    assert BUSY_TIMEOUT_MS < 1500 < MIGRATION_WAIT_MS
    db = tmp_path / "notes.db"
    db.touch()  # a new file: no journal mode set yet
    reader = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,)  # a shared lock
    release = threading.Timer(1.5, reader.execute, ["COMMIT"])
    release.start()
    try:
        conn = open_db(db)
    finally:
        release.join()
        reader.close()
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    conn.close()

"""What the person typed stays theirs: private files, prompts purged on request or never
stored, and nothing sent over the network."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import COVERED_MESSAGE, COVERED_NOTE, NOTESDB_EXE
from test_faults import event, hook, rows

from notesdb.db import open_db
from notesdb.sync import sync


SECRET = "my passphrase is quixotic-marmalade-7731 and the worcester boiler shows EA229 again"
NEEDLE = b"quixotic-marmalade-7731"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def raw_bytes(db: Path) -> bytes:
    """Every byte notesdb keeps beside this database."""
    return b"".join(p.read_bytes() for p in db.parent.iterdir() if p.is_file())


@pytest.fixture
def open_umask() -> object:
    """Run with umask 000, so only notesdb's own care keeps the files private."""
    old = os.umask(0)
    yield
    os.umask(old)


# --- owner-only files -------------------------------------------------------------


def test_database_wal_shm_and_lock_are_owner_only(open_umask: object, vault: Path, tmp_path: Path) -> None:
    db = tmp_path / "data" / "notes.db"
    proc = subprocess.run([str(NOTESDB_EXE), "index", "--notes", str(vault), "--db", str(db)], capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert mode(db.parent) == 0o700
    conn = open_db(db)  # while a connection is open the -wal and -shm files exist
    (vault / "projects" / "new.md").write_text("# New\n\nwords\n")
    sync(conn, vault)
    hook(vault, db, event(SECRET))  # another process writes while this one holds the files
    for name in ("notes.db", "notes.db-wal", "notes.db-shm", "notes.db.lock"):
        path = db.parent / name
        assert path.exists(), name
        assert mode(path) == 0o600, (name, oct(mode(path)))
    conn.close()


def test_hook_errors_file_is_owner_only(open_umask: object, vault: Path, tmp_path: Path) -> None:
    db = tmp_path / "data" / "notes.db"
    db.parent.mkdir(mode=0o700)
    conn = sqlite3.connect(db)  # a database from a newer notesdb: left alone, noted in the file
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    hook(vault, db, event(SECRET))
    errors = db.parent / "hook-errors.jsonl"
    assert mode(errors) == 0o600
    assert NEEDLE not in errors.read_bytes()  # the fallback log never holds the prompt


def test_a_new_database_from_the_hook_is_owner_only(open_umask: object, vault: Path, tmp_path: Path) -> None:
    db = tmp_path / "fresh" / "nested" / "notes.db"
    hook(vault, db, event(SECRET))
    assert mode(db) == 0o600
    assert mode(db.parent) == 0o700


def test_an_existing_database_readable_by_others_is_made_owner_only(open_umask: object, vault: Path, tmp_path: Path) -> None:
    db = tmp_path / "e.db"
    db.touch()
    db.chmod(0o644)  # ': > e.db; chmod 644 e.db', then the hook logs a prompt into it
    hook(vault, db, event(SECRET))
    assert mode(db) == 0o600
    assert rows(db)[-1]["prompt"] == SECRET


def test_loose_wal_and_shm_files_are_made_owner_only(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    conn = sqlite3.connect(db)  # held open, so the -wal and -shm files stay
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE IF NOT EXISTS kept_open(x)")
    files = [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]
    for f in files:
        f.chmod(0o644)
    hook(vault, db, event(SECRET))
    assert [oct(mode(f)) for f in files] == ["0o600"] * 3
    conn.close()


def test_another_users_database_keeps_its_mode(vault: Path, tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give the file to another user")
    db = tmp_path / "theirs.db"
    open_db(db).close()
    os.chown(db, 65534, 65534)  # nobody
    db.chmod(0o644)
    hook(vault, db, event("the worcester boiler again"))
    assert mode(db) == 0o644 and db.stat().st_uid == 65534
    assert rows(db)[-1]["route"] != "error"


# --- purging logged prompts ------------------------------------------------------------


def test_log_purge_deletes_every_prompt_byte(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    for _ in range(3):
        hook(vault, db, event(SECRET))
    assert NEEDLE in raw_bytes(db)
    proc = subprocess.run(
        [str(NOTESDB_EXE), "log", "--purge", "--notes", str(vault), "--db", str(db)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "deleted 3 logged decisions\n"
    assert rows(db) == []
    assert NEEDLE not in raw_bytes(db)  # not in free pages, not in the write-ahead log


def test_log_purge_before_a_date(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    hook(vault, db, event("old message about the worcester boiler"))
    hook(vault, db, event("older message about the worcester boiler"))
    hook(vault, db, event("new message about the worcester boiler"))
    conn = sqlite3.connect(db)
    ids = [r["id"] for r in rows(db)]
    conn.execute("UPDATE decisions SET time = '2024-03-01T10:00:00.000+00:00' WHERE id = ?", (ids[0],))
    conn.execute("UPDATE decisions SET time = '2025-06-30T23:59:59.000+00:00' WHERE id = ?", (ids[1],))
    conn.commit()
    conn.close()
    base = [str(NOTESDB_EXE), "log", "--purge", "--notes", str(vault), "--db", str(db)]
    proc = subprocess.run([*base, "--before", "2025-01-01"], capture_output=True, text=True)
    assert proc.stdout == "deleted 1 logged decision\n", proc.stderr
    assert [r["prompt"] for r in rows(db)] == ["older message about the worcester boiler", "new message about the worcester boiler"]
    proc = subprocess.run([*base, "--before", "2025-07-01T00:00:00+00:00"], capture_output=True, text=True)
    assert proc.stdout == "deleted 1 logged decision\n", proc.stderr
    assert [r["prompt"] for r in rows(db)] == ["new message about the worcester boiler"]
    assert b"old message about" not in raw_bytes(db)


def test_log_before_a_date_shows_only_older_decisions(indexed: tuple[Path, Path]) -> None:
    # without --purge, --before filters what is shown instead of being ignored
    vault, db = indexed
    hook(vault, db, event("old message about the worcester boiler"))
    hook(vault, db, event("new message about the worcester boiler"))
    conn = sqlite3.connect(db)
    conn.execute("UPDATE decisions SET time = '2024-03-01T10:00:00.000+00:00' WHERE id = ?", (rows(db)[0]["id"],))
    conn.commit()
    conn.close()
    proc = cli("log", "--json", "--before", "2025-01-01", "--db", db)
    assert proc.returncode == 0, proc.stderr
    assert [r["prompt"] for r in json.loads(proc.stdout)] == ["old message about the worcester boiler"]
    proc = cli("log", "--before", "2024-01-01", "--db", db)
    assert (proc.returncode, proc.stdout) == (0, "no decisions logged before 2024-01-01\n")
    proc = cli("log", "--before", "last week", "--db", db)
    assert (proc.returncode, proc.stderr) == (1, "Error: --before takes a date like 2026-01-31, not 'last week'\n")
    assert len(rows(db)) == 2  # nothing purged


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(NOTESDB_EXE), *map(str, args)], capture_output=True, text=True, timeout=120)


def test_index_rebuild_keeps_the_file_and_its_log(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    hook(vault, db, event(SECRET))
    (vault / "projects" / "extra.md").write_text("# Extra\n\nzyzzyva\n")
    proc = cli("index", "--rebuild", "--notes", vault, "--db", db)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Rebuilt the index from the notes in the same file (the decisions log is kept).\n")
    assert "could not be read" not in proc.stdout
    assert sorted(p.name for p in db.parent.iterdir() if ".damaged-" in p.name) == []  # nothing moved aside
    assert [r["prompt"] for r in rows(db)] == [SECRET]
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM notes").fetchone()[0] == 64
    assert conn.execute("SELECT path FROM notes_fts JOIN notes ON notes.id = notes_fts.rowid "
                        "WHERE notes_fts MATCH 'zyzzyva'").fetchall() == [("projects/extra.md",)]  # fmt: skip
    conn.close()
    out = json.loads(cli("index", "--rebuild", "--json", "--notes", vault, "--db", db).stdout)
    assert (out["rebuilt"], out["moved_aside"], len(out["added"])) == (True, None, 64)


def test_purge_reaches_copies_moved_aside_and_hook_errors(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    hook(vault, db, event(SECRET))
    # a readable copy moved aside by an older notesdb, and a damaged one holding the secret too
    readable = db.with_name(db.name + ".damaged-20250101T000000Z")
    conn = sqlite3.connect(db)
    conn.execute("VACUUM INTO ?", (str(readable),))
    conn.close()
    damaged = db.with_name(db.name + ".damaged-20250202T000000Z")
    damaged.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200 + NEEDLE)
    errors = db.with_name("hook-errors.jsonl")
    errors.write_text(json.dumps({"time": "2025-01-01T00:00:00", "error": f"ValueError: {SECRET}"}) + "\n")
    proc = cli("log", "--purge", "--notes", vault, "--db", db)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n") == [
        "deleted 1 logged decision",
        f"deleted 1 from {readable.name}, a copy moved aside earlier",
        f"deleted 1 entry from {errors}",
        "",
    ]
    assert proc.stderr == (
        f"warning: {damaged} (a damaged copy moved aside) may still hold logged messages and cannot be "
        "purged: delete it if they must go\n"
    )
    assert rows(readable) == [] and NEEDLE not in readable.read_bytes()
    assert errors.read_text() == ""
    damaged.unlink()
    assert NEEDLE not in raw_bytes(db)


def test_purge_names_the_exports_it_wrote(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    vault, db = indexed
    hook(vault, db, event(SECRET))
    (decision,) = rows(db)
    assert cli("label", "set", str(decision["id"]), "right", "--notes", vault, "--db", db).returncode == 0
    export = tmp_path / "cases.jsonl"
    assert cli("label", "export", export, "--notes", vault, "--db", db).returncode == 0
    proc = cli("log", "--purge", "--notes", vault, "--db", db)
    assert proc.returncode == 0
    assert proc.stderr == (
        f"warning: {export} (written by 'notesdb label export') still holds logged messages: "
        "delete it if they must go\n"
    )
    export.unlink()
    assert cli("log", "--purge", "--notes", vault, "--db", db).stderr == ""  # gone: nothing to name


def test_label_export_is_owner_only(open_umask: object, indexed: tuple[Path, Path], tmp_path: Path) -> None:
    vault, db = indexed
    hook(vault, db, event(SECRET))
    (decision,) = rows(db)
    assert cli("label", "set", str(decision["id"]), "right", "--notes", vault, "--db", db).returncode == 0
    export = tmp_path / "cases.jsonl"
    export.write_text("an older file, readable by all\n")
    export.chmod(0o666)
    proc = cli("label", "export", export, "--notes", vault, "--db", db, "--force")
    assert proc.returncode == 0, proc.stderr
    assert mode(export) == 0o600
    assert NEEDLE in export.read_bytes()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_label_export_does_not_replace_a_file_it_did_not_write(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    vault, db = indexed
    hook(vault, db, event(SECRET))
    (decision,) = rows(db)
    assert cli("label", "set", str(decision["id"]), "right", "--db", db).returncode == 0
    other = tmp_path / "thesis.txt"
    other.write_bytes(b"three years of work\n")
    proc = cli("label", "export", other, "--db", db)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == f"Error: {other} exists and is not an earlier export: pass --force to replace it\n"
    assert other.read_bytes() == b"three years of work\n"
    # a file this database exported before is replaced without --force
    export = tmp_path / "cases.jsonl"
    assert cli("label", "export", export, "--db", db).returncode == 0
    assert cli("label", "export", export, "--db", db).returncode == 0
    assert cli("label", "export", other, "--db", db, "--force").returncode == 0
    assert NEEDLE in other.read_bytes()


def test_purge_says_when_the_write_ahead_log_stays_busy(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    hook(vault, db, event(SECRET))
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM decisions").fetchone()  # a read snapshot the checkpoint must wait for
    try:
        proc = cli("log", "--purge", "--notes", vault, "--db", db)
    finally:
        reader.execute("COMMIT")
        reader.close()
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == (
        f"Error: deleted 1 logged decision, but another process is using the database, so their text "
        f"may remain in {db}-wal: run 'notesdb log --purge' again in a moment\n"
    )
    proc = cli("log", "--purge", "--notes", vault, "--db", db)  # the retry finishes the job
    assert (proc.returncode, proc.stdout) == (0, "deleted 0 logged decisions\n")
    assert NEEDLE not in raw_bytes(db)


# --- not storing prompts at all ---------------------------------------------------------


def check_not_stored(vault: Path, db: Path, *extra: str, env: dict[str, str] | None = None) -> None:
    before = len(rows(db))
    outs = []
    for session, prompt in (("s-secret", SECRET), ("s-covered", COVERED_MESSAGE)):  # two conversations
        proc = subprocess.run(
            [str(NOTESDB_EXE), "hook", "--notes", str(vault), "--db", str(db), *extra],
            input=event(prompt, session=session), capture_output=True, env=env, timeout=60,
        )  # fmt: skip
        assert proc.returncode == 0 and proc.stderr == b""
        outs.append(proc.stdout)
    assert COVERED_NOTE.encode() in outs[1]  # it still answers
    after = rows(db)
    assert len(after) == before + 2  # and still logs each decision, without the prompt
    assert [r["prompt"] for r in after[-2:]] == [None, None]
    assert after[-2]["route"] and json.loads(after[-1]["notes"])[0] == COVERED_NOTE
    assert NEEDLE not in raw_bytes(db)


def test_no_log_option(indexed: tuple[Path, Path]) -> None:
    check_not_stored(*indexed, "--no-log")


def test_config_option_log_prompts_false(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    conf = tmp_path / "notesdb.toml"
    conf.write_text("[log]\nprompts = false\n")
    check_not_stored(*indexed, "--config", str(conf))


def test_config_from_the_environment_log_prompts_false(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    conf = tmp_path / "private.toml"
    conf.write_text("[log]\nprompts = false\n")
    check_not_stored(*indexed, env={**os.environ, "NOTESDB_CONFIG": str(conf)})


def test_config_in_the_user_config_folder(indexed: tuple[Path, Path], isolated_home: Path) -> None:
    conf = isolated_home / ".config" / "notesdb" / "notesdb.toml"
    conf.parent.mkdir(parents=True)
    conf.write_text("[log]\nprompts = false\n")
    check_not_stored(*indexed)


def test_a_misspelt_log_setting_stores_no_prompt(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    """``[log] prompt = false`` (for ``prompts``) is an error the hook records, not a setting it
    ignores while logging the message: nothing of the message reaches the database."""
    vault, db = indexed
    conf = tmp_path / "notesdb.toml"
    conf.write_text("[log]\nprompt = false\n")
    before = len(rows(db))
    proc = subprocess.run(
        [str(NOTESDB_EXE), "hook", "--notes", str(vault), "--db", str(db), "--config", str(conf)],
        input=event(SECRET), capture_output=True, timeout=60,
    )  # fmt: skip
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert len(rows(db)) == before
    assert NEEDLE not in raw_bytes(db)
    errors = (db.parent / "hook-errors.jsonl").read_text()
    assert "unknown [log] setting 'prompt', did you mean 'prompts'?" in errors and NEEDLE.decode() not in errors


# --- no network ------------------------------------------------------------------------------


class NetworkUsed(AssertionError):
    pass


def test_the_hook_opens_no_socket(vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from notesdb import hook as hook_module

    attempts: list[str] = []

    class NoSocket(socket.socket):
        def __init__(self, *args: object, **kwargs: object) -> None:
            attempts.append(f"socket{args}")
            raise NetworkUsed("the hook tried to open a socket")

    def refuse(name: str):  # type: ignore[no-untyped-def]
        def call(*args: object, **kwargs: object) -> None:
            attempts.append(f"{name}{args}")
            raise NetworkUsed(f"the hook called socket.{name}")

        return call

    monkeypatch.setattr(socket, "socket", NoSocket)
    for name in ("create_connection", "getaddrinfo", "gethostbyname", "socketpair", "fromfd"):
        monkeypatch.setattr(socket, name, refuse(name))
    audited: list[str] = []
    watching = [True]

    def audit(event_name: str, args: tuple) -> None:  # socket events that bypass the patch
        if watching[0] and event_name.startswith(("socket.", "urllib.", "http.")):
            audited.append(event_name)

    sys.addaudithook(audit)
    db = tmp_path / "data" / "notes.db"
    args = ["--notes", str(vault), "--db", str(db)]
    try:
        outs = [hook_module.run(event(COVERED_MESSAGE), args) for _ in range(6)]
        outs.append(hook_module.run(event(SECRET), args))
        outs.append(hook_module.run(b"{broken", args))
    finally:
        watching[0] = False
    assert attempts == [] and audited == []
    assert any(COVERED_NOTE in o for o in outs)  # the whole path ran: create, index, speak
    assert len(rows(db)) == 8


def _held_open_with_side_files(db: Path, side_mode: int) -> sqlite3.Connection:
    """A connection to ``db`` that keeps its ``-wal`` and ``-shm`` files, set to ``side_mode``."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE IF NOT EXISTS kept_open(x)")
    for suffix in ("-wal", "-shm"):
        db.with_name(db.name + suffix).chmod(side_mode)
    return conn


def test_side_files_left_read_only_are_made_writable_again(indexed: tuple[Path, Path]) -> None:
    """SQLite gives the -wal and -shm files it creates the database file's mode: after the
    database was 0400 once, a -shm left at 0400 makes every later write of a non-root user fail
    ("attempt to write a readonly database"). notesdb sets them to 0600 whatever the database's
    mode; the database itself keeps the mode its owner chose."""
    vault, db = indexed
    db.chmod(0o400)
    conn = _held_open_with_side_files(db, 0o400)  # as SQLite leaves them after 'chmod 400 db'
    try:
        hook(vault, db, event(SECRET))
        sides = [db.with_name(db.name + s) for s in ("-wal", "-shm")]
        assert [oct(mode(f)) for f in sides] == ["0o600"] * 2
        assert mode(db) == 0o400
    finally:
        conn.close()
        db.chmod(0o600)


def test_doctor_reports_and_repairs_side_files_not_writable_by_their_owner(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    conn = _held_open_with_side_files(db, 0o400)
    try:
        args = [str(NOTESDB_EXE), "doctor", "--notes", str(vault), "--db", str(db), "--json"]
        found = subprocess.run(args, capture_output=True, text=True, timeout=120)
        checks = {c["name"]: c for c in json.loads(found.stdout)["checks"]}
        assert found.returncode == 1, found.stderr
        assert checks["permissions"]["status"] == "problem"
        assert "notes.db-wal 400" in checks["permissions"]["detail"]
        assert "notes.db-shm 400" in checks["permissions"]["detail"]
        repaired = subprocess.run([*args, "--repair"], capture_output=True, text=True, timeout=120)
        checks = {c["name"]: c for c in json.loads(repaired.stdout)["checks"]}
        assert checks["permissions"]["status"] == "fixed", checks["permissions"]
        assert "notes.db-shm 400" in checks["permissions"]["detail"]
        assert [oct(mode(db.with_name(db.name + s))) for s in ("-wal", "-shm")] == ["0o600"] * 2
    finally:
        conn.close()


def test_purge_and_doctor_read_a_line_nested_too_deeply(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    """A line of 100,000 nested brackets in hook-errors.jsonl: Python's JSON parser raises
    RecursionError, not ValueError; log --purge deleted the decisions, then stopped with a
    traceback and left the file's entries (session ids and all) in place; doctor and eval
    gave tracebacks too."""
    vault, db = indexed
    hook(vault, db, event(SECRET))
    errors = db.with_name("hook-errors.jsonl")
    deep = "[" * 100_000 + "]" * 100_000
    errors.write_text(json.dumps({"time": "2025-01-01T00:00:00", "error": f"ValueError: {SECRET}"}) + "\n" + deep + "\n")
    proc = cli("doctor", "--notes", vault, "--db", db)
    assert "Traceback" not in proc.stderr and "hook errors:" in proc.stdout, proc.stderr[-500:]
    proc = cli("log", "--purge", "--notes", vault, "--db", db)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert f"deleted 2 entries from {errors}" in proc.stdout, proc.stdout
    assert errors.read_text() == "" and rows(db) == []
    cases = tmp_path / "deep.jsonl"
    cases.write_text(deep + "\n")
    proc = cli("eval", str(cases), "--notes", vault, "--db", db)
    assert (proc.returncode, proc.stderr) == (1, f"Error: {cases}:1: not valid JSON (nested too deeply)\n")


@pytest.fixture
def bound_twice(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A notes folder and a second path to the same folder (a bind mount: as ``~/Notes`` and
    ``~/notes`` on a case-insensitive disk); skipped where mounting is not allowed."""
    notes, other = tmp_path / "notes", tmp_path / "other"
    notes.mkdir()
    other.mkdir()
    (notes / "boiler.md").write_text("# Boiler\n\nWorcester Bosch, pressure 1.2 bar.\n")
    if subprocess.run(["mount", "--bind", str(notes), str(other)], capture_output=True).returncode != 0:
        pytest.skip("bind mounts are not allowed here")
    try:
        yield notes, other
    finally:
        subprocess.run(["umount", str(other)], check=True)


def test_a_database_through_another_path_to_the_notes_folder_is_refused(bound_twice: tuple[Path, Path],
                                                                        isolated_home: Path) -> None:
    """The notes folder was compared by its text: a --db under a second path to the same
    folder wrote the database, its lock and its WAL into the notes."""
    notes, other = bound_twice
    before = sorted(p.name for p in notes.iterdir())
    proc = subprocess.run([str(NOTESDB_EXE), "index", "--notes", str(notes), "--db", str(other / "n.db")],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr == (f"Error: the database {other / 'n.db'} would be inside the notes folder {notes}: "
                           "notesdb never writes there; choose another --db\n")  # fmt: skip
    _, line = hook(other, notes / "sub" / "n.db", event(COVERED_MESSAGE))  # the hook too: silent
    assert line is None
    assert sorted(p.name for p in notes.iterdir()) == before
    [logged] = [json.loads(x) for x in (isolated_home / ".local/share/notesdb/hook-errors.jsonl").read_text().splitlines()]
    assert "would be inside the notes folder" in logged["error"]


def test_terminal_controls_in_a_note_name_do_not_reach_the_terminal(tmp_path: Path) -> None:
    """A file name holding ESC sequences (a cloned folder: set the window title, clear the
    screen) reached the terminal as they were through index, doctor and check --explain; each
    control is shown as ? there, as search and log already showed it."""
    notes, db = tmp_path / "notes", tmp_path / "n.db"
    notes.mkdir()
    name = "esc\x1b]0;TITLE\x07 \x1b[2J q2esc.md"
    (notes / name).write_bytes(b"# q2esc\n\nbody \xff\n")  # a byte that is not UTF-8: a problem line
    shown = "esc?]0;TITLE? ?[2J q2esc.md"
    outputs = {}
    for args in (["index", "-v"], ["doctor"], ["check", "q2esc", "--explain"], ["search", "q2esc"]):
        proc = subprocess.run([str(NOTESDB_EXE), *args, "--notes", str(notes), "--db", str(db)],
                              capture_output=True, timeout=120)  # fmt: skip
        outputs[args[0]] = proc.stdout.decode()
        assert b"\x1b" not in proc.stdout + proc.stderr and b"\x07" not in proc.stdout + proc.stderr, args
    assert shown in outputs["index"] and shown in outputs["doctor"] and shown in outputs["check"], outputs
    # JSON keeps the name exactly, escaped as JSON escapes it
    proc = subprocess.run([str(NOTESDB_EXE), "search", "q2esc", "--json", "--notes", str(notes), "--db", str(db)],
                          capture_output=True, timeout=120)  # fmt: skip
    assert json.loads(proc.stdout)["results"][0]["path"] == name

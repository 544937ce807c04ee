"""``notesdb hook --warm``: the resident ``notesdb mcp`` process answers over a Unix socket when
it is up; when it is not (never started, killed, stale socket) the hook judges the message
itself. Real processes, real socket, real database."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import COVERED_MESSAGE, COVERED_NOTE, NOTESDB_EXE, decision_rows

from notesdb.hook import MAX_LOGGED_PROMPT
from notesdb.warm import WarmListener, ask, parse_request, socket_path

pytestmark = pytest.mark.skipif(not NOTESDB_EXE.exists(), reason="the notesdb console script is not installed")

HIT = COVERED_MESSAGE
MISS = "thanks, that worked"
#: Modules that show the message was judged in this process rather than by the warm one.
JUDGING = ("notesdb.decide", "notesdb.db", "notesdb.rank", "notesdb.query")
HEAVY = ("mcp", "typer", "click", "sqlite_utils", "markdown_it", "yaml", "rich", "numpy", "pydantic", "anyio")


def event(prompt: str, session: str = "s") -> bytes:
    return json.dumps({"prompt": prompt, "session_id": session, "cwd": "/w", "hook_event_name": "UserPromptSubmit"}).encode()


def hook(vault: Path, db: Path, prompt: str, *flags: str, session: str = "s") -> tuple[str, set[str]]:
    """Run the console script's entry point once, for a message of conversation ``session`` (a
    note already named in that conversation is held back); returns (stdout, modules imported)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "notesdb", "hook", *flags, "--notes", str(vault), "--db", str(db)],
        input=event(prompt, session), capture_output=True, timeout=60,
    )
    assert proc.returncode == 0
    lines = proc.stderr.decode().splitlines()
    assert all(ln.startswith("import time:") for ln in lines), lines  # nothing but the import log
    imported = {ln.rsplit("|", 1)[1].strip() for ln in lines if ln.count("|") == 2}
    return proc.stdout.decode(), imported


def start_server(vault: Path, db: Path) -> subprocess.Popen[bytes]:
    """``notesdb mcp`` as a client starts it (stdin kept open); returns once its socket answers."""
    proc = subprocess.Popen([str(NOTESDB_EXE), "mcp", "--notes", str(vault), "--db", str(db)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    path = socket_path(db)
    for _ in range(200):
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(str(path))
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"no socket at {path}: {proc.stderr.read().decode() if proc.stderr else ''}")


def stop(proc: subprocess.Popen[bytes]) -> int:
    assert proc.stdin is not None
    proc.stdin.close()
    return proc.wait(timeout=30)


def test_without_a_warm_process_the_hook_judges_itself_and_stays_lean(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    assert not Path(socket_path(db)).exists()
    cold, _ = hook(vault, db, HIT, session="s-cold")
    warm_out, imported = hook(vault, db, HIT, "--warm", session="s-warm")
    assert f"({vault / COVERED_NOTE})" in warm_out
    assert warm_out == cold
    assert set(JUDGING) <= imported  # judged here
    assert {m for m in imported if m.split(".")[0] in HEAVY} == set()
    assert hook(vault, db, MISS, "--warm")[0] == ""
    assert len(decision_rows(db)) == 3


def test_warm_process_answers_the_same_and_logs_once(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    cold_hit, _ = hook(vault, db, HIT, session="s-cold")
    cold_miss, _ = hook(vault, db, MISS, session="s-cold")
    server = start_server(vault, db)
    try:
        before = len(decision_rows(db))
        out, imported = hook(vault, db, HIT, "--warm")
        assert out == cold_hit and f"({vault / COVERED_NOTE})" in out
        assert not set(JUDGING) & imported  # the warm process judged it
        assert {m for m in imported if m.split(".")[0] in HEAVY} == set()
        # the client side loads no more than the socket module of C and the notesdb entry
        assert not {"notesdb.hook", "notesdb.config", "json", "socket", "selectors", "threading"} & imported
        assert hook(vault, db, MISS, "--warm")[0] == cold_miss == ""
        # the warm process holds back a note already named in the conversation, as the hook does
        assert hook(vault, db, HIT, "--warm")[0] == ""
        rows = decision_rows(db)[before:]
        assert [(r["prompt"], r["spoken"], r["session_id"], r["cwd"]) for r in rows] == [
            (HIT, 1, "s", "/w"), (MISS, 0, "s", "/w"), (HIT, 0, "s", "/w")]
        assert rows[-1]["route"] == "said-before"
    finally:
        assert stop(server) == 0
    assert not Path(socket_path(db)).exists()  # removed on a clean exit


def test_killing_the_warm_process_mid_session_leaves_every_later_prompt_working(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    server = start_server(vault, db)
    first, imported = hook(vault, db, HIT, "--warm", session="s-0")
    assert f"({vault / COVERED_NOTE})" in first and not set(JUDGING) & imported
    server.send_signal(signal.SIGKILL)
    server.wait(timeout=30)
    assert Path(socket_path(db)).exists()  # a stale socket is left behind
    for i, prompt in enumerate((HIT, MISS, HIT), start=1):
        out, imported = hook(vault, db, prompt, "--warm", session=f"s-{i}")
        assert out == (first if prompt == HIT else "")
        assert set(JUDGING) <= imported  # judged here, no error
    # a new warm process replaces the stale socket and serves again
    server = start_server(vault, db)
    try:
        out, imported = hook(vault, db, HIT, "--warm", session="s-4")
        assert out == first and not set(JUDGING) & imported
    finally:
        stop(server)
    assert [r["spoken"] for r in decision_rows(db)] == [1, 1, 0, 1, 1]


def test_warm_path_reads_the_folder_and_database_from_the_environment(indexed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    vault, db = indexed
    monkeypatch.setenv("NOTESDB_NOTES", str(vault))
    monkeypatch.setenv("NOTESDB_DB", str(db))
    server = start_server(vault, db)
    try:
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "notesdb", "hook", "--warm"],
                              input=event(HIT), capture_output=True, timeout=60)
        assert f"({vault / COVERED_NOTE})".encode() in proc.stdout
        assert b"notesdb.decide" not in proc.stderr  # answered by the warm process
    finally:
        stop(server)


def test_warm_path_without_a_notes_folder_logs_the_problem_like_the_hook(tmp_path: Path) -> None:
    proc = subprocess.run([str(NOTESDB_EXE), "hook", "--warm"], input=event(HIT), capture_output=True, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    log = Path(os.environ["XDG_DATA_HOME"]) / "notesdb" / "hook-errors.jsonl"
    assert "no notes folder" in json.loads(log.read_text().splitlines()[-1])["error"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_signal_ends_the_server_and_removes_its_socket(indexed: tuple[Path, Path], sig: int) -> None:
    vault, db = indexed
    server = start_server(vault, db)
    time.sleep(1.5)  # past the SDK's start-up
    server.send_signal(sig)
    assert server.wait(timeout=10) == 0
    assert not Path(socket_path(db)).exists()
    assert server.stderr is not None and b"Traceback" not in server.stderr.read()


def test_a_second_warm_process_leaves_the_first_one_serving(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    first = start_server(vault, db)
    second = subprocess.Popen([str(NOTESDB_EXE), "mcp", "--notes", str(vault), "--db", str(db)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(1.0)
        assert Path(socket_path(db)).exists()
        assert stop(second) == 0
        assert Path(socket_path(db)).exists()  # the second did not remove the first one's socket
        out, imported = hook(vault, db, HIT, "--warm")
        assert f"({vault / COVERED_NOTE})" in out and not set(JUDGING) & imported
    finally:
        stop(first)


def test_listener_socket_is_private_and_a_broken_judge_means_judge_here(tmp_path: Path) -> None:
    path = tmp_path / "w" / "n.db.sock"

    def broken(raw: bytes, argv: list[str]) -> str:
        raise RuntimeError("boom")

    listener = WarmListener(path, broken)
    listener.start()
    try:
        assert listener.serving.wait(5)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert ask(path, ["--notes", "x"], event(HIT)) is None  # no answer: the client judges
    finally:
        listener.close()
    assert not path.exists()
    assert ask(path, [], event(HIT)) is None  # nothing listening


def test_listener_answers_what_the_judge_returns(tmp_path: Path) -> None:
    seen: list[tuple[bytes, list[str]]] = []

    def judge(raw: bytes, argv: list[str]) -> str:
        seen.append((raw, argv))
        return "" if b"thanks" in raw else '{"hookSpecificOutput": {"additionalContext": "ünï"}}'

    listener = WarmListener(tmp_path / "n.db.sock", judge)
    listener.start()
    try:
        assert listener.serving.wait(5)
        assert ask(listener.path, ["--db", "d"], event(HIT)) == '{"hookSpecificOutput": {"additionalContext": "ünï"}}'
        assert ask(listener.path, [], event(MISS)) == ""  # silence is an answer, not a failure
    finally:
        listener.close()
    assert seen[0] == (event(HIT), ["--db", "d"])


def test_socket_path_falls_back_to_a_short_private_path(tmp_path: Path) -> None:
    short = tmp_path / "n.db"
    assert socket_path(short) == str(short) + ".sock"
    deep = tmp_path / ("d" * 120) / "notes.db"
    p = Path(socket_path(deep))
    assert len(os.fsencode(str(p))) <= 100
    assert p.parent.name == f"notesdb-{os.getuid()}"
    assert socket_path(str(deep)) == str(p)  # the client and the server agree


def test_request_round_trip_keeps_odd_arguments_and_bytes() -> None:
    argv = ["--notes", "/n/with\nnewline and ünï", "--db", "/d.db", "--no-log"]
    raw = b'{"prompt": "\\ud800 x"}\n\x00\xff'
    head = "\0".join(argv).encode()
    assert parse_request(b"%d\n" % len(head) + head + raw) == (argv, raw)
    with pytest.raises(ValueError):
        parse_request(b"99\nshort")


FOREIGN_SERVER = """
import os, socket, sys
path = sys.argv[1]
s = socket.socket(socket.AF_UNIX)
s.bind(path)
os.chmod(path, 0o777)
os.setuid(65534)  # nobody
s.listen(1)
print("ready", flush=True)
c, _ = s.accept()
c.recv(65536)
c.sendall(b'ok\\n{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "INJECTED"}}')
c.close()
"""


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to run a server as another user")
def test_an_answer_from_another_users_socket_is_never_used(tmp_path: Path) -> None:
    path = tmp_path / "n.db.sock"
    proc = subprocess.Popen([sys.executable, "-c", FOREIGN_SERVER, str(path)], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        assert ask(path, [], event(HIT)) is None  # the client judges the message itself
    finally:
        proc.kill()
        proc.wait()


ODD_SERVER = """
import socket, sys, time
path, kind = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX)
s.bind(path)
s.listen(1)
print("ready", flush=True)
c, _ = s.accept()
c.recv(65536)
if kind == "trickle":  # a stalled process: a byte now and then, never the end
    c.sendall(b"ok\\n")
    for _ in range(40):
        time.sleep(0.1)
        c.sendall(b" ")
else:  # an answer that is not what the hook prints
    c.sendall(b"ok\\nthis is not json \\x1b[31m red")
c.close()
"""


@pytest.mark.parametrize("kind", ["trickle", "junk"])
def test_a_stalled_or_odd_warm_answer_is_never_printed(tmp_path: Path, kind: str) -> None:
    """The timeout is for the whole exchange (a trickle of spaces once took 18 s and printed
    them), and only what the hook itself prints is passed on: else the client judges itself."""
    path = tmp_path / "n.db.sock"
    proc = subprocess.Popen([sys.executable, "-c", ODD_SERVER, str(path), kind], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        # a trickle: 4 s of spaces, each read within the old per-read timeout of 1 s
        assert ask(path, [], event(HIT), timeout=1.0) is None
    finally:
        proc.kill()
        proc.wait()


def test_listener_refuses_a_folder_others_may_write(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    listener = WarmListener(shared / "n.db.sock", lambda raw, argv: "", retry_s=0.1)
    listener.start()
    try:
        assert not listener.serving.wait(0.5)
        assert not (shared / "n.db.sock").exists()
    finally:
        listener.close()


NEW_NOTE = "projects/quillfeather.md"
NEW_TEXT = """---
title: quillfeather
description: The quillfeather label printer on the hall shelf, and how to unjam its ribbon.
---
# quillfeather

The quillfeather printer jams when the ribbon is loaded upside down.
"""
NEW_MESSAGE = "quillfeather jammed again, what do I do"


def test_a_note_written_just_before_a_message_is_judged_with_it_by_the_warm_process(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    server = start_server(vault, db)
    try:
        assert hook(vault, db, MISS, "--warm", session="s-0")[0] == ""
        (vault / NEW_NOTE).write_text(NEW_TEXT, encoding="utf-8")
        out, imported = hook(vault, db, NEW_MESSAGE, "--warm", session="s-1")
        assert f"({vault / NEW_NOTE})" in out and not set(JUDGING) & imported
        # renamed: the next message names it at its new place
        (vault / NEW_NOTE).rename(vault / "quillfeather-printer.md")
        out, imported = hook(vault, db, NEW_MESSAGE, "--warm", session="s-2")
        assert f"({vault / 'quillfeather-printer.md'})" in out and not set(JUDGING) & imported
        # deleted: silence
        (vault / "quillfeather-printer.md").unlink()
        assert hook(vault, db, NEW_MESSAGE, "--warm", session="s-3")[0] == ""
    finally:
        stop(server)
    assert [r["route"] != "error" for r in decision_rows(db)] == [True] * 4


CLIENT = "import sys; sys.path.insert(0, sys.argv[1]); from notesdb.warm import client_main; client_main(sys.argv[2:])"
REPO = Path(__file__).resolve().parents[1]


def client(vault: Path, db: Path, prompt: str | bytes, *args: str) -> tuple[subprocess.CompletedProcess[bytes], set[str]]:
    """The plugin's hook client as its launcher starts it (python -I -S), with the import log."""
    raw = prompt if isinstance(prompt, bytes) else event(prompt)
    proc = subprocess.run([sys.executable, "-I", "-S", "-X", "importtime", "-c", CLIENT, str(REPO), "hook", "--warm",
                           *args, "--notes", str(vault), "--db", str(db)], input=raw, capture_output=True, timeout=60)
    lines = proc.stderr.decode().splitlines()
    imported = {ln.rsplit("|", 1)[1].strip() for ln in lines if ln.startswith("import time:") and ln.count("|") == 2}
    return proc, imported


def test_standard_library_client_asks_the_warm_process_without_site_packages(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    expected, _ = hook(vault, db, HIT, session="s-cold")
    server = start_server(vault, db)
    try:
        proc, imported = client(vault, db, HIT)
        assert proc.returncode == 0 and proc.stdout.decode() == expected
        # the client's own imports: the notesdb package's entry and warm modules, and no more
        assert {m for m in imported if m.startswith("notesdb")} == {"notesdb", "notesdb.entry", "notesdb.warm"}
        assert not {"site", "json", "re", "socket", "sqlite3", "pathlib", "typing"} & imported
        proc, _ = client(vault, db, MISS)
        assert (proc.returncode, proc.stdout) == (0, b"")
    finally:
        stop(server)


def test_standard_library_client_hands_over_to_the_full_hook_when_nobody_answers(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    expected, _ = hook(vault, db, HIT, session="s-cold")
    server = start_server(vault, db)
    server.send_signal(signal.SIGKILL)
    server.wait(timeout=30)
    assert Path(socket_path(db)).exists()  # a stale socket: nobody answers
    before = len(decision_rows(db))
    proc, _ = client(vault, db, HIT)
    # the console script it replaced itself with judged the same stdin: same answer, logged once
    assert (proc.returncode, proc.stdout.decode()) == (0, expected)
    assert all(ln.startswith("import time:") for ln in proc.stderr.decode().splitlines())
    # an event larger than a pipe holds at once is handed over whole
    pasted = json.dumps({"prompt": HIT + " " + "log line " * 20_000, "session_id": "s-big"}).encode()
    assert len(pasted) > 100_000
    proc, _ = client(vault, db, pasted)
    assert (proc.returncode, proc.stdout.decode()) == (0, expected)
    rows = decision_rows(db)[before:]
    assert [(r["spoken"], r["session_id"], len(r["prompt"])) for r in rows] == [
        (1, "s", len(HIT)), (1, "s-big", MAX_LOGGED_PROMPT)]  # the whole event was read: the log keeps its cap


def test_standard_library_client_leaves_a_bad_command_line_to_the_full_command(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    proc, _ = client(vault, db, HIT, "--bogus")
    # as 'notesdb hook --warm --bogus' run by an assistant: a usage error that blocks nothing
    assert proc.returncode == 1 and proc.stdout == b""
    assert "No such option: --bogus" in proc.stderr.decode()


def test_standard_library_client_without_a_named_database_uses_the_default_one(vault: Path) -> None:
    from notesdb.config import resolve_db

    proc = subprocess.run([sys.executable, "-I", "-S", "-c", CLIENT, str(REPO), "hook", "--warm", "--notes", str(vault)],
                          input=event(HIT), capture_output=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == b""
    db = resolve_db(None, vault)  # computed by the full hook (the client has no platformdirs)
    assert f"({vault / COVERED_NOTE})" in proc.stdout.decode() or decision_rows(db)[0]["route"] == "new-index"
    assert len(decision_rows(db)) == 1


def test_another_program_reading_the_database_leaves_the_warm_process_answering(indexed: tuple[Path, Path]) -> None:
    """``sqlite3`` or ``notesdb log`` opening and closing the database while the warm process
    serves it must not delete the write-ahead log from under it: every later answer is the
    same, and every decision reaches the log."""
    vault, db = indexed
    server = start_server(vault, db)
    try:
        first, imported = hook(vault, db, HIT, "--warm", session="s1")
        assert f"({vault / COVERED_NOTE})" in first
        assert not set(JUDGING) & imported  # the warm process judged it
        before = len(decision_rows(db))
        for session in ("s2", "s3"):
            outside = sqlite3.connect(db)
            outside.execute("SELECT count(*) FROM notes").fetchone()
            outside.close()
            subprocess.run([str(NOTESDB_EXE), "log", "--notes", str(vault), "--db", str(db)],
                           capture_output=True, timeout=60, check=True)
            out, imported = hook(vault, db, HIT, "--warm", session=session)
            assert out == first
            assert not set(JUDGING) & imported
            assert Path(f"{db}-wal").exists()
        assert len(decision_rows(db)) == before + 2
        assert not (db.parent / "hook-errors.jsonl").exists()
    finally:
        assert stop(server) == 0


def test_a_database_emptied_under_the_warm_process_is_made_anew(indexed: tuple[Path, Path]) -> None:
    """A database file emptied while the warm process holds it open is another database to it
    (the hook makes an empty file anew): the next messages are answered again, warm and cold,
    instead of every hook finding the file "in use" until the server ends."""
    vault, db = indexed
    server = start_server(vault, db)
    try:
        first, _ = hook(vault, db, HIT, "--warm", session="s1")
        assert f"({vault / COVERED_NOTE})" in first
        db.write_bytes(b"")
        # the index is made anew within the hooks' budget, over a few messages (more on a loaded
        # machine); once a message is answered again, so is every later one
        answers: list[str] = []
        for i in range(2, 14):
            answers.append(hook(vault, db, HIT, "--warm", session=f"s{i}")[0])
            if answers[-1] == first:
                break
        assert answers[-1] == first, answers
        assert hook(vault, db, HIT, "--warm", session="s-after")[0] == first
        cold, _ = hook(vault, db, HIT, session="s-cold")
        assert cold == first
    finally:
        assert stop(server) == 0


def test_another_folder_indexed_into_the_database_is_not_answered_from_the_watch(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    """One database serves one folder: when another command indexes a different folder into it
    while the warm process serves it, the next warm answer syncs its own folder first, as the
    command hook does, instead of answering from the other folder's index."""
    vault, db = indexed
    other = tmp_path / "other"
    other.mkdir()
    (other / "kayak.md").write_text("# Sea kayak\n\nSkeg cable and hatch covers.\n")
    server = start_server(vault, db)
    try:
        first, _ = hook(vault, db, HIT, "--warm", session="s1")
        assert f"({vault / COVERED_NOTE})" in first
        subprocess.run([str(NOTESDB_EXE), "index", "--notes", str(other), "--db", str(db)],
                       capture_output=True, timeout=120, check=True)
        warm, _ = hook(vault, db, HIT, "--warm", session="s2")
        assert warm == first
        rows = decision_rows(db)
        assert rows[-1]["spoken"] == 1
    finally:
        assert stop(server) == 0


def test_a_warm_answer_that_cannot_be_delivered_is_logged_as_silent(indexed: tuple[Path, Path]) -> None:
    """The warm process logs the decision before the client prints it: a client whose stdout is
    closed marks that decision silent, with why, as ``notesdb hook`` does, so the next message of
    the conversation is not held back for a line the assistant never saw."""
    vault, db = indexed
    server = start_server(vault, db)
    try:
        runs = [
            [sys.executable, "-m", "notesdb", "hook", "--warm", "--notes", str(vault), "--db", str(db)],
            [sys.executable, "-I", "-S", "-c", CLIENT, str(REPO), "hook", "--warm", "--notes", str(vault), "--db", str(db)],
        ]
        for i, cmd in enumerate(runs):
            read_end, write_end = os.pipe()
            os.close(read_end)  # nobody reads: the write fails with EPIPE
            try:
                proc = subprocess.run(cmd, input=event(HIT, f"s-closed-{i}"), stdout=write_end, stderr=subprocess.PIPE, timeout=60)
            finally:
                os.close(write_end)
            assert (proc.returncode, proc.stderr) == (0, b""), cmd
            last = decision_rows(db)[-1]
            assert (last["session_id"], last["spoken"], last["route"]) == (f"s-closed-{i}", 0, "strong"), cmd
            assert last["error"].startswith("answer not delivered (BrokenPipeError"), last["error"]
            # the next message of that conversation names the note: it was never delivered
            assert f"({vault / COVERED_NOTE})" in hook(vault, db, HIT, "--warm", session=f"s-closed-{i}")[0]
    finally:
        stop(server)

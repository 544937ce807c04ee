"""The console script's dispatch: only the hook's own argument forms take the fast hook path;
everything else reaches the full CLI, and no command exits 2 (the code assistants read as
"block this prompt") when started without a command and stdin is not a terminal."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import COVERED_MESSAGE, COVERED_NOTE, NOTESDB_EXE, decision_rows

from notesdb.entry import is_hook_call

pytestmark = pytest.mark.skipif(not NOTESDB_EXE.exists(), reason="the notesdb console script is not installed")

EVENT = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": COVERED_MESSAGE})


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(NOTESDB_EXE), *args], input=stdin, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("argv", [
    ["hook"],
    ["hook", "--notes", "N", "--db", "D"],
    ["hook", "--db", "D", "--no-log", "--notes", "N", "--config", "C"],
    ["hook", "--notes=N", "--db=D", "--config=C"],
    ["hook", "--notes", "install"],  # a folder called "install"
])  # fmt: skip
def test_the_hooks_own_forms_take_the_fast_path(argv: list[str]) -> None:
    assert is_hook_call(argv)


@pytest.mark.parametrize("argv", [
    ["hook", "install"],
    ["hook", "--notes", "N", "install"],
    ["hook", "--notes", "N", "uninstall"],
    ["hook", "--notes", "N", "--help"],
    ["hook", "-h"],
    ["hook", "--bogus"],
    ["hook", "--notes"],  # a value missing
    ["hook", "--notes", "N", "extra"],
    ["hook", "--no-log=1"],
    ["check", "hook"],
    [],
])  # fmt: skip
def test_everything_else_goes_to_the_cli(argv: list[str]) -> None:
    assert not is_hook_call(argv)


@pytest.mark.parametrize("extra, expect", [
    (["install"], "Error: no notes folder"),  # --notes belongs to "hook", not to "install"
    (["--help"], "Usage: notesdb hook"),
    (["--bogus"], "Error: No such option: --bogus"),
])  # fmt: skip
def test_misplaced_forms_get_help_or_a_usage_error_and_do_not_run_the_hook(
    indexed: tuple[Path, Path], isolated_home: Path, extra: list[str], expect: str
) -> None:
    vault, db = indexed
    before = len(decision_rows(db))
    r = run("hook", "--notes", str(vault), "--db", str(db), *extra, stdin=EVENT)
    assert expect in (r.stdout + r.stderr)
    assert (r.returncode == 0) == (extra == ["--help"])
    assert len(decision_rows(db)) == before  # no bad-input decision: the hook never ran
    assert not (isolated_home / ".claude" / "settings.json").exists()


def test_the_hook_runs_with_its_options_in_any_order(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    r = run("hook", "--no-log", f"--db={db}", "--notes", str(vault), stdin=EVENT)
    assert r.returncode == 0 and COVERED_NOTE in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("args", [[], ["--bogus"], ["--notes", "x"]])
def test_no_command_and_no_terminal_never_exits_2(args: list[str]) -> None:
    """Claude Code before 2.1.139 runs an exec-form entry as bare ``notesdb``: exit 2 would
    block every prompt. Exit 1 is a hook failure that lets the prompt through."""
    r = run(*args, stdin=EVENT)
    assert r.returncode == 1
    assert r.stdout == ""  # nothing an assistant could take for context
    assert r.stderr.startswith("Usage: notesdb") if not args else r.stderr.startswith("Error: No such option")


def test_help_still_goes_to_stdout() -> None:
    r = run("--help")
    assert r.returncode == 0 and r.stdout.startswith("Usage: notesdb") and r.stderr == ""


READ = "import sys, notesdb.entry as e; e.MAX_STDIN_BYTES = int(sys.argv[1]); sys.stdout.write(str(len(e.read_event())))"


def test_the_event_is_read_up_to_its_end_or_the_cap() -> None:
    """stdin is read whole, up to ``MAX_STDIN_BYTES`` (a client writing gigabytes cannot make the
    hook read them all); what is beyond is not read."""
    import sys

    for data, cap, expected in ((b"x" * 5000, 100_000, 5000), (b"x" * 5000, 1000, 1000), (b"", 1000, 0)):
        proc = subprocess.run([sys.executable, "-c", READ, str(cap)], input=data, capture_output=True, timeout=30)
        assert (proc.returncode, proc.stdout.decode()) == (0, str(expected))


def test_a_brace_inside_the_prompt_does_not_end_the_event_early(indexed: tuple[Path, Path]) -> None:
    """A client that writes the event in two parts, the first ending in a "}" of the prompt
    ("function f() {return 1}"), gets the whole event read, not a cut one logged as bad input."""
    import time

    vault, db = indexed
    first = json.dumps({"prompt": COVERED_MESSAGE + " my code: function f() {return 1}", "session_id": "split"})
    cut = first.index("}") + 1
    proc = subprocess.Popen([str(NOTESDB_EXE), "hook", "--notes", str(vault), "--db", str(db)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(first[:cut].encode())
    proc.stdin.flush()
    time.sleep(0.5)  # longer than STDIN_IDLE_S
    proc.stdin.write(first[cut:].encode())
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    assert COVERED_NOTE in proc.stdout.read().decode()
    last = decision_rows(db)[-1]
    assert last["session_id"] == "split" and last["spoken"] == 1


@pytest.mark.parametrize(
    "data, whole",
    [(b'{"a": 1}', True), (b'{"a": "}"', False), (b'{"a": "\\"}"}', True), (b'{"a": {"b": 2}', False), (b"", False),
     (b'  {"p": "x{y"}  ', True)],
)
def test_whole_object(data: bytes, whole: bool) -> None:
    from notesdb.entry import whole_object

    assert whole_object(data) is whole

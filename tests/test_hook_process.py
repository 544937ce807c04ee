"""The hook as Claude Code runs it: the installed ``notesdb hook`` process, event JSON on stdin."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import COVERED_MESSAGE, COVERED_NOTE, NOTESDB_EXE, decision_rows

from notesdb.hook import MAX_LOGGED_PROMPT


SESSION = "5f0c3f4e-7c1d-4a53-9c0e-2b8f2f6c1a10"
CWD = "/home/niko/src/monswitch"
HEAVY = ("typer", "click", "sqlite_utils", "markdown_it", "yaml", "rich")


def event(prompt: Any = None, *, drop: tuple[str, ...] = ()) -> bytes:
    """A UserPromptSubmit event as Claude Code writes it on the hook's stdin."""
    data = {
        "session_id": SESSION,
        "transcript_path": f"/home/niko/.claude/projects/-home-niko-src-monswitch/{SESSION}.jsonl",
        "cwd": CWD,
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }
    for key in drop:
        del data[key]
    return json.dumps(data).encode("utf-8")


@dataclass
class HookRun:
    stdout: bytes
    additional_context: str | None  # None when silent
    row: dict[str, Any]  # the decisions row this call added


def run_hook(indexed: tuple[Path, Path], stdin: bytes) -> HookRun:
    """Run the console script once; check the contract that holds for every input."""
    vault, db = indexed
    before = decision_rows(db)
    proc = subprocess.run(
        [str(NOTESDB_EXE), "hook", "--notes", str(vault), "--db", str(db)],
        input=stdin,
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0
    assert proc.stderr == b""
    context = None
    if proc.stdout:
        text = proc.stdout.decode("utf-8")
        assert text.endswith("\n") and text.count("\n") == 1  # one line: one JSON object
        out = json.loads(text)
        assert list(out) == ["hookSpecificOutput"]
        assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
        assert list(out["hookSpecificOutput"]) == ["hookEventName", "additionalContext"]
        context = out["hookSpecificOutput"]["additionalContext"]
        assert isinstance(context, str) and context
        assert len(context) < 600
        assert "\n" not in context
    after = decision_rows(db)
    assert len(after) == len(before) + 1  # every call is logged, once
    row = after[-1]
    assert row["elapsed_ms"] > 0
    assert bool(row["spoken"]) == (context is not None)
    return HookRun(proc.stdout, context, row)


def test_speaks_about_the_boiler(indexed: tuple[Path, Path]) -> None:
    r = run_hook(indexed, event(COVERED_MESSAGE))
    assert r.additional_context is not None
    assert COVERED_NOTE in r.additional_context
    assert r.additional_context.startswith("Notes that may cover this: ")
    assert json.loads(r.row["notes"])[0] == COVERED_NOTE
    assert r.row["route"] in {"strong", "lead", "rare"}
    assert (r.row["session_id"], r.row["cwd"], r.row["prompt"]) == (SESSION, CWD, COVERED_MESSAGE)
    assert r.row["error"] == ""


@pytest.mark.parametrize(
    "prompt, route",
    [
        ("yep", None),  # an acknowledgement: nothing searchable
        ("/clear", "slash-command"),  # a Claude Code command, not a message
        ("/model opus", "slash-command"),  # a command with an argument
    ],
)
def test_silent(indexed: tuple[Path, Path], prompt: str, route: str | None) -> None:
    r = run_hook(indexed, event(prompt))
    assert r.stdout == b""
    assert (r.row["session_id"], r.row["cwd"], r.row["prompt"]) == (SESSION, CWD, prompt)
    assert r.row["route"] not in {"strong", "lead", "rare", "bad-input", "error"}
    if route:
        assert r.row["route"] == route


@pytest.mark.parametrize(
    "prompt",
    [
        "/project:deploy staging",  # a project command in a namespace
        "/mcp__github__list_prs",  # an MCP server's prompt
        "/init",  # built in, even where a file /init exists (WSL)
        "/my-own-command with some words",  # a custom command of any name
    ],
)
def test_claude_code_commands_are_skipped(indexed: tuple[Path, Path], prompt: str) -> None:
    r = run_hook(indexed, event(prompt))
    assert r.stdout == b"" and r.row["route"] == "slash-command"


#: Prompts the client writes in the person's place. A skill run as a slash command reaches the
#: hook as its tags and its file's whole text (github.com/DietrichGebert/ponytail/issues/584):
#: here a skill whose text is about the covered note, which the hook must not name.
CLIENT_WRITTEN = [
    (
        "<command-message>boiler-check</command-message>\n<command-name>/boiler-check</command-name>\n"
        "<command-args>now</command-args>\n\n# Boiler check\n\n" + COVERED_MESSAGE + ": read the fault code table.",
        "slash-command",
    ),
    ("<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>", "slash-command"),
    ("  <command-message>ctx-load</command-message>", "slash-command"),
    ("<local-command-stdout>" + COVERED_MESSAGE + "</local-command-stdout>", "not-typed"),
    ("<task-notification>\n<status>completed</status>\n<summary>" + COVERED_MESSAGE + "</summary>\n</task-notification>", "not-typed"),
]


@pytest.mark.parametrize(("prompt", "route"), CLIENT_WRITTEN)
def test_prompts_the_client_wrote_are_not_judged(indexed: tuple[Path, Path], prompt: str, route: str) -> None:
    """Each holds the covered message, yet the hook stays silent, exits 0 and logs the prompt
    with the route that says why."""
    r = run_hook(indexed, event(prompt))
    assert r.stdout == b""
    assert (r.row["route"], r.row["prompt"], r.row["spoken"]) == (route, prompt, 0)


def test_stdin_left_open_does_not_hold_the_prompt(indexed: tuple[Path, Path]) -> None:
    """A client that writes the event but never closes stdin gets its answer once the JSON
    object is complete; one that writes nothing gets silence and a logged bad-input after
    ``entry.STDIN_WAIT_S``, not a hook that waits until the client's timeout kills it."""
    vault, db = indexed
    cmd = [str(NOTESDB_EXE), "hook", "--notes", str(vault), "--db", str(db)]
    for payload in (event(COVERED_MESSAGE), b""):
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(payload)
        proc.stdin.flush()  # and left open
        try:
            assert proc.wait(timeout=8) == 0
        finally:
            proc.kill()
            proc.stdin.close()
        out = proc.stdout.read()
        if payload:
            assert COVERED_NOTE.encode() in out
        else:
            assert out == b""
            last = decision_rows(db)[-1]
            assert (last["route"], last["error"]) == ("bad-input", "empty stdin")


def test_an_answer_that_cannot_be_delivered_is_logged_as_silent(indexed: tuple[Path, Path]) -> None:
    """A client that closed the hook's stdout never sees the line: the decision is logged as
    silent, with why, so the conversation's hold-back and the labels do not count a note the
    assistant was never told about. The hook still exits 0 and writes nothing to stderr."""
    vault, db = indexed
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody reads: the write fails with EPIPE
    try:
        proc = subprocess.run(
            [str(NOTESDB_EXE), "hook", "--notes", str(vault), "--db", str(db)],
            input=event(COVERED_MESSAGE),
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr) == (0, b"")
    last = decision_rows(db)[-1]
    assert last["spoken"] == 0
    assert last["route"] == "strong"  # the judgement as it was made
    assert last["error"].startswith("answer not delivered (BrokenPipeError")
    assert COVERED_NOTE in last["error"]
    # the next message on the same topic is not held back for a line the assistant never saw
    again = run_hook(indexed, event(COVERED_MESSAGE))
    assert again.additional_context is not None and COVERED_NOTE in again.additional_context
    # replay compares the judgement: the undelivered answer is the same answer today
    replayed = subprocess.run([str(NOTESDB_EXE), "replay", "--db", str(db), "--notes", str(vault), "--json"],
                              capture_output=True, text=True, timeout=60)
    assert replayed.returncode == 0, replayed.stderr
    rows = json.loads(replayed.stdout)
    rows = rows["decisions"] if isinstance(rows, dict) else rows
    assert [(r["before"]["spoken"], r["before"]["notes"], r["changed"]) for r in rows] == [
        (True, [COVERED_NOTE], False),
        (True, [COVERED_NOTE], False),
    ]


def test_a_message_quoting_a_client_tag_is_judged(indexed: tuple[Path, Path]) -> None:
    """Only a prompt that opens with such a tag is the client's: a person asking about one is not."""
    prompt = COVERED_MESSAGE + " (after <command-name>/doctor</command-name> said nothing)"
    r = run_hook(indexed, event(prompt))
    assert r.row["route"] in {"strong", "lead", "rare"} and COVERED_NOTE.encode() in r.stdout


@pytest.mark.parametrize(
    "prompt",
    [
        "/var/log/syslog is full of these errors",  # a path with folders
        "/etc is full",  # a folder at the root
        "/tmp/boiler.log shows EA229",  # a file
        "/home/aoife/notes has the worcester boiler manual",
    ],
)
def test_a_message_starting_with_a_path_is_judged(indexed: tuple[Path, Path], prompt: str) -> None:
    r = run_hook(indexed, event(prompt))
    assert r.row["route"] != "slash-command"
    assert r.row["prompt"] == prompt


def test_a_path_message_can_speak(indexed: tuple[Path, Path]) -> None:
    r = run_hook(indexed, event("/var/log/syslog says " + COVERED_MESSAGE))
    assert r.additional_context is not None and COVERED_NOTE in r.additional_context


@pytest.mark.parametrize(
    "stdin, session, error",
    [
        (b"", "", "empty stdin"),  # nothing on stdin
        (b"  \n", "", "empty stdin"),  # only whitespace
        (b"{not json", "", "stdin is not valid JSON: "),  # broken JSON
        (b'["the worcester boiler shows EA229 again"]', "", "stdin JSON is a list, not an object"),  # a JSON list
        (b"null", "", "stdin JSON is null"),  # JSON null
        (b'"worcester"', "", "stdin JSON is a str, not an object"),  # a bare JSON string
        (event(drop=("prompt",)), SESSION, "no prompt in the event"),  # no prompt key
        (event(None), SESSION, "no prompt in the event"),  # "prompt": null
        (event(42), SESSION, "prompt is not a string"),  # a number
        (event(["worcester"]), SESSION, "prompt is not a string"),  # a list
    ],
)
def test_bad_input_is_logged_and_silent(
    indexed: tuple[Path, Path], stdin: bytes, session: str, error: str
) -> None:
    r = run_hook(indexed, stdin)
    assert r.stdout == b""
    assert r.row["route"] == "bad-input"
    assert r.row["error"].startswith(error)
    assert r.row["session_id"] == session
    assert r.row["prompt"] is None


@pytest.mark.parametrize(
    "stdin",
    [
        event("worcester " * 200_000),  # a 2 MB paste
        event("worcester key: " + "QUJD" * 25_000),  # a pasted base64 blob: one run of 100,000 letters
        b'{"prompt": "worcester caf\xe9 broke", "session_id": "s"}',  # Latin-1 byte inside the JSON
        event("worcester \x00 NEAR(\"boiler\" OR) * : -"),  # NUL and FTS5 syntax in the message
        event("\ud800 lone surrogate worcester"),  # a lone surrogate, escaped in the JSON
    ],
)
def test_odd_prompts_keep_the_contract(indexed: tuple[Path, Path], stdin: bytes) -> None:
    r = run_hook(indexed, stdin)
    assert r.row["route"] not in {"bad-input", "error"}
    assert len(r.row["prompt"]) <= MAX_LOGGED_PROMPT


def test_each_call_logs_session_cwd_and_time(indexed: tuple[Path, Path]) -> None:
    messages = [COVERED_MESSAGE, "yep", "/clear", "what's the weather like"]
    for i, m in enumerate(messages):
        stdin = json.loads(event(m))
        stdin["session_id"], stdin["cwd"] = f"session-{i}", f"/work/{i}"
        run_hook(indexed, json.dumps(stdin).encode())
    rows = decision_rows(indexed[1])
    assert [(r["session_id"], r["cwd"], r["prompt"]) for r in rows] == [
        (f"session-{i}", f"/work/{i}", m) for i, m in enumerate(messages)
    ]
    assert all(r["elapsed_ms"] > 0 for r in rows)


GUARD = """
import json, sys
import notesdb.hook
out = notesdb.hook.run(sys.stdin.buffer.read(), sys.argv[1:])
print(json.dumps({"out": out, "loaded": sorted(m for m in %r if m in sys.modules)}))
""" % (HEAVY,)


def guarded_run(indexed: tuple[Path, Path], prompt: str) -> dict[str, Any]:
    vault, db = indexed
    proc = subprocess.run(
        [sys.executable, "-c", GUARD, "--notes", str(vault), "--db", str(db)],
        input=event(prompt),
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


def test_hook_imports_nothing_heavy_when_no_note_changed(indexed: tuple[Path, Path]) -> None:
    result = guarded_run(indexed, COVERED_MESSAGE)
    assert COVERED_NOTE in result["out"]
    assert result["loaded"] == []


def test_hook_does_not_import_typing(indexed: tuple[Path, Path]) -> None:
    # typing takes about 3 ms to import: the hook's modules name its types for the type checker only
    vault, db = indexed
    code = (
        "import sys; before = 'typing' in sys.modules; import notesdb.hook; "
        "out = notesdb.hook.run(sys.stdin.buffer.read(), sys.argv[1:]); "
        "print(before, 'typing' in sys.modules, out)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "--notes", str(vault), "--db", str(db)],
        input=event(COVERED_MESSAGE),
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    before, after, out = proc.stdout.decode().split(" ", 2)
    assert (before, after) == ("False", "False")
    assert COVERED_NOTE in out


def test_hook_parses_a_changed_note_and_still_skips_the_cli(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    note = vault / COVERED_NOTE
    note.write_text(note.read_text() + "\nzorbitron relay fitted\n")
    st = note.stat()
    os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    result = guarded_run(indexed, COVERED_MESSAGE)
    assert "markdown_it" in result["loaded"]  # the note was parsed again
    assert set(result["loaded"]) <= {"markdown_it", "yaml"}
    conn = sqlite3.connect(db)
    assert "zorbitron" in conn.execute("SELECT body FROM notes WHERE path = ?", (COVERED_NOTE,)).fetchone()[0]
    conn.close()


def test_console_script_path_imports_nothing_heavy(indexed: tuple[Path, Path]) -> None:
    # the same entry point as the console script (notesdb.entry), with the import log on
    vault, db = indexed
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "notesdb", "hook", "--notes", str(vault), "--db", str(db)],
        input=event(COVERED_MESSAGE),
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0
    assert COVERED_NOTE.encode() in proc.stdout
    imported = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.decode().splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    assert "notesdb.hook" in imported
    assert {m for m in imported if m.split(".")[0] in HEAVY} == set()


#: Every C0 and C1 control character, DEL, and the Unicode line and paragraph separators.
CONTROLS = [chr(c) for c in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)]


def test_control_characters_of_a_note_never_reach_the_line(tmp_path: Path) -> None:
    from conftest import write_and_index

    indexed = write_and_index(tmp_path / "notes", tmp_path / "notes.db", {
        "walrus.md": '---\ntitle: "Walrus\\u001b[31m tusk\\u0007"\ndescription: "care\\u0000 notes \\u001b[2J"\n'
                     "---\nwalrustusk ivory care walrustusk\n",
        "\x1b[31mzebra\x7f.md": "zebrastripe savanna zebrastripe notes\n",
        "a\u202edm.exe.md": "# Kudu\u202e horn\n\nkuduhorn antelope kuduhorn\n",
        "garden.md": "# Garden\n\nroses and tomatoes\n",
    })
    kudu = run_hook(indexed, event("kuduhorn antelope")).additional_context
    # a right-to-left override would show the name reversed and turn the rest of the line
    assert kudu == f'Notes that may cover this: "Kudu horn" (`{indexed[0]}/a?dm.exe.md`, invisible characters shown as ?).'
    walrus = run_hook(indexed, event("walrustusk ivory")).additional_context
    # each control character is a space: what is left of an escape sequence is plain text
    assert walrus == f'Notes that may cover this: "Walrus [31m tusk" ({indexed[0]}/walrus.md) - "care notes [2J".'
    zebra = run_hook(indexed, event("zebrastripe savanna")).additional_context
    assert zebra is not None and not any(c in zebra for c in CONTROLS), zebra
    # the title read from the file name is cleaned; the path says what it cannot show
    assert zebra == f'Notes that may cover this: "[31mzebra" (`{indexed[0]}/?[31mzebra?.md`, invisible characters shown as ?).'


def test_the_line_names_the_path_as_it_is(tmp_path: Path) -> None:
    from conftest import write_and_index

    indexed = write_and_index(tmp_path / "notes", tmp_path / "notes.db", {
        "Cars (old)/Golf (2009).md": "# Golf\n\ngolfcabrio timing belt changed\n",
        "garden.md": "# Garden\n\nroses and tomatoes\n",
    })
    line = run_hook(indexed, event("golfcabrio timing belt")).additional_context
    path = indexed[0] / "Cars (old)" / "Golf (2009).md"
    assert line == f'Notes that may cover this: "Golf" (`{path}`).'
    assert path.is_file()


@pytest.mark.parametrize("pasted,problem", [
    ("![" * 50_000, "more than 10,000 '['"),  # 100 Ki characters: under MARKDOWN_MAX_CHARS
    ("*a" * 50_000, "more than 20,000 '*' and '_'"),
])
def test_a_pasted_note_of_brackets_is_read_as_plain_text_by_the_hook(indexed: tuple[Path, Path], pasted: str,
                                                                     problem: str) -> None:
    # markdown-it-py would spend seconds on it within one call; the plain reader takes it
    vault, db = indexed
    (vault / "pasted.md").write_text("# Pasted\n\n" + pasted + "\n")
    r = run_hook(indexed, event(COVERED_MESSAGE))
    assert r.additional_context is not None and COVERED_NOTE in r.additional_context
    assert f"pasted.md: {problem}: indexed as plain text, not parsed as Markdown" in r.row["error"]
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT title FROM notes WHERE path = 'pasted.md'").fetchone() == ("Pasted",)
    conn.close()


def test_the_hook_leaves_rare_english_to_a_full_sync(indexed: tuple[Path, Path]) -> None:
    """Filling ``english_rare`` takes 0.3-0.8 s and writes for that long: a hook doing it held up
    the other hooks' log lines past their bound (hook-errors.jsonl, with eight hooks and an
    index at once). The hook reads the table but never fills it; without it, it judges as the
    release before it did."""
    vault, db = indexed
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM english_rare")
    for prompt in (COVERED_MESSAGE, "and the other one?"):
        run = run_hook(indexed, event(prompt))
        assert "english_rare" not in (run.row["error"] or "")
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM english_rare").fetchone()[0] == 0

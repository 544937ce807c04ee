"""The ``notesdb`` commands: output, JSON shapes, exit codes and one-line errors."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import COVERED_MESSAGE, COVERED_NOTE, NOTESDB_EXE
from typer.testing import CliRunner

from notesdb.cli import app

runner = CliRunner()


def invoke(*args: str) -> Any:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    return result


def where(indexed: tuple[Path, Path]) -> list[str]:
    vault, db = indexed
    return ["--notes", str(vault), "--db", str(db)]


def test_the_console_script_is_installed() -> None:
    """The tests of the real processes run ``notesdb`` beside the interpreter: without it the
    install is broken, and that is a failure, never a reason to skip."""
    assert NOTESDB_EXE.is_file(), f"{NOTESDB_EXE} is missing: pip install -e '.[test]'"
    r = subprocess.run([str(NOTESDB_EXE), "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "Usage: notesdb" in r.stdout, r.stderr


# --- search -------------------------------------------------------------------


def test_version_and_short_help_option() -> None:
    from notesdb import __version__

    r = subprocess.run([str(NOTESDB_EXE), "--version"], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, f"notesdb {__version__}\n", "")
    for args in (["-h"], ["index", "-h"], ["label", "set", "-h"], ["hook", "install", "-h"]):
        r = runner.invoke(app, args, prog_name="notesdb")
        assert r.exit_code == 0 and r.stdout.startswith("Usage: notesdb"), (args, r.stderr)


def _help_pages() -> dict[str, str]:
    """The help of every command and group, by command line."""
    import click
    import typer.main

    pages: dict[str, str] = {}

    def walk(command: click.Command, path: list[str]) -> None:
        pages[" ".join(path)] = runner.invoke(app, [*path[1:], "--help"], prog_name="notesdb").stdout
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), ["notesdb"])
    return pages


def test_help_shows_whole_descriptions_and_one_style_of_placeholder() -> None:
    pages = _help_pages()
    assert {"notesdb", "notesdb index", "notesdb label set", "notesdb hook install"} <= set(pages)
    top = pages["notesdb"].split("\nCommands:\n", 1)[1]
    assert "..." not in top and "…" not in top
    assert "Bring the database in line with the notes folder (new, changed,\n             renamed, deleted notes)." in top
    for command, page in pages.items():
        usage = page.split("\n", 1)[0]
        # arguments are upper case: CASES, QUERY, ID, never {cases}
        assert not re.search(r"[{\[][a-z_]+[}\]]", usage), (command, usage)
        assert not re.search(r"\d{10,}", page), command  # no giant range such as 1<=x<=4611686018427387904
        for option in ("--notes", "--db", "--config"):
            line = next((ln for ln in page.splitlines() if ln.strip().startswith(option + " ")), None)
            if line is not None:
                assert line.split()[1] in ("DIR", "PATH", "FILE"), (command, line)
    assert pages["notesdb eval"].startswith("Usage: notesdb eval [OPTIONS] {CASES}")
    assert pages["notesdb tune"].startswith("Usage: notesdb tune [OPTIONS] [CASES]")
    assert pages["notesdb label set"].startswith("Usage: notesdb label set [OPTIONS] {ID} {VERDICT}")


def test_search_output_has_a_header(indexed: tuple[Path, Path]) -> None:
    r = invoke("search", "worcester boiler", *where(indexed))
    lines = r.stdout.splitlines()
    assert lines[0] == "rank   score  title  (path)"
    assert re.fullmatch(r"  1\.\s+\d+\.\d\d  .+  \(home/boiler-worcester\.md\)", lines[1]), lines[1]


def test_an_empty_path_option_is_a_usage_error(indexed: tuple[Path, Path]) -> None:
    for option in ("--notes", "--db", "--config"):
        r = subprocess.run([str(NOTESDB_EXE), "search", "worcester", *where(indexed), option, ""],
                           capture_output=True, text=True, timeout=60)  # fmt: skip
        assert (r.returncode, r.stdout) == (2, "")
        assert r.stderr == f"Error: Invalid value for '{option}': an empty path names nothing\n"


def test_label_set_of_an_id_beyond_sqlite_is_one_line(indexed: tuple[Path, Path]) -> None:
    r = invoke("label", "set", str(2**70), "right", "--db", str(indexed[1]))
    assert (r.exit_code, r.stderr) == (1, f"Error: no logged decision #{2**70}\n")


def test_search_corrects_a_typo(indexed: tuple[Path, Path]) -> None:
    r = invoke("search", "worcster", "--json", *where(indexed))
    assert r.exit_code == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["query"] == "worcster"
    assert out["corrections"] == [{"from": "worcster", "to": "worcester"}]
    assert out["results"][0]["path"] == "home/boiler-worcester.md"
    assert [x["rank"] for x in out["results"]] == list(range(1, len(out["results"]) + 1))
    assert {"rank", "score", "bm25", "title", "path", "desc"} <= set(out["results"][0])


def test_search_expands_a_short_form(indexed: tuple[Path, Path]) -> None:
    r = invoke("search", "worc lockout", *where(indexed))
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "expanded: worc → worcester" in lines
    first = next(line for line in lines if re.match(r"\s+1\. ", line))
    assert first.endswith("(home/boiler-worcester.md)")
    out = json.loads(invoke("search", "worc lockout", "--json", *where(indexed)).stdout)
    assert out["results"][0]["path"] == "home/boiler-worcester.md"
    assert {"from": "worc", "to": "worcester"} in out["expansions"]


def test_search_limit_and_nothing_found(indexed: tuple[Path, Path]) -> None:
    out = json.loads(invoke("search", "hens", "--json", "--limit", "2", *where(indexed)).stdout)
    assert len(out["results"]) == 2
    r = invoke("search", "qwxzv", *where(indexed))
    assert (r.exit_code, r.stdout) == (0, "no notes match\n")


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
def test_search_for_nothing_is_an_error(indexed: tuple[Path, Path], query: str) -> None:
    r = subprocess.run([str(NOTESDB_EXE), "search", query, *where(indexed)], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == "Error: nothing to search for: QUERY is empty (give one or more words)\n"


def test_search_sql_prints_what_it_runs(indexed: tuple[Path, Path]) -> None:
    r = invoke("search", "worcster boiler", "--sql", *where(indexed))
    assert r.exit_code == 0
    assert "WHERE notes_fts MATCH '\"worcester\"" in r.stdout and "LIMIT 20;" in r.stdout
    # it runs as printed, in sqlite3 (values filled in, not "?"), and finds what search finds
    conn = sqlite3.connect(indexed[1])
    rows = conn.execute(r.stdout.split(";")[0]).fetchall()
    conn.close()
    assert rows and rows[0][1] == json.loads(invoke("search", "worcster boiler", "--json", *where(indexed)).stdout)["results"][0]["path"]
    assert r.stdout.splitlines()[-2].startswith('-- MATCH: "worcester"')
    # the LIMIT's value too: the candidates read, at least 20 (rank.MAX_CANDIDATES)
    assert r.stdout.splitlines()[-1] == "-- LIMIT: 20"
    assert invoke("search", "boiler", "--sql", "--limit", "50", *where(indexed)).stdout.splitlines()[-1] == "-- LIMIT: 50"
    # no word the notes hold: said, not an empty MATCH string
    r = invoke("search", "zzqx", "--sql", *where(indexed))
    assert r.exit_code == 0
    assert r.stdout.splitlines()[-2] == "-- MATCH: (none: no word of QUERY is in the notes, so no note matches)"


def test_search_reads_the_environment(indexed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    vault, db = indexed
    monkeypatch.setenv("NOTESDB_NOTES", str(vault))
    monkeypatch.setenv("NOTESDB_DB", str(db))
    out = json.loads(invoke("search", "worcester", "--json").stdout)
    assert out["results"][0]["path"] == COVERED_NOTE


# --- index --------------------------------------------------------------------

BAD = {
    "inbox/bad-yaml.md": b"---\ntitle: [unclosed\n---\nbody\n",
    "inbox/latin1.md": b"# Caf\xe9\n",
    "inbox/binary.md": b"\x00\x01\x02",
    "inbox/empty.md": b"",
}


def test_index_prints_counts_and_one_line_per_problem(vault: Path, db_path: Path) -> None:
    for rel, data in BAD.items():
        (vault / rel).parent.mkdir(exist_ok=True)
        (vault / rel).write_bytes(data)
    r = invoke("index", "--notes", str(vault), "--db", str(db_path))
    assert r.exit_code == 0, r.stderr
    head, *rest, meter = r.stdout.splitlines()
    assert re.fullmatch(r"false-alarm meter: would speak on \d+ of \d+ generic messages \(\d+\.\d%, \d+ ms\).*", meter)
    m = re.fullmatch(r"(\d+) notes in (.+): (\d+) added, 0 changed, 0 renamed, 0 removed \(\d+ ms\)", head)
    assert m, head
    assert m.group(1) == m.group(3) == str(63 + len(BAD))
    assert m.group(2) == str(db_path)
    assert rest[-1] == "skipped: MEMORY.md"  # the default [index] skip, reported
    rest = rest[:-1]
    assert all(line.startswith("problem: ") for line in rest)
    # each bad file, once
    reported = [line.split(": ", 2)[1] for line in rest]
    assert sorted(reported) == sorted(BAD)
    # nothing changed since: nothing added, nothing parsed, nothing reported
    r = invoke("index", "--notes", str(vault), "--db", str(db_path))
    assert re.fullmatch(
        rf"{63 + len(BAD)} notes in .+: 0 added, 0 changed, 0 renamed, 0 removed \(\d+ ms\)\n"
        r"false-alarm meter: .*\n", r.stdout
    )


def test_index_sums_up_each_kind_of_problem_and_lists_them_with_verbose(vault: Path, db_path: Path) -> None:
    # empty placeholder notes are normal in a vault: one line for all of them
    for i in range(12):
        (vault / f"empty-{i:02}.md").write_bytes(b"")
    (vault / "scan.md").write_bytes(b"\x00\x01\x02")
    r = invoke("index", "--notes", str(vault), "--db", str(db_path))
    assert r.exit_code == 0, r.stderr
    problems = [line for line in r.stdout.splitlines() if line.startswith("problem: ")]
    assert problems == [
        "problem: empty file: 12 notes (--verbose lists them)",
        "problem: scan.md: binary file (contains NUL bytes): only its name is indexed",
    ]
    r = invoke("index", "--rebuild", "--verbose", "--notes", str(vault), "--db", str(db_path))
    problems = [line for line in r.stdout.splitlines() if line.startswith("problem: ")]
    every = [f"problem: empty-{i:02}.md: empty file" for i in range(12)] + [
        "problem: scan.md: binary file (contains NUL bytes): only its name is indexed"
    ]
    assert problems == every
    # nothing changed since: without --verbose nothing is reported, with it every note still is
    r = invoke("index", "--notes", str(vault), "--db", str(db_path))
    assert [line for line in r.stdout.splitlines() if line.startswith("problem: ")] == []
    r = invoke("index", "--verbose", "--notes", str(vault), "--db", str(db_path))
    assert [line for line in r.stdout.splitlines() if line.startswith("problem: ")] == every


def test_index_json(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    (vault / COVERED_NOTE).unlink()
    out = json.loads(invoke("index", "--json", *where(indexed)).stdout)
    assert out["db"] == str(db)
    assert (out["notes"], out["removed"], out["added"]) == (62, [COVERED_NOTE], [])
    assert out["moved_aside"] is None


def test_index_meaning_without_the_extra_says_how_to_install_it_from_a_checkout(vault: Path, db_path: Path, tmp_path: Path) -> None:
    # a sitecustomize that makes onnxruntime absent, as on an install without the extra
    (tmp_path / "hide").mkdir()
    (tmp_path / "hide" / "sitecustomize.py").write_text("import sys\nsys.modules['onnxruntime'] = None\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "hide")}
    proc = subprocess.run([str(NOTESDB_EXE), "index", "--meaning", "--notes", str(vault), "--db", str(db_path)],
                          env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == (
        "Error: --meaning needs the meaning model: install the meaning extra: pip install -e '.[meaning]' in a "
        "checkout of notesdb, or pipx install --force '/path/to/notesdb[meaning]'\n"
    )
    assert not db_path.exists()


def test_index_moves_a_damaged_database_aside(vault: Path, db_path: Path) -> None:
    db_path.parent.mkdir()
    db_path.write_bytes(b"this is not a database, just some text long enough to have a header" * 20)
    r = invoke("index", "--notes", str(vault), "--db", str(db_path))
    assert r.exit_code == 0, r.stderr
    first = r.stdout.splitlines()[0]
    assert first.startswith("The database could not be read; moved it aside to ")
    aside = [p for p in db_path.parent.iterdir() if p.name.startswith("notes.db.damaged-")]
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not a database")
    assert "63 notes in" in r.stdout


def test_index_leaves_alone_a_file_that_is_not_a_database(vault: Path, tmp_path: Path) -> None:
    # a mistaken --db naming some other file: it is neither moved nor overwritten
    other = tmp_path / "passwd"
    other.write_text("root:x:0:0:root:/root:/bin/bash\n")
    r = invoke("index", "--notes", str(vault), "--db", str(other))
    assert r.exit_code == 1
    assert r.stderr == f"Error: {other} is not a notesdb database and does not look like one: leaving it alone; choose another --db\n"
    assert other.read_text() == "root:x:0:0:root:/root:/bin/bash\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("passwd")) == ["passwd"]


@pytest.mark.parametrize("name, moved", [("notes.db", True), ("notes.sqlite", True), ("notes.SQLite3", True),
                                         ("notes.txt", False)])  # fmt: skip
def test_a_text_file_is_moved_aside_only_under_a_database_name(vault: Path, tmp_path: Path, name: str, moved: bool) -> None:
    """What the README promises: a file SQLite cannot read is taken for a damaged database
    when it is named .db, .sqlite or .sqlite3; a text file with another name is left alone."""
    text = "a shopping list, not a database: eggs, flour, milk\n" * 20
    db = tmp_path / name
    db.write_text(text)
    r = invoke("index", "--notes", str(vault), "--db", str(db))
    aside = sorted(p for p in tmp_path.iterdir() if p.name.startswith(name + ".damaged-"))
    if moved:
        assert r.exit_code == 0, r.stderr
        assert r.stdout.startswith(f"The database could not be read; moved it aside to {aside[0]}")
        assert len(aside) == 1 and aside[0].read_text() == text
        assert "63 notes in" in r.stdout
    else:
        assert r.exit_code == 1
        assert r.stderr == f"Error: {db} is not a notesdb database and does not look like one: leaving it alone; choose another --db\n"
        assert aside == [] and db.read_text() == text


def test_the_database_may_not_live_in_the_notes_folder(vault: Path) -> None:
    note = vault / "pets" / "pickle.md"
    before = note.read_bytes()
    for db in (note, vault / "notes.db"):
        r = invoke("index", "--notes", str(vault), "--db", str(db))
        assert r.exit_code == 1
        assert "would be inside the notes folder" in r.stderr and r.stderr.count("\n") == 1
    assert note.read_bytes() == before
    assert not (vault / "notes.db").exists() and not list(vault.rglob("*.lock"))


def test_label_export_never_writes_into_the_notes_folder(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    import sqlite3

    conn = sqlite3.connect(db)
    conn.execute(
        "INSERT INTO decisions(time, prompt, spoken, notes, route, label) "
        "VALUES ('2026-01-01T00:00:00Z', 'yep', 0, '[]', 'no-terms', 'right')"
    )
    conn.commit()
    conn.close()
    target = vault / "vehicles" / "cargo-bike.md"
    before = target.read_bytes()
    r = invoke("label", "export", str(target), *where(indexed))
    assert r.exit_code == 1
    assert "is inside the notes folder" in r.stderr
    assert target.read_bytes() == before


# --- errors: one line, exit 1, no traceback -----------------------------------


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    f = tmp_path / "plain-file"
    f.write_text("not a folder\n")
    return f


COMMANDS = [
    ["index"],  # builds the index
    ["search", "worcester"],  # reads it
    ["check", COVERED_MESSAGE],  # judges a message
    ["log"],  # reads the decisions
]
ERRORS = [
    *[(c, "missing notes folder") for c in COMMANDS],  # --notes names nothing
    *[(c, "database under a file") for c in COMMANDS],  # --db's parent is a file: fails even for root
    (COMMANDS[1], "notes is a file"),  # --notes names a regular file
    (COMMANDS[0], "database is a folder"),  # --db names a folder
    (COMMANDS[2], "no notes given"),  # neither --notes nor NOTESDB_NOTES
]

@pytest.mark.parametrize(
    "command", [["log"], ["label", "list"], ["label", "set", "1", "right"], ["label", "export", "cases.jsonl"]]
)
def test_a_command_that_reads_the_log_makes_no_database(command: list[str], tmp_path: Path) -> None:
    """``--db`` naming a file that is not there, beside an existing notes folder: a command that
    only reads the database (the log, the labels) made one, and every missing folder above it,
    to find nothing in it. It says there is none, and leaves the disk as it was."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "note.md").write_text("# A note\n")
    db = tmp_path / "missing" / "dir" / "x.db"
    r = subprocess.run([str(NOTESDB_EXE), *command, "--notes", str(notes), "--db", str(db)],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == f"Error: no database at {db}: run 'notesdb index' first\n"
    assert not (tmp_path / "missing").exists() and not (tmp_path / "cases.jsonl").exists()



@pytest.mark.parametrize("command, problem", ERRORS, ids=[f"{c[0]}-{p}" for c, p in ERRORS])
def test_errors_are_one_line(command: list[str], problem: str, tmp_path: Path, a_file: Path) -> None:
    notes, db = tmp_path / "notes", tmp_path / "ok.db"
    notes.mkdir()
    (notes / "note.md").write_text("# A note\n")
    if problem == "missing notes folder":
        notes = tmp_path / "nowhere"
    elif problem == "notes is a file":
        notes = a_file
    elif problem == "database under a file":
        db = a_file / "notes.db"
    elif problem == "database is a folder":
        db = tmp_path
    args = [*command, "--db", str(db)] + ([] if problem == "no notes given" else ["--notes", str(notes)])
    r = subprocess.run([str(NOTESDB_EXE), *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr.startswith("Error: ") and r.stderr.count("\n") == 1, r.stderr
    assert "Traceback" not in r.stderr
    if problem == "missing notes folder" and command == ["log"]:  # reads the database only
        assert r.stderr == f"Error: no database at {db}: run 'notesdb index' first\n"
    elif problem == "missing notes folder":
        assert r.stderr == f"Error: notes folder not found: {notes}\n"
    elif problem == "notes is a file":
        assert r.stderr == f"Error: notes folder {notes} is a file, not a folder: give the folder that holds the notes\n"
    elif problem == "no notes given":
        assert r.stderr == "Error: no notes folder: pass --notes DIR or set NOTESDB_NOTES\n"
    else:
        assert str(db) in r.stderr


def test_damaged_database_is_an_error_for_search(vault: Path, db_path: Path) -> None:
    db_path.parent.mkdir()
    db_path.write_bytes(b"garbage " * 200)
    r = runner.invoke(app, ["search", "worcester", "--notes", str(vault), "--db", str(db_path)])
    assert r.exit_code == 1
    assert r.stdout == ""
    assert r.stderr.startswith(f"Error: database {db_path} cannot be read") and r.stderr.count("\n") == 1


# --- check --------------------------------------------------------------------


def test_check_json_speaks(indexed: tuple[Path, Path]) -> None:
    r = invoke("check", COVERED_MESSAGE, "--json", *where(indexed))
    assert r.exit_code == 0, r.stderr
    out = json.loads(r.stdout)
    assert {"spoken", "line", "notes", "route"} <= set(out)
    assert out["spoken"] is True
    assert out["notes"][0] == COVERED_NOTE
    # the line names the note by a path the assistant can open from any folder
    assert out["line"].startswith("Notes that may cover this: ")
    assert f"({indexed[0].resolve()}/{COVERED_NOTE})" in out["line"]
    assert out["route"] in {"strong", "lead", "rare"}


def test_check_json_silent(indexed: tuple[Path, Path]) -> None:
    out = json.loads(invoke("check", "yep", "--json", *where(indexed)).stdout)
    assert (out["spoken"], out["line"], out["notes"]) == (False, "", [])
    assert isinstance(out["route"], str) and out["route"]
    r = invoke("check", "yep", *where(indexed))
    assert r.stdout == f"(silent: {out['route']})\n"


def test_check_matches_the_hook(indexed: tuple[Path, Path]) -> None:
    # one judgement: the CLI and the hook say the same line
    from notesdb.hook import run

    out = json.loads(invoke("check", "my worcster boiler is locked out again", "--json", *where(indexed)).stdout)
    event = json.dumps({"session_id": "s", "cwd": "/", "prompt": "my worcster boiler is locked out again"}).encode()
    said = run(event, where(indexed))
    if out["spoken"]:
        assert json.loads(said)["hookSpecificOutput"]["additionalContext"] == out["line"]
    else:
        assert said == ""


# --- log ----------------------------------------------------------------------


def test_log_lists_hook_decisions(indexed: tuple[Path, Path]) -> None:
    prompts = [COVERED_MESSAGE, "yep", "/clear"]
    for i, prompt in enumerate(prompts):
        event = {"session_id": f"s{i}", "cwd": "/home/niko", "hook_event_name": "UserPromptSubmit",
                 "transcript_path": "/tmp/t.jsonl", "permission_mode": "default", "prompt": prompt}  # fmt: skip
        p = subprocess.run(
            [str(NOTESDB_EXE), "hook", *where(indexed)], input=json.dumps(event).encode(), capture_output=True, timeout=60
        )
        assert p.returncode == 0
    r = invoke("log", "--json", *where(indexed))
    assert r.exit_code == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [row["prompt"] for row in rows] == prompts[::-1]  # newest first
    assert [row["session_id"] for row in rows] == ["s2", "s1", "s0"]
    assert [row["spoken"] for row in rows] == [False, False, True]
    assert rows[2]["notes"][0] == COVERED_NOTE
    assert rows[0]["route"] == "slash-command"
    assert all(row["elapsed_ms"] > 0 and row["error"] == "" for row in rows)
    assert len(json.loads(invoke("log", "--json", "--limit", "1", *where(indexed)).stdout)) == 1
    text = invoke("log", *where(indexed)).stdout.splitlines()
    assert len(text) == 3
    assert text[0].startswith("#3 ") and text[0].endswith("[slash-command] '/clear' -> silent")
    assert text[2].endswith(f"'{COVERED_MESSAGE}' -> {COVERED_NOTE}")


def test_a_skipped_slash_command_cannot_be_labelled(indexed: tuple[Path, Path]) -> None:
    for prompt in ("/clear", COVERED_MESSAGE):
        event = {"session_id": "s", "cwd": "/tmp", "prompt": prompt}
        p = subprocess.run([str(NOTESDB_EXE), "hook", *where(indexed)], input=json.dumps(event).encode(),
                           capture_output=True, timeout=60)  # fmt: skip
        assert p.returncode == 0
    r = invoke("label", "set", "1", "right", *where(indexed))
    assert r.exit_code == 1
    assert r.stderr == (
        "Error: decision #1 was not judged: '/clear' is a Claude Code command, not a message, "
        "so there is nothing to label\n"
    )
    listed = json.loads(invoke("label", "list", "--json", *where(indexed)).stdout)
    assert [row["prompt"] for row in listed] == [COVERED_MESSAGE]  # the command is not offered
    assert invoke("label", "set", "2", "right", *where(indexed)).exit_code == 0


def test_an_empty_or_unusable_prompt_cannot_be_labelled_or_exported(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    """An empty prompt (route no-terms) and an event whose prompt is not text (bad-input) are
    logged, but have no message to judge: label list does not offer them, label set refuses
    them in one line, and label export writes only the real message."""
    for prompt in ("", " \n\t ", 42, COVERED_MESSAGE):
        event = {"session_id": "s", "cwd": "/tmp", "prompt": prompt}
        p = subprocess.run([str(NOTESDB_EXE), "hook", *where(indexed)], input=json.dumps(event).encode(),
                           capture_output=True, timeout=60)  # fmt: skip
        assert p.returncode == 0
    listed = json.loads(invoke("label", "list", "--json", *where(indexed)).stdout)
    assert [row["prompt"] for row in listed] == [COVERED_MESSAGE]
    for i, held in ((1, "an empty prompt"), (2, "an empty prompt"), (3, "no usable prompt")):
        r = invoke("label", "set", str(i), "missed", "--note", COVERED_NOTE, *where(indexed))
        assert r.exit_code == 1
        assert r.stderr == (
            f"Error: decision #{i} has no message to judge (the hook's event held {held}), so there is nothing to label\n"
        )
    assert invoke("label", "set", "4", "right", *where(indexed)).exit_code == 0
    out = tmp_path / "labels.jsonl"
    assert invoke("label", "export", str(out), *where(indexed)).exit_code == 0
    assert [json.loads(line)["message"] for line in out.read_text().splitlines()] == [COVERED_MESSAGE]


def test_a_prompt_the_client_wrote_cannot_be_labelled(indexed: tuple[Path, Path]) -> None:
    notice = "<task-notification>\n<summary>" + COVERED_MESSAGE + "</summary>\n</task-notification>"
    event = {"session_id": "s", "cwd": "/tmp", "prompt": notice}
    p = subprocess.run([str(NOTESDB_EXE), "hook", *where(indexed)], input=json.dumps(event).encode(),
                       capture_output=True, timeout=60)  # fmt: skip
    assert (p.returncode, p.stdout) == (0, b"")
    r = invoke("label", "set", "1", "right", *where(indexed))
    assert r.exit_code == 1
    assert r.stderr == (
        "Error: decision #1 was not judged: '<task-notification>\\n<summary>the worcester boiler shows EA22' "
        "is text the client wrote, not a message, so there is nothing to label\n"
    )
    assert json.loads(invoke("label", "list", "--json", *where(indexed)).stdout) == []


def test_commands_that_read_the_database_need_only_the_database(vault: Path, db_path: Path, tmp_path: Path,
                                                                isolated_home: Path) -> None:
    db = db_path
    assert invoke("index", *where((vault, db))).exit_code == 0
    event = {"session_id": "s", "cwd": "/tmp", "prompt": COVERED_MESSAGE}
    p = subprocess.run([str(NOTESDB_EXE), "hook", *where((vault, db))], input=json.dumps(event).encode(),
                       capture_output=True, timeout=60)  # fmt: skip
    assert p.returncode == 0
    only = ["--db", str(db)]
    r = invoke("log", "--json", *only)
    assert r.exit_code == 0, r.stderr
    assert [row["prompt"] for row in json.loads(r.stdout)] == [COVERED_MESSAGE]
    r = invoke("label", "list", "--json", *only)
    assert r.exit_code == 0 and len(json.loads(r.stdout)) == 1, r.stderr
    r = invoke("label", "set", "1", "right", *only)
    assert (r.exit_code, r.stdout) == (0, f"#1 labelled right: it named {COVERED_NOTE}\n"), r.stderr
    target = vault / "pets" / "cases.jsonl"  # the database remembers its notes folder
    r = invoke("label", "export", str(target), *only)
    assert r.exit_code == 1 and "is inside the notes folder" in r.stderr and not target.exists()
    r = invoke("label", "export", str(tmp_path / "cases.jsonl"), *only)
    assert r.exit_code == 0, r.stderr
    # nothing named at all: one line saying what to pass
    r = invoke("log")
    assert (r.exit_code, r.stderr) == (1, "Error: no database: pass --db FILE (or --notes DIR for its default database)\n")
    # the default databases there are, named (after 'hook uninstall' nothing else says where the log went)
    assert invoke("index", "--notes", str(vault)).exit_code == 0
    [default] = (isolated_home / ".local" / "share" / "notesdb").glob("*.db")
    r = invoke("log")
    assert (r.exit_code, r.stderr) == (1, "Error: no database: pass --db FILE (or --notes DIR for its default database); "
                                          f"databases in {default.parent}: {default.name}\n")  # fmt: skip
    # a database that does not exist is not created by a command that only reads
    r = invoke("log", "--db", str(tmp_path / "none.db"))
    assert r.exit_code == 1 and "run 'notesdb index' first" in r.stderr
    assert not (tmp_path / "none.db").exists()


def test_log_and_label_read_the_database_while_the_notes_folder_is_gone(vault: Path, tmp_path: Path) -> None:
    # the default database of a folder, then the folder unmounted or renamed
    assert invoke("index", "--notes", str(vault)).exit_code == 0
    event = {"session_id": "s", "cwd": "/tmp", "prompt": COVERED_MESSAGE}
    p = subprocess.run([str(NOTESDB_EXE), "hook", "--notes", str(vault)], input=json.dumps(event).encode(),
                       capture_output=True, timeout=60)  # fmt: skip
    assert p.returncode == 0 and p.stdout
    vault.rename(tmp_path / "elsewhere")
    r = invoke("log", "--json", "--notes", str(vault))
    assert r.exit_code == 0, r.stderr
    assert [row["prompt"] for row in json.loads(r.stdout)] == [COVERED_MESSAGE]
    r = invoke("label", "list", "--json", "--notes", str(vault))
    assert r.exit_code == 0 and len(json.loads(r.stdout)) == 1, r.stderr
    # a command that reads the notes still needs them
    r = invoke("search", "worcester", "--notes", str(vault))
    assert (r.exit_code, r.stderr) == (1, f"Error: notes folder not found: {vault}\n")


def test_log_shows_what_was_out_of_the_ordinary_as_a_notice(vault: Path, tmp_path: Path) -> None:
    """A decision taken while creating the database is not an error: the log says "notice"."""
    db = tmp_path / "new.db"
    p = subprocess.run([str(NOTESDB_EXE), "hook", "--notes", str(vault), "--db", str(db)],
                       input=json.dumps({"prompt": COVERED_MESSAGE}).encode(), capture_output=True, timeout=60)  # fmt: skip
    assert p.returncode == 0
    text = invoke("log", "--notes", str(vault), "--db", str(db)).stdout.splitlines()
    assert len(text) == 2 and text[0].startswith("#1 ")
    assert text[1].startswith("    notice: the database was missing or empty: created it and indexed ")


def test_log_when_empty(indexed: tuple[Path, Path]) -> None:
    assert invoke("log", *where(indexed)).stdout == "no decisions logged yet\n"
    assert json.loads(invoke("log", "--json", *where(indexed)).stdout) == []


@pytest.mark.parametrize(
    "content, error",
    [
        ("gate = 5\n", "[gate] must be a table of settings"),  # valid TOML, wrong shape
        ("log = \"prompts\"\n", "[log] must be a table of settings"),  # a string, not a table
        ("[gate]\nlead_ratio = -1\n", "must be zero or more"),  # a negative threshold
        # a misspelt name anywhere is refused, with the closest known name
        ("[log]\nprompt = false\n", "unknown [log] setting 'prompt', did you mean 'prompts'? (known: prompts)"),
        ("[index]\nskips = []\n", "unknown [index] setting 'skips', did you mean 'skip'? (known: skip)"),
        ("[gaet]\nrare_weight = 3.0\n", "unknown table 'gaet', did you mean 'gate'?"),
        ("rare_weight = 3.0\n", "unknown setting outside a table 'rare_weight', it belongs under [gate]"),
        ("[gate]\nrare_wieght = 3\n", "unknown gate setting 'rare_wieght' (did you mean 'rare_weight'?)\n"),
        # values that used to pass and then fail at the first message
        ("[gate]\nbody_saturation = 0\n", "gate setting 'body_saturation' must be more than zero"),
        ("[gate]\nheadings_saturation = 0\n", "gate setting 'headings_saturation' must be more than zero"),
        ("[meaning]\nmodel = '~nosuchuser-x1/m'\n", "[meaning] model '~nosuchuser-x1/m': its '~' names no home folder"),
    ],
)
def test_config_of_the_wrong_shape_is_one_line(indexed: tuple[Path, Path], tmp_path: Path, content: str, error: str) -> None:
    conf = tmp_path / "notesdb.toml"
    conf.write_text(content)
    r = invoke("check", "hello", *where(indexed), "--config", str(conf))
    assert r.exit_code == 1 and error in r.stderr and r.stderr.count("\n") == 1


@pytest.mark.parametrize("command", [["search", "worcester"], ["doctor"], ["hook", "install"]])
def test_a_config_path_under_an_unknown_user_is_one_line(indexed: tuple[Path, Path], command: list[str]) -> None:
    r = invoke(*command, *where(indexed), "--config", "~nosuchuser-x1/c.toml")
    assert r.exit_code == 1 and r.stderr == (
        "Error: config file '~nosuchuser-x1/c.toml': its '~' names no home folder known here\n"
    )


def test_an_absurdly_steep_english_slope_reads_as_a_step(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    """english_slope 1e30 overflowed math.exp at the first message: the curve is a step there."""
    from notesdb.rank import specificity
    from notesdb.settings import Settings

    steep = Settings(english_slope=1e30)
    assert (specificity(6.0, steep), specificity(3.0, steep)) == (0.0, 1.0)
    conf = tmp_path / "notesdb.toml"
    conf.write_text("[gate]\nenglish_slope = 1e30\n")
    r = invoke("check", COVERED_MESSAGE, *where(indexed), "--config", str(conf))
    assert r.exit_code == 0 and r.stderr == ""


def test_config_that_is_a_fifo_is_refused_not_read(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "notesdb.toml"
    os.mkfifo(fifo)
    r = invoke("check", "hello", *where(indexed), "--config", str(fifo))
    assert (r.exit_code, r.stderr) == (1, f"Error: config file is not a regular file: {fifo}\n")


@pytest.mark.parametrize("command", [["check", "hello"], ["search", "worcester"], ["tune", "--generic", "--write"]])
def test_config_nested_too_deeply_is_one_line(indexed: tuple[Path, Path], tmp_path: Path, command: list[str]) -> None:
    conf = tmp_path / "deep.toml"
    text = "a=" + "[" * 500 + "]" * 500 + "\n"  # tomllib recurses once per level
    conf.write_text(text)
    r = subprocess.run([str(NOTESDB_EXE), *command, *where(indexed), "--config", str(conf)],
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    assert (r.returncode, r.stderr) == (1, f"Error: config file {conf} is not valid TOML: arrays or tables nested too deeply\n")
    assert conf.read_text() == text


def test_config_with_a_byte_order_mark_is_read(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    conf = tmp_path / "bom.toml"
    conf.write_bytes("\ufeff[gate]\nlead_ratio = -1\n".encode())  # read: its bad value is reported
    r = invoke("check", "hello", *where(indexed), "--config", str(conf))
    assert r.exit_code == 1 and "must be zero or more" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    conf.write_bytes("\ufeff[log]\nprompts = false\n".encode())
    r = invoke("check", COVERED_MESSAGE, *where(indexed), "--config", str(conf))
    assert (r.exit_code, r.stderr) == (0, "")
    conf.write_bytes("\ufeff[gate]\n".encode())  # tune --write keeps reading and writing it
    r = invoke("tune", "--generic", "--write", *where(indexed), "--config", str(conf))
    assert r.exit_code == 0, r.stderr
    assert conf.read_text(encoding="utf-8").startswith("[gate]\n")


# --- label export: never over the database, a device or a pipe -----------------


def _labelled_db(indexed: tuple[Path, Path]) -> None:
    """Run the hook once on a message and label its decision right (real hook process)."""
    vault, db = indexed
    proc = subprocess.run([str(NOTESDB_EXE), "hook", *where(indexed)], input=json.dumps({"prompt": COVERED_MESSAGE, "session_id": "s1"}),
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    r = invoke("label", "set", "1", "right", *where(indexed))
    assert r.exit_code == 0, r.stderr


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "-journal", ".lock", "hook-errors.jsonl"])
@pytest.mark.parametrize("via_symlink", [False, True])
def test_label_export_force_refuses_the_database_and_its_files(indexed: tuple[Path, Path], tmp_path: Path, suffix: str, via_symlink: bool) -> None:
    vault, db = indexed
    _labelled_db(indexed)
    target = db.with_name(suffix) if suffix.endswith(".jsonl") else db.with_name(db.name + suffix)
    if not target.exists():  # SQLite removes and makes its side files itself: only the name matters
        target.write_bytes(b"")
    name = target
    if via_symlink:
        name = tmp_path / "link.jsonl"
        name.symlink_to(target)
    r = invoke("label", "export", str(name), "--force", *where(indexed))
    assert r.exit_code == 1
    assert r.stderr.startswith("Error: ") and r.stderr.count("\n") == 1, r.stderr
    assert f"is a file of the database in use ({target})" in r.stderr
    if target.exists():  # no cases file was written over it
        assert b'"expect"' not in target.read_bytes()
    conn = sqlite3.connect(db)  # the live database still holds its decision and label
    assert conn.execute("SELECT label FROM decisions WHERE id = 1").fetchone() == ("right",)
    conn.close()


def test_label_export_never_writes_in_the_folder_the_database_indexes(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    """--notes naming another folder (or NOTESDB_NOTES) does not make the indexed one writable."""
    vault, db = indexed
    (vault / "new-note.md").write_text("# New\n\nso that this index records its folder\n")
    assert invoke("index", *where(indexed)).exit_code == 0
    _labelled_db(indexed)
    other = tmp_path / "other"
    other.mkdir()
    r = invoke("label", "export", str(vault / "cases.jsonl"), "--notes", str(other), "--db", str(db))
    assert (r.exit_code, r.stderr) == (
        1, f"Error: {vault / 'cases.jsonl'} is inside the notes folder {vault}: notesdb never writes there\n"
    )
    assert not (vault / "cases.jsonl").exists()
    # a folder linked into the notes folder is read as notes: not written through either
    outside = tmp_path / "outside"
    outside.mkdir()
    (vault / "linked").symlink_to(outside)
    r = invoke("label", "export", str(vault / "linked" / "z.jsonl"), "--force", "--notes", str(vault), "--db", str(db))
    assert r.exit_code == 1 and "is inside the notes folder" in r.stderr and not (outside / "z.jsonl").exists()
    # nor over a copy of the database moved aside and kept
    kept = db.with_name(db.name + ".damaged-20261201T000000Z")
    kept.write_bytes(b"SQLite format 3\x00 kept")
    r = invoke("label", "export", str(kept), "--force", "--db", str(db))
    assert r.exit_code == 1 and "a copy of the database moved aside and kept" in r.stderr
    assert kept.read_bytes() == b"SQLite format 3\x00 kept"


@pytest.mark.parametrize("kind", ["fifo", "folder", "socket"])
def test_label_export_force_refuses_what_is_not_a_regular_file(indexed: tuple[Path, Path], tmp_path: Path, kind: str) -> None:
    import socket
    import stat as statmod

    _labelled_db(indexed)
    target = tmp_path / f"target-{kind}"
    sock = None
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "folder":
        target.mkdir()
    else:
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(target))
    try:
        mode = target.lstat().st_mode
        r = invoke("label", "export", str(target), "--force", *where(indexed))
        assert r.exit_code == 1
        assert r.stderr.startswith("Error: ") and r.stderr.count("\n") == 1, r.stderr
        assert "not a regular file" in r.stderr
        assert target.lstat().st_mode == mode and not statmod.S_ISREG(mode)
    finally:
        if sock is not None:
            sock.close()


def test_label_export_to_an_empty_path_is_a_usage_error(indexed: tuple[Path, Path]) -> None:
    _labelled_db(indexed)
    r = subprocess.run([str(NOTESDB_EXE), "label", "export", "", "--force", *where(indexed)],
                       capture_output=True, text=True, timeout=60)  # fmt: skip
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "Error: Invalid value for 'FILE': an empty path names nothing\n"


@pytest.mark.parametrize("command", ["eval", "tune"])
def test_an_empty_cases_path_is_a_usage_error(indexed: tuple[Path, Path], command: str) -> None:
    r = subprocess.run([str(NOTESDB_EXE), command, "", *where(indexed)], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "Error: Invalid value for 'CASES': an empty path names nothing\n"


def test_search_prints_no_control_character_of_a_note(tmp_path: Path) -> None:
    from conftest import write_and_index

    vault, db = write_and_index(tmp_path / "notes", tmp_path / "notes.db", {
        "zebra\x7f\x07.md": "zebrastripe savanna\n",
        "garden.md": "roses and tomatoes\n",
    })
    r = subprocess.run([str(NOTESDB_EXE), "search", "zebrastripe", "--notes", str(vault), "--db", str(db)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1].endswith(" zebra  (`zebra??.md`, invisible characters shown as ?)"), r.stdout
    # --json keeps the path exact: it is the key to read the note by
    r = subprocess.run([str(NOTESDB_EXE), "search", "zebrastripe", "--json", "--notes", str(vault), "--db", str(db)],
                       capture_output=True, text=True, timeout=60)
    assert json.loads(r.stdout)["results"][0]["path"] == "zebra\x7f\x07.md"


def test_index_keeps_the_meter_reading_while_nothing_changed(vault: Path, db_path: Path, tmp_path: Path) -> None:
    """A second ``index`` of an unchanged folder reuses the stored false-alarm reading; a changed
    note, or other gate settings, measure it again."""
    args = ["--notes", str(vault), "--db", str(db_path)]
    assert invoke("index", *args).exit_code == 0

    def mark() -> None:  # a sentinel in the stored reading: gone when measured again
        with sqlite3.connect(db_path) as conn:
            value = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'false_alarm_meter'").fetchone()[0])
            value["examples"] = ["sentinel"]
            conn.execute("UPDATE meta SET value = ? WHERE key = 'false_alarm_meter'", (json.dumps(value),))
        conn.close()

    def examples(r: Any) -> list[str]:
        assert r.exit_code == 0, r.output
        return json.loads(r.stdout)["false_alarm_meter"]["examples"]

    mark()
    assert examples(invoke("index", *args, "--json")) == ["sentinel"]  # nothing changed: kept
    config = tmp_path / "quiet.toml"
    config.write_text("[gate]\nstrong_evidence = 50.0\n", encoding="utf-8")
    assert examples(invoke("index", *args, "--config", str(config), "--json")) != ["sentinel"]  # settings
    mark()
    assert examples(invoke("index", *args, "--config", str(config), "--json")) == ["sentinel"]
    (vault / "new-note.md").write_text("# Sourdough starter\n\nFeed it twice a day.\n", encoding="utf-8")
    assert examples(invoke("index", *args, "--config", str(config), "--json")) != ["sentinel"]  # a note


def test_log_shows_an_empty_prompt_as_empty_not_as_unlogged(indexed: tuple[Path, Path]) -> None:
    """An empty message was logged (as ""); only a prompt that was not stored reads as not logged."""
    for prompt, extra in (("", []), (COVERED_MESSAGE, ["--no-log"])):
        event = {"session_id": "s", "cwd": "/home/niko", "hook_event_name": "UserPromptSubmit",
                 "transcript_path": "/tmp/t.jsonl", "prompt": prompt}  # fmt: skip
        p = subprocess.run([str(NOTESDB_EXE), "hook", *extra, *where(indexed)], input=json.dumps(event).encode(),
                           capture_output=True, timeout=60)  # fmt: skip
        assert p.returncode == 0
    text = invoke("log", *where(indexed)).stdout.splitlines()
    assert "'(prompt not logged)' -> " in text[0] and "'(empty prompt)' -> silent" in text[1], text


def test_a_terminal_that_cannot_show_a_character_gets_a_question_mark(tmp_path: Path) -> None:
    """A Latin-1 terminal and a note description holding an em dash: the line is printed with
    "?" for it, exit 0, instead of an error half-way through the output."""
    vault = tmp_path / "notes"
    vault.mkdir()
    (vault / "kettle.md").write_text("---\ndescription: Descaling \u2014 citric acid, every month\n---\n# Kettle descaling\n\nCitric acid.\n")
    env = dict(os.environ, PYTHONIOENCODING="latin-1")
    p = subprocess.run([str(NOTESDB_EXE), "check", "how do i descale the kettle", "--notes", str(vault),
                        "--db", str(tmp_path / "n.db")], capture_output=True, env=env, timeout=60)  # fmt: skip
    assert (p.returncode, p.stderr) == (0, b""), p.stderr
    assert b"Descaling ? citric acid" in p.stdout and p.stdout.startswith(b"Notes that may cover this:")


def test_json_on_a_stream_that_is_not_utf8_escapes_what_it_cannot_show(tmp_path: Path) -> None:
    """--json to a Latin-1 (or cp1252) stream: characters the encoding lacks are JSON escapes,
    read back whole, not "?" (which no reader can undo)."""
    vault = tmp_path / "notes"
    vault.mkdir()
    (vault / "café.md").write_text("# Café \u2014 menu\n\nCroissants, 日本 tea.\n", encoding="utf-8")
    env = dict(os.environ, PYTHONIOENCODING="latin-1")
    p = subprocess.run([str(NOTESDB_EXE), "search", "croissants", "--json", "--notes", str(vault),
                        "--db", str(tmp_path / "n.db")], capture_output=True, env=env, timeout=60)  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert b"?" not in p.stdout and b"\\u2014" in p.stdout
    [hit] = json.loads(p.stdout.decode("latin-1"))["results"]
    assert (hit["path"], hit["title"]) == ("café.md", "Café \u2014 menu")


def test_eval_and_doctor_show_the_meter_of_the_settings_in_use(vault: Path, db_path: Path, tmp_path: Path) -> None:
    """After the config file changes (``tune --write``), eval and doctor showed the reading
    stored for the old settings; they measure it again for the settings in use."""
    args = ["--notes", str(vault), "--db", str(db_path)]
    assert invoke("index", *args).exit_code == 0
    stored = sqlite3.connect(db_path).execute("SELECT value FROM meta WHERE key = 'false_alarm_meter'").fetchone()[0]
    default_spoken = json.loads(stored)["spoken"]
    loose = tmp_path / "loose.toml"
    loose.write_text("[gate]\nstrong_evidence = 0.5\nstrong_coverage = 0.05\nstrong_words = 1\n", encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"id": "a", "message": "thanks", "expect": [], "kind": "quiet-chat"}\n', encoding="utf-8")
    r = invoke("eval", str(cases), *args, "--config", str(loose), "--json")
    assert r.exit_code == 0, r.output
    loose_spoken = json.loads(r.stdout)["false_alarm_meter"]["spoken"]
    assert loose_spoken > default_spoken
    r = invoke("doctor", *args)  # back to the defaults: doctor measures them again
    line = next(ln for ln in r.stdout.splitlines() if "false alarms:" in ln)
    assert f"would speak on {default_spoken} of 510 generic messages" in line, line
    assert line.endswith("(measured now: the settings or the notes changed since the last)"), line
    r = invoke("doctor", *args)
    line = next(ln for ln in r.stdout.splitlines() if "false alarms:" in ln)
    assert f"would speak on {default_spoken} of 510" in line and "measured now" not in line, line  # stored now


def test_label_export_keeps_an_earlier_export_edited_by_hand(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    """An earlier export was known by its path alone: cases added to it by hand were
    replaced by the next export without a word."""
    _labelled_db(indexed)
    file = tmp_path / "labels.jsonl"
    assert invoke("label", "export", str(file), *where(indexed)).exit_code == 0
    assert invoke("label", "export", str(file), *where(indexed)).exit_code == 0  # unchanged: replaced
    mine = '{"id": "mine-1", "message": "my case", "expect": []}\n'
    with open(file, "a", encoding="utf-8") as f:
        f.write(mine)
    r = invoke("label", "export", str(file), *where(indexed))
    assert (r.exit_code, r.stderr) == (1, f"Error: {file} was changed since notesdb exported it: pass --force to replace it\n")
    assert file.read_text(encoding="utf-8").endswith(mine)
    assert invoke("label", "export", str(file), "--force", *where(indexed)).exit_code == 0
    assert mine not in file.read_text(encoding="utf-8")


def test_check_reads_at_most_64_mib_from_stdin(indexed: tuple[Path, Path]) -> None:
    """``notesdb check - < /dev/zero`` read until it was killed (300 MB took 623 MB of memory)."""
    from notesdb.cli import MAX_STDIN_MESSAGE

    proc = subprocess.Popen([str(NOTESDB_EXE), "check", "-", *where(indexed)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    chunk = b"\0" * (1024 * 1024)
    try:
        for _ in range(MAX_STDIN_MESSAGE // len(chunk) + 8):
            proc.stdin.write(chunk)  # type: ignore[union-attr]
    except BrokenPipeError:  # it stopped reading: what it must do
        pass
    out, err = proc.communicate(timeout=120)
    assert (proc.returncode, out) == (1, b"")
    assert err == b"Error: the message on stdin is longer than 64 MiB: give a shorter one\n"

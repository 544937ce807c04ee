"""``notesdb mcp`` as an MCP client sees it: the real server process over stdio, driven by the
official SDK's own client."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import COVERED_MESSAGE, COVERED_NOTE, NOTESDB_EXE, decision_rows

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

pytestmark = pytest.mark.skipif(not NOTESDB_EXE.exists(), reason="the notesdb console script is not installed")

HIT = COVERED_MESSAGE
MISS = "thanks, that worked"


def params(vault: Path, db: Path, *extra: str) -> StdioServerParameters:
    env = {k: os.environ[k] for k in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "PATH")}
    return StdioServerParameters(
        command=str(NOTESDB_EXE), args=["mcp", "--notes", str(vault), "--db", str(db), *extra], env=env
    )


def session(p: StdioServerParameters, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Start the server, call each tool in order, return the results; the server stops after."""

    async def go() -> list[Any]:
        out = []
        async with Client(p, read_timeout_seconds=60) as client:
            out.append(sorted(t.name for t in (await client.list_tools()).tools))
            for name, args in calls:
                out.append(await client.call_tool(name, args))
        return out

    return anyio.run(go)


def text(result: Any) -> str:
    assert len(result.content) == 1
    return result.content[0].text


def cli_line(vault: Path, db: Path, message: str) -> str:
    proc = subprocess.run(
        [str(NOTESDB_EXE), "hook", "--notes", str(vault), "--db", str(db), "--no-log"],
        input=json.dumps({"prompt": message}).encode(), capture_output=True, timeout=60,
    )
    return proc.stdout.decode().strip()


def test_tools_listed_and_hook_answers_hook_json_or_empty_object(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    tools, hit, miss = session(params(vault, db), [
        ("hook", {"message": HIT, "session_id": "s-1", "cwd": "/tmp/p"}),
        ("hook", {"message": MISS}),
    ])
    assert tools == ["hook", "read_note", "search", "why"]
    answer = json.loads(text(hit))
    assert answer["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert f"({vault / COVERED_NOTE})" in answer["hookSpecificOutput"]["additionalContext"]
    assert text(miss) == "{}"  # an empty string is not silence for Claude Code
    # logged like the hook logs
    rows = decision_rows(db)
    assert [(r["prompt"], r["spoken"], r["session_id"], r["cwd"]) for r in rows] == [
        (HIT, 1, "s-1", "/tmp/p"), (MISS, 0, "", "")]
    assert json.loads(rows[0]["notes"]) == [COVERED_NOTE]
    # the same answer the command hook prints
    assert text(hit) == cli_line(vault, db, HIT)


def test_search_matches_the_search_command_with_corrections(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    query = "worcster service"  # a typo the vocabulary corrects
    _, res = session(params(vault, db), [("search", {"query": query, "limit": 5})])
    assert not res.is_error
    got = json.loads(text(res))
    cli = subprocess.run(
        [str(NOTESDB_EXE), "search", query, "--notes", str(vault), "--db", str(db), "--limit", "5", "--json"],
        capture_output=True, timeout=60, check=True,
    )
    assert got == json.loads(cli.stdout)
    assert {"from": "worcster", "to": "worcester"} in got["corrections"]
    assert got["results"][0]["path"] == COVERED_NOTE
    assert len(got["results"]) == 5


def test_search_for_nothing_is_a_tool_error(indexed: tuple[Path, Path]) -> None:
    """An empty or blank query is refused with the reason, as ``notesdb search`` refuses it."""
    vault, db = indexed
    _, empty, blank = session(params(vault, db), [("search", {"query": ""}), ("search", {"query": "  \n"})])
    for res in (empty, blank):
        assert res.is_error
        assert text(res) == "Error executing tool search: nothing to search for: the query is empty (give one or more words)"


def test_search_limit_is_checked_as_its_declared_schema_says(indexed: tuple[Path, Path]) -> None:
    """``limit`` is declared an integer from 1 to MAX_SEARCH_LIMIT, and a value outside that
    (0, -1, 51) or not an integer (the string "3") is a tool error saying so, as the CLI
    refuses ``--limit 0``."""
    from notesdb.server import MAX_SEARCH_LIMIT

    vault, db = indexed

    async def go() -> tuple[dict[str, Any], list[Any]]:
        async with Client(params(vault, db), read_timeout_seconds=60) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            out = [await client.call_tool("search", {"query": "boiler", "limit": v})
                   for v in (0, -1, "3", MAX_SEARCH_LIMIT + 1, 2.5, 1, MAX_SEARCH_LIMIT)]
            return tools["search"].input_schema, out

    schema, (zero, negative, string, over, fraction, one, most) = anyio.run(go)
    assert schema["properties"]["limit"] == {
        "default": 10, "minimum": 1, "maximum": MAX_SEARCH_LIMIT, "title": "Limit", "type": "integer"}
    assert "Input should be greater than or equal to 1" in text(zero)
    assert "Input should be greater than or equal to 1" in text(negative)
    assert "Input should be a valid integer" in text(string)
    assert f"Input should be less than or equal to {MAX_SEARCH_LIMIT}" in text(over)
    assert "Input should be a valid integer" in text(fraction)
    for res in (zero, negative, string, over, fraction):
        assert res.is_error
        assert text(res).startswith("Error executing tool search: 1 validation error")
        assert "limit" in text(res)
    assert not one.is_error and len(json.loads(text(one))["results"]) == 1
    assert not most.is_error and len(json.loads(text(most))["results"]) > 1


def test_search_notes_refuses_a_limit_out_of_bounds_when_called_directly(indexed: tuple[Path, Path]) -> None:
    from notesdb.errors import NotesdbError
    from notesdb.server import MAX_SEARCH_LIMIT, Place, search_notes

    vault, db = indexed
    place = Place(notes=str(vault), db=str(db))
    for bad in (0, -1, MAX_SEARCH_LIMIT + 1, "3", True):
        with pytest.raises(NotesdbError) as e:
            search_notes(place, "boiler", bad)  # type: ignore[arg-type]
        assert str(e.value) == f"limit must be a whole number from 1 to {MAX_SEARCH_LIMIT}, not {bad!r}"
    assert len(search_notes(place, "boiler", 2)["results"]) == 2


def test_read_note_reads_indexed_notes_and_refuses_everything_else(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    vault, db = indexed
    secret = tmp_path / "secret.md"
    secret.write_text("# secret\nPRIVATE-CONTENT\n")
    (vault / "home" / "escape.md").symlink_to(secret)
    _, ok, up, absolute, missing, link = session(params(vault, db), [
        ("read_note", {"path": COVERED_NOTE}),
        ("read_note", {"path": "../secret.md"}),
        ("read_note", {"path": str(secret)}),
        ("read_note", {"path": "home/nope.md"}),
        ("read_note", {"path": "home/escape.md"}),
    ])
    assert not ok.is_error
    assert text(ok) == (vault / COVERED_NOTE).read_text()
    for res in (up, absolute, missing, link):
        assert res.is_error
        assert "not a note in the notes folder" in text(res) or "refused" in text(res)
        assert "PRIVATE-CONTENT" not in text(res)


def test_read_note_takes_the_path_the_hook_line_gives_and_normalised_relative_paths(indexed: tuple[Path, Path]) -> None:
    """The line before a message names notes by absolute path; the instructions tell the model
    to read them with read_note, so that path, and ./ or doubled-slash forms, read the note."""
    vault, db = indexed
    _, hit, *reads = session(params(vault, db), [
        ("hook", {"message": HIT}),
        ("read_note", {"path": str(vault.resolve() / COVERED_NOTE)}),
        ("read_note", {"path": str(vault) + "//" + COVERED_NOTE.replace("/", "/./")}),
        ("read_note", {"path": "./" + COVERED_NOTE}),
        ("read_note", {"path": COVERED_NOTE.replace("/", "//")}),
        ("read_note", {"path": "home/../" + COVERED_NOTE}),
        ("read_note", {"path": "/etc/passwd"}),
        ("read_note", {"path": str(vault / ".." / "vault" / ".." / "secret.md")}),
        ("read_note", {"path": "."}),
        ("read_note", {"path": str(vault)}),
    ])
    line = json.loads(text(hit))["hookSpecificOutput"]["additionalContext"]
    shown = str(vault.resolve() / COVERED_NOTE)
    assert f"({shown})" in line
    want = (vault / COVERED_NOTE).read_text()
    for res in reads[:5]:
        assert not res.is_error, text(res)
        assert text(res) == want
    for res, given in zip(reads[5:], ["/etc/passwd", str(vault / ".." / "vault" / ".." / "secret.md"), ".", str(vault)]):
        assert res.is_error
        assert text(res) == (f"Error executing tool read_note: not a note in the notes folder: {given!r} "
                             "(use a path that search returns)")


def test_why_explains_the_last_decision_of_a_session(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    _, _, _, res, other, none = session(params(vault, db), [
        ("hook", {"message": HIT, "session_id": "a"}),
        ("hook", {"message": MISS, "session_id": "b"}),
        ("why", {"session_id": "a"}),
        ("why", {}),
        ("why", {"session_id": "nobody"}),
    ])
    got = json.loads(text(res))
    assert got["decision"]["prompt"] == HIT
    assert got["decision"]["notes"] == [COVERED_NOTE]
    assert got["now"]["spoken"] is True
    assert got["now"]["route"] == got["decision"]["route"]
    assert got["now"]["reasons"]
    assert json.loads(text(other))["decision"]["prompt"] == MISS  # the newest of any session
    assert json.loads(text(none))["decision"] is None


def test_tools_sync_before_answering(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    (vault / "projects" / "zorbitron.md").write_text("# Zorbitron relay\n\nThe zorbitron relay fitted in the shed.\n")
    _, res = session(params(vault, db), [("search", {"query": "zorbitron"})])
    assert json.loads(text(res))["results"][0]["path"] == "projects/zorbitron.md"


def test_no_notes_folder_is_a_tool_error_not_a_crash(tmp_path: Path) -> None:
    p = params(tmp_path / "missing", tmp_path / "n.db")
    _, res, hook = session(p, [("search", {"query": "x"}), ("hook", {"message": HIT})])
    assert res.is_error and "notes folder not found" in text(res)
    assert text(hook) == "{}"


def test_mcp_without_the_sdk_installed_says_how_to_get_it(tmp_path: Path) -> None:
    # a sitecustomize that hides the mcp package, as on an install without the extra
    (tmp_path / "hide").mkdir()
    (tmp_path / "hide" / "sitecustomize.py").write_text(
        "import sys\nclass _Hide:\n    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'mcp' or name.startswith('mcp.'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, _Hide())\n"
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "hide"))
    proc = subprocess.run([str(NOTESDB_EXE), "mcp"], env=env, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 1
    assert proc.stderr.decode().strip() == (
        "Error: the MCP server needs the mcp package: install the mcp extra: pip install -e '.[mcp]' in a checkout "
        "of notesdb, or pipx install --force '/path/to/notesdb[mcp]'"
    )


def test_read_note_reads_a_note_saved_as_utf16(indexed: tuple[Path, Path]) -> None:
    """A note PowerShell 5 wrote (UTF-16 LE with its BOM) is indexed as text, and read_note
    returns its text too, not every other byte a NUL."""
    from notesdb.server import Place, read_note, search_notes

    vault, db = indexed
    text_ = "# Pond pump\n\nClean the filter every spring.\n"
    (vault / "home" / "pond.md").write_bytes(text_.encode("utf-16"))
    place = Place(notes=str(vault), db=str(db))
    assert search_notes(place, "pond pump", 1)["results"][0]["path"] == "home/pond.md"
    assert read_note(place, "home/pond.md") == text_


def test_read_note_says_why_it_refuses_a_note_behind_a_link_out(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    """A folder linked into the notes folder is indexed (search returns its notes), but
    read_note reads only inside the folder: it said "does not lead to a file inside the notes
    folder" of a path search had just returned; it now names the link's target."""
    from notesdb.errors import NotesdbError
    from notesdb.server import Place, read_note, search_notes
    from notesdb.sync import sync
    from notesdb.db import open_db

    vault, db = indexed
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "zanzibar.md").write_text("# Zanzibar trip\n\nspice farms\n", encoding="utf-8")
    (vault / "linked").symlink_to(outside, target_is_directory=True)
    conn = open_db(db)
    sync(conn, vault)
    conn.close()
    place = Place(notes=str(vault), db=str(db))
    assert search_notes(place, "zanzibar", 3)["results"][0]["path"] == "linked/zanzibar.md"
    with pytest.raises(NotesdbError) as e:
        read_note(place, "linked/zanzibar.md")
    assert str(e.value) == (
        f"refused: 'linked/zanzibar.md' leads through a symbolic link to {(outside / 'zanzibar.md').resolve()}, "
        "outside the notes folder: read_note reads only files inside it (search shows what the index holds of it)"
    )

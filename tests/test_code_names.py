"""A code name in a message ("simple_send_with_retries", "repo.get_commit_message") is one name:
its words count in a note only where the note holds all of them. Unit cases of
``query.code_names`` and the ranking and gate on an invented folder indexed into a real SQLite
file."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Iterator

import pytest

from conftest import indexed_connection
from notesdb.decide import decide
from notesdb.query import code_names
from test_reading_folders import FILLER


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("don't touch simple_send_with_retries", [("simple_send_with_retries", ["simple", "send", "with", "retries"])]),
        # a dot or :: separates an object, a module or a host from its member: not part of the name
        ("why does self.send_with_retries() back off", [("send_with_retries", ["send", "with", "retries"])]),
        ("use repo.get_commit_message", [("get_commit_message", ["get", "commit", "message"])]),
        ("restart caddy.service, then tokio::spawn", []),
        # sentences typed without a space, an ellipsis, a version: prose
        ("restarted it twice...heron still down.Caddy says 1.2.3", []),
        # each name once, in message order; words read as the notes' words are (NFC, folded)
        ("b_c then a_b then b_c", [("b_c", ["b", "c"]), ("a_b", ["a", "b"])]),
        ("hotel_Nørreport and budget_straße", [("hotel_Nørreport", ["hotel", "norreport"]), ("budget_straße", ["budget", "strasse"])]),
        # a lone or leading underscore joins nothing
        ("__init__ and _private", []),
        ("mic/speaker and wi-fi", []),
    ],
)
def test_code_names(text: str, expected: list[tuple[str, list[str]]]) -> None:
    assert code_names(text) == expected


NOTES = dict(FILLER)
NOTES.update(
    {
        "til/pytest/mocking-boto.md": "# Mocking a Textract exception with boto\n\nMocking the client "
        "with botocore's Stubber: the code under test retries on LimitExceededException, so the stub "
        "raises it twice before answering.\n",
        "til/pytest/mock-httpx.md": "# How to mock httpx using pytest-mock\n\nPatch the transport, "
        "not the client.\n",
        "til/pytest/pytest-subprocess.md": "# Mocking subprocess calls in pytest\n\nfake_process "
        "registers the commands a test expects.\n",
        "projects/chatbot.md": "# Chatbot\n\nRequests to the model go through send_with_retries, "
        "which backs off on rate limits.\n",
        "hosts/caddy.md": "# Caddy\n\nThe reverse proxy in front of the blog; certificates renew "
        "themselves.\n",
    }
)


@pytest.fixture()
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    with indexed_connection(tmp_path, NOTES) as c:
        yield c


def test_the_words_of_a_code_name_count_only_where_the_note_holds_them_all(conn: sqlite3.Connection) -> None:
    """A coding request naming functions: "retries" and "simple" are words of the function's
    name, not of the request, and the mocking note that happens to hold "retries" (but not
    "send") is not about it. Before, that note led the other mocking notes on "retries" and
    was named. ("mocking" also finds the "mock" of ``mock-httpx.md``'s title, which then leads
    the other mocking notes 1.21x: too little for a request holding 0.36 of it.)"""
    message = "instead of mocking simple_send_with_retries, mock get_commit_message"
    d = decide(conn, message)
    assert (d.spoken, d.route) == (False, "weak")
    assert d.whole_names == ["simple_send_with_retries", "get_commit_message"]
    boto = next(c for c in d.top_scores if c["path"] == "til/pytest/mocking-boto.md")
    assert "retries" not in boto["hits"]


@pytest.mark.parametrize(
    "message",
    [
        "why does send_with_retries back off",
        "self.send_with_retries() raises after 5 attempts, why",
        "client.send_with_retries backs off how long?",
        "send_with_retry backs off how long?",  # another form of a word of the name
    ],
)
def test_a_note_holding_every_word_of_the_name_keeps_them(conn: sqlite3.Connection, message: str) -> None:
    """Called through an object or typed in another form, the name still finds its note."""
    d = decide(conn, message)
    top = d.top_scores[0]
    assert top["path"] == "projects/chatbot.md"
    assert [h for h in top["hits"] if h.startswith(("send", "retr"))] in (["send", "retries"], ["send", "retry->retries"])


def test_the_whole_name_speaks(conn: sqlite3.Connection) -> None:
    d = decide(conn, "why does send_with_retries back off")
    assert (d.spoken, d.notes) == (True, ["projects/chatbot.md"])


@pytest.mark.parametrize(
    "message",
    [
        "caddy.service failed to start, certificates again?",
        "restarted it twice...caddy certificates still not renewing",
    ],
)
def test_dotted_words_are_not_a_code_name(conn: sqlite3.Connection, message: str) -> None:
    d = decide(conn, message)
    assert d.whole_names == []
    assert (d.spoken, d.notes) == (True, ["hosts/caddy.md"])


def test_a_note_named_by_its_file_holds_the_name(tmp_path: Path) -> None:
    """The file name is one of a note's names: "get_commit_message.md" holds all the words of
    ``get_commit_message`` though its title ("Commit message helper") lacks "get"."""
    notes = dict(NOTES)
    notes["dev/get_commit_message.md"] = (
        "---\ntitle: Commit message helper\n---\n\nBuilds the message from the staged diff; returns "
        "None when the repo has no commits yet.\n"
    )
    with indexed_connection(tmp_path, notes) as c:
        d = decide(c, "get_commit_message returns None on a fresh repo")
    assert (d.spoken, d.notes) == (True, ["dev/get_commit_message.md"])


@pytest.mark.parametrize(
    "message",
    [
        "send_with_retries works, send_with_timeout does not",  # a word shared with another name
        "send_with_retries_v9 backs off how long?",  # a word no note holds is not asked for
    ],
)
def test_a_name_the_note_holds_keeps_its_words_beside_other_names(conn: sqlite3.Connection, message: str) -> None:
    d = decide(conn, message)
    top = d.top_scores[0]
    assert top["path"] == "projects/chatbot.md"
    assert [h for h in top["hits"] if h.startswith(("send", "retr"))] == ["send", "retries"]


def test_explain_lists_a_long_paste_s_code_names_on_one_line(tmp_path: Path) -> None:
    """A pasted file with 30 snake_case names: ``check --explain`` names the first
    ``EXPLAIN_NAMES`` (10) on one line and counts the rest, instead of 30 lines."""
    from typer.testing import CliRunner

    from notesdb.cli import EXPLAIN_NAMES, app

    vault = tmp_path / "notes"
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    paste = " ".join(f"col_{i:02d}_value" for i in range(30))
    r = CliRunner().invoke(
        app, ["check", paste, "--notes", str(vault), "--db", str(tmp_path / "n.db"), "--explain"], catch_exceptions=False
    )
    assert r.exit_code == 0, r.output
    lines = [line for line in r.output.splitlines() if line.startswith("code name")]
    assert EXPLAIN_NAMES == 10
    assert lines == [
        "code names: " + ", ".join(f"col_{i:02d}_value" for i in range(10)) + " and 20 more "
        "(their words count only in a note holding all of a name's words, together)"
    ]


BISECT = (
    "# TIL: git bisect run\n\n    git bisect start\n    git bisect run ./scripts/check.sh\n\n"
    "- exit code 125 = skip (this commit can't be tested, e.g. doesn't build)\n"
    "- anything above 127 aborts the bisect\n"
)


def test_a_name_s_words_held_apart_are_not_the_name(tmp_path: Path) -> None:
    """"test_bisect_insert" is one name. A git-bisect note saying "tested" in one line and
    "bisect" in others holds its words (with "insert" in no note, only those two are asked for)
    but not the name: they must sit together, as a name is written. Before, that note was
    named for a failing test (evidence 8.43, lead 2.26x, route strong)."""
    notes = dict(NOTES)
    notes["til/git-bisect.md"] = BISECT
    with indexed_connection(tmp_path, notes) as c:
        d = decide(c, "fix the failing test_bisect_insert in tests/test_sorted.py")
    assert (d.spoken, d.whole_names) == (False, ["test_bisect_insert", "test_sorted"])
    bisect = next(s for s in d.top_scores if s["path"] == "til/git-bisect.md")
    assert bisect["hits"] == ["tests->tested"]  # the path's "tests/", not a word of a name


def test_a_note_holding_the_name_written_out_keeps_its_words(tmp_path: Path) -> None:
    """The same name in a note, as code or as words next to each other, is held."""
    notes = dict(NOTES)
    notes["til/git-bisect.md"] = BISECT
    notes["dev/sorted-list.md"] = ("# Sorted list\n\nThe flaky one is test_bisect_insert: it inserts "
                                   "into a list that another test sorted.\n")
    with indexed_connection(tmp_path, notes) as c:
        d = decide(c, "fix the failing test_bisect_insert in tests/test_sorted.py")
    top = d.top_scores[0]
    assert top["path"] == "dev/sorted-list.md"
    assert {"test", "bisect"} <= {h.split("->")[0] for h in top["hits"]}

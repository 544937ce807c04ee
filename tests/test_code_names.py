"""A code name in a message ("simple_send_with_retries", "repo.get_commit_message") is one name:
its words count in a note only where the note holds the whole name. Unit cases of
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
        # every word of a snake_case name needs the whole name
        ("don't touch simple_send_with_retries", {w: ['"simple send with retries"'] for w in ("simple", "send", "with", "retries")}),
        # the words before the first dot name the host or object: free
        ("restart caddy.service", {"service": ['"caddy service"']}),
        ("use repo.get_commit_message", {w: ['"repo get commit message"'] for w in ("get", "commit", "message")}),
        ("std::vector or a list", {"std": ['"std vector"'], "vector": ['"std vector"']}),
        # a word typed on its own elsewhere in the message is free
        ("the commit message comes from get_commit_message", {"get": ['"get commit message"']}),
        # a word in two names needs either
        ("send_mail or send_sms", {"send": ['"send mail"', '"send sms"'], "mail": ['"send mail"'], "sms": ['"send sms"']}),
        # a slash or a hyphen joins prose, not code
        ("mic/speaker and wi-fi", {}),
        ("plain words only", {}),
    ],
)
def test_code_names(text: str, expected: dict[str, list[str]]) -> None:
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


def test_the_words_of_a_code_name_count_only_where_the_note_holds_it_whole(conn: sqlite3.Connection) -> None:
    """A coding request naming functions: "retries" and "simple" are words of the function's
    name, not of the request, and the mocking note that happens to hold "retries" is not about
    it. Before, that note led the other mocking notes on "retries" and was named."""
    message = "instead of mocking simple_send_with_retries, mock get_commit_message"
    d = decide(conn, message)
    assert (d.spoken, d.route) == (False, "tie")
    assert d.whole_names == ["simple send with retries", "get commit message"]
    boto = next(c for c in d.top_scores if c["path"] == "til/pytest/mocking-boto.md")
    assert "retries" not in boto["hits"]


def test_a_note_holding_the_code_name_whole_keeps_its_words(conn: sqlite3.Connection) -> None:
    d = decide(conn, "why does send_with_retries back off")
    assert d.top_scores[0]["path"] == "projects/chatbot.md"
    assert d.top_scores[0]["hits"][:3] == ["send", "retries", "back->backs"]


def test_the_host_before_a_dot_still_counts(conn: sqlite3.Connection) -> None:
    d = decide(conn, "caddy.service failed to start, certificates again?")
    assert (d.spoken, d.notes) == (True, ["hosts/caddy.md"])

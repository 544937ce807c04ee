"""The strong route's larger lead for a note holding less of the message (``strong_held``,
``strong_held_lead``), on an invented folder indexed into a real SQLite file: a request
naming many things adds up past ``strong_evidence`` in a note that holds only a third of it,
a little ahead of a note that holds as much."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from conftest import indexed_connection
from notesdb.decide import decide
from notesdb.settings import Settings
from test_evidence_routes import NOTES as ROUTE_NOTES

NOTES = dict(ROUTE_NOTES)
NOTES.update(
    {
        "garden/pond-pump.md": "# Pond pump\n\nThe pump runs on a timer from April to October; clean the filter "
        "sponge monthly.\n",
        "garden/greenhouse.md": "# Greenhouse\n\nThe heater runs on a timer in winter, switched by a relay from a "
        "float sensor in the water butt; the fan clears condensation.\n",
    }
)
#: a request for code naming many things: the pump note holds its pump, timer, filter and
#: sponge (0.36 of the message), the greenhouse note its timer, relay and sensor (0.37)
REQUEST = "write a script that switches the pump timer off with a relay when the sensor says the filter sponge is clogged, on a raspberry pi"


@pytest.fixture()
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    with indexed_connection(tmp_path, NOTES) as c:
        yield c


def test_a_note_holding_little_of_the_message_needs_a_larger_lead(conn: sqlite3.Connection) -> None:
    """Evidence 7.5 from four words passes the strong route's bar and the note leads the
    second 1.23x >= ``strong_min_lead``; but it holds 0.36 < ``strong_held`` of the message,
    so it needs ``strong_held_lead`` and stays silent, saying why."""
    d = decide(conn, REQUEST)
    assert (d.spoken, d.route) == (False, "weak")
    assert d.top_scores[0]["path"] == "garden/pond-pump.md"
    assert d.top_scores[0]["held"] == pytest.approx(0.36, abs=0.01)
    assert d.reasons[-1].startswith(
        "no route: strong: lead 1.23x < 1.3x (it holds 0.36 < 0.45 of the message, so it needs that larger lead); "
    )
    assert "lead 1.23x over the second" in d.reasons[0]


def test_the_larger_lead_applies_only_below_the_held_share(conn: sqlite3.Connection) -> None:
    """The same ranking speaks through ``strong`` when the held share is under the bar (0.3),
    or the rule is off (``strong_held`` 0), or the larger lead is met (1.15)."""
    for s in (
        replace(Settings(), strong_held=0.3),
        replace(Settings(), strong_held=0.0),
        replace(Settings(), strong_held_lead=1.15),
    ):
        d = decide(conn, REQUEST, s)
        assert (d.spoken, d.route, d.notes) == (True, "strong", ["garden/pond-pump.md"])
    d = decide(conn, REQUEST, replace(Settings(), strong_held_lead=1.15))
    assert d.reasons[-2].endswith(
        "leads the second 1.23x >= 1.15x (holds 0.36 < 0.45 of the message, so it needs that larger lead)"
    )


def test_a_note_holding_most_of_the_message_keeps_the_usual_lead(conn: sqlite3.Connection) -> None:
    """'the pump timer relay and sensor for the filter sponge': the pump note holds 0.64 of
    it, so the strong route asks only ``strong_min_lead`` and the reasons name no larger lead.
    (Read as English: it was read as Danish, whose lists hold "the", "and" and "for", and
    "filter" then weighed as a word Danish does not use; the lead was 1.81x.)"""
    d = decide(conn, "the pump timer relay and sensor for the filter sponge")
    assert (d.spoken, d.route, d.notes) == (True, "strong", ["garden/pond-pump.md"])
    assert d.top_scores[0]["held"] == pytest.approx(0.64, abs=0.01)
    assert d.reasons[-2].endswith("leads the second 1.54x >= 1.1x")


#: two clipped pieces that mention a coding exercise's words in passing, none in a title or heading
CLIPPED = dict(ROUTE_NOTES)
CLIPPED.update(
    {
        "reading/interview-prep-article.md": "# How I got the offer\n\nThree months of practice. The usual "
        "warm-ups: check whether a string is a palindrome, a recursive fibonacci, then the same with "
        "memoization. I wrote each one in Python first.\n",
        "reading/talk-notes.md": "# Notes from the conference\n\nA talk on caching in compilers; another on "
        "recursive descent parsers, with a fibonacci example and a palindrome joke in Python.\n",
    }
)
CODING = "write a recursive fibonacci with memoization in python"


def test_a_note_about_none_of_the_message_needs_the_larger_lead(tmp_path: Path) -> None:
    """The article holds 0.92 of the coding request, all four words only in its body, and leads
    the talk's notes 1.26x (1.17x by its words, the rest its phrase "recursive fibonacci"): the
    strong route asks a note about none of the message for
    ``strong_held_lead`` (1.3x), so it stays silent and says why; with the larger lead off
    (1.1, the usual bar) it would have spoken."""
    with indexed_connection(tmp_path, CLIPPED) as conn:
        d = decide(conn, CODING)
        top = d.top_scores[0]
        assert (d.spoken, d.route) == (False, "weak")
        assert (top["path"], top["about"], top["held"]) == ("reading/interview-prep-article.md", [], pytest.approx(0.92, abs=0.01))
        assert top["phrases"] == ["recursive fibonacci"]
        assert d.reasons[-1].startswith(
            "no route: strong: lead 1.26x < 1.3x (it is about none of the message: its words sit only in its "
            "body, so it needs that larger lead); "
        )
        for s in (replace(Settings(), strong_held_lead=1.1), replace(Settings(), strong_held=0.0)):  # bar or rule off
            d = decide(conn, CODING, s)
            assert (d.spoken, d.route, d.notes) == (True, "strong", ["reading/interview-prep-article.md"])

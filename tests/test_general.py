"""A request for general knowledge ("explain ...", "the difference between ...") is not a note's
subject: the routes that add up its words (strong, lead, ahead) do not answer it (``notesdb.general``, ``Settings.general_words``)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import indexed_connection

from notesdb.db import open_db
from notesdb.decide import decide
from notesdb.general import general_request
from notesdb.settings import Settings
from notesdb.sync import sync

HOUSEHOLD = Path(__file__).parent / "data" / "household2" / "vault"


@pytest.mark.parametrize(
    ("message", "form"),
    [
        ("how does a heat pump work compared to a gas boiler", "how does a heat pump work"),
        ("explain how a transformer works for a gcse class", "explain"),
        ("Explain the CAP theorem like im 5", ""),  # "im": the user speaks of themself
        ("kubernetes: difference between a deployment and a statefulset", "difference between"),
        ("c'est quoi la différence entre un REER pis un CELI", "difference entre"),
        ("Explique-moi les transactions SQL", "explique"),
        ("Was ist der Unterschied zwischen TCP und UDP?", "unterschied zwischen"),
        ("wie funktioniert eine Wärmepumpe", "wie funktioniert eine"),
        ("how does an inverter work", "how does an inverter work"),
        ("how do i work the new oven", ""),
        # the user's own things: not general, whatever the form
        ("can you explain why my backup failed", ""),
        ("what's the difference between our two restic repos", ""),
        ("explique pourquoi mon serveur redémarre", ""),
        # no form of a general request
        ("What is a skill that Audrey learned to take care of her dogs?", ""),
        ("boiler says EA 229 after the cold night", ""),
        ("how do i reset the boiler", ""),
        ("", ""),
    ],
)
def test_general_request_forms(message: str, form: str) -> None:
    assert general_request(message) == form


@pytest.fixture(scope="module")
def household(tmp_path_factory: pytest.TempPathFactory) -> sqlite3.Connection:
    db = tmp_path_factory.mktemp("general") / "notes.db"
    conn = open_db(db)
    sync(conn, HOUSEHOLD)
    return conn


def test_a_general_question_sharing_a_notes_words_stays_silent(household: sqlite3.Connection) -> None:
    message = "how does a heat pump work compared to a gas boiler"
    d = decide(household, message, Settings())
    assert not d.spoken
    assert d.route == "weak"
    assert any('asks for general knowledge ("how does a heat pump work")' in r for r in d.reasons)
    # without the rule the words add up past the strong route, naming the user's boiler note
    off = decide(household, message, replace(Settings(), general_words=0.0))
    assert off.spoken and off.route == "strong"
    assert off.notes[0] == "home/boiler-worcester.md"


def test_a_question_about_the_users_own_thing_still_speaks(household: sqlite3.Connection) -> None:
    d = decide(household, "boiler says EA 229 after the cold night, is it the frozen pipe thing again", Settings())
    assert d.spoken
    assert d.notes[0] == "home/boiler-worcester.md"
    # the same form with a first-person word is not general
    mine = decide(household, "explain how my boiler's EA 229 lockout works, is it the frozen pipe", Settings())
    assert mine.spoken
    assert mine.notes[0] == "home/boiler-worcester.md"


GEO_NOTES = {
    "geo/gpx-coordinates.md": (
        "# Latitude and longitude in the bike's GPX tracks\n\n"
        "The Garmin writes latitude and longitude in decimal degrees; the old Etrex wrote degrees and\n"
        "minutes. Convert with `gpsbabel -i gpx -f old.gpx -o gpx -F new.gpx` before importing.\n"
    ),
    "bike/service.md": "# Bike service\n\nChain waxed every 300 km, brake pads checked in March.\n",
    "home/boiler.md": "# Boiler\n\nPressure between 1 and 1.5 bar; the filling loop is under the sink.\n",
    "garden/plan.md": "# Garden plan\n\nBeans along the south fence, potatoes in the raised bed.\n",
}


def test_every_route_that_adds_up_words_keeps_out_a_general_question(tmp_path: Path) -> None:
    message = "what's the difference between latitude and longitude"
    with indexed_connection(tmp_path, GEO_NOTES) as conn:
        quiet = decide(conn, message, Settings())
        assert not quiet.spoken and quiet.route == "weak"
        off = decide(conn, message, replace(Settings(), general_words=0.0))
        assert off.spoken and off.route == "strong" and off.notes[0] == "geo/gpx-coordinates.md"
        # with the strong route out of reach the next route that adds up words takes it ...
        no_strong = replace(Settings(), strong_evidence=99.0, general_words=0.0)
        taken = decide(conn, message, no_strong)
        assert taken.spoken and taken.route == "lead"
        # ... and is kept from it too, and the explanation says so for each of the three routes
        kept = decide(conn, message, replace(no_strong, general_words=1.0))
        assert not kept.spoken and kept.route == "weak"
        why = next(r for r in kept.reasons if r.startswith("no route:"))
        assert why.count('asks for general knowledge ("difference between")') == 3

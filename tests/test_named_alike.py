"""A model's name that starts with a single letter ("E-208", "E/F 3") is one word of a message as
it is of the notes, and notes named alike ("project_e208_recharge", "project_e208_trajet") that
tie on a message naming them are one subject (``query._letter_name``, ``gate.family_name``, ``Settings.family_words``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import indexed_connection

from notesdb.db import note_count
from notesdb.decide import decide
from notesdb.query import build_query
from notesdb.settings import Settings

HOUSEHOLD = Path(__file__).parent / "data" / "household2" / "vault"

LETTER_NOTES = {
    "car.md": "# Car\n\nThe E-208 charges at 7 kW on the wallbox; the error E-15 means the cable is not locked.\n",
    "print.md": "# Printing\n\nA4 paper in tray 1, A3 in the bypass. The S 10 toner lasts 3,000 pages.\n",
    "timer.md": "# Kitchen timer\n\nIt beeps for a 10 minute rest after a 4 hour roast.\n",
    "garden.md": "# Garden\n\nBeans on the south fence.\n",
}


@pytest.mark.parametrize(
    ("message", "terms"),
    [
        ("the e-208 keeps saying E-15", ["e208", "keeps", "saying", "e15"]),  # a hyphen: a name
        ("how long does the s 10 toner last", ["long", "s10", "toner", "last"]),  # a letter that is no word
        # a letter that is a word ("a", "i", Italian "e", Spanish "y" or "o") and a number across a
        # space is a sentence: "a4" and "a10" are in the vocabulary, but not this message's words
        ("set a 4 hour timer", ["set", "4", "hour", "timer"]),
        ("a 10 minute rest", ["10", "minute", "rest"]),
        ("print on a-4 please", ["print", "a4"]),  # the same letter joined by a hyphen is a name
    ],
)
def test_a_single_letter_joins_its_number_as_the_notes_join_it(tmp_path: Path, message: str, terms: list[str]) -> None:
    with indexed_connection(tmp_path, LETTER_NOTES) as conn:
        known = {w for (w,) in conn.execute("SELECT word FROM vocab WHERE word IN ('e208','e15','s10','a4','a10')")}
        assert known == {"e208", "e15", "s10", "a4", "a10"}  # the notes' text joined them all
        q = build_query(conn, message, note_count(conn), Settings())
        assert [t.token for t in q.terms] == terms


def test_an_error_code_of_one_letter_names_its_note() -> None:
    """household2's "hob says E/F 3" (a check-half case): "f 3" is one word, f3, held by the
    kitchen appliances note alone; it was a tie of "hob" before."""
    import tempfile

    from notesdb.db import open_db
    from notesdb.sync import sync

    with tempfile.TemporaryDirectory() as tmp:
        conn = open_db(Path(tmp) / "notes.db")
        try:
            sync(conn, HOUSEHOLD)
            d = decide(conn, "hob says E/F 3", Settings())
            assert d.spoken and d.route == "strong"
            assert d.notes == ["home/kitchen-appliances.md"]
        finally:
            conn.close()


FAMILY_NOTES = {
    "project_station_meteo_rpi.md": (
        "---\nname: Station météo (Raspberry Pi)\ndescription: le Pi 4 sur le balcon, cron, envoi vers InfluxDB\n"
        "metadata:\n  type: project\n---\n\nLe Pi redémarre chaque nuit à 3h. Sonde BME280 sur i2c.\n"
    ),
    "project_station_meteo_capteurs.md": (
        "---\nname: Station météo, capteurs\ndescription: BME280, anémomètre et pluviomètre de la station\n"
        "metadata:\n  type: project\n---\n\nL'anémomètre compte les impulsions sur le GPIO 17.\n"
    ),
    "project_deploiement_prod.md": (
        "---\nname: Déploiement prod\ndescription: helm upgrade, migrations à part\nmetadata:\n  type: project\n---\n\n"
        "On déploie le mardi et le jeudi.\n"
    ),
    "project_refonte_dispatch.md": (
        "---\nname: Refonte du dispatch\ndescription: dispatch événementiel\nmetadata:\n  type: project\n---\n\n"
        "Le dispatch passe en événementiel.\n"
    ),
    "reference_grafana.md": "---\nname: Grafana\ndescription: tableaux de bord\nmetadata:\n  type: reference\n---\n\nURL interne.\n",
}


def test_a_tie_of_notes_named_alike_is_one_subject(tmp_path: Path) -> None:
    with indexed_connection(tmp_path, FAMILY_NOTES) as conn:
        d = decide(conn, "on en est ou avec la station meteo ?", Settings())
        assert d.spoken
        assert sorted(d.notes) == ["project_station_meteo_capteurs.md", "project_station_meteo_rpi.md"]
        assert any("their file names start with the same words (project station meteo)" in r for r in d.reasons)


def test_notes_that_share_only_their_kind_are_not_one_subject(tmp_path: Path) -> None:
    """``project_deploiement_prod`` and ``project_refonte_dispatch`` share one word, "project":
    a kind of note, not a subject. A message that ties them stays silent."""
    with indexed_connection(tmp_path, FAMILY_NOTES) as conn:
        d = decide(conn, "project", Settings())
        assert not d.spoken


def test_a_family_the_message_does_not_name_is_not_one_subject(tmp_path: Path) -> None:
    """Two notes named ``tools_devops_git_merge`` and ``tools_devops_git_rebase`` tie on a git
    question that names neither "tools" nor "devops": the tie stays a tie."""
    notes = {
        "tools_devops_git_merge.md": "# tools devops git merge\n\nUndo a merge with git reset --hard ORIG_HEAD.\n",
        "tools_devops_git_rebase.md": "# tools devops git rebase\n\nUndo a rebase with git reset --hard ORIG_HEAD.\n",
        "garden.md": "# Garden\n\nBeans on the south fence.\n",
    }
    with indexed_connection(tmp_path, notes) as conn:
        d = decide(conn, "how do i undo with git reset hard orig_head", Settings())
        assert not d.spoken and d.route == "tie"


def test_family_words_zero_switches_named_alike_off(tmp_path: Path) -> None:
    from dataclasses import replace

    with indexed_connection(tmp_path, FAMILY_NOTES) as conn:
        d = decide(conn, "on en est ou avec la station meteo ?", replace(Settings(), family_words=0))
        assert not d.spoken and d.route == "tie"

"""The subject route for notes that tie (``notesdb.gate.subject_tie``): a message that is
nothing but a word English does not know, which two or three notes are each about, names them
together; a tie on an everyday word, on more than the shared word, or of more than three notes
stays silent. On an invented folder indexed into a real SQLite file."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from conftest import indexed_connection
from notesdb.decide import decide
from notesdb.settings import Settings
from test_reading_folders import FILLER

NOTES = dict(FILLER)
NOTES.update(
    {
        "sides/kimchi.md": "# Napa cabbage kimchi\n\nSalt the cabbage overnight, rinse three times, then the "
        "paste: garlic, ginger, fish sauce and chilli flakes. Ferments five days on the counter.\n",
        "soups/kimchi-stew.md": "# Kimchi stew\n\nSour, old cabbage makes the best stew: pork belly, tofu, "
        "a spoon of chilli paste, simmered twenty minutes.\n",
        "kitchen/fridge.md": "# Fridge\n\nThe top shelf is for ferments: the kimchi jar, miso, pickles.\n",
        "computers/haiku-os.md": "# Haiku on the old laptop\n\nInstalled from USB; wifi works, sleep does not.\n",
        "computers/haiku-packages.md": "# Haiku packages\n\npkgman installs and updates; the depot holds "
        "the rest.\n",
        "cards/thank-you-wedding.md": "# Cartes de merci (mariage)\n\nFifty cards, posted in June.\n",
        "work/merci-clients.md": "# Mots de merci aux clients\n\nA short note with every December invoice.\n",
        "hobbies/quilting-patterns.md": "# Quilting patterns\n\nLog cabin for the spare bed, flying geese next.\n",
        "hobbies/quilting-fabric.md": "# Quilting fabric\n\nFat quarters from the market, washed before cutting.\n",
        "hobbies/quilting-group.md": "# Quilting group\n\nThursdays at the library, bring a project.\n",
        "hobbies/quilting-frame.md": "# Quilting frame\n\nBorrowed from Nadia, stored in the loft.\n",
    }
)


@pytest.fixture()
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    with indexed_connection(tmp_path, NOTES) as c:
        yield c


def test_a_tie_of_notes_each_about_the_one_word_of_the_message_names_them_together(
    conn: sqlite3.Connection,
) -> None:
    """"kimchi": the two notes titled with it tie (the fridge note holds it in its body, far
    behind); either is a right answer, so both are named, and --explain says why."""
    d = decide(conn, "kimchi")
    assert (d.spoken, d.route, sorted(d.notes)) == (True, "subject", ["sides/kimchi.md", "soups/kimchi-stew.md"])
    assert "kitchen/fridge.md" not in d.notes
    other = d.notes[1]
    assert any(
        r.startswith(
            "spoke by subject, for notes that tie: the message is nothing but kimchi, which each of them "
            "is about and no language notesdb reads uses much (Zipf < 3.0), and no other candidate about it comes "
            "within 1.5x of any of them: one question several notes answer, named together"
        )
        for r in d.reasons
    ), d.reasons
    assert any(r.startswith(f"also {other}: it ties with the top note (evidence ") for r in d.reasons), d.reasons
    assert d.line.count(".md") == 2


def test_a_tied_note_off_the_message_s_title_keeps_the_tie_silent(conn: sqlite3.Connection) -> None:
    """Settings that ask a message to hold 0.6 of a note's title whatever share of the message
    the note holds: "kimchi" is 1/3 of "Napa cabbage kimchi" and 1/2 of "Kimchi stew", so
    neither note is named, as no route names an off-title note. (The explanation of a tie
    named with an off-title note once raised TypeError.)"""
    d = decide(conn, "kimchi", replace(Settings(), title_held=1.01, title_share=0.6))
    assert (d.spoken, d.route) == (False, "tie"), d.reasons


def test_switched_off_the_tie_stays_silent(conn: sqlite3.Connection) -> None:
    """``tie_max_zipf`` 0: no word is rare enough, and the tie is a tie again (the gate before
    this route)."""
    d = decide(conn, "kimchi", replace(Settings(), tie_max_zipf=0.0))
    assert (d.spoken, d.route) == (False, "tie")


@pytest.mark.parametrize(
    ("message", "route"),
    [
        # an everyday word (Zipf 3.08): two pages on the Haiku system are not what a poem is
        ("haiku", "tie"),
        # rare in English (2.78), an everyday word in French (5.62): thanks, not a subject
        ("merci", "tie"),
        ("Merci !", "tie"),
        # the message is more than the word the notes share: nothing breaks the tie
        ("kimchi with leftover rice", "tie"),
    ],
)
def test_a_tie_on_an_everyday_word_or_more_than_the_shared_word_stays_silent(
    conn: sqlite3.Connection, message: str, route: str
) -> None:
    d = decide(conn, message)
    assert (d.spoken, d.route) == (False, route), d.reasons


def test_more_than_three_tied_notes_stay_silent(tmp_path: Path) -> None:
    """Four notes titled "Quilting ...": naming three of them would leave out one as right as
    those named, so the gate says nothing (a line names three notes at most). With three, the
    same message names them. (Zipf bar raised: "quilting" is an English word.)"""
    anything = replace(Settings(), tie_max_zipf=9.0)
    with indexed_connection(tmp_path / "four", NOTES) as c:
        four = decide(c, "quilting", anything)
    assert (four.spoken, four.route) == (False, "tie"), four.reasons
    fewer = {k: v for k, v in NOTES.items() if k != "hobbies/quilting-frame.md"}
    with indexed_connection(tmp_path / "three", fewer) as c:
        three = decide(c, "quilting", anything)
    assert (three.spoken, three.route, len(three.notes)) == (True, "subject", 3), three.reasons
    assert all(p.startswith("hobbies/quilting-") for p in three.notes)


NUMBERED = dict(FILLER)
NUMBERED.update(
    {
        "films/dune-part-2.md": "# Dune Part 2\n\nSaw it at the IMAX; the sandworm ride was worth the ticket.\n",
        "blog/series-part-2.md": "# Homelab series, part 2\n\nThe rack, the switch and the cable ties.\n",
        "running/10k-plan.md": "# 10k race plan\n\nEight weeks, three runs a week, one of them long.\n",
        "money/savings-10k.md": "# Savings goal: 10k\n\nA standing order on payday into the easy-access account.\n",
    }
)


KINDS = dict(FILLER)
KINDS.update(
    {
        "git/cheatsheet.md": "# Git cheatsheet\n\n- git rebase -i\n- git reflog\n",
        "vim/cheatsheet.md": "# Vim cheatsheet\n\n- ciw changes the inner word\n",
        "work/standup-2024-03-01.md": "# Standup 2024-03-01\n\nBlocked on the review.\n",
        "work/standup-2024-03-08.md": "# Standup 2024-03-08\n\nShipped the importer.\n",
    }
)


@pytest.mark.parametrize(
    ("notes", "message"),
    [
        # an everyday word with a number, read as the pair "part2" two titles hold, and a
        # quantity: a word of letters and digits is not read as a name English does not know
        (NUMBERED, "part 2"),
        (NUMBERED, "10k"),
        (NUMBERED, "10k?"),
        # two cheatsheet.md (one per tool) and two dated standups tie on the word of their file
        # name, but each is about something else: documents of one kind, not one subject
        (KINDS, "cheatsheet"),
        (KINDS, "what's a cheatsheet"),
        (KINDS, "standup"),
    ],
)
def test_a_tie_on_no_one_subject_stays_silent(tmp_path: Path, notes: dict[str, str], message: str) -> None:
    with indexed_connection(tmp_path, notes) as c:
        d = decide(c, message)
    assert (d.spoken, d.route) == (False, "tie"), (d.notes, d.reasons)

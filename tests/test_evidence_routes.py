"""The ``ahead`` and ``sole`` routes and the strong route's own lead, on an invented folder
indexed into a real SQLite file (``ahead``: evidence and lead trade off; ``sole``: a word
English does not know, held by one note far ahead of the others)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import indexed_connection
from notesdb.decide import decide
from notesdb.gate import judge
from notesdb.rank import Candidate, Hit, Ranking
from notesdb.settings import Settings
from test_reading_folders import FILLER


def folder_fixture(notes: dict[str, str]) -> Any:
    """A fixture: an open connection to ``notes`` indexed into a real SQLite file of the test's
    ``tmp_path``, closed after the test."""

    @pytest.fixture()
    def connection(tmp_path: Path) -> Iterator[sqlite3.Connection]:
        with indexed_connection(tmp_path, notes) as c:
            yield c

    return connection


NOTES = dict(FILLER)
NOTES.update(
    {
        "garden/pond.md": "# Pond\n\nDug in 2022, lined with a butyl liner. Planted hornwort and a water "
        "lily; the pump runs from April.\n",
        "garden/veg-beds.md": "# Vegetable beds\n\nFour raised beds: beans, brassicas, roots and salad, "
        "rotated each year.\n",
        "bike/commuter.md": "# Commuter bike\n\nChain waxed every 300 km, tyres at 60 psi, dynamo lights "
        "checked in autumn.\n",
        "bike/kids-bikes.md": "# Kids' bikes\n\nBalance bike handed down; the small one needs new brake pads.\n",
        "home/recycling-centre.md": "# Recycling centre\n\nOpen every day but Wednesday; book a slot for the van.\n",
        "people/nadia.md": "# Nadia\n\nNeighbour at number 12, keeps a spare key, feeds the cat when we are "
        "away for a week.\n",
    }
)


conn = folder_fixture(NOTES)


def test_ahead_route_speaks_when_a_large_lead_makes_up_for_evidence(conn: sqlite3.Connection) -> None:
    """'what pressure for the bike tyres': the commuter bike note is about 'bike' and holds
    'tyres' in its body; evidence 3.7 is under the strong route's 4.5 and its 1.5x lead under
    the lead route's 2.5x, but evidence x lead passes the ahead route's bar."""
    d = decide(conn, "what pressure for the bike tyres")
    assert (d.spoken, d.route, d.notes) == (True, "ahead", ["bike/commuter.md"])
    assert d.reasons[-2].startswith("spoke by ahead: leads the second 1.5")
    assert "x lead (counted up to 3.0x)" in d.reasons[-2]
    # the same message with the route off: no other route speaks, and the reasons say what
    # the ahead route needed and what the note had
    off = decide(conn, "what pressure for the bike tyres", replace(Settings(), ahead_evidence=99.0))
    assert (off.spoken, off.route) == (False, "weak")
    assert "; ahead: evidence x lead (counted up to 3.0x) 5.67 < 99.0; " in off.reasons[-1]


def test_ahead_route_needs_the_lead(conn: sqlite3.Connection) -> None:
    """'tyre pressure on the bike' is the same question a little less ahead (1.47x): it speaks
    over a lead of ``ahead_min_lead`` (1.4) and is silent when the route asks 1.5x, though
    evidence x lead would pass."""
    d = decide(conn, "tyre pressure on the bike")
    assert (d.spoken, d.route, d.notes) == (True, "ahead", ["bike/commuter.md"])
    assert "lead 1.47x over the second" in d.reasons[0]
    assert d.reasons[-2].startswith("spoke by ahead: leads the second 1.47x >= 1.4x")
    higher = decide(conn, "tyre pressure on the bike", replace(Settings(), ahead_min_lead=1.5))
    assert (higher.spoken, higher.route) == (False, "weak")
    assert "; ahead: lead 1.47x < 1.5x" in higher.reasons[-1]


def test_sole_route_names_the_one_note_holding_a_word_english_does_not_know(conn: sqlite3.Connection) -> None:
    """'hornwort again': one note holds 'hornwort', only in its body (evidence 2.2, under every
    other route's bar); English does not know the word and the message is all about it."""
    d = decide(conn, "hornwort again")
    assert (d.spoken, d.route, d.notes) == (True, "sole", ["garden/pond.md"])
    assert d.reasons[-1].startswith(
        "spoke by sole: the only note of few holding hornwort (in 1 note(s), in its body, rare in English)"
    )
    assert "holds 1.00 >= 0.8 of the message's words" in d.reasons[-1]
    off = decide(conn, "hornwort again", replace(Settings(), sole_doc_freq=0))
    assert (off.spoken, off.route) == (False, "weak")


def test_sole_route_needs_most_of_the_message(conn: sqlite3.Connection) -> None:
    """'hornwort in the spring?': the message is also about the spring, which the note lacks
    (holds 0.69 < 0.8): silent."""
    d = decide(conn, "hornwort in the spring?")
    assert (d.spoken, d.route) == (False, "weak")
    assert "; sole: holds 0.69 < 0.8 of the message; named: " in d.reasons[-1]


def test_sole_route_needs_a_word_english_does_not_know(conn: sqlite3.Connection) -> None:
    """'liner again': the pond note is the only one holding 'liner' too, but English knows the
    word (a ship, an eye liner): the sole route does not speak for it."""
    d = decide(conn, "liner again")
    assert d.top_scores[0]["path"] == "garden/pond.md"
    assert (d.spoken, d.route) == (False, "weak")
    # read as a word English does not know, the same message speaks
    assert decide(conn, "liner again", replace(Settings(), sole_max_zipf=9.0)).route == "sole"


def test_explaining_a_silence_when_no_word_brings_evidence(conn: sqlite3.Connection) -> None:
    """Settings (valid in a config file) that weigh the body at 0 and let the subject route hold
    none of the message: the pond note holds 'hornwort' in its body only and brings no
    evidence. The reasons say so; they raised StopIteration looking for a rival note."""
    d = decide(conn, "hornwort again", Settings.from_mapping({"body_place": 0, "subject_held": 0}))
    assert (d.spoken, d.route) == (False, "weak")
    no_route = next(r for r in d.reasons if r.startswith("no route: "))
    assert no_route.endswith("; subject: no word of the message brings it evidence")


def _hit(word: str, evidence: float, place: str = "body") -> Hit:
    return Hit(token=word, word=word, how="exact", weight=1.0, place=place, doc_freq=40, evidence=evidence,
               full=evidence, zipf=5.0)


def _cand(path: str, hits: list[Hit], possible: float) -> Candidate:
    c = Candidate(rowid=len(path), path=path, title=path, desc="", bm25=1.0, hits=hits)
    c.evidence = sum(h.evidence for h in hits)
    c.coverage = c.held = c.evidence / possible
    return c


def test_strong_route_needs_its_own_lead() -> None:
    """'write a function that converts a list to a string': everyday words adding up past
    ``strong_evidence`` in two notes alike (lead 1.15x) speak only while the strong route's
    own lead allows it."""
    top = _cand("a.md", [_hit("function", 2.0), _hit("converts", 1.8), _hit("string", 1.2)], 12.0)
    second = _cand("b.md", [_hit("function", 2.0), _hit("list", 1.0), _hit("string", 1.35)], 12.0)
    r = Ranking([top, second], 12.0)
    # the top note holds 0.42 of the message: ``strong_held`` 0 keeps the larger lead for a
    # note holding less of it out of this test (tests/test_strong_held.py), ``title_held`` 0 the
    # off-title silence (tests/test_off_title.py)
    base = replace(Settings(), title_held=0.0)
    assert judge(r, replace(base, strong_min_lead=1.1, strong_held=0.0)).route == "strong"
    assert judge(r, replace(base, strong_min_lead=1.1)).route == "weak"
    d = judge(r, replace(base, strong_min_lead=1.2, strong_held=0.0))
    assert (d.spoken, d.route) == (False, "weak")
    assert d.reasons[-1].startswith("no route: strong: lead 1.15x < 1.2x; lead: ")


NAMED_NOTES = dict(FILLER)
NAMED_NOTES.update(
    {
        "projects/tokmeter.md": "# Token usage monitor\n\nReads the API usage export every hour and warns "
        "above a daily budget.\n",
        "projects/moraine.md": "# Moraine\n\nThe static site generator of the blog: Markdown in, HTML out.\n",
        "phone/alerts.md": "# Phone alerts\n\nThe tokmeter budget alert and the doorbell go to the phone.\n",
        "tools/kubectx.md": "# kubectx\n\nSwitches between the home and work clusters.\n",
        "tools/borgmatic.md": "# borgmatic\n\nNightly backups of the home folder to the NAS.\n",
        "tools/jot.md": "# jot\n\nMy scratch command for quick notes, synced to the phone.\n",
        "home/работа.md": "# Работа\n\nПроекты и сроки.\n",
    }
)


named = folder_fixture(NAMED_NOTES)


@pytest.mark.parametrize(
    "message",
    [
        "tokmeter says 6 quid already today, that cant be right",
        "tokmetre says 6 quid already today",  # a typo of the made-up name
        "tokm says 6 quid already today",  # cut short
    ],
)
def test_named_route_speaks_for_a_note_named_by_a_made_up_word(named: sqlite3.Connection, message: str) -> None:
    """The file name "tokmeter" is a word no English list holds: a message holding it names the
    note, though one word brings too little evidence for every other route; the budget note
    that mentions tokmeter in its body trails far behind."""
    d = decide(named, message)
    assert (d.spoken, d.route, d.notes) == (True, "named", ["projects/tokmeter.md"])
    assert d.reasons[-2].startswith("spoke by named: the message holds the note's name 'tokmeter', which English does not know; leads the second ")
    off = decide(named, message, replace(Settings(), named_min_lead=99.0))
    assert (off.spoken, off.route) == (False, "weak")


def test_named_route_needs_a_word_english_does_not_know(named: sqlite3.Connection) -> None:
    """"moraine" names a project too, but English knows it (wordfreq's large list, Zipf 2.7): a
    question about glaciers stays silent."""
    d = decide(named, "how does a glacier leave a moraine behind")
    assert (d.spoken, d.route) == (False, "weak")
    assert "; named: the message holds no whole name of the note made of a word English does not know;" in d.reasons[-1]


@pytest.mark.parametrize(
    "message",
    [
        # "jot" is English (Zipf 2.9, below the small list and shorter than four letters)
        "let me jot down some ideas for my sister's birthday party",
        # one letter from another tool's made-up name is another name, not a typo of this one
        "kubectl get pods shows CrashLoopBackOff",
        # a Russian inflection is one letter from the note's word; Cyrillic words are not made up
        "сегодня на работе был тяжёлый день",
        # the name in passing, one line of a long pasted log
        "why is my disk full?\n" + "\n".join(
            f"Dec 01 03:0{i} atlas kernel: EXT4-fs warning (device sda{i}): ext4_dx_add_entry: directory index full"
            for i in range(6)
        ) + "\nDec 01 03:07 atlas borgmatic[3012]: skipping run, lock held",
    ],
)
def test_named_route_needs_the_name_itself(named: sqlite3.Connection, message: str) -> None:
    d = decide(named, message)
    assert (d.spoken, d.route) == (False, "weak") or d.route in ("no-match", "off-title", "tie"), (d.route, d.notes)
    assert "named" not in d.route


def test_named_route_waits_for_the_rare_english_words(named: sqlite3.Connection) -> None:
    """Until ``english_rare`` is filled every rare English word looks made up ("wipers"):
    no word is read as a made-up name then."""
    with named:
        named.execute("DELETE FROM english_rare")
    d = decide(named, "tokmeter says 6 quid already today, that cant be right")
    assert (d.spoken, d.route) == (False, "weak")


FULL_NAME_NOTES = dict(FILLER)
FULL_NAME_NOTES.update(
    {
        "til/python/pip-cache.md": "# The location of the pip cache directory\n\n`pip cache dir` prints "
        "it; on macOS it is under ~/Library.\n",
        "til/python/pip-tools.md": "# Using pip-tools\n\nA lock file of pinned versions from "
        "pip-compile; the cache of resolved versions speeds it up.\n",
        "research/prompt-caching.md": "# Prompt caching costs\n\nKeeps the prefix warm for five minutes.\n",
        "til/go/go-get.md": "# go get\n\nAdds a dependency to the current module.\n",
        "til/go/go-modules.md": "# Go modules\n\nA module is a tree of packages; get them with go get.\n",
        "til/docker/docker-cache.md": "# Docker cache\n\nLayer cache busting with a build argument.\n",
        "til/python/pip-user.md": "# pip install --user\n\nPuts packages under ~/.local; mind the cache.\n",
        "til/python/pip-index.md": "# A private pip index\n\nPIP_INDEX_URL in the environment; the cache "
        "holds wheels from both.\n",
        "til/web/http-cache.md": "# HTTP cache headers\n\nCache-Control: max-age and immutable.\n",
        "til/web/cdn.md": "# CDN\n\nThe edge cache keeps a copy near the reader.\n",
    }
)


full = folder_fixture(FULL_NAME_NOTES)


def test_full_name_route_speaks_when_the_message_holds_a_whole_name(full: sqlite3.Connection) -> None:
    """Both words of ``pip-cache.md``'s file name are in the message; the other pip notes and a
    caching note hold "pip" or "cache" too (one word of each of their names): the lead is small
    (1.16x), no other route speaks, this one does."""
    d = decide(full, "where does pip keep its cache")
    assert (d.spoken, d.route, d.notes) == (True, "full-name", ["til/python/pip-cache.md"])
    assert d.reasons[-2].startswith(
        "spoke by full-name: the message holds every word of the note's name 'pip-cache', and no other "
        "candidate's name whole; leads the second "
    )
    off = decide(full, "where does pip keep its cache", replace(Settings(), full_name_words=99))
    assert (off.spoken, off.route) == (False, "weak")


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        # two notes named whole: which one is meant is not said
        ("pip cache or docker cache, which one", "the message also holds a whole name of til/python/pip-cache.md"),
        # one word of a name is not the name
        ("where does pip keep its stuff", "the message holds no name of the note of 2 or more words whole"),
        # everyday words: "go" and "get" say nothing of go-get.md
        ("where do i go to get my tax form", "the message holds the note's name 'go get' only through"),
    ],
)
def test_full_name_route_needs_one_clear_whole_name(full: sqlite3.Connection, message: str, reason: str) -> None:
    from notesdb.decide import decide_with_ranking
    from notesdb.gate import _no_full_name, full_name

    d, r = decide_with_ranking(full, message, Settings())
    assert d.route != "full-name" and r is not None
    top, others = r.candidates[0], r.candidates[1:]
    assert full_name(top, others, Settings()) is None
    assert _no_full_name(top, others, Settings()).startswith(reason)


VACUUM_NOTES = dict(FILLER)
VACUUM_NOTES.update(
    {
        "til/sqlite/vacuum-disk-full.md": "# SQLite VACUUM: database or disk is full\n\nVACUUM writes a copy "
        "of the database to the temp folder first; point SQLITE_TMPDIR at a disk with room.\n",
        **{
            f"til/db/note-{i}.md": f"# {topic}\n\nThe database table was full of rows; the disk held the database.\n"
            for i, topic in enumerate(("Postgres indexes", "MySQL replication", "Redis keys", "DuckDB parquet",
                                       "Mongo shards", "Database backups", "Full-text search", "Disk quotas"))
        },
    }
)


def test_a_whole_name_with_light_words_is_named(tmp_path: Path) -> None:
    """Every word of "SQLite VACUUM: database or disk is full" is in the pasted error, but
    "database", "disk" and "full" are in most notes of the folder and weigh < 0.5: the name
    was refused for them, though "sqlite" and "vacuum" name it."""
    from notesdb.decide import decide_with_ranking
    from notesdb.gate import full_name

    message = "running VACUUM on the sqlite file: sqlite3.OperationalError: database or disk is full"
    with indexed_connection(tmp_path, VACUUM_NOTES) as conn:
        d, r = decide_with_ranking(conn, message, Settings())
        assert r is not None
        top = r.candidates[0]
        light = sorted(h.word for h in top.hits if h.place == "title" and h.evidence < Settings().word_evidence)
        assert top.path == "til/sqlite/vacuum-disk-full.md" and light, light
        assert full_name(top, r.candidates[1:], Settings()) == "SQLite VACUUM: database or disk is full"
        assert d.spoken and d.notes[0] == "til/sqlite/vacuum-disk-full.md"



SUBJECT_NOTES = dict(FILLER)
SUBJECT_NOTES.update(
    {
        "homelab/garrigue.md": "# Routeur garrigue\n\nOpenWrt in the hall cupboard; the admin page listens on "
        "port 8080 and the firmware is updated by hand.\n",
        "homelab/wireguard.md": "# WireGuard\n\nThe VPN endpoint runs on garrigue, port 51820; one peer per "
        "phone.\n",
        "homelab/ssh-hosts.md": "# SSH hosts\n\ngarrigue and the NAS take keys only, no passwords.\n",
        "homelab/monitoring.md": "# Monitoring\n\nUptime checks ping garrigue and the NAS every minute.\n",
        "homelab/backups.md": "# Backups\n\nThe config of garrigue goes to the NAS every Sunday.\n",
        "home/busy-weeks.md": "# Busy weeks\n\nWhen both of us travel the same week, Nadia feeds the cat.\n",
    }
)


subject = folder_fixture(SUBJECT_NOTES)


def test_subject_route_speaks_when_the_message_only_names_what_a_note_is_about(subject: sqlite3.Connection) -> None:
    """"garrigue" alone: the router's note has it in its title, four others only in their body;
    in five notes of a small folder the word weighs too little for the rare route."""
    d = decide(subject, "garrigue")
    assert (d.spoken, d.route, d.notes) == (True, "subject", ["homelab/garrigue.md"])
    assert d.reasons[-2].startswith(
        "spoke by subject: the message is nothing but garrigue, which the note is about (in its title) and "
        "English rarely uses (Zipf < 4.0); no other candidate about it comes within 1.5x of it"
    )
    off = decide(subject, "garrigue", replace(Settings(), subject_held=1.1))
    assert (off.spoken, off.route) == (False, "weak")
    assert off.reasons[-1].endswith("subject: holds 1.00 < 1.1 of the message")


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        # an everyday word: "busy" in a title is no subject of "are you busy?"
        ("are you busy?", "busy: not a word of letters rarer in English than Zipf 4.0"),
    ],
)
def test_subject_route_needs_only_rare_words_of_the_notes_subject(
    subject: sqlite3.Connection, message: str, reason: str
) -> None:
    d = decide(subject, message)
    assert (d.spoken, d.route) == (False, "weak"), d.reasons
    assert "subject: " + reason in d.reasons[-1]


def test_subject_route_needs_a_lead_over_every_note_about_the_words() -> None:
    """Another note about the word too (a heading: 2/3 of a title's weight) within 1.5x of the
    top note: which one the name means is not clear. Further behind, the top note speaks."""
    from notesdb.gate import _no_subject, subject_words

    s = Settings()
    top = _cand("navette.md", [replace(_hit("navette", 2.0, "title"), zipf=0.0)], 2.0)
    close = _cand("dns.md", [replace(_hit("navette", 1.4, "headings"), zipf=0.0)], 2.0)
    far = _cand("dns.md", [replace(_hit("navette", 1.3, "headings"), zipf=0.0)], 2.0)
    body = _cand("ssh.md", [replace(_hit("navette", 1.9), zipf=0.0)], 2.0)
    assert subject_words(top, [close], s) == []
    assert _no_subject(top, [close], s) == "dns.md is about it too, and the note leads it 1.43x < 1.5x"
    assert [h.word for h in subject_words(top, [far], s)] == ["navette"]
    # a note that holds the word only in its body is not about it, however close
    assert [h.word for h in subject_words(top, [body], s)] == ["navette"]
    # a word of the message the top note holds only in its body: the message is more than its subject
    more = _cand("navette.md", [replace(_hit("navette", 2.0, "title"), zipf=0.0), replace(_hit("pihole", 0.8), zipf=0.0)], 2.8)
    assert subject_words(more, [far], s) == []
    assert _no_subject(more, [far], s) == "not about every word of the message (pihole only in its body)"


#: A new user's small folder of eight notes, one about sourdough.
KITCHEN = {
    "kitchen/lamb-tagine.md": "# Lamb tagine\n\nShoulder, apricots, ras el hanout; two hours in the clay pot.\n",
    "vehicles/skoda-octavia.md": "# Skoda Octavia\n\nMOT due in March, tyres 2.3 bar, oil 5W-30.\n",
    "vehicles/bike.md": "# Touring bike\n\nChain waxed, 35 mm tyres, dynamo lights.\n",
    "homelab/nas.md": "# NAS\n\nTwo 8 TB disks in a mirror; snapshots every night at 2.\n",
    "people/grandma-edith.md": "# Grandma Edith\n\nBirthday in June; likes crosswords and marmalade.\n",
    "homelab/wifi.md": "# Wi-Fi\n\nMesh of three points; the guest network is isolated.\n",
    "kitchen/sourdough.md": "---\ntitle: Sourdough loaf recipe\ndescription: My everyday sourdough, starter "
    "feeding, hydration, timings and baking temperatures\n---\n# Sourdough loaf\n\nStarter lives in the fridge, "
    "fed 1:5:5 the night before.\n\n## Dough\n- 500 g strong white flour\n- 375 g water (75% hydration)\n",
    "projects/allotment.md": "# Allotment\n\nPlot 14: potatoes, beans, courgettes. Water butts fill from the "
    "shed roof.\n",
}
kitchen = folder_fixture(KITCHEN)


@pytest.mark.parametrize("message", ["how much water goes in my sourdough", "how much water goes in my sourdoguh"])
def test_a_typo_does_not_make_a_rare_word_common(kitchen: sqlite3.Connection, message: str) -> None:
    """The rare route weighs a corrected word as the word itself: "sourdoguh" is corrected into
    "sourdough" at 0.7 of its weight (2.89 of 4.12), under ``rare_weight`` (3.5), but the word
    the note is about is as rare however it was typed, so both messages name the note."""
    d = decide(kitchen, message)
    assert (d.spoken, d.route, d.notes) == (True, "rare", ["kitchen/sourdough.md"])
    about = next(r for r in d.reasons if r.startswith("about rare words: "))
    typo = message.endswith("sourdoguh")
    assert ("as typed right" in about) is typo
    if typo:
        assert d.corrections == [("sourdoguh", "sourdough")]

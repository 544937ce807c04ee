"""The off-title silence: a note whose title words the message mostly lacks, and that holds
little of the message, is not named by any route (``gate.off_title``)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from conftest import indexed_connection
from notesdb.decide import decide, decide_with_ranking
from notesdb.gate import Decision, coined_name, judge, name_parts, off_title, title_share, title_words
from notesdb.rank import Candidate, Hit, Ranking
from notesdb.settings import Settings
from test_reading_folders import FILLER

NOTES = dict(FILLER)
NOTES.update(
    {
        "til/css-container-queries.md": "# CSS container queries\n\nA component can size itself to its "
        "container: `container-type: inline-size` on the parent, then `@container (min-width: 40em)` "
        "in the child's rules. Works with grid and flexbox layouts alike; supported since 2023.\n",
        "til/git-bisect.md": "# Git bisect\n\n`git bisect start`, mark a good and a bad commit, then let "
        "`git bisect run pytest -x` find the commit that broke the tests.\n",
        "projects/quillmark.md": "# Quillmark\n\nStatic site generator for the photo blog. Deploy with "
        "`make deploy`; a full rebuild takes 40 s.\n",
    }
)


@pytest.fixture()
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    with indexed_connection(tmp_path, NOTES) as c:
        yield c


def _hit(word: str, evidence: float, place: str) -> Hit:
    return Hit(token=word, word=word, how="exact", weight=1.0, place=place, doc_freq=3, evidence=evidence,
               full=evidence, zipf=4.0)


def _cand(title: str, hits: list[Hit], possible: float) -> Candidate:
    c = Candidate(rowid=len(title), path=title.lower().replace(" ", "-") + ".md", title=title, desc="", bm25=1.0,
                  hits=hits)
    c.evidence = sum(h.evidence for h in hits)
    c.coverage = c.evidence / possible
    c.held = sum(h.full for h in hits) / possible
    return c


def test_title_share_counts_the_words_of_the_best_named_name() -> None:
    c = _cand("CSS container queries", [_hit("css", 2.0, "title"), _hit("grid", 1.0, "body")], 10.0)
    assert title_words(c) == [["css", "container", "queries"]]  # the file name says the same
    assert title_share(c) == pytest.approx(1 / 3)
    # stopwords, bare numbers and one-letter words are not the subject
    assert title_words(_cand("Notes on a bike (2024)", [], 1.0)) == [["notes", "bike"]]
    assert title_share(_cand("the", [], 1.0)) is None
    # the file name and the aliases are names of the subject too: the best-held one counts
    tok = _cand("Token usage monitor", [_hit("tokmeter", 4.0, "title")], 6.0)
    tok.path = "projects/tokmeter.md"
    tok.aliases = '["tm", "spend tracker"]'
    assert title_words(tok) == [["token", "usage", "monitor"], ["tokmeter"], ["tm"], ["spend", "tracker"]]
    assert title_share(tok) == 1.0
    tok.hits = [_hit("spend", 2.0, "title")]
    assert title_share(tok) == 0.5


def test_a_name_word_typed_as_it_is_is_held_whatever_form_brought_its_evidence() -> None:
    """"when does the winter tyre thing start here, is it 15 nov or 1 nov" beside the note
    "Winter tyres, chains and the winter rules" (``winter-tyres-chains.md``): "winter" is in
    most notes of that household, "winters" in one heading of this note, so the word's evidence
    came from "winters" in the headings, and the message held only "tyres" of the note's names:
    off its subject, silent (a blind household's case). The message holds "winter" as typed."""
    winters = Hit(token="winter", word="winters", how="inflected", weight=0.9, place="headings", doc_freq=1,
                  evidence=1.28, full=1.42, zipf=4.6)
    tyres = Hit(token="tyre", word="tyres", how="inflected", weight=0.9, place="title", doc_freq=3,
                evidence=2.62, full=2.91, zipf=3.9)
    c = _cand("Winter tyres, chains and the winter rules", [winters, tyres], 11.0)
    c.path = "vehicles/winter-tyres-chains.md"
    assert title_words(c) == [["winter", "tyres", "chains", "rules"], ["winter", "tyres", "chains"]]
    assert title_share(c) == pytest.approx(2 / 3)  # "winter" and "tyres" of the file name's three
    # a form the message did not type is not held ("winters" typed is another word than "winter")
    c.hits = [replace(winters, token="winters"), tyres]
    assert title_share(c) == pytest.approx(1 / 3)


def test_the_type_of_a_claude_code_memory_file_is_not_its_subject() -> None:
    """Claude Code names its memory files ``<type>_<topic>`` (``project_brindle.md``, front
    matter ``name: project_brindle``): "brindle" is the whole subject, "project" the kind of note."""
    c = _cand("project_brindle", [_hit("brindle", 2.0, "title")], 4.0)
    c.path = "memory/project_brindle.md"
    assert title_words(c) == [["brindle"]]
    assert title_share(c) == 1.0
    c = _cand("feedback_commit-style", [_hit("commit", 2.0, "title")], 4.0)
    assert title_words(c) == [["commit", "style"]]
    assert title_share(c) == 0.5
    # only the type as Claude Code writes it, joined by an underscore, at the start of the name
    assert title_words(_cand("Project plan", [], 1.0)) == [["project", "plan"]]
    assert title_words(_cand("user-research_notes", [], 1.0)) == [["user", "research", "notes"]]
    assert title_words(_cand("reference_", [], 1.0)) == [["reference"]]


def test_a_name_found_joined_counts_for_its_words(tmp_path: Path) -> None:
    """"FT-65" is indexed joined as ft65 too, and that is the word the message's "ft-65" finds
    in the title: it names "ft" of the title "Yaesu FT-65" (65, a bare number, is not a subject
    word), half the name, so a question about the radio is not off its subject."""
    notes = dict(FILLER)
    notes["radio/handheld.md"] = ("# Yaesu FT-65\n\nProgramming with CHIRP: use the PC-03 cable, baud 9600. "
                                  "Repeater offsets for the local club. Battery pack SBR-25LI, charge overnight.\n")  # fmt: skip
    notes["home/smoke-alarms.md"] = "# Smoke alarms\n\nThe hallway unit is a Kidde 10Y29; chirping means low battery.\n"
    with indexed_connection(tmp_path, notes) as c:
        d = decide(c, "my ft-65 will not power on after charging overnight, is the battery pack gone")
        assert (d.route, d.notes) == ("strong", ["radio/handheld.md"])
    top = _cand("Yaesu FT-65", [_hit("ft65", 4.0, "title")], 10.0)
    top.path = "radio/handheld.md"
    assert title_share(top) == 0.5
    top.title = "Yaesu FT-65 handheld"
    assert title_share(top) == pytest.approx(1 / 3)  # ft of yaesu, ft, handheld
    top.path = "radio/ft-65.md"
    assert title_share(top) == 1.0  # the file name "ft-65" is named whole


def test_names_are_read_once_and_again_when_the_hits_change() -> None:
    """A sweep judges one candidate under many settings: its names are read once (tune's
    judging of 510 messages under 729 settings took 46 s on a 63-note folder, 17 s now), and
    read again once the ranking adds a hit or replaces the hits."""
    c = _cand("Yaesu FT-65 handheld", [_hit("yaesu", 4.0, "title")], 10.0)
    c.path = "radio/handheld.md"
    assert title_share(c) == pytest.approx(1 / 3)
    first = c.names_read
    assert first is not None and title_share(c) == pytest.approx(1 / 3) and c.names_read is first
    c.hits.append(_hit("handheld", 2.0, "title"))
    assert title_share(c) == 1.0 and c.names_read is not first  # the file name, "handheld", whole
    c.hits = [_hit("ft65", 4.0, "title")]
    assert title_share(c) == pytest.approx(1 / 3)  # "ft" of yaesu, ft, handheld


def test_names_read_from_odd_rows_never_fail() -> None:
    """A row edited by another program: no title, aliases that are not a JSON list of strings."""
    c = _cand("", [_hit("kayak", 2.0, "title")], 4.0)
    c.path = "boats/kayak.md"
    for aliases in ("", "not json", "[broken", '"kayak"', '[1, null, "sea kayak"]'):
        c.aliases = aliases
        names = title_words(c)
        assert names[0] == ["kayak"]
        assert names[1:] == ([["sea", "kayak"]] if aliases.startswith("[1") else [])
        assert title_share(c) == 1.0


def test_a_note_the_message_neither_names_nor_mostly_matches_is_not_named() -> None:
    """Strong evidence and a clear lead, but the message holds one title word of three and the
    note holds 0.55 of the message: silent, and the explanation says why."""
    top = _cand("CSS container queries", [_hit("css", 3.0, "title"), _hit("grid", 1.5, "body"),
                                          _hit("flexbox", 1.0, "body")], 10.0)
    second = _cand("Resizing a textarea", [_hit("grid", 1.5, "body")], 10.0)
    r = Ranking([top, second], 10.0)
    assert judge(r, replace(Settings(), title_held=0.0)).route == "strong"
    d = judge(r, Settings())
    assert (d.spoken, d.route) == (False, "off-title")
    assert d.reasons[-3].startswith("thresholds met by strong: evidence ")  # what it is silent despite
    assert d.reasons[-2:] == [
        "but off the note's subject: the message holds 0.33 < 0.5 of the words of its title, file name or aliases "
        "(css, container, queries) and the note holds 0.55 < 0.6 of the message",
        "not let past for its words: it holds 3 of the message's words bringing >= 0.5 each, fewer than 12",
    ]
    # the same evidence with two of the three title words named: it speaks
    named = _cand("CSS container queries", [_hit("css", 2.0, "title"), _hit("container", 1.0, "title"),
                                            _hit("grid", 1.5, "body"), _hit("flexbox", 1.0, "body")], 10.0)
    assert judge(Ranking([named, second], 10.0), Settings()).route == "strong"
    # or holding most of the message (0.65 >= 0.6): it speaks
    most = _cand("CSS container queries", [_hit("css", 3.0, "title"), _hit("grid", 2.0, "body"),
                                           _hit("flexbox", 1.5, "body")], 10.0)
    assert judge(Ranking([most, second], 10.0), Settings()).route == "strong"


def test_a_general_question_sharing_words_with_a_how_to_note_stays_silent(conn: sqlite3.Connection) -> None:
    """A coding question on a real index: the container-queries note holds css, grid and
    flexbox, but the message names none of its subject beyond css."""
    msg = "css grid or flexbox for a simple navbar with a dropdown, which one"
    assert decide(conn, msg, replace(Settings(), title_held=0.0)).notes == ["til/css-container-queries.md"]
    d = decide(conn, msg)
    assert (d.spoken, d.route) == (False, "off-title")


def test_a_message_naming_the_note_still_speaks(conn: sqlite3.Connection) -> None:
    """Naming what the title names: a project by its name, a tool note by its subject."""
    assert decide(conn, "quillmark deploy command again?").notes == ["projects/quillmark.md"]
    assert decide(conn, "how did i run git bisect with pytest last time").notes == ["til/git-bisect.md"]


def test_one_rare_word_of_a_long_title_does_not_name_the_note(tmp_path: Path) -> None:
    """The rare route asks the message to name the note too, however much of the message the note
    holds: "factorial" is rare and sits in the title below, but "explain factorial quickly" names
    one word of four of the file name ("two ways to compute factorial", the best-held name); a
    note whose name the message holds still speaks by that route."""
    notes = dict(FILLER)
    notes["til/postgres/two-ways-to-compute-factorial.md"] = (
        "# Two ways to compute factorial in Postgres\n\nThe `!` operator is gone since Postgres 14; use "
        "`factorial(n)`, or a recursive CTE that multiplies as it counts up.\n")  # fmt: skip
    notes["projects/monswitch.md"] = ("# Monswitch\n\nSwitches both monitors' inputs over DDC/CI from the laptop; "
                                      "exits 2 when a monitor does not answer.\n")  # fmt: skip
    msg = "explain factorial quickly"
    with indexed_connection(tmp_path, notes) as c:
        before = decide(c, msg, replace(Settings(), title_share=0.0))
        assert (before.route, before.notes) == ("rare", ["til/postgres/two-ways-to-compute-factorial.md"])
        d = decide(c, msg)
        assert (d.spoken, d.route) == (False, "weak")
        assert "rare: the message holds 0.25 < 0.5 of the words of the note's title, file name or aliases" in d.reasons[-1]
        spoken = decide(c, "monswitch is playing up again")
        assert (spoken.route, spoken.notes) == ("rare", ["projects/monswitch.md"])
        assert "the message holds 1.00 >= 0.5 of a name of the note" in spoken.reasons[-1]


def test_a_note_named_by_numbers_only_is_not_held_to_naming() -> None:
    """A daily note's title and file name are a date: bare numbers are no subject words, so the
    note has no name to hold, and the rare route judges it by its rare word (it used to be held
    to naming it, "the message holds 0.00 < 0.5", and stay silent)."""
    daily = _cand("2025-01-06", [_hit("kestrel", 4.0, "title")], 5.0)
    assert daily.path == "2025-01-06.md" and title_share(daily) is None
    other = _cand("Birds", [_hit("kestrel", 1.0, "body")], 5.0)
    d = judge(Ranking([daily, other], 5.0), Settings())
    assert (d.route, d.notes) == ("rare", ["2025-01-06.md"])
    assert any(r.endswith("coverage 0.80 >= 0.6, the note's names are numbers only") for r in d.reasons)


RECOVERY = (
    "# Shield TV recovery\n\n## APX device over micro USB, in Tegra RCM mode\n\nThe box would not boot. Held the button while plugging the micro USB cable in: "
    "the kernel log showed a new APX device (vendor 0955, product 7321, manufacturer NVIDIA), which is "
    "the Tegra RCM mode: it is alive. Sent the fusee payload with the injector, then reflashed the boot "
    "partition from the recovery image.\n"
)
#: a paste that names nothing of the note's title and holds more than the note's words
PASTE = (
    "ok alive-ish? when i plug the micro usb in:\n\n"
    "[ 8812.402113] usb 1-4: new high-speed USB device\n"
    "[ 8812.551020] usb 1-4: New USB device found, idVendor=0955, idProduct=7321\n"
    "[ 8812.551031] usb 1-4: Product: APX\n"
    "[ 8812.551039] usb 1-4: Manufacturer: NVIDIA Corp.\n"
    "same again with the other lead, what now"
)


def test_a_paste_sharing_many_words_with_one_note_is_about_it(tmp_path: Path) -> None:
    """A pasted log that shares at least ``off_title_words`` words with one write-up, which
    leads the second ``strong_held_lead`` times, is let past the off-title silence."""
    notes = dict(NOTES)
    notes["hardware/shield-tv-recovery.md"] = RECOVERY
    notes["hardware/usb-hub.md"] = "# USB hub\n\nThe powered hub on the desk; a micro USB cable for the kindle.\n"
    # the note holds 0.67 of this message: the off-title check is asked to apply up to 0.75
    # it shares 10 words with the note: the waiver is asked to apply from 10 (12 by default)
    s = replace(Settings(), title_held=0.75, off_title_words=10)
    with indexed_connection(tmp_path, notes) as c:
        assert decide(c, PASTE, replace(s, off_title_words=Settings().off_title_words)).route == "off-title"
        d = decide(c, PASTE, s)
        assert (d.spoken, d.route, d.notes) == (True, "strong", ["hardware/shield-tv-recovery.md"])
        assert d.reasons[-2] == (
            "the message names none of the note's subject (it holds 0.00 < 0.5 of its names), but it holds 10 "
            "of the message's words and leads 2.57x >= 1.30x: let past for its words"
        )
        assert d.top_scores[0]["held"] == pytest.approx(0.673, abs=0.001)
        # the waiver off, the same message is off the note's subject
        off = decide(c, PASTE, replace(s, off_title_words=0))
        assert (off.spoken, off.route) == (False, "off-title")
        assert off.reasons[-1] == "not let past for its words: it holds 10 of the message's words bringing >= 0.5 each, and the waiver is off (off_title_words 0)"
        # more words than the note shares with it: not let past
        assert decide(c, PASTE, replace(s, off_title_words=13)).route == "off-title"
        assert decide(c, PASTE, replace(s, off_title_words=10)).route == "strong"
        # without the larger lead over the second note (2.57x here), not let past either
        short = decide(c, PASTE, replace(s, strong_held_lead=2.6))
        assert short.route == "off-title"
        assert short.reasons[-1] == "not let past for its words: it holds 10 of the message's words bringing >= 0.5 each, but leads 2.57x < 2.60x"


def test_the_names_inside_a_name_are_read_from_a_parenthesis_or_after_a_spaced_dash() -> None:
    assert name_parts("Gaussian Mixture Models (GMM)") == ["Gaussian Mixture Models", "GMM"]
    assert name_parts("Data Engineering - Backfills") == ["Backfills"]
    assert name_parts("Obsidian \u2014 Plugins") == ["Plugins"]
    assert name_parts("Weekly update \u2013 2024-W18") == ["2024-W18"]
    assert name_parts("Docker - Docker disk space usage (Windows)") == ["Docker - Docker disk space usage", "Windows"]
    assert name_parts("CI-CD pipeline") == [] and name_parts("2024-05-01 standup") == [] and name_parts("Backfills") == []


def _coined(word: str, evidence: float) -> Hit:
    return replace(_hit(word, evidence, "title"), coined=True, zipf=0.0)


def test_a_name_inside_a_name_names_the_note_only_with_a_coined_word() -> None:
    """"GMM" names "Gaussian Mixture Models (GMM)" and "backfills" the subject of "Data
    Engineering - Backfills" (words no English word list holds): the named route's names, and
    the message is then on the note's subject. An everyday word there is not (``title_share``
    reads the whole names only): "honda" is a third of "Honda Civic (2018 hatchback)"."""
    s = Settings()
    gmm = _cand("Gaussian Mixture Models (GMM)", [_coined("gmm", 3.0), _hit("fit", 1.0, "body")], 10.0)
    assert title_words(gmm) == [["gaussian", "mixture", "models", "gmm"]]
    assert title_share(gmm) == 0.25
    assert coined_name(gmm) == "GMM"
    assert off_title(gmm, s) is False
    back = _cand("Data Engineering Backfills", [_coined("backfills", 3.0), _hit("airflow", 1.0, "body")], 10.0)
    back.path = "3 - Notes/Data Engineering - Backfills.md"
    assert coined_name(back) == "Backfills"
    assert off_title(back, s) is False
    civic = _cand("Honda Civic (2018 hatchback)", [_hit("honda", 2.0, "title"), _hit("tires", 1.0, "body")], 10.0)
    civic.path = "vehicles/civic.md"
    assert title_share(civic) == pytest.approx(1 / 3)
    assert coined_name(civic) is None
    assert off_title(civic, s) is True


def assert_named(d: Decision, path: str, name: str, lead: str, coverage: str) -> None:
    """``d`` names ``path`` alone by the named route, through its name ``name``, with that lead
    and coverage in its explanation."""
    assert (d.route, d.notes) == ("named", [path])
    assert d.reasons[1] == (
        f"spoke by named: the message holds the note's name '{name}', which English does not know; "
        f"leads the second {lead} >= 1.5x, coverage {coverage} >= 0.2"
    )


def test_the_name_inside_a_name_names_the_note(tmp_path: Path) -> None:
    """"word2vec" is the whole of a name inside "Word2vec (word embeddings)", a word English does
    not know: the named route names the note it leads 1.52 times, and a longer message holding
    it is on the note's subject. Read as one name of three words, both stayed silent (weak;
    off-title)."""
    notes = dict(FILLER)
    notes.update({
        "ml/Word2vec (word embeddings).md": "# Word2vec (word embeddings)\n\nSkip-gram and CBOW; vectors of "
        "300 dimensions trained on the support tickets, window 5, negative sampling 10.\n",
        "projects/ticket-vectorisation.md": "# Ticket vectorisation project\n\n## Word2vec\n\nTried it "
        "first; TF-IDF won on the short tickets.\n\n## TF-IDF\n\nBigrams, min_df 3.\n",
        "ml/embeddings.md": "# Feature embeddings\n\nDense vectors for categories; word2vec is one way, "
        "learned embedding layers another.\n",
    })
    with indexed_connection(tmp_path, notes) as conn:
        assert_named(decide(conn, "word2vec"), "ml/Word2vec (word embeddings).md", "Word2vec", "1.52x", "1.00")
        d = decide(conn, "gensim word2vec window size")
        assert (d.route, d.notes) == ("named", ["ml/Word2vec (word embeddings).md"])


CATEGORY_NOTES = {
    "notes/Data Engineering - Backfills.md": "Tags: [[Data Engineering]]\n\n# Introduction\n\nA backfill reruns a "
    "pipeline over past partitions: `airflow dags backfill -s 2024-01-01 -e 2024-01-31 sales_daily`.\n",
    "notes/Data Engineering - Idempotent pipelines.md": "# Introduction\n\nWrite each partition with overwrite, "
    "never append; backfills then repeat safely.\n",
    "notes/Airflow - Catchup.md": "# Introduction\n\n`catchup=False` stops the scheduler from creating runs for "
    "past intervals; backfills are started by hand.\n",
    "notes/Project Atlas - Overview.md": "# Overview\n\nAtlas moves billing onto the new ledger by March; "
    "owners Priya and Tom, weekly sync on Thursdays.\n",
    "notes/Elasticsearch Cluster (troubleshooting).md": "Red status: check unassigned shards with "
    "`_cluster/allocation/explain`; a full disk above the high watermark blocks allocation.\n",
    "notes/Q3 plan (v2).md": "Ship the ledger migration, hire two engineers, cut the cloud bill by a tenth.\n",
    "notes/Dog Training Class - Homework.md": "Practise loose-lead walking ten minutes a day; recall with "
    "the whistle in the park.\n",
}


def test_a_category_before_a_spaced_dash_leaves_the_subject_the_note_s_name(tmp_path: Path) -> None:
    """"backfills", with notes named "<category> - <subject>" as many folders name them: the
    message names the subject of "Data Engineering - Backfills" whole and the named route names
    it (before, it held a third of the file name's words and stayed silent as weak). A part that
    is an everyday word names nothing: "overview", "troubleshooting my printer", "v2" and
    "homework" stay silent."""
    notes = dict(FILLER)
    notes.update(CATEGORY_NOTES)
    with indexed_connection(tmp_path, notes) as conn:
        assert_named(decide(conn, "backfills"), "notes/Data Engineering - Backfills.md", "Backfills", "2.00x", "0.75")
        for message in ("data engineering", "overview", "troubleshooting my printer", "v2", "homework?"):
            assert decide(conn, message).spoken is False, message


def test_a_long_title_is_read_for_names_inside_it_in_no_time(tmp_path: Path) -> None:
    """A title of 200,000 characters with an unclosed parenthesis (a pasted line used as a
    note's H1) took minutes to match against a pattern with two runs that could share its
    characters, on every message whose candidates held that note. A name longer than
    ``MAX_NAME_CHARS`` now gives no names inside it; one of them still reads as before. A
    process still reading after 60 s fails the test."""
    import subprocess
    import sys

    from notesdb.gate import MAX_NAME_CHARS

    assert name_parts("Tmux - Config (" + "x" * (MAX_NAME_CHARS - 20) + ")") == ["Tmux - Config", "x" * (MAX_NAME_CHARS - 20)]
    code = "from notesdb.gate import name_parts; print(name_parts('x (' + 'a' * 200_000), name_parts('x (' + 'a b ' * 50_000))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stdout.strip()) == (0, "[] []"), out.stderr[-500:]


GERMAN_NOTES = {
    "ideen/fitnessstudio.md": "# Fitnessstudio\n\nIdee: ein kleines Studio im Dorf, Kurse am Abend, "
    "Geräte gebraucht kaufen, Mitgliedschaft 25 Euro im Monat.\n",
    "sonstiges/schach.md": "# Schach\n\nSpiele online auf lichess, Ziel 1500 Elo bis Jahresende.\n",
    "projekte/quaxwell.md": "# Quaxwell\n\nMein Tool, das die Stromzähler im Keller ausliest und in "
    "InfluxDB schreibt.\n",
}


def test_a_rarer_word_of_another_language_is_not_a_made_up_name(tmp_path: Path) -> None:
    """The named route takes a word no word list holds for a name the user made up. German's
    rarer words ("fitnessstudio" Zipf 3.6, "schach" 4.0) are not in ``lexicon`` (Zipf 4 and
    more), so they passed for made-up names and named the notes titled with them on requests
    about something else; ``lexicon_rare`` holds them. A made-up name still names its note."""
    notes = dict(FILLER)
    notes.update(GERMAN_NOTES)
    with indexed_connection(tmp_path, notes) as conn:
        for message in ("schreib mir ein kündigungsschreiben für mein fitnessstudio",
                        "schach: welche eröffnung spiel ich als anfänger gegen e4?"):
            d = decide(conn, message)
            assert d.route != "named" and d.spoken is False, (message, d.route, d.notes)
        d = decide(conn, "quaxwell liest nichts mehr aus")
        assert (d.spoken, d.notes) == (True, ["projekte/quaxwell.md"])
        assert coined_name(decide_with_ranking(conn, "quaxwell liest nichts mehr aus", Settings())[1].candidates[0])
        assert conn.execute("SELECT count(*) FROM lexicon_rare").fetchone()[0] > 100_000  # the full sync filled it

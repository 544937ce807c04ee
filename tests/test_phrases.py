"""Phrases: a pair of message words a note holds side by side is evidence beyond the two words
(``query.adjacent_terms``, ``rank.phrase_evidence``), on an invented folder of session notes
indexed into a real SQLite file."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest

from conftest import NOTESDB_EXE, write_and_index
from notesdb.decide import decide, decide_with_ranking
from notesdb.query import MAX_PHRASES, adjacent_terms
from notesdb.rank import scaled_idf, specificity
from notesdb.settings import Settings
from test_evidence_routes import folder_fixture
from test_reading_folders import FILLER


def test_adjacent_terms_pairs_words_typed_together() -> None:
    terms = {"caroline", "lgbtq", "support", "group"}
    assert adjacent_terms("When did Caroline go to the LGBTQ support group?", terms) == [
        ("lgbtq", "support"),
        ("support", "group"),
    ]


@pytest.mark.parametrize(
    "text, pairs",
    [
        ("support, group", []),  # a comma ends a phrase
        ("support\ngroup", []),  # so does a line break
        ("(most recent call last):\n  File", [("recent", "call"), ("call", "last")]),
        ("support the group", []),  # a word that is not a term (a stopword) breaks the pair
        ("group group support group", [("group", "support"), ("support", "group")]),  # each pair once, no word with itself
    ],
)
def test_adjacent_terms_breaks(text: str, pairs: list[tuple[str, str]]) -> None:
    terms = {"support", "group", "recent", "call", "last", "file"}
    assert adjacent_terms(text, terms) == pairs


def test_adjacent_terms_keeps_at_most_max_phrases() -> None:
    words = [f"w{chr(97 + i)}" for i in range(MAX_PHRASES + 5)]
    assert len(adjacent_terms(" ".join(words), set(words))) == MAX_PHRASES


#: Eight sessions of one conversation that all say "pottery" and "class"; one says "pottery class".
OTHERS = [
    "her evening class was cancelled", "the yoga class moved", "a cooking class for two", "the class trip was fun",
    "her art class sold prints", "the dance class is full", "a night class in Spanish",
]
#: Other notes of the folder, so that a word in eight notes is a word in a few of them.
MORE = {f"misc/receipt-{i}.md": f"# Receipt {i}\n\nPaid {i} pounds at the hardware shop, aisle {i % 9}.\n" for i in range(80)}
SESSIONS = {**FILLER, **MORE}
SESSIONS.update(
    {
        f"talks/session-{i}.md": f"# Ana and Ben, session {i}\n\nAna talked about pottery; {body}. Ben "
        "talked about his garden.\n"
        for i, body in enumerate(["she went to a pottery class on Tuesday", *OTHERS])
    }
)

conn = folder_fixture(SESSIONS)
MESSAGE = "when did Ana go to the pottery class"


def test_a_phrase_breaks_a_tie_between_notes_holding_the_same_words(conn: sqlite3.Connection) -> None:
    """Every session holds ana, pottery and class: by words alone they tie and the gate is
    silent; the one that says "pottery class" leads by its phrase, and is named."""
    words_alone = decide(conn, MESSAGE, Settings(phrase_weight=0.0))
    assert (words_alone.spoken, words_alone.route) == (False, "tie")
    d = decide(conn, MESSAGE)
    assert d.spoken and d.notes == ["talks/session-0.md"]


def test_phrase_evidence_is_the_idf_the_phrase_gains_over_its_rarer_word(conn: sqlite3.Connection) -> None:
    s = Settings()
    _, ranking = decide_with_ranking(conn, MESSAGE, s)
    assert ranking is not None
    top = ranking.candidates[0]
    assert top.path == "talks/session-0.md" and top.phrases == ["pottery class"]
    hits = {h.token: h for h in top.hits}
    n = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    gain = scaled_idf(1, n, s.reference_notes, s.min_idf_notes) - scaled_idf(8, n, s.reference_notes, s.min_idf_notes)
    spec = max(specificity(hits["pottery"].zipf, s), specificity(hits["class"].zipf, s))
    assert top.phrase == pytest.approx(s.phrase_weight * gain * spec)
    assert top.evidence == pytest.approx(sum(h.evidence for h in top.hits) + top.phrase)
    # coverage stays the share of the message's words
    assert top.coverage == pytest.approx(sum(h.evidence for h in top.hits) / ranking.possible)
    for other in ranking.candidates[1:]:
        assert other.phrase == 0.0 and other.phrases == []


def test_a_phrase_no_rarer_than_its_rarer_word_adds_nothing(tmp_path: Path) -> None:
    """Only one note says "ham": "ham radio" says nothing "ham" did not."""
    notes = dict(FILLER)
    notes["radio/ham.md"] = "# Licence\n\nThe ham radio exam is in May.\n"
    notes["radio/dab.md"] = "# Kitchen radio\n\nThe DAB radio needs new batteries.\n"
    from conftest import indexed_connection

    with indexed_connection(tmp_path, notes) as c:
        _, ranking = decide_with_ranking(c, "ham radio licence exam", Settings())
        assert ranking is not None
        top = ranking.candidates[0]
        assert top.path == "radio/ham.md"
        assert (top.phrase, top.phrases) == (0.0, [])


def test_a_note_earns_its_best_phrase_only(tmp_path: Path) -> None:
    """Two phrases of the message in one note count as the better of the two, not their sum."""
    notes = dict(FILLER)
    for i in range(4):
        notes[f"logs/run-{i}.md"] = f"# Run {i}\n\nRecent tests call the API; the last one failed.\n"
    notes["logs/trace.md"] = "# Trace\n\nTraceback (most recent call last) was printed.\n"
    from conftest import indexed_connection

    with indexed_connection(tmp_path, notes) as c:
        s = Settings()
        _, ranking = decide_with_ranking(c, "most recent call last", s)
        assert ranking is not None
        trace = next(x for x in ranking.candidates if x.path == "logs/trace.md")
        assert sorted(trace.phrases) == ["call last", "recent call"]
        alone = []
        for msg in ("recent call", "call last"):
            _, r = decide_with_ranking(c, msg, s)
            assert r is not None
            alone.append(next(x for x in r.candidates if x.path == "logs/trace.md").phrase)
        assert min(alone) > 0
        assert trace.phrase == pytest.approx(max(alone))


def test_explain_names_the_phrases(tmp_path: Path) -> None:
    vault, db = write_and_index(tmp_path / "notes", tmp_path / "notes.db", SESSIONS)
    out = subprocess.run(
        [str(NOTESDB_EXE), "check", "--notes", str(vault), "--db", str(db), "--explain", MESSAGE],
        capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "talks/session-0.md" in out.stdout.splitlines()[0]
    line = next(x for x in out.stdout.splitlines() if x.strip().startswith("phrases:"))
    assert line.strip().startswith("phrases: pottery class (evidence ")


def test_a_phrase_in_a_note_ends_at_punctuation_and_between_headings(tmp_path: Path) -> None:
    """FTS5 finds the phrase "oil filter" in "Oil. Filter coffee" and across two headings; only a
    note that writes the two words together (a space, a hyphen, a wrapped line) holds it."""
    notes = dict(FILLER)
    notes.update({
        "kitchen.md": "# Kitchen\n\nOlive oil. Filter coffee in the morning.\n",
        "garage.md": "# Garage\n\n## Oil\n\n5W-30 on the shelf.\n\n## Filter\n\nSpare ones in the box.\n",
        "van.md": "# Van\n\nChanged the oil filter at 60,000 miles.\n",
        "bike.md": "# Motorbike\n\nThe oil-filter wrench lives in the tank bag.\n",
        "mower.md": "# Mower\n\nEvery spring: new plug, new oil\nfilter and a sharp blade.\n",
        **{f"shed-{i}.md": f"# Shed {i}\n\nOil for the hinges; the water filter was changed in {2020 + i}.\n"
           for i in range(4)},
    })
    from conftest import indexed_connection

    with indexed_connection(tmp_path, notes) as c:
        _, ranking = decide_with_ranking(c, "oil filter", Settings())
        assert ranking is not None
        held = {x.path: x.phrases for x in ranking.candidates}
        assert held["kitchen.md"] == [] and held["garage.md"] == []
        assert held["van.md"] == held["bike.md"] == held["mower.md"] == ["oil filter"]


def test_a_stopword_kept_for_a_hyphenated_name_pairs_only_inside_it() -> None:
    """"up-to-date" keeps "up" and "to" as words of that name; "set up" later in the message is
    no phrase, and neither is a stopword pair across two names."""
    terms = {"up", "to", "date", "way", "set", "timer"}
    assert adjacent_terms("whats the up-to-date way to set up the timer", terms) == [
        ("up", "to"), ("to", "date"), ("date", "way"),
    ]
    terms = {"state", "of", "the", "art", "tyres", "off", "road", "trip"}
    assert ("the", "off") not in adjacent_terms("state-of-the-art tyres for the off-road trip", terms)


def test_a_long_unbroken_run_beside_a_hyphenated_word() -> None:
    """A pasted sequence or hash of 12,000 letters next to "re-run": one name, its "re" kept."""
    from notesdb.query import named_stopwords

    text = "did the re-run finish? " + "ACGT" * 3000
    assert named_stopwords(text) == {"re"}
    assert adjacent_terms(text, {"run", "finish"}) == [("run", "finish")]

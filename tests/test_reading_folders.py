"""Folders as people keep them: each way of misreading one, on an invented example.

Titles from file names, file and folder names as words, letter/digit variants, numbers that
tell notes apart, letters beyond diacritics, word forms, other languages, English words that
are not typos, templates, catalogues, stubs, tiny folders and empty notes.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import indexed_connection
from notesdb import text
from notesdb.db import open_db, searchable_count
from notesdb.decide import decide
from notesdb.query import build_query, detect_language, stemmed
from notesdb.rank import rank, shape_weight
from notesdb.settings import Settings
from notesdb.sync import skipped_by, sync

#: Everyday notes around the ones under test, so that document frequencies mean something.
FILLER = {
    f"misc/filler-{i}.md": f"# {topic}\n\n{body}\n"
    for i, (topic, body) in enumerate(
        [
            ("Dentist", "Check-up every six months at the practice on Mill Road."),
            ("Passport", "Renewed in 2021, photo code kept in the drawer."),
            ("Sourdough", "Starter fed with rye flour twice a day, baked at 240."),
            ("Broadband", "Fibre contract ends in autumn; router admin page on the label."),
            ("Bins", "Recycling goes out on Tuesday, garden waste every other week."),
            ("Insurance", "Home insurance renews in June with the broker."),
            ("Car", "Service due at 60,000 miles, tyres rotated last spring."),
            ("Garden", "Lawn fed in April, hedge cut after the birds have nested."),
            ("Books", "Reading the long novel slowly, a chapter a night."),
            ("Piano", "Practising scales for twenty minutes before the pieces."),
            ("Climbing", "Wall sessions on Thursday evening, new shoes half a size down."),
            ("Plumbing", "Stopcock under the kitchen sink, the bathroom tap drips."),
        ]
    )
}

NOTES = {
    # 1. titles: a later H1 is a section, the file name is the title
    "kitchen/Espresso grinder.md": "Bought the grinder in May.\n\n# Resources\n\nBurr set 38 mm, dial in at 14 for the light roast.\n",
    # a folder's README under its logo, and one with no heading at all: named by H1 and folder
    "brews/smash-sabro/README.md": "![logo](./sabro.jpeg)\n\n# SMaSH Sabro\n\n## Hop schedule\n\nSabro at 60 minutes, 20 g dry hop on day four.\n",
    "brews/porter/README.md": "Chocolate malt porter, mashed at 68 degrees, bottled after three weeks.\n",
    # 2. file and folder names
    "network/router-vlan.md": "Guest network on its own subnet, isolated from the iot devices; the iot vlan is tagged on port 3.\n",
    "bike/notes.md": "Chain lube: wax in summer, wet lube in winter.\n",
    "car/notes.md": "Chain of garages that do the MOT; the lube shop on the ring road.\n",
    # 3. letters and digits
    "radio/yaesu.md": "# Yaesu FT-65\n\nSquelch setting 3 on the hilltop repeater.\n",
    "games/stealth.md": "# MGS 3\n\nBoss order: The Pain, The Fear, The End, The Fury.\n",
    # 4. numbers that tell notes apart
    "money/tax-2023.md": "Tax return 2023: mileage claimed 3,100, home office flat rate.\n",
    "money/tax-2024.md": "Tax return 2024: mileage claimed 4,450, home office flat rate.\n",
    # 5. letters beyond diacritics
    "travel/Łódź.md": "# Łódź\n\nTram museum, the Piotrkowska street murals, a hostel near Fabryczna.\n",
    # 6. word forms
    "kitchen/kettle.md": "# Kettle\n\nDescaled in March with citric acid; descaling schedule every eight weeks.\n",
    "people/economist.md": "# Priya\n\nEconomist at the central bank, met at the conference.\n",
    # 7. other languages
    "haus/bad.md": "# Fußbodenheizung im Bad\n\nThermostat auf 22 Grad, Estrich 2019 verlegt, Stellantrieb im Verteiler.\n",
    # 8. English words are not typos
    "misc/slang.md": "# Slang\n\nyolo, as the teenagers say about the trampoline.\n",
    "misc/shield.md": "# Shield\n\nThe riot shield prop for the play, painted silver.\n",
    # 9. templates
    "Templates/Plant care.md": "---\ncreated: \"{{date}}\"\n---\n# {{title}}\n\nRepotted: <% tp.date.now() %>\nFig:\nWatering:\n",
    "Inbox/Meeting.md": "# {{title}}\nDate: {{date}}\nAttendees:\nActions:\n",
    "garden/fig.md": "# Fig\n\nRepotted in April into a 50 litre pot; water daily in heat, net the fruit in August.\n",
    # 10. catalogues: an index that names everything once
    "Index.md": "# Index\n\n"
    + ", ".join(f"topic{i}" for i in range(300))
    + ", compressor, seized, pressure, valve\n",
    "workshop/compressor.md": "# Compressor\n\nThe pressure valve seized; freed it with penetrating oil.\n",
    # a book's summary: a heading per chapter and section, one of them on the subject of a note
    "books/Field guide.md": "# Field guide\n\n"
    + "".join(f"## Chapter {i}: topic{i}\n\nNotes on topic{i}.\n\n" for i in range(60))
    + "## Beekeeping\n\nA chapter on hives.\n",
    "garden/hives.md": "# Hives\n\n## Beekeeping\n\nTwo hives by the hedge; the varroa count is taken in August.\n",
    # 11. stubs
    "home/dishwasher.md": "See the other note.\n",
    "home/dishwasher-error-codes.md": "E24: drain blocked, cleaned the filter and the pump. E15: water in the base tray.\n",
}


def write(root: Path, notes: dict[str, str]) -> None:
    for rel, body in notes.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> tuple[sqlite3.Connection, Path]:
    base = tmp_path_factory.mktemp("kept")
    root = base / "notes"
    write(root, {**FILLER, **NOTES})
    for i in range(30):  # 13. empty placeholders
        (root / f"Untitled {i}.md").write_text("", encoding="utf-8")
    conn = open_db(base / "kept.db")
    sync(conn, root)
    return conn, root


def first(conn: sqlite3.Connection, message: str) -> str | None:
    d = decide(conn, message)
    return d.notes[0] if d.spoken else None


# --- 1. titles ------------------------------------------------------------------------


def test_title_comes_from_the_file_name_when_the_h1_is_a_section(folder: tuple[sqlite3.Connection, Path]) -> None:
    conn, _ = folder
    title, headings = conn.execute(
        "SELECT title, headings FROM notes WHERE path = 'kitchen/Espresso grinder.md'"
    ).fetchone()
    assert (title, headings) == ("Espresso grinder", "Resources")
    d = decide(conn, "what do I dial the espresso grinder to for a light roast")
    assert d.notes == ["kitchen/Espresso grinder.md"]
    assert '"Espresso grinder"' in d.line


def test_a_folder_readme_is_named_by_its_h1_or_its_folder(folder: tuple[sqlite3.Connection, Path]) -> None:
    """A README is titled by the H1 under its logo, or else by its folder, never "README": the
    assistant's line names it so, and its folder's name is a name of the note."""
    conn, _ = folder
    titles = dict(conn.execute("SELECT path, title FROM notes WHERE path LIKE 'brews/%'"))
    assert titles == {"brews/smash-sabro/README.md": "SMaSH Sabro", "brews/porter/README.md": "porter"}
    d = decide(conn, "sabro dry hop, which day again")
    assert d.notes == ["brews/smash-sabro/README.md"]
    assert '"SMaSH Sabro"' in d.line and "README\"" not in d.line
    d = decide(conn, "porter mash temperature?")
    assert d.notes == ["brews/porter/README.md"]
    assert d.line.startswith('Notes that may cover this: "porter"')


# --- 2. file names and folders ----------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        "what does router-vlan.md say about the guest network",
        "@network/router-vlan.md why is the iot vlan tagged",
    ],
)
def test_a_quoted_file_name_finds_its_note(folder: tuple[sqlite3.Connection, Path], message: str) -> None:
    assert first(folder[0], message) == "network/router-vlan.md"


def test_the_folder_tells_two_notes_md_apart(folder: tuple[sqlite3.Connection, Path]) -> None:
    assert first(folder[0], "which chain lube does the bike take") == "bike/notes.md"


def test_file_name_words_are_title_words_and_folders_heading_words(folder: tuple[sqlite3.Connection, Path]) -> None:
    row = folder[0].execute(
        "SELECT title, title_extra, headings_extra FROM notes WHERE path = 'games/stealth.md'"
    ).fetchone()
    assert row == ("MGS 3", "mgs3 stealth", "games")


# --- 3. letters and digits ---------------------------------------------------------------


def test_joined_variants() -> None:
    assert text.joined("Yaesu FT-65, MGS 3 and the E-15 error on the wi-fi") == ["ft65", "mgs3", "e15", "wifi"]
    assert text.joined("mercedes-w204, 2024-11-02") == []  # names of parts and dates stay apart


def test_a_month_and_its_number_are_a_date_not_a_name() -> None:
    """A month before a day or a year, or a word before a year, is a date: "January 2024" and
    "Budget 2026" are not a model's name such as "RTX 4090", in English or in the other
    languages notesdb reads, with a space or a hyphen."""
    assert text.joined("2 January 2024, Sept 3, jan-2024, mars 2025, Février 2025, 3. März 2024") == []
    assert text.joined("rtx 4090 and the Witcher 3 in March") == ["rtx4090", "witcher3"]
    assert text.joined("May 5, may-2024") == []  # "may" is no stopword of a message: the month
    assert "september" in text.MONTHS and "dezember" in text.MONTHS
    # a word before a year is a subject and its year ("Budget 2026"), a year in any of the forms
    assert text.joined("Budget 2026, taxes-2024, Trip 1999") == []
    assert text.joined("RTX 2080, ft-2100, Nokia 3310, rtx 20800") == ["ft2100", "nokia3310", "rtx20800"]


def test_a_date_written_without_its_comma_does_not_outweigh_the_question(tmp_path: Path) -> None:
    """Two dated conversation summaries: one writes "2 January 2024", the other "12 January,
    2024". Joined, "january2024" was a word of the first alone, weighed as a rare name, and the
    first was named for a question about what the second holds."""
    notes = {
        **FILLER,
        "talks/session_27.md": "# Ana and Ben, 2 January 2024\n\nAna and Ben spoke on 2 January 2024. Ana is "
        "learning German; Ben told her about his trip to Italy and the books he read there.\n",
        "talks/session_29.md": "# Ana and Ben, 12 January, 2024\n\nAna and Ben spoke on 12 January, 2024. Ben "
        "recommended Lisbon as a city to visit, and Ana added it to her travel list.\n",
    }
    with indexed_connection(tmp_path, notes) as conn:
        assert conn.execute("SELECT count(*) FROM vocab WHERE word = 'january2024'").fetchone() == (0,)
        d = decide(conn, "Which city did Ben recommend to Ana in January 2024?")
    assert d.spoken and d.notes[0] == "talks/session_29.md"


def test_a_yearly_note_keeps_its_year_as_a_word_of_its_own(tmp_path: Path) -> None:
    """"Taxes 2025" joined made "taxes2025", a rare name of the yearly note alone, weighed as a
    word English does not know (a question about a country's taxes of that year held it whole:
    route ``rare``). Apart, the note still holds both words, and a message about it finds it."""
    notes = {**FILLER, "home/Taxes 2025.md": "Return filed in April. Refund of 310 expected; the "
             "receipts for the home office are in the blue folder.\n"}
    with indexed_connection(tmp_path, notes) as conn:
        assert conn.execute("SELECT count(*) FROM vocab WHERE word = 'taxes2025'").fetchone() == (0,)
        assert conn.execute("SELECT word FROM vocab WHERE word IN ('taxes', '2025') ORDER BY word").fetchall() == [
            ("2025",), ("taxes",)]
        spoken = decide(conn, "where are the home office receipts for my taxes 2025")
    assert spoken.spoken and spoken.notes == ["home/Taxes 2025.md"]


def test_a_possessive_in_a_file_name_is_not_a_word() -> None:
    """A title made a file name keeps an apostrophe's part as a word of its own: "Git's magic
    files" -> ``git-s-magic-files``. Joined, it made "gits" and "smagic", words of that note
    alone, so "git" found the note through a rare word as another form of it."""
    assert text.joined("git-s-magic-files") == []
    assert text.joined("don-t-panic, you-re-here, we-ve-moved, it-ll-do") == []
    # a short word before or after a hyphen still joins
    assert text.joined("t-shirt, e-mail, x-ray, wi-fi") == ["tshirt", "email", "xray", "wifi"]
    assert text.extra_words("Git's Magic Files", "git-s-magic-files") == []


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        ("18_LogSegments", {"logsegments": ["log", "segments"]}),
        ("42_ProducerIdempotency", {"produceridempotency": ["producer", "idempotency"]}),
        ("MinimumISR", {"minimumisr": ["minimum", "isr"]}),  # a run of capitals is one part
        ("XMLHttpRequest", {"xmlhttprequest": ["xml", "http", "request"]}),
        ("pullFromRemote", {"pullfromremote": ["pull", "from", "remote"]}),
        ("Airflow - KubernetesPodOperator", {"kubernetespodoperator": ["kubernetes", "pod", "operator"]}),
        # a letter case that styles a name is not words: parts of fewer than three letters
        ("iPhone", {}), ("macOS", {}), ("DeepSpeed - ZeRO", {"deepspeed": ["deep", "speed"]}), ("LaTeX", {}),
        ("snake_case_name", {}), ("word2vec", {}), ("HTTP", {}), ("Python3Tips", {}),
    ],
)
def test_camel_case_parts(name: str, parts: dict[str, list[str]]) -> None:
    assert text.camel_parts(name) == parts


def test_camel_case_parts_are_title_words_unless_english_knows_the_word() -> None:
    english = {"github", "javascript"}.__contains__
    assert text.extra_words("18_LogSegments", "udemy.kafka.18_LogSegments", english) == ["log", "segments", "udemy", "kafka"]
    assert text.extra_words("GitHub Actions and JavaScript", "", english) == []
    assert text.extra_words("18_LogSegments") == []  # only a note's names are read for them
    # a run of parts English knows is one word: "java" is another language
    assert text.extra_words("GitHubActions and JavaScriptTutorial", "", english) == ["github", "actions", "javascript", "tutorial"]
    assert text.camel_held(["git", "hub", "actions"], {"github", "actions"})
    assert not text.camel_held(["java", "script", "tutorial"], {"java", "tutorial"})


@pytest.mark.parametrize(
    ("message", "note"), [("ft65 squelch setting", "radio/yaesu.md"), ("mgs3 boss order", "games/stealth.md")]
)
def test_letter_digit_variants_match(folder: tuple[sqlite3.Connection, Path], message: str, note: str) -> None:
    assert first(folder[0], message) == note


def test_a_spaced_code_in_the_message_is_one_term(folder: tuple[sqlite3.Connection, Path]) -> None:
    conn = folder[0]
    q = build_query(conn, "ft 65 squelch", searchable_count(conn))
    assert [t.token for t in q.terms] == ["ft65", "squelch"]


def test_a_spaced_code_keeps_its_name_for_notes_that_hold_only_the_name(tmp_path: Path) -> None:
    """"postgres 16" is one term because one note holds "Postgres 16" (indexed joined as
    postgres16), but the runbook that names Postgres without the version still holds the
    message's word: the joined term's letters are a compound part of it."""
    vault = tmp_path / "vault"
    notes = dict(FILLER)
    notes["hosts/heron.md"] = "# heron\n\nThe home server: Debian, Postgres 16, 32 GB of memory.\n"
    notes["runbooks/postgres-upgrade.md"] = (
        "# Postgres major upgrade\n\nDump first, then pg_upgradecluster, then check the extensions.\n"
    )
    for rel, body in notes.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(body)
    conn = open_db(tmp_path / "n.db")
    sync(conn, vault)
    q = build_query(conn, "postgres 16 upgrade with pg_upgradecluster", searchable_count(conn))
    term = q.terms[0]
    assert term.token == "postgres16"
    assert [(a.word, a.how) for a in term.alternatives] == [("postgres16", "exact"), ("postgres", "compound")]
    assert first(conn, "postgres 16 upgrade with pg_upgradecluster") == "runbooks/postgres-upgrade.md"


# --- 4. numbers ------------------------------------------------------------------------


def test_a_year_in_few_notes_tells_them_apart(folder: tuple[sqlite3.Connection, Path]) -> None:
    assert first(folder[0], "what did I put for mileage in 2024") == "money/tax-2024.md"


def test_number_weight_follows_document_frequency() -> None:
    s = Settings()
    assert shape_weight("2024", 1, 300, s) == 1.0  # in one note of 300: a rare word
    assert shape_weight("2024", 40, 300, s) == s.number_weight  # in many notes: little
    assert shape_weight("2024", 0, 300, s) == s.number_weight  # in none: little
    assert shape_weight("p2571", 40, 300, s) == 1.0  # a part number keeps its weight


# --- 5. letters beyond diacritics ----------------------------------------------------------


def test_letters_fold_the_same_in_notes_and_messages() -> None:
    assert text.words("Große Straße Fæbelø Łódź Søndre Þingvellir Đakovo œuvre") == [
        "grosse", "strasse", "faebelo", "lodz", "sondre", "thingvellir", "dakovo", "oeuvre",
    ]  # fmt: skip
    nfd = unicodedata.normalize("NFD", "Ærøskøbing Łódź Crème Йошкар")
    assert text.words(nfd) == text.words("Ærøskøbing Łódź Crème Йошкар")


def test_a_note_with_such_letters_is_found_by_the_ascii_spelling(folder: tuple[sqlite3.Connection, Path]) -> None:
    assert first(folder[0], "hostel in lodz near the station") == "travel/Łódź.md"


# --- 6. word forms ---------------------------------------------------------------------


def test_another_form_of_a_word_finds_the_note(folder: tuple[sqlite3.Connection, Path]) -> None:
    conn = folder[0]
    assert first(conn, "how often do I descale the kettle") == "kitchen/kettle.md"
    alts = stemmed(conn, "descale", "en", Settings())
    assert {a.word for a in alts} == {"descaled", "descaling"}
    assert all(a.weight < 1.0 for a in alts)


def test_the_stem_itself_is_another_form(tmp_path: Path) -> None:
    """"cleaning" finds the note titled "How to clean the bathroom" through "clean", the word
    its stem is (the range read of the vocabulary began after the stem and left it out)."""
    notes = {
        "how-to-clean-bathroom.md": "# How to clean the bathroom\n\nSpray the surfaces, bleach the toilet.\n",
        "business-idea.md": "# Business idea\n\nA cleaning service, step by step: bathroom, kitchen, floors.\n",
        "open-jar.md": "# How to open a stuck jar\n\nRun the lid under hot water.\n",
    }
    with indexed_connection(tmp_path, notes) as conn:
        assert [(a.word, a.how) for a in stemmed(conn, "cleaning", "en", Settings())] == [("clean", "stemmed")]
        assert [a.word for a in stemmed(conn, "opening", "en", Settings())] == ["open"]
        ranking = rank(conn, build_query(conn, "steps for cleaning the bathroom", 3, Settings()))
        top = ranking.candidates[0]
        assert top.path == "how-to-clean-bathroom.md"
        assert {(h.word, h.place) for h in top.hits} == {("clean", "title"), ("bathroom", "title")}


def test_an_e_word_takes_s_not_es() -> None:
    """English writes -es after s, x, z, ch, sh and o only: "coffe" + "es" is no form of a
    word, and read as one it had kept the typo from being read as "coffee"."""
    assert text.inflections("coffe") == ["coffes"]
    assert text.inflections("box") == ["boxs", "boxes"]
    assert text.inflections("potato") == ["potatos", "potatoes"]
    assert text.inflections("boxes") == ["boxess", "boxeses", "box", "boxe"]
    assert "cak" not in text.inflections("cakes")


def test_a_typo_of_an_e_word_is_read_as_the_word(tmp_path: Path) -> None:
    notes = {
        "cold-brew.md": "# How to make cold brew coffee\n\nCoarse grind, 1:8, twelve hours in the fridge.\n",
        "beans.md": "# Tasted beans\n\nTwo coffees from Banka, both washed.\n",
    }
    with indexed_connection(tmp_path, notes) as conn:
        (term,) = [t for t in build_query(conn, "coffe", 2, Settings()).terms]
        assert "coffee" in {a.word for a in term.alternatives}
        assert ("coffees", "inflected") not in {(a.word, a.how) for a in term.alternatives}


def test_a_derived_word_is_not_another_form(folder: tuple[sqlite3.Connection, Path]) -> None:
    conn = folder[0]
    assert stemmed(conn, "economics", "en", Settings()) == []
    assert first(conn, "explain the economics of bank lending") is None


def test_calendar_short_forms() -> None:
    assert text.calendar_short("thursdays") == ("thu", "thur", "thurs")
    assert text.calendar_short("september") == ("sep", "sept")
    assert text.calendar_short("may") == () and text.calendar_short("mays") == ()
    assert text.calendar_short("thu") == () and text.calendar_short("kettles") == ()


def test_a_day_named_in_full_finds_the_note_that_writes_it_short(tmp_path: Path) -> None:
    """A rota written as a table says "Thu"; the message says "thursdays". Before, the rota
    held only "picks" and "nell" of the message and the note on Nell's school (which says
    "Thursday") came first."""
    notes = dict(FILLER)
    notes["kid/childcare-rota.md"] = ("# Childcare rota\n\n| day | pick-up |\n|---|---|\n| Mon | Tomasz |\n"
                                      "| Thu | Ama picks up Nell |\n")
    notes["kid/nell-school.md"] = "# Nell's school\n\nSwimming on Thursday; the bag goes in on Wednesday.\n"
    write(tmp_path / "v", notes)
    conn = open_db(tmp_path / "db")
    try:
        sync(conn, tmp_path / "v")
        ranking = rank(conn, build_query(conn, "who picks nell up on thursdays", searchable_count(conn)))
    finally:
        conn.close()
    top = ranking.candidates[0]
    assert top.path == "kid/childcare-rota.md"
    assert [(h.token, h.word) for h in top.hits] == [("picks", "picks"), ("nell", "nell"), ("thursdays", "thu")]


# --- 7. other languages ------------------------------------------------------------------


def test_a_german_message_finds_the_compound_of_a_german_note(folder: tuple[sqlite3.Connection, Path]) -> None:
    conn = folder[0]
    q = build_query(conn, "welches thermostat hat die heizung im bad", searchable_count(conn))
    assert q.language == "de"
    heizung = next(t for t in q.terms if t.token == "heizung")
    assert [(a.word, a.how) for a in heizung.alternatives] == [("fussbodenheizung", "compound")]
    assert first(conn, "welches thermostat hat die heizung im bad") == "haus/bad.md"


def test_everyday_words_of_another_language_are_not_rare(folder: tuple[sqlite3.Connection, Path]) -> None:
    assert first(folder[0], "kannst du das nochmal kürzer schreiben") is None


def test_a_french_message_drops_french_stopwords_and_joins_no_article_to_a_number(tmp_path: Path) -> None:
    """"les pneus de la 308": "les", "de" and "la" are no evidence (Snowball's French list) and
    "la 308" is not a model's name. Before, "la" was a term and the pair made "la308", a word of
    the one note that writes "de la 308", in place of "308" itself."""
    notes = {**FILLER, "auto/peugeot-308.md": "# Peugeot 308\n\nPneus hiver montés en novembre. Contrôle technique "
             "de la 308 en mars.\n", "auto/clio.md": "# Clio\n\nLes pneus de la Clio sont neufs, la vidange est faite.\n"}
    with indexed_connection(tmp_path, notes) as conn:
        q = build_query(conn, "les pneus de la 308", searchable_count(conn))
        english = build_query(conn, "the tyres at 308 kpa", searchable_count(conn))
    assert q.language == "fr"
    assert [t.token for t in q.terms] == ["pneus", "308"]
    assert q.stopwords == ["les", "de", "la"]
    # an English message keeps its own list only: "at" is dropped, nothing joins it to the number
    assert english.language == "en" and [t.token for t in english.terms] == ["tyres", "308", "kpa"]


def test_a_french_word_finds_its_accented_form_whose_folded_stem_differs(tmp_path: Path) -> None:
    """Words are stemmed folded, and Snowball's French rules read accents: "révisée" folds to
    "revisee", stemmed "revise", while "révision" is stemmed "revis". The two were not read as
    forms of one word, and the message named nothing."""
    notes = {**FILLER, "maison/chaudiere.md": "# Entretien de la chaudière\n\nLa chaudière est révisée chaque "
             "année en septembre par le chauffagiste.\n"}
    with indexed_connection(tmp_path, notes) as conn:
        q = build_query(conn, "quand passe la chaudière en révision ?", searchable_count(conn))
        english = stemmed(conn, "revision", "en", Settings())
    revision = next(t for t in q.terms if t.token == "revision")
    assert q.language == "fr"
    assert [(a.word, a.how) for a in revision.alternatives] == [("revisee", "stemmed")]
    # English keeps its stems exact: "revision" is not another form of "revisee" there
    assert english == []


def test_a_typo_whose_tail_is_an_english_word_of_the_notes_is_still_corrected(tmp_path: Path) -> None:
    """"sauvgarde" ends in "garde", a word of another note and of English ("avant-garde"). That
    tail was taken as a compound's part, then dropped as an English word, and the token was left
    with no reading at all: no correction was tried."""
    notes = {**FILLER, "serveur/sauvegarde.md": "# Sauvegarde du serveur\n\nLa sauvegarde se fait avec restic "
             "chaque nuit vers le NAS.\n", "famille/garde.md": "# Garde alternée\n\nPlanning de garde des enfants.\n"}
    with indexed_connection(tmp_path, notes) as conn:
        q = build_query(conn, "ma sauvgarde a échoué cette nuit", searchable_count(conn))
        spoken = first(conn, "ma sauvgarde a échoué cette nuit")
    assert q.corrections == [("sauvgarde", "sauvegarde")]
    assert spoken == "serveur/sauvegarde.md"


def test_detect_language_needs_more_than_one_word() -> None:
    assert detect_language({}, {"mer": {"fr": 5.2}}, ["mer"]) == "en"
    # English stopwords are in other languages' lists of web text too: no vote for them
    pump = {"the": {"da": 5.59, "nb": 5.63}, "and": {"da": 5.19, "nb": 5.18}, "for": {"da": 7.08, "nb": 7.17},
            "timer": {"da": 5.41, "nb": 5.36}}
    english = {"the": 7.73, "and": 7.41, "for": 7.01, "timer": 3.68}
    tokens = "the pump timer relay and sensor for the filter sponge".split()
    assert detect_language(english, pump, tokens) == "en"
    # as many everyday words of French as of Spanish: the language where they are commoner
    both = {"les": {"fr": 7.25, "es": 5.88}, "de": {"es": 7.81, "fr": 7.68}, "la": {"es": 7.56, "fr": 7.43}}
    assert detect_language({}, both, ["les", "pneus", "de", "la"]) == "fr"
    assert detect_language({"die": 5.1}, {"die": {"de": 7.5}, "im": {"de": 6.9}, "bad": {"de": 5.1}}, ["die", "im", "bad"]) == "de"


# --- 8. English words are not typos ---------------------------------------------------------


def test_an_english_word_is_not_corrected_into_a_note_word(folder: tuple[sqlite3.Connection, Path]) -> None:
    conn = folder[0]
    n = searchable_count(conn)
    assert build_query(conn, "separating the yolk", n).corrections == []
    assert build_query(conn, "the sheild prop", n).corrections == [("sheild", "shield")]


# --- 9. templates ----------------------------------------------------------------------


def test_templates_are_skipped_and_reported(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    write(root, {**FILLER, **{k: v for k, v in NOTES.items() if k.startswith(("Templates/", "Inbox/", "garden/"))}})
    conn = open_db(tmp_path / "t.db")
    stats = sync(conn, root)
    assert sorted(stats.skipped) == ["Inbox/Meeting.md", "Templates/"]
    assert conn.execute("SELECT searchable FROM notes WHERE path = 'Inbox/Meeting.md'").fetchone() == (0,)
    assert first(conn, "when did I last repot the fig") == "garden/fig.md"


def test_logseq_s_copies_of_pages_are_skipped(tmp_path: Path) -> None:
    """A Logseq graph keeps backups of its pages under ``logseq/bak/`` and older versions under
    ``logseq/version-files/``: copies, not notes; the graph's pages and journals are indexed."""
    root = tmp_path / "graph"
    write(root, {
        **FILLER,
        "pages/Kombucha.md": "alias:: scoby\n\n- Second ferment with ginger, 3 days on the counter.\n",
        "journals/2025_05_08.md": "- Bottled the kombucha.\n",
        "logseq/bak/pages/Kombucha/2025-05-07T22_45_02.766Z.Desktop.md": "- Second ferment with ginger.\n",
        "logseq/version-files/local/pages/Kombucha.md": "- Second ferment, 2 days.\n",
    })
    conn = open_db(tmp_path / "t.db")
    stats = sync(conn, root)
    assert sorted(stats.skipped) == ["logseq/bak/", "logseq/version-files/"]
    paths = {p for (p,) in conn.execute("SELECT path FROM notes")}
    assert {"pages/Kombucha.md", "journals/2025_05_08.md"} <= paths and not any(p.startswith("logseq/") for p in paths)
    assert first(conn, "scoby") == "pages/Kombucha.md"  # its alias, a name of the note


NOTION = {
    "Home 1111222233334444555566667777888a.md": "# Home\n\n[Projects](Home%201111222233334444555566667777888a/Projects%208c3e1f2a9b7d4e6f8a1b2c3d4e5f6a7b.md)\n",
    "Home 1111222233334444555566667777888a/Projects 8c3e1f2a9b7d4e6f8a1b2c3d4e5f6a7b.md": "# Projects\n\nWhat is on the go around the house.\n",
    "Home 1111222233334444555566667777888a/Projects 8c3e1f2a9b7d4e6f8a1b2c3d4e5f6a7b/Garden shed 1a2b3c4d5e6f708192a3b4c5d6e7f809.md": (
        "# Garden shed\n\nStatus: In progress\n\nFelt roof needs replacing before winter; timber from the yard on Quay Street.\n"),
    "Home 1111222233334444555566667777888a/Boiler service 0f1e2d3c4b5a69788796a5b4c3d2e1f0.md": (
        "Status: Booked\n\nAnnual check with Hales in March, last one cost 85 pounds.\n"),
}


def test_notion_page_ids_are_not_words_of_a_note(tmp_path: Path) -> None:
    """Notion's export writes a space and the page's 32-digit hex ID after every file and folder
    name: the note is named, titled and shown by its name alone, and the message "boiler
    service" holds the whole name of a page that has no H1 (the full-name route)."""
    root = tmp_path / "export"
    write(root, {**FILLER, **NOTION})
    conn = open_db(tmp_path / "t.db")
    sync(conn, root)
    shed = "Home 1111222233334444555566667777888a/Projects 8c3e1f2a9b7d4e6f8a1b2c3d4e5f6a7b/Garden shed 1a2b3c4d5e6f708192a3b4c5d6e7f809.md"
    boiler = "Home 1111222233334444555566667777888a/Boiler service 0f1e2d3c4b5a69788796a5b4c3d2e1f0.md"
    titles = dict(conn.execute("SELECT path, title FROM notes WHERE path LIKE 'Home%'").fetchall())
    assert (titles[shed], titles[boiler]) == ("Garden shed", "Boiler service")
    # the IDs are in no column of the index: not title words, not folder (heading) words
    for page_id in ("1a2b3c4d5e6f708192a3b4c5d6e7f809", "8c3e1f2a9b7d4e6f8a1b2c3d4e5f6a7b", "1111222233334444555566667777888a"):
        assert conn.execute("SELECT count(*) FROM notes_fts WHERE notes_fts MATCH ?", (f'"{page_id}"',)).fetchone() == (0,)
    d = decide(conn, "boiler service")
    assert (d.spoken, d.notes) == (True, [boiler])
    assert '"Boiler service" (' in d.line
    d = decide(conn, "garden shed roof")
    assert d.notes == [shed] and d.line.startswith('Notes that may cover this: "Garden shed" (')


def test_a_number_of_the_message_does_not_name_a_journal_of_that_date(tmp_path: Path) -> None:
    """In a small graph a journal's date numbers are rare (one note holds "15"), and a journal's
    names hold no other word: "what is 15 times 3" named the journal of the 15th by the rare
    route. The rare route now needs half of such a title's numbers, as it needs half of a
    title's words: the date typed whole still names the journal."""
    root = tmp_path / "graph"
    write(root, {
        "journals/2025_01_15.md": "- Plumber came about the boiler, new pressure valve fitted.\n",
        "pages/Sourdough starter.md": "- Fed with rye flour twice a day, kept at 24 degrees.\n",
        "pages/Bike maintenance.md": "- Chain lube in winter: wet lube, every 200 km.\n",
    })
    conn = open_db(tmp_path / "t.db")
    sync(conn, root)
    for message in ("what is 15 times 3", "15"):
        d = decide(conn, message)
        assert (d.spoken, d.route) == (False, "weak"), message
        assert any("of the numbers of the note's title" in r for r in d.reasons), d.reasons
    d = decide(conn, "what did i write on 2025-01-15")
    assert (d.spoken, d.notes) == (True, ["journals/2025_01_15.md"])


def joplin_item(title: str, body: str, item_id: str, item_type: int, **fields: str) -> str:
    """An item as Joplin's sync folder writes it (``BaseItem.serialize``): title, body, then one
    property a line, ``type_`` last."""
    props = {"id": item_id, "parent_id": "15fa3f4abe89429b8836cdc5859fe74b", "created_time": "2025-04-22T09:41:33.759Z",
             "updated_time": "2025-04-23T07:36:17.907Z", "is_conflict": "0", "latitude": "21.02776440",
             "longitude": "105.83415980", "author": "", "source_url": "", "is_todo": "0",
             "source": "joplin-desktop", "source_application": "net.cozic.joplin-desktop", "encryption_applied": "0",
             "markup_language": "1", **fields}
    lines = "\n".join(f"{k}: {v}" for k, v in props.items())
    return f"{title}\n\n{body}\n\n{lines}\ntype_: {item_type}" if body else f"{title}\n\n{lines}\ntype_: {item_type}"


def test_joplin_s_sync_folder_reads_as_its_notes(tmp_path: Path) -> None:
    """Joplin's "File system" sync target keeps each note, notebook, tag and attachment as a
    ``<32 hex digits>.md`` file: title, body, then the app's properties. A note is titled by
    its first line, its properties are no words of it, and the other items are no notes."""
    root = tmp_path / "joplin"
    mail = "b90237a517fb4d57b615778be19db834.md"
    write(root, {
        **FILLER,
        mail: joplin_item("Mail not arriving from some senders",
                          "## Causes\n\n- The sender has no reverse DNS (PTR) or is on a blacklist.\n- Check with `dig -x IP`.",
                          mail[:-3], 1),
        "4d398a4c87c24c4fb0fda00f06c495ba.md": joplin_item("Work", "", "4d398a4c87c24c4fb0fda00f06c495ba", 2, icon=""),
        "a69e065caf8c42719c7c0b8e7eafc9f9.md": joplin_item("blacklist-checker.png", "", "a69e065caf8c42719c7c0b8e7eafc9f9", 4,
                                                             mime="image/png", filename="", file_extension="png"),
        "7e5e0c7202414cd38e2db12e2e92ac91.md": joplin_item("", "", "7e5e0c7202414cd38e2db12e2e92ac91", 1,
                                                             encryption_applied="1", encryption_cipher_text="JED01..."),
    })
    conn = open_db(tmp_path / "t.db")
    sync(conn, root)
    rows = conn.execute("SELECT path, title, headings, body FROM notes WHERE searchable AND path NOT LIKE 'misc/%'").fetchall()
    assert rows == [(mail, "Mail not arriving from some senders", "Causes",
                     "The sender has no reverse DNS (PTR) or is on a blacklist.\nCheck with dig -x IP.")]
    for word in ("latitude", "cozic", "joplin", "png", "mime"):
        assert conn.execute("SELECT count(*) FROM notes_fts WHERE notes_fts MATCH ?", (word,)).fetchone() == (0,), word
    d = decide(conn, "mail not arriving from some senders, is it the blacklist?")
    assert (d.spoken, d.notes) == (True, [mail])
    assert d.line.startswith('Notes that may cover this: "Mail not arriving from some senders" (')


CAMEL = {
    "notes/udemy.kafka.18_LogSegments.md": (
        "---\ntitle: 18_LogSegments\n---\nEach partition is written as a log split into segments; the active "
        "segment takes new records and older ones are closed. Kafka rolls a new segment at 1 GB or after a week.\n"),
    "notes/udemy.kafka.15_KafkaTopicsAndPartitions.md": (
        "---\ntitle: 15_KafkaTopicsAndPartitions\n---\nA topic is split into partitions; each partition is an "
        "ordered log, stored on disk as segmented files. Kafka keys decide the partition.\n"),
    "notes/udemy.kafka.20_MessageIndex.md": (
        "---\ntitle: 20_MessageIndex\n---\nKafka keeps an offset index and a time index beside each log segment "
        "so a consumer can seek without scanning.\n"),
    "notes/tools.ci.github_actions.md": (
        "---\ntitle: GitHub Actions\n---\nWorkflows live in .github/workflows; a job runs on a runner. Cache pip "
        "downloads with actions/cache.\n"),
    "notes/tools.git.rebase.md": "---\ntitle: Git rebase\n---\nInteractive rebase squashes commits before a merge.\n",
}


def test_camel_case_names_are_read_as_their_words(tmp_path: Path) -> None:
    """A name written in camel case ("18_LogSegments", as course notes and code name things) is
    found by its words typed apart: they are title words of the note, and the message holds
    the name. A camel-case name English knows as one word ("GitHub") is not its parts: "git"
    is no title word of the GitHub Actions note."""
    root = tmp_path / "vault"
    write(root, {**FILLER, **CAMEL})
    conn = open_db(tmp_path / "t.db")
    sync(conn, root)
    extra = dict(conn.execute("SELECT path, title_extra FROM notes WHERE path LIKE 'notes/%'").fetchall())
    assert {"log", "segments"} <= set(extra["notes/udemy.kafka.18_LogSegments.md"].split())
    assert {"topics", "partitions"} <= set(extra["notes/udemy.kafka.15_KafkaTopicsAndPartitions.md"].split())
    assert "git" not in extra["notes/tools.ci.github_actions.md"].split()
    d = decide(conn, "kafka log segments")
    assert (d.spoken, d.notes[:1]) == (True, ["notes/udemy.kafka.18_LogSegments.md"])
    assert first(conn, "git rebase squash") == "notes/tools.git.rebase.md"


BRANDS = {
    "StackOverflow.md": "# StackOverflow\n\nMy setup and configuration notes for StackOverflow: saved searches, tag filters.\n",
    "PowerShell.md": "# PowerShell\n\nMy setup and configuration notes for PowerShell: profile, modules, prompt.\n",
    "Java.md": "# Java\n\nJVM flags, generics, Maven settings.\n",
    "JavaScriptTutorial.md": "# JavaScriptTutorial\n\nClosures, promises and the event loop, chapter by chapter.\n",
    "kafka/18_LogSegments.md": "# 18_LogSegments\n\nEach partition is a log split into files; the active one takes new records.\n",
}


def test_a_camel_case_name_is_split_the_same_whoever_indexed_first(tmp_path: Path) -> None:
    """Whether a camel-case name is its words depends on English's rare words ("StackOverflow"
    is a word English knows), which the first full sync fills in. A database the hook's sync
    made first splits no name; the full sync that fills the rare words reads those notes again,
    so the rows end as a database indexed by ``notesdb index`` from the start: "stack overflow
    in my recursive function" names no note at any point, "kafka log segments" names its note
    once the rare words are in, and "java tutorial" never names the JavaScript tutorial."""
    import time

    root = tmp_path / "vault"
    write(root, {**FILLER, **BRANDS})
    conn = open_db(tmp_path / "hook-first.db")
    sync(conn, root, deadline=time.monotonic() + 60)  # as the hook syncs: the rare words not filled
    extra = dict(conn.execute("SELECT path, title_extra FROM notes").fetchall())
    assert "stack" not in extra["StackOverflow.md"].split() and "log" not in extra["kafka/18_LogSegments.md"].split()
    assert first(conn, "how do i fix a stack overflow in my recursive function") is None
    sync(conn, root)  # a full sync fills them and reads the camel-case names again
    fresh = open_db(tmp_path / "index-first.db")
    sync(fresh, root)
    rows = "SELECT path, title_extra FROM notes ORDER BY path"
    assert conn.execute(rows).fetchall() == fresh.execute(rows).fetchall()
    extra = dict(conn.execute("SELECT path, title_extra FROM notes").fetchall())
    assert {"log", "segments"} <= set(extra["kafka/18_LogSegments.md"].split())
    assert not {"stack", "overflow", "power", "shell", "java", "script"} & set(" ".join(extra.values()).split())
    for c in (conn, fresh):
        assert first(c, "how do i fix a stack overflow in my recursive function") is None
        assert first(c, "kafka log segments") == "kafka/18_LogSegments.md"
        assert first(c, "java tutorial") != "JavaScriptTutorial.md"


def test_skip_patterns() -> None:
    skip = ("MEMORY.md", "Templates/", "archive/*", "*-archive.md")
    assert skipped_by("templates", skip, folder=True)
    assert skipped_by("MEMORY.md", skip) and not skipped_by("team/MEMORY.md", skip)
    assert skipped_by("archive/2023-log.md", skip) and skipped_by("MEMORY-archive.md", skip)
    assert not skipped_by("garden/fig.md", skip)


# --- 10. catalogues ------------------------------------------------------------------------


def test_a_catalogue_mention_cannot_beat_the_note_about_it(folder: tuple[sqlite3.Connection, Path]) -> None:
    conn = folder[0]
    q = build_query(conn, "compressor valve seized, pressure gone", searchable_count(conn))
    ranking = rank(conn, q)
    by_path = {c.path: c for c in ranking.candidates}
    assert ranking.candidates[0].path == "workshop/compressor.md"
    # the index holds the same four words, each once among 300: a small share of their weight
    assert by_path["Index.md"].evidence < 0.5 * by_path["workshop/compressor.md"].evidence


def test_a_heading_among_sixty_weighs_less_than_one_among_two(folder: tuple[sqlite3.Connection, Path]) -> None:
    """A word in the headings of a long note counts by the headings' BM25 term weight, read
    as a share of ``headings_saturation``: the book summary's headings are about 12 times the
    average note's, so its one heading on the subject keeps 0.22 of what the hive note's
    keeps (BM25 term weight 2.2 / (1 + 1.2 x (0.25 + 0.75 x 11.8)) = 0.18, over 0.85)."""
    conn = folder[0]
    q = build_query(conn, "beekeeping", searchable_count(conn))
    by_path = {c.path: c for c in rank(conn, q).candidates}
    book, hives = by_path["books/Field guide.md"], by_path["garden/hives.md"]
    assert [h.place for h in book.hits] == [h.place for h in hives.hits] == ["headings"]
    assert book.evidence / hives.evidence == pytest.approx(0.22, abs=0.01)
    # read whole (a saturation no term weight reaches below), the two would be equal
    whole = replace(Settings(), headings_saturation=1e-9)
    by_path = {c.path: c for c in rank(conn, q, settings=whole).candidates}
    assert by_path["books/Field guide.md"].evidence == pytest.approx(by_path["garden/hives.md"].evidence)


# --- 11. stubs ---------------------------------------------------------------------------


def test_the_complete_note_beats_its_stub(folder: tuple[sqlite3.Connection, Path]) -> None:
    assert first(folder[0], "dishwasher E24 again what did I do") == "home/dishwasher-error-codes.md"


# --- 12. tiny folders --------------------------------------------------------------------


def test_a_folder_of_one_note_answers_for_it(tmp_path: Path) -> None:
    write(tmp_path / "notes", {"maya.md": "# Maya\n\nVisa expires 14 March 2026; renewal needs the bank letter.\n"})
    conn = open_db(tmp_path / "one.db")
    sync(conn, tmp_path / "notes")
    assert first(conn, "when does maya's visa expire") == "maya.md"
    assert first(conn, "what's the capital of peru") is None


# --- 13. empty notes ---------------------------------------------------------------------


def test_empty_notes_change_nothing(tmp_path: Path) -> None:
    notes = {**FILLER, **{k: NOTES[k] for k in ("kitchen/kettle.md", "money/tax-2023.md", "money/tax-2024.md")}}
    write(tmp_path / "a", notes)
    write(tmp_path / "b", notes | {f"Untitled {i}.md": "" for i in range(200)} | {"Daily/2025-01-01.md": "# 2025-01-01\n"})
    a, b = open_db(tmp_path / "a.db"), open_db(tmp_path / "b.db")
    sync(a, tmp_path / "a")
    sync(b, tmp_path / "b")
    assert searchable_count(a) == searchable_count(b) == len(notes)
    assert a.execute("SELECT word, doc_freq FROM vocab ORDER BY word").fetchall() == b.execute(
        "SELECT word, doc_freq FROM vocab ORDER BY word"
    ).fetchall()
    for message in ("how often do I descale", "mileage in 2024", "untitled"):
        da, db_ = decide(a, message), decide(b, message)
        assert (da.notes, da.route, da.top_scores) == (db_.notes, db_.route, db_.top_scores)


def test_front_matter_that_fails_to_load_gives_no_title(tmp_path: Path) -> None:
    note = "---\ntitle: [unclosed\naliases: foo\n---\nbody about xylophones\n"

    with indexed_connection(tmp_path, {"music/xylophone-care.md": note}) as conn:
        title, problems = conn.execute("SELECT title, problems FROM notes").fetchone()
    assert title == "xylophone care"
    assert "malformed YAML front matter" in problems

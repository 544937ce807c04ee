"""Tests for notesdb.db, notesdb.sync and notesdb.vocab: opening the database and keeping it in line with a notes folder."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import sys
import time
from pathlib import Path

import pytest

from notesdb.errors import NotesFolderEmpty, NotesFolderMissing
from notesdb import text
from notesdb.text import tokenize
from notesdb.db import note_count, open_db
from notesdb.sync import sync
from notesdb.vocab import rebuild_vocab


@pytest.fixture
def synced(indexed: tuple[Path, Path]) -> tuple[Path, sqlite3.Connection]:
    """The vault and an open connection to its up-to-date index."""
    vault, db = indexed
    conn = open_db(db)
    stats = sync(conn, vault)
    assert not stats.changed, "the copied index should already be in line with the vault"
    return vault, conn

SEARCH = (
    "SELECT notes.path FROM notes_fts JOIN notes ON notes.id = notes_fts.rowid "
    "WHERE notes_fts MATCH ? ORDER BY rank"
)


def search(conn: sqlite3.Connection, word: str) -> list[str]:
    """Paths of the notes FTS5 finds for one word, best first."""
    return [p for (p,) in conn.execute(SEARCH, (f'"{word}"',))]


def paths(conn: sqlite3.Connection) -> set[str]:
    return {p for (p,) in conn.execute("SELECT path FROM notes")}


def vocab(conn: sqlite3.Connection) -> list[tuple]:
    return conn.execute("SELECT * FROM vocab ORDER BY word").fetchall()


def vocab_row(conn: sqlite3.Connection, word: str) -> tuple[int] | None:
    return conn.execute(
        "SELECT doc_freq FROM vocab WHERE word = ?",
        (word,),
    ).fetchone()


def write(path: Path, data: str | bytes) -> None:
    """Write a note and move its mtime on, so that a stat-only sync must notice."""
    before = path.stat().st_mtime_ns if path.exists() else None
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    if before is not None:
        os.utime(path, ns=(before + 10**9, before + 10**9))


def integrity_check(conn: sqlite3.Connection) -> None:
    conn.execute("INSERT INTO notes_fts(notes_fts, rank) VALUES ('integrity-check', 1)")


def expected_notes(root: Path) -> set[str]:
    """Every Markdown file under root, outside hidden folders, but the root MEMORY.md."""
    found = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.startswith(".") or not name.lower().endswith((".md", ".markdown")):
                continue
            rel = Path(folder, name).relative_to(root).as_posix()
            if rel != "MEMORY.md":
                found.add(rel)
    return found


# --- a first sync -------------------------------------------------------------


def test_every_note_but_memory_is_indexed(vault: Path, db_path: Path) -> None:
    conn = open_db(db_path)
    stats = sync(conn, vault)
    expected = expected_notes(vault)
    assert len(expected) == 63  # 64 files and the root MEMORY.md (tests/data/README.md)
    assert paths(conn) == expected
    assert sorted(stats.added) == sorted(expected)
    assert stats.scanned == len(expected)
    assert (stats.modified, stats.renamed, stats.removed, stats.incomplete) == ([], [], [], False)
    assert "MEMORY.md" not in paths(conn)
    assert conn.execute("SELECT value FROM meta WHERE key = 'notes_root'").fetchone()[0] == str(vault.resolve())
    assert stats.problems == {}  # a BOM and CRLF line ends are no problem


@pytest.mark.parametrize(
    "rel, is_note",
    [
        (".obsidian/workspace.md", False),  # editor settings folder
        (".git/COMMIT_NOTES.md", False),  # version control folder
        (".trash/old-idea.md", False),  # Obsidian's trash
        ("projects/.draft.md", False),  # a hidden file in a visible folder
        ("inbox/idea.markdown", True),  # the long extension
        ("inbox/LOUD.MD", True),  # extensions are case-insensitive
        ("inbox/notes.txt", False),  # not Markdown
        ("inbox/MEMORY.md", True),  # MEMORY.md is skipped only at the root
    ],
)
def test_which_files_are_notes(synced: tuple[Path, sqlite3.Connection], rel: str, is_note: bool) -> None:
    vault, conn = synced
    write(vault / rel, "# Quokka sightings\n\nquokka\n")
    stats = sync(conn, vault)
    assert stats.added == ([rel] if is_note else [])
    assert (rel in paths(conn)) == is_note
    assert search(conn, "quokka") == ([rel] if is_note else [])


def test_missing_folder_raises(tmp_path: Path, db_path: Path) -> None:
    with pytest.raises(NotesFolderMissing, match="notes folder not found"):
        sync(open_db(db_path), tmp_path / "nowhere")


# --- changes after the first sync ---------------------------------------------


def test_edit_is_reflected(synced: tuple[Path, sqlite3.Connection]) -> None:
    vault, conn = synced
    note = vault / "home" / "boiler-worcester.md"
    rowid = conn.execute("SELECT id FROM notes WHERE path = 'home/boiler-worcester.md'").fetchone()[0]
    assert search(conn, "greenstar") == ["home/boiler-worcester.md"]
    write(note, note.read_text().replace("Greenstar", "zorbitron relay"))
    stats = sync(conn, vault)
    assert (stats.modified, stats.added, stats.removed, stats.renamed) == (["home/boiler-worcester.md"], [], [], [])
    assert search(conn, "zorbitron") == ["home/boiler-worcester.md"]
    assert search(conn, "greenstar") == []
    assert conn.execute("SELECT id FROM notes WHERE path = 'home/boiler-worcester.md'").fetchone()[0] == rowid


def test_add_is_reflected(synced: tuple[Path, sqlite3.Connection]) -> None:
    vault, conn = synced
    n = note_count(conn)
    write(vault / "home" / "bread.md", "# Sourdough\n\nFeed the levain at 1:5:5.\n")
    stats = sync(conn, vault)
    assert stats.added == ["home/bread.md"]
    assert note_count(conn) == n + 1
    assert search(conn, "levain") == ["home/bread.md"]
    assert conn.execute("SELECT title FROM notes WHERE path = 'home/bread.md'").fetchone()[0] == "Sourdough"


def test_rename_keeps_the_row(synced: tuple[Path, sqlite3.Connection]) -> None:
    vault, conn = synced
    before = conn.execute("SELECT id, title, hash FROM notes WHERE path = 'home/boiler-worcester.md'").fetchone()
    (vault / "archive").mkdir()
    os.rename(vault / "home" / "boiler-worcester.md", vault / "archive" / "boiler-worcester-v1.md")
    stats = sync(conn, vault)
    assert stats.renamed == [("home/boiler-worcester.md", "archive/boiler-worcester-v1.md")]
    assert (stats.added, stats.removed, stats.modified) == ([], [], [])
    after = conn.execute("SELECT id, title, hash FROM notes WHERE path = 'archive/boiler-worcester-v1.md'").fetchone()
    assert after == before  # same rowid, same content
    assert search(conn, "greenstar") == ["archive/boiler-worcester-v1.md"]
    assert "home/boiler-worcester.md" not in paths(conn)


def test_a_renamed_note_takes_its_title_and_folder_words_from_its_new_path(
    synced: tuple[Path, sqlite3.Connection],
) -> None:
    """A note titled only by its file name, renamed and moved: the title and the folder words
    come from the new path, as they would on a fresh index, and the rowid stays."""
    vault, conn = synced
    write(vault / "home" / "bins.md", "Blue bin week: paper and card.\n")
    sync(conn, vault)
    rowid = conn.execute("SELECT id FROM notes WHERE path = 'home/bins.md'").fetchone()[0]
    bins = vocab_row(conn, "bins")[0]
    (vault / "kitchen").mkdir()
    os.rename(vault / "home" / "bins.md", vault / "kitchen" / "bin-collection.md")
    stats = sync(conn, vault)
    assert (stats.renamed, stats.added, stats.removed, stats.modified) == (
        [("home/bins.md", "kitchen/bin-collection.md")], [], [], []
    )
    row = conn.execute("SELECT id, title FROM notes WHERE path = 'kitchen/bin-collection.md'").fetchone()
    assert row == (rowid, "bin collection")
    assert search(conn, "collection") == ["kitchen/bin-collection.md"]
    assert "kitchen/bin-collection.md" in search(conn, "kitchen")
    assert vocab_row(conn, "bins") == (bins - 1,)  # the old file name's word is counted out
    assert vocab_row(conn, "collection") is not None
    fresh = open_db(vault.parent / "fresh.db")
    sync(fresh, vault)
    assert fresh.execute(
        "SELECT title, headings_extra FROM notes WHERE path = 'kitchen/bin-collection.md'"
    ).fetchone() == conn.execute(
        "SELECT title, headings_extra FROM notes WHERE path = 'kitchen/bin-collection.md'"
    ).fetchone()


def test_delete_is_reflected(synced: tuple[Path, sqlite3.Connection]) -> None:
    vault, conn = synced
    n = note_count(conn)
    (vault / "home" / "boiler-worcester.md").unlink()
    stats = sync(conn, vault)
    assert stats.removed == ["home/boiler-worcester.md"]
    assert note_count(conn) == n - 1
    assert search(conn, "greenstar") == []
    assert vocab_row(conn, "greenstar") is None  # the only note holding it is gone


def test_same_bytes_new_mtime_is_not_reparsed(synced: tuple[Path, sqlite3.Connection]) -> None:
    vault, conn = synced
    note = vault / "home" / "boiler-worcester.md"
    write(note, note.read_bytes())
    stats = sync(conn, vault)
    assert not stats.changed
    mtime = conn.execute("SELECT mtime_ns FROM notes WHERE path = 'home/boiler-worcester.md'").fetchone()[0]
    assert mtime == note.stat().st_mtime_ns  # recorded, so the next sync does not read it again


class OpenedFiles:
    """Files opened while active, seen through the interpreter's audit events."""

    installed = False
    active: list[str] | None = None

    @classmethod
    def hook(cls, event: str, args: tuple) -> None:
        if cls.active is not None and event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            cls.active.append(os.fsdecode(args[0]))

    def __enter__(self) -> list[str]:
        if not OpenedFiles.installed:
            sys.addaudithook(OpenedFiles.hook)
            OpenedFiles.installed = True
        OpenedFiles.active = []
        return OpenedFiles.active

    def __exit__(self, *exc: object) -> None:
        OpenedFiles.active = None


def test_no_change_sync_opens_no_file(synced: tuple[Path, sqlite3.Connection]) -> None:
    vault, conn = synced
    write(vault / "home" / "boiler-worcester.md", "# boiler\n\nrewritten\n")
    with OpenedFiles() as opened:
        assert sync(conn, vault).modified == ["home/boiler-worcester.md"]
    assert str(vault / "home" / "boiler-worcester.md") in opened  # the audit hook does see reads
    with OpenedFiles() as opened:
        stats = sync(conn, vault)
    assert not stats.changed
    assert (stats.added, stats.modified, stats.renamed, stats.removed, stats.problems) == ([], [], [], [], {})
    assert [p for p in opened if p.startswith(str(vault))] == []


# --- the vocabulary -----------------------------------------------------------


def test_vocab_counts_follow_a_title_word(synced: tuple[Path, sqlite3.Connection]) -> None:
    vault, conn = synced
    note = vault / "home" / "boiler-worcester.md"
    assert "hens" not in tokenize(note.read_text())
    before = vocab_row(conn, "hens")
    write(note, note.read_text().replace("name: boiler-worcester\n", "name: boiler-worcester hens\n", 1))
    sync(conn, vault)
    (df,) = before
    assert vocab_row(conn, "hens") == (df + 1,)
    note.unlink()
    sync(conn, vault)
    assert vocab_row(conn, "hens") == before


def test_vocab_after_incremental_syncs_equals_a_rebuild(synced: tuple[Path, sqlite3.Connection]) -> None:
    vault, conn = synced
    hens = vault / "pets" / "hens.md"
    write(hens, hens.read_text().replace("Food:", "Food, with the quokka:"))  # edit the body
    write(vault / "home" / "quokka.md", "---\ntitle: Quokka\ntags: [quokka, hens]\n---\n# Quokka\n")  # add
    (vault / "home" / "boiler-worcester.md").unlink()  # delete
    os.rename(vault / "people" / "kofi.md", vault / "people" / "kofi-b.md")  # rename
    sync(conn, vault)
    write(vault / "home" / "quokka.md", "# Not a quokka any more\n\nwombat\n")  # edit the new one
    (vault / "recipes" / "pierogi.md").unlink()
    sync(conn, vault)
    incremental = vocab(conn)
    assert rebuild_vocab(conn) == len(incremental)
    assert vocab(conn) == incremental


def test_vocab_matches_what_fts5_indexed(indexed: tuple[Path, Path]) -> None:
    """Every word FTS5 indexed is in vocab with the same document count."""
    vault, db = indexed
    (vault / "studio-mic.md").write_text("# Studio mic\n\nThe Røde NT-USB sits on the boom arm.\n")
    conn = open_db(db)
    sync(conn, vault)
    conn.execute("CREATE VIRTUAL TABLE temp.fts_rows USING fts5vocab(main, 'notes_fts', 'row')")
    fts = dict(conn.execute("SELECT term, doc FROM temp.fts_rows"))
    ours = dict(conn.execute("SELECT word, doc_freq FROM vocab"))
    # U+1F37E (Unicode 8.0) is newer than SQLite's unicode61 tables, which read it as a letter
    # and a word with letters that FTS5 keeps (ø, ß) is searched by its spelled-out form
    only_fts = {w for w in fts if w not in ours}
    assert only_fts <= {"🍾🍾"} | {w for w in only_fts if text.spell(w) != w and text.spell(w) in ours}
    assert "rode" in ours  # "røde"
    assert set(ours) <= set(fts)
    for w, df in ours.items():
        assert df == fts[w], w


# --- files that cannot be read well -------------------------------------------

BAD_FILES = [
    # front matter YAML cannot parse: indexed from the rest
    ("bad-yaml.md", b"---\ntitle: [unclosed\n---\nquokka body\n", "malformed YAML front matter: "),
    # Latin-1 bytes: read as Windows-1252, and said
    ("latin1.md", b"# Caf\xe9 quokka\n\nprix \xe0 la carte\n", "not UTF-8: read as Windows-1252 (Latin-1)"),
    # UTF-8 with a stray byte: that byte replaced, the rest indexed
    ("stray.md", "# Caf\xe9 wombat\n\nstray \xff\n".encode("latin-1").replace(b"Caf\xe9", "Caf\xe9".encode()),
     "not valid UTF-8: undecodable bytes replaced"),
    # NUL bytes: a binary file with a .md name
    ("binary.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR quokka", "binary file (contains NUL bytes): only its name is indexed"),
    # nothing at all
    ("empty.md", b"", "empty file"),
    # more than 256 KiB: the first 256 KiB are indexed
    ("huge.md", b"# Huge\n\n" + b"quokka wombat " * 80_000, "larger than 256 KiB: only the first 256 KiB is indexed"),
]


def test_bad_files_are_indexed_and_reported(tmp_path: Path, db_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, data, _ in BAD_FILES:
        (notes / name).write_bytes(data)
    conn = open_db(db_path)
    stats = sync(conn, notes)
    assert sorted(stats.added) == sorted(name for name, _, _ in BAD_FILES)
    assert set(stats.problems) == {name for name, _, _ in BAD_FILES}
    for name, _, problem in BAD_FILES:
        assert stats.problems[name][0].startswith(problem), name
        stored = conn.execute("SELECT problems FROM notes WHERE path = ?", (name,)).fetchone()[0]
        assert json.loads(stored) == stats.problems[name]
    # the readable parts are searchable
    assert set(search(conn, "quokka")) == {"bad-yaml.md", "latin1.md", "huge.md"}
    integrity_check(conn)


def test_file_name_that_is_not_utf8_does_not_stop_the_sync(tmp_path: Path, db_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "good.md").write_text("# Good\n\nquokka\n")
    try:
        with open(os.fsencode(notes) + b"/caf\xe9.md", "wb") as f:
            f.write(b"# Cafe\n")
    except OSError:
        pytest.skip("this file system only takes UTF-8 names")
    conn = open_db(db_path)
    stats = sync(conn, notes)
    assert stats.added == ["good.md"]
    assert list(stats.problems) == ["caf\ufffd.md"]
    assert stats.problems["caf\ufffd.md"][0].startswith("file name is not valid UTF-8")
    assert search(conn, "quokka") == ["good.md"]


# --- deadlines ----------------------------------------------------------------


def test_past_deadline_indexes_a_few_notes_and_the_next_sync_finishes(vault: Path, db_path: Path) -> None:
    """Past its deadline a sync still parses ``MIN_PARSED`` notes: walking 20,000 notes or more
    takes the hook's whole budget, and a sync that parsed none never caught up."""
    from notesdb.sync import MIN_PARSED

    conn = open_db(db_path)
    stats = sync(conn, vault, deadline=time.monotonic() - 1)
    assert stats.incomplete
    assert len(stats.added) == MIN_PARSED == 4
    assert stats.pending == 63 - 4
    assert note_count(conn) == 4
    stats = sync(conn, vault)
    assert not stats.incomplete
    assert stats.pending == 0
    assert len(stats.added) == 59 and note_count(conn) == 63


def test_past_deadline_leaves_changes_for_the_next_sync(synced: tuple[Path, sqlite3.Connection]) -> None:
    """Past its deadline, more changed notes than ``MIN_PARSED``: those few are taken in, the
    rest (and the removals, done when the listing is complete) wait for the next sync."""
    vault, conn = synced
    for i in range(6):
        write(vault / "home" / f"bread-{i}.md", f"# Sourdough {i}\n\nlevain\n")
    (vault / "home" / "boiler-worcester.md").unlink()
    stats = sync(conn, vault, deadline=time.monotonic() - 1)
    assert stats.incomplete and len(stats.added) == 4 and stats.removed == []
    assert stats.pending == 2
    assert "home/boiler-worcester.md" in paths(conn)  # nothing removed yet
    stats = sync(conn, vault)
    assert (stats.added, stats.removed, stats.incomplete) == (
        ["home/bread-4.md", "home/bread-5.md"], ["home/boiler-worcester.md"], False)


def test_past_deadline_notes_of_many_lines_are_taken_in_a_few_at_a_time(synced: tuple[Path, sqlite3.Connection]) -> None:
    """Past its deadline the sync parses ``MIN_PARSED`` notes only while their lines stay within
    ``MIN_PARSED_LINES`` (the first note aside): markdown-it-py's time grows with the lines, and
    four notes slow to parse held one message for seconds."""
    from notesdb.parse import MARKDOWN_MAX_LINES
    from notesdb.sync import MIN_PARSED_LINES

    assert MIN_PARSED_LINES == MARKDOWN_MAX_LINES == 5_000
    vault, conn = synced
    for i in range(6):
        write(vault / "ledger" / f"month-{i}.md", f"# Month {i}\n\n" + "- paid\n" * 2_600)
    stats = sync(conn, vault, deadline=time.monotonic() - 1)
    # the first note's 2,602 lines are within the bound, the first two's 5,204 are not
    assert (stats.added, stats.pending, stats.incomplete) == (["ledger/month-0.md", "ledger/month-1.md"], 4, True)
    stats = sync(conn, vault, deadline=time.monotonic() - 1)
    assert stats.added == ["ledger/month-2.md", "ledger/month-3.md"]


def test_past_deadline_an_edited_note_counts_at_once(synced: tuple[Path, sqlite3.Connection]) -> None:
    """One note written while the hook's walk alone takes its budget (a folder of 50,000
    notes): the sync past its deadline takes it in, with the rest of the folder's changes."""
    vault, conn = synced
    write(vault / "home" / "bread.md", "# Sourdough\n\nlevain\n")
    stats = sync(conn, vault, deadline=time.monotonic() - 1)
    assert (stats.added, stats.incomplete, stats.pending) == (["home/bread.md"], False, 0)
    assert vocab_row(conn, "levain") == (1,)


# --- the file itself ----------------------------------------------------------


def test_database_is_private(tmp_path: Path, db_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n")
    old = os.umask(0)  # the most permissive umask: the modes below come from notesdb
    try:
        conn = open_db(db_path)
        sync(conn, notes)
    finally:
        os.umask(old)
    assert stat.S_IMODE(db_path.stat().st_mode) == 0o600
    wal = db_path.with_name(db_path.name + "-wal")
    assert wal.exists()
    assert stat.S_IMODE(wal.stat().st_mode) == 0o600
    assert stat.S_IMODE(db_path.parent.stat().st_mode) == 0o700
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_fts_integrity_after_a_sequence_of_edits(synced: tuple[Path, sqlite3.Connection]) -> None:
    vault, conn = synced
    note = vault / "home" / "boiler-worcester.md"
    for i in range(3):
        write(note, note.read_text() + f"\nround {i} quokka\n")
        write(vault / "home" / f"new-{i}.md", f"# New {i}\n\nquokka {i}\n")
        sync(conn, vault)
        integrity_check(conn)
    os.rename(vault / "home" / "new-0.md", vault / "home" / "renamed.md")
    (vault / "home" / "new-1.md").unlink()
    write(vault / "home" / "new-2.md", b"\x00binary now")
    sync(conn, vault)
    integrity_check(conn)
    assert set(search(conn, "quokka")) == {"home/boiler-worcester.md", "home/renamed.md"}
    # the check has teeth: bypass the triggers and it fails
    conn.execute("DROP TRIGGER notes_au")
    conn.execute("UPDATE notes SET body = 'changed behind the index' WHERE path = 'home/renamed.md'")
    with pytest.raises(sqlite3.DatabaseError):
        integrity_check(conn)


def test_an_emptied_folder_does_not_wipe_the_index(synced: tuple[Path, sqlite3.Connection], tmp_path: Path) -> None:
    vault, conn = synced
    before = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    empty = tmp_path / "unmounted"
    empty.mkdir()
    with pytest.raises(NotesFolderEmpty, match=f"holds no notes but the index has {before}"):
        sync(conn, empty)
    assert conn.execute("SELECT count(*) FROM notes").fetchone()[0] == before
    # the same folder with one note is a real change: the rest go
    (empty / "only.md").write_text("# Only\n", encoding="utf-8")
    stats = sync(conn, empty)
    assert (len(stats.removed), stats.added) == (before, ["only.md"])


def test_skip_patterns_that_leave_no_notes_are_named_not_taken_for_an_unmounted_folder(
    synced: tuple[Path, sqlite3.Connection],
) -> None:
    """``[index] skip = ["*"]`` on a full folder: the index is kept, and the error names the
    patterns (not "is the folder mounted?", and not '--rebuild', which would empty the index)."""
    vault, conn = synced
    before = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    with pytest.raises(NotesFolderEmpty) as e:
        sync(conn, vault, skip=("*",))
    assert str(e.value).startswith(f"the [index] skip patterns ['*'] leave no notes in {vault} (")
    assert str(e.value).endswith(f"but the index has {before}: not removing them; fix the patterns in the config file")
    assert "mounted" not in str(e.value) and "--rebuild" not in str(e.value)
    assert conn.execute("SELECT count(*) FROM notes").fetchone()[0] == before


def test_the_lexicon_holds_every_word_folded_as_the_tokenizer_folds_it() -> None:
    """``lexicon_rows`` takes a shortcut for ASCII words (a new database fills the table before
    its first answer): its rows are exactly those of folding every word with ``text.words``."""
    from notesdb import text
    from notesdb.vocab import LANGUAGES, LEXICON_MIN_ZIPF, _wordfreq_list, lexicon_rows

    slow: dict[tuple[str, str], float] = {}
    for lang in LANGUAGES:
        for word, zipf in _wordfreq_list(lang, lowest=LEXICON_MIN_ZIPF):
            if lang == "ko" and not all("\uac00" <= c <= "\ud7a3" for c in word):
                continue  # Korean's list keeps its Hangul words only
            folded = text.words(word)
            if len(folded) == 1:
                slow.setdefault((folded[0], lang), round(zipf, 2))
    rows = lexicon_rows()
    assert rows == [(w, lang, z) for (w, lang), z in slow.items()]
    assert len(rows) > 50_000 and ("strasse", "de") in slow and ("ete", "fr") in slow
    assert ("서버", "ko") in slow and ("the", "ko") not in slow and ("00", "ko") not in slow

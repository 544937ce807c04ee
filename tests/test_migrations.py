"""Tests for migrations/: a blank database, an older one, a failing migration, the sqlite3 shell."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from sqlite_utils import Database, Migrations

from notesdb import db as store
from notesdb import migrations as migrations_module
from notesdb.migrations import migrations
from notesdb.db import open_db
from notesdb.sync import sync
from notesdb.vocab import apply_counts

SQLITE3 = shutil.which("sqlite3") or "/usr/bin/sqlite3"


def names(conn: sqlite3.Connection, kind: str) -> set[str]:
    return {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = ?", (kind,))}


def user_version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def as_schema(conn: sqlite3.Connection, version: int, *statements: str) -> None:
    """Leave the database as schema ``version`` left it: run ``statements`` (the rows as that
    schema wrote them), set its version and forget every migration after it, then close it."""
    applied = [name for (name,) in conn.execute("SELECT name FROM _sqlite_migrations")]
    with conn:
        for sql in statements:
            conn.execute(sql)
        conn.execute(f"PRAGMA user_version = {version}")
        conn.executemany("DELETE FROM _sqlite_migrations WHERE name = ?", [(n,) for n in applied if int(n[1:4]) > version])
    conn.close()


def synced(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path, sqlite3.Connection]:
    """``files`` (path relative to the notes folder: text) written into ``tmp_path/notes`` and
    synced into a new ``tmp_path/n.db``: the folder, the database file and its connection."""
    vault = tmp_path / "notes"
    for rel, text in files.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text)
    db_path = tmp_path / "n.db"
    conn = open_db(db_path)
    sync(conn, vault)
    return vault, db_path, conn


def marked_by(db_path: Path, migration) -> list[tuple[str]]:  # type: ignore[no-untyped-def]
    """Run one migration on a database left as the schema before it (:func:`as_schema`) and
    return the notes it marks to be read again, by path: a later migration that reads every
    note again would hide its choice. ``open_db`` then applies it again with the rest."""
    conn = sqlite3.connect(db_path)
    with conn:
        migration(Database(conn))
    marked = conn.execute("SELECT path FROM notes WHERE size = -1 AND hash = '' ORDER BY path").fetchall()
    conn.close()
    return marked


def test_blank_database(db_path: Path) -> None:
    conn = open_db(db_path)
    assert {"notes", "notes_fts", "vocab", "decisions", "meta"} <= names(conn, "table")
    assert names(conn, "trigger") == {"notes_ai", "notes_ad", "notes_au"}
    assert user_version(conn) == store.SCHEMA_VERSION
    rank = conn.execute("SELECT v FROM notes_fts_config WHERE k = 'rank'").fetchone()[0]
    assert rank == "bm25(3.0, 2.0, 2.0, 1.0)"
    assert [c[1] for c in conn.execute("PRAGMA table_info(notes)")] == [
        "id", "path", "title", "desc", "headings", "body", "type", "aliases", "tags",
        "size", "mtime_ns", "hash", "indexed_at", "problems",
        "title_extra", "desc_extra", "headings_extra", "body_extra", "searchable", "links", "anchors_out", "anchors",
    ]  # fmt: skip
    assert migrations.pending(Database(conn)) == []
    # the list doctor checks is the migrations' own: every table and view, FTS5's shadow tables aside
    made = {n for n in names(conn, "table") | names(conn, "view") if not n.startswith(("_", "sqlite_"))}
    assert set(store.TABLES) == {n for n in made if not n.startswith("notes_fts_") or n == "notes_fts_terms"}
    assert store.missing_tables(conn) == []


@pytest.mark.parametrize("table", ["notes", "notes_fts", "vocab", "decisions", "meta"])
def test_every_table_explains_itself(db_path: Path, table: str) -> None:
    # a person opening the file in sqlite3 or Datasette reads the comment in its schema
    sql = open_db(db_path).execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    assert "--" in sql


def test_fts_rank_is_the_default_order(db_path: Path) -> None:
    conn = open_db(db_path)
    rows = [
        ("a.md", "shield", "", "", ""),  # in the title: weight 3
        ("b.md", "", "", "", "shield"),  # in the body: weight 1
        ("c.md", "", "shield", "", ""),  # in the description: weight 2
    ]
    conn.executemany("INSERT INTO notes(path, title, desc, headings, body) VALUES (?, ?, ?, ?, ?)", rows)
    # filler notes so that "shield" is rare enough for bm25 to count
    conn.executemany("INSERT INTO notes(path, body) VALUES (?, 'other words')", [(f"f{i}.md",) for i in range(7)])
    ranked = [
        p
        for (p,) in conn.execute(
            "SELECT path FROM notes_fts JOIN notes ON notes.id = notes_fts.rowid "
            "WHERE notes_fts MATCH 'shield' ORDER BY rank"
        )
    ]
    assert ranked == ["a.md", "c.md", "b.md"]


def test_older_database_is_finished_and_keeps_its_rows(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path, isolation_level=None)
    migrations.apply(Database(conn), stop_before="m004_decisions")
    assert user_version(conn) == 3
    assert "decisions" not in names(conn, "table")
    conn.execute(
        "INSERT INTO notes(id, path, title, body) VALUES (7, 'hardware/shield.md', 'Shield TV', 'recovery plan')"
    )
    conn.execute(
        "INSERT INTO vocab(word, length, doc_freq, title_doc_freq, desc_doc_freq, headings_doc_freq,"
        " meta_doc_freq, phonetic) VALUES ('shield', 6, 1, 1, 0, 0, 1, 'XLT')"
    )
    conn.execute("INSERT INTO meta(key, value) VALUES ('notes_root', '/somewhere')")
    conn.close()

    conn = open_db(db_path)
    assert user_version(conn) == store.SCHEMA_VERSION
    assert migrations.pending(Database(conn)) == []
    assert conn.execute("SELECT id, path, title, body FROM notes").fetchall() == [
        (7, "hardware/shield.md", "Shield TV", "recovery plan")
    ]
    # the vocabulary is recounted from the rows (m008), and every note is read again next sync
    assert conn.execute("SELECT doc_freq FROM vocab WHERE word = 'shield'").fetchall() == [(1,)]
    assert conn.execute("SELECT size FROM notes").fetchall() == [(-1,)]
    assert conn.execute("SELECT value FROM meta WHERE key = 'notes_root'").fetchone()[0] == "/somewhere"
    assert conn.execute("SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'recovery'").fetchall() == [(7,)]
    assert conn.execute("SELECT count(*) FROM decisions").fetchone()[0] == 0
    # and the terms table of the later migration sees the old row
    assert conn.execute("SELECT doc FROM notes_fts_terms WHERE term = 'shield'").fetchall() == [(7,)]


def test_failing_migration_rolls_back_and_stays_pending(db_path: Path) -> None:
    conn = open_db(db_path)
    conn.execute("INSERT INTO notes(path, title) VALUES ('kept.md', 'Kept')")

    extended = Migrations(migrations.name)
    for m in migrations.pending(Database(memory=True)):  # every migration of the real set
        extended(name=m.name, transactional=m.transactional)(m.fn)

    @extended()
    def m999_fails(db: Database) -> None:
        db.execute("CREATE TABLE doomed (x TEXT)")
        db.execute("INSERT INTO notes(path, title) VALUES ('doomed.md', 'Doomed')")
        db.execute("PRAGMA user_version = 999")
        raise RuntimeError("deliberate failure")

    db = Database(conn)
    assert [m.name for m in extended.pending(db)] == ["m999_fails"]
    with pytest.raises(RuntimeError, match="deliberate failure"):
        extended.apply(db)
    assert [m.name for m in extended.pending(db)] == ["m999_fails"]
    assert "doomed" not in names(conn, "table")
    assert [p for (p,) in conn.execute("SELECT path FROM notes")] == ["kept.md"]
    assert conn.execute("SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'doomed'").fetchall() == []
    assert user_version(conn) == store.SCHEMA_VERSION
    assert not conn.in_transaction
    conn.close()
    # the real set still opens the file as up to date
    assert user_version(open_db(db_path)) == store.SCHEMA_VERSION


def test_schema_too_new_is_refused(db_path: Path) -> None:
    from notesdb.errors import SchemaTooNew

    conn = open_db(db_path)
    conn.execute(f"PRAGMA user_version = {store.SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(SchemaTooNew, match="upgrade notesdb"):
        open_db(db_path)


@pytest.mark.skipif(not Path(SQLITE3).exists(), reason="the sqlite3 command-line program is not installed")
def test_plain_sqlite3_shell_searches_the_index(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    sql = (
        "select path from notes_fts join notes on notes.rowid = notes_fts.rowid "
        "where notes_fts match 'worcester' order by rank limit 1"
    )
    out = subprocess.run([SQLITE3, str(db), sql], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    assert out.stdout == "home/boiler-worcester.md\n"


@pytest.mark.skipif(not Path(SQLITE3).exists(), reason="the sqlite3 command-line program is not installed")
def test_plain_sqlite3_shell_reads_every_table(indexed: tuple[Path, Path]) -> None:
    _, db = indexed
    conn = open_db(db)
    tables = sorted(names(conn, "table") | names(conn, "view"))
    conn.close()
    sql = "; ".join(f'select count(*) from "{t}"' for t in tables)
    out = subprocess.run([SQLITE3, str(db), sql], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.split()) == len(tables)



def test_an_older_database_reads_every_note_again_for_its_joined_words(tmp_path: Path) -> None:
    """A database of schema 13 holds "gits" and "smagic", joined from the file name
    ``git-s-magic-files.md`` (before ``text.CONTRACTION_PARTS``): after the upgrade the next
    sync reads that note again, and those words leave the note, the full-text index and the
    vocabulary; a note with no such hyphen is not read again."""
    vault = tmp_path / "notes"
    (vault / "vcs").mkdir(parents=True)
    (vault / "vcs" / "git-s-magic-files.md").write_text("# Git's magic files\n\nThe .gitattributes file.\n")
    (vault / "vcs" / "rebase.md").write_text("# Rebase\n\nGit rebase onto main.\n")
    db_path = tmp_path / "n.db"
    conn = open_db(db_path)
    sync(conn, vault)
    # as schema 13 left it: the joined words in the row, its full-text row and the vocabulary
    with conn:
        apply_counts(conn, Counter({"gits": 1, "smagic": 1}))
    as_schema(conn, 13, "UPDATE notes SET title_extra = title_extra || ' gits smagic' WHERE path = 'vcs/git-s-magic-files.md'")
    assert marked_by(db_path, migrations_module.m014_reread_contractions) == [("vcs/git-s-magic-files.md",)]
    conn = open_db(db_path)
    assert user_version(conn) == store.SCHEMA_VERSION == 27
    assert conn.execute("SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'gits'").fetchall() != []
    stats = sync(conn, vault)  # (schema 18 reads every note again)
    assert sorted(stats.modified) == ["vcs/git-s-magic-files.md", "vcs/rebase.md"]
    assert conn.execute("SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'gits OR smagic'").fetchall() == []
    assert conn.execute("SELECT word FROM vocab WHERE word IN ('gits', 'smagic', 'git')").fetchall() == [("git",)]
    extra = conn.execute("SELECT title_extra FROM notes WHERE path = 'vcs/git-s-magic-files.md'").fetchone()[0]
    assert extra == ""  # the file name's words are all the title's


@pytest.mark.parametrize(
    ("text", "marked"),
    [
        ("vcs/git-s-magic-files.md", 1),
        ("Don-t-Panic.md", 1),
        ("notes on we-ve-moved", 1),
        ("it-ll do", 1),
        ("wi-fi and e-mail, t-shirt", 0),  # joined before and after: nothing to read again
        ("the rebase notes", 0),
        ("", 0),
    ],
)
def test_the_upgrade_reads_again_only_notes_with_a_contraction_after_a_hyphen(text: str, marked: int) -> None:
    assert migrations_module._joins_contraction(text) == marked


def test_a_database_made_before_korean_gains_its_everyday_words(tmp_path: Path) -> None:
    """Schema 15 adds Korean's everyday words to ``lexicon`` of a database that lacks them,
    and only those: the other languages' rows stay as they were."""
    db_path = tmp_path / "n.db"
    conn = open_db(db_path)
    before = conn.execute("SELECT count(*) FROM lexicon WHERE lang != 'ko'").fetchone()[0]
    as_schema(conn, 14, "DELETE FROM lexicon WHERE lang = 'ko'")
    conn = open_db(db_path)
    assert user_version(conn) == store.SCHEMA_VERSION
    assert conn.execute("SELECT count(*) FROM lexicon WHERE lang != 'ko'").fetchone()[0] == before
    rows = dict(conn.execute("SELECT word, zipf FROM lexicon WHERE lang = 'ko' AND word IN ('안', '서버', '00', 'the')"))
    assert set(rows) == {"안", "서버"}  # Hangul words only
    assert rows["안"] > 6.0 > 4.0 < rows["서버"] < 5.0
    conn.close()


def test_an_older_database_names_a_folder_readme_by_its_folder(tmp_path: Path) -> None:
    """A database of schema 15 titled ``brews/sabro/README.md`` "README" (and its logo above the
    H1 kept that H1 a section heading): after the upgrade the next sync reads that note again
    and titles it by its H1; a note whose title came from its H1 is not read again."""
    vault = tmp_path / "notes"
    (vault / "brews" / "sabro").mkdir(parents=True)
    (vault / "brews" / "sabro" / "README.md").write_text("![logo](sabro.jpeg)\n\n# SMaSH Sabro\n\nOne hop, one malt.\n")
    (vault / "brews" / "porter.md").write_text("# Porter\n\nChocolate malt.\n")
    db_path = tmp_path / "n.db"
    conn = open_db(db_path)
    sync(conn, vault)
    assert conn.execute("SELECT title FROM notes WHERE path = 'brews/sabro/README.md'").fetchone() == ("SMaSH Sabro",)
    as_schema(conn, 15, "UPDATE notes SET title = 'README', headings = 'SMaSH Sabro' WHERE path = 'brews/sabro/README.md'")
    assert marked_by(db_path, migrations_module.m016_reread_folder_notes) == [("brews/sabro/README.md",)]
    conn = open_db(db_path)
    assert user_version(conn) == store.SCHEMA_VERSION
    stats = sync(conn, vault)  # (schema 18 reads every note again)
    assert sorted(stats.modified) == ["brews/porter.md", "brews/sabro/README.md"]
    assert conn.execute("SELECT title, headings FROM notes WHERE path = 'brews/sabro/README.md'").fetchone() == ("SMaSH Sabro", "")


@pytest.mark.parametrize(
    ("path", "title", "headings", "marked"),
    [
        ("brews/sabro/README.md", "SMaSH Sabro", "", 1),  # named for its folder: always read again
        ("docs/Index.markdown", "Docs", "", 1),
        ("docs/_index.md", "Docs", "", 1),
        ("README.md", "README", "", 0),  # the top of the folder: named by itself as before
        ("kitchen/espresso-grinder.md", "espresso grinder", "Burrs", 1),  # an H1 under a logo?
        ("kitchen/espresso-grinder.md", "espresso grinder", "", 0),  # no headings: no H1 to find
        ("kitchen/espresso-grinder.md", "Espresso grinder", "Burrs", 0),  # titled by its H1
        ("kitchen/readme-first.md", "Readme first", "", 0),
    ],
)
def test_the_upgrade_reads_again_only_notes_whose_title_may_change(path: str, title: str, headings: str, marked: int) -> None:
    assert migrations_module._named_by_file(path, title, headings) == marked


def test_the_upgrade_reads_a_latin1_note_again_as_windows_1252(tmp_path: Path) -> None:
    """A database of schema 16 holds a Latin-1 note as replaced characters ("Caf\ufffd"), its
    accented words lost to search: after the upgrade the next sync reads that note again, as
    Windows-1252; a note that holds a UTF-8 sequence beside its bad byte is read as before."""
    vault = tmp_path / "notes"
    vault.mkdir()
    (vault / "latin1.md").write_bytes("# Café crème\n\nPrix à la carte.\n".encode("latin-1"))
    (vault / "stray.md").write_bytes("# Brûlée\n\nstray ".encode() + b"\xff\n")
    (vault / "plain.md").write_text("# Porter\n\nChocolate malt.\n")
    db_path = tmp_path / "n.db"
    conn = open_db(db_path)
    sync(conn, vault)
    assert conn.execute("SELECT title FROM notes WHERE path = 'latin1.md'").fetchone() == ("Café crème",)
    replaced = '["not valid UTF-8: undecodable bytes replaced"]'
    as_schema(conn, 16, f"UPDATE notes SET title = 'Caf\ufffd cr\ufffdme', problems = '{replaced}' WHERE path = 'latin1.md'")
    assert marked_by(db_path, migrations_module.m017_reread_single_byte_notes) == [("latin1.md",), ("stray.md",)]
    conn = open_db(db_path)
    assert user_version(conn) == store.SCHEMA_VERSION
    stats = sync(conn, vault)  # (schema 18 reads every note again)
    assert sorted(stats.modified) == ["latin1.md", "plain.md", "stray.md"]
    rows = dict(conn.execute("SELECT path, title FROM notes"))
    assert rows == {"latin1.md": "Café crème", "stray.md": "Brûlée", "plain.md": "Porter"}


def test_the_upgrade_titles_a_spaced_file_name_as_written(tmp_path: Path) -> None:
    """A database of schema 18 titled ``Data Engineering - Backfills.md`` "Data Engineering
    Backfills": after the upgrade the next sync reads that note again and titles it as its file
    is named; a note titled by its H1 and one whose file name has no spaces are not read again."""
    vault, db_path, conn = synced(tmp_path, {
        "3 - Notes/Data Engineering - Backfills.md": "Reruns over past partitions.\n",
        "3 - Notes/Airflow - Catchup.md": "# Catchup\n\ncatchup=False.\n",
        "3 - Notes/smoke-alarms.md": "Batteries in May.\n",
    })
    backfills = "3 - Notes/Data Engineering - Backfills.md"
    assert conn.execute("SELECT title FROM notes WHERE path = ?", (backfills,)).fetchone() == ("Data Engineering - Backfills",)
    as_schema(conn, 18, f"UPDATE notes SET title = 'Data Engineering Backfills' WHERE path = '{backfills}'")
    assert marked_by(db_path, migrations_module.m019_reread_spaced_file_names) == [(backfills,)]
    conn = open_db(db_path)
    assert user_version(conn) == store.SCHEMA_VERSION
    sync(conn, vault)  # (schema 23 reads every note again; which notes 19 marks is checked above)
    assert dict(conn.execute("SELECT path, title FROM notes")) == {
        backfills: "Data Engineering - Backfills",
        "3 - Notes/Airflow - Catchup.md": "Catchup",
        "3 - Notes/smoke-alarms.md": "smoke alarms",
    }
    conn.close()


@pytest.mark.parametrize(
    ("path", "title", "marked"),
    [
        ("3 - Notes/Data Engineering - Backfills.md", "Data Engineering Backfills", 1),
        ("Inbox/2025-10-19 -- call notes.md", "2025 10 19 call notes", 1),
        ("Trips/Rome - 2024/README.md", "Rome 2024", 1),  # named by its folder
        ("3 - Notes/Data Engineering - Backfills.md", "Backfills", 0),  # titled by its H1
        ("home/smoke-alarms.md", "smoke alarms", 0),  # no spaces: read as before
        ("notes/pip_cache notes.md", "pip cache notes", 0),  # the same title either way
        ("pages/Foo%3ABar.md", "Foo%3ABar", 1),  # percent-encoded: its file-name words change
        ("pages/Foo%3ABar.md", "Foo Bar", 1),  # whatever its title
        ("pages/100% sure.md", "100% sure", 0),
        (None, None, 0),
    ],
)
def test_the_upgrade_reads_again_only_notes_titled_by_a_spaced_name(path: str | None, title: str | None, marked: int) -> None:
    assert migrations_module._titled_by_spaced_name(path, title) == marked


def test_the_upgrade_reads_logseq_page_properties_again(tmp_path: Path) -> None:
    """A database of schema 19 holds a Logseq page's ``alias::`` line as text: after the upgrade
    the next sync reads that note again, and the alias is a name of the note (its title column);
    a note whose text does not start with a property is not read again."""
    vault, db_path, conn = synced(tmp_path, {
        "pages/Type Omit.md": "alias:: Omit\n\n- Drops the keys named.\n",
        "pages/Untitled.md": "title::\nalias:: Quaxwell\n\n- No title yet.\n",
        "pages/Pick.md": "- Keeps the keys named.\n",
    })
    assert conn.execute("SELECT aliases, body FROM notes WHERE path = 'pages/Type Omit.md'").fetchone() == (
        '["Omit"]', "Drops the keys named.")
    as_schema(
        conn, 19,
        "UPDATE notes SET aliases = '[]', body = 'alias:: Omit\nDrops the keys named.' WHERE path = 'pages/Type Omit.md'",
        "UPDATE notes SET aliases = '[]', body = 'title::\nalias:: Quaxwell\nNo title yet.' WHERE path = 'pages/Untitled.md'",
    )
    marked = [("pages/Type Omit.md",), ("pages/Untitled.md",)]
    assert marked_by(db_path, migrations_module.m020_reread_page_properties) == marked
    conn = open_db(db_path)
    sync(conn, vault)  # (schema 23 reads every note again; which notes 20 marks is checked above)
    assert conn.execute("SELECT aliases FROM notes WHERE path = 'pages/Untitled.md'").fetchone() == ('["Quaxwell"]',)
    assert conn.execute("SELECT aliases, body FROM notes WHERE path = 'pages/Type Omit.md'").fetchone() == (
        '["Omit"]', "Drops the keys named.")
    assert conn.execute("SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'title:omit'").fetchall() == conn.execute(
        "SELECT id FROM notes WHERE path = 'pages/Type Omit.md'").fetchall()
    conn.close()


def test_the_upgrade_reads_notion_named_notes_again(tmp_path: Path) -> None:
    """A database of schema 20 titled a Notion page by its file name with the page ID and held
    the ID as a word of the note: after the upgrade the next sync reads the notes whose file
    or folder name holds such an ID again, and no other."""
    vault, db_path, conn = synced(tmp_path, {
        "Boiler service 0f1e2d3c4b5a69788796a5b4c3d2e1f0.md": "Annual check with Hales in March.\n",
        "Projects 8c3e1f2a9b7d4e6f8a1b2c3d4e5f6a7b/Shed.md": "# Shed\n\nFelt roof before winter.\n",
        "Dentist.md": "Check-up every six months.\n",
    })
    boiler = "Boiler service 0f1e2d3c4b5a69788796a5b4c3d2e1f0.md"
    as_schema(
        conn, 20,
        f"UPDATE notes SET title = 'Boiler service 0f1e2d3c4b5a69788796a5b4c3d2e1f0', "
        f"title_extra = '0f1e2d3c4b5a69788796a5b4c3d2e1f0' WHERE path = '{boiler}'",
    )
    marked = [(boiler,), ("Projects 8c3e1f2a9b7d4e6f8a1b2c3d4e5f6a7b/Shed.md",)]
    assert marked_by(db_path, migrations_module.m021_reread_names_and_app_data) == marked
    conn = open_db(db_path)
    sync(conn, vault)  # (schema 23 reads every note again; which notes 21 marks is checked above)
    assert conn.execute("SELECT title FROM notes WHERE path = ?", (boiler,)).fetchone() == ("Boiler service",)
    assert conn.execute(
        "SELECT count(*) FROM notes_fts WHERE notes_fts MATCH '\"0f1e2d3c4b5a69788796a5b4c3d2e1f0\"'").fetchone() == (0,)
    conn.close()


def test_the_upgrade_reads_every_note_again_as_a_site_reads_it(tmp_path: Path) -> None:
    """A database of schema 22 held a Hugo note's TOML front matter and a shortcode as its text
    and titled it by its file name, and kept a heading's attribute list and a Dataview query:
    after the upgrade the next sync reads every note again (what was stored cannot tell such
    notes apart: a fence's info string was not kept), and they read as the site shows them."""
    vault, db_path, conn = synced(tmp_path, {
        "content/heat-pump.md": '+++\ntitle = "Daikin heat pump settings"\n+++\nFlow 45C.\n{{< youtube w7Ft2ymGmfc >}}\n',
        "routers.md": "# Routers {#routers}\n\n## Setup {#setup}\n\nOpenWrt.\n\n```dataview\nLIST FROM #router\n```\n",
        "dentist.md": "# Dentist\n\nEvery six months.\n",
    })
    as_schema(
        conn, 22,
        "UPDATE notes SET title = 'heat pump', body = '+++\ntitle = \"Daikin heat pump settings\"\n+++\nFlow 45C.\n"
        "{{< youtube w7Ft2ymGmfc >}}' WHERE path = 'content/heat-pump.md'",
        "UPDATE notes SET title = 'Routers {#routers}', headings = 'Setup {#setup}', body = 'OpenWrt.\nLIST FROM #router' "
        "WHERE path = 'routers.md'",
    )
    marked = [("content/heat-pump.md",), ("dentist.md",), ("routers.md",)]
    assert marked_by(db_path, migrations_module.m023_reread_site_notes) == marked
    conn = open_db(db_path)
    assert sorted(sync(conn, vault).modified) == [p for (p,) in marked]
    assert conn.execute("SELECT path, title, headings, body FROM notes ORDER BY path").fetchall() == [
        ("content/heat-pump.md", "Daikin heat pump settings", "", "Flow 45C."),
        ("dentist.md", "Dentist", "", "Every six months."),
        ("routers.md", "Routers", "Setup", "OpenWrt."),
    ]
    conn.close()


def test_the_upgrade_reads_every_note_again_as_an_outliner_shows_it(tmp_path: Path) -> None:
    """A database of schema 23 left a short Logseq page holding a query out of the search as a
    template, read an empty child block as the heading underline of the block above it and kept
    ``collapsed:: true`` as words: after the upgrade the next sync reads every note again (a
    heading read from an empty block leaves no trace in what was stored), and the pages read
    as Logseq shows them."""
    vault, db_path, conn = synced(tmp_path, {
        "pages/Kitchen.md": "- Kitchen renovation budget\n  - {{query (and [[kitchen]] (task TODO))}}\n",
        "pages/Boiler.md": "- example:\n  -\n- Vaillant boiler\n  collapsed:: true\n",
        "pages/Dentist.md": "- Check-up every six months\n",
    })
    as_schema(
        conn, 23,
        "UPDATE notes SET searchable = 0 WHERE path = 'pages/Kitchen.md'",
        "UPDATE notes SET headings = 'example:', body = 'Vaillant boiler\ncollapsed:: true' WHERE path = 'pages/Boiler.md'",
    )
    marked = [("pages/Boiler.md",), ("pages/Dentist.md",), ("pages/Kitchen.md",)]
    assert marked_by(db_path, migrations_module.m024_reread_outliner_pages) == marked
    conn = open_db(db_path)
    assert user_version(conn) == store.SCHEMA_VERSION == 27
    assert sorted(sync(conn, vault).modified) == [p for (p,) in marked]
    assert conn.execute("SELECT path, headings, body, searchable FROM notes ORDER BY path").fetchall() == [
        ("pages/Boiler.md", "", "example:\nVaillant boiler", 1),
        ("pages/Dentist.md", "", "Check-up every six months", 1),
        ("pages/Kitchen.md", "", "Kitchen renovation budget", 1),
    ]
    assert conn.execute("SELECT count(*) FROM notes_fts WHERE notes_fts MATCH 'kitchen'").fetchone() == (1,)
    conn.close()


@pytest.mark.parametrize(
    ("path", "title", "aliases", "headings", "body", "marked"),
    [
        ("Boiler service 0f1e2d3c4b5a69788796a5b4c3d2e1f0.md", "Boiler service", "[]", "", "", 1),
        ("Projects 8c3e1f2a9b7d4e6f8a1b2c3d4e5f6a7b/Shed.md", "Shed", "[]", "", "", 1),  # the folder's name
        ("Projects 8c3e1f2a9b7d4e6f8a1b2c3d4e5f6a7b/README.md", "Projects", "[]", "", "", 1),  # named by that folder
        ("pages/Foo%3ABar.md", "Foo:Bar", "[]", "", "", 1),
        ("0f1e2d3c4b5a69788796a5b4c3d2e1f0.md", "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "[]", "", "", 0),  # nothing but an ID
        ("build-0f1e2d3c4b5a69788796a5b4c3d2e1f0.md", "build", "[]", "", "", 0),
        ("notes/udemy.kafka.18_LogSegments.md", "Log segments", "[]", "", "", 1),  # a camel-case file name
        ("notes/kafka.md", "18_LogSegments", "[]", "", "", 1),  # title
        ("notes/kafka.md", "Kafka", '["LogSegments"]', "", "", 1),  # alias
        ("notes/iphone.md", "iPhone", "[]", "", "", 0),  # no camel-case word of two parts of 3 letters
        ("Excalidraw/Plan.excalidraw.md", "Plan", "[]", "", "==\u26a0 Switch to EXCALIDRAW VIEW \u26a0==\n%%\n{}", 1),
        ("Excalidraw/Sofa.excalidraw.md", "Excalidraw Data", "[]", "Text Elements", "Sofa corner", 1),  # headings
        ("Excalidraw/Sofa.excalidraw.md", "Sofa", "[]", "", "Sofa corner", 1),  # its file name's ".excalidraw"
        ("home/Washer.md", "Pressure washer ^title1", "[]", "Nozzle sizes ^head1", "Fan tips.", 1),  # block IDs
        ("home/Dentist.md", "Dentist", "[]", "", "Check-up ^a1b2c3", 1),
        ("home/Dentist.md", "Dentist", "[]", "Visits", "Check-up every six months.", 0),
        (None, None, None, None, None, 0),
    ],
)
def test_the_upgrade_reads_again_only_notes_read_anew(
    path: str | None, title: str | None, aliases: str | None, headings: str | None, body: str | None, marked: int
) -> None:
    assert migrations_module._read_anew(path, title, aliases, headings, body) == marked


def test_the_upgrade_adds_the_log_of_attached_notes(tmp_path: Path) -> None:
    """Schema 25: ``decisions.attached``, the notes a message attached itself (``notesdb.mentions``),
    empty for the rows logged before; a database marked older that has the column already (a copy
    made after the upgrade) upgrades as well."""
    vault, db_path, conn = synced(tmp_path, {"hens.md": "# Hens\n\nThree hens.\n"})
    conn.execute("INSERT INTO decisions(time, route) VALUES ('2026-01-01T00:00:00.000+00:00', 'weak')")
    conn.commit()
    as_schema(conn, 24, "ALTER TABLE decisions DROP COLUMN attached")
    conn = open_db(db_path)
    assert user_version(conn) == store.SCHEMA_VERSION == 27
    assert conn.execute("SELECT route, attached FROM decisions").fetchall() == [("weak", "[]")]
    as_schema(conn, 24)  # the column stays
    conn = open_db(db_path)
    assert user_version(conn) == 27 and conn.execute("SELECT attached FROM decisions").fetchall() == [("[]",)]


def test_the_upgrade_reads_properties_above_a_block_again(tmp_path: Path) -> None:
    """A database of schema 25 kept page properties followed right away by the page's first block
    as text (no blank line between them): after the upgrade the next sync reads the notes whose
    text starts with a property again, and the title and aliases are the note's names; a note
    whose text does not start with one is not read again."""
    vault, db_path, conn = synced(tmp_path, {
        "pages/Toggl___API.md": "title:: Toggl API\nalias:: Quaxwell\n- # Toggl Track API v9\n",
        "pages/Pick.md": "- Keeps the keys named.\n",
    })
    assert conn.execute("SELECT title, aliases FROM notes WHERE path = 'pages/Toggl___API.md'").fetchone() == (
        "Toggl API", '["Quaxwell"]')
    as_schema(
        conn, 25,
        "UPDATE notes SET title = 'Toggl API', aliases = '[]', headings = '', "
        "body = 'title:: Toggl API\nalias:: Quaxwell\nToggl Track API v9' WHERE path = 'pages/Toggl___API.md'",
    )
    assert marked_by(db_path, migrations_module.m026_reread_properties_above_a_block) == [("pages/Toggl___API.md",)]
    conn = open_db(db_path)
    assert user_version(conn) == store.SCHEMA_VERSION == 27
    assert sync(conn, vault).modified == ["pages/Toggl___API.md"]
    assert conn.execute("SELECT aliases, headings, body FROM notes WHERE path = 'pages/Toggl___API.md'").fetchone() == (
        '["Quaxwell"]', "Toggl Track API v9", "")
    conn.close()


def test_the_upgrade_reads_again_the_notes_that_joined_a_date(tmp_path: Path) -> None:
    """A database of schema 26 holds "january2024", joined from "2 January 2024" (before
    ``text.MONTHS``): after the upgrade the next sync reads that note again, and the word leaves
    the note, the full-text index and the vocabulary; a note whose month has no number right
    after it ("12 January, 2024") is not read again."""
    vault, db_path, conn = synced(tmp_path, {
        "talks/ana.md": "# Ana and Ben, 2 January 2024\n\nThey spoke about German lessons.\n",
        "talks/ben.md": "# Ana and Ben, 12 January, 2024\n\nBen recommended Lisbon.\n",
    })
    with conn:
        apply_counts(conn, Counter({"january2024": 1}))
    as_schema(conn, 26, "UPDATE notes SET title_extra = title_extra || ' january2024' WHERE path = 'talks/ana.md'")
    assert marked_by(db_path, migrations_module.m027_reread_dates) == [("talks/ana.md",)]
    conn = open_db(db_path)
    assert user_version(conn) == store.SCHEMA_VERSION == 27
    assert conn.execute("SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'january2024'").fetchall() != []
    assert sync(conn, vault).modified == ["talks/ana.md"]
    assert conn.execute("SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'january2024'").fetchall() == []
    assert conn.execute("SELECT count(*) FROM vocab WHERE word = 'january2024'").fetchone() == (0,)
    conn.close()


@pytest.mark.parametrize(
    ("text", "marked"),
    [("2 January 2024", 1), ("Février 2025", 1), ("MÄRZ 3", 1), ("sept-3", 1), ("12 January, 2024", 0),
     ("rtx 4090", 0), ("Lamar 3", 0), ("mars2025", 0), ("Budget 2026", 1), ("taxes-2024.md", 1), ("May 5", 1),
     ("19 V 2.1 A", 0), ("rtx 20800", 0), ("2024-11-02", 0), (None, 0)],
)
def test_a_date_marks_a_note(text: str | None, marked: int) -> None:
    assert migrations_module._joins_date(text) == marked

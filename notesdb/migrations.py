"""The schema of a notesdb database, as an append-only list of sqlite-utils migrations.

Each function is one change, applied once, in order, inside a transaction, and recorded in
``_sqlite_migrations``. Every migration also sets ``PRAGMA user_version`` to its number, so the
hook can tell with one plain ``sqlite3`` read whether anything is pending without importing
sqlite-utils. Never edit a shipped migration: add a new one and bump
``notesdb.db.SCHEMA_VERSION``.

Nothing the schema keeps (tables, triggers) calls a function registered from Python: the file
works in the plain ``sqlite3`` shell and in Datasette. (A migration may use one while it runs.)
"""

import re
from typing import Final

from sqlite_utils import Database, Migrations

from notesdb.db import mark_for_reread
from notesdb.parse import readable_name
from notesdb.text import MONTHS, fold
from notesdb.vocab import FOLDER_NOTE_STEMS, camel_named, decoded_name, english_zipf, file_stem, lexicon_rows, rebuild_vocab

migrations = Migrations("notesdb")


@migrations()
def m001_notes(db: Database) -> None:
    """``notes``: one row per Markdown note under the notes root."""
    db.execute(
        """
        CREATE TABLE notes ( -- one row per Markdown note under the notes root
            id INTEGER PRIMARY KEY,       -- stable rowid, the key of notes_fts
            path TEXT NOT NULL UNIQUE,    -- POSIX path relative to the notes root
            title TEXT NOT NULL DEFAULT '',
            desc TEXT NOT NULL DEFAULT '',
            headings TEXT NOT NULL DEFAULT '',  -- heading texts, one per line
            body TEXT NOT NULL DEFAULT '',      -- plain text, code included
            type TEXT NOT NULL DEFAULT '',
            aliases TEXT NOT NULL DEFAULT '[]', -- JSON array; searched as part of the title
            tags TEXT NOT NULL DEFAULT '[]',    -- JSON array; searched as part of the headings
            size INTEGER NOT NULL DEFAULT 0,    -- bytes on disk
            mtime_ns INTEGER NOT NULL DEFAULT 0,
            hash TEXT NOT NULL DEFAULT '',      -- blake2b of the file's bytes
            indexed_at TEXT NOT NULL DEFAULT '',
            problems TEXT NOT NULL DEFAULT '[]' -- JSON array of what could not be read
        )
        """
    )
    db.execute(
        """
        CREATE TABLE meta ( -- settings of this database: notes root, last sync
            key TEXT PRIMARY KEY,
            value TEXT
        )
        """
    )
    db.execute("PRAGMA user_version = 1")


@migrations()
def m002_notes_fts(db: Database) -> None:
    """``notes_fts``: FTS5 over title, desc, headings, body, ranked by bm25(3, 2, 2, 1)."""
    db.execute(
        """
        CREATE VIEW notes_text AS -- what notes_fts indexes: aliases count as title, tags as headings
        SELECT id,
               title || ' ' || aliases AS title,
               desc,
               headings || ' ' || tags AS headings,
               body
        FROM notes
        """
    )
    db.execute(
        """
        CREATE VIRTUAL TABLE notes_fts USING fts5( -- full-text index of notes, rowid = notes.id
            title, desc, headings, body,
            content = 'notes_text', content_rowid = 'id',
            tokenize = 'unicode61 remove_diacritics 2'
        )
        """
    )
    db.execute(
        "INSERT INTO notes_fts(notes_fts, rank) VALUES ('rank', 'bm25(3.0, 2.0, 2.0, 1.0)')"
    )
    db.execute(
        """
        CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN
            INSERT INTO notes_fts(rowid, title, desc, headings, body)
            VALUES (new.id, new.title || ' ' || new.aliases, new.desc,
                    new.headings || ' ' || new.tags, new.body);
        END
        """
    )
    db.execute(
        """
        CREATE TRIGGER notes_ad AFTER DELETE ON notes BEGIN
            INSERT INTO notes_fts(notes_fts, rowid, title, desc, headings, body)
            VALUES ('delete', old.id, old.title || ' ' || old.aliases, old.desc,
                    old.headings || ' ' || old.tags, old.body);
        END
        """
    )
    db.execute(
        """
        CREATE TRIGGER notes_au AFTER UPDATE ON notes BEGIN
            INSERT INTO notes_fts(notes_fts, rowid, title, desc, headings, body)
            VALUES ('delete', old.id, old.title || ' ' || old.aliases, old.desc,
                    old.headings || ' ' || old.tags, old.body);
            INSERT INTO notes_fts(rowid, title, desc, headings, body)
            VALUES (new.id, new.title || ' ' || new.aliases, new.desc,
                    new.headings || ' ' || new.tags, new.body);
        END
        """
    )
    db.execute("PRAGMA user_version = 2")


@migrations()
def m003_vocab(db: Database) -> None:
    """``vocab``: the notes' own words with document frequencies, for correction and rarity."""
    db.execute(
        """
        CREATE TABLE vocab ( -- spellfix-style vocabulary: every unstemmed word of the notes
            word TEXT PRIMARY KEY,             -- folded like the FTS5 tokenizer
            length INTEGER NOT NULL,           -- characters in word
            doc_freq INTEGER NOT NULL,         -- notes containing the word anywhere
            title_doc_freq INTEGER NOT NULL,   -- notes with it in the title (or an alias)
            desc_doc_freq INTEGER NOT NULL,    -- notes with it in the description
            headings_doc_freq INTEGER NOT NULL, -- notes with it in a heading (or a tag)
            meta_doc_freq INTEGER NOT NULL,    -- notes with it in title, desc or headings
            phonetic TEXT NOT NULL             -- Metaphone key (jellyfish)
        ) WITHOUT ROWID
        """
    )
    db.execute("CREATE INDEX vocab_phonetic ON vocab(phonetic)")
    db.execute("PRAGMA user_version = 3")


@migrations()
def m004_decisions(db: Database) -> None:
    """``decisions``: every message the hook saw and what it surfaced."""
    db.execute(
        """
        CREATE TABLE decisions ( -- one row per message judged by the hook
            id INTEGER PRIMARY KEY,
            time TEXT NOT NULL,            -- UTC, ISO 8601
            session_id TEXT NOT NULL DEFAULT '',
            cwd TEXT NOT NULL DEFAULT '',
            prompt TEXT,                   -- NULL when prompt logging is off or purged
            spoken INTEGER NOT NULL DEFAULT 0,
            line TEXT NOT NULL DEFAULT '',
            notes TEXT NOT NULL DEFAULT '[]',      -- JSON array of note paths, in order
            top_scores TEXT NOT NULL DEFAULT '[]', -- JSON array of the best candidates' scores
            route TEXT NOT NULL DEFAULT '',        -- strong, lead, rare, or why it stayed silent
            elapsed_ms REAL NOT NULL DEFAULT 0,
            error TEXT NOT NULL DEFAULT '',
            label TEXT NOT NULL DEFAULT '',        -- right, wrong or missed, set by notesdb label
            label_note TEXT NOT NULL DEFAULT ''    -- the note that should have come
        )
        """
    )
    db.execute("CREATE INDEX decisions_time ON decisions(time)")
    db.execute("PRAGMA user_version = 4")


@migrations()
def m005_fts_vocab(db: Database) -> None:
    """``notes_fts_terms``: FTS5's own view of every word occurrence (term, doc, col, offset)."""
    db.execute(
        "CREATE VIRTUAL TABLE notes_fts_terms USING fts5vocab(notes_fts, instance)"
        " -- every occurrence of every indexed word: term, doc (= notes.id), col, offset"
    )
    db.execute("PRAGMA user_version = 5")


@migrations()
def m006_english(db: Database) -> None:
    """``english``: how common each word is in general English, to discount everyday words."""
    db.execute(
        """
        CREATE TABLE english ( -- word frequencies of general English (wordfreq, CC BY-SA 4.0)
            word TEXT PRIMARY KEY,   -- folded like the FTS5 tokenizer
            zipf REAL NOT NULL       -- log10 of occurrences per billion words (3 rare .. 7 'the')
        ) WITHOUT ROWID
        """
    )
    db.conn.executemany("INSERT INTO english(word, zipf) VALUES (?, ?)", english_zipf().items())
    db.execute("PRAGMA user_version = 6")


@migrations()
def m007_vocab_drop_place_counts(db: Database) -> None:
    """``vocab``: drop the per-column document frequencies (title, desc, headings, meta).

    Judgement reads only ``doc_freq``; where a word sits in a note is read from ``notes_fts``
    per candidate (``notesdb.rank``), so these four counts were kept up to date at every sync
    and never used.
    """
    for column in ("title_doc_freq", "desc_doc_freq", "headings_doc_freq", "meta_doc_freq"):
        db.execute(f"ALTER TABLE vocab DROP COLUMN {column}")
    db.execute("PRAGMA user_version = 7")


def _notes_text(db: Database, headings: str, comment: str) -> tuple[str, str, str, str]:
    """Create the view ``notes_text`` (what ``notes_fts`` indexes) with ``headings`` as the SQL
    of its headings column (``{0}`` standing for the row), and return the four columns' SQL."""
    title = "{0}.title || ' ' || {0}.aliases || ' ' || {0}.title_extra"
    desc = "{0}.desc || ' ' || {0}.desc_extra"
    body = "{0}.body || ' ' || {0}.body_extra"
    db.execute(
        f"""
        CREATE VIEW notes_text AS -- {comment}
        SELECT id, {title.format('notes')} AS title, {desc.format('notes')} AS desc,
               {headings.format('notes')} AS headings, {body.format('notes')} AS body
        FROM notes WHERE searchable
        """
    )
    return title, desc, headings, body


def _notes_triggers(db: Database, columns: tuple[str, str, str, str]) -> None:
    """Create the triggers that keep ``notes_fts`` in line with ``notes``, on ``columns``
    (:func:`_notes_text`)."""

    def cols(row: str) -> str:
        return ", ".join(c.format(row) for c in columns)

    db.execute(
        f"""
        CREATE TRIGGER notes_ai AFTER INSERT ON notes WHEN new.searchable BEGIN
            INSERT INTO notes_fts(rowid, title, desc, headings, body) VALUES (new.id, {cols('new')});
        END
        """
    )
    db.execute(
        f"""
        CREATE TRIGGER notes_ad AFTER DELETE ON notes WHEN old.searchable BEGIN
            INSERT INTO notes_fts(notes_fts, rowid, title, desc, headings, body)
            VALUES ('delete', old.id, {cols('old')});
        END
        """
    )
    db.execute(
        f"""
        CREATE TRIGGER notes_au AFTER UPDATE ON notes BEGIN
            INSERT INTO notes_fts(notes_fts, rowid, title, desc, headings, body)
            SELECT 'delete', old.id, {cols('old')} WHERE old.searchable;
            INSERT INTO notes_fts(rowid, title, desc, headings, body)
            SELECT new.id, {cols('new')} WHERE new.searchable;
        END
        """
    )


@migrations()
def m008_index_extras(db: Database) -> None:
    """Extra words per column and empty notes kept out of the full-text index.

    ``notes`` gains ``title_extra``, ``desc_extra``, ``headings_extra``, ``body_extra``: words
    that FTS5's ``unicode61`` would not make of the note's text but a message may use for it
    (letters spelled out, "große" -> "grosse"; letter/digit joins, "FT-65" -> "ft65"; the file
    name's words as title words and the folder names as heading words), and ``searchable``:
    0 for a note with no text of its own (an empty placeholder or a template), which then has no
    row in ``notes_fts``, no words in ``vocab`` and no part in any IDF. ``vocab`` gains ``rev``,
    the word reversed, so that the words ending in a message word (compounds) are one range
    read. ``notes_fts`` is rebuilt on these columns and ``vocab`` recounted; every note is read
    again at the next sync (its stored size no longer matches), which fills the new columns.
    """
    for trigger in ("notes_ai", "notes_ad", "notes_au"):
        db.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    db.execute("DROP TABLE IF EXISTS notes_fts_terms")
    db.execute("DROP TABLE IF EXISTS notes_fts")
    db.execute("DROP VIEW IF EXISTS notes_text")
    db.execute("UPDATE notes SET size = -1")  # the next sync reads every note again
    db.execute("DELETE FROM meta WHERE key = 'listing_hash'")
    for column in ("title_extra", "desc_extra", "headings_extra", "body_extra"):
        db.execute(f"ALTER TABLE notes ADD COLUMN {column} TEXT NOT NULL DEFAULT ''")
    # (no comments on added columns: SQLite appends the definition to the table's SQL text)
    db.execute("ALTER TABLE notes ADD COLUMN searchable INTEGER NOT NULL DEFAULT 1")
    db.execute("ALTER TABLE vocab ADD COLUMN rev TEXT NOT NULL DEFAULT ''")
    db.execute("CREATE INDEX vocab_rev ON vocab(rev)")
    columns = _notes_text(
        db, "{0}.headings || ' ' || {0}.tags || ' ' || {0}.headings_extra",
        "what notes_fts indexes: aliases count as title, tags as\n        -- headings, each column's extra words go with it; notes with no text are left out",
    )
    db.execute(
        """
        CREATE VIRTUAL TABLE notes_fts USING fts5( -- full-text index of notes, rowid = notes.id
            title, desc, headings, body,
            content = 'notes_text', content_rowid = 'id',
            tokenize = 'unicode61 remove_diacritics 2'
        )
        """
    )
    db.execute("INSERT INTO notes_fts(notes_fts, rank) VALUES ('rank', 'bm25(3.0, 2.0, 2.0, 1.0)')")
    _notes_triggers(db, columns)
    db.execute(
        "CREATE VIRTUAL TABLE notes_fts_terms USING fts5vocab(notes_fts, instance)"
        " -- every occurrence of every indexed word: term, doc (= notes.id), col, offset"
    )
    db.execute("INSERT INTO notes_fts(notes_fts) VALUES ('rebuild')")
    rebuild_vocab(db.conn)
    db.execute("PRAGMA user_version = 8")


@migrations()
def m009_lexicon(db: Database) -> None:
    """``lexicon``: how common each everyday word is in other languages than English."""
    db.execute(
        """
        CREATE TABLE lexicon ( -- everyday words of other languages (wordfreq, CC BY-SA 4.0)
            word TEXT NOT NULL,      -- folded like notesdb.text.words
            lang TEXT NOT NULL,      -- ISO 639-1 code: de, fr, es, ...
            zipf REAL NOT NULL,      -- log10 of occurrences per billion words in that language
            PRIMARY KEY (word, lang)
        ) WITHOUT ROWID
        """
    )
    db.conn.executemany("INSERT INTO lexicon(word, lang, zipf) VALUES (?, ?, ?)", lexicon_rows())
    db.execute("PRAGMA user_version = 9")


@migrations()
def m010_application_id(db: Database) -> None:
    """Stamp the file as notesdb's: ``PRAGMA application_id`` (``notesdb.db.APPLICATION_ID``),
    so that a database of another application given as ``--db`` is recognised and left alone."""
    db.execute("PRAGMA application_id = 1853121634")  # 0x6E746462, "ntdb"
    db.execute("PRAGMA user_version = 10")


@migrations()
def m011_note_vectors(db: Database) -> None:
    """``note_vectors``: embeddings of the notes for matching by meaning (``notesdb.vectors``),
    filled by the resident process or ``notesdb index --meaning``, never by the hook."""
    db.execute(
        """
        CREATE TABLE note_vectors ( -- unit vectors of a note's texts (notesdb[meaning]); none without it
            path TEXT NOT NULL,   -- notes.path
            part INTEGER NOT NULL, -- 0: title, description, headings; 1: that and the body's start; 2..: body chunks
            hash TEXT NOT NULL,   -- notes.hash when embedded: a vector whose note changed since is stale
            model TEXT NOT NULL,  -- the weights (file, size, sha256 prefix): another model's vectors are stale
            vec BLOB NOT NULL,    -- float32, little-endian, L2 norm 1
            PRIMARY KEY (path, part)
        ) WITHOUT ROWID
        """
    )
    db.execute("PRAGMA user_version = 11")


@migrations()
def m012_english_rare(db: Database) -> None:
    """``english_rare``: the English words rarer than ``english``'s (wordfreq's large list), read
    only so that a rare word English knows is not corrected into a note's word that is no
    commoner ("wipers" is not a typo of "wipefs": ``notesdb.query.likelier``), nor taken for a
    made-up name (``notesdb.gate.coined_name``). Created empty: filling it takes 0.3-0.8 s,
    which no hook call can spare, so the first sync without a deadline fills it
    (``notesdb.vocab.fill_english_rare``: ``index``, ``check``, ``search``, ``doctor --repair``,
    the resident process), never the hook; until then corrections are made as before and no
    word is taken for a made-up name.
    """
    db.execute(
        """
        CREATE TABLE english_rare ( -- rarer English words (wordfreq large list, CC BY-SA 4.0)
            word TEXT PRIMARY KEY,   -- folded like the FTS5 tokenizer; 2 or more letters
            zipf REAL NOT NULL       -- log10 of occurrences per billion words (1.5 .. 3)
        ) WITHOUT ROWID
        """
    )
    db.execute("PRAGMA user_version = 12")


def _reread(db: Database, where: str) -> None:
    """Mark the notes matching the SQL condition ``where`` to be read and parsed again at the
    next sync (``notesdb.db.mark_for_reread``)."""
    mark_for_reread(db.conn, where)


@migrations()
def m013_links(db: Database) -> None:
    """``notes.links``: the notes a note's links name (a JSON array of folded targets,
    ``notesdb.links.targets``), so that the gate can tell notes that tie because they are one
    subject, one linking to the other (``notesdb.gate.linked_tie``). Every note is read and
    parsed again at the next sync (its stored size and hash no longer match), which fills it.
    """
    db.execute("ALTER TABLE notes ADD COLUMN links TEXT NOT NULL DEFAULT '[]'")
    _reread(db, "1")  # every note
    db.execute("PRAGMA user_version = 13")


#: A hyphen before what a file name keeps of a contraction or possessive, as
#: ``notesdb.text.joined_pairs`` joined it before ``text.CONTRACTION_PARTS`` (case-insensitive;
#: any word character before it, so it marks a few notes more than it must, never fewer).
_CONTRACTION_JOIN = re.compile(r"\w[-\u2010\u2011](?:s|t|d|m|ll|re|ve)(?!\w)", re.IGNORECASE)


def _joins_contraction(text: str | None) -> int:
    return 1 if text and _CONTRACTION_JOIN.search(text) else 0


@migrations()
def m014_reread_contractions(db: Database) -> None:
    """The notes whose indexed words joined what a file name keeps of a possessive or
    contraction ("gits" and "smagic" of ``git-s-magic-files.md``; ``notesdb.text.CONTRACTION_PARTS``
    now keeps them apart) are read and parsed again at the next sync: those whose path or text
    holds a hyphen before such a part. Until a note is read again its row answers as before.
    Marked as ``m013_links`` marks every note (no stored size or hash matches, the folder's
    listing is forgotten), but only these: re-reading a whole folder costs the hook its sync
    budget on every message until it is done (7,219 notes: about 175 a message).
    """
    db.conn.create_function("joins_contraction", 1, _joins_contraction, deterministic=True)
    _reread(
        db,
        "joins_contraction(path) OR joins_contraction(title) OR joins_contraction(desc) "
        "OR joins_contraction(headings) OR joins_contraction(body) OR joins_contraction(aliases)",
    )
    db.execute("PRAGMA user_version = 14")


@migrations()
def m015_lexicon_korean(db: Database) -> None:
    """Korean's everyday words in ``lexicon`` (``notesdb.vocab.LANGUAGES`` gained ``ko``): a
    database made before holds the other languages' only; one made since has them from
    ``m009_lexicon`` already."""
    if db.execute("SELECT 1 FROM lexicon WHERE lang = 'ko' LIMIT 1").fetchone() is None:
        db.conn.executemany("INSERT INTO lexicon(word, lang, zipf) VALUES (?, ?, ?)", lexicon_rows(("ko",)))
    db.execute("PRAGMA user_version = 15")


_NAME_PARTS = re.compile(r"[-_\s]+")


def _named_by_file(path: str | None, title: str | None, headings: str | None) -> int:
    """1 for a note whose title may change when read again: one named for its folder, or one
    whose title was its file name while it has headings (an H1 under a logo was taken for a
    section heading)."""
    if not path:
        return 0
    name = path.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name[1:] else name
    if "/" in path and stem.lower() in FOLDER_NOTE_STEMS:  # below the top of the notes folder
        return 1
    return 1 if headings and title == " ".join(_NAME_PARTS.sub(" ", stem).split()) else 0


@migrations()
def m016_reread_folder_notes(db: Database) -> None:
    """The notes whose title a sync now reads differently are read and parsed again at the next
    sync: a folder's ``README.md`` or ``index.md`` is named by its folder (``notesdb.vocab.name_words``),
    and an H1 under a paragraph of images (a logo, badges) is the title (``notesdb.parse``).
    Marked as ``m014_reread_contractions`` marks its notes: only the notes named for their folder
    and those titled by their file name that have headings."""
    db.conn.create_function("named_by_file", 3, _named_by_file, deterministic=True)
    _reread(db, "named_by_file(path, title, headings)")
    db.execute("PRAGMA user_version = 16")


@migrations()
def m017_reread_single_byte_notes(db: Database) -> None:
    """The notes stored with the problem "not valid UTF-8: undecodable bytes replaced" are read
    and parsed again at the next sync: those whose bytes hold no UTF-8 sequence are now read as
    Windows-1252 (``notesdb.parse._decode``), their accented words kept. Marked as
    ``m016_reread_folder_notes`` marks its notes."""
    _reread(db, "problems LIKE '%not valid UTF-8: undecodable bytes replaced%'")
    db.execute("PRAGMA user_version = 17")


@migrations()
def m018_anchor_text(db: Database) -> None:
    """Anchor text: what a note's links call the notes they name counts as headings of the
    linked note (``notesdb.links.anchors``, ``notesdb.links.incoming``).

    ``notes`` gains ``anchors_out``, each link's ``[key, tail, text]`` as JSON, and ``anchors``,
    the text the other notes' links give this one (one per line; kept by every sync that
    changed a note), which ``notes_text`` and the triggers add to the headings column of
    ``notes_fts``. It is empty until the next sync, so the full-text rows stay as they are;
    every note is read and parsed again at the next sync, which fills both columns.
    """
    have = {row[1] for row in db.execute("PRAGMA table_info(notes)").fetchall()}
    for column, default in (("anchors_out", "'[]'"), ("anchors", "''")):
        if column not in have:  # (a database left as an older schema by hand may have them)
            db.execute(f"ALTER TABLE notes ADD COLUMN {column} TEXT NOT NULL DEFAULT {default}")
    for trigger in ("notes_ai", "notes_ad", "notes_au"):
        db.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    db.execute("DROP VIEW IF EXISTS notes_text")
    columns = _notes_text(
        db, "{0}.headings || ' ' || {0}.tags || ' ' || {0}.headings_extra || ' ' || {0}.anchors",
        "what notes_fts indexes: aliases count as title, tags and the\n        -- anchor text of links to the note as headings, each column's extra words go with it;\n        -- notes with no text are left out",
    )
    _notes_triggers(db, columns)
    _reread(db, "1")  # every note
    db.execute("PRAGMA user_version = 18")


def _titled_by_spaced_name(path: str | None, title: str | None) -> int:
    """1 for a note whose file name an older sync read otherwise: one titled by a file name
    (or folder name) with spaces whose hyphens it read as spaces ("Data Engineering
    Backfills" of ``Data Engineering - Backfills.md``), and one whose file name is
    percent-encoded (Logseq's ``Foo%3ABar.md``: its title and file-name words change)."""
    if not path:
        return 0
    stem = file_stem(path)
    if decoded_name(stem) != stem:
        return 1
    old = " ".join(_NAME_PARTS.sub(" ", stem).split())
    return 1 if title and title == old and " ".join(readable_name(stem).split()) != old else 0


@migrations()
def m019_reread_spaced_file_names(db: Database) -> None:
    """A note titled by its file name keeps the hyphens and dashes of a name with spaces
    (``notesdb.parse.readable_name``: "Data Engineering - Backfills", not "Data Engineering
    Backfills"), and a percent-encoded file name is read decoded (``notesdb.vocab.decoded_name``:
    Logseq's ``Foo%3ABar.md`` is "Foo:Bar"): the notes an older sync read otherwise are read and
    parsed again at the next sync, marked as ``m016_reread_folder_notes`` marks its notes."""
    db.conn.create_function("titled_by_spaced_name", 2, _titled_by_spaced_name, deterministic=True)
    _reread(db, "titled_by_spaced_name(path, title)")
    db.execute("PRAGMA user_version = 19")


_PROPERTY_LINE = re.compile(r"[^\s:]+::(?=[ \t\u00a0\n]|$)")


def _starts_with_property(body: str | None) -> int:
    """1 for a note whose text, as an older sync stored it, starts with a ``key:: value`` line:
    a Logseq page's properties (``notesdb.parse.page_properties``), read as text before (also
    ``title::`` with no value)."""
    return 1 if body and _PROPERTY_LINE.match(body) else 0


@migrations()
def m020_reread_page_properties(db: Database) -> None:
    """Logseq's page properties (``title::``, ``alias::``, ``tags::``, ``description::`` lines at
    the top of a note) are read as front matter (``notesdb.parse.page_properties``; other
    properties stay text): the notes
    whose stored text starts with such a line are read and parsed again at the next sync,
    marked as ``m016_reread_folder_notes`` marks its notes."""
    db.conn.create_function("starts_with_property", 1, _starts_with_property, deterministic=True)
    _reread(db, "starts_with_property(body)")
    db.execute("PRAGMA user_version = 20")


def _read_anew(path: str | None, title: str | None, aliases: str | None, headings: str | None, body: str | None) -> int:
    """1 for a note this schema reads otherwise than an older sync did: a file or folder name
    an app wrote with more than the name (``notesdb.vocab.decoded_name``: Notion's page IDs,
    ``Garden shed 1a2b...f809.md`` in a folder ``Projects 8c3e...6a7b``; a percent-encoded
    folder name); a title, file name or alias with a camel-case word
    (``notesdb.text.camel_parts``: "18_LogSegments", whose parts are now title words); a stored
    title, headings or text that may hold an app's data (``notesdb.parse.without_app_data``:
    ``%%``, ``^``, the Excalidraw notice's ``⚠`` or its section headings; a note that holds them
    otherwise is read again for nothing)."""
    if not path:
        return 0
    parts = path.split("/")
    if any(decoded_name(part) != part for part in parts[:-1] + [file_stem(path)]):
        return 1
    if any(mark in text for text in (title or "", headings or "", body or "") for mark in _APP_DATA_MARKS):
        return 1
    return camel_named(path, title, aliases)


#: What a note's stored text holds when it may hold an app's data (``_read_anew``).
_APP_DATA_MARKS: Final = ("%%", "^", "\u26a0", "Excalidraw Data", "Text Elements")


@migrations()
def m021_reread_names_and_app_data(db: Database) -> None:
    """A file or folder name is read without the page ID Notion's export writes after it
    (``notesdb.vocab.decoded_name``), the parts of a camel-case word of a note's names are title
    words (``notesdb.text.extra_words``), and an app's data in a note (an Excalidraw drawing's
    JSON, block IDs: ``notesdb.parse.without_app_data``) is not its text: the notes an older
    sync read otherwise are read and parsed again at the next sync, marked as
    ``m016_reread_folder_notes`` marks its notes."""
    db.conn.create_function("read_anew", 5, _read_anew, deterministic=True)
    _reread(db, "read_anew(path, title, aliases, headings, body)")
    db.execute("PRAGMA user_version = 21")


@migrations()
def m022_lexicon_rare(db: Database) -> None:
    """``lexicon_rare``: the other languages' words rarer than ``lexicon``'s (wordfreq's small
    lists below Zipf 4), read only so that such a word is not taken for a made-up name
    ("fitnessstudio" in "schreib mir ein kündigungsschreiben für mein fitnessstudio" is German,
    not a name the user coined: ``notesdb.gate.coined_name``). Created empty and filled by the
    first sync without a deadline, as ``english_rare`` is (``notesdb.vocab.fill_english_rare``);
    until then such words are read as before."""
    db.execute(
        """
        CREATE TABLE IF NOT EXISTS lexicon_rare ( -- rarer words of the other languages (wordfreq small lists, CC BY-SA 4.0)
            word TEXT PRIMARY KEY    -- folded like notesdb.text.words; Latin letters only
        ) WITHOUT ROWID
        """
    )
    db.execute("PRAGMA user_version = 22")


@migrations()
def m023_reread_site_notes(db: Database) -> None:
    """Notes are read as a static site or a plugin reads them: TOML and JSON front matter are
    front matter (``notesdb.parse._toml_front_matter``, ``_json_front_matter``), Jekyll's
    ``excerpt`` is a description, a site generator's tags are what the page shows
    (``notesdb.parse.without_site_tags``), a plugin's query or settings block, Dataview's
    inline queries, a callout's marker and IDs written as text are no text
    (``notesdb.parse.without_app_data``), admonitions read as their title and text
    (``without_admonition_markers``), LaTeX math's layout commands are no words
    (``without_math_commands``), the values of the other front matter properties are text
    (``property_text``), a heading's anchor is not its text (``without_attributes``) and an
    alias that is a page's address is not a name (``url_alias``). What an older sync stored
    cannot tell such notes apart (a fenced block's info string, an ``excerpt``, an admonition's
    indent, the other properties were not kept), so every note is read and parsed again at the
    next sync, as ``m013_links`` had them read: the hook's sync does it within its deadline,
    some notes a message, and ``notesdb index`` at once."""
    _reread(db, "1")  # every note
    db.execute("PRAGMA user_version = 23")


@migrations()
def m024_reread_outliner_pages(db: Database) -> None:
    """An outliner's pages are read as Logseq and Roam show them
    (``notesdb.parse.without_outliner_markup``, ``notesdb.parse.APP_FIELDS``): their macros
    (``{{query ...}}``, ``{{embed ...}}``) are no placeholders, so a short page holding one is a
    note, not a template left out of the search; an empty block is not the heading underline of
    the block above it; the fields Logseq keeps for itself (``collapsed:: true``) and a task's
    ``:LOGBOOK:`` are no words; a placeholder shown in code does not make a template; an item
    of Joplin's sync folder is read as its note (``notesdb.parse.joplin_item``). A heading read from an empty block leaves no trace in what an
    older sync stored, so every note is read and parsed again at the next sync, as
    ``m023_reread_site_notes`` had them read."""
    _reread(db, "1")  # every note
    db.execute("PRAGMA user_version = 24")


@migrations()
def m025_decisions_attached(db: Database) -> None:
    """``decisions.attached``: the notes a message attached itself with an ``@``-mention
    (``notesdb.mentions``), which the client put in the assistant's context; the conversation
    rule (``notesdb.conversation.earlier``) reads them back as named. Empty for older rows."""
    if "attached" not in {c.name for c in db["decisions"].columns}:  # (a copy made after it, marked older)
        db.execute("ALTER TABLE decisions ADD COLUMN attached TEXT NOT NULL DEFAULT '[]'")
    db.execute("PRAGMA user_version = 25")


@migrations()
def m026_reread_properties_above_a_block(db: Database) -> None:
    """Page properties followed right away by the page's first block (``title:: Toggl API``
    then ``- # Toggl Track API v9``, no blank line between) are read as page properties
    (``notesdb.parse.page_properties``): an older sync kept them as text, so the notes whose
    stored text starts with a ``key:: value`` line are read and parsed again at the next sync,
    as ``m020_reread_page_properties`` marks them."""
    db.conn.create_function("starts_with_property", 1, _starts_with_property, deterministic=True)
    _reread(db, "starts_with_property(body)")
    db.execute("PRAGMA user_version = 26")


#: A month before a number or a word before a year, as ``notesdb.text.joined_pairs`` joined
#: the two before ``text.MONTHS`` and ``text.YEARS`` kept them apart ("January 2024" ->
#: "january2024", "Budget 2026" -> "budget2026"; after a space, tab or hyphen), read in the
#: folded text (``text.fold``: "Février 2025" -> "fevrier 2025"). Any run of letters before a
#: year matches, so it marks a few notes more than it must ("Shipped 2024"), never fewer.
_DATE_JOIN = re.compile(
    r"\b(?:(?:%s)[-\u2010\u2011 \t]\d|[a-z]+[-\u2010\u2011 \t](?:19|20)\d\d(?!\d))"
    % "|".join(sorted(MONTHS, key=len, reverse=True))
)


def _joins_date(text: str | None) -> int:
    return 1 if text and _DATE_JOIN.search(text if text.isascii() and text.islower() else fold(text)) else 0


@migrations()
def m027_reread_dates(db: Database) -> None:
    """A month and the number after it ("2 January 2024", "Sept 3") and a word and the year after
    it ("Budget 2026") are two words, not one joined name (``notesdb.text.MONTHS`` and
    ``YEARS``): an older sync indexed "january2024", a word of the notes that wrote the date
    without a comma alone, which outweighed the rest of a question about that month, and
    "budget2026", a rare name of a yearly note. The notes whose path or text holds a month name
    before a number, or letters before a year, are read and parsed again at the next sync, as
    ``m014_reread_contractions`` marks them."""
    db.conn.create_function("joins_date", 1, _joins_date, deterministic=True)
    _reread(
        db,
        "joins_date(path) OR joins_date(title) OR joins_date(desc) "
        "OR joins_date(headings) OR joins_date(body) OR joins_date(aliases)",
    )
    db.execute("PRAGMA user_version = 27")

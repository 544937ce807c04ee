"""The schema of a notesdb database, as an append-only list of sqlite-utils migrations.

Each function is one change, applied once, in order, inside a transaction, and recorded in
``_sqlite_migrations``. Every migration also sets ``PRAGMA user_version`` to its number, so the
hook can tell with one plain ``sqlite3`` read whether anything is pending without importing
sqlite-utils. Never edit a shipped migration: add a new one and bump
``notesdb.db.SCHEMA_VERSION``.

Nothing here calls a function registered from Python: the file works in the plain ``sqlite3``
shell and in Datasette.
"""

from sqlite_utils import Database, Migrations

from notesdb.vocab import english_zipf

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


@migrations()
def m008_application_id(db: Database) -> None:
    """Stamp the file as notesdb's: ``PRAGMA application_id`` (``notesdb.db.APPLICATION_ID``),
    so that a database of another application given as ``--db`` is recognised and left alone."""
    db.execute("PRAGMA application_id = 1853121634")  # 0x6E746462, "ntdb"
    db.execute("PRAGMA user_version = 8")

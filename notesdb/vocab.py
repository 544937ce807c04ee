"""The vocabulary: every word of the notes with its document frequency, and the English table.

``vocab`` holds each distinct word of the notes (folded like the FTS5 tokenizer), how many
notes hold it (``doc_freq``, for IDF) and its Metaphone key (for typo correction). A sync
counts the words of each note it writes or removes and applies the difference in the same
transaction; :func:`rebuild_vocab` recounts from scratch. ``english`` holds how common each
word is in general English (wordfreq), filled once by a migration.
"""

from __future__ import annotations

import json
import re
import sqlite3
import urllib.parse
from collections import Counter

from notesdb.text import camel_parts, extra_words, words

TYPE_CHECKING = False  # not typing's: the hook does not import typing (about 3 ms of every message)
if TYPE_CHECKING:  # the parser is imported only when a note is parsed
    from typing import Any, Callable, Final

    from notesdb.parse import Note

__all__ = [
    "note_row", "row_words", "add_counts", "apply_counts", "rebuild_vocab", "english_zipf",
    "english_rare_zipf", "fill_english_rare", "english_rare_filled", "rare_words_filled", "lexicon_rows", "LANGUAGES",
    "name_words", "file_stem", "decoded_name", "camel_named", "lexicon_rare_words", "FOLDER_NOTE_STEMS",
]  # fmt: skip

#: The text columns of ``notes`` that ``notes_fts`` indexes, in ``row_words`` order, and
#: ``searchable`` last.
ROW_TEXT = (
    "SELECT title, aliases, desc, headings, tags, body, "
    "title_extra, desc_extra, headings_extra, body_extra, searchable FROM notes"
)

Row = tuple[str, str, str, str, str, str, str, str, str, str, int]


#: File names (without extension, any case) that stand for the folder they are in rather than
#: name a subject of their own: a folder's ``README.md`` (GitHub shows it as the folder's page),
#: ``index.md`` (MkDocs, Docusaurus, Jekyll) and ``_index.md`` (Hugo's section page). Such a
#: note is named by its folder: ``recipes/09_SMaSH_Sabro/README.md`` is "09_SMaSH_Sabro".
FOLDER_NOTE_STEMS: Final = frozenset({"readme", "index", "_index"})


def name_words(path: str) -> tuple[str, str]:
    """The words of a note's file name (title words) and of its folders (heading words).

    :param path: the note's folder-relative POSIX path
    :returns: ``(file name without extension, folder names joined by spaces)``; the file name
        of a note named for its folder (:data:`FOLDER_NOTE_STEMS`) is its folder's name, and a
        ``README.md`` at the top of the notes folder keeps its own
    """
    parts = path.split("/")
    return decoded_name(file_stem(path)), " ".join(decoded_name(part) for part in parts[:-1])


def file_stem(path: str) -> str:
    """A note's file name without its extension, as written; a note named for its folder
    (:data:`FOLDER_NOTE_STEMS`) below the top of the notes folder has its folder's name."""
    parts = path.split("/")
    stem = parts[-1].rsplit(".", 1)[0] if "." in parts[-1] else parts[-1]
    if len(parts) > 1 and parts[-2] and stem.lower() in FOLDER_NOTE_STEMS:
        stem = parts[-2]
    return stem


def camel_named(path: str | None, title: str | None, aliases: str | None) -> int:
    """1 for a note whose title, file name or aliases (as stored: a JSON list) hold a camel-case
    word (``notesdb.text.camel_parts``: "18_LogSegments"), whose words the index reads as title
    words once English's rare words can tell a name English knows (``notesdb.sync``), else 0.
    An SQL function for marking notes to be read again (``notesdb.db.mark_for_reread``)."""
    names = (title or "", file_stem(path) if path else "", aliases or "")
    return 1 if any(camel_parts(name) for name in names) else 0


_PERCENT: Final = re.compile(r"%[0-9A-Fa-f]{2}")
#: The page ID Notion's Markdown export writes after each page's name, in its file name and in
#: the name of the folder of its sub-pages: a space and 32 lower-case hex digits, a UUID's
#: (``Garden shed 1a2b3c4d5e6f708192a3b4c5d6e7f809.md``), not all of them digits (an order
#: number of 32 digits is the user's).
_NOTION_ID: Final = re.compile(r"\s(?=[0-9]*[a-f])[0-9a-f]{32}$")


def decoded_name(stem: str) -> str:
    """A file or folder name as the app that wrote it meant it.

    - Logseq writes the page "Foo: Bar" to ``Foo%3A Bar.md``, percent-encoding (RFC 3986
      section 2.1) the characters a file name cannot hold. Decoded when the name holds a ``%``
      and two hex digits and the decoded bytes are UTF-8; any other name ("100% sure") stays.
    - Notion's export names the page "Garden shed" ``Garden shed 1a2b...f809.md``: a space and
      the page's 32-digit hex ID (:data:`_NOTION_ID`) follow the name, which is read without
      them. A name that is nothing but an ID stays as it is.
    - Obsidian's Excalidraw plugin names the drawing "Heating system" ``Heating
      system.excalidraw.md``: the ``.excalidraw`` before the extension marks the note as a
      drawing and is not part of its name.
    """
    if "%" in stem and _PERCENT.search(stem):
        try:
            stem = urllib.parse.unquote_to_bytes(stem).decode("utf-8")
        except UnicodeDecodeError:
            pass
    if stem.endswith(".excalidraw") and len(stem) > 11:
        stem = stem[:-11]
    if len(stem) > 33 and _NOTION_ID.search(stem):
        name = stem[:-33].rstrip()
        if name:
            return name
    return stem


def note_row(note: Note, english: "Callable[[str], bool] | None" = None) -> Row:
    """A parsed note as the text columns of its ``notes`` row (aliases and tags as JSON), with
    each column's extra words (``notesdb.text.extra_words``: letters spelled out, letter/digit
    joins, the file name's words with the title and the folder names with the headings) and
    whether it is searchable at all: a note with no text besides its title (an empty
    placeholder) or a template is not.
    """
    aliases = json.dumps(note.aliases, ensure_ascii=False)
    tags = json.dumps(note.tags, ensure_ascii=False)
    stem, folders = name_words(note.path)
    searchable = int(not note.template and bool(words(note.desc + " " + note.headings + " " + note.body)))
    return (
        note.title,
        aliases,
        note.desc,
        note.headings,
        tags,
        note.body,
        " ".join(extra_words(note.title + " " + aliases, stem, english)),
        " ".join(extra_words(note.desc)),
        " ".join(extra_words(note.headings + " " + tags, folders)),
        " ".join(extra_words(note.body)),
        searchable,
    )


def row_words(row: Row) -> set[str]:
    """Every distinct word of a note row as a message is searched by (``notesdb.text.words``);
    each is a term of ``notes_fts`` for the row. None for a row that is not searchable."""
    if not row[10]:
        return set()
    return set(words(" ".join(row[:10])))


def add_counts(delta: Counter[str], words: set[str], sign: int) -> None:
    """Count a note's words in (``sign`` +1) or out (-1) of a pending vocabulary change."""
    for w in words:
        delta[w] += sign


def apply_counts(conn: sqlite3.Connection, delta: Counter[str]) -> None:
    """Apply a vocabulary change inside the caller's transaction; words no note holds go."""
    import jellyfish

    rows = [
        (w, len(w), c, jellyfish.metaphone(w) if w.isalpha() else "", w[::-1])
        for w, c in delta.items()
        if c
    ]
    conn.executemany(
        """
        INSERT INTO vocab(word, length, doc_freq, phonetic, rev) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT(word) DO UPDATE SET doc_freq = doc_freq + excluded.doc_freq
        """,
        rows,
    )
    conn.execute("DELETE FROM vocab WHERE doc_freq <= 0")


def rebuild_vocab(conn: sqlite3.Connection) -> int:
    """Recount the whole ``vocab`` table from ``notes`` (inside the caller's transaction, if any).

    :returns: the number of distinct words
    """
    delta: Counter[str] = Counter()
    for row in conn.execute(ROW_TEXT):
        add_counts(delta, row_words(row), +1)
    conn.execute("DELETE FROM vocab")
    apply_counts(conn, delta)
    return len(delta)


def english_zipf() -> dict[str, float]:
    """Zipf frequencies of the ~29,000 commonest English words, from wordfreq's ``small`` list.

    Read straight from the package's ``small_en.msgpack.gz`` (:func:`_wordfreq_list`). Words
    are folded like the FTS5 tokenizer; Zipf is rounded to 0.01.
    """
    out: dict[str, float] = {}
    for word, zipf in _wordfreq_list("en"):
        if word.isalnum():
            out.setdefault(word.lower(), round(zipf, 2))
    return out


#: The rarest words kept in ``english_rare`` (Zipf: 1.5 is about one occurrence in 30 million
#: words). The table is only read to keep a rare word English knows from being corrected into a
#: note's word (``notesdb.query.likelier``) or taken for a made-up name: below 1.5, wordfreq's
#: large list is mostly misspellings ("kestral" 1.0), which should stay correctable, and the
#: table would double (270,000 words from 1.0, 132,000 from 1.5).
RARE_ENGLISH_MIN_ZIPF: Final = 1.5


def english_rare_zipf() -> dict[str, float]:
    """Zipf frequencies of the English words of wordfreq's ``large`` list that its ``small`` list
    (:func:`english_zipf`, Zipf 3 and more) lacks, down to ``RARE_ENGLISH_MIN_ZIPF``: the words
    of two or more letters, folded like ``notesdb.text.words``. About 132,000 words
    ("wipers" 2.81, "postgres" 1.96, "jot" 2.86, "sheild" 1.64: misspellings common enough are
    listed too). A typo correction applies only to words of four or more letters
    (``notesdb.query.correct``), but a made-up name can be shorter (``notesdb.gate.coined_name``:
    "jot" and "nix" are not made up).

    :returns: ``{word: zipf}``, Zipf rounded to 0.01
    """
    small = english_zipf()  # the two lists differ on a few words near Zipf 3 ("nix": 3.0, large only)
    out: dict[str, float] = {}
    for word, zipf in _wordfreq_list("en", "large", RARE_ENGLISH_MIN_ZIPF):
        if len(word) < 2 or not word.isalpha():
            continue
        folded = words(word) if not word.isascii() else [word.lower()]
        if len(folded) == 1 and folded[0] not in small:
            out.setdefault(folded[0], round(zipf, 2))
    return out


#: Rows of ``english_rare`` written per transaction: a few tens of milliseconds each, so that
#: a hook logging its decision meanwhile waits that long at most, never the whole fill.
FILL_CHUNK: Final = 10_000
#: The ``meta`` key saying that ``english_rare`` was filled to its end (its value: the rows).
FILLED_KEY: Final = "english_rare_filled"


def fill_english_rare(conn: sqlite3.Connection) -> int:
    """Fill the ``english_rare`` table (:func:`english_rare_zipf`) unless it was filled to its
    end, ``FILL_CHUNK`` rows per write transaction, then record it in ``meta`` (``FILLED_KEY``).
    Another process filling it at the same time only repeats the work (``INSERT OR IGNORE``); a
    fill cut short is finished by the next. About 0.3-0.8 s and 3 MB of database on 2 cores.
    A database that cannot be written now (read-only, or another writer holding it past the
    busy timeout), or whose table was dropped, is left as it is: the table only keeps rare words
    from being corrected and from being read as made-up names, and the next full sync tries
    again. It fills ``lexicon_rare`` first, the same way (:func:`_fill_lexicon_rare`). The
    transaction that records the fill also marks the notes with a camel-case name
    (:func:`camel_named`) to be read again (``notesdb.db.mark_for_reread``): until the fill their
    names were not split (``notesdb.sync``).

    :returns: the rows written (0 when the table was already filled or could not be written)
    :raises sqlite3.OperationalError: the disk is full (``notesdb.db.disk_refused``)
    """
    from notesdb.db import mark_for_reread, transaction

    try:
        _fill_lexicon_rare(conn)
        if english_rare_filled(conn):
            return 0
        rows = list(english_rare_zipf().items())
        _insert_chunks(conn, "INSERT OR IGNORE INTO english_rare(word, zipf) VALUES (?, ?)", rows)
        with transaction(conn):
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (FILLED_KEY, str(len(rows))))
            # notes with a camel-case name were read before these words could tell a name English
            # knows ("StackOverflow"), so none was split: read them again as a database filled
            # from the start would (``notesdb.sync``)
            conn.create_function("camel_named", 3, camel_named, deterministic=True)
            mark_for_reread(conn, "camel_named(path, title, aliases)")
    except sqlite3.OperationalError as e:  # read-only, busy, or the table dropped (doctor's to say)
        from notesdb.db import disk_refused

        if disk_refused(e):  # a full disk is the user's to know: the command says so
            raise
        return 0
    return len(rows)


#: The ``meta`` key saying that ``lexicon_rare`` was filled to its end (its value: the rows).
LEXICON_FILLED_KEY: Final = "lexicon_rare_filled"


def _fill_lexicon_rare(conn: sqlite3.Connection) -> None:
    """Fill ``lexicon_rare`` (:func:`lexicon_rare_words`) unless it was filled to its end, as
    :func:`fill_english_rare` fills ``english_rare`` (its own ``meta`` key, so that a database
    filled before the table existed fills it at its next full sync). About 0.3 s and 2 MB.

    :raises sqlite3.OperationalError: read-only, busy, the table missing or the disk full (the
        caller's to handle, as for ``english_rare``)
    """
    from notesdb.db import transaction

    if conn.execute("SELECT 1 FROM meta WHERE key = ?", (LEXICON_FILLED_KEY,)).fetchone() is not None:
        return
    rows = [(w,) for w in lexicon_rare_words()]
    _insert_chunks(conn, "INSERT OR IGNORE INTO lexicon_rare(word) VALUES (?)", rows)
    with transaction(conn):
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (LEXICON_FILLED_KEY, str(len(rows))))


def _insert_chunks(conn: sqlite3.Connection, sql: str, rows: list[tuple[Any, ...]]) -> None:
    """Run ``sql`` for each row, ``FILL_CHUNK`` rows per write transaction (another writer
    waits for one chunk at most)."""
    from notesdb.db import transaction

    for i in range(0, len(rows), FILL_CHUNK):
        with transaction(conn):
            conn.executemany(sql, rows[i : i + FILL_CHUNK])


def rare_words_filled(conn: sqlite3.Connection) -> bool:
    """:func:`english_rare_filled`, False when the table is missing (dropped by hand:
    ``notesdb doctor`` names it): whether a word can be told from a made-up name, and a
    camel-case name English knows from its parts."""
    try:
        return english_rare_filled(conn)
    except sqlite3.OperationalError:
        return False


def english_rare_filled(conn: sqlite3.Connection) -> bool:
    """True when the ``english_rare`` table was filled to its end (:func:`fill_english_rare`)
    and still holds its words.

    :raises sqlite3.OperationalError: the table is missing
    """
    if conn.execute("SELECT 1 FROM english_rare LIMIT 1").fetchone() is None:
        return False
    return conn.execute("SELECT 1 FROM meta WHERE key = ?", (FILLED_KEY,)).fetchone() is not None


#: Languages whose everyday words are in ``lexicon``: the languages with a wordfreq ``small``
#: list written in the Latin script that notes of English-speaking users most often mix in, and
#: Korean (its Hangul words: ``notesdb.hangul``).
LANGUAGES: Final = ("de", "fr", "es", "it", "nl", "pt", "sv", "da", "nb", "ko")
#: Words of those languages at least this common (Zipf) are kept: below it a word keeps over
#: 80% of its weight anyway (``rank.specificity`` at its default midpoint and slope), so the
#: table stays about 60,000 rows.
LEXICON_MIN_ZIPF: Final = 4.0


def _wordfreq_list(lang: str, wordlist: str = "small", lowest: float = 0.0) -> list[tuple[str, float]]:
    """``(word, zipf)`` of one wordfreq list (``small`` or ``large``), commonest first, for the
    words at Zipf ``lowest`` or more.

    Read straight from the package's ``<wordlist>_<lang>.msgpack.gz`` in wordfreq's documented
    "cB" format (bucket ``i`` holds the words at ``10 ** (-i / 100)`` of all words, so Zipf is
    ``9 - i / 100``), which avoids importing wordfreq and its text-processing dependencies (about
    14 MB); falls back to wordfreq's own API if the file is not where expected.
    """
    try:
        import gzip
        import importlib.util
        from pathlib import Path

        import msgpack

        spec = importlib.util.find_spec("wordfreq")
        if spec is None or spec.origin is None:
            raise FileNotFoundError("wordfreq")
        with gzip.open(Path(spec.origin).parent / "data" / f"{wordlist}_{lang}.msgpack.gz") as f:
            data = msgpack.load(f, raw=False)
        if not (isinstance(data[0], dict) and data[0].get("format") == "cB"):
            raise ValueError("not a cB pack")
        zipfs = ((9 - i / 100, bucket) for i, bucket in enumerate(data[1:]))
        return [(w, z) for z, bucket in zipfs if z >= lowest for w in bucket]
    except Exception:
        import wordfreq

        return sorted(
            (
                (w, z)
                for w, f in wordfreq.get_frequency_dict(lang, wordlist=wordlist).items()
                if (z := wordfreq.freq_to_zipf(f)) >= lowest
            ),
            key=lambda p: -p[1],
        )


def lexicon_rows(languages: tuple[str, ...] = LANGUAGES) -> list[tuple[str, str, float]]:
    """``(word, lang, zipf)`` for the everyday words of each of ``languages`` (Zipf at least
    ``LEXICON_MIN_ZIPF``), folded like ``notesdb.text.words``; the commonest spelling wins.

    Korean's list keeps its Hangul words only: wordfreq's Korean words are read from web text
    split into morphemes, where digits and English words ("00" at Zipf 7.1, "the") are frequent
    too, and those are English's (``notesdb.query.detect_language`` reads Korean by its script).
    """
    from notesdb.hangul import is_hangul

    out: dict[tuple[str, str], float] = {}
    for lang in languages:
        for word, zipf in _wordfreq_list(lang, lowest=LEXICON_MIN_ZIPF):
            if lang == "ko" and not is_hangul(word):
                continue
            # most words are ASCII letters and digits, one token each as they are, lower-cased:
            # the tokenizer is for the rest (a new database fills this table before its first
            # answer; tokenizing all 62,000 words took 0.4 s of it)
            folded = [word.lower()] if word.isascii() and word.isalnum() else words(word)
            if len(folded) == 1:
                out.setdefault((folded[0], lang), round(zipf, 2))
    return [(w, lang, z) for (w, lang), z in out.items()]


def lexicon_rare_words(languages: tuple[str, ...] = LANGUAGES) -> list[str]:
    """The words of the other languages' wordfreq ``small`` lists rarer than ``lexicon``'s
    (Zipf below ``LEXICON_MIN_ZIPF``, down to about 3), folded like ``notesdb.text.words``, in
    the Latin script: about 164,000 words ("fitnessstudio" 3.6 and "schach" 4.0 in German), each
    once. Read only to tell a word of one of those languages from a made-up name
    (``notesdb.query.build_query``: ``Alternative.coined``); Korean is read by its script."""
    out: dict[str, None] = {}
    for lang in languages:
        if lang == "ko":
            continue
        for word, zipf in _wordfreq_list(lang):
            if zipf >= LEXICON_MIN_ZIPF:
                continue
            folded = [word.lower()] if word.isascii() and word.isalnum() else words(word)
            if len(folded) == 1 and folded[0].isalpha() and folded[0].isascii():
                out.setdefault(folded[0], None)
    return list(out)

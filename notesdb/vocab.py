"""The vocabulary: every word of the notes with its document frequency, and the English table.

``vocab`` holds each distinct word of the notes (folded like the FTS5 tokenizer), how many
notes hold it (``doc_freq``, for IDF) and its Metaphone key (for typo correction). A sync
counts the words of each note it writes or removes and applies the difference in the same
transaction; :func:`rebuild_vocab` recounts from scratch. ``english`` holds how common each
word is in general English (wordfreq), filled once by a migration.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from typing import TYPE_CHECKING

from notesdb.text import tokenize

if TYPE_CHECKING:  # the parser is imported only when a note is parsed
    from notesdb.parse import Note

__all__ = ["note_row", "row_words", "add_counts", "apply_counts", "rebuild_vocab", "english_zipf"]

#: The text columns of ``notes`` that ``notes_fts`` indexes, in ``row_words`` order.
ROW_TEXT = "SELECT title, aliases, desc, headings, tags, body FROM notes"

Row = tuple[str, str, str, str, str, str]


def note_row(note: Note) -> Row:
    """A parsed note as the text columns of its ``notes`` row (aliases and tags as JSON)."""
    return (
        note.title,
        json.dumps(note.aliases, ensure_ascii=False),
        note.desc,
        note.headings,
        json.dumps(note.tags, ensure_ascii=False),
        note.body,
    )


def row_words(row: Row) -> set[str]:
    """Every distinct word of a note row, as ``notes_fts`` indexes it."""
    return set(tokenize(" ".join(row)))


def add_counts(delta: Counter[str], words: set[str], sign: int) -> None:
    """Count a note's words in (``sign`` +1) or out (-1) of a pending vocabulary change."""
    for w in words:
        delta[w] += sign


def apply_counts(conn: sqlite3.Connection, delta: Counter[str]) -> None:
    """Apply a vocabulary change inside the caller's transaction; words no note holds go."""
    import jellyfish

    rows = [
        (w, len(w), c, jellyfish.metaphone(w) if w.isalpha() else "")
        for w, c in delta.items()
        if c
    ]
    conn.executemany(
        """
        INSERT INTO vocab(word, length, doc_freq, phonetic) VALUES (?, ?, ?, ?)
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

    Read straight from the package's ``small_en.msgpack.gz`` in wordfreq's documented "cB"
    format (bucket ``i`` holds the words at ``10 ** (-i / 100)`` of all words, so Zipf is
    ``9 - i / 100``), which avoids importing wordfreq and its text-processing dependencies (about
    14 MB) on the hook's path; falls back to wordfreq's own API if the file is not where
    expected. Words are folded like the FTS5 tokenizer; Zipf is rounded to 0.01.
    """
    try:
        import gzip
        import importlib.util
        from pathlib import Path

        import msgpack

        spec = importlib.util.find_spec("wordfreq")
        if spec is None or spec.origin is None:
            raise FileNotFoundError("wordfreq")
        with gzip.open(Path(spec.origin).parent / "data" / "small_en.msgpack.gz") as f:
            data = msgpack.load(f, raw=False)
        if not (isinstance(data[0], dict) and data[0].get("format") == "cB"):
            raise ValueError("not a cB pack")
        pairs = ((w, 9 - i / 100) for i, bucket in enumerate(data[1:]) for w in bucket)
    except Exception:
        import wordfreq

        pairs = (
            (w, wordfreq.freq_to_zipf(freq))
            for w, freq in wordfreq.get_frequency_dict("en", wordlist="small").items()
        )
    out: dict[str, float] = {}
    for word, zipf in pairs:
        if word.isalnum():
            out.setdefault(word.lower(), round(zipf, 2))
    return out


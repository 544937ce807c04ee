"""A message -> query terms: tokens, typo corrections, prefix expansions and a safe FTS5 ``MATCH``.

Tokenising follows the FTS5 ``unicode61`` tokenizer with ``remove_diacritics 2``: runs of letters
and digits are tokens, everything else separates them, case is folded and Latin diacritics are
removed (https://sqlite.org/fts5.html#unicode61_tokenizer). English stopwords are dropped from the
query (they stay in the index).

Each remaining token becomes a :class:`Term` with its *alternatives*: the vocabulary words it may
stand for. A token found in the vocabulary stands for itself. A token that is not is

- *expanded* to the longer vocabulary words it is a prefix of, when it has 3 or more letters
  ("merc" -> "mercedes"), or else
- *corrected* to the closest vocabulary word by Damerau-Levenshtein edit distance
  (jellyfish; at most 1 edit for tokens of 4 to 7 letters, 2 from 8 letters, never for 3 or
  fewer; ties broken by document frequency).

Corrected and expanded words count for less than exact ones (``weight`` below 1).
The ``MATCH`` expression quotes every word as an FTS5 string, so no message can cause an FTS5
syntax error (https://sqlite.org/fts5.html#full_text_query_syntax).
"""

from __future__ import annotations

import math
import re
import sqlite3
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Final

import jellyfish

__all__ = [
    "Alternative",
    "Term",
    "Query",
    "tokenize",
    "fold",
    "build_query",
    "match_expression",
    "idf",
    "STOPWORDS",
]

#: Characters of the message read: the first and last half of this many. A pasted log longer
#: than this is judged on its head and tail, which is where people put their question.
MAX_MESSAGE_CHARS: Final = 12_000
#: Terms kept for one query, the rarest first (a long log has hundreds of distinct tokens).
MAX_TERMS: Final = 48
#: Prefix expansions kept per token, by document frequency.
MAX_EXPANSIONS: Final = 6
#: Evidence weight of a word reached by a typo correction, and by a correction that tied with
#: others at the same edit distance (an ambiguous guess); exact words weigh 1.0.
CORRECTED_WEIGHT: Final = 0.7
AMBIGUOUS_CORRECTED_WEIGHT: Final = 0.35
#: Evidence weight of the plural or singular form of a message word ("plug" -> "plugs").
INFLECTED_WEIGHT: Final = 0.9
#: Tokens more common in English than this Zipf frequency are not expanded as prefixes
#: ("night" is not short for "nightly"; "jelly", 3.8, may be short for "jellyfin").
PREFIX_MAX_ZIPF: Final = 4.0
#: Tokens more common in English than this are never corrected: "gonna" (5.3) is a word the
#: notes lack, not a typo; "silva" (3.8) may well be one for "silvia".
CORRECT_MAX_ZIPF: Final = 4.0
#: Evidence weight of a word reached by prefix expansion ("merc" -> "mercedes").
PREFIX_WEIGHT: Final = 0.7

# The English stopword list of the Snowball project (https://snowballstem.org/algorithms/english/stop.txt),
# plus apostrophe-less contractions and chat fillers that carry no topic.
STOPWORDS: Final = frozenset(
    """
    i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her
    hers herself it its itself they them their theirs themselves what which who whom this that these
    those am is are was were be been being have has had having do does did doing would should could
    ought a an the and but if or because as until while of at by for with about against between into
    through during before after above below to from up down in out on off over under again further
    then once here there when where why how all any both each few more most other some such no nor
    not only own same so than too very s t can will just don now d ll m o re ve y ain
    im ive id youre youve youll theyre thats whats wheres hows dont doesnt didnt isnt arent wasnt
    werent wont cant couldnt shouldnt wouldnt havent hasnt hadnt lets
    ok okay yes yeah yep nope hi hey hello thanks thank please pls lol also just really maybe
    """.split()
)

#: Combining marks unicode61 reads as part of a word and then drops (its diacritic table).
_DIACRITICS: Final = "\u0300-\u0304\u0306-\u030c\u030f\u0311\u031b\u0323-\u0328\u032d\u032e\u0330\u0331"
#: unicode61 token characters: letters, numbers, private-use characters and those marks.
_TOKEN_RE: Final = re.compile(
    r"(?:[^\W_]|[" + _DIACRITICS + "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd])+"
)


def _fold_char(ch: str) -> str:
    low = ch.casefold()
    if len(low) != 1:  # unicode61 folds one character to one: ß stays ß, not ss
        low = ch.lower()
    parts = unicodedata.normalize("NFD", low)
    if parts[0].isascii() and all(unicodedata.combining(c) for c in parts[1:]):
        return parts[0]  # a Latin letter with diacritics -> its ASCII base letter
    return "" if len(low) == 1 and unicodedata.combining(low) else low


def fold(token: str) -> str:
    """Fold one token as FTS5 ``unicode61 remove_diacritics 2`` does: lower case, no diacritics.

    Like unicode61, only letters whose base letter is ASCII lose their diacritics (é -> e, but
    й, ά and ø stay), case folding maps one character to one (µ -> μ, ς -> σ, ß stays) and
    Hangul syllables are not decomposed.

    :param token: a run of letters and digits
    :returns: the folded token (may be empty if it held only combining marks)
    """
    if token.isascii():
        return token.lower()
    return "".join(_fold_char(c) for c in token)


def tokenize(text: str) -> list[str]:
    """Split text into folded tokens like the FTS5 ``unicode61`` tokenizer.

    :param text: any text
    :returns: tokens in order, duplicates kept
    """
    out = []
    for raw in _TOKEN_RE.findall(text):
        tok = fold(raw)
        if tok:
            out.append(tok)
    return out


def idf(doc_freq: int, n_notes: int) -> float:
    """Inverse document frequency of a word, never negative.

    ``ln(1 + (N - n + 0.5) / (n + 0.5))``: the Robertson-Sparck Jones IDF of Okapi BM25 with the
    ``1 +`` of Lucene's BM25, so that words in more than half the notes keep a small positive
    weight instead of FTS5's floor of 1e-6 (https://sqlite.org/fts5.html#the_bm25_function).

    :param doc_freq: notes containing the word (0 for an unknown word)
    :param n_notes: notes in the index
    """
    n = max(n_notes, 1)
    return math.log(1.0 + (n - doc_freq + 0.5) / (doc_freq + 0.5))


@dataclass(frozen=True)
class Alternative:
    """One vocabulary word a message token may stand for."""

    word: str
    how: str  # "exact", "inflected", "corrected" or "prefix"
    weight: float  # evidence weight: 1.0 exact, less for corrected and prefix words
    doc_freq: int  # notes containing the word
    meta_doc_freq: int = 0  # notes with the word in title, desc or headings
    zipf: float = 0.0  # how common the word is in general English (0: not an English word)


@dataclass
class Term:
    """One distinct informative token of the message and the vocabulary words it may stand for."""

    token: str
    alternatives: list[Alternative] = field(default_factory=list)
    edit_distance: int = 0  # of the correction, when there is one
    zipf: float = 0.0  # how common the token is in general English (0: not an English word)

    @property
    def known(self) -> bool:
        """True when some vocabulary word stands for this token."""
        return bool(self.alternatives)


@dataclass
class Query:
    """A message turned into terms against one index of ``n_notes`` notes."""

    terms: list[Term]
    stopwords: list[str]
    n_notes: int
    truncated: bool = False

    @property
    def corrections(self) -> list[tuple[str, str]]:
        """``(typed, corrected)`` pairs, e.g. ``("sheild", "shield")``."""
        return [
            (t.token, a.word) for t in self.terms for a in t.alternatives if a.how == "corrected"
        ]

    @property
    def expansions(self) -> list[tuple[str, str]]:
        """``(typed, expanded)`` pairs, e.g. ``("merc", "mercedes")``."""
        return [(t.token, a.word) for t in self.terms for a in t.alternatives if a.how == "prefix"]

    @property
    def words(self) -> list[str]:
        """Every distinct vocabulary word the query searches for."""
        seen: dict[str, None] = {}
        for t in self.terms:
            for a in t.alternatives:
                seen.setdefault(a.word, None)
        return list(seen)


def quote(word: str) -> str:
    """Quote a word as an FTS5 string: wrapped in double quotes, inner quotes doubled."""
    return '"' + word.replace('"', '""').replace("\x00", " ") + '"'  # FTS5 stops reading at a NUL


def match_expression(words: list[str], columns: tuple[str, ...] = ()) -> str:
    """An FTS5 ``MATCH`` expression that matches any of ``words``.

    Every word is an FTS5 string, so ``NEAR``, ``AND``, ``*``, ``:`` and quotes in a message are
    plain text. Returns ``""`` for no words (the caller must not run an empty ``MATCH``).

    :param words: vocabulary words
    :param columns: restrict to these columns (``{title desc} : ...``), or all when empty
    """
    if not words:
        return ""
    expr = " OR ".join(quote(w) for w in words)
    if columns:
        return "{" + " ".join(columns) + "} : (" + expr + ")"
    return expr


def inflections(token: str) -> list[str]:
    """The English plural and singular forms of a word, for matching "plug" with "plugs".

    Only the regular suffixes: ``-s``, ``-es``, ``-ies``/``-y``. The index keeps words unstemmed
    (a porter stemmer would also merge "mechanics" with "mechanic" and "general" with
    "generic"), so this small, predictable step stands in for stemming on the query side.

    :returns: candidate forms (not checked against the vocabulary), without ``token`` itself
    """
    if len(token) < 3 or not token.isalpha():
        return []
    out = [token + "s", token + "es"]
    if token.endswith("ies") and len(token) > 4:
        out.append(token[:-3] + "y")
    elif token.endswith("y"):
        out.append(token[:-1] + "ies")
    if token.endswith("es") and len(token) > 4:
        out.append(token[:-2])
    # "-ics" nouns are singular fields, not plurals ("mechanics" is not "mechanic")
    if token.endswith("s") and not token.endswith(("ss", "ics")) and len(token) > 3:
        out.append(token[:-1])
    return out


def _clip(message: str) -> tuple[str, bool]:
    if len(message) <= MAX_MESSAGE_CHARS:
        return message, False
    half = MAX_MESSAGE_CHARS // 2
    return message[:half] + "\n" + message[-half:], True


def max_edits(token: str) -> int:
    """Edits allowed when correcting a token: 0 up to 3 letters, 1 for 4 to 7, 2 from 8."""
    n = len(token)
    if n <= 3:
        return 0
    return 1 if n <= 7 else 2


def _vocab_rows(conn: sqlite3.Connection, words: list[str]) -> dict[str, tuple[int, int]]:
    found: dict[str, tuple[int, int]] = {}
    for i in range(0, len(words), 500):
        chunk = words[i : i + 500]
        marks = ",".join("?" * len(chunk))
        for word, df, meta_df in conn.execute(
            f"SELECT word, doc_freq, meta_doc_freq FROM vocab WHERE word IN ({marks})", chunk
        ):
            found[word] = (df, meta_df)
    return found


def _english(conn: sqlite3.Connection, words: set[str]) -> dict[str, float]:
    """Zipf frequency in general English of each word found in the ``english`` table."""
    found: dict[str, float] = {}
    items = list(words)
    for i in range(0, len(items), 500):
        chunk = items[i : i + 500]
        marks = ",".join("?" * len(chunk))
        found.update(conn.execute(f"SELECT word, zipf FROM english WHERE word IN ({marks})", chunk))
    return found


def _range(prefix: str) -> tuple[str, str]:
    return prefix, prefix + "\U0010ffff"


def correct(conn: sqlite3.Connection, token: str, max_distance: int = 2) -> tuple[list[Alternative], int]:
    """Vocabulary words closest to an unknown token by Damerau-Levenshtein distance.

    Candidates share the token's first two letters, those two letters swapped, or its phonetic
    key (jellyfish Metaphone), the spellfix1 idea (https://sqlite.org/spellfix1.html). The best
    distance wins; among equals the highest document frequency comes first, and all of them are
    returned with a lower weight because the guess is ambiguous.

    :param max_distance: a lower cap on the edits allowed (1 for a word that is English)
    :returns: (alternatives, edit distance); ``([], 0)`` when nothing is close enough
    """
    limit = min(max_edits(token), max_distance)
    if limit == 0 or not token.isalpha():
        return [], 0
    lo_len, hi_len = len(token) - limit, len(token) + limit
    prefixes = {token[:2], token[1] + token[0]}
    rows: dict[str, tuple[int, int]] = {}
    sql = (
        "SELECT word, doc_freq, meta_doc_freq FROM vocab "
        "WHERE word >= ? AND word < ? AND length BETWEEN ? AND ?"
    )
    for p in prefixes:
        for word, df, mdf in conn.execute(sql, (*_range(p), lo_len, hi_len)):
            rows[word] = (df, mdf)
    key = jellyfish.metaphone(token)
    if key:
        for word, df, mdf in conn.execute(
            "SELECT word, doc_freq, meta_doc_freq FROM vocab WHERE phonetic = ? "
            "AND length BETWEEN ? AND ?",
            (key, lo_len, hi_len),
        ):
            rows[word] = (df, mdf)
    best: list[tuple[int, int, str, int]] = []
    best_d = limit + 1
    for word, (df, mdf) in rows.items():
        d = jellyfish.damerau_levenshtein_distance(token, word)
        if d > limit:
            continue
        if d < best_d:
            best_d, best = d, [(d, df, word, mdf)]
        elif d == best_d:
            best.append((d, df, word, mdf))
    if not best:
        return [], 0
    best.sort(key=lambda r: (-r[1], r[2]))
    weight = CORRECTED_WEIGHT if len(best) == 1 else AMBIGUOUS_CORRECTED_WEIGHT
    return [Alternative(w, "corrected", weight, df, mdf) for _, df, w, mdf in best[:3]], best_d


def expand(conn: sqlite3.Connection, token: str) -> list[Alternative]:
    """Longer vocabulary words that start with a token of 3 or more characters ("merc" -> "mercedes").

    :returns: up to ``MAX_EXPANSIONS`` alternatives, most frequent first
    """
    if len(token) < 3:
        return []
    rows = conn.execute(
        "SELECT word, doc_freq, meta_doc_freq FROM vocab WHERE word > ? AND word < ? "
        "ORDER BY doc_freq DESC, word LIMIT ?",
        (*_range(token), MAX_EXPANSIONS),
    ).fetchall()
    return [Alternative(w, "prefix", PREFIX_WEIGHT, df, mdf) for w, df, mdf in rows]


def build_query(conn: sqlite3.Connection, message: str, n_notes: int) -> Query:
    """Turn a message into a :class:`Query` against the vocabulary in ``conn``.

    :param conn: an open notesdb database (reads ``vocab``)
    :param message: the text as typed; only its first and last ``MAX_MESSAGE_CHARS / 2``
        characters are read
    :param n_notes: notes in the index (for IDF)
    :returns: the query; terms keep message order, at most ``MAX_TERMS`` of them
    """
    text, truncated = _clip(message)
    tokens = tokenize(text)
    stop: dict[str, None] = {}
    distinct: dict[str, None] = {}
    for tok in tokens:
        if tok in STOPWORDS or (len(tok) == 1 and not tok.isdigit()):
            stop.setdefault(tok, None)
        else:
            distinct.setdefault(tok, None)
    words = list(distinct)
    forms = {tok: inflections(tok) for tok in words}
    known = _vocab_rows(conn, words + [f for fs in forms.values() for f in fs])
    english = _english(conn, set(words))
    terms: list[Term] = []
    for tok in words:
        alts = [Alternative(tok, "exact", 1.0, *known[tok])] if tok in known else []
        alts += [Alternative(f, "inflected", INFLECTED_WEIGHT, *known[f]) for f in forms[tok] if f in known]
        distance = 0
        zipf = english.get(tok, 0.0)
        if not alts and zipf < PREFIX_MAX_ZIPF and not tok.isdigit():
            # a short form that starts vocabulary words ("merc") is read as such, not as a typo;
            # a number is only ever itself ("754" is not short for "7543186180422")
            alts = expand(conn, tok)
        if not alts and zipf < CORRECT_MAX_ZIPF:
            # an English word the notes lack ("gonna") is not a typo of a word they have
            # an English word ("silva") may be one slip away from a note's word ("silvia"),
            # not two ("cracking" is not "crawling")
            alts, distance = correct(conn, tok, 1 if tok in english else 2)
        terms.append(Term(tok, alts, distance, zipf))
    zipfs = _english(conn, {a.word for t in terms for a in t.alternatives})
    for t in terms:
        t.alternatives = [replace(a, zipf=zipfs.get(a.word, 0.0)) for a in t.alternatives]
    if len(terms) > MAX_TERMS:
        # keep the most informative: known rare words first, then the rest in message order;
        # bare numbers last, so that a pasted log's numbers never push out the words of the
        # question (numbers say little about a topic: ``rank.shape_weight``)
        def rarity(t: Term) -> tuple[bool, float]:
            return t.token.isdigit(), min((a.doc_freq for a in t.alternatives), default=n_notes + 1)

        keep = set(id(t) for t in sorted(terms, key=rarity)[:MAX_TERMS])
        terms = [t for t in terms if id(t) in keep]
        truncated = True
    return Query(terms=terms, stopwords=list(stop), n_notes=n_notes, truncated=truncated)

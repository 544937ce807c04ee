"""A message -> query terms: tokens, typo corrections, prefix expansions and a safe FTS5 ``MATCH``.

Tokens come from :func:`notesdb.text.tokenize` (FTS5 ``unicode61``). English stopwords, and
those of the message's language when it is read as another (``notesdb.stopwords``), are
dropped from the query (they stay in the index).

Each remaining token becomes a :class:`Term` with its *alternatives*: the vocabulary words it may
stand for. A token found in the vocabulary stands for itself. A token that is not is

- *expanded* to the longer vocabulary words it is a prefix of, when it has 3 or more letters
  ("merc" -> "mercedes"), or else
- *corrected* to the closest vocabulary word by Damerau-Levenshtein edit distance
  (jellyfish; at most 1 edit for tokens of 4 to 7 letters, 2 from 8 letters, never for 3 or
  fewer; ties broken by document frequency).

Corrected and expanded words count for less than exact ones (``weight`` below 1; the
weights and Zipf limits are fields of :class:`notesdb.settings.Settings`).
The ``MATCH`` expression quotes every word as an FTS5 string, so no message can cause an FTS5
syntax error (https://sqlite.org/fts5.html#full_text_query_syntax).
"""

from __future__ import annotations

import math
import re
import sqlite3
from dataclasses import dataclass, field, replace

import jellyfish

from notesdb.settings import Settings
from notesdb.hangul import forms as hangul_forms, has_hangul, is_jamo, reading_stems as hangul_stems
from notesdb.stopwords import OTHER_STOPWORDS
from notesdb.text import FORMAT_CHARS, calendar_short, inflections, joined_pairs, us_spelling, words as text_words
from notesdb.vocab import rare_words_filled

TYPE_CHECKING = False  # not typing's: the hook does not import typing (about 3 ms of every message)
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "Alternative",
    "Term",
    "Query",
    "build_query",
    "adjacent_terms",
    "likelier",
    "match_expression",
    "idf",
    "STOPWORDS",
]

#: Characters of the message read: the first and last half of this many. A pasted log longer
#: than this is judged on its head and tail, which is where people put their question.
MAX_MESSAGE_CHARS: Final = 12_000
#: Terms kept for one query, the rarest first (a long log has hundreds of distinct tokens).
MAX_TERMS: Final = 48
#: Pairs of adjacent message words looked up as phrases, at most (one FTS5 phrase query per
#: pair and word form found): a question has a handful, a pasted log is judged on its first ones.
MAX_PHRASES: Final = 8
#: Prefix expansions kept per token, by document frequency.
MAX_EXPANSIONS: Final = 6
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

#: Words joined by hyphens into one name ("release-please", "all-in-one", "up-to-date"). It
#: starts only where a run of letters and digits starts: without the lookbehind every position
#: of a long run is tried again, quadratic time on a pasted hash or sequence.
_HYPHEN_NAME: Final = re.compile(r"(?<![^\W_])[^\W_]+(?:[-\u2010\u2011][^\W_]+)+")


def named_stopwords(text: str, names: list[list[str]] | None = None) -> set[str]:
    """The stopwords typed as part of a hyphenated name: ``"set up release-please"`` ->
    ``{"please"}``. A hyphen makes one name of its words (the tool ``release-please``, the note
    ``release-please.md``), so a stopword inside it is a word of that name, not filler; a name
    of stopwords only ("as-is") keeps none, and single letters stay out.

    :param text: the message as read
    :param names: its hyphenated names (:func:`_hyphen_names`), when already read
    :returns: folded stopwords (:data:`STOPWORDS`) to keep as terms
    """
    out: set[str] = set()
    for parts in _hyphen_names(text) if names is None else names:
        out.update(p for p in parts if p in STOPWORDS and len(p) > 1)
    return out


def _hyphen_names(text: str) -> list[list[str]]:
    """The words of each hyphenated name of ``text`` that holds a word of letters other than a
    stopword (:data:`_HYPHEN_NAME`): ``"re-run the up-to-date as-is"`` -> ``[["re", "run"],
    ["up", "to", "date"]]``."""
    if "-" not in text and "\u2010" not in text and "\u2011" not in text:
        return []
    out = []
    for m in _HYPHEN_NAME.finditer(text):
        parts = text_words(m.group())
        if any(p not in STOPWORDS and p.isalpha() for p in parts):
            out.append(parts)
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
    how: str  # "exact", "inflected", "stemmed", "compound", "corrected" or "prefix"
    weight: float  # evidence weight: 1.0 exact, less for corrected and prefix words
    doc_freq: int  # notes containing the word
    zipf: float = 0.0  # how common the word is in general English (0: not an English word)
    #: neither the message's token nor this word is in any word list of English (nor of the
    #: other languages notesdb reads: ``lexicon`` and ``lexicon_rare``): a name made up for
    #: something ("tokmeter"), read by ``gate.coined_name``
    coined: bool = False


@dataclass
class Term:
    """One distinct informative token of the message and the vocabulary words it may stand for."""

    token: str
    alternatives: list[Alternative] = field(default_factory=list)
    zipf: float = 0.0  # how common the token is in general English (0: not an English word)
    #: the token's highest Zipf among the everyday words of the other languages notesdb reads
    #: (the ``lexicon`` table: "merci" 5.62 in French, 2.78 in English; 0 when none lists it)
    other_zipf: float = 0.0

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
    language: str = "en"  # the message's language, by its everyday words (``detect_language``)
    #: the message's snake_case names with their words (:func:`code_names`), in message order
    code_names: list[tuple[str, list[str]]] = field(default_factory=list)
    #: the words met only inside those names: such a word counts in a note only where the note
    #: holds every word of a name it is part of (``notesdb.rank.rank``)
    bound: frozenset[str] = frozenset()
    #: pairs of terms typed next to each other ("support group"), in message order, at most
    #: ``MAX_PHRASES``: a note that holds a pair as a phrase earns more (``notesdb.rank.rank``)
    phrases: list[tuple[str, str]] = field(default_factory=list)

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
    def whole_names(self) -> list[str]:
        """The names whose words count only together: ``["simple_send_with_retries"]`` (those
        with at least two words that are terms of the query)."""
        terms = {t.token for t in self.terms}
        return [name for name, words in self.code_names if len({w for w in words if w in terms}) >= 2]

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


def _vocab_rows(conn: sqlite3.Connection, words: list[str]) -> dict[str, int]:
    """Document frequency of each word found in ``vocab``."""
    found: dict[str, int] = {}
    for i in range(0, len(words), 500):
        chunk = words[i : i + 500]
        marks = ",".join("?" * len(chunk))
        found.update(conn.execute(f"SELECT word, doc_freq FROM vocab WHERE word IN ({marks})", chunk))
    return found


def _english(conn: sqlite3.Connection, words: set[str]) -> dict[str, float]:
    """Zipf frequency in general English of each word found in the ``english`` table."""
    return _zipf_in(conn, "english", list(words))


def _zipf_in(conn: sqlite3.Connection, table: str, words: list[str]) -> dict[str, float]:
    """``zipf`` of each of ``words`` found in ``table`` (``english`` or ``english_rare``)."""
    found: dict[str, float] = {}
    for i in range(0, len(words), 500):
        chunk = words[i : i + 500]
        marks = ",".join("?" * len(chunk))
        found.update(conn.execute(f"SELECT word, zipf FROM {table} WHERE word IN ({marks})", chunk))
    return found


#: A word this common (Zipf) in a language is one of its everyday words: it counts as a vote
#: for that language when the message's language is read (English "the" 7.7, "often" 5.3;
#: German "die" 7.5, "welches" 5.1; French "quoi" 5.8).
EVERYDAY_ZIPF: Final = 5.0
#: Everyday words another language needs in a message to be read as its language: one word
#: ("mer", "die") is as often a name or an English word.
MIN_LANGUAGE_VOTES: Final = 2
#: Stemmer (Snowball, PyStemmer) of each language of ``vocab.LANGUAGES`` and English.
STEMMERS: Final = {
    "en": "english", "de": "german", "fr": "french", "es": "spanish", "it": "italian",
    "nl": "dutch", "pt": "portuguese", "sv": "swedish", "da": "danish", "nb": "norwegian",
}  # fmt: skip
#: What may follow the common stem of two English word forms for them to count as one word:
#: the inflections (-s, -es, -ed, -ing, -er, -est, -y/-ies/-ied) and a stem's final e or
#: y; a derivation (-ics, -ist, -ity, -ness, -ly) is another word ("economics" is not
#: "economist"; "mechanics" is not "mechanic").
ENGLISH_ENDINGS: Final = frozenset(
    ["", "e", "s", "es", "ed", "d", "ing", "ings", "er", "ers", "est", "y", "ies", "ied", "ier", "iest"]
)
#: Longest ending two forms may differ by in the other languages, whose inflections are short
#: (German -e, -en, -er, -es, -n, -s; French -e, -es, -s, -x).
OTHER_ENDING_CHARS: Final = 3
#: Shortest part of a compound a message word is matched by ("Fußbodenheizung" ends in
#: "heizung"), and shortest rest of the compound beside it: shorter parts are mostly
#: endings of unrelated words ("ring" in "earring").
COMPOUND_MIN_PART: Final = 5
COMPOUND_MIN_REST: Final = 3
#: Longest token read as a compound: the longest German compounds in use run to about 40
#: letters ("Donaudampfschifffahrtsgesellschaft", 34). A longer run of letters is a paste with
#: no spaces (Chinese, Japanese, base64), whose every ending would be looked up: 12,000
#: characters of Chinese took 1 s and 350 MB.
COMPOUND_MAX_CHARS: Final = 64
#: Compounds read per message word, by document frequency.
MAX_COMPOUNDS: Final = 4


def detect_language(english: dict[str, float], lexicon: dict[str, dict[str, float]], tokens: list[str]) -> str:
    """The language of a message: the one with the most of its everyday words (Zipf at least
    ``EVERYDAY_ZIPF``) among the tokens; English unless another has strictly more, and at
    least ``MIN_LANGUAGE_VOTES``. An English stopword (:data:`STOPWORDS`) is no vote for another
    language: "the pump timer relay and sensor for the filter sponge" has "the", "and" and
    "for" in Danish's and Norwegian's lists of everyday words too (web text quotes English:
    "the" is at Zipf 5.6 in Danish), and was read as Danish. Between other languages with as
    many votes, the one where those words are commoner (the sum of their Zipf): "les pneus de
    la 308" has three everyday words of French and of Spanish, at 22.4 in French and 21.3 in
    Spanish. A Hangul token is a vote for Korean whatever its frequency, and one is enough.

    :param english: Zipf in English of the tokens found in ``english``
    :param lexicon: per token found in ``lexicon``, its Zipf in each language
    :param tokens: every token of the message, stopwords included, duplicates kept
    """
    votes: dict[str, int] = {"en": sum(1 for t in tokens if english.get(t, 0.0) >= EVERYDAY_ZIPF)}
    zipf_sum: dict[str, float] = {}
    # Korean is told by its script: every Hangul token is a vote (its words carry their particles,
    # "서버가", and are rarely in the list of everyday words as typed)
    hangul = sum(1 for t in tokens if has_hangul(t))
    if hangul:
        votes["ko"] = hangul
    for t in tokens:
        for lang, z in lexicon.get(t, {}).items():
            if lang == "ko":
                continue
            # English words are in every language's lists of web text ("the" at Zipf 5.6 in
            # Danish): an English stopword is no vote for another language
            if z >= EVERYDAY_ZIPF and t not in STOPWORDS:
                votes[lang] = votes.get(lang, 0) + 1
                zipf_sum[lang] = zipf_sum.get(lang, 0.0) + z
    best = max(votes, key=lambda lang: (votes[lang], lang == "en", zipf_sum.get(lang, 0.0)))
    # a script no other language writes needs no second vote: "계속해" (go on) is Korean
    need = 1 if best == "ko" else MIN_LANGUAGE_VOTES
    return best if votes[best] > votes["en"] and votes[best] >= need else "en"


def _message_zipf(
    word: str, lang: str, english: dict[str, float], lexicon: dict[str, dict[str, float]],
    korean: dict[str, list[str]] | None = None,
) -> float:
    """Zipf of ``word`` read in the message's language ``lang``: Korean's for a word holding
    Hangul (the commonest of the word and its ``korean`` stems, ``hangul.reading_stems``),
    English's for any other word of an English or Korean message (a Latin word in Korean text
    is an English word, "docker"), else ``lang``'s; 0.0 where the lists lack it.

    :param english: Zipf in English, as :func:`_english` reads it
    :param lexicon: Zipf per language, as :func:`_lexicon` reads it
    """
    if has_hangul(word):
        return max(lexicon.get(w, {}).get("ko", 0.0) for w in [word] + (korean or {}).get(word, []))
    if lang in ("en", "ko"):
        return english.get(word, 0.0)
    return lexicon.get(word, {}).get(lang, 0.0)


def _lexicon(conn: sqlite3.Connection, words: set[str]) -> dict[str, dict[str, float]]:
    """Zipf of each word in each other language where ``lexicon`` has it."""
    found: dict[str, dict[str, float]] = {}
    items = list(words)
    for i in range(0, len(items), 500):
        chunk = items[i : i + 500]
        marks = ",".join("?" * len(chunk))
        for w, lang, z in conn.execute(f"SELECT word, lang, zipf FROM lexicon WHERE word IN ({marks})", chunk):
            found.setdefault(w, {})[lang] = z
    return found


def stemmed(
    conn: sqlite3.Connection, token: str, lang: str, settings: Settings, stemmer: object = None
) -> list[Alternative]:
    """Vocabulary words that are other forms of ``token`` ("descale" -> "descaled", "descaling").

    Both are stemmed with the Snowball stemmer of the message's language (PyStemmer); a
    vocabulary word counts when its stem is the token's and, in English, both differ from
    the stem only by an inflection (``ENGLISH_ENDINGS``), elsewhere by at most
    ``OTHER_ENDING_CHARS`` letters. Candidates are the words starting with the stem (less a
    final e, i or y, which Snowball may add or change), one range read of ``vocab``. Outside
    English two stems are one when they are alike but for that final letter: words are stemmed
    folded, without the accents Snowball's French and German rules read ("revisee" for
    "révisée" is stemmed "revise", "revision" "revis").

    :param stemmer: a ``Stemmer.Stemmer`` for ``lang`` (made when None)
    :returns: alternatives of weight ``settings.stemmed_weight``, most frequent first
    """
    if len(token) < 4 or not token.isalpha():
        return []
    if stemmer is None:
        import Stemmer

        stemmer = Stemmer.Stemmer(STEMMERS.get(lang, "english"))
    stem = stemmer.stemWord(token)  # type: ignore[attr-defined]
    base = stem.rstrip("eiy") if len(stem) > 3 else stem
    if len(base) < 3 or not token.startswith(base):
        return []

    def close(word: str) -> bool:
        rest = word[len(base):]
        if lang != "en":
            return len(rest) <= OTHER_ENDING_CHARS
        if rest[:1] and rest[:1] == base[-1:]:  # a doubled final consonant: "running"
            rest = rest[1:]
        return rest in ENGLISH_ENDINGS

    if not close(token):
        return []
    rows = conn.execute(
        "SELECT word, doc_freq FROM vocab WHERE word >= ? AND word < ? AND length <= ? ORDER BY doc_freq DESC LIMIT 50",
        (*_range(base), len(base) + 5),
    ).fetchall()

    def same_stem(word: str) -> bool:
        other = stemmer.stemWord(word)  # type: ignore[attr-defined]
        if lang == "en":
            return bool(other == stem)
        # Snowball reads the accents that folding took away: "révisée" is stemmed "revis", but
        # folded "revisee" is "revise"; "revision" is "revis" either way
        return other == stem or (other.rstrip("eiy") if len(other) > 3 else other) == base

    return [
        Alternative(w, "stemmed", settings.stemmed_weight, df)
        for w, df in rows
        if w != token and close(w) and same_stem(w)
    ]


def compounds(conn: sqlite3.Connection, token: str, settings: Settings) -> list[Alternative]:
    """Vocabulary compounds that end in ``token`` ("heizung" -> "fussbodenheizung"), by one range
    read of ``vocab.rev``; the caller drops those that are English words.

    :returns: up to ``MAX_COMPOUNDS`` alternatives of weight ``settings.compound_weight``
    """
    if len(token) < COMPOUND_MIN_PART or not token.isalpha():
        return []
    rev = token[::-1]
    rows = conn.execute(
        "SELECT word, doc_freq FROM vocab WHERE rev > ? AND rev < ? AND length >= ? "
        "ORDER BY doc_freq DESC LIMIT ?",
        (*_range(rev), len(token) + COMPOUND_MIN_REST, MAX_COMPOUNDS),
    ).fetchall()
    return [Alternative(w, "compound", settings.compound_weight, df) for w, df in rows]


def _parts(token: str) -> list[str]:
    """The endings of a compound token that could be words of their own ("fussbodenheizung"
    -> "bodenheizung", "heizung", ...), longest first."""
    if not COMPOUND_MIN_PART + COMPOUND_MIN_REST <= len(token) <= COMPOUND_MAX_CHARS or not token.isalpha():
        return []
    return [token[i:] for i in range(COMPOUND_MIN_REST, len(token) - COMPOUND_MIN_PART + 1)]


def _range(prefix: str) -> tuple[str, str]:
    return prefix, prefix + "\U0010ffff"


#: The letters :func:`candidate_prefixes` tries as a second letter left out of a typo.
_LETTERS: Final = "abcdefghijklmnopqrstuvwxyz"


#: The tokens of one message whose correction also looks for a second letter left out (26 more
#: lookups each, :func:`candidate_prefixes`): a message with more words to correct than this is
#: a paste of unknown words (a log, an identifier dump), not a few typos. 12,000 characters of
#: random letters took 1.12 s without that search and 1.55 s with it for every token (3,000
#: notes, 163,000 words in the vocabulary); a typed message has one or two typos.
MAX_WIDE_CORRECTIONS: Final = 8
#: The tokens of one message a correction is looked for at most: the first and the last 16 of
#: them, as the message itself is read at its start and end (``MAX_MESSAGE_CHARS``). Each takes
#: about 1.2 ms (3,000 notes of English words): a 14,000-character paste of 1,032 misspelt
#: words took 1.13 s of the hook's time, in ``decide`` alone, and a 12,500-character Polish
#: paste 0.93 s. A typed message has one or two typos; the terms kept are at most
#: ``MAX_TERMS`` (48) anyway, so more corrections than that could never all count.
MAX_CORRECTIONS: Final = 32


def candidate_prefixes(token: str, wide: bool = True) -> set[str]:
    """The beginnings a vocabulary word needs to be a candidate correction of ``token``
    (:func:`correct`): its first two letters, those two swapped, its first and third (a second
    letter typed in), and with ``wide`` its first two with a letter a-z between them (a second
    letter left out: "shrodinger" for schrodinger)."""
    narrow = {token[:2], token[1] + token[0], token[0] + token[2]}
    if not wide:
        return narrow
    # a three-letter beginning inside a two-letter one already asked for ("sei" inside "se" for
    # "sield") would be the same words looked up twice
    return narrow | {p for c in _LETTERS if (p := token[0] + c + token[1])[:2] not in narrow}



def correct(
    conn: sqlite3.Connection, token: str, max_distance: int = 2, settings: Settings | None = None, wide: bool = True
) -> tuple[list[Alternative], int]:
    """Vocabulary words closest to an unknown token by Damerau-Levenshtein distance.

    Candidates share the token's first two letters, those two letters swapped, its first and
    third letters (a second letter typed in, or the second and third swapped: "wsate" ->
    "waste"), its first two letters with one between them (a second letter left out:
    "shrodinger" -> "schrodinger"), or its phonetic key (jellyfish Metaphone), the spellfix1
    idea (https://sqlite.org/spellfix1.html). On 6,000 of codespell's corrections within the
    edit limit (its main dictionary, words of 4+ letters, one correction each, the right word in
    the vocabulary) these find the right word for 97.6%, at a median 215 us a typo: without the
    left-out second letter 95.8% at 134 us, without the first and third letters too 94.2% at
    110 us, with every word of the same first letter 98.2% at 418 us (``bench/typos.py``, side
    by side in one run). The best
    distance wins; among equals the highest document frequency comes first, and all of them are
    returned with a lower weight because the guess is ambiguous.

    :param max_distance: a lower cap on the edits allowed (1 for a word that is English)
    :param settings: the correction weights (``corrected_weight``, ``ambiguous_corrected_weight``);
        defaults when None
    :param wide: also look for a second letter left out (:func:`candidate_prefixes`)
    :returns: (alternatives, edit distance); ``([], 0)`` when nothing is close enough
    """
    limit = min(max_edits(token), max_distance)
    if limit == 0 or not token.isalpha():
        return [], 0
    lo_len, hi_len = len(token) - limit, len(token) + limit
    prefixes = candidate_prefixes(token, wide)
    rows: dict[str, int] = {}
    sql = "SELECT word, doc_freq FROM vocab WHERE word >= ? AND word < ? AND length BETWEEN ? AND ?"
    for p in prefixes:
        rows.update(conn.execute(sql, (*_range(p), lo_len, hi_len)))
    key = jellyfish.metaphone(token)
    if key:
        rows.update(
            conn.execute(
                "SELECT word, doc_freq FROM vocab WHERE phonetic = ? AND length BETWEEN ? AND ?",
                (key, lo_len, hi_len),
            )
        )
    best: list[tuple[int, int, str]] = []
    best_d = limit + 1
    for word, df in rows.items():
        d = jellyfish.damerau_levenshtein_distance(token, word)
        if d > limit:
            continue
        if d < best_d:
            best_d, best = d, [(d, df, word)]
        elif d == best_d:
            best.append((d, df, word))
    if not best:
        return [], 0
    best.sort(key=lambda r: (-r[1], r[2]))
    s = settings or Settings()
    weight = s.corrected_weight if len(best) == 1 else s.ambiguous_corrected_weight
    return [Alternative(w, "corrected", weight, df) for _, df, w in best[:3]], best_d


def likelier(
    conn: sqlite3.Connection,
    token: str,
    alternatives: list[Alternative],
    settings: Settings | None = None,
) -> list[Alternative]:
    """The typo corrections of ``token`` (:func:`correct`) likelier meant than the word typed.

    A word English knows, however rarely (wordfreq's lists down to Zipf 1.5: the ``english``
    and ``english_rare`` tables), was typed on purpose unless the correction is a much commoner
    word: at least ``settings.correct_min_gain`` Zipf more (1.0: ten times as frequent), or the
    same word in American spelling (``notesdb.text.us_spelling``, "summarise" -> "summarize").
    So "wipers" (2.8) is not read as a note's "wipefs" (not English), "postgres" (2.0) not as
    "postures" (2.7), while "sheild" (1.6) is read as "shield" (4.3) and "recieve" (2.8) as
    "receive" (4.9). A token English does not know keeps every correction, and so does every
    token while ``english_rare`` is still empty (a database only the hook has indexed). This is
    the noisy-channel reading of spelling correction (Kernighan, Church and Gale, 1990: the
    correction must be likelier than the word as typed), with the word's frequency as its prior
    and one flat chance of a typo. (Refusing a correction because an English word is nearer to
    the token, "postgress" to "postgres" than to "postures", was tried: wordfreq's large list
    holds common misspellings, "guarentee", "transfered", which then blocked 767 of codespell's
    6,871 two-edit corrections of words of 8+ letters.)

    :param alternatives: corrections of ``token``, as :func:`correct` returns them
    :returns: those kept, in their order and with their weights
    """
    s = settings or Settings()
    found = _zipf_any(conn, {token} | {a.word for a in alternatives})
    typed = found.get(token, 0.0)
    if typed <= 0:
        return alternatives
    american = us_spelling(token)
    return [
        a
        for a in alternatives
        if found.get(a.word, 0.0) >= typed + s.correct_min_gain or a.word == american or us_spelling(a.word) == token
    ]


def _zipf_any(conn: sqlite3.Connection, words: set[str]) -> dict[str, float]:
    """Zipf in general English of each word found in ``english`` or ``english_rare``."""
    found = _english(conn, words)
    found.update(_english_rare(conn, {w for w in words if w not in found}))
    return found


def _lexicon_rare(conn: sqlite3.Connection, words: set[str]) -> set[str]:
    """The words found in ``lexicon_rare`` (the other languages' rarer words: "fitnessstudio");
    none when the table is missing or not filled yet."""
    ws = [w for w in words if w.isalpha()]
    if not ws:
        return set()
    try:
        marks = ",".join("?" * len(ws))
        return {w for (w,) in conn.execute(f"SELECT word FROM lexicon_rare WHERE word IN ({marks})", ws)}
    except sqlite3.OperationalError:  # dropped by hand: ``notesdb doctor`` names it
        return set()


def _english_rare(conn: sqlite3.Connection, words: set[str]) -> dict[str, float]:
    """Zipf of each word found in ``english_rare`` (English below wordfreq's small list); none
    when the table is missing (dropped by hand: ``notesdb doctor`` names it)."""
    try:  # the table holds words of two or more letters only
        return _zipf_in(conn, "english_rare", [w for w in words if len(w) >= 2 and w.isalpha()])
    except sqlite3.OperationalError:
        return {}


def expand(conn: sqlite3.Connection, token: str, settings: Settings | None = None) -> list[Alternative]:
    """Longer vocabulary words that start with a token of 3 or more characters ("merc" -> "mercedes");
    when none does, those that start its singular, for a token of 4 or more ending in one s
    ("mercs" -> "mercedes", "sigs" -> "signatures"), unless that singular is a number: "404s"
    is the errors, not a number that starts with 404 ("4047"), and numbers are never expanded.

    :param settings: ``prefix_weight`` is the weight of each expansion; defaults when None

    :returns: up to ``MAX_EXPANSIONS`` alternatives, most frequent first
    """
    if len(token) < 3:
        return []
    # the token, then the singular of a plural short form ("sigs" for signatures)
    plural = len(token) >= 4 and token.endswith("s") and not token.endswith("ss") and not token[:-1].isdigit()
    prefixes = [token, token[:-1]] if plural else [token]
    rows: list[tuple[str, int]] = []
    for prefix in prefixes:
        rows = conn.execute(
            "SELECT word, doc_freq FROM vocab WHERE word > ? AND word < ? ORDER BY doc_freq DESC, word LIMIT ?",
            (*_range(prefix), MAX_EXPANSIONS),
        ).fetchall()
        if rows:
            break
    weight = (settings or Settings()).prefix_weight
    return [Alternative(w, "prefix", weight, df) for w, df in rows]


#: A note's file name quoted in a message ("router-vlan.md", "@network/router-vlan.md"): its
#: extension is not a word of the message.
_NOTE_EXTENSION: Final = re.compile(r"(?<=\w)\.(?:md|markdown)\b", re.IGNORECASE)
#: The fullwidth forms of ASCII (U+FF01-FF5E) as ASCII: a Chinese, Japanese or Korean input
#: method types "ｓｈｉｅｌｄ" or "ＲＴＸ４０９０" for shield and RTX4090 (Unicode block
#: "Halfwidth and Fullwidth Forms": each is its ASCII character plus 0xFEE0).
FULLWIDTH: Final = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}
#: :data:`FULLWIDTH`, and Unicode's format characters dropped (:data:`notesdb.text.FORMAT_CHARS`:
#: zero-width spaces and joiners, bidi marks, the byte order mark): text copied from a web page
#: or chat can carry one inside a word ("s\u200bilvia"), which would split it in two, while the
#: index drops them from a note's title and headings ("silvia").
READABLE: Final = {**FULLWIDTH, **{c: None for a, b in FORMAT_CHARS for c in range(a, b + 1)}}


#: A snake_case name: letters or digits joined by underscores ("simple_send_with_retries",
#: "pg_stat_statements", "test_bisect_insert"). A match starts only where a run of letters and
#: digits starts (the lookbehind), so matching is linear in the length of the text: a pasted
#: hex dump of 12,000 characters is one failed attempt, not 12,000.
_SNAKE_NAME: Final = re.compile(r"(?<![^\W_])[^\W_]+(?:_+[^\W_]+)+")


def code_names(text: str) -> list[tuple[str, list[str]]]:
    """The snake_case names of a text, each once, with their words, in message order.

    A name in code is one name: "simple_send_with_retries" says nothing of "simple" or
    "retries" on their own, and a note that happens to hold "retries" is not about it. Only
    underscores join: a dot or ``::`` separates an object, module or host from its member
    (``self.send_with_retries``, ``caddy.service``, ``tokio::spawn``), and a dot also ends
    sentences typed without a space ("twice...heron"); camelCase is one word already.

    ``code_names("why does self.send_with_retries back off")`` ->
    ``[("send_with_retries", ["send", "with", "retries"])]``

    :param text: the message (clipped)
    :returns: ``(name as typed, its words as :func:`notesdb.text.words` reads them)``
    """
    return _scan_names(text)[0]


def _scan_names(text: str) -> tuple[list[tuple[str, list[str]]], dict[str, int]]:
    """One pass of ``_SNAKE_NAME`` over ``text``: :func:`code_names`, and how often each word
    occurs inside a name (every occurrence of every name counted)."""
    seen: dict[str, list[str]] = {}
    inside: dict[str, int] = {}
    for m in _SNAKE_NAME.finditer(text):
        name = m.group(0)
        words = seen.get(name)
        if words is None:
            words = seen[name] = text_words(name)
        for w in words:
            inside[w] = inside.get(w, 0) + 1
    return [(name, words) for name, words in seen.items() if len(words) >= 2], inside


def _bound_words(tokens: list[str], inside: dict[str, int]) -> frozenset[str]:
    """The words of ``tokens`` met only inside code names (``inside``: occurrences within names)."""
    everywhere: dict[str, int] = {}
    for tok in tokens:
        everywhere[tok] = everywhere.get(tok, 0) + 1
    return frozenset(w for w, n in inside.items() if everywhere.get(w, 0) <= n)


#: Where a message writes code: a span in backticks, a word an underscore touches
#: (``__repr__``, ``_reanchor``, ``wall_padding``), a word a call's parenthesis follows
#: (``align()``), a word joined to another by a dot (``Pencil.fillet``, ``os.path``). Every
#: match starts where a run of word characters starts (the lookbehind), so a pasted run of
#: 20,000 letters is one attempt, not 20,000 (without it: 6.4 s).
_CODE_SPAN: Final = re.compile(r"`[^`\n]+`|(?<!\w)(?:\w*_\w*|\w+(?=\()|\w+(?:\.\w+)+)")


#: One word between single underscores: Markdown's emphasis (``_transp_``), not code.
_ITALICS: Final = re.compile(r"_[^\W_]+_")


def code_words(text: str, tokens: list[str]) -> frozenset[str]:
    """The words of ``tokens`` the message writes only as code (:data:`_CODE_SPAN`): names spelt
    as the code spells them, never read as a short form of a longer word nor as a typo
    ("__repr__" is not short for "reproduced"; "align()" is no typo of "aligned").

    :param text: the message (clipped)
    :param tokens: its words (``notesdb.text.words``), duplicates kept
    """
    inside: dict[str, int] = {}
    for m in _CODE_SPAN.finditer(text):
        if _ITALICS.fullmatch(m.group(0)):
            continue  # Markdown's _emphasis_, not a name
        for w in text_words(m.group(0)):
            inside[w] = inside.get(w, 0) + 1
    return _bound_words(tokens, inside) if inside else frozenset()


#: What ends a phrase: punctuation that is not part of a word, and line breaks. "(most recent
#: call last):\n  File" holds the pair "call last" but not "last file".
_PHRASE_BREAK: Final = re.compile(r"[.,;:!?()\[\]{}<>\"|/\\=*#`\n\r\t]+")


def adjacent_terms(text: str, terms: set[str], names: list[list[str]] | None = None) -> list[tuple[str, str]]:
    """Pairs of different terms typed one right after the other, in message order, each pair
    once, at most :data:`MAX_PHRASES`: "When did Caroline go to the LGBTQ support group?" with
    terms {caroline, lgbtq, support, group} gives ``[("lgbtq", "support"), ("support",
    "group")]``. A stopword, a punctuation mark or a line break between two words breaks the
    pair (:data:`_PHRASE_BREAK`); a stopword kept for a hyphenated name pairs only inside it.

    :param text: the message as read (clipped, fullwidth letters folded)
    :param terms: the tokens the vocabulary knows (the query's known terms)
    :param names: the message's hyphenated names (:func:`_hyphen_names`), when already read
    """
    # a stopword kept as a term for a hyphenated name (``named_stopwords``) pairs only inside it:
    # "up-to-date" makes "up" a term, but "set up" elsewhere in the message is no phrase
    hyphenated = _hyphen_names(text) if names is None else names
    inside = {pair for parts in hyphenated for pair in zip(parts, parts[1:])}
    out: dict[tuple[str, str], None] = {}
    for part in _PHRASE_BREAK.split(text):
        tokens = text_words(part)
        for a, b in zip(tokens, tokens[1:]):
            if a == b or a not in terms or b not in terms:
                continue
            if (a in STOPWORDS or b in STOPWORDS) and (a, b) not in inside:
                continue
            out.setdefault((a, b), None)
            if len(out) >= MAX_PHRASES:
                return list(out)
    return list(out)


#: Single letters that are words of English or of the other languages notesdb reads ("a 10
#: minute timer", "i 3 times", Italian "e", Spanish "y", "o"): joined to the number after them
#: only across a hyphen ("e-208", "a-4"), which no sentence writes between a word and a number.
SINGLE_LETTER_WORDS: Final = frozenset("aeioy")


def _letter_name(text: str, letter: str, number: str) -> bool:
    """True when the single letter ``letter`` and ``number`` joined by :func:`notesdb.text.joined_pairs`
    are a name: the letter is no word (:data:`SINGLE_LETTER_WORDS`: "s 10", "t 800"), or the message
    writes the pair with a hyphen ("e-208", "E-15")."""
    if letter not in SINGLE_LETTER_WORDS:
        return True
    return re.search(rf"(?<![^\W_]){letter}[-\u2010\u2011]{number}(?![^\W_])", text.lower()) is not None


def build_query(
    conn: sqlite3.Connection, message: str, n_notes: int, settings: Settings | None = None
) -> Query:
    """Turn a message into a :class:`Query` against the vocabulary in ``conn``.

    Words are read like the notes' (``notesdb.text.words``); a letter/digit or hyphen pair
    ("ft 65", "wi-fi") that the vocabulary holds joined ("ft65") is one term. The message's
    language (:func:`detect_language`) decides how common each word is (the ``english`` or
    ``lexicon`` table) and which stemmer reads it. Each term's alternatives: the word itself,
    its plural or singular, its other forms (:func:`stemmed`), the compounds of the notes that
    end in it and the words of the notes it is a compound of (:func:`compounds`), else a
    prefix expansion, else a typo correction; an everyday word of the message's language is
    never expanded or corrected, and a word English knows is not corrected.

    :param conn: an open notesdb database (reads ``vocab``, ``english`` and ``lexicon``)
    :param message: the text as typed; only its first and last ``MAX_MESSAGE_CHARS / 2``
        characters are read
    :param n_notes: notes in the index (for IDF)
    :param settings: the correction and expansion weights and limits; defaults when None
    :returns: the query; terms keep message order, at most ``MAX_TERMS`` of them
    """
    s = settings or Settings()
    text, truncated = _clip(message)
    if not text.isascii():
        text = text.translate(READABLE)
    text = _NOTE_EXTENSION.sub(" ", text)
    tokens = text_words(text)
    english = _english(conn, set(tokens))
    lexicon = _lexicon(conn, set(tokens))
    lang = detect_language(english, lexicon, tokens)
    # a Korean word's commonness is its noun's, whatever the message's language ("감사합니다",
    # thank you: 감사, Zipf 5.5; wordfreq's Korean list holds words without their endings)
    korean = {t: st for t in set(tokens) if has_hangul(t) and t not in lexicon and (st := hangul_stems(t))}
    if korean:
        lexicon.update(_lexicon(conn, {w for ws in korean.values() for w in ws}))

    # the message's language's stopwords are no evidence either ("de", "la", "pour")
    other_stop = OTHER_STOPWORDS.get(lang, frozenset())
    stop: dict[str, None] = {}
    distinct: dict[str, None] = {}
    hyphenated = _hyphen_names(text)  # read once: its stopwords are terms, its pairs phrases
    named = named_stopwords(text, hyphenated)
    for tok in tokens:
        if (tok in STOPWORDS and tok not in named) or tok in other_stop or (len(tok) == 1 and not tok.isdigit()) or is_jamo(tok):
            stop.setdefault(tok, None)
        else:
            distinct.setdefault(tok, None)
    # a stopword before a number is not a model's name ("at 16", "la 308"): single letters
    # still are ("s 10", "t 800")
    pairs = [(a, b) for a, b in joined_pairs(text) if a + b not in distinct and not (len(a) > 1 and a in stop)]
    words = list(distinct)
    forms = {tok: inflections(tok) + list(calendar_short(tok)) for tok in words}
    parts = {tok: _parts(tok) for tok in words}
    looked_up = words + [f for fs in forms.values() for f in fs] + [p for ps in parts.values() for p in ps]
    known = _vocab_rows(conn, looked_up + [a + b for a, b in pairs])
    # a pair the notes hold joined is one term in place of its two halves
    for a, b in pairs:
        if a + b not in known:
            continue
        if a in words:
            words[words.index(a)] = a + b
            if b in words:
                words.remove(b)
            parts[a + b] = [a]  # the notes that hold only the name ("postgres 16" and "postgres") keep it
        elif b in words and _letter_name(text, a, b):
            # a single letter is no term of its own: the pair takes the number's place
            words[words.index(b)] = a + b
            parts[a + b] = []
        else:
            continue
        forms[a + b] = []
    joins = set(words) - set(tokens)  # joined pairs: their Zipf was not read with the tokens'
    if joins:
        english.update(_english(conn, joins))
        lexicon.update(_lexicon(conn, joins))

    coded = code_words(text, tokens)
    import Stemmer  # PyStemmer: about 1 ms to import, a C extension

    stemmer = Stemmer.Stemmer(STEMMERS.get(lang, "english"))
    terms: list[Term] = []
    to_correct: list[tuple[int, str]] = []  # (index in terms, token) of the tokens to correct
    for tok in words:
        alts = [Alternative(tok, "exact", 1.0, known[tok])] if tok in known else []
        alts += [Alternative(f, "inflected", s.inflected_weight, known[f]) for f in forms[tok] if f in known]
        zipf = _message_zipf(tok, lang, english, lexicon, korean)
        have = {a.word for a in alts}
        alts += [a for a in stemmed(conn, tok, lang, s, stemmer) if a.word not in have]
        if lang == "ko" or has_hangul(tok):  # Korean: the noun with another particle or none
            have = {a.word for a in alts}
            strip = lexicon.get(tok, {}).get("ko", 0.0) == 0.0  # "고양이" is a word, not 고양 + 이
            found = hangul_forms(conn, tok, strip)
            alts += [Alternative(w, "inflected", s.inflected_weight, df) for w, df in found if w not in have]
        if tok not in english:
            have = {a.word for a in alts}
            joined_words = []
            part = next((p for p in parts[tok] if p in known), None)
            if part is not None and part not in have:  # the message's compound holds a note's word
                joined_words.append(Alternative(part, "compound", s.compound_weight, known[part]))
            joined_words += [a for a in compounds(conn, tok, s) if a.word not in have]
            if joined_words:
                # an English word is not a compound's part, nor a compound of the message's word
                # ("garde" is no part of "sauvgarde", "earring" no compound of "ring"): the
                # token may then still be a typo or a short form
                words_of_english = _english(conn, {a.word for a in joined_words})
                alts += [a for a in joined_words if a.word not in words_of_english]
        # a word written as code is the name as it is spelt: neither a short form nor a typo
        guess = not alts and tok not in coded
        if guess and zipf < s.prefix_max_zipf and not tok.isdigit():
            # a short form that starts vocabulary words ("merc") is read as such, not as a typo;
            # a number is only ever itself ("754" is not short for "7543186180422")
            alts = expand(conn, tok, s)
        if guess and not alts and zipf < s.correct_max_zipf and english.get(tok, 0.0) < s.english_known_zipf:
            # an everyday word the notes lack ("gonna") is not a typo of a word they have, and
            # neither is a word English knows ("yolk" is not "yolo", "pistols" not "pistons")
            to_correct.append((len(terms), tok))
        terms.append(Term(tok, alts, zipf, max(lexicon.get(tok, {}).values(), default=0.0)))
    # a paste of unknown words is not a few typos: only its first and last are corrected
    if len(to_correct) > MAX_CORRECTIONS:
        to_correct = to_correct[: MAX_CORRECTIONS // 2] + to_correct[-(MAX_CORRECTIONS // 2):]
    for corrected, (i, tok) in enumerate(to_correct):
        alts = correct(conn, tok, 1 if tok in english else 2, s, wide=corrected < MAX_WIDE_CORRECTIONS)[0]
        if alts:  # and not a rarer word English knows, typed on purpose ("wipers")
            terms[i].alternatives = likelier(conn, tok, alts, s)
    alt_words = {a.word for t in terms for a in t.alternatives}
    alt_english = _english(conn, alt_words)
    alt_lexicon = _lexicon(conn, alt_words if lang != "en" else {w for w in alt_words if has_hangul(w)})

    # a word is made up only when English's rare words are there to say it is not one of them
    # (the table is empty until the first full sync), and only in the Latin script, whose
    # languages the word lists cover (Russian or Greek words would all look made up); only the
    # pairs no other list holds are looked up there, most messages have none
    unlisted = {
        w
        for t in terms
        if t.zipf == 0 and t.token not in english and t.token.isascii()
        for a in t.alternatives
        if a.word not in alt_english and a.word.isascii()
        for w in (t.token, a.word)
    }
    can_tell = bool(unlisted) and rare_words_filled(conn)
    listed = set(english) | set(alt_english) | (set(_english_rare(conn, unlisted)) | _lexicon_rare(conn, unlisted) if can_tell else set())
    for t in terms:
        t.alternatives = [
            replace(
                a,
                zipf=(z := _message_zipf(a.word, lang, alt_english, alt_lexicon)),
                coined=can_tell and t.zipf == 0 and z == 0 and t.token not in listed and a.word not in listed
                and t.token.isascii() and a.word.isascii(),
            )
            for a in t.alternatives
        ]
    if len(terms) > MAX_TERMS:
        # keep the most informative: known rare words first, then the rest in message order;
        # bare numbers last, so that a pasted log's numbers never push out the words of the
        # question (numbers say little about a topic: ``rank.shape_weight``)
        def rarity(t: Term) -> tuple[bool, float]:
            return t.token.isdigit(), min((a.doc_freq for a in t.alternatives), default=n_notes + 1)

        keep = set(id(t) for t in sorted(terms, key=rarity)[:MAX_TERMS])
        terms = [t for t in terms if id(t) in keep]
        truncated = True
    names, inside = _scan_names(text)
    return Query(
        phrases=adjacent_terms(text, {t.token for t in terms if t.known}, hyphenated),
        terms=terms,
        stopwords=list(stop),
        n_notes=n_notes,
        truncated=truncated,
        language=lang,
        code_names=names,
        bound=_bound_words(tokens, inside) if names else frozenset(),
    )

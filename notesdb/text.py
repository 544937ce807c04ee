"""Text -> tokens, exactly as the FTS5 index sees it: one leaf shared by indexing and querying.

Tokenising follows the FTS5 ``unicode61`` tokenizer with ``remove_diacritics 2``: runs of letters
and digits are tokens, everything else separates them, case is folded and Latin diacritics are
removed (https://sqlite.org/fts5.html#unicode61_tokenizer). :func:`inflections` gives the
regular English plural and singular forms the query side matches in place of stemming.

FTS5 folds only letters that are a base letter plus a mark. :func:`words` goes further, the same
way for notes and messages: text is read in NFC (decomposed accents fold like composed ones) and
letters that are not a base letter plus a mark are spelled as people type them on an ASCII
keyboard (æ -> ae, ø -> o, ß -> ss, ...). :func:`joined` gives the letter/digit and hyphen
variants of a text ("FT-65" -> "ft65", "MGS 3" -> "mgs3", "wi-fi" -> "wifi"). The index holds
these as extra tokens beside what FTS5 makes of the text itself (:func:`extra_words`).
"""

from __future__ import annotations

import re
from functools import lru_cache
import unicodedata

TYPE_CHECKING = False  # not typing's: the hook does not import typing (about 3 ms of every message)
if TYPE_CHECKING:
    from typing import Callable, Final

__all__ = ["FORMAT_CHARS", "FORMAT_CLASS", "tokenize", "fold", "inflections", "calendar_short", "us_spelling", "spell", "words", "joined", "joined_pairs", "camel_parts", "camel_words", "camel_held", "extra_words"]

#: Unicode's format characters (general category Cf, Unicode 15.1, as ``(first, last)`` code
#: point ranges): invisible, yet they change how the text around them shows. The bidi overrides,
#: embeddings and isolates (U+202A-202E, U+2066-2069) reverse what follows them on a terminal
#: (``a\u202edm.exe.md`` shows as ``a`` then ``exe.md`` backwards), zero-width spaces, joiners
#: and marks (U+200B-200F, U+2060-2064, U+FEFF) hide inside a word, tag characters
#: (U+E0020-E007F) spell hidden ASCII. Written out rather than found with ``unicodedata`` at
#: import (1.1 million look-ups); tests check it holds every Cf character this Python knows.
FORMAT_CHARS: Final = (
    (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891),
    (0x8E2, 0x8E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064),
    (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
    (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)
#: :data:`FORMAT_CHARS` as the inside of a regular expression's character class.
FORMAT_CLASS: Final = "".join(f"{chr(a)}-{chr(b)}" if a != b else chr(a) for a, b in FORMAT_CHARS)

#: Combining marks unicode61 reads as part of a word and then drops (its diacritic table).
_DIACRITICS: Final = "\u0300-\u0304\u0306-\u030c\u030f\u0311\u031b\u0323-\u0328\u032d\u032e\u0330\u0331"
#: unicode61 token characters: letters, numbers, private-use characters and those marks.
_TOKEN_RE: Final = re.compile(
    r"(?:[^\W_]|[" + _DIACRITICS + "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd])+"
)


@lru_cache(maxsize=8192)  # a text's letters are few; a long note has them thousands of times
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


#: British spellings and their American forms, as the endings and letters that differ
#: (Wikipedia, "American and British English spelling differences"): -ise/-ize, -yse/-yze,
#: -our/-or, -re/-er, -ogue/-og, -ence/-ense, a doubled l before an ending, ae. They turn 459
#: of the 535 pairs of codespell's en-GB -> en-US list (2.4.3) into the American form.
_US_SPELLING: Final = (
    (re.compile(r"([a-z]{2})is(e|es|ed|ing|er|ers|ation|ations|able)$"), r"\1iz\2"),
    (re.compile(r"ys(e|es|ed|ing|er|ers)$"), r"yz\1"),
    (re.compile(r"our(s|ed|ing|ite|ites|able|er|ers|ful|fully|less|ly|ation|ations|ism|ist|al|ally)?$"), r"or\1"),
    (re.compile(r"([^aeiou])re(s|d)?$"), r"\1er\2"),
    (re.compile(r"ogue(s)?$"), r"og\1"),
    (re.compile(r"([cf])ence(s|less)?$"), r"\1ense\2"),
    (re.compile(r"([aeiou])ll(ed|ing|er|ers|or|ors)$"), r"\1l\2"),
    (re.compile(r"([^aeiou])ae([^aeiou])"), r"\1e\2"),
)


def us_spelling(token: str) -> str:
    """The American spelling of a British one, by its usual endings: ``"summarise"`` ->
    ``"summarize"``, ``"colour"`` -> ``"color"``, ``"centre"`` -> ``"center"``, ``"travelling"`` ->
    ``"traveling"``, ``"paediatric"`` -> ``"pediatric"``; other words come back unchanged or
    rewritten without meaning (``"shoes"`` -> ``"shoes"``, ``"filled"`` -> ``"filed"``): only
    compare the result with a word found otherwise.

    :param token: a folded token (:func:`tokenize`)
    """
    for pattern, repl in _US_SPELLING:
        token = pattern.sub(repl, token)
    return token


#: The endings after which English writes a plural or third person in ``-es`` ("boxes",
#: "wishes", "potatoes"); after any other letter it is ``-s`` ("coffees", "cakes"), so "coffe"
#: + "es" is no form of anything but a typo of "coffee".
ES_AFTER: Final = ("s", "x", "z", "ch", "sh", "o")


def inflections(token: str) -> list[str]:
    """The English plural and singular forms of a word, for matching "plug" with "plugs".

    Only the regular suffixes: ``-s``, ``-es`` (after :data:`ES_AFTER`), ``-ies``/``-y``. The index keeps words unstemmed
    (a porter stemmer would also merge "mechanics" with "mechanic" and "general" with
    "generic"), so this small, predictable step stands in for stemming on the query side.

    :returns: candidate forms (not checked against the vocabulary), without ``token`` itself
    """
    if len(token) < 3 or not token.isalpha():
        return []
    out = [token + "s"]
    if token.endswith(ES_AFTER):
        out.append(token + "es")
    if token.endswith("ies") and len(token) > 4:
        out.append(token[:-3] + "y")
    elif token.endswith("y"):
        out.append(token[:-1] + "ies")
    if token.endswith("es") and len(token) > 4 and token[:-2].endswith(ES_AFTER):
        out.append(token[:-2])
    # "-ics" nouns are singular fields, not plurals ("mechanics" is not "mechanic")
    if token.endswith("s") and not token.endswith(("ss", "ics")) and len(token) > 3:
        out.append(token[:-1])
    return out


#: The short forms of the English names of months that notes write in tables, rotas and logs
#: ("Sept"), by the full name (``may`` has none); with the days', :data:`_CALENDAR_SHORT`.
_MONTH_SHORT: Final = {
    "january": ("jan",), "february": ("feb",), "march": ("mar",), "april": ("apr",), "may": (), "june": ("jun",),
    "july": ("jul",), "august": ("aug",), "september": ("sep", "sept"), "october": ("oct",),
    "november": ("nov",), "december": ("dec",),
}
#: The short forms of the English names of days and months ("Thu", "Sept"), by the full name.
_CALENDAR_SHORT: Final = {
    "monday": ("mon",), "tuesday": ("tue", "tues"), "wednesday": ("wed",), "thursday": ("thu", "thur", "thurs"),
    "friday": ("fri",), "saturday": ("sat",), "sunday": ("sun",),
    **_MONTH_SHORT,
}


def calendar_short(token: str) -> tuple[str, ...]:
    """The short forms notes write for a day or month named in full, singular or plural:
    ``"thursdays"`` -> ``("thu", "thur", "thurs")``; ``()`` for any other word."""
    return _CALENDAR_SHORT.get(token, ()) or (_CALENDAR_SHORT.get(token[:-1], ()) if token.endswith("s") else ())


#: Letters that are not a base letter plus a combining mark, so FTS5's ``remove_diacritics``
#: keeps them, spelled as they are typed without them (the usual ASCII transliterations:
#: Danish/Norwegian æ ø, German ß, French œ, Polish ł, Croatian đ, Icelandic þ ð, Maltese ħ,
#: Turkish dotless ı, Catalan ŀ, Sami ŧ, the long s and the ij ligature).
_LETTERS: Final = str.maketrans(
    {
        "æ": "ae", "ø": "o", "ß": "ss", "œ": "oe", "ł": "l", "đ": "d", "þ": "th", "ð": "d",
        "ħ": "h", "ı": "i", "ŀ": "l", "ŧ": "t", "ſ": "s", "ĳ": "ij", "ǽ": "ae", "ǿ": "o",
    }
)  # fmt: skip


def spell(token: str) -> str:
    """A folded token with the letters FTS5 keeps spelled out: ``"straße"`` -> ``"strasse"``.

    :param token: a token from :func:`tokenize` (already lower case, Latin diacritics removed)
    :returns: the token as both notes and messages are searched by
    """
    if token.isascii():
        return token
    return token.translate(_LETTERS)


def words(text: str) -> list[str]:
    """The searchable words of a text, in order: NFC, tokenized like FTS5, then :func:`spell`.

    Notes and messages go through this same function, so "Große", "grosse" and a decomposed
    "Große" are one word.
    """
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
        return [spell(t) for t in tokenize(text)]
    return tokenize(text)


#: Separators across which two tokens form one joined variant: a hyphen always ("wi-fi",
#: "FT-65"); a space only between letters and a number ("MGS 3", "RTX 4090").
_JOIN_GAPS: Final = frozenset("-‐‑ \t")
#: A text without any of these has no pair to join (every join needs a hyphen or a digit).
_MAY_JOIN: Final = re.compile(r"[-‐‑\d]")
#: Longest letter run a spaced number is joined to: model and product names ("rtx 4090",
#: "witcher 3"), not long words before a count ("temperature 21").
MAX_JOIN_LETTERS: Final = 8
#: What is left of an English contraction or possessive when a title becomes a file name
#: ("Git's magic files" -> ``git-s-magic-files.md``, "Don't panic" -> ``don-t-panic.md``): a
#: hyphen before one of these parts no word is made of, so ``git-s`` does not join to "gits",
#: a word of that note alone that "git" would find as another form.
CONTRACTION_PARTS: Final = frozenset({"s", "t", "d", "m", "ll", "re", "ve"})
#: Month names, whole and short, of English (:data:`_MONTH_SHORT`) and of the other languages
#: notesdb reads (``notesdb.stopwords.OTHER_STOPWORDS``), folded: a number after one is a day or a year
#: ("January 2024", "mars 2025", "May 5", "Sept 3"), not a model's number, so the two are not
#: joined.
MONTHS: Final = frozenset(_MONTH_SHORT) | {short for shorts in _MONTH_SHORT.values() for short in shorts} | frozenset(
    """
    janvier fevrier mars avril mai juin juillet aout septembre octobre novembre decembre
    januar februar marz maerz juni juli oktober dezember
    enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre
    gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre
    janeiro fevereiro marco maio junho julho setembro outubro novembro dezembro
    januari februari maart augustus mei
    maj augusti marts desember
    """.split()
)


#: The years a number after a word is read as (four digits, inclusive): "Budget 2026", "Taxes
#: 2024" and "trip-2025" are a subject and its year, not a model's name, whose joined word
#: ("budget2026") was a rare name of the yearly note and of nothing else. A model number in that
#: range ("RTX 2080") is no longer joined either: its two words and their phrase still find it.
YEARS: Final = ("1900", "2099")


def _year(number: str) -> bool:
    return len(number) == 4 and YEARS[0] <= number <= YEARS[1]


def joined(text: str) -> list[str]:
    """The joined tokens of :func:`joined_pairs`: ``"Yaesu FT-65"`` -> ``["ft65"]``."""
    return [a + b for a, b in joined_pairs(text)]


def joined_pairs(text: str) -> list[tuple[str, str]]:
    """Letter/digit and hyphen variants of the text's adjacent token pairs, as one token.

    ``"Yaesu FT-65"`` -> ``[("ft", "65")]``; ``"MGS 3"`` -> ``[("mgs", "3")]``; ``"wi-fi"`` ->
    ``[("wi", "fi")]``; ``"E-15 error"`` -> ``[("e", "15")]``. A hyphen or a single space joins
    a run of at most ``MAX_JOIN_LETTERS`` letters to a number, unless the letters are a month
    (:data:`MONTHS`) or the number a year (:data:`YEARS`): a date; a hyphen also joins two words
    when one has at most two letters, unless the second is what a file name keeps of a
    contraction or possessive (:data:`CONTRACTION_PARTS`: ``git-s-magic-files`` joins neither
    "gits" nor "smagic"). Names of several parts ("mercedes-w204") and dates
    ("2024-11-02") are not joined: their parts are the words people type. Tokens are folded like
    :func:`words`.
    """
    if not _MAY_JOIN.search(text):  # no hyphen and no digit: nothing to join
        return []
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    out: list[tuple[str, str]] = []
    prev: re.Match[str] | None = None
    contraction = False  # prev is a contraction's part after a hyphen ("s" of "git-s-magic")
    for m in _TOKEN_RE.finditer(text):
        after_hyphen = False
        if prev is not None and m.start() - prev.end() == 1 and text[prev.end()] in _JOIN_GAPS:
            a, b = spell(fold(prev.group())), spell(fold(m.group()))
            hyphen = after_hyphen = text[prev.end()] not in " \t"
            words_pair = hyphen and a.isalpha() and b.isalpha() and min(len(a), len(b)) <= 2
            if words_pair and (b in CONTRACTION_PARTS or contraction):
                words_pair = False
            if a and b and (words_pair or (a.isalpha() and b.isdigit() and len(a) <= MAX_JOIN_LETTERS and a not in MONTHS and not _year(b))):
                out.append((a, b))
        contraction = after_hyphen and fold(m.group()) in CONTRACTION_PARTS
        prev = m
    return out


#: A word written in camel case: a lower-case letter followed by a capital ("LogSegments",
#: "getTimeline"), or a run of capitals followed by a capital and a lower-case letter
#: ("ISRTopic"). Only such a word is read for :func:`camel_parts`.
_CAMEL: Final = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
#: The parts of a camel-case word: a capitalised or lower-case run of letters, a run of
#: capitals not followed by a lower-case letter, a number.
_CAMEL_PART: Final = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def camel_parts(text: str) -> dict[str, list[str]]:
    """The words of a text's camel-case words, as a name is written in code and in the file
    names of some folders: ``"18_LogSegments"`` -> ``{"logsegments": ["log", "segments"]}``,
    ``"MinimumISR"`` -> ``{"minimumisr": ["minimum", "isr"]}``, ``"getTimeline"`` ->
    ``{"gettimeline": ["get", "timeline"]}``. A person types the words apart ("kafka log
    segments"); the index keeps the word as written too. Only ASCII words of at least two parts
    of three or more letters count ("iPhone", "macOS", "ZeRO" and "LaTeX" give none: a
    letter case that styles a name, not words); numbers are not parts.

    :returns: ``{folded word: its folded parts, in order}``
    """
    out: dict[str, list[str]] = {}
    if not _CAMEL.search(text):
        return out
    for m in _TOKEN_RE.finditer(text):  # tokens as the index reads them: "18" and "LogSegments"
        raw = m.group()
        if not raw.isascii() or not _CAMEL.search(raw):
            continue
        parts = [p.lower() for p in _CAMEL_PART.findall(raw) if p.isalpha()]
        if len(parts) >= 2 and all(len(p) >= 3 for p in parts):
            out.setdefault(raw.lower(), parts)
    return out


def camel_words(parts: list[str], english: "Callable[[str], bool]") -> list[str]:
    """A camel-case word's parts (:func:`camel_parts`) as the words a person types for it: each
    run of parts English knows joined is one word ("GitHubActions" -> github, actions;
    "JavaScriptTutorial" -> javascript, tutorial: "java" is another language), the longest run
    first, from the left.

    :param english: true for a word English knows (``notesdb.sync``: the ``english`` and
        ``english_rare`` tables)
    :returns: the words; one word when English knows the whole ("GitHub")
    """
    out, i = [], 0
    while i < len(parts):
        for j in range(len(parts), i + 1, -1):
            if english("".join(parts[i:j])):
                out.append("".join(parts[i:j]))
                i = j
                break
        else:
            out.append(parts[i])
            i += 1
    return out


def camel_held(parts: list[str], found: "set[str] | frozenset[str]") -> bool:
    """True when the found words make up a camel-case word's parts in order, each found word a
    run of parts ("github" and "actions" make up git, hub, actions): the word is held as the
    index reads it, whichever runs :func:`camel_words` joined."""
    reach = [True] + [False] * len(parts)
    for i in range(len(parts)):
        if reach[i]:
            for j in range(i + 1, len(parts) + 1):
                if "".join(parts[i:j]) in found:
                    reach[j] = True
    return reach[-1]


def extra_words(text: str, added: str = "", english: "Callable[[str], bool] | None" = None) -> list[str]:
    """Words to index beside ``text`` so that FTS5 finds it by every one of its :func:`words`
    and :func:`joined` variants, plus the words of ``added`` (a file name, folder names).

    :param english: when given, also the words of each camel-case word of ``text`` and
        ``added`` (:func:`camel_parts`, :func:`camel_words`) for which it is false: a note's
        names, "18_LogSegments" found by "log segments"; a word English knows as it is
        ("GitHub", "JavaScript") is a name of its own, not its parts ("java" is another
        language), and so is a run of parts English knows ("GitHubActions": github, actions)
    :returns: distinct words FTS5 would not make of ``text`` itself, in order
    """
    have = set(tokenize(text))
    out: dict[str, None] = {}
    # an ASCII text's words are its tokens: only its joins and ``added`` can bring new ones
    own = joined(text) if text.isascii() else words(text) + joined(text)
    if english is not None:
        own += [w for found in (text, added) for word, parts in camel_parts(found).items() if not english(word)
                for w in camel_words(parts, english)]
    for w in own + words(added) + joined(added):
        if w not in have:
            out.setdefault(w, None)
    return list(out)

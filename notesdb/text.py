"""Text -> tokens, exactly as the FTS5 index sees it: one leaf shared by indexing and querying.

Tokenising follows the FTS5 ``unicode61`` tokenizer with ``remove_diacritics 2``: runs of letters
and digits are tokens, everything else separates them, case is folded and Latin diacritics are
removed (https://sqlite.org/fts5.html#unicode61_tokenizer). :func:`inflections` gives the
regular English plural and singular forms the query side matches in place of stemming.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

__all__ = ["tokenize", "fold", "inflections"]

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

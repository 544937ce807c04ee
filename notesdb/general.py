"""Is a message a request for general knowledge? ("explain X", "the difference between X and Y").

A request to explain a concept, to compare two things, or to say how a kind of thing works
asks for what anyone knows, not for what the user wrote down. Such a message still shares its
subject's words with a note on that subject ("how does a heat pump work compared to a gas
boiler" and the user's boiler note; "what's the difference between oauth and openid connect"
and a how-to on OAuth), and those words add up past the ``strong`` route's evidence without
the message naming anything the user owns. :func:`general_request` tells such a message by its
form; the gate then keeps it from the routes that add up the message's words (``strong``,
``lead``, ``ahead``; ``Settings.general_words``), and the routes that ask for a name or a rare
word (``rare``, ``sole``, ``named``, ``full-name``, ``subject``) still judge it.

The forms, in English and the other languages notesdb reads (``vocab.LANGUAGES``), folded as
the index folds text (lower case, no diacritics):

- *explain*: "explain", "explique", "erklar", "explica", "spiega", "uitleg", "forklar";
- *compare*: "difference between", "difference entre", "unterschied zwischen", "diferencia
  entre", "differenza tra", "diferenca entre", "verschil tussen", "skillnad mellan",
  "forskel mellem", "forskjell mellom";
- *how a kind of thing works*: "how does a(n) ... work", "comment fonctionne un(e)", "wie
  funktioniert ein(e)", "como funciona un(a)/um(a)", "come funziona un(a)", "hoe werkt een".

A message that speaks of the user's own things is not general, whatever its form: it holds a
first-person word (:data:`PERSONAL`: "my", "our", "we", "i"; "mon", "notre", "je"; ...):
"can you explain why my backup failed" asks about the user's backup.

Source: the forms are those of the general questions among the 510 generic messages
(``notesdb.meter``) and the labelled sets' uncovered cases. Measured on every labelled half,
the blind folders and the generic messages against each folder: see ``Settings.general_words``
and ``docs/measurements.md``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from notesdb.text import words

#: first-person words: a message holding one speaks of the user's own things. Words that are
#: also everyday English or code ("min", "mit", "var", "vi", "io", "id", "eu") are left out, and
#: so are the objects of "explain to me" ("me", "moi", "mir"), which generic requests hold too
PERSONAL = frozenset(
    "i im ive my mine we our ours us "  # English
    "je j mon ma mes notre nos "  # French
    "ich mein meine meinen meinem meiner wir unser unsere "  # German
    "mi mis nuestro nuestra nuestros "  # Spanish
    "mio mia miei mie nostro nostra "  # Italian
    "meu minha meus minhas nosso nossa "  # Portuguese
    "ik mijn wij onze "  # Dutch
    "jag mitt mina "  # Swedish
    "jeg vores "  # Danish
    "meg".split()  # Norwegian
)

#: The forms, as one pattern over the message's words (``notesdb.text.words``: folded like the
#: index, one space between them; compiled on first use: about 2 ms, which
#: a message holding none of :data:`_CUES` never pays).
_FORMS_PATTERN = (
    r"\b(?:"
    r"explain(?:s|ed|ing)?|expliqu\w*|erklar\w*|explica\w*|spiega\w*|uitleg\w*|forklar\w*"
    r"|difference between|difference entre|unterschied zwischen|diferencia entre|differenza (?:tra|fra)"
    r"|diferenca entre|verschil tussen|skillnad mellan|forskel mellem|forskjell mellom"
    r"|how (?:does|do) an? \w+(?: \w+)? work"
    r"|comment (?:fonctionne|marche) une?|wie funktioniert eine?|como funciona (?:una?|uma?)"
    r"|come funziona una?|hoe werkt een"
    r")\b"
)
#: Lower-case fragments one of which every form holds, accents or none: the cheap test first.
_CUES = ("expl", "erkl", "spieg", "uitleg", "forklar", "diff", "diferen", "unterschied", "verschil",
         "skillnad", "forskel", "forskjell", "how do", "comment", "funktioniert", "funciona", "funziona", "hoe werkt")


@lru_cache(maxsize=1)
def _forms() -> re.Pattern[str]:
    return re.compile(_FORMS_PATTERN)


__all__ = ["general_request", "PERSONAL"]


def general_request(message: str) -> str:
    """The form that makes ``message`` a request for general knowledge, or "" when it is not one.

    :param message: the message as typed (any case, accents or none)
    :returns: the matched words, folded ("explain", "difference between", "how does a heat pump
        work"), or "" when no form matches or the message holds a first-person word
        (:data:`PERSONAL`)
    """
    low = message.lower()
    if not any(cue in low for cue in _CUES):
        return ""
    tokens = words(message)
    if any(t in PERSONAL for t in tokens):
        return ""
    found = _forms().search(" ".join(tokens))
    return "" if found is None else found.group(0)

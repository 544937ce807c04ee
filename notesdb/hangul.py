"""Korean word forms: a noun written with its particle is the noun.

Korean writes its particles (조사: 이/가, 을/를, 은/는, 에서, 으로, ...) and the endings of the
verbs made from a noun with 하다 and 되다 (배포하다: 배포할, 배포했어, 배포해줘) joined to the
word, with no space: "서버가 안 켜져" holds "서버" as the token "서버가", and a note writes it
"서버", "서버를" or "서버는". FTS5's unicode61 tokenizer keeps each such run of syllables whole, so
without this a Korean message matches a note only where both wrote the same particle.

:func:`forms` gives the vocabulary words that are the same noun as a message token with
another particle or none; ``notesdb.query`` adds them as inflected forms. :func:`reading_stems`
says where to read how common a word is (wordfreq's Korean list holds words without their
endings: "감사합니다", thank you, is as common as 감사), and :func:`is_jamo` tells the chat
shorthand of initials ("ㅋㅋ", "ㅇㅋ"), read as interjections. The lists are the
particles and endings of Korean grammar (the 조사 of the National Institute of Korean Language's
Standard Korean Dictionary, and the commonest forms of 하다 and 되다), not words of any notes.
"""

from __future__ import annotations

import sqlite3

TYPE_CHECKING = False  # not typing's: the hook does not import typing
if TYPE_CHECKING:
    from typing import Final

__all__ = ["is_hangul", "has_hangul", "is_jamo", "stems", "reading_stems", "forms", "SUFFIXES", "MIN_STEM"]

#: The particles (조사) written joined to a noun: case particles, the topic and focus particles
#: and the commonest of their combinations ("에서는", "까지는").
PARTICLES: Final = tuple(
    """
    이 가 을 를 은 는 의 에 에서 에게 께 께서 한테 한테서 에게서 로 으로 로서 으로서 로써 으로써
    와 과 랑 이랑 하고 도 만 까지 부터 보다 처럼 마다 조차 밖에 나 이나 든지 이든지 라도 이라도
    에는 에서는 에도 에서도 으로는 로는 와는 과는 까지는 부터는 만은 에게는 한테는 이란 란 이라고 라고
    요 이요 이다 이에요 예요 입니다 이고 인데 인가 인가요 인지 이야
    """.split()
)
#: The forms of 하다 and 되다 that make a verb of a noun ("배포" -> "배포할", "배포됐어").
VERB_ENDINGS: Final = tuple(
    """
    하다 해 해요 했 했어 했어요 했는데 했다 했던 해서 해도 해야 하면 하려면 하는 한 할 함 해줘 해주세요
    해줄래 해봐 하기 하고 하니 하지 할때 할까 할까요 한다 합니다 했습니다 하세요 하셨습니다 하셨어요 하자 되다 돼
    돼요 됐 됐어
    됐다 되는 된 될 됨 되면 돼서 되서 된다 됩니다
    """.split()
)
#: Every ending :func:`stems` takes off a token: the particles, the verb endings, and the plural
#: 들 alone or before a particle ("서버들", "서버들이").
SUFFIXES: Final = frozenset(PARTICLES + VERB_ENDINGS + ("들",) + tuple("들" + p for p in PARTICLES))
_LONGEST: Final = max(len(s) for s in SUFFIXES)
#: Characters a stem keeps at least: a one-syllable rest is as often a word that ends in a
#: particle's syllable as a noun ("사과", apple, is not 사 + the particle 과; "나이", age, not
#: 나 + 이). A longer word can still end so ("고양이", cat, is not 고양 + 이): ``notesdb.query``
#: cuts no word that Korean's list holds as typed (:func:`forms` with ``strip`` False).
MIN_STEM: Final = 2
#: Forms read for one token at most, commonest first (a stem of many forms is a common word).
MAX_FORMS: Final = 20


def _syllable(c: str) -> bool:
    """True for a Hangul syllable (U+AC00-U+D7A3)."""
    return "\uac00" <= c <= "\ud7a3"


def is_hangul(token: str) -> bool:
    """True for a token of Hangul syllables only (U+AC00-U+D7A3), the script Korean is typed in."""
    return bool(token) and all(_syllable(c) for c in token)


def has_hangul(token: str) -> bool:
    """True for a token holding a Hangul syllable: a Korean word, or an English one with its
    particle ("docker가", "main에": the tokenizer keeps letters of both scripts in one token)."""
    return any(_syllable(c) for c in token)


def is_jamo(token: str) -> bool:
    """True for a token of Hangul letters written alone (compatibility jamo, U+3131-U+318E):
    the chat shorthand of initials, "ㅋㅋ" (laughter), "ㅇㅋ" (OK), "ㄱㄱ" (go), "ㅠㅠ" (tears),
    an interjection, never a note's subject."""
    return bool(token) and all("\u3131" <= c <= "\u318e" for c in token)


def stems(token: str) -> list[str]:
    """The token without each ending of :data:`SUFFIXES` it ends in, keeping at least
    :data:`MIN_STEM` characters, longest ending first: ``"서버에서는"`` -> ``["서버", "서버에서"]``
    (은/는 after 에서), ``"docker가"`` -> ``["docker"]``; ``[]`` for a token with no such ending."""
    if not token or not _syllable(token[-1]):
        return []
    out: list[str] = []
    for n in range(min(_LONGEST, len(token) - MIN_STEM), 0, -1):
        if token[-n:] in SUFFIXES:
            out.append(token[:-n])
    return out


#: Endings of verbs and adjectives after their stem ("맞아", "알겠습니다", "써줘"), read only to tell
#: how common a word is (:func:`reading_stems`), never to match a note's word.
VERBAL_ENDINGS: Final = tuple(
    """
    아 어 아요 어요 았어 었어 았다 었다 겠습니다 습니다 네요 지요 죠 세요 자 줘 봐 는데 던데 어서 아서 지만 니까
    """.split()
)
#: The ending that makes an adverb of an adjective ("어떻게", how, is 어떻 + 게; "그렇게", so, is
#: 그렇 + 게), read like :data:`VERBAL_ENDINGS` but after a stem of :data:`MIN_STEM` syllables:
#: a noun of two syllables may end in 게 ("가게", a shop, is not 가 + 게; "무게", weight).
ADVERB_ENDING: Final = "게"


def reading_stems(token: str) -> list[str]:
    """Where to read how common a Korean word is: its :func:`stems`, then its stems without a
    verb's ending (:data:`VERBAL_ENDINGS`, one syllable at least: "맞아" is 맞) or an adverb's
    (:data:`ADVERB_ENDING`, two syllables at least: "어떻게" is 어떻). wordfreq's Korean list
    holds words without their endings ("감사", "맞", "어떻"), so "감사합니다", "맞아" and
    "어떻게" are read as those."""
    out = stems(token)
    if token and _syllable(token[-1]):
        out += [token[:-n] for n in range(min(_LONGEST, len(token) - 1), 0, -1) if token[-n:] in VERBAL_ENDINGS]
        if token.endswith(ADVERB_ENDING) and len(token) - len(ADVERB_ENDING) >= MIN_STEM:
            out.append(token[: -len(ADVERB_ENDING)])
    return out


def forms(conn: sqlite3.Connection, token: str, strip: bool = True) -> list[tuple[str, int]]:
    """Vocabulary words that are ``token``'s noun with another ending or none: for "서버가",
    the notes' "서버", "서버를", "서버는"; for "docker" in a Korean message, "docker를".

    Reads ``vocab`` once per stem (:func:`stems`, and the token itself as a stem: a bare "서버"
    finds "서버를"), by range on its primary key. With ``strip`` False only the token itself
    is a stem: a word Korean's word list holds as typed ("고양이", cat; "경기도", a province) is
    that word, not a shorter one and a particle (고양 + 이, 경기 + 도).

    :returns: ``(word, doc_freq)`` pairs, without ``token`` itself, commonest first, at most
        :data:`MAX_FORMS`
    """
    found: dict[str, int] = {}
    for stem in [token] + (stems(token) if strip else []):
        rows = conn.execute(
            "SELECT word, doc_freq FROM vocab WHERE word >= ? AND word < ? AND length <= ?",
            (stem, stem + "\U0010ffff", len(stem) + _LONGEST),
        ).fetchall()
        for word, df in rows:
            rest = word[len(stem):]
            if word != token and (not rest or rest in SUFFIXES):
                found[word] = df
    return sorted(found.items(), key=lambda wd: (-wd[1], wd[0]))[:MAX_FORMS]

"""The gate: candidates -> speak (naming up to three notes) or stay silent.

An eager tool is worse than none, so the gate speaks only when the top note clearly leads: not
tied with the second (within ``settings.TIE_TOLERANCE``, one rule for exact and near ties) and at
least ``min_lead`` times its evidence, unless it is the only candidate, or unless the notes it
does not lead are linked with it and with each other, or pages of one namespace (:func:`linked_tie`:
one subject written up in several notes, judged as the top note against the rest and named together), or unless the
message is nothing but words no language notesdb reads uses much that each of them is about
(:func:`subject_tie`: "kimchi" naming the kimchi and the kimchi jjigae); and the message
must name the top note's subject or be mostly its words (:func:`off_title`: a general question
that shares two or three words with a how-to note is neither). Then it speaks through
the first of ten routes whose thresholds are met (:func:`verdict`):

1. ``strong``: enough evidence, from at least two words of the message, covering a fair share;
   a note holding less than half of the message, or about none of it (its words only in its
   body), needs a larger lead (:func:`strong_lead`);
2. ``lead``: well ahead of the second note, with fair evidence and coverage;
3. ``rare``: the top note is *about* a rare word of the message (title, description or
   headings), covers a good share of the message, and the message names it (holds half the
   words of its title, file name or an alias);
4. ``ahead``: ahead of the second note and covering half the message, where the evidence it
   needs falls as its lead grows (:func:`ahead_weighted`);
5. ``sole``: the only note of very few holding a word English does not know (a name, a place, a
   term of a trade), even in its body, far ahead of the second and holding most of the message;
6. ``margin``: the top note holds evidence the second lacks (:func:`margin`: a rare word only
   it has, even in its body), and covers a good share of the message;
7. ``about``: the top note is about a word of the message (title, aliases, description or
   headings) and leads the second; the evidence it needs falls as its lead grows
   (:func:`lead_weighted`), so a short question whose one rare word sits in the body of the note
   named by its other word speaks when that note is far ahead of every other.
8. ``named``: the message holds a whole name of the note made of a word no English word list
   holds ("tokmeter says 6 quid already today" names ``projects/tokmeter.md``), even typed with
   a typo or cut short, and the note leads the second (:func:`coined_name`).
9. ``full-name``: the message holds every word of a name of the note of two words or more ("where
   does pip keep its cache" names ``pip-cache.md``), and of no other candidate (:func:`full_name`).
10. ``subject``: the message is nothing but words the note is about, words English rarely
   uses, and no other note about them comes near it: a message that only names the thing
   ("garrigue", "minestr", "focacia") (:func:`subject_words`). When two or three notes tie
   and each is about every such word, and the words are ones no language notesdb reads uses
   much, they are named together (:func:`subject_tie`).

A request for general knowledge ("explain ...", "the difference between ...": :mod:`notesdb.general`)
is not answered by the three routes that add up its words (``strong``, ``lead``, ``ahead``).

Anything else stays silent, with the reason. A note after the first is named on its own merit:
evidence that the notes named before it lack, at a coverage near the top note's.

Scores are shares and sums of word weights (see :mod:`notesdb.rank`): a long pasted log does
not out-score a real match by being long, because coverage divides by what the whole message
could earn.

Every threshold is a field of :class:`Settings`, chosen with ``bench/choose.py`` on the tuning
halves of the labelled sets (see its docstring and README's figures); they can be overridden in
the ``[gate]`` table of the config file.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field, replace

from notesdb.links import linked, links_to, within
from notesdb.query import STOPWORDS
from notesdb.settings import TIE_TOLERANCE, Settings
from notesdb.text import FORMAT_CHARS, camel_held, camel_parts, joined_pairs, words as text_words
from notesdb.vocab import name_words

TYPE_CHECKING = False  # not typing's: the hook does not import typing (about 3 ms of every message)
if TYPE_CHECKING:
    from typing import Any, Final

    from notesdb.rank import Candidate, Hit, Ranking

__all__ = ["Settings", "Route", "SPOKEN", "NEVER_JUDGED", "Decision", "judge", "verdict", "lead", "lead_weighted", "ahead_weighted", "strong_lead", "larger_lead_why", "sole_words", "subject_tie", "title_words", "title_share", "coined_name", "off_title", "many_words", "many_words_lead", "margin", "tied", "keep_notes", "format_line", "fit_line", "one_line", "shown_path", "MAX_LINE_CHARS", "MAX_NOTES"]


class Route:
    """Why a decision spoke (the first three) or stayed silent: the ``route`` of a decision, as
    logged in ``decisions.route``. Plain strings (not an Enum, whose class costs the hook
    time on every message)."""

    STRONG: Final = "strong"
    LEAD: Final = "lead"
    RARE: Final = "rare"
    AHEAD: Final = "ahead"
    SOLE: Final = "sole"
    MARGIN: Final = "margin"
    ABOUT: Final = "about"
    NAMED: Final = "named"
    FULL_NAME: Final = "full-name"
    SUBJECT: Final = "subject"
    NO_TERMS: Final = "no-terms"  # nothing searchable in the message
    NO_MATCH: Final = "no-match"  # no note holds a word of the message
    TIE: Final = "tie"  # no note leads the others
    OFF_TITLE: Final = "off-title"  # the message neither names the top note's subject nor is mostly its words
    WEAK: Final = "weak"  # no route's thresholds are met
    SLASH_COMMAND: Final = "slash-command"  # a slash command, never judged
    NOT_TYPED: Final = "not-typed"  # text the client wrote in the prompt's place, never judged
    NEW_INDEX: Final = "new-index"  # the hook's index was just created and is not complete yet
    BAD_INPUT: Final = "bad-input"  # the hook's event had no usable prompt
    ERROR: Final = "error"  # the hook failed; the problem is in its fallback log
    SAID: Final = "said-before"  # every note it would name was named earlier in the conversation
    MENTIONED: Final = "in-message"  # every note it would name is attached by the message itself (an @-mention)


#: A route whose evidence bar is set at least this high is switched off (``margin_evidence``
#: and ``about_evidence`` default to 99: measured, and left off; see ``settings.py``).
ROUTE_OFF: Final = 99.0

#: The routes through which the gate speaks.
SPOKEN: Final = frozenset(
    {Route.STRONG, Route.LEAD, Route.RARE, Route.AHEAD, Route.SOLE, Route.MARGIN, Route.ABOUT, Route.NAMED, Route.FULL_NAME, Route.SUBJECT}
)

#: The routes of messages that are not judged at all: nothing to label, tune or second-guess.
NEVER_JUDGED: Final = frozenset({Route.SLASH_COMMAND, Route.NOT_TYPED})

#: The added line never exceeds this many characters.
MAX_LINE_CHARS: Final = 600
#: Notes named at most.
MAX_NOTES: Final = 3


@dataclass
class Decision:
    """What notesdb says about one message."""

    spoken: bool
    notes: list[str] = field(default_factory=list)  # note paths, in order
    line: str = ""
    route: str = ""  # a route of SPOKEN (strong, lead, ... subject), or a silence reason: no-terms, weak, ...
    reasons: list[str] = field(default_factory=list)  # human-readable why
    top_scores: list[dict[str, Any]] = field(default_factory=list)
    corrections: list[tuple[str, str]] = field(default_factory=list)
    expansions: list[tuple[str, str]] = field(default_factory=list)
    whole_names: list[str] = field(default_factory=list)  # snake_case names whose words count only together
    elapsed_ms: float = 0.0
    error: str = ""
    parts: list[tuple[str, str, str]] = field(default_factory=list)  # (title, path, desc) named
    folder: str | None = None  # the notes folder the line's paths are under (None: relative)
    attached: list[str] = field(default_factory=list)  # notes the message attached itself (@-mentions)


    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the ``--json`` shape of ``notesdb check``)."""
        return {
            "spoken": self.spoken,
            "line": self.line,
            "notes": self.notes,
            "route": self.route,
            "reasons": self.reasons,
            "candidates": self.top_scores,
            "corrections": [list(c) for c in self.corrections],
            "expansions": [list(e) for e in self.expansions],
            "whole_names": self.whole_names,
            "elapsed_ms": round(self.elapsed_ms, 2),
            "error": self.error,
            "attached": self.attached,
        }


def lead(top: Candidate, second: Candidate | None) -> float:
    """How far the top note leads the second: the ratio of their evidence (``inf`` when there
    is no second note or it has no evidence)."""
    if second is None or second.evidence <= 0:
        return math.inf
    return top.evidence / second.evidence


def margin(top: Candidate, others: list[Candidate]) -> float:
    """Evidence ``top`` holds that none of ``others`` does: the sum over message words of how
    much more the word earns in ``top`` than in the best of ``others`` (0 when they hold it as
    strongly). A note alone in holding a rare word of the message has that word's weight as
    margin, wherever the word sits; notes sharing every word have none.

    :param others: the notes to compare with (the second note; or the notes already named)
    :returns: evidence units, >= 0
    """
    best: dict[str, float] = {}
    for o in others:
        for h in o.hits:
            if h.evidence > best.get(h.token, 0.0):
                best[h.token] = h.evidence
    return sum(max(0.0, h.evidence - best.get(h.token, 0.0)) for h in top.hits)


def lead_weighted(top: Candidate, ahead: float, settings: Settings) -> float:
    """The top note's evidence times its lead over the second, the lead counted up to
    ``settings.about_lead_cap`` (a lone candidate's infinite lead counts as the cap): the
    ``about`` route's measure, in evidence units. Twice the second's evidence halves the evidence
    needed; a note with no rival still needs ``about_evidence / about_lead_cap``.

    :param ahead: :func:`lead` of the top note over the second
    """
    return top.evidence * min(ahead, settings.about_lead_cap)


def ahead_weighted(top: Candidate, ahead: float, settings: Settings) -> float:
    """The top note's evidence times its lead over the second, the lead counted up to
    ``settings.ahead_lead_cap`` (a lone candidate's infinite lead counts as the cap): the
    ``ahead`` route's measure, in evidence units.

    :param ahead: :func:`lead` of the top note over the second
    """
    return top.evidence * min(ahead, settings.ahead_lead_cap)


def strong_lead(top: Candidate, settings: Settings) -> float:
    """The lead over the second note the ``strong`` route needs: ``settings.strong_min_lead``,
    or ``settings.strong_held_lead`` when that is larger and the top note holds less than
    ``settings.strong_held`` of the message's possible evidence (``Candidate.held``: its words
    wherever they sit) or is about none of the message (every word it holds sits only in its
    body: :func:`larger_lead_why`). Everyday words of a coding request or a general question
    add up past ``strong_evidence`` in a note that mentions them, but such a note seldom holds
    most of the message, and a clipped article or a book's notes that mention them in passing
    name none of them in a title or heading; such a note must lead the second more clearly.

    :returns: a ratio of evidence (>= 1 in practice)
    """
    if larger_lead_why(top, settings):
        return max(settings.strong_min_lead, settings.strong_held_lead)
    return settings.strong_min_lead


def larger_lead_why(top: Candidate, settings: Settings) -> str:
    """Why the ``strong`` route asks ``top`` for ``settings.strong_held_lead`` (:func:`strong_lead`),
    in words, or "" when it does not: it holds less than ``settings.strong_held`` of the message,
    or no word of the message it holds sits in its title, description or headings.

    Measured on both halves of every labelled set and the 510 generic messages against each
    folder and two public vaults of study notes (8,982 judgements): of the strong route's
    answers from body words only, the lead was below 1.3 for 4 generic false alarms and for no
    right answer; ``strong_held_lead`` (1.3) is reused rather than a bar of its own.
    ``strong_held`` 0 switches both reasons off.
    """
    if settings.strong_held <= 0:
        return ""
    if top.held < settings.strong_held:
        return f"it holds {_num(top.held, settings.strong_held)} < {settings.strong_held} of the message"
    if not any(h.evidence > 0 for h in top.about):
        return "it is about none of the message: its words sit only in its body"
    return ""


def sole_words(top: Candidate, second: Candidate | None, settings: Settings) -> list[Hit]:
    """Words of the message the top note holds (anywhere) and the second lacks, held by at
    most ``settings.sole_doc_freq`` notes, made of letters and rare in English (Zipf below
    ``settings.sole_max_zipf``), found as typed or as another form of the typed word (not a
    typo correction, prefix or compound part, which are guesses): the ``sole`` route's words.

    :returns: the top note's hits of such words, in message order (empty: none)
    """
    theirs = {h.token for h in second.hits if h.evidence > 0} if second is not None else set()
    return [
        h
        for h in top.hits
        if h.evidence > 0
        and h.token not in theirs
        and 0 < h.doc_freq <= settings.sole_doc_freq
        and h.token.isalpha()
        and h.zipf < settings.sole_max_zipf
        and h.how in ("exact", "inflected", "stemmed")
    ]


def _about_word(cand: Candidate, settings: Settings) -> list[Hit]:
    """Hits in the note's title, description or headings bringing at least
    ``settings.about_weight`` evidence."""
    return [h for h in cand.about if h.evidence >= settings.about_weight]


def tied(top: Candidate, second: Candidate | None) -> bool:
    """True when the second note's evidence is within ``TIE_TOLERANCE`` of the top note's: one
    rule for every tie, exact or near, whichever note the tie-break put first."""
    return second is not None and second.evidence >= top.evidence * (1.0 - TIE_TOLERANCE)


def _led(top: Candidate, c: Candidate, settings: Settings) -> bool:
    """True when ``top`` clearly leads ``c``: not tied and at least ``min_lead`` times its evidence."""
    return not tied(top, c) and lead(top, c) >= settings.min_lead


def _targets(c: Candidate) -> list[str]:
    try:
        value = json.loads(c.links)
    except ValueError:
        return []
    return [t for t in value if isinstance(t, str)] if isinstance(value, list) else []


def _leading_tie(cands: list[Candidate], settings: Settings) -> list[Candidate]:
    """The top note and every candidate it does not clearly lead (:func:`_led`), when there
    are two to ``MAX_NOTES`` of them; else ``[]``."""
    if len(cands) < 2 or _led(cands[0], cands[1], settings):
        return []
    group = [cands[0]]
    for c in cands[1:]:
        if _led(cands[0], c, settings):
            break
        group.append(c)
        if len(group) > MAX_NOTES:
            return []
    return group


def linked_tie(cands: list[Candidate], settings: Settings) -> list[Candidate]:
    """The top note and the notes it ties with, when every one of them is linked with it, a
    copy of it (:func:`copies`), a page of one namespace with it, or named alike with it
    (:func:`family_name`: file names that start with the same words the message names).

    A tie between notes one of which links to the other (``[[voice-bay]]`` in
    ``voice-bay-mics.md``; :mod:`notesdb.links`) is one subject written up in several notes (a
    project and its parts, a device and the research it needed), not a choice between two
    subjects: :func:`verdict` judges them as one note against the rest and names them all. So is
    a tie between an outliner's page and the pages under it in its namespace (Logseq's
    ``clilint``, ``clilint/0.0.1`` and ``clilint/0.0.2/plan``; :func:`notesdb.links.within`),
    which the outliner shows and links as one hierarchy, when the message is nothing but words
    each of them holds (``Candidate.held`` at least ``settings.subject_held``): a page's name
    carries its namespace's, so "how do i speed up my python code" ties ``code/python`` with
    ``code/python/testing`` and names neither. Measured on the labelled halves, the
    blind folders and the generic messages against them: +1 hit ("clilint", a Logseq graph
    whose pages are 63% namespaced), nothing else changed; dots as namespace separators too
    (Dendron's ``tools.make.snippets.md``) gained 2 hits for 1 wrong answer and 3 false alarms,
    and were left out.

    :param cands: candidates, best first
    :returns: ``[top, tied...]`` in ranking order: the top and every candidate it does not
        clearly lead (tied, or led less than ``min_lead`` times), when there are two to
        ``MAX_NOTES`` of them and each two of them are linked, copies, named alike, or pages of one namespace
        (one under the other, or both under a page of the group) that hold the whole message; a
        hub linking two notes that are not linked with each other does not make them one
        subject; else ``[]``
    """
    group = _leading_tie(cands, settings)
    if not group:
        return []
    found = [_targets(c) for c in group]
    # pages of one namespace only for a message that is nothing but words they hold: a child
    # page's name carries its parent's, so a question using that name ties them all
    whole = all(c.held >= settings.subject_held for c in group)
    roots = [c.path for c in group if all(c is d or within(c.path, d.path) for d in group)] if whole else []
    for i, a in enumerate(group):
        for j in range(i + 1, len(group)):
            b = group[j]
            if not (linked(a.path, found[i], b.path, found[j]) or copies(a, b) or (whole and _one_namespace(a, b, roots))
                    or family_name(a, b, settings)):
                return []
    return group


def family_name(a: Candidate, b: Candidate, settings: Settings) -> list[str]:
    """The words two notes' file names start with, when they are one family the message names:
    at least ``settings.family_words`` (2) leading words in common, each name going on past them, and the
    message holding at least half of those words in both notes (:func:`_held`).

    Folders name the notes of one subject alike: a memory folder's ``project_e208_recharge.md``
    and ``project_e208_trajet_bretagne.md``, ``station_meteo_rpi`` and ``station_meteo_capteurs``;
    "on en est ou avec la station meteo ?" ties them, and either is right. :func:`linked_tie`
    judges such a family as it judges linked notes: as one note against the rest. One common
    word is a kind, not a subject (every ``project_`` note, every ``session_N``), and so is the
    category a name puts before a spaced dash (:func:`name_parts`: "Data Engineering -
    Backfills" and "Data Engineering - Idempotent pipelines" are two subjects), and a family
    the message does not name ("tools devops" of a Dendron vault's
    ``tools.devops.version_control.git.basics.*`` for "how do i undo git add") is not judged as
    one. Measured on every labelled half, seven blind folders and the 510 generic messages
    against each folder (``docs/measurements.md``, "Notes named alike are one subject").

    :returns: the common leading words of the two file names (``notesdb.vocab.name_words``,
        folded), or ``[]`` when they are not such a family
    """
    wa = text_words(name_words(a.path)[0])
    wb = text_words(name_words(b.path)[0])
    n = 0
    while n < min(len(wa), len(wb)) and wa[n] == wb[n]:
        n += 1
    if settings.family_words <= 0 or n < settings.family_words or n >= len(wa) or n >= len(wb):
        return []
    prefix = wa[:n]
    for c in (a, b):  # "Data Engineering - Backfills": the part before a spaced dash is a category
        pieces = _SPACED_DASH.split(name_words(c.path)[0])
        if len(pieces) > 1 and text_words(pieces[0]) == prefix:
            return []
    held = _held(" ".join(prefix), a.hits) & _held(" ".join(prefix), b.hits)
    return prefix if 2 * sum(1 for w in prefix if w in held) >= len(prefix) else []


def _one_namespace(a: Candidate, b: Candidate, roots: list[str]) -> bool:
    """True when one of the notes sits under the other in a namespace, or both sit under
    a note of ``roots`` (:func:`notesdb.links.within`)."""
    return within(a.path, b.path) or within(b.path, a.path) or any(within(r, a.path) and within(r, b.path) for r in roots)


def subject_tie(cands: list[Candidate], settings: Settings) -> list[Candidate]:
    """The top note and the notes it ties with, when the message is nothing but words each of
    them is about and no language notesdb reads uses much: one question that several notes answer.

    "kimchi", with the notes ``sides/kimchi.md`` and ``soups/kimchi-jjigae.md`` both titled
    with it, is a tie no word of the message can break; the user asks about the thing both
    notes are about, and either is a right answer. A tie on an everyday word is not one
    subject ("what's a haiku" against two pages on the Haiku system's tools; "merci", rare in
    English but an everyday French word, against two notes of thank-you cards), nor a tie the
    message is more than those words ("what's the capital of norway" against three Norway
    notes): those stay silent.

    :param cands: candidates, best first
    :param settings: ``min_lead`` (what a clear lead is), ``tie_max_zipf`` and the ``subject``
        route's bars
    :returns: ``[top, tied...]`` in ranking order: the top and every candidate it does not
        clearly lead, when there are two to ``MAX_NOTES`` of them and each is wholly about the
        message (:func:`subject_words` against the candidates outside them: each leads every
        other candidate about those words ``subject_min_lead`` times) in words rarer than Zipf
        ``tie_max_zipf`` in English and in each other language notesdb reads
        (``Hit.other_zipf``), none is :func:`off_title` (as every route's note must not be),
        and no two share a file name, numbers aside (:func:`_kind_name`: two ``cheatsheet.md``
        are two documents of one kind, not one subject); else ``[]``
    """
    group = _leading_tie(cands, settings)
    if not group or len({_kind_name(c) for c in group}) < len(group):
        return []
    rest = cands[len(group):]
    for c in group:
        words = subject_words(c, rest, settings)
        if not words or any(max(h.zipf, h.other_zipf) >= settings.tie_max_zipf for h in words) or off_title(c, settings):
            return []
    return group


def _kind_name(cand: Candidate) -> tuple[str, ...]:
    """The words of a note's file name without its numbers: notes that share it are documents
    of one kind, each about something else (``git/cheatsheet.md`` and ``vim/cheatsheet.md``,
    ``standup-2024-03-01.md`` and ``standup-2024-03-08.md``, two ``TODO.md``)."""
    return tuple(w for w in text_words(name_words(cand.path)[0]) if not w.isdigit())


def copies(a: Candidate, b: Candidate) -> bool:
    """True when two notes are one note kept twice: the same title, description, headings and
    body as indexed (``Candidate.digest``, set for the notes of the leading tie), whatever their
    folders and front matter ("Working with clients.md" saved under ``advice/`` and
    ``business/``). Vaults hold such copies (a note saved into a second folder, a synced
    duplicate); the message cannot tell them apart, so :func:`linked_tie` treats them as one
    subject, as it does linked notes. Two notes that share only a name (two "Meeting notes",
    two ``index.md``) are not copies."""
    return bool(a.digest) and a.digest == b.digest


def _kin(top: Candidate, c: Candidate, settings: Settings) -> str:
    """How a note of a :func:`linked_tie` group is one subject with its top note: ``"copy"``
    (:func:`copies`), ``"link"`` (either links to the other), ``"family"`` (named alike,
    :func:`family_name`) or ``"namespace"`` (pages of one namespace, :func:`notesdb.links.within`)."""
    if copies(top, c):
        return "copy"
    if linked(top.path, _targets(top), c.path, _targets(c)):
        return "link"
    return "family" if family_name(top, c, settings) and not (within(top.path, c.path) or within(c.path, top.path)) else "namespace"


#: How :func:`_kinship` says each kind of :func:`_kin` for the group, and for its notes.
_KIN_WORDS: Final = {"copy": ("a copy of it", "copies of it"), "link": ("linked with it", "notes linked with it"),
                     "namespace": ("in one namespace with it", "notes in one namespace with it"),
                     "family": ("named alike (its file name starts with the same words)", "notes named alike")}


def _kinship(group: list[Candidate], settings: Settings) -> str:
    """How the other notes of a :func:`linked_tie` group are one subject with the first, in
    words: "a copy of it", "linked with it", "in one namespace with it", or several of those
    joined by "or"."""
    kinds = sorted({_kin(group[0], c, settings) for c in group[1:]}, key=list(_KIN_WORDS).index)
    return " or ".join(_KIN_WORDS[k][0] for k in kinds)


def _linked_reason(group: list[Candidate], outcome: str, settings: Settings) -> str:
    """The reason given for a tie of linked notes or copies (:func:`linked_tie`), then ``outcome``."""
    return "ties with " + ", ".join(c.path for c in group[1:]) + f", {_kinship(group, settings)}: one subject, " + outcome


def _subject_words(text: str, kept: frozenset[str] = frozenset()) -> list[str]:
    """Words of a name that say what it names: folded like the index (``notesdb.text.words``),
    not stopwords, not bare numbers (a version or a year, "Postgres upgrade (15 -> 16)", says
    little about the subject), at least two characters, each once.

    :param kept: stopwords that are words of the name all the same: those the message typed
        inside a hyphenated name and searched for (``notesdb.query.named_stopwords``: the
        "please" of "release-please" is a word of ``release-please.md``'s file name)
    """
    return list(dict.fromkeys(
        w for w in text_words(text) if len(w) > 1 and not w.isdigit() and (w not in STOPWORDS or w in kept)
    ))


def _kept_stopwords(hits: list[Hit]) -> frozenset[str]:
    """The stopwords among the words a note was found by: only a stopword the message typed
    inside a hyphenated name is ever searched for (``notesdb.query.named_stopwords``)."""
    return frozenset(h.word for h in hits if h.word in STOPWORDS)


def _names(cand: Candidate) -> list[tuple[str, list[str]]]:
    """A note's names as written, each with its :func:`_subject_words` (names without any left
    out): its title, its file name without the extension (as the index reads it:
    ``notesdb.vocab.name_words``), its aliases. Read once per candidate and its hits
    (``Candidate.names_read``); do not change the lists returned."""
    return _names_read(cand)[0]


def _names_read(
    cand: Candidate,
) -> "tuple[list[tuple[str, list[str]]], list[tuple[str, list[str], float]], list[tuple[str, list[str]]]]":
    """:func:`_names`, :func:`_held_names` and :func:`_inner_names` of ``cand``, kept on it with
    what they were read from: its hits list and length, title, path and aliases (read again
    when one changed)."""
    source = (len(cand.hits), cand.title, cand.path, cand.aliases)
    kept = cand.names_read
    if kept is not None and kept[0] is cand.hits and kept[1] == source:
        return kept[2], kept[3], kept[4]
    names = _read_names(cand)
    held = _read_held_names(cand, names)
    kept_words = _kept_stopwords(cand.hits)
    inner = [(part, ws) for part in _parts(cand) if (ws := _subject_words(part, kept_words))]
    cand.names_read = (cand.hits, source, names, held, inner)
    return names, held, inner


def _inner_names(cand: Candidate) -> list[tuple[str, list[str]]]:
    """The names inside the note's title and file name (:func:`_parts`), each with its
    :func:`_subject_words`, as :func:`_names` gives the note's names (read once per candidate)."""
    return _names_read(cand)[2]


def _read_names(cand: Candidate) -> list[tuple[str, list[str]]]:
    names = [cand.title or "", name_words(cand.path)[0]]
    if isinstance(cand.aliases, str) and cand.aliases.startswith("["):
        try:
            names += [a for a in json.loads(cand.aliases) if isinstance(a, str)]
        except ValueError:
            pass
    kept = _kept_stopwords(cand.hits)
    return [(name, ws) for name in names if (ws := _subject_words(_MEMORY_TYPE.sub("", name, count=1), kept))]


#: The type Claude Code's memory files start their names with (``project_brindle.md``,
#: ``name: feedback_testing``: https://docs.claude.com/en/docs/claude-code/memory): a kind of
#: note, not its subject, so not a word the message must hold to be on the subject.
_MEMORY_TYPE: Final = re.compile(r"^(?:user|feedback|project|reference)_(?=\w)", re.IGNORECASE)


def title_words(cand: Candidate) -> list[list[str]]:
    """The names of a note's subject, as word lists: its title, its file name and each of its
    aliases (the words the title column of the index holds), empty ones left out.

    :returns: e.g. ``[["token", "usage", "monitor"], ["tokmeter"]]`` for "Token usage monitor"
        in ``projects/tokmeter.md``
    """
    out: list[list[str]] = []
    for _, ws in _names(cand):
        if ws not in out:
            out.append(ws)
    return out


def title_share(cand: Candidate) -> float | None:
    """How much of a name of the note's subject the message holds: the largest share, over the
    note's title, file name and aliases (:func:`title_words`), of their words found in the title
    column as typed or as another form, a correction or an expansion of a message word. A
    letter/digit or hyphen pair of the name found joined ("FT-65" as ft65, "Wi-Fi" as wifi:
    ``notesdb.text.joined_pairs``) counts for both its words, and a camel-case word of the name
    whose parts found words make up ("log segments" of "18_LogSegments", "github actions" of
    "GitHubActions": ``notesdb.text.camel_held``) counts as found.

    :returns: a share in [0, 1], or None when the note has no such names
    """
    best: float | None = None
    for _, ws, share in _held_names(cand):
        best = share if best is None else max(best, share)
    return best


def _held_names(cand: Candidate) -> list[tuple[str, list[str], float]]:
    """Each name of the note (:func:`_names`) with the share of its words the message holds in
    the note's title column (:func:`title_share`). Read once per candidate and its hits."""
    return _names_read(cand)[1]


def _read_held_names(cand: Candidate, names: list[tuple[str, list[str]]]) -> list[tuple[str, list[str], float]]:
    found = {h.word for h in cand.hits if h.place == "title" and h.evidence > 0}
    # a word of the name the message typed as it is: its evidence may have come from another
    # form elsewhere in the note ("winter" found as "winters" in a heading, rarer in the folder
    # and so weightier than "winter" in the title), but the message holds that word of the name
    typed = {h.token for h in cand.hits if h.evidence > 0}
    out = []
    for name, ws in names:
        held = found | (typed & set(ws))
        for a, b in joined_pairs(name):
            if a + b in found:
                held.update((a, b))
        for word, parts in camel_parts(name).items():
            if camel_held(parts, found):  # "log segments" holds "LogSegments"
                held.add(word)
        out.append((name, ws, sum(1 for w in ws if w in held) / len(ws)))
    return out


def _parts(cand: Candidate) -> list[str]:
    """The names read from parts of the note's title and file name and from parts of those
    (:func:`name_parts`), in order, each once, none that is the title or file name itself."""
    own = (cand.title or "", name_words(cand.path)[0])
    parts = [part for name in own for part in name_parts(name)]
    parts += [inner for part in parts for inner in name_parts(part)]
    return [part for part in dict.fromkeys(parts) if part not in own]


#: A name that ends with a parenthesis: what comes before it and what it holds. Each part is
#: one run of characters that are not parentheses, so a match takes time linear in the name.
_PARENTHESIS: Final = re.compile(r"(?P<head>[^()]*[^()\s])\s*\((?P<inner>[^()]*)\)")
#: Characters of a name read for the names inside it at most: a longer title (a pasted line
#: used as a note's H1) names no one thing.
MAX_NAME_CHARS: Final = 200


def name_parts(name: str) -> list[str]:
    """The names inside a name, as folders of notes write them: the two of a name that ends
    with a parenthesis ("Gaussian Mixture Models (GMM)" gives "Gaussian Mixture Models" and
    "GMM", "Word2vec (word embeddings)" gives "Word2vec" and "word embeddings"), else the
    subject after the last spaced dash of a name that puts a category first ("Data Engineering
    - Backfills" gives "Backfills"; "Obsidian — Plugins", "Plugins"); any other name gives none
    ("CI-CD pipeline", "2024-05-01 standup"). They are names for the named route only
    (:func:`coined_name`: held whole, with a word no English word list holds, "word2vec" or
    "backfills"): a part that is an everyday word is a kind of note more often than its subject
    ("Project Atlas - Overview", "Elasticsearch Cluster (troubleshooting)", "Q3 plan (v2)"),
    and the message "overview" or "troubleshooting my printer" does not name it. A name longer
    than ``MAX_NAME_CHARS`` (200) gives none."""
    name = name.strip()
    if len(name) > MAX_NAME_CHARS:
        return []
    m = _PARENTHESIS.fullmatch(name)
    if m and m["inner"].strip():
        return [m["head"], m["inner"].strip()]
    pieces = _SPACED_DASH.split(name)
    return [pieces[-1]] if len(pieces) > 1 and pieces[-1].strip() else []


_SPACED_DASH: Final = re.compile(r"\s+[-\u2013\u2014]\s+")


def full_name(cand: Candidate, others: list[Candidate], settings: Settings) -> str | None:
    """A name of the note (title, file name or an alias) of at least ``settings.full_name_words``
    subject words, every one of which the message holds (:func:`title_share` 1.0), when no other
    candidate has a name of as many words that the message holds whole. "where does pip keep
    its cache" holds the whole of ``pip-cache.md``'s file name; "pip" alone names the pip notes
    all alike. A name of one word is not enough: a generic question holds one word of some note's
    name easily ("what is the greenhouse effect", "what is an index fund").

    :returns: the name as written, or None
    """
    n = settings.full_name_words
    whole = _typed_names(cand, _whole_names(cand, n), settings)
    if not whole:
        return None
    for other in others:
        if _whole_names(other, n):
            return None
    return whole[0]


def _whole_names(cand: Candidate, n: int) -> list[str]:
    """The note's names of at least ``n`` subject words that the message holds whole."""
    return [name for name, ws, share in _held_names(cand) if len(ws) >= n and share >= 1.0]


def off_title(top: Candidate, settings: Settings) -> bool:
    """True when the message holds less than ``settings.title_share`` of every name of the top
    note's subject (:func:`title_share`) and the note holds less than ``settings.title_held`` of
    the message (``Candidate.held``), and the message holds no whole name of the note with a
    coined word (:func:`coined_name`, which reads the names inside its title and file name as
    well): it neither names the note's subject nor is mostly its words ("gensim word2vec window
    size" names "Word2vec (word embeddings)")."""
    if top.held >= settings.title_held:
        return False
    share = title_share(top)
    return share is not None and share < settings.title_share and coined_name(top) is None


def many_words(top: Candidate, ahead: float, settings: Settings) -> bool:
    """True when the top note holds at least ``settings.off_title_words`` of the message's words
    (each bringing ``word_evidence``) and leads the second ``strong_held_lead`` times
    (:func:`many_words_lead`): a pasted log or a long account that shares that many words with
    one write-up is about it, though it names none of it (a dmesg paste and the recovery note it
    belongs to). :func:`verdict` lets such a note past :func:`off_title`; every route's
    thresholds still apply."""
    need = many_words_lead(_words(top, settings), settings)
    return need is not None and ahead >= need


def many_words_lead(words: int, settings: Settings) -> float | None:
    """The lead over the second note (a ratio of evidence) that a top note holding ``words`` of
    the message's words needs to be let past :func:`off_title` (:func:`many_words`).

    :returns: ``settings.strong_held_lead``, or None when no lead is enough (fewer than
        ``off_title_words`` words, or ``off_title_words`` 0: the waiver off)
    """
    n = settings.off_title_words
    if not n or words < n:
        return None
    return settings.strong_held_lead


def _rare_about(cand: Candidate, settings: Settings) -> list[Hit]:
    """Hits in the note's title, description or headings of words heavy enough to be rare
    (at least ``settings.rare_weight``). A word reached by a typo correction is weighed as
    the word itself, before the correction's discount (``Settings.corrected_weight``): a
    typo does not make "sourdough" a commoner word. The discount stays in its evidence."""
    return [h for h in cand.about if _rarity(h) >= settings.rare_weight]


def _rarity(h: Hit) -> float:
    """A hit's evidence as if its word had been typed right: divided by the correction's
    weight for a corrected word, as it is for any other (a plural, a compound and a prefix
    are other words than the one typed)."""
    return h.evidence / h.weight if h.how == "corrected" and h.weight > 0 else h.evidence


def _rare_naming(cand: Candidate, settings: Settings) -> tuple[str, float | None]:
    """What the rare route reads to tell that the message names the note, and the share of it
    the message holds: ``("words", share)``, the words of one of the note's names
    (:func:`title_share`); for a note whose names are numbers only (a daily note "2025 01 15"),
    ``("numbers", share)`` when the rare words it is about are only its title's numbers
    (:func:`numbers_held`: "what is 15 times 3" must not name the journal of the 15th), else
    ``("none", None)``, nothing to hold (a rare word of its headings, "kestrel", names it)."""
    held = title_share(cand)
    if held is not None:
        return "words", held
    if any(not h.word.isdigit() for h in _rare_about(cand, settings)):
        return "none", None
    return "numbers", numbers_held(cand)


def _rare_named(cand: Candidate, settings: Settings) -> bool:
    """The rare route's check that the message names the note: it holds at least
    ``settings.title_share`` of what :func:`_rare_naming` reads."""
    share = _rare_naming(cand, settings)[1]
    return share is None or share >= settings.title_share


def numbers_held(cand: Candidate) -> float | None:
    """The share of the distinct numbers of the note's title that the message holds in its
    title column, or None when the title holds no number. Read for a note whose names hold no
    other word (:func:`_rare_named`): a daily note or a journal named by its date."""
    numbers = {w for w in text_words(cand.title) if w.isdigit()}
    if not numbers:
        return None
    held = {h.word for h in cand.hits if h.place == "title" and h.word.isdigit()}
    return len(numbers & held) / len(numbers)


def coined_name(cand: Candidate) -> str | None:
    """A name of the note (its title, file name or an alias: :func:`title_words`, or a name
    inside its title or file name: :func:`name_parts`) the message holds whole in the note's
    title column, with a coined word among its words: one that no
    English word list holds, as typed or as found, nor the other languages' lists notesdb
    reads (``Hit.coined``: "tokmeter"; not "moraine" or "kestrel", which English knows, nor
    "fitnessstudio", which German does). The coined word must be typed as it is (or as another
    form of it), with two neighbouring letters swapped ("snapwern" for "snapwren": the
    commonest slip of a typist whose word is otherwise whole, Damerau 1964), or cut short to
    at least half of it and four letters ("tokm", "snapw"). Any other correction is a guess
    between names that differ by a letter ("kubectl" is not "kubectx", "readarr" not
    "radarr"), and a shorter prefix starts too many words ("tok" of "token"). A person naming a
    thing by the name they made up for it is talking about it.

    :returns: the name as written, or None
    """
    found = {h.word: h for h in cand.hits if h.place == "title" and h.evidence > 0}
    for name, ws in _names(cand) + _inner_names(cand):
        if all(w in found for w in ws) and any(found[w].coined and _typed_whole(found[w]) for w in ws):
            return name
    return None


def _typed_whole(h: Hit) -> bool:
    """The hit's word is the message's token as typed, another form of it, its two
    neighbouring letters swapped, a prefix of at least four letters and half of it
    (:func:`coined_name`), or a word English knows one edit from the token (a slip in typing
    it: "descripters" for descriptors). A made-up name one letter from another is another
    name ("kubectl" is not "kubectx")."""
    if h.how in ("exact", "inflected", "stemmed"):
        return True
    if h.how == "prefix":
        return len(h.token) >= 4 and 2 * len(h.token) >= len(h.word)
    if h.how == "corrected" and not h.coined:  # a word of a word list (``Alternative.coined``)
        import jellyfish  # loaded already: the corrections that made this hit used it

        return jellyfish.damerau_levenshtein_distance(h.token, h.word) == 1
    if h.how == "corrected" and len(h.token) == len(h.word):
        diff = [i for i, (a, b) in enumerate(zip(h.token, h.word)) if a != b]
        return len(diff) == 2 and diff[1] == diff[0] + 1 and h.token[diff[0]] == h.word[diff[1]] and h.token[diff[1]] == h.word[diff[0]]
    return False


def subject_words(top: Candidate, others: list[Candidate], settings: Settings) -> list[Hit]:
    """The ``subject`` route's words: the message is nothing but words the top note is about.

    Every word of the message the note holds sits in its title, description or headings
    (``Candidate.about``), the note holds at least ``settings.subject_held`` of the message's
    possible evidence (``Candidate.held``: 1.0, all of it), each word is made of letters and
    rarer in English than Zipf ``settings.subject_max_zipf`` (a name, a dish, a term; not
    "busy" at 4.75 or "false" at 4.63, though "incorrect" at 3.94 passes 4.0 like "curry" at
    3.96), and the note's evidence is at least ``settings.subject_min_lead``
    times that of every other candidate about any of them ("navette" names the note titled
    with it, not the one that lists it under a heading, far behind).

    :param top: the top candidate
    :param others: the other candidates, best first
    :returns: the top note's hits of those words, in message order (empty: the route fails)
    """
    if top.held < settings.subject_held:
        return []
    hits = [h for h in top.hits if h.evidence > 0]
    about = {h.token for h in top.about if h.evidence > 0}
    if not hits or any(h.token not in about or not h.token.isalpha() or h.zipf >= settings.subject_max_zipf for h in hits):
        return []
    tokens = {h.token for h in hits}
    for c in others:
        if top.evidence < settings.subject_min_lead * c.evidence and any(h.token in tokens for h in c.about if h.evidence > 0):
            return []
    return hits


def _words(cand: Candidate, settings: Settings) -> int:
    return sum(1 for h in cand.hits if h.evidence >= settings.word_evidence)


def verdict(ranking: Ranking, settings: Settings, join_linked: bool = True) -> tuple[str, list[Candidate]]:
    """The gate's route and the notes it names, without the explanation (``tune`` calls this
    thousands of times; :func:`judge` adds the reasons).

    Every route needs the top note to lead: not tied with the second (:func:`tied`) and at least
    ``min_lead`` times its evidence, unless it is the only candidate, or unless every note it
    does not lead is linked with it (:func:`linked_tie`: one subject in linked notes, judged as
    the top note against the other candidates and named together; ``join_linked`` False: not
    looked for), or unless the message is nothing but words rare in every language notesdb reads
    that each of the notes it does not lead is about (:func:`subject_tie`: route ``subject``, named together); and it
    must not be
    :func:`off_title` (route ``off-title``: the message holds less than ``title_share`` of the
    words of each of its names, title, file name and aliases, and it holds less than
    ``title_held`` of the message). Then the first route
    whose thresholds are met speaks (``strong``, ``lead`` and ``ahead`` not for a request for
    general knowledge, ``Ranking.general``, while ``general_words`` is set):

    - ``strong``: evidence >= ``strong_evidence`` from >= ``strong_words`` words, coverage >=
      ``strong_coverage``, a lead >= ``strong_min_lead`` (>= ``strong_held_lead`` when it holds less
      than ``strong_held`` of the message: :func:`strong_lead`);
    - ``lead``: >= ``lead_ratio`` times the second's evidence, evidence >= ``lead_evidence`` from
      >= ``lead_words`` words, coverage >= ``lead_coverage``;
    - ``rare``: about a word of weight >= ``rare_weight`` (title, desc or headings), coverage >=
      ``rare_coverage``, the message holding >= ``title_share`` of one of its names
      (:func:`title_share`) whatever the share of the message the note holds;
    - ``ahead``: a lead >= ``ahead_min_lead``, coverage >= ``ahead_coverage`` from >=
      ``ahead_words`` words, evidence x lead (:func:`ahead_weighted`) >= ``ahead_evidence``;
    - ``sole``: a word of the message only it holds of very few notes and rare in English
      (:func:`sole_words`), a lead >= ``sole_min_lead``, held share (``Candidate.held``) >=
      ``sole_held``;
    - ``margin``: evidence the second note lacks (:func:`margin`) >= ``margin_evidence``, coverage
      >= ``margin_coverage``;
    - ``about``: about a message word bringing >= ``about_weight`` (title, desc or headings), a
      lead >= ``about_min_lead``, evidence x lead (:func:`lead_weighted`) >= ``about_evidence``,
      held share of the message (``Candidate.held``: its words wherever they sit in the note) >=
      ``about_held``;
    - ``named``: the message holds a whole name of the note with a word no English word list
      holds (:func:`coined_name`: "tokmeter"), a lead >= ``named_min_lead``, coverage >=
      ``named_coverage``;
    - ``full-name``: the message holds every word of a name of the note of at least
      ``full_name_words`` words, and of no other candidate's (:func:`full_name`);
    - ``subject``: the message is nothing but words the note is about, rarer in English than
      Zipf ``subject_max_zipf``, and it leads every other candidate about them at least
      ``subject_min_lead`` times (:func:`subject_words`).

    A note after the first is named on its own merit: evidence the notes named before it lack
    >= ``extra_evidence``, and coverage >= ``extra_share`` times the top note's.

    :returns: ``(route, named notes)``; the notes are empty when the route is a silence reason
    """
    cands = ranking.candidates
    if ranking.possible <= 0:
        return Route.NO_TERMS, []
    if not cands:
        return Route.NO_MATCH, []
    top = cands[0]
    second = cands[1] if len(cands) > 1 else None
    ahead = lead(top, second)
    if tied(top, second) or ahead < settings.min_lead:
        group = linked_tie(cands, settings) if join_linked else []
        if not group:
            shared = subject_tie(cands, settings) if join_linked else []
            return (Route.SUBJECT, shared) if shared else (Route.TIE, [])
        from notesdb.rank import Ranking  # imported already by whoever ranked

        # one subject in linked notes: the first of them judged against the other notes
        rest = [c for c in cands if c not in group]
        route, named = verdict(Ranking([top] + rest, ranking.possible, ranking.general), settings, join_linked=False)
        if route not in SPOKEN:
            return Route.TIE, []
        extra = [c for c in named[1:] if c not in group]
        return route, (group + extra)[:MAX_NOTES]
    s = settings
    words = _words(top, s)
    # a request for general knowledge is not answered by the routes that add up its words
    general = bool(ranking.general and s.general_words)
    if (
        top.evidence >= s.strong_evidence
        and words >= s.strong_words
        and top.coverage >= s.strong_coverage
        and ahead >= strong_lead(top, s)
        and not general
    ):
        route = Route.STRONG
    elif (
        ahead >= s.lead_ratio
        and not general
        and words >= s.lead_words
        and top.evidence >= s.lead_evidence
        and top.coverage >= s.lead_coverage
    ):
        route = Route.LEAD
    elif top.coverage >= s.rare_coverage and _rare_about(top, s) and _rare_named(top, s):
        route = Route.RARE
    elif (
        ahead >= s.ahead_min_lead
        and not general
        and top.coverage >= s.ahead_coverage
        and words >= s.ahead_words
        and ahead_weighted(top, ahead, s) >= s.ahead_evidence
    ):
        route = Route.AHEAD
    elif ahead >= s.sole_min_lead and top.held >= s.sole_held and sole_words(top, second, s):
        route = Route.SOLE
    elif top.coverage >= s.margin_coverage and margin(top, [second] if second else []) >= s.margin_evidence:
        route = Route.MARGIN
    elif (
        ahead >= s.about_min_lead
        and top.held >= s.about_held
        and lead_weighted(top, ahead, s) >= s.about_evidence
        and _about_word(top, s)
    ):
        route = Route.ABOUT
    elif ahead >= s.named_min_lead and top.coverage >= s.named_coverage and coined_name(top) is not None:
        route = Route.NAMED
    elif full_name(top, cands[1:], s) is not None:
        route = Route.FULL_NAME
    elif subject_words(top, cands[1:], s):
        route = Route.SUBJECT
    else:
        return Route.WEAK, []
    # a route's thresholds are met, but the message is off the note's subject: that is the reason
    # to give for the silence (a top note that meets no route is "weak", whatever its subject)
    if off_title(top, s) and not many_words(top, ahead, s):
        return Route.OFF_TITLE, []
    named = [top]
    for c in cands[1:]:
        if len(named) >= MAX_NOTES:
            break
        if c.coverage < s.extra_share * top.coverage:
            continue
        if margin(c, named) >= s.extra_evidence:
            named.append(c)
    return route, named


def _off_title_why(top: Candidate, ahead: float, s: Settings, lead_in: str) -> list[str]:
    """Why :func:`off_title` silences the top note and :func:`many_words` does not let it past,
    the first line starting with ``lead_in`` ("but", "and")."""
    share = title_share(top) or 0.0
    need = many_words_lead(_words(top, s), s)
    return [
        f"{lead_in} off the note's subject: the message holds {share:.2f} < {s.title_share} of the words of its "
        f"title, file name or aliases ({'; '.join(', '.join(ws) for ws in title_words(top))}) and the note "
        f"holds {top.held:.2f} < {s.title_held} of the message",
        f"not let past for its words: it holds {_words(top, s)} of the message's words bringing >= {s.word_evidence} each, "
        + (f"but leads {ahead:.2f}x < {need:.2f}x" if need is not None
           else f"fewer than {s.off_title_words}" if s.off_title_words else "and the waiver is off (off_title_words 0)"),
    ]


def _route_met(ranking: Ranking, s: Settings) -> str:
    """The route whose thresholds the top note meets, judged as :func:`verdict` judges it but
    without the off-title check (for the reasons of an ``off-title`` silence)."""
    return verdict(ranking, replace(s, title_held=0.0))[0]


def named_notes(ranking: Ranking, settings: Settings) -> tuple[str, list[str]]:
    """The route and the notes :func:`judge` would name for ``ranking`` (paths relative to
    the folder), without building its reasons: what a threshold sweep needs, several times
    faster than :func:`judge` (``tune`` judges every case under hundreds of settings).

    :returns: ``(route, paths)``; ``paths`` is empty when the route is silent, and holds the
        notes the line has room for (:func:`fit_line`) when it speaks
    """
    route, named = verdict(ranking, settings)
    if route not in SPOKEN:
        return route, []
    _, kept = fit_line([(c.title, c.path, c.desc) for c in named])
    return route, [c.path for c in named[:kept]]


def judge(ranking: Ranking, settings: Settings, folder: str | None = None) -> Decision:
    """Decide whether to speak about a ranking (``notesdb.rank.Ranking``), with the reasons.

    :param ranking: candidates best first, with evidence and coverage
    :param settings: thresholds
    :param folder: the notes folder's absolute path, to name each note by a path the
        assistant can open (see :func:`format_line`); None: paths relative to the folder
    :returns: a :class:`Decision` whose ``route`` is ``strong``, ``lead``, ``rare``, ``ahead``,
        ``sole``, ``margin``, ``about`` or ``named`` when it speaks (see :func:`verdict`), and otherwise the reason for silence:
        ``no-terms`` (nothing searchable), ``no-match`` (no note holds a word of the message),
        ``tie`` (no note clearly leads the others), ``off-title`` (the message neither names the
        top note's subject nor is mostly its words: :func:`off_title`), ``weak`` (no route's
        thresholds are met)
    """
    cands = ranking.candidates
    d = Decision(spoken=False)
    d.top_scores = [
        {
            "path": c.path,
            "title": c.title,
            "evidence": round(c.evidence, 3),
            "coverage": round(c.coverage, 3),
            "held": round(c.held, 3),
            "bm25": round(c.bm25, 3),
            "hits": [f"{h.token}->{h.word}" if h.word != h.token else h.word for h in c.hits],
            "about": [h.word for h in c.about],
            "phrases": list(c.phrases),
            "phrase": round(c.phrase, 3),
        }
        for c in cands[:5]
    ]
    route, named = verdict(ranking, settings)
    d.route = route
    s = settings
    # spoken for notes that tie but are linked: the reasons are those of the top note judged
    # against the notes outside that group, as verdict judged it
    group = linked_tie(cands, s) if route in SPOKEN else []
    if group:
        cands = [c for c in cands if c not in group[1:]]
    if route == Route.NO_TERMS:
        d.reasons.append("nothing searchable in the message")
        return d
    if route == Route.NO_MATCH:
        d.reasons.append("no note holds any word of the message")
        return d
    top = cands[0]
    second = cands[1] if len(cands) > 1 else None
    ahead = lead(top, second)
    gap = margin(top, [second] if second else [])
    d.reasons.append(
        f"top {top.path}: evidence {top.evidence:.2f} from {_words(top, s)} word(s) bringing >= {s.word_evidence} each, "
        f"coverage {top.coverage:.2f}, "
        + (f"lead {ahead:.2f}x over the second, margin {gap:.2f} (evidence the second lacks)"
           if second is not None else "the only candidate")
    )
    if group:
        d.reasons.append(_linked_reason(group, "so it is judged against the other notes, and they are named together", s))
    rare = _rare_about(top, s)
    if rare:
        d.reasons.append(
            "about rare words: "
            + ", ".join(f"{h.word} (df {h.doc_freq}, weight {_rarity(h):.2f}"
                        + (f" as typed right, {h.evidence:.2f} corrected" if h.how == "corrected" else "")
                        + f", in {h.place})" for h in rare)
        )
    if route == Route.TIE:
        linked_group = linked_tie(cands, s)
        if linked_group:
            d.reasons.append(_linked_reason(linked_group, "but judged against the other notes no route's thresholds are met", s))
            return d
        if tied(top, second):
            d.reasons.append(
                f"no clear winner: {second.path if second else ''} is within {TIE_TOLERANCE:.0%} of the top note"
            )
        else:
            d.reasons.append(f"no clear winner: lead {ahead:.2f} < {s.min_lead}")
        return d
    if route == Route.OFF_TITLE:
        met = _route_met(ranking, s)
        d.reasons.append(f"thresholds met by {_spoke_why(met, top, second, ahead, gap, rare, s, cands[1:])}")
        d.reasons.extend(_off_title_why(top, ahead, s, "but"))
        return d
    if route == Route.WEAK:
        needs = [f"{name}: {', '.join(failed)}" for name, failed in _failures(top, second, ahead, gap, s, cands[1:], ranking.general)]
        d.reasons.append("no route: " + "; ".join(needs))
        if off_title(top, s) and not many_words(top, ahead, s):
            d.reasons.extend(_off_title_why(top, ahead, s, "and"))
        return d
    # the notes verdict named for a tie by the subject route (:func:`subject_tie`): not read again
    shared = named if route == Route.SUBJECT and not group and second is not None and not _led(top, second, s) else []
    if shared:
        words = subject_words(top, cands[len(shared):], s)
        d.reasons.append(
            f"spoke by subject, for notes that tie: the message is nothing but "
            f"{', '.join(h.word for h in words)}, which each of them is about and no language notesdb "
            f"reads uses much (Zipf < {s.tie_max_zipf}), and no other candidate about it comes within "
            f"{s.subject_min_lead}x of any of them: one question several notes answer, named together"
        )
    else:
        d.reasons.append("spoke by " + _spoke_why(route, top, second, ahead, gap, rare, s, cands[1:]))
    if off_title(top, s):  # so many_words let it past
        d.reasons.append(
            f"the message names none of the note's subject (it holds {title_share(top) or 0.0:.2f} < {s.title_share} of "
            f"its names), but it holds {_words(top, s)} of the message's words and leads {ahead:.2f}x >= "
            f"{many_words_lead(_words(top, s), s):.2f}x: let past for its words"
        )
    for c in named[1:]:
        if c in shared:
            d.reasons.append(
                f"also {c.path}: {_ties_with(top, c, s)} and is about every word of the message too"
            )
            continue
        if c in group:
            d.reasons.append(
                f"also {c.path}: {_ties_with(top, c, s)} and "
                + (
                    "it is a copy of the top note (the same text)"
                    if copies(top, c)
                    else "the top note links to it" if links_to(_targets(top), c.path)
                    else "it links to the top note" if links_to(_targets(c), top.path)
                    else "it is a page of the top note's namespace" if within(top.path, c.path)
                    else "the top note is a page of its namespace" if within(c.path, top.path)
                    else "both are pages of one namespace" if _kin(top, c, s) == "namespace"
                    else f"their file names start with the same words ({' '.join(family_name(top, c, s))})"
                )
                + ": one subject, named together"
            )
            continue
        d.reasons.append(
            f"also {c.path}: {margin(c, named[: named.index(c)]):.2f} evidence the notes before it lack"
        )
    left = _not_named(cands, named, s)
    if left:
        d.reasons.append("not also named: " + "; ".join(left))
    if group:  # the routes judged the top note against the notes outside the linked ones
        kinds = {_kin(top, c, s) for c in group[1:]}
        one, kin = _KIN_WORDS[kinds.pop() if len(kinds) == 1 else "link"]
        d.reasons = [
            r if i == 1 else r.replace("the only candidate", f"the only candidate besides the {kin}")
            .replace("over the second", f"over the first note not {one}")
            .replace("leads the second", f"leads the first note not {one}")
            for i, r in enumerate(d.reasons)
        ]
    d.spoken = True
    d.notes = [c.path for c in named]
    d.parts = [(c.title, c.path, c.desc) for c in named]
    d.folder = folder
    d.line, kept = fit_line(d.parts, folder=folder)
    d.notes, d.parts = d.notes[:kept], d.parts[:kept]
    return d


def _num(value: float, bar: float) -> str:
    """``value`` with two decimals, or four when two would round it onto the other side of
    ``bar`` (a coverage of 0.4996 against 0.5 is not shown as 0.50)."""
    text = f"{value:.2f}"
    if (float(text) >= bar) != (value >= bar):
        text = f"{value:.4f}"
    return text


def _word_count(n: int, need: int) -> str:
    return f"only {n} word{'' if n == 1 else 's'} (needs {need})"


def _failures(top: Candidate, second: Candidate | None, ahead: float, gap: float,
              s: Settings, others: list[Candidate], general: str = "") -> list[tuple[str, list[str]]]:
    """For a silent ``weak`` verdict: each route (margin and about only when switched on,
    below ``ROUTE_OFF``) with the conditions of :func:`verdict` it fails, in words and values.
    The tests are verdict's, written out again for the explanation only: :func:`verdict` stays
    the one judgement.

    :param general: the form that makes the message a request for general knowledge
        (``Ranking.general``), or ""
    :returns: ``[(route, [failed condition, ...]), ...]`` in verdict's order
    """
    words = _words(top, s)
    out: list[tuple[str, list[str]]] = []

    def lead_below(bar: float) -> str:
        return f"lead {_num(ahead, bar)}x < {bar}x"

    f = []
    if top.evidence < s.strong_evidence:
        f.append(f"evidence {_num(top.evidence, s.strong_evidence)} < {s.strong_evidence}")
    if words < s.strong_words:
        f.append(_word_count(words, s.strong_words))
    if top.coverage < s.strong_coverage:
        f.append(f"coverage {_num(top.coverage, s.strong_coverage)} < {s.strong_coverage}")
    need = strong_lead(top, s)
    if ahead < need:
        f.append(lead_below(need) + (f" ({larger_lead_why(top, s)}, so it needs that larger lead)" if need > s.strong_min_lead else ""))
    asks = f"the message asks for general knowledge (\"{general}\"), which this route does not answer"
    if general and s.general_words:
        f.append(asks)
    out.append((Route.STRONG, f))
    f = []
    if ahead < s.lead_ratio:
        f.append(lead_below(s.lead_ratio))
    if words < s.lead_words:
        f.append(_word_count(words, s.lead_words))
    if top.evidence < s.lead_evidence:
        f.append(f"evidence {_num(top.evidence, s.lead_evidence)} < {s.lead_evidence}")
    if top.coverage < s.lead_coverage:
        f.append(f"coverage {_num(top.coverage, s.lead_coverage)} < {s.lead_coverage}")
    if general and s.general_words:
        f.append(asks)
    out.append((Route.LEAD, f))
    f = []
    if top.coverage < s.rare_coverage:
        f.append(f"coverage {_num(top.coverage, s.rare_coverage)} < {s.rare_coverage}")
    if not _rare_about(top, s):
        heaviest = max((_rarity(h) for h in top.about), default=0.0)
        f.append(f"no title, desc or headings word of weight {s.rare_weight}"
                 + (f" (the heaviest weighs {_num(heaviest, s.rare_weight)})" if top.about else ""))  # fmt: skip
    naming, share = _rare_naming(top, s)
    if share is not None and share < s.title_share:
        f.append(f"the message holds {share:.2f} < {s.title_share} of the "
                 + ("words of the note's title, file name or aliases" if naming == "words" else "numbers of the note's title"))
    out.append((Route.RARE, f))
    f = []
    if ahead < s.ahead_min_lead:
        f.append(lead_below(s.ahead_min_lead))
    if top.coverage < s.ahead_coverage:
        f.append(f"coverage {_num(top.coverage, s.ahead_coverage)} < {s.ahead_coverage}")
    if words < s.ahead_words:
        f.append(_word_count(words, s.ahead_words))
    weighted = ahead_weighted(top, ahead, s)
    if weighted < s.ahead_evidence:
        f.append(f"evidence x lead (counted up to {s.ahead_lead_cap}x) {_num(weighted, s.ahead_evidence)} < {s.ahead_evidence}")
    if general and s.general_words:
        f.append(asks)
    out.append((Route.AHEAD, f))
    f = []
    if ahead < s.sole_min_lead:
        f.append(lead_below(s.sole_min_lead))
    if top.held < s.sole_held:
        f.append(f"holds {_num(top.held, s.sole_held)} < {s.sole_held} of the message")
    if not sole_words(top, second, s):
        f.append(f"no word rare in English in at most {s.sole_doc_freq} notes"
                 + (" that the second lacks" if second is not None else ""))  # fmt: skip
    out.append((Route.SOLE, f))
    if s.margin_evidence < ROUTE_OFF:
        f = []
        if top.coverage < s.margin_coverage:
            f.append(f"coverage {_num(top.coverage, s.margin_coverage)} < {s.margin_coverage}")
        if gap < s.margin_evidence:
            f.append(f"{_num(gap, s.margin_evidence)} < {s.margin_evidence} evidence the second lacks")
        out.append((Route.MARGIN, f))
    if s.about_evidence < ROUTE_OFF:
        f = []
        if ahead < s.about_min_lead:
            f.append(lead_below(s.about_min_lead))
        if top.held < s.about_held:
            f.append(f"holds {_num(top.held, s.about_held)} < {s.about_held} of the message")
        weighted = lead_weighted(top, ahead, s)
        if weighted < s.about_evidence:
            f.append(f"evidence x lead (counted up to {s.about_lead_cap}x) {_num(weighted, s.about_evidence)} < {s.about_evidence}")
        if not _about_word(top, s):
            f.append(f"no title, desc or headings word of weight {s.about_weight}")
        out.append((Route.ABOUT, f))
    f = []
    if ahead < s.named_min_lead:
        f.append(lead_below(s.named_min_lead))
    if top.coverage < s.named_coverage:
        f.append(f"coverage {_num(top.coverage, s.named_coverage)} < {s.named_coverage}")
    if coined_name(top) is None:
        f.append("the message holds no whole name of the note made of a word English does not know")
    out.append((Route.NAMED, f))
    if full_name(top, others, s) is None:
        out.append((Route.FULL_NAME, [_no_full_name(top, others, s)]))
    if not subject_words(top, others, s):
        out.append((Route.SUBJECT, [_no_subject(top, others, s)]))
    return out


def _no_subject(top: Candidate, others: list[Candidate], s: Settings) -> str:
    """Why :func:`subject_words` finds none, in words: the first condition it fails."""
    if top.held < s.subject_held:
        return f"holds {_num(top.held, s.subject_held)} < {s.subject_held} of the message"
    about = {h.token for h in top.about if h.evidence > 0}
    hits = [h for h in top.hits if h.evidence > 0]
    if not hits:
        return "no word of the message brings it evidence"
    outside = [h.word for h in hits if h.token not in about]
    if outside:
        return "not about every word of the message (" + ", ".join(outside) + " only in its body)"
    common = [h.word for h in hits if not h.token.isalpha() or h.zipf >= s.subject_max_zipf]
    if common:
        return f"{', '.join(common)}: not a word of letters rarer in English than Zipf {s.subject_max_zipf}"
    tokens = {h.token for h in hits}
    rival = next(c for c in others if top.evidence < s.subject_min_lead * c.evidence
                 and any(h.token in tokens for h in c.about if h.evidence > 0))
    return f"{rival.path} is about it too, and the note leads it {lead(top, rival):.2f}x < {s.subject_min_lead}x"


def _typed_names(cand: Candidate, names: list[str], settings: Settings) -> list[str]:
    """The ``names`` of the note whose every subject word the message holds typed as it is (or
    another form, two letters swapped, a long prefix: :func:`_typed_whole`), at least
    ``full_name_words`` of them counting as matched words (``word_evidence``): "aaa" expanded
    into "aaaudit" does not name ``aa-audit.md``, nor do "go" and "get", everyday words, name
    ``go-get.md``; "SQLite VACUUM: database or disk is full" is named though "database" and
    "full" weigh little in a folder of programming notes."""
    typed = [h for h in cand.hits if h.place == "title" and h.evidence > 0 and _typed_whole(h)]
    heavy = [h for h in typed if h.evidence >= settings.word_evidence]
    need = settings.full_name_words
    out = []
    kept = _kept_stopwords(cand.hits)
    for name in names:
        words = _subject_words(name, kept)
        counted = _held(name, heavy)  # once per name, not once per word
        if _held_as_typed(name, words, typed) and sum(1 for w in words if w in counted) >= need:
            out.append(name)
    return out


def _held_as_typed(name: str, words: list[str], hits: list[Hit]) -> bool:
    """True when ``hits`` hold every one of ``words``, the subject words of ``name``
    (:func:`_subject_words`), a joined pair counting for both."""
    held = _held(name, hits)
    return all(w in held for w in words)


def _held(name: str, hits: list[Hit]) -> set[str]:
    """The words of ``name`` that ``hits`` hold: their words, and both words of a pair of the
    name found joined ("Wi-Fi" as wifi)."""
    found = {h.word for h in hits}
    held = set(found)
    for a, b in joined_pairs(name):
        if a + b in found:
            held.update((a, b))
    return held


def _no_full_name(top: Candidate, others: list[Candidate], s: Settings) -> str:
    """Why :func:`full_name` found no name (for ``--explain``)."""
    n = s.full_name_words
    whole = _whole_names(top, n)
    if not whole:
        return f"the message holds no name of the note of {n} or more words whole"
    if not _typed_names(top, whole, s):
        return (f"the message holds the note's name '{whole[0]}' only through a correction or a short prefix, "
                f"or with fewer than {n} of its words of weight >= {s.word_evidence}")
    rival = next(o for o in others if _whole_names(o, n))
    return f"the message also holds a whole name of {rival.path}"


def _ties_with(top: Candidate, c: Candidate, s: Settings) -> str:
    """How a note named beside the top note for a tie compares with it, in words."""
    return f"it ties with the top note (evidence {c.evidence:.2f}, lead {lead(top, c):.2f}x < {s.min_lead}x)"


def _not_named(cands: list[Candidate], named: list[Candidate], s: Settings) -> list[str]:
    """Why the second and third candidates, when not named by :func:`verdict`, were left out:
    a coverage under ``extra_share`` of the top note's, or less than ``extra_evidence`` evidence
    that the notes named before them lack (the notes named ahead of them in rank order, as
    verdict compared them). One entry per note left out."""
    top = cands[0]
    out = []
    for c in cands[1:MAX_NOTES]:
        if c in named:
            continue
        if c.coverage < s.extra_share * top.coverage:
            out.append(
                f"{c.path}: coverage {c.coverage:.2f} < {s.extra_share} x the top note's {top.coverage:.2f}"
            )
            continue
        # a note named beside the top note for a link or a copy is not among ``cands`` (judge
        # took it out): it ranked with the top note, before ``c``
        before = [n for n in named if n not in cands or cands.index(n) < cands.index(c)]
        out.append(
            f"{c.path}: {_num(margin(c, before), s.extra_evidence)} < {s.extra_evidence} "
            "evidence the notes named before it lack"
        )
    return out


def _leads(ahead: float, second: Candidate | None, bar: float) -> str:
    """How the top note leads: ``leads the second 2.00x >= 1.5x``, or ``the only candidate``."""
    return f"leads the second {ahead:.2f}x >= {bar}x" if second is not None else "the only candidate"


def _spoke_why(route: str, top: Candidate, second: Candidate | None, ahead: float, gap: float,
               rare: list[Hit], s: Settings, others: list[Candidate]) -> str:
    """Why the gate spoke through ``route``, in words (only that route's reason is built)."""
    if route == Route.STRONG:
        return (
            f"strong: evidence {top.evidence:.2f} >= {s.strong_evidence}, coverage "
            f"{top.coverage:.2f} >= {s.strong_coverage}, {_leads(ahead, second, strong_lead(top, s))}" + (
                f" ({larger_lead_why(top, s).removeprefix('it ')}, so it needs that larger lead)"
                if second is not None and strong_lead(top, s) > s.strong_min_lead else ""
            )
        )
    if route == Route.AHEAD:
        counted = f"(counted up to {s.ahead_lead_cap}x)" if second is not None else f"(counted as {s.ahead_lead_cap}x)"
        return (
            f"ahead: {_leads(ahead, second, s.ahead_min_lead)}, so evidence "
            f"{top.evidence:.2f} x lead {counted} = {ahead_weighted(top, ahead, s):.2f} "
            f">= {s.ahead_evidence}, coverage {top.coverage:.2f} >= {s.ahead_coverage}"
        )
    if route == Route.SOLE:
        return (
            "sole: the only note of few holding "
            + ", ".join(f"{h.word} (in {h.doc_freq} note(s), in its {h.place}, rare in English)" for h in sole_words(top, second, s))
            + f"; {_leads(ahead, second, s.sole_min_lead)} and holds {top.held:.2f} >= "
            f"{s.sole_held} of the message's words"
        )
    if route == Route.LEAD:
        return (
            (f"lead: {ahead:.2f}x >= {s.lead_ratio}x the second" if second is not None else "lead: the only candidate")
            + f", evidence {top.evidence:.2f} >= {s.lead_evidence}, coverage {top.coverage:.2f} >= {s.lead_coverage}"
        )
    if route == Route.RARE:
        naming, share = _rare_naming(top, s)
        return (
            f"rare: about {', '.join(h.word for h in rare)}, coverage {top.coverage:.2f} "
            f">= {s.rare_coverage}, "
            + (f"the message holds {share:.2f} >= {s.title_share} of a name of the note" if naming == "words" else
               f"the message holds {share:.2f} >= {s.title_share} of the numbers of the note's title"
               if naming == "numbers" and share is not None else "the note's names are numbers only")
        )
    if route == Route.MARGIN:
        return (
            f"margin: holds {gap:.2f} >= {s.margin_evidence} evidence "
            + ("the second lacks" if second is not None else "(the only candidate)")
            + f", coverage {top.coverage:.2f} >= {s.margin_coverage}"
        )
    if route == Route.ABOUT:
        counted = f"(counted up to {s.about_lead_cap}x)" if second is not None else f"(counted as {s.about_lead_cap}x)"
        return (
            f"about: the note is about {', '.join(h.word for h in _about_word(top, s))} and "
            f"{'leads the second ' + format(ahead, '.2f') + 'x' if second is not None else 'is the only candidate'}, "
            f"so evidence {top.evidence:.2f} x lead {counted} = {lead_weighted(top, ahead, s):.2f} "
            f">= {s.about_evidence}, and it holds {top.held:.2f} >= {s.about_held} of the message's words"
        )
    if route == Route.NAMED:
        return (
            f"named: the message holds the note's name '{coined_name(top)}', which English does not know; "
            f"{_leads(ahead, second, s.named_min_lead)}, coverage {top.coverage:.2f} >= {s.named_coverage}"
        )
    if route == Route.FULL_NAME:
        return (
            f"full-name: the message holds every word of the note's name '{full_name(top, others, s)}', "
            f"and no other candidate's name whole; {_leads(ahead, second, s.min_lead)}"
        )
    if route == Route.SUBJECT:
        words = subject_words(top, others, s)
        return (
            f"subject: the message is nothing but {', '.join(h.word for h in words)}, which the note is about "
            f"(in its {', '.join(dict.fromkeys(h.place for h in words))}) and English rarely uses (Zipf < "
            f"{s.subject_max_zipf}); no other candidate about it comes within {s.subject_min_lead}x of it, "
            f"{_leads(ahead, second, s.min_lead)}"
        )
    raise ValueError(f"not a route that speaks: {route}")


#: What cannot be shown on one line of plain text: the C0 and C1 control characters (ESC, BEL,
#: NUL, tab, newline...), DEL, and Unicode's line and paragraph separators (U+2028, U+2029).
#: A note's title or file name holding them could colour, clear or rewrite the terminal or the
#: log that shows the line, or break it in two.
_CONTROL_CHARS: Final = (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)
#: What would show, or hide, other than it is: Unicode's format characters (bidi overrides and
#: isolates, zero-width spaces and joiners, the byte order mark: :data:`notesdb.text.FORMAT_CHARS`).
_FORMAT_CHARS: Final = tuple(c for a, b in FORMAT_CHARS for c in range(a, b + 1))
_CONTROLS_TO_SPACE: Final = {**dict.fromkeys(_CONTROL_CHARS, " "), **dict.fromkeys(_FORMAT_CHARS)}
_CONTROLS_TO_MARK: Final = dict.fromkeys((*_CONTROL_CHARS, *_FORMAT_CHARS), "?")
#: How the line says that a path is not shown exactly as it is.
CONTROLS_MARKED: Final = "invisible characters shown as ?"


def one_line(text: str) -> str:
    """``text`` (a note's title or description) as plain text on one line: every control
    character (:data:`_CONTROL_CHARS`) becomes a space and every format character
    (:data:`_FORMAT_CHARS`: bidi overrides, zero-width spaces and joiners) is dropped (a joiner
    inside a word leaves the word whole), runs of white space become one space."""
    return " ".join(text.translate(_CONTROLS_TO_SPACE).split())


#: Characters that could close the parentheses around a path, open a quotation of the line or
#: pose as the line's own words: a path holding one is quoted as a Markdown code span.
_NEEDS_QUOTES: Final = frozenset('()"`,;')


def _odd_spacing(path: str) -> bool:
    """True when ``path`` holds white space other than single spaces between words of one
    part: a tab, two spaces, a non-breaking space, or a part (between ``/``) that starts or
    ends with white space (``notes/ lead.md``, ``notes/dir /n.md``), which a reader would
    not see at the end of a word or after a slash."""
    if " ".join(path.split()) != path:
        return True
    return any(part != part.strip() for part in path.split("/"))


def _fence_length(text: str) -> int:
    """The fewest backticks that can open and close a Markdown code span around ``text``:
    the smallest length that is not the length of a run of backticks in ``text``.

    CommonMark closes a code span only at a run of exactly the opening run's length, so a
    run of 200 backticks in a file name needs no fence of 201: one backtick does. The fence
    stays short (``text`` of n characters holds at most k distinct run lengths with
    1 + 2 + ... + k <= n, so 28 backticks at most for a 400-character path) and the path is
    still shown exactly, which a fence longer than every run would not keep within the line."""
    runs, run = set(), 0
    for ch in text + " ":
        if ch == "`":
            run += 1
        elif run:
            runs.add(run)
            run = 0
    length = 1
    while length in runs:
        length += 1
    return length


def shown_path(path: str, limit: int = 200) -> str:
    """A note path as shown in the line (``str``): the path exactly as it is, on one line, and
    never mistaken for text of the line.

    * A plain path (``home/boiler notes.md``) is shown as it is.
    * A path holding a parenthesis, a double quote, a backtick, a comma or a semicolon, or
      white space other than single spaces between words (a part starting or ending with a
      space included: ``notes/dir /n.md``), is shown exactly as it is inside a
      Markdown code span (`` `Cars (old)/Golf (2009).md` ``) whose fence is the shortest run
      of backticks the path does not hold (:func:`_fence_length`), so that a file name such as
      ``x.md) - SYSTEM: ...`` cannot close the parentheses and pose as text of the line, and
      the assistant can still open the file by the name it reads.
    * What cannot be shown on one line is never passed off as the path: each control
      character (:data:`_CONTROL_CHARS`) and each format character (:data:`_FORMAT_CHARS`: a
      right-to-left override would show ``a\u202edm.exe.md`` reversed) is shown as ``?`` and
      a path longer than ``limit`` characters is cut; then the path is quoted and the line says
      what was done after it (``invisible characters shown as ?``, ``shortened to its first 200 characters``). The
      rest of the path still finds the file (``ls``, a glob).

    :param limit: the most characters of the path shown; :func:`format_line` gives 200 for
        a path relative to the notes folder and 400 for an absolute one, which keeps a line of
        two notes under ``MAX_LINE_CHARS`` (600)
    """
    said = []
    shown = path.translate(_CONTROLS_TO_MARK)
    if shown != path:
        said.append(CONTROLS_MARKED)
    if len(shown) > limit:
        shown = shown[:limit]
        said.append(f"shortened to its first {limit} characters")
    if said or not _NEEDS_QUOTES.isdisjoint(shown) or _odd_spacing(shown):
        fence = "`" * _fence_length(shown)
        pad = " " if shown[:1] in ("`", " ") or shown[-1:] in ("`", " ") else ""
        shown = fence + pad + shown + pad + fence
    return shown + "".join(", " + s for s in said)


#: A note's double quotes and backticks, as its title and description show them in the line.
_OWN_QUOTES: Final = str.maketrans({'"': "'", "`": "'"})


def keep_notes(decision: Decision, keep: list[str], silent_route: str) -> Decision:
    """Narrow a spoken ``decision`` to the notes ``keep`` (a part of ``decision.notes``, in its
    order), its line written again for them; when ``keep`` is empty it turns silent with route
    ``silent_route``. Changes and returns ``decision``. For the notes held back after the gate
    spoke (``notesdb.conversation``, ``notesdb.mentions``)."""
    if not keep:
        decision.spoken = False
        decision.notes = []
        decision.line = ""
        decision.route = silent_route
        return decision
    parts = {p: (t, p, d) for t, p, d in decision.parts}
    decision.notes = keep
    decision.parts = [parts[p] for p in keep]
    decision.line = format_line(decision.parts, folder=decision.folder)
    return decision


def format_line(notes: list[tuple[str, str, str]], limit: int = MAX_LINE_CHARS, folder: str | None = None) -> str:
    """The one plain line added to the assistant's context, at most ``limit`` characters.

    ``Notes that may cover this: "Title" (path) - "description"; "Title" (path).``
    Descriptions are shortened (then dropped) to fit, then the last notes are left out, then
    the one note left has its title and path shortened: a note that does not fit is left out,
    never cut inside its path (see :func:`shown_path`). It is a
    statement, never an instruction: the notes' own words only ever appear inside double quotes
    (theirs, and their backticks, become single quotes), and each path exactly as it is (:func:`shown_path`).

    :param notes: ``(title, path, description)`` triples, in order; paths relative to the folder
    :param folder: the notes folder's absolute path: each path is shown joined to it, so that
        the assistant, which is not started in the notes folder, can open the note
    """
    return fit_line(notes, limit, folder)[0]


def fit_line(notes: list[tuple[str, str, str]], limit: int = MAX_LINE_CHARS, folder: str | None = None) -> tuple[str, int]:
    """:func:`format_line`'s line and how many of ``notes`` it names (the first ones): a note
    left out for room was not said, so it is not logged as named (nor held back later in the
    conversation as said)."""
    head = "Notes that may cover this: "
    if folder:
        notes = [(t, folder.rstrip("/") + "/" + p, d) for t, p, d in notes]

    def render(desc_room: int, notes: list[tuple[str, str, str]] = notes, title_room: int = 120,
               path_room: int = 400 if folder else 200) -> str:
        parts = []
        for title, path, desc in notes:
            # a note's own quotes and backticks become single quotes: its words stay inside the
            # line's double quotes, and an unpaired backtick cannot open a code span that would
            # swallow the path after it
            title = one_line(title).translate(_OWN_QUOTES)[:title_room]
            part = f'"{title}" ({shown_path(path, path_room)})'
            desc = one_line(desc).translate(_OWN_QUOTES)
            if desc and desc_room > 0:
                if len(desc) > desc_room:
                    desc = desc[: max(desc_room - 3, 0)].rstrip() + "..."
                part += f' - "{desc}"'
            parts.append(part)
        return head + "; ".join(parts) + "."

    for room in (300, 200, 120, 60, 0):
        line = render(room)
        if len(line) <= limit:
            return line, len(notes)
    for keep in range(len(notes) - 1, 0, -1):
        line = render(0, notes[:keep])
        if len(line) <= limit:
            return line, keep
    # The first note alone is too long (a long title beside a long path and its remarks): its
    # title is cut to 20 characters at most, then its path is shortened further (and says
    # so), so that the line is never cut inside a path, its fence or its remark.
    title_room, path_room = 120, 400 if folder else 200
    line = render(0, notes[:1], title_room, path_room)
    while len(line) > limit and path_room > 0:
        over = len(line) - limit
        if title_room > 20:
            title_room = max(title_room - over, 20)
        else:
            path_room = max(path_room - over, 0)
        line = render(0, notes[:1], title_room, path_room)
    if len(line) <= limit:
        return line, 1
    return line[: limit - 3] + "...", 1  # only for a limit of about 150 characters or less

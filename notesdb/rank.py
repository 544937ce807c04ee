"""Query terms -> candidate notes, ranked by column-weighted BM25, with the features the gate reads.

Candidates come from one FTS5 ``MATCH ... ORDER BY rank``, where the rank is the table's stored
``bm25(3.0, 2.0, 2.0, 1.0)``: Okapi BM25 with k1 = 1.2 and b = 0.75, title, desc, headings and
body weighted 3 : 2 : 2 : 1 (https://sqlite.org/fts5.html#the_bm25_function).

For each candidate we then record, per message term, whether the note holds one of the term's
words and where: in its title, description or headings (the note is *about* it) or only in
its body (it mentions it). FTS5 floors the IDF of any word in half the notes or more, so the
weight of a word is read from the vocabulary's document frequencies (``query.idf``).

Every candidate gets an *evidence* score: the sum over message terms of
``weight * idf * specificity * place``, where ``weight`` is 1 for an exact word and less for
a corrected or expanded one, ``specificity`` discounts everyday English words, and ``place``
follows the column weights 3 : 2 : 2 : 1 (title 1, description and headings 2/3, body
``Settings.body_place``). Every weight is a field of :class:`notesdb.settings.Settings`.
A word only in the body of a long note counts for less: by FTS5's own BM25 term weight for
that note's body (term frequency over length), read as a share of ``Settings.body_saturation``,
so a catalogue or a year's log that mentions a word once among hundreds cannot outweigh the
note about it. Headings are read the same way (``Settings.headings_saturation``): a book's
summary with eighty chapter and section headings is about each of them less than a note with
three. Dividing by the message's total possible evidence gives *coverage*, a share in [0, 1] that
means the same for a three-word message and a pasted log. *Held* is the same share counted
wherever the words sit (before the place factor): how much of the message the note accounts for,
where coverage also says how prominently.
"""

from __future__ import annotations

import math
import re
import sqlite3
from dataclasses import dataclass, field, replace

from notesdb.query import Alternative, Query, Term, idf, match_expression, quote
from notesdb.settings import TIE_TOLERANCE, Settings

TYPE_CHECKING = False  # not typing's: the hook does not import typing (about 3 ms of every message)
if TYPE_CHECKING:
    from typing import Any, Final, Iterable

__all__ = ["Hit", "Candidate", "Ranking", "rank", "search_sql", "place_weights", "phrase_evidence"]

#: Candidates read from FTS5 per message.
MAX_CANDIDATES: Final = 20
#: Words held by at most this many notes are looked up in one FTS5 pass over all their notes;
#: commoner words are looked up candidate by candidate (``rowid IN``). Only speed depends on it.
SCAN_ALL_DOC_FREQ: Final = 200

_SEARCH_SQL: Final = """SELECT notes.id, notes.path, notes.title, notes.desc, notes_fts.rank, notes.aliases, notes.links
FROM notes_fts JOIN notes ON notes.id = notes_fts.rowid
WHERE notes_fts MATCH ?
ORDER BY notes_fts.rank
LIMIT ?"""


@dataclass(frozen=True)
class Hit:
    """One message term found in one note."""

    token: str  # as typed (folded)
    word: str  # the vocabulary word found
    how: str  # exact, corrected or prefix
    weight: float  # 1.0 exact; less for corrected or expanded words
    place: str  # "title", "desc", "headings" or "body"
    doc_freq: int
    evidence: float
    full: float = 0.0  # the word's weight wherever it sits (evidence before the place factor)
    zipf: float = 0.0  # English Zipf of the commoner of the typed and found word (0: not English)
    coined: bool = False  # neither the typed nor the found word is in a word list (``Alternative.coined``)
    other_zipf: float = 0.0  # the typed word's highest Zipf in another language's everyday words (``Term.other_zipf``)


@dataclass
class Candidate:
    """A note that matched, with BM25 and the evidence the gate weighs."""

    rowid: int
    path: str
    title: str
    desc: str
    bm25: float  # positive: -rank of fts5 bm25(3,2,2,1); higher is better
    hits: list[Hit] = field(default_factory=list)
    evidence: float = 0.0
    coverage: float = 0.0
    mentions: int = 0  # occurrences of the message's rarer words (counted only to break ties)
    held: float = 0.0  # share of the message's possible evidence in words the note holds anywhere
    #: evidence from pairs of message words the note holds as phrases (:func:`phrase_evidence`),
    #: included in ``evidence``, not in ``coverage`` or ``held``
    phrase: float = 0.0
    phrases: list[str] = field(default_factory=list)  # the phrases it holds, as found ("support group")
    aliases: str = ""  # the note's aliases as stored (a JSON list), other names of its subject
    links: str = "[]"  # the notes its links name, as stored (a JSON list, ``notesdb.links.targets``)
    #: length and CRC-32 of the note's title, description, headings and body as indexed, for the notes
    #: of the leading tie (:func:`_break_ties`), else "": two notes of one digest are one note
    #: kept twice (``notesdb.gate.copies``)
    digest: str = ""
    #: the gate's reading of the note's names (``notesdb.gate._names``, ``_held_names``,
    #: ``_inner_names``) with the hits it was read from: a sweep (``notesdb tune``) judges one
    #: candidate under many settings, and reading the names again was half its time
    names_read: "tuple[list[Hit], tuple[int, str, str, str], list[tuple[str, list[str]]], list[tuple[str, list[str], float]], list[tuple[str, list[str]]]] | None" = field(
        default=None, repr=False, compare=False
    )

    @property
    def about(self) -> list[Hit]:
        """Hits in the title, description or headings: what the note is about."""
        return [h for h in self.hits if h.place != "body"]


@dataclass
class Ranking:
    """Candidates best first, and the message's total possible evidence."""

    candidates: list[Candidate]
    possible: float  # evidence a note holding every message term in its title would earn
    #: the form that makes the message a request for general knowledge ("explain"), or ""
    #: (``notesdb.general.general_request``; set by ``notesdb.decide``, judged by the gate)
    general: str = ""


def place_weights(settings: Settings) -> dict[str, float]:
    """Share of a word's weight earned by where it sits in a note: the column weights of
    bm25(3, 2, 2, 1) divided by the title's 3, with the body at ``settings.body_place``."""
    return {"title": 1.0, "desc": 2 / 3, "headings": 2 / 3, "body": settings.body_place}


def specificity(zipf: float, settings: Settings) -> float:
    """How much a word says about a topic, from how common it is in general English (0..1).

    A logistic curve over the word's Zipf frequency (wordfreq: log10 of occurrences per
    billion words): everyday words ("right", zipf 6.0; "age", 5.3) weigh little whatever their
    document frequency in the notes, rarer words ("shield", 4.3; "fingerprint", 3.5) keep most
    of their weight, and words that are not English at all ("monswitch", 0) keep all of it.
    It plays the part of a background-corpus IDF beside the notes' own IDF. Midpoint and slope
    are ``settings.english_midpoint`` and ``settings.english_slope``.
    """
    x = settings.english_slope * (zipf - settings.english_midpoint)
    if x > 700.0:  # exp would overflow a float (a slope set absurdly steep): the curve is 0 there
        return 0.0
    return 1.0 / (1.0 + math.exp(x))


def search_sql() -> str:
    """The SQL run for candidates (paste it into ``sqlite3`` or Datasette with a MATCH string)."""
    return _SEARCH_SQL


def word_weight(t: Term, a: Alternative, n: int, settings: Settings) -> float:
    """Weight of a message term read as vocabulary word ``a``: correction or expansion weight x
    IDF (vocabulary document frequency) x English specificity.

    Specificity is taken from the more common of the typed word and the vocabulary word, so
    that an everyday word does not gain weight through a rare inflection ("evening" ->
    "evenings").
    """
    return (
        a.weight
        * scaled_idf(a.doc_freq, n, settings.reference_notes, settings.min_idf_notes)
        * specificity(max(t.zipf, a.zipf), settings)
        * shape_weight(a.word, a.doc_freq, n, settings)
    )


def scaled_idf(doc_freq: int, n_notes: int, reference_notes: int, min_notes: int = 1) -> float:
    """IDF rescaled so that a word in no note weighs the same in every index.

    ``idf(df, N) * idf(0, reference_notes) / idf(0, N)``: in a folder of 7,000 notes every
    word's raw IDF is larger than in a folder of 300, which would make the same message look
    stronger in a bigger folder. Rescaling keeps evidence (and the gate's thresholds) in the
    units of a folder of ``reference_notes`` notes (``Settings.reference_notes``), whatever the folder's size.

    A folder of fewer than ``min_notes`` notes (``Settings.min_idf_notes``) is counted as that
    many: in a folder of one note every word is in every note and its IDF would collapse, though
    a word there says as much about the note as in a larger folder.
    """
    n = max(n_notes, min_notes)
    return idf(doc_freq, n) * idf(0, reference_notes) / idf(0, n)


def shape_weight(token: str, doc_freq: int, n_notes: int, settings: Settings) -> float:
    """Weight of a word by its shape: most numbers say little about a topic.

    Plain numbers ("12", "2024") and short tokens with digits ("2x", "v4") are mostly sizes,
    counts and dates, and a pasted listing is full of them: they weigh ``settings.number_weight``,
    unless few notes hold them (at most ``settings.number_rare_share`` of the notes, and at
    least one): then the number tells notes apart (a year, a model number, an error code) and
    weighs like any rare word. Longer mixes of letters and digits are names and part numbers
    ("p2571", "c250") and keep their full weight.

    :param token: the vocabulary word
    :param doc_freq: notes holding it
    :param n_notes: notes in the index
    """
    if token.isalpha():
        return 1.0
    if token.isdigit() or len(token) < 4:
        if 0 < doc_freq <= max(1.0, settings.number_rare_share * n_notes):
            return 1.0
        return settings.number_weight
    return 1.0


def _term_weight(t: Term, n: int, settings: Settings) -> float:
    return max(word_weight(t, a, n, settings) for a in t.alternatives)


def rank(
    conn: sqlite3.Connection, query: Query, limit: int = MAX_CANDIDATES, settings: Settings | None = None
) -> Ranking:
    """Rank the notes for a query and measure each candidate's evidence.

    :param conn: an open notesdb database
    :param query: from :func:`notesdb.query.build_query`
    :param limit: candidates to read from FTS5
    :param settings: the scoring weights; defaults when None
    :returns: candidates ordered by evidence (ties: BM25), best first
    """
    s = settings or Settings()
    n = max(query.n_notes, 1)
    unknown_idf = idf(0, s.reference_notes) * s.unknown_weight
    possible = 0.0
    number_possible = 0.0
    for t in query.terms:
        if t.known and t.token.isdigit():
            number_possible = max(number_possible, _term_weight(t, n, s))
        elif t.known:
            possible += _term_weight(t, n, s)
        elif t.token.isalpha():
            possible += unknown_idf * specificity(t.zipf, s)
    possible += number_possible  # the message's numbers together: see _numbers_as_one
    words = query.words
    expr = match_expression(words)
    if not expr:
        return Ranking([], possible)
    rows = conn.execute(_SEARCH_SQL, (expr, limit)).fetchall()
    cands = {r[0]: Candidate(r[0], r[1], r[2], r[3], -r[4], aliases=r[5] or "", links=r[6] or "[]") for r in rows}
    if not cands:
        return Ranking([], possible)
    ids = list(cands)
    marks = ",".join("?" * len(ids))
    # where each word sits, per candidate: one bm25() per column, non-zero where the word is
    places: dict[str, dict[int, str]] = {}
    length_share: dict[tuple[str, int], float] = {}  # (word, note) -> length factor of a body or headings hit
    columns = (
        "SELECT rowid, bm25(notes_fts, 1, 0, 0, 0), bm25(notes_fts, 0, 1, 0, 0), "
        "bm25(notes_fts, 0, 0, 1, 0), bm25(notes_fts, 0, 0, 0, 1) FROM notes_fts WHERE notes_fts MATCH ?"
    )
    among_ids = columns + f" AND rowid IN ({marks})"
    doc_freqs = {a.word: a.doc_freq for t in query.terms for a in t.alternatives}
    wanted = set(ids)
    for w in words:
        found: dict[int, str] = {}
        # FTS5 runs the MATCH once per id of an IN list: for a word in few notes it is cheaper
        # to read all its notes and keep the candidates here (the same rows either way)
        located: Iterable[tuple[Any, ...]]
        if doc_freqs.get(w, 0) <= SCAN_ALL_DOC_FREQ:
            located = (r for r in conn.execute(columns, (match_expression([w]),)) if r[0] in wanted)
        else:
            located = conn.execute(among_ids, (match_expression([w]), *ids))
        fts_idf = _fts5_idf(doc_freqs.get(w, 0), n)
        for rowid, t_, d_, h_, b_ in located:
            found[rowid] = "title" if t_ else "desc" if d_ else "headings" if h_ else "body"
            if fts_idf > 0:
                if found[rowid] == "body":
                    length_share[(w, rowid)] = min(1.0, -b_ / fts_idf / s.body_saturation)
                elif found[rowid] == "headings":
                    length_share[(w, rowid)] = min(1.0, -h_ / fts_idf / s.headings_saturation)
        places[w] = found
    place_weight = place_weights(s)
    terms = {t.token for t in query.terms if t.known}
    # the words of each snake_case name some note holds (a word no note holds cannot be asked
    # for: "SQLITE_BUSY_RECOVERY" still finds the note on SQLITE_BUSY)
    names = [(words, ws) for _, words in query.code_names if len(ws := {w for w in words if w in terms}) >= 2]
    for c in cands.values():
        for t in query.terms:
            best: Hit | None = None
            for a in t.alternatives:
                place = places.get(a.word, {}).get(c.rowid)
                if place is None:
                    continue
                full = ev = word_weight(t, a, n, s)
                ev *= place_weight[place]
                ev *= length_share.get((a.word, c.rowid), 1.0)
                if best is None or ev > best.evidence:
                    best = Hit(t.token, a.word, a.how, a.weight, place, a.doc_freq, ev, full, max(t.zipf, a.zipf), a.coined, t.other_zipf)
            if best is not None:
                c.hits.append(best)
        if names:
            _whole_names(conn, c, names, query.bound)
        _numbers_as_one(c)
        c.evidence = sum(h.evidence for h in c.hits)
        c.coverage = c.evidence / possible if possible > 0 else 0.0
        c.held = min(1.0, sum(h.full for h in c.hits if h.evidence > 0) / possible) if possible > 0 else 0.0
    if query.phrases and s.phrase_weight > 0:
        phrase_evidence(conn, query.phrases, list(cands.values()), n, s, query.terms)
    ordered = sorted(cands.values(), key=lambda c: (-c.evidence, -c.bm25, c.path))
    _break_ties(conn, ordered, n)
    return Ranking(ordered, possible)


def phrase_evidence(conn: sqlite3.Connection, phrases: list[tuple[str, str]], cands: list[Candidate], n: int,
                    settings: Settings, exact: list[Term] | None = None) -> None:
    """Add to each candidate's ``evidence`` what a pair of message words it holds as a phrase
    says beyond its words: of the sessions of one conversation that all mention "support" and
    "group", the one that says "support group" is the one asked about.

    A phrase is looked for in the word forms the note was found by ("supporting group" for
    "support group" where the note says "supporting") and as typed, in any column (FTS5 phrase
    ``MATCH``); FTS5 reads through punctuation, so a note holds it only where nothing but a
    space, a hyphen, an underscore or (in the body) a line break stands between the two words
    (:func:`_written_together`: not "Oil. Filter coffee", nor a heading "Oil" over "Filter").
    It is worth ``settings.phrase_weight`` x the IDF it gains over the rarer of its two words,
    ``max(0, idf(phrase df) - idf(rarer word's df))`` (document frequencies, rescaled to
    ``Settings.reference_notes`` notes by :func:`scaled_idf`), x the smaller of the two words'
    weights (1 exact, less corrected or expanded), x the specificity of whichever of the two
    is less common in English (:func:`specificity`: two everyday words make an everyday phrase,
    "road trip", "error handling"). A pair whose rarer word is in as few notes as the phrase gains nothing
    ("ham radio" where only one note says "ham"). This is the information a phrase adds to its
    words, as in the sequential dependence model of term proximity (Metzler and Croft, SIGIR
    2005), read here from document frequencies alone.

    A note earns the worth of its best phrase only, not the sum: a pasted traceback's
    "recent call" and "call last" are one fact about a note that holds tracebacks.

    :param phrases: pairs of message terms typed together (``Query.phrases``)
    :param cands: the candidates, their ``hits`` already found; ``evidence``, ``phrase`` and
        ``phrases`` are updated in place (``coverage`` and ``held`` are not)
    :param n: notes in the index
    :param exact: the query's terms: a phrase is also looked for in a word as typed, where the
        vocabulary holds it (the note may have been found by another form)
    """
    # each side of a pair in the form the note was found by and, when the vocabulary holds it,
    # as typed: "which oil filter?" found the note by "filters", and it also writes "oil filter"
    typed = {t.token: a for t in (exact or []) for a in t.alternatives if a.how == "exact"}
    wanted: dict[tuple[str, str], list[tuple[Candidate, _Form, _Form]]] = {}
    for c in cands:
        found = {h.token: h for h in c.hits if h.evidence > 0}
        for a, b in phrases:
            ha, hb = found.get(a), found.get(b)
            if ha is None or hb is None:
                continue
            for fa in _forms(ha, typed.get(a)):
                for fb in _forms(hb, typed.get(b)):
                    if fa.word != fb.word:
                        wanted.setdefault((fa.word, fb.word), []).append((c, fa, fb))
    for (wa, wb), holders in wanted.items():
        expr = f"{quote(wa)} + {quote(wb)}"  # FTS5: "a" + "b" is the phrase "a b"
        # one read gives both the phrase's document frequency and which notes FTS5 finds it in
        holding = {r[0] for r in conn.execute("SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?", (expr,))}
        doc_freq = len(holding)
        if not doc_freq:
            continue
        fts_found = list({c.rowid for c, _, _ in holders if c.rowid in holding})
        together = _written_together(conn, expr, fts_found)
        # the candidates FTS5 found it in across punctuation do not hold it: nor do they count in
        # its document frequency (the other notes are not read, their count stands)
        doc_freq -= len(fts_found) - len(together)
        if doc_freq <= 0:
            continue
        phrase_idf = scaled_idf(doc_freq, n, settings.reference_notes, settings.min_idf_notes)
        for c, fa, fb in holders:
            if c.rowid not in together:
                continue
            gain = phrase_idf - scaled_idf(min(fa.doc_freq, fb.doc_freq), n, settings.reference_notes,
                                           settings.min_idf_notes)
            if gain <= 0:
                continue
            spec = max(specificity(fa.zipf, settings), specificity(fb.zipf, settings))
            worth = settings.phrase_weight * gain * min(fa.weight, fb.weight) * spec
            if f"{wa} {wb}" not in c.phrases:
                c.phrases.append(f"{wa} {wb}")
            if worth > c.phrase:
                c.evidence += worth - c.phrase
                c.phrase = worth


@dataclass(frozen=True)
class _Form:
    """One side of a phrase: a vocabulary word, its weight (1 as typed, less for another form
    or a correction), its document frequency and its English Zipf."""

    word: str
    weight: float
    doc_freq: int
    zipf: float


def _forms(hit: Hit, typed: Alternative | None) -> list[_Form]:
    """The forms a message word is looked for in a phrase: the one the note was found by, and
    the word as typed when the vocabulary holds it and it is another word."""
    out = [_Form(hit.word, hit.weight, hit.doc_freq, hit.zipf)]
    if typed is not None and typed.word != hit.word:
        out.append(_Form(typed.word, typed.weight, typed.doc_freq, typed.zipf))
    return out


#: Marks around a phrase instance in ``highlight()``'s output (characters no note's text holds).
_OPEN, _CLOSE = "\x01", "\x02"
#: What may stand between the two words of a phrase a note holds: spaces, a hyphen, an
#: underscore ("oil filter", "oil-filter", "oil_filter"); a line break too in the body, where
#: Markdown wraps a paragraph's lines. Anything else ends the phrase in the note as in the
#: message ("Oil. Filter coffee", a heading "Oil" above a heading "Filter").
_PHRASE_GAP: Final = re.compile(r"[ \t\u00a0\-\u2010\u2011_]*")
_BODY_GAP: Final = re.compile(r"[ \t\u00a0\-\u2010\u2011_]*(?:\n[ \t]*)?")
_WORD_RUN: Final = re.compile(r"[^\W_]+")
_SPAN: Final = re.compile(f"{_OPEN}(.*?){_CLOSE}", re.S)


def _written_together(conn: sqlite3.Connection, expr: str, ids: list[int]) -> set[int]:
    """The notes among ``ids`` that hold the phrase ``expr`` with nothing but a space, a hyphen,
    an underscore (or, in the body, one line break) between its words. FTS5 phrases skip any
    punctuation between tokens; ``highlight()`` marks each instance it matched, and the text
    between the words of an instance is read here."""
    if not ids:
        return set()
    marks = ",".join("?" * len(ids))
    cols = ", ".join(f"highlight(notes_fts, {i}, '{_OPEN}', '{_CLOSE}')" for i in range(4))
    out: set[int] = set()
    for rowid, *texts in conn.execute(
        f"SELECT rowid, {cols} FROM notes_fts WHERE notes_fts MATCH ? AND rowid IN ({marks})", (expr, *ids)
    ):
        for i, text in enumerate(texts):
            gap = _BODY_GAP if i == 3 else _PHRASE_GAP
            if text and _OPEN in text and any(
                gap.fullmatch(_WORD_RUN.sub("", m.group(1))) for m in _SPAN.finditer(text)
            ):
                out.add(rowid)
                break
    return out


def _whole_names(conn: sqlite3.Connection, c: Candidate, names: list[tuple[list[str], set[str]]],
                 bound: frozenset[str]) -> None:
    """Drop the hits of a code name's words from a note that does not hold the name.

    "instead of mocking simple_send_with_retries": a TIL note on mocking that says "retries"
    but not "send" is not about that function (``notesdb.query.code_names``). A note holds a
    word in any form the query reads it (inflected, corrected), so "send_with_retry" still finds
    a note on ``send_with_retries``; only the words the name alone brings are dropped. The note
    must also hold the name's words together, as a name is written (``send_with_retries``,
    ``send with retries``): within as many tokens of each other as the name has words (FTS5
    ``NEAR``). A note on ``git bisect`` that says "tested" in one place and "bisect" in
    another does not hold ``test_bisect_insert``.

    :param names: per code name of the message, its words in order and those that are query terms
    """
    by_token = {h.token: h for h in c.hits}
    kept: set[str] = set()
    drop: set[str] = set()
    for words, ws in names:
        if ws <= by_token.keys() and _together(conn, c.rowid, [by_token[w].word for w in words if w in ws], len(words)):
            kept |= ws
        else:
            drop |= {w for w in ws if w in bound}
    drop -= kept  # a name held whole keeps its words
    if drop:
        c.hits = [h for h in c.hits if h.token not in drop]


def _together(conn: sqlite3.Connection, rowid: int, words: list[str], window: int) -> bool:
    """True when note ``rowid`` holds ``words`` within ``window`` tokens of each other in one
    column (FTS5 ``NEAR``, any order)."""
    distinct = list(dict.fromkeys(words))
    if len(distinct) < 2:
        return True
    expr = f"NEAR({' '.join(quote(w) for w in distinct)}, {window})"
    return conn.execute("SELECT 1 FROM notes_fts WHERE notes_fts MATCH ? AND rowid = ?", (expr, rowid)).fetchone() is not None


def _numbers_as_one(c: Candidate) -> None:
    """Let the bare numbers a note shares with the message count as one word: the best of them.

    Numbers say little about a topic (:func:`shape_weight`), and a pasted log or table holds
    hundreds: summed one by one, a note that happens to contain many small numbers (a chart's
    coordinates) would out-vote the words of the question that follows the paste. The other
    number hits stay listed, with no evidence.
    """
    numbers = [h for h in c.hits if h.token.isdigit()]
    if len(numbers) < 2:
        return
    best = max(numbers, key=lambda h: h.evidence)
    c.hits = [h if not h.token.isdigit() or h is best else replace(h, evidence=0.0) for h in c.hits]


def _fts5_idf(doc_freq: int, n_notes: int) -> float:
    """The IDF FTS5's ``bm25()`` gives a word: ``ln((N - n + 0.5) / (n + 0.5))``, or 0 where FTS5
    floors it (words in half the notes or more), for which no length factor is read."""
    value = math.log((n_notes - doc_freq + 0.5) / (doc_freq + 0.5)) if doc_freq > 0 else 0.0
    return value if value > 1e-3 else 0.0


def _break_ties(conn: sqlite3.Connection, ordered: list[Candidate], n: int) -> None:
    """Order notes tied on evidence by how many of the message's words they hold, then by how
    often they mention them.

    Only the leading tie is examined, and only words in at most a tenth of the notes, so this
    reads a few short FTS5 position lists (``notes_fts_terms``). The notes of that tie also get
    their :attr:`Candidate.digest`.
    """
    if len(ordered) < 2 or ordered[0].evidence <= 0:
        return
    tied = [c for c in ordered if ordered[0].evidence - c.evidence <= TIE_TOLERANCE * ordered[0].evidence]
    if len(tied) < 2:
        return
    ids = {c.rowid: c for c in tied}
    marks = ",".join("?" * len(ids))
    import zlib  # not hashlib, which the hook does not import (see notesdb.config)

    for rowid, *texts in conn.execute(f"SELECT id, title, desc, headings, body FROM notes WHERE id IN ({marks})", list(ids)):
        whole = "\0".join(str(t) for t in texts).encode("utf-8", "surrogatepass")
        ids[rowid].digest = f"{len(whole)}:{zlib.crc32(whole):08x}"
    words = {h.word for c in tied for h in c.hits if h.doc_freq <= max(1, n // 10)}
    for w in words:
        for doc, count in conn.execute(
            "SELECT doc, count(*) FROM notes_fts_terms WHERE term = ? GROUP BY doc", (w,)
        ):
            if doc in ids:
                ids[doc].mentions += count
    # the note that holds more of the message's words wins (a complete note over its stub),
    # then the one that mentions them more often
    tied.sort(key=lambda c: (-len(c.hits), -c.mentions, -c.bm25, c.path))
    ordered[: len(tied)] = tied

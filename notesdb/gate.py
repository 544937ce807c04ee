"""The gate: candidates -> speak (naming up to three notes) or stay silent.

An eager tool is worse than none, so the gate speaks only through one of three routes:

1. ``strong``: a strong score: enough evidence, from at least two words of the message,
   covering a fair share of it;
2. ``lead``: a clear winner, well ahead of the second note;
3. ``rare``: the top note is *about* a rare word of the message: the word (after correction
   or prefix expansion) weighs a lot (few notes hold it, and it is not an everyday English
   word) and sits in the note's title, description or headings, not only in passing in its
   body; and the note covers at least half of the message.

Anything else stays silent, with the reason. A note after the first is named only when it is
nearly as strong and has a rare word of the message in its title that the notes named before
it are not about.

Scores are shares and sums of word weights (see :mod:`notesdb.rank`): a long pasted log does
not out-score a real match by being long, because coverage divides by what the whole message
could earn.

Every threshold is a field of :class:`Settings`; the defaults were chosen with ``notesdb tune``
and a sweep over the dev halves of the shared labelled sets (personal, chat, tech, memory,
til): they are the setting with the best personal hit rate at precision >= 0.95 and silence
>= 0.95 on personal and >= 0.98 on chat, in the middle of a plateau of equally good
neighbours. They can be overridden in the ``[gate]`` table of the config file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from notesdb.settings import Settings

if TYPE_CHECKING:
    from notesdb.rank import Candidate, Hit, Ranking

__all__ = ["Settings", "Route", "SPOKEN", "Decision", "judge", "lead", "format_line", "MAX_LINE_CHARS", "MAX_NOTES"]


class Route:
    """Why a decision spoke (the first three) or stayed silent: the ``route`` of a decision, as
    logged in ``decisions.route``. Plain strings (not an Enum, whose class costs the hook
    time on every message)."""

    STRONG: Final = "strong"
    LEAD: Final = "lead"
    RARE: Final = "rare"
    NO_TERMS: Final = "no-terms"  # nothing searchable in the message
    NO_MATCH: Final = "no-match"  # no note holds a word of the message
    TIE: Final = "tie"  # no note leads the others
    WEAK: Final = "weak"  # no route's thresholds are met
    SLASH_COMMAND: Final = "slash-command"  # a slash command, never judged
    NEW_INDEX: Final = "new-index"  # the hook's index was just created and is not complete yet
    BAD_INPUT: Final = "bad-input"  # the hook's event had no usable prompt
    ERROR: Final = "error"  # the hook failed; the problem is in its fallback log


#: The routes through which the gate speaks.
SPOKEN: Final = frozenset({Route.STRONG, Route.LEAD, Route.RARE})

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
    route: str = ""  # strong, lead, rare, or a silence reason: no-terms, no-match, weak, ...
    reasons: list[str] = field(default_factory=list)  # human-readable why
    top_scores: list[dict[str, Any]] = field(default_factory=list)
    corrections: list[tuple[str, str]] = field(default_factory=list)
    expansions: list[tuple[str, str]] = field(default_factory=list)
    elapsed_ms: float = 0.0
    error: str = ""

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
            "elapsed_ms": round(self.elapsed_ms, 2),
            "error": self.error,
        }


def lead(top: Candidate, second: Candidate | None) -> float:
    """How far the top note leads the second: the ratio of their evidence (``inf`` when there
    is no second note or it has no evidence)."""
    if second is None or second.evidence <= 0:
        return math.inf
    return top.evidence / second.evidence


def _rare_about(cand: Candidate, settings: Settings) -> list[Hit]:
    """Hits in the note's title, description or headings of words heavy enough to be rare."""
    return [h for h in cand.about if h.evidence >= settings.rare_weight]


def judge(ranking: Ranking, settings: Settings, folder: str | None = None) -> Decision:
    """Decide whether to speak about a ranking (``notesdb.rank.Ranking``).

    :param ranking: candidates best first, with evidence and coverage
    :param settings: thresholds
    :param folder: the notes folder's absolute path, to name each note by a path the
        assistant can open (see :func:`format_line`); None: paths relative to the folder
    :returns: a :class:`Decision` whose ``route`` is ``strong``, ``lead`` or ``rare`` when it
        speaks, and otherwise the reason for silence: ``no-terms`` (nothing searchable),
        ``no-match`` (no note holds a word of the message), ``tie`` (no note leads the
        others), ``weak`` (no route's thresholds are met)
    """
    cands = ranking.candidates
    d = Decision(spoken=False)
    d.top_scores = [
        {
            "path": c.path,
            "title": c.title,
            "evidence": round(c.evidence, 3),
            "coverage": round(c.coverage, 3),
            "bm25": round(c.bm25, 3),
            "hits": [f"{h.token}->{h.word}" if h.word != h.token else h.word for h in c.hits],
            "about": [h.word for h in c.about],
        }
        for c in cands[:5]
    ]
    if ranking.possible <= 0:
        d.route = Route.NO_TERMS
        d.reasons.append("nothing searchable in the message")
        return d
    if not cands:
        d.route = Route.NO_MATCH
        d.reasons.append("no note holds any word of the message")
        return d
    top = cands[0]
    second = cands[1] if len(cands) > 1 else None
    ahead = lead(top, second)
    rare = _rare_about(top, settings)
    words = sum(1 for h in top.hits if h.evidence >= settings.word_evidence)
    d.reasons.append(
        f"top {top.path}: evidence {top.evidence:.2f} from {words} word(s), "
        f"coverage {top.coverage:.2f}, lead {ahead:.2f}x over the second"
    )
    if rare:
        d.reasons.append(
            "about rare words: "
            + ", ".join(f"{h.word} (df {h.doc_freq}, weight {h.evidence:.2f}, in {h.place})" for h in rare)
        )
    if ahead < settings.min_lead:
        d.route = Route.TIE
        d.reasons.append(f"no clear winner: lead {ahead:.2f} < {settings.min_lead}")
        return d
    if (
        top.evidence >= settings.strong_evidence
        and words >= settings.strong_words
        and top.coverage >= settings.strong_coverage
    ):
        d.route = Route.STRONG
    elif (
        ahead >= settings.lead_ratio
        and words >= settings.lead_words
        and top.evidence >= settings.lead_evidence
        and top.coverage >= settings.lead_coverage
    ):
        d.route = Route.LEAD
    elif rare and top.coverage >= settings.rare_coverage:
        d.route = Route.RARE
    else:
        d.route = Route.WEAK
        d.reasons.append(
            f"no route: strong needs evidence {settings.strong_evidence} from "
            f"{settings.strong_words} words at coverage {settings.strong_coverage}; "
            f"lead needs {settings.lead_ratio}x at evidence {settings.lead_evidence} and "
            f"coverage {settings.lead_coverage}; rare needs a word of weight "
            f"{settings.rare_weight} in the title, desc or headings at coverage {settings.rare_coverage}"
        )
        return d
    named = [top]
    covered = {h.token for h in top.about}
    for c in cands[1:]:
        if len(named) >= MAX_NOTES:
            break
        if c.coverage < settings.extra_share * top.coverage:
            continue
        new = [
            h for h in _rare_about(c, settings) if h.token not in covered and h.place == "title"
        ]
        if new:
            named.append(c)
            covered |= {h.token for h in c.about}
            d.reasons.append(f"also {c.path}: about {', '.join(h.word for h in new)}")
    d.spoken = True
    d.notes = [c.path for c in named]
    d.line = format_line([(c.title, c.path, c.desc) for c in named], folder=folder)
    return d


def _shown_path(path: str, limit: int = 200) -> str:
    """A note path as shown in the line: one line, no quotes or brackets of its own, so that a
    file name cannot close the parentheses and pose as text of the line."""
    path = " ".join(path.split())
    return path.translate(str.maketrans('"()', "'[]"))[:limit]


def format_line(notes: list[tuple[str, str, str]], limit: int = MAX_LINE_CHARS, folder: str | None = None) -> str:
    """The one plain line added to the assistant's context, at most ``limit`` characters.

    ``Notes that may cover this: "Title" (path) - "description"; "Title" (path).``
    Descriptions are shortened (then dropped) to fit, then the last notes are left out; it is a
    statement, never an instruction: the notes' own words only ever appear inside double quotes
    (theirs become single quotes).

    :param notes: ``(title, path, description)`` triples, in order; paths relative to the folder
    :param folder: the notes folder's absolute path: each path is shown joined to it, so that
        the assistant, which is not started in the notes folder, can open the note
    """
    head = "Notes that may cover this: "
    if folder:
        notes = [(t, folder.rstrip("/") + "/" + p, d) for t, p, d in notes]

    def render(desc_room: int, notes: list[tuple[str, str, str]] = notes) -> str:
        parts = []
        for title, path, desc in notes:
            title = " ".join(title.split()).replace('"', "'")[:120]
            part = f'"{title}" ({_shown_path(path, 400 if folder else 200)})'
            desc = " ".join(desc.split()).replace('"', "'")
            if desc and desc_room > 0:
                if len(desc) > desc_room:
                    desc = desc[: max(desc_room - 3, 0)].rstrip() + "..."
                part += f' - "{desc}"'
            parts.append(part)
        return head + "; ".join(parts) + "."

    for room in (300, 200, 120, 60, 0):
        line = render(room)
        if len(line) <= limit:
            return line
    for keep in range(len(notes) - 1, 0, -1):
        line = render(0, notes[:keep])
        if len(line) <= limit:
            return line
    return line[: limit - 3] + "..."

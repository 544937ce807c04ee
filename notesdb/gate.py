"""The gate: candidates -> speak (naming up to three notes) or stay silent.

An eager tool is worse than none, so the gate speaks only through one of three routes:

1. ``strong``: the top note holds most of what the message is about (high coverage);
2. ``lead``: the top note is a clear winner, well ahead of the second;
3. ``rare``: the top note is *about* a rare word of the message: the word (after correction
   or prefix expansion) is rare in the vocabulary and sits in the note's title, description or
   headings, not only in passing in its body.

Anything else stays silent, with the reason. A note after the first is named only when it too
is about a rare word of the message that the notes named before it are not about.

Every threshold is a field of :class:`Settings`; the defaults were chosen with ``notesdb tune``
on the dev halves of the shared labelled sets (personal, tech, memory, til, chat) and can be
overridden in the ``[gate]`` table of the config file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any, Final

__all__ = ["Settings", "Decision", "judge", "format_line", "MAX_LINE_CHARS", "MAX_NOTES"]

#: The added line never exceeds this many characters.
MAX_LINE_CHARS: Final = 600
#: Notes named at most.
MAX_NOTES: Final = 3


@dataclass
class Settings:
    """Gate thresholds. Coverage is a share of the message's possible evidence (0..1);
    evidence is in IDF units (natural log); a lead is the ratio of the top note's evidence to
    the second's."""

    #: strong route: coverage at least this
    strong_coverage: float = 0.6
    #: lead route: coverage at least this, and top evidence at least ``lead_ratio`` x second
    lead_coverage: float = 0.35
    lead_ratio: float = 2.0
    #: rare route: coverage at least this
    rare_coverage: float = 0.25
    #: a word is rare when at most this share of notes holds it (or ``rare_min_df`` notes)
    rare_share: float = 0.02
    rare_min_df: int = 3
    #: a rare word reached by correction or expansion must weigh at least this much (0..1);
    #: an ambiguous correction (several words at the same edit distance) weighs less
    rare_min_weight: float = 0.5
    #: no route fires below this top evidence (in IDF units: about one rare word)
    min_evidence: float = 2.0
    #: extra notes: coverage at least this share of the top note's
    extra_share: float = 0.5

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> "Settings":
        """Settings from a mapping (the config file's ``[gate]`` table); unknown keys raise.

        :raises ValueError: an unknown key or a value that is not a number
        """
        known = {f.name: f.type for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise ValueError(f"unknown gate setting {key!r} (known: {', '.join(known)})")
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"gate setting {key!r} must be a number, not {value!r}")
            values[key] = int(value) if key == "rare_min_df" else float(value)
        return cls(**values)

    def rare_df(self, n_notes: int) -> int:
        """Highest document frequency that still counts as rare in an index of ``n_notes``."""
        return max(self.rare_min_df, int(self.rare_share * n_notes))


@dataclass
class Decision:
    """What notesdb says about one message."""

    spoken: bool
    notes: list[str] = field(default_factory=list)  # note paths, in order
    titles: list[str] = field(default_factory=list)
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


def _lead(top: Any, second: Any | None) -> float:
    if second is None or second.evidence <= 0:
        return math.inf
    return top.evidence / second.evidence


def _rare_about(cand: Any, settings: Settings, n_notes: int) -> list[Any]:
    limit = settings.rare_df(n_notes)
    return [
        h
        for h in cand.about
        if h.doc_freq <= limit and h.weight >= settings.rare_min_weight
    ]


def judge(ranking: Any, n_notes: int, settings: Settings) -> Decision:
    """Decide whether to speak about a ranking (``notesdb.rank.Ranking``).

    :param ranking: candidates best first, with evidence and coverage
    :param n_notes: notes in the index (for what counts as rare)
    :param settings: thresholds
    :returns: a :class:`Decision` whose ``route`` is ``strong``, ``lead`` or ``rare`` when it
        speaks, and otherwise the reason for silence: ``no-terms`` (nothing searchable),
        ``no-match`` (no note holds a word), ``weak`` (too little evidence), ``tie`` (no clear
        winner and no rare word)
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
        d.route = "no-terms"
        d.reasons.append("nothing searchable in the message")
        return d
    if not cands:
        d.route = "no-match"
        d.reasons.append("no note holds any word of the message")
        return d
    top = cands[0]
    second = cands[1] if len(cands) > 1 else None
    lead = _lead(top, second)
    rare = _rare_about(top, settings, n_notes)
    d.reasons.append(
        f"top {top.path}: evidence {top.evidence:.2f}, coverage {top.coverage:.2f}, "
        f"lead {lead:.2f}x over the second"
    )
    if rare:
        d.reasons.append(
            "about rare words: "
            + ", ".join(f"{h.word} (df {h.doc_freq}, in {h.place})" for h in rare)
        )
    if top.evidence < settings.min_evidence:
        d.route = "weak"
        d.reasons.append(f"evidence {top.evidence:.2f} < {settings.min_evidence}")
        return d
    if top.coverage >= settings.strong_coverage:
        d.route = "strong"
    elif top.coverage >= settings.lead_coverage and lead >= settings.lead_ratio:
        d.route = "lead"
    elif rare and top.coverage >= settings.rare_coverage:
        d.route = "rare"
    else:
        d.route = "tie" if lead < settings.lead_ratio and top.coverage >= settings.rare_coverage else "weak"
        d.reasons.append(
            f"no route: coverage {top.coverage:.2f} (strong needs {settings.strong_coverage}), "
            f"lead {lead:.2f} (needs {settings.lead_ratio} with coverage {settings.lead_coverage}), "
            + ("no rare word in its title, desc or headings" if not rare else f"rare needs coverage {settings.rare_coverage}")
        )
        return d
    named = [top]
    covered = {h.token for h in top.about}
    for c in cands[1:]:
        if len(named) >= MAX_NOTES:
            break
        if c.coverage < settings.extra_share * top.coverage:
            continue
        new = [h for h in _rare_about(c, settings, n_notes) if h.token not in covered]
        if new:
            named.append(c)
            covered |= {h.token for h in c.about}
            d.reasons.append(f"also {c.path}: about {', '.join(h.word for h in new)}")
    d.spoken = True
    d.notes = [c.path for c in named]
    d.titles = [c.title for c in named]
    d.line = format_line([(c.title, c.path, c.desc) for c in named])
    return d


def format_line(notes: list[tuple[str, str, str]], limit: int = MAX_LINE_CHARS) -> str:
    """The one plain line added to the assistant's context, at most ``limit`` characters.

    ``Notes that may cover this: "Title" (path) - description; "Title" (path).``
    Descriptions are shortened (then dropped) to fit; it is a statement, never an instruction.

    :param notes: ``(title, path, description)`` triples, in order
    """
    head = "Notes that may cover this: "

    def render(desc_room: int) -> str:
        parts = []
        for title, path, desc in notes:
            title = " ".join(title.split()).replace('"', "'")[:120]
            part = f'"{title}" ({path})'
            desc = " ".join(desc.split())
            if desc and desc_room > 0:
                if len(desc) > desc_room:
                    desc = desc[: max(desc_room - 3, 0)].rstrip() + "..."
                part += f" - {desc}"
            parts.append(part)
        return head + "; ".join(parts) + "."

    for room in (300, 200, 120, 60, 0):
        line = render(room)
        if len(line) <= limit:
            return line
    return line[: limit - 3] + "..."

"""Every judgement constant in one place: a :class:`Settings` the gate, the query and the
ranking read, that ``notesdb tune`` sweeps and the config file's ``[gate]`` table overrides.

Standard library only: the hook imports it on every message.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Final

__all__ = ["Settings", "SCORING"]


@dataclass
class Settings:
    """Every judgement constant: the gate's thresholds and the scoring weights behind them.

    Units: *evidence* is a sum of word weights (IDF in natural-log units from the vocabulary's
    document frequencies, times English specificity, times 1 for an exact word and less for a
    corrected or expanded one, times the place factor); *coverage* is the top note's share of
    the message's possible evidence (0..1); a *lead* is the ratio of the top note's evidence to
    the second note's. Defaults were chosen with ``notesdb tune`` on the dev halves of the
    shared labelled sets (personal, chat, tech, memory, til); README gives the figures.
    """

    #: strong route: this much evidence, from at least ``strong_words`` message words,
    #: covering at least ``strong_coverage`` of the message
    strong_evidence: float = 5.0
    strong_words: int = 2
    strong_coverage: float = 0.15
    #: lead route: ``lead_ratio`` times the second note's evidence, with at least
    #: ``lead_evidence`` evidence and ``lead_coverage`` coverage
    lead_ratio: float = 1.25
    lead_evidence: float = 4.0
    lead_coverage: float = 0.4
    lead_words: int = 2
    #: rare route: the note is about a message word (title, desc or headings) whose weight is
    #: at least ``rare_weight`` (a word in few notes and uncommon in English), and the note
    #: covers at least ``rare_coverage`` of the message
    rare_weight: float = 2.5
    rare_coverage: float = 0.5
    #: every route: the top note must lead the second by at least this ratio (a tie is a
    #: coin toss between notes, and a coin toss is not confidence)
    min_lead: float = 1.0
    #: a word counts as matched when it brings at least this much evidence
    word_evidence: float = 0.5
    #: extra notes: coverage at least this share of the top note's, and a rare word of the
    #: message in their title that the notes already named are not about
    extra_share: float = 0.85

    # --- scoring: how a message word's weight and a note's evidence are computed ------------
    # (``notesdb.query`` and ``notesdb.rank`` read these; ``tune`` ranks again for each value.)
    # The weights below were set by hand when each feature was written and checked only on
    # the shared labelled sets' figures (``notesdb eval``), never swept: they are fields so
    # that ``notesdb tune`` can sweep them.

    #: evidence weight of a word reached by a typo correction (exact words weigh 1.0), and of
    #: one that tied with others at the same edit distance (an ambiguous guess: half of it)
    corrected_weight: float = 0.7
    ambiguous_corrected_weight: float = 0.35
    #: evidence weight of the plural or singular form of a message word ("plug" -> "plugs")
    inflected_weight: float = 0.9
    #: evidence weight of a word reached by prefix expansion ("merc" -> "mercedes")
    prefix_weight: float = 0.7
    #: tokens more common in English than this Zipf frequency are not expanded as prefixes
    #: ("night" is not short for "nightly"; "jelly", 3.8, may be short for "jellyfin")
    prefix_max_zipf: float = 4.0
    #: tokens more common in English than this are never corrected: "gonna" (5.3) is a word the
    #: notes lack, not a typo; "silva" (3.8) may well be one for "silvia"
    correct_max_zipf: float = 4.0
    #: share of a word's weight earned when it sits only in a note's body, not in its title,
    #: description or headings (title 1, description and headings 2/3 follow bm25(3, 2, 2, 1));
    #: set by hand with the column weights and checked on the shared labelled sets
    body_place: float = 0.5
    #: weight of a message word in no note (that corrects or expands to nothing), relative to
    #: the IDF of a word found in no note: such words make the message about something else
    unknown_weight: float = 0.5
    #: folder size in whose IDF units evidence is measured (``rank.scaled_idf``): the size of
    #: the personal labelled set the thresholds were first tuned on (about 300 notes)
    reference_notes: int = 300
    #: weight of plain numbers and short tokens with digits (sizes, counts, dates in a log)
    number_weight: float = 0.3
    #: Zipf frequency at which an English word keeps half its weight, and how sharply the weight
    #: falls around it (``rank.specificity``): "right" (6.0) weighs little, "shield" (4.3) most
    english_midpoint: float = 4.8
    english_slope: float = 2.0

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> "Settings":
        """Settings from a mapping (the config file's ``[gate]`` table).

        :raises ValueError: an unknown key, a value that is not a finite number of zero or more,
            or a fraction for a setting that counts (``strong_words``, ...)
        """
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise ValueError(f"unknown gate setting {key!r} (known: {', '.join(sorted(known))})")
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"gate setting {key!r} must be a number, not {value!r}")
            if not _finite(value):
                raise ValueError(f"gate setting {key!r} must be a finite number, not {value!r}")
            if value < 0:
                raise ValueError(f"gate setting {key!r} must be zero or more, not {value!r}")
            if key in _WHOLE_NUMBERS and value != int(value):
                raise ValueError(f"gate setting {key!r} counts {_WHOLE_NUMBERS[key]}: a whole number, not {value!r}")
            values[key] = int(value) if key in _WHOLE_NUMBERS else float(value)
        return cls(**values)


def _finite(value: int | float) -> bool:
    """True for a number a float can hold (not inf, nan, or an integer beyond 1.8e308)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


#: Settings that change how candidates are scored (read by ``query`` and ``rank``); changing
#: one means ranking again, where the other fields only re-judge a ranking.
SCORING: Final = (
    "corrected_weight",
    "ambiguous_corrected_weight",
    "inflected_weight",
    "prefix_weight",
    "prefix_max_zipf",
    "correct_max_zipf",
    "body_place",
    "unknown_weight",
    "reference_notes",
    "number_weight",
    "english_midpoint",
    "english_slope",
)
#: Settings that are whole numbers, and what they count.
_WHOLE_NUMBERS: Final = {"strong_words": "words", "lead_words": "words", "reference_notes": "notes"}

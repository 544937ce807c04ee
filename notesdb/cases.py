"""Judging notesdb on labelled messages (the format of ``fixtures/FORMAT.md``).

A cases file is JSON Lines: ``{"id", "message", "expect": [paths], "kind"}``. A case whose
``expect`` is not empty is *covered*: a *hit* when notesdb speaks and its first note is
expected, *wrong* when the first note is not, *missed* when it stays silent. A case with an
empty ``expect`` is *uncovered*: *silent* (right) or a *false alarm*.

- precision = named notes that are expected / all named notes (every note named counts)
- hit rate = hits / covered cases
- silence rate = silent / uncovered cases

``stretch-*`` kinds (meaning-only matches) are reported apart and left out of the headline.
Every case goes through :func:`notesdb.decide.decide`, the same judgement as the hook.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from notesdb.errors import CasesFileError
from notesdb.gate import Decision, Settings

__all__ = ["Case", "Outcome", "load_cases", "outcome", "score", "evaluate"]


@dataclass(frozen=True)
class Case:
    """One labelled message."""

    id: str
    message: str
    expect: tuple[str, ...]
    kind: str = ""

    @property
    def covered(self) -> bool:
        """True when some note is a right answer."""
        return bool(self.expect)

    @property
    def stretch(self) -> bool:
        """True for ``stretch-*`` kinds, reported apart."""
        return self.kind.startswith("stretch")


@dataclass
class Outcome:
    """How one case went."""

    case: Case
    named: list[str]
    route: str
    result: str  # hit, wrong, missed, silent, false_alarm


def load_cases(path: str | Path) -> list[Case]:
    """Read a cases file.

    :raises CasesFileError: the file cannot be read, holds no case, or a line is not a valid
        case (the message names the line number)
    """
    p = Path(path)
    try:
        if p.exists() and not p.is_file():  # a fifo or a device would hang or fill memory
            raise CasesFileError(f"cases file is not a regular file: {p}")
        text = p.read_text(encoding="utf-8-sig")  # a byte order mark, as an editor on Windows writes it
    except FileNotFoundError:
        raise CasesFileError(f"cases file not found: {p}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CasesFileError(f"cases file cannot be read: {p} ({e})") from None
    cases: list[Case] = []
    seen: set[str] = set()
    for n, line in enumerate(text.split("\n"), 1):  # JSON Lines: \n only, never U+2028 or \f
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise CasesFileError(f"{p}:{n}: not valid JSON ({e.args[0]})") from None
        except RecursionError:  # Python's parser recurses once per [ or {
            raise CasesFileError(f"{p}:{n}: not valid JSON (nested too deeply)") from None
        if not isinstance(obj, dict):
            raise CasesFileError(f"{p}:{n}: a case must be a JSON object")
        cid, message, expect = obj.get("id"), obj.get("message"), obj.get("expect")
        if not isinstance(cid, (str, int)) or str(cid) == "":
            raise CasesFileError(f"{p}:{n}: missing 'id'")
        if not isinstance(message, str):
            raise CasesFileError(f"{p}:{n}: 'message' must be a string")
        if not isinstance(expect, list) or not all(isinstance(e, str) for e in expect):
            raise CasesFileError(f"{p}:{n}: 'expect' must be a list of note paths")
        kind = obj.get("kind", "")
        for field_name, value in (("id", str(cid)), ("message", message), ("kind", kind), *(("expect", e) for e in expect)):
            if isinstance(value, str) and not _is_text(value):  # "\ud800": no character, and no
                # terminal or file can show it
                raise CasesFileError(f"{p}:{n}: '{field_name}' holds a lone surrogate escape (such as \\ud800), not text")
        if str(cid) in seen:
            raise CasesFileError(f"{p}:{n}: duplicate id {cid!r}")
        seen.add(str(cid))
        cases.append(Case(str(cid), message, tuple(expect), kind if isinstance(kind, str) else ""))
    if not cases:
        raise CasesFileError(f"{p}: no cases (one JSON object a line: id, message, expect, kind)")
    return cases


def _is_text(value: str) -> bool:
    """False for a string holding a lone surrogate (JSON's "\ud800"), which UTF-8 cannot hold."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def outcome(case: Case, named: list[str], route: str) -> Outcome:
    """Classify one case by the notes named (empty when silent)."""
    if case.covered:
        if not named:
            result = "missed"
        elif named[0] in case.expect:
            result = "hit"
        else:
            result = "wrong"
    else:
        result = "false_alarm" if named else "silent"
    return Outcome(case, list(named), route, result)


def score(outcomes: list[Outcome]) -> dict[str, Any]:
    """The summary of FORMAT.md: counts, precision, hit rate, silence rate, by kind, stretch.

    Rates of an empty denominator are reported as ``None``.
    """
    head = [o for o in outcomes if not o.case.stretch]
    stretch = [o for o in outcomes if o.case.stretch]
    count = lambda rs, r: sum(1 for o in rs if o.result == r)  # noqa: E731
    covered = [o for o in head if o.case.covered]
    uncovered = [o for o in head if not o.case.covered]
    named = sum(len(o.named) for o in head)
    right_named = sum(1 for o in head for p in o.named if p in o.case.expect)
    by_kind: dict[str, dict[str, int]] = {}
    for o in outcomes:
        k = by_kind.setdefault(o.case.kind or "-", {"cases": 0, "right": 0})
        k["cases"] += 1
        k["right"] += o.result in ("hit", "silent")

    def rate(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None

    return {
        "cases": len(head),
        "covered": len(covered),
        "uncovered": len(uncovered),
        "hits": count(head, "hit"),
        "wrong": count(head, "wrong"),
        "missed": count(head, "missed"),
        "silent": count(head, "silent"),
        "false_alarms": count(head, "false_alarm"),
        "named": named,
        "hit_rate": rate(count(head, "hit"), len(covered)),
        "precision": rate(right_named, named),
        "silence_rate": rate(count(head, "silent"), len(uncovered)),
        "by_kind": dict(sorted(by_kind.items())),
        "stretch": {"cases": len(stretch), "hits": count(stretch, "hit")},
    }


def evaluate(
    conn: sqlite3.Connection,
    cases: list[Case],
    settings: Settings,
    decide_fn: Callable[[sqlite3.Connection, str, Settings], Decision] | None = None,
) -> tuple[dict[str, Any], list[Outcome]]:
    """Run every case through the hook's judgement and score the set.

    :returns: (summary as from :func:`score` plus ``failures`` and ``not_indexed``, the
        expected paths that are no note of the index: a typo in the cases, a note moved, or one
        that ``[index] skip`` leaves out; such a case can never be a hit), the outcomes)
    """
    if decide_fn is None:
        from notesdb.decide import decide

        decide_fn = decide
    outcomes = []
    for case in cases:
        d = decide_fn(conn, case.message, settings)
        outcomes.append(outcome(case, d.notes if d.spoken else [], d.route))
    summary = score(outcomes)
    summary["failures"] = [
        {
            "id": o.case.id,
            "kind": o.case.kind,
            "result": o.result,
            "message": o.case.message[:200],
            "named": o.named,
            "expected": list(o.case.expect),
            "route": o.route,
        }
        for o in outcomes
        if o.result not in ("hit", "silent")
    ]
    indexed = {row[0] for row in conn.execute("SELECT path FROM notes")}
    summary["not_indexed"] = sorted({p for c in cases for p in c.expect if p not in indexed})
    return summary, outcomes

"""A label-free false-alarm meter: how often the gate would speak on messages about no one's notes.

The package ships ``data/generic_messages.jsonl``: 510 messages of the kind people send an
assistant that no notes folder covers (chit-chat, general questions, coding and shell requests,
writing, maths, planning; see the README beside it). Every one the gate speaks on in a folder
is a false alarm there, so the share it speaks on estimates the folder's false-alarm rate
without any label. ``notesdb index`` measures it and stores it in the ``meta`` table
(:data:`META_KEY`); ``doctor`` and ``eval`` show it and warn above :data:`WARN_SHARE`; ``tune
--generic`` uses the messages as uncovered cases, so a folder with no labels can still be
tuned for silence.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import asdict, dataclass
from importlib.resources import files
from typing import Any, Final

from notesdb.settings import Settings

__all__ = [
    "META_KEY", "BASIS_KEY", "WARN_SHARE", "SAMPLE", "BUDGET_S", "Reading", "generic_messages", "measure",
    "store", "stored", "still_valid", "current",
]

#: Key of the stored reading in the ``meta`` table (a JSON object, :class:`Reading`).
META_KEY: Final = "false_alarm_meter"
#: Key of what the stored reading was measured with (:func:`basis`): the gate's settings and
#: the notesdb version (which fixes the generic messages and the code that judges them).
BASIS_KEY: Final = "false_alarm_meter_basis"
#: Above this share of generic messages spoken on, ``doctor`` and ``eval`` warn: the silence
#: targets on the labelled sets are 0.97 to 0.99, so more than 3% of messages about nothing in
#: the notes drawing a line is more noise than the gate is meant to make.
WARN_SHARE: Final = 0.03
#: Messages measured at most: every one up to this; a larger corpus is sampled evenly. 510
#: messages take about a second on a folder of 300 notes; the share held within +-0.03 on 500
#: messages kept apart from those it was measured on.
SAMPLE: Final = 510
#: Seconds ``measure`` spends at most: the messages are taken in an interleaved order (every
#: tenth, then the next tenth, ...) so that the ones measured before the budget runs out are
#: an even sample of every kind. Measured: 510 messages take 0.8-1.2 s on folders of 3-300
#: notes, 4.7 s on 2,448 and 9.7 s on 7,219 (2 busy cores), so a big folder is sampled.
BUDGET_S: Final = 2.0


@dataclass
class Reading:
    """One measurement: ``spoken`` of ``messages`` generic messages drew a line."""

    share: float  # spoken / messages, 0..1
    spoken: int
    messages: int
    notes: int  # notes in the index when measured
    elapsed_ms: float
    examples: list[str]  # up to 5 messages it spoke on, for doctor's detail

    @property
    def warn(self) -> bool:
        """True above :data:`WARN_SHARE`."""
        return self.share > WARN_SHARE


def generic_messages(limit: int = SAMPLE) -> list[dict[str, str]]:
    """The bundled generic messages (``id``, ``kind``, ``text``), at most ``limit``, evenly sampled.

    :raises OSError: the package data is missing (a broken install)
    """
    path = files("notesdb") / "data" / "generic_messages.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if len(rows) <= limit:
        return rows
    step = len(rows) / limit
    return [rows[int(i * step)] for i in range(limit)]


def measure(
    conn: sqlite3.Connection, settings: Settings | None = None, limit: int = SAMPLE, budget_s: float = BUDGET_S
) -> Reading:
    """Run the generic messages through the gate against the notes in ``conn``.

    :param settings: the gate's settings (the config file's); defaults when None
    :param budget_s: stop after this many seconds (at least 50 messages are always measured)
    :returns: the share spoken on and what it cost
    """
    from notesdb.decide import decide

    s = settings or Settings()
    t0 = time.perf_counter()
    rows = generic_messages(limit)
    order = [j for start in range(10) for j in range(start, len(rows), 10)]
    msgs: list[dict[str, str]] = []
    spoke: list[str] = []
    for j in order:
        if len(msgs) >= 50 and time.perf_counter() - t0 > budget_s:
            break
        m = rows[j]
        msgs.append(m)
        if decide(conn, m["text"], s).spoken:
            spoke.append(m["text"])
    n = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    ms = (time.perf_counter() - t0) * 1000
    share = len(spoke) / len(msgs) if msgs else 0.0
    return Reading(round(share, 4), len(spoke), len(msgs), n, round(ms, 1), [m[:80] for m in spoke[:5]])


def basis(settings: Settings | None = None) -> str:
    """What a reading depends on besides the notes: the gate's settings and the notesdb version,
    as one JSON string (keys sorted, so equal settings give equal strings)."""
    from notesdb import __version__

    return json.dumps({"settings": asdict(settings or Settings()), "version": __version__}, sort_keys=True)


def store(conn: sqlite3.Connection, reading: Reading, settings: Settings | None = None) -> None:
    """Save a reading in the ``meta`` table (replacing the last one), with its :func:`basis`.

    :param settings: the settings it was measured with; defaults when None
    """
    for key, value in ((META_KEY, json.dumps(asdict(reading))), (BASIS_KEY, basis(settings))):
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


def still_valid(conn: sqlite3.Connection, settings: Settings | None = None) -> Reading | None:
    """The stored reading when measuring again would give the same one, else None.

    Call it only when no note changed since the reading (``notesdb index`` found nothing to do):
    then the reading holds when it was taken on as many notes as the index has now, with the
    same settings and the same notesdb version (:func:`basis`). Saves ``index`` the 0.3-10 s
    of :func:`measure` on a folder that did not change.
    """
    reading = stored(conn)
    if reading is None:
        return None
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (BASIS_KEY,)).fetchone()
    n = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    if row is None or row[0] != basis(settings) or reading.notes != n:
        return None
    return reading


def current(
    conn: sqlite3.Connection, settings: Settings | None = None, if_missing: bool = True
) -> tuple[Reading | None, bool]:
    """The reading for the gate's settings now: the stored one when it was measured with the
    same settings, notesdb version and number of notes (:func:`still_valid`), else a new one,
    measured now (0.3-2 s, :func:`measure`) and stored in its place. ``eval`` and ``doctor``
    show this one: after the config file changes (``tune --write``), the stored reading is
    that of settings no longer in use.

    :param if_missing: also measure when no reading is stored (False: None is returned then,
        as ``doctor`` does, which says "run 'notesdb index'")
    :returns: ``(reading, measured_now)``
    """
    reading = still_valid(conn, settings)
    if reading is not None:
        return reading, False
    if not if_missing and stored(conn) is None:
        return None, False
    reading = measure(conn, settings)
    try:
        store(conn, reading, settings)
        conn.commit()
    except sqlite3.OperationalError:  # a read-only or full database: shown, not kept
        conn.rollback()
    return reading, True


def stored(conn: sqlite3.Connection) -> Reading | None:
    """The last stored reading, or None when the folder was never measured."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    except sqlite3.Error:
        return None
    if not row:
        return None
    try:
        data: dict[str, Any] = json.loads(row[0])
        return Reading(**data)
    except (ValueError, TypeError):
        return None

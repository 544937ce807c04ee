"""Review of the decisions log: replay logged messages with today's notes and settings, and
label logged decisions right, wrong or missed to export them as a cases file (``notesdb.cases``).
"""

from __future__ import annotations

import json
import os
import posixpath
import sqlite3
import stat as statmod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from notesdb.cases import Case
from notesdb.errors import NotesdbError
from notesdb.gate import NEVER_JUDGED, SPOKEN, Route, Settings

__all__ = [
    "Replayed",
    "replay",
    "replay_summary",
    "is_blank",
    "VERDICTS",
    "set_label",
    "unlabelled",
    "labels_jsonl",
    "export_labels",
]


@dataclass
class Replayed:
    """One logged decision, re-decided with the current notes and settings.

    ``before`` and ``after`` are ``{"spoken": bool, "notes": [paths], "route": str}``.
    """

    id: int
    time: str
    prompt: str
    before: dict[str, Any]
    after: dict[str, Any]

    @property
    def changed(self) -> bool:
        """True when what the assistant is shown differs: speaking or not, or the notes named."""
        b, a = self.before, self.after
        return (b["spoken"], b["notes"]) != (a["spoken"], a["notes"])

    @property
    def route_changed(self) -> bool:
        """True when the route (or the reason for silence) differs."""
        return self.before["route"] != self.after["route"]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: id, time, prompt, before, after, changed, route_changed."""
        return {
            "id": self.id,
            "time": self.time,
            "prompt": self.prompt,
            "before": self.before,
            "after": self.after,
            "changed": self.changed,
            "route_changed": self.route_changed,
        }


def _session_start(when: str) -> str:
    """The earliest time, in the log's format, of a decision the hook reads back for a message
    logged at ``when``: ``conversation.SESSION_HOURS`` before it (``""``: any time, when
    ``when`` cannot be read)."""
    from datetime import datetime, timedelta, timezone

    from notesdb.conversation import SESSION_HOURS

    try:
        t = datetime.fromisoformat(when.replace("Z", "+00:00"))
    except ValueError:
        return ""
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    since = t.astimezone(timezone.utc) - timedelta(hours=SESSION_HOURS)
    return since.strftime("%Y-%m-%dT%H:%M:%S.000+00:00")


def replay(conn: sqlite3.Connection, settings: Settings, limit: int | None = None) -> list[Replayed]:
    """Re-decide the logged messages (decisions whose prompt was stored) with today's index.

    Each prompt goes through :func:`notesdb.decide.decide`, the hook's judgement, in the same
    conversation as the hook judged it: the notes named earlier in its ``session_id`` (within
    ``conversation.SESSION_HOURS`` before it) are held back as the hook holds them back
    (:func:`notesdb.conversation.hold_back`, route ``said-before``), and the notes its message
    attached itself, as the log keeps them (``decisions.attached``), are held back
    (:func:`notesdb.mentions.hold_back_mentioned`, route ``in-message``). The messages are replayed
    oldest first, and each one's notes count as named by what it says when replayed; an earlier
    message of the conversation that is not replayed (its prompt was not stored, or it lies
    before the ``limit`` newest) counts with the notes it was logged with. So unchanged notes and
    settings give no change. A prompt the hook stored shortened is replayed as stored. A decision
    logged silent only because its answer could not be delivered (a spoken route, ``spoken`` 0)
    is compared as judged, speaking with its notes, and counts as telling the assistant nothing.

    :param conn: an open notesdb database, synced with the notes if fresh answers are wanted
    :param settings: the gate settings to judge with
    :param limit: replay only the newest ``limit`` decisions; None for all
    :returns: one :class:`Replayed` per decision, newest first
    """
    from notesdb.conversation import ATTACHED, attached_in, hold_back, named_in
    from notesdb.decide import decide
    from notesdb.mentions import hold_back_mentioned

    sql = (
        "SELECT id, time, prompt, spoken, notes, route, session_id, attached FROM decisions "
        "WHERE prompt IS NOT NULL ORDER BY id DESC"
    )
    params: tuple[Any, ...] = ()
    if limit is not None:
        sql += " LIMIT ?"
        params = (limit,)
    rows = conn.execute(sql, params).fetchall()[::-1]  # oldest first
    replayed = {r[0] for r in rows}
    sessions = {r[6] for r in rows if r[6]}
    # (time, notes named with their evidence) of each earlier decision of those conversations
    # that is not replayed: what the assistant was shown then
    said: dict[str, list[tuple[int, str, dict[str, float]]]] = {}
    if sessions and rows:
        for did, when, sid, spoke, notes_json, scores_json, attached_json in conn.execute(
            "SELECT id, time, session_id, spoken, notes, top_scores, attached FROM decisions "
            "WHERE (spoken = 1 OR attached != '[]') AND session_id != '' AND id < ? ORDER BY id",
            (rows[-1][0],),
        ):
            if sid in sessions and did not in replayed:
                named = named_in(notes_json, scores_json) if spoke else {}
                named.update(dict.fromkeys(attached_in(attached_json), ATTACHED))
                said.setdefault(sid, []).append((did, when, named))
    out = []
    for did, when, prompt, spoken, notes, route, sid, attached_json in rows:
        d = decide(conn, prompt, settings)
        # the notes its message attached, as the hook resolved them then
        attached = attached_in(attached_json)
        if sid and d.spoken:
            since = _session_start(when)
            before_now: dict[str, float] = {}
            for other, at, named in said.get(sid, []):
                if other < did and at >= since:
                    for path, evidence in named.items():
                        if evidence == ATTACHED or before_now.get(path) == ATTACHED:
                            before_now[path] = ATTACHED
                        else:
                            before_now[path] = max(before_now.get(path, 0.0), evidence)
            hold_back(d, before_now, settings)
        hold_back_mentioned(d, attached)
        # judged to speak but never shown (the client had closed the hook's stdout): the
        # judgement is compared, and the assistant was told nothing for the hold-back
        undelivered = not spoken and route in SPOKEN
        if sid and d.spoken and not undelivered:
            scores = {x["path"]: float(x["evidence"]) for x in d.top_scores}
            said.setdefault(sid, []).append((did, when, {p: scores.get(p, 0.0) for p in d.notes}))
        if sid and attached:
            said.setdefault(sid, []).append((did, when, dict.fromkeys(attached, ATTACHED)))
        judged = bool(spoken) or undelivered
        before = {"spoken": judged, "notes": json.loads(notes or "[]") if judged else [], "route": route}
        after = {"spoken": d.spoken, "notes": list(d.notes) if d.spoken else [], "route": d.route}
        out.append(Replayed(int(did), when, prompt, before, after))
    return out[::-1]


def not_replayed(conn: sqlite3.Connection, rows: list[Replayed]) -> int:
    """How many logged decisions :func:`replay` could not judge again because their prompt was
    not stored (``[log] prompts = false``, ``--no-log``): all of them, or, when ``rows`` is the
    newest part of the log (``limit``), those as new as its oldest."""
    oldest = min((r.id for r in rows), default=0)
    return int(conn.execute("SELECT count(*) FROM decisions WHERE prompt IS NULL AND id >= ?", (oldest,)).fetchone()[0])


def replay_summary(rows: list[Replayed]) -> dict[str, int]:
    """Counts for :func:`replay`: ``replayed``, ``changed``, ``unchanged`` and ``route_only``
    (unchanged answers whose route or silence reason differs; part of ``unchanged``)."""
    changed = sum(r.changed for r in rows)
    return {
        "replayed": len(rows),
        "changed": changed,
        "unchanged": len(rows) - changed,
        "route_only": sum(1 for r in rows if not r.changed and r.route_changed),
    }


#: Verdicts for a logged decision: ``right`` (what it did was right), ``wrong`` (it named a
#: note it should not have: the note that should have come, or silence), ``missed`` (it was
#: silent but a note covers the message).
VERDICTS = ("right", "wrong", "missed")


def _decision_row(conn: sqlite3.Connection, decision_id: int) -> dict[str, Any]:
    cur = conn.execute(
        "SELECT id, time, prompt, spoken, notes, route, label, label_note, top_scores FROM decisions WHERE id = ?",
        (decision_id,),
    )
    row = cur.fetchone()
    if row is None:
        raise NotesdbError(f"no logged decision #{decision_id} (see 'notesdb label list')")
    item = dict(zip([c[0] for c in cur.description], row))
    item["spoken"] = bool(item["spoken"])
    item["notes"] = json.loads(item["notes"] or "[]") if item["spoken"] else []
    item["held_why"] = HELD_WHY.get(item["route"], "")
    try:
        scores = json.loads(item.pop("top_scores") or "[]")
        item["held_back"] = (
            [str(scores[0]["path"])] if item["held_why"] and scores and isinstance(scores[0], dict) else []
        )
    except (ValueError, TypeError, KeyError):
        item["held_back"] = []
    return item


#: Why a decision silent only for a hold-back stayed silent, by its route: its top note was in
#: the assistant's context already (``notesdb.conversation``, ``notesdb.mentions``).
HELD_WHY: Final = {Route.SAID: "named earlier in its conversation", Route.MENTIONED: "attached by the message itself"}


def _close_paths(path: str, paths: list[str]) -> list[str]:
    """Up to 3 indexed ``paths`` spelled like ``path``, best first: difflib's ratio at least 0.6
    (difflib's default cutoff, as for config names in :mod:`notesdb.config`), compared without
    the file extension, which nearly every note shares and which alone brings two unrelated
    names near the cutoff ("nonexist.md" and "home/woodstove.md" score 0.5)."""
    import difflib

    def bare(p: str) -> str:
        return posixpath.splitext(p)[0]

    by_bare: dict[str, str] = {}
    for p in paths:
        by_bare.setdefault(bare(p), p)
    return [by_bare[c] for c in difflib.get_close_matches(bare(path), list(by_bare), n=3, cutoff=0.6)]


def _check_note(conn: sqlite3.Connection, note: str, notes_folder: Path | None = None) -> str:
    """The index's path of the note ``note`` names (see :func:`set_label`).

    :raises NotesdbError: it names no indexed note (with close indexed paths as suggestions)
    """
    from notesdb.notepath import index_path

    given = note  # as given: a file may be named " a.md", or hold a backslash
    try:
        given.encode("utf-8")
    except UnicodeEncodeError:
        raise NotesdbError(f"no note {given!r} in the index: the path is not valid UTF-8") from None
    roots: list[Path | str] = []
    row = conn.execute("SELECT value FROM meta WHERE key = 'notes_root'").fetchone()
    if row and row[0]:
        roots.append(row[0])  # the folder the hook's line named notes under
    if notes_folder is not None:
        roots += [notes_folder.resolve(), notes_folder.absolute()]
    how = "give its path relative to the notes folder, or its absolute path inside it"
    path = index_path(given if os.sep == "/" else given.replace("\\", "/"), roots)
    if path is None:
        raise NotesdbError(f"no note {given!r} in the notes folder: {how}")
    if conn.execute("SELECT 1 FROM notes WHERE path = ?", (path,)).fetchone():
        return path
    close = _close_paths(path, [r[0] for r in conn.execute("SELECT path FROM notes")])
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise NotesdbError(f"no note {path!r} in the index: {how}{hint}")


def set_label(
    conn: sqlite3.Connection, decision_id: int, verdict: str, note: str | None = None,
    notes_folder: Path | None = None,
) -> dict[str, Any]:
    """Mark a logged decision right, wrong or missed (a new label replaces an old one).

    - ``right``: what it did was right (the first note named, or its silence); no ``note``.
    - ``wrong``: it spoke and should not have named that note: ``note`` is the note that
      should have come first, or None / ``""`` when it should have stayed silent.
    - ``missed``: it stayed silent and ``note`` covers the message (required).

    :param decision_id: the ``decisions.id`` (as shown by ``notesdb log`` / ``label list``)
    :param verdict: one of :data:`VERDICTS`
    :param note: a note's path relative to the notes folder, as in the index (``./`` and
        doubled slashes allowed), or its absolute path inside the folder, as the hook's line
        shows it (:func:`notesdb.notepath.index_path`); stored relative
    :param notes_folder: the notes folder, when known; the folder the database was last synced
        with (``meta.notes_root``) is used too
    :returns: the decision as a dict (``id``, ``time``, ``prompt``, ``spoken``, ``notes``,
        ``route``, ``label``, ``label_note``) after labelling
    :raises NotesdbError: an unknown verdict or decision, a decision whose prompt was not
        logged, was empty or was not usable, or that was never judged, a note not in the index, or a verdict that does not fit the decision
        (``wrong`` on a silent one, ``missed`` on a spoken one, ``right`` with a note)
    """
    if verdict not in VERDICTS:
        raise NotesdbError(f"verdict must be one of {', '.join(VERDICTS)}, not {verdict!r}")
    row = _decision_row(conn, decision_id)
    if row["route"] == Route.BAD_INPUT or (row["prompt"] is not None and is_blank(row["prompt"])):
        held = "no usable prompt" if row["route"] == Route.BAD_INPUT else "an empty prompt"
        raise NotesdbError(
            f"decision #{decision_id} has no message to judge (the hook's event held {held}), so there is nothing to label"
        )
    if row["prompt"] is None:
        raise NotesdbError(f"decision #{decision_id} has no logged message, so it cannot be labelled")
    if row["route"] in NEVER_JUDGED:  # a label would have nothing to say
        what = "a Claude Code command" if row["route"] == Route.SLASH_COMMAND else "text the client wrote"
        raise NotesdbError(
            f"decision #{decision_id} was not judged: {row['prompt'][:60]!r} is {what}, "
            "not a message, so there is nothing to label"
        )
    note = note if note and note.strip() else ""
    if verdict == "right":
        if note:
            raise NotesdbError("'right' takes no --note: it says the decision was right as it was")
    elif verdict == "wrong":
        if not row["spoken"]:
            raise NotesdbError(
                f"decision #{decision_id} was silent: label it 'missed --note PATH' if a note covers it"
            )
        if note:
            note = _check_note(conn, note, notes_folder)
            if row["notes"] and note == row["notes"][0]:
                raise NotesdbError(f"{note} is the note it named first: label it 'right' instead")
    else:
        if row["spoken"]:
            raise NotesdbError(
                f"decision #{decision_id} spoke: label it 'wrong --note PATH' if another note should have come"
            )
        if not note:
            raise NotesdbError("'missed' needs --note PATH: the note that covers the message")
        note = _check_note(conn, note, notes_folder)
    conn.execute("UPDATE decisions SET label = ?, label_note = ? WHERE id = ?", (verdict, note, decision_id))
    return _decision_row(conn, decision_id)


#: What a blank prompt is made of: ASCII white space (also given to SQLite's ``trim(X, Y)``).
BLANK: Final = " \t\n\v\f\r"


def is_blank(prompt: str) -> bool:
    """True for a prompt of white space only (:data:`BLANK`): nothing to judge, nothing to label."""
    return not prompt.strip(BLANK)


#: Routes of decisions that cannot be labelled: never judged, or no usable prompt in the event.
_UNLABELLABLE = (*sorted(NEVER_JUDGED), Route.BAD_INPUT)
#: The decisions a label can be set on: a logged, non-empty message of a judged route.
_LABELLABLE = f"prompt IS NOT NULL AND trim(prompt, ?) != '' AND route NOT IN ({', '.join('?' * len(_UNLABELLABLE))})"
#: Its parameters: what a blank prompt is made of, the routes.
_LABELLABLE_ARGS = (BLANK, *_UNLABELLABLE)


def unlabelled(conn: sqlite3.Connection, limit: int = 20) -> list[dict[str, Any]]:
    """The newest logged decisions with a message and no label, newest first.

    :returns: dicts with ``id``, ``time``, ``prompt``, ``spoken``, ``notes`` (list), ``route``,
        ``label``, ``label_note``
    """
    ids = [
        r[0]
        for r in conn.execute(
            f"SELECT id FROM decisions WHERE {_LABELLABLE} AND label = '' ORDER BY id DESC LIMIT ?",
            (*_LABELLABLE_ARGS, limit),
        )
    ]
    return [_decision_row(conn, i) for i in ids]


def _labelled(conn: sqlite3.Connection) -> list[tuple[Case, str]]:
    ids = [
        r[0]
        for r in conn.execute(
            f"SELECT id FROM decisions WHERE {_LABELLABLE} AND label != '' ORDER BY id",
            _LABELLABLE_ARGS,
        )
    ]
    out = []
    for i in ids:
        row = _decision_row(conn, i)
        label, note, named = row["label"], row["label_note"], row["notes"]
        said = f"named {named[0]}" if row["spoken"] and named else "silent"
        if row["held_back"]:  # silent only because the assistant had the note already
            said = f"held back {row['held_back'][0]}, {row['held_why']}"
        if label == "right":
            # a case is one message judged alone: a note held back in its conversation is the
            # note that message names, and was right to be about
            expect = [named[0]] if row["spoken"] and named else list(row["held_back"])
        elif label == "wrong":
            expect = [note] if note else []
        elif label == "missed":
            expect = [note] if note else []
        else:
            continue
        why = f"logged decision #{i} at {row['time'][:19]}: {said}, labelled {label}"
        kind = "hit" if expect else "quiet-uncovered"
        out.append((Case(f"log/{i}", row["prompt"], tuple(expect), kind), why))
    return out


def labels_jsonl(conn: sqlite3.Connection) -> tuple[str, list[Case]]:
    """The labelled decisions as the text of a cases file (FORMAT.md), and the cases."""
    pairs = _labelled(conn)
    lines = [
        json.dumps(
            {"id": c.id, "message": c.message, "expect": list(c.expect), "kind": c.kind, "why": why},
            ensure_ascii=False,
        )
        for c, why in pairs
    ]
    return "".join(line + "\n" for line in lines), [c for c, _ in pairs]



def refuse_export_target(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse to write a cases file over the database of ``conn`` or one of its side files
    (compared by resolved path and by device and inode, so through symlinks and hard links too),
    or over anything that exists and is not a regular file (a device, a pipe, a socket, a folder):
    the file is written beside and renamed over its target, which would replace them.

    :raises NotesdbError: the target is one of those
    """
    try:
        st = path.stat()  # follows a symlink to what it names
    except OSError:
        st = None
    if st is not None and not statmod.S_ISREG(st.st_mode):
        raise NotesdbError(f"{path} is not a regular file: a cases file is written only as a regular file")
    row = next((r for r in conn.execute("PRAGMA database_list") if r[1] == "main"), None)
    if row is None or not row[2]:
        return
    target = path.expanduser().resolve()
    database = Path(row[2])
    # SQLite's files, and notesdb's own beside them: the sync lock and the hook's error log
    from notesdb.db import SQLITE_SIDE_SUFFIXES

    beside = [database.with_name(database.name + suffix) for suffix in ("", *SQLITE_SIDE_SUFFIXES, ".lock")]
    if target.name.startswith(database.name + ".damaged-"):  # a copy kept on purpose, never replaced
        raise NotesdbError(f"{path} is a copy of the database moved aside and kept: choose another file for the cases")
    for side in beside + [database.with_name("hook-errors.jsonl")]:
        same = target == side.resolve()
        if not same and st is not None:
            try:
                sst = side.stat()
                same = (sst.st_dev, sst.st_ino) == (st.st_dev, st.st_ino)
            except OSError:
                pass
        if same:
            raise NotesdbError(f"{path} is a file of the database in use ({side}): choose another file for the cases")


def export_labels(conn: sqlite3.Connection, path: str | os.PathLike[str]) -> list[Case]:
    """Write the labelled decisions to a cases file (replacing it) that :func:`load_cases` reads.
    The file is readable by its owner only (0600): it holds logged messages.

    :returns: the cases written
    :raises NotesdbError: the file cannot be written, or is the database of ``conn``, one of
        its side files, or not a regular file (:func:`refuse_export_target`)
    """
    from notesdb.log import write_private

    text, cases = labels_jsonl(conn)
    p = Path(path)
    refuse_export_target(conn, p)
    try:  # it holds logged messages: owner-only, like the database
        write_private(p, text)
    except OSError as e:
        raise NotesdbError(f"cannot write {p}: {e.strerror or e}") from None
    return cases

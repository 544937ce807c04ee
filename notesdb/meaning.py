"""Matching by meaning: a second opinion on the lexical decision from a local embedding model.

Two rules, each a field of :class:`notesdb.settings.Settings` (sources there and in README's
"Matching by meaning"):

- the **meaning route**: when the lexical gate is silent, name the note nearest the message
  (best cosine over the note's parts, :mod:`notesdb.vectors`) when its cosine is at least
  ``meaning_cosine`` and leads the second note's by at least ``meaning_margin``;
- the **veto**: when the lexical gate names a note whose cosine with the message is below
  ``meaning_veto``, stay silent instead.

Everything else is the lexical judgement, unchanged. A note without a current vector is
unknown to meaning: it is never named by the route nor vetoed.

Only a process that loaded the model uses it: the resident ``notesdb mcp`` process
(:func:`start_background`), and ``notesdb check``/``eval`` when the config says
``[meaning] enabled = true``. They :func:`install` a :class:`Meaning` as
``notesdb.decide.second_opinion``; the command hook never imports this module. When the model
cannot be loaded or the vectors cannot be read, the decision is the lexical one, with the
problem in its ``error`` (logged with the decision).

Needs the ``meaning`` extra (onnxruntime, tokenizers, numpy).
"""

from __future__ import annotations

import sqlite3
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from notesdb.embed import Model
    from notesdb.gate import Decision
    from notesdb.settings import Settings
    from notesdb.vectors import NoteVectors

__all__ = ["ROUTE", "VETO", "Nearest", "Meaning", "apply", "install", "uninstall", "available", "start_background", "for_command"]

#: The route of a decision spoken by meaning, and of one meaning vetoed.
ROUTE: Final = "meaning"
VETO: Final = "meaning-veto"
#: Seconds between two looks for notes to embed in the resident process (a note changed or
#: added is embedded within about this time after a message synced it).
REFRESH_EVERY_S: Final = 30.0


def available() -> bool:
    """True when the ``meaning`` extra (onnxruntime, tokenizers, numpy) is installed."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("onnxruntime", "tokenizers", "numpy"))


@dataclass
class Nearest:
    """How near a message is to the notes: the nearest note, its cosine and the second note's,
    and the cosine of each note asked about (``None``: that note has no current vector)."""

    top: str | None = None
    top_cos: float = -1.0
    second_cos: float = -1.0
    of: dict[str, float | None] | None = None


def apply(d: "Decision", near: Nearest, settings: "Settings", title_desc: Any = None,
          folder: str | None = None) -> "Decision":
    """The meaning route and veto on a lexical decision (pure: no model, no database).

    :param d: the lexical decision (changed in place and returned)
    :param near: the message's :class:`Nearest`, with ``of`` holding the cosine of the note
        the lexical decision named first
    :param title_desc: ``path -> (title, desc)`` for the line of a note the route names
    :param folder: as in :func:`notesdb.gate.judge`
    :returns: ``d``, with route ``meaning`` (spoken), ``meaning-veto`` (silent) or unchanged;
        a reason line says what meaning saw either way
    """
    from notesdb.gate import format_line

    s = settings
    margin = near.top_cos - near.second_cos
    if d.spoken and d.notes:
        cos = (near.of or {}).get(d.notes[0])
        if cos is None:
            d.reasons.append(f"meaning: {d.notes[0]} has no vector yet; no veto")
        elif cos < s.meaning_veto:
            d.reasons.append(
                f"meaning vetoed {d.notes[0]}: its cosine with the message {cos:.3f} < {s.meaning_veto}"
            )
            d.spoken, d.route, d.notes, d.parts, d.line = False, VETO, [], [], ""
        else:
            d.reasons.append(f"meaning: {d.notes[0]} at cosine {cos:.3f} >= veto {s.meaning_veto}")
        return d
    if d.spoken or near.top is None:
        if near.top is None:
            d.reasons.append("meaning: no note has a vector yet")
        return d
    if near.top_cos >= s.meaning_cosine and margin >= s.meaning_margin and title_desc is not None:
        title, desc = title_desc(near.top)
        d.reasons.append(
            f"meaning spoke: {near.top} at cosine {near.top_cos:.3f} >= {s.meaning_cosine}, "
            f"{margin:.3f} >= {s.meaning_margin} over the second note"
        )
        d.spoken, d.route, d.notes = True, ROUTE, [near.top]
        d.parts = [(title, near.top, desc)]
        d.folder = folder
        d.line = format_line(d.parts, folder=folder)
    else:
        d.reasons.append(
            f"meaning silent: nearest {near.top} at cosine {near.top_cos:.3f} (needs {s.meaning_cosine}), "
            f"{margin:.3f} over the second (needs {s.meaning_margin})"
        )
    return d


def _version(conn: sqlite3.Connection) -> str:
    """Changes when the notes or their vectors change (``listing_hash`` is rewritten by every
    sync that changed a note, ``vectors_version`` by every :func:`refresh_db` that wrote)."""
    rows = conn.execute(
        "SELECT key, value FROM meta WHERE key IN ('listing_hash', 'vectors_version') ORDER BY key"
    ).fetchall()
    return "|".join(f"{k}={v}" for k, v in rows)


def _db_key(conn: sqlite3.Connection) -> str:
    return str(conn.execute("PRAGMA database_list").fetchone()[2])


class Meaning:
    """The loaded model and, per database, its note vectors; callable as
    ``notesdb.decide.second_opinion``.

    :param model_folder: ``[meaning] model`` (None: the wheel's model)
    :param threads: onnxruntime threads (:func:`notesdb.embed.load`)
    :param load: load the model now (False: on first use)
    :param quiet: do not print a failure to load on stderr (the caller reports ``error``)
    """

    def __init__(self, model_folder: str | None = None, threads: int = 1, load: bool = True,
                 quiet: bool = False) -> None:
        self.model_folder = model_folder
        self.threads = threads
        self.quiet = quiet
        self.model: Model | None = None
        self.error = ""
        self._lock = threading.Lock()
        self._vectors: dict[str, tuple[str, NoteVectors]] = {}
        if load:
            self.load()

    def load(self) -> "Model | None":
        """Load the model once; on failure remember why (``error``) and return None."""
        with self._lock:
            if self.model is None and not self.error:
                try:
                    from notesdb.embed import load

                    self.model = load(self.model_folder, threads=self.threads)
                except Exception as e:  # a missing extra, a bad file: the lexical gate decides
                    self.error = f"meaning model not loaded: {type(e).__name__}: {e}"
                    if not self.quiet:
                        print(f"notesdb: {self.error}", file=sys.stderr)
            return self.model

    def refresh_db(self, conn: sqlite3.Connection, **kw: Any) -> Any:
        """:func:`notesdb.vectors.refresh` with this model; marks the vectors changed.

        :returns: the :class:`notesdb.vectors.Refreshed`, or None without a model
        """
        from notesdb.vectors import refresh

        model = self.load()
        if model is None:
            return None
        done = refresh(conn, model, **kw)
        if done.vectors or done.removed:
            with conn:
                conn.execute(
                    "INSERT INTO meta(key, value) VALUES ('vectors_version', ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (f"{time.time():.6f}",),
                )
        return done

    def vectors(self, conn: sqlite3.Connection) -> "NoteVectors":
        """The current vectors of ``conn``'s database, read again only when they changed."""
        from notesdb.vectors import load_vectors

        assert self.model is not None
        key, version = _db_key(conn), _version(conn)
        cached = self._vectors.get(key)
        if cached is not None and cached[0] == version:
            return cached[1]
        vecs = load_vectors(conn, self.model.name)
        self._vectors[key] = (version, vecs)
        return vecs

    def nearest(self, conn: sqlite3.Connection, message: str, about: list[str] = ()) -> Nearest:  # type: ignore[assignment]
        """The notes nearest ``message``, and the cosine of each note in ``about``.

        :raises RuntimeError: no model
        """
        import numpy as np

        model = self.load()
        if model is None:
            raise RuntimeError(self.error)
        vecs = self.vectors(conn)
        if not vecs.paths:
            return Nearest(of={p: None for p in about})
        cos = vecs.cosines(model.embed([message])[0])
        order = np.argsort(-cos)[:2]
        index = {p: i for i, p in enumerate(vecs.paths)} if about else {}
        return Nearest(
            top=vecs.paths[int(order[0])],
            top_cos=float(cos[order[0]]),
            second_cos=float(cos[order[1]]) if len(order) > 1 else -1.0,
            of={p: (float(cos[index[p]]) if p in index else None) for p in about},
        )

    def __call__(self, conn: sqlite3.Connection, message: str, d: "Decision", settings: "Settings",
                 folder: str | None) -> "Decision":
        """The second opinion on ``d`` (see :func:`apply`); never raises: on any problem ``d``
        stands as it was, with the problem in ``d.error``."""
        from notesdb.gate import NEVER_JUDGED

        if d.route in NEVER_JUDGED:
            return d
        try:
            near = self.nearest(conn, message, d.notes[:1])
        except Exception as e:
            problem = self.error or f"meaning not used: {type(e).__name__}: {e}"
            d.error = "; ".join(x for x in (d.error, problem) if x)
            d.reasons.append(problem)
            return d

        def title_desc(path: str) -> tuple[str, str]:
            row = conn.execute("SELECT title, desc FROM notes WHERE path = ?", (path,)).fetchone()
            return (row[0], row[1]) if row else (path, "")

        return apply(d, near, settings, title_desc, folder)


def for_command(conn: sqlite3.Connection, model_folder: str | None, progress: bool = True) -> Meaning | None:
    """For ``notesdb check``/``eval``/``index --meaning``: load the model with every core,
    embed what is missing (progress on stderr), and :func:`install` it.

    :returns: the installed :class:`Meaning`, or None when the model cannot be loaded (the
        reason is on stderr; judgement stays lexical)
    :raises sqlite3.Error: the vectors cannot be written
    """
    from notesdb.embed import COMMAND_BATCH

    meaning = Meaning(model_folder, threads=0)
    if meaning.model is None:
        return None

    def show(done: int, todo: int) -> None:
        print(f"\rembedding notes for meaning: {done}/{todo}", end="" if done < todo else "\n",
              file=sys.stderr, flush=True)

    meaning.refresh_db(conn, progress=show if progress else None, batch=COMMAND_BATCH)
    install(meaning)
    return meaning


def install(meaning: Meaning | None) -> None:
    """Make ``meaning`` the second opinion of every :func:`notesdb.decide.decide` in this
    process (None: the lexical judgement alone)."""
    from notesdb import decide

    decide.second_opinion = meaning


def uninstall() -> None:
    """Back to the lexical judgement alone."""
    install(None)


def start_background(db_path: str, model_folder: str | None = None,
                     every_s: float = REFRESH_EVERY_S) -> tuple[Meaning, threading.Event]:
    """In the resident process: load the model, install it, and keep the vectors of the
    database at ``db_path`` current from a daemon thread (embedding every ``every_s`` seconds
    what changed, one batch at a time), until the returned event is set.

    Judgement never waits for it: a message before the model is loaded is judged lexically,
    and a note not yet embedded is unknown to meaning.

    :returns: (the :class:`Meaning`, the stop event)
    """
    meaning = Meaning(model_folder, threads=1, load=False)
    stop = threading.Event()

    def work() -> None:
        from notesdb.db import open_db

        if meaning.load() is None:
            return
        install(meaning)
        while not stop.is_set():
            try:
                conn = open_db(db_path, busy_timeout_ms=5000)
                try:
                    meaning.refresh_db(conn, stop=stop.is_set)
                finally:
                    conn.close()
            except Exception as e:  # busy, damaged, gone: try again later
                print(f"notesdb: note vectors not refreshed: {type(e).__name__}: {e}", file=sys.stderr)
            stop.wait(every_s)

    threading.Thread(target=work, name="notesdb-meaning", daemon=True).start()
    return meaning, stop

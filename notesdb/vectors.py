"""Note vectors in the database (``note_vectors``) for matching by meaning: which texts of a
note are embedded, bringing the stored vectors up to date, and reading them back.

A note is embedded as several texts (the recipe measured best for all-MiniLM-L6-v2 on the
personal and household sets, ``shared/research/meaning.md`` §2, "max"): part 0 its title,
aliases, description, headings and tags; part 1 the same followed by the start of its body;
parts 2.. its body in chunks of ``CHUNK_CHARS`` characters, each after the title. A message's
cosine with a note is its best cosine with any of the note's parts.

A vector is *current* while its row's ``hash`` equals the note's ``notes.hash`` and its
``model`` the loaded model's name; anything else is recomputed by :func:`refresh`. Until then
the note simply has no vector: meaning does not know it, the lexical judgement still does.

Needs numpy (the ``meaning`` extra); never imported on the command hook's path.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Final

import numpy as np

if TYPE_CHECKING:
    from notesdb.embed import Model

__all__ = ["note_texts", "refresh", "stale_count", "NoteVectors", "load_vectors", "Refreshed"]

#: Characters of title, aliases, description, headings and tags in part 0 (the research's
#: "meta" text, cut at 800 characters).
META_CHARS: Final = 800
#: Characters of the body after the meta text in part 1 (the research's "full" text: 1,500).
START_CHARS: Final = 1500
#: Characters of body per chunk (parts 2..): 700, about 175 tokens, within the model's 256.
CHUNK_CHARS: Final = 700
#: Chunks per note at most. The research used 40; 8 (the first 5,600 characters of a body)
#: keeps 1,643 of the personal set's 2,008 vectors at 40 and all of household2's, memory's,
#: folders' and kept's, and bounds the cost of a very long note.
MAX_CHUNKS: Final = 8
#: Notes embedded between two commits of :func:`refresh` (so that a stopped refresh keeps
#: its work, and a reader waits at most one batch's write).
COMMIT_EVERY: Final = 32


def _list(raw: str) -> list[str]:
    try:
        v = json.loads(raw or "[]")
    except ValueError:
        return []
    return [str(x) for x in v] if isinstance(v, list) else []


def note_texts(title: str, desc: str, headings: str, body: str, aliases: str = "[]", tags: str = "[]") -> list[str]:
    """The texts embedded for one note, part 0 first (see the module docstring).

    :param aliases, tags: JSON arrays as stored in ``notes``
    :returns: 2 to ``2 + MAX_CHUNKS`` non-empty strings
    """
    meta_parts = [title, *_list(aliases), desc, *headings.split("\n"), *_list(tags)]
    meta = " ".join(" ".join(p.split()) for p in meta_parts if p and p.strip())[:META_CHARS] or title or "(untitled)"
    flat = " ".join(body.split())
    texts = [meta, (meta + " " + flat[:START_CHARS]).strip()]
    for i in range(0, min(len(flat), CHUNK_CHARS * MAX_CHUNKS), CHUNK_CHARS):
        texts.append((title + ": " if title else "") + flat[i : i + CHUNK_CHARS])
    return texts


def stale_count(conn: sqlite3.Connection, model_name: str) -> int:
    """Searchable notes without a current vector (their part 0) for ``model_name``."""
    return int(
        conn.execute(
            """SELECT count(*) FROM notes n WHERE n.searchable AND NOT EXISTS (
                 SELECT 1 FROM note_vectors v WHERE v.path = n.path AND v.part = 0
                 AND v.hash = n.hash AND v.model = ?)""",
            (model_name,),
        ).fetchone()[0]
    )


@dataclass
class Refreshed:
    """What :func:`refresh` did."""

    embedded: int = 0  # notes embedded
    vectors: int = 0  # vectors written
    removed: int = 0  # vectors dropped (notes gone, changed or of another model)
    left: int = 0  # notes still without a current vector (stopped early)
    seconds: float = 0.0
    ms_per_note: float = 0.0


def refresh(
    conn: sqlite3.Connection,
    model: "Model",
    *,
    deadline: float | None = None,
    stop: Callable[[], bool] | None = None,
    progress: Callable[[int, int], None] | None = None,
    batch: int | None = None,
) -> Refreshed:
    """Bring ``note_vectors`` in line with ``notes``: embed every searchable note without a
    current vector, drop vectors of notes that are gone, changed, unsearchable or of another
    model. Commits every ``COMMIT_EVERY`` notes.

    :param deadline: a ``time.monotonic()`` value after which no further batch is started
    :param stop: called between batches; True stops (a resident process shutting down)
    :param progress: called with (notes done, notes to do) after each batch
    :param batch: texts per model run (default ``notesdb.embed.BATCH``)
    :raises sqlite3.Error: the database cannot be read or written
    """
    t0 = time.perf_counter()
    out = Refreshed()
    cur = conn.execute(
        """DELETE FROM note_vectors WHERE model != ? OR NOT EXISTS (
             SELECT 1 FROM notes n WHERE n.path = note_vectors.path AND n.hash = note_vectors.hash
             AND n.searchable)""",
        (model.name,),
    )
    out.removed = max(cur.rowcount, 0)
    conn.commit()
    todo = conn.execute(
        """SELECT path, hash, title, desc, headings, body, aliases, tags FROM notes n
           WHERE n.searchable AND NOT EXISTS (SELECT 1 FROM note_vectors v WHERE v.path = n.path
             AND v.part = 0) ORDER BY path"""
    ).fetchall()
    for start in range(0, len(todo), COMMIT_EVERY):
        if (deadline is not None and time.monotonic() > deadline) or (stop is not None and stop()):
            break
        rows = todo[start : start + COMMIT_EVERY]
        texts: list[str] = []
        owners: list[tuple[str, str, int]] = []
        for path, hash_, title, desc, headings, body, aliases, tags in rows:
            for part, text in enumerate(note_texts(title, desc, headings, body, aliases, tags)):
                texts.append(text)
                owners.append((path, hash_, part))
        vecs = model.embed(texts, batch=batch) if batch else model.embed(texts)
        with conn:
            conn.executemany(
                "INSERT OR REPLACE INTO note_vectors(path, part, hash, model, vec) VALUES (?, ?, ?, ?, ?)",
                [(p, part, h, model.name, vecs[i].astype("<f4").tobytes()) for i, (p, h, part) in enumerate(owners)],
            )
        out.embedded += len(rows)
        out.vectors += len(texts)
        if progress is not None:
            progress(out.embedded, len(todo))
    out.left = len(todo) - out.embedded
    out.seconds = time.perf_counter() - t0
    out.ms_per_note = out.seconds * 1000 / out.embedded if out.embedded else 0.0
    return out


@dataclass
class NoteVectors:
    """The current vectors of one database, ready to score messages against.

    ``matrix`` holds one row per vector, a note's rows together; ``starts[k]`` is the first row
    of ``paths[k]``.
    """

    paths: list[str] = field(default_factory=list)
    matrix: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    starts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def cosines(self, v: np.ndarray) -> np.ndarray:
        """Each note's best cosine with the unit vector ``v`` over its parts.

        :returns: float32 array aligned with ``paths`` (empty when there are no vectors)
        """
        if not self.paths:
            return np.zeros(0, dtype=np.float32)
        return np.maximum.reduceat(self.matrix @ v, self.starts)


def load_vectors(conn: sqlite3.Connection, model_name: str) -> NoteVectors:
    """Every current vector of ``model_name`` (rows whose note changed since are left out)."""
    rows = conn.execute(
        """SELECT v.path, v.vec FROM note_vectors v JOIN notes n ON n.path = v.path AND n.hash = v.hash
           WHERE v.model = ? AND n.searchable ORDER BY v.path, v.part""",
        (model_name,),
    ).fetchall()
    if not rows:
        return NoteVectors()
    paths: list[str] = []
    starts: list[int] = []
    for i, (path, _) in enumerate(rows):
        if not paths or paths[-1] != path:
            paths.append(path)
            starts.append(i)
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), -1)
    return NoteVectors(paths, np.ascontiguousarray(matrix, dtype=np.float32), np.array(starts, dtype=np.int64))

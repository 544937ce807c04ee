"""``python -m notesdb`` runs the ``notesdb`` command."""

from notesdb.entry import main

main()

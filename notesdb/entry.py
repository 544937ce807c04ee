"""The ``notesdb`` console script: ``notesdb hook`` is dispatched before the CLI framework loads.

The hook runs before every message the person sends, so its process must not pay for typer
(about 60 ms); every other command goes to :mod:`notesdb.cli`.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    """Run ``notesdb`` with ``sys.argv``."""
    argv = sys.argv[1:]
    if argv[:1] == ["hook"] and not (set(argv[1:2]) & {"install", "uninstall", "--help", "-h"}):
        from notesdb.hook import main as hook_main

        code = hook_main(argv[1:])
        # The answer is written and the database closed: end here, without the interpreter's
        # teardown of every loaded module (5 to 8 ms of each message).
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    from notesdb.cli import run

    run()


if __name__ == "__main__":
    main()

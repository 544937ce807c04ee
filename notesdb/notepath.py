"""A note path as someone gives it, made the path the index keys the note by.

The index stores each note by its POSIX path relative to the notes folder
(``recipes/sourdough-starter.md``); the hook's line names notes by their absolute path, and a
person may type ``./recipes/sourdough-starter.md`` or ``recipes//sourdough-starter.md``. This
module maps all of those to the stored form, by text alone (no file is opened): whether the
note is in the index and whether the file really lies inside the folder (symlinks) is for the
caller to check.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from collections.abc import Iterable

__all__ = ["index_path"]


def index_path(given: str, roots: Iterable[Path | str]) -> str | None:
    """The notes-folder-relative POSIX path that ``given`` names, or None when it names no
    place inside the notes folder.

    A relative path is normalised (``./``, duplicate slashes, ``a/../``); one that then climbs
    out (``..``) or names the folder itself gives None. An absolute path gives its part below
    the first of ``roots`` it lies under (compared after normalising both, without resolving
    links), else None.

    :param given: the path as given; white space is part of it (a file may be named " a.md"),
        a path of white space only names nothing
    :param roots: absolute spellings of the notes folder, e.g. as configured and with its
        links resolved (the hook's line uses the resolved one)
    :returns: e.g. ``"recipes/sourdough-starter.md"``, or None
    """
    path = given
    if not path.strip() or "\0" in path:
        return None
    if os.path.isabs(path):
        full = os.path.normpath(path)
        for root in roots:
            base = os.path.normpath(str(root))
            if not os.path.isabs(base):
                continue
            if full.startswith(base.rstrip(os.sep) + os.sep):
                path = os.path.relpath(full, base).replace(os.sep, "/")
                break
        else:
            return None
    rel = posixpath.normpath(path)
    if rel in (".", "..") or rel.startswith(("../", "/")):
        return None
    return rel

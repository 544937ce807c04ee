"""Links between notes: the targets a note's links name, and whether two notes are linked.

Two kinds of link are read, as the editors people keep notes with write them:

- wiki links, Obsidian's and Foam's: ``[[Target]]``, ``[[folder/Target]]``, ``[[Target|shown
  text]]``, ``[[Target#Heading]]``, embeds ``![[Target]]``; the target names a note by its file
  name (without ``.md``), anywhere in the folder, or by its path from the folder's root;
- Markdown links to a note: ``[text](other.md)``, ``[text](../projects/Other%20Note.md#part)``,
  ``[text](<with spaces.md>)``, relative to the linking note's folder (a link with a scheme,
  ``https:``, ``mailto:``, is not to a note).

A target is stored folded (lower case, ``.md`` dropped): a wiki link's as written
(``"voice-bay"``, ``"projects/voice-bay"``), a Markdown link's as the path it resolves to from
the root, marked by a leading ``/`` (``"/projects/voice-bay"``). Matching a note needs only its
own path (:func:`links_to`), so a note renamed or added later is matched without indexing the
notes that link to it again.
"""

from __future__ import annotations

import posixpath
import re
import urllib.parse

TYPE_CHECKING = False  # not typing's: the hook does not import typing
if TYPE_CHECKING:
    from typing import Final, Iterable

__all__ = ["MAX_TARGETS", "targets", "links_to", "linked"]

#: Targets kept per note at most, in the order they first appear: a hub note listing thousands
#: of others keeps its first ones (a candidate's targets are read with every message).
MAX_TARGETS: Final = 256

_WIKI: Final = re.compile(r"\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\]")
_MARKDOWN: Final = re.compile(r"\]\(\s*(?:<([^<>\n]+)>|([^()\s]+))(?:\s+\"[^\"\n]*\")?\s*\)")
_SCHEME: Final = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def _fold(name: str) -> str:
    name = name.strip().lower()
    return name[:-3] if name.endswith(".md") else name


def targets(text: str, path: str) -> list[str]:
    """The notes ``text``'s links name, folded, without repeats, at most :data:`MAX_TARGETS`.

    :param text: the note's Markdown
    :param path: the note's POSIX path from the notes root (``"projects/voice-bay-mics.md"``),
        against which a Markdown link's relative path is resolved
    :returns: wiki link targets as written (``"voice-bay"``) and Markdown link targets as paths
        from the root marked by a leading ``/`` (``"/projects/voice-bay"``)
    """
    if "[" not in text:
        return []
    found: dict[str, None] = {}
    for m in _WIKI.finditer(text):
        t = _fold(m.group(1)).strip("/")
        if t:
            found.setdefault(t, None)
        if len(found) >= MAX_TARGETS:
            return list(found)
    here = posixpath.dirname(path)
    for m in _MARKDOWN.finditer(text):
        raw = m.group(1) or m.group(2)
        if _SCHEME.match(raw):
            continue
        raw = urllib.parse.unquote(raw.split("#", 1)[0])
        if not raw.lower().endswith(".md"):
            continue
        full = posixpath.normpath(raw.lstrip("/") if raw.startswith("/") else posixpath.join(here, raw))
        if full.startswith("../") or full == "..":
            continue  # outside the notes folder
        found.setdefault("/" + _fold(full), None)
        if len(found) >= MAX_TARGETS:
            break
    return list(found)


def links_to(stored: Iterable[str], path: str) -> bool:
    """True when one of the targets ``stored`` (as from :func:`targets`) names the note at ``path``.

    A wiki target names a note whose path from the root, without ``.md``, is the target or ends
    in ``/`` and the target (``"voice-bay"`` names ``projects/voice-bay.md``); a path target
    (``"/projects/voice-bay"``) names exactly that path. Case is ignored.
    """
    me = _fold(path)
    for t in stored:
        if t.startswith("/"):
            if t[1:] == me:
                return True
        elif me == t or me.endswith("/" + t):
            return True
    return False


def linked(a_path: str, a_targets: Iterable[str], b_path: str, b_targets: Iterable[str]) -> bool:
    """True when either note links to the other (:func:`links_to`)."""
    return links_to(a_targets, b_path) or links_to(b_targets, a_path)

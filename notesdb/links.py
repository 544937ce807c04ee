"""Links between notes: the notes a note's links name, and whether two notes are linked.

Three kinds of link are read, as the editors people keep notes with write them:

- wiki links, Obsidian's and Foam's: ``[[Target]]``, ``[[folder/Target]]``, ``[[./Target]]``,
  ``[[Target|shown text]]`` (``[[Target\\|shown]]`` inside a table), ``[[Target#Heading]]``,
  embeds ``![[Target]]``; the target names a note by its file name (without ``.md``), by the
  end of its path (``folder/Target``), or by a path from the linking note's folder (``./``, ``../``);
- Markdown links to a note: ``[text](other.md)``, ``[text](../projects/Other%20Note.md#part)``,
  ``[text](<with spaces.md>)``, ``[text](other)`` (no extension), relative to the linking note's
  folder; a link with a scheme (``https:``, ``mailto:``) or to another kind of file is not to a note;
- reference definitions of such links: ``[r]: other.md``.

Links inside code (fenced blocks, inline code) and comments (``%% ... %%``, ``<!-- ... -->``)
are not links. Targets are kept folded (NFC, lower case, ``.md`` dropped): a path target as the
path it names from the root, marked by a leading ``/`` (``"/projects/voice-bay"``); a file-name
target as written (``"voice-bay"``) or, when :func:`resolve` finds the name ambiguous at index
time, as the one note it names or as never matching.

Matching needs only the other note's own path (:func:`links_to`), so a note added after the
notes that link to it is matched without indexing them again.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
import urllib.parse

TYPE_CHECKING = False  # not typing's: the hook does not import typing
if TYPE_CHECKING:
    from typing import Final, Iterable

__all__ = ["MAX_TARGETS", "AMBIGUOUS", "targets", "names_index", "resolve", "links_to", "linked"]

#: Targets kept per note at most, in the order they first appear: a hub note listing thousands
#: of others keeps its first ones (a candidate's targets are read with every message).
MAX_TARGETS: Final = 256
#: Prefix of a file-name target that names several notes, none in the linking note's folder:
#: kept for reading, never matched (which note is meant cannot be told).
AMBIGUOUS: Final = "?"

#: A fenced code block (one left open runs to the end of the note, as in CommonMark).
_FENCE: Final = re.compile(r"^( {0,3})(`{3,}|~{3,})[^\n]*\n.*?(?:^\1?\2[`~]*[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
#: Inline code: a run of backticks, what follows, and a run of the same length.
_INLINE_CODE: Final = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
#: Comments, Obsidian's and HTML's (one left open runs to the end of the note).
_COMMENTS: Final = (("%%", "%%"), ("<!--", "-->"))
_WIKI: Final = re.compile(r"\[\[([^\[\]|#^\n]*?)\\?(?:[#^][^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\]")
_MARKDOWN: Final = re.compile(
    r"\]\(\s*(?:<([^<>\n]+)>|([^()\s]+))(?:\s+\"[^\"\n]*\")?\s*\)"  # [text](target "title")
    r"|^[ ]{0,3}\[[^\]\n]+\]:[ \t]*(?:<([^<>\n]+)>|(\S+))",  # [ref]: target
    re.MULTILINE,
)
_SCHEME: Final = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def _fold(name: str) -> str:
    name = unicodedata.normalize("NFC", name.strip()).lower()
    return name[:-3] if name.endswith(".md") else name


def _relative(target: str, here: str) -> str | None:
    """``target`` (a path relative to the folder ``here``) as a path target, or None when it
    leaves the notes folder."""
    full = posixpath.normpath(posixpath.join(here, target))
    if full == ".." or full.startswith("../"):
        return None
    return "/" + full


def _without_code_or_comments(text: str) -> str:
    """``text`` with code (fenced and inline) and comments replaced by spaces; linear in its
    length (a comment is closed by a plain search, never by backtracking)."""
    if "```" in text or "~~~" in text:
        text = _FENCE.sub(" ", text)
    if "`" in text:
        text = _INLINE_CODE.sub(" ", text)
    for start, end in _COMMENTS:
        if start not in text:
            continue
        kept, i = [], 0
        while True:
            j = text.find(start, i)
            if j < 0:
                kept.append(text[i:])
                break
            kept.append(text[i:j])
            k = text.find(end, j + len(start))
            if k < 0:
                break  # left open: the rest of the note is the comment
            i = k + len(end)
        text = " ".join(kept)
    return text


def targets(text: str, path: str) -> list[str]:
    """The notes ``text``'s links name, folded, without repeats, at most :data:`MAX_TARGETS`.

    :param text: the note's Markdown
    :param path: the note's POSIX path from the notes root (``"projects/voice-bay-mics.md"``),
        against which relative links are resolved
    :returns: file-name targets as written (``"voice-bay"``) and path targets from the root
        after a ``/`` (``"/projects/voice-bay"``); links that leave the notes folder are left out
    """
    if "[" not in text:
        return []
    text = _without_code_or_comments(text)
    here = posixpath.dirname(_fold(path))
    found: dict[str, None] = {}
    for m in _WIKI.finditer(text):
        t = _fold(m.group(1))
        if t.startswith(("./", "../")):
            rel = _relative(t, here)
            if rel is not None:
                found.setdefault(rel, None)
        elif t.strip("/"):
            found.setdefault(t.strip("/"), None)  # a name, or the end of a path ("heron/sensors")
        if len(found) >= MAX_TARGETS:
            return list(found)
    for m in _MARKDOWN.finditer(text):
        raw = m.group(1) or m.group(2) or m.group(3) or m.group(4)
        if _SCHEME.match(raw) or "[" in raw or "]" in raw:
            continue
        raw = urllib.parse.unquote(raw.split("#", 1)[0])
        name = raw.rsplit("/", 1)[-1]
        if not name or ("." in name and not name.lower().endswith(".md")):
            continue  # a folder, or another kind of file (an image, a PDF)
        t = _fold(raw)
        rel = ("/" + posixpath.normpath(t.lstrip("/"))) if t.startswith("/") else _relative(t, here)
        if rel is not None:
            found.setdefault(rel, None)
        if len(found) >= MAX_TARGETS:
            break
    return list(found)


def names_index(paths: Iterable[str]) -> dict[str, list[str]]:
    """``{folded file name: [folded paths]}`` of the notes at ``paths`` (``.md`` dropped), for
    :func:`resolve`."""
    out: dict[str, list[str]] = {}
    for p in paths:
        folded = _fold(p)
        out.setdefault(folded.rsplit("/", 1)[-1], []).append(folded)
    return out


def resolve(found: list[str], path: str, names: dict[str, list[str]]) -> list[str]:
    """``found`` (from :func:`targets`) with each file-name target that several notes answer to
    settled as Obsidian settles it: the note of that name in the linking note's folder (as a
    path target), else none (:data:`AMBIGUOUS` + the name, never matched).

    :param found: the note's targets
    :param path: the linking note's path from the root
    :param names: :func:`names_index` of every note of the folder
    :returns: the targets, in order
    """
    here = posixpath.dirname(_fold(path))
    out: dict[str, None] = {}
    for t in found:
        if "/" not in t:
            paths = names.get(t, [])
            if len(paths) > 1:
                near = [p for p in paths if posixpath.dirname(p) == here]
                t = "/" + near[0] if near else AMBIGUOUS + t
        out.setdefault(t, None)
    return list(out)


def links_to(stored: Iterable[str], path: str) -> bool:
    """True when one of the targets ``stored`` (as from :func:`targets` and :func:`resolve`)
    names the note at ``path``.

    A file-name target names a note of that file name (``"voice-bay"`` names
    ``projects/voice-bay.md``), a wiki target with folders a note whose path ends with it
    (``"heron/sensors"`` names ``projects/heron/sensors.md``), a path target exactly that path.
    Case, ``.md`` and the Unicode form of either are ignored.
    """
    me = _fold(path)
    name = me.rsplit("/", 1)[-1]
    for t in stored:
        if t.startswith("/"):
            if t[1:] == me:
                return True
        elif t == name if "/" not in t else (me == t or me.endswith("/" + t)):
            return True
    return False


def linked(a_path: str, a_targets: Iterable[str], b_path: str, b_targets: Iterable[str]) -> bool:
    """True when either note links to the other (:func:`links_to`)."""
    return links_to(a_targets, b_path) or links_to(b_targets, a_path)

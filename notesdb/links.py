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

import json
import posixpath
import re
import unicodedata
import urllib.parse

TYPE_CHECKING = False  # not typing's: the hook does not import typing
if TYPE_CHECKING:
    from typing import Final, Iterable

__all__ = ["MAX_TARGETS", "AMBIGUOUS", "targets", "names_index", "resolve", "links_to", "linked", "namespace", "within", "anchors", "path_ends",
           "incoming", "anchor_text", "read_links"]

#: Targets kept per note at most, in the order they first appear: a hub note listing thousands
#: of others keeps its first ones (a candidate's targets are read with every message).
MAX_TARGETS: Final = 256
#: Prefix of a file-name target that names several notes, none in the linking note's folder:
#: kept for reading, never matched (which note is meant cannot be told).
AMBIGUOUS: Final = "?"

#: A fenced code block (one left open runs to the end of the note, as in CommonMark).
#: (The opening run and its info string are possessive: a last line of 40,000 backticks with no
#: line end after it took 0.98 s to fail, trying every shorter run; now 0.2 ms.)
_FENCE: Final = re.compile(r"^( {0,3})(`{3,}+|~{3,}+)[^\n]*+\n.*?(?:^\1?\2[`~]*[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
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


def _without_fences_or_comments(text: str) -> str:
    """``text`` with fenced code and comments replaced by spaces; linear in its length (a
    comment is closed by a plain search, never by backtracking)."""
    if "```" in text or "~~~" in text:
        text = _FENCE.sub(" ", text)
    for start, end in _COMMENTS:
        if start in text:
            text = _without_comment(text, start, end)
    return text


def _note_link(raw: str, here: str) -> tuple[str, str] | None:
    """A Markdown link's target ``raw`` as a note: ``(path target, folded path as written)``,
    the path target from the root after a ``/`` ("" when it leaves the notes folder); None for
    a link with a scheme (a web page, mail) or to a folder or another kind of file."""
    if _SCHEME.match(raw) or "[" in raw or "]" in raw:
        return None
    raw = urllib.parse.unquote(raw.split("#", 1)[0])
    name = raw.rsplit("/", 1)[-1]
    if not name or ("." in name and not name.lower().endswith(".md")):
        return None  # a folder, or another kind of file (an image, a PDF)
    t = _fold(raw)
    rel = ("/" + posixpath.normpath(t.lstrip("/"))) if t.startswith("/") else _relative(t, here)
    return rel or "", t


def _wiki_target(t: str, here: str) -> str | None:
    """A wiki link's folded target as :func:`targets` keeps it (None: it leaves the folder)."""
    if t.startswith(("./", "../")):
        return _relative(t, here)
    return t.strip("/") or None


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
    return _targets(_without_fences_or_comments(text), path)


def read_links(text: str, path: str) -> tuple[list[str], list[list[str]]]:
    """:func:`targets` and :func:`anchors` of one note, its code fences and comments taken out
    once for both (the index reads every note it parses this way)."""
    if "[" not in text:
        return [], []
    bare = _without_fences_or_comments(text)
    return _targets(bare, path), _anchors(bare, path)


def _targets(text: str, path: str) -> list[str]:
    """:func:`targets` of a note whose fences and comments are taken out."""
    if "`" in text:
        text = _INLINE_CODE.sub(" ", text)
    here = posixpath.dirname(_fold(path))
    found: dict[str, None] = {}
    for m in _WIKI.finditer(text):
        t = _wiki_target(_fold(m.group(1)), here)  # a path, a name, or the end of a path ("heron/sensors")
        if t is not None:
            found.setdefault(t, None)
        if len(found) >= MAX_TARGETS:
            return list(found)
    for m in _MARKDOWN.finditer(text):
        link = _note_link(m.group(1) or m.group(2) or m.group(3) or m.group(4), here)
        if link is not None and link[0]:
            found.setdefault(link[0], None)
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


#: How an outliner writes a page's namespace into its file name: Logseq's ``triple-lowbar``
#: file-name format (``Person___codekiln___clilint.md`` for the page ``Person/codekiln/clilint``)
#: and its older URL-encoded one (``Person%2Fcodekiln%2Fclilint.md``).
_NAMESPACE_SEP: Final = re.compile(r"___|%2F", re.IGNORECASE)


def _page_name(path: str) -> tuple[str, str]:
    """The folder of the note at ``path`` as written and its file name folded (:func:`_fold`,
    which drops ``.md``), without a ``.markdown`` extension either."""
    folder, _, name = path.rpartition("/")
    name = _fold(name)
    return folder, name[: -len(".markdown")] if name.endswith(".markdown") else name


def namespace(path: str) -> tuple[str, ...]:
    """The namespace of the page at ``path`` as its parts, folded (:func:`_fold`), from its
    file name: ``("person", "codekiln", "clilint")`` for ``pages/Person___codekiln___clilint.md``;
    ``()`` for a file name without a namespace separator (:data:`_NAMESPACE_SEP`) or with an
    empty part."""
    parts = tuple(_NAMESPACE_SEP.split(_page_name(path)[1]))
    return parts if len(parts) > 1 and all(parts) else ()


def within(a_path: str, b_path: str) -> bool:
    """True when the page at ``b_path`` sits under the page at ``a_path`` in a namespace
    (:func:`namespace`): ``Person/codekiln/clilint/0.0.1`` is within
    ``Person/codekiln/clilint``. Both pages must be in the same folder (as written: ``Pages/``
    and ``pages/`` are two folders), as an outliner keeps its pages; a page whose file name has
    no separator is the root of the namespaces that start with its name (``clilint.md`` holds
    ``clilint___plan.md``)."""
    (a_dir, a_name), (b_dir, _) = _page_name(a_path), _page_name(b_path)
    if a_dir != b_dir:
        return False
    a = namespace(a_path) or (a_name,)
    b = namespace(b_path)
    return len(b) > len(a) and b[: len(a)] == a


# --- anchor text: what a note's links call the notes they name ---------------------------------

#: Characters of one link's text kept at most: a link's text names its target in a few words,
#: and a longer one is a sentence that happens to be a link.
MAX_ANCHOR_CHARS: Final = 200
#: Characters of anchor text kept per linked note, the links read first kept first: a hub note
#: linked from hundreds of notes keeps what the first of them call it.
MAX_INCOMING_CHARS: Final = 2_000
#: Links :func:`anchors` reads per note at most, in the note's order: those to web pages that
#: are no note's are dropped when the note is indexed (``notesdb.sync``), which then keeps at
#: most :data:`MAX_TARGETS`.
MAX_ANCHORS_READ: Final = 16 * MAX_TARGETS
#: ``[text](target)`` (not an image): the text may run over lines and hold inline code.
_MD_LINK: Final = re.compile(r"(!?)\[([^\[\]]+)\]\(\s*(?:<([^<>\n]+)>|([^()\s]+))(?:\s+\"[^\"\n]*\")?\s*\)")
#: ``[[target|shown text]]`` (``\\|`` inside a table), with a heading or block part or not.
_WIKI_SHOWN: Final = re.compile(r"\[\[([^\[\]|#^\n]*?)(?:[#^][^\[\]|\n]*?)?\\?\|([^\[\]\n]+)\]\]")
#: A link to a web page: the path of its address is kept (a note's published copy).
_WEB: Final = re.compile(r"^https?://[^/\s?#]+(/[^?#\s]*)", re.IGNORECASE)
#: Where inline code stood in a note while its links are read (the code's text comes back
#: into the anchor text: "wired up `delta`").
_CODE_MARK: Final = re.compile("\x00(\\d+)\x00")


def _tail(t: str) -> str:
    """The folded path ``t`` without leading ``./`` and ``../`` parts and without a page
    extension, when at least two parts are left ("git/better-diffs-with-delta"), else ""."""
    parts = [p for p in t.strip("/").split("/") if p not in ("", ".", "..")]
    if parts and parts[-1].endswith((".html", ".htm")):
        parts[-1] = parts[-1].rsplit(".", 1)[0]
    return "/".join(parts) if len(parts) >= 2 else ""


def anchors(text: str, path: str) -> list[list[str]]:
    """The anchor text of the note's links to other notes: what the note calls each note it
    links to, a standard clue to what the linked page is about in web search ("anchor text",
    Brin and Page 1998; Craswell, Hawking and Robertson, SIGIR 2001).

    Read: ``[text](target.md)`` and ``[[target|text]]`` as :func:`targets` reads them (links in
    fenced code and comments are not links; inline code inside the text is kept as text), and
    ``[text](https://host/a/b)``, a link to a web page whose path may be a note's published copy.

    :param text: the note's Markdown
    :param path: the note's POSIX path from the notes root
    :returns: ``[key, tail, text]`` per link in order, at most :data:`MAX_ANCHORS_READ`: ``key`` the
        target as :func:`targets` keeps it ("" for a web page), ``tail`` the link's path of at
        least two parts as written, folded (matched, when ``key`` names no note, against the end
        of a note's path: ``git/delta.md`` written from ``unix/`` as Obsidian resolves it from
        the folder's root), ``text`` the link's words on one line, at most
        :data:`MAX_ANCHOR_CHARS`
    """
    if "[" not in text:
        return []
    return _anchors(_without_fences_or_comments(text), path)


def _anchors(text: str, path: str) -> list[list[str]]:
    """:func:`anchors` of a note whose fences and comments are taken out."""
    codes: list[str] = []

    def mark(m: re.Match[str]) -> str:
        codes.append(m.group(0).strip("`").strip())
        return f"\x00{len(codes) - 1}\x00"

    if "`" in text:
        text = _INLINE_CODE.sub(mark, text)
    here = posixpath.dirname(_fold(path))
    found: list[tuple[int, list[str]]] = []

    def add(key: str, tail: str, shown: str, at: int) -> None:
        shown = " ".join(_CODE_MARK.sub(lambda m: codes[int(m.group(1))], shown).split())
        if (key or tail) and any(ch.isalnum() for ch in shown):
            found.append((at, [key, tail, shown[:MAX_ANCHOR_CHARS]]))

    for m in _WIKI_SHOWN.finditer(text):
        key = _wiki_target(_fold(m.group(1)), here)
        if key is not None and "\x00" not in m.group(1):
            add(key, "", m.group(2), m.start())
    for m in _MD_LINK.finditer(text):
        raw = m.group(3) or m.group(4)
        if m.group(1) or "\x00" in raw:
            continue  # an image, or code
        web = _WEB.match(raw)
        if web:
            add("", _tail(_fold(urllib.parse.unquote(web.group(1)))), m.group(2), m.start())
            continue
        link = _note_link(raw, here)
        if link is not None:
            add(link[0], _tail(link[1]), m.group(2), m.start())
    found.sort(key=lambda f: f[0])  # in the note's order
    return [link for _, link in found[:MAX_ANCHORS_READ]]


def _without_comment(text: str, start: str, end: str) -> str:
    """``text`` with each comment from ``start`` to ``end`` replaced by a space (one left open
    runs to the end of the note); linear: a comment is closed by a plain search."""
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
    return " ".join(kept)


def path_ends(paths: Iterable[str]) -> set[str]:
    """Every end of two parts or more of the folded ``paths`` (``.md`` dropped): what a link's
    ``tail`` (:func:`anchors`) must be to name one of those notes."""
    out: set[str] = set()
    for p in paths:
        parts = _fold(p).split("/")
        for i in range(len(parts) - 1):
            out.add("/".join(parts[i:]))
    return out


def incoming(paths: Iterable[str], linking: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """What the notes' links call each note they name: its incoming anchor text.

    A link's ``key`` names a note as :func:`links_to` reads it (a path; a file name, which
    several notes share is settled as :func:`resolve` settles it: the one in the linking note's
    folder, else none; the end of a path, of one note only); a link whose key names no note
    names the one note whose path ends with its ``tail``. A note's links to itself are left out.

    :param paths: the path of every note
    :param linking: ``(path, anchors JSON)`` of the notes with links, the JSON as
        :func:`anchors` returns it
    :returns: ``{path: [text, ...]}`` for the notes some link names, texts in the order of
        ``linking`` (see :func:`anchor_text`)
    """
    read: list[tuple[str, str, list[list[str]]]] = []
    needed: set[str] = set()
    for path, raw in linking:
        try:
            links = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(links, list):
            continue
        kept = [link for link in links if isinstance(link, list) and len(link) == 3 and all(isinstance(x, str) for x in link)]
        needed.update(x for key, tail, _ in kept for x in (key, tail) if x)
        read.append((path, posixpath.dirname(_fold(path)), kept))
    if not read:
        return {}
    ends: dict[str, list[str]] = {}
    for path in paths:
        parts = _fold(path).split("/")
        for i in range(len(parts)):
            end = "/".join(parts[i:])
            if end in needed:
                ends.setdefault(end, []).append(path)
            if i == 0 and "/" + end in needed:
                ends.setdefault("/" + end, []).append(path)
    texts: dict[str, list[str]] = {}
    for path, here, links in read:
        for key, tail, shown in links:
            named = ends.get(key, []) if key else []
            if len(named) > 1 and "/" not in key:
                named = [p for p in named if posixpath.dirname(_fold(p)) == here]
            if len(named) != 1 and tail:
                named = ends.get(tail, [])
            if len(named) == 1 and named[0] != path:
                texts.setdefault(named[0], []).append(shown)
    return texts


def anchor_text(texts: list[str], title: str, path: str) -> str:
    """A note's incoming anchor text as indexed: the distinct ``texts`` (case ignored) in order,
    one per line, at most :data:`MAX_INCOMING_CHARS` characters, without those that are the
    note's title or file name (they add nothing)."""
    seen = {_fold(title), _fold(path).rsplit("/", 1)[-1]}
    kept: list[str] = []
    size = 0
    for shown in texts:
        folded = _fold(shown)
        if folded in seen:
            continue
        if size + len(shown) > MAX_INCOMING_CHARS:
            break
        seen.add(folded)
        kept.append(shown)
        size += len(shown) + 1
    return "\n".join(kept)

"""Turn one Markdown note into the fields the index searches.

A note is a file of bytes in someone's notes folder: Claude Code memory
files, Obsidian vaults, plain Markdown. This module knows nothing about
folders, databases or queries; it takes the bytes of one file and returns
a :class:`Note` holding plain text split into the parts that search ranks
differently (title, description, headings, body) plus the metadata that
front matter may carry (type, aliases, tags).

Real folders hold broken files, so parsing is forgiving: anything odd
(undecodable bytes, bad YAML, a binary file that happens to end in
``.md``) becomes a short line in ``Note.problems`` and the note is indexed
as well as it can be. :func:`parse_note` never raises.

The Markdown is read with markdown-it-py (CommonMark plus tables and
strikethrough); the token stream is walked once, headings go to
``headings`` and all other text to ``body``, with emphasis markers, link
URLs and HTML tags dropped and code kept verbatim.
"""

from __future__ import annotations

import codecs
import datetime as _dt
import html
import json
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Callable, Final

import yaml
from markdown_it import MarkdownIt

from notesdb.links import read_links
from notesdb.text import FORMAT_CLASS
from notesdb.vocab import FOLDER_NOTE_STEMS, decoded_name

__all__ = ["MAX_NOTE_BYTES", "Note", "parse_note", "as_utf8", "readable_name", "without_app_data"]

#: Bytes of a note indexed at most; the rest is reported, not indexed. Indexing costs about 1 ms
#: per KiB of prose and up to 3.5 ms per KiB of text whose every word is new (2 shared cores),
#: and the hook indexes a changed note whole before it answers (it checks its 0.5 s budget,
#: ``hook.SYNC_BUDGET_S``, only between notes): a changed note of 1,000 KiB took 1.2 s (prose) to
#: 3.9 s (every word new) of one hook call, and 0.4-0.7 s indexed up to 256 KiB
#: (``bench/big_note_ab.py``). The largest note of the shared fixtures and tests/data is 34 KB.
MAX_NOTE_BYTES: Final = 256 * 1024  # 256 KiB

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# Problem lines, kept in one place so callers and tests see the same words.
_P_TOO_LARGE = "larger than 256 KiB: only the first 256 KiB is indexed"
_P_NOT_UTF8 = "not valid UTF-8: undecodable bytes replaced"
_P_CP1252 = "not UTF-8: read as Windows-1252 (Latin-1)"
#: A UTF-8 sequence of two to four bytes: text that holds one is UTF-8 with a few bad bytes,
#: text that holds none and is not UTF-8 is a single-byte encoding (:func:`_decode`).
_UTF8_SEQUENCE: Final = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
_P_BINARY = "binary file (contains NUL bytes): only its name is indexed"
_P_EMPTY = "empty file"
_P_BAD_YAML = "malformed YAML front matter: "
_P_NOT_MAPPING = "front matter is not a mapping"
_P_BAD_MARKDOWN = "Markdown could not be parsed: indexed as plain text"
_HEADING_LINE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")

# Front matter opens with a `---` line at the very start of the file and
# closes at the next `---` or `...` line.
_FM_OPEN = re.compile(r"---[ \t]*(?:\n|\Z)")
_FM_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)
# TOML front matter, Hugo's and Zola's: between `+++` lines at the very start of the file
# (https://gohugo.io/content-management/front-matter/).
_TOML_OPEN = re.compile(r"\+\+\+[ \t]*\n")
_TOML_CLOSE = re.compile(r"^\+\+\+[ \t]*$", re.MULTILINE)
_P_BAD_TOML = "malformed TOML front matter: "

# [[target]], [[target|label]], [[target#section]], ![[embed.png]]
_WIKILINK = re.compile(r"!?\[\[([^\[\]\n]+)\]\]")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_HTML_TAG = re.compile(r"<[^>]*>")
_HTML_BR = re.compile(r"<br\b", re.IGNORECASE)
_TAG_SPLIT = re.compile(r"[,\s]+")
#: White space and the control characters of a title or heading (C0, DEL, C1: an ESC or BEL
#: from a file name or front matter must not reach a terminal or the assistant's line).
_SPACES = re.compile(r"[\s\x00-\x1f\x7f-\x9f]+")
#: Unicode's format characters (bidi overrides and isolates, zero-width spaces and joiners,
#: ``notesdb.text.FORMAT_CHARS``): dropped from a title or heading, whose words they would
#: reverse or hide on a terminal and in the assistant's line.
_INVISIBLE = re.compile(f"[{FORMAT_CLASS}]+")
#: Template placeholders: ``{{date}}`` (Obsidian core templates, Jinja, Mustache) and
#: ``<% tp.date.now() %>`` (Templater).
_PLACEHOLDER = re.compile(r"\{\{[^{}\n]{0,200}\}\}|<%(?:[^%<]|%(?!>)|<(?!%))*+%>")  # each <% read to the next one at most
_WORD = re.compile(r"[^\W\d_]{2,}")
#: A character of Chinese, Japanese (kana) or Korean (Hangul syllables).
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
#: A note with a placeholder and fewer words of its own than this is a template: a page of
#: field names ("Author:", "Rating:", "## Notes") around placeholders. A real note that shows
#: a placeholder in passing (a Jinja how-to) says more than a short paragraph.
MAX_TEMPLATE_WORDS: Final = 40
_NAME_SEPARATORS = re.compile(r"[-_\s]+")
#: A line of images, linked images (``[![CI](badge.svg)](url)``) and HTML tags only: in text
#: read without a Markdown parser, no content before the title's H1 (:func:`_decoration`).
_DECORATION_LINE = re.compile(r"^(?:\s*(?:\[\s*)?!\[[^\]\n]*\]\([^)\n]*\)(?:\s*\]\([^)\n]*\))?|\s*<[^>\n]*>)+\s*$")

# Bounds on walking a front-matter value, so that YAML anchors, aliases
# and self-referencing structures cannot blow up time or memory.
_MAX_VALUE_DEPTH = 8
_MAX_VALUE_ITEMS = 1000
_MAX_VALUE_VISITS = 10_000
#: Text longer than this (characters) is not parsed as Markdown: its ``#`` lines become
#: headings and the rest the body. markdown-it-py takes seconds on some large inputs (a
#: 900 KB table, 150,000 headings), and the hook must answer within about a second.
MARKDOWN_MAX_CHARS: Final = 128 * 1024
#: Text with more ``[`` than this is not parsed as Markdown either (read as for
#: ``MARKDOWN_MAX_CHARS``, with a problem line). markdown-it-py tries every ``[`` as a link
#: label and scans on for its close (``parseLinkLabel``): measured on 2 shared cores, 20,000
#: ``[`` take 0.35-0.42 s, 10,000 ``![`` 0.53 s, 255 KiB of ``[`` 3.8-5.0 s and 254 KiB of
#: ``![`` 5.3-8.5 s, while the hook may spend 0.5 s (``hook.SYNC_BUDGET_S``) on changed notes
#: and checks its budget only between notes. 10,000 bounds that work near 0.5 s; the most
#: ``[`` in any note of the shared fixtures and tests/data is 399, a 200 KiB minified JSON
#: paste holds about 14,000 (its ``#`` lines stay its title and headings in plain text).
MARKDOWN_MAX_BRACKETS: Final = 10_000
_P_BRACKETS = f"more than {MARKDOWN_MAX_BRACKETS:,} '[': indexed as plain text, not parsed as Markdown"
#: Text with more ``*`` and ``_`` together than this is not parsed as Markdown either (read as
#: for ``MARKDOWN_MAX_BRACKETS``, with a problem line). markdown-it-py keeps each as an emphasis
#: delimiter and matches them up after the line: measured on 2 shared cores (parse and walk of
#: one paragraph), 20,000 take 0.10-0.15 s, 40,000 0.21-0.33 s, 60,000 0.39-0.63 s, 120,000
#: ``*a`` or ``_a`` 1.2-1.3 s (1.6-2.6 s under load) and 255 KiB of ``*_`` 1.9 s, against 0.03 s
#: for 250 KiB of prose and the hook's 0.5 s for changed notes (``hook.SYNC_BUDGET_S``).
#: 20,000 keeps that work near a tenth of the budget; the most ``*`` and ``_`` in any note of
#: the shared fixtures and tests/data is 1,100 (a page of snake_case SQL function names).
MARKDOWN_MAX_EMPHASIS: Final = 20_000
_P_EMPHASIS = f"more than {MARKDOWN_MAX_EMPHASIS:,} '*' and '_': indexed as plain text, not parsed as Markdown"
#: Text of more lines than this is not parsed as Markdown either (read as for
#: ``MARKDOWN_MAX_CHARS``: a long journal or log is no problem of the note's). markdown-it-py
#: spends 10-45 us on each line: measured on 2 shared cores, 65,000 empty ``#`` headings (127
#: KiB, under ``MARKDOWN_MAX_CHARS``) take 1.7 s, 30,000 setext headings 1.1 s, 10,000 lines of
#: table rows, nested list items or task items 0.38-0.42 s, 5,000 lines of prose 0.06 s,
#: against the hook's 0.5 s for changed notes. 5,000 keeps that work near 0.2 s; the longest
#: of 14,086 notes in the shared fixtures, tests/data and six fetched folders has 3,226 lines
#: (a page of library links).
MARKDOWN_MAX_LINES: Final = 5_000
_MAX_PROBLEM_CHARS = 200


@dataclass
class Note:
    path: str  # POSIX path relative to the notes root, as given
    title: str
    desc: str  # description
    headings: str  # text of every heading except the one used as title, joined with "\n"
    body: str  # plain text of the note
    type: str  # "" when none
    aliases: list[str]
    tags: list[str]
    problems: list[str]  # one short human-readable line per problem, [] when none
    template: bool = False  # placeholders and field names only: a template, not a note
    links: list[str] = field(default_factory=list)  # notes its links name (``notesdb.links.targets``)
    #: what its links call the notes they name: ``[key, tail, text]`` (``notesdb.links.anchors``)
    anchors: list[list[str]] = field(default_factory=list)


def parse_note(path: str, data: bytes) -> Note:
    """Parse one Markdown file into a :class:`Note`.

    ``path`` is the note's POSIX path relative to the notes root; it is
    stored as given and only used to derive a title when the note has
    none. ``data`` is the raw file content in bytes. At most
    ``MAX_NOTE_BYTES`` (256 KiB) bytes are parsed; the caller may pass one
    byte more so that an oversized file can be reported.

    Never raises: whatever the bytes, a ``Note`` comes back, with one short
    line in ``problems`` for each thing that was wrong with the file.

    Rules, in brief:

    * Decoding: UTF-8, BOM stripped, CRLF and CR turned into LF. Invalid
      UTF-8 is decoded with replacement characters (a problem). NUL bytes
      that only pad the end are dropped; data with a NUL byte before its
      end is binary: only the title (from the file name) is filled in.
      An empty or whitespace-only file gets its title from the file name.
    * Front matter: YAML between a leading ``---`` line and the next
      ``---`` or ``...`` line. It is removed from the body even when it is
      malformed or not a mapping (both are problems). Values of any YAML
      type are turned into text.
    * title: ``title``, else ``name``, else the first H1 heading, else the
      file name made readable (``home/smoke-alarms.md`` -> "smoke alarms"). Only an H1
      that is the note's first content line is a title: an H1 further down ("Resources",
      "Problem") is a section heading like any other.
      desc: ``description``, else ``summary``. type: ``type``, else
      ``metadata.type``. aliases: ``aliases``/``alias``, a list or one
      string. tags: ``tags``/``tag``, a list or a string split on commas
      and whitespace, leading ``#`` removed. Key names match regardless
      of case.
    * headings: the text of every heading, one per line, except the H1
      that supplied the title.
    * body: the plain text of everything else, one block per line:
      paragraphs, list items, table rows (cells joined by " | "),
      block quotes, code (verbatim), image alt text, the text of HTML
      blocks. Link text is kept, URLs and emphasis markers are not.
      Wikilinks become searchable words: ``[[t]]`` -> "t",
      ``[[t|label]]`` -> "label t", ``[[t#sec]]`` -> "t sec".
    """
    try:
        return _parse(path, data)
    except Exception as exc:  # pragma: no cover - last line of defence
        return _empty_note(path, [_problem("could not parse note: ", exc)])


def as_utf8(data: bytes) -> bytes:
    """A file's bytes as UTF-8: UTF-16 with its byte order mark (Windows PowerShell 5's ``>``,
    Notepad's "Unicode"), whose every other byte of ASCII text is a NUL and would read as a
    binary file, is decoded (a last odd byte, cut by a read limit, is left out); any other bytes
    are returned as they are."""
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        even = data[: len(data) - len(data) % 2]
        return even.decode("utf-16", "replace").encode("utf-8")
    return data


def _parse(path: str, data: bytes) -> Note:
    data = bytes(data)
    problems: list[str] = []

    # a UTF-16 note's first 256 KiB of bytes are read (half as many characters of ASCII text):
    # the reader stops there, so what lies beyond is reported like any note's rest
    cut = data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) and len(data) > MAX_NOTE_BYTES
    if cut:
        data = data[:MAX_NOTE_BYTES]
        problems.append(_P_TOO_LARGE)
    data = as_utf8(data)

    # NUL bytes after the text only (a file preallocated or padded by a sync tool): the text
    # before them is the note; a NUL inside the text makes it binary
    data = data.rstrip(b"\x00")
    if b"\x00" in data[: MAX_NOTE_BYTES]:
        return _empty_note(path, [_P_BINARY])

    truncated = len(data) > MAX_NOTE_BYTES
    if truncated:  # 256 KiB of UTF-16 can be 384 KiB of UTF-8 (CJK text)
        data = data[:MAX_NOTE_BYTES]
        if not cut:
            problems.append(_P_TOO_LARGE)

    text, problem = _decode(data, final=not truncated)
    if problem:
        problems.append(problem)
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")

    if not text.strip():
        return _empty_note(path, problems + [_P_EMPTY])

    joplin = joplin_item(text) if _JOPLIN_NAME.fullmatch(path.rsplit("/", 1)[-1]) else None
    joplin_title = ""
    if joplin is not None:
        item_type, joplin_title, text = joplin
        if item_type != JOPLIN_NOTE:
            return _empty_note(path, problems)  # a notebook, tag, attachment or revision: no note

    head, kind, found = _front_matter_end(text)
    front = text[:head]  # placeholders in front matter count towards a template
    if "{{" not in front and "<%" not in front:
        front = ""
    if "{{" in text or "{%" in text:
        text = text[:head] + without_site_tags(text[head:], liquid=kind == "yaml")
    links, anchors = read_links(text, path)  # front matter included: Obsidian's properties hold links too
    if kind == "yaml":
        meta, text = _front_matter(text, problems)
    elif kind == "toml":
        meta, text = _toml_front_matter(text, problems)
    elif kind == "json":
        meta, text = found, text[head:]
    else:
        meta, text = page_properties(text)
    text = without_app_data(text, drawing="excalidraw-plugin" in meta)
    text = without_admonition_markers(text)
    text = without_math_commands(text)
    text = without_outliner_markup(text)
    template = _is_template(front + text)

    title = _first_text(meta, "title", "name") or _one_line(joplin_title)
    desc = _first_text(meta, "description", "summary", "excerpt", "desc")
    note_type = _first_text(meta, "type")
    if not note_type:
        nested = meta.get("metadata")
        if isinstance(nested, dict):
            note_type = _first_text(_lower_keys(nested), "type")
    aliases = _dedupe(
        _one_line(s) for s in _strings(_first_value(meta, "aliases", "alias")) if not url_alias(s)
    )
    tags = _dedupe(
        part.lstrip("#")
        for s in _strings(_first_value(meta, "tags", "tag"))
        for part in _TAG_SPLIT.split(s)
    )

    try:
        if len(text) > MARKDOWN_MAX_CHARS:
            headings, body = _plain_text(text, drop_first_h1=not title)
        elif text.count("[") > MARKDOWN_MAX_BRACKETS:
            headings, body = _plain_text(text, drop_first_h1=not title)
            problems.append(_P_BRACKETS)
        elif text.count("*") + text.count("_") > MARKDOWN_MAX_EMPHASIS:
            headings, body = _plain_text(text, drop_first_h1=not title)
            problems.append(_P_EMPHASIS)
        elif text.count("\n") > MARKDOWN_MAX_LINES:
            headings, body = _plain_text(text, drop_first_h1=not title)
        else:
            headings, body = _markdown_text(text, drop_first_h1=not title)
    except Exception:
        # markdown-it-py has no known failure on str input, but a single
        # bad file must not stop an index run.
        headings, body = [], [text.strip()]
        problems.append(_P_BAD_MARKDOWN)

    body += property_text(meta)
    if not title and headings and headings[0][0] == "h1-title":
        title = headings.pop(0)[1]
    if not title:
        title = _title_from_path(path)

    return Note(
        path=path,
        title=title,
        desc=desc,
        headings="\n".join(h for _, h in headings),
        body="\n".join(body),
        type=note_type,
        aliases=aliases,
        tags=tags,
        problems=problems,
        template=template,
        links=links,
        anchors=anchors,
    )


#: A fence's opening or closing line (CommonMark: three or more backticks or tildes; a backtick
#: fence's info string holds no backtick, so "```x``` words" is inline code, not a fence), at any
#: indent and after a list item's marker: a fence inside a list item (Logseq writes every block
#: as one, ``- ```yaml``, its children indented by tabs) is code as a top-level one is.
_FENCE_LINE: Final = re.compile(r"[ \t]*+(?:(?:[-*+]|\d{1,9}[.)])[ \t]++)?(?:(`{3,}+)(?!.*`)|(~{3,}+))")  # possessive: a run is not re-read shorter


def outside_code(text: str, change: Callable[[str], str]) -> str:
    """``text`` with ``change`` applied to each run of its lines outside fenced code (the runs
    joined by ``\n``, as they stand); fenced code, fence lines included, is left as it is.
    Linear in the text's length, plus ``change``'s cost."""
    if "```" not in text and "~~~" not in text:
        return change(text)
    out: list[str] = []
    prose: list[str] = []
    fence = ""
    for line in text.split("\n"):
        was, (fence, info) = fence, fence_after(line, fence)
        if was or info is not None:
            if prose:
                out.append(change("\n".join(prose)))
                prose = []
            out.append(line)
            continue
        prose.append(line)
    if prose:
        out.append(change("\n".join(prose)))
    return "\n".join(out)


def fence_after(line: str, fence: str) -> tuple[str, str | None]:
    """Fenced code, one line at a time: ``(fence, info)`` after ``line``, given the ``fence``
    open before it ("" for none). ``fence`` is the run of backticks or tildes of the block open
    after the line ("" once it closes); ``info`` is the info string of a fence the line opens
    (``"dataview"``, ``""``), else None. A line is code when a fence was open before it or it
    opens one."""
    mark = _FENCE_LINE.match(line)
    run, rest = ((mark.group(1) or mark.group(2)), line[mark.end():]) if mark else ("", "")
    if fence:
        closes = run and run[0] == fence[0] and len(run) >= len(fence) and not rest.strip()
        return ("" if closes else fence), None
    return (run, rest.strip()) if run else ("", None)
#: A fence of plugin data inside a comment: at the start of its line, as the plugins write it.
_DATA_FENCE: Final = re.compile(r"(?:`{3,}|~{3,})")
#: An Obsidian block ID (https://help.obsidian.md/Linking+notes+and+files/Internal+links): ``^``
#: and two or more letters, digits and dashes, not a number, at the end of a line after a space
#: (``Some text ^a1b2c3``) or on a line of its own (``^quote-of-the-day``, after a table or a
#: quote): a handle for links to the block, not words of the note. "E = mc ^2" and "Press ^C"
#: keep theirs.
_BLOCK_ID: Final = re.compile(r"(?:^|[ \t])\^(?![0-9]+[ \t]*$)[A-Za-z0-9-]{2,}[ \t]*$")
#: The notice the Excalidraw plugin writes at the top of each drawing's note, and the headings
#: of the sections it writes below (https://github.com/zsviczian/obsidian-excalidraw-plugin).
_DRAWING_NOTICE: Final = re.compile(r"==⚠.*⚠==|#{1,6}[ \t]+(?:Excalidraw Data|Text Elements|Drawing)[ \t]*$")
#: The headings of a drawing's sections that list what its elements link to and the files it
#: embeds, one ``id: [[target]]`` line each: the plugin's, not the drawing's words.
_DRAWING_LINKS: Final = re.compile(r"#{1,6}[ \t]+(?:Element Links|Embedded Files)[ \t]*$")


#: The info strings of fenced blocks that hold a plugin's query or settings, not the person's
#: words: Dataview's queries (``dataview``, ``dataviewjs``), the Tasks plugin's (``tasks``),
#: Obsidian's embedded searches (``query``) and bases (``base``), and the settings of the
#: table-of-contents plugins (``table-of-contents``, ``toc``). What such a block shows is other
#: notes' text or headings, worked out when the note is viewed.
PLUGIN_FENCES: Final = frozenset({"dataview", "dataviewjs", "tasks", "query", "base", "table-of-contents", "toc"})
_PLUGIN_FENCE: Final = re.compile(
    r"^(?:[ \t]*>)* ?[ ]{0,3}(?:`{3,}|~{3,})[ \t]*(?:" + "|".join(re.escape(n) for n in sorted(PLUGIN_FENCES, key=len, reverse=True)) + r")[ \t]*$",
    re.MULTILINE | re.IGNORECASE,
)
#: An Obsidian callout's type marker after a quote's ``>`` (``> [!NOTE]- Sources``,
#: https://help.obsidian.md/Editing+and+formatting/Callouts): how it is drawn, not its words;
#: its title after it stays.
_CALLOUT: Final = re.compile(r"^((?:[ \t]*>)+[ \t]*)\[![\w-]+(?:\|[^\]\n]*)?\][+-]?[ \t]*")
#: Dataview's inline queries (`` `= this.file.mtime` ``, `` `$= dv.current()` ``): worked out when
#: the note is viewed, no words of it (1,189 notes of a public vault held ``dv``, ``customjs``).
_INLINE_QUERY: Final = re.compile(r"`\$?=[^`\n]*`")
#: An inline field's key at the start of a line (``id:: 6466f3a2-...``, ``- **Source**:: x``):
#: a field whose value is an ID (Logseq's block IDs, one per block another block refers to) is
#: no text; other fields stay text, key and value, to be searched.
_FIELD_KEY: Final = re.compile(r"^([ \t]*(?:>[ \t]*)*(?:[-*+][ \t]+|\d+[.)][ \t]+)?)(?:\*\*|__)?[^\s:*_\[\]()`][^:*_\[\]()`\n]{0,60}?(?:\*\*|__)?::(?=[ \t]|$)[ \t]*")
#: The keys of the fields an outliner keeps for itself (lower case): Logseq's hidden built-in
#: properties (``hidden-built-in-properties`` and the flashcards' ``card-*`` properties in
#: Logseq's graph parser, ``deps/graph-parser/src/logseq/graph_parser/property.cljs``: a block's
#: collapsed state, colour and heading level, a PDF highlight's page, colour and stamp, a
#: query's table settings, a flashcard's review schedule) and its editable settings that are no
#: words (``public``, ``filters``, ``icon``, ``exclude-from-graph-view``,
#: ``template-including-parent``). A field of these keys is dropped, key and value: five public
#: graphs (3,999 pages) held "collapsed:: true" in 2,267 blocks, "hl-page::" in 2,183 and
#: "card-ease-factor::" in 872.
#: ``id::`` is dropped by its value (:data:`_BLOCK_UUID`), as any field holding a block's ID.
APP_FIELDS: Final = frozenset(
    "custom-id background-color background_color heading collapsed created-at updated-at "
    "last-modified-at created_at last_modified_at query-table query-properties query-sort-by "
    "query-sort-desc ls-type hl-type hl-page hl-stamp hl-color logseq.macro-name "
    "logseq.macro-arguments logseq.order-list-type logseq.tldraw.page logseq.tldraw.shape "
    "card-last-interval card-repeats card-last-reviewed card-next-schedule card-ease-factor "
    "card-last-score public filters icon exclude-from-graph-view template-including-parent".split()
)
#: A block ID as Logseq writes it (``id:: 6466f3a2-1b2c-4d5e-8f90-123456789abc``), or a run
#: of 16 or more hex digits.
_BLOCK_UUID: Final = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}|[0-9a-fA-F]{16,}")
#: A Logseq drawer's first line (``:LOGBOOK:``), its clock entries and its last line.
_DRAWER_START: Final = re.compile(r"[ \t]*:LOGBOOK:[ \t]*")
_DRAWER_CLOCK: Final = re.compile(r"[ \t]*(?:CLOCK:.*)?")
_DRAWER_END: Final = re.compile(r"[ \t]*:END:[ \t]*")


def _app_field(key: str, value: str) -> bool:
    """Whether a ``key:: value`` field is an outliner's own data rather than the person's: a
    block ID (:data:`_BLOCK_UUID`), or a key of :data:`APP_FIELDS` written as Logseq writes it
    (lower case) with a value of one token or a ``[...]``/``{...}`` structure, as Logseq's are
    (``collapsed:: true``, ``hl-page:: 3``, ``query-properties:: [:page :created-at]``). A field
    a person wrote stays text: ``Filters:: HEPA H13 and carbon``, ``heading:: north-east of the
    house``, ``due:: 2024-03-15``, ``wifi:: Guest2024``."""
    if _BLOCK_UUID.fullmatch(value):
        return True
    return key in APP_FIELDS and (len(value.split(maxsplit=1)) < 2 or value[:1] in "[{")


#: A heading that is nothing but a number block ID, as Readwise writes above each highlight.
_NUMBER_ID_HEADING: Final = re.compile(r" {0,3}#{1,6}[ \t]+\^[0-9]{3,}[ \t]*")
#: A setting line at the start of an Admonition plugin's block (```` ```ad-note ````):
#: ``title: ...``, ``collapse: open``, ``icon: ...``, ``color: ...``; the title is text.
_ADMONITION_SETTING: Final = re.compile(r"[ \t]*(title|collapse|icon|color)[ \t]*:[ \t]*(.*)", re.IGNORECASE)
#: The ``>`` marks of a quote's line (one space after the last is the quote's): a fence inside a
#: quote or callout is read from the text after them (a Dataview query in a dashboard's callout).
_QUOTE_MARKS: Final = re.compile(r"^(?:[ \t]*>)+ ?")


def without_app_data(text: str, drawing: bool = False) -> str:
    """The text of a note without what an app keeps in it for itself rather than the person's
    words, line by line, fenced code kept as it is:

    - an Obsidian comment that holds fenced code: ``%%`` at the start of a line, not indented
      (so never inside a list's or an indented block's code: a Jupyter ``%%timeit``, a MATLAB
      ``%% section``), to the next ``%%`` (the text after it is kept, as Obsidian shows it) or
      to the end of the note, with a fence at the start of one of its lines: a plugin's data,
      such as an Excalidraw drawing's JSON (tens to hundreds of KB of coordinates, colours and
      IDs) or a Kanban board's settings. A comment of words stays: it is the person's;
    - block IDs (:data:`_BLOCK_ID`: ``^a1b2c3``);
    - a fenced block of a plugin's query or settings (:data:`PLUGIN_FENCES`: ```` ```dataview ````),
      fence lines included, in a quote or callout too (where it ends with the quote);
    - a callout's type marker (``> [!NOTE]``, ``> [!infobox|noicon]``; its title stays);
    - Dataview's inline queries (:data:`_INLINE_QUERY`), a field whose value is an ID
      (Logseq's ``id:: 6466f3a2-...``: :data:`_FIELD_KEY`) and a field an outliner keeps for
      itself (:data:`APP_FIELDS`: ``collapsed:: true``, ``hl-page:: 3``);
    - a Logseq ``:LOGBOOK:`` drawer: its clock entries (``CLOCK: [...]``) to its ``:END:``;
    - a heading that is nothing but a number block ID (Readwise's ``##### ^242134827``);
    - an Admonition plugin's block (```` ```ad-note ````) is read as Markdown, not code: its
      fences and settings are dropped, its ``title:`` kept;
    - in an Excalidraw drawing (``drawing``: front matter ``excalidraw-plugin``), the plugin's
      notice to switch to its view, the headings of its sections ("Text Elements") and its
      lists of element links and embedded files. The drawing's text elements stay: they are
      its words.

    :param text: the note's text after its front matter, ``\n`` line ends
    :returns: the text to index; linear in its length
    """
    plugin = _PLUGIN_FENCE.search(text) is not None
    admonitions = "ad-" in text
    if (
        "%%" not in text and "^" not in text and "[!" not in text and "::" not in text and "`=" not in text
        and "`$=" not in text and not drawing and not plugin and not admonitions and ":LOGBOOK:" not in text
    ):
        return text
    lines = text.split("\n")
    out: list[str] = []
    fence = ""  # the fence of the code block the line is in, if any
    quoted = False  # that code block is inside a quote or callout (and ends with it)
    hidden = False  # that code block is a plugin's query or settings
    listing = False  # in a drawing's list of links or embedded files
    admonition = ""  # the fence of an Admonition plugin's block the line is in, if any
    settings = False  # the line may be one of that block's settings (they come first)
    i = 0
    while i < len(lines):
        line = lines[i]
        if admonition and not fence:
            if fence_after(line, admonition)[0] == "":
                admonition = ""  # its closing fence
                i += 1
                continue
            setting = _ADMONITION_SETTING.match(line) if settings else None
            if setting:
                if setting.group(1).lower() == "title" and setting.group(2).strip():
                    out.append(setting.group(2).strip())
                i += 1
                continue
            settings = False
        inner = _QUOTE_MARKS.sub("", line, count=1) if line.lstrip().startswith(">") else None
        if fence and quoted and inner is None:
            fence = ""  # a fence opened in a quote closes where the quote ends
        was, (fence, info) = fence, fence_after(line if inner is None else inner, fence)
        if not was and info is not None and admonitions and inner is None and info.lower().startswith("ad-"):
            admonition, fence, settings = fence, "", True  # read as Markdown, without its fences
            i += 1
            continue
        if was or info is not None:
            if info is not None:
                hidden = plugin and info.lower() in PLUGIN_FENCES
                quoted = inner is not None
            if not hidden:
                out.append(line)
            i += 1
            continue
        if "[!" in line:
            line = _CALLOUT.sub(r"\1", line)
        if "`=" in line or "`$=" in line:
            line = _INLINE_QUERY.sub("", line)
        if "::" in line:
            field = _FIELD_KEY.match(line)
            if field and _app_field(line[field.end(1):field.end()].rstrip(" \t:*_"), line[field.end():].strip()):
                line = field.group(1)  # an ID ("id:: 6466f3a2-...") or the app's ("collapsed:: true")
        if ":LOGBOOK:" in line and _DRAWER_START.fullmatch(line):
            end = i + 1  # a drawer is its clock entries, then :END: (each line read once)
            while end < len(lines) and not _DRAWER_END.fullmatch(lines[end]) and _DRAWER_CLOCK.fullmatch(lines[end]):
                end += 1
            if end < len(lines) and _DRAWER_END.fullmatch(lines[end]):
                i = end + 1
                continue
        if _NUMBER_ID_HEADING.fullmatch(line):
            i += 1
            continue  # a highlight's ID as a heading of its own (Readwise: "##### ^242134827")
        if line.startswith("%%") and "%%" not in line[2:]:
            end, data = i + 1, False
            while end < len(lines) and "%%" not in lines[end]:
                data = data or bool(_DATA_FENCE.match(lines[end]))
                end += 1
            if data:
                after = lines[end].split("%%", 1)[1] if end < len(lines) else ""
                if after.strip():  # "%% visible text": shown after the comment
                    lines[end] = after
                    i = end
                else:
                    i = end + 1
                continue
        if drawing:
            opened = line.lstrip()
            if _DRAWING_LINKS.match(opened):
                listing = True
                i += 1
                continue
            if listing and (opened.startswith("#") or opened.startswith("%%")):
                listing = False
            if listing or _DRAWING_NOTICE.match(opened):
                i += 1
                continue
        if "^" in line:
            line = _BLOCK_ID.sub("", line)
        out.append(line)
        i += 1
    return "\n".join(out)


#: A MkDocs admonition's or content tab's opening line (Python-Markdown's admonition,
#: pymdownx.details and pymdownx.tabbed: ``!!! note "Title"``, ``???+ tip``,
#: ``!!! info inline end``, ``=== "Tab"``): its body follows, indented four spaces. The marker
#: and the type (a lower-case word) are no words; the title is. "!!! Call the bank" is text.
_ADMONITION: Final = re.compile(
    r"""([ ]*)(?:(?:!!!|\?\?\?\+?)[ \t]+[a-z][\w-]*(?:[ \t]+(?:inline|end))*(?:[ \t]+"([^"]*)")?|===\+?[ \t]+"([^"]*)")[ \t]*"""
)
#: A line of kramdown's block attributes (``{: .no_toc .text-delta }``, ``{:toc}``,
#: ``{: #intro}``): no text.
_BLOCK_ATTRIBUTES: Final = re.compile(r"\{:[^{}\n]*\}")
#: The type word of a Docusaurus admonition (``:::tip``).
_COLON_TYPE: Final = re.compile(r"[A-Za-z][\w-]*")
#: A ``title="..."`` setting in a directive's braces (``:::note{title="Careful"}``).
_TITLE_SETTING: Final = re.compile(r"""title=(?:"([^"]*)"|'([^']*)')""")


def _colon_fence(line: str) -> str | None:
    """What a Docusaurus admonition's or a Pandoc fenced div's fence line shows: its title
    (``:::tip Use the cache``, ``:::note[Heads up]``, ``:::note{title="Careful"}``) or nothing
    (``:::``, ``::: warning``, ``::: {.warning}``); None for a line that is no such fence
    ("::: Lesson learned: always test" is text). Linear in the line's length."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith(":::"):
        return None
    rest = stripped.lstrip(":")
    if not rest.strip():
        return ""  # a closing fence
    if rest[0] in " \t":
        rest = rest.strip()
        if rest.startswith("{") and rest.find("}") == len(rest) - 1:
            return ""  # Pandoc: ::: {.warning}
        if " " not in rest and "\t" not in rest and _COLON_TYPE.fullmatch(rest):
            return ""  # Pandoc: ::: warning
        return None
    kind = _COLON_TYPE.match(rest)
    if kind is None:
        return None
    after = rest[kind.end():]
    if after.startswith("["):
        close = after.find("]")
        return after[1:close].strip() if close > 0 and not after[close + 1 :].strip() else None
    if after.startswith("{"):
        if after.find("}") != len(after.rstrip()) - 1:
            return None
        title = _TITLE_SETTING.search(after)
        return next((g for g in title.groups() if g is not None), "") if title else ""
    return after.strip() if not after or after[0] in " \t" else None


def without_admonition_markers(text: str) -> str:
    """The text without the markers of admonitions, collapsible blocks and content tabs, and
    their bodies read as text: MkDocs' ``!!! note "Title"``, ``??? tip``, ``=== "Tab"``, whose
    bodies are indented four spaces (read as they are, the indent made them code: raw Markdown,
    link addresses and all), and Docusaurus' and Pandoc's ``:::tip Title`` ... ``:::``. The
    title stays as a line of text; the body is taken back by the indent it was given (nested
    ones too). A line of kramdown's block attributes (``{: .no_toc}``, ``{:toc}``) is dropped.
    Fenced code is left as it is.

    :returns: the text; unchanged, and not scanned line by line, when it holds none of
        ``!!!``, ``???``, ``=== "``, ``:::`` or ``{:``
    """
    if "!!!" not in text and "???" not in text and '=== "' not in text and ":::" not in text and "{:" not in text:
        return text
    out: list[str] = []
    bodies: list[int] = []  # the indent of each open admonition's body, innermost last
    fence = ""
    for raw in text.split("\n"):
        line = raw.expandtabs(4) if "\t" in raw[:16] else raw
        indent = len(line) - len(line.lstrip(" "))
        if line.strip() and not fence:
            while bodies and indent < bodies[-1]:
                bodies.pop()
        cut = min(bodies[-1], indent) if bodies else 0
        line = line[cut:]
        was, (fence, info) = fence, fence_after(line, fence)
        if was or info is not None:
            out.append(line)
            continue
        opened = _ADMONITION.fullmatch(line)
        if opened:
            out.append(opened.group(1) + (opened.group(2) or opened.group(3) or ""))
            bodies.append(cut + len(opened.group(1)) + 4)
            continue
        if line.lstrip(" ").startswith("{:") and _BLOCK_ATTRIBUTES.fullmatch(line.strip()):
            continue  # kramdown's attributes of the block above or below: {: .no_toc}, {:toc}
        shown = _colon_fence(line) if ":::" in line[:6] else None
        if shown is not None:
            out.append(shown)
            continue
        out.append(line)
    return "\n".join(out)


#: The opening of a span of LaTeX math: ``$$``, ``\begin{equation}`` (its environment's name
#: captured), ``\(`` and ``\[`` (also ``\\(``, ``\\[`` as Markdown exporters escape them:
#: ox-hugo), and ``$``.
_MATH_OPEN: Final = re.compile(r"\$\$|\\begin\{([A-Za-z*]{1,40})\}|(\\\\?)([(\[])|\$")
#: A LaTeX command (``\frac``, ``\mathbf``, ``\theta``) or an environment's begin or end.
_MATH_COMMAND: Final = re.compile(r"\\(?:begin|end)\{[A-Za-z*]{1,40}\}|\\([A-Za-z]+)")
#: LaTeX commands of layout, type faces, accents, dots, spacing and relations: no word a
#: person types about the math (the standard set of LaTeX and amsmath). The names a person may
#: type stay: functions and operators (``\sin``, ``\det``, ``\lim``, ``\log``), Greek letters
#: (``\lambda``), ``\sum``, ``\int``, ``\partial``: "laplace transform of sin(at)" found its
#: note by ``\sin``.
MATH_LAYOUT: Final = frozenset(
    "frac dfrac tfrac cfrac binom left right middle big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr "
    "mathbf mathcal mathrm mathit mathbb mathsf mathtt mathfrak mathscr boldsymbol bm text textbf textit "
    "textrm texttt textsf operatorname mathop hat bar tilde vec dot ddot overline underline overbrace "
    "underbrace widehat widetilde cdot cdots ldots dots vdots ddots quad qquad label tag nonumber notag "
    "displaystyle textstyle scriptstyle limits nolimits mid times in notin to rightarrow leftarrow "
    "Rightarrow Leftarrow leftrightarrow Leftrightarrow mapsto implies iff leq le geq ge neq ne approx "
    "equiv sim simeq propto forall exists infty cap cup subset subseteq supset supseteq setminus "
    "emptyset pm mp sqrt color hline nabla".split()
)
#: Longest span of math read, and longest inline ``$...$``: an opening never closed is looked
#: for within these, so a note of openings is read once.
MATH_MAX_CHARS: Final = 5000
_INLINE_MATH_MAX_CHARS: Final = 500


def without_math_commands(text: str) -> str:
    r"""The text with LaTeX math's layout commands taken out of its math (``\frac``,
    ``\mathbf``, ``\left``, ``\begin{equation}``: :data:`MATH_LAYOUT`): they were words of every
    note of equations ("begin" and "end" of 107 notes of a public org-roam site, "frac" of 65),
    and what they stand for is no word a person types. Functions, operators and Greek letters
    (``\sin``, ``\det``, ``\lambda``) stay: a person types them. Math is ``$$...$$``, ``\begin{env}...\end{env}``, ``\(...\)``,
    ``\[...\]`` (or with the backslashes doubled, as ox-hugo writes them) and ``$...$`` on one
    line holding a command (so "$5 and $10" is not math). The rest of the math stays: its
    variables, numbers and the words of ``\text{...}``. Fenced code is left as it is. Linear: an
    opening is looked for its close within ``MATH_MAX_CHARS``.

    :returns: the text, unchanged when it holds no backslash
    """
    if "\\" not in text:
        return text
    return outside_code(text, _without_commands)


def _without_commands(text: str) -> str:
    """:func:`without_math_commands` of text with no fenced code."""
    out: list[str] = []
    done = at = 0
    nearest: dict[str, int] = {}  # the next place of each fixed close mark at or after the last search
    while (m := _MATH_OPEN.search(text, at)) is not None:
        opening = m.group(0)
        if opening == "$$":
            close_mark = "$$"
        elif m.group(1):
            close_mark = "\\end{" + m.group(1) + "}"
        elif m.group(3):
            close_mark = m.group(2) + (")" if m.group(3) == "(" else "]")
        else:
            close_mark = "$"
        limit = _INLINE_MATH_MAX_CHARS if opening == "$" else MATH_MAX_CHARS
        if m.group(1) or opening == "$":
            close = text.find(close_mark, m.end(), m.end() + limit)
        else:  # the next close of each fixed mark is kept, so openings never closed are read once
            if nearest.get(close_mark, -2) == -2 or 0 <= nearest[close_mark] < m.end():
                nearest[close_mark] = text.find(close_mark, m.end())
            close = nearest[close_mark] if nearest[close_mark] <= m.end() + limit else -1
        span = text[m.end() : close] if close >= 0 else ""
        if close < 0 or (opening == "$" and ("\n" in span or _MATH_COMMAND.search(span) is None)):
            at = m.end()
            continue
        end = close + len(close_mark)
        out.append(text[done : m.start()])
        out.append(_MATH_COMMAND.sub(_layout_gone, text[m.start() : end]))
        done = at = end
    out.append(text[done:])
    return "".join(out)


def _layout_gone(m: re.Match[str]) -> str:
    """A math command as :func:`without_math_commands` keeps it: a space for an environment's
    begin or end or a command of :data:`MATH_LAYOUT`, else as written."""
    return " " if m.group(1) is None or m.group(1) in MATH_LAYOUT else m.group(0)


#: The last line of an item of Joplin's sync folder (its type: 1 a note, 2 a notebook, 4 an
#: attachment, 5 a tag, 6 a note's tag, 13 a revision, ...).
_JOPLIN_TYPE: Final = re.compile(r"\ntype_: ?(\d+)[ \t]*\n*\Z")
#: A property line of a Joplin item (``parent_id: 0f1e...``, ``author: ``).
_JOPLIN_FIELD: Final = re.compile(r"[a-z_]+:(?: .*)?")
_JOPLIN_ID: Final = re.compile(r"id: [0-9a-f]{32}")
#: The file name Joplin gives an item: its ID, 32 hex digits.
_JOPLIN_NAME: Final = re.compile(r"[0-9a-f]{32}\.md")
#: Joplin's type of a note (``type_: 1``).
JOPLIN_NOTE: Final = 1


def joplin_item(text: str) -> tuple[int, str, str] | None:
    """Read an item as Joplin's sync folder keeps it (Joplin's "File system" sync target and its
    raw export: one ``<32 hex digits>.md`` file an item; ``BaseItem.serialize`` in Joplin's
    source): the title on the first line, a blank line, the body, a blank line, then one
    ``key: value`` line a property (``id``, ``parent_id``, ``created_time``, ``latitude``,
    ``source_application``, ...) ending with ``type_: N``. Its properties are the app's, no
    words of the note, and its file name is an ID.

    :param text: the file's text, ``\n`` line ends
    :returns: ``(type, title, body)`` for such an item (the body without the properties; type
        :data:`JOPLIN_NOTE` for a note, another number for a notebook, tag, attachment or
        revision, and an encrypted note counts as none: 0), else None. Only the last 64
        characters are read for a file that is not one.
    """
    if "type_:" not in text[-64:] or _JOPLIN_TYPE.search(text, max(0, len(text) - 64)) is None:
        return None
    lines = text.rstrip("\n").split("\n")
    start = len(lines)
    while start > 0 and _JOPLIN_FIELD.fullmatch(lines[start - 1]):
        start -= 1
    fields = lines[start:]
    if start < 2 or lines[start - 1].strip() or not any(_JOPLIN_ID.fullmatch(f) for f in fields):
        return None
    item_type = int(fields[-1].split(":", 1)[1])
    if "encryption_applied: 1" in fields:
        item_type = 0
    head = lines[: start - 1]
    return item_type, head[0].strip(), "\n".join(head[2:] if len(head) > 1 and not head[1].strip() else head[1:])


def _is_template(text: str) -> bool:
    """True for a note of placeholders and field names (see ``MAX_TEMPLATE_WORDS``). Only a
    placeholder in the note's prose counts (:func:`_placeholder` for ``{{...}}``, and Templater's
    ``<% ... %>``): one in fenced or inline code is shown, not filled in (a cheat sheet's
    `` `tar cf {{target.tar}} {{file1 file2}}` ``: 2,455 of the 7,220 pages of a command-line
    cheat-sheet collection were left out as templates). A character of Chinese, Japanese or
    Korean counts as half a word (a run of them is one word to :data:`_WORD`).

    :param text: the note's text, its front matter included (a template's title is often a
        placeholder there)
    """
    if "{{" not in text and "<%" not in text:
        return False
    found = 0

    def placeholder(m: re.Match[str]) -> str:
        nonlocal found
        if m.group().startswith("{{") and not _placeholder(m.group()[2:-2]):
            return m.group()
        found += 1
        return " "

    outside_code(text, lambda prose: _PLACEHOLDER.sub(placeholder, without_code_spans(prose)))
    if not found:
        return False
    rest = _PLACEHOLDER.sub(" ", text)
    return len(_WORD.findall(rest)) + len(_CJK_CHAR.findall(rest)) // 2 < MAX_TEMPLATE_WORDS


def without_code_spans(text: str) -> str:
    """``text`` with each inline code span (a run of backticks to the next run of the same
    length on its line; CommonMark's spans, read line by line) made a space. A run that no run
    closes on its line is kept as written. Linear: each run of backticks is read once."""
    if "`" not in text:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if "`" not in line:
            out.append(line)
            continue
        kept: list[str] = []
        done = 0
        opening: re.Match[str] | None = None
        for run in _BACKTICKS.finditer(line):
            if opening is None:
                opening = run
            elif len(run.group()) == len(opening.group()):
                kept.append(line[done:opening.start()] + " ")
                done, opening = run.end(), None
        kept.append(line[done:])
        out.append("".join(kept))
    return "\n".join(out)


def _empty_note(path: str, problems: list[str]) -> Note:
    return Note(
        path=path,
        title=_title_from_path(path),
        desc="",
        headings="",
        body="",
        type="",
        aliases=[],
        tags=[],
        problems=problems,
    )


def _problem(prefix: str, exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    detail = lines[0].strip() if lines else type(exc).__name__
    return (prefix + detail)[:_MAX_PROBLEM_CHARS]


# --- decoding ---------------------------------------------------------------


def _decode(data: bytes, *, final: bool) -> tuple[str, str]:
    """Decode a note's bytes; return the text and its problem (``""`` for valid UTF-8).

    Bytes that are not UTF-8 and hold no UTF-8 sequence of two or more bytes
    (:data:`_UTF8_SEQUENCE`) are read as Windows-1252, the superset of Latin-1 that older
    Windows and Mac editors wrote ("caf\xe9 cr\xe8me" is "café crème"; replaced, its words
    were lost to search); otherwise the bytes that are not UTF-8 are replaced (U+FFFD). With
    ``final=False`` (the data was cut at the size limit) a multi-byte character split by the
    cut is dropped instead of counted as invalid.
    """
    strict = codecs.getincrementaldecoder("utf-8")("strict")
    try:
        return strict.decode(data, final=final), ""
    except UnicodeDecodeError:
        if _UTF8_SEQUENCE.search(data) is None:
            return data.decode("cp1252", "replace"), _P_CP1252
        lenient = codecs.getincrementaldecoder("utf-8")("replace")
        return lenient.decode(data, final=final), _P_NOT_UTF8


def _title_from_path(path: str) -> str:
    try:
        pure = PurePosixPath(path)
        stem = pure.stem or pure.name
        if pure.parent.name and stem.lower() in FOLDER_NOTE_STEMS:
            stem = pure.parent.name  # a folder's README.md is named by its folder
    except Exception:
        stem = str(path)
    stem = decoded_name(stem)  # Logseq's "Foo%3A Bar" is the page "Foo: Bar"
    readable = _one_line(readable_name(stem))
    return readable or _one_line(stem)


def readable_name(stem: str) -> str:
    """A file name as a title: hyphens and underscores between words read as spaces
    ("smoke-alarms" -> "smoke alarms", "pip_cache" -> "pip cache"), unless the name has spaces
    already, whose hyphens and dashes are then the user's own ("Data Engineering - Backfills",
    "2024-05-01 - Standup", "Paged KV-cache" stay as written; underscores still read as
    spaces)."""
    if any(c.isspace() for c in stem):
        return stem.replace("_", " ")
    return _NAME_SEPARATORS.sub(" ", stem)


# --- front matter -----------------------------------------------------------


def _front_matter(text: str, problems: list[str]) -> tuple[dict[str, Any], str]:
    """Split off and load the front matter.

    Returns the mapping (keys lower-cased; empty when there is none or it
    is unusable) and the rest of the text. Problems are appended.
    """
    opening = _FM_OPEN.match(text)
    if not opening:
        return {}, text
    closing = _FM_CLOSE.search(text, opening.end())
    if not closing:
        # No closing line: the leading `---` is a thematic break.
        return {}, text
    source = text[opening.end() : closing.start()]
    rest = text[closing.end() + 1 :]

    try:
        loaded = yaml.load(source, Loader=_YAML_LOADER)
    except yaml.MarkedYAMLError as exc:
        detail = (exc.problem or exc.context or "").strip() or _problem("", exc)
        mark = exc.problem_mark or exc.context_mark
        if mark is not None:
            # +2: line numbers in the file start at 1 and line 1 is `---`.
            detail += f" (line {mark.line + 2})"
        problems.append((_P_BAD_YAML + detail)[:_MAX_PROBLEM_CHARS])
        return _flat_pairs(source), rest
    except Exception as exc:  # bad dates (ValueError), deep nesting, ...
        problems.append(_problem(_P_BAD_YAML, exc))
        return _flat_pairs(source), rest

    if loaded is None:
        return {}, rest
    if not isinstance(loaded, dict):
        problems.append(_P_NOT_MAPPING)
        return {}, rest
    return _lower_keys(loaded), rest


#: Front matter keys read for a note's names, description and type (above), and keys whose
#: values are an app's or a site's data, not words of the note: dates, IDs, layout, images,
#: publishing switches (Obsidian's, Hugo's, Jekyll's, Dendron's and Claude Code's own keys).
_NOT_PROPERTY_TEXT: Final = frozenset(
    "title name description summary excerpt desc type aliases alias tags tag metadata "
    "id uid uuid unique date created updated modified lastmod publishdate expirydate creation modification "
    "created_at updated_at timestamp draft weight layout slug permalink url template cssclass cssclasses "
    "banner cover image images thumbnail icon color publish sticker originsessionid excalidraw-plugin "
    "kanban-plugin resources params cascade outputs build headless markup translationkey menu sitemap toc "
    "math katex mathjax comments share version lang".split()
) | {"unique id", "date created", "date modified", "creation date", "modification date"}
#: A value that is one token holding a digit and at least 8 characters: an ID, a date or a
#: version ("6edeb609-0aad-...", "202306140730", "2023-06-14T07:30"), no words.
_ID_LIKE: Final = re.compile(r"(?=\S*\d)\S{8,}")
#: A word of two or more letters: what a property's value needs to be read.
_LETTER_WORD: Final = re.compile(r"[^\W\d_]{2,}")


def property_text(meta: dict[str, Any]) -> list[str]:
    """The words of a note's other front matter properties, read as its text: a recipe's
    ``ingredients`` and ``steps``, a book's ``author``, ``categories``, ``cuisine``, ``source``
    (a recipe collection kept all of a recipe's content in them: 199 of 203 notes had no other
    text). Read: each top-level key outside :data:`_NOT_PROPERTY_TEXT`, its text values and
    lists of them (a mapping's values are an app's settings: left out), a wiki link's target as
    its name; a value is left out when it is a web address, has no word of two letters, or is
    one token holding a digit of 8 characters or more (:data:`_ID_LIKE`). The keys themselves
    are no words.

    :returns: one line per value kept (a value repeated once), in the front matter's order
    """
    out: list[str] = []
    for key, value in meta.items():
        if key in _NOT_PROPERTY_TEXT or isinstance(value, dict):
            continue
        items = value if isinstance(value, list) else [value]
        for item in items[:_MAX_VALUE_ITEMS]:
            if isinstance(item, (dict, list, bool)) or item is None:
                continue
            text = _one_line(_scalar(item)).replace("[[", "").replace("]]", "")
            if not text or "://" in text or not _LETTER_WORD.search(text) or _ID_LIKE.fullmatch(text):
                continue
            out.append(text)
    return _dedupe(out)


def _toml_front_matter(text: str, problems: list[str]) -> tuple[dict[str, Any], str]:
    """Split off and load TOML front matter (``+++`` lines, Hugo's and Zola's)::

        +++
        title = "Daikin heat pump settings"
        tags = ["home", "heating"]
        +++

    Loaded with the standard library's ``tomllib``. TOML that does not load is reported
    (``malformed TOML front matter: ...``) and its one-line ``key = "text"`` pairs are kept, as
    :func:`_flat_pairs` keeps YAML's; either way the block is not the note's text. Without a
    closing ``+++`` line, or a ``key =`` line between (:func:`_toml_block`), the text is left as
    it is.

    :returns: ``(meta, rest)``: the mapping, keys lower-cased, and the text after the block
    """
    block = _toml_block(text)
    if block is None:
        return {}, text
    source = text[block[0] : block[1]]
    rest = text[block[2] :]
    import tomllib  # only for notes that have it: the hook reads a changed note before it answers

    try:
        loaded = tomllib.loads(source)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        problems.append(_problem(_P_BAD_TOML, exc))
        return _flat_toml_pairs(source), rest
    return _lower_keys(loaded), rest


def _front_matter_end(text: str) -> tuple[int, str, dict[str, Any]]:
    """Where a note's front matter ends and its kind: ``(0, "", {})`` for none, else the offset
    of the text after it, ``"yaml"`` (``---``; a ``---`` never closed is a thematic break, but
    the note is read as YAML's all the same), ``"toml"`` (``+++``, holding a ``key = `` line)
    or ``"json"`` (a JSON object with a ``title``, ending its line), and for JSON the object
    already read (keys lower-cased; YAML and TOML are loaded after the site's tags are read)."""
    opening = _FM_OPEN.match(text)
    if opening:
        closing = _FM_CLOSE.search(text, opening.end())
        return (min(closing.end() + 1, len(text)) if closing else 0), "yaml", {}
    toml = _toml_block(text)
    if toml is not None:
        return min(toml[2], len(text)), "toml", {}
    if text[:1] == "{" and text[1:2] != "{":
        meta, rest = _json_front_matter(text)
        if meta:
            return len(text) - len(rest), "json", meta
    return 0, "", {}


def _toml_block(text: str) -> tuple[int, int, int] | None:
    """TOML front matter's place: ``(source start, source end, text after it)``, when the note
    opens with a ``+++`` line, a ``+++`` line closes it and a ``key =`` line stands between
    (two ``+++`` lines around words are text: "+++ stars +++")."""
    opening = _TOML_OPEN.match(text)
    closing = _TOML_CLOSE.search(text, opening.end()) if opening else None
    if opening is None or closing is None:
        return None
    if not _TOML_KEY.search(text, opening.end(), closing.start()):
        return None
    return opening.end(), closing.start(), closing.end() + 1


#: A TOML key line (``title =``, ``[params]``): what TOML front matter holds.
_TOML_KEY: Final = re.compile(r"^[ \t]*(?:[A-Za-z0-9_\-\"'.]+[ \t]*=|\[)", re.MULTILINE)


def _json_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """Split off JSON front matter, Hugo's third form: a JSON object at the very start of the
    file, ending its line (``{"title": "Influence of art", "tags": ["talk"]}``). A note that
    starts with ``{`` and no such object (a pasted JSON array, a brace of text, an object followed
    by more text on its line) is left as it is, with no problem reported: it is text.

    An object without a ``title`` (settings pasted at the top of a note, a ``package.json``) is
    text too.

    :returns: ``(meta, rest)``: the object, keys lower-cased, and the text after its line
    """
    try:
        loaded, end = json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):
        return {}, text
    if not isinstance(loaded, dict) or "title" not in _lower_keys(loaded):
        return {}, text
    line_end = text.find("\n", end)
    if text[end : line_end if line_end >= 0 else len(text)].strip():
        return {}, text
    return _lower_keys(loaded), text[line_end + 1 :] if line_end >= 0 else ""


#: A one-line TOML pair of a quoted string (``title = "Heat pump"``), read when the TOML does
#: not load (:func:`_toml_front_matter`).
_TOML_PAIR: Final = re.compile(r"""^([A-Za-z][\w-]*)[ \t]*=[ \t]*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')[ \t]*$""")


def _flat_toml_pairs(source: str) -> dict[str, Any]:
    """The top-level ``key = "text"`` lines of TOML that did not load, the values as written
    (a basic string's escapes left as they are)."""
    out: dict[str, Any] = {}
    for line in source.splitlines():
        if line.lstrip().startswith("["):
            break  # a table starts: what follows is not top level
        m = _TOML_PAIR.match(line)
        if m:
            value = m.group(2) if m.group(2) is not None else m.group(3)
            if value.strip():
                out.setdefault(m.group(1).lower(), value)
    return out


#: Longest template tag read (from ``{{<`` to ``>}}``, ``{%`` to ``%}``), so that a note of
#: openings never closed is scanned once; named arguments on several lines fit.
_TAG_MAX_CHARS: Final = 600
#: A tag's argument: ``key=`` or ``key:`` or not, then a quoted, back-quoted or bare value.
_TAG_ARG: Final = re.compile(r"""(?:([\w-]++)[=:])?(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|`([^`]*)`|([^\s"'`=:]+))""")
#: Tag arguments whose values a reader sees as text (a figure's caption and title, an image's
#: alt text).
_TAG_TEXT_KEYS: Final = frozenset({"caption", "title", "alt", "attr"})
#: Tags that name another page of the site: Hugo's ``ref`` and ``relref``, Jekyll's
#: ``post_url`` and ``link``.
_PAGE_TAGS: Final = frozenset({"ref", "relref", "post_url", "link"})
#: The openings of the site generators' tags, each with its close: Hugo's shortcodes and
#: Jekyll's Liquid tags.
_TAG_CLOSE: Final = {"{{<": ">}}", "{{%": "%}}", "{%": "%}"}


def without_site_tags(text: str, liquid: bool = True) -> str:
    """The text without the tags of a static site's generator, which the site replaces with
    what they make: Hugo's shortcodes (https://gohugo.io/content-management/shortcodes/:
    ``{{< youtube w7Ft2ymGmfc >}}``, ``{{< katex >}}``, ``{{% notice %}}``) and, with
    ``liquid``, Jekyll's Liquid tags (https://jekyllrb.com/docs/liquid/tags/:
    ``{% include_cached boilerplate.md %}``, ``{% figure caption:"..." %}``), with their closing
    tags. What a reader sees of them stays: a figure's caption and title, an image's alt text, a
    quoted text of words (``{{% notice warning "Back up first" %}}``), the text between a
    paired tag's tags, what ``{% raw %}`` ... ``{% endraw %}`` holds (as written), and the page a
    ``ref``, ``relref``, ``post_url`` or ``link`` tag names inside a Markdown link
    (``[Learning Day]({{< relref "learning_day" >}})`` reads as ``[Learning Day](learning_day)``:
    a link, whose words are the note's and whose target is a note, :mod:`notesdb.links`).
    Fenced code, inline code (an odd number of backtick runs before the tag on its line, within
    ``_TAG_MAX_CHARS``: a note on Django templates quoting `` `{% csrf_token %}` ``), escaped
    shortcodes (``{{</* x */>}}``) and an opening with another opening before its close ("the
    {% delimiter opens a tag: {% include x %}") stay as written. Linear: each opening is read to
    its close within ``_TAG_MAX_CHARS``.

    :param text: a note's text after its front matter
    :param liquid: read Liquid's ``{%`` tags too: Jekyll reads them only in a file with YAML
        front matter, and a note without it that holds ``{% block content %}`` is about Django
    :returns: the text, unchanged when it holds none of the openings
    """
    openings = _TAG_OPENINGS if liquid else _TAG_OPENINGS[:2]
    if not any(o in text for o in openings):
        return text
    return outside_code(text, lambda prose: _without_tags(prose, openings))


#: The openings :func:`without_site_tags` reads, Hugo's first.
_TAG_OPENINGS: Final = ("{{<", "{{%", "{%")
#: A run of backticks: an inline code span opens and closes with one.
_BACKTICKS: Final = re.compile(r"`+")
#: The tag that closes Liquid's ``{% raw %}``.
_END_RAW: Final = re.compile(r"\{%-?[ \t]*endraw[ \t]*-?%\}")


def _without_tags(text: str, openings: tuple[str, ...]) -> str:
    """:func:`without_site_tags` of text with no fenced code."""
    out: list[str] = []
    done = 0  # text before this is in out
    at = 0
    found = {o: text.find(o) for o in openings}  # each opening's next place at or after ``at``
    while True:
        for o in openings:
            if 0 <= found[o] < at:
                found[o] = text.find(o, at)
        live = [(i, o) for o, i in found.items() if i >= 0]
        if not live:
            break
        start, opening = min(live, key=lambda f: (f[0], -len(f[1])))
        close = text.find(_TAG_CLOSE[opening], start + len(opening), start + _TAG_MAX_CHARS)
        inner = text[start + len(opening) : close] if close >= 0 else ""
        if close < 0 or "{{" in inner or "{%" in inner or _in_inline_code(text, start):
            at = start + len(opening)
            continue
        at = close + len(_TAG_CLOSE[opening])
        inner = inner.strip()
        if inner.startswith("/*"):
            continue  # escaped: shown as written
        out.append(text[done:start])
        words = inner.strip("-").strip()
        if opening == "{%" and words.split(" ", 1)[0] == "raw":
            end = _END_RAW.search(text, at)
            if end is not None:
                out.append(text[at : end.start()])
                at = end.end()
        else:
            out.append(_tag_text(words, in_link=text[max(0, start - 2) : start] == "]("))
        done = at
    out.append(text[done:])
    return "".join(out)


def _in_inline_code(text: str, at: int) -> bool:
    """True when ``at`` is inside an inline code span: an odd number of backtick runs before it
    on its line, within ``_TAG_MAX_CHARS``."""
    start = text.rfind("\n", max(0, at - _TAG_MAX_CHARS), at) + 1 or max(0, at - _TAG_MAX_CHARS)
    return len(_BACKTICKS.findall(text, start, at)) % 2 == 1


def _tag_text(inner: str, *, in_link: bool) -> str:
    """What a reader sees of one tag, from what stands between its delimiters (see
    :func:`without_site_tags`)."""
    if inner.startswith("/"):
        return ""  # a shortcode's closing tag
    name, _, rest = inner.partition(" ")
    values: list[tuple[str | None, str, bool]] = []  # key, value, quoted
    for m in _TAG_ARG.finditer(rest):
        quoted = next((g for g in m.groups()[1:4] if g is not None), None)
        values.append((m.group(1), quoted if quoted is not None else (m.group(5) or ""), quoted is not None))
    if name in _PAGE_TAGS:
        if not in_link:
            return ""
        target = next((v for k, v, _ in values if k in (None, "path")), "")
        return target.replace(" ", "%20")
    return " ".join(
        v for k, v, quoted in values
        if v.strip() and (k in _TAG_TEXT_KEYS or (k is None and quoted and " " in v.strip()))
    )


#: A double-brace span, one level of braces inside (Roam's ``{{[[query]]: {and: [[a]] [[b]]}}}``),
#: on one line; the possessive group reads each character once from a given opening.
_DOUBLE_BRACES: Final = re.compile(r"\{\{((?:[^{}\n]|\{[^{}\n]*\})*+)\}\}")
#: The name a macro opens with (``embed``, ``roam/render``, ``youtube-timestamp``).
_MACRO_NAME: Final = re.compile(r"[A-Za-z][\w./-]*")
#: An Anki cloze (``c1::Paris`` or ``c1::Paris::city``, its hint after the second ``::``).
_ANKI_CLOZE: Final = re.compile(r"c\d{1,3}::(.*?)(?:::[^:]*)?", re.DOTALL)
#: What ends a placeholder's name: a format (``date:YYYY``) or a filter (``title|upper``).
_FORMAT_SEPARATOR: Final = re.compile(r"[:|]")
#: The outliners' own macros, which show a query's results, another page or block, a video or a
#: widget: no words of the note (Logseq's built-in macros, https://docs.logseq.com/#/page/macros,
#: and its plugins' ``renderer``; Roam's components, ``{{[[TODO]]}}`` a task's checkbox). A macro
#: of these names is read as nothing even without arguments (``{{cards}}``, ``{{[[table]]}}``).
APP_MACROS: Final = frozenset(
    "query embed cards video youtube youtube-timestamp vimeo bilibili tweet twitter iframe pdf "
    "renderer function namespace zotero-imported-file zotero-linked-file table kanban word-count "
    "character-count orphans calc diagram encrypt mentions search attr-table roam/render roam/js "
    "pomo slider todo done ∆".split()
)
#: An empty block of an outline: an indented ``-`` alone on its line.
_EMPTY_BLOCK: Final = re.compile(r"^[ \t]+-[ \t]*$", re.MULTILINE)
_EMPTY_BLOCK_LINE: Final = re.compile(r"[ \t]+-[ \t]*")
#: A line that is at most a list item's marker.
_EMPTY_ITEM: Final = re.compile(r"[ \t]*(?:[-*+]|\d+[.)])?[ \t]*")
#: Macros whose arguments are the note's words as written (Logseq's ``{{cloze hidden answer}}``,
#: Roam's choices ``{{or: walk | run | swim}}`` and its ``{{alias: [[Page]] text}}``).
_TEXT_MACROS: Final = frozenset({"cloze", "or", "alias"})


def macro_call(inner: str) -> tuple[str, str] | None:
    """What stands between a ``{{`` and its ``}}`` read as an outliner's macro: ``(name, words)``,
    the name in lower case and the words a reader sees (a cloze's text, Roam's choices, "" for
    one of :data:`APP_MACROS`); None for anything else (a template's placeholder, a field of a
    mail merge, a macro of the person's own: :func:`_placeholder` tells them apart).

    A macro is Roam's ``[[name]]`` with or without arguments (``[[TODO]]``, ``[[∆]]:1+2``,
    ``[[query]]: {and: ...}``), one of :data:`APP_MACROS` or :data:`_TEXT_MACROS` however its
    arguments follow (``cards``, ``embed: ((uid))``, ``diagram:Board``, ``or: walk | run``), or
    an Anki cloze (``c1::Paris::city``, read as its text)."""
    if inner.startswith("[["):
        close = inner.find("]]")
        if close < 0:
            return None
        name, args = inner[2:close].strip().lower(), inner[close + 2:].lstrip(":").strip()
        return (name, "") if name in APP_MACROS else (name, args)
    cloze = _ANKI_CLOZE.fullmatch(inner)
    if cloze is not None:
        return "cloze", cloze.group(1)
    named = _MACRO_NAME.match(inner)
    if named is None:
        return None
    name, rest = named.group().lower(), inner[named.end():]
    if name not in APP_MACROS and name not in _TEXT_MACROS:
        return None
    rest = rest[1:] if rest.startswith(":") else rest
    return name, "" if name in APP_MACROS else rest.strip()


def _placeholder(inner: str) -> bool:
    """Whether ``{{inner}}`` is a template's placeholder, to be filled in: a name alone
    (``title``), a name then a format or filter (``date:YYYY-MM-DD``, ``VALUE:author``,
    ``title|upper``), or Jinja's and Go's spaced form (`` title ``, `` .Date ``). Not an
    outliner's macro (:func:`macro_call`), not empty braces, not LaTeX (``e^{{i\\pi}}``, a
    backslash), and not a name of two words or more (``First Name`` of a mail merge, Logseq's
    ``poem red, blue`` macro of the person's own), which could be either and is read as text."""
    if not inner.strip() or "\\" in inner or macro_call(inner) is not None:
        return False
    if inner[0].isspace():
        return True
    head = _FORMAT_SEPARATOR.split(inner, maxsplit=1)[0]
    return len(head.split()) == 1


def without_outliner_markup(text: str) -> str:
    """The text of an outliner's page (Logseq, Roam) as a reader sees it:

    - the outliners' own macros (:data:`APP_MACROS`: ``{{query (and [[kitchen]] (task TODO))}}``,
      ``{{embed [[Plumbing]]}}``, ``{{video https://...}}``, ``{{renderer :tocgen}}``,
      ``{{[[TODO]]}}``) are no words, a cloze and Roam's choices keep their text, and any other
      double braces stay as written (a macro of the person's own, ``{{poem red, blue}}``). A
      template's placeholder (``{{title}}``, ``{{date:YYYY}}``, ``{{ value }}``) is not a macro,
      so a page of placeholders is still a template (:func:`_is_template`), while a short outline
      page holding a query or a task is a note: five public Logseq graphs (3,999 pages) had 101
      pages left out as templates, now 1. A link inside a macro was read before this
      (:func:`notesdb.links.read_links`); inline code spans stay as written (a page on Logseq
      quoting `` `{{query (todo now)}}` ``);
    - an empty block (an indented ``-`` alone on its line, or a bullet left empty by a macro)
      is dropped: CommonMark reads a lone ``-`` under a line of text as that line's heading
      underline (``- example:`` over an empty child block was the heading "example:"; 81 pages
      of those graphs hold one).

    Fenced code stays as written. Linear in the text's length.

    :param text: a note's text after its front matter
    :returns: the text, unchanged when it holds neither
    """
    macros = "{{" in text
    if not macros and _EMPTY_BLOCK.search(text) is None:
        return text

    def macro(m: re.Match[str]) -> str:
        call = macro_call(m.group(1))
        if call is None or _in_inline_code(m.string, m.start()):
            return m.group(0)
        name, args = call
        return "" if name in APP_MACROS else args

    def read(prose: str) -> str:
        out: list[str] = []
        for line in prose.split("\n"):
            if macros and "{{" in line:
                read_line = _DOUBLE_BRACES.sub(macro, line)
                if read_line != line and _EMPTY_ITEM.fullmatch(read_line):
                    continue
                line = read_line
            elif _EMPTY_BLOCK_LINE.fullmatch(line):
                continue
            out.append(line)
        return "\n".join(out)

    return outside_code(text, read)


def url_alias(alias: str) -> bool:
    """True for an alias that is a web address or a page's path on a site, not a name: Hugo's
    ``aliases`` are the old URLs a page redirects from (``aliases = ["/posts/old-name/"]``,
    ``/2010/01/01/even-earlier-url.html``: https://gohugo.io/content-management/urls/#aliases).
    A path that is not a page's ("/etc/fstab", "/r/homelab") may be a name the note goes by."""
    a = alias.strip()
    return "://" in a or (a.startswith("/") and a.endswith(("/", ".html", ".htm", ".php")))


#: A ``key:: value`` line's key and its ``::``, followed by white space or the end of the line
#: (``std::move`` is not a property). Linear in the line's length, however long.
_PROPERTY: Final = re.compile(r"[^\s:]+::(?=[ \t\u00a0]|$)")
#: The start of an outliner's top-level block (``- text``, or ``-`` alone), which ends the page
#: properties above it as a blank line does (Logseq writes either).
_BLOCK_START: Final = re.compile(r"-(?:[ \t]|$)")
#: A ``[[link]]`` of a property's value (no bracket inside), or a comma between its values.
_VALUE_SEPARATOR: Final = re.compile(r"(\[\[[^\[\]\n]*\]\])|,")
#: The page properties read, by their Logseq names, as the front matter keys they mean.
_PROPERTY_KEYS: Final = {"title": "title", "alias": "aliases", "aliases": "aliases", "tags": "tags",
                         "description": "description"}


def page_properties(text: str) -> tuple[dict[str, Any], str]:
    """Split off a note's page properties, Logseq's front matter: ``key:: value`` lines at the
    top of the file (after blank lines only), ended by a blank line, the page's first block
    (``- ...`` at the start of a line: 127 of 1,944 pages with properties in five public Logseq
    graphs start their blocks right below them) or the end of the file
    (https://docs.logseq.com/#/page/properties)::

        title:: Type Omit
        alias:: Omit, [[Omit type]]
        tags:: typescript, [[utility types]]

        - ## `Omit<Type, keys>`

    :returns: ``(meta, rest)``: ``title``, ``aliases`` (a list: the values of every ``alias::``
        line, split on commas, a ``[[link]]`` kept whole), ``tags`` (likewise) and
        ``description`` as :func:`parse_note` reads front matter (the first non-empty
        ``title::`` and ``description::``), and the text without those lines; the other
        properties (``status:: done``, ``owner:: Priyanka``: Dataview's fields too) stay in
        the text, to be searched. Text whose first lines are not such a block comes back whole
        with ``{}`` (a ``key:: value`` line followed by other text on the next line is a
        paragraph).
    """
    lines = text.split("\n")
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    found: list[re.Match[str]] = []
    while start + len(found) < len(lines) and (m := _PROPERTY.match(lines[start + len(found)])):
        found.append(m)
    end = start + len(found)
    if not found or (end < len(lines) and lines[end].strip() and not _BLOCK_START.match(lines[end])):
        return {}, text
    meta: dict[str, Any] = {}
    kept: list[str] = []
    for m in found:
        key = _PROPERTY_KEYS.get(m.group()[:-2].lower())
        if key is None:
            kept.append(m.string)
            continue
        value = m.string[m.end():].strip()
        if key in ("aliases", "tags"):
            meta.setdefault(key, []).extend(_property_values(value))
        elif value and not meta.get(key):
            meta[key] = value
    return meta, "\n".join(kept + lines[end:])


def _property_values(value: str) -> list[str]:
    """A property's values: split on commas, a ``[[link]]`` kept whole without its brackets,
    brackets left at the ends of a value and empty values dropped."""
    out = []
    for piece in _VALUE_SEPARATOR.split(value):
        if piece is None:
            continue
        if piece.startswith("[[") and piece.endswith("]]"):
            piece = piece[2:-2]
        piece = piece.strip().strip("[]").strip()
        if piece:
            out.append(piece)
    return out


#: First characters of a value that is YAML structure, not text (see :func:`_flat_pairs`).
_YAML_STRUCTURE: Final = frozenset("[]{}|>&*!%@`#")
_FLAT_PAIR = re.compile(r"^([A-Za-z][\w-]*)[ \t]*:[ \t]+(\S.*?)[ \t]*$")


def _flat_pairs(source: str) -> dict[str, Any]:
    """Recover the plain one-line ``key: value`` pairs of front matter YAML could not load.

    Hand-written memory files break YAML in small ways (a value that starts with a quoted
    word and goes on); their ``name`` and ``description`` lines are still readable as text.
    Only top-level lines are read; values are kept verbatim as strings.

    A value that opens a YAML structure rather than text (``[`` or ``{`` of a list or mapping,
    ``|`` or ``>`` of a block, ``&``/``*``/``!`` of an anchor, alias or tag: the indicators
    the YAML 1.2 spec, 7.3.3, forbids at the start of a plain scalar, quotes excepted) is YAML
    that failed, not text: it is not recovered, and the title falls back as if there were no
    front matter (``title: [unclosed`` must not become the title "[unclosed").
    """
    out: dict[str, Any] = {}
    for line in source.splitlines():
        m = _FLAT_PAIR.match(line)
        if m and m.group(2)[0] not in _YAML_STRUCTURE:
            out.setdefault(m.group(1).lower(), m.group(2))
    return out


def _lower_keys(mapping: dict[Any, Any]) -> dict[str, Any]:
    """Index a mapping by lower-cased string keys; an exact lower-case key wins."""
    out: dict[str, Any] = {}
    for key, value in mapping.items():
        if not isinstance(key, str):
            continue
        low = key.strip().lower()
        if low not in out or key == low:
            out[low] = value
    return out


def _first_value(meta: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        value = meta.get(key)
        if _strings(value):
            return value
    return None


def _first_text(meta: dict[str, Any], *keys: str) -> str:
    """First key whose value has text, as one line."""
    for key in keys:
        text = _one_line(" ".join(_strings(meta.get(key))))
        if text:
            return text
    return ""


def _one_line(s: str) -> str:
    return _SPACES.sub(" ", _INVISIBLE.sub("", s)).strip()


def _strings(value: Any) -> list[str]:
    """Flatten any YAML value into its non-empty scalar texts.

    Lists, sets and mapping values are walked (keys are ignored), within
    fixed bounds on depth and count.
    """
    out: list[str] = []
    visits = [0]

    def walk(v: Any, depth: int) -> None:
        # YAML anchors can make a few hundred bytes stand for billions of nested items (an
        # "alias bomb"): the walk is bounded by the nodes it visits, not only by depth
        visits[0] += 1
        if visits[0] > _MAX_VALUE_VISITS:
            return
        if len(out) >= _MAX_VALUE_ITEMS or depth > _MAX_VALUE_DEPTH or v is None:
            return
        if isinstance(v, (list, tuple, set, frozenset)):
            for item in v:
                walk(item, depth + 1)
        elif isinstance(v, dict):
            for item in v.values():
                walk(item, depth + 1)
        else:
            s = _scalar(v).strip()
            if s:
                out.append(s)

    walk(value, 0)
    return out


def _scalar(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (_dt.date, _dt.datetime, _dt.time)):
        return v.isoformat()
    if isinstance(v, (bytes, bytearray)):  # !!binary
        return bytes(v).decode("utf-8", errors="replace")
    try:
        return str(v)
    except Exception:
        return ""


def _dedupe(items: Any) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        if item and item not in seen:
            seen[item] = None
    return list(seen)


# --- Markdown ---------------------------------------------------------------


def _plain_text(text: str, *, drop_first_h1: bool) -> tuple[list[tuple[str, str]], list[str]]:
    """Headings from ``#`` lines and everything else as body, without a Markdown parser."""
    headings: list[tuple[str, str]] = []
    body: list[str] = []
    title_taken = not drop_first_h1
    for line in text.split("\n"):
        m = _HEADING_LINE.match(line)
        if m and m.group(2):
            level, heading = m.groups()
            heading = without_attributes(heading)
            if not title_taken and level == "#":
                headings.insert(0, ("h1-title", heading))
            else:
                headings.append(("h", heading))
            title_taken = True  # only the first content line may be the title
        elif line.strip():
            body.append(line.strip())
            title_taken = title_taken or not _DECORATION_LINE.match(line)
    return headings, body


#: One attribute of an attribute list: ``#id``, ``.class``, ``key=value`` (the value quoted or
#: not) or Pandoc's ``-`` (unnumbered).
_ATTRIBUTE = r"""(?:[#.][^\s{}]+|[\w-]+=(?:"[^"]*"|'[^']*'|[^\s{}"']+)|-)"""
#: An attribute list: Pandoc's, Hugo's (goldmark), MkDocs' attr_list and PHP Markdown Extra's
#: ``{#id .class key=value}``, and kramdown's ``{: #id}`` (Jekyll).
_ATTRIBUTES: Final = re.compile(r"\{:?[ \t]*" + _ATTRIBUTE + r"(?:[ \t]+" + _ATTRIBUTE + r")*[ \t]*\}")
#: An ``#id`` in an attribute list: the mark of a heading's anchor.
_ANCHOR_ATTRIBUTE: Final = re.compile(r"[{ \t]#[^\s{}]")
#: Pandoc's lists that mark a heading unnumbered or out of the table of contents.
_PANDOC_MARKS: Final = frozenset({"{-}", "{.unnumbered}", "{.unlisted}", "{-.unlisted}", "{.unnumbered.unlisted}"})


def without_attributes(heading: str) -> str:
    """A heading without the attribute list written at its end, which no reader sees: the
    anchor and classes that Pandoc, Hugo, MkDocs and kramdown read from
    ``## Today's links {#today-s-links}``, ``## Setup { #setup .big }`` or ``# Routers {: #r}``
    (their words would be the heading's words twice, and the braces would show in the
    assistant's line). A list counts when it is kramdown's (``{:``), holds an ``#id``, or is
    Pandoc's ``{-}``, ``{.unnumbered}`` or ``{.unlisted}``: braces of words, of classes alone or
    of settings stay ("Sets {a, b}", "C# {.NET}", "Files {.env .bashrc}", "Sets {a=b}"). Linear
    in the heading's length: only the text from its last ``{`` is matched.

    :returns: the heading, stripped, without the list; the heading as it is when it is nothing
        but the list
    """
    at = heading.rfind("{")
    if at <= 0:
        return heading
    tail = heading.rstrip()[at:]
    if not _ATTRIBUTES.fullmatch(tail):
        return heading
    if not (tail.startswith("{:") or _ANCHOR_ATTRIBUTE.search(tail) or tail.replace(" ", "") in _PANDOC_MARKS):
        return heading
    return heading[:at].rstrip() or heading


def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


def _markdown_text(text: str, *, drop_first_h1: bool) -> tuple[list[tuple[str, str]], list[str]]:
    """Walk the tokens of ``text`` once.

    Returns ``(headings, body)``: headings as ``(kind, text)`` pairs where
    kind is "h1-title" for the first non-empty H1 when ``drop_first_h1``
    (the caller takes it as the title), else "heading"; body as a list of
    text blocks.
    """
    headings: list[tuple[str, str]] = []
    body: list[str] = []
    heading_tag = ""
    title_taken = not drop_first_h1
    row: list[str] | None = None

    for tok in _markdown().parse(text):
        kind = tok.type
        if tok.level == 0 and not kind.startswith("heading") and kind not in _NOT_YET_CONTENT:
            title_taken = True  # content came first: a later H1 is a section heading
        if kind == "inline":
            if heading_tag:
                line = without_attributes(_one_line(_inline_text(tok.children or [], " ")))
                if not line:
                    continue
                if heading_tag == "h1" and not title_taken:
                    title_taken = True
                    headings.insert(0, ("h1-title", line))
                else:
                    headings.append(("heading", line))
            elif row is not None:
                cell = _inline_text(tok.children or [], " ").strip()
                if cell:
                    row.append(cell)
            else:
                if not title_taken and not _decoration(tok.children or []):
                    title_taken = True
                block = _inline_text(tok.children or [], "\n").strip()
                if block:
                    body.append(block)
        elif kind == "heading_open":
            heading_tag = tok.tag
        elif kind == "heading_close":
            heading_tag = ""
            title_taken = title_taken or bool(headings)  # an empty heading is no content
        elif kind == "tr_open":
            row = []
        elif kind == "tr_close":
            if row:
                body.append(" | ".join(row))
            row = None
        elif kind in ("fence", "code_block"):
            code = tok.content.rstrip("\n")
            if code.strip():
                body.append(code)
        elif kind == "html_block":
            block = _html_text(tok.content)
            if block:
                body.append(block)
                title_taken = True  # HTML of tags alone (a centred logo) is no content
    return headings, body


#: Level-0 tokens that do not by themselves take the title's place from a later H1: a
#: paragraph's open and close (its inline text decides, :func:`_decoration`), an HTML block
#: (its text decides), and the inline token itself.
_NOT_YET_CONTENT: Final = frozenset({"inline", "paragraph_open", "paragraph_close", "html_block"})
#: Inline tokens that are no text of their own: images, the links around them (a badge), line
#: breaks and inline HTML tags.
_DECORATION_TOKENS: Final = frozenset({"image", "link_open", "link_close", "softbreak", "hardbreak", "html_inline"})


def _decoration(children: list[Any]) -> bool:
    """True for a paragraph of images, linked images and tags only: the logo or badges a
    README shows above its ``# Title`` (GitHub, MkDocs), which leave that H1 the note's title."""
    return bool(children) and all(
        c.type in _DECORATION_TOKENS or (c.type in ("text", "text_special") and not c.content.strip())
        for c in children
    )


def _inline_text(children: list[Any], line_break: str) -> str:
    """Plain text of an inline token's children.

    Runs of text are collected across emphasis and link tokens before
    wikilinks are rewritten, so ``[[t|*label*]]`` still matches; code
    spans are kept verbatim and never rewritten.
    """
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            out.append(_WIKILINK.sub(_wikilink_text, "".join(run)))
            run.clear()

    for child in children:
        kind = child.type
        if kind in ("text", "text_special"):
            run.append(child.content)
        elif kind == "code_inline":
            flush()
            out.append(child.content)
        elif kind in ("softbreak", "hardbreak"):
            flush()
            out.append(line_break)
        elif kind == "image":
            alt = _inline_text(child.children, " ") if child.children else child.content
            run.append(alt)
        elif kind == "html_inline":
            if _HTML_BR.match(child.content):
                flush()
                out.append(line_break)
        # em/strong/s/link open and close carry no text of their own.
    flush()
    return "".join(out)


def _wikilink_text(match: re.Match[str]) -> str:
    inner = match.group(1)
    target, _, label = inner.partition("|")
    target = _one_line(re.sub(r"#\^?", " ", target))
    label = _one_line(label)
    if label and target:
        return f"{label} {target}"
    return label or target


def _html_text(source: str) -> str:
    """Rough text of an HTML block: comments and tags removed, entities decoded."""
    stripped = _HTML_TAG.sub(" ", _HTML_COMMENT.sub(" ", source))
    lines = (_one_line(line) for line in html.unescape(stripped).split("\n"))
    return "\n".join(line for line in lines if line)

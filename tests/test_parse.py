"""Tests for notesdb.parse: one Markdown file's bytes -> Note."""

from __future__ import annotations

import codecs
import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notesdb.parse import MARKDOWN_MAX_CHARS, MARKDOWN_MAX_LINES, MAX_NOTE_BYTES, Note, joplin_item, parse_note
from notesdb.vocab import name_words

DATA = Path(__file__).resolve().parent / "data"

TOO_LARGE = "larger than 256 KiB: only the first 256 KiB is indexed"
NOT_UTF8 = "not valid UTF-8: undecodable bytes replaced"
BINARY = "binary file (contains NUL bytes): only its name is indexed"
EMPTY = "empty file"
NOT_MAPPING = "front matter is not a mapping"
BAD_YAML = "malformed YAML front matter: "


def assert_well_formed(note: Note, path: str) -> None:
    """Field types every caller relies on, whatever the input was."""
    assert isinstance(note, Note)
    assert note.path == path
    for name in ("title", "desc", "headings", "body", "type"):
        assert type(getattr(note, name)) is str, name
    for name in ("aliases", "tags", "problems"):
        value = getattr(note, name)
        assert type(value) is list, name
        assert all(type(item) is str and item for item in value), name


# --- one row per shape of note ---------------------------------------------

MEMORY_FLAT = b"""\
---
name: Shield TV power supply
description: Power specs for the 2015 Shield TV - internal PSU, C7 inlet
type: reference
---

The 2015 Shield TV has no external brick.

## Label / stock

- Rating on the base label: 100-240 V~, 50/60 Hz, 0.6 A
"""

MEMORY_NESTED = b"""\
---
name: shield-tv-recovery
description: Plan to unbrick the 2015 Nvidia Shield TV (P2571)
metadata:
  type: project
modified: 2025-10-19T21:42:07Z
---

Goal: get the 2015 Shield TV booting stock firmware again.

## Unit

- NVIDIA SHIELD Android TV, 1st gen (2015), model **P2571**, 16 GB.
"""

OBSIDIAN = b"""\
---
title: Mercedes C250 CDI estate (S204)
tags:
  - car
  - "#mercedes"
aliases:
  - C250
  - the estate
---

# Car file

Looked after by [[sol-abara|Sol]] at Northgate Autos; tools from [[dario]].
Torque figures are in [[workshop-manual#Sump plug]].

| part | number |
|---|---|
| engine undertray (front) | A 204 524 05 30 |
| seen by | [[sol-abara\\|Sol]] |
"""

PLAIN = b"""\
# Boiler (Vaillant ecoTEC)

Intro paragraph with *emphasis* and a [link](https://example.com/manual.pdf).

## Pressure

Keep it at 1.2 bar cold.

### Fault codes

> F.22 means low water pressure.
"""

NO_TITLE = b"""\
Four alarms, all FireAngel, interlinked by radio since 2023.

## Batteries

Sealed, ten years.
"""

BOM_CRLF = (
    b"\xef\xbb\xbf---\r\n"
    b"title: Sol Abara (mechanic)\r\n"
    b"aliases: Sol\r\n"
    b"---\r\n"
    b"\r\n"
    b"Independent Mercedes specialist.\r\n"
    b"\r\n"
    b"## Contact\r\n"
    b"\r\n"
    b"Workshop: 01632 960418\r"
    b"## Hours\r"
    b"Mon-Fri 08:00-17:30\r\n"
)

CODE = b"""\
# Undertray parts

Front undertray is `A2045240530`, ordered via Sol.

```text
A2045200123  gearbox tunnel undertray
N000000001374  T25 screw with washer
```

    indented: A0009909292 expanding clip
"""

SHAPES = [
    pytest.param(
        "hardware/shield-tv-power-supply.md",
        MEMORY_FLAT,
        dict(
            title="Shield TV power supply",
            desc="Power specs for the 2015 Shield TV - internal PSU, C7 inlet",
            type="reference",
            headings="Label / stock",
            body=(
                "The 2015 Shield TV has no external brick.\n"
                "Rating on the base label: 100-240 V~, 50/60 Hz, 0.6 A"
            ),
            aliases=[],
            tags=[],
            problems=[],
        ),
        # Claude Code memory file: flat name / description / type.
        id="memory-flat",
    ),
    pytest.param(
        "hardware/shield-tv-recovery.md",
        MEMORY_NESTED,
        dict(
            title="shield-tv-recovery",
            desc="Plan to unbrick the 2015 Nvidia Shield TV (P2571)",
            type="project",
            headings="Unit",
            body=(
                "Goal: get the 2015 Shield TV booting stock firmware again.\n"
                "NVIDIA SHIELD Android TV, 1st gen (2015), model P2571, 16 GB."
            ),
            problems=[],
        ),
        # Newer memory file: type under metadata, and `modified` is a YAML
        # timestamp (loads as datetime); emphasis must not leak into body.
        id="memory-nested-type",
    ),
    pytest.param(
        "vehicles/mercedes-w204.md",
        OBSIDIAN,
        dict(
            title="Mercedes C250 CDI estate (S204)",
            desc="",
            type="",
            aliases=["C250", "the estate"],
            tags=["car", "mercedes"],
            headings="Car file",
            body=(
                "Looked after by Sol sol-abara at Northgate Autos; tools from dario.\n"
                "Torque figures are in workshop-manual Sump plug.\n"
                "part | number\n"
                "engine undertray (front) | A 204 524 05 30\n"
                "seen by | Sol sol-abara"
            ),
            problems=[],
        ),
        # Obsidian note: title from front matter, so its H1 stays a heading;
        # wikilinks of every form (the table one with Obsidian's \| escape).
        id="obsidian",
    ),
    pytest.param(
        "home/boiler.md",
        PLAIN,
        dict(
            title="Boiler (Vaillant ecoTEC)",
            headings="Pressure\nFault codes",
            body=(
                "Intro paragraph with emphasis and a link.\n"
                "Keep it at 1.2 bar cold.\n"
                "F.22 means low water pressure."
            ),
            problems=[],
        ),
        # Plain Markdown: title from the H1, which is then not a heading;
        # link URL dropped, blockquote kept.
        id="plain-h1",
    ),
    pytest.param(
        "home/smoke-alarms.md",
        NO_TITLE,
        dict(title="smoke alarms", headings="Batteries", problems=[]),
        # No front matter and no H1 (only an H2): title from the file name.
        id="title-from-file-name",
    ),
    pytest.param(
        "people/sol-abara.md",
        BOM_CRLF,
        dict(
            title="Sol Abara (mechanic)",
            aliases=["Sol"],
            headings="Contact\nHours",
            body="Independent Mercedes specialist.\nWorkshop: 01632 960418\nMon-Fri 08:00-17:30",
            problems=[],
        ),
        # BOM before the front matter, CRLF and bare CR line ends mixed;
        # aliases given as one string.
        id="bom-crlf",
    ),
    pytest.param(
        "vehicles/undertray.md",
        CODE,
        dict(
            title="Undertray parts",
            headings="",
            body=(
                "Front undertray is A2045240530, ordered via Sol.\n"
                "A2045200123  gearbox tunnel undertray\n"
                "N000000001374  T25 screw with washer\n"
                "indented: A0009909292 expanding clip"
            ),
            problems=[],
        ),
        # Part numbers in inline code, a fenced block and an indented block
        # are all body text, verbatim.
        id="code",
    ),
]


@pytest.mark.parametrize(("path", "data", "expected"), SHAPES)
def test_shapes(path: str, data: bytes, expected: dict) -> None:
    note = parse_note(path, data)
    assert_well_formed(note, path)
    got = {name: getattr(note, name) for name in expected}
    assert got == expected
    for field in dataclasses.fields(note):
        value = getattr(note, field.name)
        if isinstance(value, bool):  # template
            continue
        if field.name == "anchors":  # [key, tail, text] per link
            value = [part for link in value for part in link]
        text = "\n".join(value) if isinstance(value, list) else value
        assert "\r" not in text and "\ufeff" not in text, field.name


# --- front-matter values ----------------------------------------------------

FRONT_MATTER = [
    # `summary` stands in for a missing description.
    ("summary: Pinecil settings", dict(desc="Pinecil settings")),
    # `title` wins over `name`.
    ("name: shield-tv\ntitle: Shield TV", dict(title="Shield TV")),
    # An empty title falls through to `name`.
    ("title:\nname: shield-tv", dict(title="shield-tv")),
    # Key names in any case.
    ("Title: Prusa MK3S+\nTags: [printer]", dict(title="Prusa MK3S+", tags=["printer"])),
    # Tags as one string: split on commas and whitespace, `#` stripped.
    ("tags: '#car, mercedes w204'", dict(tags=["car", "mercedes", "w204"])),
    # Singular keys, duplicates dropped, order kept.
    ("tag: car\nalias: [C250, C250, C-class]", dict(tags=["car"], aliases=["C250", "C-class"])),
    # Numbers, booleans and dates become text; None and empty items are skipped.
    (
        "title: 2024\ntags: [3d, 7, null, '', true]\ndescription: 2025-10-19",
        dict(title="2024", tags=["3d", "7", "true"], desc="2025-10-19"),
    ),
    # A timestamp as title keeps its ISO form.
    ("title: 2025-10-19T21:42:07Z", dict(title="2025-10-19T21:42:07+00:00")),
    # Multi-line YAML strings become one line.
    ("title: |\n  Two\n  lines\n", dict(title="Two lines")),
    # `type` at top level wins over metadata.type; metadata that is not a
    # mapping is ignored.
    ("type: user\nmetadata:\n  type: project", dict(type="user")),
    ("metadata: project", dict(type="")),
    # Nested lists and mappings are flattened into their scalar values.
    ("aliases: [[a, [b]], {x: c}]", dict(aliases=["a", "b", "c"])),
    # A self-referencing list and alias-amplified lists stay bounded.
    ("aliases: &a [x, *a]", dict(aliases=["x"])),
    (
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
        "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
        "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
        "tags: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]",
        dict(tags=["x"]),
    ),
    # Empty front matter is no front matter, not a problem.
    ("", dict(title="x", problems=[])),
]


@pytest.mark.parametrize(("yaml_text", "expected"), FRONT_MATTER)
def test_front_matter_values(yaml_text: str, expected: dict) -> None:
    data = f"---\n{yaml_text}\n---\nBody text.\n".encode()
    note = parse_note("x.md", data)
    assert_well_formed(note, "x.md")
    assert {name: getattr(note, name) for name in expected} == expected
    assert note.body == "Body text."


def test_front_matter_closed_by_dots() -> None:
    # YAML's document-end marker also closes front matter.
    note = parse_note("a.md", b"---\ntitle: Dots\n...\nBody.\n")
    assert (note.title, note.body, note.problems) == ("Dots", "Body.", [])


def test_unclosed_front_matter_is_markdown() -> None:
    # Without a closing line the leading --- is a thematic break.
    note = parse_note("notes/a-b.md", b"---\ntitle: Not front matter\n")
    assert note.title == "a b"
    assert note.body == "title: Not front matter"
    assert note.problems == []


def test_front_matter_only() -> None:
    # A memory file with no body at all is not an empty file.
    note = parse_note("a.md", b"---\nname: stub\n---")
    assert (note.title, note.body, note.problems) == ("stub", "", [])


# --- Markdown to text -------------------------------------------------------

MARKDOWN = [
    # Emphasis, strong and strikethrough markers do not leak.
    ("Model **P2571**, _foster_, ~~P2897~~.", "", "Model P2571, foster, P2897."),
    # Link text kept, URL dropped; autolinks keep their URL as text.
    ("See [the wiki](https://e.org/w) or <https://e.org>.", "", "See the wiki or https://e.org."),
    # Image alt text kept.
    ("![Pinout of the *J2* header](j2.png)", "", "Pinout of the J2 header"),
    # Wikilink forms, including an embed and a block reference.
    ("[[a]] [[b|B]] [[c#Sec]] ![[d.png]] [[e#^x1]]", "", "a B b c Sec d.png e x1"),
    # Emphasis inside a wikilink label.
    ("[[sol-abara|*Sol*]]", "", "Sol sol-abara"),
    # Wikilink syntax inside code is code, left alone.
    ("`[[not-a-link]]`", "", "[[not-a-link]]"),
    # Entities and backslash escapes are decoded.
    ("R&amp;D \\*not em\\*", "", "R&D *not em*"),
    # Inline HTML tags dropped, their text kept; <br> breaks the line.
    ("Press <kbd>Ctrl</kbd>+C<br>then V", "", "Press Ctrl+C\nthen V"),
    # HTML blocks: tags and comments stripped, entities decoded.
    ("<div>\n<b>Wi-Safe</b> &amp; mains <!-- hidden -->\n</div>", "", "Wi-Safe & mains"),
    # Setext headings; all levels go to headings, none to body.
    ("Intro\n\nFirst\n=====\n\nSecond\n------\n\n###### Six", "First\nSecond\nSix", "Intro"),
    # Table: one row per line, cells joined, empty cells skipped.
    ("| a | b | c |\n|---|---|---|\n| 1 |   | `3` |", "", "a | b | c\n1 | 3"),
    # Nested lists and block quotes flatten to one line per block.
    ("- one\n  - two\n> quoted\n> > deeper", "", "one\ntwo\nquoted\ndeeper"),
    # A fence keeps its inner indentation and blank lines, not its info string.
    ("```yaml\nkey:\n  - v\n\nend: 1\n```", "", "key:\n  - v\n\nend: 1"),
]


@pytest.mark.parametrize(("source", "headings", "body"), MARKDOWN)
def test_markdown_text(source: str, headings: str, body: str) -> None:
    note = parse_note("x.md", ("# T\n\n" + source).encode())
    assert note.title == "T"
    assert note.headings == headings
    assert note.body == body


def test_empty_h1_is_not_a_title() -> None:
    note = parse_note("x.md", b"#\n\n# Real title\n\n# Another\n")
    assert (note.title, note.headings) == ("Real title", "Another")


def test_first_h1_is_title_only_without_front_matter_title() -> None:
    # With a front-matter title the H1 is just another heading.
    with_fm = parse_note("a.md", b"---\ntitle: FM\n---\n# Heading one\n\n## Two\n")
    without = parse_note("a.md", b"# Heading one\n\n## Two\n\n# Later h1\n")
    assert (with_fm.title, with_fm.headings) == ("FM", "Heading one\nTwo")
    assert (without.title, without.headings) == ("Heading one", "Two\nLater h1")


@pytest.mark.parametrize(
    ("path", "title"),
    [
        ("home/smoke-alarms.md", "smoke alarms"),  # the documented example
        ("til/python/struct_endianness.md", "struct endianness"),  # underscores too
        ("Inbox/2025-10-19--call-notes.md", "2025 10 19 call notes"),  # runs collapse
        # a name with spaces keeps its own hyphens and dashes; underscores still read as spaces
        ("Inbox/2025-10-19 -- call notes.md", "2025-10-19 -- call notes"),
        ("3 - Notes/Data Engineering - Backfills.md", "Data Engineering - Backfills"),
        ("Weekly update \u2014 2024-W18.md", "Weekly update \u2014 2024-W18"),
        ("ml/Paged KV-cache_notes.md", "Paged KV-cache notes"),
        # Logseq percent-encodes what a file name cannot hold; a lone % is the user's own
        ("pages/Foo%3ABar.md", "Foo:Bar"),
        ("pages/Kubernetes%3A Pods.md", "Kubernetes: Pods"),
        ("pages/%E4%B8%AD%E6%96%87.md", "\u4e2d\u6587"),
        ("pages/100% sure.md", "100% sure"),
        ("pages/bad%FF.md", "bad%FF"),  # not UTF-8 once decoded: left as written
        # Notion's export writes a space and the page's 32-digit hex ID after each name
        ("Passport renewal 0f1e2d3c4b5a69788796a5b4c3d2e1f0.md", "Passport renewal"),
        ("Projects 8c3e1f2a9b7d4e6f8a1b2c3d4e5f6a7b/Garden shed 1a2b3c4d5e6f708192a3b4c5d6e7f809.md", "Garden shed"),
        ("Projects 8c3e1f2a9b7d4e6f8a1b2c3d4e5f6a7b/README.md", "Projects"),
        ("0f1e2d3c4b5a69788796a5b4c3d2e1f0.md", "0f1e2d3c4b5a69788796a5b4c3d2e1f0"),  # nothing but an ID
        ("md5 0f1e2d3c4b5a69788796a5b4c3d2e1f.md", "md5 0f1e2d3c4b5a69788796a5b4c3d2e1f"),  # 31 digits
        ("build-0f1e2d3c4b5a69788796a5b4c3d2e1f0.md", "build 0f1e2d3c4b5a69788796a5b4c3d2e1f0"),  # no space
        ("Order 12345678901234567890123456789012.md", "Order 12345678901234567890123456789012"),  # digits only
        ("Memo 0F1E2D3C4B5A69788796A5B4C3D2E1F0.md", "Memo 0F1E2D3C4B5A69788796A5B4C3D2E1F0"),  # upper case
        # an Excalidraw drawing's file name marks it as a drawing before the extension
        ("Excalidraw/Heating system diagram.excalidraw.md", "Heating system diagram"),
        ("Excalidraw/Drawing 2023-08-17 07.22.38.excalidraw.md", "Drawing 2023-08-17 07.22.38"),
        (".excalidraw.md", ".excalidraw"),
        ("README", "README"),  # no suffix
        ("notes/---.md", "---"),  # nothing readable left: keep the stem
    ],
)
def test_title_from_file_name(path: str, title: str) -> None:
    assert parse_note(path, b"Just a paragraph.\n").title == title


# --- bad files --------------------------------------------------------------


def test_control_characters_leave_title_and_description() -> None:
    data = b'---\ntitle: "Walrus\\u001b[31m tusk\\u0007"\ndescription: "care\\u0000 notes \\u001b[2J"\n---\nbody\n'
    note = parse_note("walrus.md", data)
    assert (note.title, note.desc) == ("Walrus [31m tusk", "care notes [2J")
    assert parse_note("\x1b[31mzebra\x7f.md", b"zebra stripes\n").title == "[31mzebra"
    assert parse_note("x.md", b"# Head\x1bing\x07\n\nbody\n").title == "Head ing"


def test_format_characters_leave_title_headings_and_aliases() -> None:
    # a right-to-left override would reverse the rest of the line the title is shown in
    data = ('---\ntitle: "Walrus tusk\u202e"\ndescription: "care\u2066 notes\u200b"\n'
            'aliases: ["tu\u200dsk\ufeff"]\n---\n## Iv\u202aory\u2069\n\nbody\n').encode()
    note = parse_note("walrus.md", data)
    assert (note.title, note.desc, note.aliases, note.headings) == ("Walrus tusk", "care notes", ["tusk"], "Ivory")
    assert parse_note("a\u202edm.exe.md", b"zebra\n").title == "adm.exe"
    assert parse_note("x.md", "# He\u2060ad\u00ad\n\nbody\n".encode()).title == "Head"


def test_malformed_yaml_still_parses_body() -> None:
    data = b"---\ntitle: ok\ndescription: 'quoted' then more\n---\n# Heading\n\nBody kept.\n"
    note = parse_note("bad-yaml.md", data)
    assert note.problems == [BAD_YAML + "did not find expected key (line 3)"]
    # YAML failed, but the flat `key: value` lines are recovered as plain text
    assert note.title == "ok"
    assert note.desc == "'quoted' then more"
    assert note.headings == "Heading"  # not used as the title, so it is a heading
    assert note.body == "Body kept."
    assert "quoted" not in note.body  # the block is removed all the same


def test_malformed_yaml_recovers_only_top_level_pairs() -> None:
    data = b"---\nname: x\n  nested: [1\nbad: 'a' b\n---\n# H\n"
    note = parse_note("n.md", data)
    assert note.title == "x"  # `name` recovered; the indented line is not top level
    assert note.headings == "H"


@pytest.mark.parametrize("value", ["[unclosed", "{a: 1", "&anchor [x", "*alias", "!!str [x"])
def test_malformed_yaml_structure_is_not_read_as_text(value: str) -> None:
    data = f"---\ntitle: {value}\naliases: foo\n---\nbody about xylophones\n".encode()
    note = parse_note("music/xylophone-care.md", data)
    assert len(note.problems) == 1 and note.problems[0].startswith(BAD_YAML)  # still reported
    assert note.title == "xylophone care"  # from the file name, as without front matter
    assert note.aliases == ["foo"]  # a plain pair beside it is still recovered
    with_h1 = parse_note("x.md", f"---\ntitle: {value}\n---\n# Xylophones\n\nbody\n".encode())
    assert with_h1.title == "Xylophones" and with_h1.headings == ""


@pytest.mark.parametrize("run", ["[", "!["])
def test_a_note_of_unclosed_brackets_is_read_as_plain_text(run: str) -> None:
    # markdown-it-py spends seconds on them: the plain reader keeps the title and headings
    note = parse_note("pasted.md", ("# Pasted\n\n## Dump\n\n" + run * 60_000 + "\n").encode())
    assert note.problems == ["more than 10,000 '[': indexed as plain text, not parsed as Markdown"]
    assert (note.title, note.headings, note.body) == ("Pasted", "Dump", run * 60_000)


@pytest.mark.parametrize("run", ["*_", "*a", "_a"])
def test_a_note_of_emphasis_marks_is_read_as_plain_text(run: str) -> None:
    # markdown-it-py spends seconds matching 120,000 emphasis delimiters
    note = parse_note("pasted.md", ("# Pasted\n\n## Dump\n\n" + run * 60_000 + "\n").encode())
    assert note.problems == ["more than 20,000 '*' and '_': indexed as plain text, not parsed as Markdown"]
    assert (note.title, note.headings, note.body) == ("Pasted", "Dump", run * 60_000)


def test_emphasis_below_the_bound_is_read_as_markdown() -> None:
    text = "# Emphasis\n\n" + "*word* and __strong__ and snake_case_name\n" * 2_500  # 20,000 marks
    note = parse_note("emph.md", text.encode())
    assert note.problems == [] and "*" not in note.body and "snake_case_name" in note.body
    over = parse_note("emph.md", (text + "*one more*\n").encode())
    assert over.problems == ["more than 20,000 '*' and '_': indexed as plain text, not parsed as Markdown"]


@pytest.mark.parametrize("line", ["#", "- a", "> a", "a\n=", "| x | y |"])
def test_a_note_of_many_lines_is_read_as_plain_text(line: str) -> None:
    """markdown-it-py spends 10-45 us on each line: 65,000 empty headings (127 KiB, under
    MARKDOWN_MAX_CHARS) took 1.7 s. Past 5,000 lines the plain reader takes the note (its
    link's URL stays in the body); up to them it is Markdown (the URL is dropped)."""
    head, tail = "# Ledger\n\n## Items\n\n", "[site](example.org)\n"
    fill = MARKDOWN_MAX_LINES - (head + tail).count("\n")
    items = fill // (line.count("\n") + 1)
    text, longer = (head + (line + "\n") * n + tail for n in (items, items + 1))
    assert text.count("\n") <= MARKDOWN_MAX_LINES < longer.count("\n")
    under = parse_note("ledger.md", text.encode())
    assert (under.problems, under.title, "example.org" in under.body) == ([], "Ledger", False)
    over = parse_note("ledger.md", longer.encode())
    assert (over.problems, over.title, "example.org" in over.body) == ([], "Ledger", True)
    assert over.headings.split("\n")[0] == "Items"


def test_many_links_below_the_bracket_bound_are_read_as_markdown() -> None:
    text = "# Links\n\n" + "[p](e.org) [p](e.org) [p](e.org)\n" * 3_333 + "[p](e.org)\n"  # 107 KiB
    assert len(text) < MARKDOWN_MAX_CHARS and text.count("\n") <= MARKDOWN_MAX_LINES
    note = parse_note("links.md", text.encode())
    assert note.problems == [] and note.title == "Links"
    assert "e.org" not in note.body  # parsed as Markdown: link URLs dropped
    over = parse_note("links.md", (text + "[one more](e.org)\n").encode())
    assert over.title == "Links" and "e.org" in over.body and len(over.problems) == 1


def test_yaml_that_fails_while_building_values() -> None:
    # A date that matches YAML's timestamp pattern but is not a date.
    note = parse_note("a.md", b"---\ntitle: ok\nmodified: 2025-13-45\n---\nBody.\n")
    assert note.problems == [BAD_YAML + "month must be in 1..12"]
    assert note.body == "Body."


def test_unsafe_yaml_tag_is_not_constructed() -> None:
    note = parse_note("a.md", b"---\nx: !!python/object/apply:os.system [echo]\n---\nBody.\n")
    assert len(note.problems) == 1 and note.problems[0].startswith(BAD_YAML)
    assert note.body == "Body."


@pytest.mark.parametrize(
    "yaml_text",
    [
        "- a list\n- of items",  # a YAML sequence
        "just a string",  # a YAML scalar
        "42",  # a number
    ],
)
def test_front_matter_not_a_mapping(yaml_text: str) -> None:
    note = parse_note("notes/odd.md", f"---\n{yaml_text}\n---\nBody.\n".encode())
    assert note.problems == [NOT_MAPPING]
    assert (note.title, note.body) == ("odd", "Body.")


def test_latin1_and_windows_1252_are_read_as_such() -> None:
    """A note in Latin-1 or Windows-1252 (older editors) lost every accented letter to U+FFFD,
    and with it the word to search: bytes that are not UTF-8 and hold no UTF-8 sequence are
    read as Windows-1252."""
    note = parse_note("latin1.md", "# Caf\xe9 notes\n\nR\xe9sum\xe9 \u2013 cr\xe8me br\xfbl\xe9e.\n".encode("cp1252"))
    assert note.problems == ["not UTF-8: read as Windows-1252 (Latin-1)"]
    assert note.title == "Caf\xe9 notes"
    assert note.body == "R\xe9sum\xe9 \u2013 cr\xe8me br\xfbl\xe9e."


def test_invalid_utf8() -> None:
    """UTF-8 with a few bytes that are not: those are replaced, the rest read as UTF-8."""
    data = "# Caf\xe9 notes\n\nR\xe9sum\xe9 here.\n".encode() + b"stray \xff byte\n"
    note = parse_note("mixed.md", data)
    assert note.problems == [NOT_UTF8]
    assert note.title == "Caf\xe9 notes"
    assert note.body == "R\xe9sum\xe9 here.\nstray \ufffd byte"


def test_nul_bytes_mean_binary() -> None:
    note = parse_note("attachments/scan-2024.md", b"%PDF-1.7\n\x00\x01\x02# Title\n")
    assert note == Note(
        path="attachments/scan-2024.md",
        title="scan 2024",
        desc="",
        headings="",
        body="",
        type="",
        aliases=[],
        tags=[],
        problems=[BINARY],
    )


@pytest.mark.parametrize(
    "data",
    [
        b"",  # zero bytes
        b" \n\t\r\n",  # whitespace only
        b"\xef\xbb\xbf\r\n",  # a BOM and a line end
    ],
)
def test_empty_file(data: bytes) -> None:
    note = parse_note("inbox/new-note.md", data)
    assert note.problems == [EMPTY]
    assert (note.title, note.body, note.headings) == ("new note", "", "")


def test_larger_than_limit_parses_first_mib() -> None:
    para = b"Torque the sump plug to 30 Nm.\n\n"
    head = b"# Big note\n\n" + para * (MAX_NOTE_BYTES // len(para))
    kept = head[: MAX_NOTE_BYTES - 12] + b"\n\nLASTKEPT\n\n"
    assert len(kept) == MAX_NOTE_BYTES
    data = kept + b"DROPPED after the limit\n"
    note = parse_note("big.md", data)
    assert note.problems == [TOO_LARGE]
    assert note.title == "Big note"
    assert note.body.startswith("Torque the sump plug to 30 Nm.\n")
    assert note.body.endswith("\nLASTKEPT")


def test_cut_inside_a_character_is_not_invalid_utf8() -> None:
    # The limit falls between the two bytes of "é": that is the cut, not bad data.
    data = b"x" * (MAX_NOTE_BYTES - 1) + "é".encode() + b"tail"
    note = parse_note("big.md", data)
    assert note.problems == [TOO_LARGE]
    assert note.body == "x" * (MAX_NOTE_BYTES - 1)


def test_exactly_at_limit_is_fine() -> None:
    data = b"# Fits\n\n" + b"a" * (MAX_NOTE_BYTES - 8)
    assert len(data) == MAX_NOTE_BYTES
    assert parse_note("fits.md", data).problems == []


# --- never raises -----------------------------------------------------------

# Characters that drive the YAML and Markdown parsers into their odd corners.
MARKDOWNISH = st.text(
    alphabet=st.sampled_from(list("-.#*_`~[]|!<>()&;:'\"\\ \t\r\n\ufeffaZ9é{},?%@")),
    max_size=300,
)
FRONT = st.sampled_from(["", "---\n", "---\r\n", "\ufeff---\n", "---\ntitle: ", "---\n- ", "+++\n", "+++\ntitle = "])


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_never_raises_on_bytes(data: bytes) -> None:
    assert_well_formed(parse_note("a/b.md", data), "a/b.md")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=2000))
def test_never_raises_on_text(text: str) -> None:
    assert_well_formed(parse_note("a/b.md", text.encode()), "a/b.md")


@settings(max_examples=300, deadline=None)
@given(FRONT, MARKDOWNISH, st.sampled_from(["", "\n---\n", "\n...\n", "\n+++\n"]), MARKDOWNISH)
def test_never_raises_on_markdownish_text(front: str, fm: str, close: str, rest: str) -> None:
    data = (front + fm + close + rest).encode()
    note = parse_note("x.md", data)
    assert_well_formed(note, "x.md")


@pytest.mark.parametrize(
    "data",
    [
        b">" * 50_000,  # deeply nested block quotes
        b"[" * 10_000 + b"]" * 10_000,  # nested brackets
        b"".join(b"  " * i + b"- item\n" for i in range(500)),  # nested lists
        b"---\n" + b"[" * 50_000 + b"\n---\nbody",  # deeply nested YAML
        b"---\na: " + b"{a: " * 10_000 + b"\n---\nbody",  # unclosed YAML mappings
    ],
    ids=["quotes", "brackets", "lists", "yaml-nesting", "yaml-unclosed"],
)
def test_never_raises_on_pathological_nesting(data: bytes) -> None:
    assert_well_formed(parse_note("deep.md", data), "deep.md")


# --- the shared fixture vault ----------------------------------------------


@pytest.mark.parametrize("folder", ["household2", "folders", "tiny"])
def test_repository_vaults(folder: str) -> None:
    """Every note of the labelled folders in tests/data parses well formed and gets a title."""
    root = DATA / folder / "vault"
    files = sorted(root.rglob("*.md"))
    assert files
    notes = {}
    for file in files:
        rel = file.relative_to(root).as_posix()
        notes[rel] = note = parse_note(rel, file.read_bytes())
        assert_well_formed(note, rel)
        assert note.title, rel
    if folder == "household2":
        rhiannon = notes["people/rhiannon.md"]  # starts with a UTF-8 BOM
        assert rhiannon.title == "Rhiannon (bike mechanic)" and rhiannon.problems == []
        meter = notes["home/water-meter.md"]  # CRLF line ends
        for field in dataclasses.fields(meter):
            assert "\r" not in str(getattr(meter, field.name)), field.name
        assert "Stopcock: under the kitchen sink" in meter.body


def test_fixture_vault(shared: Path) -> None:
    VAULT = shared / "fixtures" / "personal" / "vault"
    notes = {}
    for file in sorted(VAULT.rglob("*.md")):
        rel = file.relative_to(VAULT).as_posix()
        notes[rel] = note = parse_note(rel, file.read_bytes())
        assert_well_formed(note, rel)
        assert note.title, rel
    assert len(notes) > 100

    recovery = notes["hardware/shield-tv-recovery.md"]
    assert recovery.title == "shield-tv-recovery"
    assert recovery.desc.startswith("Plan to unbrick")
    assert recovery.type == "project"
    assert "P2571" in recovery.body and "**" not in recovery.body
    assert recovery.problems == []

    car = notes["vehicles/mercedes-w204.md"]
    assert car.title == "Mercedes C250 CDI estate (S204)"
    assert car.aliases == ["C250", "C-class", "the estate"]
    assert car.tags == ["car", "mercedes", "w204"]
    assert "A 204 524 05 30" in car.body
    assert "Sol sol-abara" in car.body

    sol = notes["people/sol-abara.md"]  # starts with a UTF-8 BOM
    assert sol.title == "Sol Abara (mechanic)"
    assert sol.aliases == ["Sol", "Northgate Autos"]
    assert sol.tags == ["people", "car"]
    assert sol.headings.split("\n")[0] == "Contact"

    psu = notes["hardware/shield-tv-power-supply.md"]  # CRLF line ends
    assert psu.title == "Shield TV power supply"
    assert psu.type == "reference"
    assert psu.headings.split("\n")[0] == "Label / stock"
    for field in dataclasses.fields(psu):
        assert "\r" not in str(getattr(psu, field.name)), field.name

    # The one real file with broken YAML: an unquoted description that
    # starts with a quoted word.
    homelab = notes["hardware/homelab-server.md"]
    assert homelab.problems == [BAD_YAML + "did not find expected key (line 3)"]
    assert homelab.title == "homelab-server"  # `name` recovered from the broken block
    assert homelab.desc.startswith("'atlas', the Proxmox mini PC")
    assert homelab.headings.split("\n")[0] == "Hardware"

    assert notes["home/smoke-alarms.md"].title == "smoke alarms"
    assert [rel for rel, n in notes.items() if n.problems] == ["hardware/homelab-server.md"]


def test_yaml_alias_bomb_is_bounded() -> None:
    # nine levels of anchors: a few hundred bytes standing for ~387 million list items
    lines = ["---", 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    prev = "a"
    for name in "bcdefghi":
        lines.append(f"{name}: &{name} [" + ",".join(f"*{prev}" for _ in range(9)) + "]")
        prev = name
    lines += ["title: *i", "tags: *i", "---", "# Heading", "body"]
    import time

    t0 = time.perf_counter()
    note = parse_note("bomb.md", "\n".join(lines).encode())
    assert time.perf_counter() - t0 < 5  # bounded work, not a hang
    # a list is no title; the words of a list of text are text, each once; lists of lists are not read
    assert note.title == "Heading" and note.body == "body\nlol"


def test_nul_padding_after_the_text_is_dropped() -> None:
    # a note preallocated by a sync tool: its text, then NUL bytes to the end
    note = parse_note("trips/ferry.md", b"# Ferry times\n\nThe 07:40 sails daily.\n" + b"\x00" * 4096)
    assert (note.title, note.body, note.problems) == ("Ferry times", "The 07:40 sails daily.", [])
    # a NUL inside the text is still binary, padding or not
    inside = parse_note("trips/ferry.md", b"# Ferry\x00times\n" + b"\x00" * 10)
    assert (inside.title, inside.body, inside.problems) == ("ferry", "", [BINARY])


def test_parsing_large_notes_keeps_nothing_alive() -> None:
    # notes over the Markdown parser's limit (then 256 KiB) once stayed in a cache keyed by their
    # text: 20 of them kept about 20 MB alive after the parse
    import gc
    import tracemalloc

    notes = [(f"# Log {i}\n\n" + f"line {i} of the log\n" * 20_000).encode() for i in range(20)]
    gc.collect()
    tracemalloc.start()
    try:
        for i, data in enumerate(notes):
            assert parse_note(f"logs/{i}.md", data).title == f"Log {i}"
        gc.collect()
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert kept < 2_000_000, kept


def test_long_note_is_read_as_plain_text() -> None:
    # over 128 Ki characters of Markdown skips the Markdown parser: '#' lines are still headings
    table = "| a | b |\n|---|---|\n" + "| x | y |\n" * 20_000  # 195 KiB: over MARKDOWN_MAX_CHARS, under MAX_NOTE_BYTES
    text = "# Big table\n\n## Section two\n\n" + table + "tail words\n"
    note = parse_note("big.md", text.encode())
    assert note.title == "Big table"
    assert note.headings == "Section two"
    assert note.body.endswith("tail words")
    assert note.problems == []


@pytest.mark.parametrize(
    ("path", "source", "title", "headings"),
    [
        # a first-line H1 is the title
        ("kitchen/grinder.md", b"# Espresso grinder\n\nBurr size 38 mm.\n", "Espresso grinder", ""),
        # an H1 after content is a section heading; the file name is the title
        ("kitchen/Espresso grinder.md", b"Bought in May.\n\n# Resources\n\nManual.\n", "Espresso grinder", "Resources"),
        ("espresso-grinder_notes.md", b"Dial in at 14.\n\n# Problem\n\nClumps.\n", "espresso grinder notes", "Problem"),
        # an H2 first: a later H1 is not the title either
        ("bees.md", b"## Hives\n\nTwo.\n\n# Characters\n", "bees", "Hives\nCharacters"),
        # front matter wins over a first-line H1
        ("x.md", b"---\nname: Grinder\n---\n# Burrs\n", "Grinder", "Burrs"),
    ],
)
def test_title_is_front_matter_first_line_h1_or_file_name(path: str, source: bytes, title: str, headings: str) -> None:
    note = parse_note(path, source)
    assert (note.title, note.headings) == (title, headings)


@pytest.mark.parametrize(
    ("source", "title", "headings"),
    [
        # a logo above the H1 (GitHub README style): the H1 is still the title
        (b"![logo](./sabro.jpeg)\n\n# 09 SMaSH Sabro\n\n## Mash\n", "09 SMaSH Sabro", "Mash"),
        # badges: linked images on one line
        (b"[![CI](https://ci/badge.svg)](https://ci) [![PyPI](https://pypi/v.svg)](https://pypi)\n\n# Tool\n",
         "Tool", ""),
        # a centred logo in HTML
        (b'<p align="center"><img src="logo.png" alt="Logo"></p>\n\n# Tool\n\nText.\n', "Tool", ""),
        # text before the H1 is content: the H1 is a section heading
        (b"![logo](x.png) Brewed in May.\n\n# Resources\n", "readme", "Resources"),
        (b"<p>Brewed in May.</p>\n\n# Resources\n", "readme", "Resources"),
    ],
)
def test_images_above_the_first_h1_leave_it_the_title(source: bytes, title: str, headings: str) -> None:
    note = parse_note("readme.md", source)
    assert (note.title, note.headings) == (title, headings)
    long = parse_note("readme.md", source + b"\n" + b"word " * 30_000)  # read without the Markdown parser
    assert long.title == title


@pytest.mark.parametrize(
    ("path", "title"),
    [
        ("brews/09_SMaSH_Sabro/README.md", "09 SMaSH Sabro"),
        ("docs/setup/index.md", "setup"),
        ("site/content/posts/_index.md", "posts"),
        ("Projects/README.MD", "Projects"),
        ("README.md", "README"),  # the top of the notes folder: no folder to be named by
        ("brews/readme-first.md", "readme first"),
    ],
)
def test_a_folder_readme_without_a_title_is_named_by_its_folder(path: str, title: str) -> None:
    assert parse_note(path, b"Just a paragraph.\n").title == title


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("brews/09_SMaSH_Sabro/README.md", ("09_SMaSH_Sabro", "brews 09_SMaSH_Sabro")),
        ("docs/setup/index.md", ("setup", "docs setup")),
        ("README.md", ("README", "")),
        ("brews/readme-first.md", ("readme-first", "brews")),
        ("pages/Foo%3ABar.md", ("Foo:Bar", "pages")),  # Logseq's percent-encoding, decoded
        # Notion's page IDs after file and folder names are not words of the note
        ("Home 1111222233334444555566667777888a/Garden shed 1a2b3c4d5e6f708192a3b4c5d6e7f809.md",
         ("Garden shed", "Home")),
        ("Home 1111222233334444555566667777888a/Projects 8c3e1f2a9b7d4e6f8a1b2c3d4e5f6a7b/README.md",
         ("Projects", "Home Projects")),
    ],
)
def test_a_folder_readme_has_its_folder_name_for_a_file_name(path: str, words: tuple[str, str]) -> None:
    """The index's title words and the gate's names of a note (``gate._names``) read it so."""
    assert name_words(path) == words


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_note_saved_as_utf16_with_its_byte_order_mark_is_read(encoding: str) -> None:
    """Windows PowerShell 5's ">" writes UTF-16 LE with a BOM: its every other byte is a NUL,
    which read as a binary file (only the name indexed)."""
    text = "---\ndescription: Grünkohl mit Pinkel\n---\n# Winter recipes\n\nKale, sausage, oats.\n"
    bom = {"utf-16": b"", "utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE}[encoding]
    note = parse_note("recipes.md", bom + text.encode(encoding))
    assert (note.title, note.desc, note.problems) == ("Winter recipes", "Grünkohl mit Pinkel", [])
    assert "Kale, sausage, oats." in note.body


def test_a_utf16_note_cut_by_the_read_limit_says_so() -> None:
    """A UTF-16 note of more than 128 Ki ASCII characters fills the 256 KiB read limit: its text
    after that was left out without a word (its UTF-8 form is only 128 KiB)."""
    body = "".join(f"line {i} of the long log\n" for i in range(12_000))  # about 300,000 characters
    data = codecs.BOM_UTF16_LE + f"# Long log\n\n{body}".encode("utf-16-le")
    note = parse_note("log.md", data[: 256 * 1024 + 1])  # what the reader hands the parser
    assert note.problems == ["larger than 256 KiB: only the first 256 KiB is indexed"]
    assert note.title == "Long log"
    assert "line 5000 of the long log" in note.body and "line 11000 " not in note.body
    small = codecs.BOM_UTF16_LE + "# Short\n\nA few words.\n".encode("utf-16-le")
    assert parse_note("short.md", small).problems == []


LOGSEQ_PAGE = (
    b"category:: Programming\n"
    b"alias:: Omit, [[Omit type]]\n"
    b"tags:: typescript, [[utility types]]\n"
    b"description:: build a type without some keys\n"
    b"\n"
    b"- ## `Omit<Type, keys>`\n"
    b"\t- Drops the keys named, keeps the rest.\n"
)


def test_logseq_page_properties_are_front_matter() -> None:
    """A Logseq page's ``key:: value`` lines at its top are its front matter: aliases (split on
    commas, a ``[[link]]`` kept whole), tags and description read as such; the other properties
    stay text, to be searched."""
    note = parse_note("pages/Type Omit.md", LOGSEQ_PAGE)
    assert (note.title, note.desc) == ("Type Omit", "build a type without some keys")
    assert (note.aliases, note.tags) == (["Omit", "Omit type"], ["typescript", "utility", "types"])
    assert (note.headings, note.body, note.problems) == (
        "Omit<Type, keys>", "category:: Programming\nDrops the keys named, keeps the rest.", [])
    titled = parse_note("pages/omit.md", b"\ntitle:: Type Omit\nalias:: \xe6\xb8\xb8\xe6\x88\x8f, GameMode\n")
    assert (titled.title, titled.aliases, titled.body) == ("Type Omit", ["\u6e38\u620f", "GameMode"], "")


@pytest.mark.parametrize(
    ("data", "body"),
    [
        (b"Status:: done\nThe rest of the paragraph.\n", "Status:: done\nThe rest of the paragraph."),  # a paragraph
        (b"# Title\n\nalias:: later\n", "alias:: later"),  # not at the top
        (b"alias: one colon\n\nText.\n", "alias: one colon\nText."),
    ],
)
def test_text_that_only_looks_like_page_properties_stays_text(data: bytes, body: str) -> None:
    note = parse_note("a.md", data)
    assert (note.aliases, note.body) == ([], body)


@pytest.mark.parametrize(
    ("data", "title", "aliases", "tags", "body"),
    [
        # every alias:: line counts; an empty title:: leaves the H1 the title
        (b"title::\nalias:: Frobnitz\nalias:: Quaxwell, [[Quax well]]\naliases:: Dup\n\n# Heading Title\n\nBody.\n",
         "Heading Title", ["Frobnitz", "Quaxwell", "Quax well", "Dup"], [], "Body."),
        # keys of any letters; a Dataview field stays text; a no-break space after the colons
        (b"title::\xc2\xa0Keys\n\xe7\xb1\xbb\xe5\x9e\x8b:: \xe4\xb9\xa6\nstatus:: done\n_under:: 4\n\nBody.\n",
         "Keys", [], [], "\u7c7b\u578b:: \u4e66\nstatus:: done\n_under:: 4\nBody."),
        # junk brackets and empty values leave nothing; tags lose their # like front matter's
        (b"alias:: ,,, [[]], ]], [[, [[x]\ntags:: #foo, #[[bar baz]], [[#qux]]\n\nBody.\n",
         "p", ["x"], ["foo", "bar", "baz", "qux"], "Body."),
        (b"std::move casts an lvalue\n\nBody.\n", "p", [], [], "std::move casts an lvalue\nBody."),  # no space: C++
        # the page's first block right below them, no blank line between (as Logseq also writes)
        (b"title:: Toggl API\nalias:: [[Toggl]], Track API\n- # Toggl Track API v9\n  - REST\n",
         "Toggl API", ["Toggl", "Track API"], [], "REST"),
        (b"title:: Fancy Two\n-\n", "Fancy Two", [], [], ""),
        # a line that is not a top-level block keeps them a paragraph
        (b"title:: X\n  - indented\n", "p", [], [], "title:: X\nindented"),
        (b"title:: X\n--- a rule\n", "p", [], [], "title:: X\n--- a rule"),
    ],
)
def test_page_properties_edges(data: bytes, title: str, aliases: list[str], tags: list[str], body: str) -> None:
    note = parse_note("p.md", data)
    assert (note.title, note.aliases, note.tags, note.body) == (title, aliases, tags, body)


@pytest.mark.parametrize(
    "data",
    [
        b"k:: a" + b" " * 250_000 + b"b\n",  # a long run of blanks inside a value
        b"alias:: " + b"[[a, " * 50_000 + b"\n\nBody.\n",  # links never closed
        b"k" * 200_000 + b":" * 50_000 + b"\n",
    ],
)
def test_page_properties_read_a_long_line_in_one_pass(tmp_path: Path, data: bytes) -> None:
    """Each of these took minutes when the property's value was matched by a lazy pattern
    before trailing blanks (quadratic in the run of blanks: 7 min for the first) or its links by
    a pattern that scanned to the end for each unclosed ``[[``, and the hook indexes a changed
    note before it answers. Read in one pass now, in well under a second; a process still
    reading after 60 s fails the test."""
    import subprocess
    import sys

    (tmp_path / "x.md").write_bytes(data)
    code = "import sys; from notesdb.parse import parse_note; n = parse_note('x.md', open(sys.argv[1], 'rb').read()); print(n.aliases)"
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "x.md")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() in ("[]", "['a']"), out.stderr[-500:]


DRAWING = (
    "---\n\nexcalidraw-plugin: parsed\ntags: [excalidraw]\n\n---\n"
    "==\u26a0  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. \u26a0== You can decompress "
    "Drawing data with the command palette.\n\n\n# Excalidraw Data\n## Text Elements\nRidge route via Helvellyn ^MpjsVHsE\n\n"
    "Striding Edge in wind: skip ^XmNRYfey\n\n%%\n## Drawing\n```compressed-json\nN4KAkARALgngDgUwgLgAQQQDwMYEMA2AlgC\n```\n%%\n"
)


def test_an_excalidraw_drawing_is_read_for_its_text_elements_only() -> None:
    """The Excalidraw plugin keeps each drawing as a note: its notice, its section headings,
    the drawing's JSON in a comment and a block ID after each text element are the plugin's;
    the text elements are the drawing's words."""
    note = parse_note("Excalidraw/Ridge walk.excalidraw.md", DRAWING.encode())
    assert (note.headings, note.body) == ("", "Ridge route via Helvellyn\nStriding Edge in wind: skip")
    # an older drawing: its JSON in a ```json fence inside the comment
    old = ("---\nexcalidraw-plugin: parsed\n---\n# Text Elements\nShed base 2.4 x 1.8 ^ab12cd34\n%%\n# Drawing\n"
           "```json\n{\"type\": \"excalidraw\", \"elements\": [{\"id\": \"xo51TyuY9meh\", \"strokeColor\": \"#1e1e1e\"}]}\n```\n%%\n")
    note = parse_note("Shed.excalidraw.md", old.encode())
    assert (note.headings, note.body) == ("", "Shed base 2.4 x 1.8")
    # its lists of element links and embedded files are the plugin's
    linked = DRAWING.replace("%%\n## Drawing", "## Element Links\nMpjsVHsE: [[Lake District]]\n\n## Embedded Files\n"
                             "8e7f1c2b9a0d4e5f6a7b8c9d0e1f2a3b4c5d6e7f: [[assets/Pasted Image 20260424.png]]\n\n%%\n## Drawing")
    note = parse_note("Ridge walk.excalidraw.md", linked.encode())
    assert (note.headings, note.body) == ("", "Ridge route via Helvellyn\nStriding Edge in wind: skip")


@pytest.mark.parametrize(
    ("text", "body"),
    [
        # a comment of words is the person's: kept
        ("Boiler serviced.\n%%\nask Hales about the flue\n%%\n", "Boiler serviced.\n%%\nask Hales about the flue\n%%"),
        ("Boiler serviced. %%ask about the flue%%\n", "Boiler serviced. %%ask about the flue%%"),
        # a plugin's settings in a comment with fenced code: not
        ("- [ ] Paint shed\n\n%% kanban:settings\n```\n{\"kanban-plugin\":\"basic\"}\n```\n%%\n", "[ ] Paint shed"),
        # left open: to the end of the note
        ("Kept.\n%%\n```json\n{\"a\": 1}\n```\n", "Kept."),
        # %% inside fenced code is code, not a comment
        ("```python\nprint('100%%')\n%%\n```\nAfter.\n", "print('100%%')\n%%\nAfter."),
        # a block ID ends a line or stands on its own; a caret inside a line, a number or one
        # letter after one is text
        ("Use x^2 here ^calc-1\nTwo ^ three\n", "Use x^2 here\nTwo ^ three"),
        ("> Less is more.\n\n^quote-of-the-day\n\nE = mc ^2, press ^C\n", "Less is more.\nE = mc ^2, press ^C"),
        # a data comment closed mid-line: the text after it is shown, and kept
        ("before\n%%\n```json\n{}\n```\n%% visible text about bicycles\nmore about tandems\n",
         "before\nvisible text about bicycles\nmore about tandems"),
        # %% inside code that is not a top-level fence is code: an indented block, a list's fence
        ("# J\n\n    %%timeit\n    sum(x)\n\n## Widgets\n\n```py\nx\n```\nipywidgets sliders\n",
         "%%timeit\nsum(x)\nx\nipywidgets sliders"),
        ("- ```matlab\n  %% Load data\n  x = 1;\n  ```\n- Preallocate arrays before loops\n",
         "%% Load data\nx = 1;\nPreallocate arrays before loops"),
        # inline code at the start of a line is not a fence: the data comment after it goes
        ("```x``` is inline\n%%\n```json\n{}\n```\n%%\nAfter.\n", "x is inline\nAfter."),
    ],
)
def test_app_data_in_a_note_is_not_its_text(text: str, body: str) -> None:
    assert parse_note("n.md", text.encode()).body == body


#: Pieces of the markup of sites, apps and plugins that the readers take apart.
MARKUP_PIECES = st.sampled_from([
    "\n", " ", "x", "word ", "{{<", ">}}", "{{%", "%}}", "{%", "%}", " relref ", '"a b"', "caption=", "](",
    "```", "```dataview", "```ad-note", "~~~", "> ", "[!NOTE]", "[!a|b]", "`=", "`$=", "`", "::", "id:: 6466f3a2-1b2c",
    "!!! note", '"T"', "??? tip", '=== "Tab"', "    ", ":::", ":::tip", "{:", "{#id}", "{.c}", "}", "$$", "$",
    "\\frac", "\\begin{x}", "\\end{x}", "\\(", "\\)", "\\\\(", "##### ^123456", "%%", "^ab", "+++", "{", "[[a]]",
    "{{", "}}", "{{embed ", "{{[[TODO]]}}", "{{cloze ", "((uid))", "- ", "\t-\n", "collapsed:: true", ":LOGBOOK:", ":END:",
    "{{title}}", "<%", "%>",
])
MARKUP = st.lists(MARKUP_PIECES, max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["", "---\ntitle: t\n---\n", "+++\ntitle = 't'\n+++\n", '{"title": "t"}\n']), MARKUP)
def test_never_raises_on_site_and_app_markup(front: str, text: str) -> None:
    """Any mix of the markup the readers take apart parses, and the note stays well formed."""
    assert_well_formed(parse_note("x.md", (front + text).encode()), "x.md")


@pytest.mark.parametrize(
    "data",
    [
        b"%% a\n" * 60_000,  # comments opened and never closed, one a line
        b"%%\n" + b"```\n%% b\n" * 30_000,  # a comment holding fences and openings
    ],
)
def test_app_data_is_found_in_one_pass(tmp_path: Path, data: bytes) -> None:
    """A comment's opening line scanned to its close for each opening line, quadratic in a note
    of unclosed comments (60,000 lines: minutes), and the hook indexes a changed note before it
    answers. One pass now (tens of ms); a process still reading after 60 s fails the test."""
    import subprocess
    import sys

    (tmp_path / "x.md").write_bytes(data)
    code = "import sys; from notesdb.parse import parse_note; n = parse_note('x.md', open(sys.argv[1], 'rb').read()); print(len(n.body))"
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "x.md")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip().isdigit(), out.stderr[-500:]


def test_toml_front_matter_is_front_matter() -> None:
    """Hugo and Zola write front matter in TOML between ``+++`` lines: its title, description,
    aliases and tags are the note's, and its lines are not the note's text (they were, and the
    title came from the file name)."""
    note = parse_note(
        "content/heat-pump.md",
        b'+++\ntitle = "Daikin heat pump settings"\ndescription = "Flow temperature and curve"\n'
        b'date = 2023-01-02\ntags = ["home", "heating"]\naliases = ["Heatpump", "/posts/old-heat-pump/"]\n'
        b'[[resources]]\n  src = "unit.jpg"\n+++\n\nFlow temperature 45C, curve 0.6.\n',
    )
    assert (note.title, note.desc, note.aliases, note.tags, note.body, note.problems) == (
        "Daikin heat pump settings", "Flow temperature and curve", ["Heatpump"], ["home", "heating"],
        "Flow temperature 45C, curve 0.6.", [])


@pytest.mark.parametrize(
    ("data", "title", "body", "problems"),
    [
        # a bad date further down: the title's line is still read, the block is still not text
        (b'+++\ntitle = "Heat pump"\ndate = 2023-13-45\n+++\nFlow 45C.\n', "Heat pump", "Flow 45C.",
         ["malformed TOML front matter"]),
        # an unclosed string: nothing to read but the file name
        (b'+++\ntitle = "Heat pump\n+++\nFlow 45C.\n', "heat pump", "Flow 45C.",
         ["malformed TOML front matter"]),
        # no closing line: not front matter
        (b"+++\nFlow 45C.\n", "heat pump", "+++\nFlow 45C.", []),
        (b"+++ title\n+++\nFlow 45C.\n", "heat pump", "+++ title\n+++\nFlow 45C.", []),
    ],
)
def test_toml_front_matter_that_does_not_load(data: bytes, title: str, body: str, problems: list[str]) -> None:
    """TOML that does not load is reported (the parser's own words follow the colon, and differ
    between Python versions) and its one-line string pairs are still read."""
    note = parse_note("heat-pump.md", data)
    assert (note.title, note.body, [p.split(":")[0] for p in note.problems]) == (title, body, problems)


def test_an_alias_that_is_a_site_path_is_not_a_name() -> None:
    """Hugo's ``aliases`` are the old URLs a page redirects from, in YAML front matter as in
    TOML: not names of the note (their words were title words)."""
    note = parse_note("n.md", b"---\ntitle: Boiler\naliases: [/posts/boiler-2021/, https://old.example/boiler, Worcester]\n---\nx\n")
    assert note.aliases == ["Worcester"]


@pytest.mark.parametrize(
    ("source", "title", "headings"),
    [
        (b"# Routers {#routers}\n\n## Today's links {#today-s-links}\n\ntext\n", "Routers", "Today's links"),
        (b"# R\n\n## Setup { #setup .big }\n", "R", "Setup"),  # MkDocs attr_list
        (b"# R\n\n## Kramdown {: #k .c}\n", "R", "Kramdown"),  # Jekyll
        (b"# R\n\n## Appendix {-}\n", "R", "Appendix"),  # Pandoc: unnumbered
        (b'# R\n\n## Key {data-x="a b" #z}\n', "R", "Key"),
        (b"# R\n\n## Sets {a, b}\n", "R", "Sets {a, b}"),  # braces of words stay
        (b"# R\n\n## {#only}\n", "R", "{#only}"),  # nothing but the list: kept as it is
        (b"# R\n\n## Map<K, V> {x}\n", "R", "Map<K, V> {x}"),
    ],
)
def test_a_heading_attribute_list_is_not_its_text(source: bytes, title: str, headings: str) -> None:
    """``## Setup {#setup}`` gives an anchor no reader sees (Pandoc, Hugo, MkDocs, kramdown):
    its words were the heading's words twice and its braces showed in the assistant's line."""
    note = parse_note("n.md", source)
    assert (note.title, note.headings) == (title, headings)
    plain = parse_note("n.md", source + b"\n" + b"x\n" * (MARKDOWN_MAX_LINES + 1))  # the plain-text reader
    assert (plain.title, plain.headings) == (title, headings)


def test_json_front_matter_is_front_matter() -> None:
    """Hugo's third form of front matter, a JSON object on the first line: its title and tags
    are the note's and the object is not its text (its keys, "title" and "tags", were words of
    every note of a folder written so)."""
    note = parse_note("posts/influence_of_art.md", b'{"title": "Influence of art", "tags": ["talk"]}\nevent: Learning Day 32\n')
    assert (note.title, note.tags, note.body) == ("Influence of art", ["talk"], "event: Learning Day 32")


@pytest.mark.parametrize(
    ("data", "title", "body"),
    [
        (b'{"a": 1} more\ntext\n', "j", '{"a": 1} more\ntext'),  # more text on the object's line
        (b"[1, 2]\ntext\n", "j", "[1, 2]\ntext"),  # not an object
        (b"{not json}\ntext\n", "j", "{not json}\ntext"),
        (b'{"title": "T"}', "T", ""),  # nothing after it
    ],
)
def test_a_note_that_only_starts_with_a_brace_is_text(data: bytes, title: str, body: str) -> None:
    note = parse_note("j.md", data)
    assert (note.title, note.body, note.problems) == (title, body, [])


def test_hugo_shortcodes_read_as_the_site_shows_them() -> None:
    """A Hugo site's shortcodes are replaced by what they make: an embed or math markup is no
    text, a figure's caption is, a ``relref`` inside a Markdown link is the link's target (a link
    to the note, whose anchor text it gets), the text between paired tags stays, and an escaped
    shortcode stays as written."""
    note = parse_note(
        "posts/digital_notes.md",
        b'See [Learning Day 32]({{< relref "learning_day" >}}) and {{< relref "here" >}}.\n\n'
        b'{{< figure src="/images/2008/room.jpg" width=500 caption="Our room in Paris" >}}\n'
        b'{{< youtube w7Ft2ymGmfc >}}\n'
        b"minimising {{< katex >}}\\sum D{{< /katex >}}; {{% notice tip %}}Cache it{{% /notice %}}\n\n"
        b"Write {{</* youtube id */>}} to embed.\n",
    )
    assert note.body == (
        "See Learning Day 32 and .\nOur room in Paris\nminimising \\sum D; Cache it\n"
        "Write {{</* youtube id */>}} to embed."
    )
    assert note.links == ["/posts/learning_day"]
    assert note.anchors == [["/posts/learning_day", "", "Learning Day 32"]]


@pytest.mark.parametrize("data", [b"{{< a " * 50_000, b"{{% x " * 50_000 + b"%}}", b"{{<" * 80_000])
def test_shortcodes_are_found_in_one_pass(tmp_path: Path, data: bytes) -> None:
    """Openings never closed are each read at most a bounded distance: the hook reads a changed
    note before it answers. A process still reading after 60 s fails the test."""
    import subprocess
    import sys

    (tmp_path / "x.md").write_bytes(data)
    code = "import sys; from notesdb.parse import parse_note; n = parse_note('x.md', open(sys.argv[1], 'rb').read()); print(len(n.body))"
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "x.md")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip().isdigit(), out.stderr[-500:]


def test_a_plugins_query_or_settings_block_is_not_text() -> None:
    """A Dataview query, a Tasks query, an embedded search and a table-of-contents plugin's
    settings are worked out when the note is viewed: their lines (``FROM``, ``maxLevel``, other
    notes' names) were words of every hub note. Other fenced code stays."""
    note = parse_note(
        "hub.md",
        b"# Hub\n\n```table-of-contents\nstyle: nestedList\nmaxLevel: 0\n```\n\nOpen projects:\n\n"
        b'```dataview\nTABLE status FROM #project AND -"CHANGELOG"\n```\n\n~~~tasks\nnot done\n~~~\n\n'
        b"```python\nprint('kept')\n```\n",
    )
    assert note.body == "Open projects:\nprint('kept')"


@pytest.mark.parametrize(
    ("source", "body"),
    [
        (b"> [!NOTE] About\n> The pump runs at night.\n", "About\nThe pump runs at night."),
        (b"> [!SOURCE]- Sources:\n> - a book\n", "Sources:\na book"),
        (b"> > [!tip]+ Nested\n", "Nested"),
        (b"> quote [!not a callout]\n", "quote [!not a callout]"),  # not at the quote's start
        (b"```\n> [!NOTE] in code\n```\n", "> [!NOTE] in code"),
    ],
)
def test_a_callouts_marker_is_not_its_text(source: bytes, body: str) -> None:
    """An Obsidian callout's ``[!NOTE]`` says how it is drawn: the type word was a word of every
    note with one (694 notes of a public vault); its title stays."""
    assert parse_note("c.md", source).body == body


def test_jekyll_liquid_tags_read_as_the_site_shows_them() -> None:
    """Jekyll's Liquid tags are what the page shows: an include is no text (``include``,
    ``cached``, ``boilerplate`` were words of 915 posts of a public blog), a figure's caption is,
    ``post_url`` inside a link is the link's target, and the excerpt is the description. Tags
    in code (fenced or inline: a note on Django templates) stay."""
    note = parse_note(
        "_posts/2013-07-08-pogo-connect.md",
        b"---\ntitle: Pogo Connect\nexcerpt: A pressure sensitive stylus for the iPad.\n---\n\n"
        b"{% include_cached boilerplate/paperfaces.md %}\n\n"
        b'{% figure caption:"Sketching with the Pogo" class:"gallery-2-col" %}\n![](a.jpg)\n{% endfigure %}\n\n'
        b"Read [the review]({% post_url /mastering-paper/2013-07-01-review %}).\n\n"
        b"Use `{% csrf_token %}` in forms.\n\n```django\n{% if user %}hi{% endif %}\n```\n",
    )
    assert (note.title, note.desc) == ("Pogo Connect", "A pressure sensitive stylus for the iPad.")
    assert note.body == (
        "Sketching with the Pogo\nRead the review.\nUse {% csrf_token %} in forms.\n{% if user %}hi{% endif %}"
    )
    assert note.links == ["/mastering-paper/2013-07-01-review"]


def test_admonitions_read_as_text() -> None:
    """MkDocs' admonitions, collapsible blocks and tabs indent their bodies four spaces, which
    read as code: raw Markdown, link addresses and all (115 of 148 notes of a public knowledge
    base). Their markers and types are no words; their titles and bodies are text. Docusaurus'
    ``:::tip`` fences the same way."""
    note = parse_note(
        "me4-pools.md",
        b'# ME4 pools\n\n!!! info "Sector size matters"\n    The difference is [sector size](https://example.com/x).\n\n'
        b"    ```bash\n    echo hi\n    ```\n\n??? question\n    Why pools?\n\n    !!! note \"Nested\"\n        Inner text.\n\n"
        b'=== "EXEC Mode"\n    show run\n\nAfter.\n\n:::tip Use the cache\nCached reads.\n:::\n\nTitle\n===\n',
    )
    assert note.headings == "Title"
    assert note.body == (
        "Sector size matters\nThe difference is sector size.\necho hi\nWhy pools?\nNested\nInner text.\n"
        "EXEC Mode\nshow run\nAfter.\nUse the cache\nCached reads."
    )


@pytest.mark.parametrize(
    ("data", "title", "body"),
    [
        (b"# C# {.NET}\n\n## Files {.env .bashrc}\n\nx\n", "C# {.NET}", "x"),  # classes alone: words
        (b"!!! Call the bank tomorrow\n", "n", "!!! Call the bank tomorrow"),  # not an admonition's type
        (b"::: Lesson learned: always test\n", "n", "::: Lesson learned: always test"),
        (b"---\ntitle: T\n---\nThe {% delimiter opens a tag: {% include x.html %} done.\n", "T",
         "The {% delimiter opens a tag:  done."),  # an opening before the close is no tag
        (b"In Django write {% block content %} then {% endblock %}.\n", "n",
         "In Django write {% block content %} then {% endblock %}."),  # no front matter: not Jekyll
        (b"---\ntitle: T\n---\n{% raw %}{% if user %}Hello{% endif %}{% endraw %} after\n", "T",
         "{% if user %}Hello{% endif %} after"),
        (b"---\ntitle: T\n---\nUse `` {% csrf_token %} `` here\n", "T", "Use {% csrf_token %} here"),
        (b'---\ntitle: "Escaping {% raw %} in Jekyll"\n---\nx\n', "Escaping {% raw %} in Jekyll", "x"),
        (b'{\n "editor.fontSize": 14\n}\nMy settings\n', "n", '{\n"editor.fontSize": 14\n}\nMy settings'),
        (b'{"name": "my-app", "version": "1.0"}\nreadme\n', "n", '{"name": "my-app", "version": "1.0"}\nreadme'),
        (b"+++\nsome text\n+++\nmore\n", "n", "+++\nsome text\n+++\nmore"),  # no key: not TOML
        (b'{{% notice warning "Back up first" %}}\nBody\n{{% /notice %}}\n', "n", "Back up first\nBody"),
        (b"Intro\n{: .no_toc .text-delta }\n\n{:toc}\n", "n", "Intro"),  # kramdown's block attributes
    ],
)
def test_what_only_looks_like_site_markup_stays_text(data: bytes, title: str, body: str) -> None:
    """Text a person wrote that looks like a site's or an app's markup is read as text, and
    markup is not: each case was read otherwise while the readers were written."""
    note = parse_note("n.md", data)
    assert (note.title, note.body) == (title, body)


def test_an_alias_that_is_a_path_but_no_page_is_a_name() -> None:
    note = parse_note("n.md", b"---\naliases: [/etc/fstab, /r/homelab, /posts/old/, /2010/01/x.html]\n---\nx\n")
    assert note.aliases == ["/etc/fstab", "/r/homelab"]


@pytest.mark.parametrize(
    "data",
    [
        b":::" + b"\t" * 50 + b"x{",  # 55 bytes took 18 s: a regex split the tabs every way
        b":" * 8000 + b"{",
        b"---\nt: 1\n---\n" + b"{% " * 87_000,  # each tag looked for every opening to the end
        b"---\nt: 1\n---\n" + b"{%a%}" * 50_000,
        b"---\nt: 1\n---\n" + b"{%x\n" * 60_000,
        b"!!! note\n" + b"`" * 200_000 + b"x`",  # a fence's run of backticks was read again shorter
        b"!!! note\n" + b"    " * 2 + b"!!! note\n" * 20_000,
        b"\\\\(" * 80_000,  # math openings never closed
        b"\\begin{x}" * 20_000,
        b"$\\a " * 60_000,
        b"{{a " + b"{x}" * 100_000,  # a macro's inner braces never closed
        b"{{" * 100_000,
        b"- a\n" + b"  :LOGBOOK:\n" * 60_000,  # drawers never closed
        b"x {{poem " * 50_000 + b"`" * 3,
        b"t\n\n" + b"a: b\n" * 60_000 + b"type_: 1",  # properties without an ID
        b"{{title}}\n" + b"<%" * 120_000,  # Templater openings never closed
        b"- x\n" + b"  :LOGBOOK:\n  CLOCK: [x]\n" * 30_000,  # drawers never closed
    ],
)
def test_site_markup_is_read_in_linear_time(tmp_path: Path, data: bytes) -> None:
    """The hook reads a changed note before it answers: a process still reading after 60 s
    fails the test (each shape took 10 s or more, or minutes, while the readers were written)."""
    import subprocess
    import sys

    (tmp_path / "x.md").write_bytes(data)
    code = "import sys; from notesdb.parse import parse_note; n = parse_note('x.md', open(sys.argv[1], 'rb').read()); print(len(n.body))"
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "x.md")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip().isdigit(), out.stderr[-500:]


@pytest.mark.parametrize(
    ("source", "body"),
    [
        (b"\\begin{equation}\n  \\hat{\\phi} = \\frac{1}{R}\\sum_{r} \\phi(\\mathbf{x}) + \\sin(at)\n\\end{equation}\n",
         "{\\phi} =  {1}{R}\\sum_{r} \\phi( {x}) + \\sin(at)"),  # names a person types stay
        (b"A process \\\\(X(t), t \\in T\\\\) is random.\n", "A process \\(X(t), t   T\\) is random."),  # ox-hugo's
        (b"$$ \\text{loss} = \\frac{a}{b} $$\n", "$$  {loss} =  {a}{b} $$"),  # the words of \\text stay
        (b"Inline $\\mathbf{v}_t$ here.\n", "Inline $ {v}_t$ here."),
        (b"Costs $5 and $10 a month.\n", "Costs $5 and $10 a month."),  # no command: not math
        (b"The path C:\\Users\\me stays.\n", "The path C:\\Users\\me stays."),  # not in math
        (b"```latex\n\\frac{a}{b}\n```\n", "\\frac{a}{b}"),  # code stays
    ],
)
def test_latex_commands_are_not_words(source: bytes, body: str) -> None:
    """A note of equations held \\frac, \\mathbf, \\begin and \\end as its words ("begin" and
    "end" of 107 notes of a public org-roam site): inside math they are taken out; functions
    and Greek letters, outside math and in code they stay ("laplace transform of sin(at)" found
    its note by \\sin)."""
    assert parse_note("m.md", source).body == body


@pytest.mark.parametrize(
    ("source", "body"),
    [
        (b"> [!info]+ Recent\n> ```dataview\n> LIST FROM #project\n> ```\n> Quoted words.\n", "Recent\nQuoted words."),
        # a query opened in a quote and never closed ends with the quote: the text after stays
        (b"> ```dataview\n> LIST FROM #x\n\nOutside words.\n", "Outside words."),
        (b"> ```python\n> print(1)\n> ```\n", "print(1)"),  # other code in a quote stays
    ],
)
def test_a_plugins_block_in_a_callout_is_not_text(source: bytes, body: str) -> None:
    """Dashboards keep their Dataview queries in callouts, each line after a ``>``."""
    assert parse_note("d.md", source).body == body


def test_other_front_matter_properties_are_text() -> None:
    """A recipe collection kept each recipe's ingredients and steps in front matter only (199
    of 203 notes had no other text): the values of the other properties are the note's text. An
    app's data is not: dates, IDs, a mapping of settings, web addresses, layout keys."""
    note = parse_note(
        "recipes/chuck-wagon-beans.md",
        b'---\ntitle: "Chuck Wagon Baked Beans"\ndate: "2025-08-21T10:44:26"\nyield: "4 servings"\n'
        b'ingredients:\n  - "1/2 cup molasses"\n  - "6 slices bacon, chopped"\nsteps:\n  - "Bake uncovered at 350."\n'
        b"nutrition:\n  calories: 211.3\nsource: https://example.com/beans\nauthor: \"[[Jane Doe]]\"\n"
        b"originSessionId: 6edeb609-0aad-4457-8d76-2accad2dd249\nrating: 4\ndraft: false\nlayout: recipe\n---\n"
        b"{{< ingredients >}}\n",
    )
    assert note.body == "4 servings\n1/2 cup molasses\n6 slices bacon, chopped\nBake uncovered at 350.\nJane Doe"


def test_dendron_desc_is_the_description() -> None:
    assert parse_note("n.md", b"---\nid: 4tw5bcdrkgqaqg8q99ypszo\ntitle: Snowflake\ndesc: Time travel queries\n---\nx\n").desc == (
        "Time travel queries")


@pytest.mark.parametrize(
    ("source", "body"),
    [
        # Dataview's inline queries are worked out when the note is viewed; other inline code stays
        (b"Updated `=this.file.mtime`, linked `$=customJS.dv_funcs.mentionedIn(dv)`; keep `code`.\n",
         "Updated , linked ; keep code."),
        # other fields stay text, key and value
        (b"- **Status**:: evergreen\n- Due [due:: 2024-05-01]\n", "Status:: evergreen\nDue [due:: 2024-05-01]"),
        (b"- Block text\n  id:: 6466f3a2-1b2c-4d5e-8f90-123456789abc\n", "Block text"),  # Logseq's block ID
        (b"> [!infobox|noicon] Facts\n", "Facts"),  # a callout's marker with its settings
        (b"##### ^242134827\nHighlight text.\n", "Highlight text."),  # Readwise's highlight ID
        (b"```ad-quote\ntitle: Daily Quote\ncollapse: open\nThe only way out is *through*.\n```\n",
         "Daily Quote\nThe only way out is through."),  # an Admonition plugin's block is Markdown
    ],
)
def test_obsidian_plugins_markup_is_not_text(source: bytes, body: str) -> None:
    """What a large public vault of plugins held as words: Dataview's inline queries (``dv`` and
    ``customjs`` in 1,181 notes), Readwise's highlight IDs as headings (2,039), an Admonition
    block's settings and fences (its text read as code), Logseq's block IDs."""
    assert parse_note("t.md", source).body == body


@pytest.mark.parametrize(
    ("source", "headings", "body"),
    [
        # a short outline page with a query is a note, not a template; the query is no words
        (b"- Kitchen renovation\n  - {{query (and [[kitchen]] (task TODO))}}\n  - budget 4000 eur\n",
         "", "Kitchen renovation\nbudget 4000 eur"),
        # Roam's task checkbox and an embed
        (b"- {{[[TODO]]}} Call the plumber about the boiler leak\n- {{embed: ((6466f3a2))}}\n",
         "", "Call the plumber about the boiler leak"),
        (b"- Vaillant boiler\n- {{embed [[Plumbing]]}}\n- {{video https://youtu.be/abc}}\n- {{cards}}\n",
         "", "Vaillant boiler"),
        # a cloze and Roam's choices keep their text; a macro of the person's own stays as written
        (b"- {{cloze Paris}} is the capital of France\n- {{poem red, blue}}\n", "",
         "Paris is the capital of France\n{{poem red, blue}}"),
        (b"- Today's workout: {{or: walk | run | swim}}\n- {{c1::Paris::city}} is the capital of {{c2::France}}\n", "",
         "Today's workout: walk | run | swim\nParis is the capital of France"),
        # code in a block, as Logseq writes it, stays code: macros, fields and lone dashes in it too
        (b"- How to list tasks:\n- ```\n  {{query (todo now)}}\n  heading:: true\n  ```\n\t- ```diff\n\t  -\n\t  +added\n\t  ```\n", "",
         "How to list tasks:\n{{query (todo now)}}\nheading:: true\n-\n+added"),
        # a field a person wrote stays, whatever its key: a value of words, a capital, a date
        (b"- Filters:: HEPA H13 and activated carbon\n- heading:: north-east of the house\n- due:: 2024-03-15\n"
         b"- wifi:: Guest2024\n- query-properties:: [:page :created-at]\n", "",
         "Filters:: HEPA H13 and activated carbon\nheading:: north-east of the house\ndue:: 2024-03-15\nwifi:: Guest2024"),
        # quoted in code, a macro stays as written (and is no placeholder)
        (b"Use `{{query (todo now)}}` to list tasks\n", "", "Use {{query (todo now)}} to list tasks"),
        (b"```\n{{embed x}}\n```\n", "", "{{embed x}}"),
        # an empty child block is not the heading underline of the block above it
        (b"- example:\n  -\n- next\n", "", "example:\nnext"),
        (b"- parent\n\t-\n", "", "parent"),
        (b"Intro text\n- {{embed [[x]]}}\n", "", "Intro text"),
        # the fields an outliner keeps for itself, and a task's clock, are no words; others stay
        (b"- a\n  collapsed:: true\n  hl-page:: 3\n  card-ease-factor:: 2.5\n  status:: done\n"
         b"  :LOGBOOK:\n  CLOCK: [2022-11-28 Mon 00:03:58]\n  :END:\n- b\n", "", "a\nstatus:: done\nb"),
        (b"public:: true\n\n- Object detection with YOLO\n", "", "Object detection with YOLO"),
        # a drawer never closed is text, and ends at its clock entries: the next block is no part of it
        (b"- a\n  :LOGBOOK:\n  CLOCK: x\n", "", "a\n:LOGBOOK:\nCLOCK: x"),
        (b"- DOING report\n  :LOGBOOK:\n  CLOCK: [2024-01-01 Mon 09:00]\n- Budget meeting with Alice\n- :PROPERTIES:\n  :END:\n",
         "", "DOING report\n:LOGBOOK:\nCLOCK: [2024-01-01 Mon 09:00]\nBudget meeting with Alice\n:PROPERTIES:\n:END:"),
    ],
)
def test_outliner_markup_is_read_as_the_page_shows_it(source: bytes, headings: str, body: str) -> None:
    """Logseq's and Roam's macros, empty blocks, hidden fields and drawers: five public Logseq
    graphs had 101 of 3,999 pages left out as templates (a ``{{query}}`` or ``{{embed}}`` has a
    placeholder's shape) and held "collapsed:: true" in 2,267 blocks."""
    note = parse_note("pages/p.md", source)
    assert (note.template, note.headings, note.body) == (False, headings, body)


@pytest.mark.parametrize(
    "source",
    [
        b"# {{title}}\nCreated: {{date}}\n## Notes\n",
        b"---\ntags: book\n---\nAuthor: {{VALUE:author}}\nRead: {{date:YYYY-MM-DD}}\n",
        b"# {{ title }}\n- {{embed [[Daily]]}}\n",  # a placeholder beside a macro: still a template
        b"<% tp.file.title %>\n- {{query (todo now)}}\n",
        b"---\ntitle: \"{{title}}\"\nauthor: \"{{VALUE:author}}\"\n---\n## Summary\n",  # placeholders in front matter
        b"<%* const t = await tp.system.prompt('Title');\n" + b"let x = 1; " * 60 + b"\n%>\n# Notes\n",  # a long script
    ],
)
def test_a_template_with_outliner_macros_is_still_a_template(source: bytes) -> None:
    assert parse_note("Templates/t.md", source).template is True


#: A short note in Chinese (a character counts as half a word: 91 characters, 45 words) that
#: shows one placeholder in passing.
CHINESE_NOTE = ("Vue 的模板语法使用双大括号进行文本插值，例如 {{ message }}，当组件的数据发生变化时，"
                "插值处的内容会自动更新。这是响应式系统的核心，也是我最常用的写法。组件之间通过属性传递数据，"
                "事件向上传递消息，状态集中放在仓库里管理。")


@pytest.mark.parametrize(
    ("source", "body"),
    [
        # a cheat sheet's commands: placeholders in inline code are shown, not filled in (2,455 of
        # 7,220 pages of a command-line cheat-sheet collection were left out as templates)
        (b"# tar\n\n> Archiving utility.\n\n- Create an archive:\n\n`tar cf {{target.tar}} {{file1 file2}}`\n",
         "Archiving utility.\nCreate an archive:\ntar cf {{target.tar}} {{file1 file2}}"),
        # a dbt model's Jinja in fenced code
        (b"Tags: [[Data]]\n\nWe can tag dbt models:\n```sql\n{{ config(tags=['a']) }}\nselect 1\n```\n",
         "Tags: Data\nWe can tag dbt models:\n{{ config(tags=['a']) }}\nselect 1"),
        # LaTeX's braces, a mail merge's fields of two words (read as text), a note of Chinese
        (b"# Euler\n\n$e^{{i\\pi}} + 1 = 0$ is Euler's identity.\n", "$e^{{i\\pi}} + 1 = 0$ is Euler's identity."),
        (b"Hi {{First Name}}, your code is {{Discount Code}}.\n", "Hi {{First Name}}, your code is {{Discount Code}}."),
        (CHINESE_NOTE.encode(), CHINESE_NOTE),
        # Roam's counter and a component with its argument after a colon; empty braces
        (b"- wrote 300 words today {{[[\xe2\x88\x86]]:1+2}}\n- {{diagram:Board}}\n- {{}}\n",
         "wrote 300 words today\n{{}}"),
    ],
)
def test_placeholders_shown_in_code_do_not_make_a_template(source: bytes, body: str) -> None:
    note = parse_note("tldr/tar.md", source)
    assert (note.template, note.body) == (False, body)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # a note: title, body, properties
        ("Boiler\n\nServiced in March.\n\nstatus: done\n\nid: 0f1e2d3c4b5a69788796a5b4c3d2e1f0\nauthor: \ntype_: 1",
         (1, "Boiler", "Serviced in March.\n\nstatus: done")),  # the body's own "key: value" line stays
        ("Work\n\nid: 0f1e2d3c4b5a69788796a5b4c3d2e1f0\nicon: \ntype_: 2\n", (2, "Work", "")),  # a notebook
        ("\n\nid: 0f1e2d3c4b5a69788796a5b4c3d2e1f0\nencryption_applied: 1\ntype_: 1", (0, "", "")),  # encrypted
        # not Joplin's: no ID among the properties, no blank line before them, or no type last
        ("Setup\n\nsteps: 3\ntype_: 1", None),
        ("Setup\nid: 0f1e2d3c4b5a69788796a5b4c3d2e1f0\ntype_: 1", None),
        ("The python type_: annotation is shown below\n", None),
    ],
)
def test_joplin_items(source: str, expected: tuple[int, str, str] | None) -> None:
    assert joplin_item(source) == expected


def test_only_a_file_named_by_an_id_is_read_as_a_joplin_item() -> None:
    """A note that ends with Joplin's properties pasted into it is a note; a file Joplin named
    (32 hex digits) is its item, and its title is read like any other (format characters out)."""
    tail = b"\n\nid: 0f1e2d3c4b5a69788796a5b4c3d2e1f0\nauthor: \ntype_: 2"
    assert parse_note("How Joplin stores items.md", b"# How Joplin stores items\n\nEach item ends like this:" + tail).body != ""
    assert parse_note("0f1e2d3c4b5a69788796a5b4c3d2e1f0.md", b"Work" + tail).body == ""
    note = parse_note("0f1e2d3c4b5a69788796a5b4c3d2e1f0.md", "Mail\u200b setup \u202eok\n\nSPF and DKIM.".encode() + tail[:-1] + b"1")
    assert (note.title, note.body) == ("Mail setup ok", "SPF and DKIM.")

"""JSON with comments, read and edited in place: the settings files of the assistant CLIs.

Gemini CLI reads its ``settings.json`` with ``//`` and ``/* */`` comments stripped, and people
write them. notesdb adds and removes one entry in such files; editing the text where the
entry goes, instead of writing the whole object back, keeps every comment and the form of
every other setting (a compact one-line object stays on one line), and taking the entry out
gives back the bytes that were there before it went in.

No well-kept Python library both reads comments and edits without re-writing the file
(``commentjson`` reads only, and has not been released since 2020), so this module is a small
recursive-descent reader that records where each value lies. Scalars are decoded by the
standard library's JSON decoder. A trailing comma before ``]`` or ``}`` is accepted.

This module imports only the standard library.
"""

from __future__ import annotations

import json
from json.decoder import scanstring  # type: ignore[attr-defined]  # public, untyped in typeshed
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Node", "parse", "loads", "member", "append", "remove"]

_DECODER = json.JSONDecoder()


@dataclass
class Node:
    """A value in the text: ``text[start:end]``; for objects and arrays also its children."""

    start: int
    end: int
    value: Any
    kind: str  # "object", "array" or "scalar"
    keys: list[str] = field(default_factory=list)  # object: member names, in order
    key_starts: list[int] = field(default_factory=list)  # object: where each member's name begins
    children: list[Node] = field(default_factory=list)  # object: member values; array: items

    def span(self, i: int) -> tuple[int, int]:
        """Where child ``i`` lies: its name and value for an object member, the item in an array."""
        start = self.key_starts[i] if self.kind == "object" else self.children[i].start
        return start, self.children[i].end


def _skip(text: str, i: int) -> int:
    """The index of the first character at or after ``i`` that is not whitespace or a comment.

    :raises ValueError: an unterminated ``/*`` comment
    """
    n = len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n\ufeff":
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise ValueError(f"unterminated comment at offset {i}")
            i = j + 2
        else:
            break
    return i


def _value(text: str, i: int) -> Node:
    i = _skip(text, i)
    if i >= len(text):
        raise ValueError("unexpected end of text")
    c = text[i]
    if c in "{[":
        obj = c == "{"
        node = Node(i, i, {} if obj else [], "object" if obj else "array")
        close = "}" if obj else "]"
        j = _skip(text, i + 1)
        while True:
            if j < len(text) and text[j] == close:
                node.end = j + 1
                return node
            if obj:
                if j >= len(text) or text[j] != '"':
                    raise ValueError(f"expected a member name at offset {j}")
                key, k = scanstring(text, j + 1)
                k = _skip(text, k)
                if k >= len(text) or text[k] != ":":
                    raise ValueError(f"expected ':' at offset {k}")
                child = _value(text, k + 1)
                node.keys.append(key)
                node.key_starts.append(j)
                node.value[key] = child.value
            else:
                child = _value(text, j)
                node.value.append(child.value)
            node.children.append(child)
            j = _skip(text, child.end)
            if j < len(text) and text[j] == ",":
                j = _skip(text, j + 1)
            elif j >= len(text) or text[j] != close:
                raise ValueError(f"expected ',' or '{close}' at offset {j}")
    try:
        value, end = _DECODER.raw_decode(text, i)
    except json.JSONDecodeError as e:
        raise ValueError(f"{e.msg} at offset {e.pos}") from None
    if isinstance(value, (dict, list)):  # raw_decode reads only scalars here
        raise ValueError(f"unexpected {c!r} at offset {i}")
    return Node(i, end, value, "scalar")


def parse(text: str) -> Node:
    """Read ``text``, JSON with comments.

    :raises ValueError: not JSON, or nested too deeply
    """
    try:
        node = _value(text, 0)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    end = _skip(text, node.end)
    if end != len(text):
        raise ValueError(f"extra data at offset {end}")
    return node


def loads(text: str) -> Any:
    """The value of ``text``, JSON with comments (comments dropped).

    :raises ValueError: not JSON
    """
    return parse(text).value


def member(node: Node, key: str) -> Node | None:
    """The value of member ``key`` of object ``node`` (the last one, as JSON readers take), or None."""
    for name, child in reversed(list(zip(node.keys, node.children))):
        if name == key:
            return child
    return None


def _line_indent(text: str, i: int) -> str:
    """The whitespace that begins the line holding offset ``i``."""
    start = text.rfind("\n", 0, i) + 1
    line = text[start:i]
    return line[: len(line) - len(line.lstrip(" \t"))]


def append(text: str, node: Node, value: Any, *, key: str | None = None, indent: str | None = "  ",
           ascii_only: bool = False) -> str:  # fmt: skip
    """``text`` with ``value`` added at the end of the object or array ``node`` (as member
    ``key`` for an object), written in the form of its siblings.

    In a container laid out one child per line the new child gets a line of its own at the
    siblings' indentation, multi-line with ``indent`` per level; in a one-line container it is
    written on that line. :func:`remove` of the new child gives back ``text``.

    :param indent: one level of indentation of the file; None: the file is one line
    """
    nl = "\r\n" if "\r\n" in text else "\n"  # the file's line ending

    def dumped(pad: str | None) -> str:
        if pad is None:
            out = json.dumps(value, ensure_ascii=ascii_only)
        else:
            out = json.dumps(value, indent=indent, ensure_ascii=ascii_only).replace("\n", nl + pad)
        return out if key is None else json.dumps(key, ensure_ascii=ascii_only) + ": " + out

    if node.children:
        first_start, _ = node.span(0)
        last_start, last_end = node.span(len(node.children) - 1)
        if indent is not None and "\n" in text[node.start:first_start]:
            pad = _line_indent(text, last_start)
            return text[:last_end] + "," + nl + pad + dumped(pad) + text[last_end:]
        gap = " "
        if len(node.children) > 1:  # copy the space after the comma between the last two
            between = text[node.span(len(node.children) - 2)[1]:last_start]
            gap = between[between.find(",") + 1:] if between.strip() == "," else " "
        return text[:last_end] + "," + gap + dumped(None) + text[last_end:]
    inside = text[node.start + 1:node.end - 1]
    at = node.start + 1
    cut = node.end - 1 if not inside.strip() else at  # an empty container's spaces are replaced
    if indent is None:
        return text[:at] + dumped(None) + text[cut:]
    base = _line_indent(text, node.start)
    pad = base + indent
    return text[:at] + nl + pad + dumped(pad) + nl + base + text[cut:]


def remove(text: str, node: Node, i: int) -> str:
    """``text`` without child ``i`` of the object or array ``node`` and the comma that
    separated it from its neighbour: the inverse of :func:`append`. A container left empty
    is written ``{}`` or ``[]`` when nothing but spaces remain inside it."""
    start, end = node.span(i)
    n = len(node.children)
    if n == 1:
        after = _skip(text, end)
        if text[after] == ",":  # a trailing comma
            end = after + 1
        out = text[:node.start + 1] + text[end:]
        close = node.end - (end - node.start - 1)
        if not out[node.start + 1:close - 1].strip():
            out = out[:node.start + 1] + out[close - 1:]
        return out
    if i == n - 1:
        return text[:node.span(i - 1)[1]] + text[end:]
    return text[:start] + text[node.span(i + 1)[0]:]

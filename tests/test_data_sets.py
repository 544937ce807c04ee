"""The labelled sets in tests/data and the bundled generic messages are well formed."""

from __future__ import annotations

import json
import re
from collections import Counter
from importlib.resources import files
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
SHARED = Path(__file__).resolve().parents[2] / "shared"
#: the kinds of shared/fixtures/FORMAT.md (plus any "stretch-*")
KINDS = {"hit", "hit-typo", "hit-prefix", "hit-name", "hit-short", "hit-long", "hit-ambiguous",
         "quiet-chat", "quiet-uncovered", "quiet-trap"}
#: the ways of reading a folder that the `folders` set names in its `fault` field (README.md)
FAULTS = {"titles", "file-names", "letters-digits", "numbers", "letters", "word-forms",
          "languages", "english-words", "templates", "archives", "stubs", "empty", "tiny"}


def cases(name: str) -> list[dict]:
    text = (DATA / name / "cases.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line.strip()]


def vault(name: str) -> set[str]:
    root = DATA / name / "vault"
    return {p.relative_to(root).as_posix() for p in root.rglob("*.md") if p.is_file()}


@pytest.mark.parametrize("name", ["folders", "tiny", "household2", "kept", "devnotes", "frmemory", "recipes"])
def test_set_is_well_formed(name: str) -> None:
    notes, rows = vault(name), cases(name)
    ids = [c["id"] for c in rows]
    assert len(ids) == len(set(ids))
    for c in rows:
        assert c["message"].strip(), c["id"]
        assert c["kind"] in KINDS or c["kind"].startswith("stretch-"), c["id"]
        assert all(p in notes for p in c["expect"]), c["id"]
        assert bool(c["expect"]) == (c["kind"].startswith(("hit", "stretch"))), c["id"]


def test_folders_set_size_and_balance() -> None:
    rows = cases("folders")
    uncovered = [c for c in rows if not c["expect"]]
    assert len(rows) >= 60
    assert len(uncovered) * 2 >= len(rows)
    named = Counter(c["fault"] for c in rows if "fault" in c)
    assert set(named) <= FAULTS
    # every way of misreading a folder but the tiny one (its own set) has cases here
    assert FAULTS - {"tiny"} <= set(named)


def test_kept_set_size_and_balance() -> None:
    rows = cases("kept")
    uncovered = [c for c in rows if not c["expect"]]
    assert len(rows) >= 40
    assert len(uncovered) * 2 >= len(rows) - 1  # about half uncovered
    named = Counter(c["fault"] for c in rows)
    assert set(named) <= FAULTS and FAULTS - {"tiny"} <= set(named)


def test_folders_vault_has_the_shapes_it_claims() -> None:
    root = DATA / "folders" / "vault"
    empty = [p for p in root.rglob("*.md") if not p.read_text(encoding="utf-8").strip()]
    assert len(empty) >= 20
    assert (root / "kayak" / "notes.md").is_file() and (root / "campervan" / "notes.md").is_file()
    assert any("{{date}}" in p.read_text(encoding="utf-8") for p in (root / "Templates").glob("*.md"))
    assert any("tp.date.now" in p.read_text(encoding="utf-8") for p in (root / "Templates").glob("*.md"))


def test_household2_quirks() -> None:
    root = DATA / "household2" / "vault"
    assert (root / "people" / "rhiannon.md").read_bytes().startswith(b"\xef\xbb\xbf")
    assert b"\r\n" in (root / "home" / "water-meter.md").read_bytes()
    rows = cases("household2")
    head = [c for c in rows if not c["kind"].startswith("stretch")]
    share = sum(1 for c in head if not c["expect"]) / len(head)
    assert len(rows) >= 80 and 0.40 <= share <= 0.50
    assert KINDS <= {c["kind"] for c in rows}


def norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def generic() -> list[dict]:
    path = files("notesdb") / "data" / "generic_messages.jsonl"
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line.strip()]


def test_generic_messages_ship_with_the_package() -> None:
    rows = generic()
    assert len(rows) >= 500
    assert len({r["id"] for r in rows}) == len(rows)
    assert len({norm(r["text"]) for r in rows}) == len(rows)
    assert {r["kind"] for r in rows} == {"chat", "knowledge", "coding", "shell", "writing",
                                         "maths", "planning"}


def test_generic_messages_are_not_labelled_messages() -> None:
    """None equals a message of a labelled set here or in the shared fixtures."""
    labelled = {norm(c["message"]) for name in ("folders", "tiny", "household2") for c in cases(name)}
    fixture = SHARED / "fixtures" / "personal" / "cases.jsonl"
    if fixture.exists():
        lines = fixture.read_text(encoding="utf-8").split("\n")
        labelled |= {norm(json.loads(line)["message"]) for line in lines if line.strip()}
    assert not [r["text"] for r in generic() if norm(r["text"]) in labelled]

"""A stopword typed inside a hyphenated name is a word of the name ("release-please"), on an
invented folder of developer notes indexed into a real SQLite file."""

from __future__ import annotations

import sqlite3

import pytest

from notesdb.decide import decide
from notesdb.query import named_stopwords
from test_evidence_routes import folder_fixture
from test_reading_folders import FILLER


@pytest.mark.parametrize(
    "text, kept",
    [
        ("release-please", {"please"}),
        ("set up release-please for the repo", {"please"}),  # "for", "the" and "up" stay stopwords
        ("keep the cache up-to-date", {"up", "to"}),
        ("as-is", set()),  # a name of stopwords only names nothing
        ("e-mail", set()),  # single letters stay out
        ("2024-11-02", set()),  # so do dates
        ("please release", set()),  # no hyphen, no name
    ],
)
def test_named_stopwords(text: str, kept: set[str]) -> None:
    assert named_stopwords(text) == kept


conn = folder_fixture({
    **FILLER,
    "release-please.md": "# release please\n\nBootstrap config files: release-please-config.json and "
    ".release-please-manifest.json. Conventional commits drive the version bump.\n",
    "publishing.md": "# Publishing on GitHub\n\nDraft a release from a tag with gh release create.\n",
    "release-drafter.md": "# Release drafter\n\nCollects merged pull requests into a draft release.\n",
    "versioning.md": "# Versioning\n\nSemantic versions; release notes come from release-please or "
    "release drafter.\n",
})


def test_a_hyphenated_name_with_a_stopword_names_its_note(conn: sqlite3.Connection) -> None:
    """"release-please" read as "release" alone ties release-please.md with release-drafter.md;
    read with its "please" it holds the whole file name of release-please.md, and no other
    note's name."""
    alone = decide(conn, "release")
    assert (alone.spoken, alone.route) == (False, "tie")
    d = decide(conn, "release-please")
    assert (d.spoken, d.route, d.notes) == (True, "full-name", ["release-please.md"])
    assert d.top_scores[0]["hits"] == ["release", "please"]


def test_the_same_stopword_unhyphenated_is_filler(conn: sqlite3.Connection) -> None:
    d = decide(conn, "please release")
    assert "please" not in d.top_scores[0]["hits"]
    assert not d.spoken

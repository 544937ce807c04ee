"""A sync that finds nothing to do compares one stored listing, not every row of ``notes``."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from notesdb.db import open_db
from notesdb.sync import sync


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def listing(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = 'listing_hash'").fetchone()
    return row[0] if row else None


@pytest.fixture
def synced(tmp_path: Path) -> tuple[Path, sqlite3.Connection]:
    vault = tmp_path / "vault"
    write(vault / "coffee" / "espresso.md", "# Espresso\n\nBrew at 93 C.\n")
    write(vault / "home" / "smoke-alarms.md", "# Smoke alarms\n\nTest monthly.\n")
    write(vault / "til.md", "# TIL\n\nquokka\n")
    conn = open_db(tmp_path / "n.db")
    sync(conn, vault)
    return vault, conn


def test_a_full_sync_stores_the_listing_and_the_next_reads_no_row(
    synced: tuple[Path, sqlite3.Connection],
) -> None:
    vault, conn = synced
    assert listing(conn) is not None
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    stats = sync(conn, vault)
    conn.set_trace_callback(None)
    assert not stats.changed and stats.scanned == 3
    assert not [s for s in statements if "notes" in s], statements


@pytest.mark.parametrize("change", ["same-size edit", "touch", "rename", "delete", "add", "skip"])
def test_every_change_is_still_found(synced: tuple[Path, sqlite3.Connection], change: str) -> None:
    vault, conn = synced
    note = vault / "til.md"
    before = listing(conn)
    if change == "same-size edit":
        st = note.stat()
        note.write_text("# TIL\n\nwombat\n"[: st.st_size].ljust(st.st_size), encoding="utf-8")
        os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
        assert sync(conn, vault).modified == ["til.md"]
    elif change == "touch":
        st = note.stat()
        os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
        stats = sync(conn, vault)
        assert not stats.changed  # same bytes: only its stat is updated
    elif change == "rename":
        note.rename(vault / "til-renamed.md")
        assert sync(conn, vault).renamed == [("til.md", "til-renamed.md")]
    elif change == "delete":
        note.unlink()
        assert sync(conn, vault).removed == ["til.md"]
    elif change == "add":
        write(vault / "new" / "note.md", "# New\n\nnumbat\n")
        assert sync(conn, vault).added == ["new/note.md"]
    elif change == "skip":
        assert sync(conn, vault, skip=("til.md",)).removed == ["til.md"]
    assert listing(conn) not in (None, before)
    # and the stored listing is the folder's: the next sync finds nothing to do
    stats = sync(conn, vault, skip=("til.md",) if change == "skip" else ("MEMORY.md",))
    assert not stats.changed


def test_a_lost_listing_is_stored_again(synced: tuple[Path, sqlite3.Connection]) -> None:
    vault, conn = synced
    kept = listing(conn)
    conn.execute("DELETE FROM meta WHERE key = 'listing_hash'")
    assert not sync(conn, vault).changed
    assert listing(conn) == kept
    write(vault / "til.md", "# TIL\n\nquokka and numbat\n")
    assert sync(conn, vault).modified == ["til.md"]


def test_an_unfinished_sync_leaves_no_listing(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    for i in range(5):
        write(vault / f"n{i}.md", f"# Note {i}\n\nword{i}\n")
    conn = open_db(tmp_path / "n.db")
    stats = sync(conn, vault, deadline=time.monotonic() - 1)  # past it: MIN_PARSED (4) notes
    assert stats.incomplete and stats.pending == 1 and len(stats.added) == 4
    assert listing(conn) is None
    stats = sync(conn, vault)
    assert len(stats.added) == 1 and not stats.incomplete
    assert listing(conn) is not None
    assert not sync(conn, vault).changed


def test_a_listing_that_is_not_the_folders_sends_the_sync_to_the_rows(
    synced: tuple[Path, sqlite3.Connection],
) -> None:
    vault, conn = synced
    write(vault / "til.md", "# TIL\n\nquokka, numbat\n")
    conn.execute("UPDATE meta SET value = 'stale' WHERE key = 'listing_hash'")
    assert sync(conn, vault).modified == ["til.md"]
    assert listing(conn) != "stale"


def test_rows_another_process_wrote_while_the_sync_waited_are_read_again(
    synced: tuple[Path, sqlite3.Connection], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows are read again after the lock only when another connection committed."""
    from notesdb import parse
    from notesdb import sync as store

    vault, conn = synced
    other = open_db(tmp_path / "n.db")
    write(vault / "til.md", "# TIL\n\nquokka and numbat\n")
    real_lock = store._sync_lock

    def other_gets_there_first(c: sqlite3.Connection, *, wait: bool) -> int | None:
        if c is conn:
            assert sync(other, vault).modified == ["til.md"]
            parsed.clear()
        return real_lock(c, wait=wait)

    parsed: list[str] = []
    real_parse = parse.parse_note

    def counting_parse(path: str, data: bytes) -> parse.Note:
        parsed.append(path)
        return real_parse(path, data)

    monkeypatch.setattr(store, "_sync_lock", other_gets_there_first)
    monkeypatch.setattr(parse, "parse_note", counting_parse)
    stats = sync(conn, vault)
    assert not stats.changed and parsed == []
    assert conn.execute("SELECT doc_freq FROM vocab WHERE word = 'numbat'").fetchone() == (1,)
    assert listing(conn) is not None and not sync(conn, vault).changed


def _segments(conn: sqlite3.Connection) -> int:
    return conn.execute("SELECT count(DISTINCT segid) FROM notes_fts_idx").fetchone()[0]


def test_a_sync_that_leaves_many_segments_merges_them_and_judges_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from notesdb import sync as store
    from notesdb.decide import decide

    vault = tmp_path / "vault"
    topics = ["espresso grinder", "smoke alarm", "tyre pressure", "sourdough starter", "router reset"]
    for i in range(40):
        topic = topics[i % len(topics)]
        write(vault / f"n{i:02d}.md", f"# {topic.title()} {i}\n\nNotes on {topic}, item{i} and more.\n")
    limit = store.MAX_FTS_SEGMENTS
    monkeypatch.setattr(store, "COMMIT_EVERY", 2)  # one segment per two notes
    merged = open_db(tmp_path / "merged.db")
    sync(merged, vault)
    monkeypatch.setattr(store, "MAX_FTS_SEGMENTS", 10_000)
    unmerged = open_db(tmp_path / "unmerged.db")
    sync(unmerged, vault)
    assert _segments(merged) == 1 and _segments(unmerged) > limit
    merged.execute("INSERT INTO notes_fts(notes_fts, rank) VALUES ('integrity-check', 1)")
    for message in ["espresso grinder settings", "item7", "tyre pressure for the car", "hello there"]:
        a, b = decide(merged, message), decide(unmerged, message)
        assert (a.route, a.notes, a.top_scores) == (b.route, b.notes, b.top_scores)

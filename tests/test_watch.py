"""The warm process's watch of the notes folder (notesdb.watch): answers use the last sync while
the folder is unchanged, wait for the sync of a change, and fall back to syncing themselves
whenever the watch cannot be trusted. Real folder, real inotify watch, real database."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest
from conftest import COVERED_MESSAGE, COVERED_NOTE, decision_rows

from notesdb.hook import run
from notesdb.sync import SyncStats
from notesdb.watch import FolderWatch

pytest.importorskip("watchdog")

NEW_NOTE = "projects/quillfeather.md"
NEW_TEXT = """---
title: quillfeather
description: The quillfeather label printer on the hall shelf, and how to unjam its ribbon.
---
# quillfeather

The quillfeather printer jams when the ribbon is loaded upside down. Open the lid, pull the
ribbon out, turn it over and feed it back under the roller.
"""
NEW_MESSAGE = "quillfeather jammed again, what do I do"


def event(prompt: str, session: str) -> bytes:
    return json.dumps({"prompt": prompt, "session_id": session, "hook_event_name": "UserPromptSubmit"}).encode()


def argv(vault: Path, db: Path) -> list[str]:
    return ["--notes", str(vault), "--db", str(db)]


def started(vault: Path, db: Path) -> FolderWatch:
    """A watch whose first sync is done (waits for it, at most 20 s)."""
    w = FolderWatch(vault, db)
    w.start()
    for _ in range(400):
        if w.current(argv(vault, db), wait_s=0.05) is not None:
            return w
        time.sleep(0.05)
    w.close()
    raise AssertionError("the watch never became current")


def test_answers_reuse_the_last_sync_until_a_note_changes(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    w = started(vault, db)
    try:
        first = w.current(argv(vault, db))
        assert isinstance(first, SyncStats) and w.syncs == 1
        for i in range(3):  # answering neither syncs nor notices anything
            assert f"({vault / COVERED_NOTE})" in run(event(COVERED_MESSAGE, f"s{i}"), argv(vault, db), first)
            assert w.current(argv(vault, db)) is first
        assert w.syncs == 1
        # a note written now is indexed before the next answer, which waits for that sync
        (vault / NEW_NOTE).write_text(NEW_TEXT, encoding="utf-8")
        later = w.current(argv(vault, db))
        assert later is not None and later is not first and w.syncs >= 2
        assert later.scanned == first.scanned + 1
        out = run(event(NEW_MESSAGE, "s9"), argv(vault, db), later)
        assert f"({vault / NEW_NOTE})" in out
    finally:
        w.close()
    assert [r["spoken"] for r in decision_rows(db)] == [1, 1, 1, 1]


def test_reading_notes_and_hidden_folders_are_not_changes(indexed: tuple[Path, Path]) -> None:
    vault, db = indexed
    (vault / ".obsidian").mkdir()
    w = started(vault, db)
    try:
        w.noticed.clear()
        for path in vault.rglob("*.md"):  # what read_note and the sync itself do
            path.read_bytes()
        (vault / ".obsidian" / "workspace.json").write_text("{}")
        # a last, real change: its notice comes after those of everything above
        (vault / NEW_NOTE).write_text(NEW_TEXT, encoding="utf-8")
        assert w.current(argv(vault, db)) is not None
        assert set(w.noticed) <= {NEW_NOTE, "projects", "."}
        assert NEW_NOTE in w.noticed
    finally:
        w.close()


def test_notes_read_just_before_a_change_do_not_pass_for_the_fence(
    indexed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A watch slowed to 5 ms per event: the opens of every note, read twice just before a note
    is written (by the assistant, by a sync), are still in flight when the answer fences, and
    the fence file is one of them. The answer must still wait for the new note's notice."""
    vault, db = indexed
    notice = FolderWatch._notice

    def slow(self: FolderWatch, root: str, ev: object) -> None:
        time.sleep(0.005)
        notice(self, root, ev)

    monkeypatch.setattr(FolderWatch, "_notice", slow)
    w = started(vault, db)
    try:
        w.noticed.clear()
        for _ in range(2):
            for path in sorted(vault.rglob("*.md")):
                path.read_bytes()
        (vault / NEW_NOTE).write_text(NEW_TEXT, encoding="utf-8")
        stats = w.current(argv(vault, db), wait_s=5.0)
        assert stats is not None and NEW_NOTE in w.noticed
        out = run(event(NEW_MESSAGE, "s1"), argv(vault, db), stats)
        assert f"({vault / NEW_NOTE})" in out
    finally:
        w.close()


def test_another_folder_database_or_skip_list_is_not_answered_from_the_watch(
    indexed: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from notesdb.sync import DEFAULT_SKIP

    vault, db = indexed
    w = started(vault, db)
    try:
        assert w.current(["--notes", str(tmp_path), "--db", str(db)]) is None
        assert w.current(["--notes", str(vault), "--db", str(tmp_path / "other.db")]) is None
        conf = tmp_path / "notesdb.toml"
        conf.write_text('[index]\nskip = ["home"]\n')
        assert w.current([*argv(vault, db), "--config", str(conf)]) is None
        conf.write_text("[index]\nskip = [" + ", ".join(f'"{p}"' for p in DEFAULT_SKIP) + "]\n")
        assert w.current([*argv(vault, db), "--config", str(conf)]) is not None  # the same list
        monkeypatch.chdir(vault.parent)  # relative paths are made absolute
        assert w.current(["--notes", vault.name, "--db", os.path.relpath(db)]) is not None
    finally:
        w.close()


def test_a_symbolic_link_in_the_folder_means_every_answer_syncs(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    vault, db = indexed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (vault / "linked").symlink_to(elsewhere)
    w = FolderWatch(vault, db)
    w.start()
    try:
        assert w.current(argv(vault, db), wait_s=5) is None
        # a note behind the link, which no watch sees, still counts: the hook syncs itself
        (elsewhere / "quillfeather.md").write_text(NEW_TEXT, encoding="utf-8")
        out = run(event(NEW_MESSAGE, "s1"), argv(vault, db), w.current(argv(vault, db)))
        assert f"({vault / 'linked' / 'quillfeather.md'})" in out
    finally:
        w.close()


def test_a_link_made_later_or_the_folder_moved_away_ends_the_trust(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    vault, db = indexed
    w = started(vault, db)
    try:
        (vault / "linked").symlink_to(tmp_path)
        for _ in range(100):
            if w.current(argv(vault, db), wait_s=0.05) is None:
                break
        assert w.current(argv(vault, db)) is None
    finally:
        w.close()
    (vault / "linked").unlink()
    w = started(vault, db)
    try:
        vault.rename(tmp_path / "moved")
        vault.mkdir()  # a new, empty folder at the same path is another folder
        assert w.current(argv(vault, db)) is None
    finally:
        w.close()


def test_a_new_database_is_indexed_whatever_the_caller_says(vault: Path, db_path: Path) -> None:
    # a sync result handed in for a database that is missing is not used: the hook indexes
    import re

    run(event(COVERED_MESSAGE, "s"), argv(vault, db_path), SyncStats())
    error = decision_rows(db_path)[0]["error"]
    m = re.search(r"created it and indexed (\d+) notes \((\d+) left", error)
    assert m and int(m[1]) + int(m[2]) == 63, error  # the contract vault's 63 notes, synced here


def test_without_watchdog_nothing_is_trusted(indexed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    vault, db = indexed
    monkeypatch.setitem(sys.modules, "watchdog", None)  # as when the mcp extra is not installed
    monkeypatch.setitem(sys.modules, "watchdog.observers", None)
    monkeypatch.setitem(sys.modules, "watchdog.events", None)
    w = FolderWatch(vault, db)
    w.start()
    try:
        assert w.current(argv(vault, db), wait_s=5) is None
        assert w.syncs == 0
    finally:
        w.close()


def test_a_database_replaced_under_the_watch_is_synced_anew(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    vault, db = indexed
    w = started(vault, db)
    try:
        db.rename(tmp_path / "aside.db")  # as a damaged database is moved aside
        assert w.current(argv(vault, db)) is None  # not the file the watch synced
        for _ in range(400):  # the watch indexes the new file in full
            if w.current(argv(vault, db), wait_s=0.05) is not None:
                break
            time.sleep(0.05)
        stats = w.current(argv(vault, db))
        assert stats is not None and stats.scanned == 63
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("SELECT count(*) FROM notes").fetchone()[0] == 63
        finally:
            conn.close()
        assert f"({vault / COVERED_NOTE})" in run(event(COVERED_MESSAGE, "s"), argv(vault, db), stats)
    finally:
        w.close()
    assert len(decision_rows(db)) == 1

"""Say it once per conversation: the real hook process, one session, several messages on one topic."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import NOTESDB_EXE, decision_rows, write_and_index

pytestmark = pytest.mark.skipif(not NOTESDB_EXE.exists(), reason="the notesdb console script is not installed")

NOTES = {
    "beehives.md": "---\ntitle: Beehives\ndescription: Two hives at the bottom of the garden, inspections "
    "and varroa treatment\n---\n# Beehives\n\n## Inspections\nWeekly from April. Count frames of brood, "
    "look for queen cells.\n\n## Varroa\nOxalic acid in December; apivar strips in August.\n",
    "hens.md": "# Hens\nThree hens: Mabel, Dot and Brigid. Layers pellets, grit, the coop is cleaned on Sundays.\n",
    "car.md": "# Car insurance\nRenews in March. Policy with a broker, no-claims bonus five years.\n",
    "pond.md": "# Pond\nFrogspawn usually in February. Pump cleaned in spring.\n",
}


@pytest.fixture
def folder(tmp_path: Path) -> tuple[Path, Path]:
    return write_and_index(tmp_path / "notes", tmp_path / "notes.db", NOTES)


def say(folder: tuple[Path, Path], prompt: str, session: str) -> str | None:
    """One message through the hook process; the line it added, or None when silent."""
    vault, db = folder
    event = {"session_id": session, "cwd": "/tmp", "hook_event_name": "UserPromptSubmit", "prompt": prompt}
    proc = subprocess.run([str(NOTESDB_EXE), "hook", "--notes", str(vault), "--db", str(db)],
                          input=json.dumps(event).encode(), capture_output=True, timeout=60)  # fmt: skip
    assert proc.returncode == 0 and proc.stderr == b""
    if not proc.stdout:
        return None
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def test_a_note_is_named_once_per_conversation(folder: tuple[Path, Path]) -> None:
    first = say(folder, "when did we treat the beehives for varroa", "s-1")
    assert first is not None and "/beehives.md)" in first
    # the next messages of the same conversation are about the same note: it is in context already
    assert say(folder, "how many frames of brood at the last hive inspection", "s-1") is None
    assert say(folder, "any queen cells in the beehives at the inspection", "s-1") is None
    rows = decision_rows(folder[1])
    assert [r["route"] for r in rows[-2:]] == ["said-before", "said-before"]
    assert all(r["spoken"] == 0 and json.loads(r["notes"]) == [] for r in rows[-2:])
    # another note in the same conversation is named as usual
    hens = say(folder, "is mabel laying again, and did brigid and dot go off their layers pellets", "s-1")
    assert hens is not None and "/hens.md)" in hens
    # a message far more about the note (over twice the evidence it was named with) names it again
    again = say(folder, "beehives varroa oxalic acid apivar strips inspections queen cells brood frames", "s-1")
    assert again is not None and "/beehives.md)" in again
    # another conversation starts afresh
    other = say(folder, "when did we treat the beehives for varroa", "s-2")
    assert other == first


def test_long_session_ids_that_share_a_start_are_two_conversations(folder: tuple[Path, Path]) -> None:
    """Ids are kept to 200 characters; two longer ones with the same first 200 are still two
    conversations (each keeps its length and checksum), and each is one with itself."""
    one, two = "a" * 10_000, "a" * 10_001
    first = say(folder, "when did we treat the beehives for varroa", one)
    assert first is not None and "/beehives.md)" in first
    assert say(folder, "when did we treat the beehives for varroa", two) == first
    assert say(folder, "when did we treat the beehives for varroa", one) is None  # said before in it
    ids = [r["session_id"] for r in decision_rows(folder[1])[-3:]]
    assert ids[0] == ids[2] != ids[1] and all(len(i) <= 200 for i in ids)
    assert ids[0].startswith("a" * 180 + "~10000:")


def test_check_explains_a_note_held_back(folder: tuple[Path, Path]) -> None:
    vault, db = folder
    assert say(folder, "when did we treat the beehives for varroa", "s-9") is not None
    args = [str(NOTESDB_EXE), "check", "how many frames of brood at the last hive inspection", "--notes", str(vault), "--db", str(db)]
    alone = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert alone.stdout.startswith("Notes that may cover this:")  # without a session it speaks
    held = subprocess.run(args + ["--session", "s-9", "--explain"], capture_output=True, text=True, timeout=60)
    assert held.returncode == 0
    assert held.stdout.startswith("(silent: said-before)")
    assert "held back beehives.md: named earlier in this conversation (evidence 6.87); now 6.98 < 2.0x that" in held.stdout


def test_tune_with_no_labels_chooses_for_silence_on_the_generic_messages(folder: tuple[Path, Path]) -> None:
    vault, db = folder
    out = subprocess.run([str(NOTESDB_EXE), "tune", "--generic", "--notes", str(vault), "--db", str(db), "--json"],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert rep["cases"] == 510
    assert rep["chosen"]["rule"].startswith("no labelled hits")
    assert rep["chosen"]["summary"]["silence_rate"] >= 0.97
    none = subprocess.run([str(NOTESDB_EXE), "tune", "--notes", str(vault), "--db", str(db)],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert none.returncode == 1 and none.stderr.startswith("Error: give a cases file")


def test_replay_judges_each_message_in_its_conversation(folder: tuple[Path, Path]) -> None:
    """Unchanged notes and settings replay to the same answers, a note held back as said before
    included: each message is judged with the notes named earlier in its session."""
    for prompt, session in [
        ("when did we treat the beehives for varroa", "s-1"),
        ("how many frames of brood at the last hive inspection", "s-1"),
        ("any queen cells in the beehives at the inspection", "s-1"),
        ("any queen cells in the beehives at the inspection", "s-2"),  # another conversation: named
        ("is mabel laying again, and did brigid and dot go off their layers pellets", "s-1"),
    ]:
        say(folder, prompt, session)
    routes = [r["route"] for r in decision_rows(folder[1])]
    assert routes[1:3] == ["said-before", "said-before"] and routes[3] != "said-before"
    vault, db = folder
    for extra in ([], ["--limit", "3"]):  # the newest 3: earlier messages count as logged
        proc = subprocess.run([str(NOTESDB_EXE), "replay", "--notes", str(vault), "--db", str(db), "--json", *extra],
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert (out["replayed"], out["changed"]) == (5 if not extra else 3, 0)
        assert all(d["after"] == d["before"] for d in out["decisions"]), out["decisions"]
        assert [d["after"]["route"] for d in out["decisions"]][::-1] == routes[-out["replayed"]:]


def test_a_note_held_back_labelled_right_is_exported_as_the_note_the_message_names(
    folder: tuple[Path, Path], tmp_path: Path
) -> None:
    """A case is one message judged alone: a message silent only because its conversation had
    the note already is, on its own, about that note. Labelled right, it is exported as a hit of
    that note, and eval judges it right (it used to be a "false alarm" that never happened)."""
    vault, db = folder
    where = ["--notes", str(vault), "--db", str(db)]
    assert say(folder, "when did we treat the beehives for varroa", "s-9") is not None
    assert say(folder, "any queen cells in the beehives at the inspection", "s-9") is None
    first, second = [r["id"] for r in decision_rows(db)[-2:]]

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(NOTESDB_EXE), *args, *where], capture_output=True, text=True, timeout=60)

    assert cli("label", "set", str(first), "right").returncode == 0
    out = cli("label", "set", str(second), "right")
    assert out.stdout == (f"#{second} labelled right: it held back beehives.md, named earlier in its conversation "
                          "(as a case on its own, the message names that note)\n")  # fmt: skip
    cases = tmp_path / "mine.jsonl"
    assert cli("label", "export", str(cases)).returncode == 0
    exported = [json.loads(line) for line in cases.read_text().splitlines()]
    assert [(c["expect"], c["kind"]) for c in exported] == [(["beehives.md"], "hit"), (["beehives.md"], "hit")]
    assert "held back beehives.md, named earlier in its conversation, labelled right" in exported[1]["why"]
    report = json.loads(cli("eval", str(cases), "--json").stdout)
    assert (report["hits"], report["false_alarms"], report["precision"]) == (2, 0, 1.0)


def test_a_note_named_while_the_log_was_locked_is_not_named_again(folder: tuple[Path, Path]) -> None:
    """Another process holds the database's write lock past the hook's wait: the answer stands
    and its decision goes to hook-errors.jsonl with the notes it named and their evidence. The
    next message of that conversation reads it back there and holds the note back; another
    conversation and another database are not affected by it."""
    import sqlite3

    vault, db = folder
    holder = sqlite3.connect(db)
    holder.execute("BEGIN IMMEDIATE")  # the write lock, held through the first message
    try:
        first = say(folder, "when did we treat the beehives for varroa", "s-locked")
    finally:
        holder.rollback()
        holder.close()
    assert first is not None and "/beehives.md)" in first
    assert [r["session_id"] for r in decision_rows(db)] == []  # it reached no log row
    entry = json.loads((db.parent / "hook-errors.jsonl").read_text())
    assert entry["error"].startswith("decision not logged: OperationalError: database is locked")
    assert (entry["notes"], entry["session_id"], entry["db"]) == (["beehives.md"], "s-locked", str(db.resolve()))
    assert list(entry["evidence"]) == ["beehives.md"] and entry["evidence"]["beehives.md"] == pytest.approx(6.87, abs=0.005)
    # the lock is gone: the next message is logged, held back as said before
    assert say(folder, "how many frames of brood at the last hive inspection", "s-locked") is None
    rows = decision_rows(db)
    assert [(r["session_id"], r["route"], r["spoken"]) for r in rows] == [("s-locked", "said-before", 0)]
    args = [str(NOTESDB_EXE), "check", "how many frames of brood at the last hive inspection", "--notes", str(vault),
            "--db", str(db), "--session", "s-locked", "--explain"]  # fmt: skip
    held = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert held.stdout.startswith("(silent: said-before)"), held.stdout
    assert "held back beehives.md: named earlier in this conversation (evidence 6.87)" in held.stdout
    # another conversation is named as usual
    assert say(folder, "how many frames of brood at the last hive inspection", "s-other") is not None

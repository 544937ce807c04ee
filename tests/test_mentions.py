"""Notes the message attaches itself (``notesdb.mentions``): a note the prompt names with an
``@``-mention is in the assistant's context already, so the line does not name it again. The
real hook process, with the event's ``cwd`` as the client sends it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import NOTESDB_EXE, decision_rows, write_and_index

from notesdb.gate import Decision
from notesdb.mentions import MAX_MENTIONS, hold_back_mentioned, mentioned_notes, mentions

NOTES = {
    "bees/beehives.md": "---\ntitle: Beehives\ndescription: Two hives at the bottom of the garden, inspections "
    "and varroa treatment\n---\n# Beehives\n\n## Varroa\nOxalic acid in December; apivar strips in August.\n",
    "bees/varroa log.md": "# Varroa log\n\nMite drop counts after the oxalic acid, December: 40, then 6.\n",
    "hens.md": "# Hens\nThree hens: Mabel, Dot and Brigid. Layers pellets, grit, the coop is cleaned on Sundays.\n",
}


def test_mentions_are_read_as_clients_write_them() -> None:
    message = (
        '@bees/beehives.md, and @"bees/varroa log.md" (see @~/notes/hens.md#L2-5) or @bees/varroa\\ log.md. '
        "mail me@example.org; x = obj.@attr"
    )
    assert mentions(message) == ["bees/beehives.md", "bees/varroa log.md", "~/notes/hens.md", "bees/varroa log.md"]
    assert mentions("no mention here") == [] and mentions("@") == [] and mentions('@"" then') == []
    assert len(mentions(" ".join(f"@n{i}.md" for i in range(3 * MAX_MENTIONS)))) == MAX_MENTIONS


def test_a_mention_names_a_note_from_the_working_folder_or_by_its_whole_path(tmp_path: Path) -> None:
    vault = tmp_path / "notes"
    (vault / "bees").mkdir(parents=True)
    (vault / "bees" / "beehives.md").write_text("# Beehives\n")
    (vault / "hens.md").write_text("# Hens\n")
    (tmp_path / "link").symlink_to(vault)
    named = ["bees/beehives.md", "hens.md"]
    assert mentioned_notes("@bees/beehives.md why?", str(vault), str(vault), named) == ["bees/beehives.md"]
    assert mentioned_notes("@../hens.md", str(vault / "bees"), str(vault), named) == ["hens.md"]
    assert mentioned_notes(f"@{tmp_path}/link/hens.md", "/", str(vault), named) == ["hens.md"]  # through a link
    # from another working folder the same relative path is another file
    assert mentioned_notes("@bees/beehives.md", str(tmp_path), str(vault), named) == []
    assert mentioned_notes("@bees/\x00.md", str(vault), str(vault), named) == []


def test_holding_back_every_note_turns_the_decision_silent() -> None:
    d = Decision(spoken=True, route="strong", notes=["a.md", "b.md"], parts=[("A", "a.md", ""), ("B", "b.md", "")],
                 line='Notes that may cover this: "A" (a.md); "B" (b.md).')
    hold_back_mentioned(d, ["a.md"])
    assert (d.spoken, d.notes, d.line) == (True, ["b.md"], 'Notes that may cover this: "B" (b.md).')
    assert d.reasons[-1] == "held back a.md: the message attaches it (an @-mention): it is in the assistant's context already"
    hold_back_mentioned(d, ["b.md"])
    assert (d.spoken, d.notes, d.line, d.route) == (False, [], "", "in-message")


pytestmark_hook = pytest.mark.skipif(not NOTESDB_EXE.exists(), reason="the notesdb console script is not installed")


def _hook(vault: Path, db: Path, prompt: str, cwd: str) -> str | None:
    """One message through the hook process, each in a conversation of its own."""
    event = {"session_id": f"m-{len(decision_rows(db))}", "cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": prompt}
    proc = subprocess.run([str(NOTESDB_EXE), "hook", "--notes", str(vault), "--db", str(db)],
                          input=json.dumps(event).encode(), capture_output=True, timeout=60)  # fmt: skip
    assert proc.returncode == 0 and proc.stderr == b""
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout else None


@pytestmark_hook
def test_the_hook_does_not_name_a_note_the_message_attaches(tmp_path: Path) -> None:
    vault, db = write_and_index(tmp_path / "notes", tmp_path / "notes.db", NOTES)
    question = "when did we treat the beehives for varroa"
    alone = _hook(vault, db, question, "/tmp")
    assert alone is not None and "/bees/beehives.md)" in alone
    # the same question with the note attached, from the notes folder as the working folder
    assert _hook(vault, db, f"@bees/beehives.md {question}", str(vault)) is None
    row = decision_rows(db)[-1]
    assert (row["spoken"], row["route"], json.loads(row["notes"])) == (0, "in-message", [])
    # from elsewhere, by its whole path in quotes (a folder with a space) as the client writes it
    assert _hook(vault, db, f'@"{vault}/bees/beehives.md" {question}', "/tmp") is None
    # a mention of another file changes nothing
    assert _hook(vault, db, f"@hens.md {question}", str(vault)) == alone


@pytestmark_hook
def test_check_holds_back_a_mentioned_note_and_says_why(tmp_path: Path) -> None:
    vault, db = write_and_index(tmp_path / "notes", tmp_path / "notes.db", NOTES)
    args = [str(NOTESDB_EXE), "check", "@bees/beehives.md when did we treat the beehives for varroa",
            "--notes", str(vault), "--db", str(db), "--explain"]  # fmt: skip
    out = subprocess.run(args, capture_output=True, text=True, timeout=60, cwd=vault)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("(silent: in-message)")
    assert "held back bees/beehives.md: the message attaches it (an @-mention)" in out.stdout
    assert os.path.isfile(vault / "bees" / "beehives.md")  # nothing written into the folder

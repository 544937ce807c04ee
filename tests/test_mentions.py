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
from notesdb.db import open_db
from notesdb.mentions import MAX_MENTIONS, attached_notes, hold_back_mentioned, mentions, referenced, typed_part
from notesdb.sync import sync

NOTES = {
    "bees/beehives.md": "---\ntitle: Beehives\ndescription: Two hives at the bottom of the garden, inspections "
    "and varroa treatment\n---\n# Beehives\n\n## Varroa\nOxalic acid in December; apivar strips in August.\n",
    "bees/varroa log.md": "# Varroa log\n\nMite drop counts after the oxalic acid, December: 40, then 6.\n",
    "hens.md": "# Hens\nThree hens: Mabel, Dot and Brigid. Layers pellets, grit, the coop is cleaned on Sundays.\n",
}


def test_mentions_are_read_as_claude_code_attaches_them() -> None:
    message = (
        '@bees/beehives.md, and @"bees/varroa log.md" (see @~/notes/hens.md#L2-5) or @bees/beehives.md#varroa. '
        "mail me@example.org; 。@hens.md and @hens.md** @\"hash#tag/x.md\""
    )
    assert mentions(message) == [
        "bees/beehives.md", "bees/varroa log.md", "~/notes/hens.md", "bees/beehives.md", "hens.md", "hens.md", "hash",
    ]
    # a backslash-escaped space is not read: Claude Code attaches no such file
    assert mentions("@bees/varroa\\ log.md") == ["bees/varroa"]
    assert mentions("no mention here") == [] and mentions("@") == [] and mentions('@"" then') == []
    assert mentions("@** and @#") == []
    assert len(mentions(" ".join(f"@n{i}.md" for i in range(3 * MAX_MENTIONS)))) == MAX_MENTIONS == 100


#: A prompt as Gemini CLI 0.61.0 hands it to its BeforeAgent hook: the typed text, then the
#: files it attached.
GEMINI = (
    "can you check this list @shopping.txt and @bees/beehives.md\n--- Content from referenced files ---\n"
    "Content from @shopping.txt:\nlasagne sheets, ragu, bechamel, parmesan\n"
    "Content from @bees/beehives.md:\n# Beehives\nOxalic acid in December.\n--- End of content ---"
)


def test_the_files_gemini_attached_are_read_from_its_prompt() -> None:
    assert referenced(GEMINI) == ["shopping.txt", "bees/beehives.md"]
    assert typed_part(GEMINI) == "can you check this list @shopping.txt and @bees/beehives.md"
    assert referenced("@bees/beehives.md as typed") == [] and typed_part("as typed") == "as typed"


def test_a_mention_names_a_note_from_the_working_folder_or_by_its_whole_path(tmp_path: Path) -> None:
    vault = tmp_path / "notes"
    (vault / "bees").mkdir(parents=True)
    (vault / "bees" / "beehives.md").write_text("# Beehives\n\nVarroa treatment in December.\n")
    (vault / "hens.md").write_text("# Hens\n\nThree hens.\n")
    (vault / "coop.jpg").write_bytes(b"\xff\xd8")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "lasagne.md").write_text("# Lasagne\n\nRagu and bechamel.\n")
    (vault / "linked recipes").symlink_to(tmp_path / "outside")  # a subfolder kept elsewhere
    (tmp_path / "link").symlink_to(vault)
    conn = open_db(tmp_path / "n.db")
    sync(conn, vault)
    v = str(vault)

    def attached(message: str, cwd: str = v) -> list[str]:
        return attached_notes(mentions(message), cwd, v, conn)

    assert attached("@bees/beehives.md why?") == ["bees/beehives.md"]
    assert attached("@../hens.md and @../hens.md", str(vault / "bees")) == ["hens.md"]
    assert attached(f"@{tmp_path}/link/hens.md", "/") == ["hens.md"]  # the folder through a link
    assert attached('@"linked recipes/lasagne.md"') == ["linked recipes/lasagne.md"]  # a linked subfolder
    # from another working folder the same relative path is another file; a file that is no
    # note, the folder itself, a path outside it or with a NUL in it name nothing
    assert attached("@bees/beehives.md", str(tmp_path)) == []
    for other in ("@coop.jpg", "@bees", f"@{tmp_path}/n.db", "@bees/\x00.md", "@../notes", "@bees/beehives\\ x.md"):
        assert attached(other) == [], other


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
    assert json.loads(decision_rows(db)[-1]["attached"]) == ["hens.md"]


@pytestmark_hook
def test_a_note_attached_earlier_in_the_conversation_is_not_named_later(tmp_path: Path) -> None:
    vault, db = write_and_index(tmp_path / "notes", tmp_path / "notes.db", NOTES)

    def say(prompt: str, session: str) -> str | None:
        event = {"session_id": session, "cwd": str(vault), "hook_event_name": "UserPromptSubmit", "prompt": prompt}
        proc = subprocess.run([str(NOTESDB_EXE), "hook", "--notes", str(vault), "--db", str(db)],
                              input=json.dumps(event).encode(), capture_output=True, timeout=60)  # fmt: skip
        assert proc.returncode == 0 and proc.stderr == b""
        return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout else None

    # the first message attaches the note; notesdb would not have named it for these words
    assert say("@bees/beehives.md tidy this up please", "c-1") is None
    assert json.loads(decision_rows(db)[-1]["attached"]) == ["bees/beehives.md"]
    # the follow-up would name it (as it does in another conversation): it is in context already
    follow = "when did we treat the beehives for varroa with oxalic acid"
    assert say(follow, "c-1") is None
    row = decision_rows(db)[-1]
    assert (row["spoken"], row["route"]) == (0, "said-before")
    line = say(follow, "c-2")
    assert line is not None and "/bees/beehives.md)" in line
    # a message that attaches the note it would name
    assert say(f"@bees/beehives.md {follow}", "c-3") is None
    # replayed with unchanged notes, each message in its conversation: the same answers
    for extra in ([], ["--limit", "2"]):  # the newest 2: the message attaching it counts as logged
        proc = subprocess.run([str(NOTESDB_EXE), "replay", "--notes", str(vault), "--db", str(db), "--json", *extra],
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert (out["replayed"], out["changed"]) == (4 if not extra else 2, 0), out["decisions"]
        assert [d["after"]["route"] for d in out["decisions"]][::-1] == [r["route"] for r in decision_rows(db)][-out["replayed"]:]


@pytestmark_hook
def test_check_holds_back_a_mentioned_note_and_says_why(tmp_path: Path) -> None:
    vault, db = write_and_index(tmp_path / "notes", tmp_path / "notes.db", NOTES)
    args = [str(NOTESDB_EXE), "check", "@bees/beehives.md when did we treat the beehives for varroa",
            "--notes", str(vault), "--db", str(db), "--explain"]  # fmt: skip
    out = subprocess.run(args, capture_output=True, text=True, timeout=60, cwd=vault)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("(silent: in-message)")
    assert "held back bees/beehives.md: the message attaches it (an @-mention)" in out.stdout
    as_json = subprocess.run(args[:-1] + ["--json"], capture_output=True, text=True, timeout=60, cwd=vault)
    assert json.loads(as_json.stdout)["attached"] == ["bees/beehives.md"]
    assert os.path.isfile(vault / "bees" / "beehives.md")  # nothing written into the folder


@pytestmark_hook
def test_gemini_and_codex_events_are_read_as_those_clients_attach(tmp_path: Path) -> None:
    notes = dict(NOTES)
    notes["kitchen/lasagne.md"] = "# Lasagne\n\nRagu, bechamel, lasagne sheets, parmesan. Bake 40 minutes.\n"
    vault, db = write_and_index(tmp_path / "notes", tmp_path / "notes.db", notes)

    def hook(event: dict[str, object]) -> str | None:
        event = {"session_id": f"g-{len(decision_rows(db))}", "cwd": str(vault), **event}
        proc = subprocess.run([str(NOTESDB_EXE), "hook", "--notes", str(vault), "--db", str(db)],
                              input=json.dumps(event).encode(), capture_output=True, timeout=60)  # fmt: skip
        assert proc.returncode == 0 and proc.stderr == b""
        return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout else None

    question = "when did we treat the beehives for varroa"
    # Gemini CLI: the files it attached follow the typed text; they are what is held back
    gemini = f"@bees/beehives.md {question}\n--- Content from referenced files ---\nContent from @bees/beehives.md:\n" + NOTES["bees/beehives.md"] + "--- End of content ---"
    assert hook({"hook_event_name": "BeforeAgent", "prompt": gemini}) is None
    row = decision_rows(db)[-1]
    assert (row["route"], json.loads(row["attached"])) == ("in-message", ["bees/beehives.md"])
    # a quoted mention Gemini did not attach (no block) is not held back
    line = hook({"hook_event_name": "BeforeAgent", "prompt": f'@"bees/beehives.md" {question}'})
    assert line is not None and "/bees/beehives.md)" in line
    # the text of an attached file that is no note is not the person's words
    shopping = (
        "can you check this list @shopping.txt\n--- Content from referenced files ---\nContent from @shopping.txt:\n"
        "lasagne sheets, ragu, bechamel, parmesan\n--- End of content ---"
    )
    assert hook({"hook_event_name": "BeforeAgent", "prompt": shopping}) is None
    assert decision_rows(db)[-1]["route"] == "no-match"  # judged on its words alone; the list names the lasagne note
    # Codex CLI (its events carry a turn_id) attaches no file: the note is named as usual
    codex = hook({"hook_event_name": "UserPromptSubmit", "turn_id": "t-1", "model": "gpt", "prompt": f"@bees/beehives.md {question}"})
    assert codex is not None and "/bees/beehives.md)" in codex


@pytestmark_hook
def test_a_note_held_back_as_attached_labelled_right_is_exported_as_the_note_the_message_names(tmp_path: Path) -> None:
    """A case is one message judged alone: silent only because the message attached the note,
    it is about that note; labelled right, it is exported as a hit of that note."""
    vault, db = write_and_index(tmp_path / "notes", tmp_path / "notes.db", NOTES)
    where = ["--notes", str(vault), "--db", str(db)]
    assert _hook(vault, db, "@bees/beehives.md when did we treat the beehives for varroa", str(vault)) is None
    (did,) = [r["id"] for r in decision_rows(db)[-1:]]
    out = subprocess.run([str(NOTESDB_EXE), "label", "set", str(did), "right", *where], capture_output=True, text=True, timeout=60)
    assert out.stdout == (f"#{did} labelled right: it held back bees/beehives.md, attached by the message itself "
                          "(as a case on its own, the message names that note)\n")  # fmt: skip
    cases = tmp_path / "mine.jsonl"
    assert subprocess.run([str(NOTESDB_EXE), "label", "export", str(cases), *where], capture_output=True, timeout=60).returncode == 0
    (case,) = [json.loads(line) for line in cases.read_text().splitlines()]
    assert (case["expect"], case["kind"]) == (["bees/beehives.md"], "hit")
    assert "held back bees/beehives.md, attached by the message itself, labelled right" in case["why"]


@pytestmark_hook
def test_a_note_attached_while_the_log_was_locked_is_not_named_later(tmp_path: Path) -> None:
    """The database is locked past the hook's wait: the decision goes to hook-errors.jsonl with
    the notes the message attached, and the next message of the conversation reads them back."""
    import sqlite3

    vault, db = write_and_index(tmp_path / "notes", tmp_path / "notes.db", NOTES)

    def say(prompt: str) -> str | None:
        event = {"session_id": "locked", "cwd": str(vault), "hook_event_name": "UserPromptSubmit", "prompt": prompt}
        proc = subprocess.run([str(NOTESDB_EXE), "hook", "--notes", str(vault), "--db", str(db)],
                              input=json.dumps(event).encode(), capture_output=True, timeout=60)  # fmt: skip
        assert proc.returncode == 0 and proc.stderr == b""
        return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout else None

    holder = sqlite3.connect(db)
    holder.execute("BEGIN IMMEDIATE")  # the write lock, held through the first message
    try:
        assert say("@bees/beehives.md tidy this up please") is None
    finally:
        holder.rollback()
        holder.close()
    assert decision_rows(db) == []
    entry = json.loads((db.parent / "hook-errors.jsonl").read_text())
    assert entry["error"].startswith("decision not logged: ") and entry["attached"] == ["bees/beehives.md"]
    assert say("when did we treat the beehives for varroa with oxalic acid") is None
    assert decision_rows(db)[-1]["route"] == "said-before"

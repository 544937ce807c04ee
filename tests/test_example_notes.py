"""The shipped ``examples/notes`` folder, judged as a new user first tries it: plain questions
whose note clearly leads are answered and name that note; chit-chat on the same folder stays
silent. Through the console script (``notesdb index`` then ``notesdb check --json``), with the
default settings and with the ``about`` route switched on at the values measured on the tuning
halves (``ABOUT_ON``; off by default because it cost silence on the check halves)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import NOTESDB_EXE

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "notes"
#: the about route at the best setting on the tuning halves that added no wrong answer and no
#: false alarm on a labelled case there (+20 hits; bench/choose.py's strict floors still reject it)
#: (the ahead route, which comes before it and speaks for the same question, switched off)
ABOUT_ON = "[gate]\nabout_weight = 0.5\nabout_min_lead = 1.25\nabout_evidence = 5.5\nabout_held = 0.7\nahead_evidence = 99\n"


@pytest.fixture(scope="module")
def example_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("examples")
    notes = base / "notes"
    shutil.copytree(EXAMPLES, notes)
    db = base / "examples.db"
    (base / "about.toml").write_text(ABOUT_ON, encoding="utf-8")
    done = subprocess.run([str(NOTESDB_EXE), "index", "--notes", str(notes), "--db", str(db)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return notes, db


def check(example_db: tuple[Path, Path], message: str, about: bool = False) -> dict:
    notes, db = example_db
    config = ["--config", str(db.parent / "about.toml")] if about else []
    done = subprocess.run([str(NOTESDB_EXE), "check", "--notes", str(notes), "--db", str(db), "--json", *config, message],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    "message,note,route",
    [
        # 'Dev' is an alias of the people note; 'birthday' is in its body: evidence 2.3, lead 3.8x
        ("when is Dev's birthday?", "people/dev-okonjo.md", "about"),
    ],
)
def test_plain_questions_name_the_note_that_clearly_leads(example_db: tuple[Path, Path], message: str,
                                                           note: str, route: str) -> None:  # fmt: skip
    d = check(example_db, message, about=True)
    assert (d["spoken"], d["route"], d["notes"]) == (True, route, [note]), d["reasons"]
    assert "the note is about dev and leads the second" in d["reasons"][-2]
    # the default: the about route is off, and the ahead route answers (evidence 2.3 x lead 3.8,
    # counted up to 3x, = 7.0 >= 5 at coverage 0.68)
    d = check(example_db, message)
    assert (d["spoken"], d["route"], d["notes"]) == (True, "ahead", [note]), d["reasons"]
    assert d["reasons"][-2].startswith("spoke by ahead: leads the second 3.81x"), d["reasons"]


@pytest.mark.parametrize(
    "message",
    [
        "thanks, that's all for today",
        "can you make that shorter?",
        "good morning! how are you?",
        "what's the weather like tomorrow",
        "ok sounds good, let's do that",
    ],
)
def test_chit_chat_on_the_example_notes_stays_silent(example_db: tuple[Path, Path], message: str) -> None:
    for about in (False, True):
        d = check(example_db, message, about=about)
        assert d["spoken"] is False and d["notes"] == [], d["reasons"]


def test_the_readme_shows_what_its_first_command_prints(tmp_path: Path) -> None:
    """The first command of README.md (index the example notes, then check two messages) prints
    what the README shows under it, timings and the checkout's path aside: the first output a
    new user compares."""
    import re
    import shlex

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Run it on the example notes", 1)[1]
    blocks = re.findall(r"```\n(.*?)```", section, flags=re.S)
    command, shown = blocks[0].strip(), blocks[1]
    steps = [shlex.split(part) for part in command.split(" && ")]
    checks = [step[1:] for step in steps if step[0] == ".venv/bin/notesdb" and step[1] in ("index", "check")]
    assert [c[0] for c in checks] == ["index", "check", "check"], checks
    notes = tmp_path / "examples" / "notes"
    shutil.copytree(EXAMPLES, notes)
    out = ""
    for args in checks:
        done = subprocess.run([str(NOTESDB_EXE), *args], capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        out += done.stdout

    def plain(text: str) -> str:
        text = re.sub(r"\(\d+ ms\)|\d+ ms\)", "(N ms)", text)
        return text.replace(str(notes), "NOTES").replace("/home/you/notesdb/examples/notes", "NOTES")

    assert plain(out) == plain(shown)


def test_the_readme_shows_what_its_hook_example_prints(tmp_path: Path) -> None:
    """The README's hook example (an event on stdin, the example notes) prints the line it
    shows. It once showed a message read as Portuguese by accident ("the" and "silva" are
    everyday Portuguese words), whose "silva" then found "silvia" as another form; read as
    English, "silva" is a word English knows and is not corrected, and the example was silent."""
    import json
    import re
    import shlex

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("To see the hook itself at work", 1)[1]
    block = re.findall(r"```\n(.*?)```", section, flags=re.S)[0]
    command, shown = block.split("\n  | ", 1)
    event = shlex.split(command.removesuffix(" \\"))[1]
    args, shown = shown.split("\n", 1)
    notes = tmp_path / "examples" / "notes"
    shutil.copytree(EXAMPLES, notes)
    argv = shlex.split(args)
    assert argv[:2] == [".venv/bin/notesdb", "hook"], argv
    # as the README runs it: after its first command indexed the notes into example.db (a
    # hook that must create the database answers only when that fits its first call's time)
    assert argv[-2:] == ["--db", "example.db"], argv
    indexed = subprocess.run([str(NOTESDB_EXE), "index", "--notes", "examples/notes", "--db", "example.db"],
                             capture_output=True, text=True, timeout=120, cwd=tmp_path)  # fmt: skip
    assert indexed.returncode == 0, indexed.stderr
    done = subprocess.run([str(NOTESDB_EXE), *argv[1:]], input=event, capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = json.loads(shown.strip().replace("/home/you/notesdb/examples/notes", str(notes)))
    assert json.loads(done.stdout) == expected

"""Numbers in a message: never read as the start of a longer number or as a typo, and a long
paste full of them (a log, a table) cannot out-vote the question typed after it."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest
from conftest import write_and_index

from notesdb.decide import decide
from notesdb.query import build_query
from notesdb.db import note_count, open_db

QUESTION = "shield psu input rating? it keeps dropping off"
PSU_NOTE = "hardware/shield-tv-power-supply.md"
CHART_NOTE = "til/svg/dynamic-line-chart.md"

#: A small folder of invented notes: one about the question, one that is mostly small numbers
#: (a chart's coordinates), one holding a long number (a timestamp), and everyday neighbours.
NOTES = {
    PSU_NOTE: "# Shield TV power supply\n\nThe PSU is rated 19 V 2.1 A input; it drops off "
    "when the USB hub draws too much. Rating label photo in the drawer.\n",
    CHART_NOTE: "# Dynamic line chart in SVG\n\n"
    + " ".join(f"{x},{(x * 37) % 997}" for x in range(0, 4000, 7)) + "\n",
    "misc/export-stamps.md": "# Export stamps\n\nThe last export was 7543186180422 (ms since epoch).\n",
    "home/garden.md": "# Garden\n\nTomatoes along the south fence; water every other evening.\n",
    "home/kitchen.md": "# Kitchen\n\nThe oven runs hot by ten degrees; the fridge is set to 4.\n",
    "people/sam.md": "# Sam\n\nBirthday in March; likes board games and hiking.\n",
    "hardware/router.md": "# Router\n\nGuest network on VLAN 20; firmware updated in May.\n",
    "projects/bike.md": "# Bike\n\nChain lubed in April; tyre pressure 4.5 bar front.\n",
}


@pytest.fixture
def numbers_vault(tmp_path: Path) -> tuple[Path, Path]:
    """``(vault, db)``: the folder above, indexed."""
    return write_and_index(tmp_path / "numbers", tmp_path / "numbers.db", NOTES)


@pytest.fixture
def conn(numbers_vault: tuple[Path, Path]) -> sqlite3.Connection:
    c = open_db(numbers_vault[1])
    yield c  # type: ignore[misc]
    c.close()


def test_a_number_is_never_prefix_expanded_or_corrected(conn: sqlite3.Connection) -> None:
    # the vault holds 7543186180422 (a timestamp); 754 is not short for it, and one digit off
    # is another number, not a typo
    assert conn.execute("SELECT 1 FROM vocab WHERE word = '7543186180422'").fetchone()
    q = build_query(conn, "what was 754 about, and 7543186180423", note_count(conn))
    assert q.expansions == [] and q.corrections == []
    assert [t.alternatives for t in q.terms if t.token.isdigit()] == [[], []]
    d = decide(conn, "754")
    assert (d.spoken, d.expansions) == (False, [])


def test_a_pasted_table_of_numbers_does_not_out_vote_the_question(conn: sqlite3.Connection) -> None:
    alone = decide(conn, QUESTION)
    assert alone.spoken and alone.notes[0] == PSU_NOTE
    rnd = random.Random(7)  # a fixed table: the test is deterministic
    table = "".join(" ".join(str(rnd.randrange(100_000)) for _ in range(12)) + "\n" for _ in range(3000))
    pasted = decide(conn, table[:200_000] + "\n" + QUESTION)
    assert (pasted.spoken, pasted.notes, pasted.line) == (alone.spoken, alone.notes, alone.line)


def test_a_pasted_log_names_no_note_through_its_numbers(conn: sqlite3.Connection) -> None:
    """A 200 KB kernel-style log (timestamps, counters, ids) and then the question."""
    log = "".join(
        f"[{8812.4 + i / 1000:10.6f}] usb 1-4: new high-speed USB device number {i % 90} "
        f'using ehci-pci idVendor=0955 idProduct=7721 "APX" \\x00 C:\\tmp\\{i}\n'
        for i in range(1700)
    )
    d = decide(conn, log[:200_000] + "\n" + QUESTION)
    assert CHART_NOTE not in d.notes  # many small numbers, nothing else
    for c in d.top_scores[:1]:
        number_hits = [h for h in c["hits"] if h.split("->")[0].isdigit()]
        assert len(number_hits) <= len(c["hits"]) - 3, c  # the top note is chosen by words


def test_check_reads_a_message_longer_than_an_argument_from_stdin(numbers_vault: tuple[Path, Path]) -> None:
    """``check -``: a paste over the 128 KiB argument limit is checked as the hook would see it."""
    import json
    import subprocess

    from conftest import NOTESDB_EXE

    vault, db = numbers_vault
    rnd = random.Random(7)
    table = "".join(" ".join(str(rnd.randrange(100_000)) for _ in range(12)) + "\n" for _ in range(3000))
    message = table[:200_000] + "\n" + QUESTION + " ✓"
    args = [str(NOTESDB_EXE), "check", "-", "--notes", str(vault), "--db", str(db), "--json"]
    r = subprocess.run(args, input=message.encode("utf-8"), capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    hook = subprocess.run(
        [str(NOTESDB_EXE), "hook", "--notes", str(vault), "--db", str(db), "--no-log"],
        input=json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": message}).encode(),
        capture_output=True, timeout=120,
    )  # fmt: skip
    assert out["spoken"] and out["line"] == json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]

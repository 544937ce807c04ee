"""A notes folder or note the hook and the doctor cannot use: a file given as the folder, a
folder or note that cannot be read, a folder path that is a loop of symbolic links. The
hook stays silent, exits 0 and logs why; the doctor says what will help.

Unreadable files are made for real with ``chmod 000``. Root reads through that, so under root
the command runs without the two capabilities that let it (``CAP_DAC_OVERRIDE`` and
``CAP_DAC_READ_SEARCH``, dropped from its bounding set before it starts): the kernel then
checks the mode bits as for anyone else.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import COVERED_MESSAGE, COVERED_NOTE, NOTESDB_EXE, decision_rows
from test_faults import event

#: prctl(2) option and capability numbers, from linux/prctl.h and linux/capability.h.
PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2


def _drop_read_override() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@pytest.fixture
def as_user(tmp_path: Path) -> dict[str, Any]:
    """``subprocess`` keyword arguments under which ``chmod 000`` stops a read."""
    if os.geteuid() != 0:
        return {}
    probe = tmp_path / "probe"
    probe.write_text("x")
    probe.chmod(0)
    try:
        proc = subprocess.run([sys.executable, "-c", f"open({str(probe)!r})"], capture_output=True,
                              preexec_fn=_drop_read_override)  # fmt: skip
    except (subprocess.SubprocessError, OSError) as e:
        pytest.skip(f"running as root and the capabilities that read through chmod 000 cannot be dropped here: {e}")
    if b"PermissionError" not in proc.stderr:
        pytest.skip("running as root and chmod 000 does not stop a read even without CAP_DAC_OVERRIDE")
    return {"preexec_fn": _drop_read_override}


def notesdb(*args: str | Path, stdin: bytes = b"", **kw: Any) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(NOTESDB_EXE), *map(str, args)], input=stdin, capture_output=True,
                          timeout=120, **kw)  # fmt: skip


def silent_hook(vault: Path, db: Path, **kw: Any) -> dict[str, Any]:
    """Run the hook on the covered message; it must be silent and exit 0. Returns the decision."""
    proc = notesdb("hook", "--notes", vault, "--db", db, stdin=event(COVERED_MESSAGE), **kw)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert not (db.parent / "hook-errors.jsonl").exists()
    row = decision_rows(db)[-1]
    assert row["spoken"] == 0 and row["route"] == "notes-missing"
    return row


def test_an_unreadable_notes_folder_is_logged_and_the_hook_is_silent(indexed: tuple[Path, Path], as_user: dict[str, Any]) -> None:
    vault, db = indexed
    vault.chmod(0)
    try:
        row = silent_hook(vault, db, **as_user)
    finally:
        vault.chmod(0o755)
    assert row["error"] == (
        f"notes folder cannot be read: {vault} (Permission denied): nothing is said until it can be "
        "read; check the folder's permissions"
    )
    proc = notesdb("hook", "--notes", vault, "--db", db, stdin=event(COVERED_MESSAGE, session="s-2"))
    assert COVERED_NOTE in proc.stdout.decode()  # readable again: it speaks


def test_index_of_an_unreadable_folder_makes_no_database(vault: Path, tmp_path: Path, as_user: dict[str, Any]) -> None:
    """One line, exit 1, and no database file made for a folder nothing can be indexed from."""
    db = tmp_path / "new.db"
    vault.chmod(0)
    try:
        proc = notesdb("index", "--notes", vault, "--db", db, **as_user)
    finally:
        vault.chmod(0o755)
    assert proc.returncode == 1
    assert proc.stderr.decode() == f"Error: notes folder cannot be read: {vault} (Permission denied)\n"
    assert not db.exists() and not list(tmp_path.glob("new.db*"))


def test_a_notes_folder_that_is_a_loop_of_links_cannot_be_read(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    """The same route without chmod, so that it is covered under root too."""
    _, db = indexed
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(loop)
    row = silent_hook(loop, db)
    assert row["error"].startswith(f"notes folder cannot be read: {loop} (Too many levels of symbolic links): ")
    proc = notesdb("doctor", "--notes", loop, "--db", db)
    assert proc.returncode == 1
    assert (
        f"problem  notes folder: cannot be read: {loop} (Too many levels of symbolic links): the hook "
        f"stays silent until it can be read; check the folder's owner and permissions (ls -ld {loop})"
    ) in proc.stdout.decode().splitlines()


def test_a_notes_folder_that_is_a_file(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    _, db = indexed
    file = tmp_path / "notes.md"
    file.write_text("# a note, not a folder\n")
    row = silent_hook(file, db)
    assert row["error"].startswith(f"notes folder {file} is a file, not a folder: nothing is said until ")
    assert "not found" not in row["error"]
    proc = notesdb("doctor", "--notes", file, "--db", db)
    assert proc.returncode == 1
    assert proc.stdout.decode().splitlines()[1] == (
        f"problem  notes folder: {file} is a file, not a folder: the hook stays silent; run "
        "'notesdb hook install --notes FOLDER' with the folder that holds the notes"
    )


def test_doctor_says_an_unreadable_note_needs_its_permissions_not_an_index(vault: Path, db_path: Path, as_user: dict[str, Any]) -> None:
    db = db_path
    note = vault / COVERED_NOTE
    note.chmod(0)
    try:
        index = notesdb("index", "--notes", vault, "--db", db, **as_user)
        doctor = notesdb("doctor", "--notes", vault, "--db", db, **as_user)
    finally:
        note.chmod(0o644)
    assert index.returncode == 0, index.stderr
    assert f"problem: {COVERED_NOTE}: cannot be read: Permission denied" in index.stdout.decode()
    lines = doctor.stdout.decode().splitlines()
    assert (
        f"warning  notes: 1 note file(s) cannot be read, so they are not indexed: {COVERED_NOTE} "
        "(Permission denied): check their owner and permissions (ls -l); the next sync indexes them "
        "once they can be read"
    ) in lines
    assert not any("run 'notesdb index'" in x for x in lines), lines
    assert any(x.startswith("ok       notes: ") for x in lines), lines

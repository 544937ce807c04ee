"""The default config file is where platformdirs says, though the hook does not import it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import platformdirs
import pytest

from notesdb import config as cfg


@pytest.mark.parametrize(
    "env",
    [
        {},  # the autouse fixture's absolute XDG_CONFIG_HOME
        {"XDG_CONFIG_HOME": ""},
        {"XDG_CONFIG_HOME": "relative/dir"},
        {"XDG_CONFIG_HOME": "/"},
        {"XDG_CONFIG_HOME": None},
        {"XDG_CONFIG_HOME": None, "HOME": "/home/someone/"},
        {"XDG_CONFIG_HOME": None, "HOME": "relative-home"},
        {"XDG_CONFIG_HOME": None, "HOME": None},
    ],
)
def test_default_config_path_matches_platformdirs(
    env: dict[str, str | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in env.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    expected = Path(platformdirs.user_config_dir("notesdb")) / "notesdb.toml"
    assert cfg.config_path(None) == expected


def test_hook_imports_neither_platformdirs_nor_hashlib(tmp_path: Path) -> None:
    """With ``--db`` given and nothing to index, the hook's process stays on its lean imports."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# Espresso\n\nBrew at 93 C.\n")
    db = tmp_path / "n.db"
    index = f"from notesdb.db import open_db; from notesdb.sync import sync; sync(open_db({str(db)!r}), {str(notes)!r})"
    subprocess.run([sys.executable, "-c", index], check=True)
    hook = (
        "import sys\n"
        "from notesdb.hook import run\n"
        f"run(b'{{\"prompt\": \"espresso brew temperature\"}}', ['--notes', {str(notes)!r}, '--db', {str(db)!r}])\n"
        "print(sorted(m for m in sys.modules if m.startswith(('platformdirs', 'hashlib', 'notesdb.parse'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", hook], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr

"""End to end with the real Claude Code CLI: ``notesdb hook install``, then ``claude -p`` against
a local fake of the Messages API (``fake_anthropic.py``), and the request Claude Code sends is
read for notesdb's line.

Needs a Claude Code install; nothing is downloaded here. It is found, in order, at
``$NOTESDB_CLAUDE`` (one ``claude`` binary), in every
``/tmp/notesdb-real-client/claude-code-*/`` (where the real-client harness beside this project
installs versions from npm: ``npm install --prefix DIR @anthropic-ai/claude-code@VERSION``), or
as ``claude`` on the PATH. Each version found is tested; none found skips the module with one
line. The notes are ``examples/notes`` of this repository.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import NOTESDB_EXE
from fake_anthropic import REPLY, FakeAnthropic, texts

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "notes"
COVERED = "whats the brew temp on the silvia pid?"
UNCOVERED = "thanks, that worked"
HEAD = "Notes that may cover this: "
KEY = "sk-ant-dummy-for-local-test"


def _version(exe: Path) -> str | None:
    try:
        r = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    m = re.match(r"(\d+\.\d+\.\d+)", r.stdout.strip())
    return m.group(1) if r.returncode == 0 and m else None


def _find_claudes() -> dict[str, Path]:
    found: list[Path] = []
    if os.environ.get("NOTESDB_CLAUDE"):
        found.append(Path(os.environ["NOTESDB_CLAUDE"]))
    for prefix in sorted(Path("/tmp/notesdb-real-client").glob("claude-code-*")):
        found += [prefix / "node_modules" / ".bin" / "claude",
                  *sorted((prefix / "node_modules" / "@anthropic-ai").glob("claude-code-*/claude"))]  # fmt: skip
    if shutil.which("claude"):
        found.append(Path(shutil.which("claude")))  # type: ignore[arg-type]
    versions: dict[str, Path] = {}
    for exe in found:
        if exe.is_file() and os.access(exe, os.X_OK):
            v = _version(exe)
            if v and v not in versions:
                versions[v] = exe
    return versions


CLAUDES = _find_claudes()
if not CLAUDES:
    pytest.skip("Claude Code not found ($NOTESDB_CLAUDE, /tmp/notesdb-real-client/claude-code-*, PATH): "
                "end-to-end test skipped", allow_module_level=True)  # fmt: skip


@pytest.fixture
def sandbox(tmp_path: Path, isolated_home: Path) -> dict[str, Path]:
    """A copy of the example notes, a project folder Claude Code trusts, a fresh HOME."""
    notes = tmp_path / "my notes"  # a space in every path the entry names
    shutil.copytree(EXAMPLES, notes)
    project = tmp_path / "project"
    project.mkdir()
    # past the first-run screens: onboarding done, the key approved, the folder trusted
    (isolated_home / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True,
        "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []},
        "projects": {str(project): {"hasTrustDialogAccepted": True}},
    }))  # fmt: skip
    return {"notes": notes, "project": project, "home": isolated_home}


def claude_env(fake: FakeAnthropic, home: Path, **extra: str) -> dict[str, str]:
    env = {
        "HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "SHELL": "/bin/bash",
        "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"), "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
        "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": KEY,
        "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }  # fmt: skip
    env.update(extra)
    return env


def claude_p(exe: Path, prompt: str, fake: FakeAnthropic, sb: dict[str, Path], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(exe), "-p", prompt, *args], cwd=sb["project"], env=claude_env(fake, sb["home"]),
                          input="", capture_output=True, text=True, timeout=180)  # fmt: skip


def install(sb: dict[str, Path]) -> str:
    """Install the hook (user scope); the line ``notesdb check`` gives for COVERED."""
    r = subprocess.run([str(NOTESDB_EXE), "hook", "install", "--notes", str(sb["notes"])],
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    assert r.returncode == 0, r.stderr
    [entry] = json.loads((sb["home"] / ".claude" / "settings.json").read_text())["hooks"]["UserPromptSubmit"][0]["hooks"]
    db = entry["command"].rsplit(" --db ", 1)[1].strip("'")
    r = subprocess.run([str(NOTESDB_EXE), "check", COVERED, "--notes", str(sb["notes"]), "--db", db, "--json"],
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    line = json.loads(r.stdout)["line"]
    assert line.startswith(HEAD)
    return line


@pytest.mark.parametrize("version", sorted(CLAUDES))
def test_the_line_reaches_the_model_once_and_silence_adds_nothing(version: str, sandbox: dict[str, Path]) -> None:
    exe = CLAUDES[version]
    line = install(sandbox)
    with FakeAnthropic() as fake:
        r = claude_p(exe, COVERED, fake, sandbox)
        assert r.returncode == 0 and REPLY in r.stdout, (r.stdout, r.stderr)  # the prompt was not blocked
        [body] = fake.message_bodies()[-1:]
        found = [t for t in texts(body) if line in t]
        assert len(found) == 1 and sum(t.count(line) for t in found) == 1
        assert any(COVERED in t for t in texts(body))  # the prompt itself, unchanged
        r = claude_p(exe, UNCOVERED, fake, sandbox)
        assert r.returncode == 0 and REPLY in r.stdout
        assert not any(HEAD in t for t in texts(fake.message_bodies()[-1]))


@pytest.mark.parametrize("version", sorted(CLAUDES))
def test_the_model_can_open_the_note_the_line_names(version: str, sandbox: dict[str, Path]) -> None:
    """A model that reads the path exactly as the line gives it gets the note, not
    "File does not exist": Claude Code is started in a project folder, not in the notes."""
    exe = CLAUDES[version]
    install(sandbox)
    with FakeAnthropic(follow=True) as fake:
        r = claude_p(exe, COVERED, fake, sandbox, "--allowedTools", "Read")
        assert r.returncode == 0, (r.stdout, r.stderr)
        results = [t for b in fake.message_bodies() for m in b["messages"] if isinstance(m.get("content"), list)
                   for c in m["content"] if c.get("type") == "tool_result"
                   for t in [c["content"] if isinstance(c["content"], str) else json.dumps(c["content"])]]  # fmt: skip
        assert results, "the fake never saw a tool result"
        assert "does not exist" not in results[0] and "Rancilio" in results[0], results[0][:300]

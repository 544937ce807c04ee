"""Output of the commands: text reports, histograms and the tune plot (matplotlib, optional).

Functions return lines; ``notesdb.cli`` prints them.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from notesdb.errors import NotesdbError, extra_hint
from notesdb.settings import Settings
from notesdb.tune import TUNED, TuneReport, quantiles, rates, threshold_marks

__all__ = ["fmt", "summary_lines", "said", "snippet", "text_histogram", "tune_row", "tune_lines", "evidence_cap", "plot_tune"]


def fmt(v: float | None) -> str:
    """A rate with three decimals, or ``-`` for none."""
    return "-" if v is None else f"{v:.3f}"


def summary_lines(s: dict[str, Any]) -> list[str]:
    """The text report of ``notesdb eval``: counts, rates, by kind, failures."""
    out: list[str] = []
    out.append(f"cases {s['cases']} (covered {s['covered']}, uncovered {s['uncovered']})")
    out.append(
        f"hits {s['hits']}  wrong {s['wrong']}  missed {s['missed']}  "
        f"silent {s['silent']}  false alarms {s['false_alarms']}"
    )
    out.append(
        f"precision {fmt(s['precision'])}  hit rate {fmt(s['hit_rate'])}  "
        f"silence rate {fmt(s['silence_rate'])}"
    )
    st = s["stretch"]
    if st["cases"]:
        out.append(f"stretch (reported apart): {st['hits']}/{st['cases']} hits")
    out.append("\nby kind:")
    for kind, k in s["by_kind"].items():
        out.append(f"  {kind:<22} {k['right']:>5}/{k['cases']:<5}")
    if s["failures"]:
        out.append("\nfailures:")
    for f in s["failures"]:
        msg = f["message"].replace("\n", " ")[:90]
        out.append(f"  {f['id']} [{f['kind']}] {f['result']} ({f['route']}): {msg!r}")
        out.append(f"      named {f['named'] or '-'}; expected {f['expected'] or 'silence'}")
    missing = s.get("not_indexed") or []
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        out.append(
            f"\nwarning: {len(missing)} expected path{'s are' if len(missing) != 1 else ' is'} not a note "
            f"of the index (a typo, a moved note, or one [index] skip leaves out): {shown}"
        )
    return out


def said(spoken: bool, notes: list[str], route: str) -> str:
    """What a decision did, in a few words: the notes named or ``silent``, and its route."""
    return f"{', '.join(notes) if spoken else 'silent'} [{route or '-'}]"


def shown_prompt(prompt: str | None) -> str:
    """A logged prompt as shown: ``(prompt not logged)`` when none was stored (``[log] prompts =
    false``, ``--no-log``, or an event without one), ``(empty prompt)`` for an empty message."""
    if prompt is None:
        return "(prompt not logged)"
    return prompt if prompt.strip() else "(empty prompt)"


def snippet(prompt: str | None, limit: int = 70) -> str:
    """A logged prompt on one line, quoted, at most ``limit`` characters (:func:`shown_prompt`)."""
    text = " ".join(shown_prompt(prompt).split())
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def text_histogram(
    real: list[float],
    noise: list[float],
    lo: float,
    hi: float,
    bins: int = 10,
    width: int = 24,
    marks: dict[str, float] | None = None,
    top_open: bool = False,
) -> list[str]:
    """Two side-by-side text histograms (``#`` real, ``=`` noise) over ``[lo, hi)``.

    Values at or above ``hi`` (and ``inf``) go to the last bin, whose label then reads ``hi+``
    when ``top_open``. ``marks`` names thresholds; a bin holding one is tagged ``<- name v``.

    :returns: lines, one per bin
    """
    step = (hi - lo) / bins if hi > lo else 1.0

    def counts(vals: list[float]) -> list[int]:
        c = [0] * bins
        for x in vals:
            i = bins - 1 if x >= hi else max(0, int((x - lo) / step))
            c[min(i, bins - 1)] += 1
        return c

    cr, cn = counts(real), counts(noise)
    peak = max(cr + cn + [1])
    lines = []
    for i in range(bins):
        a, b = lo + i * step, lo + (i + 1) * step
        label = f"{a:5.2f}+     " if top_open and i == bins - 1 else f"{a:5.2f}-{b:<5.2f}"
        bar_r = "#" * math.ceil(cr[i] * width / peak) if cr[i] else ""
        bar_n = "=" * math.ceil(cn[i] * width / peak) if cn[i] else ""
        tag = ", ".join(
            f"{name} {v:g}" for name, v in (marks or {}).items()
            if a <= v < b or (i == bins - 1 and v >= b)
        )
        line = f"  {label} {cr[i]:>4} {bar_r:<{width}} {cn[i]:>4} {bar_n:<{width}}"
        lines.append((line + (f" <- {tag}" if tag else "")).rstrip())
    return lines


def tune_row(s: Settings, summ: dict[str, Any], tag: str = "") -> str:
    """One setting of a tune report: its tuned thresholds, rates and counts."""
    vals = "  ".join(f"{getattr(s, k):>6g}" for k in TUNED)
    return (
        f"  {vals}  | {fmt(summ['precision']):>9} {fmt(summ['hit_rate']):>8} {fmt(summ['silence_rate']):>8} "
        f"| {summ['hits']:>4} {summ['wrong']:>5} {summ['missed']:>6} {summ['false_alarms']:>6}  {tag}"
    ).rstrip()


#: Covered cases ``tune`` names whose top candidate is not expected (``--json`` lists them all).
UNREACHABLE_SHOWN = 5


def tune_lines(rep: TuneReport) -> list[str]:
    """The text report of ``notesdb tune``: distributions, histograms, Pareto front, choice."""
    out: list[str] = []
    cur = rep.current_summary
    out.append(
        f"{rep.cases} cases ({cur['covered']} covered, {cur['uncovered']} uncovered, "
        f"{cur['stretch']['cases']} stretch left out); {len(rep.results)} settings; "
        f"ranked once in {rep.rank_ms:.0f} ms, judged in {rep.judge_ms:.0f} ms"
    )
    f, b = rep.features, rep.base
    out.append(
        f"\nTop candidate of real matches (covered cases whose top candidate is expected, "
        f"n={len(f['real']['coverage'])}) against noise (uncovered cases, n={len(f['noise']['coverage'])})."
    )
    if f["unreachable"]:
        cases_named = "; ".join(f"{c['id']} ({'top: ' + c['top'] if c['top'] else 'no candidate'})"
                                for c in f["unreachable_cases"][:UNREACHABLE_SHOWN])
        more = len(f["unreachable_cases"]) - UNREACHABLE_SHOWN
        out.append(f"{f['unreachable']} covered case{'s have' if f['unreachable'] != 1 else ' has'} an unexpected "
                   f"top candidate (or none): no threshold makes {'them hits' if f['unreachable'] != 1 else 'it a hit'}: "
                   f"{cases_named}{f' and {more} more (--json lists them all)' if more > 0 else ''}.")
    out.append(f"\n  {'':<13}{'':<6}{'n':>4}" + "".join(f"{q:>7}" for q in ("min", "p10", "p25", "p50", "p75", "p90", "max")))
    names = {"coverage": "coverage", "evidence": "evidence", "lead": "lead (x 2nd)"}
    for key, name in names.items():
        for g in ("real", "noise"):
            vals = f[g][key]
            qs = "".join(
                f"{'-' if q is None else 'inf' if q == float('inf') else f'{q:.2f}':>7}" for q in quantiles(vals)
            )
            out.append(f"  {name if g == 'real' else '':<13}{g:<6}{len(vals):>4}{qs}")
    marks = threshold_marks(b)
    charts = [
        ("coverage", "top coverage", 0.0, 1.0, False, marks["coverage"]),
        ("evidence", "top evidence", 0.0, evidence_cap(rep), True, marks["evidence"]),
        ("lead", "lead over the second (inf: no second)", 1.0, 6.0, True, marks["lead"]),
    ]
    for key, title, lo, hi, top_open, mark in charts:
        out.append(f"\n{title}: # real, = noise; current thresholds marked")
        for line in text_histogram(f["real"][key], f["noise"][key], lo, hi, marks=mark, top_open=top_open):
            out.append(line)
    short = {"strong_coverage": "s_cov", "lead_coverage": "l_cov", "lead_ratio": "ratio",
             "rare_coverage": "r_cov", "strong_evidence": "s_ev",
             "rare_weight": "r_wt", "lead_evidence": "l_ev"}
    head = "  ".join(f"{short.get(k, k[:6]):>6}" for k in TUNED)
    out.append(
        f"\nPareto front ({len(rep.front)} distinct results no other setting beats on precision, "
        "hit rate and silence rate together):"
    )
    out.append(f"  {head}  | precision hit rate  silence |  hit wrong missed f.alarm")
    out.append("  (" + ", ".join(f"{short.get(k, k[:6])} = {k}" for k in TUNED) + ")")
    shown = rep.front[:20]
    for s, summ, n in shown:
        tags = []
        if s == rep.chosen:
            tags.append("<- chosen")
        if s == b:
            tags.append("<- current")
        if n > 1:
            tags.append(f"(+{n - 1} same)")
        out.append(tune_row(s, summ, " ".join(tags)))
    if len(rep.front) > len(shown):
        out.append(f"  ... {len(rep.front) - len(shown)} more (--json lists all)")
    out.append("\ncurrent:")
    out.append(tune_row(b, cur))
    out.append(f"chosen ({rep.rule}):")
    out.append(tune_row(rep.chosen, rep.chosen_summary))
    changes = [f"{k} {getattr(b, k):g} -> {getattr(rep.chosen, k):g}" for k in TUNED if getattr(b, k) != getattr(rep.chosen, k)]
    out.append("  " + ("; ".join(changes) if changes else "same as the current settings"))
    edge = rep.at_edge()
    if edge:
        out.append(
            f"  at the edge of the grid: {', '.join(edge)} (the grid is centred on the configured "
            "values: after --write, tune again to search further that way)"
        )
    if rep.cases < 50:
        out.append(f"  note: {rep.cases} cases is a small set; thresholds tuned on it may not carry over")
    return out


def evidence_cap(report: TuneReport) -> float:
    """Where charts of top evidence stop (it has a long tail): about its 90th percentile, and
    beyond every evidence threshold, at least 10."""
    ev = report.features["real"]["evidence"] + report.features["noise"]["evidence"]
    top = max([quantiles(ev, (0.9,))[0] or 0.0] + [1.5 * v for v in threshold_marks(report.base)["evidence"].values()])
    return float(max(10, 2 * math.ceil(top / 2)))


#: What to do when ``--plot`` finds no matplotlib. notesdb is not on a package index, so
#: ``pip install 'notesdb[plot]'`` cannot work: the extra is installed from the checkout.
PLOT_HINT = f"--plot needs matplotlib: {extra_hint('plot')} (or pip install matplotlib in notesdb's environment)"


def plot_tune(report: TuneReport, path: str | os.PathLike[str]) -> Path:
    """Draw ``report`` to a PNG: histograms of top coverage, evidence and lead (real against
    noise, with the current thresholds) and hit rate against precision for every setting.

    :returns: the path written
    :raises NotesdbError: matplotlib is not installed (:data:`PLOT_HINT`) or the
        file cannot be written
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise NotesdbError(PLOT_HINT) from None
    f = report.features
    marks = threshold_marks(report.base)
    fig, axs = plt.subplots(2, 2, figsize=(11, 8))
    ev_cap = evidence_cap(report)
    panels = [
        ("coverage", "top coverage", marks["coverage"], 0.0, 1.0),
        ("evidence", f"top evidence (capped at {ev_cap:g})", marks["evidence"], 0.0, ev_cap),
        ("lead", "lead over the second (capped at 6; inf: no second)", marks["lead"], 1.0, 6.0),
    ]
    for ax, (key, title, mark, lo, cap) in zip(axs.flat, panels):
        real = [min(x, cap) for x in f["real"][key]]
        noise = [min(x, cap) for x in f["noise"][key]]
        bins = [lo + (cap - lo) * i / 20 for i in range(21)]
        ax.hist(real, bins=bins, alpha=0.6, label=f"real matches (n={len(real)})")
        ax.hist(noise, bins=bins, alpha=0.6, label=f"noise (n={len(noise)})")
        for name, v in mark.items():
            ax.axvline(v, linestyle="--", color="black", linewidth=1)
            ax.text(v, ax.get_ylim()[1] * 0.95, f" {name}", fontsize=8, va="top")
        ax.set_title(title)
        ax.legend(fontsize=8)
    ax = axs.flat[3]
    pts = [rates(summ) for _, summ in report.results]
    sc = ax.scatter([p for p, _, _ in pts], [h for _, h, _ in pts], c=[s for _, _, s in pts], cmap="viridis", s=12)
    fig.colorbar(sc, ax=ax, label="silence rate")
    cp, ch, _ = rates(report.chosen_summary)
    bp, bh, _ = rates(report.current_summary)
    ax.scatter([bp], [bh], marker="s", facecolors="none", edgecolors="black", s=80, label="current")
    ax.scatter([cp], [ch], marker="*", color="red", s=140, label="chosen")
    ax.set_xlabel("precision")
    ax.set_ylabel("hit rate")
    ax.set_title(f"{len(report.results)} settings")
    ax.legend(fontsize=8)
    fig.tight_layout()
    p = Path(path)
    try:
        fig.savefig(p, dpi=100)
    except OSError as e:
        raise NotesdbError(f"cannot write {p}: {e.strerror or e}") from None
    finally:
        plt.close(fig)
    return p

#!/usr/bin/env python3
"""How often typo correction finds the word meant, on codespell's list of misspellings.

    .venv/bin/python bench/typos.py [--dictionary FILE] [--pairs 6000]

Reads ``../shared/eval-data/typos/codespell-dictionary.txt`` (codespell's main dictionary, one
``typo->word`` a line; licence beside it), keeps the typos of 4+ letters with one correction
within ``query.max_edits`` of it, puts every correct word in the vocabulary of a new database,
and runs ``query.correct`` on a fixed sample of the typos, once per way of choosing candidates
(``query.candidate_prefixes``): the shipped one, the two before it (without a left-out second
letter; the first two letters and their swap only) and every word of the same first letter. Prints, for each, the share of typos whose
word is among the corrections, the median time per typo in microseconds and its ratio to the
shipped one's, measured side by side in this run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import jellyfish  # noqa: E402

from notesdb import query  # noqa: E402
from notesdb.db import open_db  # noqa: E402
from notesdb.vocab import apply_counts  # noqa: E402

DICTIONARY = ROOT.parent / "shared" / "eval-data" / "typos" / "codespell-dictionary.txt"
VARIANTS = {
    "shipped (first two, swapped, first and third, a second letter left out)": query.candidate_prefixes,
    "first two, swapped, first and third": lambda t, wide=True: {t[:2], t[1] + t[0], t[0] + t[2]},
    "first two letters and their swap": lambda t, wide=True: {t[:2], t[1] + t[0]},
    "every word of the same first letter": lambda t, wide=True: {t[0]},
}


def pairs_of(path: Path, n: int) -> list[tuple[str, str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if "->" not in line:
            continue
        typo, word = (x.strip().rstrip(",").lower() for x in line.split("->", 1))
        if "," in word or not typo.isalpha() or not word.isalpha() or len(typo) < 4:
            continue
        if jellyfish.damerau_levenshtein_distance(typo, word) <= query.max_edits(typo):
            out.append((typo, word))
    random.Random(1).shuffle(out)
    return out[:n]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dictionary", type=Path, default=DICTIONARY)
    ap.add_argument("--pairs", type=int, default=6000)
    args = ap.parse_args()
    if not args.dictionary.is_file():
        sys.exit(f"Error: {args.dictionary} not found (it comes with ../shared/eval-data)")
    pairs = pairs_of(args.dictionary, args.pairs)
    with tempfile.TemporaryDirectory() as tmp:
        conn = open_db(Path(tmp) / "typos.db")
        with conn:
            apply_counts(conn, Counter({w: 1 for _, w in pairs}))
        shipped = query.candidate_prefixes
        rows = []
        for label, prefixes in VARIANTS.items():
            query.candidate_prefixes = prefixes
            found, times = 0, []
            for typo, word in pairs:
                t0 = time.perf_counter()
                alternatives, _ = query.correct(conn, typo)
                times.append((time.perf_counter() - t0) * 1e6)
                found += any(a.word == word for a in alternatives)
            rows.append((label, found, statistics.median(times)))
        query.candidate_prefixes = shipped
        conn.close()
    base = rows[0][2]
    print(f"{len(pairs)} typos, {len({w for _, w in pairs})} words in the vocabulary")
    print("| candidates | found | share | median us per typo | ratio |")
    print("|---|---:|---:|---:|---:|")
    for label, found, med in rows:
        print(f"| {label} | {found} | {found / len(pairs):.3f} | {med:.0f} | {med / base:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

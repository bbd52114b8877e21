"""Target 6: what holds today must keep holding.

* a 1-record edit at 100k records takes < 1 s wall (median of 3 edits) and writes only pages
  that cite the record (before or after the edit);
* the incrementally maintained wiki equals a clean rebuild of the final corpus;
* signing costs < 10 % of a clean compile's CPU (signing with a local key vs ``FOLIO_SIGNING=off``,
  alternated, medians of ``--rounds``).

The first two come from ``compile_bench``'s measuring child (clean compile, three 1-record
edits, a 1 % edit, a no-change recompile, then a clean rebuild compared file by file), run at
100k records. The signing overhead is measured at 10k records: it is a ratio of two clean
compiles, and three pairs of 100k compiles would cost most of an hour on this machine.
"""

from __future__ import annotations

import shutil
import statistics

from perf.clean import compile_child, corpus_for, settle, workdir_of
from perf.report import Figure, TargetResult, machine_load

EDIT_N, SIGN_N = 100_000, 10_000
QUICK_EDIT_N, QUICK_SIGN_N = 1_000, 400
EDIT_LIMIT_S = 1.0
SIGN_LIMIT = 0.10


def _edits(root, n: int) -> list[TargetResult]:
    from compile_bench import SEED, run_child

    sub = root / f"n{n}"
    sub.mkdir(parents=True, exist_ok=True)
    load_before = machine_load()
    run_child(["--_generate", str(n), str(sub), "--seed", str(SEED)])
    res = run_child(["--_measure", str(n), str(sub), "--seed", str(SEED)])
    shutil.rmtree(sub, ignore_errors=True)
    load = f"load before: {load_before}; after: {machine_load()}"
    singles = res["singles"]
    wall = Figure("1-record edit", "s wall", [s["s"] for s in singles])
    outside = Figure("pages written outside those citing the record", "pages",
                     [len(s["written_outside_citing"]) for s in singles])
    rendered = Figure("pages re-rendered", "pages", [s["rendered"] for s in singles])
    citing = Figure("pages citing the record", "pages", [s["citing"] for s in singles])
    label = f"{n // 1000}k" if n % 1000 == 0 else f"{n:,}"
    kinds = ", ".join(s["kind"] for s in singles)
    return [
        TargetResult(
            target=f"6a. 1-record edit at {label} records: wall time", figures=[wall],
            ratio=wall.median / EDIT_LIMIT_S, limit=1.0, direction="<=",
            ratio_label=f"median edit ÷ {EDIT_LIMIT_S:g} s",
            notes=[f"records edited: {kinds}", load]),
        TargetResult(
            target=f"6b. 1-record edit at {label} records: only the pages citing it",
            figures=[outside, rendered, citing], ratio=float(max(outside.rounds)), limit=0,
            direction="<=", ratio_label="most pages written outside the citing set",
            notes=["re-rendered ≤ citing in every edit: "
                   + ("yes" if all(s["rendered_le_citing"] for s in singles) else "NO"),
                   load]),
        TargetResult(
            target=f"6c. incremental == clean rebuild at {label} records",
            figures=[Figure("differing files", "files", [float(res["n_diffs"])])],
            ratio=float(res["n_diffs"]), limit=0, direction="<=",
            ratio_label="files that differ (log.md and .folio/ excepted)",
            notes=[f"after 3 single edits, a 1 % edit ({res['pct']['edited']} records) and a "
                   "no-change recompile", *res["diffs"][:5], load]),
    ]


def _signing(root, n: int, rounds: int, quick: bool) -> TargetResult:
    corpus = corpus_for(root, n)
    key, wiki = root / "bench-key.pem", root / f"wiki-sign-{n}"
    compile_child(corpus, wiki, key, "off")  # warm-up: imports and bytecode, not counted
    on: list[float] = []
    off: list[float] = []
    load_before = machine_load()
    for i in range(rounds):
        for signing in (("off", "local") if i % 2 == 0 else ("local", "off")):
            settle(quick)
            r = compile_child(corpus, wiki, key, signing)
            (on if signing == "local" else off).append(r["cpu"])
    shutil.rmtree(wiki, ignore_errors=True)
    fig_on = Figure("clean compile, signed", "CPU s", on)
    fig_off = Figure("clean compile, unsigned", "CPU s", off)
    ratio = (fig_on.median - fig_off.median) / fig_off.median
    pairs = [(a - b) / b for a, b in zip(on, off)]
    return TargetResult(
        target=f"6d. signing overhead, clean compile of {n:,} records", figures=[fig_on, fig_off],
        ratio=ratio, limit=SIGN_LIMIT, direction="<=",
        ratio_label="(signed − unsigned) ÷ unsigned CPU",
        notes=[f"per pair: {', '.join(f'{100 * p:+.1f} %' for p in pairs)} "
               f"(median {100 * statistics.median(pairs):+.1f} %)",
               f"load before: {load_before}; after: {machine_load()}"])


def run(args) -> list[TargetResult]:
    root, temporary = workdir_of(args, "keep")
    try:
        edit_n, sign_n = (QUICK_EDIT_N, QUICK_SIGN_N) if args.quick else (EDIT_N, SIGN_N)
        return [*_edits(root, edit_n), _signing(root, sign_n, args.rounds, args.quick)]
    finally:
        if temporary:
            shutil.rmtree(root, ignore_errors=True)

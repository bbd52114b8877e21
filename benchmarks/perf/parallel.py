#!/usr/bin/env python3
"""Target 2: a clean compile's wall-clock records/s with one worker per core ≥ 1.6 × one process.

For each size (10k and 100k records; ``--quick``: 2k, which only checks the harness: below
``parallel_min_items`` records a phase runs in one process anyway) the corpus is generated once
(``compile_bench.generate``), then each round compiles it twice from nothing, each compile in a
child process of its own: once with ``workers=0`` (one per core) and once with ``workers=1``,
the order alternating between rounds. The ratio is of the medians of records/s. On a machine
shared with other work, quote the load printed with the table: the workers compete with it for
the cores, the single process much less.

    python benchmarks/perf/parallel.py --n 10000 --rounds 3
    python benchmarks/perf_bench.py --targets 2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from perf.children import alternated, child_path, run_child  # noqa: E402
from perf.report import Figure, TargetResult, machine_load  # noqa: E402

LIMIT = 1.6
SEED = 20261120
TODAY = "2026-11-20"
SCRIPT = Path(__file__).resolve()


def child_compile(corpus: Path, wiki: Path, workers: int, settle_s: float) -> dict[str, Any]:
    """One clean compile with ``workers`` processes (0: one per core): wall seconds, CPU."""
    from compile_bench import cpu_seconds, settle_disk

    from compiler.build import compile_wiki
    from compiler.settings import FolioSettings

    shutil.rmtree(wiki, ignore_errors=True)
    if settle_s > 0:
        settle_disk(settle_s)
    pools: list[tuple[float, list[float]]] = []
    _watch_pools(pools)
    c0, t0, p0 = cpu_seconds(), time.perf_counter(), time.process_time()
    report = compile_wiki(corpus, wiki, FolioSettings(workers=workers), full=True, today=TODAY)
    wall = time.perf_counter() - t0
    parent = time.process_time() - p0
    out = {"wall": wall, "cpu": cpu_seconds() - c0, "records": report.records_seen,
           "workers": workers, "load": os.getloadavg()[0],
           "free_cores_s": _free_cores_wall(parent, pools, os.cpu_count() or 1)}
    shutil.rmtree(wiki, ignore_errors=True)
    return out


def _watch_pools(pools: list[tuple[float, list[float]]]) -> None:
    """Note, as each of the compile's worker pools closes, the CPU seconds the parent spent
    while it was open and each worker's (from /proc: a worker's own accounting)."""
    import multiprocessing.pool as mpp

    tick = os.sysconf("SC_CLK_TCK")
    opened, closed = mpp.Pool.__init__, mpp.Pool.__exit__

    def cpu_of(pid: int) -> float:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick

    def init(self: Any, *a: Any, **k: Any) -> None:
        self._bench_cpu0 = time.process_time()
        opened(self, *a, **k)

    def exit_(self: Any, *a: Any) -> Any:
        try:
            pools.append((time.process_time() - self._bench_cpu0,
                          [cpu_of(p.pid) for p in self._pool]))
        except OSError:  # no /proc: the figure is left out
            pass
        return closed(self, *a)

    mpp.Pool.__init__, mpp.Pool.__exit__ = init, exit_  # type: ignore[method-assign]


def _free_cores_wall(parent: float, pools: list[tuple[float, list[float]]], cores: int
                     ) -> float:
    """The compile's wall time on ``cores`` cores nobody else uses, from its processes' CPU:
    the parent's CPU outside the pools, plus for each pool the larger of its CPU shared over
    the cores and its busiest process. A loaded machine moves the wall-clock ratio with what
    else runs; this figure moves only with the compile's own CPU (which load inflates too)."""
    total = parent - sum(p for p, _ in pools)
    for p, workers in pools:
        total += max((p + sum(workers)) / cores, p, *workers)
    return total


def _measure(n: int, rounds: int, workdir: Path, settle: float) -> TargetResult:
    from compile_bench import generate

    root = workdir / f"parallel-{n}"
    shutil.rmtree(root, ignore_errors=True)
    generate(n, root / "corpus", SEED)
    par: list[dict] = []
    one: list[dict] = []
    for i, order in enumerate(alternated(rounds, "cores", "one")):
        for which in order:
            print(f"  target 2: N={n:,} round {i + 1}/{rounds}: {which}", file=sys.stderr,
                  flush=True)
            res = run_child(SCRIPT, ["--_compile", str(root / "corpus"), str(root / "wiki"),
                                     "0" if which == "cores" else "1", str(settle)])
            (par if which == "cores" else one).append(res)
    shutil.rmtree(root, ignore_errors=True)
    fig_par = Figure(f"one worker per core ({os.cpu_count()}): records/s", "rec/s",
                     [r["records"] / r["wall"] for r in par])
    fig_one = Figure("one process: records/s", "rec/s", [r["records"] / r["wall"] for r in one])
    cpu_par = Figure("one worker per core: CPU per record", "ms",
                     [1000 * r["cpu"] / r["records"] for r in par])
    cpu_one = Figure("one process: CPU per record", "ms",
                     [1000 * r["cpu"] / r["records"] for r in one])
    loads = [r["load"] for r in par + one]
    free = sorted(r["free_cores_s"] for r in par)
    one_cpu = sorted(r["cpu"] for r in one)
    free_ratio = one_cpu[len(one_cpu) // 2] / free[len(free) // 2]
    return TargetResult(
        target=f"2. parallelism, clean compile of {n:,} records: records/s, workers vs one process",
        figures=[fig_par, fig_one, cpu_par, cpu_one], ratio=fig_par.median / fig_one.median,
        limit=LIMIT, direction=">=", ratio_label="records/s per core ÷ records/s in one process",
        notes=[f"1-minute load at the start of each compile: {min(loads):.2f}–{max(loads):.2f} "
               f"on {os.cpu_count()} cores (other work takes cores from the workers)",
               f"on {os.cpu_count()} free cores, from the processes' own CPU (one process's "
               f"CPU s ÷ the workers' critical path, medians): {free_ratio:.2f} "
               f"(critical path {', '.join(f'{x:.1f}' for x in free)} s; one process "
               f"{', '.join(f'{x:.1f}' for x in one_cpu)} CPU s)",
               f"machine: {machine_load()} (after)"])


def run(args: argparse.Namespace) -> list[TargetResult]:
    quick = getattr(args, "quick", False)
    rounds = max(3, getattr(args, "rounds", 3))
    sizes = [2_000] if quick else list(getattr(args, "parallel_sizes", None) or [10_000, 100_000])
    settle = 0.0 if quick else 2.0
    tmp = None
    workdir = getattr(args, "workdir", None)
    if workdir is None:
        tmp = Path(tempfile.mkdtemp(prefix="folio-perf-parallel-"))
        workdir = tmp
    try:
        return [_measure(n, rounds, workdir, settle) for n in sizes]
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--n", dest="parallel_sizes", type=int, nargs="+", default=None,
                    help="corpus sizes (default 10,000 and 100,000)")
    ap.add_argument("--_compile", nargs=4, metavar=("CORPUS", "WIKI", "WORKERS", "SETTLE"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args._compile:
        child_path()
        corpus, wiki, workers, settle = args._compile
        print("RESULT " + json.dumps(child_compile(Path(corpus), Path(wiki), int(workers),
                                                   float(settle))))
        return
    from perf.report import format_result

    print(f"before: {machine_load()}\n")
    for result in run(args):
        print(format_result(result), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Issue 24's throughput targets as ratios measured side by side in one run.

    python benchmarks/perf_bench.py                    # every target, default sizes
    python benchmarks/perf_bench.py --targets 1 3 --rounds 3
    python benchmarks/perf_bench.py --quick            # small sizes: checks the harness, not a result
    python benchmarks/perf_bench.py --targets 1 --sizes 10000   # target 1 at 10k only

Each target prints one table: the figures of every round, their medians, the ratio, the limit and
"met" or "missed", with the machine's load before and after. Target modules live in
``benchmarks/perf/``; each exposes ``run(args) -> list[TargetResult]``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from perf.report import format_result, machine_load  # noqa: E402

# target number -> module in benchmarks/perf/ (a module may answer several targets)
MODULES = {1: "clean", 2: "parallel", 3: "incremental", 4: "events", 5: "scale", 6: "keep"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--targets", type=int, nargs="+", default=sorted(MODULES))
    ap.add_argument("--rounds", type=int, default=3, help="rounds per figure (median taken)")
    ap.add_argument("--quick", action="store_true", help="small sizes, to check the harness")
    ap.add_argument("--workdir", type=Path, default=None, help="default: a temporary folder")
    ap.add_argument("--sizes", type=int, nargs="+", default=None,
                    help="corpus sizes of target 1 (default 10000 100000)")
    args = ap.parse_args()
    print(f"# Folio performance targets (issue 24)\n\nbefore: {machine_load()}\n")
    missing = []
    for number in args.targets:
        try:
            module = importlib.import_module(f"perf.{MODULES[number]}")
        except ModuleNotFoundError as exc:
            missing.append(f"target {number}: {exc}")
            continue
        for result in module.run(args):
            print(format_result(result), flush=True)
    print(f"after: {machine_load()}")
    for line in missing:
        print(f"not measured: {line}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Generate the second example company (Corvane Medical) for quality measurement.

    python3 benchmarks/company_gen.py --seed 7 --out /tmp/co2

Writes the five systems' exports plus markdown, sources.yaml, authority.yaml, directory.yaml,
schema.yaml, truth.yaml (ground truth) and questions.yaml (question set; format in
benchmarks/companygen/questions.py). Deterministic by seed. Then:

    python3 benchmarks/quality_bench.py --corpus /tmp/co2
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from companygen import DEFAULT_SEED, generate  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    print(json.dumps(generate(args.seed, args.out), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Running one measurement in a child process of its own, and reading its figures back.

A child starts with no warm caches and no memory of the previous measurement (the pool's
workers, the allocator's arenas, SQLite's page cache), so every round of every figure starts
alike. A child prints one ``RESULT {json}`` line; everything else it prints is passed through.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def run_child(script: Path, args: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, str(script), *args]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, cwd=REPO)
    result = None
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT "):])
        elif line.strip():
            print(f"    {line}", file=sys.stderr, flush=True)
    if proc.returncode != 0 or result is None:
        raise SystemExit(f"{script.name} {' '.join(args)} failed (exit {proc.returncode})")
    return result


def child_path() -> None:
    """Make ``compiler``, ``connectors`` and ``benchmarks/`` importable in a child."""
    for p in (REPO, REPO / "benchmarks"):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))


def alternated(rounds: int, first: str, second: str) -> list[tuple[str, str]]:
    """The two measurements of each round, in alternating order (A B, B A, A B …), so that a
    machine that slows down or speeds up during the run does not favour either."""
    return [(first, second) if i % 2 == 0 else (second, first) for i in range(rounds)]

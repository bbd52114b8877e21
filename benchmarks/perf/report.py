"""One table per target: the figures measured side by side, the ratio, the limit, met or missed.

Every target is a ratio of two figures taken in the same run (medians of several rounds, order
alternated), because absolute rates on a shared machine are noise. Each target module returns
``TargetResult`` objects; ``perf_bench`` prints them with the machine's load.
"""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass, field
from typing import Literal


@dataclass
class Figure:
    """One measured quantity: its per-round values and the median the ratio uses."""

    name: str
    unit: str
    rounds: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.rounds) if self.rounds else float("nan")


@dataclass
class TargetResult:
    target: str  # e.g. "1. clean compile, 10k: CPU per record vs the floor"
    figures: list[Figure]
    ratio: float
    limit: float
    direction: Literal["<=", ">="]
    ratio_label: str  # what the ratio divides, e.g. "Folio CPU/record ÷ floor CPU/record"
    notes: list[str] = field(default_factory=list)

    @property
    def met(self) -> bool:
        if self.ratio != self.ratio:  # NaN: nothing was measured
            return False
        return self.ratio <= self.limit if self.direction == "<=" else self.ratio >= self.limit


def machine_load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} / {five:.2f} / {fifteen:.2f} on {os.cpu_count()} cores"


def format_result(result: TargetResult) -> str:
    lines = [f"## {result.target}", "", "| figure | rounds | median |", "|---|---|---|"]
    for fig in result.figures:
        rounds = ", ".join(f"{v:.4g}" for v in fig.rounds)
        lines.append(f"| {fig.name} ({fig.unit}) | {rounds} | {fig.median:.4g} |")
    verdict = "met" if result.met else "missed"
    lines += ["", f"{result.ratio_label} = **{result.ratio:.2f}** (target {result.direction} "
              f"{result.limit:g}): **{verdict}**"]
    lines += [f"- {note}" for note in result.notes]
    return "\n".join(lines) + "\n"

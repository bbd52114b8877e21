"""benchmarks/perf_bench.py --quick prints one table per measured target of issue 24 (1, 5, 6):
the figures, the ratio, its limit, met or missed, and the machine's load. The shape is
checked here, never the figures: speed lives in the benchmark itself."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# the tables --quick prints for targets 1, 5 and 6 (headings up to the first comma or colon)
EXPECTED = ["1. clean compile", "5a. scale", "5b. scale", "5c. scale",
            "6a. 1-record edit", "6b. 1-record edit", "6c. incremental == clean rebuild",
            "6d. signing overhead"]
_VERDICT = re.compile(r"= \*\*(?:-?\d+(?:\.\d+)?|nan)\*\* \(target (?:<=|>=) [\d.]+\): "
                      r"\*\*(?:met|missed)\*\*$")
_ROW = re.compile(r"^\| .+ \(.+\) \| [^|]+ \| [^|]+ \|$")
_LOAD = re.compile(r"load average [\d.]+ / [\d.]+ / [\d.]+ on \d+ cores")


def _tables(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:]
            out[current] = []
        elif current is not None:
            out[current].append(line)
    return out


def test_quick_run_prints_one_table_per_target(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "perf_bench.py"), "--quick", "--rounds", "1",
         "--targets", "1", "5", "6", "--workdir", str(tmp_path)],
        cwd=REPO, capture_output=True, text=True, timeout=1800,
        env={**os.environ, "PYTHONPATH": str(REPO), "FOLIO_KEY_PATH": str(tmp_path / "k.pem")})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "not measured" not in out
    before, after = out.split("\n## ", 1)[0], out.rsplit("\n", 3)[-3:]
    assert _LOAD.search(before) and any(_LOAD.search(line) for line in after)
    tables = _tables(out)
    for prefix in EXPECTED:
        found = [head for head in tables if head.startswith(prefix)]
        assert len(found) == 1, (prefix, list(tables))
    assert len(tables) == len(EXPECTED), list(tables)
    for head, lines in tables.items():
        body = [line for line in lines if line.strip()]
        assert body[:2] == ["| figure | rounds | median |", "|---|---|---|"], (head, body)
        rows = [line for line in body[2:] if line.startswith("|")]
        assert rows and all(_ROW.match(row) for row in rows), (head, rows)
        verdicts = [line for line in body if _VERDICT.search(line)]
        assert len(verdicts) == 1, (head, body)
        assert body.index(verdicts[0]) == 2 + len(rows), (head, body)
        # every figure a ratio is taken from carries the load it was measured under
        assert any(_LOAD.search(line) for line in body), (head, body)

"""Target 1: a clean compile's CPU per record against the floor, at 10k and 100k records.

The floor is ``benchmarks/floor_bench.py``'s, unchanged (the formats' cost with the standard
library: parse, hash, SQLite + FTS5 rows, sidecar and statement JSON, one signature and three
files per page), sized by a compile of the same corpus. Each round runs a clean compile (signing
with a local key, the default worker count) and the floor, each in a fresh interpreter, in
alternating order (Folio first in even rounds, the floor first in odd ones), the disk let
settle before each. CPU is user + system over every process (the compile's workers included):
on a machine shared with other work, wall time is noise and CPU time is not.

The helpers here (``corpus_for``, ``compile_child``, ``floor_child``, ``settle``) are shared by
``scale.py`` and ``keep.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from perf.report import Figure, TargetResult, machine_load  # noqa: E402

QUICK_N = 400
SIZES = (10_000, 100_000)
LIMIT = 1.5


def workdir_of(args, name: str) -> tuple[Path, bool]:
    """(folder for this target's corpora and wikis, whether to delete it afterwards)."""
    if args.workdir is not None:
        root = Path(args.workdir) / name
        root.mkdir(parents=True, exist_ok=True)
        return root, False
    return Path(tempfile.mkdtemp(prefix=f"folio-perf-{name}-")), True


def corpus_for(root: Path, n: int) -> Path:
    """The synthetic corpus of ``compile_bench`` (same seed: the same corpus every run),
    generated once in a child process so its memory is not the measurement's."""
    corpus = root / f"corpus-{n}"
    if not (corpus / "sources.yaml").exists():
        code = ("import sys; from pathlib import Path; from compile_bench import SEED, generate; "
                f"generate({n}, Path({str(corpus)!r}), SEED)")
        _python(code)
    return corpus


def settle(quick: bool) -> None:
    """Let the previous run's deletions be written back first (compile_bench.settle_disk)."""
    from compile_bench import settle_disk

    settle_disk(0.5 if quick else 3.0)


def _python(code: str, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": f"{REPO}:{REPO / 'benchmarks'}",
                               **(env or {})})
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark child failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc.stdout


_COMPILE = """
import json, os, sys, time
from pathlib import Path
from compile_bench import RssSampler, TODAY
import compile_bench
from compiler.build import compile_wiki
from compiler.settings import FolioSettings
sampler = compile_bench._SAMPLER = RssSampler() if {rss} else None
cpu = lambda t: t.user + t.system + t.children_user + t.children_system
t0 = os.times(); c = cpu(t0); u0 = t0.user + t0.children_user; t = time.perf_counter()
settings = FolioSettings(workers={workers}) if {workers} else FolioSettings()
rep = compile_wiki(Path({corpus!r}), Path({wiki!r}), settings, full=True, today=TODAY)
t1 = os.times()
out = dict(wall=time.perf_counter() - t, cpu=cpu(t1) - c, records=rep.records_seen,
           pages=rep.pages_total, claims=rep.claims_total, errors=len(rep.errors),
           user=t1.user + t1.children_user - u0)
if sampler is not None:
    out["rss_mib"] = compile_bench.rss_mib()
print("RESULT " + json.dumps(out))
"""


def compile_child(corpus: Path, wiki: Path, key: Path, signing: str = "local", workers: int = 0,
                  rss: bool = False) -> dict:
    """One clean compile in a fresh interpreter: wall and CPU seconds (all processes), counts,
    and with ``rss`` the peak resident memory of the compile and its workers (MiB)."""
    shutil.rmtree(wiki, ignore_errors=True)
    code = _COMPILE.format(corpus=str(corpus), wiki=str(wiki), workers=workers, rss=rss)
    out = _python(code, {"FOLIO_SIGNING": signing, "FOLIO_KEY_PATH": str(key)})
    return json.loads(out.split("RESULT ", 1)[1])


_FLOOR = """
import json, shutil
from pathlib import Path
from floor_bench import floor
scratch = Path({scratch!r})
shutil.rmtree(scratch, ignore_errors=True); scratch.mkdir(parents=True)
parts, records, pages, claims = floor(Path({corpus!r}), Path({wiki!r}), scratch)
print("RESULT " + json.dumps(dict(parts=parts, cpu=sum(parts.values()), records=records)))
"""


def floor_child(corpus: Path, wiki: Path, scratch: Path) -> dict:
    """``floor_bench.floor`` in a fresh interpreter, sized by the compiled ``wiki``."""
    out = _python(_FLOOR.format(corpus=str(corpus), wiki=str(wiki), scratch=str(scratch)))
    shutil.rmtree(scratch, ignore_errors=True)
    return json.loads(out.split("RESULT ", 1)[1])


def measure(root: Path, n: int, rounds: int, quick: bool) -> TargetResult:
    corpus = corpus_for(root, n)
    key = root / "bench-key.pem"
    sized, wiki, scratch = root / f"wiki-floor-{n}", root / f"wiki-{n}", root / f"scratch-{n}"
    # the floor's sizes come from this compile; it also warms imports and bytecode
    first = compile_child(corpus, sized, key)
    folio: list[float] = []
    floor: list[float] = []
    folio_user: list[float] = []
    parts: list[dict] = []
    load_before = machine_load()
    for i in range(rounds):
        for which in (("folio", "floor") if i % 2 == 0 else ("floor", "folio")):
            settle(quick)
            if which == "folio":
                r = compile_child(corpus, wiki, key)
                folio.append(1e3 * r["cpu"] / r["records"])
                folio_user.append(1e3 * r["user"] / r["records"])
            else:
                f = floor_child(corpus, sized, scratch)
                floor.append(1e3 * f["cpu"] / f["records"])
                parts.append(f["parts"])
    shutil.rmtree(wiki, ignore_errors=True)
    shutil.rmtree(sized, ignore_errors=True)
    fig_folio = Figure("Folio clean compile", "CPU ms/record", folio)
    fig_floor = Figure("floor", "CPU ms/record", floor)
    ratio = fig_folio.median / fig_floor.median
    median_parts = {k: sorted(p[k] for p in parts)[len(parts) // 2] for k in parts[0]}
    user_med = sorted(folio_user)[len(folio_user) // 2]
    files_med = sorted(p["create 3 files per page"] for p in parts)[len(parts) // 2]
    notes = [f"{first['records']:,} records, {first['pages']:,} pages, {first['claims']:,} "
             "claims; signing with a local key; default worker count",
             f"Folio's user CPU alone (median): {user_med:.3f} ms/record; the floor's file "
             f"creation (kernel time, the part a loaded disk moves most): "
             f"{1e3 * files_med / n:.3f} ms/record in rounds "
             + ", ".join(f"{1e3 * p['create 3 files per page'] / n:.3f}" for p in parts),
             "floor parts (CPU ms/record, median): " + ", ".join(
                 f"{k} {1e3 * v / n:.3f}" for k, v in median_parts.items()),
             f"load before: {load_before}; after: {machine_load()}"]
    label = "10k" if n == 10_000 else "100k" if n == 100_000 else f"{n:,}"
    return TargetResult(target=f"1. clean compile, {label} records: CPU per record vs the floor",
                        figures=[fig_folio, fig_floor], ratio=ratio, limit=LIMIT,
                        direction="<=", ratio_label="Folio CPU/record ÷ floor CPU/record",
                        notes=notes)


def run(args) -> list[TargetResult]:
    root, temporary = workdir_of(args, "clean")
    try:
        sizes = (QUICK_N,) if args.quick else (getattr(args, "sizes", None) or SIZES)
        return [measure(root, n, args.rounds, args.quick) for n in sizes]
    finally:
        if temporary:
            shutil.rmtree(root, ignore_errors=True)

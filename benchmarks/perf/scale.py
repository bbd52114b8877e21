"""Target 5: a 1M-record clean compile on this machine.

* peak RSS of the compile (parent + workers, sampled every 20 ms; shared pages counted in each
  process, so the figure errs high) < 4 GiB; the peak PSS sum (shared pages split between the
  processes: the memory really held) is reported beside it;
* CPU per record within 1.2 × of the 10k figure measured in the same run (medians of
  ``--rounds`` 10k compiles, the 1M compile once: about an hour of CPU);
* a 1-record edit at 1M < 1 s wall (median of three edits, each of another record).

Everything runs in child processes: the 10k compiles, then one child that compiles 1M records
clean and then makes the three edits. The 1M compile notes each phase's wall and CPU time and
RSS and PSS peaks (in the table's notes; with ``FOLIO_PERF_PHASE_LOG=<file>`` also appended
to that file as each phase ends, to follow a run of hours). ``--quick`` runs 400 against 2,000
records instead (it checks the harness, not a result)."""

from __future__ import annotations

import json
import shutil

from perf.clean import _python, compile_child, corpus_for, settle, workdir_of
from perf.report import Figure, TargetResult, machine_load

BIG_N, SMALL_N = 1_000_000, 10_000
QUICK_BIG_N, QUICK_SMALL_N = 2_000, 400
RSS_LIMIT_MIB = 4096.0
CPU_LIMIT = 1.2
EDIT_LIMIT_S = 1.0

_BIG = """
import json, os, random, sys, time
from pathlib import Path
import compile_bench
from compile_bench import RssSampler, SEED, TODAY, edit_records
from compiler.build import Progress, compile_wiki
from perf.scale import PssSampler, PhaseLog
root = Path({root!r}); corpus, wiki = root / "corpus", root / "wiki"
sampler = compile_bench._SAMPLER = RssSampler()
pss = PssSampler()
phases = PhaseLog(sampler, pss)
cpu = lambda t: t.user + t.system + t.children_user + t.children_system
c = cpu(os.times()); t = time.perf_counter()
rep = compile_wiki(corpus, wiki, full=True, today=TODAY, progress=phases)
phases.phase("end", 0)
out = dict(wall=time.perf_counter() - t, cpu=cpu(os.times()) - c - pss.cpu,
           records=rep.records_seen, pages=rep.pages_total, claims=rep.claims_total,
           sampler_cpu=pss.cpu, rss_mib=max(r["rss_mib"] for r in phases.rows),
           pss_mib=max(r["pss_mib"] for r in phases.rows), phases=phases.rows)
print("CLEAN " + json.dumps(out), file=sys.stderr, flush=True)
index = json.loads((root / "records.json").read_text())
rng = random.Random(SEED)
edits = []
for rev, e in enumerate(rng.sample(index, 3), 1):
    edit_records(corpus, [e], rev)
    t = time.perf_counter()
    r = compile_wiki(corpus, wiki, today=TODAY)
    edits.append(dict(s=time.perf_counter() - t, kind=e["system"] + "/" + e["kind"],
                      rendered=r.pages_rendered, written=r.pages_written))
out["edits"] = edits
print("RESULT " + json.dumps(out))
"""


class PssSampler:
    """Peak proportional set size of this process plus its workers (MiB), every 5 s: a page
    shared by the parent and its forked workers counts once in all, split between them, so
    the sum is the memory the compile really holds (the RSS sum counts shared pages in each
    process). Read from /proc/<pid>/smaps_rollup (0 where the kernel has none), which costs
    ~15 ms of CPU per GiB mapped: ``cpu`` is what this thread spent, for the caller to take
    out of the compile's CPU."""

    def __init__(self, every: float = 5.0) -> None:
        import threading

        import psutil

        self._me = psutil.Process()
        self.peak = 0.0
        self.cpu = 0.0
        self._every = every
        threading.Thread(target=self._run, daemon=True).start()

    def sample(self) -> float:
        import psutil

        total = 0
        for proc in [self._me, *self._me.children(recursive=True)]:
            try:
                total += getattr(proc.memory_full_info(), "pss", 0)
            except psutil.Error:
                pass  # a worker that just exited
        mib = total / 2**20
        self.peak = max(self.peak, mib)
        return mib

    def _run(self) -> None:
        import time

        while True:
            self.sample()
            self.cpu = time.thread_time()
            time.sleep(self._every)


class PhaseLog:
    """A compile progress sink that notes, per phase, its wall seconds, the process's CPU
    seconds and the peak RSS sum (workers included) and PSS sum seen while it ran, printed
    to stderr as each phase ends (a long run's log shows where it is)."""

    def __init__(self, rss, pss) -> None:
        import os
        import time

        self._rss, self._pss, self._os, self._time = rss, pss, os, time
        self.rows: list[dict] = []
        self._open: dict | None = None

    def _cpu(self) -> float:
        t = self._os.times()
        return t.user + t.system + t.children_user + t.children_system

    def phase(self, name: str, total: int) -> None:
        import sys

        now, cpu = self._time.perf_counter(), self._cpu()
        if self._open is not None:
            row = self._open
            row.update(s=now - row.pop("t0"), cpu=cpu - row.pop("c0"),
                       rss_mib=max(self._rss.peak, self._rss.sample()), pss_mib=self._pss.peak)
            self.rows.append(row)
            print(f"phase {row}", file=sys.stderr, flush=True)
            if self._os.environ.get("FOLIO_PERF_PHASE_LOG"):  # to follow a long run
                with open(self._os.environ["FOLIO_PERF_PHASE_LOG"], "a") as fh:
                    print(f"{self._time.strftime('%H:%M:%S')} {row}", file=fh)
        self._rss.peak = self._pss.peak = 0.0
        self._open = dict(phase=name, items=total, t0=now, c0=cpu) if name != "end" else None

    def advance(self, n: int = 1) -> None: ...


def run(args) -> list[TargetResult]:
    from compile_bench import SEED, run_child

    root, temporary = workdir_of(args, "scale")
    big_n, small_n = (QUICK_BIG_N, QUICK_SMALL_N) if args.quick else (BIG_N, SMALL_N)
    try:
        load_before = machine_load()
        corpus = corpus_for(root, small_n)
        key = root / "bench-key.pem"
        small: list[float] = []
        small_rss: list[float] = []
        for _ in range(args.rounds):
            settle(args.quick)
            r = compile_child(corpus, root / f"wiki-{small_n}", key, rss=True)
            small.append(1e3 * r["cpu"] / r["records"])
            small_rss.append(r["rss_mib"])
        shutil.rmtree(root / f"wiki-{small_n}", ignore_errors=True)
        sub = root / f"n{big_n}"
        sub.mkdir(parents=True, exist_ok=True)
        run_child(["--_generate", str(big_n), str(sub), "--seed", str(SEED)])
        settle(args.quick)
        big = json.loads(_python(_BIG.format(root=str(sub)),
                                 {"FOLIO_KEY_PATH": str(key)}).split("RESULT ", 1)[1])
        shutil.rmtree(sub, ignore_errors=True)
    finally:
        if temporary:
            shutil.rmtree(root, ignore_errors=True)
    load = f"load before: {load_before}; after: {machine_load()}"
    big_label = f"{big_n // 1000}k" if big_n < 1_000_000 else f"{big_n // 1_000_000}M"
    fig_small = Figure(f"clean compile, {small_n:,} records", "CPU ms/record", small)
    fig_big = Figure(f"clean compile, {big_n:,} records", "CPU ms/record",
                     [1e3 * big["cpu"] / big["records"]])
    rss = Figure(f"peak RSS, {big_n:,} records", "MiB", [big["rss_mib"]])
    pss = Figure(f"peak PSS, {big_n:,} records", "MiB", [big["pss_mib"]])
    phase_note = "phases at " + big_label + ": " + "; ".join(
        f"{r['phase']} {r['s']:.0f} s wall, {r['cpu']:.0f} s CPU, RSS sum {r['rss_mib']:.0f} MiB, "
        f"PSS sum {r['pss_mib']:.0f} MiB" for r in big["phases"])
    edits = Figure(f"1-record edit at {big_n:,} records", "s wall", [e["s"] for e in big["edits"]])
    counts = (f"{big['records']:,} records, {big['pages']:,} pages, {big['claims']:,} claims; "
              f"clean compile {big['wall']:.0f} s wall, {big['cpu']:.0f} s CPU (the PSS "
              f"sampler's {big['sampler_cpu']:.1f} s taken out)")
    return [
        TargetResult(target=f"5a. scale: peak RSS of a {big_label}-record clean compile",
                     figures=[rss, pss, Figure(f"peak RSS, {small_n:,} records", "MiB",
                                               small_rss)],
                     ratio=rss.median / RSS_LIMIT_MIB, limit=1.0, direction="<=",
                     ratio_label="peak RSS (sum over processes) ÷ 4 GiB",
                     notes=[counts, "RSS sums count pages the parent shares with its forked "
                            "workers once per process; PSS splits them (the real total)",
                            phase_note, load]),
        TargetResult(target=f"5b. scale: CPU per record at {big_label} vs {small_n // 1000}k",
                     figures=[fig_big, fig_small], ratio=fig_big.median / fig_small.median,
                     limit=CPU_LIMIT, direction="<=",
                     ratio_label=f"{big_label} CPU/record ÷ {small_n // 1000}k CPU/record",
                     notes=[counts, load]),
        TargetResult(target=f"5c. scale: 1-record edit at {big_label} records", figures=[edits],
                     ratio=edits.median / EDIT_LIMIT_S, limit=1.0, direction="<=",
                     ratio_label=f"median edit ÷ {EDIT_LIMIT_S:g} s",
                     notes=[", ".join(f"{e['kind']}: {e['rendered']} rendered, {e['written']} "
                                      "written" for e in big["edits"]), load]),
    ]

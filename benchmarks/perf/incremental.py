#!/usr/bin/env python3
"""Target 3: incremental work per changed record ≤ 2 × a clean compile's CPU per record.

Two figures, each beside a clean compile of the same corpus measured in the same round:

(a) a 1 % edit: ``compile_bench``'s corpus, 1 % of its records edited (one sentence each, spread
    over the files, as ``compile_bench`` does), compiled incrementally: CPU of that compile per
    edited record;
(b) a 10k-event burst through the site consumer on the in-process bus (the embedded default;
    the real brokers are target 4's): ``compile_bench``'s records as a site's snapshot, then one
    edit event per record, published at once; CPU of the consumer draining them (decoding,
    writing the record files, compiling, flushing) per event.

CPU is user + system of the child and of its worker processes: steadier than wall time on a
shared machine. Every round runs in a fresh child; within a round the clean compile and the
incremental one alternate in order (clean first in odd rounds, the incremental first in even
ones: then the clean compile is of the edited corpus).

    python benchmarks/perf/incremental.py --n 10000 --rounds 3     # on its own
    python benchmarks/perf_bench.py --targets 3                     # with the others
"""

from __future__ import annotations

import argparse
import json
import random
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

LIMIT = 2.0
SEED = 20261120
TODAY = "2026-11-20"
SCRIPT = Path(__file__).resolve()


# -- the children -------------------------------------------------------------------------------
SETTLE_S = 1.0  # seconds the disk is let settle before each measured compile (--quick: less)


def _settle() -> None:
    from compile_bench import settle_disk

    if SETTLE_S > 0:
        settle_disk(SETTLE_S)


def _past_racy_window() -> None:
    """Let files written just now age past the scan's racy window (compiler/corpus_scan.py
    ``_RACY_NS``): a file modified within it of a compile's scan is hashed again by the next
    compile, once, whether or not it changed. A corpus generated and compiled within 2 s would
    charge re-reading and hashing every one of its files (~1,070 at 10k) to the incremental
    compile that follows: not work per changed record. Not measured."""
    from compiler.corpus_scan import _RACY_NS

    time.sleep(_RACY_NS / 1e9 + 0.2)


def _clean(corpus: Path, wiki: Path) -> tuple[float, int]:
    """CPU seconds of a clean compile of ``corpus`` into a new ``wiki``, and its records."""
    from compile_bench import cpu_seconds

    from compiler.build import compile_wiki

    shutil.rmtree(wiki, ignore_errors=True)
    _settle()
    c0 = cpu_seconds()
    report = compile_wiki(corpus, wiki, full=True, today=TODAY)
    return cpu_seconds() - c0, report.records_seen


def child_edit(n: int, root: Path, order: str) -> dict[str, Any]:
    """(a) one round: clean compile, 1 % edit, incremental compile (order: which is measured
    first)."""
    from compile_bench import cpu_seconds, edit_records, generate

    from compiler.build import compile_wiki

    corpus, wiki = root / "corpus", root / "wiki"
    index = generate(n, corpus, SEED)
    _past_racy_window()
    out: dict[str, Any] = {"order": order}
    if order == "clean":
        out["clean_cpu"], out["records"] = _clean(corpus, wiki)
    else:  # the wiki to edit, unmeasured; the clean compile follows the incremental one
        compile_wiki(corpus, wiki, full=True, today=TODAY)
    picks = random.Random(SEED + n).sample(index, max(1, n // 100))
    edit_records(corpus, picks, 1)
    _settle()
    c0, t0 = cpu_seconds(), time.perf_counter()
    report = compile_wiki(corpus, wiki, today=TODAY)
    out["incr_cpu"], out["incr_wall"] = cpu_seconds() - c0, time.perf_counter() - t0
    out["edited"], out["extracted"] = len(picks), report.records_extracted
    out["rendered"], out["written"] = report.pages_rendered, report.pages_written
    out["files_changed"] = report.files_changed
    if order != "clean":
        out["clean_cpu"], out["records"] = _clean(corpus, root / "wiki-clean")
    return out


def child_burst(n: int, events: int, root: Path, order: str) -> dict[str, Any]:
    """(b) one round: a site snapshot through the consumer, then a burst of edit events
    (distinct keys), and a clean compile of the site's corpus (order: which is measured first)."""
    from compile_bench import cpu_seconds, generate
    from events_bench import edited, records_of

    from compiler.settings import FolioSettings
    from connectors.bus.base import Topics
    from connectors.bus.memory import InProcessBus
    from pipelines.consumer import SiteConsumer
    from compiler.event_settings import EventSettings
    from connectors.events import encode, record_event
    from connectors.site_corpus import SiteCorpus

    generate(n, root / "src", SEED)
    records = records_of(root / "src")
    tenant = records[0].tenant
    bus = InProcessBus(Topics("folio", tenant), partitions=6)
    systems = sorted({r.system for r in records})
    corpus = SiteCorpus(root / "site", tenant)
    settings = FolioSettings(events=EventSettings(debounce_ms=50, max_batch_wait_ms=2000))
    consumer = SiteConsumer(bus.subscribe("bench", systems), corpus, root / "wiki", settings,
                            today=TODAY)

    def publish(batch: list, op: str) -> None:
        for system in systems:
            bus.publish(system, [m for r in batch if r.system == system
                                 for m in encode(record_event(r, op))])

    def drain(want: int) -> int:
        seen = batches = 0
        while seen < want:
            report = consumer.run_once(wait_s=0.5)
            if report is None:
                raise SystemExit(f"the consumer stopped at {seen}/{want} events")
            seen += report.events
            batches += 1
        return batches

    publish(records, "r")  # the snapshot: the wiki the burst edits (not measured)
    drain(len(records))
    out: dict[str, Any] = {"order": order}
    if order == "clean":
        out["clean_cpu"], out["records"] = _clean(corpus.root, root / "wiki-clean")
    burst = [edited(records[i % len(records)], 1 + i // len(records)) for i in range(events)]
    publish(burst, "u")  # the producer's side is not the consumer's work
    del burst
    c0, t0 = cpu_seconds(), time.perf_counter()
    out["batches"] = drain(events)
    out["burst_cpu"], out["burst_wall"] = cpu_seconds() - c0, time.perf_counter() - t0
    out["events"] = events
    if order != "clean":
        out["clean_cpu"], out["records"] = _clean(corpus.root, root / "wiki-clean")
    return out


# -- the driver ---------------------------------------------------------------------------------
def _rounds(kind: str, n: int, rounds: int, workdir: Path, extra: list[str]) -> list[dict]:
    results = []
    for i, (first, _) in enumerate(alternated(rounds, "clean", "incremental")):
        root = workdir / f"{kind}-{n}-{i}"
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        print(f"  target 3{'a' if kind == 'edit' else 'b'}: N={n:,} round {i + 1}/{rounds} ({first} first)",
              file=sys.stderr, flush=True)
        results.append(run_child(SCRIPT, [f"--_{kind}", str(n), str(root), first, *extra]))
        shutil.rmtree(root, ignore_errors=True)
    return results


def _edit_result(n: int, res: list[dict]) -> TargetResult:
    clean = Figure("clean compile CPU per record", "ms", [1000 * r["clean_cpu"] / r["records"]
                                                          for r in res])
    incr = Figure("1 % edit: incremental CPU per edited record", "ms",
                  [1000 * r["incr_cpu"] / r["edited"] for r in res])
    wall = Figure("1 % edit: incremental wall", "s", [r["incr_wall"] for r in res])
    last = res[-1]
    return TargetResult(
        target=f"3a. incremental, 1 % edit at {n:,} records: CPU per edited record vs clean",
        figures=[clean, incr, wall], ratio=incr.median / clean.median, limit=LIMIT,
        direction="<=", ratio_label="incremental CPU/edited record ÷ clean CPU/record",
        notes=[f"{last['edited']} records edited in {last['files_changed']} files; "
               f"{last['extracted']} re-extracted, {last['rendered']} pages rendered, "
               f"{last['written']} written (last round)"])


def _burst_result(n: int, res: list[dict]) -> TargetResult:
    clean = Figure("clean compile CPU per record (the site's corpus)", "ms",
                   [1000 * r["clean_cpu"] / r["records"] for r in res])
    burst = Figure("burst: consumer CPU per event", "ms",
                   [1000 * r["burst_cpu"] / r["events"] for r in res])
    wall = Figure("burst: drained in", "s", [r["burst_wall"] for r in res])
    last = res[-1]
    return TargetResult(
        target=f"3b. incremental, {last['events']:,}-event burst through the consumer "
               f"(in-process bus, {n:,} records): CPU per event vs clean",
        figures=[clean, burst, wall], ratio=burst.median / clean.median, limit=LIMIT,
        direction="<=", ratio_label="consumer CPU/event ÷ clean CPU/record",
        notes=[f"distinct keys, one edit each; {last['batches']} batches (last round)"])


def run(args: argparse.Namespace) -> list[TargetResult]:
    quick = getattr(args, "quick", False)
    rounds = max(3, getattr(args, "rounds", 3))
    sizes = [500] if quick else list(getattr(args, "incr_sizes", None) or [10_000])
    burst_n = 500 if quick else getattr(args, "burst_events", 10_000)
    extra = ["--settle", "0"] if quick else []
    tmp = None
    workdir = getattr(args, "workdir", None)
    if workdir is None:
        tmp = Path(tempfile.mkdtemp(prefix="folio-perf-incr-"))
        workdir = tmp
    try:
        out = []
        for n in sizes:
            out.append(_edit_result(n, _rounds("edit", n, rounds, workdir, extra)))
        res = _rounds("burst", burst_n, rounds, workdir, ["--events", str(burst_n), *extra])
        out.append(_burst_result(burst_n, res))
        for r in out:
            r.notes.append(f"machine: {machine_load()} (after)")
        return out
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    global SETTLE_S
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--n", dest="incr_sizes", type=int, nargs="+", default=None,
                    help="corpus sizes of the 1 %% edit (default 10,000)")
    ap.add_argument("--events", dest="burst_events", type=int, default=10_000)
    ap.add_argument("--settle", type=float, default=SETTLE_S, help=argparse.SUPPRESS)
    ap.add_argument("--_edit", nargs=3, metavar=("N", "DIR", "ORDER"), help=argparse.SUPPRESS)
    ap.add_argument("--_burst", nargs=3, metavar=("N", "DIR", "ORDER"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args._edit or args._burst:
        child_path()
        SETTLE_S = args.settle
        n, root, order = (args._edit or args._burst)
        res = (child_edit(int(n), Path(root), order) if args._edit
               else child_burst(int(n), args.burst_events, Path(root), order))
        print("RESULT " + json.dumps(res))
        return
    from perf.report import format_result

    print(f"before: {machine_load()}\n")
    for result in run(args):
        print(format_result(result), flush=True)


if __name__ == "__main__":
    main()

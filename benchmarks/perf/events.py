"""Target 4: events through a real Kafka-protocol broker, against the clean compile of the same run.

For each broker the tests run (Tansu and noida-db, started as ``tests/brokers.py`` starts them):

* **steady**: a publisher process sends edits of distinct records at half the clean-compile
  throughput measured in this run, for a fixed time; per event, the time from its ``ce_time``
  (set as it is sent) to the commit of the batch that compiled it (the generation is committed,
  the folders flushed, the offsets committed: readers see the page). Target: p95 < 2 s.
* **burst**: a publisher process sends N edits of distinct records at once; drain rate =
  N / (last offset commit - start of publishing). Target: ≥ 0.7 × the clean-compile rate.

The clean-compile rate is ``compile_wiki(full=True)`` of ``compile_bench.generate``'s corpus
(the one the events are edits of), wall-clock records/s with the default settings. Rounds are
interleaved (clean, then each broker's steady and burst, brokers in alternating order), and
each figure is the median of its rounds. The consumer runs in this process with the settings a
site would use; the publisher runs in its own process so that it does not take the consumer's GIL.
"""

from __future__ import annotations

import gc
import multiprocessing
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perf.report import Figure, TargetResult, machine_load

LATENCY_LIMIT_S = 2.0
PHASES = ("collect", "decode", "apply", "compile", "sync", "commit")  # BatchReport.<phase>_seconds
DRAIN_RATIO = 0.7


@dataclass(frozen=True)
class Sizes:
    records: int  # corpus size; the burst edits this many distinct records
    steady_s: float
    seed: int = 7


def sizes(args: Any) -> Sizes:
    return Sizes(records=2_000, steady_s=8.0) if args.quick else Sizes(records=10_000, steady_s=20.0)


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else float("nan")


# -- the publisher (own process) ------------------------------------------------------------------

def _publish(bootstrap: str, topics: tuple[str, str], records: list, rate: float,
             out: "multiprocessing.Queue[float]") -> None:
    """Publish ``records`` as ``u`` events: all at once (``rate`` 0) or paced at ``rate`` per
    second in 50 ms slices; each event's ``ce_time`` is when its slice is sent."""
    from connectors.bus.base import Topics
    from connectors.bus.kafka import KafkaBus
    from compiler.event_settings import EventSettings
    from connectors.events import encode, record_event

    bus = KafkaBus(EventSettings(kafka_bootstrap=bootstrap), Topics(*topics))
    step = max(1, round(rate / 20)) if rate > 0 else len(records)
    out.put(time.time())
    start = time.monotonic()
    for i in range(0, len(records), step):
        if rate > 0:
            time.sleep(max(0.0, start + i / rate - time.monotonic()))
        by_system: dict[str, list] = {}
        for r in records[i:i + step]:
            by_system.setdefault(r.system, []).append(r)
        for system, recs in by_system.items():
            bus.publish(system, [m for r in recs for m in encode(record_event(r, "u"))])
    bus.close()
    out.put(time.time())


# -- one broker's site --------------------------------------------------------------------------

class Site:
    """A broker, its topics and one site consumer that has taken the corpus's snapshot."""

    def __init__(self, kind: str, work: Path, records: list) -> None:
        from compiler.settings import FolioSettings
        from connectors.bus.base import Topics
        from connectors.bus.kafka import KafkaBus
        from connectors.bus.local_broker import Broker, fresh
        from pipelines.consumer import SiteConsumer
        from compiler.event_settings import EventSettings
        from connectors.site_corpus import SiteCorpus

        self.kind, self.records = kind, records
        self.broker = Broker(kind, data_dir=work / f"{kind}-data").start()
        tenant = records[0].tenant
        # the site's settings; a small session timeout because Tansu's first join waits half of it
        ev = EventSettings(kafka_bootstrap=self.broker.bootstrap, partitions=6, session_timeout_ms=6000)
        self.bus = KafkaBus(ev, Topics("folio", fresh(tenant)))
        self.systems = sorted({r.system for r in records})
        self.bus.ensure_topics(self.systems)
        self.sub = self.bus.subscribe(fresh("bench"), self.systems)
        self.consumer = SiteConsumer(self.sub, SiteCorpus(work / f"{kind}-corpus", tenant),
                                     work / f"{kind}-wiki", FolioSettings(events=ev))
        deadline = time.monotonic() + 120
        while not self.sub.ready():  # never leave a Tansu group while the join is pending
            if time.monotonic() > deadline:
                raise RuntimeError(f"{kind}: the consumer group join did not finish in 120 s")
            self.consumer.run_once(wait_s=0.5)
        t0 = time.time()
        self._snapshot(records)
        self.consume(len(records))
        self.snapshot_rate = len(records) / (time.time() - t0)

    def _snapshot(self, records: list) -> None:
        """The corpus as ``op r`` events, from this process: the site builds its wiki from them."""
        from connectors.events import encode, record_event

        for system in self.systems:
            self.bus.publish(system, [m for r in records if r.system == system
                                      for m in encode(record_event(r, "r"))])

    def publish(self, records: list, rate: float) -> "tuple[multiprocessing.Process, multiprocessing.Queue]":
        q: multiprocessing.Queue = multiprocessing.get_context("fork").Queue()
        proc = multiprocessing.get_context("fork").Process(
            target=_publish, args=(self.broker.bootstrap, (self.bus.topics.prefix, self.bus.topics.tenant),
                                   records, rate, q))
        proc.start()
        return proc, q

    def consume(self, events: int, timeout: float = 900.0) -> tuple[list, float]:
        reports, seen = [], 0
        deadline = time.monotonic() + timeout
        while seen < events:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.kind}: timed out, {seen}/{events} events consumed")
            r = self.consumer.run_once(wait_s=0.5)
            if r is not None:
                reports.append(r)
                seen += r.events
        return reports, time.time()

    def run(self, records: list, rate: float) -> dict[str, float]:
        gc.collect()
        proc, q = self.publish(records, rate)
        t_start = q.get()
        reports, t_end = self.consume(len(records))
        published_s = q.get() - t_start
        proc.join()
        if proc.exitcode != 0:
            raise RuntimeError(f"{self.kind}: the publisher failed (exit {proc.exitcode})")
        lat = [x for r in reports for x in r.latencies]
        out = {"rate": len(records) / (t_end - t_start), "published": len(records) / published_s,
               "p95": pct(lat, 95),
               "p50": statistics.median(lat), "batches": len(reports),
               "events_per_batch": len(records) / len(reports)}
        for phase in PHASES:
            out[phase] = sum(getattr(r, f"{phase}_seconds") for r in reports)
        return out

    def close(self) -> None:
        try:
            self.sub.close()
            self.bus.close()
        finally:
            self.broker.stop()


def _phases(runs: list[dict[str, float]]) -> str:
    """Where the consumer's time went (seconds per round, median over rounds)."""
    parts = [f"{p} {statistics.median(r[p] for r in runs):.2f}" for p in PHASES]
    return "consumer time by phase, s per round (median): " + ", ".join(parts)


def _clean_rate(src: Path, out: Path, n: int) -> float:
    from compiler.build import compile_wiki

    shutil.rmtree(out, ignore_errors=True)
    gc.collect()
    t0 = time.perf_counter()
    compile_wiki(src, out, full=True)
    rate = n / (time.perf_counter() - t0)
    shutil.rmtree(out, ignore_errors=True)
    return rate


def run(args: Any) -> list[TargetResult]:
    from compile_bench import generate
    from events_bench import edited, records_of

    sz = sizes(args)
    rounds = max(1, args.rounds)
    kinds = ("tansu", "noida")
    with tempfile.TemporaryDirectory(prefix="folio-perf-events-", dir=args.workdir) as tmp:
        work = Path(tmp)
        generate(sz.records, work / "src", sz.seed)
        records = records_of(work / "src")
        load_before = machine_load()
        clean: list[float] = []
        sites: dict[str, Site] = {}
        steady: dict[str, list[dict[str, float]]] = {k: [] for k in kinds}
        burst: dict[str, list[dict[str, float]]] = {k: [] for k in kinds}
        try:
            for kind in kinds:
                sites[kind] = Site(kind, work, records)
            for i in range(rounds):
                clean.append(_clean_rate(work / "src", work / "clean-wiki", len(records)))
                rate = statistics.median(clean) / 2
                # distinct keys: a steady run never edits one record twice
                n_steady = min(len(records), max(1, int(rate * sz.steady_s)))
                order = kinds if i % 2 == 0 else kinds[::-1]
                for kind in order:
                    rev = 2 * i + 1
                    steady[kind].append(sites[kind].run(
                        [edited(r, rev) for r in records[:n_steady]], rate))
                    burst[kind].append(sites[kind].run([edited(r, rev + 1) for r in records], 0.0))
        finally:
            for site in sites.values():
                site.close()
        load_after = machine_load()

    clean_fig = Figure("clean compile", "records/s", clean)
    load = f"load: before {load_before}; after {load_after}"
    results: list[TargetResult] = []
    for kind in kinds:
        name = {"tansu": "Tansu", "noida": "noida-db"}[kind]
        st, bu = steady[kind], burst[kind]
        p95 = Figure("p95 event→page", "s", [r["p95"] for r in st])
        results.append(TargetResult(
            target=f"4a. events via {name}, steady at ½ the clean-compile rate: p95 event→page",
            figures=[clean_fig, Figure("steady rate (as published)", "events/s", [r["published"] for r in st]),
                     Figure("p50 event→page", "s", [r["p50"] for r in st]), p95,
                     Figure("events per batch", "events", [r["events_per_batch"] for r in st])],
            ratio=p95.median, limit=LATENCY_LIMIT_S, direction="<=",
            ratio_label="p95 event→page latency in seconds",
            notes=[f"{min(len(records), int(statistics.median(clean) / 2 * sz.steady_s)):,} edits of "
                   f"distinct records over ~{sz.steady_s:g} s per round, corpus {len(records):,} records",
                   _phases(st), load]))
        drain = Figure("burst drain", "events/s", [r["rate"] for r in bu])
        results.append(TargetResult(
            target=f"4b. events via {name}, a {len(records):,}-event burst: drain rate vs clean compile",
            figures=[clean_fig, drain,
                     Figure("batches per burst", "batches", [r["batches"] for r in bu])],
            ratio=drain.median / clean_fig.median, limit=DRAIN_RATIO, direction=">=",
            ratio_label="burst drain events/s ÷ clean compile records/s",
            notes=[f"{len(records):,} edits of distinct records published at once; snapshot of the "
                   f"corpus through the broker first ({sites[kind].snapshot_rate:,.0f} events/s)",
                   _phases(bu), load]))
    return results

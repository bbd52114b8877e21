"""End-to-end event throughput and event→page latency through a real Kafka-protocol broker.

    python3 benchmarks/events_bench.py [--events 10000] [--broker tansu|noida] [--rate 500]

Generates a realistic corpus with ``compile_bench.generate`` (Confluence, Jira, Salesforce in
their real payload shapes), parses it into records, and then:

1. snapshot: publishes every record as an ``op r`` event and lets the site consumer build the
   wiki from nothing (reported, not the target);
2. burst: publishes ``--events`` change events at once (edits of those records, so every event
   changes a page) and measures, with the consumer already joined and caught up,
   events/s = events / (last commit - first publish) and, per event, the time from its
   ``ce_time`` to the commit of the batch that compiled it (p50/p95). With ``--rate`` the
   events are paced at that many per second instead: the latency of a steady load.

Offline extraction backend; one consumer; Kafka settings as a site would use them. Issue 24's
target 4 (the same measurements as ratios to the clean compile of the same run, both brokers):
``python3 benchmarks/perf_bench.py --targets 4``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from compile_bench import generate  # noqa: E402

from compiler.models import SourceRecord  # noqa: E402
from compiler.settings import FolioSettings  # noqa: E402
from connectors.bus.base import Topics  # noqa: E402
from connectors.bus.kafka import KafkaBus  # noqa: E402
from connectors.bus.local_broker import Broker, fresh  # noqa: E402
from pipelines.consumer import BatchReport, SiteConsumer  # noqa: E402
from compiler.event_settings import EventSettings  # noqa: E402
from connectors.events import encode, record_event  # noqa: E402
from connectors.loader import corpus_records  # noqa: E402
from connectors.site_corpus import SiteCorpus  # noqa: E402


def records_of(corpus: Path) -> list[SourceRecord]:
    return list(corpus_records(corpus, 1 << 30))


def edited(r: SourceRecord, rev: int) -> SourceRecord:
    doc = r.model_dump(exclude={"key", "sha256", "origin"})
    doc["version"] = f"{r.version}+e{rev}"
    doc["body"] = f"{r.body}\n\nReviewed in pass {rev}."
    return SourceRecord.model_validate(doc)


def publish_burst(bootstrap: str, tenant_topics: tuple[str, str], burst: list[SourceRecord],
                  out: "multiprocessing.Queue[float]", rate: float = 0.0) -> None:
    """In its own process: the producer's CPU must not steal the consumer's GIL. ``rate`` > 0
    paces the events (per second, in 100 ms slices; each event's time is when it is sent),
    so latency reflects a steady load instead of a queue of the whole burst."""
    bus = KafkaBus(EventSettings(kafka_bootstrap=bootstrap), Topics(*tenant_topics))
    step = max(1, round(rate / 10)) if rate > 0 else len(burst)
    start = time.monotonic()
    for i in range(0, len(burst), step):
        if rate > 0:
            time.sleep(max(0.0, start + i / rate - time.monotonic()))
        by_system: dict[str, list[SourceRecord]] = {}
        for r in burst[i:i + step]:
            by_system.setdefault(r.system, []).append(r)
        for system, recs in by_system.items():
            bus.publish(system, [m for r in recs for m in encode(record_event(r, "u"))])
    bus.close()
    out.put(time.time())


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else 0.0


def consume(consumer: SiteConsumer, want_events: int, timeout: float) -> tuple[list[BatchReport], float]:
    reports: list[BatchReport] = []
    seen = 0
    deadline = time.monotonic() + timeout
    while seen < want_events:
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out: {seen}/{want_events} events consumed")
        r = consumer.run_once(wait_s=0.5)
        if r is not None:
            reports.append(r)
            seen += r.events
    return reports, time.time()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=10_000)
    ap.add_argument("--broker", choices=("tansu", "noida"), default="tansu")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--rate", type=float, default=0.0,
                    help="publish at this many events/s (default: the whole burst at once)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="folio-events-bench-") as tmp:
        work = Path(tmp)
        generate(max(1000, args.events // 4), work / "src", args.seed)
        records = records_of(work / "src")
        tenant = records[0].tenant
        print(f"corpus: {len(records):,} records from compile_bench.generate")

        broker = Broker(args.broker, data_dir=work / "broker").start()
        try:
            # batching as a site has it (the defaults); a small session timeout because
            # Tansu's first group join waits half of it
            ev = EventSettings(kafka_bootstrap=broker.bootstrap, partitions=6, session_timeout_ms=6000)
            settings = FolioSettings(events=ev)
            bus = KafkaBus(ev, Topics("folio", fresh(tenant)))
            systems = sorted({r.system for r in records})
            bus.ensure_topics(systems)
            corpus = SiteCorpus(work / "corpus", tenant)
            wiki = work / "wiki"
            sub = bus.subscribe(fresh("bench"), systems)
            consumer = SiteConsumer(sub, corpus, wiki, settings)
            while not sub.ready():
                consumer.run_once(wait_s=0.5)

            t0 = time.time()
            for system in systems:
                bus.publish(system, [m for r in records if r.system == system
                                     for m in encode(record_event(r, "r"))])
            _, t1 = consume(consumer, len(records), timeout=900)
            print(f"snapshot: {len(records):,} events → {len(list(wiki.rglob('*.md'))):,} pages in "
                  f"{t1 - t0:.1f}s ({len(records) / (t1 - t0):,.0f} events/s)")

            # the burst: N edits, cycling through the records, all at once (or paced: --rate)
            burst = [edited(records[i % len(records)], 1 + i // len(records)) for i in range(args.events)]
            lat: list[float] = []
            done = threading.Event()
            result: dict[str, object] = {}

            def run_consumer() -> None:
                reports, t_end = consume(consumer, args.events, timeout=900)
                result["reports"], result["t_end"] = reports, t_end
                done.set()

            th = threading.Thread(target=run_consumer)
            q: multiprocessing.Queue[float] = multiprocessing.Queue()
            pub = multiprocessing.get_context("fork").Process(
                target=publish_burst,
                args=(broker.bootstrap, (bus.topics.prefix, bus.topics.tenant), burst, q, args.rate))
            t_start = time.time()
            pub.start()
            th.start()
            t_published = q.get()
            pub.join()
            th.join()
            reports: list[BatchReport] = result["reports"]  # type: ignore[assignment]
            t_end: float = result["t_end"]  # type: ignore[assignment]
            for r in reports:
                lat += r.latencies
            secs = t_end - t_start
            pages_written = sum(r.compile.pages_written for r in reports if r.compile)
            for r in reports:
                print(f"  batch {r.events:>6} events {r.keys:>6} keys: collect {r.collect_seconds:.2f}s "
                      f"decode {r.decode_seconds:.2f}s apply {r.apply_seconds:.2f}s compile "
                      f"{r.compile_seconds:.2f}s sync {r.sync_seconds:.2f}s total {r.seconds:.2f}s")
            paced = f" at {args.rate:,.0f}/s" if args.rate > 0 else ""
            print(f"burst: {args.events:,} change events published{paced} in {t_published - t_start:.2f}s, "
                  f"compiled and committed in {secs:.2f}s over {len(reports)} batches "
                  f"({pages_written:,} page writes)")
            print(f"end-to-end: {args.events / secs:,.0f} events/s; event→page latency "
                  f"p50 {statistics.median(lat):.2f}s, p95 {pct(lat, 95):.2f}s, max {max(lat):.2f}s")
            sub.close()
            bus.close()
        finally:
            broker.stop()


if __name__ == "__main__":
    main()

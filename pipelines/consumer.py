"""The site consumer: events in, corpus folder updated, wiki compiled, offsets committed.

It stands in pipelines/, above both the connectors it reads and the compiler it runs.

One batch at a time, in this order, which is what makes a crash at any point harmless:

1. collect a batch (:func:`connectors.bus.batching.collect_batch`): open ``debounce_ms``
   after its first event, so a storm of edits to one record becomes one write and one
   compile, then growing only while the bus holds a backlog;
2. decode every message; the ones that fail go to the dead-letter topic with the reason;
3. keep the last event per key; write/delete the record files (atomic, fsynced, skipped when
   the bytes are already there);
4. compile the corpus into the wiki incrementally, then flush the wiki to disk;
5. commit the offsets.

A crash before 5 redelivers the batch; steps 3 and 4 are idempotent, so the wiki ends as if the
batch had been applied once.
"""

from __future__ import annotations

import ctypes
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from threading import Event

from compiler.build import CompileReport, compile_wiki
from compiler.models import SourceRecord
from compiler.settings import FolioSettings
from compiler.wiki_owner import check_consumer_corpus, check_corpus, check_output_folder
from connectors.bus.base import Delivery, Subscription
from connectors.bus.batching import collect_batch
from connectors.events import ChangeEvent, ClaimCheckStore, EventError, decode
from connectors.loader import corpus_identity
from connectors.site_corpus import ApplyResult, SiteCorpus

log = logging.getLogger(__name__)


def guard_consumer(corpus: SiteCorpus, wiki: Path) -> None:
    """Raise :class:`compiler.wiki_owner.FolderGuardError` when compiling the consumer's corpus
    into ``wiki`` would destroy what is not the consumer's: another corpus's wiki, a folder of
    other files, or a corpus folder of the user's own."""
    check_consumer_corpus(corpus.root, corpus.manifest_bytes())
    check_output_folder(corpus.root, wiki)
    check_corpus(corpus_identity(corpus.root), wiki, how="give the events' wiki a folder of its own (--wiki NEW)")


@dataclass(slots=True)
class BatchReport:
    events: int = 0
    dead_lettered: int = 0
    keys: int = 0
    applied: ApplyResult = field(default_factory=ApplyResult)
    compile: CompileReport | None = None
    # seconds from each event's ce_time to its batch being committed (event→page latency)
    latencies: list[float] = field(default_factory=list)
    # where the batch's time went: collecting it from the bus (with the wait for its first
    # event), decoding, writing the corpus, compiling, flushing to disk, committing the offsets
    seconds: float = 0.0  # from the end of its collection to its commit
    collect_seconds: float = 0.0
    decode_seconds: float = 0.0
    apply_seconds: float = 0.0
    compile_seconds: float = 0.0
    sync_seconds: float = 0.0
    commit_seconds: float = 0.0


def _sync_folder(path: Path) -> None:
    """Flush the filesystem holding ``path`` (pages are written without per-file fsync)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(path, os.O_RDONLY)
        try:
            if libc.syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    except (OSError, AttributeError):
        pass
    os.sync()


class SiteConsumer:
    def __init__(
        self, subscription: Subscription, corpus: SiteCorpus, wiki: Path,
        settings: FolioSettings | None = None, *, claim_checks: ClaimCheckStore | None = None,
        today: str | None = None,
        compile_fn: Callable[[FolioSettings], CompileReport] | None = None,
    ) -> None:
        self.sub = subscription
        self.corpus = corpus
        self.wiki = wiki
        self.settings = settings or FolioSettings()
        self.claim_checks = claim_checks
        self.today = today
        # what turns the updated corpus into durable output before offsets are committed: a
        # wiki here; in a distributed site flow, a claim set shipped to the central store
        if compile_fn is None:  # refused before the corpus folder is touched: nothing is lost
            guard_consumer(corpus, wiki)
        self.compile_fn = compile_fn or (
            lambda settings: compile_wiki(self.corpus.root, self.wiki, settings, today=self.today))
        corpus.ensure()

    def _collect(self, stop: Event | None, first_wait_s: float) -> list[Delivery]:
        return collect_batch(self.sub, self.settings.events, stop, first_wait_s)

    def run_once(self, stop: Event | None = None, wait_s: float = 1.0) -> BatchReport | None:
        """Process one batch; None when nothing arrived within ``wait_s``."""
        t_poll = time.monotonic()
        deliveries = self._collect(stop, wait_s)
        if not deliveries:
            return None
        t0 = time.monotonic()
        report = BatchReport(events=len(deliveries), collect_seconds=t0 - t_poll)
        # every key's changes in order (None: deleted); the corpus applies them as if one by one
        changes: dict[str, list[SourceRecord | None]] = {}
        times: list[float] = []
        # per-key order is per-partition order; sorting by (partition, offset) keeps it
        for d in sorted(deliveries, key=lambda d: (d.topic, d.partition, d.offset)):
            try:
                item = decode(d.message, claim_checks=self.claim_checks,
                              max_body_bytes=self.settings.events.max_body_bytes)
                self.corpus.path_for(item.key)  # a key of another tenant is bad input too
            except (EventError, ValueError) as exc:
                reason = exc.reason if isinstance(exc, EventError) else str(exc)
                log.warning("dead-lettering %s[%d]@%d: %s", d.topic, d.partition, d.offset, reason)
                self.sub.dead_letter(d, reason)
                report.dead_lettered += 1
                continue
            if isinstance(item, ChangeEvent):
                times.append(item.time.timestamp())
                if item.op == "d":
                    changes.setdefault(item.key, []).append(None)
                elif item.record is not None:
                    changes.setdefault(item.key, []).append(item.record)
            else:  # a tombstone: after its delete event, or alone once compaction dropped it
                changes.setdefault(item.key, []).append(None)
        report.keys = len(changes)
        t_apply = time.monotonic()
        report.decode_seconds = t_apply - t0
        report.applied = self.corpus.apply(changes)
        t_compile = time.monotonic()
        report.apply_seconds = t_compile - t_apply
        if report.applied.changed or not (self.wiki / "index.md").exists():
            settings = self.settings
            if report.keys < settings.parallel_min_items:
                # starting worker processes costs seconds; a typical event batch changes far
                # fewer records than that saves (the compile's own threshold counts every file)
                settings = settings.model_copy(update={"workers": 1})
            report.compile = self.compile_fn(settings)
        t_sync = time.monotonic()
        report.compile_seconds = t_sync - t_compile
        if report.applied.changed or report.compile:
            # one filesystem flush for the whole batch (record files and pages) before the
            # offsets are committed, instead of an fsync per file
            _sync_folder(self.corpus.root)
            if os.stat(self.corpus.root).st_dev != os.stat(self.wiki).st_dev:
                _sync_folder(self.wiki)
        t_commit = time.monotonic()
        self.sub.commit(deliveries)
        done = time.time()
        report.sync_seconds = t_commit - t_sync
        report.commit_seconds = time.monotonic() - t_commit
        report.latencies = [max(0.0, done - t) for t in times]
        report.seconds = time.monotonic() - t0
        return report

    def run(self, stop: Event, *, idle_exit_s: float | None = None) -> list[BatchReport]:
        """Loop until ``stop`` is set (or, with ``idle_exit_s``, the bus stays empty that long
        once partitions are assigned: leaving during a group join can wedge the group)."""
        reports: list[BatchReport] = []
        idle_since = time.monotonic()
        while not stop.is_set():
            r = self.run_once(stop, wait_s=0.5)
            if r is None:
                if not self.sub.ready():
                    idle_since = time.monotonic()
                elif idle_exit_s is not None and time.monotonic() - idle_since >= idle_exit_s:
                    break
                continue
            idle_since = time.monotonic()
            reports.append(r)
            log.info("batch: %d events, %d keys, %d written, %d deleted, %d dead-lettered, %.2fs",
                     r.events, r.keys, r.applied.written, r.applied.deleted, r.dead_lettered, r.seconds)
        return reports

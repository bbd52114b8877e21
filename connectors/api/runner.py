"""Drive an API connector onto an event bus with a checkpointed cursor.

The cursor file holds the high-water mark and the version last published per record id. It is
rewritten (atomically, fsynced) only after the bus acknowledged the page it covers, so a crash
or a broker outage at any point re-reads from the last acknowledged page: at-least-once, and the
version map turns the re-read into no new events (``ce_id`` makes any that slip through
recognisable duplicates downstream).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import AwareDatetime, BaseModel, Field

from compiler.atomic import write_atomic
from compiler.models import SourceRecord

from ..base import RecordError
from ..bus.base import EventBus
from ..events import ClaimCheckStore, WireMessage, delete_event, encode, record_event
from .base import ApiConnector, ApiSourceConfig, Deletion

log = logging.getLogger(__name__)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class Cursor(BaseModel):
    since: AwareDatetime = EPOCH
    polls: int = 0
    # id → version last published; "type\x1fid" keys keep record types apart
    versions: dict[str, str] = Field(default_factory=dict)


class CursorStore:
    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self, start: datetime | None = None) -> Cursor:
        try:
            return Cursor.model_validate_json(self.path.read_bytes())
        except FileNotFoundError:
            return Cursor(since=start or EPOCH)

    def save(self, cursor: Cursor) -> None:
        write_atomic(self.path, cursor.model_dump_json().encode(), durable=True)


@dataclass(slots=True)
class RunReport:
    published: int = 0
    unchanged: int = 0
    deleted: int = 0
    errors: list[RecordError] = field(default_factory=list)
    pages: int = 0


def _vkey(type_: str, id_: str) -> str:
    return f"{type_}\x1f{id_}"


class Publisher:
    """Turns connector output into events and publishes them, page by page."""

    def __init__(self, bus: EventBus, cfg: ApiSourceConfig, tenant: str,
                 claim_checks: ClaimCheckStore | None = None, max_body_bytes: int = 512 * 1024) -> None:
        self.bus = bus
        self.cfg = cfg
        self.tenant = tenant
        self.claim_checks = claim_checks
        self.max_body_bytes = max_body_bytes

    def _encode(self, event) -> list[WireMessage]:  # type: ignore[no-untyped-def]
        return encode(event, claim_checks=self.claim_checks, max_body_bytes=self.max_body_bytes)

    def messages(self, items: Iterable[SourceRecord | RecordError | Deletion], cursor: Cursor,
                 report: RunReport, snapshot: bool = False) -> tuple[list[WireMessage], dict[str, str | None]]:
        """Messages for the items not yet published at this version, and the version updates."""
        msgs: list[WireMessage] = []
        updates: dict[str, str | None] = {}
        now = datetime.now(UTC)
        for item in items:
            if isinstance(item, RecordError):
                log.warning("%s/%s: rejected %s", self.cfg.system, self.cfg.instance, item)
                report.errors.append(item)
            elif isinstance(item, Deletion):
                k = _vkey(item.type, item.id)
                if k in cursor.versions or not snapshot:
                    msgs += self._encode(delete_event(
                        self.tenant, self.cfg.system, self.cfg.instance, item.type, item.id,
                        deleted_at=item.deleted_at, now=now))
                    updates[k] = None
                    report.deleted += 1
            else:
                k = _vkey(item.type, item.id)
                known = updates.get(k, cursor.versions.get(k))
                if known == item.version:
                    report.unchanged += 1
                    continue
                op = "r" if snapshot else ("u" if known else "c")
                msgs += self._encode(record_event(item, op, now=now))
                updates[k] = item.version
                report.published += 1
        return msgs, updates


def _apply(cursor: Cursor, updates: dict[str, str | None]) -> None:
    for k, v in updates.items():
        if v is None:
            cursor.versions.pop(k, None)
        else:
            cursor.versions[k] = v


def poll_once(connector: ApiConnector, cfg: ApiSourceConfig, bus: EventBus, store: CursorStore,
              tenant: str, *, now: datetime | None = None, prune: bool | None = None,
              claim_checks: ClaimCheckStore | None = None, max_body_bytes: int = 512 * 1024,
              on_page: Callable[[], None] | None = None) -> RunReport:
    """One poll: read the window since the cursor (minus overlap), publish, checkpoint per page
    (then ``on_page``: a long first sync still shows the loop alive)."""
    until = now or datetime.now(UTC)
    cursor = store.load(cfg.start)
    since = max(EPOCH, cursor.since - timedelta(seconds=cfg.overlap_s))
    pub = Publisher(bus, cfg, tenant, claim_checks, max_body_bytes)
    report = RunReport()
    for page in connector.poll(since, until):
        msgs, updates = pub.messages(page.items, cursor, report)
        bus.publish(cfg.system, msgs)  # raises PublishError: the cursor stays where it was
        _apply(cursor, updates)
        if page.high_water is not None and page.high_water > cursor.since:
            cursor.since = page.high_water
        store.save(cursor)
        report.pages += 1
        if on_page is not None:
            on_page()
    cursor.polls += 1
    if prune if prune is not None else (cfg.prune_every and cursor.polls % cfg.prune_every == 0):
        _prune(connector, cfg, bus, cursor, pub, report, until)
    # nothing newer exists up to `until`; advancing to it keeps the next window small
    cursor.since = max(cursor.since, until - timedelta(seconds=1))
    store.save(cursor)
    return report


def _prune(connector: ApiConnector, cfg: ApiSourceConfig, bus: EventBus, cursor: Cursor,
           pub: Publisher, report: RunReport, now: datetime) -> None:
    live = {_vkey(t, i) for t, i in connector.list_ids()}
    gone = [k for k in cursor.versions if k not in live]
    items = [Deletion(*k.split("\x1f", 1), deleted_at=now) for k in gone]  # type: ignore[call-arg]
    msgs, updates = pub.messages(items, cursor, report)
    bus.publish(cfg.system, msgs)
    _apply(cursor, updates)


def sync_export(files: Iterator[tuple[str, bytes]], connector: ApiConnector, cfg: ApiSourceConfig,
                bus: EventBus, store: CursorStore, tenant: str, **kw: object) -> RunReport:
    """Replay export files as a snapshot (op r), one file per acknowledged batch."""
    parser = connector.export_parser()
    src = cfg.source_config()
    cursor = store.load(cfg.start)
    pub = Publisher(bus, cfg, tenant, **kw)  # type: ignore[arg-type]
    report = RunReport()
    for rel, data in files:
        msgs, updates = pub.messages(parser.parse(rel, data, src, tenant), cursor, report, snapshot=True)
        bus.publish(cfg.system, msgs)
        _apply(cursor, updates)
        store.save(cursor)
        report.pages += 1
    return report


def export_files(folder: Path) -> Iterator[tuple[str, bytes]]:
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")):
        yield path.relative_to(folder).as_posix(), path.read_bytes()


def cursor_path(state_dir: Path, cfg: ApiSourceConfig) -> Path:
    return state_dir / f"{cfg.system}-{cfg.instance}.cursor.json"


__all__ = ["Cursor", "CursorStore", "RunReport", "cursor_path", "export_files", "poll_once",
           "sync_export"]

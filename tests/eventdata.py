"""Records and settings shared by the event tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from compiler.models import ACL, SourceRecord
from compiler.provenance.reproducible import reproducible_files
from compiler.settings import FolioSettings
from compiler.event_settings import EventSettings

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


def ticket(tenant: str, n: int, rev: int = 1) -> SourceRecord:
    """A small ticket record; ``rev`` > 1 is an edit of the same key."""
    when = T0 + timedelta(minutes=n, seconds=rev)
    return SourceRecord(
        tenant=tenant, system="jira", instance="acme-jira", type="issue", id=str(10000 + n),
        version=when.isoformat(), updated_at=when, title=f"OPS-{n}: pump {n % 17} fails",
        name=f"OPS-{n}", body=f"Pump {n % 17} fails at {n} bar. Revision {rev}.",
        fields={"status": "Open" if rev == 1 else "Done", "priority": "Major"},
        entity_type="ticket", container="OPS", status="Open" if rev == 1 else "Done",
        acl=ACL(groups=("staff",)),
    )


def kafka_settings(bootstrap: str, **kw: object) -> FolioSettings:
    ev = dict(kafka_bootstrap=bootstrap, session_timeout_ms=6000, max_poll_interval_ms=30000,
              partitions=3, debounce_ms=100, max_batch_wait_ms=1000)
    ev.update(kw)
    return FolioSettings(events=EventSettings(**ev), workers=1)


def pages(wiki: Path) -> dict[str, bytes]:
    """Every page file of a wiki except the append-only log and the state folder (signed
    bundles by what they state: their signatures differ run to run)."""
    return reproducible_files(wiki)

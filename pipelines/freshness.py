"""Freshness against the SLO: which pages rest on sources older than their tier allows.

A source record's freshness tier (``authority.yaml``) says how old it may get; the SLO grace
(``central.freshness_slo_hours``) is how long past that a page may stay before it is late. A
late page is reported once per (page, source), with how far past the SLO it is.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel

from compiler.build import wiki_state


class LatePage(BaseModel):
    page: str
    source: str  # record key@version
    tier: str
    max_age_days: int
    age_hours: float
    overdue_hours: float


class FreshnessReport(BaseModel):
    checked_at: datetime
    slo_hours: float
    sources_checked: int
    late: list[LatePage]


def stale_pages(wiki: Path, slo_hours: float, now: str | datetime | None = None) -> FreshnessReport:
    at = (datetime.fromisoformat(now) if isinstance(now, str) else now) or datetime.now(UTC)
    state = wiki_state(wiki)
    late: list[LatePage] = []
    checked = 0
    try:
        tiers = state.record_freshness()
        for key, version, updated, subjects in state.record_ages():
            checked += 1
            tier, max_age = tiers[key]
            age = at - datetime.fromisoformat(updated)
            overdue = age - timedelta(days=max_age) - timedelta(hours=slo_hours)
            if overdue <= timedelta(0):
                continue
            late += [LatePage(page=page, source=f"{key}@{version}", tier=tier,
                              max_age_days=max_age, age_hours=round(age.total_seconds() / 3600, 1),
                              overdue_hours=round(overdue.total_seconds() / 3600, 1))
                     for page in subjects]
    finally:
        state.close()
    late.sort(key=lambda p: (p.page, p.source))
    return FreshnessReport(checked_at=at, slo_hours=slo_hours, sources_checked=checked, late=late)

"""Jira REST v2 search: ``updated >=`` JQL, startAt paging, security levels onto the ACL.

JQL compares in minutes and in the Jira user's time zone (``options.jql_timezone``, default
UTC); the window is therefore widened to whole minutes and exact bounds are applied to each
record's ``updated_at`` here. Deletions never show in a search: :meth:`list_ids` lets the runner
prune them. Records are parsed by :class:`connectors.jira.JiraConnector`, the same parser that
reads search exports from disk.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import ClassVar
from zoneinfo import ZoneInfo

from compiler.models import SourceRecord

from ..base import Connector, RecordError
from ..jira import JiraConnector
from .base import ApiSourceConfig, Page
from .client import ApiClient

SEARCH = "/rest/api/2/search"


class JiraApi:
    system: ClassVar[str] = "jira"

    def __init__(self, cfg: ApiSourceConfig, tenant: str, client: ApiClient) -> None:
        self.cfg = cfg
        self.tenant = tenant
        self.client = client
        self.parser = JiraConnector()
        self.tz = ZoneInfo(str(cfg.options.get("jql_timezone", "UTC")))

    def _scope(self) -> str:
        if not self.cfg.scope:
            return ""
        projects = ", ".join(f'"{p}"' for p in self.cfg.scope)
        return f"project in ({projects}) AND "

    def _jql_time(self, t: datetime) -> str:
        return t.astimezone(self.tz).strftime("%Y-%m-%d %H:%M")

    def _search(self, jql: str, fields: str) -> Iterator[tuple[str, bytes, dict]]:
        start = 0
        while True:
            params = {"jql": jql, "startAt": start, "maxResults": self.cfg.page_size, "fields": fields}
            raw, doc = self.client.get_json(SEARCH, params)
            issues = doc.get("issues") if isinstance(doc, dict) else None
            if not isinstance(issues, list):
                raise ValueError(f"GET {SEARCH}: not a search response (no issues list)")
            yield f"GET {SEARCH}?startAt={start}", raw, doc
            start += len(issues)
            total = doc.get("total")
            if not issues or (isinstance(total, int) and start >= total):
                return

    def poll(self, since: datetime, until: datetime) -> Iterator[Page]:
        lo = since.replace(second=0, microsecond=0)
        hi = until.replace(second=0, microsecond=0) + timedelta(minutes=1)
        jql = (f'{self._scope()}updated >= "{self._jql_time(lo)}" AND updated < "{self._jql_time(hi)}" '
               "ORDER BY updated ASC, id ASC")
        src = self.cfg.source_config()
        for where, raw, _ in self._search(jql, "*all"):
            page = Page()
            for item in self.parser.parse(where, raw, src, self.tenant):
                if isinstance(item, SourceRecord):
                    if not since <= item.updated_at < until:
                        continue
                    page.high_water = max(page.high_water or item.updated_at, item.updated_at)
                page.items.append(item)
            yield page

    def list_ids(self) -> Iterator[tuple[str, str]]:
        jql = f"{self._scope()}created IS NOT EMPTY ORDER BY id ASC"
        for _, _, doc in self._search(jql, "key"):
            for issue in doc["issues"]:
                if isinstance(issue, dict) and issue.get("id") not in (None, ""):
                    yield "issue", str(issue["id"])

    def export_parser(self) -> Connector:
        return self.parser

    def close(self) -> None:
        self.client.close()


__all__ = ["JiraApi", "RecordError"]

"""Confluence Cloud REST v1 CQL search: ``lastmodified`` windows, ``_links.next`` paging, restrictions.

CQL compares dates in minutes (``"yyyy/MM/dd HH:mm"``) and in the user's time zone
(``options.cql_timezone``, default UTC), so the window is widened to whole minutes and exact
bounds are applied to each page's ``version.when`` here, as for Jira. Each result is expanded
with its storage body, version, space, history and read restrictions, and parsed by
:class:`connectors.confluence.ConfluenceConnector`, the export parser: page restrictions (and
``options.space_groups``) become the record's ACL there.

Deletions: search shows only current content, so a page deleted (or purged) in the window never
appears; :meth:`list_ids` lets the runner prune them. A result that does come back with
``status: trashed`` is a deletion at its version's date.

``base_url`` is the site (``https://acme.atlassian.net``); ``options.context_path`` is where
Confluence lives on it (``/wiki`` on Cloud, often empty or ``/confluence`` on Data Center).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

from compiler.models import SourceRecord

from .._common import as_dict, as_list
from ..base import Connector, RecordError
from ..confluence import ConfluenceConnector
from ..timefmt import parse_timestamp
from .base import ApiSourceConfig, Deletion, Page
from .client import ApiClient, ApiError

SEARCH = "/rest/api/content/search"
EXPAND = ("body.storage,version,space,history,metadata.labels,"
          "restrictions.read.restrictions.user,restrictions.read.restrictions.group,"
          "ancestors.restrictions.read.restrictions.user,ancestors.restrictions.read.restrictions.group")
_GONE = frozenset({"trashed", "deleted"})


def _quoted(values: list[str]) -> str:
    return ", ".join('"' + v.replace('"', '\\"') + '"' for v in values)


class ConfluenceApi:
    system: ClassVar[str] = "confluence"

    def __init__(self, cfg: ApiSourceConfig, tenant: str, client: ApiClient) -> None:
        self.cfg = cfg
        self.tenant = tenant
        self.client = client
        self.parser = ConfluenceConnector()
        self.tz = ZoneInfo(str(cfg.options.get("cql_timezone", "UTC")))
        self.context = str(cfg.options.get("context_path", "/wiki")).rstrip("/")
        # the same types in poll and list_ids: pruning against a narrower listing would delete
        # every record of the missing type
        self.types = [str(t) for t in cfg.options.get("content_types", ["page", "blogpost"])]

    def _scope(self) -> str:
        cql = f"type in ({', '.join(self.types)})"
        if self.cfg.scope:
            cql += f" and space in ({_quoted(self.cfg.scope)})"
        return cql

    def _cql_time(self, t: datetime) -> str:
        return t.astimezone(self.tz).strftime("%Y/%m/%d %H:%M")

    def _next_url(self, doc: dict[str, Any]) -> str | None:
        """``_links.next`` is relative to the context path (``/wiki``), not to the host."""
        links = as_dict(doc.get("_links"))
        nxt = links.get("next")
        if not isinstance(nxt, str) or not nxt:
            return None
        if nxt.startswith(("http://", "https://")):
            return nxt
        context = str(links.get("context") if isinstance(links.get("context"), str) else self.context)
        context = context.rstrip("/")
        return nxt if context and nxt.startswith(context + "/") else context + nxt

    def _search(self, cql: str, expand: str | None) -> Iterator[tuple[str, bytes, dict[str, Any]]]:
        url: str | None = self.context + SEARCH
        params: dict[str, Any] | None = {"cql": cql, "limit": self.cfg.page_size, "start": 0}
        if expand:
            params["expand"] = expand
        page = 0
        while url:
            raw, doc = self.client.get_json(url, params)
            if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
                raise ApiError(f"GET {url}: not a content search response (no results list)")
            yield f"GET {self.context}{SEARCH} page {page}", raw, doc
            # the server's next link carries the cursor (Cloud) or start offset (Data Center);
            # without one this was the last page
            url, params = (self._next_url(doc) if doc["results"] else None), None
            page += 1

    def poll(self, since: datetime, until: datetime) -> Iterator[Page]:
        lo = since.replace(second=0, microsecond=0)
        hi = until.replace(second=0, microsecond=0) + timedelta(minutes=1)
        cql = (f'{self._scope()} and lastmodified >= "{self._cql_time(lo)}" '
               f'and lastmodified < "{self._cql_time(hi)}" order by lastmodified')
        src = self.cfg.source_config()
        for where, raw, doc in self._search(cql, EXPAND):
            page = Page()
            for item in doc["results"]:
                gone = _trashed(item, self.types, until)
                if gone and since <= gone.deleted_at < until:
                    page.items.append(gone)
                    page.high_water = max(page.high_water or gone.deleted_at, gone.deleted_at)
            for item in self.parser.parse(where, raw, src, self.tenant):
                if isinstance(item, SourceRecord):
                    if not since <= item.updated_at < until:
                        continue
                    page.high_water = max(page.high_water or item.updated_at, item.updated_at)
                page.items.append(item)
            yield page

    def list_ids(self) -> Iterator[tuple[str, str]]:
        # no expansions: the lightest listing v1 search offers (id, type, status, title, links)
        for _, _, doc in self._search(f"{self._scope()} order by created", None):
            for item in map(as_dict, as_list(doc.get("results"))):
                if item.get("id") not in (None, "") and item.get("type") in self.types \
                        and item.get("status") not in _GONE:
                    yield str(item["type"]), str(item["id"])

    def export_parser(self) -> Connector:
        return self.parser

    def close(self) -> None:
        self.client.close()


def _trashed(item: Any, types: list[str], until: datetime) -> Deletion | None:
    """A trashed page in the results is a deletion, dated by its last version when it has one."""
    if not isinstance(item, dict) or item.get("status") not in _GONE or item.get("type") not in types \
            or item.get("id") in (None, ""):
        return None
    when = as_dict(item.get("version")).get("when")
    try:
        at = parse_timestamp(when) if when else until - timedelta(microseconds=1)
    except ValueError:
        at = until - timedelta(microseconds=1)
    return Deletion(str(item["type"]), str(item["id"]), at)


__all__ = ["ConfluenceApi", "RecordError"]

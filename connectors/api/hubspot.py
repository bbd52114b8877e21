"""HubSpot CRM v3: search by last-modified date, ``after`` paging, archived objects as deletions.

Each object type in ``scope`` (``companies``, ``contacts``, ``deals``…; default companies) is
read with ``POST /crm/v3/objects/{type}/search`` filtered ``GTE since`` and ``LT until`` on its
last-modified property (millisecond epoch strings, so the window is exact) and sorted ascending.
A search query stops at 10,000 results: past that, the connector starts a new query from the
last modified time it saw (records at that very millisecond are re-read, and the runner's
version map makes the re-read publish nothing).

Search never returns archived objects. ``GET /crm/v3/objects/{type}?archived=true`` lists them;
those archived inside the window become deletions (``options.poll_archived: false`` leaves them
to pruning). :meth:`list_ids` pages ``GET /crm/v3/objects/{type}`` for ids only.

Only the last type's search pages carry a high-water mark: types are read one after another,
and a mark from an earlier type would let the cursor skip the later types' unread changes if the
poll stopped half-way. Records are parsed by :class:`connectors.hubspot.HubSpotConnector`,
which decides the ACL (owner and team for ``options.owner_access`` types, else the source's
``default_acl``; see there); the search asks for ``hubspot_owner_id`` and ``hubspot_team_id`` of
those types.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any, ClassVar

from compiler.models import SourceRecord

from .._common import as_dict, as_list
from ..base import Connector, RecordError, SourceConfig
from ..hubspot import HubSpotConnector, modified_property, owner_scoped, record_type
from ..timefmt import parse_timestamp
from .base import ApiSourceConfig, Deletion, Page
from .client import ApiClient, ApiError

OBJECTS = "/crm/v3/objects/{type}"
SEARCH = OBJECTS + "/search"
SEARCH_CAP = 10_000
MAX_LIMIT = 100
DEFAULT_PROPERTIES = {
    "companies": ("name", "domain", "industry", "city", "country", "description", "lifecyclestage"),
    "contacts": ("firstname", "lastname", "email", "company", "jobtitle", "lifecyclestage"),
    "deals": ("dealname", "dealstage", "pipeline", "amount", "closedate", "description"),
    "tickets": ("subject", "content", "hs_pipeline", "hs_pipeline_stage", "hs_ticket_priority"),
    "products": ("name", "description", "price", "hs_sku"),
}


def _ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


def _modified_ms(obj: dict[str, Any], prop: str) -> int | None:
    value = as_dict(obj.get("properties")).get(prop) or obj.get("updatedAt")
    try:
        return _ms(parse_timestamp(str(value))) if value else None
    except ValueError:
        return None


class HubSpotApi:
    system: ClassVar[str] = "hubspot"

    def __init__(self, cfg: ApiSourceConfig, tenant: str, client: ApiClient) -> None:
        self.cfg = cfg
        self.tenant = tenant
        self.client = client
        self.parser = HubSpotConnector()
        self.types = cfg.scope or ["companies"]
        self.limit = min(cfg.page_size, MAX_LIMIT)
        self.search_cap = SEARCH_CAP

    def _properties(self, object_type: str) -> list[str]:
        extra = as_list(as_dict(self.cfg.options.get("properties")).get(object_type))
        base = DEFAULT_PROPERTIES.get(object_type, ("name", "description"))
        # an owner-scoped type's ACL is decided by its owner and team (connectors/hubspot.py)
        access = ("hubspot_owner_id", "hubspot_team_id") \
            if owner_scoped(object_type, self.cfg.source_config()) else ()
        return list(dict.fromkeys([*base, *map(str, extra), *access, modified_property(object_type),
                                   "createdate"]))

    def _source(self, object_type: str) -> SourceConfig:
        src = self.cfg.source_config()
        return src.model_copy(update={"options": {**src.options, "object_type": object_type}})

    def _search(self, object_type: str, since: datetime,
                until: datetime) -> Iterator[tuple[str, bytes, dict[str, Any]]]:
        url = SEARCH.format(type=object_type)
        prop = modified_property(object_type)
        lo, hi = _ms(since), _ms(until)
        after: str | None = None
        seen = 0
        while True:
            body: dict[str, Any] = {
                "filterGroups": [{"filters": [
                    {"propertyName": prop, "operator": "GTE", "value": str(lo)},
                    {"propertyName": prop, "operator": "LT", "value": str(hi)}]}],
                "sorts": [{"propertyName": prop, "direction": "ASCENDING"}],
                "properties": self._properties(object_type),
                "limit": self.limit,
            }
            if after:
                body["after"] = after
            raw, doc = self.client.post_json(url, body)
            results = doc.get("results") if isinstance(doc, dict) else None
            if not isinstance(results, list):
                raise ApiError(f"POST {url}: not a search response (no results list)")
            yield f"POST {url} from {lo} after {after or 0}", raw, doc
            seen += len(results)
            nxt = as_dict(as_dict(doc.get("paging")).get("next")).get("after")
            total = doc.get("total")
            if not results or not (nxt or (isinstance(total, int) and total > seen)):
                return
            if not nxt or seen + self.limit > self.search_cap:
                # the next page would cross the per-query cap: a new query from the last stamp seen
                last = max((m for m in (_modified_ms(as_dict(r), prop) for r in results) if m is not None),
                           default=lo)
                if last <= lo:
                    raise ApiError(f"POST {url}: more than {self.search_cap} {object_type} share "
                                   f"{prop} {lo}; search cannot page past them")
                lo, after, seen = last, None, 0
                continue
            after = str(nxt)

    def _list(self, object_type: str, archived: bool) -> Iterator[dict[str, Any]]:
        url = OBJECTS.format(type=object_type)
        prop = modified_property(object_type)
        params: dict[str, Any] = {"limit": self.limit, "archived": str(archived).lower(), "properties": prop}
        while True:
            _, doc = self.client.get_json(url, params)
            if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
                raise ApiError(f"GET {url}: not an object list (no results list)")
            yield doc
            nxt = as_dict(as_dict(doc.get("paging")).get("next")).get("after")
            if not nxt or not doc["results"]:
                return
            params = {**params, "after": str(nxt)}

    def _archived(self, object_type: str, since: datetime, until: datetime) -> Iterator[Page]:
        for doc in self._list(object_type, archived=True):
            page = Page()
            for obj in map(as_dict, doc["results"]):
                when = obj.get("archivedAt") or obj.get("updatedAt")
                try:
                    at = parse_timestamp(str(when)) if when else None
                except ValueError:
                    at = None
                # the listing has no time filter: only archivals inside the window are news
                if obj.get("id") not in (None, "") and at is not None and since <= at < until:
                    page.items.append(Deletion(record_type(object_type), str(obj["id"]), at))
            if page.items:
                yield page

    def poll(self, since: datetime, until: datetime) -> Iterator[Page]:
        for n, object_type in enumerate(self.types):
            last_type = n == len(self.types) - 1
            if self.cfg.options.get("poll_archived", True):
                yield from self._archived(object_type, since, until)
            src = self._source(object_type)
            for where, raw, _ in self._search(object_type, since, until):
                page = Page()
                for item in self.parser.parse(where, raw, src, self.tenant):
                    if isinstance(item, SourceRecord):
                        if not since <= item.updated_at < until:
                            continue
                        if last_type:
                            page.high_water = max(page.high_water or item.updated_at, item.updated_at)
                    page.items.append(item)
                yield page

    def list_ids(self) -> Iterator[tuple[str, str]]:
        for object_type in self.types:
            for doc in self._list(object_type, archived=False):
                for obj in map(as_dict, doc["results"]):
                    if obj.get("id") not in (None, "") and obj.get("archived") is not True:
                        yield record_type(object_type), str(obj["id"])

    def export_parser(self) -> Connector:
        return self.parser

    def close(self) -> None:
        self.client.close()


__all__ = ["HubSpotApi", "RecordError"]

"""HubSpot CRM v3 objects and search over ``fixtures/hubspot_*.json`` (written from the API reference).

Search applies the request's filters on the last-modified property, sorts ascending, pages by
offset ``after`` and, like HubSpot, refuses to page past ``cap`` results of one query (10,000).
"""

from __future__ import annotations

import copy
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"
_PATH = re.compile(r"/crm/v3/objects/(\w+)(/search)?")
_OPS = {"GTE": lambda a, b: a >= b, "GT": lambda a, b: a > b, "LT": lambda a, b: a < b,
        "LTE": lambda a, b: a <= b, "EQ": lambda a, b: a == b}


def hs_time(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def ms(value: str) -> int:
    return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)


def modified(object_type: str) -> str:
    return "lastmodifieddate" if object_type == "contacts" else "hs_lastmodifieddate"


def _load(name: str) -> list[dict[str, Any]]:
    return json.loads((FIXTURES / name).read_text())["results"]


class FakeHubSpot:
    def __init__(self, token: str = "pat-na1-s3cret", count: int = 0, cap: int = 10_000,
                 same_time: bool = False) -> None:
        companies = _load("hubspot_companies_page_1.json") + _load("hubspot_companies_page_2.json")
        for i in range(count):  # synthetic volume in the real shape: distinct ids and times
            c = copy.deepcopy(companies[0])
            c["id"] = c["properties"]["hs_object_id"] = str(18190600000 + i)
            c["properties"]["name"] = f"Load company {i}"
            when = hs_time(datetime(2026, 11, 1, 9, 10, tzinfo=UTC) + timedelta(seconds=0 if same_time else i))
            c["properties"]["hs_lastmodifieddate"] = c["updatedAt"] = when
            companies.append(c)
        self.objects = {"companies": {c["id"]: c for c in companies},
                        "contacts": {c["id"]: c for c in _load("hubspot_contacts_search.json")}}
        self.archived = {"companies": {c["id"]: c for c in _load("hubspot_companies_archived.json")},
                         "contacts": {}}
        self.auth = f"Bearer {token}"
        self.cap = cap
        self.fail_next: list[tuple[int, dict[str, str]]] = []
        self.fail_searches_only = False

    def edit(self, object_type: str, object_id: str, name: str, when: datetime) -> None:
        obj = self.objects[object_type][object_id]
        obj["properties"]["name"] = name
        obj["properties"][modified(object_type)] = obj["updatedAt"] = hs_time(when)

    def archive(self, object_type: str, object_id: str, when: datetime) -> None:
        obj = self.objects[object_type].pop(object_id)
        obj.update(archived=True, archivedAt=hs_time(when))
        self.archived[object_type][object_id] = obj

    def _shape(self, obj: dict[str, Any], object_type: str, wanted: list[str]) -> dict[str, Any]:
        keep = {*wanted, "hs_object_id", "createdate", modified(object_type)}
        return {**obj, "properties": {k: v for k, v in obj["properties"].items() if k in keep}}

    def __call__(self, path: str, query: dict[str, str], headers: dict[str, str], body: Any = None):
        if headers.get("authorization") != self.auth:
            return 401, {}, {"status": "error", "message": "Authentication credentials not found.",
                             "category": "INVALID_AUTHENTICATION", "correlationId": "4f1c7a0e"}
        if self.fail_next and (body is not None or not self.fail_searches_only):
            status, extra = self.fail_next.pop(0)
            return status, extra, {"status": "error", "message": "You have reached your secondly limit.",
                                   "errorType": "RATE_LIMIT", "correlationId": "9a8b", "policyName": "SECONDLY"}
        m = _PATH.fullmatch(path)
        if not m or m.group(1) not in self.objects:
            return 404, {}, {"status": "error", "message": "Not found", "category": "OBJECT_NOT_FOUND"}
        object_type, search = m.group(1), bool(m.group(2))
        prop = modified(object_type)
        if search:
            filters = body["filterGroups"][0]["filters"]
            hits = [o for o in self.objects[object_type].values()
                    if all(_OPS[f["operator"]](ms(o["properties"][prop]), int(f["value"]))
                           for f in filters if f["propertyName"] == prop)]
            hits.sort(key=lambda o: (ms(o["properties"][prop]), o["id"]))
            offset, limit = int(body.get("after", 0)), int(body["limit"])
            if offset >= self.cap:
                return 400, {}, {"status": "error", "category": "VALIDATION_ERROR",
                                 "message": f"Paging past {self.cap} results is not supported"}
            page = [self._shape(o, object_type, body["properties"]) for o in hits[offset:min(offset + limit, self.cap)]]
            out: dict[str, Any] = {"total": len(hits), "results": page}
            if offset + limit < len(hits):  # offered even where the cap will refuse it
                out["paging"] = {"next": {"after": str(offset + limit)}}
            return 200, {}, out
        pool = self.archived if query.get("archived") == "true" else self.objects
        items = sorted(pool[object_type].values(), key=lambda o: int(o["id"]))
        after = int(query.get("after", 0))
        items = [o for o in items if int(o["id"]) >= after]
        limit = int(query.get("limit", 10))
        page = [self._shape(o, object_type, query.get("properties", "").split(",")) for o in items[:limit]]
        out = {"results": page}
        if len(items) > limit:
            nxt = items[limit]["id"]
            out["paging"] = {"next": {"after": nxt, "link": f"https://api.hubapi.com{path}?limit={limit}&after={nxt}"}}
        return 200, {}, out

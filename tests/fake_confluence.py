"""A Confluence Cloud REST v1 CQL search endpoint over the real content list in ``fixtures``.

The real list (``confluence_content_list_v1.json``) has no expansions; each item gets the
documented ``body.storage``, ``version``, ``space``, ``history`` and ``restrictions.read``
expansions (shapes in ``shared/fixtures/README.md``), the restriction groups in the shape of
the real ``…/restriction/byOperation`` example.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

FIXTURES = Path(__file__).parent / "fixtures"
SEARCH = "/wiki/rest/api/content/search"
_WHEN = re.compile(r'lastmodified (>=|<) "(\d{4}/\d\d/\d\d \d\d:\d\d)"')
_IN = re.compile(r"(space|type) in \(([^)]*)\)")
_SHALLOW = ("id", "type", "status", "title", "_expandable", "_links")


def conf_time(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _read_restriction(users: list[str], groups: list[str]) -> dict[str, Any]:
    real = json.loads((FIXTURES / "confluence_content_restriction_by_operation_v1.json").read_text())
    group_shape = real["operationType"]["restrictions"]["group"]["results"][0]  # {"type", "name"}
    return {"operation": "read", "restrictions": {
        "user": {"results": [{"type": "known", "accountId": u} for u in users],
                 "start": 0, "limit": 200, "size": len(users)},
        "group": {"results": [{**group_shape, "name": g} for g in groups],
                  "start": 0, "limit": 200, "size": len(groups)}}}


class FakeConfluence:
    """Pages keyed by id; ``edit``/``trash``/``delete`` change them; ``fail_next`` queues errors."""

    def __init__(self, user: str = "bot@acme.test", token: str = "s3cret-token",
                 base: datetime | None = None) -> None:
        doc = json.loads((FIXTURES / "confluence_content_list_v1.json").read_text())
        self.links = doc["_links"]
        base = base or datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
        self.pages: dict[str, dict[str, Any]] = {}
        for i, real in enumerate(doc["results"]):
            item = copy.deepcopy(real)
            item["space"] = {"key": "DUMMY", "name": "Dummy space", "type": "global"}
            item["version"] = {"number": 1, "when": conf_time(base + timedelta(minutes=i, seconds=30)),
                               "by": {"type": "known", "accountId": "557058:author"}}
            item["history"] = {"latest": True, "createdBy": {"type": "known", "accountId": "557058:author"},
                               "createdDate": conf_time(base - timedelta(days=30))}
            item["body"] = {"storage": {"value": f"<p>{item['title']} describes the Acme rollout.</p>",
                                        "representation": "storage", "_expandable": {"content": ""}}}
            item["restrictions"] = {"read": _read_restriction([], [])}
            self.pages[item["id"]] = item
        self.auth = "Basic " + base64.b64encode(f"{user}:{token}".encode()).decode()
        self.fail_next: list[tuple[int, dict[str, str]]] = []
        self.parents: dict[str, str] = {}  # page id → parent page id

    def nest(self, page_id: str, parent_id: str) -> None:
        """``page_id`` moves under ``parent_id``: it inherits the parent's view restrictions."""
        self.parents[page_id] = parent_id

    def _ancestors(self, page_id: str, with_restrictions: bool) -> list[dict[str, Any]]:
        """``ancestors`` as the API expands it: root first, each a shallow content object."""
        chain = []
        at = self.parents.get(page_id)
        while at is not None:
            above = {k: self.pages[at][k] for k in _SHALLOW}
            if with_restrictions:
                above["restrictions"] = copy.deepcopy(self.pages[at]["restrictions"])
            chain.append(above)
            at = self.parents.get(at)
        return chain[::-1]

    def restrict(self, page_id: str, users: list[str], groups: list[str]) -> None:
        self.pages[page_id]["restrictions"] = {"read": _read_restriction(users, groups)}

    def edit(self, page_id: str, title: str, when: datetime) -> None:
        page = self.pages[page_id]
        page["title"] = title
        page["version"] = {**page["version"], "number": page["version"]["number"] + 1, "when": conf_time(when)}

    def trash(self, page_id: str) -> None:
        self.pages[page_id]["status"] = "trashed"

    def delete(self, page_id: str) -> None:
        del self.pages[page_id]

    def __call__(self, path: str, query: dict[str, str], headers: dict[str, str]):
        if headers.get("authorization") != self.auth:
            return 401, {}, {"statusCode": 401, "message": "Unauthorized; scope does not match"}
        if self.fail_next:
            status, extra = self.fail_next.pop(0)
            return status, extra, {"statusCode": status, "message": "Rate limit exceeded"}
        if path != SEARCH:
            return 404, {}, {"statusCode": 404, "message": "No content found"}
        cql = query.get("cql", "")
        lo = hi = None
        for op, when in _WHEN.findall(cql):
            t = datetime.strptime(when, "%Y/%m/%d %H:%M").replace(tzinfo=UTC)
            lo, hi = (t, hi) if op == ">=" else (lo, t)
        wanted = {k: {v.strip().strip('"') for v in vals.split(",")} for k, vals in _IN.findall(cql)}

        def modified(p: dict[str, Any]) -> datetime:
            return datetime.strptime(p["version"]["when"], "%Y-%m-%dT%H:%M:%S.%f%z")

        hits = [p for p in self.pages.values()
                if (lo is None or modified(p) >= lo) and (hi is None or modified(p) < hi)
                and p["type"] in wanted.get("type", {p["type"]})
                and p["space"]["key"] in wanted.get("space", {p["space"]["key"]})]
        hits.sort(key=lambda p: (modified(p), p["id"]) if "order by lastmodified" in cql else p["id"])
        start, limit = int(query.get("start", 0)), int(query.get("limit", 25))
        page = hits[start:start + limit]
        if "expand" not in query:
            page = [{k: p[k] for k in _SHALLOW} for p in page]
        elif "ancestors" in query["expand"]:
            deep = "ancestors.restrictions.read" in query["expand"]
            page = [{**p, "ancestors": self._ancestors(p["id"], deep)} for p in page]
        links = {**self.links, "self": self.links["base"] + "/rest/api/content/search"}
        if start + limit < len(hits):
            params = {k: v for k, v in query.items() if k != "start"} | {"start": start + limit}
            links["next"] = "/rest/api/content/search?" + urlencode(params)
        return 200, {}, {"results": page, "start": start, "limit": limit, "size": len(page), "_links": links}

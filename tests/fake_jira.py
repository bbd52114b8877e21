"""A Jira REST v2 search endpoint over the real search payload in ``shared/fixtures``."""

from __future__ import annotations

import base64
import copy
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).parent / "fixtures" / "jira_search_v2.json"
_WHEN = re.compile(r'updated (>=|<) "(\d{4}-\d\d-\d\d \d\d:\d\d)"')


def load_fixture() -> dict[str, Any]:
    return json.loads(FIXTURE.read_text())


def jira_time(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000+0000")


class FakeJira:
    """Issues keyed by id; ``edit``/``delete`` change them; ``fail_next`` queues error replies."""

    def __init__(self, user: str = "bot@acme.test", token: str = "s3cret-token",
                 base: datetime | None = None, count: int | None = None) -> None:
        doc = load_fixture()
        self.envelope = {k: v for k, v in doc.items() if k != "issues"}
        base = base or datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
        template = doc["issues"]
        self.issues: dict[str, dict[str, Any]] = {}
        n = count or len(template)
        for i in range(n):
            issue = copy.deepcopy(template[i % len(template)])
            if count:  # synthetic volume: distinct ids/keys from the real shape
                issue["id"] = str(20000 + i)
                issue["key"] = f"LOAD-{i}"
                issue["fields"]["summary"] = f"load issue {i}"
            issue["fields"]["updated"] = jira_time(base + timedelta(minutes=i))
            self.issues[issue["id"]] = issue
        self.auth = "Basic " + base64.b64encode(f"{user}:{token}".encode()).decode()
        self.fail_next: list[tuple[int, dict[str, str]]] = []

    def edit(self, issue_id: str, summary: str, when: datetime) -> None:
        self.issues[issue_id]["fields"]["summary"] = summary
        self.issues[issue_id]["fields"]["updated"] = jira_time(when)

    def delete(self, issue_id: str) -> None:
        del self.issues[issue_id]

    def __call__(self, path: str, query: dict[str, str], headers: dict[str, str]):
        if headers.get("authorization") != self.auth:
            return 401, {}, {"errorMessages": ["You are not authenticated."], "errors": {}}
        if self.fail_next:
            status, extra = self.fail_next.pop(0)
            return status, extra, {"errorMessages": ["Rate limit exceeded."]}
        if path != "/rest/api/2/search":
            return 404, {}, {"errorMessages": ["not found"]}
        jql = query.get("jql", "")
        lo = hi = None
        for op, when in _WHEN.findall(jql):
            t = datetime.strptime(when, "%Y-%m-%d %H:%M").replace(tzinfo=UTC)
            lo, hi = (t, hi) if op == ">=" else (lo, t)

        def updated(i: dict[str, Any]) -> datetime:
            return datetime.strptime(i["fields"]["updated"], "%Y-%m-%dT%H:%M:%S.000%z")

        hits = [i for i in self.issues.values()
                if (lo is None or updated(i) >= lo) and (hi is None or updated(i) < hi)]
        hits.sort(key=lambda i: (updated(i), int(i["id"])) if "updated" in jql else int(i["id"]))
        start, size = int(query.get("startAt", 0)), int(query.get("maxResults", 50))
        page = hits[start:start + size]
        if query.get("fields") == "key":
            page = [{k: i[k] for k in ("expand", "id", "self", "key")} for i in page]
        body = {**self.envelope, "startAt": start, "maxResults": size, "total": len(hits),
                "isLast": start + size >= len(hits), "issues": page}
        return 200, {}, body

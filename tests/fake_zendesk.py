"""A Zendesk incremental ticket export (cursor based) over ``fixtures/zendesk_incremental_tickets_cursor.json``.

The fixture is written from the Zendesk API reference (see ``fixtures/README.md``). Cursors
here encode (start_time, offset); Zendesk's are opaque, and the client must treat them so.
"""

from __future__ import annotations

import base64
import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).parent / "fixtures" / "zendesk_incremental_tickets_cursor.json"
EXPORT = "/api/v2/incremental/tickets/cursor.json"


def zd_time(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _cursor(start: int, offset: int) -> str:
    return base64.b64encode(f"{start}|{offset}".encode()).decode()


class FakeZendesk:
    """Tickets keyed by id; ``edit``/``delete``/``touch`` change them; ``fail_next`` queues errors."""

    def __init__(self, user: str = "bot@acme.test/token", token: str = "s3cret-token") -> None:
        doc = json.loads(FIXTURE.read_text())
        self.tickets: dict[str, dict[str, Any]] = {str(t["id"]): copy.deepcopy(t) for t in doc["tickets"]}
        # API-token auth is basic auth as "{email}/token:{token}"
        self.auth = "Basic " + base64.b64encode(f"{user}:{token}".encode()).decode()
        self.fail_next: list[tuple[int, dict[str, str]]] = []
        # ticket id → its comments, as GET /api/v2/tickets/{id}/comments.json lists them
        self.comments: dict[str, list[dict[str, Any]]] = {}

    def comment(self, ticket_id: str, body: str, public: bool, when: datetime) -> None:
        """An agent adds a comment (``public: false``: an internal note)."""
        listed = self.comments.setdefault(ticket_id, [])
        if not listed:  # as in Zendesk, the description is the ticket's first (public) comment
            t = self.tickets[ticket_id]
            listed.append({"id": 6999, "type": "Comment", "author_id": t.get("requester_id"),
                           "body": t.get("description", ""), "plain_body": t.get("description", ""),
                           "public": True, "attachments": [], "created_at": t.get("created_at")})
        listed.append({"id": 7000 + len(listed), "type": "Comment", "author_id": 9100000001,
                       "body": body, "html_body": f"<p>{body}</p>", "plain_body": body,
                       "public": public, "attachments": [], "created_at": zd_time(when)})

    def edit(self, ticket_id: str, subject: str, when: datetime) -> None:
        t = self.tickets[ticket_id]
        t["subject"] = t["raw_subject"] = subject
        t["updated_at"], t["generated_timestamp"] = zd_time(when), int(when.timestamp())

    def delete(self, ticket_id: str, when: datetime) -> None:
        t = self.tickets[ticket_id]
        t["status"] = "deleted"
        t["updated_at"], t["generated_timestamp"] = zd_time(when), int(when.timestamp())

    def touch(self, ticket_id: str, when: datetime) -> None:
        """A system update (an SLA recalculation): generated_timestamp moves, updated_at does not."""
        self.tickets[ticket_id]["generated_timestamp"] = int(when.timestamp())

    def __call__(self, path: str, query: dict[str, str], headers: dict[str, str]):
        if headers.get("authorization") != self.auth:
            return 401, {}, {"error": "Couldn't authenticate you"}
        if self.fail_next:
            status, extra = self.fail_next.pop(0)
            return status, extra, {"error": "APIRateLimitExceeded", "description": "Number of allowed "
                                   "incremental export API requests per minute exceeded"}
        if path.startswith("/api/v2/tickets/") and path.endswith("/comments.json"):
            ticket_id = path.split("/")[4]
            if ticket_id not in self.tickets:
                return 404, {}, {"error": "RecordNotFound", "description": "Not found"}
            listed = self.comments.get(ticket_id, [])
            return 200, {}, {"comments": listed, "next_page": None, "previous_page": None,
                             "count": len(listed)}
        if path != EXPORT:
            return 404, {}, {"error": "InvalidEndpoint", "description": "Not found"}
        if "cursor" in query:
            start, offset = map(int, base64.b64decode(query["cursor"]).decode().split("|"))
        else:
            start, offset = int(query["start_time"]), 0
        hits = sorted((t for t in self.tickets.values() if t["generated_timestamp"] >= start),
                      key=lambda t: (t["generated_timestamp"], t["id"]))
        per_page = int(query.get("per_page", 1000))
        page = hits[offset:offset + per_page]
        after = _cursor(start, offset + len(page))
        before = _cursor(start, max(0, offset - per_page)) if offset else None
        return 200, {}, {
            "tickets": page,
            "after_url": f"https://acme.zendesk.com{EXPORT}?cursor={after}",
            "after_cursor": after,
            "before_url": f"https://acme.zendesk.com{EXPORT}?cursor={before}" if before else None,
            "before_cursor": before,
            "end_of_stream": offset + per_page >= len(hits),
        }

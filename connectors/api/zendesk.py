"""Zendesk Support incremental ticket export (cursor based), deletions included.

Each poll starts a cursor export at ``start_time = since`` (epoch seconds) and follows
``cursor=after_cursor`` until ``end_of_stream``. The runner's checkpoint is a time, not Zendesk's
cursor: a time survives a changed scope, a restored backup or a new instance, and ``after_cursor``
only encodes a time anyway. The export compares ``start_time`` with each ticket's
``generated_timestamp`` (which also moves on system updates), so the exact window and the
high-water mark use that stamp, falling back to ``updated_at``.

Zendesk leaves out whatever changed in the minute before the request, so the cursor must
re-read at least that minute: ``overlap_s`` below 60 is refused. Rate limit: 10 requests per
minute on this endpoint; its 429s carry ``Retry-After``, which the client honours.

With ``options.comments: true`` each exported ticket's comments are read
(``GET /api/v2/tickets/{id}/comments.json``) and attached to it, so the export parser compiles the
public ones and leaves internal notes out (connectors/zendesk.py).

Deleted tickets come through the export as ``status: "deleted"`` and become deletions here.
:meth:`list_ids` reads the same export from the beginning rather than ``GET /api/v2/tickets.json``:
that listing leaves out archived tickets (closed for 120 days), and pruning against it would
delete every one of them from the wiki. Since the poll already sees deletions, pruning is only a
safety net: a high ``prune_every`` (or 0) suits large help desks.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from compiler.models import SourceRecord

from .._common import as_dict, as_list
from ..base import Connector, RecordError
from ..timefmt import parse_timestamp
from ..zendesk import DELETED, ZendeskConnector
from .base import ApiSourceConfig, ConfigError, Deletion, Page
from .client import ApiClient, ApiError

EXPORT = "/api/v2/incremental/tickets/cursor.json"
MAX_PER_PAGE = 1000
WITHHELD = timedelta(minutes=1)


def _stamp(ticket: dict[str, Any]) -> datetime | None:
    """What the export orders and filters by: ``generated_timestamp``, else ``updated_at``."""
    generated = ticket.get("generated_timestamp")
    if isinstance(generated, int | float) and not isinstance(generated, bool):
        return datetime.fromtimestamp(generated, UTC)
    try:
        return parse_timestamp(ticket["updated_at"]) if ticket.get("updated_at") else None
    except ValueError:
        return None


class ZendeskApi:
    system: ClassVar[str] = "zendesk"

    def __init__(self, cfg: ApiSourceConfig, tenant: str, client: ApiClient) -> None:
        if cfg.overlap_s < WITHHELD.total_seconds():
            client.close()
            raise ConfigError(f"zendesk/{cfg.instance}: overlap_s must be at least 60: the incremental "
                              "export withholds the last minute of changes")
        self.cfg = cfg
        self.tenant = tenant
        self.client = client
        self.parser = ZendeskConnector()
        self.per_page = min(cfg.page_size, MAX_PER_PAGE)
        self.include = cfg.options.get("include")  # e.g. "organizations": names for the references

    def _export(self, start: datetime) -> Iterator[tuple[str, bytes, dict[str, Any]]]:
        params: dict[str, Any] = {"start_time": max(0, int(start.timestamp())), "per_page": self.per_page}
        n = 0
        while True:
            if self.include:
                params["include"] = self.include
            raw, doc = self.client.get_json(EXPORT, params)
            if not isinstance(doc, dict) or not isinstance(doc.get("tickets"), list):
                raise ApiError(f"GET {EXPORT}: not an incremental ticket export (no tickets list)")
            yield f"GET {EXPORT} page {n}", raw, doc
            if doc.get("end_of_stream") is True:
                return
            after = doc.get("after_cursor")
            if not after:
                raise ApiError(f"GET {EXPORT}: end_of_stream is false but there is no after_cursor")
            params = {"cursor": after, "per_page": self.per_page}
            n += 1

    def poll(self, since: datetime, until: datetime) -> Iterator[Page]:
        src = self.cfg.source_config()
        # the export refuses a start_time inside the withheld minute; reading earlier is harmless
        for where, raw, doc in self._export(min(since, until - WITHHELD)):
            page = Page()
            stamps: dict[str, datetime] = {}
            for ticket in map(as_dict, doc["tickets"]):
                stamp = _stamp(ticket)
                if ticket.get("id") in (None, "") or stamp is None:
                    continue  # the parser names what is missing
                stamps[str(ticket["id"])] = stamp
                if ticket.get("status") == DELETED and since <= stamp < until:
                    page.items.append(Deletion("ticket", str(ticket["id"]), stamp))
                    page.high_water = max(page.high_water or stamp, stamp)
            if self.cfg.options.get("comments"):
                raw = self._with_comments(doc)
            for item in self.parser.parse(where, raw, src, self.tenant):
                if isinstance(item, SourceRecord):
                    stamp = stamps.get(item.id, item.updated_at)
                    if not since <= stamp < until:
                        continue
                    page.high_water = max(page.high_water or stamp, stamp)
                page.items.append(item)
            yield page

    def _comments(self, ticket_id: str) -> list[Any]:
        url: str | None = f"/api/v2/tickets/{ticket_id}/comments.json"
        out: list[Any] = []
        while url:
            _, doc = self.client.get_json(url)
            if not isinstance(doc, dict) or not isinstance(doc.get("comments"), list):
                raise ApiError(f"GET {url}: not a comment list (no comments list)")
            out += doc["comments"]
            nxt = doc.get("next_page")
            url = str(nxt) if isinstance(nxt, str) and nxt else None
        return out

    def _with_comments(self, doc: dict[str, Any]) -> bytes:
        """The export page with each live ticket's comments attached as ``comments``."""
        tickets = [
            {**t, "comments": self._comments(str(t["id"]))}
            if isinstance(t, dict) and t.get("id") not in (None, "") and t.get("status") != DELETED
            else t for t in doc["tickets"]]
        return json.dumps({**doc, "tickets": tickets}).encode("utf-8")

    def list_ids(self) -> Iterator[tuple[str, str]]:
        live: dict[str, bool] = {}
        for _, _, doc in self._export(datetime(1970, 1, 1, tzinfo=UTC)):
            for ticket in map(as_dict, as_list(doc.get("tickets"))):
                if ticket.get("id") not in (None, ""):
                    live[str(ticket["id"])] = ticket.get("status") != DELETED  # the latest state wins
        for ticket_id, alive in live.items():
            if alive:
                yield "ticket", ticket_id

    def export_parser(self) -> Connector:
        return self.parser

    def close(self) -> None:
        self.client.close()


__all__ = ["RecordError", "ZendeskApi"]

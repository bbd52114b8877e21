"""Salesforce REST: SOQL ``queryAll`` by ``SystemModstamp``, ``nextRecordsUrl`` paging, sharing.

``queryAll`` (not ``query``) so rows moved to the recycle bin come back with ``IsDeleted: true``
and become deletions. With ``options.sharing: true`` each page's ids are looked up in the
object's share table (``AccountShare``, ``Custom__Share``…) and the users and groups found
become the record's ACL: Salesforce sharing travels onto the claims. Records are parsed by
:class:`connectors.salesforce.SalesforceConnector`, the export parser.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, ClassVar

from compiler.models import ACL, SourceRecord

from ..base import Connector, RecordError
from ..salesforce import SalesforceConnector
from ..timefmt import parse_timestamp
from .base import ApiSourceConfig, Deletion, Page
from .client import ApiClient

DEFAULT_API_VERSION = "v59.0"
DEFAULT_FIELDS = ("Id", "Name", "Description", "SystemModstamp", "IsDeleted")
# standard objects name the parent column after themselves; custom share tables use ParentId
_SHARE_PARENT = {"Account": "AccountId", "Opportunity": "OpportunityId", "Case": "CaseId",
                 "Lead": "LeadId", "Contact": "ContactId"}


def _soql_time(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _share_object(sobject: str) -> str:
    return sobject[:-3] + "__Share" if sobject.endswith("__c") else sobject + "Share"


class SalesforceApi:
    system: ClassVar[str] = "salesforce"

    def __init__(self, cfg: ApiSourceConfig, tenant: str, client: ApiClient) -> None:
        self.cfg = cfg
        self.tenant = tenant
        self.client = client
        self.parser = SalesforceConnector()
        self.version = str(cfg.options.get("api_version", DEFAULT_API_VERSION))
        self.objects = cfg.scope or ["Account"]

    def _fields(self, sobject: str) -> str:
        extra = self.cfg.options.get("fields", {}).get(sobject, [])
        return ", ".join(dict.fromkeys([*DEFAULT_FIELDS, *extra]))

    def _query(self, soql: str, all_rows: bool = True) -> Iterator[tuple[str, bytes, dict[str, Any]]]:
        url = f"/services/data/{self.version}/{'queryAll' if all_rows else 'query'}"
        params: dict[str, Any] | None = {"q": soql}
        while True:
            raw, doc = self.client.get_json(url, params)
            if not isinstance(doc, dict) or not isinstance(doc.get("records"), list):
                raise ValueError(f"GET {url}: not a query response (no records list)")
            yield url, raw, doc
            nxt = doc.get("nextRecordsUrl")
            if doc.get("done", True) or not nxt:
                return
            url, params = str(nxt), None

    def poll(self, since: datetime, until: datetime) -> Iterator[Page]:
        src = self.cfg.source_config()
        for sobject in self.objects:
            soql = (f"SELECT {self._fields(sobject)} FROM {sobject} "
                    f"WHERE SystemModstamp >= {_soql_time(since)} AND SystemModstamp < {_soql_time(until)} "
                    "ORDER BY SystemModstamp ASC, Id ASC")
            for where, raw, doc in self._query(soql):
                page = Page()
                for row in doc["records"]:
                    if isinstance(row, dict) and row.get("IsDeleted") is True and row.get("Id"):
                        stamp = parse_timestamp(str(row.get("SystemModstamp") or _soql_time(until)))
                        page.items.append(Deletion(sobject, str(row["Id"]), stamp))
                        page.high_water = max(page.high_water or stamp, stamp)
                records = list(self.parser.parse(where, raw, src, self.tenant))
                acls = self._sharing(sobject, [r.id for r in records if isinstance(r, SourceRecord)])
                for item in records:
                    if isinstance(item, SourceRecord):
                        if item.id in acls:
                            # re-validate rather than model_copy: key and digest are cached
                            item = SourceRecord.model_validate(
                                {**item.model_dump(exclude={"key", "sha256"}), "acl": acls[item.id]})
                        page.high_water = max(page.high_water or item.updated_at, item.updated_at)
                    page.items.append(item)
                yield page

    def _sharing(self, sobject: str, ids: list[str]) -> dict[str, ACL]:
        """ACL per record id from the object's share table (``options.sharing``)."""
        if not self.cfg.options.get("sharing") or not ids:
            return {}
        parent = _SHARE_PARENT.get(sobject, "ParentId")
        quoted = ", ".join("'" + i.replace("'", "") + "'" for i in ids)
        soql = f"SELECT {parent}, UserOrGroupId FROM {_share_object(sobject)} WHERE {parent} IN ({quoted})"
        users: dict[str, set[str]] = {}
        groups: dict[str, set[str]] = {}
        for _, _, doc in self._query(soql, all_rows=False):
            for row in doc["records"]:
                rid, who = str(row.get(parent) or ""), str(row.get("UserOrGroupId") or "")
                if not rid or not who:
                    continue
                # 005… are users, 00G… groups/roles (Salesforce key prefixes)
                (users if who.startswith("005") else groups).setdefault(rid, set()).add(who)
        names = self.cfg.options.get("sharing_groups", {})
        out = {}
        for rid in set(users) | set(groups):
            out[rid] = ACL(users=tuple(users.get(rid, ())),
                           groups=tuple(names.get(g, g) for g in groups.get(rid, ())))
        return out

    def list_ids(self) -> Iterator[tuple[str, str]]:
        for sobject in self.objects:
            for _, _, doc in self._query(f"SELECT Id FROM {sobject} ORDER BY Id", all_rows=False):
                for row in doc["records"]:
                    if isinstance(row, dict) and row.get("Id"):
                        yield sobject, str(row["Id"])

    def export_parser(self) -> Connector:
        return self.parser

    def close(self) -> None:
        self.client.close()


__all__ = ["RecordError", "SalesforceApi"]

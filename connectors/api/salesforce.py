"""Salesforce REST: SOQL ``queryAll`` by ``SystemModstamp``, ``nextRecordsUrl`` paging, sharing.

``queryAll`` (not ``query``) so rows moved to the recycle bin come back with ``IsDeleted: true``
and become deletions. For an object whose ``options.sharing_model`` is ``Private`` (or that has a
``privacy_rules`` entry, or with ``options.sharing: true``) the query also selects ``OwnerId``
and the rule's field, and each page's ids are looked up in the object's share table
(``AccountShare``, ``Custom__Share``…). The share rows are attached to their records as the
``Shares`` child subquery an export carries, so the export parser
(:class:`connectors.salesforce.SalesforceConnector`) decides every record's ACL the same way in
both modes.

``options.sharing_model: from-org`` reads the org-wide defaults of the standard objects from the
``Organization`` object (``DefaultAccountAccess``…) at the first poll instead of declaring them;
objects it does not cover (custom objects) then need a declared default or are undetermined.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, ClassVar

from compiler.models import SourceRecord

from ..base import Connector, RecordError
from ..salesforce import SalesforceConnector
from ..timefmt import parse_timestamp
from .base import ApiSourceConfig, Deletion, Page
from .client import ApiClient

DEFAULT_API_VERSION = "v59.0"
DEFAULT_FIELDS = ("Id", "Name", "Description", "SystemModstamp", "IsDeleted")
# standard objects name the parent column after themselves; custom share tables use ParentId
# Organization's default-access fields and how sources.yaml spells their values
_ORG_FIELDS = {"Account": "DefaultAccountAccess", "Contact": "DefaultContactAccess",
               "Opportunity": "DefaultOpportunityAccess", "Lead": "DefaultLeadAccess",
               "Case": "DefaultCaseAccess"}
_ORG_VALUES = {"None": "Private", "Read": "Read", "Edit": "ReadWrite",
               "ReadEditTransfer": "ReadWriteTransfer", "ControlledByParent": "ControlledByParent"}
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

    def _org_defaults(self) -> None:
        """Replace ``sharing_model: from-org`` by what the org says, once."""
        if self.cfg.options.get("sharing_model") != "from-org":
            return
        soql = f"SELECT {', '.join(_ORG_FIELDS.values())} FROM Organization"
        rows = [r for _, _, doc in self._query(soql, all_rows=False) for r in doc["records"]]
        org = rows[0] if rows and isinstance(rows[0], dict) else {}
        model = {sobject: _ORG_VALUES.get(str(org.get(field)), str(org.get(field)))
                 for sobject, field in _ORG_FIELDS.items() if org.get(field)}
        declared = self.cfg.options.get("sharing_model_overrides") or {}
        options = {**self.cfg.options, "sharing_model": {**model, **declared}}
        self.cfg = self.cfg.model_copy(update={"options": options})

    def _private(self, sobject: str) -> bool:
        """Whether the object's records need their owner and share rows to decide the ACL."""
        opts = self.cfg.options
        model = opts.get("sharing_model")
        model = model if isinstance(model, dict) else {}
        declared = str(model.get(sobject, model.get("default", ""))).replace(" ", "").lower()
        return bool(opts.get("sharing")) or declared == "private" or \
            sobject in (opts.get("privacy_rules") or {})

    def _fields(self, sobject: str) -> str:
        extra = list(self.cfg.options.get("fields", {}).get(sobject, []))
        if self._private(sobject) or self.cfg.options.get("sharing_model"):
            extra.append("OwnerId")
        rule = (self.cfg.options.get("privacy_rules") or {}).get(sobject) or {}
        if rule.get("field"):
            extra.append(str(rule["field"]))
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
        self._org_defaults()
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
                if self._private(sobject):
                    raw = self._with_shares(sobject, doc)
                for item in self.parser.parse(where, raw, src, self.tenant):
                    if isinstance(item, SourceRecord):
                        page.high_water = max(page.high_water or item.updated_at, item.updated_at)
                    page.items.append(item)
                yield page

    def _with_shares(self, sobject: str, doc: dict[str, Any]) -> bytes:
        """The page with each record's share rows attached as its ``Shares`` subquery."""
        ids = [str(r["Id"]) for r in doc["records"]
               if isinstance(r, dict) and r.get("Id") and r.get("IsDeleted") is not True]
        shares = self._share_rows(sobject, ids)
        rows = [{**r, "Shares": {"totalSize": len(shares.get(str(r.get("Id")), [])), "done": True,
                                 "records": shares.get(str(r.get("Id")), [])}}
                if isinstance(r, dict) and r.get("Id") else r for r in doc["records"]]
        return json.dumps({**doc, "records": rows}).encode("utf-8")

    def _share_rows(self, sobject: str, ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        """Rows of the object's share table per record id."""
        if not ids:
            return {}
        parent = _SHARE_PARENT.get(sobject, "ParentId")
        quoted = ", ".join("'" + i.replace("'", "") + "'" for i in ids)
        soql = (f"SELECT {parent}, UserOrGroupId, RowCause FROM {_share_object(sobject)} "
                f"WHERE {parent} IN ({quoted})")
        out: dict[str, list[dict[str, Any]]] = {}
        for _, _, doc in self._query(soql, all_rows=False):
            for row in doc["records"]:
                if isinstance(row, dict) and row.get(parent) and row.get("UserOrGroupId"):
                    out.setdefault(str(row[parent]), []).append(row)
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

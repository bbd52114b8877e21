"""Salesforce API connector: queryAll paging by nextRecordsUrl, IsDeleted rows, sharing ACLs,
against a real local HTTP server answering in the query envelope of the REST API."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from connectors.api.base import ApiSourceConfig, AuthConfig, Deletion
from connectors.api.registry import make_api_connector
from compiler.models import SourceRecord
from http_replay import serve

FIXTURES = Path(__file__).parent / "fixtures"


def _row(i: int, deleted: bool = False) -> dict:
    rid = f"0015g00000ABC{i:03d}"
    return {"attributes": {"type": "Account", "url": f"/services/data/v59.0/sobjects/Account/{rid}"},
            "Id": rid, "Name": f"Customer {i}", "Description": f"Account {i}.", "IsDeleted": deleted,
            "OwnerId": "0055g00000OwnerAAA", "SystemModstamp": f"2026-11-01T09:{i:02d}:00.000+0000"}


def test_query_all_pages_deletions_and_sharing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_SF", "00D-token")
    first = json.loads((FIXTURES / "query_paginated_first_page_response.json").read_text())
    last = json.loads((FIXTURES / "query_paginated_last_page_response.json").read_text())
    pages = {
        "first": {**first, "totalSize": 3, "records": [_row(1), _row(2, deleted=True)],
                  "nextRecordsUrl": "/services/data/v59.0/query/01gD-2000"},
        "last": {**last, "totalSize": 3, "records": [_row(3)]},
    }
    seen: list[str] = []

    def handler(path: str, query: dict[str, str], headers: dict[str, str]):  # type: ignore[no-untyped-def]
        if headers.get("authorization") != "Bearer 00D-token":
            return 401, {}, [{"errorCode": "INVALID_SESSION_ID", "message": "Session expired or invalid"}]
        q = query.get("q", "")
        seen.append(q or path)
        if "FROM AccountShare" in q:
            return 200, {}, {"totalSize": 2, "done": True, "records": [
                {"attributes": {"type": "AccountShare"}, "AccountId": "0015g00000ABC001", "UserOrGroupId": "00G5g000001Sales"},
                {"attributes": {"type": "AccountShare"}, "AccountId": "0015g00000ABC001", "UserOrGroupId": "0055g00000Carol"}]}
        if path.endswith("/queryAll"):
            return 200, {}, pages["first"]
        if path.endswith("/query/01gD-2000"):
            return 200, {}, pages["last"]
        return 404, {}, [{"errorCode": "NOT_FOUND"}]

    with serve(handler) as server:
        cfg = ApiSourceConfig(system="salesforce", instance="prod", base_url=server.url, scope=["Account"],
                              auth=AuthConfig(kind="bearer", token_env="T_SF"),
                              options={"sharing": True, "sharing_groups": {"00G5g000001Sales": "sales"}})
        conn = make_api_connector(cfg, "acme", sleep=lambda s: None)
        items = [i for page in conn.poll(datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 11, 2, tzinfo=UTC))
                 for i in page.items]
        conn.close()
    assert "WHERE SystemModstamp >= 2026-11-01T00:00:00.000Z AND SystemModstamp < 2026-11-02" in seen[0]
    records = [i for i in items if isinstance(i, SourceRecord)]
    deletions = [i for i in items if isinstance(i, Deletion)]
    assert [r.title for r in records] == ["Customer 1", "Customer 3"]
    assert deletions == [Deletion("Account", "0015g00000ABC002", datetime(2026, 11, 1, 9, 2, tzinfo=UTC))]
    assert "OwnerId" in seen[0]  # a private object's owner is selected
    acl = records[0].acl  # owner and share rows, users as salesforce:<id>, groups mapped
    assert acl.groups == ("sales",)
    # a 15-character id (as the UI shows it) is written in its 18-character API form
    assert acl.users == ("salesforce:0055g00000CarolAAB", "salesforce:0055g00000OwnerAAA")
    # no share rows: the owner alone (the object is private: sharing: true)
    assert records[1].acl.users == ("salesforce:0055g00000OwnerAAA",) and not records[1].acl.groups

"""Salesforce REST query exports, against the real shared fixtures and inline payloads."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from compiler.models import ACL, Reference, SourceRecord
from connectors.base import RecordError, SourceConfig
from connectors.salesforce import SalesforceConnector

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"
MODSTAMP = "2024-04-02T08:15:00.000+0000"


def _source(**options: Any) -> SourceConfig:
    return SourceConfig(path="sf", system="salesforce", instance="acme-prod", options=options)


def _parse(doc: Any, path: str = "salesforce/accounts.json", source: SourceConfig | None = None) -> list[Any]:
    data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return list(SalesforceConnector().parse(path, data, source or _source(), "acme"))


def _fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / "salesforce" / name).read_text())


def _records(out: list[Any]) -> list[SourceRecord]:
    return [r for r in out if isinstance(r, SourceRecord)]


def _errors(out: list[Any]) -> list[RecordError]:
    return [r for r in out if isinstance(r, RecordError)]


def _opportunity(record_id: str = "006A000000Opp01", **extra: Any) -> dict[str, Any]:
    row = {
        "attributes": {"type": "Opportunity", "url": f"/services/data/v59.0/sobjects/Opportunity/{record_id}"},
        "Id": record_id,
        "Name": "Acme renewal 2024",
        "StageName": "Negotiation",
        "Amount": 120000.0,
        "Probability": 60,
        "IsClosed": False,
        "CloseDate": "2024-06-30",
        "Description": "Three-year renewal.",
        "AccountId": "001A000000Acc01",
        "Account": {"attributes": {"type": "Account", "url": "/x/001A000000Acc01"}, "Name": "Acme Corp"},
        "Primary_Product__c": "01tA0000000Prd1",
        "Primary_Product__r": {"attributes": {"type": "Product2"}, "Name": "Widget Pro"},
        "OwnerId": "005A0000000Own1",
        "CreatedById": "005A0000000Own1",
        "CreatedDate": "2024-01-01T00:00:00.000+0000",
        "SystemModstamp": MODSTAMP,
        "LastModifiedDate": "2024-04-01T00:00:00.000+0000",
        "NextStep": None,
    }
    row.update(extra)
    return row


# -- real fixtures ---------------------------------------------------------------------------------------


def test_real_query_response_lacks_systemmodstamp() -> None:
    out = _parse((FIXTURES / "salesforce" / "query_success_response.json").read_bytes())
    (err,) = out
    assert isinstance(err, RecordError)
    # no Id selected: the record is named by the tail of attributes.url
    assert (err.record, err.field) == ("foo", "SystemModstamp")


def test_real_query_response_needs_a_name_too() -> None:
    doc = _fixture("query_success_response.json")
    doc["records"][0]["SystemModstamp"] = MODSTAMP
    (err,) = _parse(doc)
    assert isinstance(err, RecordError) and (err.record, err.field) == ("foo", "Name")


def test_real_query_response_relationships_become_references() -> None:
    doc = _fixture("query_success_response.json")
    doc["records"][0].update(SystemModstamp=MODSTAMP, Name="My Whizbang")
    (record,) = _records(_parse(doc, source=_source(instance_url="https://acme.my.salesforce.com/")))
    assert record.id == "foo"  # from attributes.url
    assert record.type == "Whizbang" and record.container == "Whizbang"
    assert record.entity_type == "whizbang"
    assert record.key == "acme/salesforce/acme-prod/Whizbang/foo"
    assert record.url == "https://acme.my.salesforce.com/services/data/v20.0/sobjects/Whizbang/foo"
    assert record.updated_at == datetime(2024, 4, 2, 8, 15, tzinfo=UTC)
    assert record.references == (
        Reference(relation="parentwhizbang", target_type="whizbang", target_name="Parent Whizbang"),
        Reference(relation="whizbangs", target_type="whizbang", target_name="Child Whizbang"),
    )
    assert record.fields == {
        "Checkbox_Label": False,
        "Text_Label": "Hi there!",
        "Date_Label": "2010-01-01",
        "DateTime_Label": "2011-07-07T00:37:00.000+0000",
        "Picklist_Multiselect_Label": "four;six",
    }
    assert record.body == "" and record.status is None
    assert record.acl == ACL(groups=("staff",))
    assert record.origin == "salesforce/accounts.json#records[0]"


def test_real_paginated_pages() -> None:
    first = _fixture("query_paginated_first_page_response.json")
    last = _fixture("query_paginated_last_page_response.json")
    assert first["done"] is False and "nextRecordsUrl" in first
    for page in (first, last):
        (err,) = _parse(page)
        assert isinstance(err, RecordError) and err.field == "SystemModstamp"
        page["records"][0].update(SystemModstamp=MODSTAMP, Name="Whizbang foo")
    (a,) = _records(_parse(first, path="sf/page1.json"))
    (b,) = _records(_parse(last, path="sf/page2.json"))
    assert (a.fields["Text_Label"], b.fields["Text_Label"]) == ("First Page", "Last Page")
    assert a.origin == "sf/page1.json#records[0]" and b.origin == "sf/page2.json#records[0]"
    assert a.url == "/services/data/v20.0/sobjects/Whizbang/foo"  # no instance_url configured


def test_real_get_deleted_response_yields_nothing() -> None:
    assert _parse((FIXTURES / "salesforce" / "get_deleted_success_response.json").read_bytes()) == []


# -- mapping ------------------------------------------------------------------------------------------------


def test_opportunity_maps_fields_references_and_status() -> None:
    (record,) = _records(_parse({"totalSize": 1, "done": True, "records": [_opportunity()]}))
    assert record.id == "006A000000Opp01" and record.title == "Acme renewal 2024"
    assert record.version == MODSTAMP  # SystemModstamp wins over LastModifiedDate
    assert record.entity_type == "opportunity" and record.status == "Negotiation"
    assert record.body == "Three-year renewal."
    assert record.fields == {
        "StageName": "Negotiation",
        "Amount": 120000.0,
        "Probability": 60,
        "IsClosed": False,
        "CloseDate": "2024-06-30",
    }
    assert record.references == (
        Reference(relation="account", target_type="account", target_name="Acme Corp"),
        Reference(relation="primary product", target_type="product", target_name="Widget Pro"),
    )


def test_lookup_ids_without_relationship_are_kept() -> None:
    row = _opportunity()
    del row["Account"]
    (record,) = _records(_parse({"records": [row]}))
    assert record.fields["AccountId"] == "001A000000Acc01"
    assert "OwnerId" not in record.fields


def test_last_modified_date_fallback_and_title_fallbacks() -> None:
    rows = [
        {"attributes": {"type": "Contact"}, "Id": "003A", "FirstName": "Ada", "LastName": "Lovelace", "LastModifiedDate": MODSTAMP},
        {"attributes": {"type": "Lead"}, "Id": "00QA", "LastName": "Solo", "SystemModstamp": MODSTAMP, "Status": "Open"},
        {"attributes": {"type": "Task"}, "Id": "00TA", "Subject": "Call back", "SystemModstamp": MODSTAMP},
        {"attributes": {"type": "Case"}, "Id": "500A", "CaseNumber": "00001026", "Status": "New", "SystemModstamp": MODSTAMP},
        {"attributes": {"type": "Custom_Thing__c"}, "Id": "a00A", "Name": "Thing", "SystemModstamp": MODSTAMP},
    ]
    records = _records(_parse({"records": rows}))
    assert [(r.title, r.entity_type, r.status) for r in records] == [
        ("Ada Lovelace", "contact", None),
        ("Solo", "contact", "Open"),
        ("Call back", "task", None),
        ("00001026", "ticket", "New"),
        ("Thing", "custom-thing", None),
    ]
    assert records[0].version == MODSTAMP


def test_deleted_rows_yield_nothing() -> None:
    out = _parse({"records": [_opportunity("1", IsDeleted=True), _opportunity("2", IsDeleted=False)]})
    assert [r.id for r in _records(out)] == ["2"]
    assert not _errors(out)


# -- bad records among good ones -------------------------------------------------------------------------


def test_missing_id_and_url_named_by_position() -> None:
    row = _opportunity()
    del row["Id"]
    del row["attributes"]["url"]
    out = _parse({"records": [_opportunity("1"), row, _opportunity("3")]})
    assert [r.id for r in _records(out)] == ["1", "3"]
    (err,) = _errors(out)
    assert (err.record, err.field) == ("records[1]", "Id")


def test_missing_type_bad_modstamp_and_no_title() -> None:
    no_type = _opportunity("1")
    del no_type["attributes"]
    bad_stamp = _opportunity("2", SystemModstamp="2024-99-99")
    untitled = _opportunity("3")
    del untitled["Name"]
    out = _parse({"records": [no_type, bad_stamp, untitled, _opportunity("4")]})
    assert [(e.record, e.field) for e in _errors(out)] == [
        ("1", "attributes.type"),
        ("2", "SystemModstamp"),
        ("3", "Name"),
    ]
    assert [r.id for r in _records(out)] == ["4"]


def test_control_characters_in_name_are_a_title_error() -> None:
    out = _parse({"records": [_opportunity("1", Name="Acme\x1bCorp"), _opportunity("2")]})
    (err,) = _errors(out)
    assert (err.record, err.field) == ("1", "title")
    assert [r.id for r in _records(out)] == ["2"]


def test_path_like_name_is_accepted() -> None:
    (record,) = _records(_parse({"records": [_opportunity(Name="../../etc/passwd")]}))
    assert record.title == "../../etc/passwd"


def test_sha256_stable_and_changes_with_description() -> None:
    (a,) = _records(_parse({"records": [_opportunity()]}, path="p1.json"))
    (b,) = _records(_parse({"records": [_opportunity()]}, path="p2.json"))
    assert a.sha256 == b.sha256 and a.origin != b.origin
    (c,) = _records(_parse({"records": [_opportunity(Description="Two-year renewal.")]}))
    assert c.sha256 != a.sha256

"""Zendesk ticket exports: the incremental cursor export payload (written from the API reference)."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from compiler.models import ACL, Reference, SourceRecord
from connectors.base import RecordError, SourceConfig
from connectors.registry import get_connector
from connectors.zendesk import ZendeskConnector

FIXTURE = Path(__file__).parent / "fixtures" / "zendesk_incremental_tickets_cursor.json"
NAMES = {"360001234": "Customer", "360001235": "Region", "360001236": "Invoice"}


def _source(**options: Any) -> SourceConfig:
    return SourceConfig(path="zendesk", system="zendesk", instance="acme", options=options)


def _doc() -> dict[str, Any]:
    return json.loads(FIXTURE.read_text())


def _parse(doc: Any, source: SourceConfig | None = None, path: str = "zendesk/tickets.json") -> list[Any]:
    data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return list(ZendeskConnector().parse(path, data, source or _source(custom_field_names=NAMES), "acme"))


def _records(out: list[Any]) -> dict[str, SourceRecord]:
    return {r.id: r for r in out if isinstance(r, SourceRecord)}


def test_incremental_export_maps_every_ticket_and_skips_the_deleted_one() -> None:
    out = _parse(FIXTURE.read_bytes())
    assert not [e for e in out if isinstance(e, RecordError)]
    records = _records(out)
    assert sorted(records) == ["35436", "35437", "35438"]  # 35439 has status "deleted"
    r = records["35436"]
    assert (r.system, r.instance, r.type, r.entity_type) == ("zendesk", "acme", "ticket", "ticket")
    assert r.key == "acme/zendesk/acme/ticket/35436"
    assert r.title == "Edge gateway drops VPN tunnels after firmware 4.2" and r.name == "Ticket #35436"
    assert r.version == "2026-11-01T09:00:00Z" and r.updated_at == datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    assert r.url == "https://acme.zendesk.com/agent/tickets/35436"
    assert r.body.endswith("every few hours.\nGlobex IT")  # CRLF from e-mail normalised
    assert r.status == "open" and r.labels == ("edge", "firmware", "vpn")
    assert r.fields["priority"] == "high" and r.fields["type"] == "incident"
    assert r.fields["organization_id"] == 360000111 and r.fields["requester_id"] == 9000000001
    # named custom fields only; a multi-select is joined; null values are left out
    assert (r.fields["Customer"], r.fields["Region"]) == ("Globex Corporation", "emea, tier_1")
    assert "Invoice" not in r.fields and not any(k.startswith("360") for k in r.fields)
    assert records["35437"].fields["Invoice"] == "INV-2026-1101" and "Region" not in records["35437"].fields
    assert r.origin == "zendesk/tickets.json#tickets[0]"


def test_acl_is_the_default_readers_plus_the_organization() -> None:
    records = _records(_parse(_doc()))
    # the requester reads their own ticket (zendesk:<requester_id>, a directory identity)
    assert records["35436"].acl == ACL(users=("zendesk:9000000001",),
                                       groups=("staff", "zendesk-org-360000111"))
    assert records["35437"].acl == ACL(users=("zendesk:9000000002",),
                                       groups=("staff", "zendesk-org-360000222"))
    # no organization: agents and the requester only
    assert records["35438"].acl == ACL(users=("zendesk:9000000003",), groups=("staff",))
    source = SourceConfig(path="z", system="zendesk", instance="acme", default_acl=ACL(groups=("agents",)),
                          options={"organization_groups": {"360000111": ["customer-globex"]},
                                   "organization_group_prefix": "org:"})
    records = _records(_parse(_doc(), source=source))
    assert records["35436"].acl.groups == ("agents", "customer-globex")
    assert records["35437"].acl.groups == ("agents", "org:360000222")


def test_organization_reference_by_name_from_sideload_or_options_else_by_id() -> None:
    refs = {k: r.references for k, r in _records(_parse(_doc())).items()}
    assert refs["35436"] == (Reference(relation="organization", target_type="account",
                                       target_name="Zendesk organization 360000111"),)
    doc = _doc()
    doc["organizations"] = [{"id": 360000111, "name": "Globex Corporation", "url": "https://acme.zendesk.com/api/v2/organizations/360000111.json"}]
    records = _records(_parse(doc, source=_source(organization_names={"360000222": "Initech"})))
    assert records["35436"].references == (
        Reference(relation="organization", target_type="account", target_name="Globex Corporation"),)
    assert records["35437"].references[0].target_name == "Initech"


def test_single_ticket_show_response_and_missing_subject() -> None:
    ticket = copy.deepcopy(_doc()["tickets"][2])
    ticket["subject"] = ticket["raw_subject"] = None
    (record,) = _parse({"ticket": ticket})
    assert isinstance(record, SourceRecord)
    assert record.title == "Ticket #35438" and record.origin == "zendesk/tickets.json#ticket"


def test_bad_tickets_are_named_and_the_rest_still_yield() -> None:
    doc = _doc()
    del doc["tickets"][0]["updated_at"]
    doc["tickets"][1]["updated_at"] = "yesterday"
    del doc["tickets"][2]["id"]
    out = _parse(doc)
    errors = [e for e in out if isinstance(e, RecordError)]
    assert [(e.record, e.field) for e in errors] == [
        ("35436", "updated_at"), ("35437", "updated_at"), ("tickets[2]", "id")]
    assert "yesterday" in errors[1].message and "zendesk/tickets.json [record 35436]" in str(errors[0])


def test_not_a_ticket_export_is_one_error() -> None:
    (err,) = _parse({"users": []})
    assert isinstance(err, RecordError) and err.record is None and "tickets" in err.message


def test_registered_and_digest_follows_the_version() -> None:
    assert isinstance(get_connector("zendesk"), ZendeskConnector)
    a = _records(_parse(_doc()))["35436"]
    doc = _doc()
    doc["tickets"][0]["updated_at"] = "2026-11-02T10:00:00Z"
    b = _records(_parse(doc))["35436"]
    assert a.sha256 == _records(_parse(_doc(), path="other.json"))["35436"].sha256  # origin is not content
    assert a.sha256 != b.sha256 and b.version == "2026-11-02T10:00:00Z"

"""HubSpot CRM v3 object exports: list, search and archived payloads (written from the API reference)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from compiler.models import ACL, Reference, SourceRecord
from connectors.base import RecordError, SourceConfig
from connectors.hubspot import HubSpotConnector, object_type_for
from connectors.registry import get_connector

FIXTURES = Path(__file__).parent / "fixtures"


def _source(**options: Any) -> SourceConfig:
    return SourceConfig(path="hubspot", system="hubspot", instance="portal-4711", options=options,
                        default_acl=ACL(groups=("sales",)))


def _doc(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text())


def _parse(doc: Any, path: str = "hubspot/companies.json", source: SourceConfig | None = None) -> list[Any]:
    data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return list(HubSpotConnector().parse(path, data, source or _source(), "acme"))


def _records(out: list[Any]) -> list[SourceRecord]:
    return [r for r in out if isinstance(r, SourceRecord)]


def test_company_list_page_maps_every_field() -> None:
    out = _parse((FIXTURES / "hubspot_companies_page_1.json").read_bytes(), source=_source(portal_id="4711"))
    globex, initech = _records(out)
    assert len(out) == 2
    assert (globex.type, globex.id, globex.entity_type, globex.container) == ("company", "18190542101", "account", "companies")
    assert globex.key == "acme/hubspot/portal-4711/company/18190542101"
    assert globex.title == "Globex Corporation" and globex.body.startswith("Globex runs Acme Edge")
    assert globex.version == "2026-11-01T09:00:00.000Z"
    assert initech.updated_at == datetime(2026, 11, 1, 9, 1, 0, 250000, tzinfo=UTC)
    assert globex.fields == {"city": "Springfield", "createdate": "2026-06-01T08:00:00.000Z",
                             "domain": "globex.example", "industry": "COMPUTER_SOFTWARE"}
    assert globex.url == "https://app.hubspot.com/contacts/4711/record/0-2/18190542101"
    assert globex.acl == ACL(groups=("sales",))  # no per-record sharing in HubSpot: the default
    assert globex.origin == "hubspot/companies.json#results[0]"


def test_contact_search_response_uses_lastmodifieddate_names_and_company_reference() -> None:
    hank, peter = _records(_parse(_doc("hubspot_contacts_search.json"), path="export/contacts/search-1.json"))
    assert (hank.type, hank.entity_type, hank.title) == ("contact", "contact", "Hank Scorpio")
    assert hank.version == "2026-11-01T09:00:30.000Z" and hank.status == "customer"
    assert hank.references == (Reference(relation="company", target_type="account", target_name="Globex Corporation"),)
    assert peter.title == "peter@initech.example" and not peter.references  # no name: the e-mail
    assert hank.url is None  # no portal_id configured


def test_archived_objects_are_skipped() -> None:
    assert _parse(_doc("hubspot_companies_archived.json")) == []


def test_object_type_from_options_or_path_else_one_error() -> None:
    assert object_type_for("deals.json", _source()) == "deals"
    assert object_type_for("crm/contacts/page-2.json", _source()) == "contacts"
    assert object_type_for("companies-2026-11.json", _source()) == "companies"
    assert object_type_for("anything.json", _source(object_type="deals")) == "deals"
    (err,) = _parse(_doc("hubspot_companies_page_1.json"), path="export/page-1.json")
    assert isinstance(err, RecordError) and err.field == "options.object_type"
    assert "companies, contacts, deals" in err.message


def test_single_object_and_deal_mapping() -> None:
    deal = {"id": "9001", "properties": {"dealname": "Globex renewal 2027", "dealstage": "contractsent",
                                         "amount": "120000", "hs_lastmodifieddate": "2026-11-02T10:00:00Z"},
            "createdAt": "2026-10-01T10:00:00Z", "updatedAt": "2026-11-02T10:00:00Z", "archived": False}
    (record,) = _records(_parse(deal, path="deals/9001.json"))
    assert (record.type, record.entity_type, record.status) == ("deal", "opportunity", "contractsent")
    assert record.fields == {"amount": "120000", "dealstage": "contractsent"}
    assert record.origin == "deals/9001.json"


def test_bad_objects_are_named_and_the_rest_still_yield() -> None:
    doc = _doc("hubspot_companies_page_1.json")
    doc["results"][0]["properties"]["name"] = doc["results"][0]["properties"]["domain"] = None
    del doc["results"][1]["id"]
    doc["results"].append(42)
    out = _parse(doc)
    errors = [e for e in out if isinstance(e, RecordError)]
    assert [(e.record, e.field) for e in errors] == [
        ("18190542101", "properties.name"), ("results[1]", "id"), ("results[2]", None)]
    assert "no name or domain" in errors[0].message


def test_version_falls_back_to_updated_at_and_bad_dates_are_errors() -> None:
    doc = _doc("hubspot_companies_page_2.json")
    del doc["results"][0]["properties"]["hs_lastmodifieddate"]
    (record,) = _records(_parse(doc))
    assert record.version == "2026-11-01T09:02:00.500Z"
    doc["results"][0]["updatedAt"] = "last week"
    (err,) = _parse(doc)
    assert isinstance(err, RecordError) and err.field == "properties.hs_lastmodifieddate"


def test_registered_with_the_json_suffix() -> None:
    assert isinstance(get_connector("hubspot"), HubSpotConnector)
    assert HubSpotConnector.file_suffixes == (".json",)


def _deal(**extra: Any) -> dict[str, Any]:
    return {"id": "13720094455", "properties": {
        "dealname": "Harborview USD - Assess expansion", "amount": "62500",
        "hs_lastmodifieddate": "2026-11-20T17:05:12.008Z"},
        "createdAt": "2026-10-06T16:44:09.310Z", "updatedAt": "2026-11-20T17:05:12.008Z",
        "archived": False, **extra}


def test_associations_become_references_by_the_associated_records_alias() -> None:
    """A deal names its company only through ``associations`` (kestrel's deals): the deal
    page did not link to its company."""
    deal = _deal(associations={
        "companies": {"results": [{"id": "9284710034", "type": "deal_to_company"},
                                  {"id": "9284710034", "type": "deal_to_company_unlabeled"}]},
        "contacts": {"results": [{"id": "40587", "type": "deal_to_contact"}]},
        "p_shipments": {"results": [{"id": "77", "type": "deal_to_shipment"}]}})
    (record,) = _records(_parse({"results": [deal]}, path="hubspot/deals.json"))
    assert record.references == (
        Reference(relation="company", target_type="account", target_name="HubSpot company 9284710034"),
        Reference(relation="contact", target_type="contact", target_name="HubSpot contact 40587"),
        Reference(relation="p shipments", target_type=None, target_name="HubSpot p shipments 77"),
    )
    # every record goes by that name, so the reference resolves to it when it is exported
    company = {"id": "9284710034", "properties": {"name": "Harborview Unified School District",
                                                 "hs_lastmodifieddate": "2026-11-20T17:02:51.940Z"}}
    (harborview,) = _records(_parse({"results": [company]}))
    assert harborview.aliases == ("HubSpot company 9284710034",)
    (shipment,) = _records(_parse({"results": [{"id": "77", "properties": {
        "name": "S-77", "hs_lastmodifieddate": "2026-11-20T17:02:51.940Z"}}]},
        path="hubspot/p_shipments.json", source=_source(object_type="p_shipments")))
    assert shipment.aliases == ("HubSpot p shipments 77",)


def test_v4_associations_and_a_property_naming_the_same_relation() -> None:
    """The v4 shape (``toObjectId``, ``associationTypes``) reads the same; a contact whose
    ``company`` property names its company keeps that name, not the id."""
    v4 = _deal(associations={"companies": {"results": [
        {"toObjectId": 9284710021, "associationTypes": [
            {"category": "HUBSPOT_DEFINED", "typeId": 5, "label": "Primary"},
            {"category": "HUBSPOT_DEFINED", "typeId": 341, "label": None}]}]}})
    (record,) = _records(_parse({"results": [v4]}, path="hubspot/deals.json"))
    assert record.references == (
        Reference(relation="company", target_type="account", target_name="HubSpot company 9284710021"),)
    contact = {"id": "40551", "properties": {
        "firstname": "Angela", "lastname": "Moss", "company": "Maple Valley School District",
        "lastmodifieddate": "2026-11-12T14:22:19.006Z"},
        "associations": {"companies": {"results": [{"id": "9284710021", "type": "contact_to_company"}]},
                         "deals": {"results": [{"id": "13720094410", "type": "contact_to_deal"}]}}}
    (angela,) = _records(_parse({"results": [contact]}, path="hubspot/contacts.json"))
    assert angela.references == (
        Reference(relation="company", target_type="account", target_name="Maple Valley School District"),
        Reference(relation="deal", target_type="opportunity", target_name="HubSpot deal 13720094410"),
    )
    # no associations, or odd ones: nothing invented
    odd = _deal(associations={"companies": {"results": [{"type": "deal_to_company"}, "x"]}, "deals": None})
    (record,) = _records(_parse({"results": [odd]}, path="hubspot/deals.json"))
    assert record.references == ()


def test_compiled_deal_links_to_its_associated_company(tmp_path: Path) -> None:
    """Through the compile: the deal's association resolves to the company exported in
    another file; an association whose record is not exported stays its id, unlinked."""
    from datetime import date

    from compiler.build import compile_wiki

    corpus = tmp_path / "corpus"
    (corpus / "hubspot").mkdir(parents=True)
    (corpus / "sources.yaml").write_text(
        "tenant: t\nsources:\n  - {path: hubspot, system: hubspot, instance: portal-1}\n")
    (corpus / "hubspot" / "companies.json").write_text(json.dumps({"results": [
        {"id": "9284710034", "properties": {"name": "Harborview Unified School District",
                                           "hs_lastmodifieddate": "2026-11-20T17:02:51.940Z"}}]}))
    deal = _deal(associations={"companies": {"results": [
        {"id": "9284710034", "type": "deal_to_company"}, {"id": "555", "type": "deal_to_company"}]}})
    (corpus / "hubspot" / "deals.json").write_text(json.dumps({"results": [deal]}))
    compile_wiki(corpus, tmp_path / "wiki", today=date(2026, 11, 24))
    page = (tmp_path / "wiki" / "opportunity" / "harborview-usd-assess-expansion.md").read_text()
    # shown by the company page's title, not the id the association names it by
    assert ("[[account/harborview-unified-school-district\\|Harborview Unified School District]]"
            in page)
    assert "HubSpot company 9284710034" not in page.split("---", 2)[2]
    assert "HubSpot company 555" in page and "[[account/hubspot-company-555" not in page
    company = (tmp_path / "wiki" / "account" / "harborview-unified-school-district.md").read_text()
    assert "[[opportunity/harborview-usd-assess-expansion|" in company  # referenced by the deal

"""Record privacy from every connector, in export mode (files on disk) and API mode (the
connector against a real local HTTP server in the system's API shape), and the directory that
resolves the systems' own user ids to principals."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from compiler.directory import Directory, DirectoryError, load_directory, salesforce_id18
from compiler.models import ACL, SourceRecord
from connectors.api.base import ApiSourceConfig, AuthConfig
from connectors.api.registry import make_api_connector
from connectors.base import SourceConfig
from connectors.confluence import ConfluenceConnector
from connectors.hubspot import HubSpotConnector
from connectors.jira import JiraConnector
from connectors.privacy import is_undetermined
from connectors.salesforce import SalesforceConnector
from connectors.zendesk import ZendeskConnector
from fake_confluence import FakeConfluence
from fake_hubspot import FakeHubSpot
from fake_zendesk import FakeZendesk
from http_replay import serve

FIXTURES = Path(__file__).parent / "fixtures"

# who is who across the systems (the principals' ids as their systems write them)
DIRECTORY = Directory.model_validate({"users": {
    "ann": {"groups": ["staff"], "email": "Ann@Example.com",
            "identities": {"salesforce": "0055g00000Ann01", "atlassian": "acc-ann",
                           "zendesk": 9000000001, "hubspot": "111"}},
    "ben": {"groups": ["staff", "legal"],
            "identities": {"salesforce": "0055g00000Ben01AAA", "atlassian": "acc-ben",
                           "hubspot": ["222", "223"]}},
    "cid": {"groups": ["staff", "sales-emea"]},
}})
ANN, BEN, CID = (DIRECTORY.principal(n) for n in ("ann", "ben", "cid"))


def _records(items: Any) -> dict[str, SourceRecord]:
    return {r.id: r for r in items if isinstance(r, SourceRecord)}


def _who_sees(acl: ACL) -> list[str]:
    return [p.name for p in (ANN, BEN, CID) if p is not None and acl.allows(p)]


# -- the directory ------------------------------------------------------------------------------

def test_directory_identities_and_salesforce_id_forms() -> None:
    assert ANN is not None
    # a 15-character Salesforce id is matched in its 18-character API form; e-mail lower-cased
    assert "salesforce:" + salesforce_id18("0055g00000Ann01") in ANN.identities
    assert salesforce_id18("0055g00000Ann01") == "0055g00000Ann01AAB"
    assert "email:ann@example.com" in ANN.identities
    assert {"hubspot:222", "hubspot:223"} <= set(BEN.identities)
    assert ACL(users=("zendesk:9000000001",)).allows(ANN)
    assert not ACL(users=("zendesk:9000000001",)).allows(BEN)


def test_a_system_id_is_no_name_to_go_by(tmp_path: Path) -> None:
    """``--as salesforce:0055…`` must not pass for the person with that id."""
    from compiler.models import Principal

    acl = ACL(users=("salesforce:0055g00000Ben01AAA",))
    assert not acl.allows(Principal(name="salesforce:0055g00000Ben01AAA"))
    assert acl.allows(BEN)
    path = tmp_path / "directory.yaml"
    path.write_text("users:\n  'zendesk:1': {groups: [staff]}\n")
    with pytest.raises(DirectoryError, match="no ':'"):
        load_directory(path)


def test_directory_refuses_reserved_groups_and_names_the_user(tmp_path: Path) -> None:
    path = tmp_path / "directory.yaml"
    path.write_text("users:\n  eve:\n    groups: [staff, 'folio:undetermined:x']\n")
    with pytest.raises(DirectoryError, match=r"directory.yaml: users.eve.groups"):
        load_directory(path)
    path.write_text("users:\n  eve:\n    grups: [staff]\n")
    with pytest.raises(DirectoryError, match=r"users.eve.grups"):
        load_directory(path)
    path.write_text("users:\n  carol:\n")  # a principal with no settings is fine
    assert load_directory(path).principal("carol").groups == ()


# -- Salesforce ---------------------------------------------------------------------------------

def _sf_row(rid: str, sobject: str = "Opportunity", **extra: Any) -> dict[str, Any]:
    return {"attributes": {"type": sobject, "url": f"/services/data/v59.0/sobjects/{sobject}/{rid}"},
            "Id": rid, "Name": f"Deal {rid[-3:]}", "Amount": 1000.0,
            "SystemModstamp": "2026-11-01T09:00:00.000+0000", **extra}


def _sf_source(**options: Any) -> SourceConfig:
    return SourceConfig(path="sf", system="salesforce", instance="prod",
                        default_acl=ACL(groups=("staff",)), options=options)


def _sf_parse(rows: list[dict[str, Any]], source: SourceConfig) -> dict[str, SourceRecord]:
    doc = {"totalSize": len(rows), "done": True, "records": rows}
    return _records(SalesforceConnector().parse("sf/q.json", json.dumps(doc).encode(), source, "t"))


def test_salesforce_export_org_wide_default_owner_and_share_rows() -> None:
    source = _sf_source(sharing_model={"default": "ReadWrite", "Opportunity": "Private"},
                        sharing_groups={"00G5g000001EmeaAAA": "sales-emea"},
                        private_readers={"groups": ["sales-managers"]})
    shares = {"totalSize": 1, "done": True, "records": [
        {"attributes": {"type": "OpportunityShare"}, "UserOrGroupId": "0055g00000Ben01AAA",
         "RowCause": "Manual"}]}
    records = _sf_parse([
        _sf_row("0065g00000000001", OwnerId="0055g00000Ann01AAB"),  # ann's own
        _sf_row("0065g00000000002", OwnerId="0055g00000Zed01AAA", Shares=shares),  # shared w/ ben
        _sf_row("0065g00000000003", OwnerId="0055g00000Zed01AAA"),  # nobody's we know
        # a share row of the same query file: a group grant on record 3
        {"attributes": {"type": "OpportunityShare"}, "OpportunityId": "0065g00000000003",
         "UserOrGroupId": "00G5g000001EmeaAAA", "RowCause": "Rule"},
        _sf_row("0015g00000000004", "Account", OwnerId="0055g00000Zed01AAA"),  # ReadWrite
    ], source)
    assert set(records) == {"0065g00000000001", "0065g00000000002", "0065g00000000003",
                            "0015g00000000004"}  # the share row is no record of its own
    assert _who_sees(records["0065g00000000001"].acl) == ["ann"]
    assert _who_sees(records["0065g00000000002"].acl) == ["ben"]
    assert _who_sees(records["0065g00000000003"].acl) == ["cid"]  # via the EMEA sharing rule
    assert "sales-managers" in records["0065g00000000003"].acl.groups
    assert records["0015g00000000004"].acl == ACL(groups=("staff",))  # public read/write


def test_salesforce_privacy_rule_and_undetermined_records() -> None:
    source = _sf_source(sharing_model={"Opportunity": "Read", "Contact": "ControlledByParent"},
                        privacy_rules={"Opportunity": {"field": "Confidential__c",
                                                       "private_when": [True]}},
                        restricted_acl={"groups": ["crm-admins"]})
    records = _sf_parse([
        _sf_row("0065g00000000011", Confidential__c=True, OwnerId="0055g00000Ann01AAB"),
        _sf_row("0065g00000000012", Confidential__c=False, OwnerId="0055g00000Ann01AAB"),
        _sf_row("0065g00000000013", OwnerId="0055g00000Ann01AAB"),  # rule field not exported
        _sf_row("0065g00000000014", Confidential__c=True),  # private, but whose?
        _sf_row("0035g00000000015", "Contact", FirstName="Dana", LastName="Ruiz"),
    ], source)
    assert _who_sees(records["0065g00000000011"].acl) == ["ann"]
    assert records["0065g00000000012"].acl == ACL(groups=("staff",))
    for rid, why in (("0065g00000000013", "salesforce-Opportunity-rule-field-missing"),
                     ("0065g00000000014", "salesforce-Opportunity-owner-missing"),
                     ("0035g00000000015", "salesforce-Contact-sharing-controlledbyparent")):
        acl = records[rid].acl
        assert is_undetermined(acl) == [why], rid
        assert not acl.public and _who_sees(acl) == [], rid  # never the source's default
        assert "crm-admins" in acl.groups  # the source's declared restricted readers


def test_salesforce_queue_owner_and_15_character_group_keys() -> None:
    source = _sf_source(sharing_model={"Case": "Private"},
                        sharing_groups={"00G5g000001Emea": "sales-emea"})  # 15 characters
    records = _sf_parse([_sf_row("5005g00000000041", "Case", OwnerId="00G5g000001EmeaEAC")],
                        source)
    assert salesforce_id18("00G5g000001Emea") == "00G5g000001EmeaEAC"
    assert salesforce_id18("001A0000006Vm9r") == "001A0000006Vm9rIAC"  # Salesforce's own example
    assert _who_sees(records["5005g00000000041"].acl) == ["cid"]  # the queue's group


def test_salesforce_without_a_sharing_model_keeps_the_default() -> None:
    records = _sf_parse([_sf_row("0065g00000000021", OwnerId="0055g00000Ann01AAB")], _sf_source())
    assert records["0065g00000000021"].acl == ACL(groups=("staff",))


def test_salesforce_api_selects_owner_and_rule_field_and_reads_share_table(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_SF", "tok")
    seen: list[str] = []
    rows = [_sf_row("0065g00000000031", OwnerId="0055g00000Zed01AAA", Confidential__c=True),
            _sf_row("0065g00000000032", OwnerId="0055g00000Zed01AAA", Confidential__c=False)]

    def handler(path: str, query: dict[str, str], headers: dict[str, str]):  # type: ignore[no-untyped-def]
        q = query.get("q", "")
        seen.append(q)
        if "FROM OpportunityShare" in q:
            assert "'0065g00000000031'" in q
            return 200, {}, {"totalSize": 1, "done": True, "records": [
                {"attributes": {"type": "OpportunityShare"}, "OpportunityId": "0065g00000000031",
                 "UserOrGroupId": "0055g00000Ann01AAB", "RowCause": "Manual"}]}
        return 200, {}, {"totalSize": 2, "done": True, "records": rows}

    with serve(handler) as server:
        cfg = ApiSourceConfig(system="salesforce", instance="prod", base_url=server.url,
                              scope=["Opportunity"], auth=AuthConfig(kind="bearer", token_env="T_SF"),
                              options={"sharing_model": {"Opportunity": "Read"},
                                       "privacy_rules": {"Opportunity": {"field": "Confidential__c"}}})
        conn = make_api_connector(cfg, "t", sleep=lambda s: None)
        items = [i for p in conn.poll(datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 11, 2, tzinfo=UTC))
                 for i in p.items]
        conn.close()
    assert "OwnerId" in seen[0] and "Confidential__c" in seen[0]
    records = _records(items)
    assert _who_sees(records["0065g00000000031"].acl) == ["ann"]  # share row, owner unknown
    assert records["0065g00000000032"].acl == ACL(groups=("staff",))


def test_salesforce_api_reads_org_wide_defaults_from_the_org(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_SF", "tok")
    seen: list[str] = []

    def handler(path: str, query: dict[str, str], headers: dict[str, str]):  # type: ignore[no-untyped-def]
        q = query.get("q", "")
        seen.append(q)
        if "FROM Organization" in q:
            return 200, {}, {"totalSize": 1, "done": True, "records": [
                {"attributes": {"type": "Organization"}, "DefaultAccountAccess": "Edit",
                 "DefaultOpportunityAccess": "None", "DefaultContactAccess": "ControlledByParent"}]}
        if "Share " in q:
            return 200, {}, {"totalSize": 0, "done": True, "records": []}
        if "FROM Opportunity" in q:
            return 200, {}, {"totalSize": 1, "done": True, "records": [
                _sf_row("0065g00000000051", OwnerId="0055g00000Ben01AAA")]}
        return 200, {}, {"totalSize": 1, "done": True, "records": [
            _sf_row("0015g00000000052", "Account", OwnerId="0055g00000Ben01AAA")]}

    with serve(handler) as server:
        cfg = ApiSourceConfig(system="salesforce", instance="prod", base_url=server.url,
                              scope=["Account", "Opportunity"],
                              auth=AuthConfig(kind="bearer", token_env="T_SF"),
                              options={"sharing_model": "from-org"})
        conn = make_api_connector(cfg, "t", sleep=lambda s: None)
        items = [i for p in conn.poll(datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 11, 2, tzinfo=UTC))
                 for i in p.items]
        conn.close()
    records = _records(items)
    assert _who_sees(records["0065g00000000051"].acl) == ["ben"]  # "None": private
    assert records["0015g00000000052"].acl == ACL(groups=("staff",))  # "Edit": public read/write
    # an export cannot read the org: the same option there restricts, never opens
    exported = _sf_parse([_sf_row("0015g00000000053", "Account", OwnerId="0055g00000Ben01AAA")],
                         _sf_source(sharing_model="from-org"))
    assert is_undetermined(exported["0015g00000000053"].acl)


# -- Confluence ---------------------------------------------------------------------------------

def _restriction(users: list[str], groups: list[str]) -> dict[str, Any]:
    return {"read": {"operation": "read", "restrictions": {
        "user": {"results": [{"type": "known", "accountId": u} for u in users]},
        "group": {"results": [{"type": "group", "name": g} for g in groups]}}}}


def _conf_page(pid: str, restrictions: dict | None, ancestors: list | None = None) -> dict:
    page: dict[str, Any] = {
        "id": pid, "type": "page", "status": "current", "title": f"Page {pid}",
        "space": {"key": "FIN"}, "version": {"number": 1, "when": "2026-11-01T09:00:00.000Z"},
        "body": {"storage": {"value": "<p>Budget ceiling is 500000 EUR.</p>",
                             "representation": "storage"}}}
    if restrictions is not None:
        page["restrictions"] = restrictions
    if ancestors is not None:
        page["ancestors"] = ancestors
    return page


def test_confluence_export_inherits_ancestor_restrictions() -> None:
    source = SourceConfig(path="c", system="confluence", instance="x",
                          default_acl=ACL(groups=("staff",)))
    parent = {"id": "1", "type": "page", "title": "Finance",
              "restrictions": _restriction([], ["legal"])}
    open_parent = {"id": "0", "type": "page", "title": "Home", "restrictions": _restriction([], [])}
    doc = {"results": [
        # restricted to ann and ben, under a legal-only parent: ben alone passes both
        _conf_page("11", _restriction(["acc-ann", "acc-ben"], []), [open_parent, parent]),
        # no restriction of its own: the space default, narrowed by the parent
        _conf_page("12", _restriction([], []), [parent]),
        # ancestors exported without their restrictions: undecidable
        _conf_page("13", _restriction([], []), [{"id": "1", "type": "page", "title": "Finance"}]),
        _conf_page("14", None),  # restrictions not expanded at all
    ]}
    records = _records(ConfluenceConnector().parse("c/p.json", json.dumps(doc).encode(), source, "t"))
    assert _who_sees(records["11"].acl) == ["ben"]
    assert _who_sees(records["12"].acl) == ["ben"]
    assert records["12"].acl.all_of == (ACL(groups=("legal",)),)
    for rid in ("13", "14"):
        assert is_undetermined(records[rid].acl) and _who_sees(records[rid].acl) == []


def test_confluence_api_reads_page_and_ancestor_restrictions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_CONF", "s3cret-token")
    conf = FakeConfluence()
    ids = sorted(conf.pages)
    parent, child, free = ids[0], ids[1], ids[2]
    conf.restrict(parent, [], ["legal"])
    conf.restrict(child, ["acc-ann", "acc-ben"], [])
    conf.nest(child, parent)
    with serve(conf) as server:
        cfg = ApiSourceConfig(system="confluence", instance="x", base_url=server.url,
                              auth=AuthConfig(kind="basic", username="bot@acme.test",
                                              token_env="T_CONF"),
                              default_acl=ACL(groups=("staff",)))
        conn = make_api_connector(cfg, "t", sleep=lambda s: None)
        items = [i for p in conn.poll(datetime(2026, 10, 1, tzinfo=UTC), datetime(2026, 12, 1, tzinfo=UTC))
                 for i in p.items]
        conn.close()
    records = _records(items)
    assert _who_sees(records[child].acl) == ["ben"]  # ann is not in the parent's legal group
    assert _who_sees(records[parent].acl) == ["ben"]
    assert _who_sees(records[free].acl) == ["ann", "ben", "cid"]


# -- Jira ---------------------------------------------------------------------------------------

def test_jira_security_level_to_users_and_groups() -> None:
    doc = json.loads((FIXTURES / "jira_search_v2.json").read_text())
    issue = doc["issues"][0] if "issues" in doc else doc
    issue["fields"]["security"] = {"id": "10100", "name": "Board"}
    search = {"issues": [issue]}
    source = SourceConfig(path="j", system="jira", instance="x", default_acl=ACL(groups=("staff",)),
                          options={"security_groups": {"Board": {"users": ["atlassian:acc-ann"],
                                                                 "groups": ["legal"]}}})
    (record,) = _records(JiraConnector().parse("j/s.json", json.dumps(search).encode(), source,
                                               "t")).values()
    assert _who_sees(record.acl) == ["ann", "ben"]  # ann by her account, ben by legal


# -- Zendesk ------------------------------------------------------------------------------------

def _ticket(tid: int, **extra: Any) -> dict[str, Any]:
    return {"id": tid, "subject": f"Ticket {tid}", "description": "Printer jams on tray 2.",
            "status": "open", "requester_id": 9000000001, "organization_id": 360000111,
            "updated_at": "2026-11-01T09:00:00Z", **extra}


def _comment(cid: int, body: str, public: bool, minute: int) -> dict[str, Any]:
    return {"id": cid, "type": "Comment", "author_id": 1, "body": body, "plain_body": body,
            "public": public, "created_at": f"2026-11-01T09:{minute:02d}:00Z"}


def test_zendesk_export_private_comments_never_compiled_and_requester_reads() -> None:
    source = SourceConfig(path="z", system="zendesk", instance="x", default_acl=ACL(groups=("agents",)))
    doc = {"tickets": [
        _ticket(1, comments=[_comment(1, "Printer jams on tray 2.", True, 0),
                             _comment(2, "Customer owes us 40k, be careful.", False, 1),
                             _comment(3, "Replaced the roller; please retry.", True, 2)]),
        # opened by an agent as an internal note: the description is that note
        _ticket(2, description="Escalate: legal hold on this account.",
                comments=[_comment(4, "Escalate: legal hold on this account.", False, 0)]),
    ]}
    records = _records(ZendeskConnector().parse("z/t.json", json.dumps(doc).encode(), source, "t"))
    assert "Replaced the roller" in records["1"].body
    assert "40k" not in records["1"].body
    assert "legal hold" not in records["2"].body
    assert _who_sees(records["1"].acl) == ["ann"]  # the requester (and the org's group)
    assert "zendesk-org-360000111" in records["1"].acl.groups


def test_zendesk_api_attaches_comments_and_leaves_internal_notes_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_ZD", "s3cret-token")
    zd = FakeZendesk()
    t0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    zd.comment("35436", "Seat count fixed on the next invoice.", True, t0)
    zd.comment("35436", "Internal: discount of 35% approved by VP.", False, t0 + timedelta(minutes=1))
    with serve(zd) as server:
        cfg = ApiSourceConfig(system="zendesk", instance="x", base_url=server.url, page_size=10,
                              auth=AuthConfig(kind="basic", username="bot@acme.test/token",
                                              token_env="T_ZD"),
                              options={"comments": True})
        conn = make_api_connector(cfg, "t", sleep=lambda s: None)
        items = [i for p in conn.poll(datetime(2026, 10, 1, tzinfo=UTC), datetime(2026, 12, 1, tzinfo=UTC))
                 for i in p.items]
        conn.close()
        asked = [p for p, _, _ in server.requests if p.endswith("/comments.json")]
    records = _records(items)
    assert "/api/v2/tickets/35436/comments.json" in asked
    assert "Seat count fixed" in records["35436"].body
    assert "35%" not in records["35436"].body and "Internal" not in records["35436"].body


# -- HubSpot ------------------------------------------------------------------------------------

def test_hubspot_export_owner_and_team_access() -> None:
    source = SourceConfig(path="h", system="hubspot", instance="p", default_acl=ACL(groups=("staff",)),
                          options={"owner_access": ["deals"], "team_access": True,
                                   "team_groups": {"77": "sales-emea"}})
    deals = {"results": [
        {"id": "1", "properties": {"dealname": "Big deal", "hubspot_owner_id": "111",
                                   "hubspot_team_id": "77", "hs_lastmodifieddate": "2026-11-01T09:00:00Z"}},
        {"id": "2", "properties": {"dealname": "Small deal", "hubspot_owner_id": "223",
                                   "hs_lastmodifieddate": "2026-11-01T09:00:00Z"}},
        {"id": "3", "properties": {"dealname": "Orphan deal",
                                   "hs_lastmodifieddate": "2026-11-01T09:00:00Z"}},
    ]}
    records = _records(HubSpotConnector().parse("h/deals.json", json.dumps(deals).encode(), source, "t"))
    assert _who_sees(records["1"].acl) == ["ann", "cid"]  # owner ann, team EMEA (cid)
    assert _who_sees(records["2"].acl) == ["ben"]
    assert is_undetermined(records["3"].acl) == ["hubspot-deals-owner-missing"]
    assert _who_sees(records["3"].acl) == []
    companies = {"results": [{"id": "9", "properties": {
        "name": "Globex", "hubspot_owner_id": "111", "hs_lastmodifieddate": "2026-11-01T09:00:00Z"}}]}
    (company,) = _records(HubSpotConnector().parse(
        "h/companies.json", json.dumps(companies).encode(), source, "t")).values()
    assert company.acl == ACL(groups=("staff",))  # companies are not owner-scoped here


def test_hubspot_api_asks_for_owner_and_team(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_HS", "pat-na1-s3cret")
    hs = FakeHubSpot()
    first = sorted(hs.objects["companies"])[0]
    for cid, obj in hs.objects["companies"].items():
        obj["properties"]["hubspot_owner_id"] = "222" if cid == first else "111"
    with serve(hs) as server:
        cfg = ApiSourceConfig(system="hubspot", instance="p", base_url=server.url, page_size=10,
                              auth=AuthConfig(kind="bearer", token_env="T_HS"),
                              options={"owner_access": True, "poll_archived": False})
        conn = make_api_connector(cfg, "t", sleep=lambda s: None)
        items = [i for p in conn.poll(datetime(2020, 1, 1, tzinfo=UTC), datetime(2027, 1, 1, tzinfo=UTC))
                 for i in p.items]
        conn.close()
    records = _records(items)
    assert records and _who_sees(records[first].acl) == ["ben"]
    assert all(_who_sees(r.acl) == ["ann"] for rid, r in records.items() if rid != first)

"""Jira REST v2/v3 exports, against the real shared fixtures and inline payloads."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from compiler.models import ACL, Reference, SourceRecord
from connectors.base import RecordError, SourceConfig
from connectors.jira import JiraConnector, adf_to_text

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"
NZDT = timezone(timedelta(hours=13))


def _source(**options: Any) -> SourceConfig:
    return SourceConfig(path="jira", system="jira", instance="acme-jira", options=options)


def _parse(doc: Any, path: str = "jira/search.json", source: SourceConfig | None = None) -> list[Any]:
    data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return list(JiraConnector().parse(path, data, source or _source(), "acme"))


def _fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / "jira" / name).read_text())


def _records(out: list[Any]) -> list[SourceRecord]:
    return [r for r in out if isinstance(r, SourceRecord)]


def _errors(out: list[Any]) -> list[RecordError]:
    return [r for r in out if isinstance(r, RecordError)]


def _issue(issue_id: str = "10100", key: str = "SUP-101", **fields: Any) -> dict[str, Any]:
    base = {
        "summary": "Refund not processed",
        "updated": "2024-04-02T08:15:00.000+0000",
        "created": "2024-04-01T07:00:00.000+0000",
        "description": "Customer asked for a refund.",
        "status": {"name": "In Progress"},
        "priority": {"name": "High"},
        "issuetype": {"name": "Bug"},
        "resolution": None,
        "assignee": {"displayName": "Jane Doe", "name": "jdoe"},
        "reporter": None,
        "project": {"key": "SUP"},
        "labels": ["refund", "billing", "refund"],
        "components": [{"name": "Checkout"}],
    }
    base.update(fields)
    return {"id": issue_id, "key": key, "self": f"https://acme.atlassian.net/rest/api/2/issue/{issue_id}", "fields": base}


# -- real fixtures -------------------------------------------------------------------------------------


def test_real_v2_search_response() -> None:
    out = _parse((FIXTURES / "jira" / "search_v2.json").read_bytes(), path="jira/search_v2.json")
    assert not _errors(out)
    records = _records(out)
    assert len(records) == 11
    assert [r.name for r in records][:3] == ["SAMPLEPROJECT-13", "SAMPLEPROJECT-12", "SAMPLEPROJECT-11"]
    first = records[0]
    assert first.id == "10014" and first.type == "issue" and first.entity_type == "ticket"
    assert first.title == "SAMPLEPROJECT-13: blarg from in example.rb"
    assert first.version == "2011-12-15T15:35:06.000+1300"
    assert first.updated_at == datetime(2011, 12, 15, 15, 35, 6, tzinfo=NZDT)
    assert first.updated_at.utcoffset() == timedelta(hours=13)
    assert first.url == "http://localhost:2990/jira/browse/SAMPLEPROJECT-13"
    assert first.container == "SAMPLEPROJECT" and first.status == "Open"
    assert first.fields == {
        "status": "Open",
        "priority": "Major",
        "issuetype": "Task",
        "assignee": "admin",
        "reporter": "admin",
        "created": "2011-12-15T15:35:06.000+1300",
    }
    assert first.body == ""  # description is null in the fixture
    assert first.origin == "jira/search_v2.json#issues[0]"
    last = records[-1]
    assert (last.id, last.name, last.title) == ("10002", "SAMPLEPROJECT-1", "SAMPLEPROJECT-1: MOOOOOOARRR NINJAAAA!")
    assert last.fields["duedate"] == "2011-12-14"
    assert all(r.acl == ACL(groups=("staff",)) for r in records)


def test_real_v2_issue_with_real_comments() -> None:
    issue = _fixture("issue_v2.json")
    (record,) = _records(_parse(issue, path="jira/issue_v2.json"))
    assert record.title == "SAMPLEPROJECT-1: Sample Issue"
    assert record.updated_at == datetime(2011, 12, 14, 10, 26, 6, 30000, tzinfo=NZDT)
    assert record.origin == "jira/issue_v2.json"
    assert record.body == ""  # null description, zero comments in this fixture
    assert record.references == (
        Reference(relation="component", target_type="product", target_name="Jamflam"),
        Reference(relation="component", target_type="product", target_name="Jammy"),
    )
    # the issue's own `comment` block is empty; graft in the real comment-endpoint response
    issue["fields"]["comment"] = _fixture("issue_comments_v2.json")
    (with_comments,) = _records(_parse(issue))
    assert with_comments.body.startswith("Comment by admin on 2012-01-11:\nThis is a comment. Creative.\n\n")
    assert with_comments.body.count("Comment by admin on ") == 2
    assert with_comments.sha256 != record.sha256
    assert with_comments.id == record.id == "10002"


def test_real_v3_reference_example_has_no_updated_field() -> None:
    out = _parse((FIXTURES / "jira" / "search_v3_docs_example.json").read_bytes())
    (err,) = out
    assert isinstance(err, RecordError)
    assert (err.record, err.field) == ("10002", "updated")


def test_real_v3_reference_example_with_updated() -> None:
    doc = _fixture("search_v3_docs_example.json")
    doc["issues"][0]["fields"]["updated"] = "2021-02-11T05:11:19.551+0000"
    (record,) = _records(_parse(doc))
    assert record.name == "ED-1" and record.title == "ED-1"  # the example carries no summary
    assert record.url == "https://your-domain.atlassian.net/browse/ED-1"
    assert record.container == "EX"
    assert record.updated_at == datetime(2021, 2, 11, 5, 11, 19, 551000, tzinfo=UTC)
    # ADF description flattened; the only comment is restricted to a role, so it is left out
    assert record.body == "Main order flow broken"
    assert record.references == (
        Reference(relation="linked issue", target_type="ticket", target_name="PR-2"),
        Reference(relation="linked issue", target_type="ticket", target_name="PR-3"),
    )
    unrestricted = copy.deepcopy(doc)
    del unrestricted["issues"][0]["fields"]["comment"][0]["visibility"]
    (record,) = _records(_parse(unrestricted))
    assert record.body.startswith("Main order flow broken\n\nComment by Mia Krystof on 2021-02-11:\nLorem ipsum dolor")


# -- mapping --------------------------------------------------------------------------------------------


def test_issue_maps_fields_and_comments() -> None:
    issue = _issue(
        comment={
            "comments": [
                {"author": {"displayName": "Ann"}, "created": "2024-04-01T10:00:00.000+0000", "body": "First."},
                {"author": {"name": "bob"}, "created": "2024-04-02T10:00:00.000+0000", "body": "Second."},
                {"author": {"displayName": "Eve"}, "body": "Secret.", "visibility": {"type": "group", "value": "admins"}},
            ]
        }
    )
    (record,) = _records(_parse({"issues": [issue]}))
    assert record.id == "10100" and record.name == "SUP-101"
    assert record.title == "SUP-101: Refund not processed"
    assert record.url == "https://acme.atlassian.net/browse/SUP-101"
    assert record.body == (
        "Customer asked for a refund.\n\n"
        "Comment by Ann on 2024-04-01:\nFirst.\n\n"
        "Comment by bob on 2024-04-02:\nSecond."
    )
    assert record.fields == {
        "status": "In Progress",
        "priority": "High",
        "issuetype": "Bug",
        "assignee": "Jane Doe",
        "created": "2024-04-01T07:00:00.000+0000",
    }
    assert record.labels == ("billing", "refund")
    assert record.status == "In Progress" and record.container == "SUP"


def test_custom_fields_named_by_names_map_and_options() -> None:
    issue = _issue(
        customfield_10010={"self": "x", "value": "Acme Corp", "id": "1"},
        customfield_10011={"name": "Gold"},
        customfield_10012=5.0,
        customfield_10013="0|i0000f:",  # unnamed (rank): dropped
        customfield_10014=None,
        customfield_10015=[{"value": "EU"}, {"value": "US"}],
    )
    doc = {"issues": [issue], "names": {"customfield_10010": "Customer", "customfield_10011": "Tier", "customfield_10012": "Story Points"}}
    (record,) = _records(_parse(doc, source=_source(custom_field_names={"customfield_10015": "Regions"})))
    # a reference field is a reference (its link), not a field too: the fact once on the page
    assert "Customer" not in record.fields
    assert record.fields["Tier"] == "Gold"
    assert record.fields["Story Points"] == 5.0
    assert record.fields["Regions"] == "EU, US"
    assert not any(k.startswith("customfield_") for k in record.fields)
    assert Reference(relation="customer", target_type="account", target_name="Acme Corp") in record.references
    assert Reference(relation="component", target_type="product", target_name="Checkout") in record.references


def test_reference_fields_option_and_issue_links() -> None:
    issue = _issue(
        customfield_1={"value": "Widget"},
        issuelinks=[{"outwardIssue": {"key": "SUP-7"}}, {"inwardIssue": {"key": "OPS-1"}}, {"type": {}}],
    )
    source = _source(custom_field_names={"customfield_1": "Product"}, reference_fields={"Product": "product"})
    (record,) = _records(_parse(issue, source=source))
    assert record.references == (
        Reference(relation="component", target_type="product", target_name="Checkout"),
        Reference(relation="product", target_type="product", target_name="Widget"),
        Reference(relation="linked issue", target_type="ticket", target_name="SUP-7"),
        Reference(relation="linked issue", target_type="ticket", target_name="OPS-1"),
    )


def test_reference_field_is_stated_once() -> None:
    """A select field named in reference_fields (kestrel's District) was both a field and a
    reference: two rows of one fact on the ticket's page."""
    issue = _issue(customfield_10061={"self": "x", "value": "Maple Valley School District", "id": "10301"})
    doc = {"issues": [issue], "names": {"customfield_10061": "District"}}
    (record,) = _records(_parse(doc, source=_source(reference_fields={"District": "account"})))
    assert Reference(relation="district", target_type="account",
                     target_name="Maple Valley School District") in record.references
    assert not any(v == "Maple Valley School District" for v in record.fields.values())
    # without reference_fields it stays a plain field
    (record,) = _records(_parse(doc))
    assert record.fields["District"] == "Maple Valley School District"


def test_rank_field_dropped_by_schema_or_name() -> None:
    """Rank orders issues on a board: "0|i000cls412:" is no fact about the issue."""
    issue = _issue(customfield_10019="0|i000cls412:", customfield_10070={"value": "SEV2"},
                   customfield_10090="3")
    names = {"customfield_10019": "Rank", "customfield_10070": "Severity", "customfield_10090": "Rank"}
    # by name, when the export carries no field schema
    (record,) = _records(_parse({"issues": [issue], "names": names}))
    assert "Rank" not in record.fields and record.fields["Severity"] == "SEV2"
    assert "0|i000cls412:" not in record.fields.values()
    # by schema (expand=schema): the lexo-rank type is dropped, whatever its name; a field the
    # schema says is an ordinary number stays, even when someone named it "Rank"
    schema = {
        "customfield_10019": {"type": "any", "custom": "com.pyxis.greenhopper.jira:gh-lexo-rank",
                              "customId": 10019},
        "customfield_10070": {"type": "option",
                              "custom": "com.atlassian.jira.plugin.system.customfieldtypes:select"},
        "customfield_10090": {"type": "number",
                              "custom": "com.atlassian.jira.plugin.system.customfieldtypes:float"},
    }
    renamed = {**names, "customfield_10019": "Board order"}
    (record,) = _records(_parse({"issues": [issue], "names": renamed, "schema": schema}))
    assert "Board order" not in record.fields and record.fields["Severity"] == "SEV2"
    assert record.fields["Rank"] == "3"
    # a single issue (GET /issue/{key}?expand=names,schema) carries both maps itself
    single = {**issue, "names": renamed, "schema": schema}
    (record,) = _records(_parse(single, path="jira/SUP-101.json"))
    assert "Board order" not in record.fields and record.fields["Rank"] == "3"


def test_resolution_date_and_fix_versions_are_fields() -> None:
    issue = _issue(
        resolution={"name": "Done"}, resolutiondate="2026-11-10T09:12:44.190+0000",
        fixVersions=[{"self": "x", "id": "10400", "name": "26.12", "archived": False,
                      "released": False, "releaseDate": "2026-12-01"}])
    (record,) = _records(_parse({"issues": [issue]}))
    assert record.fields["resolutiondate"] == "2026-11-10T09:12:44.190+0000"
    assert record.fields["fixVersions"] == "26.12"
    assert record.fields["fixVersions.releaseDate"] == "2026-12-01"
    two = _issue(fixVersions=[{"name": "26.12", "releaseDate": "2026-12-01"}, {"name": "27.1"}])
    (record,) = _records(_parse({"issues": [two]}))
    assert record.fields["fixVersions"] == "26.12, 27.1"
    # dates that would not pair with their versions are not stated
    assert "fixVersions.releaseDate" not in record.fields
    (record,) = _records(_parse({"issues": [_issue(fixVersions=[], resolutiondate=None)]}))
    assert not {"fixVersions", "resolutiondate"} & set(record.fields)


def test_security_level_becomes_acl() -> None:
    secured = _issue(security={"id": "10001", "name": "Finance Only"})
    (record,) = _records(_parse(secured))
    assert record.acl == ACL(groups=("finance-only",))
    (record,) = _records(_parse(secured, source=_source(security_groups={"Finance Only": ["fin", "execs"]})))
    assert record.acl == ACL(groups=("execs", "fin"))
    (record,) = _records(_parse(_issue()))
    assert record.acl == ACL(groups=("staff",))


def test_base_url_option_when_self_is_missing() -> None:
    issue = _issue()
    del issue["self"]
    (record,) = _records(_parse(issue, source=_source(base_url="https://jira.example.com/")))
    assert record.url == "https://jira.example.com/browse/SUP-101"
    (record,) = _records(_parse(issue))
    assert record.url is None


def test_adf_flattening() -> None:
    doc = {
        "type": "doc",
        "version": 1,
        "content": [
            {"type": "heading", "attrs": {"level": 1}, "content": [{"type": "text", "text": "Steps"}]},
            {
                "type": "paragraph",
                "content": [
                    {"type": "text", "text": "Ask "},
                    {"type": "mention", "attrs": {"id": "1", "text": "@Jane"}},
                    {"type": "hardBreak"},
                    {"type": "text", "text": "then   wait", "marks": [{"type": "strong"}]},
                ],
            },
            {
                "type": "bulletList",
                "content": [
                    {"type": "listItem", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "one"}]}]},
                    {"type": "listItem", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "two"}]}]},
                ],
            },
            {
                "type": "table",
                "content": [
                    {
                        "type": "tableRow",
                        "content": [
                            {"type": "tableHeader", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "SLA"}]}]},
                            {"type": "tableCell", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "4h"}]}]},
                        ],
                    }
                ],
            },
            {"type": "paragraph", "content": [{"type": "date", "attrs": {"timestamp": "1714521600000"}}]},
        ],
    }
    assert adf_to_text(doc) == "Steps\nAsk @Jane\nthen wait\n- one\n- two\nSLA: 4h\n2024-05-01"


# -- bad records among good ones -------------------------------------------------------------------------


def test_missing_id_named_by_position_others_still_yield() -> None:
    nameless = _issue()
    del nameless["id"]
    out = _parse({"issues": [_issue("1", "A-1"), nameless, _issue("3", "A-3")]})
    assert [r.id for r in _records(out)] == ["1", "3"]
    (err,) = _errors(out)
    assert (err.record, err.field) == ("issues[1]", "id")


def test_missing_key_updated_and_bad_timestamp() -> None:
    no_key = _issue("1")
    del no_key["key"]
    no_updated = _issue("2")
    del no_updated["fields"]["updated"]
    bad_updated = _issue("3", updated="not a date")
    out = _parse({"issues": [no_key, no_updated, bad_updated, _issue("4", "A-4")]})
    assert [(e.record, e.field) for e in _errors(out)] == [("1", "key"), ("2", "updated"), ("3", "updated")]
    assert [r.id for r in _records(out)] == ["4"]


def test_control_characters_in_summary_are_a_title_error() -> None:
    out = _parse({"issues": [_issue("1", summary="bell\x07"), _issue("2", "A-2")]})
    (err,) = _errors(out)
    assert (err.record, err.field) == ("1", "title")
    assert [r.id for r in _records(out)] == ["2"]


def test_path_like_summary_is_accepted() -> None:
    (record,) = _records(_parse(_issue(summary="../../etc/passwd")))
    assert record.title == "SUP-101: ../../etc/passwd"


def test_sha256_stable_and_independent_of_origin() -> None:
    (a,) = _records(_parse({"issues": [_issue()]}, path="a.json"))
    (b,) = _records(_parse({"issues": [_issue()]}, path="b.json"))
    assert a.origin != b.origin and a.sha256 == b.sha256
    (c,) = _records(_parse({"issues": [_issue(description="Customer asked twice.")]}))
    assert c.sha256 != a.sha256


def test_adf_task_items_keep_marker_and_state() -> None:
    doc = {"type": "doc", "version": 1, "content": [
        {"type": "paragraph", "content": [{"type": "text", "text": "Follow-ups"}]},
        {"type": "taskList", "attrs": {"localId": "l1"}, "content": [
            {"type": "taskItem", "attrs": {"localId": "t1", "state": "TODO"}, "content": [
                {"type": "mention", "attrs": {"id": "712020:abc", "text": "@Noor Haddad"}},
                {"type": "text", "text": " rotate the keys"}]},
            {"type": "taskItem", "attrs": {"localId": "t2", "state": "DONE"}, "content": [
                {"type": "text", "text": "revoke the token"}]}]}]}
    assert adf_to_text(doc) == "Follow-ups\n- [ ] @Noor Haddad rotate the keys\n- [x] revoke the token"

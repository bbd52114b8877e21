"""Confluence Cloud REST v1 content exports, against the real shared fixtures and inline payloads."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from compiler.models import ACL, Reference, SourceRecord
from connectors.base import RecordError, SourceConfig
from connectors.confluence import ConfluenceConnector

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"


def _source(**options: Any) -> SourceConfig:
    return SourceConfig(path="confluence", system="confluence", instance="acme-cloud", options=options)


def _parse(doc: Any, path: str = "confluence/pages.json", source: SourceConfig | None = None) -> list[Any]:
    data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return list(ConfluenceConnector().parse(path, data, source or _source(), "acme"))


def _fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / "confluence" / name).read_text())


def _expanded(item: dict[str, Any], number: int = 3, when: str = "2024-03-01T09:30:00.000Z") -> dict[str, Any]:
    """A real fixture item with the documented ``version``/``body.storage`` expansions added."""
    item = copy.deepcopy(item)
    item["version"] = {"number": number, "when": when, "by": {"accountId": "557058:abc"}}
    item["body"] = {"storage": {"value": "<p>Hello</p>", "representation": "storage"}}
    return item


def _page(**overrides: Any) -> dict[str, Any]:
    page = {
        "id": "1001",
        "type": "page",
        "status": "current",
        "title": "Refund Policy",
        "space": {"key": "OPS", "name": "Operations", "type": "global"},
        "history": {"latest": True, "createdDate": "2023-01-02T03:04:05.000Z"},
        "version": {"number": 7, "when": "2024-02-03T10:00:00.000+01:00"},
        "body": {
            "storage": {
                "value": '<p>Refunds within 30 days. See <ac:link><ri:page ri:content-title="Return Policy"/>'
                "</ac:link> and <ac:link><ri:page ri:content-title=\"Shipping\"/></ac:link> and again "
                '<ac:link><ri:page ri:content-title="Return Policy"/></ac:link>.</p>',
                "representation": "storage",
            }
        },
        "metadata": {"labels": {"results": [{"prefix": "global", "name": "runbook"}, {"name": "finance"}]}},
        "_links": {"webui": "/spaces/OPS/pages/1001/Refund+Policy", "base": "https://acme.atlassian.net/wiki"},
        # exported with expand=restrictions.read.restrictions.user,…group: no restriction
        "restrictions": {"read": {"operation": "read", "restrictions": {
            "user": {"results": []}, "group": {"results": []}}}},
    }
    page.update(overrides)
    return page


def _records(out: list[Any]) -> list[SourceRecord]:
    return [r for r in out if isinstance(r, SourceRecord)]


def _errors(out: list[Any]) -> list[RecordError]:
    return [r for r in out if isinstance(r, RecordError)]


# -- real fixtures ------------------------------------------------------------------------------


def test_real_content_list_without_version_expansion_reports_each_item() -> None:
    out = _parse((FIXTURES / "confluence" / "content_list_v1.json").read_bytes(), path="confluence/list.json")
    assert all(isinstance(e, RecordError) for e in out)
    assert [(e.record, e.field) for e in out] == [
        ("196695", "version"),
        ("64290817", "version"),
        ("64290828", "version"),
        ("65798145", "version"),
    ]
    assert all(e.path == "confluence/list.json" and "expand=version" in e.message for e in out)


def test_real_single_content_without_version_is_one_error() -> None:
    out = _parse((FIXTURES / "confluence" / "content_get_v1.json").read_bytes())
    assert len(out) == 1 and isinstance(out[0], RecordError)
    assert (out[0].record, out[0].field) == ("64290828", "version")


def test_real_content_list_with_version_expanded_uses_top_level_base_and_space_path() -> None:
    doc = _fixture("content_list_v1.json")
    doc["results"] = [_expanded(item) for item in doc["results"]]
    records = _records(_parse(doc))
    assert [r.id for r in records] == ["196695", "64290817", "64290828", "65798145"]
    first, second = records[0], records[1]
    assert first.title == "DUMMY" and second.title == "TEST"
    assert first.type == "page" and first.status == "current"
    # no `space` expansion: the key comes from `_expandable.space` = "/rest/api/space/DUMMY"
    assert first.container == "DUMMY"
    # item has no `_links.base`: the list's `_links.base` applies
    assert second.url == "https://ctreminiom.atlassian.net/wiki/spaces/DUMMY/pages/64290817/TEST"
    assert first.version == "3"
    assert first.updated_at == datetime(2024, 3, 1, 9, 30, tzinfo=UTC)
    assert first.body == "Hello"
    assert first.origin == "confluence/pages.json#results[0]"
    assert records[3].origin == "confluence/pages.json#results[3]"
    assert first.key == "acme/confluence/acme-cloud/page/196695"
    # exported without its read restrictions: undecidable, so restricted (never the default)
    assert first.acl == ACL(groups=("folio:undetermined:confluence-restrictions-not-exported",))


def test_real_single_content_with_version_uses_its_own_base() -> None:
    records = _records(_parse(_expanded(_fixture("content_get_v1.json"))))
    assert len(records) == 1
    record = records[0]
    assert record.url == "https://ctreminiom.atlassian.net/wiki/spaces/DUMMY/pages/64290828/Confluence+Page+Title"
    assert record.title == "Confluence Page Title"
    assert record.origin == "confluence/pages.json"


def test_restriction_fixture_shape_becomes_acl() -> None:
    """The byOperation response's ``restrictions`` block is the shape of ``restrictions.read.restrictions``."""
    op = _fixture("content_restriction_by_operation_v1.json")["operationType"]
    restrictions = copy.deepcopy(op["restrictions"])
    restrictions["user"]["results"] = [{"type": "known", "accountId": "5b10ac8d82e05b22cc7d4ef5"}]
    page = _page(restrictions={"read": {"operation": "read", "restrictions": restrictions}})
    (record,) = _records(_parse(page))
    assert record.acl == ACL(users=("atlassian:5b10ac8d82e05b22cc7d4ef5",), groups=("<string>",))


# -- mapping -------------------------------------------------------------------------------------


def test_page_maps_every_field() -> None:
    (record,) = _records(_parse({"results": [_page()], "_links": {"base": "https://ignored"}}))
    assert record.system == "confluence" and record.instance == "acme-cloud" and record.tenant == "acme"
    assert record.id == "1001" and record.version == "7"
    assert record.updated_at == datetime(2024, 2, 3, 9, 0, tzinfo=UTC)
    assert record.url == "https://acme.atlassian.net/wiki/spaces/OPS/pages/1001/Refund+Policy"
    assert record.body == "Refunds within 30 days. See Return Policy and Shipping and again Return Policy."
    assert record.container == "OPS"
    assert record.labels == ("finance", "runbook")
    assert record.entity_type == "process"  # "runbook" label
    assert record.references == (
        Reference(relation="links to", target_type=None, target_name="Return Policy"),
        Reference(relation="links to", target_type=None, target_name="Shipping"),
    )


def test_entity_type_follows_sorted_labels_and_options() -> None:
    labels = {"results": [{"name": "product"}, {"name": "policy"}]}
    (record,) = _records(_parse(_page(metadata={"labels": labels})))
    assert record.entity_type == "policy"  # "policy" sorts before "product"
    custom = _source(entity_labels={"product": "product"})
    (record,) = _records(_parse(_page(metadata={"labels": labels}), source=custom))
    assert record.entity_type == "product"
    (record,) = _records(_parse(_page(metadata={"labels": {"results": [{"name": "misc"}]}})))
    assert record.entity_type == "topic"


def test_read_restrictions_become_acl() -> None:
    restrictions = {
        "read": {
            "operation": "read",
            "restrictions": {
                "user": {
                    "results": [
                        {"type": "known", "accountId": "acc-1", "username": "ignored"},
                        {"type": "known", "username": "jdoe"},
                        {"type": "known", "publicName": "Pat"},
                        {"type": "anonymous"},
                    ]
                },
                "group": {"results": [{"type": "group", "name": "finance"}, {"type": "group", "name": "legal"}]},
            },
        }
    }
    (record,) = _records(_parse(_page(restrictions=restrictions)))
    assert record.acl == ACL(users=("atlassian:Pat", "atlassian:acc-1", "atlassian:jdoe"),
                             groups=("finance", "legal"))


def test_empty_read_restrictions_fall_back_to_default_acl() -> None:
    restrictions = {"read": {"restrictions": {"user": {"results": []}, "group": {"results": []}}}}
    source = SourceConfig(
        path="c", system="confluence", instance="x", default_acl=ACL(groups=("everyone",))
    )
    (record,) = _records(_parse(_page(restrictions=restrictions), source=source))
    assert record.acl == ACL(groups=("everyone",))


def test_space_groups_apply_only_without_a_page_restriction() -> None:
    source = _source(space_groups={"OPS": ["ops-team", "auditors"], "HR": "hr"})
    (plain,) = _records(_parse(_page(), source=source))
    assert plain.acl == ACL(groups=("auditors", "ops-team"))
    restricted = {"read": {"restrictions": {"group": {"results": [{"type": "group", "name": "legal"}]}}}}
    (own,) = _records(_parse(_page(restrictions=restricted), source=source))
    assert own.acl == ACL(groups=("legal",))  # the page's own restriction is narrower: it wins
    (other,) = _records(_parse(_page(space={"key": "ENG"}), source=source))
    assert other.acl == ACL(groups=("staff",))  # a space not listed keeps the default


def test_version_date_falls_back_to_history_created_date() -> None:
    (record,) = _records(_parse(_page(version={"number": 1})))
    assert record.updated_at == datetime(2023, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_missing_version_date_and_bad_date_are_errors() -> None:
    (err,) = _parse(_page(version={"number": 1}, history={}))
    assert isinstance(err, RecordError) and err.field == "version.when"
    (err,) = _parse(_page(version={"number": 1, "when": "last tuesday"}))
    assert isinstance(err, RecordError) and err.field == "version.when" and "last tuesday" in err.message


def test_url_from_base_url_option_or_none() -> None:
    page = _page(_links={"webui": "/spaces/OPS/pages/1001"})
    (record,) = _records(_parse(page, source=_source(base_url="https://wiki.example.com/wiki/")))
    assert record.url == "https://wiki.example.com/wiki/spaces/OPS/pages/1001"
    (record,) = _records(_parse(page))
    assert record.url is None


def test_body_not_expanded_is_empty() -> None:
    page = _page()
    del page["body"]
    (record,) = _records(_parse(page))
    assert record.body == "" and record.references == ()


def test_trashed_and_deleted_yield_nothing_other_statuses_kept() -> None:
    out = _parse(
        {
            "results": [
                _page(id="1", status="trashed"),
                _page(id="2", status="deleted"),
                _page(id="3", status="archived"),
                _page(id="4", status="draft"),
            ]
        }
    )
    assert [(r.id, r.status) for r in _records(out)] == [("3", "archived"), ("4", "draft")]
    assert not _errors(out)


def test_non_page_content_is_skipped_silently() -> None:
    out = _parse(
        {
            "results": [
                _page(id="1", type="attachment"),
                _page(id="2", type="comment"),
                _page(id="3", type="blogpost"),
            ]
        }
    )
    assert [(r.id, r.type) for r in out] == [("3", "blogpost")]


def test_missing_type_is_an_error() -> None:
    page = _page()
    del page["type"]
    (err,) = _parse({"results": [page]})
    assert isinstance(err, RecordError) and (err.record, err.field) == ("1001", "type")


# -- bad records among good ones ----------------------------------------------------------------------


def test_missing_id_is_named_by_position_and_others_still_yield() -> None:
    nameless = _page()
    del nameless["id"]
    out = _parse({"results": [_page(id="1"), _page(id="2"), _page(id="3"), nameless, _page(id="5")]})
    assert [r.id for r in _records(out)] == ["1", "2", "3", "5"]
    (err,) = _errors(out)
    assert (err.record, err.field) == ("results[3]", "id")
    assert err.path == "confluence/pages.json"


def test_control_characters_in_title_are_a_title_error() -> None:
    out = _parse({"results": [_page(id="1", title="Bad\x07title\x00"), _page(id="2")]})
    (err,) = _errors(out)
    assert (err.record, err.field) == ("1", "title")
    assert "control characters" in err.message
    assert [r.id for r in _records(out)] == ["2"]


def test_empty_title_is_a_title_error() -> None:
    (err,) = _parse(_page(title=""))
    assert isinstance(err, RecordError) and err.field == "title"


def test_path_like_title_is_just_a_title() -> None:
    (record,) = _records(_parse(_page(title="../../etc/passwd")))
    assert record.title == "../../etc/passwd"


def test_odd_nested_shapes_do_not_raise() -> None:
    page = _page(metadata={"labels": "oops"}, space=None, restrictions={"read": []}, _links=None, body={"storage": 5})
    (record,) = _records(_parse(page))
    assert record.labels == () and record.container is None and record.url is None and record.body == ""


# -- content digests ----------------------------------------------------------------------------------


def test_sha256_stable_across_parses_and_excludes_origin() -> None:
    (a,) = _records(_parse({"results": [_page()]}, path="one.json"))
    (b,) = _records(_parse({"results": [_page()]}, path="other/two.json"))
    assert a.origin != b.origin
    assert a.sha256 == b.sha256
    assert len(a.sha256) == 64


def test_sha256_changes_with_body() -> None:
    (a,) = _records(_parse(_page()))
    changed = _page()
    changed["body"]["storage"]["value"] = "<p>Refunds within 14 days.</p>"
    (b,) = _records(_parse(changed))
    assert a.body != b.body
    assert a.sha256 != b.sha256


# -- mentions: names from the export ------------------------------------------------------------

_ELENA = "712020:8c1f6a2e-5b3d-4e7a-9f10-2a6b3c4d5e05"
_TASK = (f'<ac:task-list><ac:task><ac:task-id>1</ac:task-id><ac:task-status>incomplete'
         f'</ac:task-status><ac:task-body><ac:link><ri:user ri:account-id="{_ELENA}" /></ac:link>'
         ' draft the Canvas requirements</ac:task-body></ac:task></ac:task-list>')


def _user(account_id: str, name: str) -> dict[str, Any]:
    return {"type": "known", "accountId": account_id, "accountType": "atlassian",
            "publicName": name, "displayName": name}


def _notes(**overrides: Any) -> dict[str, Any]:
    return _page(id="720930", title="Q4 Product Review",
                 body={"storage": {"value": _TASK, "representation": "storage"}}, **overrides)


def test_mention_named_by_a_user_object_of_the_same_export() -> None:
    """The kestrel review's action items: the owner is a mention whose name the export gives
    only as another page's author (history.createdBy / version.by)."""
    author = _page(id="720897", title="Kestrel Assess",
                   history={"createdDate": "2023-01-02T03:04:05.000Z", "createdBy": _user(_ELENA, "Elena Vasquez")})
    notes, _ = _records(_parse({"results": [_notes(), author]}))
    assert notes.body == "- [ ] Elena Vasquez draft the Canvas requirements"
    # the operator's map wins; no name anywhere: the account id, never a guess
    (notes,) = _records(_parse({"results": [_notes()]}, source=_source(user_names={_ELENA: "E. Vasquez"})))
    assert notes.body == "- [ ] E. Vasquez draft the Canvas requirements"
    (notes,) = _records(_parse({"results": [_notes()]}))
    assert notes.body == f"- [ ] @{_ELENA} draft the Canvas requirements"
    # a single content object names its own users (version.by)
    (notes,) = _records(_parse(_notes(version={"number": 2, "when": "2026-11-05T10:00:00.000Z",
                                               "by": _user(_ELENA, "Elena Vasquez")}),
                               path="confluence/720930.json"))
    assert notes.body == "- [ ] Elena Vasquez draft the Canvas requirements"


def test_parse_memo_rebuilds_a_page_whose_mentioned_user_was_renamed_elsewhere() -> None:
    """The compile's parse memo skips payload objects it built before: a page whose text takes
    a name from another page of the file must be rebuilt when that name changes."""
    import connectors._common as common

    def parse(doc: dict[str, Any], memo: common.ItemMemo) -> list[Any]:
        common.ITEM_MEMO = memo
        try:
            return _parse(doc)
        finally:
            common.ITEM_MEMO = None

    def doc(name: str) -> dict[str, Any]:
        author = _page(id="720897", title="Kestrel Assess", history={
            "createdDate": "2023-01-02T03:04:05.000Z", "createdBy": _user(_ELENA, name)})
        return {"results": [_notes(), author]}

    first = common.ItemMemo({}, {}, "salt")
    records = _records(parse(doc("Elena Vasquez"), first))
    known = {first.digests[r.key]: (r.key, r.id, r.sha256) for r in records}
    stored = {r.key: r.sha256 for r in records}
    again = parse(doc("Elena Vasquez"), common.ItemMemo(known, stored, "salt"))
    assert all(isinstance(r, common.KnownItem) for r in again)  # unchanged: nothing rebuilt
    renamed = parse(doc("Elena Vasquez-Ruiz"), common.ItemMemo(known, stored, "salt"))
    (notes,) = [r for r in renamed if isinstance(r, SourceRecord) and r.id == "720930"]
    assert notes.body == "- [ ] Elena Vasquez-Ruiz draft the Canvas requirements"

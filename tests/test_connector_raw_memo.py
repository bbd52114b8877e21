"""The parse memo of a remembered list export (connectors._common): unchanged objects are
found by the digest of their own bytes and never decoded; changed ones are decoded alone; any
error sends the whole file through the json module, so that its message keeps the file's
line and column. Whatever the path, the records and errors are those of a whole decode."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import connectors._common as common
from compiler.build import compile_wiki
from compiler.models import SourceRecord
from connectors.base import RecordError, SourceConfig
from connectors.jira import JiraConnector
from test_connector_jira import _issue
from test_incremental import ACME
from test_incremental_work import TODAY, _assert_equals_clean

PATH = "jira/search.json"
SOURCE = SourceConfig(path="jira", system="jira", instance="acme-jira")


def _doc(n: int = 40) -> dict[str, Any]:
    issues = [_issue(str(10_000 + i), f"SUP-{i}", summary=f"Issue number {i} — café")
              for i in range(n)]
    return {"startAt": 0, "total": n, "issues": issues,
            "names": {"customfield_10050": "Customer"}}


def _bytes(doc: Any, indent: int | None = 1) -> bytes:
    return json.dumps(doc, indent=indent, ensure_ascii=False).encode()


class _Decoded:
    """Counts what the connectors' json module is handed to decode (characters)."""

    def __init__(self, monkeypatch) -> None:
        self.chars = 0
        self.calls = 0

        def loads(text: str, **kw: Any) -> Any:
            self.chars += len(text)
            self.calls += 1
            return json.loads(text, **kw)

        monkeypatch.setattr(common, "json", SimpleNamespace(
            loads=loads, dumps=json.dumps, JSONDecodeError=json.JSONDecodeError))


def _parse(data: bytes, memo: common.ItemMemo | None) -> list[Any]:
    common.ITEM_MEMO = memo
    try:
        return list(JiraConnector().parse(PATH, data, SOURCE, "acme"))
    finally:
        common.ITEM_MEMO = None


def _remember(data: bytes) -> tuple[dict, dict]:
    """The memo a first parse of ``data`` leaves: object digest → record, and the records."""
    memo = common.ItemMemo({}, {}, "salt")
    records = [r for r in _parse(data, memo) if isinstance(r, SourceRecord)]
    assert records and all(memo.digests.get(r.key) for r in records)
    return ({memo.digests[r.key]: (r.key, r.id, r.sha256) for r in records},
            {r.key: r.sha256 for r in records})


def _outcome(out: list[Any]) -> list[tuple]:
    """Records (built or known) by key and digest, errors by what they say."""
    return [("error", r.record, r.field, r.message) if isinstance(r, RecordError)
            else ("record", r.key, r.sha256) for r in out]


def test_an_edit_of_one_object_decodes_that_object_alone(monkeypatch) -> None:
    doc = _doc()
    data = _bytes(doc)
    known, stored = _remember(data)
    doc["issues"][7]["fields"]["summary"] = "Refund processed twice"
    edited = _bytes(doc)
    decoded = _Decoded(monkeypatch)
    out = _parse(edited, common.ItemMemo(known, stored, "salt"))
    one = len(_bytes(doc["issues"][7], None))
    # the edited issue and the small rest of the document (names, total), nothing else
    assert 0 < decoded.chars < 2 * one < len(edited) // 10
    built = [r for r in out if isinstance(r, SourceRecord)]
    assert [r.id for r in built] == ["10007"]
    assert sum(isinstance(r, common.KnownItem) for r in out) == 39
    assert _outcome(out) == _outcome(_parse(edited, None))


def test_an_export_written_again_with_another_indent_keeps_its_memo(monkeypatch) -> None:
    doc = _doc()
    known, stored = _remember(_bytes(doc, indent=1))
    decoded = _Decoded(monkeypatch)
    out = _parse(_bytes(doc, indent=4), common.ItemMemo(known, stored, "salt"))
    assert all(isinstance(r, common.KnownItem) for r in out) and len(out) == 40
    assert decoded.chars < 200  # the rest of the document only


def test_an_export_written_again_in_another_key_order_is_built_again_the_same() -> None:
    """Key order counts in the digests (a miss costs time only): every object is built
    again, into the records it made before."""
    doc = _doc()
    data = _bytes(doc)
    known, stored = _remember(data)
    reordered = {k: doc[k] for k in reversed(doc)}
    reordered["issues"] = [{k: i[k] for k in reversed(i)} for i in doc["issues"]]
    out = _parse(_bytes(reordered), common.ItemMemo(known, stored, "salt"))
    assert not any(isinstance(r, common.KnownItem) for r in out)
    assert sorted(_outcome(out)) == sorted(_outcome(_parse(data, None)))


def test_a_malformed_changed_object_gives_the_files_line_and_column() -> None:
    doc = _doc()
    data = _bytes(doc)
    known, stored = _remember(data)
    text = data.decode()
    at = text.index('"Issue number 12')
    broken = (text[:at] + '"Issue number 12",,' + text[at + len('"Issue number 12'):]).encode()
    whole = common.decode_json(PATH, broken)
    assert isinstance(whole, RecordError) and "line" in whole.message
    out = _parse(broken, common.ItemMemo(known, stored, "salt"))
    assert _outcome(out) == [("error", None, None, whole.message)]
    line = text[:at].count("\n") + 1
    assert f"line {line}, column" in whole.message


def test_what_msgspec_takes_and_json_refuses_is_the_json_modules_error() -> None:
    """Bytes that are not UTF-8 inside a changed object's string: msgspec passes them over,
    the object's decode refuses them, and the whole file's decode words the error."""
    doc = _doc()
    data = _bytes(doc)
    known, stored = _remember(data)
    broken = data.replace(b"Issue number 12 ", b"Issue number 12 \xff ", 1)
    out = _parse(broken, common.ItemMemo(known, stored, "salt"))
    at = broken.index(b"\xff")
    assert _outcome(out) == [("error", None, None, f"not valid UTF-8 (byte {at}: invalid start byte)")]


_BASE = _doc(6)
_BASE_BYTES = _bytes(_BASE)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.integers(0, len(_BASE_BYTES) - 1),
                                st.sampled_from([b"", b" ", b"\n", b",", b"1", b'"', b"\\",
                                                 b"}", b"]", b"\xff", b"\xc3", b"NaN", b"x"]),
                                st.integers(0, 2)),
                      min_size=1, max_size=3))
def test_the_memo_path_reads_any_bytes_as_a_whole_decode_does(edits) -> None:
    """Mutated exports (bytes replaced, inserted, deleted): a parse with the memo of the
    unmutated file gives the records and errors a parse without any memo gives."""
    data = bytearray(_BASE_BYTES)
    for at, new, drop in edits:
        data[at:at + drop] = new
    known, stored = _MEMO
    with_memo = _parse(bytes(data), common.ItemMemo(known, stored, "salt"))
    assert _outcome(with_memo) == _outcome(_parse(bytes(data), None))


_MEMO = _remember(_BASE_BYTES)


def test_an_edit_of_one_issue_in_a_compile_decodes_that_issue_alone(
        tmp_path: Path, monkeypatch) -> None:
    from compiler.settings import FolioSettings

    corpus, wiki = tmp_path / "corpus", tmp_path / "wiki"
    shutil.copytree(ACME, corpus)
    compile_wiki(corpus, wiki, today=TODAY)
    path = corpus / "jira" / "search-page-1.json"
    doc = json.loads(path.read_text())
    doc["issues"][1]["fields"]["summary"] += " (again)"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False))
    decoded = _Decoded(monkeypatch)
    report = compile_wiki(corpus, wiki, FolioSettings(workers=1), today=TODAY)
    assert report.files_changed == 1 and report.records_extracted == 1
    one = len(json.dumps(doc["issues"][1], indent=2, ensure_ascii=False))
    assert 0 < decoded.chars < one + len(json.dumps(doc["names"], indent=2)) + 200
    monkeypatch.undo()
    _assert_equals_clean(corpus, wiki, tmp_path)


# -- Salesforce: a row's record takes the share rows of the file that grant on it -----------------
SF_PATH = "salesforce/opportunities.json"
SF_SOURCE = SourceConfig(path="salesforce", system="salesforce", instance="acme-prod",
                         options={"sharing": True})


def _sf_doc(n: int = 20) -> dict[str, Any]:
    from test_connector_salesforce import _opportunity

    rows: list[dict[str, Any]] = [_opportunity(f"006A00000Opp{i:03d}", Name=f"Renewal {i}")
                                  for i in range(n)]
    rows.insert(5, {"attributes": {"type": "OpportunityShare"}, "OpportunityId": "006A00000Opp003",
                    "UserOrGroupId": "0055g00000CarolAAB", "RowCause": "Manual"})
    return {"totalSize": n + 1, "done": True, "records": rows}


def _sf_parse(data: bytes, memo: common.ItemMemo | None) -> list[Any]:
    from connectors.salesforce import SalesforceConnector

    common.ITEM_MEMO = memo
    try:
        return list(SalesforceConnector().parse(SF_PATH, data, SF_SOURCE, "acme"))
    finally:
        common.ITEM_MEMO = None


def _sf_remember(data: bytes) -> tuple[dict, dict]:
    memo = common.ItemMemo({}, {}, "salt")
    records = [r for r in _sf_parse(data, memo) if isinstance(r, SourceRecord)]
    assert records and all(memo.digests.get(r.key) for r in records)
    return ({memo.digests[r.key]: (r.key, r.id, r.sha256) for r in records},
            {r.key: r.sha256 for r in records})


def test_a_salesforce_edit_decodes_the_changed_row_and_the_share_rows_alone(monkeypatch) -> None:
    doc = _sf_doc()
    known, stored = _sf_remember(_bytes(doc))
    doc["records"][12]["Description"] = "Three-year renewal, signed."
    edited = _bytes(doc)
    decoded = _Decoded(monkeypatch)
    out = _sf_parse(edited, common.ItemMemo(known, stored, "salt"))
    assert [r.id for r in out if isinstance(r, SourceRecord)] == ["006A00000Opp011"]
    # the share row and the edited row whole; of the others, the Id and attributes that name
    # the record a share row grants on
    rows = [len(_bytes(doc["records"][i], None)) for i in (5, 12)]
    ids = sum(len(_bytes([r["Id"], r["attributes"]], None)) for r in doc["records"] if "Id" in r)
    assert 0 < decoded.chars < sum(rows) + ids + 100 < len(edited) // 4
    assert _outcome(out) == _outcome(_sf_parse(edited, None))


def test_a_new_share_row_rebuilds_the_row_it_grants_on_alone() -> None:
    doc = _sf_doc()
    known, stored = _sf_remember(_bytes(doc))
    doc["records"].append({"attributes": {"type": "OpportunityShare"},
                           "OpportunityId": "006A00000Opp007", "UserOrGroupId": "00G5g00000Ops"})
    edited = _bytes(doc)
    out = _sf_parse(edited, common.ItemMemo(known, stored, "salt"))
    (built,) = [r for r in out if isinstance(r, SourceRecord)]
    assert built.id == "006A00000Opp007" and "00G5g00000Ops" in str(built.acl)
    assert _outcome(out) == _outcome(_sf_parse(edited, None))


def test_a_share_row_written_with_escapes_is_still_read_as_one() -> None:
    """JSON may write the type's letters as \\u escapes: the row must still be found a share."""
    doc = _sf_doc()
    known, stored = _sf_remember(_bytes(doc))
    doc["records"].append({"attributes": {"type": "OpportunityShar@"},
                           "OpportunityId": "006A00000Opp007", "UserOrGroupId": "00G5g00000Ops"})
    edited = _bytes(doc).replace(b"Shar@", b"Shar\\u0065")
    assert b'Shar\\u0065"' in edited
    out = _sf_parse(edited, common.ItemMemo(known, stored, "salt"))
    (built,) = [r for r in out if isinstance(r, SourceRecord)]
    assert built.id == "006A00000Opp007" and "00G5g00000Ops" in str(built.acl)


_SF_BYTES = _bytes(_sf_doc(4))
_SF_MEMO = _sf_remember(_SF_BYTES)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.integers(0, len(_SF_BYTES) - 1),
                                st.sampled_from([b"", b" ", b",", b"1", b'"', b"\\u0065", b"}",
                                                 b"\xff", b"e", b"Share", b"Opp001"]),
                                st.integers(0, 3)),
                      min_size=1, max_size=3))
def test_the_salesforce_memo_path_reads_any_bytes_as_a_whole_decode_does(edits) -> None:
    data = bytearray(_SF_BYTES)
    for at, new, drop in edits:
        data[at:at + drop] = new
    known, stored = _SF_MEMO
    with_memo = _sf_parse(bytes(data), common.ItemMemo(known, stored, "salt"))
    assert _outcome(with_memo) == _outcome(_sf_parse(bytes(data), None))

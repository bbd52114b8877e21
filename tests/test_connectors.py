"""Behaviour every file-export connector shares, plus the timestamp and XHTML helpers."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from compiler.models import SourceRecord
from connectors.base import RecordError, SourceConfig
from connectors.registry import CONNECTORS, UnknownSystemError, get_connector
from connectors.timefmt import parse_timestamp
from connectors.xhtml import storage_to_text

JSON_SYSTEMS = ("confluence", "jira", "salesforce", "zendesk", "hubspot")


def _parse(system: str, data: bytes, path: str = "export.json") -> list[SourceRecord | RecordError]:
    source = SourceConfig(path="src", system=system, instance="main")
    return list(get_connector(system).parse(path, data, source, "acme"))


# -- timestamps --------------------------------------------------------------------------


def test_parse_timestamp_jira_compact_offset() -> None:
    ts = parse_timestamp("2011-12-14T10:26:06.030+1300")
    assert ts == datetime(2011, 12, 14, 10, 26, 6, 30000, tzinfo=timezone(timedelta(hours=13)))
    assert ts.utcoffset() == timedelta(hours=13)


def test_parse_timestamp_salesforce_form_is_utc() -> None:
    assert parse_timestamp("2011-07-07T00:37:00.000+0000") == datetime(2011, 7, 7, 0, 37, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-05-01T12:00:00Z", datetime(2024, 5, 1, 12, tzinfo=UTC)),
        ("2024-05-01T12:00:00-05:00", datetime(2024, 5, 1, 17, tzinfo=UTC)),
        ("2024-05-01", datetime(2024, 5, 1, tzinfo=UTC)),
        ("2024-05-01T12:00:00", datetime(2024, 5, 1, 12, tzinfo=UTC)),
        (date(2024, 5, 1), datetime(2024, 5, 1, tzinfo=UTC)),
        (datetime(2024, 5, 1, 8), datetime(2024, 5, 1, 8, tzinfo=UTC)),
    ],
)
def test_parse_timestamp_is_always_aware(value: str | date, expected: datetime) -> None:
    parsed = parse_timestamp(value)
    assert parsed.tzinfo is not None
    assert parsed == expected


@pytest.mark.parametrize("bad", ["yesterday", "", "2024-13-01", 1700000000])
def test_parse_timestamp_rejects_garbage(bad: object) -> None:
    with pytest.raises(ValueError):
        parse_timestamp(bad)  # type: ignore[arg-type]


# -- registry ------------------------------------------------------------------------------


def test_registry_maps_each_system_to_its_connector() -> None:
    assert set(CONNECTORS) == {"confluence", "jira", "salesforce", "zendesk", "hubspot", "markdown",
                               "folio-record", "claimset"}
    for system, cls in CONNECTORS.items():
        connector = get_connector(system)
        assert isinstance(connector, cls)
        assert connector.system == system
        assert connector.file_suffixes and all(s.startswith(".") for s in connector.file_suffixes)
    assert get_connector("markdown").file_suffixes == (".md", ".markdown")


def test_unknown_system_lists_known_ones() -> None:
    with pytest.raises(UnknownSystemError) as info:
        get_connector("sharepoint")
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert "sharepoint" in message
    for system in CONNECTORS:
        assert system in message


# -- file-level errors, the same for every JSON connector ------------------------------------


@pytest.mark.parametrize("system", JSON_SYSTEMS)
def test_malformed_json_names_line_and_column(system: str) -> None:
    out = _parse(system, b'{\n  "results": [\n    {"id": 1,,}\n  ]\n}', path="dump/broken.json")
    assert len(out) == 1
    err = out[0]
    assert isinstance(err, RecordError)
    assert err.path == "dump/broken.json"
    assert "line 3, column 14" in err.message
    assert "dump/broken.json" in str(err)


@pytest.mark.parametrize("system", [*JSON_SYSTEMS, "markdown"])
def test_invalid_utf8_is_a_record_error(system: str) -> None:
    out = _parse(system, b'{"title": "caf\xe9"}', path="latin1.json")
    assert len(out) == 1
    assert isinstance(out[0], RecordError)
    assert "UTF-8" in out[0].message and "byte 14" in out[0].message


@pytest.mark.parametrize("system", JSON_SYSTEMS)
def test_non_standard_json_constants_are_rejected(system: str) -> None:
    out = _parse(system, b'{"results": [NaN], "issues": [NaN], "records": [NaN], "tickets": [NaN]}')
    assert len(out) == 1 and isinstance(out[0], RecordError)
    assert "NaN" in out[0].message


@pytest.mark.parametrize("system", JSON_SYSTEMS)
@pytest.mark.parametrize("payload", [b"[]", b'"text"', b"{}", b"null"])
def test_unexpected_document_shape_is_one_error(system: str, payload: bytes) -> None:
    out = _parse(system, payload)
    assert len(out) == 1 and isinstance(out[0], RecordError)
    assert out[0].record is None


@pytest.mark.parametrize("system", JSON_SYSTEMS)
def test_deeply_nested_json_does_not_raise(system: str) -> None:
    out = _parse(system, b"[" * 100_000 + b"]" * 100_000)
    assert len(out) == 1 and isinstance(out[0], RecordError)


@pytest.mark.parametrize(
    ("system", "payload"),
    [
        ("confluence", b'{"results": [42, "x", null]}'),
        ("jira", b'{"issues": [42, "x", null]}'),
        ("salesforce", b'{"records": [42, "x", null]}'),
        ("zendesk", b'{"tickets": [42, "x", null]}'),
    ],
)
def test_non_object_records_are_errors_by_position(system: str, payload: bytes) -> None:
    out = _parse(system, payload)
    assert [type(r) for r in out] == [RecordError] * 3
    assert [r.record for r in out if isinstance(r, RecordError)][0].endswith("[0]")


# -- Confluence storage format ----------------------------------------------------------------

STORAGE = """<h1>Refunds&nbsp;policy</h1>
<p>Customers   may return <strong>items</strong> within 30&nbsp;days. See
<ac:link><ri:page ri:content-title="Return Policy" /></ac:link> and
<ac:link><ri:page ri:space-key="OPS" ri:content-title="Shipping" /><ac:plain-text-link-body><![CDATA[our shipping page]]></ac:plain-text-link-body></ac:link>.</p>
<ul><li><p>First</p></li><li>Second<ul><li>nested</li></ul></li></ul>
<table><tbody>
<tr><th>Owner</th><td><p>Jane Doe</p></td></tr>
<tr><td>a</td><td>b</td><td>c</td></tr>
</tbody></table>
<ac:structured-macro ac:name="info"><ac:parameter ac:name="title">Heads up</ac:parameter>
<ac:rich-text-body><p>Important stuff</p></ac:rich-text-body></ac:structured-macro>
<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">python</ac:parameter>
<ac:plain-text-body><![CDATA[x = 1 < 2
y = 3]]></ac:plain-text-body></ac:structured-macro>
<p>line one<br/>line two &amp; more</p>
<ac:link><ri:page ri:content-title="Return Policy" /></ac:link>"""


def test_storage_format_to_text() -> None:
    result = storage_to_text(STORAGE)
    assert result.text.split("\n") == [
        "# Refunds policy",  # headings keep their level so they are not read as sentences
        "Customers may return items within 30 days. See Return Policy and our shipping page.",
        "- First",
        "- Second",
        "- nested",
        "Owner: Jane Doe",
        "a | b | c",
        "Important stuff",
        "x = 1 < 2",
        "y = 3",
        "line one",
        "line two & more",
        "Return Policy",
    ]
    assert "Heads up" not in result.text and "python" not in result.text
    assert result.page_links == ("Return Policy", "Shipping", "Return Policy")


def test_storage_format_is_deterministic() -> None:
    assert storage_to_text(STORAGE) == storage_to_text(STORAGE)


@pytest.mark.parametrize(
    "markup",
    [
        "<p>unclosed <b>bold <table><tr><td>x<td>y</table> <ac:link><ri:page ri:content-title=\"Z\"/>",
        "</td></tr></table></li></ac:link></ac:parameter><p>ok</p>",
        "<![if foo]><p>ok</p><!DOCTYPE x><?pi?>&bogus; &#xffffffff; <",
        "<p>ok" + "<div>" * 5000,
    ],
)
def test_storage_format_survives_malformed_markup(markup: str) -> None:
    result = storage_to_text(markup)
    assert isinstance(result.text, str)
    assert "ok" in result.text or "x: y" in result.text


def test_storage_format_unclosed_table_keeps_row_order() -> None:
    result = storage_to_text('<table><tr><td>x<td>y</table><ac:link><ri:page ri:content-title="Z"/>')
    assert result.text == "x: y\nZ"
    assert result.page_links == ("Z",)


def test_storage_format_empty() -> None:
    assert storage_to_text("").text == ""
    assert storage_to_text("<p> &nbsp; </p>").text == ""

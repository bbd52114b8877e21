"""Multi-row, multi-column tables never turn into false contradictions: each row is an entity
or a qualifier, each value column its own attribute (its header). Two columns of one row are
never rival values of one attribute, and rows of one table stating one attribute are told
apart by their labels (a policy's retention period per data category)."""

from __future__ import annotations

from datetime import UTC, datetime

from compiler.extract.offline import OfflineBackend
from compiler.linking import link_record
from compiler.models import ACL, Authority, SourceRecord
from compiler.registry import NameIndex, declaration_for
from compiler.resolve import resolve
from compiler.schema.model import Schema
from connectors.xhtml import storage_to_text

# a schema (induced or written) that happens to hold attributes whose names are words of
# row labels ("Account Executive", "Customer Success Manager")
HR = Schema.model_validate({
    "types": {
        "policy": {"attributes": {
            "account": {"type": "text"},
            "account manager": {"type": "text"},
            "data retention period": {"type": "duration", "unit": "days",
                                      "phrases": ["retention period"]},
            "owner": {"type": "text"},
        }},
        "account": {"attributes": {
            "payment terms": {"type": "text"},
        }},
    },
})

BANDS = ("<table><tr><th>Role</th><th>Level</th><th>Band minimum</th><th>Band maximum</th></tr>"
         "<tr><td>Account Executive</td><td>II</td><td>$90,000</td><td>$110,000</td></tr>"
         "<tr><td>Customer Success Manager</td><td>II</td><td>$82,000</td><td>$98,000</td>"
         "</tr></table>")

RETENTION = ("<table><tr><th>Data category</th><th>Retention period</th></tr>"
             "<tr><td>Assessment responses</td><td>2 years</td></tr>"
             "<tr><td>Application logs</td><td>180 days</td></tr></table>")


def _record(body: str, rid: str = "1", title: str = "Policy", entity_type: str = "policy",
            rtype: str = "page") -> SourceRecord:
    return SourceRecord(tenant="t", system="confluence", instance="i", type=rtype, id=rid,
                        version="1", updated_at=datetime(2026, 1, 1, tzinfo=UTC), title=title,
                        entity_type=entity_type, body=body, acl=ACL(public=True))


def _link(records: list[SourceRecord], schema: Schema):
    index = NameIndex(declaration_for(r, 100) for r in records)
    backend = OfflineBackend(schema)
    out = []
    for r in records:
        out += link_record(r, backend.extract(r), index, Authority(rank=100, rule="r"), schema)
    return out


def test_row_label_containing_an_attribute_name_is_not_that_attribute() -> None:
    text = storage_to_text(BANDS).text
    claims = [c for c in OfflineBackend(HR).extract(_record(text)).claims if c.kind == "fact"]
    assert not [c for c in claims if c.attribute in ("account", "account manager")]
    got = {(c.attribute, c.value) for c in claims}
    assert ("band minimum for account executive", "$90,000") in got
    assert ("band maximum for customer success manager", "$98,000") in got


def test_transposed_table_still_reads_the_label_as_the_attribute() -> None:
    text = "Retention period; Value: 90 days."
    (c,) = [c for c in OfflineBackend(HR).extract(_record(text)).claims if c.kind == "fact"]
    assert (c.attribute, c.value, c.mapped) == ("data retention period", "90 days", True)


def test_rows_stating_one_attribute_are_told_apart_by_their_labels() -> None:
    text = storage_to_text(RETENTION).text
    claims = [c for c in _link([_record(text)], HR) if c.attribute == "data retention period"]
    assert {(tuple(c.qualifiers.items()), c.value) for c in claims} == {
        ((("data category", "Assessment responses"),), "2 years"),
        ((("data category", "Application logs"),), "180 days")}
    _, conflicts = resolve(claims, lambda rule: "none")
    assert conflicts == []


def test_rows_naming_entities_land_on_them_without_a_row_qualifier() -> None:
    table = ("<table><tr><th>Customer</th><th>Payment terms</th></tr>"
             "<tr><td>Globex</td><td>Net 45</td></tr>"
             "<tr><td>Initech</td><td>Net 30</td></tr></table>")
    records = [_record(storage_to_text(table).text),
               _record("", "2", "Globex", "account", "account"),
               _record("", "3", "Initech", "account", "account")]
    got = {(c.subject, c.value, tuple(c.qualifiers.items()))
           for c in _link(records, HR) if c.attribute == "payment terms"}
    assert got == {("account/globex", "Net 45", ()), ("account/initech", "Net 30", ())}


def test_row_labels_keep_grouped_numbers_and_their_parentheses() -> None:
    # a rate card: "10,000 lb" is one number, not a lead-in clause ending at its comma, and a
    # label's closing parenthesis belongs to it
    table = ("<table><tr><th>Equipment</th><th>Daily</th></tr>"
             "<tr><td>10,000 lb telehandler</td><td>$395</td></tr>"
             "<tr><td>Mini excavator (3.5 t)</td><td>$310</td></tr></table>")
    text = storage_to_text(table).text
    got = {(c.attribute, c.value) for c in OfflineBackend(HR).extract(_record(text)).claims
           if c.kind == "fact"}
    assert got == {("daily for 10,000 lb telehandler", "$395"),
                   ("daily for mini excavator (3.5 t)", "$310")}

"""A heading naming one attribute above a table of several value columns names at most one of
them: two columns of one row never become two values of the heading's attribute (a policy's
"Payer channels" table with an "ePA channel" and a "Typical decision time" column)."""

from __future__ import annotations

from compiler.schema.loader import base_schema
from connectors.xhtml import storage_to_text
from tests.test_tables_rows import _link, _record

PAYERS = ("<h2>Payer channels</h2><table><tbody><tr><th><p><strong>Payer</strong></p></th>"
          "<th><p><strong>ePA channel</strong></p></th><th><p><strong>Typical decision time"
          "</strong></p></th></tr><tr><td><p>Harbor Mutual</p></td><td><p>CoverMyMeds</p></td>"
          "<td><p>3 business days</p></td></tr><tr><td><p>Lakeside Care</p></td><td><p>Fax</p>"
          "</td><td><p>7 business days</p></td></tr></tbody></table>")


def test_two_columns_of_a_row_are_not_two_values_of_the_headings_attribute() -> None:
    text = storage_to_text(PAYERS).text
    claims = [c for c in _link([_record(text)], base_schema()) if c.kind == "fact"]
    by_attr: dict[tuple, set[str]] = {}
    for c in claims:
        by_attr.setdefault((c.subject, c.attribute, tuple(sorted(c.qualifiers.items()))),
                           set()).add(c.value)
    assert all(len(v) == 1 for v in by_attr.values()), by_attr
    values = {c.value for c in claims}
    assert {"CoverMyMeds", "Fax", "3 business days", "7 business days"} <= values

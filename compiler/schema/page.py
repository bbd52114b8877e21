"""The schema's section of the wiki's ``SCHEMA.md``: entity types, attributes with their value
types, cardinality and qualifiers, the qualifiers' values and every system's field mappings.
Generated from the schema the wiki was compiled under, so it never drifts from it."""

from __future__ import annotations

from ..text import collapse
from .model import Attribute, FieldMap, Schema


def _cell(text: str) -> str:
    """Table cell text: pipes and newlines would break the row; markup is shown as text."""
    out = collapse(text).replace("\\", "\\\\").replace("|", "\\|")
    for ch in "`*_[]<>":
        out = out.replace(ch, "\\" + ch)
    return out


def _type(a: Attribute) -> str:
    extra = a.currency or a.unit or a.target
    return f"{a.type} ({extra})" if extra else a.type


def _values(a: Attribute) -> str:
    """How many canonical values an enum declares, not the values: SCHEMA.md goes into every
    audience vault, and a label ("Negotiation/Review") can be what a hidden record says."""
    n = len(a.values)
    return f"{n} canonical value{'s' if n != 1 else ''}" if n else ""


def render_schema_section(schema: Schema, digest: str) -> list[str]:
    lines = [
        "## Schema",
        "",
        f"Schema version `{_cell(schema.version)}`, digest `{digest}` (the bundled base schema "
        "with the corpus's `schema.yaml` merged over it; both go into every DBOM). Claims on",
        "declared attributes are compared by their typed, normalised value; attributes no",
        "mapping names stay claims under their own name, marked unmapped (`folio lint` lists",
        "the most frequent).",
        "",
    ]
    for tname in sorted(schema.types):
        etype = schema.types[tname]
        if not etype.attributes:
            continue
        lines += [f"### {_cell(tname)}", ""]
        if etype.description:
            lines += [_cell(etype.description), ""]
        lines += ["| attribute | type | cardinality | qualifiers | phrases | values |",
                  "|---|---|---|---|---|---|"]
        for aname in sorted(etype.attributes):
            a = etype.attributes[aname]
            lines.append(
                f"| {_cell(aname)} | {_cell(_type(a))} | {a.cardinality} | "
                f"{_cell(', '.join(a.qualifiers))} | {_cell(', '.join(a.phrases))} | "
                f"{_cell(_values(a))} |")
        lines.append("")
    if schema.qualifiers:
        lines += ["### Qualifiers", "", "| qualifier | values |", "|---|---|"]
        for qname in sorted(schema.qualifiers):
            q = schema.qualifiers[qname]
            lines.append(f"| {_cell(qname)} | {_cell(', '.join(q.values))} |")
        lines.append("")
    if schema.mappings:
        if any(isinstance(t, FieldMap) and t.induced for m in schema.mappings
               for t in m.fields.values()):
            lines += ["Mappings marked *induced* were inferred from the corpus's own records "
                      "(schema induction: values that agree on the same entities across "
                      "systems, names, value types), not declared; `folio lint` lists their "
                      "evidence and `folio schema induce` writes them as a schema.yaml to "
                      "review and keep.", ""]
        lines += ["### Field mappings", "",
                  "| system | instance | record type | field | attribute |", "|---|---|---|---|---|"]
        for m in schema.mappings:
            for field in sorted(m.fields):
                target = m.fields[field]
                attr = target.attribute if isinstance(target, FieldMap) else target
                if isinstance(target, FieldMap) and target.values:
                    attr += f" ({len(target.values)} values mapped)"
                if isinstance(target, FieldMap) and target.induced:
                    attr += " (induced)"
                on = f"{m.entity_type}." if m.entity_type else ""
                lines.append(f"| {_cell(m.system)} | {_cell(m.instance or 'any')} | "
                             f"{_cell(m.record_type or 'any')} | {_cell(field)} | "
                             f"{_cell(on + attr)} |")
        lines.append("")
    return lines

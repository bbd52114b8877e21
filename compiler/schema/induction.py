"""What induction produces and reads (compiler/schema/induce.py): the fields it mapped, the
attributes and prose phrases it declared, and what it reads of one record. Kept apart from
the rules so that the rule modules (induce_statements, narrow) and the store need not import
the induction they feed."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from .model import Attribute, EntityType, FieldMap, Mapping, Qualifier, Schema

INDUCED_VERSION = "induce-11"  # bump when the rules change: the digest then changes too
# 10: a condition's time limit is a stated value; groups of sentences join only when most of
# their pairs are linked (no chains); a price per the thing it is of is flat; counts exclude
# bounds and ranges
# an attribute induced from a table column whose rows are customer segments (induce.py)
SEGMENT_ROW_MARK = "induced: a column whose rows are the customer segments"


@dataclass(frozen=True, slots=True)
class Column:
    """One field of one record type of one system instance."""

    system: str
    instance: str
    record_type: str
    entity_type: str
    field: str

    @property
    def label(self) -> str:
        return f"{self.system}/{self.instance}/{self.record_type}.{self.field}"


@dataclass(frozen=True)
class InducedField:
    """One field induction mapped, and why."""

    column: Column
    attribute: str
    entity_type: str
    evidence: str
    new_attribute: bool  # the attribute is the induction's own (no schema declares it)
    # an enum value map (this system's value → another system's for the same entities)
    values: tuple[tuple[str, str], ...] = ()
    # the declared mapping's qualifiers, kept when induction adds a value map to it
    qualifiers: tuple[tuple[str, str], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        out = {"system": self.column.system, "instance": self.column.instance,
               "record_type": self.column.record_type, "field": self.column.field,
               "entity_type_of_record": self.column.entity_type,
               "entity_type": self.entity_type, "attribute": self.attribute,
               "new_attribute": self.new_attribute, "evidence": self.evidence}
        if self.values:
            out["values"] = dict(self.values)
        if self.qualifiers:
            out["qualifiers"] = dict(self.qualifiers)
        return out


@dataclass
class Induction:
    fields: list[InducedField] = field(default_factory=list)
    attributes: dict[tuple[str, str], Attribute] = field(default_factory=dict)
    phrases: list[InducedPhrase] = field(default_factory=list)
    # customer segments (a CRM's plan or tier field): qualifier name → label → synonyms
    qualifiers: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)

    def to_json(self) -> str:
        import json

        return json.dumps({
            "fields": [f.as_dict() for f in self.fields],
            "qualifiers": {q: {k: list(v) for k, v in vals.items()}
                           for q, vals in sorted(self.qualifiers.items())},
            "attributes": [[t, a, s.model_dump(mode="json", exclude_defaults=True)]
                           for (t, a), s in sorted(self.attributes.items())],
            "phrases": [[list(p.entity_types), p.attribute, p.value_type, p.records, p.evidence]
                        for p in self.phrases]},
            sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Induction:
        import json

        data = json.loads(text)
        out = cls()
        for f in data.get("fields", []):
            out.fields.append(InducedField(
                Column(f["system"], f["instance"], f["record_type"], f["entity_type_of_record"],
                       f["field"]), f["attribute"], f["entity_type"], f["evidence"],
                f["new_attribute"], tuple(sorted(f.get("values", {}).items())),
                tuple(sorted(f.get("qualifiers", {}).items()))))
        for t, a, s in data.get("attributes", []):
            out.attributes[(t, a)] = Attribute.model_validate(s)
        for types, a, vt, n, ev in data.get("phrases", []):
            out.phrases.append(InducedPhrase(tuple(types), a, vt, n, ev))
        for q, vals in data.get("qualifiers", {}).items():
            out.qualifiers[q] = {k: tuple(v) for k, v in vals.items()}
        return out

    @property
    def empty(self) -> bool:
        return not self.fields and not self.attributes and not self.qualifiers

    def overlay(self) -> Schema:
        """The induced mappings (marked ``induced``) and attributes, as a schema to merge
        over the corpus's."""
        types: dict[str, dict[str, Attribute]] = defaultdict(dict)
        for (etype, name), spec in sorted(self.attributes.items()):
            types[etype][name] = spec
        grouped: dict[tuple[str, str, str, str], dict[str, FieldMap]] = defaultdict(dict)
        for f in sorted(self.fields, key=lambda f: (f.column.label, f.attribute)):
            c = f.column
            grouped[(c.system, c.instance, c.record_type, f.entity_type)][c.field] = FieldMap(
                attribute=f.attribute, induced=True, values=dict(f.values),
                qualifiers=dict(f.qualifiers))
        mappings = tuple(
            Mapping(system=s, instance=i, record_type=r, entity_type=e, fields=dict(fields))
            for (s, i, r, e), fields in sorted(grouped.items()))
        return Schema(version=INDUCED_VERSION,
                      types={t: EntityType(attributes=a) for t, a in sorted(types.items())},
                      qualifiers={q: Qualifier(description="induced: a customer segment field's "
                                               "values", values=dict(v))
                                  for q, v in sorted(self.qualifiers.items())},
                      mappings=mappings)


@dataclass(frozen=True, slots=True)
class RecordFields:
    """What induction reads of one record."""

    system: str
    instance: str
    record_type: str
    entity_type: str
    entity: str  # the page the record's own entity lands on (the join across systems)
    fields: tuple[tuple[str, Any], ...]
    # prose facts extraction left unmapped: (surface attribute, value as written, slug of the
    # entity name the sentence states it of, or "" when it names none: see ``prose_fact``)
    facts: tuple[tuple[str, str, str], ...] = ()
    # statements holding one typed value (induce_statements.py): sentences as written
    statements: tuple[str, ...] = ()
    # (narrower name, declared attribute) mapped facts state (narrow.py)
    narrowed: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class InducedPhrase:
    """A prose attribute induction declared: a surface name several records state with values
    of one type."""

    entity_types: tuple[str, ...]
    attribute: str
    value_type: str
    records: int
    evidence: str

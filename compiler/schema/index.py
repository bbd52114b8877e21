"""A schema compiled for lookups: attributes by key or phrase, a record's field mapping, enum
labels and qualifier values by their synonyms. Built once per schema (cached), read by the
mapping of structured fields, linking and value typing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .keys import attr_key, type_key, value_key
from .model import Attribute, FieldMap, Mapping, Schema, per_schema


@dataclass(frozen=True, slots=True)
class Declared:
    """An attribute as the schema declares it: on which type, under which canonical name."""

    type: str
    name: str
    spec: Attribute


class Vocabulary:
    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self._types: dict[str, str] = {type_key(t): t for t in schema.types}
        self._attrs: dict[str, dict[str, Declared]] = {}  # names and phrases
        self._named: dict[str, dict[str, Declared]] = {}  # names only
        self._anywhere: dict[str, list[Declared]] = {}
        self._enum: dict[tuple[str, str], dict[str, str]] = {}
        for tname, etype in schema.types.items():
            table = self._attrs.setdefault(type_key(tname), {})
            for aname, spec in etype.attributes.items():
                d = Declared(tname, aname, spec)
                # the name itself first: a phrase of another attribute never shadows it
                table[attr_key(aname)] = d
                self._named.setdefault(type_key(tname), {})[attr_key(aname)] = d
                self._anywhere.setdefault(attr_key(aname), []).append(d)
                labels = {value_key(label): label for label in spec.values}
                for label, synonyms in spec.values.items():
                    for s in synonyms:
                        labels.setdefault(value_key(str(s)), label)
                self._enum[(tname, aname)] = labels
            for aname, spec in etype.attributes.items():
                for phrase in spec.phrases:
                    table.setdefault(attr_key(phrase), Declared(tname, aname, spec))
        self._qualifiers: dict[str, tuple[str, dict[str, str]]] = {}
        for qname, q in schema.qualifiers.items():
            values = {value_key(label): label for label in q.values}
            for label, synonyms in q.values.items():
                for s in synonyms:
                    values.setdefault(value_key(str(s)), label)
            self._qualifiers[attr_key(qname)] = (qname, values)
        # system → [(specificity, order, mapping, fields by key)]
        self._mappings: dict[str, list[tuple[int, int, Mapping, dict[str, FieldMap]]]] = {}
        for order, m in enumerate(schema.mappings):
            fields = {attr_key(f): (FieldMap(attribute=t) if isinstance(t, str) else t)
                      for f, t in m.fields.items()}
            specificity = (m.instance is not None) + (m.record_type is not None)
            self._mappings.setdefault(attr_key(m.system), []).append(
                (specificity, order, m, fields))
        # induced mappings may take over a field extraction mapped by its name alone
        self.induced = any(isinstance(t, FieldMap) and t.induced
                           for m in schema.mappings for t in m.fields.values())
        self._field_cache: dict[tuple[str, str, str, str, str], tuple[Declared, FieldMap] | None] = {}
        self.words = frozenset(
            w for t in schema.types.values() for a, spec in t.attributes.items()
            for text in (a, *spec.phrases) for w in text.lower().split() if w.isalpha())

    # -- attributes ----------------------------------------------------------------------
    def type_name(self, entity_type: str | None) -> str | None:
        return self._types.get(type_key(entity_type)) if entity_type else None

    def attribute(self, entity_type: str | None, name: str) -> Declared | None:
        """The attribute ``name`` (or a phrase of it) declared on ``entity_type``."""
        if not entity_type:
            return None
        return self._attrs.get(type_key(entity_type), {}).get(attr_key(name))

    def attribute_named(self, entity_type: str | None, name: str) -> Declared | None:
        """The attribute whose own name (not a phrase) is ``name``."""
        if not entity_type:
            return None
        return self._named.get(type_key(entity_type), {}).get(attr_key(name))

    def attribute_anywhere(self, name: str, entity_type: str | None = None) -> Declared | None:
        """On ``entity_type`` when given, else on the one type that declares it."""
        if entity_type:
            return self.attribute(entity_type, name)
        found = self._anywhere.get(attr_key(name), [])
        return found[0] if len(found) == 1 else None

    def declared_anywhere(self, name: str) -> Declared | None:
        """The first type's attribute named (or phrased) ``name``, whichever type it is on."""
        for table in self._attrs.values():
            if (d := table.get(attr_key(name))) is not None:
                return d
        return None

    def declared(self) -> Iterator[Declared]:
        for table in self._attrs.values():
            seen: set[str] = set()
            for d in table.values():
                if d.name not in seen:
                    seen.add(d.name)
                    yield d

    # -- values --------------------------------------------------------------------------
    def enum_label(self, d: Declared, value: str) -> str | None:
        return self._enum.get((d.type, d.name), {}).get(value_key(value))

    def qualifier(self, name: str) -> str | None:
        hit = self._qualifiers.get(attr_key(name))
        return hit[0] if hit else None

    def qualifier_names(self) -> list[str]:
        return [name for name, _ in self._qualifiers.values()]

    def qualifier_value(self, name: str, value: str) -> str | None:
        hit = self._qualifiers.get(attr_key(name))
        return hit[1].get(value_key(value)) if hit else None

    # -- mappings ------------------------------------------------------------------------
    def field(self, system: str, instance: str, record_type: str, entity_type: str,
              field: str) -> tuple[Declared, FieldMap] | None:
        """The attribute a record's field maps onto: the most specific mapping of the record's
        system (instance and record type narrowing it) that names the field, a later mapping
        winning a tie; else an attribute of the record's entity type named like the field."""
        key = (system, instance, record_type, entity_type, field)
        if key in self._field_cache:
            return self._field_cache[key]
        found = self._field(system, instance, record_type, entity_type, field)
        if len(self._field_cache) > 100_000:
            self._field_cache.clear()
        self._field_cache[key] = found
        return found

    def _field(self, system: str, instance: str, record_type: str, entity_type: str,
               field: str) -> tuple[Declared, FieldMap] | None:
        fkey = attr_key(field)
        best: tuple[int, int] | None = None
        hit: tuple[Declared, FieldMap] | None = None
        for specificity, order, m, fields in self._mappings.get(attr_key(system), ()):
            if m.instance is not None and m.instance != instance:
                continue
            if m.record_type is not None and type_key(m.record_type) != type_key(record_type):
                continue
            fm = fields.get(fkey)
            if fm is None or (best is not None and (specificity, order) < best):
                continue
            on = m.entity_type or entity_type
            d = self.attribute(on, fm.attribute) or self.attribute_anywhere(fm.attribute)
            if d is not None:
                best, hit = (specificity, order), (d, fm)
        if hit is not None:
            return hit
        d = self._attrs.get(type_key(entity_type), {}).get(fkey)
        return (d, FieldMap(attribute=d.name)) if d is not None else None


# the compiled lookups of a schema, kept while the schema object lives
vocabulary: Callable[[Schema], Vocabulary] = per_schema(Vocabulary)

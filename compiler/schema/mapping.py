"""Structured fields through the schema: which canonical attribute a record's field states,
and the typed, normalised form of a claim's value. Pure; used by extraction (fields become
mapped raw claims) and by linking (every comparable claim gets its value type and
normalised value)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from ..models import Scalar, SourceRecord
from ..text import humanize_field
from .index import Declared, Vocabulary
from .keys import field_words, value_key
from .model import FieldMap
from .values import format_number, normalize, parse_number


def source_form(value: Scalar) -> str:
    """A field value as the source wrote it: JSON numbers without a float's ``.0``
    (``2400000000.0`` → ``2400000000``), booleans lower-case."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return str(value)
        return format_number(Decimal(repr(value)))
    return str(value)


def field_target(vocab: Vocabulary | None, record: SourceRecord, field: str
                 ) -> tuple[Declared, FieldMap] | None:
    if vocab is None:
        return None
    return vocab.field(record.system, record.instance, record.type, record.entity_type, field)


def field_attribute(vocab: Vocabulary | None, record: SourceRecord, field: str
                    ) -> tuple[str, bool, str | None, tuple[tuple[str, str], ...]]:
    """(attribute, mapped, type it is declared on, qualifiers) of one field of a record; an
    unmapped field keeps its own name, read as words (``issuetype`` → ``issue type``)."""
    if vocab is None:
        return humanize_field(field), False, None, ()
    hit = field_target(vocab, record, field)
    if hit is None:
        return field_words(field, vocab.words), False, None, ()
    d, fm = hit
    quals = [(vocab.qualifier(q) or q, vocab.qualifier_value(q, v) or v)
             for q, v in fm.qualifiers.items()]
    return d.name, True, d.type, tuple(sorted(quals))


def normalized_value(vocab: Vocabulary, d: Declared, value: str, fm: FieldMap | None,
                     reference: Callable[[str, str | None], str | None]) -> str:
    """The comparison form of ``value`` for attribute ``d`` (``fm``: the field map the value
    came through, whose value map applies first; ``reference``: name key lookup)."""
    spec = d.spec
    if fm is not None and fm.scale is not None:
        got = parse_number(value.strip().lower())
        if got is not None and not got[1]:
            value = format_number(got[0] * Decimal(repr(fm.scale)))
    if fm is not None and fm.values:
        wanted = value_key(value)
        for source, canonical in fm.values.items():
            if value_key(source) == wanted:
                value = canonical
                break

    def enum(v: str) -> str:
        return vocab.enum_label(d, v) or value_key(v) or v

    def ref(v: str) -> str | None:
        from ..text import name_key

        return reference(name_key(v), spec.target)

    return normalize(value, spec.type, unit=spec.unit, currency=spec.currency, enum=enum,
                     reference=ref)

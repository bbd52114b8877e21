"""Linking: raw claims of one record + the entity registry → claims with subjects and mentions.

With a schema (compiler/schema), linking also settles what a claim is about and how its value
compares: a field the extractor left unmapped is mapped here (LLM backends, claim sets
extracted at a site), a fact whose attribute the subject's type declares becomes that
attribute, and every comparable claim gets its value type and normalised value. A claim whose
attribute the schema declares on another entity type (``subject_type``: prose matched a policy
attribute in a ticket) is about an entity of that type the sentence names, else the one the
record refers to, else the attribute's ``home`` entity, else the record's own entity (then
unmapped when the type differs).

Pure: the same record, extraction, registry and schema always give the same claims (and ids).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from .extract.base import Extraction, RawClaim
from .extract.restate import reread
from .models import Authority, Claim, ClaimKind, Mention, SourceRecord
from .registry import Lookup, entity_id_for, find_mentions
from .slug import safe_type
from .schema.index import Declared, Vocabulary, vocabulary
from .schema.mapping import field_attribute, field_target, normalized_value
from .schema.model import Schema
from .text import collapse, name_key, normalize_attribute, normalize_value


def _find(text: str, lookup: Lookup) -> Sequence[tuple[int, int, str]]:
    finder = getattr(lookup, "mentions", None)  # an in-memory index remembers its answers
    return finder(text) if finder is not None else find_mentions(text, lookup)


def _subject_and_attribute(
    raw: RawClaim, own: str, lookup: Lookup
) -> tuple[str, str, ClaimKind]:
    """A fact whose subject phrase names another entity is about that entity."""
    if raw.kind != "fact" or not raw.subject_phrase:
        return own, raw.attribute, raw.kind
    phrase = raw.subject_phrase
    hits = _find(phrase, lookup)
    if not hits:
        return own, raw.attribute, raw.kind
    start, end, subject = hits[0]
    if raw.attribute != normalize_attribute(phrase):
        return subject, raw.attribute, raw.kind  # "S has a X of Y": X is already the attribute
    rest = normalize_attribute(f"{phrase[:start]} {phrase[end:]}")
    if not rest:
        return subject, "statement", "statement"
    return subject, rest, raw.kind


def _type_of(entity_id: str) -> str:
    return entity_id.split("/", 1)[0]


def _typed_subject(raw: RawClaim, own: str, lookup: Lookup, vocab: Vocabulary,
                   referenced: Sequence[str]) -> tuple[str, bool]:
    """(subject, still mapped) of a claim about an attribute declared on ``subject_type``:
    an entity of that type the sentence names; else the one entity of that type the record
    refers to (a ticket's product component); else the attribute's home; else the record's
    own entity (unmapped unless it is of that type)."""
    wanted = vocab.type_name(raw.subject_type) or str(raw.subject_type)
    want = safe_type(wanted)
    for text in (raw.subject_phrase, raw.quote):
        if text:
            for _, _, eid in _find(text, lookup):
                if _type_of(eid) == want:
                    return eid, True
    # a row or sentence naming an entity of another type that declares the same attribute
    # is about that entity (a policy page's table of each customer's payment terms)
    for _, _, eid in _find(raw.subject_phrase or "", lookup):
        if eid != own and vocab.attribute_named(_type_of(eid), raw.attribute) is not None:
            return eid, True
    if _type_of(own) != want:
        linked = sorted({eid for eid in referenced if _type_of(eid) == want})
        if len(linked) == 1:
            return linked[0], True
    d = vocab.attribute(wanted, raw.attribute)
    if d is not None and d.spec.home:
        home = lookup(name_key(d.spec.home), want)
        if home is not None and _type_of(home) == want:
            return home, True
    return own, _type_of(own) == want


def _mentions(raw: RawClaim, subject: str, lookup: Lookup) -> tuple[Mention, ...]:
    if raw.kind == "reference":
        eid = lookup(name_key(raw.value), raw.target_type)
        return (Mention(entity=eid, start=0, end=len(raw.value)),) if eid else ()
    return tuple(
        Mention(entity=eid, start=s, end=e)
        for s, e, eid in _find(raw.value, lookup)
        if eid != subject
    )


def _declared(raw: RawClaim, record: SourceRecord, subject: str, attribute: str,
              vocab: Vocabulary, mapped: bool) -> Declared | None:
    """The schema's attribute a comparable claim states. A fact the extractor left unmapped
    (or whose typed subject was not found) maps here only by an attribute's own name on its
    subject's type: a phrase ("severity", "reported by") needs the sentence's context, which
    is extraction's to judge."""
    if raw.kind == "field":
        on = raw.subject_type or record.entity_type
        return vocab.attribute(on, attribute) if mapped else vocab.attribute_named(
            on, attribute)
    if mapped:
        return vocab.attribute(raw.subject_type or _type_of(subject), attribute)
    d = vocab.attribute_named(_type_of(subject), attribute)
    if d is None and (alias := vocab.attribute(_type_of(subject), attribute)) is not None \
            and alias.spec.induced:
        # a second prose name induction found to be the same fact ("battery life" of
        # "battery runtime", compiler/schema/induce.py): whole name against whole name
        d = alias
    return d


_COUNTED = re.compile(r"^(\d[\d,.]*)\s+([a-z][a-z -]*[a-z])$")


def _counted(vocab: Vocabulary, entity_type: str, value: str) -> tuple[Declared | None, str]:
    """"Storage: 9,300 pallet positions" states the number attribute its value counts (the
    type's ``pallet positions``, by name or phrase): that attribute, and the number alone."""
    m = _COUNTED.match(collapse(value).lower())
    if m is None:
        return None, value
    d = vocab.attribute(entity_type, m.group(2))
    return (d, m.group(1)) if d is not None and d.spec.type == "number" else (None, value)


def link_record(
    record: SourceRecord, extraction: Extraction, lookup: Lookup, authority: Authority,
    schema: Schema | None = None,
) -> list[Claim]:
    own = entity_id_for(record)
    ref = record.ref
    vocab = vocabulary(schema) if schema is not None else None
    claims: list[Claim] = []
    rows: list[tuple[str, str] | None] = []
    # prose read again with what schema induction added (compiler/extract/restate.py)
    raws = reread(extraction.claims, record.entity_type, schema, lambda text: [
        (s, e, _type_of(eid)) for s, e, eid in _find(text, lookup)], record.body, own)
    # the entities the record refers to (resolved once): a typed claim may be about one
    referenced: list[str] = []
    if vocab is not None and any(r.subject_type for r in raws):
        referenced = [eid for r in extraction.claims if r.kind == "reference"
                      and (eid := lookup(name_key(r.value), r.target_type)) is not None]
        # an entity another of its sentences names in full is one it is about too, where it
        # refers to none of that type
        referenced = [*referenced, *(eid for r in extraction.claims if r.kind == "statement"
                                     for _, _, eid in _find(r.value, lookup)
                                     if eid != own and not any(
                                         _type_of(x) == _type_of(eid) for x in referenced))]
    for raw in raws:
        if (vocab is not None and raw.kind == "field" and (not raw.mapped or vocab.induced)
                and raw.field and raw.field != "name"):
            attribute, mapped, on_type, quals = field_attribute(vocab, record, raw.field)
            if mapped:
                raw = raw.model_copy(update={"attribute": attribute, "mapped": True,
                                             "subject_type": on_type, "qualifiers": quals})
        mapped = raw.mapped
        if vocab is not None and raw.subject_type and raw.kind in ("fact", "statement"):
            subject, mapped = _typed_subject(raw, own, lookup, vocab, referenced)
            attribute, kind = raw.attribute, raw.kind
        else:
            subject, attribute, kind = _subject_and_attribute(raw, own, lookup)
        value = raw.value
        mentions = _mentions(raw.model_copy(update={"kind": kind}) if kind != raw.kind else raw,
                             subject, lookup)
        value_type, normalized, cardinality = "text", None, "single"
        induced = False
        if kind in ("field", "fact"):
            d = (_declared(raw, record, subject, attribute, vocab, mapped)
                 if vocab is not None else None)
            counted = value
            if d is None and kind == "fact" and vocab is not None:
                d, counted = _counted(vocab, _type_of(subject), value)
            if d is not None:
                target = field_target(vocab, record, raw.field) if raw.field else None
                fm = target[1] if target is not None and target[0] == d else None
                induced = (fm is not None and fm.induced) or d.spec.induced
                attribute, mapped = d.name, True
                value_type, cardinality = d.spec.type, d.spec.cardinality
                normalized = normalized_value(vocab, d, counted, fm, lookup)  # type: ignore[arg-type]
            else:
                mapped = False  # compared by the text form (compiler.resolve), not stored
        elif kind == "reference":
            # a relation the schema declares is mapped: through the record's field mapping
            # (Salesforce's Primary_Product__r is the Primary_Product__c field), else by the
            # attribute's name or phrase (relation names are structured, not prose)
            d = None
            if vocab is not None:
                target = field_target(vocab, record, attribute)
                d = target[0] if target is not None else vocab.attribute(
                    _type_of(subject), attribute)
            mapped = d is not None and d.spec.type == "reference"
            if mapped:
                attribute = d.name  # type: ignore[union-attr]
            value_type = "reference"
            normalized = mentions[0].entity if mentions else None
        qualifiers = dict(raw.qualifiers) if mapped else {}
        rows.append(raw.row)
        claims.append(
            Claim(
                id=Claim.make_id(subject, attribute, value, kind, raw.quote, raw.span, ref,
                                 qualifiers),
                subject=subject,
                attribute=attribute,
                value=value,
                kind=kind,
                quote=raw.quote,
                span=raw.span,
                field=raw.field,
                mentions=mentions,
                qualifiers=qualifiers,
                mapped=mapped and kind != "statement",
                induced=induced and mapped,
                value_type=value_type,
                normalized=normalized,
                cardinality=cardinality,  # type: ignore[arg-type]
                stated_at=_stated_at(record, raw),
                source=ref,
                authority=authority,
                observed_at=record.updated_at,
                acl=record.acl,
            )
        )
    return _rows_apart(claims, rows, own)


def _rows_apart(claims: list[Claim], rows: list[tuple[str, str] | None], own: str
                ) -> list[Claim]:
    """Rows of one table that state one attribute of the record's own entity (their labels
    named no entity: "Data category: Support tickets; Retention period: 5 years") are facts
    about different things, never rival values: each row's label becomes a qualifier of its
    claim (``data category: Support tickets``). A lone row keeps the attribute as it is."""
    labels: dict[tuple, set[str]] = {}
    for c, row in zip(claims, rows, strict=True):
        if row is not None and c.subject == own and c.kind == "fact":
            labels.setdefault((c.attribute, tuple(sorted(c.qualifiers.items()))),
                              set()).add(name_key(row[1]))
    apart = {k for k, v in labels.items() if len(v) > 1}
    if not apart:
        return claims
    out = []
    for c, row in zip(claims, rows, strict=True):
        key = (c.attribute, tuple(sorted(c.qualifiers.items())))
        if row is not None and c.subject == own and c.kind == "fact" and key in apart \
                and row[0] not in c.qualifiers:
            quals = dict(c.qualifiers)
            quals[row[0]] = row[1]
            c = c.model_copy(update={"qualifiers": quals, "id": Claim.make_id(
                c.subject, c.attribute, c.value, c.kind, c.quote, c.span, c.source, quals)})
        out.append(c)
    return out


def _stated_at(record: SourceRecord, raw: RawClaim) -> datetime | None:
    """A claim quoted from a span with its own time (a Jira comment) is as of that time;
    None means "the record's time" (kept out of every other claim's JSON)."""
    if not record.span_times or raw.span is None:
        return None
    when = record.time_of(raw.span)
    return when if when != record.updated_at else None

"""Linking: raw claims of one record + the entity registry → claims with subjects and mentions.

Pure: the same record, extraction and registry always give the same claims (and claim ids).
"""

from __future__ import annotations

from collections.abc import Sequence

from .extract.base import Extraction, RawClaim
from .models import Authority, Claim, ClaimKind, Mention, SourceRecord
from .registry import Lookup, entity_id_for, find_mentions
from .text import name_key, normalize_attribute


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


def _mentions(raw: RawClaim, subject: str, lookup: Lookup) -> tuple[Mention, ...]:
    if raw.kind == "reference":
        eid = lookup(name_key(raw.value), raw.target_type)
        return (Mention(entity=eid, start=0, end=len(raw.value)),) if eid else ()
    return tuple(
        Mention(entity=eid, start=s, end=e)
        for s, e, eid in _find(raw.value, lookup)
        if eid != subject
    )


def link_record(
    record: SourceRecord, extraction: Extraction, lookup: Lookup, authority: Authority
) -> list[Claim]:
    own = entity_id_for(record)
    ref = record.ref
    claims: list[Claim] = []
    for raw in extraction.claims:
        subject, attribute, kind = _subject_and_attribute(raw, own, lookup)
        value = raw.value
        mentions = _mentions(raw.model_copy(update={"kind": kind}) if kind != raw.kind else raw,
                             subject, lookup)
        claims.append(
            Claim(
                id=Claim.make_id(subject, attribute, value, kind, raw.quote, raw.span, ref),
                subject=subject,
                attribute=attribute,
                value=value,
                kind=kind,
                quote=raw.quote,
                span=raw.span,
                field=raw.field,
                mentions=mentions,
                source=ref,
                authority=authority,
                observed_at=record.updated_at,
                acl=record.acl,
            )
        )
    return claims

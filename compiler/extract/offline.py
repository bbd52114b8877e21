"""The offline backend: deterministic extraction with no model.

Structured fields become claims as they are. Text is split into sentences; each sentence is
one claim, with an attribute and value when it has one of the common shapes ("X is Y",
"X: Y", "S has a X of Y"), else a plain statement that never conflicts with anything.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..canonical import content_id
from ..models import SourceRecord
from ..text import collapse, normalize_attribute, sentences
from .base import Extraction, RawClaim

if TYPE_CHECKING:
    from ..schema import Schema

# Bump when extraction output can change for the same input: it invalidates the cache.
_RULES_VERSION = "offline-1"

_COLON = re.compile(r"^(?P<x>[^:]{1,80}?)\s*:\s+(?P<y>\S.*?)\s*\.?$")
_HAS = re.compile(
    r"^(?P<s>.+?)\s+(?:has|had)\s+(?:a|an)\s+(?P<x>.+?)\s+of\s+(?P<y>.+?)\s*\.?$", re.IGNORECASE
)
_IS = re.compile(r"^(?P<x>.+?)\s+(?:is|are|was|were)\s+(?P<y>.+?)\s*[.!]?$")
_PRONOUNS = frozenset("it this that these those there he she they we you i which who".split())
_MAX_PHRASE_WORDS = 10
_MAX_VALUE_WORDS = 12
_MAX_COLON_LABEL_WORDS = 6


def _shape(sentence: str) -> tuple[str, str, str] | None:
    """``(subject phrase, attribute phrase, value)`` of a fact-shaped sentence, else None."""
    if (m := _COLON.match(sentence)) and "http" not in m["x"]:
        label = m["x"].strip()
        if 0 < len(label.split()) <= _MAX_COLON_LABEL_WORDS:
            return label, label, m["y"]
    if m := _HAS.match(sentence):
        return m["s"], m["x"], m["y"]
    if m := _IS.match(sentence):
        x, y = m["x"], m["y"]
        first = x.split()[0].lower() if x.split() else ""
        if first in _PRONOUNS or len(x.split()) > _MAX_PHRASE_WORDS:
            return None
        if y.split()[0].lower() in {"a", "an", "not", "also", "being"}:
            return None  # classification or negation: keep the sentence whole
        return x, x, y
    return None


def structured_claims(record: SourceRecord, schema: Schema | None = None) -> list[RawClaim]:
    """Name, fields and references: structured data needs no model, whatever the backend.
    With a schema, each field lands on the canonical attribute its mapping names (Salesforce
    ``AnnualRevenue`` and HubSpot ``annualrevenue`` both on ``annual revenue``); a field no
    mapping names keeps its own name, read as words, and is marked unmapped."""
    from ..schema.index import vocabulary
    from ..schema.mapping import field_attribute, source_form

    vocab = vocabulary(schema) if schema is not None else None
    claims: list[RawClaim] = [
        RawClaim(attribute="name", value=record.entity_name, kind="field", field="name",
                 quote=f"name: {record.entity_name}")
    ]
    for field, value in sorted(record.fields.items()):
        if value is None or value == "":
            continue
        shown = source_form(value)
        attribute, mapped, on_type, qualifiers = field_attribute(vocab, record, field)
        claims.append(
            RawClaim(attribute=attribute, value=shown, kind="field", field=field,
                     quote=f"{field}: {shown}", mapped=mapped, qualifiers=qualifiers,
                     subject_type=on_type)
        )
    for ref in record.references:
        claims.append(
            RawClaim(attribute=ref.relation.lower(), value=ref.target_name, kind="reference",
                     quote=f"{ref.relation}: {ref.target_name}", target_type=ref.target_type)
        )
    return claims


class OfflineBackend:
    name = "offline"
    # pure and cheap: the compile runs it inside its worker processes, uncached
    fork_safe = True

    def __init__(self, schema: Schema | None = None) -> None:
        self.schema = schema
        self._schema_digest: str | None = None
        if schema is not None:
            from ..schema import digest

            self._schema_digest = digest(schema)

    @property
    def engine_digest(self) -> str:
        """The rules alone: a schema edit re-extracts, it does not rebuild the wiki."""
        return content_id(self.name, _RULES_VERSION)

    @property
    def digest(self) -> str:
        if self._schema_digest is None:
            return self.engine_digest
        return content_id(self.name, _RULES_VERSION, self._schema_digest)

    def describe(self) -> dict[str, str]:
        return {"backend": self.name, "model": "none", "rules": _RULES_VERSION}

    def extract(self, record: SourceRecord) -> Extraction:
        claims = structured_claims(record, self.schema)
        for start, end in sentences(record.body):
            sentence = record.body[start:end]
            shape = _shape(sentence)
            if shape is not None:
                subject_phrase, attr_phrase, value = shape
                attribute = normalize_attribute(attr_phrase)
                value = collapse(value)
                if attribute and value and len(value.split()) <= _MAX_VALUE_WORDS:
                    claims.append(
                        RawClaim(attribute=attribute, value=value, kind="fact", quote=sentence,
                                 span=(start, end), subject_phrase=subject_phrase)
                    )
                    continue
            claims.append(
                RawClaim(attribute="statement", value=collapse(sentence), kind="statement",
                         quote=sentence, span=(start, end))
            )
        return Extraction(backend=self.digest, claims=tuple(claims))

"""The backend interface. A backend sees one SourceRecord and returns raw claims; it never
sees other records, the entity registry, the authority policy or the wiki, so its output is a
pure function of (backend digest, record content) and can be cached by that pair."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from ..models import ClaimKind, SourceRecord


class RawClaim(BaseModel):
    """A claim before entity linking: its subject is not yet known."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    attribute: str = Field(description="normalised attribute; for facts, the full subject phrase")
    value: str
    kind: ClaimKind
    quote: str
    span: tuple[int, int] | None = None
    field: str | None = None
    subject_phrase: str | None = Field(
        None, description="text that may name another entity as the subject (facts only)"
    )
    target_type: str | None = Field(None, description="entity type a reference points at")
    # the schema layer (compiler/schema): set when the claim's attribute is a declared one
    mapped: bool = Field(False, description="attribute is a canonical attribute of the schema")
    qualifiers: tuple[tuple[str, str], ...] = Field(
        (), description="(qualifier, canonical value) pairs, sorted; part of the attribute's identity")
    subject_type: str | None = Field(
        None, description="entity type the schema declares the attribute on (links the subject)")
    row: tuple[str, str] | None = Field(
        None, description="(label column's name, row label) of a table row's fact: what tells "
        "two rows stating one attribute apart when the label names no entity")


class Extraction(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: str
    claims: tuple[RawClaim, ...]
    rejected: dict[str, int] = Field(
        default_factory=dict,
        description="claims a model proposed that failed validation, by reason (LLM backends)")
    usage: dict[str, float] = Field(
        default_factory=dict,
        description="LLM calls, tokens and cost spent on this record when it was first extracted")


class ExtractionFailed(RuntimeError):
    """Extraction could not finish (model unreachable, budget spent). Nothing is written; the
    message says why and what to do, and never contains a secret."""


class ExtractionBackend(Protocol):
    """A backend may set ``fork_safe = True`` when it is pure and cheap enough to run in the
    compile's worker processes without the extraction cache; others run in the parent,
    cached by (digest, record hash)."""

    name: str

    @property
    def digest(self) -> str:
        """Changes whenever output for the same record could change (code, prompt, model)."""
        ...

    def describe(self) -> dict[str, str]:
        """Model, prompt template digest and the like, for provenance records."""
        ...

    def extract(self, record: SourceRecord) -> Extraction: ...

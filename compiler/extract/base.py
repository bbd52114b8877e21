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


class Extraction(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: str
    claims: tuple[RawClaim, ...]


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

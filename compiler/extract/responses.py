"""What a model must answer, as pydantic models (validation) and JSON Schemas (constrained
decoding). The schemas are written out by hand rather than generated so that they stay flat
(no ``$ref``), which every OpenAI-compatible server's grammar converter accepts."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..schema.model import Schema

MAX_CLAIMS_PER_CHUNK = 24
MAX_SYNTHESIS_SENTENCES = 8


class LLMClaim(BaseModel):
    """One proposed claim. Extra keys are ignored: models add them, and they change nothing."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    subject: str = Field(min_length=1, max_length=200)
    attribute: str = Field(min_length=1, max_length=200)
    value: str = Field(min_length=1, max_length=500)
    quote: str = Field(min_length=1, max_length=2000)
    confidence: float = Field(ge=0.0, le=1.0)
    # with a schema: "attribute" is a canonical name or "other" (then this names it)
    other_attribute: str = Field("", max_length=200)
    qualifiers: dict[str, str | None] = Field(default_factory=dict)


class LLMSentence(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    text: str = Field(min_length=1, max_length=600)
    claims: list[str] = Field(default_factory=list, max_length=20)


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}


OTHER = "other"


def claims_schema(max_claims: int = MAX_CLAIMS_PER_CHUNK, schema: Schema | None = None
                  ) -> dict[str, Any]:
    """The answer's JSON Schema. With a schema, ``attribute`` is one of its canonical names
    (or "other", named in ``other_attribute``) and ``qualifiers`` one of each qualifier's
    canonical values (or ""): model claims land on the canonical attributes."""
    item: dict[str, Any] = {
        "subject": {"type": "string"},
        "attribute": {"type": "string"},
        "value": {"type": "string"},
        "quote": {"type": "string"},
        "confidence": {"type": "number"},
    }
    if schema is not None and schema.types:
        names = sorted({n for t in schema.types.values() for n in t.attributes})
        item["attribute"] = {"type": "string", "enum": [*names, OTHER]}
        item["other_attribute"] = {"type": "string"}
        item["qualifiers"] = _object({
            q: {"type": "string", "enum": [*sorted(schema.qualifiers[q].values), ""]}
            for q in sorted(schema.qualifiers)})
    return _object({
        "claims": {
            "type": "array",
            "maxItems": max_claims,
            "items": _object(item),
        }
    })


SYNTHESIS_SCHEMA: dict[str, Any] = _object({
    "sentences": {
        "type": "array",
        "maxItems": MAX_SYNTHESIS_SENTENCES,
        "items": _object({
            "text": {"type": "string"},
            "claims": {"type": "array", "items": {"type": "string"}},
        }),
    }
})

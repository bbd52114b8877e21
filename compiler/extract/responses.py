"""What a model must answer, as pydantic models (validation) and JSON Schemas (constrained
decoding). The schemas are written out by hand rather than generated so that they stay flat
(no ``$ref``), which every OpenAI-compatible server's grammar converter accepts."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

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


class LLMSentence(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    text: str = Field(min_length=1, max_length=600)
    claims: list[str] = Field(default_factory=list, max_length=20)


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}


def claims_schema(max_claims: int = MAX_CLAIMS_PER_CHUNK) -> dict[str, Any]:
    return _object({
        "claims": {
            "type": "array",
            "maxItems": max_claims,
            "items": _object({
                "subject": {"type": "string"},
                "attribute": {"type": "string"},
                "value": {"type": "string"},
                "quote": {"type": "string"},
                "confidence": {"type": "number"},
            }),
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

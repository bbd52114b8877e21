"""The schema layer's declared vocabulary (``schema.yaml`` in a corpus folder).

A schema names, per entity type, the canonical attributes a wiki may state, each with a value
type, a cardinality and the qualifiers that belong to its identity; it maps each source
system's fields onto those attributes (with value maps for enum codes), and lists the phrases
and synonyms by which prose names an attribute. It is what makes two sources that say the same
thing comparable, so that authority can decide between them.

This module is the interface only (typed, validated, no I/O); loading with file/line errors,
the bundled base schema, value typing and extraction live beside it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

ValueType = Literal[
    "text", "number", "money", "percent", "duration", "date", "datetime", "boolean", "enum",
    "reference",
]
Cardinality = Literal["single", "multi"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _key(v: str) -> str:
    return " ".join(v.split()).lower()


class Qualifier(_Strict):
    """A dimension that is part of an attribute's identity (customer tier, region, plan):
    a refund window for Enterprise and one for Standard are two attributes, not a conflict."""

    description: str = ""
    values: dict[str, tuple[str, ...]] = Field(
        default_factory=dict,
        description="canonical value → synonyms as sources write them (case-insensitive)")


class Attribute(_Strict):
    """A canonical attribute of an entity type."""

    type: ValueType = "text"
    cardinality: Cardinality = "single"
    description: str = ""
    qualifiers: tuple[str, ...] = Field((), description="names declared under `qualifiers:`")
    phrases: tuple[str, ...] = Field(
        (), description="words prose uses for this attribute (the name itself is implied)")
    values: dict[str, tuple[str, ...]] = Field(
        default_factory=dict, description="enum: canonical value → synonyms and codes")
    currency: str | None = Field(None, description="money: currency when the source names none")
    unit: str | None = Field(None, description="duration: canonical unit (days, hours, …)")
    target: str | None = Field(None, description="reference: the entity type it points at")
    induced: bool = Field(
        False, description="declared by schema induction (compiler/schema/induce.py), never by "
        "hand: a prose phrase the corpus states as a typed value on several records")
    home: str | None = Field(
        None, description="entity name a prose statement of this attribute is about when the "
        "sentence names no entity of this type (a company-wide policy, say)")
    figures: tuple[float, ...] = Field(
        (), description="induced from sentences: the span of the figures they stated (to powers "
        "of two); a sentence stating one far outside it states another fact")


class EntityType(_Strict):
    description: str = ""
    attributes: dict[str, Attribute] = Field(default_factory=dict)

    @field_validator("attributes")
    @classmethod
    def _canonical_names(cls, v: dict[str, Attribute]) -> dict[str, Attribute]:
        return {_key(k): a for k, a in v.items()}


class FieldMap(_Strict):
    """One source field onto one attribute, with an optional map of the field's values."""

    attribute: str
    values: dict[str, str] = Field(
        default_factory=dict, description="source value or code → canonical value")
    qualifiers: dict[str, str] = Field(
        default_factory=dict, description="qualifier values this field always carries")
    scale: float | None = Field(
        None, description="numbers: multiply the source's value by this before comparing "
        "(HubSpot's 0–1 deal probability × 100 is a percent)")
    induced: bool = Field(
        False, description="set by schema induction (compiler/schema/induce.py), never by "
        "hand: the corpus's own evidence, not a schema.yaml, mapped this field")


class Mapping(_Strict):
    """Fields of the records of one system (optionally one instance and record type)."""

    system: str
    instance: str | None = None
    record_type: str | None = Field(None, description="record type in the source system")
    entity_type: str | None = Field(None, description="entity type the records describe")
    fields: dict[str, str | FieldMap] = Field(default_factory=dict)


class Schema(_Strict):
    version: str = Field("1", description="the schema's own version, recorded in every DBOM")
    types: dict[str, EntityType] = Field(default_factory=dict)
    qualifiers: dict[str, Qualifier] = Field(default_factory=dict)
    mappings: tuple[Mapping, ...] = ()

    @field_validator("version", mode="before")
    @classmethod
    def _version_as_text(cls, v: object) -> object:
        # `version: 3` or `version: 2026.11` in YAML is a number; it names a version all the same
        return str(v) if isinstance(v, int | float) and not isinstance(v, bool) else v


_T = TypeVar("_T")


def per_schema(build: Callable[[Schema], _T]) -> Callable[[Schema], _T]:
    """``build`` computed once per live schema object: a compile hands the same schema to every
    record, and what is derived from it (lookups, patterns) is dear to rebuild per record.
    Keyed by identity and holding the schema, so an id is never reused while cached."""
    cache: dict[int, tuple[Schema, _T]] = {}

    def get(schema: Schema) -> _T:
        got = cache.get(id(schema))
        if got is not None and got[0] is schema:
            return got[1]
        if len(cache) > 16:
            cache.clear()
        value = build(schema)
        cache[id(schema)] = (schema, value)
        return value
    return get

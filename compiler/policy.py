"""The declared authority policy (``authority.yaml``): which sources outrank which, and how
fresh each kind of source must be.

Rules are tried in the order written; the first whose ``match`` holds gives the record its
rank. A record no rule matches gets ``default``. Every value in ``match`` may be one string
or a list (any of them); ``labels`` requires all listed labels to be present and
``labels_not`` none of them (approved *and not* draft: ``labels: [approved]``,
``labels_not: [draft]``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .canonical import canonical_json, sha256_hex
from .models import Authority, SourceRecord
from . import safe_yaml


class PolicyError(ValueError):
    """The policy file is missing, unreadable or invalid; the message names file and field."""


def _as_tuple(v: str | list[str] | None) -> tuple[str, ...] | None:
    if v is None:
        return None
    return (v,) if isinstance(v, str) else tuple(v)


class Match(BaseModel):
    """Conditions on a source record; all given conditions must hold."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    system: tuple[str, ...] | None = None
    instance: tuple[str, ...] | None = None
    container: tuple[str, ...] | None = Field(None, description="space key, project key, …")
    type: tuple[str, ...] | None = Field(None, description="record type in the source system")
    entity_type: tuple[str, ...] | None = None
    status: tuple[str, ...] | None = None
    labels: tuple[str, ...] | None = Field(None, description="all of these labels")
    labels_not: tuple[str, ...] | None = Field(
        None, description="none of these labels (a draft label excludes an approved page)")

    @field_validator("*", mode="before")
    @classmethod
    def _listify(cls, v: str | list[str] | None) -> tuple[str, ...] | None:
        return _as_tuple(v)

    def holds(self, r: SourceRecord) -> bool:
        checks = (
            (self.system, r.system),
            (self.instance, r.instance),
            (self.container, r.container),
            (self.type, r.type),
            (self.entity_type, r.entity_type),
            (self.status, r.status),
        )
        for wanted, actual in checks:
            if wanted is not None and actual not in wanted:
                return False
        if self.labels_not is not None and set(self.labels_not) & set(r.labels):
            return False
        return self.labels is None or set(self.labels) <= set(r.labels)


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    rank: int = Field(ge=0, le=1000)
    description: str = ""
    match: Match = Match()
    tiebreak: Literal["none", "recency"] = Field(
        "none",
        description="'recency': among claims of this rank, the most recent source wins, "
        "declared here so it is never a silent pick. 'none': equal rank and different values "
        "is an open contradiction.",
    )


class FreshnessTier(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    max_age_days: int = Field(gt=0)
    match: Match = Match()


class Freshness(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    tiers: tuple[FreshnessTier, ...] = ()
    default: FreshnessTier = FreshnessTier(name="default", max_age_days=365)


class AuthorityPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal[1] = 1
    default: Rule = Rule(name="default", rank=10)
    rules: tuple[Rule, ...] = ()
    freshness: Freshness = Freshness()

    @field_validator("rules")
    @classmethod
    def _unique_names(cls, rules: tuple[Rule, ...]) -> tuple[Rule, ...]:
        seen: set[str] = set()
        for rule in rules:
            if rule.name in seen:
                raise ValueError(f"duplicate rule name {rule.name!r}")
            seen.add(rule.name)
        return rules

    @property
    def digest(self) -> str:
        return sha256_hex(canonical_json(self.model_dump(mode="json")))

    def rule_for(self, record: SourceRecord) -> Rule:
        for rule in self.rules:
            if rule.match.holds(record):
                return rule
        return self.default

    def authority(self, record: SourceRecord) -> Authority:
        rule = self.rule_for(record)
        return Authority(rank=rule.rank, rule=rule.name)

    def rule_named(self, name: str) -> Rule:
        for rule in self.rules:
            if rule.name == name:
                return rule
        return self.default

    def freshness_tier(self, record: SourceRecord) -> FreshnessTier:
        for tier in self.freshness.tiers:
            if tier.match.holds(record):
                return tier
        return self.freshness.default


def load_policy(path: Path) -> AuthorityPolicy:
    """Read and validate ``authority.yaml``; a missing file means the built-in default."""
    if not path.exists():
        return AuthorityPolicy()
    try:
        raw = safe_yaml.load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise PolicyError(f"{path}: cannot read authority policy: {exc}") from exc
    try:
        return AuthorityPolicy.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise PolicyError(f"{path}: invalid authority policy: {problems}") from exc

"""``folio export claims --format jsonl``: one claim per line. A stable interface: fields are
only ever added, never renamed or removed, and ``schema`` names the layout version
(JSON Schema: ``docs/schemas/ExportedClaim.schema.json``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from .models import ACL, Claim, ClaimKind, ClaimStatus, Principal
from .state import State
from .views import Visibility, stored_policy
from .resolve import comparison_value, resolve

EXPORT_SCHEMA = "folio.claim-export/1"


class ExportedClaim(BaseModel):
    schema_: Literal["folio.claim-export/1"] = Field(EXPORT_SCHEMA, alias="schema")
    claim_id: str
    subject: str = Field(description="entity id, also the page name")
    attribute: str
    value: str
    kind: ClaimKind
    status: ClaimStatus
    source_key: str
    source_version: str
    source_sha256: str
    source_system: str
    authority_rule: str
    authority_rank: int
    observed_at: datetime | None = Field(description="the record's time in its source system")
    quote: str
    span: tuple[int, int] | None
    acl: ACL
    # the schema layer (docs/schema.md); added in place: fields are never renamed or removed
    qualifiers: dict[str, str] = Field(
        default_factory=dict, description="qualifier → canonical value (part of the identity)")
    mapped: bool = Field(False, description="the attribute is declared in the schema")
    induced: bool = Field(False, exclude_if=lambda v: not v,
                          description="mapped by schema induction, not a declared mapping "
                          "(SCHEMA.md and `folio lint` list the induced mappings)")
    value_type: str = Field("text", description="the attribute's value type")
    normalized: str | None = Field(
        None, description="typed canonical value compared by conflicts and search")
    as_of: datetime | None = Field(
        None, description="the source's time for this claim (a Jira comment's own time), "
        "which the recency tiebreak uses; null when the source gives none")

    @classmethod
    def of(cls, c: Claim, status: ClaimStatus) -> ExportedClaim:
        return cls(
            claim_id=c.id, subject=c.subject, attribute=c.attribute, value=c.value,
            kind=c.kind, status=status, source_key=c.source.key,
            source_version=c.source.version, source_sha256=c.source.sha256,
            source_system=c.source.system, authority_rule=c.authority.rule,
            authority_rank=c.authority.rank, observed_at=c.observed_at, quote=c.quote,
            span=c.span, acl=c.acl, qualifiers=c.qualifiers, mapped=c.mapped,
            induced=c.induced,
            value_type=c.value_type, as_of=c.as_of,
            normalized=c.normalized if c.normalized is not None or not c.comparable
            else comparison_value(c),
        )


def export_claims(state: State, who: Principal | None = None) -> Iterator[str]:
    """JSON lines sorted by subject, attribute, claim id. With a principal, only the claims
    they may see, with authority settled again among those."""
    if who is None:
        for claim, status in state.iter_claims():
            yield ExportedClaim.of(claim, status).model_dump_json(by_alias=True)  # type: ignore[arg-type]
        return
    policy = stored_policy(state)
    subject: str | None = None
    batch: list[Claim] = []
    vis = Visibility(state, who)

    def flush() -> Iterator[str]:
        status, _ = resolve(batch, lambda r: policy.rule_named(r).tiebreak)
        # a reference's typed form is the id of the page it links: never one hidden from who
        for c in vis.unlinked(batch):
            yield ExportedClaim.of(c, status[c.id]).model_dump_json(by_alias=True)

    for claim, _ in state.iter_claims():
        # a claim a visible record states of a page that does not exist for who (a ticket's
        # sentence read as a fact of a restricted opportunity) is left out: its subject id
        # would name that page (Visibility.claim_visible)
        if not vis.claim_visible(claim):
            continue
        if claim.subject != subject and batch:
            yield from flush()
            batch = []
        subject = claim.subject
        batch.append(claim)
    if batch:
        yield from flush()

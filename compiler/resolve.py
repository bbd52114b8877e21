"""Authority resolution: claims in, a status per claim and the conflicts out.

For each (subject, attribute, qualifiers) with more than one distinct normalised value (the
schema's typed form: ``$22,000,000`` = ``22M``, ``FOOD_BEVERAGES`` = ``Food & Beverage``): the
highest rank wins; the more recent source wins only where the policy declares
``tiebreak: recency`` for that rank, by each claim's own time in its source system, and only
when every leading claim has one and the newest is not shared by two values; otherwise equal
rank with different values is an open contradiction, never a silent pick. Values of a
multi-valued attribute accumulate and never conflict.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

from .canonical import content_id
from .models import Claim, ClaimStatus, Conflict, Overruled
from .text import normalize_value

TiebreakOf = Callable[[str], str]


def _overruled(c: Claim, reason: str) -> Overruled:
    return Overruled(
        claim_id=c.id, value=c.value, source=c.source.label, rank=c.authority.rank,
        rule=c.authority.rule, reason=reason,
    )


def comparison_value(c: Claim) -> str:
    return c.normalized if c.normalized is not None else normalize_value(c.value)


def _settle(
    subject: str, attribute: str, group: list[Claim], tiebreak_of: TiebreakOf
) -> tuple[dict[str, ClaimStatus], Conflict | None]:
    norm = {c.id: comparison_value(c) for c in group}
    if len(set(norm.values())) == 1 or all(c.cardinality == "multi" for c in group):
        return {c.id: "winner" for c in group}, None
    qualifiers = group[0].qualifiers
    # the conflict's identity: unqualified conflicts keep the ids they had
    ident: tuple = (subject, attribute, sorted(qualifiers.items())) if qualifiers else (
        subject, attribute)
    top = max(c.authority.rank for c in group)
    leaders = [c for c in group if c.authority.rank == top]
    leading_values = {norm[c.id] for c in leaders}
    winner_value: str | None = None
    recency_note = ""
    if len(leading_values) == 1:
        winner_value = next(iter(leading_values))
    elif (all(tiebreak_of(c.authority.rule) == "recency" for c in leaders)
          and all(c.as_of is not None for c in leaders)):
        # a claim with no time of its own cannot be ordered: the item stays contested
        newest = max(c.as_of for c in leaders)  # type: ignore[type-var]
        newest_values = {norm[c.id] for c in leaders if c.as_of == newest}
        if len(newest_values) == 1:
            winner_value = next(iter(newest_values))
            recency_note = "declared recency tiebreak at rank %d" % top

    status: dict[str, ClaimStatus] = {}
    overruled: list[Overruled] = []
    ordered = sorted(group, key=lambda c: (-c.authority.rank, c.source.key, c.id))
    if winner_value is not None:
        champion = next(c for c in ordered if norm[c.id] == winner_value)
        for c in ordered:
            if norm[c.id] == winner_value:
                status[c.id] = "winner"
            else:
                status[c.id] = "overruled"
                if c.authority.rank < top:
                    reason = (f"outranked: {champion.authority.rule} (rank {top}) over "
                              f"{c.authority.rule} (rank {c.authority.rank})")
                else:
                    reason = f"superseded by a more recent source ({recency_note})"
                overruled.append(_overruled(c, reason))
        conflict = Conflict(
            id=content_id(*ident, sorted(norm.values()), "resolved"),
            subject=subject, attribute=attribute, qualifiers=qualifiers, state="resolved",
            value=champion.value,
            winners=tuple(c.id for c in ordered if status[c.id] == "winner"),
            overruled=tuple(overruled),
        )
        return status, conflict

    for c in ordered:
        if norm[c.id] in leading_values:
            status[c.id] = "contested"
        else:
            status[c.id] = "overruled"
            overruled.append(_overruled(
                c, f"outranked: open contradiction at rank {top} over {c.authority.rule} "
                   f"(rank {c.authority.rank})"))
    conflict = Conflict(
        id=content_id(*ident, sorted(norm.values()), "open"),
        subject=subject, attribute=attribute, qualifiers=qualifiers, state="open",
        contested=tuple(c.id for c in ordered if status[c.id] == "contested"),
        overruled=tuple(overruled),
    )
    return status, conflict


def resolve(
    claims: Iterable[Claim], tiebreak_of: TiebreakOf
) -> tuple[dict[str, ClaimStatus], list[Conflict]]:
    """Status of every claim (statements and references are always winners) and the
    conflicts, in a deterministic order."""
    status: dict[str, ClaimStatus] = {}
    groups: dict[tuple[str, str, tuple[tuple[str, str], ...]], list[Claim]] = defaultdict(list)
    for c in claims:
        if c.comparable:
            groups[(c.subject, c.attribute, tuple(sorted(c.qualifiers.items())))].append(c)
        else:
            status[c.id] = "winner"
    conflicts: list[Conflict] = []
    for (subject, attribute, _), group in sorted(groups.items()):
        group_status, conflict = _settle(subject, attribute, group, tiebreak_of)
        status.update(group_status)
        if conflict is not None:
            conflicts.append(conflict)
    return status, conflicts

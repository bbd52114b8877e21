"""What one principal may see of a compiled wiki.

Claims a principal may not see are removed *before* authority is settled again, so a hidden
winner can neither be shown nor given away by the claims it overruled. A page whose claims are
all hidden does not exist for that principal.
"""

from __future__ import annotations

from dataclasses import dataclass

from .models import Claim, ClaimStatus, Conflict, Entity, Principal
from .policy import AuthorityPolicy
from .registry import merge_entity
from .render import render_page
from .resolve import resolve
from .state import State
from .text import name_key


@dataclass(frozen=True)
class PageView:
    entity: Entity
    claims: list[Claim]
    status: dict[str, ClaimStatus]
    conflicts: list[Conflict]
    backlinks: list[tuple[str, str]]

    def markdown(self) -> str:
        return render_page(self.entity, self.claims, self.status, self.conflicts,
                           self.backlinks)[0]


def stored_policy(state: State) -> AuthorityPolicy:
    raw = state.meta("policy")
    return AuthorityPolicy.model_validate_json(raw) if raw else AuthorityPolicy()


def principal(state: State, name: str | None, groups: list[str] | None = None) -> Principal | None:
    """``None`` (no ``--as``) is the operator. A name unknown to the directory gets only the
    groups given explicitly, so it sees public claims and little else."""
    if name is None:
        return None
    known = state.principal_groups(name) or []
    return Principal(name=name, groups=tuple(sorted({*known, *(groups or [])})))


def page_view(
    state: State, entity_id: str, who: Principal | None, looked_up_as: str | None = None
) -> PageView | None:
    """The page as ``who`` sees it. Its name and aliases come only from records ``who`` may
    see, and a lookup by a name only a hidden record gives finds nothing."""
    entity = state.entity(entity_id)
    if entity is None:
        return None
    claims = [c for c in state.claims_of_subject(entity_id) if c.acl.allows(who)]
    if not claims:
        return None
    if who is not None:
        visible = {c.source.key for c in claims}
        decls = [d for d in state.declarations_of_entity(entity_id) if d.record_key in visible]
        if not decls:
            return None
        entity = merge_entity(entity_id, decls)
        if looked_up_as is not None and looked_up_as != entity_id:
            known = set().union(*(d.keys() for d in decls))
            if name_key(looked_up_as) not in known and not entity_id.endswith(
                    "/" + looked_up_as.lower()):
                return None
    policy = stored_policy(state)
    status, conflicts = resolve(claims, lambda r: policy.rule_named(r).tiebreak)
    visible_sources = {
        c.subject for c in state.mentioning_claims(entity_id) if c.acl.allows(who)
    }
    names = state.entity_names(visible_sources)
    backlinks = sorted(names.items(), key=lambda kv: (kv[1].lower(), kv[0]))
    return PageView(entity, claims, status, conflicts, backlinks)


def group_view(
    state: State, subject: str, attribute: str, who: Principal | None
) -> tuple[list[Claim], dict[str, ClaimStatus], list[Conflict]]:
    """One (subject, attribute) as the principal sees it, authority settled on visible claims."""
    claims = [c for c, _ in state.claims_of_group(subject, attribute) if c.acl.allows(who)]
    policy = stored_policy(state)
    status, conflicts = resolve(claims, lambda r: policy.rule_named(r).tiebreak)
    return claims, status, conflicts

"""What one principal may see of a compiled wiki.

Claims a principal may not see are removed *before* authority is settled again, so a hidden
winner can neither be shown nor given away by the claims it overruled. A page whose claims are
all hidden does not exist for that principal, and exists nowhere else either: links to it are
plain text (as a link to a page nobody wrote is), it is no backlink, and its name and aliases
come only from records the principal may see. docs/permissions.md says which surface enforces
this.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from .directory import Directory
from .lint_report import LintReport
from .models import ACL, Claim, ClaimStatus, Conflict, Entity, Principal
from .policy import AuthorityPolicy
from .registry import merge_entity
from .render import reference_target, render_page, shown_value
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
    # titles of the pages its references point to, as the principal knows them
    titles: dict[str, str] = field(default_factory=dict)

    def markdown(self) -> str:
        return render_page(self.entity, self.claims, self.status, self.conflicts,
                           self.backlinks, titles=self.titles)[0]


def stored_policy(state: State) -> AuthorityPolicy:
    raw = state.meta("policy")
    return AuthorityPolicy.model_validate_json(raw) if raw else AuthorityPolicy()


def stored_directory(state: State) -> Directory:
    return Directory.from_json(state.meta("directory"))


def principal(state: State, name: str | None, groups: list[str] | None = None) -> Principal | None:
    """``None`` (no ``--as``) is the operator. A name unknown to the directory has no groups
    and no identities, so it sees public claims (and records naming it) only.

    ``groups`` is an operator's what-if ("alice, as a member of these groups only"): it keeps
    the principal's directory groups that are listed and drops the rest. It never adds a
    group, so it can only narrow a view, never widen it."""
    if name is None:
        return None
    found = stored_directory(state).principal(name)
    if found is None:
        # a wiki compiled before the directory carried identities stored groups only
        found = Principal(name=name, groups=tuple(sorted(state.principal_groups(name) or ())))
    if groups:
        wanted = set(groups)
        found = found.model_copy(update={"groups": tuple(g for g in found.groups if g in wanted)})
    return found


def visible_entity(state: State, entity_id: str, who: Principal | None
                   ) -> tuple[Entity, list[Claim]] | None:
    """The entity as ``who`` knows it (named only by records ``who`` may see) and its visible
    claims; ``None`` when the page does not exist for ``who``."""
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
    return entity, claims


@dataclass
class Visibility:
    """Which pages exist for one principal, asked page by page and remembered."""

    state: State
    who: Principal | None
    _seen: dict[str, tuple[Entity, list[Claim]] | None] = field(default_factory=dict)
    _titles: dict[str, str | None] = field(default_factory=dict)

    def of(self, entity_id: str) -> tuple[Entity, list[Claim]] | None:
        if entity_id not in self._seen:
            self._seen[entity_id] = visible_entity(self.state, entity_id, self.who)
        return self._seen[entity_id]

    def exists(self, entity_id: str) -> bool:
        return self.of(entity_id) is not None

    def claim_visible(self, c: Claim) -> bool:
        """The rule every surface applies to one claim: ``who`` may read the record that
        states it *and* the page it is filed on exists for ``who`` (the intersection of the
        claim's ACL with its subject's readers; docs/permissions.md, "A visible record's fact
        about a restricted subject"). A ticket's sentence read as a fact of a restricted
        opportunity is shown to nobody who may not see that opportunity: its subject id
        alone would name the page."""
        return c.acl.allows(self.who) and (self.who is None or self.exists(c.subject))

    def unlinked(self, claims: list[Claim]) -> list[Claim]:
        """Claims whose links to pages ``who`` cannot see are dropped: rendered, the name stays
        as plain text, exactly like a name no page exists for."""
        if self.who is None:
            return claims
        out = []
        for c in claims:
            kept = tuple(m for m in c.mentions if self.exists(m.entity))
            if len(kept) == len(c.mentions):
                out.append(c)
                continue
            update: dict = {"mentions": kept}
            if c.kind == "reference" and c.normalized is not None and not self.exists(c.normalized):
                update["normalized"] = None  # the typed form of a reference is the page's id
            out.append(c.model_copy(update=update))
        return out

    def title(self, entity_id: str) -> str | None:
        """A page's title as ``who`` knows it (from records ``who`` may see), None when the
        page does not exist for ``who``."""
        if self.who is None:  # the operator knows every page by its full name
            if entity_id not in self._titles:
                entity = self.state.entity(entity_id)
                self._titles[entity_id] = entity.name if entity is not None else None
            return self._titles[entity_id]
        seen = self.of(entity_id)
        return seen[0].name if seen is not None else None

    def titles(self, claims: Iterable[Claim]) -> dict[str, str]:
        """Titles of the pages these claims' references point to, those ``who`` may see."""
        out: dict[str, str] = {}
        for c in claims:
            target = reference_target(c)
            if target is not None and target not in out:
                title = self.title(target)
                if title is not None:
                    out[target] = title
        return out

    def shown(self, c: Claim) -> str:
        """The claim's value as ``who`` reads it (a reference: its target's title, when
        ``who`` may see the target; else the value as written, an id stays an id)."""
        return shown_value(c, self.titles([c]))


def visible_names(state: State, subjects: set[str], who: Principal | None) -> dict[str, str]:
    """Page names as ``who`` knows them (from records ``who`` may see); a page that does not
    exist for ``who`` has no name and must not be cited."""
    if who is None:
        return state.entity_names(subjects)
    vis = Visibility(state, who)
    return {s: seen[0].name for s in subjects if (seen := vis.of(s)) is not None}


def page_view(
    state: State, entity_id: str, who: Principal | None, looked_up_as: str | None = None,
    visibility: Visibility | None = None,
) -> PageView | None:
    """The page as ``who`` sees it. Its name and aliases come only from records ``who`` may
    see, and a lookup by a name only a hidden record gives finds nothing."""
    vis = visibility or Visibility(state, who)
    seen = vis.of(entity_id)
    if seen is None:
        return None
    entity, claims = seen
    if who is not None and looked_up_as is not None and looked_up_as != entity_id:
        visible = {c.source.key for c in claims}
        known = set().union(*(d.keys() for d in state.declarations_of_entity(entity_id)
                              if d.record_key in visible))
        if name_key(looked_up_as) not in known and not entity_id.endswith(
                "/" + looked_up_as.lower()):
            return None
    policy = stored_policy(state)
    status, conflicts = resolve(claims, lambda r: policy.rule_named(r).tiebreak)
    backlinks: list[tuple[str, str]] = []
    for subject in sorted({c.subject for c in state.mentioning_claims(entity_id)
                           if c.acl.allows(who)}):
        other = vis.of(subject)
        if other is not None:
            backlinks.append((subject, other[0].name))
    backlinks.sort(key=lambda kv: (kv[1].lower(), kv[0]))
    shown = vis.unlinked(claims)
    return PageView(entity, shown, status, conflicts, backlinks, vis.titles(shown))


def group_view(
    state: State, subject: str, attribute: str, who: Principal | None
) -> tuple[list[Claim], dict[str, ClaimStatus], list[Conflict]]:
    """One (subject, attribute) as the principal sees it, authority settled on visible claims
    (none when the subject's page does not exist for the principal)."""
    if who is not None and visible_entity(state, subject, who) is None:
        return [], {}, []
    claims = [c for c, _ in state.claims_of_group(subject, attribute) if c.acl.allows(who)]
    policy = stored_policy(state)
    status, conflicts = resolve(claims, lambda r: policy.rule_named(r).tiebreak)
    return claims, status, conflicts


def visible_findings(state: State, report: LintReport, who: Principal | None) -> LintReport:
    """Lint as ``who`` sees the wiki: a finding is kept only when its page, every other page,
    every claim and every source it names are visible to ``who`` (so its text names nothing
    hidden)."""
    if who is None:
        return report
    vis = Visibility(state, who)
    record_acl: dict[str, ACL] = {}

    def source_visible(label: str) -> bool:
        key = label.rsplit("@", 1)[0]
        if key not in record_acl:
            rows = list(state.load_records([key]))
            record_acl[key] = (ACL.model_validate(json.loads(rows[0][1]).get("acl") or {})
                               if rows else ACL())
        return record_acl[key].allows(who)

    kept = []
    for f in report.findings:
        if f.page is not None and not vis.exists(f.page):
            continue
        if not all(vis.exists(p) for p in f.pages):
            continue  # its message names a page that does not exist for who
        if f.claims and not all(vis.claim_visible(c) for c, _ in
                                state.claims_by_ids(f.claims).values()):
            continue
        if f.claims and len(state.claims_by_ids(f.claims)) != len(set(f.claims)):
            continue
        if not all(source_visible(s) for s in f.sources):
            continue
        kept.append(f)
    return LintReport(findings=kept)

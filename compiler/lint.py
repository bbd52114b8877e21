"""Wiki health checks. Errors make ``folio lint`` exit non-zero; warnings do not.

- open-contradiction (error): equal authority, different values
- possible-contradiction (warning): the same, between facts read from prose under an attribute
  the schema does not declare (surface phrases, not known to name one fact)
- broken-link (error): a wikilink to a page that does not exist
- missing-page-file (error): a page the state lists is not on disk
- missing-entity (warning): a record refers to something no record describes
- orphan-page (warning): no other page links here
- stale-source (warning): a source older than its freshness tier allows
- privacy-undetermined (warning): a record given its source's restricted readers because its
  privacy could not be determined (compiler/privacy_check.py)

Beside the findings, the report lists the most frequent unmapped attributes (claims whose
attribute the schema does not declare), so the schema can grow where the sources need it, and
the mappings schema induction made (compiler/schema/induce.py), so a human can accept them
into schema.yaml (``folio schema induce`` writes them as one).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path

from .lint_report import Finding, InducedMapping, LintReport, UnmappedAttribute
from .models import Claim
from .privacy_check import undetermined_privacy
from .state import State

_LINK = re.compile(r"(?<!\\)\[\[([^\]|\\#]+)(?:#[^\]|\\]*)?(?:\\?\|[^\]]*)?\]\]")


def _surface_only(claims: list[Claim]) -> bool:
    """Every contested claim is a prose fact on an attribute the schema does not declare:
    two sentences' surface phrases, which may not name the same fact at all."""
    return all(c.kind == "fact" and not c.mapped for c in claims)


def _contradictions(state: State) -> list[Finding]:
    out = []
    for conflict in state.open_conflicts():
        claims = state.claims_by_ids(list(conflict.contested))
        parts = sorted(
            f"{c.value!r} from {c.source.label} ({c.authority.rule}, rank {c.authority.rank})"
            for c, _ in claims.values()
        )
        if _surface_only([c for c, _ in claims.values()]):
            out.append(Finding(
                severity="warning", code="possible-contradiction", page=conflict.subject,
                message=f"{conflict.subject}: '{conflict.label}' (not in the schema) reads "
                        "differently in equal-authority sources: " + "; ".join(parts)
                        + ". Declare the attribute in schema.yaml to compare it as a fact.",
                claims=list(conflict.contested),
                sources=sorted({c.source.label for c, _ in claims.values()}),
            ))
            continue
        out.append(Finding(
            severity="error", code="open-contradiction", page=conflict.subject,
            message=f"{conflict.subject}: '{conflict.label}' has equal-authority values: "
                    + "; ".join(parts),
            claims=list(conflict.contested),
            sources=sorted({c.source.label for c, _ in claims.values()}),
        ))
    return out


def _links(state: State, wiki: Path) -> list[Finding]:
    pages = set(state.page_ids())
    inbound: dict[str, set[str]] = defaultdict(set)
    out: list[Finding] = []
    for eid in sorted(pages):
        path = wiki / f"{eid}.md"
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            out.append(Finding(severity="error", code="missing-page-file", page=eid,
                               message=f"{path}: listed in the compile state but not on disk"))
            continue
        for target in sorted(set(_LINK.findall(text))):
            target = target.strip()
            if target in pages:
                if target != eid:
                    inbound[target].add(eid)
            else:
                out.append(Finding(severity="error", code="broken-link", page=eid,
                                   message=f"{eid}.md links to [[{target}]], which does not exist"))
    # a filed answer is reached from index.md and its question, never linked from a page
    answers = {eid for (eid,) in state.db.execute("SELECT entity_id FROM pages WHERE type=?",
                                                  ("answer",))}
    for eid in sorted(pages - set(inbound) - answers):
        out.append(Finding(severity="warning", code="orphan-page", page=eid,
                           message=f"{eid}: no other page links here"))
    return out


def _missing_entities(state: State) -> list[Finding]:
    by_target: dict[str, list[Claim]] = defaultdict(list)
    for claim, _ in state.unresolved_references():
        by_target[claim.value].append(claim)
    return [
        Finding(
            severity="warning", code="missing-entity", page=None,
            message=f"'{name}' is mentioned by "
                    + ", ".join(sorted({c.subject for c in claims}))
                    + " but has no page (no source record describes it)",
            claims=sorted(c.id for c in claims),
            sources=sorted({c.source.label for c in claims}),
            pages=sorted({c.subject for c in claims}),
        )
        for name, claims in sorted(by_target.items())
    ]


def _stale(state: State, now: datetime) -> list[Finding]:
    out = []
    tiers = state.record_freshness()
    for key, version, updated, subjects in state.record_ages():
        if updated is None:
            continue  # a source with no date cannot be judged stale
        tier, max_age = tiers[key]
        elapsed = now - datetime.fromisoformat(updated)
        age = elapsed.days
        if elapsed > timedelta(days=max_age):
            out.append(Finding(
                severity="warning", code="stale-source", page=None,
                message=f"{key}@{version} was last updated {age} days ago (tier '{tier}' "
                        f"allows {max_age}); it supports {', '.join(subjects)}",
                sources=[f"{key}@{version}"], pages=list(subjects),
            ))
    return out


UNMAPPED_LISTED = 15


def unmapped_attributes(state: State, limit: int = UNMAPPED_LISTED) -> list[UnmappedAttribute]:
    """The attributes most often stated without a schema declaration, most frequent first."""
    return [UnmappedAttribute(attribute=a, claims=n, pages=p, example=ex)
            for a, n, p, ex in state.unmapped_attributes(limit)]


def unmapped_text(unmapped: list[UnmappedAttribute]) -> str:
    parts = [f"{u.attribute} ({u.claims} claims, {u.pages} pages)" for u in unmapped]
    return ("Most frequent unmapped attributes (declare them in schema.yaml): "
            + "; ".join(parts))


def induced_mappings(state: State) -> list[InducedMapping]:
    """The field mappings the last compile induced (none when a schema maps everything)."""
    raw = state.meta("induced")
    if not raw:
        return []
    data = json.loads(raw)
    out = [InducedMapping.model_validate({k: v for k, v in f.items()
                                          if k in InducedMapping.model_fields})
           for f in data.get("fields", [])]
    for types, name, vtype, _, evidence in data.get("phrases", []):
        out += [InducedMapping(system="prose", instance="", record_type="", field=name,
                               entity_type=t, attribute=name, new_attribute=True,
                               evidence=f"{vtype}: {evidence}") for t in types]
    return out


def induced_text(induced: list[InducedMapping]) -> str:
    parts = [(f"prose '{m.field}'" if m.system == "prose" and not m.record_type
              else f"{m.system}/{m.record_type}.{m.field}")
             + f" → {m.entity_type}.{m.attribute}" + (" (new)" if m.new_attribute else "")
             for m in induced]
    return ("Induced mappings (no schema.yaml maps these fields; accept them with "
            "`folio schema induce`): " + "; ".join(parts))


def lint(state: State, wiki: Path, now: datetime) -> LintReport:
    findings = _contradictions(state) + _links(state, wiki) + _missing_entities(state)
    findings += _stale(state, now)
    findings += _stale_answers(state)
    findings += undetermined_privacy(state)
    return LintReport(findings=findings, unmapped=unmapped_attributes(state),
                      induced=induced_mappings(state))


def _stale_answers(state: State) -> list[Finding]:
    """Answers filed back as pages whose cited claims changed since (compiler/answers)."""
    from .answer_pages import stale_answers

    return [Finding(severity="warning", code="stale-answer", page=eid,
                    message=f"{eid}: what it shows changed since it was answered: "
                            + "; ".join(why) + " (folio answers refresh)")
            for eid, why in sorted(stale_answers(state).items())]


def as_json(report: LintReport) -> str:
    return json.dumps(
        {"errors": report.errors, "warnings": report.warnings,
         "findings": [f.model_dump() for f in report.findings],
         "unmapped": [u.model_dump() for u in report.unmapped],
         "induced": [m.model_dump() for m in report.induced]},
        indent=2, sort_keys=True,
    )

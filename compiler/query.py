"""Offline question answering over a compiled wiki.

Search is SQLite FTS5 (BM25) over claims; an answer is built only from claims, each cited by
its page and the exact source record version. A question whose key words no claim covers
gets a plain "no answer" rather than the nearest noise.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from .models import Claim, ClaimStatus, Principal
from .state import State
from .text import words
from .views import group_view, visible_names

_STOPWORDS = frozenset(
    """a an the is are was were be been what which who whom whose when where why how do does
    did of for to in on at by with from about as and or not no our your their its it this that
    these those there can could should would will shall may might must i we you they me us
    tell please give show much many any some""".split()
)
MIN_COVERAGE = 0.6
_CANDIDATES = 200
_MAX_GROUPS = 3


class Citation(BaseModel):
    claim_id: str
    page: str
    page_title: str
    attribute: str
    value: str
    status: ClaimStatus
    source: str = Field(description="record key@version")
    sha256: str
    authority: str
    quote: str
    reason: str | None = Field(None, description="why an overruled claim lost")


class AnswerPart(BaseModel):
    page: str
    page_title: str
    attribute: str
    state: str = Field(description="answered | contested")
    value: str | None
    citations: list[Citation]


class Answer(BaseModel):
    question: str
    principal: str | None
    found: bool
    parts: list[AnswerPart] = []

    def text(self) -> str:
        if not self.found:
            return "The wiki has no answer to this question."
        out: list[str] = []
        for part in self.parts:
            if part.state == "contested":
                values = " vs ".join(sorted({c.value for c in part.citations
                                             if c.status == "contested"}))
                out.append(f"{part.page_title} — {part.attribute}: OPEN CONTRADICTION ({values})")
            else:
                out.append(f"{part.page_title} — {part.attribute}: {part.value}")
            for c in part.citations:
                tag = {"winner": "source", "contested": "contested",
                       "overruled": "overruled"}[c.status]
                line = f"  {tag}: [[{c.page}]] {c.source} ({c.authority})"
                if c.status != "winner":
                    line += f" — {c.value}"
                if c.reason:
                    line += f" — {c.reason}"
                out.append(line)
        return "\n".join(out)


def _stem(w: str) -> str:
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


def query_terms(question: str) -> list[str]:
    seen: dict[str, None] = {}
    for w in words(question):
        if w not in _STOPWORDS and len(w) > 1:
            seen.setdefault(w, None)
    return list(seen)


def _coverage(terms: list[str], claim: Claim, name: str) -> float:
    have = {_stem(w) for w in words(f"{name} {claim.attribute} {claim.value} {claim.quote}")}
    return sum(1 for t in terms if _stem(t) in have) / len(terms)


def answer(state: State, question: str, who: Principal | None) -> Answer:
    terms = query_terms(question)
    result = Answer(question=question, principal=who.name if who else None, found=False)
    if not terms:
        return result
    match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
    hits = state.search_claims(match, _CANDIDATES)
    found = state.claims_by_ids([cid for cid, _ in hits])
    # names as the principal knows them; a claim on a page hidden from them is no answer
    names = visible_names(state, {c.subject for c, _ in found.values()}, who)
    scored: list[tuple[float, float, str, str]] = []
    for cid, bm25 in hits:
        if cid not in found:
            continue
        claim, _ = found[cid]
        if not claim.acl.allows(who) or (who is not None and claim.subject not in names):
            continue
        cov = _coverage(terms, claim, names.get(claim.subject, ""))
        if cov >= MIN_COVERAGE:
            # attribute/value claims answer as a group (so authority applies); a plain
            # statement answers alone
            group = ("claim", claim.id) if claim.kind == "statement" else ("attr", claim.attribute)
            scored.append((-cov, claim.kind == "statement", bm25, claim.subject, group))
    groups: list[tuple[str, tuple[str, str]]] = []
    for *_, subject, group in sorted(scored):
        if (subject, group) not in groups:
            groups.append((subject, group))
    for subject, (kind, key) in groups[:_MAX_GROUPS]:
        title = names.get(subject, subject)
        if kind == "claim":
            part = _statement_part(found[key][0], title)
        else:
            part = _part(state, subject, key, title, who)
        if part is not None:
            result.parts.append(part)
    result.found = bool(result.parts)
    return result


def _part(state: State, subject: str, attribute: str, title: str,
          who: Principal | None) -> AnswerPart | None:
    claims, status, conflicts = group_view(state, subject, attribute, who)
    if not claims:
        return None
    reasons = {o.claim_id: o.reason for c in conflicts for o in c.overruled}
    order = {"winner": 0, "contested": 1, "overruled": 2}
    cites = [
        Citation(
            claim_id=c.id, page=subject, page_title=title, attribute=attribute, value=c.value,
            status=status[c.id], source=c.source.label, sha256=c.source.sha256,
            authority=f"{c.authority.rule}, rank {c.authority.rank}", quote=c.quote,
            reason=reasons.get(c.id),
        )
        for c in sorted(claims, key=lambda c: (order[status[c.id]], -c.authority.rank,
                                               c.source.key, c.id))
    ]
    open_conflict = any(c.state == "open" for c in conflicts)
    winners = [c for c in cites if c.status == "winner"]
    return AnswerPart(
        page=subject, page_title=title, attribute=attribute,
        state="contested" if open_conflict else "answered",
        value=None if open_conflict else (winners[0].value if winners else None),
        citations=cites,
    )


def _statement_part(claim: Claim, title: str) -> AnswerPart:
    cite = Citation(
        claim_id=claim.id, page=claim.subject, page_title=title, attribute=claim.attribute,
        value=claim.value, status="winner", source=claim.source.label,
        sha256=claim.source.sha256,
        authority=f"{claim.authority.rule}, rank {claim.authority.rank}", quote=claim.quote,
    )
    return AnswerPart(page=claim.subject, page_title=title, attribute="statement",
                      state="answered", value=claim.value, citations=[cite])

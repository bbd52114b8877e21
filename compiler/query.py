"""Offline question answering over a compiled wiki (``folio query``).

Retrieval (:mod:`compiler.retrieval`: field-weighted BM25 over pages and claims, expanded
along wikilinks) finds the evidence; an answer is built only from claims, each cited by its
page and the exact source record version. A question the best evidence does not cover well
enough gets a plain "no answer" rather than the nearest noise.
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel, Field

from .models import Claim, ClaimStatus, Principal
from .retrieval import Evidence, Retrieval, question_terms, retrieve, says_nothing
from .retrieval.clauses import fronted, split_clauses
from .retrieval.retriever import _answering
from .retrieval.reading import Reading, answer_reading
from .retrieval.text import SYNONYMS, stems
from .state import State
from .views import Visibility, group_view

_KEEP = 0.5  # a part must score at least this share of the best one
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
    read_from: str | None = Field(None, description="the clause of the cited claim's quote the "
                                  "value was read from, when no claim separates it "
                                  "(compiler/retrieval/reading.py)")
    clause: int = Field(0, description="which clause of a question of several it answers")


class PageRef(BaseModel):
    page: str
    page_title: str
    score: float


class Answer(BaseModel):
    question: str
    principal: str | None
    found: bool
    parts: list[AnswerPart] = []
    coverage: float = Field(0.0, description="share of the question's weight the best "
                            "evidence covers (answered from retrieval.MIN_COVERAGE)")
    pages: list[PageRef] = Field([], description="the pages retrieval ranked first")
    unanswered: list[str] = Field([], description="parts of the question the wiki does not "
                                  "answer (the others are answered)")

    def cited_claims(self) -> list[tuple[str, str]]:
        """(claim id, status) of every claim the answer cites."""
        return [(c.claim_id, c.status) for p in self.parts for c in p.citations]

    def served_pages(self) -> set[str]:
        """Pages this answer shows anything of (cited claims, ranked pages)."""
        return {c.page for p in self.parts for c in p.citations} | {p.page for p in self.pages}

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
        out += [f"Not found in the wiki: {part}?" for part in self.unanswered]
        return "\n".join(out)


def query_terms(question: str) -> list[str]:
    """The content stems of a question (see :mod:`compiler.retrieval`)."""
    return question_terms(question)


def _useful(ev: Evidence) -> bool:
    # a page's own name or a bare link answers nothing by itself
    # … unless retrieval judged it the answer ("our contact at X": the linking page's name)
    return not says_nothing(ev.claim) or ev.aspect is not None


def _fits(ev: Evidence) -> bool:
    return ev.aspect is not None and not ev.doubtful


def intruding(state: State, r: Retrieval, who: Principal | None) -> set[str]:
    """(answer7) The claims of every open contradiction that does not answer the question as
    any claim must: an answer says "the sources disagree on <its attribute>", so what the sides
    disagree on — the attribute (with its qualifiers) or the value — must say something of what
    is asked. A side retrieval judged to answer only through the other words of its sentence (a
    roadmap row's "general *availability*" asked about uptime, while the sides disagree on when
    "Harrow Advance" ships) is a contradiction about something else."""
    asked = set(r.terms)
    out: set[str] = set()
    seen: set[tuple] = set()
    for e in r.claims:
        c = e.claim
        group = (c.subject, c.attribute, tuple(sorted(_qualifiers(c).items())))
        if e.status != "contested" or not _fits(e) or group in seen:
            continue
        seen.add(group)
        said = set(stems(f"{label(c)} {c.value}"))
        said |= {a for w in said for a in SYNONYMS.get(w, ())}
        if said & asked:
            continue
        claims, status, _ = group_view(state, c.subject, c.attribute, who)
        out.update(g.id for g in claims if _qualifiers(g) == _qualifiers(c)
                   and status.get(g.id) == "contested")
    return out


def answer(state: State, question: str, who: Principal | None,
           retrieval: Retrieval | None = None) -> Answer:
    """Retrieve (:mod:`compiler.retrieval`), then answer from the best claims: a statement
    answers alone, an attribute/value claim answers with its whole group so that authority
    applies (winner, overruled with the reason, or an open contradiction)."""
    r = retrieval or retrieve(state, question, who)
    result = Answer(question=question, principal=who.name if who else None, found=False,
                    coverage=round(r.coverage, 3),
                    pages=[PageRef(page=p.page, page_title=p.title, score=round(p.score, 3))
                           for p in r.pages])
    if len(r.parts) > 1:
        # (answer7) several clauses: each answered on its own, as if asked alone (its claims,
        # or a value read from a sentence); the question is answered when one is, and the
        # answer names each clause it does not answer
        # (each clause named as the question says it, not as retrieval read its "it")
        given = fronted(r.question)
        said, bare = (given, given) if given else split_clauses(r.question)
        if len(said) != len(r.parts):
            said = bare = [sub.question for sub in r.parts]
        for i, sub in enumerate(r.parts):
            own = _own_answer(state, sub, who)
            if not own.found and bare[i] != said[i]:
                # the scene set before the clauses is not what this one asks of ("X - who is
                # our contact there, and how many passes does Gold get?"): asked alone
                own = _own_answer(state, retrieve(state, bare[i], who), who)
            for part in own.parts:
                part.clause = i
            result.parts += own.parts
            if not own.found:
                result.unanswered.append(bare[i])
        result.found = bool(result.parts)
        if not result.found:
            result.unanswered = []
        return result
    return _clause_answer(state, r, who, result, question)


def _own_answer(state: State, sub: Retrieval, who: Principal | None) -> Answer:
    """A clause of several answered from the claims that answer it (not its neighbours: one
    clause, one answer), or from a value read from a sentence."""
    return _clause_answer(state, replace(sub, claims=_answering(sub)), who,
                          question=sub.question, judged=sub)


def _clause_answer(state: State, r: Retrieval, who: Principal | None,
                   result: Answer | None = None, question: str = "",
                   judged: Retrieval | None = None) -> Answer:
    """One clause answered from its retrieval: its best claims, or a value read from a claim's
    sentence (:mod:`compiler.retrieval.reading`) when that answers it better."""
    result = result or Answer(question=r.question, principal=who.name if who else None,
                              found=False)
    if r.answerable:
        result.unanswered = list(r.unanswered)
        _parts(state, r, who, result, judged)
    if r.clauses == 1:
        answered = [c.claim_id for p in result.parts for c in p.citations if c.status == "winner"]
        reading = answer_reading(state, question or r.question, who, [p.page for p in r.pages],
                                 r.answerable, answered)
        if reading is not None:
            result.parts = [_reading_part(reading)]
    result.found = bool(result.parts)
    return result


def _parts(state: State, r: Retrieval, who: Principal | None, result: Answer,
           judged: Retrieval | None = None) -> None:
    """``judged``: the clause's whole retrieval, when ``r`` keeps only its answering claims."""
    # (answer7) a contradiction on something else is no part of the answer
    away = intruding(state, judged or r, who)
    claims = [e for e in r.claims if e.claim.id not in away]
    useful = [e for e in claims if _useful(e)] or claims
    best = useful[0].score if useful else 0.0
    found = {e.claim.id: e.claim for e in claims}
    groups: list[tuple[str, tuple[str, str]]] = []
    for ev in useful:
        # several clauses: each has its own best, so no part is measured against another's
        if r.clauses == 1 and (ev.score < _KEEP * best or ev.context < _KEEP * r.coverage):
            continue
        c = ev.claim
        # one group per attribute and qualifiers: the Enterprise window is not the Standard one
        group = ("claim", c.id) if c.kind == "statement" else ("attr", c.id)
        same = [g for g in groups if g[1][0] == "attr" and g[0] == c.subject
                and _same_group(found[g[1][1]], c)] if group[0] == "attr" else []
        if (c.subject, group) not in groups and not same:
            groups.append((c.subject, group))
    vis = Visibility(state, who)  # a reference answers with its target's title, if visible
    for subject, (kind, key) in groups[:_MAX_GROUPS * r.clauses]:
        title = r.titles.get(subject, subject)
        if kind == "claim":
            part = _statement_part(found[key], title)
        else:
            part = _part(state, found[key], title, who, vis)
        if part is not None:
            result.parts.append(part)


def _reading_part(reading: Reading) -> AnswerPart:
    """A value read from a clause of a claim's quote, citing that claim."""
    c = reading.claim
    what = ", ".join(x for x in dict.fromkeys((reading.label, reading.header)) if x)
    cite = Citation(
        claim_id=c.id, page=c.subject, page_title=reading.page_title, attribute=c.attribute,
        value=c.value, status="winner" if reading.status == "winner" else reading.status,
        source=c.source.label, sha256=c.source.sha256,
        authority=f"{c.authority.rule}, rank {c.authority.rank}", quote=c.quote)
    return AnswerPart(page=c.subject, page_title=reading.page_title,
                      attribute=what or "statement", state="answered", value=reading.value,
                      citations=[cite], read_from=reading.clause)


def _qualifiers(c: object) -> dict:
    return dict(getattr(c, "qualifiers", None) or {})


def _same_group(a: Claim, b: Claim) -> bool:
    return a.attribute == b.attribute and _qualifiers(a) == _qualifiers(b)


def label(c: Claim) -> str:
    """The attribute as pages show it, with its qualifiers: ``return window (Enterprise)``."""
    return getattr(c, "label", c.attribute)


def _part(state: State, claim: Claim, title: str, who: Principal | None,
          vis: Visibility | None = None) -> AnswerPart | None:
    subject, attribute = claim.subject, label(claim)
    claims, status, conflicts = group_view(state, subject, claim.attribute, who)
    claims = [c for c in claims if _same_group(c, claim)]
    conflicts = [c for c in conflicts if _qualifiers(c) == _qualifiers(claim)]
    if not claims:
        return None
    reasons = {o.claim_id: o.reason for c in conflicts for o in c.overruled}
    order = {"winner": 0, "contested": 1, "overruled": 2}
    vis = vis or Visibility(state, who)
    cites = [
        Citation(
            claim_id=c.id, page=subject, page_title=title, attribute=attribute,
            value=vis.shown(c),
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

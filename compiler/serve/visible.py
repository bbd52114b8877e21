"""Everything the served surfaces (web view, JSON API, MCP) read, computed for one principal.

One :class:`Viewer` per request. It reuses :func:`compiler.views.page_view`, so authority is
settled again among the claims the principal may see, a page's name and aliases come only from
records they may see, and a page with no visible claim does not exist. Every link target, count,
search hit, backlink and history line goes through :meth:`Viewer.page`, so a hidden page and a
missing one give the same answer: ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, Field

from ..answer_pages import ANSWER_TYPE, answer_page_text
from ..build import wiki_state
from ..canonical import sha256_hex
from ..models import Claim, Principal
from ..provenance.answers import (
    ANSWERS_DIR, AnswerStatement, AuditError, AuditReport, audit, load_answer,
)
from ..provenance.index_root import BUNDLE_SUFFIX
from ..provenance.verify import Trust, VerifyError, read_page_statement
from ..query import Answer, query_terms
from ..render import reference_target
from ..query import answer as answer_question
from ..staging import reading
from ..state import State
from ..text import words
from ..views import PageView, page_view

SEARCH_LIMIT = 20
_FRONTMATTER = re.compile(r"\A---\n.*?\n---\n", re.S)


@contextmanager
def snapshot(wiki: Path) -> Iterator[State]:
    """The wiki's state for one request, holding its current generation (compiler/staging.py)
    so the pages, DBOMs and answers read beside it belong to the same compile."""
    with reading(wiki), closing(wiki_state(wiki)) as state:
        yield state
_CANDIDATES = 400


# -- the JSON shapes (also what the HTML templates render) -------------------------------------
class FiledPageOut(BaseModel):
    """An answer filed back into the wiki: its page's markdown, shown as text."""

    id: str
    title: str = Field(description="the question")
    type: str = ANSWER_TYPE
    text: str = Field(description="the page's markdown after its frontmatter")


class PageRef(BaseModel):
    id: str
    title: str
    type: str


class Link(BaseModel):
    """A mention inside a claim value that links to a page the principal may see."""

    start: int
    end: int
    page: str
    title: str | None = Field(None, description="the linked page's title, shown in place of "
                              "the value's text for a reference (a source naming it by id)")


class ClaimOut(BaseModel):
    id: str
    attribute: str
    value: str
    kind: str
    status: str = Field(description="winner | overruled | contested, among visible claims")
    source: str = Field(description="record key@version")
    source_sha256: str
    authority_rule: str
    authority_rank: int
    quote: str
    links: list[Link] = []


class OverruledOut(BaseModel):
    claim_id: str
    value: str
    source: str
    rank: int
    rule: str
    reason: str


class ConflictOut(BaseModel):
    attribute: str
    state: str
    value: str | None
    winners: list[str]
    contested: list[str]
    overruled: list[OverruledOut]


class SourceOut(BaseModel):
    key: str
    version: str
    sha256: str
    system: str
    title: str
    url: str | None


class PageOut(BaseModel):
    id: str
    title: str
    type: str
    aliases: list[str]
    claims: list[ClaimOut]
    conflicts: list[ConflictOut]
    backlinks: list[PageRef]
    sources: list[SourceOut]


class SearchHit(BaseModel):
    page: PageRef
    matches: list[ClaimOut]


class DbomOut(BaseModel):
    page: str
    status: str = Field(description="verified | failed | unsigned")
    problem: str | None = Field(None, description="what failed, for this page only")
    signer_key: str | None = Field(None, description="sha256 id of the trusted key that signed")
    page_sha256: str | None = Field(
        description="digest of the signed page file: operators only (the file holds every "
        "claim, and a digest of it would confirm guesses of hidden ones)")
    sources: list[str] = Field(description="record key@version the DBOM pins, visible ones only")


class HistoryEntry(BaseModel):
    day: str
    op: str
    change: str


class AnswerSummary(BaseModel):
    id: str
    question: str
    principal: str
    answered_at: datetime
    found: bool


# -- the viewer ---------------------------------------------------------------------------------
_LOG_LINE = re.compile(r"^\s*- (created|updated) \[\[([^\]]+)\]\]$|^\s*- (removed) `([^`]+)`")


class Viewer:
    """Reads of one wiki for one principal (``None``: an operator token, who sees all)."""

    def __init__(self, state: State, wiki: Path, who: Principal | None, trust: Trust) -> None:
        self.state = state
        self.wiki = wiki
        self.who = who
        self.trust = trust
        self._pages: dict[str, PageView | None] = {}

    # pages ------------------------------------------------------------------------------------
    def view(self, entity_id: str) -> PageView | None:
        if entity_id not in self._pages:
            self._pages[entity_id] = page_view(self.state, entity_id, self.who)
        return self._pages[entity_id]

    def find(self, name: str) -> PageView | None:
        """A page by id, title or alias, if the principal may see it under that name."""
        eid = self.state.find_entity(name)
        if eid is None:
            return None
        if eid == name:
            return self.view(eid)
        return page_view(self.state, eid, self.who, looked_up_as=name)

    def ref(self, entity_id: str) -> PageRef | None:
        v = self.view(entity_id)
        return PageRef(id=v.entity.id, title=v.entity.name, type=v.entity.type) if v else None

    def index(self) -> list[PageRef]:
        refs = [r for r in (self.ref(eid) for eid in self.state.page_ids()) if r is not None]
        refs += [PageRef(id=a.id, title=a.title, type=a.type) for a in self.filed()]
        return sorted(refs, key=lambda r: (r.type, r.title.lower(), r.id))

    def filed(self) -> list[FiledPageOut]:
        """The answers filed back into the wiki (compiler/answer_pages.py) this principal may
        read: only those whose every cited claim they may see, as ``folio show`` decides."""
        prefix = f"{ANSWER_TYPE}/"
        ids = [i for i in self.state.page_ids() if i.startswith(prefix)]
        return [a for a in (self.answer_page(i) for i in ids) if a is not None]

    def answer_page(self, name: str) -> FiledPageOut | None:
        """A filed answer's page as its signed file says (None: not an answer page, or not
        for this principal: the same as a missing page)."""
        if not name.startswith(f"{ANSWER_TYPE}/"):
            return None
        text = answer_page_text(self.wiki, self.state, name, self.who)
        if text is None:
            return None
        row = self.state.index_rows_of([name]).get(name)
        body = _FRONTMATTER.sub("", text, count=1)
        return FiledPageOut(id=name, title=row[1] if row else name, text=body)

    def claim_out(self, c: Claim, status: str) -> ClaimOut:
        target = reference_target(c)
        links = [Link(start=m.start, end=m.end, page=m.entity, title=(
            v.entity.name if m.entity == target else None))
                 for m in c.mentions if (v := self.view(m.entity)) is not None]
        return ClaimOut(id=c.id, attribute=c.attribute, value=c.value, kind=c.kind,
                        status=status, source=c.source.label, source_sha256=c.source.sha256,
                        authority_rule=c.authority.rule, authority_rank=c.authority.rank,
                        quote=c.quote, links=links)

    def page(self, name: str) -> PageOut | None:
        v = self.find(name)
        if v is None:
            return None
        claims = sorted(v.claims, key=lambda c: (c.attribute, c.source.key, c.span or (-1, -1),
                                                 c.id))
        sources = {c.source.key: c.source for c in claims}
        backlinks = [r for r in (self.ref(eid) for eid, _ in v.backlinks) if r is not None]
        return PageOut(
            id=v.entity.id, title=v.entity.name, type=v.entity.type,
            aliases=list(v.entity.aliases),
            claims=[self.claim_out(c, v.status[c.id]) for c in claims],
            conflicts=[ConflictOut(
                attribute=k.attribute, state=k.state, value=k.value, winners=list(k.winners),
                contested=list(k.contested),
                overruled=[OverruledOut(**o.model_dump()) for o in k.overruled])
                for k in v.conflicts],
            backlinks=sorted(backlinks, key=lambda r: (r.title.lower(), r.id)),
            sources=[SourceOut(key=s.key, version=s.version, sha256=s.sha256, system=s.system,
                               title=s.title, url=s.url)
                     for _, s in sorted(sources.items())],
        )

    # search -----------------------------------------------------------------------------------
    def search(self, text: str, limit: int = SEARCH_LIMIT) -> list[SearchHit]:
        """Pages whose visible claims (or visible name) match. A claim only counts when its own
        visible text holds a query word: the full-text row also carries the operator's page
        name, and a match on a hidden alias must not surface anything."""
        terms = query_terms(text)
        hits: dict[str, SearchHit] = {}
        direct = self.find(text.strip()) if text.strip() else None
        if direct is not None:
            hits[direct.entity.id] = SearchHit(page=self.ref(direct.entity.id), matches=[])
        if terms:
            match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
            ranked = [cid for cid, _ in self.state.search_claims(match, _CANDIDATES)]
            found = self.state.claims_by_ids(ranked)
            wanted = set(terms)
            for claim in (found[cid][0] for cid in ranked if cid in found):
                if len(hits) >= limit and claim.subject not in hits:
                    continue
                if not claim.acl.allows(self.who):
                    continue
                v = self.view(claim.subject)
                if v is None or claim.id not in v.status:
                    continue
                own = set(words(f"{v.entity.name} {' '.join(v.entity.aliases)} "
                                f"{claim.attribute} {claim.value} {claim.quote}"))
                if not wanted & own:
                    continue
                hit = hits.setdefault(claim.subject,
                                      SearchHit(page=self.ref(claim.subject), matches=[]))
                if len(hit.matches) < 3:
                    hit.matches.append(self.claim_out(claim, v.status[claim.id]))
        return list(hits.values())[:limit]

    # answers from the wiki ---------------------------------------------------------------------
    def ask(self, question: str) -> Answer:
        """The offline answer (:func:`compiler.query.answer`) for this principal, with page
        titles as this principal sees them and parts on pages they cannot open dropped."""
        result = answer_question(self.state, question, self.who)
        parts = []
        for part in result.parts:
            ref = self.ref(part.page)
            if ref is None:
                continue
            cites = [c.model_copy(update={"page_title": ref.title}) for c in part.citations]
            parts.append(part.model_copy(update={"page_title": ref.title, "citations": cites}))
        return result.model_copy(update={"parts": parts, "found": bool(parts)})

    def ask_answer(self, question: str):  # noqa: ANN201 - compiler.answers.ask.AskAnswer
        """``folio ask``'s answer (offline backend: extractive sentences, each citing claims)
        for this principal; its retrieval, facts and citation checks are the answers work's
        (compiler/answers/ask.py), all computed on this principal's visible claims."""
        from ..answers.ask import ask

        return ask(self.state, question, self.who, backend="offline")

    # provenance -------------------------------------------------------------------------------
    def dbom(self, name: str) -> DbomOut | None:
        v = self.find(name)
        if v is None:
            return None
        row = self.state.page(v.entity.id)
        visible = {c.source.key for c in v.claims}
        if row is None:
            return DbomOut(page=v.entity.id, status="unsigned", problem="page file not found",
                           page_sha256=None, sources=[])
        rel = row[0]
        page_file = self.wiki / rel
        bundle_rel = rel.removesuffix(".md") + BUNDLE_SUFFIX
        bundle = self.wiki / bundle_rel
        sha = sha256_hex(page_file.read_bytes()) if page_file.is_file() else None
        if not bundle.is_file():
            return DbomOut(page=v.entity.id, status="unsigned", problem="no DBOM for this page",
                           page_sha256=sha if self.who is None else None, sources=[])
        try:
            stmt = read_page_statement(bundle, bundle_rel, self.trust)
        except VerifyError:
            # the verifier's message may name keys and paths of the server: say what, not where
            return DbomOut(page=v.entity.id, status="failed",
                           problem="signature does not verify against the trusted key",
                           page_sha256=sha if self.who is None else None, sources=[])
        deps = [f"{d.annotations.key}@{d.annotations.version}"
                for d in stmt.predicate.build_definition.resolved_dependencies
                if d.annotations.key in visible]
        subject = stmt.subject[0]
        problem = None
        if subject.name != rel:
            problem = "the DBOM describes another page"
        elif sha is None or subject.digest.get("sha256") != sha:
            problem = "the page differs from the one its DBOM signed"
        return DbomOut(page=v.entity.id, status="failed" if problem else "verified",
                       problem=problem, signer_key=self.trust.key_id,
                       page_sha256=sha if self.who is None else None, sources=sorted(deps))

    def history(self, name: str) -> list[HistoryEntry] | None:
        """The page's lines of ``log.md``: day, operation and what happened to this page only
        (a compile's title counts every page, hidden ones too, so it is not shown)."""
        v = self.find(name)
        if v is None:
            return None
        eid = v.entity.id
        out = []
        for day, op, _title, body in self.state.log_entries():
            for line in (body or "").splitlines():
                m = _LOG_LINE.match(line)
                if m and eid in (m.group(2), m.group(4)):
                    out.append(HistoryEntry(day=day, op=op, change=m.group(1) or m.group(3)))
        return out

    # signed answers ---------------------------------------------------------------------------
    def _answer(self, rid: str) -> AnswerStatement | None:
        """The signed answer record if this principal may read it. The operator reads every
        answer; a principal reads the answers they asked whose cited claims all still exist and
        are all visible to them now (a question typed by someone else, or a value they have
        since lost access to, is not theirs to read)."""
        try:
            stmt = load_answer(self.wiki, rid, self.trust)
        except (AuditError, VerifyError):
            return None
        if self.who is None:
            return stmt
        p = stmt.predicate
        if p.principal != self.who.name:
            return None
        now = self.state.claims_by_ids([c.claim_id for c in p.citations])
        ok = all(c.claim_id in now and now[c.claim_id][0].acl.allows(self.who)
                 and self.view(now[c.claim_id][0].subject) is not None for c in p.citations)
        return stmt if ok else None

    def answers(self) -> list[AnswerSummary]:
        folder = self.wiki / ANSWERS_DIR
        out = []
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            stmt = self._answer(path.stem)
            if stmt is None:
                continue
            p = stmt.predicate
            out.append(AnswerSummary(id=path.stem, question=p.question, principal=p.principal,
                                     answered_at=p.answered_at, found=p.found))
        return sorted(out, key=lambda a: (a.answered_at, a.id), reverse=True)

    def audit(self, rid: str) -> AuditReport | None:
        if not re.fullmatch(r"[0-9a-f]{1,64}", rid) or self._answer(rid) is None:
            return None
        report = audit(self.wiki, self.state, rid, self.trust)
        # the server's key file path is configuration, not something to publish
        return report.model_copy(update={"signed_by": f"key sha256:{self.trust.key_id}"
                                         if self.trust.key_id else report.signed_by})

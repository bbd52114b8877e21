"""Ranking a question's pages and claims, and deciding whether they answer it."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from .coverage import (action_object, asked_head, asked_scope, head_phrase, keyword_query,
                                measured_subject, names_an_agent, names_in, unknown_names,
                                wiki_schema_groups)
from ..models import Claim, Principal
from ..state import State
from . import scoring
from .answer_types import (AGENT_TYPES, _HOW_MANY, _TYPED_AS, _TYPES, _WHO, _COUNTED, TYPE_BOOST, TYPE_MISS,
                           answer_type)
from .abbreviations import spell_out_clipped
from .aspect import (EVENT_OF, asked_events, other_member, PLAIN_QUALIFIERS, REVERSE_KINDS, events_in, is_name_claim, reverse_kinds, GENERIC_HEADS, SUPERLATIVE, who_verb, LINKS_TO, AspectMatcher, _asks_missing_slot, _near_miss,
                     _noun_keys)
from .acronyms import spell_out
from .typos import capitalise_names, correct_typos, names_only
from .candidates import CandidateIndex, _schema_page
from .clauses import _ANAPHOR, _interleave, elided_topic, fronted, split_question
from .scoring import (CLAIM_FIELDS, CONTEXT_SCORE, ENTITY_BOOST, ENTITY_MISS, B, K1,
                      MIN_COVERAGE, NEAR_MISS, PAGE_CONTEXT, PAGE_FIELDS, PAGE_IN_CLAIM,
                      _bm25, _PageDoc, _tf, idf)
from .text import _KIND_KEYS, SYNONYM_WEIGHT
from .text import FRAME_WORDS, STOPWORDS, _rewrite, key, question_terms, stems, tokens


@dataclass
class Evidence:
    claim: Claim
    status: str
    score: float
    coverage: float  # share of the question's weight the claim (and its page's name) covers
    context: float = 0.0  # … counting part of what the rest of its page covers
    doubtful: bool = False  # about another entity than the question names, or a near miss
    aspect: float | None = None  # share of the asked aspect it covers; None: not an answer
    slot: float = 0.0  # (answer6) share of the asked phrase its attribute names


@dataclass
class PageHit:
    page: str
    title: str
    score: float


@dataclass
class Retrieval:
    question: str
    terms: list[str]
    pages: list[PageHit] = field(default_factory=list)
    claims: list[Evidence] = field(default_factory=list)
    coverage: float = 0.0
    answerable: bool = False
    titles: dict[str, str] = field(default_factory=dict)
    clauses: int = 1  # a question of several clauses is answered clause by clause
    unknown: list[str] = field(default_factory=list)  # names in the question the wiki lacks
    # clauses of a several-clause question the wiki does not answer (the others are answered)
    unanswered: list[str] = field(default_factory=list)
    # (answer7) each clause's own retrieval, in order: each is answered on its own (query.py)
    parts: list[Retrieval] = field(default_factory=list)


class Retriever(CandidateIndex, AspectMatcher):
    """Ranks a state's pages and claims for questions asked by one principal."""

    def __init__(self, state: State, who: Principal | None) -> None:
        self.state, self.who = state, who
        self.n_pages = max(state.page_count(), 1)
        self.n_claims = max(state.claim_count(), 1)
        self.n_records = max(state.db.execute("SELECT count(*) FROM records_fts").fetchone()[0],
                             1)
        self._df: dict[tuple[str, str], int] = {}
        self.titles: dict[str, str] = {}
        self._named: set[str] = set()
        self._asks_who = False
        self._asked_pages: set[str] = set()
        self._scope: list[str] = []
        self._who_verb = ""
        self._superlative = False
        self._names_asked: list[str] = []
        self._events: set[str] = set()
        self._reverse: set[str] = set()
        # the wiki's merged schema (base + the corpus's schema.yaml), as its SCHEMA.md says
        self.schema_words = wiki_schema_groups(_schema_page(state))

    # -- ranking ---------------------------------------------------------------------------
    def retrieve(self, question: str, k_pages: int = 5, k_claims: int = 12) -> Retrieval:
        """The question as asked (a name typed a keystroke off read as the name); when that
        finds no answer, read again with any word typed one keystroke off a word of the wiki
        as that word (only then: without a dictionary, "share" is as near to "spare" as
        "retnetion" to "retention")."""
        # a name typed in lower case and a keystroke off ("seatle"): read as the name at once
        # (asked as typed, "seatle" would be a word the wiki lacks, and the question answered
        # without it)
        question = correct_typos(question, self.state, self._known, names_only(self.state))
        question = capitalise_names(question, self.state)  # (abstain4) "joliet" is Joliet
        result = self._retrieve_question(question, k_pages, k_claims)
        if result.answerable:
            return result
        fixed = correct_typos(question, self.state, self._known)
        if fixed == question:
            return result
        again = self._retrieve_question(fixed, k_pages, k_claims)
        return again if again.answerable else result

    def _retrieve_question(self, question: str, k_pages: int = 5, k_claims: int = 12
                           ) -> Retrieval:
        """A question of several clauses ("who …, and what …?") is retrieved clause by
        clause: it is answerable when every clause is, and its evidence interleaves theirs.
        An acronym the wiki does not use is read spelled out (:mod:`.acronyms`)."""
        # "whats the limit", "whos the owner": a question word typed without its apostrophe
        question = _NO_APOSTROPHE.sub(r"\1 is", question)
        question = spell_out(question, self.state, self._known)
        # a clipped word of the wiki's own terms ("a mini ex") spelt out (abbreviations.py)
        question = spell_out_clipped(self.state, question)
        parts = fronted(question) or split_question(question)
        if len(parts) < 2:
            return self._retrieve_clause(question, k_pages, k_claims)
        subs: list[Retrieval] = []
        for p in parts:
            if subs and _ANAPHOR.search(p) and not self._alias_pages(p):
                # "…, and what is *that product's* code?": the thing an earlier clause named
                # or answered with
                sub = None
                antecedent = self._antecedent(subs[-1], _ANAPHOR.search(p).group(0))
                if antecedent:
                    sub = self._retrieve_clause(_ANAPHOR.sub(antecedent, p, count=1), k_pages,
                                                k_claims)
                value = self._answer_value(subs[-1])
                # (answer5) a bare count ("6") is nothing "it" or "their" refers to
                value = "" if re.fullmatch(r"[\d.,\s]+", value) else value
                if (sub is None or not sub.answerable) and value:
                    # "which tier does X have, and how fast must an engineer reach *them*?":
                    # them are a customer of the tier the earlier clause answered
                    by_value = self._retrieve_clause(_ANAPHOR.sub(value, p, count=1), k_pages,
                                                     k_claims)
                    if by_value.answerable or sub is None:
                        sub = by_value
                if sub is None or not sub.answerable:
                    # (answer5) "How many dock doors does Joliet have, and when does *its*
                    # second shift begin?": its is the name the earlier clause says, though
                    # that clause was answered from a page only named after it
                    sub = self._by_named(parts[len(subs) - 1], p, k_pages, k_claims) or sub
                if sub is not None and sub.answerable:
                    # the thing referred to may be only what the answer applies to ("how long
                    # is *that account's* return window as an Enterprise customer": the return
                    # policy's window, not a claim of the account): the clause without it
                    # answers when it fits clearly better
                    bare = self._retrieve_clause(_ANAPHOR.sub("", p, count=1), k_pages,
                                                 k_claims)
                    if _fit(bare) > _fit(sub) + _BETTER:
                        sub = bare
                if sub is None and not subs[-1].answerable:
                    # "…, and when is *their* contract up?" after a clause that found nothing:
                    # whose it is is not known, and any contract's date would be no answer
                    sub = Retrieval(question=p, terms=question_terms(p), titles=self.titles)
                subs.append(sub if sub is not None else self._retrieve_clause(p, k_pages,
                                                                              k_claims))
                continue
            sub = self._retrieve_clause(p, k_pages, k_claims)
            topic = elided_topic(parts[len(subs) - 1]) if subs else ""
            if topic and not self._alias_pages(p):
                # "Which branch first noticed the outage, and what was the underlying
                # cause?": a clause that names nothing asks of what the clause before it ends
                # with (not of another ticket's root cause)
                of_topic = self._retrieve_clause(f"{p} of {topic}", k_pages, k_claims)
                if of_topic.answerable:
                    sub = of_topic
            subs.append(sub)
        merged = Retrieval(question=question, terms=list(dict.fromkeys(
            t for r in subs for t in r.terms)), titles=self.titles)
        for r in subs:
            merged.titles.update(r.titles)
        merged.pages = _interleave([r.pages for r in subs], lambda h: h.page)[:k_pages]
        # each clause answers from its own evidence: its fitting claims, best first, so that
        # the first facts of an answer hold one answer per clause (not a clause's noise)
        merged.claims = _interleave([_answering(r) for r in subs],
                                    lambda e: e.claim.id)[:k_claims]
        merged.clauses = len(subs)
        merged.parts = subs
        # a clause the wiki cannot answer does not hide the others' answers: they are given,
        # and the answer says which clause found nothing
        merged.answerable = any(r.answerable for r in subs)
        merged.unanswered = [p for p, r in zip(parts, subs) if not r.answerable]
        merged.coverage = min((r.coverage for r in subs if r.answerable), default=0.0)
        return merged

    def _by_named(self, earlier: str, clause: str, k_pages: int,
                  k_claims: int) -> Retrieval | None:
        """The clause with its anaphor read as a capitalised name the earlier clause says (not
        its first word, a question word), when that reading answers it."""
        anaphor = _ANAPHOR.search(clause)
        if anaphor is None:
            return None
        possessive = anaphor.group(0).lower() in ("its", "their") or anaphor.group(0).endswith(
            "'s")
        for m in re.finditer(r"(?<!^)(?<![.?!]\s)\b[A-Z][\w&-]+(?:\s+[A-Z][\w&-]+)*", earlier):
            name = m.group(0)
            if name.split()[0].lower() in STOPWORDS:
                continue
            sub = self._retrieve_clause(
                _ANAPHOR.sub(f"{name}'s" if possessive else name, clause, count=1),
                k_pages, k_claims)
            if sub.answerable:
                return sub
        return None

    def _retrieve_clause(self, question: str, k_pages: int, k_claims: int) -> Retrieval:
        """One clause; "which <role> <verb>s X" (a kind of person doing something) is also
        asked as "who <verb>s X" when its own words find no one: "which customer success
        manager manages X" is answered by "X is managed by Jonah", which names no role."""
        r = self._retrieve(question, k_pages, k_claims)
        m = _ROLE_VERB.match(question)
        if not m or (r.answerable and any(
                self._names_someone(e.claim) for e in r.claims[:1]
                if not e.doubtful and e.aspect is not None)):
            return r
        alt = self._retrieve(f"who {m.group('verb')}{m.group('rest')}", k_pages, k_claims)
        if alt.answerable:
            alt.question = question
            return alt
        return r

    def _of_asked_event(self, claim: Claim) -> bool:
        """A date-typed claim whose attribute names the event a "when" asks."""
        return bool(self._events and claim.kind != "statement"
                    and claim.value_type in ("date", "datetime")
                    and events_in(list(self._attribute_words(claim))) & self._events)

    def _linking_pages(self, named: set[str], kinds: frozenset[str]) -> set[str]:
        """Pages of one of the page types ``kinds`` that link to a named page."""
        if not named or not kinds:
            return set()
        ids = sorted(named)
        rows = self.state.db.execute(
            f"SELECT DISTINCT subject FROM mentions WHERE entity_id IN "
            f"({','.join('?' * len(ids))}) AND subject != entity_id", ids).fetchall()
        return {r[0] for r in rows if r[0].split("/", 1)[0] in kinds and r[0] not in named}

    def _antecedent(self, r: Retrieval, anaphor: str = "") -> str:
        """What a later clause's "it", "them", "that account" refers to: the page an earlier
        clause's answer links to ("which product does the renewal cover" → the product), or
        else the page it named; an anaphor naming a kind ("*the company's* plan") refers to a
        page of that kind among them (the contact's company, not the contact)."""
        candidates: list[str] = []
        answering = _answering(r)
        if answering:
            best = answering[0].claim
            unseen = {m.entity for m in best.mentions} - set(self.titles)
            if unseen:
                # the page an answer links to need not have been a candidate of its clause:
                # its name (as the principal may see it) is looked up
                self._page_docs(unseen, {})
            candidates += [m.entity for m in best.mentions if m.entity in self.titles]
            # a value answered: the clause was about the page that holds it ("what is the X
            # deal worth, and which device is *it* for")
            if best.kind != "statement" and best.subject in self.titles:
                candidates.append(best.subject)
        # the most specific page the clause named ("Polaris Pharma - Mira Fleet Upgrade", not
        # "Polaris Pharma" inside it)
        candidates += sorted((n for n in self._named_of(r) if n in self.titles),
                             key=lambda n: (-len(self.titles[n]), n))
        kinds = {t for w in tokens(anaphor) for t in _KIND_TYPES.get(key(w), ())}
        typed = [c for c in candidates if c.split("/", 1)[0] in kinds]
        chosen = (typed or candidates)[:1]
        return self.titles[chosen[0]] if chosen else ""

    @staticmethod
    def _answer_value(r: Retrieval) -> str:
        """The short value an earlier clause answered with ("Platinum"), or ""."""
        answering = _answering(r)
        if not answering:
            return ""
        best = answering[0].claim
        value = best.value
        if best.kind == "statement":
            # a labelled line the extraction kept whole ("Plan: Gold")
            m = re.fullmatch(r"[^:\n]{1,40}:\s*([^:\n]{1,40}?)\.?", value.strip())
            value = m.group(1) if m else ""
        if not value or best.mentions or len(value.split()) > 4:
            return ""
        return value

    def _named_of(self, r: Retrieval) -> list[str]:
        return sorted(self._alias_pages(r.question))

    def _retrieve(self, question: str, k_pages: int, k_claims: int) -> Retrieval:
        """One clause: candidates, pages ranked, claims scored, what is asked checked, and
        whether the best claim answers."""
        terms = question_terms(question)
        result = Retrieval(question=question, terms=terms, titles=self.titles)
        if not terms:
            return result
        subjects, record_text = self._candidates(terms, question)
        # "our contact at X", "the open deal for X": pages of the asked kind that link to the
        # named page (the named page need not list them) are candidates, their name the answer
        self._reverse = self._linking_pages(self._named, reverse_kinds(terms))
        subjects |= self._reverse
        docs = self._page_docs(subjects, record_text)
        if not docs:
            return result
        q = self._question(question, terms, docs)
        result.pages = [PageHit(e, self.titles[e], q.page_score[e]) for e in q.ranked
                        if q.page_score[e] > 0][:k_pages]
        evid = self._score_claims(q)
        self._judge(q, evid[:k_claims * 2])
        # … and a date of the very event asked ("when is the story *due*": its *due date*)
        # before prose that only mentions a month
        # (answer6) … and, of the claims that answer, one whose attribute names the whole asked
        # phrase ("which *identity provider*": the identity provider field, "student count":
        # the *student* enrolment, not the employees) before those that only share its words
        evid[:k_claims * 2] = sorted(evid[:k_claims * 2], key=lambda e: (
            e.aspect is None, e.doubtful or not self._of_asked_event(e.claim),
            e.aspect is None or e.doubtful or e.slot < 1.0))
        result.claims = evid[:k_claims]
        self._decide(q, result)
        return result

    def _question(self, question: str, terms: list[str], docs: dict[str, _PageDoc]
                  ) -> _Clause:
        """What a clause asks, and its candidate pages ranked with BM25F (a page gains a share
        of its best linked page's score)."""
        page_idf = {t: idf(min(self._df_of("page", t), self.n_pages), self.n_pages)
                    for t in terms}
        # a word the wiki never uses weighs as much as the rarest one it does
        weight = {t: page_idf[t] if self._df_of("page", t) or self._df_of("record", t)
                  else idf(0, self.n_pages) for t in terms}
        avg_page = sum(d.length for d in docs.values()) / len(docs)
        base: dict[str, float] = {}
        for eid, d in docs.items():
            s = 0.0
            for t in terms:
                tf = (PAGE_FIELDS["title"] * _tf(d.title, t)
                      + PAGE_FIELDS["attribute"] * _tf(d.attribute, t)
                      + PAGE_FIELDS["value"] * _tf(d.value, t)
                      + PAGE_FIELDS["text"] * _tf(d.text, t))
                if tf:
                    s += page_idf[t] * tf * (K1 + 1) / (
                        tf + K1 * (1 - B + B * d.length / max(avg_page, 1e-9)))
            base[eid] = s
        links = self._links(set(docs))
        page_score = {eid: base[eid] + scoring.LINK_SHARE * max(
            (base.get(o, 0.0) for o in links.get(eid, ())), default=0.0) for eid in docs}
        wanted = answer_type(question)
        self._numbers = tuple(t for t in terms if t.isdigit())
        # what the question asks, read by the claim-side checks (compiler/retrieval/aspect.py)
        self._asks_who = bool(_WHO.search(question))
        # the record event a "when" asks the date of ("fixed", "created", "due")
        self._events = (asked_events(_rewrite(question))
                        if wanted is _TYPES[3][1] else set())
        self._asked_pages = set(self._named)
        # "how many" counts things: a price is a number but not a count of anything
        self._counting = bool(_HOW_MANY.search(question)) and wanted is _TYPES[2][1]
        measured = measured_subject(_rewrite(question), STOPWORDS | FRAME_WORDS)
        self._measured = (("" if not measured[0] else (_noun_keys(measured[0]) or ("",))[-1],
                           key(measured[1])) if measured else None)
        obj = frozenset(key(w) for t in action_object(_rewrite(question), STOPWORDS | FRAME_WORDS)
                        for w in tokens(t))
        return _Clause(question=question, terms=terms, docs=docs, weight=weight, action_object=obj,
                       total_weight=sum(weight.values()) or 1.0, links=links,
                       page_score=page_score,
                       ranked=sorted(docs, key=lambda e: (-page_score[e], e)),
                       named=self._named & set(docs), wanted=wanted)

    def _score_claims(self, q: _Clause) -> list[Evidence]:
        """Every visible claim of the candidate pages scored (BM25 over its fields and its
        page's name, times how much of the question it covers, its answer type, whether it is
        on the named entity and whether it is a near miss of an attribute family), best
        first."""
        terms, docs, weight, wanted = q.terms, q.docs, q.weight, q.wanted
        claim_df = {t: self._df_of("claim", t) for t in terms}
        rows = []
        for eid, d in docs.items():
            for claim, status in d.claims:
                fields = {"attribute": self._attribute_words(claim)
                          if claim.kind != "statement" else Counter(),
                          "value": Counter(stems(claim.value)),
                          "quote": Counter(stems(claim.quote)) if claim.kind != "statement"
                          else Counter(),
                          "name": d.title}
                dl = sum(CLAIM_FIELDS[f] * sum(c.values()) for f, c in fields.items()
                         if f != "name")
                rows.append((eid, claim, status, fields, dl))
        avg_claim = sum(r[4] for r in rows) / max(len(rows), 1)
        top_page = max(q.page_score.values()) or 1.0
        # what the rest of a page covers, numbers excepted: "severity 4" is not answered by a
        # claim about severity 2 on a page that mentions "4 hours" elsewhere
        page_cov = {eid: sum(weight[t] for t in terms if not t.isdigit() and any(
            _tf(c, t) for c in (d.title, d.attribute, d.value, d.text))) / q.total_weight
            for eid, d in docs.items()}
        near = set(q.ranked[:3])
        scored = []
        best_on_page: dict[str, float] = {}
        for eid, claim, status, fields, dl in rows:
            s = 0.0
            covered = 0.0
            # a date of the asked event covers its word ("fixed" of a *resolved* date)
            same_event = (events_in(list(fields["attribute"])) & self._events
                          if claim.value_type in ("date", "datetime") and self._events
                          else set())
            for t in terms:
                tf = sum(CLAIM_FIELDS[f] * _tf(fields[f], t) for f in fields)
                if not tf and same_event and EVENT_OF.get(t) in same_event:
                    covered += weight[t] * SYNONYM_WEIGHT
                if tf:
                    s += _bm25(tf, min(claim_df[t], self.n_claims), self.n_claims, dl, avg_claim)
                    exact = any(fields[f][t] for f in fields)
                    covered += weight[t] * (1.0 if exact else SYNONYM_WEIGHT)
            best_on_page[eid] = max(best_on_page.get(eid, 0.0), s)
            scored.append((eid, claim, status, s, covered / q.total_weight))
        # pages the question names (by name or alias) and their neighbours: an answer about
        # another entity is not an answer ("warranty of Acme Analytics" is not Acme Edge's)
        named = q.named
        around = named | {o for n in named for o in q.links.get(n, ())}
        # a page whose name holds a named page's name is about it ("Globex - Edge Expansion")
        asked_names = {n: [t for t in docs[n].title if t in terms] for n in named}
        named_in_title = {eid for eid, d in docs.items() for n, words in asked_names.items()
                          if words and all(d.title[t] for t in words)}
        entity_of_named = {t for words in asked_names.values() for t in words}
        # (answer6) the words of a named page's name the question says capitalised, as a name
        capital = {key(w) for w in names_in(q.question, STOPWORDS | FRAME_WORDS)}
        said_names = {n: [t for t in words if t in capital] for n, words in asked_names.items()}
        # a page that belongs to a named page by a link of someone-naming attribute (a ticket
        # or deal whose *customer* is it): "Umbrella Health's export" is its ticket's
        owned = {eid for eid, d in docs.items() for c, _ in d.claims
                 if eid.split("/", 1)[0] not in AGENT_TYPES  # a contact is about itself
                 and c.mentions and c.attribute != LINKS_TO
                 and names_an_agent(c.attribute) and any(m.entity in named for m in c.mentions)}
        qset = set(terms)
        evid: list[Evidence] = []
        # a page of the asked kind linking to the named one covers the named page's name and
        # the kind the question asks ("contact"), with its own name as the answer
        reverse = self._reverse & set(docs)
        kind_words = {t for t in terms if t in REVERSE_KINDS}
        for eid, claim, status, s, cov in scored:
            if eid in reverse and is_name_claim(claim):
                cov = sum(weight[t] for t in terms if t in kind_words or t in entity_of_named
                          or any(_tf(c, t) for c in (docs[eid].title, docs[eid].attribute,
                                                     docs[eid].value, docs[eid].text))
                          ) / q.total_weight
                s = max(s, CONTEXT_SCORE * max(best_on_page.values(), default=0.0))
            typed = wanted is not None and bool(wanted.search(claim.value) or claim.value_type in
                                                _TYPED_AS.get(id(wanted), ()))
            if typed and eid in near and claim.kind != "statement":
                # a claim is read in the context of its page: "how long did the outage last"
                # is answered by the outage ticket's "duration", which shares no word with it
                s = max(s, CONTEXT_SCORE * best_on_page[eid])
            if s <= 0:
                continue
            ctx = cov + PAGE_CONTEXT * max(page_cov[eid] - cov, 0.0)
            if wanted is not None:
                s *= TYPE_BOOST if typed else TYPE_MISS
            # off the question's entity: on another page, not stating anything about it
            off_entity = bool(named) and eid not in named and eid not in reverse and not any(
                m.entity in named for m in claim.mentions) and eid not in named_in_title \
                and eid not in owned and not self._says_named(claim, said_names)
            if named:
                s *= ENTITY_BOOST if eid in named else 1.0 if eid in around else ENTITY_MISS
            miss = (_near_miss(claim, docs[eid].claims, qset - q.action_object)
                    or other_member(claim, docs[eid].claims, qset))
            if miss:
                s *= NEAR_MISS
                # a family whose words the question says only as its page's kind ("the SaaS
                # *product*" of product code / product family) is not asked a member of
                kind_only = set(stems(claim.attribute, True)) & qset <= {key(eid.split("/")[0])}
                if _asks_missing_slot(claim, qset) and not kind_only:
                    q.missing.add((eid, claim.attribute))
                    # the question says two or more of the family's words ("return window",
                    # "severity … response time"): it asks for a member wherever the family is
                    if sum(w in qset for w in set(stems(claim.attribute, True))) >= 2:
                        q.named_family.add((eid, claim.attribute))
            elif claim.kind in ("field", "fact"):
                q.present.add((eid, claim.attribute))  # e.g. the member with the asked qualifier
            # coverage first: a claim that answers the whole question beats one that
            # repeats a few of its words often
            evid.append(Evidence(claim, status, s * (0.2 + ctx) ** 2
                                 + PAGE_IN_CLAIM * q.page_score[eid] / top_page * s, cov, ctx,
                                 off_entity or miss))
        order = {"winner": 0, "contested": 1, "overruled": 2}
        evid.sort(key=lambda e: (-e.score, order.get(e.status, 3), e.claim.id))
        return evid

    def _judge(self, q: _Clause, evid: Sequence[Evidence]) -> None:
        """Sets each claim's :attr:`Evidence.aspect`: evidence that covers what is asked (not
        only whom it is about) answers (compiler/retrieval/aspect.py)."""
        question, docs = q.question, q.docs
        entity_words = {t for n in q.named for t in docs[n].title}
        head = ([*q.terms] if keyword_query(question) else
                self._word_keys(asked_head(_rewrite(question), STOPWORDS | FRAME_WORDS)))
        # the head noun of what is asked, the last word of its noun phrase, but not the
        # entity's name: "oven *temperature*" is not answered by an oven count
        # ("how many pallet spaces": what is counted, not the attribute, so not there)
        phrase = [w for w in head_phrase(_rewrite(question), STOPWORDS | FRAME_WORDS,
                                         keyword_query(question))
                  if not all(key(t) in entity_words for t in tokens(w))]
        while len(phrase) > 1 and phrase[-1] in GENERIC_HEADS:
            phrase = phrase[:-1]  # "the return authorisation *step*": the step is what it names
        noun = _noun_keys(phrase[-1]) if phrase and not _COUNTED.search(question) else ()
        # (abstain4) read by the unknown-head rule (aspect.py); "what's our X penalty *per
        # hour*": the rate's unit and the possessive hide the head from the phrase reader, so it
        # is read without them
        # ("how many pallet *spaces*": what is counted, read by the count rules, not here)
        self._head_phrase = () if _COUNTED.search(question) else tuple(phrase) or tuple(head_phrase(
            _OUR.sub("the", _PER_TAIL.sub("?", _rewrite(question))), STOPWORDS | FRAME_WORDS,
            keyword_query(question)))
        # a head noun naming a kind of value ("the operating temperature *range*", "the
        # delivery *date*") is answered by the value's shape: the word before it says which
        # value, and must be covered too ("operating humidity range" is not the temperature's)
        self._kind_modifier = (_noun_keys(phrase[-2]) if noun and len(phrase) > 1
                               and not keyword_query(question)
                               and noun[-1] in _KIND_KEYS and key(phrase[-2]) not in _KIND_KEYS
                               else ())
        # (answer6) … and, in a keyword query, that word is the claim's own, never its page's
        # ("general *liability* premium": whichever its head noun is)
        self._keyword_modifier = frozenset(
            key(w) for w in phrase[-2:-1]) if keyword_query(question) and len(phrase) > 1 \
            else frozenset()
        self._who_verb = who_verb(_rewrite(question))
        self._superlative = bool(SUPERLATIVE.search(question))
        self._scope = ([] if keyword_query(question) else
                       self._word_keys(asked_scope(_rewrite(question), STOPWORDS | FRAME_WORDS)))
        self._read_question(_rewrite(question), STOPWORDS | FRAME_WORDS)
        # the names the question uses must be on the answer's page or a page it links:
        # "the dispatch cutoff at the Dublin hub" is not the Rotterdam hub's
        # (answer6) … not excused by a page named only by the first words of its name: "ship
        # to Singapore" is not said by the Singapore Hub's page when the answer is a product's
        whole_named = {t for n in q.named - getattr(self, "_short_named", set())
                       for t in docs[n].title}
        names = [k for k in (key(w) for w in names_in(question, STOPWORDS | FRAME_WORDS))
                 if k not in whole_named]
        # … and so must a year it names: "the return window in 2031" is a value no source
        # decided, not today's window
        years = [y for y in _YEAR.findall(question) if y not in entity_words]
        names += [y for y in years if y not in names]
        months = _months(question)
        self._names_asked = names
        for e in evid:
            eid = e.claim.subject
            if eid in self._reverse and is_name_claim(e.claim) and not (
                    noun and not set(noun) & set(REVERSE_KINDS)):
                # (answer6) … not when what is asked is an attribute of it ("the *title* of
                # the Harborview contact": its job title, not its name)
                # "our contact at X": the contact page linking to X, by name, when its page
                # says what else the question asks of it ("the *procurement* contact")
                d = docs[eid]
                if not any(t not in REVERSE_KINDS and t not in entity_words
                           and t not in PLAIN_QUALIFIERS and not any(
                               _tf(c, t) for c in (d.title, d.attribute, d.value, d.text))
                           for t in q.terms):
                    e.aspect = 1.0
                continue
            # the answer's page, what the claim links to, and the pages the question names
            # (answer6) a page named only by the first words of its name ("Singapore" of the
            # Singapore Hub) does not vouch for the name on another page's claim
            near_pages = [docs[eid], *(docs[o] for o in sorted(
                {m.entity for m in e.claim.mentions}
                | (q.named - getattr(self, "_short_named", set()))) if o in docs)]
            if any(not any(d.title[n] or d.attribute[n] or d.value[n] or d.text[n]
                           for d in near_pages) for n in names):
                continue
            if e.claim.kind == "statement" and names and self._of_another_name(e.claim, names):
                continue  # (abstain4) "Memphis will hire 12 drivers" does not answer of Joliet
            said = set(_YEAR.findall(f"{e.claim.value} {e.claim.quote}"))
            if e.claim.kind == "statement" and years and (
                    (said and not said & set(years)) or any(
                        y not in said and not docs[eid].title[y] for y in years)):
                continue  # a sentence of its own year: "the 2027 counter-offer" is not 2026's
            if e.claim.kind == "statement" and months:
                stated = _months(f"{e.claim.value} {e.claim.quote}")
                if stated and not stated & months:
                    continue  # (answer6) … nor of its own month: "1,840 issued in October"
            e.aspect = self._aspect(e.claim, q.terms, head, q.weight,
                                    entity_words | set(docs[eid].title), q.wanted, docs[eid],
                                    noun)
            e.slot = self.slot_share(e.claim, [
                t for t in head if t not in entity_words and t not in docs[eid].title
                and t not in _KIND_KEYS and t not in STOPWORDS])
            if e.aspect is not None and noun and e.claim.mentions and e.claim.kind != "statement":
                # "who is the *contractor* on the claim": of a ticket's assignee, reporter and
                # customer, the link to the page that calls itself a contractor ("General
                # contractor for hospitals") is the one asked
                bonus = self._linked_kind(e.claim, noun, docs, q)
                e.context += bonus
                e.aspect += bonus
        self.prefer_the_action(evid, docs)

    @staticmethod
    def _says_named(claim: Claim, asked_names: dict[str, list[str]]) -> bool:
        """(answer6) The claim's own sentence says the name of a page the question names, as
        the question says it ("BrindleTrack locks an account for 30 minutes" is about
        BrindleTrack, though the ticket links no page of it)."""
        if claim.kind != "statement":
            return False  # (a field's quote is its record's text, which may name anything)
        said = set(stems(f"{claim.value} {claim.quote}"))
        return any(words and all(w in said for w in words) for words in asked_names.values())

    def _of_another_name(self, claim: Claim, names: Sequence[str]) -> bool:
        """(abstain4) A sentence that names another name (a word the wiki writes only
        capitalised: a place or thing) and not a name the question asks about: its page may mention
        the asked name elsewhere, but the sentence is about the other one."""
        said = set(stems(f"{claim.value} {claim.quote}")) | set(
            stems(self.titles.get(claim.subject, "")))
        if all(n in said for n in names):
            return False  # (the page's own name says whom its sentences are about)
        # a labelled line's label ("Root cause: …") is no name
        value = re.sub(r"^\s*[^:.]{1,40}:\s", " ", claim.value)
        written = getattr(self, "_names_only", None)
        if written is None:
            written = self._names_only = names_only(self.state)
        return any(w[:1].isupper() and w[1:].islower() and len(w) > 3 and key(w) not in names
                   and w.lower() not in STOPWORDS and written(w.lower())
                   for w in re.findall(r"[A-Za-z]+", value))

    def _word_keys(self, words: Sequence[str]) -> list[str]:
        """Keys of a phrase's words; a hyphenated word ("list-price", "buyer-side") is one
        word of the phrase, matched by its head, its last part (sources tokenise it apart),
        unless the wiki writes it as one word ("cut-off" → "cutoff")."""
        out: list[str] = []
        for w in words:
            parts = [p for p in tokens(w) if p not in STOPWORDS]
            if len(parts) < 2:
                out.append(key(w) if len(tokens(w)) < 2 else key(parts[0]) if parts else key(w))
            elif self._known("".join(parts)):
                out.append(key("".join(parts)))
            else:
                out.append(key(parts[-1]))
        return out

    def _linked_kind(self, claim: Claim, noun: Sequence[str], docs: dict[str, _PageDoc],
                     q: _Clause) -> float:
        """The share of the question's weight the asked head noun has when the claim itself
        does not say it but a page it links to calls itself by it, else 0."""
        own = Counter(stems(claim.value)) + self._attribute_words(claim)
        if any(own[n] for n in noun):
            return 0.0
        for m in claim.mentions:
            d = docs.get(m.entity)
            if d is not None and m.entity not in self._asked_pages and any(
                    d.title[n] or d.text[n] or d.value[n] for n in noun):
                return max((q.weight.get(n, 0.0) for n in noun), default=0.0) / q.total_weight
        return 0.0

    def _decide(self, q: _Clause, result: Retrieval) -> None:
        """Answerable when the best fitting claim (not about another entity, not a near miss)
        covers enough of the question, no family member asked is missing and no name is
        unknown."""
        fit = [e for e in result.claims if not e.doubtful and e.aspect is not None]
        result.coverage = max((e.context for e in fit), default=0.0)
        # a capitalised word the wiki never uses names something it does not know
        result.unknown = unknown_names(q.question, self._known, STOPWORDS | FRAME_WORDS)
        # a question about a member of a family of attributes that the family lacks
        # ("severity 4", "government customers") is not answered by its siblings
        lacking = q.missing - q.present
        best = max(fit, key=lambda e: e.context, default=None)
        if best is not None:
            # a family on a page neither the answer's nor named by the question, of which the
            # question says one word, lacks nothing it asks ("on what date does the X
            # agreement come up for renewal" is not a member missing from a linked deal's
            # close/create dates, "a Gold account's stand-in device" not one missing from
            # every account's manager/type)
            # (a page named only inside another's name, the account of "the <account> Kora
            # pilot", is not asked a member of its families)
            lacking = {m for m in lacking if (m[0] in q.named and not self.named_inside(m[0]))
                       or m[0] == best.claim.subject or m in q.named_family}
            # … nor a family whose member the answer is ("the expected *close date* of the X
            # pilot" is answered by the deal's close date, whatever date its account lacks)
            if best.claim.kind in ("field", "fact") and not best.doubtful:
                lacking = {m for m in lacking if not _one_word_apart(m[1], best.claim.attribute)}
        result.answerable = (result.coverage >= MIN_COVERAGE and not lacking
                             and not result.unknown)


_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
# (answer6) a month by name ("may" only capitalised: "it may be"), or in an ISO date's place
_MONTH_NAMES = ("january february march april may june july august september october november "
                "december").split()
_MONTH = re.compile(r"\b(?:(jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?|(May))\b"
                    r"|\b\d{4}-(\d\d)-\d\d\b", re.I)


def _months(text: str) -> set[int]:
    """The months a text names (1-12)."""
    out: set[int] = set()
    for m in _MONTH.finditer(text):
        word, may, iso = m.group(1), m.group(2), m.group(3)
        if iso:
            out.add(int(iso))
        elif may:
            if may == "May":
                out.add(5)
        else:
            said = m.group(0).lower().rstrip(".")
            out.update(i + 1 for i, n in enumerate(_MONTH_NAMES) if n.startswith(said))
    return out
_OUR = re.compile(r"\b(?:our|my|your)\b", re.I)  # … nor "what's *our* X" the phrase
_PER_TAIL = re.compile(r"\s+(?:per|an|a)\s+[a-z]+\s*\??\s*$", re.I)


def _one_word_apart(a: str, b: str) -> bool:
    """Two attributes of one family: as many words, differing in exactly one ("close date",
    "create date")."""
    x, y = [key(t) for t in tokens(a)], [key(t) for t in tokens(b)]
    return len(x) == len(y) >= 2 and sum(p != q for p, q in zip(x, y)) == 1


# the page types an anaphor's noun names ("that *company*", "the *deal*'s")
_KIND_TYPES = {key(w): frozenset(types.split()) for words, types in (
    ("company companies customer customers account accounts client clients firm organisation "
     "organization district", "account company organization organisation customer"),
    ("deal deals opportunity opportunities", "opportunity deal"),
    ("product products device devices", "product"),
    ("ticket tickets issue issues case", "ticket issue"),
    ("contact contacts person", "contact person"),
    ("policy", "policy")) for w in words.split()}

_KEEP = 0.5  # a clause's claim kept beside its best one scores at least this share of it …
_CLOSE = 0.9  # … and covers at least this share of what the best covers


_NO_APOSTROPHE = re.compile(r"\b(what|who|where|how|when|which)s\b", re.I)
_BETTER = 0.2  # a clause read without its anaphor must fit this much better to be preferred


def _fit(r: Retrieval) -> float:
    """How well a clause's best answering claim covers it (0 when it is not answerable)."""
    return max((e.context for e in _answering(r)), default=0.0)


def _answering(r: Retrieval) -> list[Evidence]:
    """A clause's evidence that answers it: claims judged to answer (not doubtful), each
    scoring and covering at least half of the best one's; none of an unanswerable clause."""
    if not r.answerable:
        return []
    fit = [e for e in r.claims if not e.doubtful and e.aspect is not None]
    if not fit:
        return []
    best = max(fit, key=lambda e: (e.slot >= 1.0, e.context))
    # … beside it only claims about as good: one clause, one answer, not its neighbours
    keep = [best, *(e for e in fit if e is not best and e.score >= _KEEP * best.score
                    and e.context >= _CLOSE * best.context)]
    return keep[:3]


# "which <role> <verb>s …": a kind of person (its head noun one naming a role) doing something
_ROLE_VERB = re.compile(
    r"^\s*(?:which|what)\s+(?:[\w-]+\s+){0,3}?(?:manager|lead|leader|owner|rep|representative|"
    r"engineer|officer|contact|person|agent|administrator|admin|director|head|coordinator|"
    r"specialist|executive|consultant|advisor|adviser|planner|buyer|employee|colleague)s?\s+"
    r"(?!is\b|are\b|was\b|were\b|do\b|does\b|did\b|has\b|have\b|can\b|will\b)"
    r"(?P<verb>[a-z]+(?:s|ed))\b(?P<rest>.*)$", re.I | re.S)


@dataclass
class _Clause:
    """One clause being retrieved: its terms and their weights, its candidate pages ranked,
    and the attribute families it asks a member of."""

    question: str
    terms: list[str]
    docs: dict[str, _PageDoc]
    weight: dict[str, float]
    total_weight: float
    links: dict[str, set[str]]
    page_score: dict[str, float]
    ranked: list[str]
    named: set[str]
    wanted: re.Pattern | None
    missing: set[tuple[str, str]] = field(default_factory=set)
    named_family: set[tuple[str, str]] = field(default_factory=set)
    present: set[tuple[str, str]] = field(default_factory=set)
    action_object: frozenset[str] = frozenset()  # "return *a product*": part of the action


def retrieve(state: State, question: str, who: Principal | None, k_pages: int = 5,
             k_claims: int = 12) -> Retrieval:
    return Retriever(state, who).retrieve(question, k_pages, k_claims)

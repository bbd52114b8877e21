"""Retrieval: which pages and claims answer a question, or that none does.

Pure ranking over what the compile state holds, as one principal may see it:

1. candidates come from the state's full-text indexes (claims, and source record text when the
   site kept it), matched on word stems as prefixes, so "refunds", "refunded" and "refund"
   meet;
2. each candidate page is scored with BM25 over fields (title and aliases weigh most, then
   claim attributes and values, then quotes and record text), each candidate claim with BM25
   over its own fields plus its page's name; a page also gains a share of the score of pages
   it links to or is linked from (wikilinks and shared entities), so that a question spanning
   two pages finds both;
3. a question is answered only when a claim covers what it asks, not only whom it is about
   (compiler/answers/coverage.py: the asked aspect and head, the answer type, the names it
   uses), and that claim covers enough of the question's weight (IDF-weighted share of its
   content words found in the claim and its page's name; benchmarks/answer_bench.py).

Nothing here is tuned to one corpus: stems, stop words of questions and an alias lookup of the
question's phrases (so "Platform Engineering" finds the Platform Team page) are generic.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .answers.coverage import (KIND_WORDS, asked_head, attribute_vocabulary, names_an_agent,
                               value_names_an_agent, digits as _digits,
                               head_phrase, keyword_query, measured_subject, names_in, share, typed_as,
                               unknown_names, wiki_schema_groups)
from .answers.lexicon import ATTRIBUTE_GROUPS
from .answers.lexicon import PHRASES as LEXICON_PHRASES, SYNONYM_GROUPS as LEXICON_GROUPS
from .models import ACL, Claim, Principal
from .state import State
from .text import name_key

# question words, auxiliaries, pronouns and fillers: they say what kind of answer is wanted,
# never which page has it
STOPWORDS = frozenset(
    """a an the is are was were be been being am what which who whom whose when where why how
    do does did done doing of for to in on at by with from about as and or not no nor our your
    their its it this that these those there here can could should would will shall may might
    must i we you they he she me us him her them my mine his hers ours yours theirs tell please
    give show much many any some know find out get got have has had into onto than then so if
    also just there's what's who's it's let lets need want wants like over under per via
    anyone someone something anything thing things kind sort one ones each every all once
    ever still already yet now today after before during since until""".split()
)
# words that say how a question is asked ("how long does it take", "how quickly"), never what
# it is about: a source rarely uses them, and they must not make a question look unanswerable
FRAME_WORDS = frozenset(
    """long quick quickly soon often take takes took taken taking happen happens happened
    involved involve exactly currently usually typically normally generally based allowed able
    supposed called named say says said mean means go goes going use used using expected
    expect expecting likely set""".split()
)
# A few groups of everyday business synonyms (generic, no corpus's own vocabulary): a
# question's word also matches the others of its group, at a discount.
SYNONYM_GROUPS = (
    "cost price pricing fee charge", "client customer", "login logon signin sign sso",
    "boss manager head lead run", "employee staff headcount worker workforce",
    "deal opportunity", "refund reimbursement reimburse", "fail failure error broken",
    "outage incident downtime", "begin start effective", "owner owns responsible",
    "bug defect", "contract agreement", "firm company organisation organization",
    "cancel terminate", "deliver ship send", "phone telephone", "email mail",
    "salary pay compensation", "guarantee warranty", "size amount",
    "approve approval sign-off signoff authorise authorize",
    "limit cap maximum max ceiling", "allowance stipend budget", "day daily", "week weekly",
    "month monthly", "year annual yearly", "night nightly", "hour hourly",
    "food meal", "travel trip journey", "keep retain retention store",
    "supplier supply provider vendor", "old age", "kilometre kilometer km",
    "kilogram kilo kg", "mile mileage", "minute min", "quantity qty", "number count",
    "remote home", "open opening", "closed close", "phone extension",
    "sev severity", "react respond response reply", "sector industry vertical",
    "guarantee warranty cover coverage", "uptime availability sla",
    "datacenter datacentre region centre center", "percent percentage",
    "deadline window", "equipment device hardware", "catalogue catalog sku code",
    "position title role job", "revenue sales turnover", "worth amount value",
    "plan tier level subscription", "loaner replacement substitute",
    *LEXICON_GROUPS,
)
# multi-word phrases of questions rewritten to the word sources use
PHRASES = (
    (re.compile(r"\bin charge of\b", re.I), "manager of"),
    (re.compile(r"\bresponsible for\b", re.I), "owner of"),
    (re.compile(r"\bhow many people\b", re.I), "number of employees"),
    (re.compile(r"\bsign[- ]?in\b|\blog[- ]?in\b", re.I), "login"),
    (re.compile(r"\b(send|bring|give|ship|take)s? (\w+ ){0,3}?back\b", re.I), "return"),
    (re.compile(r"\bline of business\b", re.I), "industry"),
    (re.compile(r"\bstand[- ]in\b", re.I), "replacement"),
    *LEXICON_PHRASES,
)
_TOKEN = re.compile(r"[^\W_]+(?:[.,][0-9]+)*")
KEY_LEN = 6  # stems are compared on their first 6 characters: response/respond, warranty/-ies

K1, B = 1.2, 0.75
# field weights (BM25F): a page's name says what it is about; attributes and values are what it
# states; quotes and raw text repeat the values among other words
PAGE_FIELDS = {"title": 3.0, "attribute": 1.5, "value": 1.5, "text": 0.6}
CLAIM_FIELDS = {"attribute": 2.0, "value": 2.0, "quote": 1.0, "name": 1.0}
LINK_SHARE = 0.25  # share of a linked page's score a page gains
PAGE_IN_CLAIM = 0.35  # share of its page's score added to a claim's own
PAGE_CONTEXT = 0.5  # share of its page's coverage of the question a claim is credited with
CONTEXT_SCORE = 0.5  # a typed claim on a top page scores at least this share of its best
# abstain when the best claim with its page's name covers less of the question than this
MIN_COVERAGE = 0.2
# … or when no claim covers this share of the asked aspect (the question's words but its
# entity's name: compiler/answers/coverage.py)
MIN_ASPECT = 0.01
MIN_ASPECT_STATEMENT = 0.5
_CLAIM_CANDIDATES = 1500
_PAGE_CANDIDATES = 120  # pages scored in full: those of the best-matching claims
_RECORD_CANDIDATES = 200


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English stemmer (plural, past, gerund, adverb, common derivations): enough for
    question and source words to meet; applied alike to both sides, so over-stemming is
    harmless as long as it is consistent."""
    w = word.lower()
    if len(w) <= 3 or w.isdigit():
        return w
    for suf, rep in (("ational", "ate"), ("ization", "ize"), ("fulness", "ful"),
                     ("iveness", "ive"), ("ousness", "ous"), ("ements", ""), ("ement", ""),
                     ("ments", ""), ("ment", ""), ("ations", "ate"), ("ation", "ate"),
                     ("ities", ""), ("ity", ""), ("ingly", ""), ("edly", ""), ("ings", ""),
                     ("ing", ""), ("ied", "y"), ("ies", "y"), ("ed", ""), ("ly", ""), ("ers", ""),
                     ("er", ""),
                     ("sses", "ss"), ("es", ""), ("s", "")):
        if w.endswith(suf) and len(w) - len(suf) + len(rep) >= 3:
            if suf == "s" and w.endswith(("ss", "us", "is")):
                continue
            if suf == "es" and not w.endswith(("ches", "shes", "xes", "zes", "sses", "oes")):
                w = w[:-1]  # "fees" -> "fee", "policies" handled above, "rates" -> "rate"
                break
            w = w[: len(w) - len(suf)] + rep
            break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]  # "rate"/"rat", "fee"/"fe": both sides alike
    if len(w) > 3 and w.endswith("y"):
        w = w[:-1] + "i"
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]  # "shipped" -> "shipp" -> "ship"
    return w


@lru_cache(maxsize=65536)
def key(word: str) -> str:
    """What two words are compared by: the stem's first :data:`KEY_LEN` characters."""
    return stem(word)[:KEY_LEN]


def _synonyms() -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for group in SYNONYM_GROUPS:
        keys = {key(w) for w in group.replace("-", "").split()}
        for k in keys:
            out.setdefault(k, set()).update(keys - {k})
    return {k: frozenset(v) for k, v in out.items()}


SYNONYMS = _synonyms()


def _groups(groups: Iterable[str]) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for group in groups:
        keys = {key(w) for w in group.split()}
        for k in keys:
            out.setdefault(k, set()).update(keys - {k})
    return {k: frozenset(v) for k, v in out.items()}


ATTRIBUTE_SYNONYMS = _groups(ATTRIBUTE_GROUPS)
_KIND_KEYS = {key(w): shape for w, shape in KIND_WORDS.items()}
SYNONYM_WEIGHT = 0.7


def tokens(text: str) -> list[str]:
    """Lower-cased words and numbers ("1,500", "2.5" stay whole; "$49" is "49")."""
    return [t.replace(",", "") for t in _TOKEN.findall(text.lower())]


def stems(text: str, drop_stopwords: bool = False) -> list[str]:
    out = []
    for t in tokens(text):
        if drop_stopwords and (t in STOPWORDS or t in FRAME_WORDS
                               or (len(t) < 2 and not t.isdigit())):
            continue
        out.append(key(t))
    return out


def _rewrite(question: str) -> str:
    for pattern, repl in PHRASES:
        question = pattern.sub(repl, question)
    return question


def question_terms(question: str) -> list[str]:
    """Content keys of the question, in order, once each."""
    return list(dict.fromkeys(stems(_rewrite(question), drop_stopwords=True)))


def _fts_term(term: str) -> str:
    # a key as a prefix query: "refund" matches refunds, refunded, refundable; a key whose
    # stem rewrote the word's ending ("polici" of policy) is cut back to a true prefix
    if term.isdigit():
        return '"' + term + '"'
    if len(term) > 3 and term[-1] in "ie":  # "citi" of city is "cit*"
        term = term[:-1]
    return '"' + term.replace('"', '""') + '"*'


def expand(terms: Sequence[str]) -> list[str]:
    """The terms with their synonyms (for finding candidates)."""
    return list(dict.fromkeys([*terms, *(a for t in terms for a in sorted(SYNONYMS.get(t, ())))]))


def _bm25(tf: float, df: int, n: int, dl: float, avgdl: float) -> float:
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    return idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / max(avgdl, 1e-9)))


def idf(df: int, n: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


@dataclass
class Evidence:
    claim: Claim
    status: str
    score: float
    coverage: float  # share of the question's weight the claim (and its page's name) covers
    context: float = 0.0  # … counting part of what the rest of its page covers
    doubtful: bool = False  # about another entity than the question names, or a near miss
    aspect: float | None = None  # share of the asked aspect it covers; None: not an answer


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


@dataclass
class _PageDoc:
    title: Counter
    attribute: Counter
    value: Counter
    text: Counter
    length: float
    claims: list[tuple[Claim, str]]


class _Attribute(Counter):
    """An attribute's words, and the lexicon's words for them (``aliases``), which match a
    question's word itself only: "owner" asks an account manager, but "lead" (a synonym of
    manager) does not ask a product owner."""

    aliases: frozenset[str] = frozenset()


def _tf(counts: Counter, term: str) -> float:
    """A term's frequency, its synonyms counting at a discount."""
    tf = float(counts[term])
    if not tf and term in getattr(counts, "aliases", ()):
        return 1.0
    for alt in SYNONYMS.get(term, ()):
        if counts[alt]:
            tf += SYNONYM_WEIGHT * counts[alt]
    return tf


def attribute_text(claim: Claim) -> str:
    """The attribute with its qualifiers (the schema layer's): "return window customer tier
    Enterprise"."""
    quals = getattr(claim, "qualifiers", None) or {}
    return " ".join([claim.attribute, *(f"{k} {v}" for k, v in sorted(quals.items()))])


_GLUED = 8  # a field name this long without a space may be words glued together


@lru_cache(maxsize=16384)
def _glued_parts(word: str) -> tuple[str, ...]:
    """Keys of the pieces of a glued field name ("dealstage", "closedate",
    "numberofemployees" from CRM APIs): every split into two pieces of 4+ characters. Most are
    not words; they cost nothing unless a question uses them."""
    out = []
    for i in range(4, len(word) - 3):
        out += [key(word[:i]), key(word[i:])]
    return tuple(dict.fromkeys(out))


def _attribute_counter(parts: Iterable[str]) -> Counter:
    c: Counter = Counter()
    for p in parts:
        for t in tokens(p):
            c[key(t)] += 1
            if len(t) >= _GLUED and t.isalpha():
                c.update(_glued_parts(t))
    return c


def _counter(parts: Iterable[str]) -> Counter:
    c: Counter = Counter()
    for p in parts:
        c.update(stems(p))
    return c


class Retriever:
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
        # the wiki's merged schema (base + the corpus's schema.yaml), as its SCHEMA.md says
        self.schema_words = wiki_schema_groups(_schema_page(state))

    # -- statistics ------------------------------------------------------------------------
    def _df_of(self, kind: str, term: str) -> int:
        key = (kind, term)
        if key not in self._df:
            m = _fts_term(term)
            if kind == "page":
                q = "SELECT count(DISTINCT subject) FROM claims_fts WHERE claims_fts MATCH ?"
            elif kind == "claim":
                q = "SELECT count(*) FROM claims_fts WHERE claims_fts MATCH ?"
            else:
                q = "SELECT count(*) FROM records_fts WHERE records_fts MATCH ?"
            try:
                self._df[key] = self.state.db.execute(q, (m,)).fetchone()[0]
            except Exception:  # noqa: BLE001 - a term FTS5 cannot parse matches nothing
                self._df[key] = 0
        return self._df[key]

    # -- candidates ------------------------------------------------------------------------
    def _alias_pages(self, question: str) -> set[str]:
        """Pages whose name or alias is a phrase of the question (1-5 words)."""
        words = tokens(question)
        hits: set[str] = set()
        for n in range(5, 0, -1):
            for i in range(len(words) - n + 1):
                phrase = words[i:i + n]
                if n == 1 and (phrase[0] in STOPWORDS or len(phrase[0]) < 3):
                    continue
                eid = self.state.lookup_name(name_key(" ".join(phrase)), None)
                if eid:
                    hits.add(eid)
        return hits

    def _candidates(self, terms: Sequence[str], question: str) -> tuple[set[str], dict[str, str]]:
        match = " OR ".join(_fts_term(t) for t in expand(terms))
        subjects: set[str] = set()
        record_text: dict[str, str] = {}
        try:
            for (subject,) in self.state.db.execute(
                    "SELECT subject FROM claims_fts WHERE claims_fts MATCH ? "
                    "ORDER BY bm25(claims_fts, 0, 0, 2.0, 4.0, 2.0, 1.0) LIMIT ?",
                    (match, _CLAIM_CANDIDATES)):
                subjects.add(subject)
                if len(subjects) >= _PAGE_CANDIDATES:
                    break
            for key, text in self.state.db.execute(
                    "SELECT key, text FROM records_fts WHERE records_fts MATCH ? "
                    "ORDER BY bm25(records_fts) LIMIT ?", (match, _RECORD_CANDIDATES)):
                record_text[key] = text
        except Exception:  # noqa: BLE001 - malformed FTS query: fall back to names only
            pass
        self._named = self._alias_pages(question)
        subjects |= self._named
        return subjects, record_text

    def _records_of(self, keys: Sequence[str]) -> dict[str, tuple[str, ACL]]:
        out: dict[str, tuple[str, ACL]] = {}
        for i in range(0, len(keys), 500):
            chunk = list(keys[i:i + 500])
            q = (f"SELECT key, entity_id, json_extract(record_json, '$.acl') FROM records "
                 f"WHERE key IN ({','.join('?' * len(chunk))})")
            for key, eid, acl in self.state.db.execute(q, chunk):
                out[key] = (eid, ACL.model_validate(json.loads(acl)) if acl else ACL())
        return out

    def _page_docs(self, subjects: set[str], record_text: dict[str, str]
                   ) -> dict[str, _PageDoc]:
        who = self.who
        ids = sorted(subjects)
        claims_of: dict[str, list[tuple[Claim, str]]] = {}
        for i in range(0, len(ids), 200):
            chunk = ids[i:i + 200]
            from .state import _FULL_JSON, _WITH_RECORD

            q = (f"SELECT c.subject, {_FULL_JSON}, c.status FROM {_WITH_RECORD} "
                 f"WHERE c.subject IN ({','.join('?' * len(chunk))})")
            for subject, js, status in self.state.db.execute(q, chunk):
                claim = Claim.model_validate_json(js)
                if claim.acl.allows(who):
                    claims_of.setdefault(subject, []).append((claim, status))
        if who is not None:
            # names as the principal knows them (compiler/views.py): a page that does not
            # exist for them is no candidate, whatever claims of it they may see
            from .views import visible_names

            known = visible_names(self.state, set(claims_of), who)
            claims_of = {e: c for e, c in claims_of.items() if e in known}
        visible = set(claims_of)
        decls = self.state.declarations_of_entities(sorted(visible))
        entities = {eid: self.state.entity(eid) for eid in visible}
        texts: dict[str, list[str]] = {}
        for key, (eid, acl) in self._records_of(sorted(record_text)).items():
            if eid in visible and acl.allows(who):
                texts.setdefault(eid, []).append(record_text[key])
        docs: dict[str, _PageDoc] = {}
        for eid, claims in claims_of.items():
            keys = {c.source.key for c, _ in claims}
            names: list[str] = []
            for d in decls.get(eid, []):
                if who is None or d.record_key in keys:
                    names += [d.name, *d.aliases]
            ent = entities.get(eid)
            if not names and ent is not None and who is None:
                names = [ent.name, *ent.aliases]
            if not names:
                continue  # a page whose name only hidden records give does not exist for who
            self.titles[eid] = names[0]
            title = _counter(dict.fromkeys(names))
            attribute = _attribute_counter(attribute_text(c) for c, _ in claims
                                           if c.kind != "statement")
            value = _counter(c.value for c, _ in claims)
            text = _counter([*(c.quote for c, _ in claims if c.kind != "statement"),
                             *texts.get(eid, [])])
            length = sum(PAGE_FIELDS[f] * sum(cnt.values()) for f, cnt in
                         (("title", title), ("attribute", attribute), ("value", value),
                          ("text", text)))
            docs[eid] = _PageDoc(title, attribute, value, text, length, claims)
        return docs

    # -- ranking ---------------------------------------------------------------------------
    def retrieve(self, question: str, k_pages: int = 5, k_claims: int = 12) -> Retrieval:
        """A question of several clauses ("who …, and what …?") is retrieved clause by
        clause: it is answerable when every clause is, and its evidence interleaves theirs."""
        parts = split_question(question)
        if len(parts) < 2:
            return self._retrieve(question, k_pages, k_claims)
        subs: list[Retrieval] = []
        for p in parts:
            if subs and _ANAPHOR.search(p) and not self._alias_pages(p):
                # "…, and what is *that product's* code?": the thing an earlier clause named
                # or answered with
                sub = None
                antecedent = self._antecedent(subs[-1])
                if antecedent:
                    sub = self._retrieve(_ANAPHOR.sub(antecedent, p, count=1), k_pages, k_claims)
                value = self._answer_value(subs[-1])
                if (sub is None or not sub.answerable) and value:
                    # "which tier does X have, and how fast must an engineer reach *them*?":
                    # them are a customer of the tier the earlier clause answered
                    by_value = self._retrieve(_ANAPHOR.sub(value, p, count=1), k_pages,
                                              k_claims)
                    if by_value.answerable or sub is None:
                        sub = by_value
                subs.append(sub if sub is not None else self._retrieve(p, k_pages, k_claims))
                continue
            subs.append(self._retrieve(p, k_pages, k_claims))
        merged = Retrieval(question=question, terms=list(dict.fromkeys(
            t for r in subs for t in r.terms)), titles=self.titles)
        for r in subs:
            merged.titles.update(r.titles)
        merged.pages = _interleave([r.pages for r in subs], lambda h: h.page)[:k_pages]
        merged.claims = _interleave([r.claims for r in subs], lambda e: e.claim.id)[:k_claims]
        merged.coverage = min(r.coverage for r in subs)
        merged.clauses = len(subs)
        merged.answerable = all(r.answerable for r in subs)
        return merged

    def _antecedent(self, r: Retrieval) -> str:
        """What a later clause's "it", "them", "that account" refers to: the page an earlier
        clause's answer links to ("which product does the renewal cover" → the product), or
        else the page it named."""
        if r.answerable and r.claims:
            best = r.claims[0].claim
            for m in best.mentions:
                if m.entity in self.titles:
                    return self.titles[m.entity]
            # a value answered: the clause was about the page that holds it ("what is the X
            # deal worth, and which device is *it* for")
            if best.kind != "statement" and best.subject in self.titles:
                return self.titles[best.subject]
        # the most specific page the clause named ("Polaris Pharma - Mira Fleet Upgrade", not
        # "Polaris Pharma" inside it)
        named = sorted((n for n in self._named_of(r) if n in self.titles),
                       key=lambda n: (-len(self.titles[n]), n))
        return self.titles[named[0]] if named else ""

    @staticmethod
    def _answer_value(r: Retrieval) -> str:
        """The short value an earlier clause answered with ("Platinum"), or ""."""
        if not (r.answerable and r.claims):
            return ""
        best = r.claims[0].claim
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
        terms = question_terms(question)
        result = Retrieval(question=question, terms=terms, titles=self.titles)
        if not terms:
            return result
        subjects, record_text = self._candidates(terms, question)
        docs = self._page_docs(subjects, record_text)
        if not docs:
            return result
        page_idf = {t: idf(min(self._df_of("page", t), self.n_pages), self.n_pages)
                    for t in terms}
        claim_df = {t: self._df_of("claim", t) for t in terms}
        # a word the wiki never uses weighs as much as the rarest one it does
        weight = {t: page_idf[t] if self._df_of("page", t) or self._df_of("record", t)
                  else idf(0, self.n_pages) for t in terms}
        total_weight = sum(weight.values()) or 1.0

        avg_page = sum(d.length for d in docs.values()) / len(docs)
        base: dict[str, float] = {}
        for eid, d in docs.items():
            s = 0.0
            for t in terms:
                tf = (PAGE_FIELDS["title"] * _tf(d.title, t)
                      + PAGE_FIELDS["attribute"] * _tf(d.attribute, t)
                      + PAGE_FIELDS["value"] * _tf(d.value, t) + PAGE_FIELDS["text"] * _tf(d.text, t))
                if tf:
                    s += page_idf[t] * tf * (K1 + 1) / (
                        tf + K1 * (1 - B + B * d.length / max(avg_page, 1e-9)))
            base[eid] = s
        links = self._links(set(docs))
        page_score = {eid: base[eid] + LINK_SHARE * max((base.get(o, 0.0) for o in links.get(eid, ())),
                                                        default=0.0)
                      for eid in docs}
        ranked_pages = sorted(docs, key=lambda e: (-page_score[e], e))
        result.pages = [PageHit(e, self.titles[e], page_score[e]) for e in ranked_pages
                        if page_score[e] > 0][:k_pages]

        evid: list[Evidence] = []
        lengths: list[float] = []
        rows = []
        for eid, d in docs.items():
            for claim, status in d.claims:
                fields = {"attribute": self._attribute_words(claim)
                          if claim.kind != "statement"
                          else Counter(),
                          "value": Counter(stems(claim.value)),
                          "quote": Counter(stems(claim.quote)) if claim.kind != "statement"
                          else Counter(),
                          "name": d.title}
                dl = sum(CLAIM_FIELDS[f] * sum(c.values()) for f, c in fields.items()
                         if f != "name")
                rows.append((eid, claim, status, fields, dl))
                lengths.append(dl)
        avg_claim = sum(lengths) / max(len(lengths), 1)
        wanted = answer_type(question)
        # "how many" counts things: a price is a number but not a count of anything
        self._asks_who = bool(_WHO.search(question))
        self._asked_pages = set(self._named)
        self._counting = bool(_HOW_MANY.search(question)) and wanted is _TYPES[2][1]
        measured = measured_subject(_rewrite(question), STOPWORDS | FRAME_WORDS)
        self._measured = (("" if not measured[0] else (_noun_keys(measured[0]) or ("",))[-1],
                           key(measured[1])) if measured else None)
        top_page = max(page_score.values()) or 1.0
        # what the rest of a page covers, numbers excepted: "severity 4" is not answered by a
        # claim about severity 2 on a page that mentions "4 hours" elsewhere
        page_cov = {eid: sum(weight[t] for t in terms if not t.isdigit() and any(
            _tf(c, t) for c in (d.title, d.attribute, d.value, d.text))) / total_weight
            for eid, d in docs.items()}
        near = set(ranked_pages[:3])
        scored = []
        best_on_page: dict[str, float] = {}
        for eid, claim, status, fields, dl in rows:
            s = 0.0
            covered = 0.0
            for t in terms:
                tf = sum(CLAIM_FIELDS[f] * _tf(fields[f], t) for f in fields)
                if tf:
                    s += _bm25(tf, min(claim_df[t], self.n_claims), self.n_claims, dl, avg_claim)
                    exact = any(fields[f][t] for f in fields)
                    covered += weight[t] * (1.0 if exact else SYNONYM_WEIGHT)
            best_on_page[eid] = max(best_on_page.get(eid, 0.0), s)
            scored.append((eid, claim, status, s, covered / total_weight))
        # pages the question names (by name or alias) and their neighbours: an answer about
        # another entity is not an answer ("warranty of Acme Analytics" is not Acme Edge's)
        named = self._named & set(docs)
        around = named | {o for n in named for o in links.get(n, ())}
        # a page whose name holds a named page's name is about it ("Globex - Edge Expansion")
        asked_names = {n: [t for t in docs[n].title if t in terms] for n in named}
        named_in_title = {eid for eid, d in docs.items() for n, words in asked_names.items()
                          if words and all(d.title[t] for t in words)}
        qset = set(terms)
        missing: set[tuple[str, str]] = set()
        named_family: set[tuple[str, str]] = set()
        present: set[tuple[str, str]] = set()
        for eid, claim, status, s, cov in scored:
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
            off_entity = bool(named) and eid not in named and not any(
                m.entity in named for m in claim.mentions) and eid not in named_in_title
            if named:
                s *= ENTITY_BOOST if eid in named else 1.0 if eid in around else ENTITY_MISS
            miss = _near_miss(claim, docs[eid].claims, qset)
            if miss:
                s *= NEAR_MISS
                if _asks_missing_slot(claim, qset):
                    missing.add((eid, claim.attribute))
                    # the question says two or more of the family's words ("return window",
                    # "severity … response time"): it asks for a member wherever the family is
                    if sum(w in qset for w in set(stems(claim.attribute, True))) >= 2:
                        named_family.add((eid, claim.attribute))
            elif claim.kind in ("field", "fact"):
                present.add((eid, claim.attribute))  # e.g. the member with the asked qualifier
            # coverage first: a claim that answers the whole question beats one that
            # repeats a few of its words often
            evid.append(Evidence(claim, status, s * (0.2 + ctx) ** 2
                                 + PAGE_IN_CLAIM * page_score[eid] / top_page * s, cov, ctx,
                                 off_entity or miss))
        order = {"winner": 0, "contested": 1, "overruled": 2}
        evid.sort(key=lambda e: (-e.score, order.get(e.status, 3), e.claim.id))
        # evidence that covers what is asked (not only whom it is about) comes first, and only
        # such evidence answers (compiler/answers/coverage.py)
        entity_words = {t for n in named for t in docs[n].title}
        head = ([*terms] if keyword_query(question) else
                [key(w) for w in asked_head(_rewrite(question), STOPWORDS | FRAME_WORDS)])
        # the head noun of what is asked, the last word of its noun phrase, but not the
        # entity's name: "oven *temperature*" is not answered by an oven count
        # ("how many pallet spaces": what is counted, not the attribute, so not there)
        phrase = [w for w in head_phrase(_rewrite(question), STOPWORDS | FRAME_WORDS,
                                         keyword_query(question))
                  if not all(key(t) in entity_words for t in tokens(w))]
        while len(phrase) > 1 and phrase[-1] in GENERIC_HEADS:
            phrase = phrase[:-1]  # "the return authorisation *step*": the step is what it names
        noun = _noun_keys(phrase[-1]) if phrase and not _COUNTED.search(question) else ()
        # the names the question uses must be on the answer's page or a page it links:
        # "the dispatch cutoff at the Dublin hub" is not the Rotterdam hub's
        names = [k for k in (key(w) for w in names_in(question, STOPWORDS | FRAME_WORDS))
                 if k not in entity_words]
        for e in evid[:k_claims * 2]:
            eid = e.claim.subject
            near_pages = [docs[eid], *(docs[o] for o in links.get(eid, ()) if o in docs)]
            if any(not any(d.title[n] or d.attribute[n] or d.value[n] or d.text[n]
                           for d in near_pages) for n in names):
                continue
            e.aspect = self._aspect(e.claim, terms, head, weight,
                                    entity_words | set(docs[eid].title), wanted, docs[eid],
                                    noun)
        evid[:k_claims * 2] = sorted(evid[:k_claims * 2], key=lambda e: e.aspect is None)
        result.claims = evid[:k_claims]
        fit = [e for e in result.claims if not e.doubtful and e.aspect is not None]
        result.coverage = max((e.context for e in fit), default=0.0)
        # a capitalised word the wiki never uses names something it does not know
        result.unknown = unknown_names(question, self._known, STOPWORDS | FRAME_WORDS)
        # a question about a member of a family of attributes that the family lacks
        # ("severity 4", "government customers") is not answered by its siblings
        lacking = missing - present
        best = max(fit, key=lambda e: e.context, default=None)
        if best is not None:
            # a family on a page neither the answer's nor named by the question, of which the
            # question says one word, lacks nothing it asks ("on what date does the X
            # agreement come up for renewal" is not a member missing from a linked deal's
            # close/create dates, "a Gold account's stand-in device" not one missing from
            # every account's manager/type)
            lacking = {m for m in lacking if m[0] in named or m[0] == best.claim.subject
                       or m in named_family}
        result.answerable = (result.coverage >= MIN_COVERAGE and not lacking
                             and not result.unknown)
        return result

    def _attribute_words(self, claim: Claim) -> Counter:
        """A claim's attribute as it is matched: its words with its qualifiers, the source's
        field name or label ("Warranty_Months__c"), and the schema's words for the attribute
        (the base schema's and the wiki's own phrases: *battery runtime* is also "battery
        life" where the corpus's schema.yaml says so), each once."""
        c = _Attribute(_attribute_counter([attribute_text(claim), claim.field or ""]))
        for k in attribute_vocabulary(claim.attribute, key, self.schema_words):
            c[k] = c[k] or 1
        # … and the lexicon's words for those words ("life" for a runtime, "owner" for a
        # manager), matched by the question's own word only
        c.aliases = frozenset(alt for k in c for alt in ATTRIBUTE_SYNONYMS.get(k, ())) - set(c)
        return c

    def _schema_words_of(self, claim: Claim) -> frozenset[str]:
        """The schema's words (not keys) for a claim's attribute: the base schema's and the
        wiki's own phrases."""
        from .schema.keys import attr_key

        from .answers.coverage import schema_groups

        k = attr_key(claim.attribute)
        return frozenset(schema_groups().get(k, ())) | frozenset(self.schema_words.get(k, ()))

    def _known(self, word: str) -> bool:
        k = key(word)
        return bool(self._df_of("page", k) or self._df_of("record", k))

    def _aspect(self, claim: Claim, terms: Sequence[str], head: Sequence[str],
                weight: dict[str, float], entity: set[str],
                wanted: re.Pattern | None, page: _PageDoc | None = None,
                noun: Sequence[str] = ()) -> float | None:
        """The share of the question's aspect (its words but its entity's name) this claim
        covers, or None when it does not answer what is asked: too little of the aspect, less
        than half of the asked head, or a statement without a value of the asked type."""
        if says_nothing(claim):
            return None
        statement = claim.kind == "statement"
        fields = [Counter(stems(claim.value))]
        if not statement:
            # the attribute with its qualifiers and the source's own field name or label
            # ("Warranty_Months__c", "numberofemployees")
            fields += [self._attribute_words(claim), Counter(stems(claim.quote))]
        vocab = (attribute_vocabulary(claim.attribute, key, self.schema_words)
                 if not statement else frozenset())

        def covered(t: str) -> float:
            if any(f[t] or t in getattr(f, "aliases", ()) for f in fields) or t in vocab:
                return 1.0
            if any(f[a] for f in fields for a in SYNONYMS.get(t, ())) or (
                    SYNONYMS.get(t, frozenset()) & vocab):
                return SYNONYM_WEIGHT
            shape = _KIND_KEYS.get(t)
            return 1.0 if shape is not None and (shape.search(_digits(claim.value)) or typed_as(
                shape, claim.value_type)) else 0.0

        aspect = [t for t in terms if t not in entity]
        got = share(aspect, covered, lambda t: weight.get(t, 1.0))
        if (page is not None and not statement and wanted is not None
                and _shaped(wanted, claim.value, claim.value_type)):
            # a value of the asked type is read in the context of its page: "how long did the
            # outage last" is answered by the outage ticket's "duration"
            on_page = share(aspect, lambda t: 1.0 if any(
                _tf(c, t) for c in (page.attribute, page.value, page.text)) else 0.0,
                lambda t: weight.get(t, 1.0))
            got = max(got, PAGE_CONTEXT * on_page)
        # at least half of the asked head's own words (not those naming a kind of value,
        # "number", "date": a value's shape answers them) must be covered
        asked = [t for t in head if t not in entity]
        nouns = [t for t in asked if t not in _KIND_KEYS] or asked
        if nouns and sum(covered(t) > 0 for t in nouns) * 2 < len(nouns):
            return None
        # … and its head noun itself: half of "oven temperature" is not enough when the half
        # that is covered is the modifier (a word naming a kind of value, "number", "hours",
        # is covered by a value of that shape or type)
        if noun and not (set(noun) & entity) and not any(covered(t) > 0 for t in noun):
            return None
        if wanted is not None and not _shaped(wanted, claim.value, claim.value_type):
            return None
        if getattr(self, "_counting", False) and (
                claim.value_type in ("money", "date", "datetime") or _MONEY.search(claim.value)
                or _CLOCK.search(claim.value)):
            return None  # "how many docks" is not answered by a price, a date or dock hours
        measured = getattr(self, "_measured", None)
        if measured and not statement:
            subject, verb = measured
            if claim.value_type in ("duration", "date", "datetime", "percent") or not (
                    _MONEY.search(claim.value) or claim.value_type == "money"
                    or re.search(r"\d", claim.value)):
                return None  # what something costs or pays is an amount, not "90 days"
            if subject and not covered(verb):
                return None  # "what does a customer pay per year" is not its annual revenue
            if subject and subject not in entity and not covered(subject):
                return None  # "what does an extended warranty cost" is not a list price
        if (claim.kind == "reference" or claim.value_type == "reference") and claim.mentions \
                and all(m.entity in self._asked_pages for m in claim.mentions):
            return None  # a link back to what the question names restates it, never answers
        if self._asks_who and claim.kind == "reference" and not any(
                m.entity.split("/", 1)[0] in AGENT_TYPES for m in claim.mentions):
            return None  # "who signed the pilot" is not answered by the pilot's product
        if (self._asks_who and not statement and claim.kind != "reference"
                and not names_an_agent(claim.attribute, self._schema_words_of(claim))
                and not value_names_an_agent(claim.value)):
            return None  # "who manages the account" is not answered by its city
        # a sentence of prose shares words with many questions by chance: it answers only
        # when it covers most of what is asked
        need = MIN_ASPECT_STATEMENT if statement else MIN_ASPECT
        return got if got >= need or not aspect else None

    def _links(self, pages: set[str]) -> dict[str, set[str]]:
        """Neighbours among the candidate pages: wikilinks either way."""
        out: dict[str, set[str]] = {}
        ids = sorted(pages)
        for i in range(0, len(ids), 400):
            chunk = ids[i:i + 400]
            marks = ",".join("?" * len(chunk))
            for subject, target in self.state.db.execute(
                    f"SELECT subject, entity_id FROM mentions WHERE subject IN ({marks}) "
                    "AND subject != entity_id", chunk):
                if target in pages:
                    out.setdefault(subject, set()).add(target)
                    out.setdefault(target, set()).add(subject)
        return out


_COUNTED = re.compile(r"\bhow\s+(?:many|much)\b", re.I)
# nouns that name the role of an answer, not its content: the word before them is the head
LINKS_TO = "links to"  # the attribute of a bare wikilink (compiler/extract)
GENERIC_HEADS = frozenset("step steps process procedure rule rules requirement "
                          "requirements detail details information info way ways".split())
# value types of the schema that never name someone
_NOT_NAMES = frozenset("enum number money percent duration date datetime boolean".split())
_CLOCK = re.compile(r"\b\d{1,2}:\d\d\b|\d{4}-\d\d-\d\d")
_WHO = re.compile(r"^\s*(?:who|whom)\b|\bwho(?:'s|\s+is|\s+are|\s+was)?\b", re.I)
# page types a "who" question may be answered with a link to (people, teams, organisations)
AGENT_TYPES = frozenset("contact person people user employee staff team department group "
                        "account customer organisation organization company vendor supplier "
                        "partner owner".split())
_HOW_MANY = re.compile(r"\bhow\s+many\b", re.I)
_MONEY = re.compile(r"[$€£¥]\s*\d|\d\s*(?:usd|eur|gbp|chf|sek|dollars?|euros?|pounds?)\b|"
                    r"\b(?:usd|eur|gbp|chf|sek)\s*\d", re.I)


def says_nothing(claim: Claim) -> bool:
    """A bare link or a page's own name says nothing a question asks; a reference of a named
    attribute does ("which account does Dana work for": her *account*, "which component does
    the ticket affect": its *component*)."""
    return (claim.kind == "reference" and claim.attribute == LINKS_TO) or (
        claim.kind == "field" and claim.attribute == "name")


def _schema_page(state: State) -> Path | None:
    """The wiki's ``SCHEMA.md`` (its state lives in ``<wiki>/.folio/state.db``), if any."""
    path = getattr(state, "path", None)
    if not isinstance(path, Path):
        return None
    page = path.parent.parent / "SCHEMA.md"
    return page if page.is_file() else None


def _noun_keys(word: str) -> tuple[str, ...]:
    """Keys a head noun is matched by: the word whole, hyphens dropped ("cut-off" is
    "cutoff"), and its last part ("same-day" → "day")."""
    parts = tokens(word)
    whole = key("".join(parts))
    return tuple(dict.fromkeys([whole, *(key(p) for p in parts[-1:])])) if parts else ()


def _near_miss(claim: Claim, siblings: Sequence[tuple[Claim, str]], question: set[str]) -> bool:
    """The claim is one of a family of attributes that differ in one word ("severity 1/2/3
    response time", "return window for enterprise/standard customers"), the question names
    none of the family's values, and says something its attribute does not: it asks about a
    value the family lacks ("severity 4", "government customers")."""
    if claim.kind not in ("field", "fact"):
        return False
    mine = [key(t) for t in tokens(claim.attribute)]
    slots: set[str] = set()
    if len(mine) < 2:
        mine = []  # one-word attributes ("amount", "duration") are not a family
    for other, _ in siblings:
        if other.kind not in ("field", "fact") or other.attribute == claim.attribute:
            continue
        theirs = [key(t) for t in tokens(other.attribute)]
        if not mine or len(theirs) != len(mine):
            continue
        diff = [i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b]
        if len(diff) == 1:
            slots |= {mine[diff[0]], theirs[diff[0]]}
    # the schema layer's qualifiers, when claims carry them ({"severity": "Severity 1"}): the
    # words that tell the values of the family apart ("1"), not those they share ("severity")
    quals = _pairs(getattr(claim, "qualifiers", None))
    if quals:
        values = [{key(t) for t in tokens(v)} for _, v in quals]
        for other, _ in siblings:
            if other.attribute == claim.attribute and other is not claim:
                values += [{key(t) for t in tokens(v)} for _, v in
                           _pairs(getattr(other, "qualifiers", None))]
        shared = set.intersection(*values) if len(values) > 1 else set()
        names = {key(t) for k, _ in quals for t in tokens(k)}
        slots |= set().union(*values) - shared - names
    # a slot is named by the word itself or one of its synonyms ("catalogue number" names the
    # "code" of a "product code / product family" pair)
    if not slots or slots & (question | {a for t in question for a in (
            *SYNONYMS.get(t, ()), *ATTRIBUTE_SYNONYMS.get(t, ()))}):
        return False
    said = set(mine) | {key(t) for t in tokens(claim.value)}
    return bool(question - said - set(SYNONYMS))


def _pairs(qualifiers: object) -> list[tuple[str, str]]:
    if isinstance(qualifiers, dict):
        return [(str(k), str(v)) for k, v in qualifiers.items()]
    if isinstance(qualifiers, (tuple, list)):
        return [(str(p[0]), str(p[1])) for p in qualifiers
                if isinstance(p, (tuple, list)) and len(p) == 2]
    return []


def _asks_missing_slot(claim: Claim, question: set[str]) -> bool:
    """A near miss whose attribute's other words are all in the question: the question is
    about this family and names a member it does not have ("severity 4 response time")."""
    words = stems(claim.attribute, drop_stopwords=True)
    shared = [w for w in words if w in question]
    if _pairs(getattr(claim, "qualifiers", None)):
        # the member is named by a qualifier: the question must name the whole attribute
        return bool(words) and len(shared) == len(words)
    # the member is named by one word of the attribute ("severity 1 response time")
    return len(words) >= 2 and len(shared) >= len(words) - 1


_CLAUSE = re.compile(r"\s*(?:,|;|\band\b|\balso\b)\s+(?=(?:who|what|when|where|which|how|"
                     r"is|are|does|do|can)\b)", re.I)


# a later clause's reference to what an earlier one is about
_ANAPHOR = re.compile(r"\b(?:(?:that|this|the same|the)\s+(?:account|product|company|customer|"
                      r"deal|opportunity|device|site|team|person|contact|ticket|policy)(?:'s)?|"
                      r"them|they|their|it|its)\b", re.I)


def split_question(question: str) -> list[str]:
    """The clauses of a question that asks several things, each starting with a question
    word ("Who …, and what …?"); a one-clause question is returned whole."""
    parts = [p.strip(" ,;?") for p in _CLAUSE.split(question)]
    parts = [p for p in parts if p and p.lower() not in ("and", "also")]
    # a condition ("If a customer reports a fault, how soon …") is context, not a question
    if parts and _CONDITION.match(parts[0]):
        parts = [parts[0] + ", " + parts[1], *parts[2:]] if len(parts) > 1 else parts
    return parts if len(parts) > 1 and all(question_terms(p) for p in parts) else [question]


_CONDITION = re.compile(r"\s*(?:if|when|once|after|before|in case|suppose|assuming|say)\b", re.I)


def _interleave(lists: Sequence[Sequence], ident) -> list:  # noqa: ANN001
    out, seen = [], set()
    for i in range(max((len(x) for x in lists), default=0)):
        for x in lists:
            if i < len(x) and ident(x[i]) not in seen:
                seen.add(ident(x[i]))
                out.append(x[i])
    return out


# what kind of value a question asks for, and how such a value looks
_TYPES = (
    (re.compile(r"\bhow (long|quickly|soon|fast|often)\b|\bwithin how\b|\bhow many "
                r"(seconds|minutes|hours|days|weeks|months|years)\b", re.I),
     re.compile(r"\d\s*(?:[a-z]+\s+)?(second|minute|min|hour|hr|day|week|month|year)s?\b|"
                r"\d+x\d+", re.I)),
    (re.compile(r"\b(what|which) (percentage|percent|share|proportion)\b|\bhow many percent",
                re.I), re.compile(r"\d\s*%|\bpercent")),
    (re.compile(r"\bhow (many|much)\b|\bwhat (is|are) the (number|amount|price|cost|rate|"
                r"size|total)\b", re.I), re.compile(r"\d")),
    # "when" asks for a date where it starts a clause ("By when must I …"), not as a
    # conjunction ("the step when handling returns")
    (re.compile(r"(?:^\s*|[,;]\s*|\b(?:and|by|until|since|from)\s+)when\b|"
                r"\bwhat (date|day|time|year)\b", re.I),
     re.compile(r"\d{4}-\d\d|\d{1,2}:\d\d|\b(january|february|march|april|may|june|july|"
                r"august|september|october|november|december|monday|tuesday|wednesday|"
                r"thursday|friday|saturday|sunday)\b", re.I)),
    (re.compile(r"^\s*(who|whom)\b|\bwho (is|are|leads|owns|runs|approves)\b", re.I),
     re.compile(r"^[^\d]*[A-Z][^\d]*$")),
)
# the schema's value types that answer each kind of question (compiler/schema/model.py)
_TYPED_AS = {id(_TYPES[0][1]): {"duration"}, id(_TYPES[1][1]): {"percent"},
             id(_TYPES[2][1]): {"number", "money", "percent", "duration"},
             id(_TYPES[3][1]): {"date", "datetime"}}
ENTITY_BOOST = 1.5  # a claim on a page the question names
ENTITY_MISS = 0.5  # … on a page neither named nor linked to one that is
NEAR_MISS = 0.3  # a claim whose attribute family lacks the value the question asks about
TYPE_BOOST = 2.0  # a claim whose value has the shape the question asks for
TYPE_MISS = 0.6  # … and one whose value has not


def _shaped(wanted: re.Pattern, value: str, value_type: str | None = None) -> bool:
    """The value has the shape the question asks for (number words read as digits; a "when"
    is also answered by a duration: "30 days after the trip"), or the schema's type of its
    attribute has it ("NET 45" of a duration-typed *payment terms* answers "how many days")."""
    if wanted is _TYPES[4][1] and value_type in _NOT_NAMES:
        return False  # "who manages the account" is not answered by its account *type*
    v = _digits(value)
    return bool(wanted.search(v) or (wanted is _TYPES[3][1] and _TYPES[0][1].search(v))
                or (value_type is not None and value_type in _TYPED_AS.get(id(wanted), ())))


def answer_type(question: str) -> re.Pattern | None:
    """The pattern of the value a question asks for (a duration, a quantity, a date, a
    name), or None when its words do not say."""
    for asks, looks in _TYPES:
        if asks.search(question):
            return looks
    return None


def retrieve(state: State, question: str, who: Principal | None, k_pages: int = 5,
             k_claims: int = 12) -> Retrieval:
    return Retriever(state, who).retrieve(question, k_pages, k_claims)

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
3. a question is answered only when the best evidence covers enough of the question's weight
   (IDF-weighted share of its content words found in one claim and its page's name): a
   calibrated threshold (benchmarks/answer_bench.py), not a count of shared words.

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
    anyone someone something anything thing things kind sort one ones each every all""".split()
)
_TOKEN = re.compile(r"[^\W_]+(?:[.,][0-9]+)*")

K1, B = 1.2, 0.75
# field weights (BM25F): a page's name says what it is about; attributes and values are what it
# states; quotes and raw text repeat the values among other words
PAGE_FIELDS = {"title": 3.0, "attribute": 1.5, "value": 1.5, "text": 0.6}
CLAIM_FIELDS = {"attribute": 2.0, "value": 2.0, "quote": 1.0, "name": 1.0}
LINK_SHARE = 0.25  # share of a linked page's score a page gains
PAGE_IN_CLAIM = 0.35  # share of its page's score added to a claim's own
# abstain when the best claim with its page's name covers less of the question than this
MIN_COVERAGE = 0.62
_CLAIM_CANDIDATES = 1500
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


def tokens(text: str) -> list[str]:
    """Lower-cased words and numbers ("1,500", "2.5" stay whole; "$49" is "49")."""
    return [t.replace(",", "") for t in _TOKEN.findall(text.lower())]


def stems(text: str, drop_stopwords: bool = False) -> list[str]:
    out = []
    for t in tokens(text):
        if drop_stopwords and (t in STOPWORDS or (len(t) < 2 and not t.isdigit())):
            continue
        out.append(stem(t))
    return out


def question_terms(question: str) -> list[str]:
    """Content stems of the question, in order, once each."""
    return list(dict.fromkeys(stems(question, drop_stopwords=True)))


def _fts_term(term: str) -> str:
    # a stem as a prefix query: "refund" matches refunds, refunded, refundable
    return '"' + term.replace('"', '""') + '"' + ("*" if not term.isdigit() else "")


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
    coverage: float


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


@dataclass
class _PageDoc:
    title: Counter
    attribute: Counter
    value: Counter
    text: Counter
    length: float
    claims: list[tuple[Claim, str]]


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
        match = " OR ".join(_fts_term(t) for t in terms)
        subjects: set[str] = set()
        record_text: dict[str, str] = {}
        try:
            for (subject,) in self.state.db.execute(
                    "SELECT subject FROM claims_fts WHERE claims_fts MATCH ? "
                    "ORDER BY bm25(claims_fts, 0, 0, 2.0, 4.0, 2.0, 1.0) LIMIT ?",
                    (match, _CLAIM_CANDIDATES)):
                subjects.add(subject)
            for key, text in self.state.db.execute(
                    "SELECT key, text FROM records_fts WHERE records_fts MATCH ? "
                    "ORDER BY bm25(records_fts) LIMIT ?", (match, _RECORD_CANDIDATES)):
                record_text[key] = text
        except Exception:  # noqa: BLE001 - malformed FTS query: fall back to names only
            pass
        subjects |= self._alias_pages(question)
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
            attribute = _counter(c.attribute for c, _ in claims if c.kind != "statement")
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
        terms = question_terms(question)
        self.titles: dict[str, str] = {}
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
                tf = (PAGE_FIELDS["title"] * d.title[t] + PAGE_FIELDS["attribute"] * d.attribute[t]
                      + PAGE_FIELDS["value"] * d.value[t] + PAGE_FIELDS["text"] * d.text[t])
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
                fields = {"attribute": Counter(stems(claim.attribute)) if claim.kind != "statement"
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
        top_page = max(page_score.values()) or 1.0
        for eid, claim, status, fields, dl in rows:
            s = 0.0
            covered = 0.0
            for t in terms:
                tf = sum(CLAIM_FIELDS[f] * fields[f][t] for f in fields)
                if tf:
                    s += _bm25(tf, min(claim_df[t], self.n_claims), self.n_claims, dl, avg_claim)
                    covered += weight[t]
            if s <= 0:
                continue
            cov = covered / total_weight
            evid.append(Evidence(claim, status, s * (0.5 + cov)
                                 + PAGE_IN_CLAIM * page_score[eid] / top_page * s, cov))
        order = {"winner": 0, "contested": 1, "overruled": 2}
        evid.sort(key=lambda e: (-e.score, order.get(e.status, 3), e.claim.id))
        result.claims = evid[:k_claims]
        result.coverage = max((e.coverage for e in evid[:k_claims]), default=0.0)
        result.answerable = result.coverage >= MIN_COVERAGE
        return result

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


def retrieve(state: State, question: str, who: Principal | None, k_pages: int = 5,
             k_claims: int = 12) -> Retrieval:
    return Retriever(state, who).retrieve(question, k_pages, k_claims)

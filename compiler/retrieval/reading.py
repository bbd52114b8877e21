"""Reading a typed value out of a claim's source sentence.

Many values live only in prose, list items and table notes: "Up to 400 students per class
section.", "Impact: 312 districts.", the Notes cell of a table row ("$300 per night in New York
City, San Francisco and Toronto"). The extraction keeps such a sentence as a claim (a statement,
or a fact of the row it stands in) whose quote is the sentence itself, but no claim separates
the value, so a question asking for it finds the sentence without an attribute that answers.

This module reads the value from the quote, for questions that ask a value of a type: a count
("how many districts"), an amount of money ("how much", "spend", "price"), a duration ("how
long"), a percentage, a date or time ("when"), or a range of two amounts ("pay range"). It
answers only when all of this holds for one clause of one claim's quote (a table row's cell, a
clause between semicolons, a parenthesis, a sentence):

- the clause holds exactly one value of the asked type (two, for a range);
- a count's counted noun stands right after the number ("312 *districts*"), a measured noun
  ("how bad did *latency* get") in the clause;
- every name the question uses is in the clause, its row's label, its page's name, its source
  record's title, or names a page linked with the claim's page ("Toronto" picks the Notes cell,
  not the general $220 of the Limit cell); a month or day the question names is a date on the
  page;
- the clause with its row and page covers most of the question's weight (IDF-weighted, with
  the lexicon's synonyms), and no other clause with another value covers as much.

Generic English and the shapes of payloads only (a row is ``Header: cell; Header: cell``); no
rule names a corpus's words.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..tables import row_line
from ..extract.values import BOUND, find_values
from ..models import Claim, Principal
from ..state import State
from .abbreviations import spell_out_clipped
from .typos import capitalise_names
from .aspect import LINKS_TO, says_nothing
from .coverage import KIND_WORDS, asked_scope, bound_of as _bound_of, keyword_query, names_in
from .aspect import _periods
from .scoring import idf
from .text import (FRAME_WORDS, STOPWORDS, SYNONYMS, SYNONYM_WEIGHT, _rewrite, key, stem, stems,
                   tokens)

MIN_SAID = 0.5  # … and the clause itself of what the question asks beyond its page's names
MIN_READ_COVERAGE = 0.6  # share of the question's weight a clause, its row and page must cover
_PAGES = 3  # the best ranked pages whose claims are read
_PREFIX = 4  # a word starting with another of at least this many letters is akin to it
_CIRCUMSTANCE_WEIGHT = 0.25  # a word of a sentence before the asked one, against its own
_QUESTION_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_COUNT_GAP = 3  # words allowed between a count and its counted noun ("1,840 student records")

_DURATION_Q = re.compile(r"\bhow\s+(?:long|quickly|soon|fast)\b|\bwithin\s+how\b|\bhow\s+many\s+"
                         r"(?:seconds|minutes|hours|days|weeks|months|years)\b", re.I)
_PERCENT_Q = re.compile(r"\b(?:what|which)\s+(?:percentage|percent|share|proportion)\b|"
                        r"\bhow\s+many\s+percent\b", re.I)
_DATE_Q = re.compile(r"(?:^\s*|[,;:]\s*|\b(?:and|by|until|since|from)\s+)when\b|"
                     r"\bwhat\s+(?:date|day|time|year|month)\b|\bby\s+what\s+date\b", re.I)
_COUNT_Q = re.compile(r"\bhow\s+many\s+(?P<np>(?:[\w'-]+\s+){0,3}?[\w'-]+?)(?=\s+(?:are|is|were|"
                      r"was|can|could|do|does|did|will|would|should|have|has|had|get|got|may|"
                      r"might|must|in|at|on|of|for|per|we|you|they|there|does)\b|\s*[?.,;!]|\s*$)",
                      re.I)
_NUMBER_OF_Q = re.compile(r"\b(?:the\s+)?number\s+of\s+(?P<np>(?:[\w'-]+\s+){0,2}?[\w'-]+?)"
                          r"(?=\s+(?:are|is|were|was|can|do|does|did|will|in|at|on|of|for|per)\b"
                          r"|\s*[?.,;!]|\s*$)", re.I)
_HOW_MUCH = re.compile(r"\bhow\s+much\b", re.I)
# words that ask an amount of money wherever they stand in a question
_MONEY_WORDS = frozenset(key(w) for w in (
    "cost costs price priced pricing fee fees charge charges spend spent salary salaries pay "
    "paid wage wages budget allowance stipend reimburse reimbursed worth bill billed "
    "compensation").split())
_RANGE_WORDS = frozenset(key(w) for w in "range band bracket".split())
# "how bad did latency get", "how high did the error rate climb": a measure of the noun
_MEASURE_Q = re.compile(r"\bhow\s+(?:bad|high|big|large|low|slow|far|severe|long|much)\s+(?:did|"
                        r"does|do|was|were|is|are|had|has|could|would|will)\s+(?:the\s+)?"
                        r"(?P<np>(?:[\w'-]+\s+){0,3}?[\w'-]+?)\s+(?:get|go|rise|grow|climb|"
                        r"reach|peak|spike|jump|drop|fall|be|become|increase)\b", re.I)
# words that say how a question asks, not what it is about
_ASKING = frozenset(key(w) for w in (
    "many much long number amount total figure quantity value bad high big large low slow far "
    "severe most least range next last this current coming upcoming previous ago "
    "date day time year month when").split()) | frozenset(key(w) for w in KIND_WORDS)
# "when are we going to *build* X": a verb of making, which a date question asks the date of
# whatever the sentence says happens to X ("X is deferred to the second half of 2027")
_MAKING = frozenset(key(w) for w in "build built make made develop create add implement "
                    "do done".split())
# a question's words that a bound in the clause covers ("is there a *cap* on…": "up to 400")
_BOUND_TERMS = frozenset(key(w) for w in "cap limit maximum max most ceiling minimum min least "
                         "at_least".split())
_BOUND_IN = re.compile(r"\b(?:up to|at most|no more than|not more than|maximum|max\.?|limit|"
                       r"cap(?:ped)?|ceiling|at least|minimum|no less than)\b", re.I)
# a question's words for the latest time something may be done, and what a clause says it
# with ("submitted *no later than* 30 days after the trip"): the clause covers the word
_DEADLINE_TERMS = frozenset(key(w) for w in "cutoff deadline".split())
_DEADLINE_IN = re.compile(r"\b(?:no|not)\s+later\s+than\b|\bat\s+the\s+latest\b|"
                          r"\bdeadline\b|\bcut-?off\b", re.I)
# "is there a cutoff?": a yes-or-no question asking for the time limit, if any
_DEADLINE_Q = re.compile(r"\b(?:is\s+there|are\s+there|do\s+we\s+have|what\s+is|what's)\s+"
                         r"(?:a|an|any)\s+(?:cut-?off|deadline|time\s+limit)\b", re.I)
_CALENDAR = {m: i + 1 for i, names in enumerate((
    "january jan", "february feb", "march mar", "april apr", "may", "june jun", "july jul",
    "august aug", "september sep sept", "october oct", "november nov", "december dec"))
    for m in names.split()}
_Q_DATE = re.compile(r"\b(?P<m>" + "|".join(sorted(_CALENDAR, key=len, reverse=True)) +
                     r")\.?(?:\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?\b)?", re.I)
_ISO = re.compile(r"\b(?:19|20)\d\d-(?P<m>\d\d)-(?P<d>\d\d)")
_WRITTEN = re.compile(r"\b(?P<d>\d{1,2})?(?:st|nd|rd|th)?\s*(?P<m>" +
                      "|".join(sorted(_CALENDAR, key=len, reverse=True)) +
                      r")\.?(?:\s+(?P<d2>\d{1,2})\b)?", re.I)
# dates and times prose writes that values.py's dates do not cover: a period of a year ("the
# second half of 2027", "Q3 2027", "early 2027"), a time of day or a span of them
_PERIOD = re.compile(r"\b(?:(?:the\s+)?(?:first|second|1st|2nd|last)\s+half\s+of\s+|"
                     r"(?:the\s+)?(?:end|beginning|start|middle)\s+of\s+|(?:early|mid|late)[- ]"
                     r"|H[12]\s+|Q[1-4]\s+)(?:19|20)\d\d\b", re.I)
_CLOCK = re.compile(r"(?<![\d:])\d{1,2}:\d\d(?:\s*(?:-|–|to)\s*\d{1,2}:\d\d)?"
                    r"(?:\s*(?:[AP]M|UTC|GMT|CET|CEST|[ECMP][SD]?T)\b)?(?![\d:])", re.I)


@dataclass(frozen=True)
class Asked:
    """What a question asks for: the value kind, the nouns the value must stand with, and
    whether it asks a range (two values)."""

    kind: str  # count | money | duration | percent | date | measure
    nouns: tuple[str, ...] = ()  # keys; for a count, the counted noun (and its synonyms)
    pair: bool = False


@dataclass(frozen=True)
class Clause:
    text: str
    label: str = ""  # the row label of a table row's cell
    header: str = ""  # the cell's column header


@dataclass
class Reading:
    """A value read from one clause of one claim's quote."""

    claim: Claim
    status: str
    value: str
    clause: str
    label: str
    header: str
    page_title: str
    coverage: float
    score: float = 0.0
    others: list[str] = field(default_factory=list)


def asked_value(question: str) -> Asked | None:
    """The kind of value a question asks for, or None when its words do not say."""
    q = _rewrite(question)
    words = {key(t) for t in tokens(q)}
    pair = bool(words & _RANGE_WORDS)
    if _PERCENT_Q.search(q):
        return Asked("percent")
    if _DURATION_Q.search(q) or _DEADLINE_Q.search(q):
        return Asked("duration")
    if _DATE_Q.search(q):
        return Asked("date")
    if m := _MEASURE_Q.search(q):
        return Asked("measure", _noun(m["np"]))
    if words & _MONEY_WORDS:
        return Asked("money", pair=pair)
    if m := (_COUNT_Q.search(q) or _NUMBER_OF_Q.search(q)):
        nouns = _noun(m["np"])
        if nouns:
            return Asked("count", nouns, pair)
    if _HOW_MUCH.search(q):
        return Asked("money", pair=pair)
    return None


def _noun(phrase: str) -> tuple[str, ...]:
    """The head noun of a noun phrase (its last word) with its synonyms, as keys."""
    words = [w for w in tokens(phrase) if w not in STOPWORDS]
    if not words:
        return ()
    head = key(words[-1])
    return (head, *sorted(SYNONYMS.get(head, ())))


# -- clauses -------------------------------------------------------------------------------------
_PAREN = re.compile(r"\s*\(([^()]*)\)")
_SENTENCE = re.compile(r"(?<=[a-z0-9%)])[.!?]\s+(?=[A-Z0-9\"'])")


def clauses(quote: str) -> list[Clause]:
    """The clauses a quote states values in: a table row's cells (each with the row's label
    and its header), else its sentences split at semicolons, a parenthesis standing apart
    ("14 seconds (normally under 2 seconds)": the usual value is not the one asked)."""
    text = " ".join(quote.split())
    if text.startswith("|") and text.count("|") >= 3:
        # a pipe table's row (markdown, Jira): its cells; the header row is not in the quote
        cells = [c.strip() for c in text.strip("|").split("|")]
        label = cells[0]
        return [Clause(c, label, "") for c in cells[1:] if c] + [Clause(text, label, "")]
    row = row_line(text, 0, len(text))
    if row is not None:
        label = row.label.text
        out = [Clause(f"{h.text}: {c.text}", label, h.text) for h, c in row.cells]
        return out + [Clause(text, label, "")]  # the whole row: a range spans two cells
    out = []
    for sentence in _SENTENCE.split(text):
        for part in re.split(r";\s+", sentence):
            for inner in _PAREN.findall(part):
                if inner.strip():
                    out.append(Clause(inner.strip()))
            rest = _PAREN.sub("", part).strip()
            if rest:
                out.append(Clause(rest))
    return out


# -- values --------------------------------------------------------------------------------------
def _spans(text: str, kinds: Sequence[str]) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    for kind in kinds:
        if kind == "date":
            found = [(f.start, f.end) for f in find_values(text, "date")]
            found += [(m.start(), m.end()) for m in _PERIOD.finditer(text)]
            found += [(m.start(), m.end()) for m in _CLOCK.finditer(text)]
        elif kind == "count":
            found = [(f.start, f.end) for f in find_values(text, "number")
                     if not _in_code(text, f.start, f.end)]
        else:
            found = [(f.start, f.end) for f in find_values(text, kind)
                     if not (kind == "duration" and _ORDINAL.match(text[f.start:])
                             and re.match(r"\s+[a-z]", text[f.end:]))]
        for s, e in found:
            if not any(s < oe and os < e for os, oe, _ in out):
                out.append((s, e, kind))
    # a longer value wins over one inside it ("2026-11-09" over "11"): spans do not overlap
    return sorted(out)


_ORDINAL = re.compile(r"(?:a|an|one)\s+second\b", re.I)  # "a second shift" is no duration


def _in_code(text: str, start: int, end: int) -> bool:
    """A number that is part of a time ("13:02"), a version ("1.2"), a date or an identifier
    ("INC-57", "p95", "#412"), not a count of anything."""
    before, after = text[max(0, start - 1):start], text[end:end + 2]
    return bool(re.match(r"[:/.#-]", before) or re.match(r"[:/-]\d|\.\d", after)
                or re.match(r"(?:19|20)\d\d$", text[start:end]))


def _kinds(asked: Asked) -> tuple[str, ...]:
    return {"measure": ("duration", "percent", "money")}.get(asked.kind, (asked.kind,))


def _value_of(text: str, asked: Asked) -> tuple[str, int, int] | None:
    """The one value of the asked kind the clause holds (a range's two, joined), with its span."""
    spans = _spans(text, _kinds(asked))
    if asked.kind == "count":
        spans = [s for s in spans if _counts(text, s[1], asked.nouns)]
    if asked.pair:
        if len(spans) != 2:
            return None
        (s1, e1, _), (s2, e2, _) = spans
        return f"{text[s1:e1]} to {text[s2:e2]}", s1, e2
    if len(spans) != 1:
        return None
    s, e, _ = spans[0]
    return text[s:e], s, e


def _counts(text: str, end: int, nouns: Sequence[str]) -> bool:
    """The counted noun stands right after the number ("312 districts", "1,840 student
    records", "400 students per class")."""
    after = tokens(text[end:])[:_COUNT_GAP]
    return any(key(w) in nouns for w in after)


# -- the reader ----------------------------------------------------------------------------------
class ValueReader:
    """Reads the values a question asks from the clauses of the claims on its best pages, as
    one principal sees them."""

    def __init__(self, state: State, question: str, who: Principal | None,
                 pages: Sequence[str]) -> None:
        from .retriever import Retriever

        # a clipped word of the wiki's own terms, as retrieval reads it ("a mini ex")
        question = spell_out_clipped(state, question)
        question = capitalise_names(question, state)  # (abstain4) "joliet" is Joliet, as retrieval reads it
        self.state, self.question = state, question
        self.asked = asked_value(question)
        self.readings: list[Reading] = []
        self._own: dict[str, float] = {}
        if self.asked is None or not pages:
            return
        rt = Retriever(state, who)
        # what the question asks beyond its words (compiler/retrieval/aspect.py): the scope it
        # excludes, the unit of its rate, the action whose duration it asks
        rt._read_question(_rewrite(question), STOPWORDS | FRAME_WORDS)
        self._rt = rt
        # (abstain4) the words restricting the asked phrase ("the on-call stipend *for
        # infusion nurses*") that the wiki uses must be in the clause or on its page, as
        # retrieval asks of claims (aspect.py ``_off_scope_of``): a stipend of pharmacists
        # is no answer about nurses
        self._scope = ([] if keyword_query(question) else
                       rt._word_keys(asked_scope(_rewrite(question), STOPWORDS | FRAME_WORDS)))
        pages = list(pages[:_PAGES])
        docs = rt._page_docs(set(pages), {})
        # a month or day the question names is checked against the page's dates, not as a word
        undated = _Q_DATE.sub(lambda m: " " if m["m"][0].isupper() else m.group(), question)
        self.terms = [t for t in dict.fromkeys(stems(_rewrite(undated), drop_stopwords=True))
                      if t not in _ASKING
                      and not (self.asked.kind == "date" and t in _MAKING)]
        if not docs or not self.terms:
            return
        n_pages = max(state.page_count(), 1)
        self.weight = {t: idf(min(rt._df_of("page", t), n_pages), n_pages)
                       if rt._df_of("page", t) or rt._df_of("record", t)
                       else idf(0, n_pages) for t in self.terms}
        # "Machine got stolen off a job site. How long does the customer have to …?": the
        # sentences before the asked one say the circumstances, which the answering clause
        # rarely repeats; their words count for less than the question's own
        sentences = [x for x in _QUESTION_SENTENCE.split(undated.strip()) if x.strip()]
        if len(sentences) > 1:
            own = set(stems(_rewrite(sentences[-1]), drop_stopwords=True))
            if own & set(self.terms):
                self.weight = {t: w if t in own else w * _CIRCUMSTANCE_WEIGHT
                               for t, w in self.weight.items()}
        self.total = sum(self.weight.values()) or 1.0
        self.names = [key(n) for n in names_in(question, STOPWORDS | FRAME_WORDS)]
        # a year the question names is one the clause, its row or its page says ("the fee in
        # 2031" is no value a source decided for 2031)
        self.years = list(dict.fromkeys(_YEAR.findall(undated)))
        self.bound = _bound_of(question, asked=True)
        self.periods = _periods(question)
        dates = [(_CALENDAR[m["m"].lower()], int(m["d"]) if m["d"] else None)
                 for m in _Q_DATE.finditer(question) if m["m"][0].isupper()]
        titles = _record_titles(state, {c.source.key for d in docs.values() for c, _ in d.claims})
        for rank, eid in enumerate(p for p in pages if p in docs):
            d = docs[eid]
            if dates and not _dated(d.claims, dates):
                continue  # "on November 9": a page of another day
            # the page's names and those of the pages its named links point to ("INC-61"'s
            # *district*, "Harborview Unified School District", its question's "Harborview")
            page_words = set(d.title) | {t for n in _linked(d.claims)
                                         for t in stems(_name_of(state, n))}
            for claim, status in d.claims:
                if says_nothing(claim) or not claim.quote:
                    continue
                context = page_words | set(stems(titles.get(claim.source.key, "")))
                for cl in clauses(claim.quote):
                    self._read(claim, status, cl, context, rt.titles.get(eid, eid), rank, d)

    def _read(self, claim: Claim, status: str, cl: Clause, context: set[str], title: str,
              rank: int, page=None) -> None:  # noqa: ANN001 - the page's _PageDoc
        asked = self.asked
        assert asked is not None
        label = set(stems(cl.label))
        got = _value_of(cl.text, asked)
        s, e = (got[1], got[2]) if got else (0, 0)
        words = Counter(stems(cl.text[:s] + " " + cl.text[e:]))
        bound = bool(_BOUND_IN.search(cl.text) or (got and BOUND.search(cl.text[:s])))
        deadline = bool(_DEADLINE_IN.search(cl.text))
        cover = {t: _covered(t, words, label, context, bound, deadline) for t in self.terms}
        cov = sum(self.weight[t] * c for t, c in cover.items()) / self.total
        # how well the claim's best clause fits the question, value or not: what a reading
        # must beat to replace the claim retrieval answered with
        self._own[claim.id] = max(self._own.get(claim.id, 0.0), cov)
        if got is None or claim.kind not in ("statement", "fact") or status != "winner":
            return  # a field or a link is its own value (retrieval has judged it); a claim
            # that lost to another source, or is contested, answers nothing by itself
        if asked.kind == "measure" and not any(words[n] for n in asked.nouns):
            return  # "how bad did latency get": a measure of latency, not of anything
        # every name the question uses stands in the clause, its row or its page
        if any(not (words[n] or n in label or n in context) for n in self.names):
            return
        if any(y not in cl.text and y not in label and y not in context for y in self.years):
            return
        if page is not None and self._scope and self._rt._off_page(
                [t for t in self._scope if t not in self.names], page,
                lambda t: words[t] or t in label or t in context):
            return  # (abstain4) "the stipend for infusion nurses" is not the pharmacists'
        said_years = set(_YEAR.findall(cl.text))
        if self.years and said_years and not said_years & set(self.years):
            return  # "the 2027 counter-offer" is not the 2026 contract's
        if self.periods and (stated := _periods(f"{cl.label} {cl.text}")) and not (
                stated & self.periods):
            return  # "the weekly price" is not "$18 per day"
        if self.bound is not None and _bound_of(cl.text) not in (None, self.bound):
            return  # "is there a *floor* on class size" is not answered by "up to 400"
        if self._rt.vetoes_clause(claim, cl.text, title):
            return  # "on a full charge … lasts 6 hours" is no charging time
        # … and the clause itself says what is asked, not only the page around it: a
        # comment's "on 2026-11-18:" does not date the fix its ticket is about
        asked_words = [t for t in self.terms if t not in self.names and t not in context]
        said = sum(self.weight[t] * _covered(t, words, label, set(), bound, deadline)
                   for t in asked_words)
        if asked_words and said < MIN_SAID * sum(self.weight[t] for t in asked_words) and not (
                asked.nouns and any(words[n] for n in asked.nouns)):
            return
        self.readings.append(Reading(claim, status, got[0], cl.text, cl.label, cl.header, title, cov,
                                     cov - 0.01 * rank))

    def holds_asked(self, claim: Claim) -> bool:
        """The claim's value is of the kind the question asks (a count, an amount…)."""
        if self.asked is None:
            return True
        kinds = _kinds(self.asked)
        if self.asked.kind == "count" and self.asked.nouns and claim.kind == "statement":
            # a sentence holds a count of what is asked only with the counted noun after the
            # number: "Patients on Android 14 stopped …" holds no count of patients
            return any(_counts(claim.value, end, self.asked.nouns)
                       for _, end, _ in _spans(claim.value, kinds))
        return bool(_spans(claim.value, kinds)) or claim.value_type in {
            "count": ("number",), "date": ("date", "datetime")}.get(self.asked.kind, kinds)

    def coverage_of(self, claim_id: str) -> float:
        """How much of the question a claim's best clause (with its row and page) covers."""
        return self._own.get(claim_id, 0.0)

    def best(self) -> Reading | None:
        found = sorted(self.readings, key=lambda r: (-r.score, r.claim.id))
        if not found or found[0].coverage < MIN_READ_COVERAGE:
            return None
        top = found[0]
        if any(r.value != top.value for r in found[1:] if r.score >= top.score - 1e-9):
            return None  # two clauses give two values as well: not for this reader to choose
        return top


# a reading replaces the claim retrieval answered with only when its clause covers this much more
# of the question, from a source of no lower authority (a better-fitting sentence of the same
# policy, not a hearsay comment against the policy's table)
READING_MARGIN = 0.2


def answer_reading(state: State, question: str, who: Principal | None, pages: Sequence[str],
                   answerable: bool, answered: Sequence[str]) -> Reading | None:
    """A value read from a claim's sentence that answers a one-clause question retrieval could
    not answer (``answerable`` false), or answers it better than the claim retrieval chose
    (``answered``: the winning claim ids of its answer, best first): that claim holds no value
    of the asked kind, or its clauses cover much less of the question."""
    reader = ValueReader(state, question, who, pages)
    best = reader.best()
    if best is None or not answerable:
        return best
    if not answered:
        return None  # an open contradiction is shown as one, never replaced by a reading
    if best.claim.id in answered:
        return None  # retrieval answered with the very claim: its own answer stands
    found = state.claims_by_ids([answered[0]]).get(answered[0])
    if found is None:
        return None
    claim = found[0]
    if not reader.holds_asked(claim):
        return best  # "how many districts" was answered with a hosting region
    if (best.coverage >= reader.coverage_of(claim.id) + READING_MARGIN
            and best.claim.authority.rank >= claim.authority.rank):
        return best
    return None


def read_value(state: State, question: str, who: Principal | None,
               pages: Sequence[str]) -> Reading | None:
    """The value a clause of a claim on one of ``pages`` (best first) gives the question, or
    None (see the module's docstring)."""
    return ValueReader(state, question, who, pages).best()


def _covered(t: str, words: Counter, label: set[str], context: set[str], bound: bool,
             deadline: bool = False) -> float:
    if words[t] or t in label:
        return 1.0
    if t in _BOUND_TERMS and bound:
        return 1.0
    if t in _DEADLINE_TERMS and deadline:
        return 1.0
    if t in context:
        return 1.0
    alts = SYNONYMS.get(t, ())
    if any(words[a] or a in label or a in context for a in alts):
        return SYNONYM_WEIGHT
    if any(stem(w) == t for w in (*words, *label) if len(w) > len(t)):
        return SYNONYM_WEIGHT  # one word, stemmed once more: "covered" of "cover"
    if len(t) >= _PREFIX and any(len(w) >= _PREFIX and (t.startswith(w) or w.startswith(t))
                                 for w in (*words, *label, *context) if not w.isdigit()):
        return SYNONYM_WEIGHT  # a compound or a derived word: "slowdown" of "slow"
    return 0.0


_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
def _dated(claims: Iterable[tuple[Claim, str]], dates: list[tuple[int, int | None]]) -> bool:
    """Every month (and day) the question names is a date the page states."""
    seen: set[tuple[int, int]] = set()
    for c, _ in claims:
        for text in (c.value, c.quote):
            for m in _ISO.finditer(text):
                seen.add((int(m["m"]), int(m["d"])))
            for m in _WRITTEN.finditer(text):
                day = m["d"] or m["d2"]
                seen.add((_CALENDAR[m["m"].lower()], int(day) if day else 0))
    return all(any(sm == month and (day is None or sd == day) for sm, sd in seen)
               for month, day in dates)


def _linked(claims: Iterable[tuple[Claim, str]]) -> set[str]:
    """Pages a page's named links point to (a ticket's *district*, a deal's *account*), not
    every page its prose mentions."""
    return {m.entity for c, _ in claims if c.kind in ("reference", "field")
            and c.attribute != LINKS_TO for m in c.mentions}


def _name_of(state: State, eid: str) -> str:
    ent = state.entity(eid)
    return " ".join([ent.name, *ent.aliases]) if ent is not None else ""


def _record_titles(state: State, keys: set[str]) -> dict[str, str]:
    out = {}
    for key_, record_json, _, _ in state.load_records(keys):
        try:
            out[key_] = str(json.loads(record_json).get("title") or "")
        except ValueError:
            continue
    return out


__all__ = ["Asked", "Clause", "MIN_READ_COVERAGE", "READING_MARGIN", "Reading", "ValueReader",
           "answer_reading", "asked_value", "clauses", "read_value"]

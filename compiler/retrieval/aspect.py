"""Does a claim answer what a question asks, or only mention what it is about? The asked aspect
and head, the answer type, the names a question uses, and the families of attributes a question
may ask a missing member of (compiler/retrieval/coverage.py holds the language side)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from .ranges import in_band
from .rivals import other_cell, other_kind, other_stage
from .coverage import (PREPOSITIONS, UNRESTRICTING, bound_of, names_in, asked_action, asks_window, asked_condition, keyword_query, asked_owner, asked_subject,
                       attribute_vocabulary, measures,
                       names_an_agent, negated_scope, per_units, parse_schema_contexts, passive_subject, schema_contexts,
                       schema_groups, share, typed_as, value_names_an_agent,
                       wiki_schema_groups)
from .candidates import _schema_page
from ..models import Claim
from ..schema.keys import attr_key
from .answer_types import (_CLOCK, _MONEY, _TYPES, AGENT_TYPES, _shaped, answer_type)
from .scoring import (MIN_ASPECT, MIN_ASPECT_STATEMENT, PAGE_CONTEXT, _Attribute,
                      _attribute_counter, _PageDoc, _tf, attribute_text)
from .text import (_KIND_KEYS, ATTRIBUTE_SYNONYMS, STOPWORDS, SYNONYM_WEIGHT, SYNONYMS, key,
                   stems, tokens)
from .coverage import digits as _digits

# nouns that name the role of an answer, not its content: the word before them is the head
LINKS_TO = "links to"  # the attribute of a bare wikilink (compiler/extract)
GENERIC_HEADS = frozenset("step steps process procedure rule rules requirement "
                          "requirements detail details information info way ways".split())

# the events a record's dates mark, by the words that name them: a date of one event does not
# answer "when" of another ("when will the bug be *fixed*" is not the ticket's *created* date).
# A deadline ("due") may be when the end is planned, so it agrees with the end.
_EVENTS = {
    "end": "fix fixed resolve resolved resolution close closed ship shipped release released "
           "deploy deployed launch launched complete completed finish finished deliver "
           "delivered done expire expires expired expiry expiration lapse lapses",
    "start": "create created creation open opened report reported file filed raise raised "
             "log logged submit submitted",
    "change": "update updated modify modified",
    "due": "due deadline",
}
EVENT_OF = {key(w): name for name, words in _EVENTS.items() for w in words.split()}
_AGREE = {("end", "due"), ("due", "end")}
_ISO_DATE = re.compile(r"\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?Z?)?$")
# an asked attribute that is an amount or a count: a stage, a name or a city does not answer it
NUMERIC_NOUNS = frozenset(key(w) for w in "revenue revenues amount price cost headcount employees "
                          "salary budget turnover arr mrr income profit rate".split())


# the asked kind of a related page ("our *contact* at X", "the *deal* for X") and the page
# types that are that kind
REVERSE_KINDS = {key(w): frozenset(types.split()) for w, types in (
    ("contact", "contact person"), ("contacts", "contact person"),
    ("deal", "deal opportunity"), ("deals", "deal opportunity"),
    ("opportunity", "deal opportunity"), ("opportunities", "deal opportunity"),
    ("ticket", "ticket issue"), ("tickets", "ticket issue"))}

# words that pick no particular one of the related pages ("our *main* contact")
PLAIN_QUALIFIERS = frozenset(key(w) for w in "main primary key usual our we us have".split())

def reverse_kinds(terms: Sequence[str]) -> frozenset[str]:
    """The page types of the related kind a question's keyed terms ask for."""
    return frozenset(t for w in terms for t in REVERSE_KINDS.get(w, ()))


def is_name_claim(claim: Claim) -> bool:
    """A page's own name (what a related page answers with)."""
    return claim.kind == "field" and claim.attribute == "name"


def events_in(words: Sequence[str]) -> set[str]:
    """The record events (end, start, change, due) the keyed words name."""
    return {EVENT_OF[w] for w in words if w in EVENT_OF}


# "when is support *open*", "when are the offices closed": a state in the present, asked of
# its hours, not the date of an event ("when was the ticket closed")
_STATE = re.compile(r"\b(?:is|are|'s|'re)\s+(?:[\w'-]+\s+){0,5}?(?P<w>open|closed|shut)\b",
                    re.I)


def asked_events(question: str) -> set[str]:
    """The record events a "when" question asks the date of, by its words (:func:`events_in`),
    an open or closed state in the present excepted."""
    states = {key(m.group("w")) for m in _STATE.finditer(question)}
    return events_in([k for k in (key(w) for w in tokens(question)) if k not in states])


def other_event(asked: set[str], named: set[str]) -> bool:
    """A date attribute naming only events other than (and not agreeing with) the asked."""
    return bool(asked and named and not (named & asked)
                and not any((a, n) in _AGREE for a in asked for n in named))


def says_nothing(claim: Claim) -> bool:
    """A bare link or a page's own name says nothing a question asks; a reference of a named
    attribute does ("which account does Dana work for": her *account*, "which component does
    the ticket affect": its *component*)."""
    return (claim.kind == "reference" and claim.attribute == LINKS_TO) or (
        claim.kind == "field" and claim.attribute == "name")


def _singular(word: str) -> str:
    w = word.lower()
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ses", "xes", "zes", "ches", "shes")):
        return w[:-2]
    return w[:-1] if w.endswith("s") and not w.endswith("ss") else w


# (abstain4) a calendar day the question names ("the week of November 23", "on 2026-11-23")
_ASKED_DAY = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+"
                        r"\d{1,2}(?:st|nd|rd|th)?\b|\b\d{4}-\d\d-\d\d\b|\bweek\s+of\b", re.I)
# head nouns that ask a date, which a named day may well qualify ("the deadline for May 4")
_DATE_NOUN_KEYS = frozenset(key(w) for w in "date day deadline cutoff time start end expiry "
                            "expiration renewal launch".split())
# a duration relative to an event ("30 days after the trip", "within 2 weeks of delivery")
_RELATIVE = re.compile(r"\b(?:after|before|within|prior|following|from|since|until|of|once)\b",
                       re.I)
_DOLLARS_ASKED = re.compile(r"\bdollars?\b|\bin\s+(?:usd|eur|euros?|pounds?)\b", re.I)
# a value that is a count and its noun ("2 delivery attempts"), and the noun a question counts
_COUNT_VALUE = re.compile(r"^\s*(?:about\s+|up\s+to\s+)?\d[\d,.]*\s+(?P<noun>[A-Za-z][A-Za-z -]{2,40})$")
_HOW_MANY_NOUNS = re.compile(r"\bhow\s+many\s+(?P<np>(?:[\w-]+\s+){0,2}?[\w-]+?)(?=\s+(?:are|is|"
                             r"were|was|do|does|did|have|has|can|will|would|should|on|in|at|per|"
                             r"for|of|we|does)\b|\s*\?|$)", re.I)
_COUNT_OF = re.compile(r"\b(?:number|count|quantity)\s+of\s+(?:the\s+|our\s+)?(?P<n>[^\W\d_]+)",
                       re.I)


# numbers that count no things: spans of time, amounts, times of day, dates, shares
_UNCOUNTED = re.compile(
    r"\d[\d,.]*\s*-?\s*(?:business\s+|calendar\s+|working\s+)?(?:second|minute|min|hour|hr|"
    r"day|week|month|year)s?\b|[$€£¥]\s*\d[\d,.]*|\d[\d,.]*\s*(?:%|percent)|\d{1,2}:\d\d|"
    r"\d{4}-\d\d(?:-\d\d)?", re.I)


# (answer8) a number standing as a word counts; digits inside an identifier ("@7120:3f1a9c42",
# "RM-26-118407", "v4.3") count nothing
_STANDALONE_NUMBER = re.compile(r"(?<![\w@:/#.-])\d[\d,.]*(?![\w@:/#-]|\.\d)")


_PERIOD = re.compile(r"\b(?:(hour|dai|day|week|month|annual|year|night)(?:ly|s)?\b|"
                     r"(?:per|a|an|each|every)\s+(hour|day|week|month|year|night|annum))", re.I)
_PERIOD_OF = {"dai": "day", "annual": "year", "annum": "year"}
_FOUR_WEEKS = re.compile(r"\b(?:4|four)[- ]weeks?\b|\b(?:28|30) days\b", re.I)


def _periods(text: str) -> set[str]:
    """The periods a rate is given per ("weekly", "per day", "a month"), as their nouns."""
    out = set()
    for m in _PERIOD.finditer(text):
        word = (m.group(1) or m.group(2)).lower()
        if m.group(1) and not m.group(0).lower().endswith("ly") and m.group(0).lower() not in (
                "annual",):
            continue  # a bare "day" or "years" is a span, not a rate's period
        out.add(_PERIOD_OF.get(word, word))
    if _FOUR_WEEKS.search(text):
        out.add("month")  # a rate card's "4-week" column is its month
    return out


def _restates(value: str, question: str) -> bool:
    """A name the question already says ("Polar Peak" of *Polar Peak Creamery*): a value of
    two or more words of which all but one are the question's own restates what is asked of,
    it does not answer it."""
    words = value.split()
    if not 2 <= len(words) <= 5 or not all(re.fullmatch(r"[A-Z][\w'&.-]*", w) for w in words):
        return False  # a proper name, capitalised word by word
    named = {key(w) for w in names_in(question, STOPWORDS)}
    inside = sum(key(w) in named for w in words)
    return inside >= 2 and len(words) - inside <= 1


_CODE = re.compile(r"([a-z]{1,4})-?(\d{1,2})")


def _other_code(terms: Sequence[str], said: str) -> bool:
    """(answer6) The question names a code of letters and a number ("P3", "SEV1", "Q4", "tier
    2" is a number, left to the family rules) that the claim does not say, while the claim
    says a code of the same letters and another number ("p1 first response"): the claim is
    the other code's row."""
    asked = [m.groups() for t in terms if (m := _CODE.fullmatch(t))]
    if not asked:
        return False
    stated = {m.groups() for m in _CODE.finditer(said.lower())
              if not said[max(m.start() - 1, 0):m.start()].isalnum() or m.start() == 0}
    return any((p, n) not in stated and any(q == p and k != n for q, k in stated)
               for p, n in asked)


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
    names: set[str] = set()
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
    # "code" of a "product code / product family" pair), or by another form of the word
    # ("renewing" of a *renewal* date: one key the prefix of the other)
    named = question | {a for t in question for a in (
        *SYNONYMS.get(t, ()), *ATTRIBUTE_SYNONYMS.get(t, ()))}
    if not slots or slots & named or any(
            len(a) >= 5 and len(b) >= 5 and (a.startswith(b) or b.startswith(a))
            for a in slots for b in question if not a.isdigit()):
        return False
    if question & _IN_CHARGE and names_an_agent(claim.attribute):
        return False  # "who *handles* the account" names the account's manager, not its type
    # the qualifier's own name is not a value the family lacks: "how long do *customers*
    # have to return …" asks every customer tier's window, not a tier the policy omits
    said = set(mine) | {key(t) for t in tokens(claim.value)} | names
    return bool(question - said - set(SYNONYMS))


def other_member(claim: Claim, siblings: Sequence[tuple[Claim, str]],
                 question: set[str]) -> bool:
    """The question names the qualifier value of another member of the claim's family and
    none of its own ("support hours for *Enterprise* customers" is not the Standard row)."""
    own = {key(t) for _, v in _pairs(getattr(claim, "qualifiers", None)) for t in tokens(v)}
    if not own or own & question:
        return False
    others: set[str] = set()
    for other, _ in siblings:
        if other.attribute == claim.attribute and other is not claim:
            others |= {key(t) for _, v in _pairs(getattr(other, "qualifiers", None))
                       for t in tokens(v)}
    return bool((others - own) & question)


def _forms(word: str) -> frozenset[str]:
    """Keys of a word and of its singular where the stemmer misses it ("loaves" → "loaf",
    "knives" → "knife")."""
    out = {key(word)}
    if len(word) > 4 and word.endswith("ves"):
        out |= {key(word[:-3] + "f"), key(word[:-3] + "fe")}
    return frozenset(out)


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


# words a "which …" question names the kind of someone by: answered by an attribute or value
# that names someone ("which department handles …" by a *claims handler*: Customer Care)
AGENT_KINDS = frozenset("""person people department team group company firm organisation
    organization vendor supplier provider partner contractor carrier courier agency bank insurer
    colleague employee""".split())
_AGENT_KIND_KEYS = frozenset(key(w) for w in AGENT_KINDS)
# a leading conditional clause ("If …, what …"; "When …, how …"), up to its comma
_LEADING_CONDITION = re.compile(r"^\s*(?:if|when|whenever|once|suppose|say)\s+[^,?]{3,120},\s*(?="
                                r"(?:what|how|who|which|when|where|is|are|does|do|can)\b)", re.I)
SITUATION_WEIGHT = 0.25
# the sentences before the last one that asks something ("Machine got stolen. How long …?")
_EARLIER_SENTENCES = re.compile(r"^.*[.!;]\s+(?=[^.!;]*\?\s*$)", re.S)
# a labelled line: "Impact: 312 districts.", "Root cause: the TLS certificate …"
_LABELLED = re.compile(r"^\s*[A-Z][\w'/&()-]*(?:\s+[\w'/&()-]+){0,3}\s*:\s+\S")
_MONTH_KEYS = frozenset(key(w) for w in (
    "january february march april may june july august september october november december"
).split())
# how sources state a limit: "up to five days", "at most", "no more than", "capped at"
# (before an amount: "up to $50,000", "within 60 miles"; not "available within the portal")
_UP_TO = re.compile(r"\b(?:up\s+to|within|at\s+most|no\s+more\s+than|not\s+(?:to\s+)?exceed|"
                    r"capped\s+at|a\s+maximum\s+of|maximum\s+of)\s+(?:[$€£]\s*)?(?:\d|(?:one|"
                    r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|"
                    r"twenty|thirty|forty|fifty|sixty|ninety|hundred)\b)", re.I)
_LIMIT_KEYS = frozenset(key(w) for w in "limit cap maximum max most ceiling".split())


# "who <verb>s …": a verb any one in charge does ("who runs / owns / looks after the account")
# is answered by whoever the claim names; another verb ("who *approves* travel claims") must
# be the claim's own
_WHO_VERB = re.compile(r"\bwho\s+(?!is\b|are\b|was\b|were\b|do\b|does\b|did\b|can\b|will\b|"
                       r"should\b|would\b|must\b|has\b|have\b|had\b|may\b|could\b)([a-z]+)",
                       re.I)
_IN_CHARGE = frozenset(key(w) for w in (
    "own owns owned manage manages managed run runs lead leads led head heads handle handles "
    "look looks oversee oversees supervise supervises cover covers deal deals work works "
    "take takes sell sells serve serves support supports").split())


def who_verb(question: str) -> str:
    """The key of the verb of a "who <verb>s …" question, "" when it is one any one in charge
    does or there is none."""
    m = _WHO_VERB.search(question)
    if not m:
        return ""
    k = key(m.group(1))
    return "" if k in _IN_CHARGE or k in STOPWORDS else k


# a question about one extreme member ("the *oldest* truck") is not answered by an aggregate
# over all of them ("average truck age", "total headcount")
SUPERLATIVE = re.compile(r"\b(?:oldest|newest|youngest|largest|biggest|smallest|highest|lowest|"
                         r"longest|shortest|cheapest|fastest|slowest|heaviest|lightest|"
                         r"most\s+expensive|least\s+expensive)\b", re.I)
_AGGREGATE = re.compile(r"\b(?:average|avg|mean|median|typical|total|overall)\b", re.I)


_CELL = re.compile(r"^[^:;.]{1,40}:")  # "Expense: Ground transport; Limit: …", a table's row
_CLAUSE_END = re.compile(r";\s+|(?<=[a-z)])\.\s+(?=[A-Z])")


def value_clause(claim: Claim) -> str:
    """The clause of a prose quote that states the claim's value: "Kestrel has 184 employees;
    a second office is in Toronto" says the 184 of the whole firm, not of the Toronto office.
    A table row's cells ("Data category: …; Retention period: 3 years") belong together, and a
    quote whose clauses do not show the value is kept whole."""
    quote = claim.quote or ""
    if _CELL.match(quote) or not _CLAUSE_END.search(quote):
        return quote
    value = re.sub(r"\s+", " ", claim.value.strip().lower())
    parts = [p for p in _CLAUSE_END.split(quote)
             if value and value in re.sub(r"\s+", " ", p.lower())]
    return " ".join(parts) if parts else quote


# a unit a value may be given in by another word ("per *km*" of a rate per kilometre)
_UNIT_SAME = {key(a): frozenset(key(b) for b in g.split() if b != a)
              for g in ("km kilometre kilometer kilometres kilometers", "mile miles mileage",
                        "kg kilo kilogram kilograms kilos", "hour hr hours hourly",
                        "day daily days", "week weekly weeks", "month monthly months",
                        "year annual yearly annually years", "night nightly nights",
                        "person head capita", "user seat users seats")
              for a in g.split()}


_UNRESTRICTING_KEYS = frozenset(key(w) for w in UNRESTRICTING)
_GENERIC_KEYS = frozenset(key(w) for w in GENERIC_HEADS)
# the words naming an amount asked for; a sentence must say one of them (or a synonym)
_AMOUNT_KEYS = frozenset(key(w) for w in "price cost fee rate charge".split())
# a question about what is planned ("which version is the API *slated for*") is not answered by
# what holds now (a product's *current* version)
_PLANNED = re.compile(r"\b(?:slated|planned|scheduled|targeted|earmarked|due|expected|"
                      r"going\s+to|upcoming|next)\b", re.I)
_NOW = frozenset(key(w) for w in "current currently present existing today now live".split())
# words by which a sentence says a period ends ("runs *until* March", "*through* 2027")
_ENDING = frozenset(key(w) for w in "end ends ended ending until till through".split())


# words that open a phrase saying in what context a value holds ("*on* a full charge")
_CONTEXT_OPENERS = frozenset("on with after per from under during within".split())


# the everyday words for the kind of a page ("the *customer* of the deal" is its account's)
_PAGE_KIND_WORDS = {key(k): frozenset(key(w) for w in v.split()) for k, v in (
    ("account", "customer client company organisation organization firm"),
    ("contact", "person people"),
    ("product", "device item"),
    ("opportunity", "deal"),
)}


class AspectMatcher:
    """The claim-side checks of a :class:`compiler.retrieval.Retriever` (``schema_words``: the
    wiki's merged schema vocabulary; ``_asks_who``, ``_counting``, ``_measured``,
    ``_asked_pages``: what the question being retrieved asks)."""

    schema_words: dict[str, frozenset[str]]
    _negated: frozenset[str] = frozenset()
    _action: str = ""
    _window = False
    _owner: tuple[frozenset[str], ...] = ()
    _per: tuple[str, ...] = ()
    _measures: tuple[tuple[str, str], ...] = ()

    def _read_question(self, question: str, stopwords: frozenset[str]) -> None:
        """What the question asks beyond its head, read once per clause: the scope it excludes
        ("outside peak season"), the action whose duration it asks ("take to *recharge*"), the
        thing its asked phrase is of ("the price *of an extended service contract*"), and the
        subject of a passive duration ("how long are *helpdesk tickets* retained"), which
        restricts like a scope."""
        self._negated = frozenset(key(w) for t in negated_scope(question, stopwords)
                                  for w in tokens(t))
        action = asked_action(question, stopwords)
        self._action = key(action) if action else ""
        self._window = asks_window(question)
        self._owner = tuple(_forms(w) for t in asked_owner(question, stopwords)
                            for w in tokens(t))
        self._question_text = question
        self._per = tuple(key(w) for w in per_units(question, stopwords))
        self._measures = tuple(measures(question))
        self._scope = list(dict.fromkeys([*getattr(self, "_scope", []), *(
            key(w) for t in passive_subject(question, stopwords) for w in tokens(t))]))
        self._subject = tuple(dict.fromkeys(
            key(w) for t in asked_subject(question, stopwords) for w in tokens(t)))
        self._condition = tuple(dict.fromkeys(
            key(w) for t in asked_condition(question, stopwords) for w in tokens(t)))
        self._planned = bool(_PLANNED.search(question))
        # a leading "If a customer keeps the waiver on their contract, what does it cost?":
        # the situation, which the answering sentence rarely repeats (its words weigh a
        # quarter in a statement's share; those the asking clause repeats weigh whole)
        # (so do the sentences before the asked one: "I've got a patient on the phone who was
        # just approved for copay help. What's the most we can cover in a year?")
        lead = _LEADING_CONDITION.match(question)
        before = _EARLIER_SENTENCES.match(question)
        end = max(lead.end() if lead else 0, before.end() if before else 0)
        asked = set(stems(question[end:], True))
        self._situation = frozenset(t for t in stems(question[:end], True) if t not in asked)
        # the record events a "when" asks the date of, kept for the prose reading
        # (compiler/retrieval/reading.py) that follows the retrieval
        self._when_events = (asked_events(question)
                             if answer_type(question) is _TYPES[3][1] else set())

    def _excluded(self, claim: Claim, page: _PageDoc | None) -> bool:
        """The claim is scoped to what the question excludes: its page's name, attribute,
        qualifiers or quote say most words of it ("Peak Season Plan — overtime cap" for "the
        overtime cap outside (the) peak season (period)")."""
        if not self._negated:
            return False
        said = set(stems(attribute_text(claim))) | set(stems(claim.quote or "")) | set(
            stems(claim.value))
        if page is not None:
            said |= {t for t in self._negated if page.title[t]}
        return len(self._negated & said) * 2 > len(self._negated)

    def _inside_named(self, claim: Claim, terms: Sequence[str]) -> bool:
        """The claim's page is named only inside the name of another page the question names
        ("Caldera Veterinary Group" inside "the Caldera Veterinary Group Vela expansion deal"):
        the question asks about that page, not this one, unless it also says this page's kind
        ("the *account* manager of …", "the *customer* of …")."""
        subject = claim.subject
        if subject not in getattr(self, "_named", set()) or not self.named_inside(subject):
            return False
        kind = key(subject.split("/", 1)[0])
        kinds = {kind, *SYNONYMS.get(kind, ()), *_PAGE_KIND_WORDS.get(kind, ())}
        return not any(t in kinds for t in terms)

    def named_inside(self, page: str) -> bool:
        """A page the question names only inside the name of another page it names ("Caldera
        Veterinary Group" inside "the Caldera Veterinary Group Kora pilot")."""
        titles = getattr(self, "titles", {})
        mine = set(stems(titles.get(page, ""), True))
        return bool(mine) and any(
            other != page and mine < set(stems(titles.get(other, ""), True))
            for other in getattr(self, "_named", set()))

    def names_action(self, claim: Claim, page: _PageDoc | None) -> bool:
        """The claim's attribute names the asked action ("*return* window"), or is a bare kind
        of value ("duration") on a page that says the action."""
        vocab = attribute_vocabulary(claim.attribute, key, self.schema_words)
        return self._attribute_names(claim, self._action, self._attribute_words(claim),
                                     vocab) or (
            all(t in _KIND_KEYS for t in stems(claim.attribute, True)) and page is not None
            and any(_tf(c, self._action) for c in (page.attribute, page.value, page.text)))

    def prefer_the_action(self, evid: Sequence, docs: dict) -> None:  # noqa: ANN001
        """A window question's answers: when some fitting attribute names the action ("the
        *return* window"), the others (a support deadline on a page about returns) are none."""
        if not (self._window and self._action):
            return
        fit = [e for e in evid if e.aspect is not None and e.claim.kind != "statement"]
        named = [e for e in fit if self.names_action(e.claim, docs.get(e.claim.subject))]
        if named:
            for e in fit:
                if e not in named:
                    e.aspect = None

    def _attribute_names(self, claim: Claim, word: str, attribute: Counter,
                         vocab: frozenset[str]) -> bool:
        """The claim's attribute (its words, the schema's and the lexicon's words for it)
        names ``word`` ("refund *processing* time" names "process"; "battery runtime" does not
        name "recharge")."""
        k = attr_key(claim.attribute)
        contexts = {key(w) for w in (*schema_contexts().get(k, ()), *wiki_schema_groups(
            _schema_page(self.state), parse_schema_contexts).get(k, ()))}
        own = _attribute_counter([attribute_text(claim), claim.field or ""])
        names = set(own) | (vocab - contexts) | set(getattr(attribute, "aliases", ()))
        forms = {word}
        if word.startswith("re") and len(word) > 4:
            forms.add(key(word[2:]))  # "recharge" is charging again
        return any(f in names or SYNONYMS.get(f, frozenset()) & names for f in forms)

    def _attribute_words(self, claim: Claim) -> Counter:
        """A claim's attribute as it is matched: its words with its qualifiers, the source's
        field name or label ("Warranty_Months__c"), and the schema's words for the attribute
        (the base schema's and the wiki's own phrases: *battery runtime* is also "battery
        life" where the corpus's schema.yaml says so), each once."""
        c = _Attribute(_attribute_counter([attribute_text(claim), claim.field or ""]))
        # a number the question asks about inside the band the attribute states ("a *30%*
        # discount" of "discount above 20% up to 35%") is said by it
        for n in getattr(self, "_numbers", ()):
            if n not in c and in_band(claim.attribute, float(n)):
                c[n] = 1
        for k in attribute_vocabulary(claim.attribute, key, self.schema_words):
            c[k] = c[k] or 1
        # … and the lexicon's words for those words ("life" for a runtime, "owner" for a
        # manager), matched by the question's own word only
        c.aliases = frozenset(alt for k in c for alt in ATTRIBUTE_SYNONYMS.get(k, ())) - set(c)
        return c

    def slot_share(self, claim: Claim, nouns: Sequence[str]) -> float:
        """(answer6) The share of the asked phrase's own words (``nouns``: no entity's name,
        no word naming a kind of value) the claim's *attribute* says, with its schema and
        lexicon words: "which identity provider …" is asked of the *identity provider* field,
        which names it, before a sentence that only repeats the words. 0 for a statement."""
        if claim.kind == "statement" or not nouns:
            return 0.0
        attr = self._attribute_words(claim)
        return sum(1 for t in nouns if attr[t] or t in attr.aliases or any(
            attr[a] for a in SYNONYMS.get(t, ()))) / len(nouns)

    def _schema_words_of(self, claim: Claim) -> frozenset[str]:
        """The schema's words (not keys) for a claim's attribute: the base schema's and the
        wiki's own phrases."""
        k = attr_key(claim.attribute)
        return frozenset(schema_groups().get(k, ())) | frozenset(self.schema_words.get(k, ()))

    def _names_someone(self, claim: Claim) -> bool:
        """The claim names a person, team or organisation: by its attribute ("account
        *manager*"), its value ("CFO") or a link to such a page."""
        if claim.kind == "reference" or claim.value_type == "reference":
            return any(m.entity.split("/", 1)[0] in AGENT_TYPES for m in claim.mentions)
        return (names_an_agent(claim.attribute, self._schema_words_of(claim))
                or value_names_an_agent(claim.value))

    def vetoes_clause(self, claim: Claim, text: str, title: str) -> bool:
        """A clause read for a value (compiler/retrieval/reading.py) that is not about what the
        question asks, by the question's own words (:meth:`_read_question`): it is scoped to
        what the question excludes, gives a rate in another unit, measures the thing by another
        number, or says the asked action only as its context ("lasts 6 hours *on a full
        charge*" of "how long does it take to charge")."""
        words = set(stems(text)) | set(stems(title))
        if other_stage(getattr(self, "_question_text", ""), f"{attribute_text(claim)} {text}"):
            return True  # (answer8) "what did it actually cost" is not "estimated cost: $6,400"
        if self._negated and len(self._negated & words) * 2 > len(self._negated):
            return True
        if self._other_event_said(set(stems(text))):
            return True  # "when does the rental expire" is not the date it was reviewed
        if any(t not in words and not (_UNIT_SAME.get(t, frozenset()) & words)
               for t in self._per):
            return True
        said = {unit: number for number, unit in measures(text)}
        if any(unit in said and said[unit] != number and (number, unit) not in set(
                measures(text)) for number, unit in self._measures):
            return True
        if self._action and not self._window:
            toks = tokens(text)
            uses = [i for i, t in enumerate(toks) if self._action in (
                key(t), key(t[2:]) if t.startswith("re") else "")]
            return not uses or all(any(
                toks[j] in _CONTEXT_OPENERS for j in range(max(0, i - 3), i)) for i in uses)
        return False

    def _other_row(self, claim: Claim, covered) -> bool:
        """A table row's attribute ("base commission *for account manager*") whose row names
        the question's noun with another modifier than the question's ("*branch* managers"):
        the row of another kind of that noun."""
        attribute = claim.attribute.lower()
        if " for " not in attribute:
            return False
        row = stems(attribute.split(" for ", 1)[1], True)
        if len(row) < 2:
            return False
        asked = stems(getattr(self, "_question_text", ""), True)
        head, own = row[-1], set(row[:-1])
        # a row naming one kind of someone ("… for national account *executive*") does not
        # answer a question about another kind the question names ("branch *managers*")
        words = re.findall(r"[a-z]+", attribute.split(" for ", 1)[1])
        subject = getattr(self, "_subject", ())
        if words and names_an_agent(words[-1]) and subject and not set(row) & set(asked) and \
                names_an_agent(" ".join(subject)) and not any(
                    SYNONYMS.get(t, frozenset()) & set(row) for t in subject):
            return True
        # (answer8) a row of the same kind as the question's "for …" phrase, but another head:
        # "the setpoint for fresh *produce*" does not answer "… for fresh cut *flowers*"
        m = re.search(r"\bfor\s+([^?.!,;]+)$", getattr(self, "_question_text", "").strip()
                      .rstrip("?.! "), re.I)
        wanted = stems(m.group(1), True) if m else []
        if len(wanted) >= 2 and head not in asked and not any(
                SYNONYMS.get(t, frozenset()) & {head} for t in asked) \
                and set(wanted[:-1]) & own and wanted[-1] not in set(row) \
                and not covered(wanted[-1]):
            return True
        for i, t in enumerate(asked):
            if t == head and i > 0:
                mod = asked[i - 1]
                if (mod not in own and not mod.isdigit() and not covered(mod)
                        and not own & set(asked)):
                    return True
        return False

    def _rival(self, claim: Claim) -> bool:
        """(answer8) The claim's attribute names another stage of the asked amount
        ("estimated loss" for what was paid) or another kind of the asked noun ("standard
        commission" for the contingent one), see :mod:`compiler.retrieval.rivals`."""
        text = getattr(self, "_question_text", "")
        attribute = attribute_text(claim)
        if other_stage(text, attribute):
            return True
        said = set(stems(f"{attribute} {claim.value} {claim.quote or ''}"))
        asked = set(stems(text))
        return other_kind(getattr(self, "_head_phrase", ()), attribute,
                          lambda t: t in said, asked)

    def _names_other_attribute(self, nouns: Sequence[str]) -> bool:
        """Some attribute the wiki states is named by all these keys (and at most one word
        more): the asked phrase is that attribute's name."""
        names = getattr(self, "_attribute_key_sets", None)
        if names is None:
            state = getattr(self, "state", None)
            names = self._attribute_key_sets = [] if state is None else [
                frozenset(key(w) for w in tokens(a)) for a in state.attribute_names()]
        asked = set(nouns) - STOPWORDS
        return any(asked <= n and len(n) <= len(asked) + 1 for n in names)

    def _wiki_uses(self, t: str) -> bool:
        """The wiki says the word somewhere (a word it never uses may be a paraphrase: the
        "*underlying* cause" of a sentence giving the root cause)."""
        df_of = getattr(self, "_df_of", None)
        return df_of is None or bool(df_of("page", t) or df_of("record", t))

    def _other_event_said(self, said: set[str]) -> bool:
        """A sentence read for the date of the event a "when" asks ("expire", "fixed") that
        names no such event, or only another one ("reported", "tipped over on …")."""
        asked = getattr(self, "_events", set()) or getattr(self, "_when_events", set())
        if not asked:
            return False
        named = events_in(list(said)) | ({"end"} if said & _ENDING else set())
        return not named or other_event(asked, named)

    def _off_subject(self, page: _PageDoc, entity: set[str], covered) -> bool:
        """The subject of the question's verb ("how much PTO do *part-time employees* get") is
        not the claim's: its head noun is neither in the claim nor on its page while the wiki
        uses it elsewhere, or a word modifying it ("*part-time*") is in neither, wherever the
        wiki uses it: the page speaks of another kind of that subject (its full-time staff)."""
        subject = [t for t in getattr(self, "_subject", ()) if t not in entity]
        if not subject:
            return False
        if self._off_page(subject[-1:], page, covered):
            return True
        return any(t.isalpha() and t not in _KIND_KEYS and t not in _UNRESTRICTING_KEYS
                   and not covered(t) and not any(
                       _tf(c, t) for c in (page.title, page.attribute, page.value, page.text))
                   for t in subject[:-1])

    def _off_condition(self, claim: Claim, page: _PageDoc, entity: set[str], covered,
                       weight: dict[str, float]) -> bool:
        """The condition the question puts on what it asks ("a fee *if a customer returns a
        machine late*") is mostly neither in the claim nor on its page (its words the wiki uses
        elsewhere, by weight): the claim answers another case."""
        words = [t for t in getattr(self, "_condition", ())
                 if t not in entity and t.isalpha() and len(t) > 2]
        df_of = getattr(self, "_df_of", None)
        if df_of is None or not words:
            return False
        # the words the wiki uses weigh in the share; a word it never uses may be a paraphrase
        # ("working from *home*" of hybrid working) but still counts as one missing: two such
        # words are a case it never speaks of ("if a customer *cancels* a shipment *late*")
        used = [t for t in words if df_of("page", t) or df_of("record", t)]
        def said_here(t: str) -> float:
            return 1.0 if covered(t) or any(
                _tf(c, t) for c in (page.title, page.attribute, page.value, page.text)) else 0.0

        # (two of its words missing is another case: "a fee if a customer *cancels* a shipment
        # *late*" is not a price that only says customers and shipments)
        return ((bool(used) and share(used, said_here, lambda t: weight.get(t, 1.0)) < 0.5)
                or sum(not said_here(t) for t in words) > 1)

    def _other_measure(self, claim: Claim) -> bool:
        """The question measures what it asks about ("a *60 ft* boom") and the claim's
        attribute or qualifiers measure it in the same unit by another number ("45 ft")."""
        if not self._measures:
            return False
        said = {unit: number for number, unit in measures(
            claim.value if claim.kind == "statement" else attribute_text(claim))}
        return any(unit in said and said[unit] != number and (number, unit) not in
                   set(measures(claim.quote or "")) for number, unit in self._measures)

    @staticmethod
    def _counts_other(claim: Claim, fields: Sequence[Counter], question: str) -> bool:
        """(abstain4) The value is a number and the noun it counts ("2 *delivery attempts*"),
        and neither that noun nor the claim's attribute says the noun the question counts
        ("how many *pharmacists*"): it counts something else."""
        m = _COUNT_VALUE.match(_digits(claim.value))
        asked = _HOW_MANY_NOUNS.search(question)
        if m is None or asked is None:
            return False
        counted = [w for w in tokens(asked["np"]) if w.lower() not in STOPWORDS]
        if not counted:
            return False
        # whole words, singular (word keys are stems: "pharmacists" and "pharmacy" share one)
        said_words = {_singular(w) for w in tokens(f"{m['noun']} {attribute_text(claim)}")}
        said = set(stems(m["noun"])) | set(fields[1])
        return not any(_singular(w) in said_words or SYNONYMS.get(key(w), frozenset()) & said
                       for w in counted)

    def _off_scope_of(self, claim: Claim, page: _PageDoc, entity: set[str], covered) -> list[str]:
        """The words restricting the asked phrase ("the product manager *for the mobile
        apps*", "the warranty *on spare batteries*") that neither the claim nor anything on its
        page says, but that the wiki uses elsewhere: the question asks about another scope than
        the claim's, which the wiki's words only seem to match. A word the wiki never uses is a
        paraphrase it cannot judge; a bare kind of someone ("which *team*") is judged by who the
        claim names; an identifier ("SUP-102") is a name, judged by the name checks."""
        return self._off_page([t for t in getattr(self, "_scope", ()) if t not in entity],
                              page, covered)

    def _off_page(self, words: Sequence[str], page: _PageDoc, covered) -> list[str]:
        """The words neither the claim covers nor its page says that the wiki uses elsewhere
        (a word it never uses is a paraphrase it cannot judge; a bare kind of someone, "which
        *team*", is judged by who the claim names; an identifier, "SUP-102", by the name
        checks)."""
        df_of = getattr(self, "_df_of", None)
        if df_of is None:
            return []
        return [t for t in words
                if t not in _KIND_KEYS and t not in _AGENT_KIND_KEYS and t.isalpha()
                and not covered(t)
                and not any(_tf(c, t) for c in (page.title, page.attribute, page.value, page.text))
                and (df_of("page", t) or df_of("record", t))]

    def _paraphrased_keywords(self, asked: Sequence[str], covered) -> bool:
        """A keyword query ("car mileage payback rate") whose every word the wiki uses is the
        claim's, at least two of them, and whose other words (as many at most) the wiki never
        uses: those are a paraphrase it cannot judge, not another thing asked."""
        text = getattr(self, "_question_text", "")
        if not keyword_query(text) or any(w.lower() in PREPOSITIONS for w in tokens(text)):
            return False  # (what a preposition adds is a scope, never a paraphrase)
        says = getattr(self, "_says_word", None)
        words = {key(w): w for w in tokens(self._question_text)}
        known = [t for t in asked if (says(words[t]) if says and t in words
                                      else self._wiki_uses(t))]
        return len(known) >= 2 and len(asked) - len(known) <= len(known) and all(
            covered(t) > 0 for t in known)

    def _aspect(self, claim: Claim, terms: Sequence[str], head: Sequence[str],
                weight: dict[str, float], entity: set[str],
                wanted: re.Pattern | None, page: _PageDoc | None = None,
                noun: Sequence[str] = ()) -> float | None:
        """The share of the question's aspect (its words but its entity's name) this claim
        covers, or None when it does not answer what is asked: too little of the aspect, less
        than half of the asked head, or a statement without a value of the asked type."""
        if says_nothing(claim):
            return None
        if self._excluded(claim, page):
            return None  # "the overtime cap outside peak season" is not the peak season's
        if self._inside_named(claim, terms):
            return None  # "who owns the Caldera … expansion deal" is not the account's manager
        if _other_code(terms, f"{attribute_text(claim)} {claim.value}"):
            return None  # (answer6) "the *P3* first response" is not the P1 row
        statement = claim.kind == "statement"
        if not statement and self._rival(claim):
            return None  # (answer8) "the contingent commission" is not the standard one
        fields = [Counter(stems(claim.value))]
        if not statement:
            # the attribute with its qualifiers and the source's own field name or label
            # ("Warranty_Months__c", "numberofemployees")
            fields += [self._attribute_words(claim), Counter(stems(value_clause(claim)))]
        vocab = (attribute_vocabulary(claim.attribute, key, self.schema_words)
                 if not statement else frozenset())

        # "which *department* …", the head a bare kind of someone (not "flour *supplier*",
        # an attribute's name)
        asked_kind = [t for t in head if t not in entity]
        # … or the head noun of one whose other words the claim says ("which *haulage
        # companies*": the carriers a claim of supported carriers names; not "flour
        # *supplier*" of a page whose manager is named)
        kind_head = [len(asked_kind) == 1 and asked_kind[0] in _AGENT_KIND_KEYS]

        # (a date the schema left untyped, a CRM's "2022-04-11T16:03:27Z", is a date too)
        dated = not statement and (claim.value_type in ("date", "datetime") or bool(
            _ISO_DATE.match(claim.value.strip())))

        def covered(t: str) -> float:
            if any(f[t] or t in getattr(f, "aliases", ()) for f in fields) or t in vocab:
                return 1.0
            if t in _LIMIT_KEYS and _UP_TO.search(claim.value):
                return 1.0  # "up to five days", "at most $50,000": a limit, a maximum
            if any(f[a] for f in fields for a in SYNONYMS.get(t, ())) or (
                    SYNONYMS.get(t, frozenset()) & vocab):
                return SYNONYM_WEIGHT
            if t in EVENT_OF and dated and EVENT_OF[t] in events_in(list(fields[1])):
                return SYNONYM_WEIGHT  # "fixed" of a *resolved* date: the same event
            if kind_head[0] and t == asked_kind[-1] and not statement \
                    and self._names_someone(claim):
                return 1.0  # "which *department* handles claims": a claims handler's value
            if any(key(m.entity.split("/", 1)[0]) == t
                   and m.entity not in getattr(self, "_asked_pages", ()) for m in claim.mentions):
                # "which follow-up *ticket*": a claim linking to a ticket page (not back to the
                # page the question names, which restates it)
                return 1.0
            shape = _KIND_KEYS.get(t)
            return 1.0 if shape is not None and (shape.search(_digits(claim.value)) or typed_as(
                shape, claim.value_type)) else 0.0

        if len(asked_kind) > 1 and asked_kind[-1] in _AGENT_KIND_KEYS:
            kind_head[0] = all(covered(t) > 0 for t in asked_kind[:-1])
        aspect = [t for t in terms if t not in entity]
        situation = getattr(self, "_situation", frozenset()) if statement else frozenset()
        # (a word saying only which kind is meant, "general", "standard", is no part of what
        # a sentence must cover: sources rarely repeat it beside the value)
        got = share([t for t in aspect if t not in _UNRESTRICTING_KEYS] or aspect, covered,
                    lambda t: weight.get(t, 1.0) * (SITUATION_WEIGHT if t in situation else 1.0))
        if (page is not None and not statement and wanted is not None
                and _shaped(wanted, claim.value, claim.value_type)):
            # a value of the asked type is read in the context of its page: "how long did the
            # outage last" is answered by the outage ticket's "duration"
            on_page = share(aspect, lambda t: 1.0 if any(
                _tf(c, t) for c in (page.attribute, page.value, page.text)) else 0.0,
                lambda t: weight.get(t, 1.0))
            got = max(got, PAGE_CONTEXT * on_page)
        if page is not None and statement and _LABELLED.match(claim.value):
            # a labelled line of a ticket or a page ("Impact: 312 districts.", "Root cause:
            # the TLS certificate …") is a field in prose: read in its page's context, as a
            # field is ("October login outage: districts affected")
            got = max(got, share(aspect, lambda t: covered(t) or (PAGE_CONTEXT if any(
                _tf(c, t) for c in (page.title, page.attribute, page.value, page.text))
                else 0.0), lambda t: weight.get(t, 1.0) * (
                    SITUATION_WEIGHT if t in situation else 1.0)))
        counted = _COUNT_OF.search(getattr(self, "_question_text", ""))
        if counted and wanted is not None and wanted is not _TYPES[2][1] and not covered(
                key(counted["n"])):
            # "when did the *number of pallets* change" asks about a count: a claim that does
            # not say what is counted (the hub's opening hours, though "number" is matched by
            # any digits) is not about it
            return None
        if counted and not statement:
            count = [key(w) for w in tokens(counted.group())]
            if self._names_other_attribute(count) and not all(
                    fields[1][t] or t in vocab for t in count if t not in STOPWORDS):
                return None  # … nor its trucks' average age, when the wiki holds the count
        # at least half of the asked head's own words (not those naming a kind of value,
        # "number", "date": a value's shape answers them) must be covered
        asked = [t for t in head if t not in entity]
        nouns = [t for t in asked if t not in _KIND_KEYS] or asked
        # (a keyword query's words are all its head: a month its page says, "FleetLink
        # *September* outage duration", dates the thing asked, as "in September" would)
        # … and so does the kind its page says it is ("PowerSchool decimals *bug* assignee" of
        # a ticket whose type is Bug)
        on_page = (lambda t: page is not None and (
            (t in _MONTH_KEYS and any(_tf(c, t) for c in (
                page.title, page.attribute, page.value, page.text)))
            or any(c.attribute.lower().endswith("type") and key(c.value.strip()) == t
                   for c, _ in page.claims)
            # (answer6) … and so do the words its page says: "late geofence exit alerts fix
            # version" names the ticket by its summary and asks its fix version (the head noun,
            # "version", must still be the claim's own)
            # (not a number, nor a word of another row's label on the page: "weekly rate on a
            # *60 ft boom*" is not a generator's row of a rate card that lists a boom)
            or (not statement and not t.isdigit() and not _tf(page.attribute, t)
                and any(_tf(c, t) for c in (page.title, page.value, page.text))
                and not lenient.append(t)))) if keyword_query(
            getattr(self, "_question_text", "")) else (lambda t: False)
        lenient: list[str] = []
        if nouns and sum(covered(t) > 0 or on_page(t) for t in nouns) * 2 < len(nouns) and not (
                not statement and self._paraphrased_keywords(asked, covered)):
            return None
        if lenient and not statement:
            # (answer6) … but what is asked is the claim's own: its attribute says the head
            # noun (unless that names a kind of value: "click *count*") and the word before it
            # ("expense report *submission* deadline" is no effective date of the expense
            # policy, which speaks of submitting reports; "Kessler general *liability* premium"
            # no total premium of an account whose page mentions liability; "price to keep a
            # mini ex per employee" no head count of a page that rents one)
            said = [*getattr(self, "_keyword_modifier", ()), *(
                () if noun and all(t in _KIND_KEYS for t in noun) else noun)]
            # (the kind its page says it is, "PowerSchool decimals *bug* assignee", is its page's)
            if not said or any(not (fields[1][t] or fields[2][t] or t in vocab
                                    or t in fields[1].aliases or (on_page(t) and t not in lenient))
                               for t in said):
                return None
        if not statement and len(asked) > 1 and self._names_other_attribute(asked) and not all(
                fields[1][t] or t in vocab for t in nouns):
            # the asked phrase is the name of another attribute the wiki holds: "the *escalation
            # manager* of the onboarding process" is not its onboarding owner, though an owner
            # is a manager (that attribute is stated for another entity, not this one)
            return None
        if statement and len(nouns) > 1 and not keyword_query(
                getattr(self, "_question_text", "")) and not all(
                covered(t) > 0 or t in _UNRESTRICTING_KEYS or t in _GENERIC_KEYS or (
                    page is not None and page.title[t]) or not self._wiki_uses(t)
                for t in nouns):
            # a sentence answers the asked phrase whole: "the *late payment* fee" is not a
            # sentence on charges reaching customers late (an attribute's name may say it in
            # other words; a sentence that leaves a word of it out speaks of something else)
            return None
        # … and its head noun itself: half of "oven temperature" is not enough when the half
        # that is covered is the modifier (a word naming a kind of value, "number", "hours",
        # is covered by a value of that shape or type)
        if noun and not (set(noun) & entity) and not any(covered(t) > 0 for t in noun):
            return None
        if not statement and noun and not (set(noun) & entity) and other_cell(
                claim.quote or "", claim.value, noun, lambda t: bool(
                    fields[0][t] or fields[1][t] or t in vocab or t in fields[1].aliases
                    or any(f[a] for f in fields[:2] for a in SYNONYMS.get(t, ())))):
            return None  # (answer8) "what commission does X pay" is not the row's AM Best cell
        modifier = getattr(self, "_kind_modifier", ())
        if noun and modifier and not (set(modifier) & entity) and not any(
                covered(t) > 0 for t in modifier):
            return None
        if statement and noun and not (set(noun) & entity) and all(
                t in _AMOUNT_KEYS for t in noun) and not any(
                fields[0][t] or fields[0][a] for t in noun for a in SYNONYMS.get(t, ())) \
                and not (page is not None and any(page.title[t] for t in noun)):
            # "what is the *fee* for a late claim": a sentence with an amount in it ("claims
            # above EUR 500 need sign-off") says a fee only when it says one (fee, charge, cost)
            return None
        if wanted is not None and not _shaped(wanted, claim.value, claim.value_type) and not (
                self._asks_who and not statement and claim.attribute != LINKS_TO and any(
                    m.entity.split("/", 1)[0] in AGENT_TYPES for m in claim.mentions)):
            return None  # (a link to a contact's page names someone, whatever its label says)
        if self._action and not statement and not self._window and not self.names_action(
                claim, page):
            # "how long does the battery take to recharge" is not its runtime: the attribute
            # must name the action (a bare "duration" is read in its page's context); of a
            # window ("how long do customers have to return …") only when another claim names
            # it (:meth:`prefer_the_action`): its attribute may say it in other words
            return None
        if not statement and self._owner and any(
                not any(covered(t) or t in entity or (page is not None and any(
                    _tf(c, t) for c in (page.title, page.attribute, page.value, page.text)))
                        # (answer6) … or its page's kind: "the title of the X *contact*"
                        or key(claim.subject.split("/", 1)[0]) == t
                        for t in forms)
                for forms in self._owner):
            # what the asked phrase is of must be the claim's or its page's: "the price of an
            # extended service contract" is not the pump's price, "how long does a
            # sterilisation cycle take" not its calibration interval
            return None
        if any(not covered(t) and not any(covered(a) for a in _UNIT_SAME.get(t, ()))
               for t in self._per):
            return None  # "what mileage rate per mile", "charge per gallon": the claim's unit
        if not statement and self._other_row(claim, covered):
            return None  # "branch managers" are not the row of account managers
        if page is not None and self._off_subject(page, entity, covered):
            return None  # "how much PTO do part-time employees get" is not all staff's PTO
        if page is not None and self._off_condition(claim, page, entity, covered, weight):
            return None  # "a fee if a customer returns late" is not a restocking fee
        asked_period = _periods(getattr(self, "_question_text", ""))
        if asked_period and not statement:
            stated = _periods(f"{attribute_text(claim)} {claim.value} {claim.quote}")
            if stated and not stated & asked_period:
                return None  # "the weekly price" is not "$18 per day"
        asked_bound = bound_of(getattr(self, "_question_text", ""), asked=True)
        if asked_bound is not None and bound_of(f"{attribute_text(claim)} {claim.value} "
                                                f"{claim.quote}") not in (None, asked_bound):
            return None  # "is there a *floor* on class size" is not answered by "up to 400"
        if getattr(self, "_planned", False) and not statement and \
                set(stems(attribute_text(claim))) & _NOW:
            return None  # "which version is the API slated for" is not the current version
        if statement and self._other_event_said(set(stems(claim.value))):
            return None  # "when does the contract expire" is not the date of an accident
        if self._other_measure(claim):
            return None  # "the weekly rate on a 60 ft boom" is not the 45 ft boom's
        if dated and other_event(
                getattr(self, "_events", set()), events_in(list(fields[1]))):
            return None  # "when will it be fixed" is not answered by the created date
        text = getattr(self, "_question_text", "")
        phrase = getattr(self, "_head_phrase", ())
        unknown = [t for t in (noun or (_noun_keys(phrase[-1]) if phrase else ()))
                   if t.isalpha() and len(t) > 2 and t not in entity
                   and not self._wiki_uses(t)]
        if unknown and len(phrase) > 1 and self._wiki_uses(key(phrase[-2])) and not \
                keyword_query(text) and not all(covered(t) > 0 for t in unknown):
            # (abstain4) an asked head noun the wiki never uses, after a word it does ("the
            # detention *penalty*", "a class-size *floor*"), names a concept of that thing it
            # does not hold, unless a synonym group says it: not a paraphrase to guess at (a
            # modifier of the head, "the *underlying* cause", still may be one; so may a bare
            # head, "our *people*")
            return None
        if not statement and getattr(self, "_events", set()) and (dated or (
                wanted is _TYPES[3][1] and wanted.search(claim.value))) and not events_in(
                list(fields[1])) and not any(fields[1][t] or t in vocab for t in aspect):
            # (abstain4) "when does our agreement expire" asks an event: a date whose attribute
            # names no event and none of the question's words ("go-live target" of an
            # onboarding ticket) is some other day of its page
            return None
        if dated and wanted is not _TYPES[3][1] and _ASKED_DAY.search(text) and not (
                set(noun) & _DATE_NOUN_KEYS):
            # (abstain4) "the fuel surcharge *for the week of November 23*": the day says which
            # value, it does not ask one; the policy's effective date is no surcharge
            return None
        if wanted is _TYPES[3][1] and not statement and not dated and not wanted.search(
                _digits(claim.value)) and not _RELATIVE.search(claim.value) and not any(
                fields[1][t] or t in vocab for t in aspect):
            # (abstain4) "when will single sign-on be available" is not a bare duration of
            # something else ("data retention period: 13 months"); a duration answers a "when"
            # only when it is relative ("30 days after …") or its attribute says what is asked
            return None
        if _DOLLARS_ASKED.search(text) and "%" in claim.value and not _MONEY.search(claim.value):
            return None  # (abstain4) "the dollar amount" is not "rose 4%"
        if getattr(self, "_counting", False) and not statement and self._counts_other(
                claim, fields, text):
            return None  # (abstain4) "how many pharmacists" is not "2 delivery attempts"
        if noun and set(noun) & NUMERIC_NOUNS and not statement and claim.value_type not in (
                "money", "number", "percent") and not re.search(r"\d", claim.value):
            return None  # "annual revenue" is an amount, not a deal's stage
        if getattr(self, "_counting", False) and not _STANDALONE_NUMBER.search(_UNCOUNTED.sub(
                " ", _digits(claim.value))):
            return None  # "how many chairs": "booked in 30-minute slots" counts no chairs
        if not statement and _restates(claim.value, getattr(self, "_question_text", "")):
            return None  # "which insurer handles the Polar Peak claim" is not Polar Peak Creamery
        if getattr(self, "_counting", False) and (
                claim.value_type in ("money", "date", "datetime") or _MONEY.search(claim.value)
                or _CLOCK.search(claim.value)):
            return None  # "how many docks" is not answered by a price, a date or dock hours
        measured = getattr(self, "_measured", None)
        if measured and not statement:
            subject, verb = measured
            if claim.value_type in ("duration", "date", "datetime") or not (
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
        if self._asks_who and not statement and claim.kind != "reference" \
                and not self._names_someone(claim):
            return None  # "who manages the account" is not answered by its city
        if getattr(self, "_superlative", False) and not statement and _AGGREGATE.search(
                attribute_text(claim)):
            return None  # "the oldest truck" is one truck, not the fleet's average age
        verb = getattr(self, "_who_verb", "")
        if verb and not statement and not covered(verb) and not (
                page is not None and page.title[verb] and not names_an_agent(claim.attribute)
                and value_names_an_agent(claim.value)):
            # "who approves travel claims" is not answered by the policy's owner; a row of
            # the *approval* policy naming a role ("discount above 35%: CFO") is who approves
            return None
        if not statement and claim.quote:
            # a name the question qualifies by, said in another clause of the claim's sentence
            # than its value ("184 employees; … a second office in Toronto"), qualifies
            # something else
            clause, whole = set(stems(value_clause(claim))), set(stems(claim.quote))
            if any(n in whole and n not in clause and not _tf(page.title if page else Counter(), n)
                   and not fields[1][n] for n in getattr(self, "_names_asked", ())):
                return None
        if page is not None and self._off_scope_of(
                claim, page, entity, covered):
            return None
        # a sentence of prose shares words with many questions by chance: it answers only
        # when it covers most of what is asked
        need = MIN_ASPECT_STATEMENT if statement else MIN_ASPECT
        return got if got >= need or not aspect else None


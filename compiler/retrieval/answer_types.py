"""What kind of value a question asks for (a duration, a quantity, a date, a name) and
whether a claim's value has it."""

from __future__ import annotations

import re

from .coverage import digits as _digits

_COUNTED = re.compile(r"\bhow\s+(?:many|much)\b", re.I)
# value types of the schema that never name someone
_NOT_NAMES = frozenset("enum number money percent duration date datetime boolean".split())
_COST_ASKED = re.compile(r"\bhow\s+much\b(?:\s+[\w'-]+){0,10}?\s+(?:cost|costs|charge|charged|pay|"
                         r"paid|spend|spent)\b", re.I)
_EVERY = re.compile(r"\bevery\s+(?:\d|other\b|few\b)", re.I)
_CLOCK = re.compile(r"\b\d{1,2}:\d\d\b|\d{4}-\d\d-\d\d")
_WHO = re.compile(r"^\s*(?:who|whom)\b|\bwho(?:'s|\s+is|\s+are|\s+was)?\b", re.I)
# page types a "who" question may be answered with a link to (people, teams, organisations)
AGENT_TYPES = frozenset("contact person people user employee staff team department group "
                        "account customer organisation organization company vendor supplier "
                        "partner owner".split())
_HOW_MANY = re.compile(r"\bhow\s+many\b", re.I)
_MONEY = re.compile(r"[$€£¥]\s*\d|\d\s*(?:usd|eur|gbp|chf|sek|dollars?|euros?|pounds?)\b|"
                    r"\b(?:usd|eur|gbp|chf|sek)\s*\d", re.I)


# what kind of value a question asks for, and how such a value looks
_TYPES = (
    (re.compile(r"\bhow (long|quickly|soon|fast|often|old)\b|\bwithin how\b|\bhow many "
                r"(seconds|minutes|hours|days|weeks|months|years)\b", re.I),
     re.compile(r"\d\s*(?:[a-z]+\s+)?(second|minute|min|hour|hr|day|week|month|year)s?\b|"
                r"\d+x\d+", re.I)),
    (re.compile(r"\b(what|which) (percentage|percent|share|proportion)\b|\bhow many percent",
                re.I), re.compile(r"\d\s*%|\bpercent")),
    (re.compile(r"\bhow (many|much|big|large)\b|\bwhat (is|are) the (number|amount|price|cost|rate|"
                r"size|total)\b", re.I), re.compile(r"\d")),
    # "when" asks for a date where it starts a clause ("By when must I …"), not as a
    # conjunction ("the step when handling returns")
    (re.compile(r"(?:^\s*|[,;]\s*|\b(?:and|by|until|since|from)\s+)when\b|"
                r"\bwhat (date|day|time|year)\b", re.I),
     # (a quarter or half of a year is a date too: "in Q2 2027", "H1 2026")
     re.compile(r"\d{4}-\d\d|\d{1,2}:\d\d|\b24\s*[x/×]\s*7\b|\baround[- ]the[- ]clock\b|\b[QH][1-4]\s*(?:FY\s*)?'?\d{2,4}\b|\b(january|february|march|april|may|june|july|"
                r"august|september|october|november|december|monday|tuesday|wednesday|"
                r"thursday|friday|saturday|sunday)\b", re.I)),
    (re.compile(r"^\s*(who|whom)\b|\bwho (is|are|leads|owns|runs|approves)\b", re.I),
     re.compile(r"^[^\d]*[A-Z][^\d]*$")),
    # an amount a verb asks ("what do we *charge* for …", "what did the compressor *cost*"):
    # money or a share, not any number ("1 nurse for every 4 chairs")
    (re.compile(r"\bwhat\s+(?:do|does|did|will|would)\s+(?:[\w'-]+\s+){0,5}?"
                r"(?:charge|cost|pay)\b", re.I),
     re.compile(_MONEY.pattern + r"|\d\s*%", re.I)),
)
# the schema's value types that answer each kind of question (compiler/schema/model.py)
_TYPED_AS = {id(_TYPES[0][1]): {"duration"}, id(_TYPES[1][1]): {"percent"},
             id(_TYPES[2][1]): {"number", "money", "percent", "duration"},
             id(_TYPES[3][1]): {"date", "datetime"}, id(_TYPES[5][1]): {"money", "percent"}}
TYPE_BOOST = 2.0  # a claim whose value has the shape the question asks for
TYPE_MISS = 0.6  # … and one whose value has not


def _shaped(wanted: re.Pattern, value: str, value_type: str | None = None) -> bool:
    """The value has the shape the question asks for (number words read as digits; a "when"
    is also answered by a duration: "30 days after the trip"), or the schema's type of its
    attribute has it ("NET 45" of a duration-typed *payment terms* answers "how many days")."""
    if wanted is _TYPES[4][1] and value_type in _NOT_NAMES:
        return False  # "who manages the account" is not answered by its account *type*
    v = _digits(value)
    if wanted is _TYPES[2][1] and (value_type in ("date", "datetime") or (
            _CLOCK.search(v) and not _MONEY.search(v) and value_type not in (
                "number", "money", "percent", "duration"))):
        return False  # "how much will it cost" is not answered by a due date
    if wanted is _TYPES[3][1] and _EVERY.search(v) and not _TYPES[3][1].search(v):
        return False  # "every 5 minutes" is how often, not when
    if wanted is _TYPES[0][1] and _MONEY.search(v) and value_type != "duration":
        return False  # "EUR 300 per year" is an amount, not how long anything takes
    return bool(wanted.search(v) or (wanted is _TYPES[3][1] and _TYPES[0][1].search(v))
                or (value_type is not None and value_type in _TYPED_AS.get(id(wanted), ())))


def answer_type(question: str) -> re.Pattern | None:
    """The pattern of the value a question asks for (a duration, a quantity, a date, a
    name), or None when its words do not say."""
    if _COST_ASKED.search(question):
        return _TYPES[5][1]  # "how much will it cost": an amount, not any number
    for asks, looks in _TYPES:
        if asks.search(question):
            return looks
    return None

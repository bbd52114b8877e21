"""Typed values as prose writes them: where in a piece of text a duration, an amount of money,
a percentage, a number, a date or a yes/no stands, with its span.

The value is returned as written ("thirty days", "USD 22 million", "30-day", "NET 45"); the
schema layer turns it into its typed canonical form. Yes/no words are read after a copula
(``prose.py``), text values from the sentence's shape. A bound in front of a value ("up to", "at most",
"within", "no later than") is not part of it: the quote keeps the bound word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_I = re.IGNORECASE

_SMALL = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
          "fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty "
          "seventy eighty ninety hundred").split()
_WORDNUM = rf"(?:{'|'.join(sorted(_SMALL, key=len, reverse=True))})(?:[- ](?:{'|'.join(_SMALL[1:10])}))?"
_DIGITS = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_NUM = rf"(?:{_DIGITS}|\b{_WORDNUM}\b)"
_SCALE = r"(?:\s?(?:k|m|mm|bn|b)\b|\s(?:thousand|million|billion|trillion)\b)"
_UNIT = (r"(?:(?:business|calendar|working)[ -])?(?:days?|weeks?|months?|years?|hours?|hrs?|"
         r"minutes?|mins?|quarters?|seconds?|secs?)")
_DURATION = re.compile(
    rf"(?<![\w.])(?:{_NUM}[ -]{_UNIT}\b|\b(?:a|an|one)\s(?:full\s)?{_UNIT}\b|\d+(?:h|hr|d|w)\b"
    rf"|\bnet[ -]?\d{{1,3}}\b(?![ -]{_UNIT}))", _I)  # "NET 45": payment due 45 days after invoice
_CURRENCY_WORD = (r"(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|US\$|(?:US |U\.S\. |American |Canadian |"
                  r"Australian )?dollars?|euros?|(?:British )?pounds?(?: sterling)?|francs?)")
_MONEY = re.compile(
    rf"(?:[$€£¥]\s?(?:{_DIGITS}){_SCALE}?|\b{_CURRENCY_WORD}\s?(?:{_DIGITS}){_SCALE}?"
    rf"|(?<![\w.])(?:{_DIGITS}){_SCALE}?\s?{_CURRENCY_WORD}\b)", _I)
_PERCENT = re.compile(rf"(?<![\w.])(?:{_NUM})\s?(?:%|percent\b|per cent\b|pct\b)", _I)
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_DATE = re.compile(
    rf"\b(?:\d{{4}}-\d{{2}}-\d{{2}}(?:[T ]\d{{2}}:\d{{2}}(?::\d{{2}}(?:\.\d+)?)?(?:Z|[+-]\d{{2}}:?\d{{2}})?)?"
    rf"|{_MONTH}\.? \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}|\d{{1,2}}(?:st|nd|rd|th)? {_MONTH}\.?,? \d{{4}}"
    rf"|\d{{1,2}}/\d{{1,2}}/\d{{4}}|{_MONTH} \d{{4}})\b", _I)
_NUMBER = re.compile(rf"(?<![\w.$€£%-])(?:{_DIGITS}|\b{_WORDNUM}\b)(?:{_SCALE})?(?![\w%])", _I)
# a bound before a value: the value is the number, the bound stays in the quote
BOUND = re.compile(
    r"\b(?:up to|at most|no more than|not more than|(?:a\s)?maximum of|max\.?|within|"
    r"no later than|less than|under|at least|(?:a\s)?minimum of|more than|over|after|"
    r"before|by|about|approximately|approx\.?|around|roughly|nearly|almost|~)\s*$", _I)

_BY_TYPE: dict[str, tuple[re.Pattern[str], ...]] = {
    "duration": (_DURATION,),
    "money": (_MONEY,),
    "percent": (_PERCENT,),
    "number": (_MONEY, _PERCENT, _DURATION, _DATE, _NUMBER),  # the first four are excluded
    "date": (_DATE,),
    "datetime": (_DATE,),
}
TYPED = frozenset({"duration", "money", "percent", "date", "datetime", "number"})


@dataclass(frozen=True)
class Found:
    start: int
    end: int
    text: str
    type: str


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in pattern.finditer(text) if m.group().strip()]


# what text must hold for a value of a type to be found in it at all: one cheap search instead
# of the type's patterns, for the many sentences that hold none (each alternative of those
# patterns needs a digit, or a unit word, or a percent sign or word; IGNORECASE as they are)
_DIGIT = re.compile(r"\d")
_HINTS: dict[str, re.Pattern[str]] = {
    "money": _DIGIT,
    "date": _DIGIT,
    "datetime": _DIGIT,
    "percent": re.compile(r"%|percent|per cent|pct", _I),
    "duration": re.compile(r"\d|day|week|month|year|hour|hr|min|quarter|sec", _I),
}


@lru_cache(maxsize=8192)
def find_values(text: str, value_type: str) -> tuple[Found, ...]:
    """Values of ``value_type`` in ``text``, left to right, as written."""
    pats = _BY_TYPE.get(value_type)
    if not pats:
        return ()
    hint = _HINTS.get(value_type)
    if hint is not None and hint.search(text) is None:
        return ()
    if value_type == "number":
        # a number that is part of an amount, a percentage, a duration or a date is not one
        taken = [s for p in pats[:4] for s in _spans(p, text)]
        got = [(s, e) for s, e in _spans(pats[4], text)
               if not any(s < te and ts < e for ts, te in taken)]
    else:
        got = sorted({s for p in pats for s in _spans(p, text)})
    out = [Found(s, e, text[s:e].strip(), value_type) for s, e in got]
    return tuple(f for f in out if not _is_year_alone(f, value_type))


def _is_year_alone(f: Found, value_type: str) -> bool:
    """A bare year ("in 2026") is a date's part, not a count."""
    return value_type == "number" and bool(re.fullmatch(r"(?:19|20)\d{2}", f.text))


@lru_cache(maxsize=8192)
def typed_whole(text: str) -> str | None:
    """The type of ``text`` when the whole of it (bar a bound word) is one typed value."""
    body = text.strip().rstrip(".;,")
    for t in ("money", "percent", "duration", "date", "number"):
        for f in find_values(body, t):
            rest = (body[:f.start] + body[f.end:]).strip()
            if not rest or BOUND.search(body[:f.start]) and not body[f.end:].strip():
                return t
    return None

"""Tolerant typed value normalisation used to score a wiki against ground truth.

Deliberately independent of the compiler's own normalisation (``compiler/schema``): the bench
must not grade the compiler with the compiler's code. Each function turns a value as some
source or claim writes it into a comparable key, or ``None`` when it cannot read it:

* number: numerically (``1,200`` = ``1200.0`` = ``twelve hundred`` is not attempted; small
  number words are), with ``k``/``M``/``million``/``billion`` multipliers;
* money: (amount, currency); a bare amount takes the expected currency (``$1.2M`` =
  ``USD 1,200,000`` = ``1200000``);
* percent: the number (``15%`` = ``15 percent`` = ``15``);
* duration: minutes/hours/days/weeks in days, months/years in months, business days apart
  (``30 days`` = ``thirty days`` = ``30-day``; ``2 years`` = ``24 months``);
* date: ISO ``YYYY-MM-DD`` from ISO, ISO datetime, ``March 1, 2026``, ``1 March 2026``;
* enum and text: case-, punctuation- and token-order-insensitive (``&``/``and`` ignored);
* reference: the slug of the name.
"""

from __future__ import annotations

import re
from datetime import date

_WORDS = {
    "zero": 0, "one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
}
_MULT = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "mn": 1e6, "million": 1e6,
         "b": 1e9, "bn": 1e9, "billion": 1e9}
_CURRENCY = {"$": "USD", "us$": "USD", "usd": "USD", "dollars": "USD", "dollar": "USD",
             "€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR",
             "£": "GBP", "gbp": "GBP", "sek": "SEK", "chf": "CHF"}
_NUM = r"[-+]?(?:\d{1,3}(?:[ ,]\d{3})+|\d+)(?:\.\d+)?"
_NUM_RE = re.compile(rf"({_NUM})\s*(k|m|mm|mn|b|bn|thousand|million|billion)?\b", re.I)
_WORD_NUM_RE = re.compile(
    r"\b((?:" + "|".join(sorted((w for w in _WORDS if w not in ("a", "an")), key=len,
                                reverse=True)) + r")(?:[- ](?:one|two|three|four|five|six|"
    r"seven|eight|nine))?)\b", re.I)
_UNITS = [
    (re.compile(r"\b(?:business|working)[ -]days?\b", re.I), "bday", 1.0),
    (re.compile(r"\b(?:minutes?|mins?)\b", re.I), "day", 1 / 1440),
    (re.compile(r"\b(?:hours?|hrs?|h)\b", re.I), "day", 1 / 24),
    (re.compile(r"\b(?:days?|d)\b", re.I), "day", 1.0),
    (re.compile(r"\b(?:weeks?|wks?)\b", re.I), "day", 7.0),
    (re.compile(r"\b(?:months?|mos?)\b", re.I), "month", 1.0),
    (re.compile(r"\b(?:years?|yrs?)\b", re.I), "month", 12.0),
]
_MONTHS = {m: i + 1 for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"])}
_MONTHS.update({k[:3]: v for k, v in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")
_FILLER = frozenset({"and", "the", "of"})


def _number_in(text: str) -> float | None:
    """The first number in ``text``: digits (with multiplier) or small number words."""
    m = _NUM_RE.search(text)
    if m:
        try:
            value = float(re.sub(r"[ ,]", "", m.group(1)))
        except ValueError:
            return None
        mult = m.group(2)
        return value * _MULT[mult.lower()] if mult else value
    w = _WORD_NUM_RE.search(text)
    if w:
        total = 0
        for part in re.split(r"[- ]", w.group(1).lower()):
            total += _WORDS.get(part, 0)
        return float(total)
    if re.search(r"\b(?:a|an|one)\b", text, re.I):
        return 1.0
    return None


def number(text: str) -> float | None:
    v = _number_in(str(text))
    return None if v is None else round(v, 6)


def money(text: str, default_currency: str | None = "USD") -> tuple[float, str] | None:
    s = str(text).strip().lower()
    amount = _number_in(s.replace("$", " ").replace("€", " ").replace("£", " "))
    if amount is None:
        return None
    cur = None
    for sym in ("us$", "$", "€", "£"):
        if sym in s:
            cur = _CURRENCY[sym]
            break
    if cur is None:
        for tok in re.findall(r"[a-z]+", s):
            if tok in _CURRENCY:
                cur = _CURRENCY[tok]
                break
    return round(amount, 2), (cur or default_currency or "")


def percent(text: str) -> float | None:
    return number(str(text).replace("%", " "))


def duration(text: str) -> tuple[float, str] | None:
    s = str(text).strip().lower()
    net = re.fullmatch(r"net\s*[- ]?\s*(\d+)", s)  # payment terms: "NET 30" = 30 days
    if net:
        return float(net.group(1)), "day"
    for pattern, cls, factor in _UNITS:
        m = pattern.search(s)
        if m:
            n = _number_in(s[: m.start()] or s)
            if n is None:
                n = _number_in(s)
            if n is None:
                return None
            return round(n * factor, 6), cls
    return None


def iso_date(text: str) -> str | None:
    s = str(text).strip()
    m = re.search(r"(\d{4})-(\d{2})-(\d{2})", s)
    if m:
        return f"{m.group(1)}-{m.group(2)}-{m.group(3)}"
    low = s.lower().replace(",", " ")
    m = re.search(r"\b([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?\s+(\d{4})\b", low)
    if m and m.group(1) in _MONTHS:
        return _fmt(int(m.group(3)), _MONTHS[m.group(1)], int(m.group(2)))
    m = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]+)\.?\s+(\d{4})\b", low)
    if m and m.group(2) in _MONTHS:
        return _fmt(int(m.group(3)), _MONTHS[m.group(2)], int(m.group(1)))
    m = re.search(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b", low)
    if m:
        return _fmt(int(m.group(3)), int(m.group(1)), int(m.group(2)))
    return None


def _fmt(y: int, mo: int, d: int) -> str | None:
    try:
        return date(y, mo, d).isoformat()
    except ValueError:
        return None


def tokens(text: str) -> tuple[str, ...]:
    low = str(text).lower().replace("&", " and ")
    return tuple(sorted(t for t in _TOKEN.findall(low) if t not in _FILLER))


def boolean(text: str) -> bool | None:
    s = str(text).strip().lower()
    if s in ("true", "yes", "1", "y", "on"):
        return True
    if s in ("false", "no", "0", "n", "off"):
        return False
    return None


def slug(text: str) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", str(text).lower()))


def key(vtype: str, text: object, *, currency: str | None = "USD") -> object:
    """The comparable form of ``text`` read as ``vtype`` (``None`` when unreadable)."""
    s = str(text)
    if vtype == "number":
        return number(s)
    if vtype == "money":
        return money(s, currency)
    if vtype == "percent":
        return percent(s)
    if vtype == "duration":
        return duration(s)
    if vtype == "date":
        return iso_date(s)
    if vtype == "datetime":
        return s.strip().replace(" ", "T")[:19]
    if vtype == "boolean":
        return boolean(s)
    if vtype == "reference":
        return slug(s.rsplit("/", 1)[-1])
    return tokens(s) or None  # text, enum


def same(vtype: str, a: object, b: object, *, currency: str | None = "USD") -> bool:
    ka, kb = key(vtype, a, currency=currency), key(vtype, b, currency=currency)
    if ka is None or kb is None:
        return False
    if vtype == "money":
        (x, cx), (y, cy) = ka, kb  # type: ignore[misc]
        return abs(x - y) < 0.005 and (not cx or not cy or cx == cy)
    if vtype in ("number", "percent"):
        return abs(float(ka) - float(kb)) < 1e-6  # type: ignore[arg-type]
    if vtype == "duration":
        (x, cx), (y, cy) = ka, kb  # type: ignore[misc]
        return cx == cy and abs(x - y) < 1e-6
    return ka == kb

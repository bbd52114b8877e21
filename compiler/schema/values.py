"""Typed values: the normalised form a claim is compared by, per the attribute's value type.

Pure. ``normalize(value, type, …)`` returns the canonical string docs/schema.md defines
(number ``22000000``, money ``22000000 USD``, percent ``15``, duration ``30 days`` in the
attribute's unit, date ``2026-03-01``, datetime ISO 8601 UTC, boolean ``true``/``false``, enum
the canonical label, reference the entity id). A value that does not read as its type falls
back to the text comparison form, so a stray "TBD" never equals a number and nothing is lost:
the claim's ``value`` always keeps what the source wrote.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from ..text import collapse, normalize_value

# -- numbers ----------------------------------------------------------------------------------

_ONES = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate(
    "twenty thirty forty fifty sixty seventy eighty ninety".split())}
_SCALES = {
    "k": 3, "thousand": 3, "m": 6, "mm": 6, "mn": 6, "mio": 6, "million": 6, "millions": 6,
    "b": 9, "bn": 9, "billion": 9, "billions": 9, "t": 12, "tn": 12, "trillion": 12,
}
_CURRENCY_SIGNS = {"$": "USD", "us$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR",
                   "c$": "CAD", "a$": "AUD", "chf": "CHF"}
_CURRENCY_WORDS = {"dollar": "USD", "dollars": "USD", "usd": "USD", "euro": "EUR",
                   "euros": "EUR", "eur": "EUR", "pound": "GBP", "pounds": "GBP", "gbp": "GBP",
                   "yen": "JPY", "jpy": "JPY", "cad": "CAD", "aud": "AUD", "chf": "CHF",
                   "inr": "INR", "sek": "SEK", "nok": "NOK", "dkk": "DKK",
                   "us dollar": "USD", "us dollars": "USD", "u.s. dollars": "USD",
                   "u.s. dollar": "USD", "american dollars": "USD", "pounds sterling": "GBP",
                   "british pounds": "GBP", "sterling": "GBP", "swiss francs": "CHF",
                   "francs": "CHF", "canadian dollars": "CAD", "australian dollars": "AUD",
                   "japanese yen": "JPY", "swedish kronor": "SEK", "norwegian kroner": "NOK",
                   "danish kroner": "DKK", "indian rupees": "INR", "rupees": "INR"}
_LEAD = re.compile(
    r"^(?:(?:up to|upto|at most|at least|no more than|no later than|not more than|within|"
    r"maximum of|minimum of|max|min|about|around|approximately|approx\.?|roughly|over|"
    r"under|less than|more than|only|exactly)\s+)+")
_NUMBER = re.compile(
    r"^(?P<cur>us\$|c\$|a\$|[$€£¥₹])?\s*(?P<sign>[-+])?\s*(?P<cur2>[$€£¥₹])?"
    r"(?P<num>\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?|\.\d+)(?![\d/.-]\d)")
_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.\d+)?$")


def format_number(d: Decimal) -> str:
    """``Decimal('2.4E+9')`` → ``2400000000``; ``Decimal('15.50')`` → ``15.5``."""
    if d == 0:
        return "0"
    text = format(d.normalize(), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _word_number(tokens: list[str]) -> tuple[Decimal, int] | None:
    """Leading number words: ``thirty``, ``forty-five``, ``one hundred``, ``a``; (value,
    tokens used)."""
    total, current, used = 0, 0, 0
    for tok in tokens:
        parts = tok.split("-")
        if all(p in _ONES or p in _TENS for p in parts):
            current += sum(_ONES.get(p, 0) + _TENS.get(p, 0) for p in parts)
        elif tok in ("a", "an", "one") and used == 0:
            current = 1
        elif tok == "hundred" and used:
            current = max(current, 1) * 100
        elif tok == "thousand" and used:
            total += max(current, 1) * 1000
            current = 0
        elif tok == "and" and used:
            pass
        else:
            break
        used += 1
    if not used:
        return None
    return Decimal(total + current), used


def parse_number(text: str) -> tuple[Decimal, str, str | None] | None:
    """Leading number of ``text`` (lower-cased, collapsed): (value with any scale word
    applied, rest of the text, currency named before the number)."""
    text = _LEAD.sub("", text)
    m = _NUMBER.match(text)
    if m:
        raw = m["num"]
        if "," in raw and not _THOUSANDS.match(raw):
            return None  # "1,5" or "12,34,56": not a number this reader can be sure of
        try:
            value = Decimal(raw.replace(",", ""))
        except InvalidOperation:
            return None
        if m["sign"] == "-":
            value = -value
        rest = text[m.end():].strip()
        sign = m["cur"] or m["cur2"]
        currency = _CURRENCY_SIGNS.get(sign) if sign else None
    else:
        tokens = text.split()
        got = _word_number(tokens)
        if got is None:
            return None
        value, used = got
        rest, currency = " ".join(tokens[used:]), None
    scale = re.match(r"^([a-z]+)\b\.?", rest)
    if scale and scale[1] in _SCALES:
        value = value.scaleb(_SCALES[scale[1]])
        rest = rest[scale.end():].strip()
    return value, rest, currency


def _number(text: str) -> str | None:
    got = parse_number(text)
    if got is None:
        return None
    value, rest, _ = got
    return format_number(value) if not rest else None


def _money(text: str, default_currency: str | None) -> str | None:
    code_first = re.match(r"^([a-z]{3})\s+(?=[\d$€£.])", text)
    prefix_code = _CURRENCY_WORDS.get(code_first[1]) if code_first else None
    got = parse_number(text[code_first.end():] if prefix_code and code_first else text)
    if got is None:
        return None
    value, rest, currency = got
    currency = currency or prefix_code
    if rest:
        named = rest.rstrip(".").strip()
        if named in _CURRENCY_WORDS:
            currency = currency or _CURRENCY_WORDS[named]
        elif rest not in ("per year", "a year", "annually", "/year", "per annum"):
            return None
    currency = currency or default_currency
    return f"{format_number(value)} {currency.upper()}" if currency else format_number(value)


def _percent(text: str) -> str | None:
    got = parse_number(text)
    if got is None:
        return None
    value, rest, _ = got
    if rest.rstrip(".") in ("", "%", "percent", "per cent", "pct"):
        return format_number(value)
    return None


# -- durations --------------------------------------------------------------------------------

# unit → (family, size in the family's base unit); families never convert into each other:
# a month is not 30 days, a business day is not a day
_UNITS: dict[str, tuple[str, int]] = {}
for _names, _family, _size in (
    (("second", "seconds", "sec", "secs", "s"), "time", 1),
    (("minute", "minutes", "min", "mins"), "time", 60),
    (("hour", "hours", "hr", "hrs", "h"), "time", 3600),
    (("day", "days", "d", "calendar day", "calendar days"), "time", 86400),
    (("week", "weeks", "wk", "wks", "w"), "time", 7 * 86400),
    (("fortnight", "fortnights"), "time", 14 * 86400),
    (("business day", "business days", "working day", "working days", "workday", "workdays",
      "bd"), "business", 1),
    (("month", "months", "mo", "mos"), "calendar", 1),
    (("quarter", "quarters"), "calendar", 3),
    (("year", "years", "yr", "yrs", "y"), "calendar", 12),
):
    for _n in _names:
        _UNITS[_n] = (_family, _size)
# the unit a duration is written in when the attribute's unit is of another family
_OWN_UNIT = {("time", 1): "seconds", ("time", 60): "minutes", ("time", 3600): "hours",
             ("time", 86400): "days", ("time", 7 * 86400): "weeks",
             ("time", 14 * 86400): "days", ("business", 1): "business days",
             ("calendar", 1): "months", ("calendar", 3): "months", ("calendar", 12): "years"}


def _unit_of(rest: str) -> tuple[str, int] | None:
    rest = rest.replace("-", " ")
    for n in (2, 1):
        words = rest.split()[:n]
        if len(words) == n and (hit := _UNITS.get(" ".join(words).rstrip(".,;"))):
            return hit
    return None


def _duration(text: str, unit: str | None) -> str | None:
    """``30 days`` = ``thirty days`` = ``30-day``; ``4 weeks`` = ``28 days``; months and
    business days never become days (a month is not 30 days)."""
    text = re.sub(r"(\d)-(?=[a-z])", r"\1 ", text)
    got = parse_number(text)
    if got is None:
        return None
    value, rest, _ = got
    wanted = _UNITS.get((unit or "").lower())
    found = _unit_of(rest) if rest else wanted
    if found is None:
        return None
    family, size = found
    if wanted is not None and wanted[0] == family:
        name = (unit or "").lower()
        name = name if name.endswith("s") or name == "bd" else name + "s"
        base = wanted[1]
    else:
        name = _OWN_UNIT[found]
        base = _UNITS[name][1]
    amount = value * size / base
    word = name[:-1] if amount == 1 and name.endswith("s") else name
    return f"{format_number(amount)} {word}"


# -- dates ------------------------------------------------------------------------------------

_MONTHS = {m: i + 1 for i, m in enumerate(
    "january february march april may june july august september october november december"
    .split())}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_WEEKDAY = re.compile(r"^(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+")
_ISO = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:$|[t ])")
_YMD_SLASH = re.compile(r"^(\d{4})[/.](\d{1,2})[/.](\d{1,2})$")
_NUMERIC = re.compile(r"^(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})$")
_DMY = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?\s+([a-z]+)\.?,?\s+(\d{4})$")
_MDY = re.compile(r"^([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$")
_EPOCH_MS = re.compile(r"^\d{12,13}$")


def _year(y: str) -> int:
    n = int(y)
    return n + 2000 if len(y) == 2 else n


def parse_date(text: str) -> date | None:
    """A calendar date in the common source formats. ``03/01/2026`` is US (month first)
    unless the first number cannot be a month; ``1.3.2026`` (dots) is day first."""
    text = _WEEKDAY.sub("", text.strip().lower())
    try:
        if m := _ISO.match(text):
            return date(int(m[1]), int(m[2]), int(m[3]))
        if m := _YMD_SLASH.match(text):
            return date(int(m[1]), int(m[2]), int(m[3]))
        if m := _NUMERIC.match(text):
            a, b, y = int(m[1]), int(m[3]), _year(m[4])
            day_first = m[2] == "." or a > 12
            return date(y, b, a) if day_first else date(y, a, b)
        if (m := _DMY.match(text)) and m[2] in _MONTHS:
            return date(int(m[3]), _MONTHS[m[2]], int(m[1]))
        if (m := _MDY.match(text)) and m[1] in _MONTHS:
            return date(int(m[3]), _MONTHS[m[1]], int(m[2]))
        if _EPOCH_MS.match(text):
            return datetime.fromtimestamp(int(text) / 1000, UTC).date()
    except (ValueError, OverflowError, OSError):
        return None
    return None


def parse_datetime(text: str) -> datetime | None:
    raw = text.strip()
    if _EPOCH_MS.match(raw):
        try:
            return datetime.fromtimestamp(int(raw) / 1000, UTC)
        except (ValueError, OverflowError, OSError):
            return None
    iso = raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw
    iso = re.sub(r"([+-]\d{2})(\d{2})$", r"\1:\2", iso) if ("T" in iso or " " in iso) else iso
    try:
        parsed = datetime.fromisoformat(iso)
    except ValueError:
        d = parse_date(raw)
        if d is None:
            return None
        parsed = datetime(d.year, d.month, d.day)
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def format_datetime(dt: datetime) -> str:
    dt = dt.astimezone(UTC)
    if dt.microsecond:
        return dt.strftime("%Y-%m-%dT%H:%M:%S.%f").rstrip("0") + "Z"
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


# -- booleans ---------------------------------------------------------------------------------

_TRUE = frozenset("true yes y 1 on checked enabled active t".split())
_FALSE = frozenset("false no n 0 off unchecked disabled inactive f none".split())


def _boolean(text: str) -> str | None:
    if text in _TRUE:
        return "true"
    if text in _FALSE:
        return "false"
    return None


# -- text that has a shape: web addresses and phone numbers ------------------------------------

_URL = re.compile(r"^(?:https?://)?(?:www\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)+)(/[^\s?#]*)?/?$")
_PHONE = re.compile(r"^\+?[\d\s().\-/]{7,}$")


def _shaped_text(text: str) -> str | None:
    """``https://www.globex.example/`` = ``www.globex.example``; ``+1 (555) 010-0100`` =
    ``+1 555 010 0100``. Only values written as an address (scheme or ``www.``) or a phone
    number (a leading ``+`` or bracket, or separators between 7+ digits that do not make a
    date) are read so."""
    if text.startswith(("http://", "https://", "www.")) and (m := _URL.match(text)):
        return m[1] + (m[2] or "").rstrip("/")
    if _PHONE.match(text) and parse_date(text) is None:
        digits = re.sub(r"\D", "", text)
        if len(digits) >= 7 and (text[0] in "+(" or len(re.findall(r"[\s().\-/]", text)) >= 1):
            return ("+" if text.startswith("+") else "") + digits
    return None


# -- the entry point --------------------------------------------------------------------------

Resolver = Callable[[str], str | None]


@lru_cache(maxsize=65_536)
def _typed(text: str, vtype: str, unit: str | None, currency: str | None) -> str | None:
    if vtype == "number":
        return _number(text)
    if vtype == "money":
        return _money(text, currency)
    if vtype == "percent":
        return _percent(text)
    if vtype == "duration":
        return _duration(text, unit)
    if vtype == "date":
        d = parse_date(text)
        if d is None and (dt := parse_datetime(text)) is not None:
            d = dt.date()
        return d.isoformat() if d else None
    if vtype == "datetime":
        dt = parse_datetime(text)
        return format_datetime(dt) if dt else None
    if vtype == "boolean":
        return _boolean(text)
    return None


def normalize(value: str, vtype: str = "text", *, unit: str | None = None,
              currency: str | None = None, enum: Resolver | None = None,
              reference: Resolver | None = None) -> str:
    """The comparison form of ``value`` read as ``vtype`` (see the module docstring);
    ``enum`` maps a value to its canonical label, ``reference`` a name to an entity id."""
    shown = collapse(value)
    if vtype == "enum" and enum is not None:
        hit = enum(shown)
        if hit is not None:
            return hit
    if vtype == "reference" and reference is not None:
        hit = reference(shown)
        if hit is not None:
            return hit
    if vtype == "text" and (shaped := _shaped_text(shown.lower())) is not None:
        return shaped
    if vtype in ("number", "money", "percent", "duration", "date", "datetime", "boolean"):
        text = shown.lower().rstrip(".;")
        # datetimes keep their case-sensitive ISO form for fromisoformat
        typed = _typed(shown if vtype == "datetime" else text, vtype, unit, currency)
        if typed is not None:
            return typed
    return normalize_value(value)


__all__ = ["format_datetime", "format_number", "normalize", "parse_date", "parse_datetime",
           "parse_number"]

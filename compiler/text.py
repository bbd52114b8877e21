"""Deterministic text handling shared by extraction, linking, resolution and search:
sentence splitting with spans, attribute and value normalisation, name keys."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from functools import lru_cache

_LINE = re.compile(r"[^\n]+")
_LIST_MARKER = re.compile(r"^(?:[-*+•]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"^#{1,6}\s")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_ABBREVIATIONS = frozenset(
    "e.g. i.e. inc. corp. ltd. co. mr. ms. mrs. dr. vs. etc. no. approx. st. jr. sr. dept.".split()
)
_WS = re.compile(r"\s+")
_WORD = re.compile(r"[^\W_]+")

_DETERMINERS = ("the ", "a ", "an ", "our ", "its ", "their ", "your ", "this ", "that ")
_CONNECTORS = frozenset({"of", "for", "the", "s", "at", "in", "on", "by", "to", "with", "and"})
_LEGAL_SUFFIXES = frozenset(
    {"inc", "incorporated", "corp", "corporation", "co", "company", "ltd", "limited", "llc",
     "plc", "gmbh", "ag", "sa", "bv", "nv", "pty", "llp",
     # the Nordic, French, Italian, German, Asian forms CRMs carry and help desks drop ("spa"
     # is left out: a "Day Spa" is not a company form)
     "ab", "asa", "oy", "oyj", "aps", "sarl", "sas", "srl", "kg", "se", "kk", "pte", "pvt",
     "bhd", "lp"}
)


def sentences(text: str) -> Iterator[tuple[int, int]]:
    """``[start, end)`` spans of sentences; list markers and headings are not sentences."""
    for line in _LINE.finditer(text):
        raw = line.group()
        stripped = raw.strip()
        if not stripped or _HEADING.match(stripped):
            continue
        offset = line.start() + (len(raw) - len(raw.lstrip()))
        marker = _LIST_MARKER.match(stripped)
        if marker:
            offset += marker.end()
            stripped = stripped[marker.end():]
        start = 0
        for m in _SENTENCE_END.finditer(stripped):
            last_word = stripped[:m.start()].rsplit(None, 1)[-1].lower() if stripped[:m.start()].strip() else ""
            if last_word in _ABBREVIATIONS:
                continue
            piece = stripped[start:m.start()].rstrip()
            if piece:
                yield offset + start, offset + start + len(piece)
            start = m.end()
        piece = stripped[start:].rstrip()
        if piece:
            yield offset + start, offset + start + len(piece)


def collapse(text: str) -> str:
    # str.isprintable is False for every whitespace character but the space: most text has
    # nothing to collapse, and the substitution is the cost
    if text.isprintable() and "  " not in text:
        return text.strip()
    return _WS.sub(" ", text).strip()


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def word_spans(text: str) -> list[tuple[str, int, int]]:
    return [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(text)]


def name_key(name: str) -> str:
    """Key under which a name is looked up: lower-case words joined by single spaces."""
    return " ".join(words(name))


def name_keys(name: str, entity_type: str) -> set[str]:
    """All keys a name is known by; organisations are also known without their legal suffix
    ("Globex Corporation" is also "Globex")."""
    toks = words(name)
    keys = {" ".join(toks)} if toks else set()
    if entity_type == "account" and len(toks) > 1 and toks[-1] in _LEGAL_SUFFIXES:
        keys.add(" ".join(toks[:-1]))
    return keys


def entity_slug_name(name: str, entity_type: str) -> str:
    """The name part of an entity id, stable across legal-suffix variants of one company."""
    keys = sorted(name_keys(name, entity_type), key=len)
    return keys[0] if keys else name


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def humanize_field(field: str) -> str:
    """``CustomerTier__c`` → ``customer tier``; ``NumberOfEmployees`` → ``number of employees``."""
    base = re.sub(r"__(c|r|pc)$", "", field)
    return collapse(_CAMEL.sub(" ", base).replace("_", " ")).lower()


_LEAD_IN_COMMA = re.compile(r",\s")


def _strip_unpaired(text: str) -> str:
    """Edge brackets go unless they close a pair the phrase opened: "mini excavator (3.5 t)"
    keeps its parenthesis, "(all tiers" loses its stray one."""
    while text and text[-1] in ")]" and text.count("(") + text.count("[") < (
            text.count(")") + text.count("]")):
        text = text[:-1].rstrip(" .:;\"'")
    while text and text[0] in "([" and text.count("(") + text.count("[") > (
            text.count(")") + text.count("]")):
        text = text[1:].lstrip(" .:;\"'")
    while text and text[0] in "([" and text[-1] in ")]":
        text = text[1:-1].strip(" .:;\"'")
    return text


def normalize_attribute(phrase: str) -> str:
    """Attribute from a subject phrase: lead-in clauses, determiners and edge connectors go."""
    # a lead-in clause ends at ", " ("In 2026, the refund window"); "10,000 lb" is one number
    text = _LEAD_IN_COMMA.split(phrase)[-1]
    text = _strip_unpaired(collapse(text).lower().strip(" .:;\"'"))
    if text.endswith("'s"):
        text = text[:-2]
    changed = True
    while changed and text:
        changed = False
        for det in _DETERMINERS:
            if text.startswith(det):
                text = text[len(det):]
                changed = True
    toks = text.split()
    while toks and toks[0].strip("'") in _CONNECTORS:
        toks.pop(0)
    while toks and toks[-1].strip("'") in _CONNECTORS:
        toks.pop()
    return " ".join(toks)


_MONTHS = {m: i + 1 for i, m in enumerate(
    "january february march april may june july august september october november december".split()
)}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_DATE_DMY = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)? ([a-z]+),? (\d{4})$")
_DATE_MDY = re.compile(r"^([a-z]+) (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})$")
_DATE_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:t[\d:.]+(?:z|[+-]\d{2}:?\d{2})?)?$")
_QUANTITY = re.compile(r"^([$€£]?)\s?(\d[\d,]*(?:\.\d+)?)\s?(%|percent|[a-z]+)?$")
_UNIT_ALIASES = {
    "percent": "%", "day": "days", "business": "business", "week": "weeks", "month": "months",
    "year": "years", "hour": "hours", "minute": "minutes", "usd": "usd", "eur": "eur",
}


def _parse_date(text: str) -> date | None:
    try:
        if m := _DATE_ISO.match(text):
            return date(int(m[1]), int(m[2]), int(m[3]))
        if m := _DATE_DMY.match(text):
            if m[2] in _MONTHS:
                return date(int(m[3]), _MONTHS[m[2]], int(m[1]))
        if m := _DATE_MDY.match(text):
            if m[1] in _MONTHS:
                return date(int(m[3]), _MONTHS[m[1]], int(m[2]))
    except ValueError:
        return None
    return None


@lru_cache(maxsize=65_536)  # pure, and values repeat across claims (tiers, statuses, units)
def normalize_value(value: str) -> str:
    """Comparison form of a value: "60 Days." == "60 days"; "March 1, 2026" == "2026-03-01";
    "1,200" == "1200"; "20 percent" == "20%". Display always keeps the source's own text."""
    text = collapse(value).lower().rstrip(".;")
    text = re.sub(r"(\d)-(day|week|month|year|hour)s?\b", r"\1 \2s", text)
    if (d := _parse_date(text)) is not None:
        return d.isoformat()
    if m := _QUANTITY.match(text):
        currency, number, unit = m[1], m[2].replace(",", ""), m[3] or ""
        if "." in number:
            number = number.rstrip("0").rstrip(".")
        unit = _UNIT_ALIASES.get(unit, unit)
        return f"{currency}{number}{unit}" if unit == "%" or not unit else f"{currency}{number} {unit}"
    return text


_SUFFIXES = ("ions", "ion", "ings", "ing", "ed", "e")


@lru_cache(maxsize=65_536)  # words repeat across sentences; pure
def stem(word: str) -> str:
    """A word's stem, lower case: enough to match "windows" with "window", "calibrate" with
    "calibration", "priced" with "price", "shipping" with "ship"."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    w = w.rstrip("'")
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith(("sses", "shes", "ches", "xes")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 4 and w[:-len(suffix)].isalpha():
            w = w[:-len(suffix)]
            if suffix in ("ing", "ings", "ed") and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]  # "shipped" → "ship"
            break
    return w

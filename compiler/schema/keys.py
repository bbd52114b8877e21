"""How the schema compares names and enum values it has never seen written that way.

Pure string functions, shared by the loader, the mapping and value typing:

- attribute and field keys ignore case, spaces, underscores and punctuation
  (``annual revenue`` = ``annualrevenue`` = ``AnnualRevenue`` = ``annual_revenue``);
- enum values compare by their words with ``&``/``and``, plurals and separators folded
  (``FOOD_BEVERAGES`` = ``Food & Beverage`` = ``food and beverages``);
- run-together field names read as words (``issuetype`` → ``issue type``) where a known
  vocabulary splits them completely.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

_CUSTOM_SUFFIX = re.compile(r"__(c|r|pc)$", re.IGNORECASE)
_ALNUM = re.compile(r"[^0-9a-z]+")
_TOKEN = re.compile(r"[0-9a-z]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_FILLER = frozenset({"and", "n"})  # "&" is not a token at all; "n" from "F n B"


@lru_cache(maxsize=65_536)
def attr_key(name: str) -> str:
    """Comparison key of an attribute or field name."""
    return _ALNUM.sub("", _CUSTOM_SUFFIX.sub("", name.strip()).lower())


@lru_cache(maxsize=4096)
def type_key(name: str) -> str:
    """Comparison key of a type name: ``companies`` = ``company`` = ``Company``."""
    return _singular(attr_key(name))


def _singular(tok: str) -> str:
    if len(tok) > 4 and tok.endswith("ies"):
        return tok[:-3] + "y"
    if len(tok) > 3 and tok.endswith("s") and not tok.endswith(("ss", "us", "is")):
        return tok[:-1]
    return tok


@lru_cache(maxsize=65_536)
def value_tokens(value: str) -> tuple[str, ...]:
    """Enum comparison form: lower-case words, singular, without ``and``; order kept."""
    toks = _TOKEN.findall(_CAMEL.sub(" ", value).lower())
    return tuple(_singular(t) for t in toks if t not in _FILLER)


def value_key(value: str) -> str:
    return " ".join(value_tokens(value))


# words field names of the five systems run together; the schema's own names add more
BASE_WORDS = frozenset("""
account activity address amount annual billing city close closed code company contact country create
created customer date deal description domain due email employee employees first full group
hs id industry issue job last lead lifecycle lost mobile modified name number of owner phone
pipeline postal priority probability rating reporter resolution revenue sales shipping source
stage state status street subject tier time title total type updated website won zip
""".split())


def split_run(word: str, vocabulary: frozenset[str]) -> list[str] | None:
    """``issuetype`` → ``[issue, type]`` when the vocabulary covers the whole word (fewest
    parts win), else None."""
    n = len(word)
    best: list[list[str] | None] = [None] * (n + 1)
    best[0] = []
    for end in range(1, n + 1):
        for start in range(max(0, end - 20), end):
            prev = best[start]
            part = word[start:end]
            if prev is not None and part in vocabulary and (
                    best[end] is None or len(prev) + 1 < len(best[end])):  # type: ignore[arg-type]
                best[end] = [*prev, part]
    return best[n]


def field_words(field: str, vocabulary: Iterable[str] = ()) -> str:
    """A raw field name as words: ``CustomerTier__c`` → ``customer tier``,
    ``NumberOfEmployees`` → ``number of employees``, ``issuetype`` → ``issue type``,
    ``hs_lead_status`` → ``hs lead status``."""
    words = BASE_WORDS | frozenset(vocabulary)
    base = _CUSTOM_SUFFIX.sub("", field)
    out: list[str] = []
    for tok in _TOKEN.findall(_CAMEL.sub(" ", base).lower()):
        parts = split_run(tok, words) if len(tok) > 6 and tok not in words else None
        out.extend(parts or [tok])
    return " ".join(out)

"""BM25 over fields: the page and claim documents retrieval scores, their field weights, and
the weights of the signals that rerank claims (entity, near miss)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ..models import Claim
from .text import SYNONYM_WEIGHT, SYNONYMS, key, stems, tokens

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
# entity's name: compiler/retrieval/coverage.py)
MIN_ASPECT = 0.01
MIN_ASPECT_STATEMENT = 0.5
_CLAIM_CANDIDATES = 1500
_PAGE_CANDIDATES = 120  # pages scored in full: those of the best-matching claims
_RECORD_CANDIDATES = 200
ENTITY_BOOST = 1.5  # a claim on a page the question names
ENTITY_MISS = 0.5  # … on a page neither named nor linked to one that is
NEAR_MISS = 0.3  # a claim whose attribute family lacks the value the question asks about


def _bm25(tf: float, df: int, n: int, dl: float, avgdl: float) -> float:
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    return idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / max(avgdl, 1e-9)))


def idf(df: int, n: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


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

"""The schema's prose vocabulary, compiled once per schema: which words name which canonical
attribute, which words name a qualifier's value, which words name an enum value.

Matching is token based and forgiving the way prose is: case, plurals ("refund windows"),
possessives ("customer's"), hyphens ("Enterprise-tier") and articles ("price of a seat") do not
matter. Each attribute is also known by the inversions of its name ("window for refunds",
"price per seat"). The longest phrase wins where two overlap.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache

from ..schema.model import Attribute, Schema
from ..text import stem

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_SKIP = frozenset({"a", "an", "the"})
_INVERT = ("for", "of", "per", "on")
_MAX_NAME_WORDS = 4




@lru_cache(maxsize=4096)  # a sentence is tokenised for attributes, qualifiers and labels
def _tokens(text: str) -> tuple[tuple[str, int, int], ...]:
    out = []
    for m in _TOKEN.finditer(text):
        s = stem(m.group())
        if s and s not in _SKIP:
            out.append((s, m.start(), m.end()))
    return tuple(out)


def tokens(text: str) -> list[tuple[str, int, int]]:
    """(stem, start, end) of the words of ``text`` that matter for matching (no articles)."""
    return list(_tokens(text))


def _key(text: str) -> tuple[str, ...]:
    return tuple(t for t, _, _ in tokens(text))


class _Trie:
    def __init__(self) -> None:
        self.root: dict = {}

    def add(self, key: tuple[str, ...], target: object) -> None:
        if not key:
            return
        node = self.root
        for tok in key:
            node = node.setdefault(tok, {})
        targets = node.setdefault(None, [])
        if target not in targets:
            targets.append(target)

    def scan(self, toks: list[tuple[str, int, int]], text: str | None = None
             ) -> list[tuple[int, int, int, list]]:
        """Non-overlapping longest matches, left to right: (start, end, n tokens, targets).
        With ``text``, a proper name may interrupt a phrase after its first word ("manages
        the Nordwind Freight account" is "manages the account"); n counts phrase words only."""
        out = []
        root = self.root
        i, n = 0, len(toks)
        while i < n:
            if toks[i][0] not in root:  # most words start no phrase
                i += 1
                continue
            node, best = root, None
            j = i
            skipped = 0
            while j < len(toks):
                if toks[j][0] not in node:
                    k = j
                    if text is not None and j > i:
                        while (k < len(toks) and k - j < _MAX_NAME_WORDS
                               and text[toks[k][1]:toks[k][1] + 1].isupper()):
                            k += 1
                    if k == j or k >= len(toks) or toks[k][0] not in node:
                        break
                    skipped += k - j
                    j = k
                node = node[toks[j][0]]
                j += 1
                if None in node:
                    best = (j, node[None], skipped)
            if best is None:
                i += 1
                continue
            j, targets, gap = best
            out.append((toks[i][1], toks[j - 1][2], j - i - gap, targets))
            i = j
        return out


@dataclass(frozen=True)
class AttrRef:
    entity_type: str
    name: str
    spec: Attribute


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    size: int  # tokens matched: longer phrases win ties
    targets: tuple


@dataclass
class Vocabulary:
    """A schema compiled for matching prose."""

    schema: Schema
    attributes: _Trie = field(default_factory=_Trie)
    qualifiers: _Trie = field(default_factory=_Trie)
    enums: dict[tuple[str, str], _Trie] = field(default_factory=dict)
    first_words: re.Pattern[str] | None = None

    def may_name_attribute(self, text: str) -> bool:
        """False when no attribute phrase can start anywhere in ``text`` (one regex search:
        most sentences name none, and tokenising them is the costly part)."""
        return self.first_words is None or self.first_words.search(text) is not None

    def attribute_matches(self, text: str, toks: list | None = None) -> list[Match]:
        toks = tokens(text) if toks is None else toks
        return [Match(s, e, n, tuple(t)) for s, e, n, t in self.attributes.scan(toks, text)]

    def qualifier_matches(self, text: str, toks: list | None = None) -> list[Match]:
        """Targets are (qualifier name, canonical value)."""
        toks = tokens(text) if toks is None else toks
        return [Match(s, e, n, tuple(t)) for s, e, n, t in self.qualifiers.scan(toks)]

    def enum_matches(self, ref: AttrRef, text: str) -> list[Match]:
        trie = self.enums.get((ref.entity_type, ref.name))
        if trie is None:
            return []
        return [Match(s, e, n, tuple(t)) for s, e, n, t in trie.scan(tokens(text))]

    def qualifier_of(self, value: str) -> tuple[tuple[str, str], ...]:
        """(qualifier, canonical) pairs a whole phrase names ("Enterprise customers")."""
        return tuple(t for m in self.qualifier_matches(value) for t in m.targets)


def _attribute_keys(name: str, spec: Attribute) -> set[tuple[str, ...]]:
    keys = {_key(name)} | {_key(p) for p in spec.phrases}
    for key in list(keys):
        # "refund window" is also the "window for refunds"; "seat price" the "price per seat"
        if len(key) == 2:
            keys |= {(key[1], conn, key[0]) for conn in _INVERT}
    return {k for k in keys if k}


def compile_vocabulary(schema: Schema) -> Vocabulary:
    vocab = Vocabulary(schema)
    for tname in sorted(schema.types):
        for aname, spec in sorted(schema.types[tname].attributes.items()):
            ref = AttrRef(tname, aname, spec)
            for key in sorted(_attribute_keys(aname, spec)):
                vocab.attributes.add(key, ref)
            if spec.type == "enum" and spec.values:
                trie = _Trie()
                for canonical, synonyms in sorted(spec.values.items()):
                    for word in (canonical, *synonyms):
                        trie.add(_key(word), canonical)
                vocab.enums[(tname, aname)] = trie
    # a stem is a prefix of the words it stands for ("calibrat…", "ship…"), bar a final y
    # that plurals turn into "ies" ("polic…")
    prefixes = {k[:-1] if k.endswith("y") and len(k) > 2 else k
                for k in vocab.attributes.root if k is not None}
    if prefixes:
        alternatives = "|".join(re.escape(p) for p in sorted(prefixes, key=len, reverse=True))
        vocab.first_words = re.compile(rf"(?<![^\W_])(?:{alternatives})", re.IGNORECASE)
    for qname in sorted(schema.qualifiers):
        for canonical, synonyms in sorted(schema.qualifiers[qname].values.items()):
            for word in (canonical, *synonyms):
                vocab.qualifiers.add(_key(word), (qname, canonical))
    return vocab


@lru_cache(maxsize=16)
def _cached(blob: str) -> Vocabulary:
    return compile_vocabulary(Schema.model_validate_json(blob))


def vocabulary(schema: Schema) -> Vocabulary:
    """The compiled vocabulary of ``schema``, built once per distinct schema content."""
    return _cached(json.dumps(schema.model_dump(mode="json"), sort_keys=True))


def schema_digest(schema: Schema | None) -> str:
    """sha256 of a schema's canonical JSON (the schema layer's own digest), "" for none."""
    if schema is None:
        return ""
    from ..schema.loader import digest

    return digest(schema)

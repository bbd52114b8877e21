"""The entity registry: which records declare which entities, and what names they go by.

Entity ids derive from (type, name) so that the same company exported from two CRM orgs lands
on one page. When several entities share a name key, the one declared with the highest
authority wins, then the smallest id, so lookups never depend on load order.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from .models import Entity, SourceRecord
from .slug import page_name, safe_type
from .text import entity_slug_name, name_keys, word_spans

MAX_NAME_WORDS = 8
_MIN_KEY_CHARS = 2


@dataclass(frozen=True, slots=True)
class Declaration:
    """A record saying "I describe entity X, named N, also known as A"."""

    record_key: str
    entity_id: str
    type: str
    name: str
    aliases: tuple[str, ...]
    rank: int

    def keys(self) -> set[str]:
        out: set[str] = set()
        for n in (self.name, *self.aliases):
            out |= {k for k in name_keys(n, self.type) if len(k) >= _MIN_KEY_CHARS}
        return {k for k in out if len(k.split()) <= MAX_NAME_WORDS}


def entity_id_for(record: SourceRecord) -> str:
    etype = safe_type(record.entity_type)
    return page_name(etype, entity_slug_name(record.entity_name, etype))


def declaration_for(record: SourceRecord, rank: int) -> Declaration:
    return Declaration(
        record_key=record.key,
        entity_id=entity_id_for(record),
        type=safe_type(record.entity_type),
        name=record.entity_name,
        aliases=tuple(sorted(set(record.aliases))),
        rank=rank,
    )


def merge_entity(entity_id: str, decls: Iterable[Declaration]) -> Entity:
    """One entity from all records declaring it: the best-ranked declaration names it."""
    ordered = sorted(decls, key=lambda d: (-d.rank, d.record_key))
    best = ordered[0]
    aliases = {a for d in ordered for a in (d.name, *d.aliases)} - {best.name}
    return Entity(
        id=entity_id,
        type=best.type,
        name=best.name,
        aliases=tuple(sorted(aliases)),
        declared_by=tuple(sorted(d.record_key for d in ordered)),
    )


Lookup = Callable[[str, str | None], str | None]


class NameIndex:
    """In-memory name → entity index, for clean builds and tests."""

    def __init__(self, decls: Iterable[Declaration]) -> None:
        candidates: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
        for d in decls:
            for key in d.keys():
                candidates[key].append((-d.rank, d.entity_id, d.type))
        self.starts: frozenset[str] = frozenset(k.split(" ", 1)[0] for k in candidates)
        # longest name (in words) beginning with each first word: bounds the key search
        self._longest: dict[str, int] = {}
        for k in candidates:
            first, n = k.split(" ", 1)[0], k.count(" ") + 1
            self._longest[first] = max(n, self._longest.get(first, 0))
        self._found: dict[str, tuple[tuple[int, int, str], ...]] = {}
        self._any: dict[str, str] = {}
        self._typed: dict[tuple[str, str], str] = {}
        for key, cands in candidates.items():
            cands.sort()
            self._any[key] = cands[0][1]
            for _, eid, etype in cands:
                self._typed.setdefault((key, etype), eid)

    def __call__(self, key: str, entity_type: str | None = None) -> str | None:
        return self.lookup(key, entity_type)

    def lookup(self, key: str, entity_type: str | None = None) -> str | None:
        if entity_type is not None and (hit := self._typed.get((key, entity_type))):
            return hit
        return self._any.get(key)

    def mentions(self, text: str) -> tuple[tuple[int, int, str], ...]:
        """:func:`find_mentions` over this index, remembered per text: field values such as
        tiers, statuses and product names repeat across thousands of records."""
        hit = self._found.get(text)
        if hit is None:
            if len(self._found) > 200_000:
                self._found.clear()
            hit = self._found[text] = tuple(self._scan(text))
        return hit

    def _scan(self, text: str) -> list[tuple[int, int, str]]:
        toks = word_spans(text)
        found: list[tuple[int, int, str]] = []
        longest, names = self._longest, self._any
        i, end = 0, len(toks)
        while i < end:
            most = longest.get(toks[i][0])
            if most is None:
                i += 1
                continue
            for n in range(min(most, end - i), 0, -1):
                key = " ".join(t[0] for t in toks[i:i + n])
                if len(key) >= _MIN_KEY_CHARS and (eid := names.get(key)) is not None:
                    found.append((toks[i][1], toks[i + n - 1][2], eid))
                    i += n
                    break
            else:
                i += 1
        return found


class StoredNameLookup:
    """Name lookups against the stored registry, for relinks too small to load it whole.

    :func:`find_mentions` over a plain lookup asks for every phrase of up to
    ``MAX_NAME_WORDS`` words at every word; this asks once per distinct word for the names
    beginning with it (``keys_from``) and only looks up phrases that are among them, which
    gives the same matches with a fraction of the queries."""

    def __init__(self, lookup: Lookup, keys_from: Callable[[str], frozenset[str]]) -> None:
        self._lookup = lru_cache(maxsize=200_000)(lookup)
        self._keys_from = lru_cache(maxsize=200_000)(keys_from)

    def __call__(self, key: str, entity_type: str | None = None) -> str | None:
        return self._lookup(key, entity_type)

    def mentions(self, text: str) -> list[tuple[int, int, str]]:
        toks = word_spans(text)
        found: list[tuple[int, int, str]] = []
        i = 0
        while i < len(toks):
            keys = self._keys_from(toks[i][0])
            for n in range(min(MAX_NAME_WORDS, len(toks) - i) if keys else 0, 0, -1):
                key = " ".join(t[0] for t in toks[i:i + n])
                if (key in keys and len(key) >= _MIN_KEY_CHARS
                        and (eid := self._lookup(key, None)) is not None):
                    found.append((toks[i][1], toks[i + n - 1][2], eid))
                    i += n
                    break
            else:
                i += 1
        return found


def find_mentions(
    text: str, lookup: Lookup, starts: frozenset[str] | None = None
) -> list[tuple[int, int, str]]:
    """Longest-first, left-to-right, non-overlapping whole-word name matches in ``text``.
    ``starts`` (first words of all names), when known, skips words no name begins with."""
    toks = word_spans(text)
    found: list[tuple[int, int, str]] = []
    i = 0
    while i < len(toks):
        if starts is not None and toks[i][0] not in starts:
            i += 1
            continue
        for n in range(min(MAX_NAME_WORDS, len(toks) - i), 0, -1):
            key = " ".join(t[0] for t in toks[i:i + n])
            if len(key) < _MIN_KEY_CHARS:
                continue
            if (eid := lookup(key, None)) is not None:
                found.append((toks[i][1], toks[i + n - 1][2], eid))
                i += n
                break
        else:
            i += 1
    return found

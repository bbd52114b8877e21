"""Chunking record text for a model, with boundaries that survive small edits.

Each chunk is one LLM call and one cache entry, so an edit should change as few chunks as
possible. Boundaries are content-defined: a chunk ends after a sentence whose own hash says
so, not after a fixed number of characters. Editing a sentence changes that sentence's hash
only, so every boundary elsewhere stays put and only the edited chunk (or, when the edited
sentence was or becomes a boundary, the two chunks beside it) is sent again. A hard size cap
bounds chunks; the next content-defined boundary re-synchronises after a capped cut.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from ..text import sentences

# Average sentence length assumed when turning a target size into a boundary probability.
_TYPICAL_SENTENCE_CHARS = 100


@dataclass(frozen=True, slots=True)
class Chunk:
    """``text[start:end]`` of one record body."""

    start: int
    end: int


def chunk_spans(text: str, target_chars: int = 2000, max_chars: int = 4000) -> list[Chunk]:
    """Chunks covering every sentence of ``text``, in order. Text no longer than
    ``target_chars`` is one chunk (most records: one call)."""
    spans = list(sentences(text))
    if not spans:
        return []
    if spans[-1][1] - spans[0][0] <= target_chars:
        return [Chunk(spans[0][0], spans[-1][1])]
    every = max(2, target_chars // _TYPICAL_SENTENCE_CHARS)
    min_chars = target_chars // 4
    out: list[Chunk] = []
    start = spans[0][0]
    for i, (s, e) in enumerate(spans):
        nxt = spans[i + 1] if i + 1 < len(spans) else None
        if nxt is None:
            out.append(Chunk(start, e))
            break
        size = e - start
        boundary = size >= min_chars and _hash(text[s:e]) % every == 0
        if boundary or nxt[1] - start > max_chars:
            out.append(Chunk(start, e))
            start = nxt[0]
    return out


def _hash(sentence: str) -> int:
    return zlib.crc32(" ".join(sentence.split()).encode("utf-8"))

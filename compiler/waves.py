"""Waves: the batches in which a compile streams records and pages between the state and
the worker pool (compiler/workers.py), so that neither the corpus nor the wiki is ever held
whole in memory, and the workers keep working while the parent stores the previous wave."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

WAVE = 1_000  # records or pages read from / written to the state per batch

T = TypeVar("T")


class SizedIter(Iterable[T]):
    """An iterator that knows its length (the worker pool sizes its chunks by it). Items of
    uneven cost (a corpus's files: a 600-byte note beside a 350 KB export) say so with
    ``weigh`` (an item's cost) and ``weight`` (all items' cost): the pool then cuts its chunks
    by cost instead of by count (compiler/workers.py)."""

    def __init__(self, it: Iterator[T], n: int, weigh: Callable[[T], int] | None = None,
                 weight: int = 0) -> None:
        self._it, self._n = it, n
        self.weigh, self.weight = weigh, weight

    def __iter__(self) -> Iterator[T]:
        return self._it

    def __len__(self) -> int:
        return self._n


def in_waves(keys: list[str]) -> Iterator[list[str]]:
    for i in range(0, len(keys), WAVE):
        yield keys[i:i + WAVE]


def one_ahead(waves: Iterable[T]) -> Iterator[T]:
    """Each wave, handed out only once the next one has been prepared: preparing a wave queues
    it to the workers, so they keep working while the parent stores the previous one (the two
    never touch the same rows: waves are disjoint sets of records or pages)."""
    previous: list[T] = []
    for wave in waves:
        if previous:
            yield previous.pop()
        previous.append(wave)
    yield from previous

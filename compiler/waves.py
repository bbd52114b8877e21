"""Waves: the batches in which a compile streams records and pages between the state and
the worker pool (compiler/workers.py), so that neither the corpus nor the wiki is ever held
whole in memory, and the workers keep working while the parent stores the previous wave."""

from __future__ import annotations

from collections import deque
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
    """``keys`` in waves of ``WAVE``, the first three and the last three ramped (1/8, 1/4, 1/2
    of a wave): the work the parent does while no worker has any shrinks with them."""
    n = len(keys)
    sizes = _wave_sizes(n)
    start = 0
    for size in sizes:
        yield keys[start:start + size]
        start += size


def _wave_sizes(n: int) -> list[int]:
    # the first and last waves of a phase are smaller: the workers wait while the parent
    # reads the first wave's inputs, and the parent stores the last wave's results alone
    ramp = [max(1, WAVE // 8), max(1, WAVE // 4), max(1, WAVE // 2)]
    if n <= 2 * sum(ramp) + WAVE:
        return [WAVE] * (n // WAVE) + ([n % WAVE] if n % WAVE else [])
    head, tail = ramp, ramp[::-1]
    middle = n - sum(head) - sum(tail)
    full, rest = divmod(middle, WAVE)
    return head + [WAVE] * full + ([rest] if rest else []) + tail


def one_ahead(waves: Iterable[T], depth: int = 2) -> Iterator[T]:
    """Each wave, handed out only once the next ``depth`` have been prepared: preparing a wave
    queues it to the workers, so they keep working while the parent stores an earlier one
    (waves are disjoint sets of records or pages: none reads what another writes). Two ahead,
    not one: a parent that loses its core for a moment (a machine with other work) would
    otherwise leave the workers one wave to drain, and idle when it is done."""
    previous: deque[T] = deque()
    for wave in waves:
        previous.append(wave)
        if len(previous) > depth:
            yield previous.popleft()
    yield from previous

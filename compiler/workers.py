"""Running the pure compile steps on every core.

Steps are plain functions over picklable items. Their shared, read-only context (policy,
backend, name index) is set once per phase and reaches the worker processes by ``fork``, so
it is never pickled per item. Results come back in input order, so a parallel compile writes
exactly what a serial one writes. Small phases run inline: forking costs more than it saves.

Items are handed over as lists (the parent reads them from the state database in waves):
the pool feeds workers from a helper thread, which must never touch the parent's connection.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from itertools import chain
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Read by the step functions; set by the parent before the fork, inherited by the children.
CONTEXT: dict[str, Any] = {}

# run(step, items) → step(item) per item; run(step, items, batched=True) → step(list of items)
# → list of results per batch, flattened (for steps that do better over many items at once)
Runner = Callable[..., Iterator[Any]]


def worker_count(setting: int) -> int:
    """``0`` means one worker per core."""
    return setting if setting > 0 else (os.cpu_count() or 1)


def release_free_memory() -> None:
    """Hand memory the parent freed back to the system before forking: glibc keeps freed
    pages mapped, and a forked worker counts (and may copy) every one of them."""
    gc.collect()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _load_libc() -> Any:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


_LIBC = _load_libc()


_INLINE_BATCH = 64  # items per batch of a batched step run in this process


def _batches(items: Sequence[T], size: int) -> list[Sequence[T]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _inline(step: Callable[[Any], Any], items: Sequence[T], batched: bool = False
            ) -> Iterator[Any]:
    if batched:
        return chain.from_iterable(map(step, _batches(items, _INLINE_BATCH)))
    return map(step, items)


@contextmanager
def step_runner(workers: int, n_items: int, min_items: int, context: dict[str, Any],
                before_fork: Callable[[], None] | None = None) -> Iterator[Runner]:
    """A ``run(step, items)`` for one phase: ordered results, on ``workers`` processes when
    the phase has at least ``min_items`` items, enough to pay for the fork. ``before_fork``
    lets the parent drop caches first: every page it holds then counts again in each worker."""
    CONTEXT.clear()
    CONTEXT.update(context)
    parallel = (workers > 1 and n_items >= min_items
                and "fork" in multiprocessing.get_all_start_methods())
    if not parallel:
        yield _inline
        return
    if before_fork is not None:
        before_fork()
    release_free_memory()
    # the parent's objects go to the collector's permanent generation while the workers run:
    # a collection in a worker would otherwise walk (and write the headers of) every object
    # it inherited, copying those pages one by one (the reason gc.freeze exists)
    gc.freeze()
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            yield _pool_runner(pool, workers)
    finally:
        gc.unfreeze()


# chunks per worker when items say what they cost: the phase ends when the last chunk does,
# so a finer cut leaves less of it to one worker (each chunk is one round trip to a worker)
_CHUNKS_PER_WORKER = 16
_MIN_CHUNK_WEIGHT = 64 * 1024


def _pool_runner(pool: Any, workers: int) -> Runner:
    def run(step: Callable[[Any], Any], items: Sequence[T], batched: bool = False
            ) -> Iterator[Any]:
        weigh = getattr(items, "weigh", None)
        if weigh is not None and not batched:
            target = max(_MIN_CHUNK_WEIGHT,
                         getattr(items, "weight", 0) // (workers * _CHUNKS_PER_WORKER))
            return chain.from_iterable(pool.imap(
                partial(_each, step), _weighted_chunks(items, weigh, target), chunksize=1))
        size = max(1, min(64, len(items) // (workers * 8)))
        if batched:  # one batch per task: the same work per task either way
            return chain.from_iterable(pool.imap(step, _batches(items, size), chunksize=1))
        return pool.imap(step, items, chunksize=size)

    return run


def _each(step: Callable[[T], R], chunk: list[T]) -> list[R]:
    return [step(item) for item in chunk]


def _weighted_chunks(items: Iterable[T], weigh: Callable[[T], int], target: int
                     ) -> Iterator[list[T]]:
    """Consecutive items in chunks of about ``target`` cost, pulled one at a time (items may
    be read as they are pulled: a chunk holds only its own). Chunks of a fixed count put a
    corpus's exports, which sort together, in one or two chunks: one worker parsed most of
    the corpus while the other ran out of work."""
    chunk: list[T] = []
    weight = 0
    for item in items:
        chunk.append(item)
        weight += weigh(item)
        if weight >= target:
            yield chunk
            chunk, weight = [], 0
    if chunk:
        yield chunk

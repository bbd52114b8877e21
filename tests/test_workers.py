"""Worker processes of a compile phase (compiler/workers.py)."""

from __future__ import annotations

import gc

from compiler.waves import SizedIter
from compiler.workers import _weighted_chunks, step_runner


def _frozen(_: int) -> int:
    return gc.get_freeze_count()


def test_workers_run_with_the_parents_objects_frozen_and_the_parent_thaws_after() -> None:
    """A collection in a forked worker must not walk the objects it inherited (writing their
    headers copies every page it touches): they are in the permanent generation while the
    phase's workers run, and back under the collector once the phase ends."""
    gc.unfreeze()
    keep = [{"n": i} for i in range(1000)]
    with step_runner(2, 8, 1, {}) as run:
        counts = list(run(_frozen, list(range(8))))
    assert all(c >= len(keep) for c in counts)
    assert gc.get_freeze_count() == 0


def test_a_small_phase_runs_inline_and_freezes_nothing() -> None:
    gc.unfreeze()
    with step_runner(2, 8, 100, {}) as run:
        counts = list(run(_frozen, list(range(8))))
    assert counts == [0] * 8


def _square(x: int) -> int:
    return x * x


def test_items_of_uneven_cost_are_cut_into_chunks_of_about_equal_cost() -> None:
    """A corpus's exports sort together (20 files of ~350 KB beside 1,000 notes of 600 bytes):
    chunks of a fixed count put them in one or two chunks, so one worker parsed most of the
    corpus while the other had nothing left. Cut by cost, no chunk holds much more than its
    share, and every item keeps its place."""
    sizes = [350_000] * 20 + [600] * 1000 + [300_000] * 30
    target = sum(sizes) // 32
    chunks = list(_weighted_chunks(sizes, lambda s: s, target))
    assert [s for chunk in chunks for s in chunk] == sizes
    assert all(sum(chunk) < target + max(chunk) for chunk in chunks)
    assert max(sum(chunk) for chunk in chunks) <= 2 * target
    assert len(chunks) >= 16


def test_chunks_are_pulled_one_at_a_time() -> None:
    """Items may be read as they are pulled (a file's bytes): a chunk holds only its own."""
    pulled: list[int] = []

    def items():  # noqa: ANN202
        for i in range(10):
            pulled.append(i)
            yield i

    chunks = _weighted_chunks(items(), lambda _: 1, 3)
    assert next(chunks) == [0, 1, 2]
    assert pulled == [0, 1, 2]


def test_weighed_items_come_back_in_order_from_the_workers() -> None:
    items = list(range(200))
    weighed = SizedIter(iter(items), len(items), weigh=lambda x: 1 + 1000 * (x < 10),
                        weight=10 * 1001 + 190)
    with step_runner(2, len(items), 1, {}) as run:
        assert list(run(_square, weighed)) == [x * x for x in items]

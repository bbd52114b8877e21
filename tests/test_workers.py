"""Worker processes of a compile phase (compiler/workers.py)."""

from __future__ import annotations

import gc

from compiler.workers import step_runner


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

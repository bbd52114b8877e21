"""Waves of a compile phase (compiler/waves.py): every key once, in order; the phase's ends
ramped; the workers kept two waves ahead of the parent."""

from __future__ import annotations

from compiler.waves import WAVE, in_waves, one_ahead


def test_waves_hold_every_key_once_in_order_with_small_first_and_last_waves() -> None:
    for n in (0, 1, WAVE - 1, WAVE, WAVE + 1, 3 * WAVE, 10 * WAVE + 7):
        keys = [f"k{i}" for i in range(n)]
        waves = list(in_waves(keys))
        assert [k for wave in waves for k in wave] == keys
        assert all(0 < len(wave) <= WAVE for wave in waves)
    waves = list(in_waves([str(i) for i in range(10 * WAVE)]))
    # the workers wait for the first wave's inputs, the parent stores the last one alone
    assert len(waves[0]) < WAVE // 4 and len(waves[-1]) < WAVE // 4
    assert max(len(w) for w in waves) == WAVE


def test_a_wave_is_handed_out_once_the_next_two_are_prepared() -> None:
    prepared: list[int] = []

    def waves():  # noqa: ANN202
        for i in range(5):
            prepared.append(i)  # preparing a wave queues it to the workers
            yield i

    seen = []
    for wave in one_ahead(waves()):
        seen.append((wave, list(prepared)))
    assert [w for w, _ in seen] == [0, 1, 2, 3, 4]
    assert seen[0][1] == [0, 1, 2] and seen[1][1] == [0, 1, 2, 3]
    assert seen[-1][1] == [0, 1, 2, 3, 4]


def test_small_waves_and_fine_chunks_write_the_same_wiki_as_one_process(tmp_path, monkeypatch
                                                                         ) -> None:  # noqa: ANN001
    """Waves of a few records or pages (ramped at both ends) and a read phase cut into many
    chunks, on two workers kept two waves ahead, write the wiki one process writes, byte for
    byte, with the same claims and search rows."""
    import shutil

    from compiler import waves, workers
    from compiler.build import compile_wiki
    from compiler.settings import FolioSettings
    from test_incremental import ACME, assert_same_wiki

    monkeypatch.setattr(waves, "WAVE", 8)
    monkeypatch.setattr(workers, "_MIN_CHUNK_WEIGHT", 1)
    corpus = tmp_path / "corpus"
    shutil.copytree(ACME, corpus)
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    compile_wiki(corpus, serial, FolioSettings(workers=1), today="2026-11-21")
    report = compile_wiki(corpus, parallel, FolioSettings(workers=2, parallel_min_items=1),
                          today="2026-11-21")
    assert report.pages_written == report.pages_total > 3 * 8
    assert_same_wiki(parallel, serial)

"""The shared LLM rate limit (FOLIO_LLM_RATE_LIMIT): every LLM call a compile cannot answer
from its cache takes one slot of a Prefect global concurrency limit with slot decay, so every
site draws on one provider quota. Runs against the session's Prefect test server."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from compiler.build import CompileError, compile_wiki
from conftest import TODAY, llm


@pytest.fixture
def slots(monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, int]]:
    """Every slot taken, as (limit names, slots): each ``rate_limit`` call the gate makes."""
    import prefect.concurrency.sync as sync

    taken: list[tuple[object, int]] = []
    real = sync.rate_limit

    def counting(names, occupy=1, **kw):  # type: ignore[no-untyped-def]
        taken.append((names, occupy))
        return real(names, occupy=occupy, **kw)

    monkeypatch.setattr(sync, "rate_limit", counting)
    return taken


def small_corpus(root: Path, n: int) -> Path:
    """``n`` one-sentence notes: exactly one extraction call each."""
    (root / "docs").mkdir(parents=True)
    (root / "sources.yaml").write_text(
        "tenant: t\nsources:\n  - {path: docs, system: markdown, instance: docs, "
        "default_acl: {public: true}}\n")
    for i in range(n):
        (root / "docs" / f"team-{i}.md").write_text(
            f"---\ntitle: Team {i}\ntype: topic\nupdated: 2026-11-01\n---\n\n"
            f"The review cadence of Team {i} is weekly.\n")
    return root


def create_limit(name: str, per_second: float, burst: int) -> dict:
    from pipelines.llm_limit import ensure_llm_limit

    return ensure_llm_limit(name, per_second, burst)


def test_uncached_calls_take_slots_at_the_limits_pace(prefect_harness, fake, slots,
                                                      tmp_path: Path) -> None:
    n, per_second, burst = 6, 2.0, 2
    create_limit("folio-llm-pace", per_second, burst)
    src = small_corpus(tmp_path / "corpus", n)

    # without the setting nothing is gated
    compile_wiki(src, tmp_path / "free", llm(), today=TODAY)
    assert fake.calls == n and slots == []

    fake.reset()
    start = time.monotonic()
    report = compile_wiki(src, tmp_path / "paced", llm(llm_rate_limit="folio-llm-pace"),
                          today=TODAY)
    elapsed = time.monotonic() - start
    assert report.llm["calls"] == fake.calls == n
    assert slots == [("folio-llm-pace", 1)] * n
    # `burst` calls may start at once; the rest wait for slots to decay at `per_second`
    assert elapsed >= (n - burst) / per_second * 0.9, elapsed


def test_answers_from_the_cache_take_no_slot(prefect_harness, fake, slots,
                                             tmp_path: Path) -> None:
    create_limit("folio-llm-cache", 1000, 1000)
    src = small_corpus(tmp_path / "corpus", 4)
    wiki = tmp_path / "wiki"
    compile_wiki(src, wiki, llm(llm_rate_limit="folio-llm-cache"), today=TODAY)
    assert len(slots) == fake.calls == 4

    slots.clear()
    fake.reset()
    # another validation threshold re-extracts every record, all of it from the call cache
    again = compile_wiki(src, wiki, llm(llm_rate_limit="folio-llm-cache", llm_min_confidence=0.5),
                         today=TODAY)
    assert again.records_extracted == 4 and again.llm["cache_hits"] == 4
    assert fake.calls == 0 and slots == []


@pytest.mark.parametrize("name", ["folio-llm-typo", "folio-llm-no-decay"])
def test_a_missing_limit_stops_the_compile_before_any_call(prefect_harness, fake, name: str,
                                                           tmp_path: Path) -> None:
    if name == "folio-llm-no-decay":  # a plain concurrency limit cannot pace anything
        from prefect.client.orchestration import get_client
        from prefect.client.schemas.actions import GlobalConcurrencyLimitCreate

        with get_client(sync_client=True) as client:
            client.create_global_concurrency_limit(GlobalConcurrencyLimitCreate(name=name,
                                                                                limit=5))
    src = small_corpus(tmp_path / "corpus", 3)
    wiki = tmp_path / "wiki"
    with pytest.raises(CompileError) as exc:
        compile_wiki(src, wiki, llm(llm_rate_limit=name), today=TODAY)
    msg = str(exc.value)
    assert f"'{name}'" in msg and "FOLIO_LLM_RATE_LIMIT" in msg
    assert f"folio pipeline llm-limit --name {name}" in msg
    assert "Nothing was written" in msg
    assert fake.calls == 0  # no call is made without a slot
    assert not [p for p in wiki.rglob("*") if p.is_file() and ".folio" not in p.parts]


def test_llm_limit_command_creates_then_updates_the_limit(prefect_harness, runner,
                                                         monkeypatch) -> None:
    from prefect.client.orchestration import get_client

    # the command sets these if unset; keep them out of the rest of the session
    monkeypatch.setenv("PREFECT_LOGGING_LEVEL", "WARNING")
    monkeypatch.setenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")

    from pipelines.folio_cli import app

    def read() -> tuple[int, float | None, bool]:
        with get_client(sync_client=True) as client:
            got = client.read_global_concurrency_limit_by_name("folio-llm-cli")
        return got.limit, got.slot_decay_per_second, got.active

    args = ["pipeline", "llm-limit", "--name", "folio-llm-cli"]
    first = runner.invoke(app, [*args, "--per-second", "2", "--burst", "10"])
    assert first.exit_code == 0, first.output
    assert json.loads(first.output)["action"] == "created"
    assert read() == (10, 2.0, True)

    same = runner.invoke(app, [*args, "--per-second", "2", "--burst", "10"])
    assert json.loads(same.output)["action"] == "unchanged"

    second = runner.invoke(app, [*args, "--per-second", "0.5", "--burst", "3"])
    assert second.exit_code == 0, second.output
    assert json.loads(second.output)["action"] == "updated"
    assert read() == (3, 0.5, True)

    bad = runner.invoke(app, [*args, "--per-second", "0", "--burst", "3"])
    assert bad.exit_code == 1 and "--per-second" in bad.output
    assert read() == (3, 0.5, True)

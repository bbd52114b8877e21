"""A shared rate limit on LLM calls: every site's compile draws on one provider quota.

The limit is a Prefect global concurrency limit with slot decay (``folio pipeline llm-limit``
creates it); each call the cache cannot answer takes one slot first. Prefect is imported only
when ``FOLIO_LLM_RATE_LIMIT`` is set, so the compiler core runs without it.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import ExtractionFailed

Gate = Callable[[], None]


def _open() -> None:
    """No shared limit: only FOLIO_LLM_CONCURRENCY and the budgets bound the calls."""


def rate_gate(limit: str | None) -> Gate:
    """What to call before each uncached LLM call: blocks until the limit grants a slot."""
    if not limit:
        return _open

    def take() -> None:
        try:
            from prefect.concurrency.asyncio import ConcurrencySlotAcquisitionError
            from prefect.concurrency.sync import rate_limit
        except ImportError as exc:
            raise ExtractionFailed(
                "FOLIO_LLM_RATE_LIMIT needs Prefect: pip install 'folio[pipelines]'") from exc
        try:
            # strict: a mistyped name must stop the run, not silently lift the limit
            rate_limit(limit, occupy=1, strict=True)
        except ConcurrencySlotAcquisitionError as exc:
            # Prefect's message names the limit but not a transport error: say which it was
            cause = f" ({type(exc.__cause__).__name__})" if exc.__cause__ else ""
            raise ExtractionFailed(
                f"LLM rate limit {limit!r} (FOLIO_LLM_RATE_LIMIT) gave no slot: {exc}{cause}. "
                f"Check that the Prefect API (PREFECT_API_URL) is reachable, and create or fix "
                f"the limit there with `folio pipeline llm-limit --name {limit} --per-second N "
                f"--burst M`. Nothing was written.") from None

    return take

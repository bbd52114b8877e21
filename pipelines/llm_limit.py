"""The Prefect global concurrency limit that paces every site's LLM calls (FOLIO_LLM_RATE_LIMIT).

With slot decay a limit is a token bucket: ``burst`` slots, refilled at ``per_second``. Each
call a compile makes takes one slot (``compiler/extract/gate.py``) and never gives it back,
so all sites together stay under the provider's quota.
"""

from __future__ import annotations

from typing import Any

DEFAULT_NAME = "folio-llm"


def ensure_llm_limit(name: str, per_second: float, burst: int) -> dict[str, Any]:
    """Create the limit or bring it to these numbers (and active); idempotent."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import (
        GlobalConcurrencyLimitCreate,
        GlobalConcurrencyLimitUpdate,
    )
    from prefect.exceptions import ObjectNotFound

    if per_second <= 0 or burst < 1:
        raise ValueError("an LLM rate limit needs --per-second > 0 and --burst >= 1")
    with get_client(sync_client=True) as client:
        try:
            old = client.read_global_concurrency_limit_by_name(name)
        except ObjectNotFound:
            old = None
        if old is None:
            client.create_global_concurrency_limit(GlobalConcurrencyLimitCreate(
                name=name, limit=burst, slot_decay_per_second=per_second))
            action = "created"
        elif (old.limit, old.slot_decay_per_second, old.active) != (burst, per_second, True):
            # an inactive limit grants every slot at once: that is no limit at all
            client.update_global_concurrency_limit(name, GlobalConcurrencyLimitUpdate(
                limit=burst, slot_decay_per_second=per_second, active=True))
            action = "updated"
        else:
            action = "unchanged"
        now = client.read_global_concurrency_limit_by_name(name)
    return {"name": now.name, "action": action, "burst": now.limit,
            "per_second": now.slot_decay_per_second, "active": now.active,
            "env": f"FOLIO_LLM_RATE_LIMIT={now.name}"}

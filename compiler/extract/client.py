"""Calls to a model through a litellm Router: cached, bounded, budgeted, retried, redacted.

litellm is imported on first use only (it takes seconds to import), so ``folio --help`` and
offline compiles never pay for it; its cost map is the local copy shipped in the wheel
(``LITELLM_LOCAL_MODEL_COST_MAP``), never fetched.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from pydantic import SecretStr

from .base import ExtractionFailed
from .budget import Budget
from .cache import Answer, CallCache
from .gate import Gate, rate_gate

_PRIMARY = "folio-primary"
# Characters per token when a provider reports no usage (so budgets still bite).
_EST_CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Call:
    messages: tuple[tuple[str, str], ...]  # (role, content)
    schema_name: str
    schema: str  # canonical JSON
    max_tokens: int

    @classmethod
    def of(cls, messages: Sequence[dict[str, str]], schema_name: str, schema: dict[str, Any],
           max_tokens: int) -> Call:
        return cls(tuple((m["role"], m["content"]) for m in messages), schema_name,
                   json.dumps(schema, sort_keys=True, separators=(",", ":")), max_tokens)

    @property
    def digest(self) -> str:
        """Everything sent that can change the answer (temperature is always 0)."""
        blob = json.dumps([self.messages, self.schema_name, self.schema, self.max_tokens, 0])
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    @property
    def chars(self) -> int:
        return sum(len(c) for _, c in self.messages) + len(self.schema)


def import_litellm() -> Any:
    """litellm, configured to stay offline and quiet (its cost map is the copy in the wheel)."""
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    try:
        import litellm
    except ImportError as exc:
        raise ExtractionFailed(
            "FOLIO_BACKEND=llm needs litellm: pip install 'folio[llm]'") from exc
    litellm.suppress_debug_info = True
    litellm.telemetry = False
    litellm.drop_params = True  # a provider without JSON-schema support still answers
    return litellm


class _Redact(logging.Filter):
    """litellm logs request details on errors; keys must never reach a log."""

    def __init__(self, secrets: Sequence[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        if any(s in msg for s in self.secrets):
            record.msg, record.args = redact(msg, self.secrets), None
        return True


def redact(text: str, secrets: Sequence[str]) -> str:
    for s in secrets:
        if s:
            text = text.replace(s, "[redacted]")
    return text


_HINTS = {
    "RateLimitError": "the provider kept answering 429; lower FOLIO_LLM_CONCURRENCY or retry "
                      "later",
    "Timeout": "no answer within FOLIO_LLM_TIMEOUT_S; raise it or check the server",
    "APIConnectionError": "cannot reach the model server; check FOLIO_LLM_API_BASE",
    "AuthenticationError": "the provider refused the API key (FOLIO_LLM_API_KEY)",
    "NotFoundError": "the provider does not know this model (FOLIO_LLM_MODEL)",
}


class LLMClient:
    def __init__(self, *, model: str, api_base: str | None, api_key: SecretStr | None,
                 fallbacks: Sequence[str], timeout_s: float, retries: int, concurrency: int,
                 budget: Budget, cache: CallCache, template: str, json_schema: bool,
                 gate: Gate = rate_gate(None)) -> None:
        self.model, self.api_base, self._key = model, api_base, api_key
        self.fallbacks, self.timeout_s, self.retries = tuple(fallbacks), timeout_s, retries
        self.concurrency, self.budget, self.cache = concurrency, budget, cache
        self.template, self.json_schema, self.gate = template, json_schema, gate
        self._router: Any = None

    @property
    def secrets(self) -> list[str]:
        return [self._key.get_secret_value()] if self._key else []

    def _get_router(self) -> Any:
        if self._router is not None:
            return self._router
        litellm = import_litellm()
        from litellm import Router

        for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "httpx"):
            log = logging.getLogger(name)
            for old in [f for f in log.filters if isinstance(f, _Redact)]:
                log.removeFilter(old)
            log.addFilter(_Redact(self.secrets))

        def params(model: str) -> dict[str, Any]:
            p: dict[str, Any] = {"model": model, "timeout": self.timeout_s, "max_retries": 0}
            if self.api_base:
                p["api_base"] = self.api_base
            if self._key is not None:
                p["api_key"] = self._key.get_secret_value()
            return p

        model_list = [{"model_name": _PRIMARY, "litellm_params": params(self.model)}]
        names = []
        for i, fb in enumerate(self.fallbacks):
            names.append(f"folio-fallback-{i}")
            model_list.append({"model_name": names[-1], "litellm_params": params(fb)})
        self._router = Router(
            model_list=model_list,
            fallbacks=[{_PRIMARY: names}] if names else [],
            num_retries=self.retries,
            retry_after=0,
            timeout=self.timeout_s,
            # one deployment per model group: a cooldown has nothing to route to instead and
            # only replaces the provider's own error (a wrong key) by "no deployments available"
            disable_cooldowns=True,
        )
        return self._router

    # -- calls ---------------------------------------------------------------------------
    def run(self, calls: Sequence[Call]) -> list[Answer]:
        """Answers in the order of ``calls``; cached ones make no call. At most
        ``concurrency`` calls are in flight. The first failure (budget, provider) cancels
        the calls not yet started and is raised once the ones in flight are done, so every
        answer paid for is cached."""
        out: list[Answer | None] = [None] * len(calls)
        todo: dict[str, list[int]] = {}
        for i, call in enumerate(calls):
            hit = self.cache.get(self.template, self.model, call.digest)
            if hit is not None:
                self.budget.hit()
                out[i] = hit
            else:
                todo.setdefault(call.digest, []).append(i)
        if todo:
            with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
                futures = {pool.submit(self._call, calls[idx[0]]): d for d, idx in todo.items()}
                done, pending = wait(futures, return_when=FIRST_EXCEPTION)
                for f in pending:
                    f.cancel()
                wait(pending)
                failed = [f for f in futures if not f.cancelled() and f.exception()]
                # the cause, not its echo: once one call fails, litellm's router cools the
                # deployment down and the calls still in flight fail with "no deployments
                # available", which would hide the provider's own error (a wrong key, say)
                failed.sort(key=lambda f: (f not in done, "RouterRateLimitError" in str(f.exception())))
                if failed:
                    raise failed[0].exception()  # type: ignore[misc]
                for f, d in futures.items():
                    for i in todo[d]:
                        out[i] = f.result()
        assert all(a is not None for a in out)
        return out  # type: ignore[return-value]

    def _call(self, call: Call) -> Answer:
        reserved = self.budget.worst_case(call.chars, call.max_tokens)
        self.budget.reserve(reserved)
        try:
            # after the budget check, so a budget stop never spends a slot of the shared quota
            self.gate()
            resp = self._get_router().completion(
                model=_PRIMARY,
                messages=[{"role": r, "content": c} for r, c in call.messages],
                max_tokens=call.max_tokens,
                temperature=0,
                response_format=self._response_format(call),
                timeout=self.timeout_s,
            )
        except ExtractionFailed:
            self.budget.release(reserved)
            raise
        except Exception as exc:  # noqa: BLE001 - every provider error becomes one clear error
            self.budget.release(reserved)
            kind = type(exc).__name__
            hint = next((h for k, h in _HINTS.items() if k in kind), "see the provider's error")
            detail = redact(str(exc), self.secrets).splitlines()[0][:300] if str(exc) else ""
            tried = ", ".join((self.model, *self.fallbacks))
            raise ExtractionFailed(
                f"LLM call failed after {self.retries} retries (models tried: {tried}): "
                f"{kind}: {detail} — {hint}. Nothing was written; answers received so far "
                f"are cached for the rerun.") from None
        answer = self._answer(resp, call)
        if answer.content and any(s in answer.content for s in self.secrets):
            # a model echoing the key must not get it into the cache (or anywhere after)
            answer = answer.model_copy(update={"content": redact(answer.content, self.secrets)})
        self.budget.settle(reserved, answer.prompt_tokens, answer.completion_tokens,
                           answer.cost_usd)
        self.cache.put(self.template, self.model, call.digest, answer)
        return answer

    def _response_format(self, call: Call) -> dict[str, Any]:
        if not self.json_schema:
            return {"type": "json_object"}
        return {"type": "json_schema", "json_schema": {
            "name": call.schema_name, "schema": json.loads(call.schema), "strict": True}}

    @staticmethod
    def _answer(resp: Any, call: Call) -> Answer:
        choice = resp.choices[0]
        content = getattr(choice.message, "content", None)
        usage = getattr(resp, "usage", None)
        prompt = getattr(usage, "prompt_tokens", None) or call.chars // _EST_CHARS_PER_TOKEN
        completion = (getattr(usage, "completion_tokens", None)
                      or len(content or "") // _EST_CHARS_PER_TOKEN)
        hidden = getattr(resp, "_hidden_params", None) or {}
        cost = hidden.get("response_cost") or 0.0
        return Answer(content=content, finish_reason=choice.finish_reason,
                      model=str(getattr(resp, "model", "") or ""), prompt_tokens=int(prompt),
                      completion_tokens=int(completion), cost_usd=float(cost))

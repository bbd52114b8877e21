"""The per-run spending limit.

A call is refused *before* it is made when the tokens already spent, plus those reserved by
calls in flight, plus this call's worst case (prompt estimate + max output tokens) would pass
the token budget; so a run never spends past its token budget. Money is known only after a
call (litellm's ``response_cost``), so the money budget refuses calls once it is reached and
can be passed by at most the calls in flight.
"""

from __future__ import annotations

import threading

from pydantic import BaseModel

from .base import ExtractionFailed

# Characters per token assumed for the worst-case prompt estimate (English is ~4; be safe).
_CHARS_PER_TOKEN = 3


class BudgetExceeded(ExtractionFailed):
    pass


class Spend(BaseModel):
    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class Budget:
    def __init__(self, max_tokens: int | None, max_usd: float | None) -> None:
        self.max_tokens, self.max_usd = max_tokens, max_usd
        self.spent = Spend()
        self._reserved = 0
        self._lock = threading.Lock()

    @staticmethod
    def worst_case(prompt_chars: int, max_output_tokens: int) -> int:
        return prompt_chars // _CHARS_PER_TOKEN + 1 + max_output_tokens

    def reserve(self, tokens: int) -> None:
        with self._lock:
            if self.max_tokens is not None and (
                    self.spent.tokens + self._reserved + tokens > self.max_tokens):
                raise BudgetExceeded(self._message(
                    f"token budget of {self.max_tokens} would be passed by the next call "
                    f"(spent {self.spent.tokens}, worst case of the call {tokens})",
                    "FOLIO_LLM_BUDGET_TOKENS"))
            if self.max_usd is not None and self.spent.cost_usd >= self.max_usd:
                raise BudgetExceeded(self._message(
                    f"money budget of ${self.max_usd:.4f} reached "
                    f"(spent ${self.spent.cost_usd:.4f})", "FOLIO_LLM_BUDGET_USD"))
            self._reserved += tokens

    def settle(self, reserved: int, prompt_tokens: int, completion_tokens: int,
               cost_usd: float) -> None:
        with self._lock:
            self._reserved -= reserved
            self.spent.calls += 1
            self.spent.prompt_tokens += prompt_tokens
            self.spent.completion_tokens += completion_tokens
            self.spent.cost_usd += cost_usd

    def release(self, reserved: int) -> None:
        with self._lock:
            self._reserved -= reserved

    def hit(self) -> None:
        with self._lock:
            self.spent.cache_hits += 1

    def _message(self, what: str, setting: str) -> str:
        return (f"LLM budget stop: {what} after {self.spent.calls} calls this run. Nothing was "
                f"written: the wiki is as it was before this compile. Answers received so far "
                f"are cached, so rerunning continues where this run stopped; raise {setting} "
                f"to finish in one run.")

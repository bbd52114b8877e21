"""The LLM backend: record text → claims proposed by a model, kept only when they check out.

The model proposes, code disposes. Structured fields and references become claims exactly as
in the offline backend (no model needed). Body text is cut into chunks (``chunking.py``); each
chunk is one cached call (``client.py``) whose JSON answer (``responses.py``) is validated
claim by claim:

* the quote must occur verbatim in the chunk (its span is where it occurs);
* the value must be found, word for word, in the quote;
* a quote that reads as an instruction to a model is not a fact about the business;
* nothing may contain a configured secret;
* the model must be at least ``FOLIO_LLM_MIN_CONFIDENCE`` sure.

What fails is rejected and counted by reason (``Extraction.rejected``), as are answers that are
not JSON or were cut off at ``max_tokens``. Accepted claims are ordinary ``RawClaim`` facts with
the model's subject as ``subject_phrase``, so entity linking against the registry (aliases,
legal suffixes: "Acme Corp." and "ACME Corporation" are one entity), authority and rendering
are the same as for the offline backend.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from ..canonical import content_id
from ..models import SourceRecord
from ..settings import FolioSettings
from ..text import collapse, normalize_attribute, words
from .base import Extraction, ExtractionFailed, RawClaim
from .budget import Budget
from .cache import Answer, CallCache
from .chunking import Chunk, chunk_spans
from .client import Call, LLMClient
from .gate import rate_gate
from .offline import structured_claims
from .prompts import extraction_messages, template_digest
from .responses import LLMClaim, claims_schema

# Bump when validation can keep or drop different claims for the same answers.
_VALIDATION_VERSION = "llm-validate-1"

CACHE_FILE = "llm_cache.db"

# Quotes that address a model ("ignore previous instructions", "you are now …") are attempts
# to steer extraction, not statements about the business.
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b[^.]{0,60}\b(?:instructions?|prompts?|rules?|"
    r"above|previous|prior|earlier)\b|\bsystem prompt\b|\byou are now\b|\bnew instructions\b|"
    r"\b(?:as an|you are an?) (?:ai|assistant|language model)\b",
    re.IGNORECASE,
)

# Reasons that reject a whole answer rather than one claim.
RESPONSE_REASONS = frozenset({"malformed_json", "truncated_output"})


def validate_answer(answer: Answer, body: str, chunk: Chunk, secrets: Sequence[str],
                    min_confidence: float, max_claims: int = 24
                    ) -> tuple[list[RawClaim], Counter[str]]:
    """The claims of one chunk's answer that check out, and the rest counted by reason."""
    rejected: Counter[str] = Counter()
    if answer.finish_reason == "length":
        # cut off mid-answer: even if the JSON happens to parse, the list is incomplete
        rejected["truncated_output"] += 1
        return [], rejected
    try:
        data = json.loads(answer.content or "")
    except ValueError:
        rejected["malformed_json"] += 1
        return [], rejected
    items = data.get("claims") if isinstance(data, dict) else None
    if not isinstance(items, list):
        rejected["malformed_json"] += 1
        return [], rejected
    if len(items) > max_claims:
        rejected["too_many_claims"] += len(items) - max_claims
        items = items[:max_claims]
    claims: list[RawClaim] = []
    for item in items:
        try:
            c = LLMClaim.model_validate(item)
        except ValidationError:
            rejected["invalid_claim"] += 1
            continue
        if any(s and s in f"{c.subject}\n{c.attribute}\n{c.value}\n{c.quote}" for s in secrets):
            rejected["secret_in_output"] += 1
            continue
        pos = body.find(c.quote, chunk.start, chunk.end)
        if pos < 0:
            rejected["quote_not_in_source"] += 1
            continue
        if _INSTRUCTION.search(c.quote):
            rejected["instruction_in_quote"] += 1
            continue
        if not set(words(c.value)) <= set(words(c.quote)) or not words(c.value):
            rejected["value_not_in_quote"] += 1
            continue
        if c.confidence < min_confidence:
            rejected["low_confidence"] += 1
            continue
        attribute = normalize_attribute(c.attribute)
        if not attribute:
            rejected["invalid_claim"] += 1
            continue
        claims.append(RawClaim(attribute=attribute, value=collapse(c.value), kind="fact",
                               quote=c.quote, span=(pos, pos + len(c.quote)),
                               subject_phrase=collapse(c.subject)))
    return claims, rejected


class LLMBackend:
    name = "llm"

    def __init__(self, settings: FolioSettings, state_dir: Path | None = None) -> None:
        if not settings.llm_model:
            raise ExtractionFailed(
                "FOLIO_BACKEND=llm needs a model: set FOLIO_LLM_MODEL (e.g. openai/gpt-4o-mini, "
                "or hosted_vllm/<name> with FOLIO_LLM_API_BASE for a local server)")
        self.settings = settings
        self.template = template_digest()
        self.cache = CallCache(state_dir / CACHE_FILE if state_dir is not None else None)
        self.budget = Budget(settings.llm_budget_tokens, settings.llm_budget_usd)
        self.client = LLMClient(
            model=settings.llm_model, api_base=settings.llm_api_base,
            api_key=settings.llm_api_key, fallbacks=settings.llm_fallbacks,
            timeout_s=settings.llm_timeout_s, retries=settings.llm_retries,
            concurrency=settings.llm_concurrency, budget=self.budget, cache=self.cache,
            template=self.template, json_schema=settings.llm_json_schema,
            gate=rate_gate(settings.llm_rate_limit))
        self._prefetched: dict[str, Extraction] = {}
        self.synthesizer = None
        if settings.llm_synthesis:
            from .synthesis import Synthesizer

            self.synthesizer = Synthesizer(self.client, settings.llm_max_output_tokens)

    @property
    def digest(self) -> str:
        s = self.settings
        return content_id(self.name, _VALIDATION_VERSION, self.template, s.llm_model,
                          s.llm_chunk_chars, s.llm_min_confidence, s.llm_json_schema,
                          s.llm_max_claims_per_chunk,
                          s.llm_max_output_tokens, s.llm_synthesis)

    def describe(self) -> dict[str, str]:
        return {"backend": self.name, "model": str(self.settings.llm_model),
                "prompt_template_digest": self.template, "validation": _VALIDATION_VERSION,
                "fallbacks": ",".join(self.settings.llm_fallbacks),
                "synthesis": "on" if self.synthesizer else "off"}

    def usage(self) -> dict[str, float | int]:
        """What this run spent (cache hits cost nothing)."""
        spent = self.budget.spent
        out: dict[str, float | int] = {
            "calls": spent.calls, "cache_hits": spent.cache_hits,
            "prompt_tokens": spent.prompt_tokens, "completion_tokens": spent.completion_tokens,
            "cost_usd": round(spent.cost_usd, 6)}
        if self.synthesizer is not None:
            out.update({"pages_synthesized": 0, "sentences_kept": 0,
                        **self.synthesizer.counts})
        return out

    # -- extraction ------------------------------------------------------------------------
    def extract(self, record: SourceRecord) -> Extraction:
        done = self._prefetched.pop(record.sha256, None)
        return done if done is not None else self._extract_many([record])[0]

    def prefetch(self, records: Sequence[SourceRecord]) -> None:
        """Make every call these records need at once (bounded by FOLIO_LLM_CONCURRENCY);
        ``extract`` then returns the results."""
        for r, ex in zip(records, self._extract_many(records), strict=True):
            self._prefetched[r.sha256] = ex

    def _chunks(self, record: SourceRecord) -> list[Chunk]:
        size = self.settings.llm_chunk_chars
        return chunk_spans(record.body, size, 2 * size)

    def _extract_many(self, records: Sequence[SourceRecord]) -> list[Extraction]:
        plan: list[tuple[SourceRecord, list[Chunk]]] = []
        calls: list[Call] = []
        max_claims = self.settings.llm_max_claims_per_chunk
        for r in records:
            chunks = self._chunks(r)
            plan.append((r, chunks))
            for ch in chunks:
                messages = extraction_messages(r.entity_type, r.entity_name, r.title,
                                               r.body[ch.start:ch.end], max_claims)
                calls.append(Call.of(messages, "folio_claims", claims_schema(max_claims),
                                     self.settings.llm_max_output_tokens))
        answers = iter(self.client.run(calls))
        out: list[Extraction] = []
        for r, chunks in plan:
            claims = structured_claims(r)
            rejected: Counter[str] = Counter()
            usage: Counter[str] = Counter()
            seen: set[tuple] = set()
            for ch in chunks:
                answer = next(answers)
                usage["calls"] += 1
                usage["prompt_tokens"] += answer.prompt_tokens
                usage["completion_tokens"] += answer.completion_tokens
                usage["cost_usd"] += answer.cost_usd  # type: ignore[assignment]
                got, why = validate_answer(answer, r.body, ch, self.client.secrets,
                                           self.settings.llm_min_confidence, max_claims)
                rejected += why
                for c in got:
                    # one fact once per span, whichever way the model named its subject:
                    # two names of one entity would otherwise give two claims with one id
                    key = (c.attribute, c.value, c.span)
                    if key in seen:
                        continue
                    seen.add(key)
                    claims.append(c)
            out.append(Extraction(backend=self.digest, claims=tuple(claims),
                                  rejected=dict(sorted(rejected.items())),
                                  usage={k: float(v) for k, v in sorted(usage.items())}))
        return out

    def close(self) -> None:
        self.cache.close()

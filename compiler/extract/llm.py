"""The LLM backend: record text → claims proposed by a model, kept only when they check out.

The model proposes, code disposes. Structured fields and references become claims exactly as
in the offline backend (no model needed). Body text is cut into chunks (``chunking.py``); each
chunk is one cached call (``client.py``) whose JSON answer (``responses.py``) is validated
claim by claim:

* the quote must occur verbatim in the chunk (its span is where it occurs);
* the value must be found, word for word, in the quote;
* a quote that reads as an instruction to a model, or stands in a paragraph that does, is not
  a fact about the business (``screen.py``: the same screen as the offline backend's);
* with a schema, the attribute is one of its canonical names (or "other", then mapped through
  the schema's phrases where it can be), qualifiers are declared ones whose value the quote
  names, and a typed attribute's value is of its type;
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
from ..schema.model import Schema
from .offline import structured_claims
from .phrases import AttrRef, Vocabulary, schema_digest, tokens, vocabulary
from .prompts import extraction_messages, template_digest
from .responses import OTHER, LLMClaim, claims_schema
from .screen import Screened, instruction_reason, overlapping, screened
from .values import TYPED, find_values

# Bump when validation can keep or drop different claims for the same answers.
_VALIDATION_VERSION = "llm-validate-2"

CACHE_FILE = "llm_cache.db"

# Reasons that reject a whole answer rather than one claim.
RESPONSE_REASONS = frozenset({"malformed_json", "truncated_output"})


def _canonical(vocab: Vocabulary, c: LLMClaim, entity_type: str | None) -> AttrRef | None:
    """The canonical attribute a proposed claim names: by its name, else by the schema's
    phrases when the whole of the model's own attribute words is one of them."""
    words_of = c.other_attribute if c.attribute == OTHER else c.attribute
    key = " ".join(words_of.split()).lower()
    refs = [AttrRef(t, key, et.attributes[key]) for t, et in sorted(vocab.schema.types.items())
            if key in et.attributes]
    if not refs:
        toks = tokens(words_of)
        full = [m for m in vocab.attribute_matches(words_of, toks) if m.size == len(toks)]
        refs = list(full[0].targets) if full else []
    if not refs:
        return None
    own = [r for r in refs if r.entity_type == entity_type]
    return (own or refs)[0]


def _qualifier_value(vocab: Vocabulary, qualifier: str, value: str) -> str | None:
    """The canonical value ``value`` names of ``qualifier`` (itself or a synonym)."""
    spec = vocab.schema.qualifiers.get(qualifier)
    if spec is None:
        return None
    if value in spec.values:
        return value
    return next((canon for q, canon in vocab.qualifier_of(value) if q == qualifier), None)


def _qualifiers(vocab: Vocabulary, ref: AttrRef, c: LLMClaim) -> tuple[tuple[str, str], ...] | None:
    """Declared qualifiers whose value the quote names; None when the model qualified the
    fact with a value the quote does not name (an invented identity)."""
    named = set(vocab.qualifier_of(c.quote))
    out: dict[str, str] = {}
    for q, v in sorted(c.qualifiers.items()):
        if not v or q not in ref.spec.qualifiers:
            continue
        canon = _qualifier_value(vocab, q, v)
        if canon is None or (q, canon) not in named:
            return None
        out[q] = canon
    return tuple(sorted(out.items()))


def validate_answer(answer: Answer, body: str, chunk: Chunk, secrets: Sequence[str],
                    min_confidence: float, max_claims: int = 24, *,
                    vocab: Vocabulary | None = None, entity_type: str | None = None,
                    blocked: Sequence[Screened] | None = None
                    ) -> tuple[list[RawClaim], Counter[str]]:
    """The claims of one chunk's answer that check out, and the rest counted by reason.
    ``blocked``: the body's screened spans (computed here when not given)."""
    blocked = screened(body) if blocked is None else blocked
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
        if instruction_reason(c.quote) or overlapping(list(blocked), pos, pos + len(c.quote)):
            rejected["instruction_in_quote"] += 1
            continue
        if not set(words(c.value)) <= set(words(c.quote)) or not words(c.value):
            rejected["value_not_in_quote"] += 1
            continue
        if c.confidence < min_confidence:
            rejected["low_confidence"] += 1
            continue
        ref = _canonical(vocab, c, entity_type) if vocab is not None else None
        if ref is not None:
            assert vocab is not None
            if ref.spec.type in TYPED and not find_values(c.value, ref.spec.type):
                rejected["value_type_mismatch"] += 1
                continue
            quals = _qualifiers(vocab, ref, c)
            if quals is None:
                rejected["qualifier_not_in_quote"] += 1
                continue
            claims.append(RawClaim(attribute=ref.name, value=collapse(c.value), kind="fact",
                                   quote=c.quote, span=(pos, pos + len(c.quote)),
                                   subject_phrase=collapse(c.subject), mapped=True,
                                   qualifiers=quals, subject_type=ref.entity_type))
            continue
        attribute = normalize_attribute(c.other_attribute if c.attribute == OTHER
                                        else c.attribute)
        if not attribute:
            rejected["invalid_claim"] += 1
            continue
        claims.append(RawClaim(attribute=attribute, value=collapse(c.value), kind="fact",
                               quote=c.quote, span=(pos, pos + len(c.quote)),
                               subject_phrase=collapse(c.subject)))
    return claims, rejected


class LLMBackend:
    name = "llm"

    def __init__(self, settings: FolioSettings, state_dir: Path | None = None,
                 schema: Schema | None = None) -> None:
        if not settings.llm_model:
            raise ExtractionFailed(
                "FOLIO_BACKEND=llm needs a model: set FOLIO_LLM_MODEL (e.g. openai/gpt-4o-mini, "
                "or hosted_vllm/<name> with FOLIO_LLM_API_BASE for a local server)")
        self.settings = settings
        self.schema = schema
        self.vocab = vocabulary(schema) if schema is not None else None
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
    def engine_digest(self) -> str:
        """Model, prompts and validation alone: a schema edit re-extracts, it need not
        rebuild the wiki."""
        s = self.settings
        return content_id(self.name, _VALIDATION_VERSION, self.template, s.llm_model,
                          s.llm_chunk_chars, s.llm_min_confidence, s.llm_json_schema,
                          s.llm_max_claims_per_chunk,
                          s.llm_max_output_tokens, s.llm_synthesis)

    @property
    def digest(self) -> str:
        if self.schema is None:
            return self.engine_digest
        return content_id(self.engine_digest, schema_digest(self.schema))

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
                                               r.body[ch.start:ch.end], max_claims, self.schema)
                calls.append(Call.of(messages, "folio_claims",
                                     claims_schema(max_claims, self.schema),
                                     self.settings.llm_max_output_tokens))
        answers = iter(self.client.run(calls))
        out: list[Extraction] = []
        for r, chunks in plan:
            claims = structured_claims(r, self.schema)
            rejected: Counter[str] = Counter()
            usage: Counter[str] = Counter()
            seen: set[tuple] = set()
            blocked = screened(r.body)
            for ch in chunks:
                answer = next(answers)
                usage["calls"] += 1
                usage["prompt_tokens"] += answer.prompt_tokens
                usage["completion_tokens"] += answer.completion_tokens
                usage["cost_usd"] += answer.cost_usd  # type: ignore[assignment]
                got, why = validate_answer(answer, r.body, ch, self.client.secrets,
                                           self.settings.llm_min_confidence, max_claims,
                                           vocab=self.vocab, entity_type=r.entity_type,
                                           blocked=blocked)
                rejected += why
                for c in got:
                    # one fact once per span, whichever way the model named its subject:
                    # two names of one entity would otherwise give two claims with one id
                    key = (c.attribute, c.qualifiers, c.value, c.span)
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

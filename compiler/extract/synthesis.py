"""Page synthesis: a short prose overview of a page, written by a model from the page's
winning claims only, every sentence citing the claims it states.

The model sees the claims as numbered facts (``c1``, ``c2``, … rather than 64-hex ids, which
small models garble). A sentence is kept only when it cites at least one fact and every fact
it cites is on the list; the rest are dropped and counted. The overview is the only LLM text on
a page: frontmatter, tables, conflicts, sources, index.md and log.md stay deterministic. It is
cached by the facts given, so a page whose winning claims did not change costs no call.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, ValidationError

from ..models import Claim, Entity
from .cache import Answer
from .client import Call, LLMClient
from .prompts import synthesis_messages
from .responses import MAX_SYNTHESIS_SENTENCES, SYNTHESIS_SCHEMA, LLMSentence

# Facts given per page; a page with more is summarised from the first ones in a stable order.
MAX_FACTS = 40


class Sentence(BaseModel):
    text: str
    claims: tuple[str, ...]


def page_facts(claims: Sequence[Claim]) -> list[Claim]:
    """The winning claims worth a sentence, in a stable order (so the cache key is stable)."""
    useful = [c for c in claims if not (c.kind == "field" and c.attribute == "name")]
    return sorted(useful, key=lambda c: (c.kind == "statement", c.attribute, c.value, c.id))[
        :MAX_FACTS]


def validate_synthesis(answer: Answer, aliases: dict[str, str], secrets: Sequence[str]
                       ) -> tuple[list[Sentence], Counter[str]]:
    dropped: Counter[str] = Counter()
    if answer.finish_reason == "length":
        dropped["synthesis_truncated"] += 1
        return [], dropped
    try:
        data = json.loads(answer.content or "")
    except ValueError:
        dropped["synthesis_malformed"] += 1
        return [], dropped
    items = data.get("sentences") if isinstance(data, dict) else None
    if not isinstance(items, list):
        dropped["synthesis_malformed"] += 1
        return [], dropped
    out: list[Sentence] = []
    for item in items[:MAX_SYNTHESIS_SENTENCES]:
        try:
            s = LLMSentence.model_validate(item)
        except ValidationError:
            dropped["sentences_invalid"] += 1
            continue
        cited = [c.strip() for c in s.claims if c.strip()]
        if not cited:
            dropped["sentences_uncited"] += 1
            continue
        if any(c not in aliases for c in cited):
            dropped["sentences_unknown_id"] += 1
            continue
        if any(sec and sec in s.text for sec in secrets):
            dropped["sentences_secret"] += 1
            continue
        ids = tuple(dict.fromkeys(aliases[c] for c in cited))
        out.append(Sentence(text=" ".join(s.text.split()), claims=ids))
    return out, dropped


class Synthesizer:
    def __init__(self, client: LLMClient, max_output_tokens: int) -> None:
        self.client, self.max_output_tokens = client, max_output_tokens
        self.counts: Counter[str] = Counter()

    def synthesize(self, pages: Sequence[tuple[Entity, Sequence[Claim]]]
                   ) -> dict[str, list[Sentence]]:
        """Entity id → overview sentences, for pages given with their winning claims."""
        jobs: list[tuple[str, dict[str, str]]] = []
        calls: list[Call] = []
        for entity, winners in pages:
            facts = page_facts(winners)
            if not facts:
                continue
            aliases = {f"c{i}": c.id for i, c in enumerate(facts, 1)}
            rows = [(f"c{i}", c.attribute, c.value) for i, c in enumerate(facts, 1)]
            calls.append(Call.of(
                synthesis_messages(entity.type, entity.name, rows, MAX_SYNTHESIS_SENTENCES),
                "folio_overview", SYNTHESIS_SCHEMA, self.max_output_tokens))
            jobs.append((entity.id, aliases))
        out: dict[str, list[Sentence]] = {}
        for (eid, aliases), answer in zip(jobs, self.client.run(calls), strict=True):
            sentences, dropped = validate_synthesis(answer, aliases, self.client.secrets)
            self.counts += dropped
            self.counts["pages_synthesized"] += 1
            self.counts["sentences_kept"] += len(sentences)
            if sentences:
                out[eid] = sentences
        return out

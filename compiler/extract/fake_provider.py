"""A deterministic litellm custom provider, for tests and the LLM cost benchmark.

It answers in the real OpenAI chat-completion shape and counts calls and tokens. Its default
behaviour is a competent extractor: it reads the source text between the prompt's fences,
takes the sentences the offline rules understand as facts ("X is Y", "S has a X of Y",
"X: Y"), and answers them as claims quoting the sentence verbatim. Synthesis requests get one
sentence per fact, citing it. Tests replace ``respond`` to script malformed JSON, truncated
output, 429s, timeouts, prompt-injection obedience or secret leaks.

Never used unless registered (``register``); it makes no network calls.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from typing import Any

from ..text import sentences
from .offline import _shape

PROVIDER = "folio-fake"

_DATA = re.compile(r"BEGIN SOURCE DATA (\w+)\n(.*)\nEND SOURCE DATA \1", re.DOTALL)
_FACTS = re.compile(r"BEGIN FACTS (\w+)\n(.*)\nEND FACTS \1", re.DOTALL)


def chat_completion(content: str | None, *, finish_reason: str = "stop", model: str = "fake",
                    prompt_tokens: int = 0, completion_tokens: int | None = None
                    ) -> dict[str, Any]:
    """An OpenAI ``chat.completion`` object."""
    completion_tokens = (len(content or "") // 4 + 1 if completion_tokens is None
                         else completion_tokens)
    return {
        "id": "chatcmpl-folio-fake", "object": "chat.completion", "created": 1_763_700_000,
        "model": model, "system_fingerprint": None,
        "choices": [{"index": 0, "finish_reason": finish_reason, "logprobs": None,
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


def source_text(messages: list[dict[str, str]]) -> str | None:
    """The record text of an extraction prompt (None for other prompts)."""
    m = _DATA.search(messages[-1]["content"])
    return m.group(2) if m else None


def facts_of(messages: list[dict[str, str]]) -> list[tuple[str, str]]:
    """(id, "attribute = value") of a synthesis prompt."""
    m = _FACTS.search(messages[-1]["content"])
    if not m:
        return []
    return [tuple(line.split(": ", 1)) for line in m.group(2).splitlines() if ": " in line]


def competent_answer(messages: list[dict[str, str]], model: str) -> str:
    text = source_text(messages)
    if text is None:
        sents = [{"text": f"The {fact.split(' = ')[0]} is {fact.split(' = ', 1)[-1]}.",
                  "claims": [fid]} for fid, fact in facts_of(messages)[:8]]
        return json.dumps({"sentences": sents})
    claims = []
    for start, end in sentences(text):
        sentence = text[start:end]
        shape = _shape(sentence)
        if shape is None:
            continue
        subject, attribute, value = shape
        claims.append({"subject": subject, "attribute": attribute, "value": value.rstrip("."),
                       "quote": sentence, "confidence": 0.9})
    return json.dumps({"claims": claims[:24]})


Responder = Callable[[list[dict[str, str]], str, dict[str, Any]], dict[str, Any]]


class FakeProvider:
    """Counts calls; ``respond(messages, model, request)`` returns a chat.completion dict or
    raises (litellm exceptions, to simulate provider errors)."""

    def __init__(self, respond: Responder | None = None) -> None:
        self.respond: Responder = respond or (
            lambda messages, model, request: chat_completion(
                competent_answer(messages, model), model=model,
                prompt_tokens=sum(len(m["content"]) for m in messages) // 4))
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def reset(self) -> None:
        with self._lock:
            self.calls = self.prompt_tokens = self.completion_tokens = 0
            self.requests.clear()

    def handle(self, model: str, messages: list[dict[str, str]], request: dict[str, Any]
               ) -> dict[str, Any]:
        with self._lock:
            self.calls += 1
            self.requests.append({"model": model, "messages": messages, **request})
        out = self.respond(messages, model, request)
        with self._lock:
            self.prompt_tokens += out["usage"]["prompt_tokens"]
            self.completion_tokens += out["usage"]["completion_tokens"]
        return out


def register(fake: FakeProvider) -> None:
    """Route ``folio-fake/<anything>`` to ``fake`` (replacing any earlier registration)."""
    from .client import import_litellm

    litellm = import_litellm()
    from litellm import CustomLLM, ModelResponse
    from litellm.utils import custom_llm_setup

    class _Handler(CustomLLM):
        def completion(self, model: str, messages: list, api_base: str, custom_prompt_dict: dict,
                       model_response: Any, print_verbose: Any, encoding: Any, api_key: Any,
                       logging_obj: Any, optional_params: dict, *args: Any, **kwargs: Any
                       ) -> Any:
            request = {"api_key": api_key, "api_base": api_base,
                       "optional_params": dict(optional_params),
                       "timeout": kwargs.get("timeout")}
            return ModelResponse(**fake.handle(model, messages, request))

    litellm.custom_provider_map = [
        p for p in litellm.custom_provider_map if p.get("provider") != PROVIDER
    ] + [{"provider": PROVIDER, "custom_handler": _Handler()}]
    custom_llm_setup()

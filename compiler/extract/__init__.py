"""Extraction backends: records in, raw (not yet linked) claims out."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .base import Extraction, ExtractionBackend, ExtractionFailed, RawClaim
from .offline import OfflineBackend

if TYPE_CHECKING:
    from ..schema.model import Schema
    from ..settings import FolioSettings

__all__ = ["Extraction", "ExtractionBackend", "ExtractionFailed", "OfflineBackend", "RawClaim",
           "get_backend"]


def get_backend(name: str, settings: FolioSettings | None = None,
                state_dir: Path | None = None, schema: Schema | None = None
                ) -> ExtractionBackend:
    """Backends are chosen by settings. ``state_dir`` (``<wiki>/.folio``) holds the LLM call
    cache; without it answers are cached in memory for this process only. ``schema`` is the
    corpus's vocabulary: prose is read against it (offline) or answered in it (LLM)."""
    if name == "offline":
        return OfflineBackend(schema)
    if name == "llm":
        from ..settings import FolioSettings
        from .llm import LLMBackend  # imports no litellm yet: that waits for the first call

        return LLMBackend(settings or FolioSettings(), state_dir, schema)
    raise ValueError(f"unknown extraction backend {name!r} (known: offline, llm)")

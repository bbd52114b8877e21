"""Extraction backends: records in, raw (not yet linked) claims out."""

from .base import Extraction, ExtractionBackend, RawClaim
from .offline import OfflineBackend

__all__ = ["Extraction", "ExtractionBackend", "OfflineBackend", "RawClaim", "get_backend"]


def get_backend(name: str) -> ExtractionBackend:
    """Backends are chosen by settings; the LLM backend registers here when it lands."""
    if name == "offline":
        return OfflineBackend()
    raise ValueError(f"unknown extraction backend {name!r} (known: offline)")

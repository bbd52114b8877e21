"""Canonical bytes and content-derived ids.

Every id in Folio is a digest of content, never of run order, so two compiles of the same
inputs name everything the same way on any machine.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


# what json.dumps(value, sort_keys=True, ...) builds on every call; made once
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                              default=str)


def canonical_json(value: Any) -> bytes:
    """RFC 8785-style canonical JSON: sorted keys, no whitespace, UTF-8."""
    return _CANONICAL.encode(value).encode("utf-8")


def sha256_hex(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def content_id(*parts: Any, length: int = 16) -> str:
    """A short stable id over the canonical form of ``parts``."""
    return sha256_hex(canonical_json(list(parts)))[:length]

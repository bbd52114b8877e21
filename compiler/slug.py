"""Path-traversal-proof page names.

A slug is built only from ``[a-z0-9-]``; nothing a source title contains (``../``, NUL,
control characters, absolute paths, Windows device names) can leave the wiki folder.
"""

from __future__ import annotations

import re
import unicodedata

from .canonical import sha256_hex

_NON_SLUG = re.compile(r"[^a-z0-9]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_MAX_SLUG = 80
_TYPE_RE = re.compile(r"^[a-z][a-z0-9-]{0,31}$")


def has_control_chars(text: str) -> bool:
    return bool(_CONTROL.search(text))


def slugify(text: str) -> str:
    """Lower-case ASCII slug; falls back to a digest when nothing printable is left."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = _NON_SLUG.sub("-", folded.lower()).strip("-")
    if len(slug) > _MAX_SLUG:
        slug = slug[:_MAX_SLUG].rstrip("-") + "-" + sha256_hex(text)[:8]
    return slug or "untitled-" + sha256_hex(text)[:8]


def safe_type(entity_type: str) -> str:
    """Entity types become folder names, so they are held to a stricter pattern."""
    slug = slugify(entity_type)
    return slug if _TYPE_RE.match(slug) else "topic"


def page_name(entity_type: str, name: str) -> str:
    """``<type>/<slug>``: the page's wiki link target and its path without ``.md``."""
    return f"{safe_type(entity_type)}/{slugify(name)}"

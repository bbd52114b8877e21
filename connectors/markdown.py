"""Markdown files with optional YAML frontmatter: hand-written pages in a folder source.

Frontmatter ``updated`` (a date or datetime) dates a note. A note without one compiles with
no timestamp (a file's mtime changes on every checkout, so it cannot date a record
reproducibly): where a recency tiebreak would need its time, the item stays contested.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Iterator
from functools import partial
from datetime import date
from typing import Any, ClassVar

import yaml

from compiler import safe_yaml
from compiler.canonical import sha256_hex
from compiler.models import Reference, Scalar, SourceRecord

from ._common import FieldError, as_list, build, decode_text, sorted_unique
from .base import RecordError, SourceConfig
from .timefmt import parse_timestamp

_FENCE = re.compile(r"\A---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]|\n]+?)(?:\|([^\[\]\n]+?))?\]\]")
_H1 = re.compile(r"# +(.+?)(?:\s+#+)?\s*")
_FILE_EMBED = re.compile(r"\.(?!md$|markdown$)[A-Za-z0-9]{1,5}$")
_KNOWN_KEYS = frozenset(
    {"id", "title", "type", "aliases", "version", "updated", "status", "labels", "tags", "acl"}
)


class MarkdownConnector:
    system: ClassVar[str] = "markdown"
    file_suffixes: ClassVar[tuple[str, ...]] = (".md", ".markdown")

    def parse(
        self, path: str, data: bytes, source: SourceConfig, tenant: str
    ) -> Iterator[SourceRecord | RecordError]:
        text = decode_text(path, data)
        if isinstance(text, RecordError):
            yield text
            return
        # Normalised so a checkout with CRLF line endings compiles to the same record.
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        stem = posixpath.splitext(posixpath.basename(path.replace("\\", "/")))[0]
        meta, body = _split_frontmatter(text)
        if isinstance(meta, str):
            yield RecordError(path=path, record=stem, field="frontmatter", message=meta)
            return
        label = str(meta["id"]) if meta.get("id") is not None else stem
        result = build(path, label, partial(_record, meta, body, stem, data, path, source, tenant))
        if result is not None:
            yield result


def _split_frontmatter(text: str) -> tuple[dict[str, Any] | str, str]:
    """(frontmatter, body), or (reason, "") when the frontmatter is unusable."""
    if not text.startswith("---"):
        return {}, text
    match = _FENCE.match(text)
    if not match:
        if re.match(r"\A---[ \t]*\n", text):
            return "frontmatter is opened with '---' but never closed", ""
        return {}, text  # a leading '----' rule or similar, not a fence
    try:
        meta = safe_yaml.load(match.group(1) or "")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        return f"invalid YAML{where}: {problem}", ""
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        return f"frontmatter must be a mapping, got {type(meta).__name__}", ""
    return meta, text[match.end() :]


def _record(
    meta: dict[str, Any], raw_body: str, stem: str, data: bytes, path: str, source: SourceConfig, tenant: str
) -> SourceRecord:
    updated_at = None
    if meta.get("updated") not in (None, ""):
        if not isinstance(meta["updated"], str | date):
            raise FieldError("updated", f"expected a date, got {type(meta['updated']).__name__}")
        try:
            updated_at = parse_timestamp(meta["updated"])
        except ValueError as exc:
            raise FieldError("updated", str(exc)) from None

    body, targets = _strip_wikilinks(raw_body.strip("\n"))
    title = meta.get("title")
    if title is None:
        title = _first_heading(body) or stem
    tags = [*_strings(meta.get("labels")), *_strings(meta.get("tags"))]
    return SourceRecord(
        tenant=tenant,
        system=MarkdownConnector.system,
        instance=source.instance,
        type="doc",
        id=str(meta["id"]) if meta.get("id") is not None else stem,
        version=str(meta["version"]) if meta.get("version") is not None else sha256_hex(data)[:12],
        updated_at=updated_at,
        title=str(title).strip(),
        body=body,
        fields=_extra_fields(meta),
        references=tuple(Reference(relation="links to", target_type=None, target_name=t) for t in targets),
        entity_type=str(meta.get("type") or source.options.get("default_type", "topic")),
        aliases=tuple(dict.fromkeys(_strings(meta.get("aliases")))),
        container=source.instance,
        status=str(meta["status"]) if meta.get("status") is not None else None,
        labels=sorted_unique(tags),
        acl=meta["acl"] if "acl" in meta else source.default_acl,
        origin=path,
    )


def _strings(value: Any) -> list[str]:
    """YAML lets authors write a list or a single value; both mean the same here."""
    items = as_list(value) if isinstance(value, list) else ([] if value is None else [value])
    return [str(v).strip() for v in items if v is not None and str(v).strip()]


def _extra_fields(meta: dict[str, Any]) -> dict[str, Scalar]:
    """Other scalar frontmatter keys are structured facts the author declared (owner: Jane)."""
    out: dict[str, Scalar] = {}
    for key, value in meta.items():
        if str(key) in _KNOWN_KEYS:
            continue
        if isinstance(value, date):
            out[str(key)] = value.isoformat()
        elif isinstance(value, float) and not math.isfinite(value):
            continue  # .nan/.inf have no canonical JSON form
        elif isinstance(value, str | int | float | bool):
            out[str(key)] = value
    return out


def _first_heading(body: str) -> str | None:
    in_fence = False
    for line in body.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        elif not in_fence and (m := _H1.fullmatch(line)):
            return " ".join(m.group(1).split())
    return None


def _strip_wikilinks(text: str) -> tuple[str, tuple[str, ...]]:
    """Body with ``[[Target|shown]]`` replaced by its shown text, and the distinct targets."""
    targets: list[str] = []

    def shown(match: re.Match[str]) -> str:
        embed, raw, label = match.groups()
        target = raw.split("#", 1)[0].strip()
        if embed and _FILE_EMBED.search(target):
            return ""  # an embedded image or attachment is not a page to link
        if target:
            targets.append(target)
        return (label if label is not None else raw).strip()

    return _WIKILINK.sub(shown, text), tuple(dict.fromkeys(targets))

"""The one YAML loader: the safe subset, with aliases, nesting and expanded size bounded
*before* anything is built.

Why: YAML aliases let a few hundred bytes stand for billions of nodes ("nine levels of nine"
aliases: 413 bytes, 387 million scalars). PyYAML builds the aliased objects shared, so loading
is cheap, but everything downstream that walks or serialises the value (a record's canonical
JSON, its digest, the state store) pays the full expansion: 5.5 GB and two minutes for one
file. ``FOLIO_MAX_FILE_BYTES`` cannot help, the bytes are few.

How: one streaming pass over libyaml's parser events (iterative, no recursion, no tree) counts
what the document *expands* to: each collection's node count and scalar bytes are summed as it
closes, an anchor remembers its subtree's totals, and an alias adds them again. A document past
a limit is refused with :class:`YamlLimitError` (a :class:`yaml.YAMLError`, so every caller's
existing "invalid YAML" handling names the file) before it is composed or constructed. Only
then is it loaded, with the C loader when the wheel has it.

Limits (``FOLIO_YAML_*``, :class:`compiler.settings.FolioSettings`): nesting depth, expanded
nodes, expanded scalar bytes, alias count. Defaults are far above any real configuration file
or front matter and far below what hurts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import yaml
from yaml.events import (
    AliasEvent, CollectionEndEvent, MappingStartEvent, ScalarEvent, SequenceStartEvent,
)

from .settings import (
    DEFAULT_MAX_ALIASES, DEFAULT_MAX_DEPTH, DEFAULT_MAX_EXPANDED_BYTES, DEFAULT_MAX_NODES,
    FolioSettings,
)

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class YamlLimits:
    max_depth: int = DEFAULT_MAX_DEPTH
    max_nodes: int = DEFAULT_MAX_NODES
    max_expanded_bytes: int = DEFAULT_MAX_EXPANDED_BYTES
    max_aliases: int = DEFAULT_MAX_ALIASES


@lru_cache(maxsize=1)
def _env_limits(depth: str | None, nodes: str | None, size: str | None, aliases: str | None
                ) -> YamlLimits:
    s = FolioSettings()
    return YamlLimits(s.yaml_max_depth, s.yaml_max_nodes, s.yaml_max_expanded_bytes,
                      s.yaml_max_aliases)


def default_limits() -> YamlLimits:
    """The limits the ``FOLIO_YAML_*`` settings give (cached per value of those env vars, so a
    worker process parsing 10k front matters builds the settings once)."""
    env = os.environ
    return _env_limits(env.get("FOLIO_YAML_MAX_DEPTH"), env.get("FOLIO_YAML_MAX_NODES"),
                       env.get("FOLIO_YAML_MAX_EXPANDED_BYTES"), env.get("FOLIO_YAML_MAX_ALIASES"))


class YamlLimitError(yaml.YAMLError):
    """The document would expand past a limit; nothing of it was built."""

    def __init__(self, problem: str, mark: Any = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = mark

    def __str__(self) -> str:
        if self.problem_mark is not None:
            return (f"{self.problem} (line {self.problem_mark.line + 1}, column "
                    f"{self.problem_mark.column + 1})")
        return self.problem


def check(text: str | bytes, limits: YamlLimits | None = None) -> None:
    """Raise :class:`YamlLimitError` if ``text`` (every document of it) expands past
    ``limits``; raise :class:`yaml.YAMLError` if it does not parse."""
    lim = limits or default_limits()
    # per open collection: [nodes, bytes, anchor]; anchors: name → (nodes, bytes) once closed
    stack: list[list[Any]] = []
    anchors: dict[str, tuple[int, int]] = {}
    open_anchors: set[str] = set()
    total_nodes = total_bytes = aliases = 0

    def add(nodes: int, size: int, mark: Any) -> None:
        nonlocal total_nodes, total_bytes
        if stack:
            stack[-1][0] += nodes
            stack[-1][1] += size
        else:
            total_nodes += nodes
            total_bytes += size
        # the open collections' totals are lower bounds of the document's: check as we go,
        # so a bomb is refused at its first oversized alias, not after the whole pass
        nodes_now = total_nodes + sum(s[0] for s in stack)
        bytes_now = total_bytes + sum(s[1] for s in stack)
        if nodes_now > lim.max_nodes:
            raise YamlLimitError(
                f"YAML expands to more than {lim.max_nodes:,} nodes (FOLIO_YAML_MAX_NODES), "
                "through aliases or sheer size; refused before expansion", mark)
        if bytes_now > lim.max_expanded_bytes:
            raise YamlLimitError(
                f"YAML expands to more than {lim.max_expanded_bytes:,} bytes of scalars "
                "(FOLIO_YAML_MAX_EXPANDED_BYTES); refused before expansion", mark)

    for event in yaml.parse(text, Loader=_LOADER):
        if isinstance(event, (MappingStartEvent, SequenceStartEvent)):
            if len(stack) >= lim.max_depth:
                raise YamlLimitError(
                    f"YAML nests deeper than {lim.max_depth} levels (FOLIO_YAML_MAX_DEPTH)",
                    event.start_mark)
            stack.append([1, 0, event.anchor])
            if event.anchor is not None:
                open_anchors.add(event.anchor)
        elif isinstance(event, CollectionEndEvent):
            nodes, size, anchor = stack.pop()
            if anchor is not None:
                anchors[anchor] = (nodes, size)
                open_anchors.discard(anchor)
            add(nodes, size, event.start_mark)
        elif isinstance(event, ScalarEvent):
            size = len(event.value)
            if event.anchor is not None:
                anchors[event.anchor] = (1, size)
            add(1, size, event.start_mark)
        elif isinstance(event, AliasEvent):
            aliases += 1
            if aliases > lim.max_aliases:
                raise YamlLimitError(
                    f"YAML uses more than {lim.max_aliases:,} aliases (FOLIO_YAML_MAX_ALIASES)",
                    event.start_mark)
            if event.anchor in open_anchors:
                raise YamlLimitError(f"YAML alias *{event.anchor} refers to a collection that "
                                     "contains it (recursive)", event.start_mark)
            if event.anchor not in anchors:
                raise YamlLimitError(f"YAML alias *{event.anchor} refers to no anchor",
                                     event.start_mark)
            add(*anchors[event.anchor], event.start_mark)


def load(text: str | bytes, limits: YamlLimits | None = None) -> Any:
    """``yaml.safe_load`` with the limits above checked first."""
    check(text, limits)
    return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader


__all__ = ["YamlLimitError", "YamlLimits", "check", "default_limits", "load"]

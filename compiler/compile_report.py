"""What a compile reports, and the progress sink it reports to as it goes."""

from __future__ import annotations

from dataclasses import dataclass, field

from connectors.base import RecordError


class Progress:
    """No-op progress sink; the CLI passes one that draws bars."""

    def phase(self, name: str, total: int) -> None: ...

    def advance(self, n: int = 1) -> None: ...


@dataclass
class CompileReport:
    full_rebuild: bool = False
    files_seen: int = 0
    files_changed: int = 0
    records_seen: int = 0
    records_extracted: int = 0
    records_removed: int = 0
    records_relinked: int = 0
    pages_rendered: int = 0
    pages_written: int = 0
    pages_removed: int = 0
    pages_total: int = 0
    claims_total: int = 0
    conflicts_resolved: int = 0
    conflicts_open: int = 0
    seconds: float = 0.0
    errors: list[RecordError] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    # LLM backend: model output rejected by validation (records extracted this run), and
    # what this run's calls cost; both stay empty offline
    claims_rejected: int = 0
    rejected_by_reason: dict[str, int] = field(default_factory=dict)
    llm: dict[str, float | int] = field(default_factory=dict)
    # record keys whose content changed (re-extracted) or that disappeared: what a site must
    # ship to the central compile
    changed_keys: list[str] = field(default_factory=list)
    removed_keys: list[str] = field(default_factory=list)
    # the schema (base + schema.yaml) differs from the last compile's: every record was
    # relinked (and, where extraction uses it, re-extracted); only pages whose claims
    # changed were rendered, every page's DBOM re-signed with the new schema digest
    schema_changed: bool = False
    records_reextracted: int = 0  # unchanged records whose extracted claims changed

    @property
    def rejected(self) -> int:
        return len(self.errors)


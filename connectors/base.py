"""The one interface every connector implements, and the corpus manifest that wires them.

A connector turns the bytes of one export file (in the real payload shape of its system's API)
into :class:`~compiler.models.SourceRecord` values, or :class:`RecordError` values naming the
file, the record and the field that could not be read. One bad record never hides the rest.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

from compiler.models import ACL, SourceRecord


class RecordError(BaseModel):
    """Why one input (a file, or one record inside it) was rejected."""

    model_config = ConfigDict(frozen=True)

    path: str
    record: str | None = Field(None, description="record id, or its position when it has none")
    field: str | None = None
    message: str

    def __str__(self) -> str:
        where = self.path
        if self.record:
            where += f" [record {self.record}]"
        if self.field:
            where += f" field '{self.field}'"
        return f"{where}: {self.message}"


class SourceConfig(BaseModel):
    """One entry of a corpus's ``sources.yaml``: a folder of one system's export files."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="folder relative to the corpus root")
    system: str
    instance: str = Field(pattern=r"^[^/\x00-\x1f\x7f]+$")
    default_acl: ACL = Field(
        default_factory=lambda: ACL(groups=("staff",)),
        description="ACL for records whose source carries no restriction of its own",
    )
    options: dict[str, Any] = Field(default_factory=dict, description="connector-specific")

    @field_validator("path")
    @classmethod
    def _relative(cls, v: str) -> str:
        p = Path(v)
        if p.is_absolute() or ".." in p.parts:
            raise ValueError(f"source path must stay inside the corpus: {v!r}")
        return p.as_posix()


class CorpusManifest(BaseModel):
    """``sources.yaml`` at the root of a corpus folder."""

    model_config = ConfigDict(extra="forbid")

    tenant: str = Field(pattern=r"^[^/\x00-\x1f\x7f]+$")
    sources: list[SourceConfig]


class Connector(Protocol):
    """Turns one export file into records. Pure: bytes in, records or errors out."""

    system: ClassVar[str]
    file_suffixes: ClassVar[tuple[str, ...]]

    def parse(
        self, path: str, data: bytes, source: SourceConfig, tenant: str
    ) -> Iterator[SourceRecord | RecordError]: ...


class ExtractedRecord(BaseModel):
    """A record some other compiler already extracted: a site's claim set read centrally.

    ``record`` may lack its body and fields (raw text stays at the site), so its content digest
    cannot be recomputed here: ``sha256`` is the one the site computed over the full record,
    and ``extraction_json`` the site's raw claims. ``search_text`` is what the central compile
    searches when a new entity name may be mentioned (the body, or only claim values)."""

    model_config = ConfigDict(frozen=True)

    record: SourceRecord
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    extraction_json: str
    search_text: str

    @property
    def key(self) -> str:
        return self.record.key

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def version(self) -> str:
        return self.record.version

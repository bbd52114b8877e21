"""Folio's own record files: one :class:`SourceRecord` as JSON per file.

The site consumer keeps a corpus folder of these (one file per live record key), so the
compiler reads change events through the same incremental path as any export folder.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from pydantic import ValidationError

from compiler.models import SourceRecord

from ._common import decode_json
from .base import RecordError, SourceConfig

SYSTEM = "folio-record"
_COMPUTED = ("key", "sha256")


def record_bytes(record: SourceRecord) -> bytes:
    """The file form: sorted keys, no computed fields and no origin, so equal records are equal bytes."""
    import json

    doc = record.model_dump(mode="json", exclude={"key", "sha256", "origin"})
    return (json.dumps(doc, ensure_ascii=False, sort_keys=True, indent=1) + "\n").encode()


class RecordJsonConnector:
    system: ClassVar[str] = SYSTEM
    file_suffixes: ClassVar[tuple[str, ...]] = (".json",)

    def parse(
        self, path: str, data: bytes, source: SourceConfig, tenant: str
    ) -> Iterator[SourceRecord | RecordError]:
        doc = decode_json(path, data)
        if isinstance(doc, RecordError):
            yield doc
            return
        if not isinstance(doc, dict):
            yield RecordError(path=path, message="not a Folio record (expected a JSON object)")
            return
        for name in _COMPUTED:
            doc.pop(name, None)
        label = str(doc.get("id")) if doc.get("id") is not None else None
        try:
            record = SourceRecord.model_validate({**doc, "origin": path})
        except ValidationError as exc:
            e = exc.errors(include_url=False)[0]
            yield RecordError(path=path, record=label, field=".".join(str(p) for p in e["loc"]) or None,
                              message=str(e["msg"]))
            return
        if record.tenant != tenant:
            yield RecordError(path=path, record=label, field="tenant",
                              message=f"record belongs to tenant {record.tenant!r}, corpus is {tenant!r}")
            return
        yield record

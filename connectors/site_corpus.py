"""The corpus folder a site consumer maintains: one Folio record file per live record key.

Applying a batch is idempotent: writing a record whose bytes are already there, or deleting one
that is gone, changes nothing, so a redelivered batch (at-least-once) leaves the folder as it was.
Writes are atomic; the consumer flushes the filesystem once per batch before it commits the
bus offsets on the strength of them.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import yaml

from compiler import retire
from compiler.atomic import write_atomic
from compiler.models import SourceRecord

from .loader import MANIFEST
from .record_json import SYSTEM, record_bytes

RECORDS_DIR = "records"
# replaced and deleted record files until the reaper frees them (compiler/retire.py); outside
# records/, so never read as a record
TRASH_DIR = ".folio-retired"
_MAX_NAME = 120


@dataclass(frozen=True, slots=True)
class ApplyResult:
    written: int = 0
    deleted: int = 0
    unchanged: int = 0
    stale: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.written or self.deleted)


def _part(text: str) -> str:
    name = quote(text, safe="-_.@~+=,")
    if len(name) > _MAX_NAME or name in {".", ".."} or name.startswith("."):
        # long or dot-leading ids: a digest keeps the name legal and still one-per-key
        name = "_" + hashlib.sha256(text.encode()).hexdigest()[:40]
    return name


class SiteCorpus:
    def __init__(self, root: Path, tenant: str, instance: str = "events") -> None:
        self.root = root
        self.tenant = tenant
        self.instance = instance
        self._records = os.path.join(os.fspath(root), RECORDS_DIR)

    def manifest_bytes(self) -> bytes:
        manifest = {
            "tenant": self.tenant,
            "sources": [{"path": RECORDS_DIR, "system": SYSTEM, "instance": self.instance}],
        }
        return yaml.safe_dump(manifest, sort_keys=True).encode()

    def ensure(self) -> None:
        (self.root / RECORDS_DIR).mkdir(parents=True, exist_ok=True)
        path = self.root / MANIFEST
        data = self.manifest_bytes()
        if not path.exists() or path.read_bytes() != data:
            write_atomic(path, data, durable=True)

    def path_for(self, key: str) -> Path:
        parts = key.split("/", 4)
        if len(parts) != 5 or parts[0] != self.tenant:
            raise ValueError(f"record key {key!r} is not a key of tenant {self.tenant!r}")
        _, system, instance, type_, id_ = parts
        # one join of strings: pathlib's / costs more than the rest of the call (twice per event)
        return Path(os.path.join(self._records, _part(system), _part(instance), _part(type_),
                                 f"{_part(id_)}.json"))

    def current(self, key: str) -> SourceRecord | None:
        path = self.path_for(key)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        return SourceRecord.model_validate_json(data)

    def apply(self, changes: Mapping[str, Sequence[SourceRecord | None]]) -> ApplyResult:
        """Apply each key's changes (``None``: deleted) in their order, exactly as if one by
        one: a version older than the one it would replace is stale and skipped (a replayed
        export or history must not roll a record back), a delete removes the file. Each key's
        file is read and written once, whatever the number of its changes."""
        written = unchanged = stale = deleted = 0
        trash = self.root / TRASH_DIR
        for key, seq in changes.items():
            path = self.path_for(key)
            try:
                old: bytes | None = path.read_bytes()
            except FileNotFoundError:
                old = None
            # the key's state as the changes go by: the file (unparsed until needed) or a record
            current: bytes | SourceRecord | None = old
            refused = False
            for record in seq:
                if record is None:
                    current, refused = None, False
                elif current is not None and _older(record, current):
                    refused = True
                else:
                    current, refused = record, False
            if current is None:
                deleted += retire.remove(path, trash) if old is not None else 0
            elif isinstance(current, bytes):  # the file as it was: every change was refused
                stale += 1
            else:
                data = record_bytes(current)
                if data == old:
                    if refused:
                        stale += 1
                    else:
                        unchanged += 1
                    continue
                write_atomic(path, data, trash=trash if old is not None else None)
                written += 1
        if written or deleted:
            retire.release(trash)
        return ApplyResult(written=written, deleted=deleted, unchanged=unchanged, stale=stale)


def _older(record: SourceRecord, current: bytes | SourceRecord) -> bool:
    if isinstance(current, bytes):
        try:
            previous = SourceRecord.model_validate_json(current)
        except ValueError:
            return False  # a damaged file is always replaced
    else:
        previous = current
    if record.updated_at is None or previous.updated_at is None:
        return False  # undated: the newer event wins
    return record.updated_at < previous.updated_at

"""Claim-set shards from a site (``compiler/claimset.py``): the central compile's input.

Each line is one record as it left its site: metadata, the digest of the full record and its
raw claims. The records arrive extracted, so the central compile neither re-reads source text
(which may never have left the site) nor recomputes digests over the redacted record.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from pydantic import ValidationError

from compiler.claimset import MANIFEST, ClaimSetEntry, ClaimSetManifest

from ._common import decode_text
from .base import ExtractedRecord, RecordError, SourceConfig

SYSTEM = "claimset"


class ClaimSetConnector:
    system: ClassVar[str] = SYSTEM
    file_suffixes: ClassVar[tuple[str, ...]] = (".jsonl", ".json")  # shards, the manifest

    def parse(self, path: str, data: bytes, source: SourceConfig, tenant: str
              ) -> Iterator[ExtractedRecord | RecordError]:
        text = decode_text(path, data)
        if isinstance(text, RecordError):
            yield text
            return
        if path.rsplit("/", 1)[-1] == MANIFEST:
            # the shard list travels with the shards; nothing to compile in it, but a damaged
            # one is worth saying
            try:
                ClaimSetManifest.model_validate_json(text)
            except ValidationError as exc:
                yield RecordError(path=path, message=f"invalid claim-set manifest: {exc.errors()[0]['msg']}")
            return
        if not path.endswith(".jsonl"):
            yield RecordError(path=path, message=f"not a claim-set shard (*.jsonl) or {MANIFEST}")
            return
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                entry = ClaimSetEntry.model_validate_json(line)
            except ValidationError as exc:
                e = exc.errors(include_url=False)[0]
                yield RecordError(path=path, record=f"line {n}",
                                  field=".".join(str(p) for p in e["loc"]) or None,
                                  message=str(e["msg"]))
                continue
            record = entry.record
            if record.tenant != tenant:
                yield RecordError(path=path, record=record.id, field="record.tenant",
                                  message=f"record belongs to tenant {record.tenant!r}, "
                                          f"corpus is {tenant!r}")
                continue
            yield ExtractedRecord(record=record.model_copy(update={"origin": f"{path}#{n}"}),
                                  sha256=entry.sha256,
                                  extraction_json=entry.extraction.model_dump_json(),
                                  search_text=entry.search_text)

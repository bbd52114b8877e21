"""Claim sets: what a site ships to the central compile instead of its raw records.

A site extracts its own records (``compile_wiki(..., extract_only=True)``) and exports, per
record, its metadata, content digest and raw claims. Under the site's :class:`SharePolicy` the
record body and fields stay at the site, and quotes leave only if allowed; the digest is always
the one computed over the full record, so every central claim still names the exact source
version. The central compile reads claim sets like any other export (``connectors/claimset.py``)
and does linking, authority, rendering and signing for all sites at once.

Layout of one site's claim set (a folder, or the same names as objects in the central store):
``manifest.json`` plus ``<bb>.jsonl`` shards, where ``bb`` is the first byte of sha256(record
key) in hex. A changed record rewrites one shard; the manifest, written last, names every shard
with its digest, so a reader that trusts the manifest never mixes two generations.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .atomic import remove_if_exists, write_atomic
from .canonical import canonical_json, sha256_hex
from .extract.base import Extraction
from .models import SourceRecord
from .state import State

FORMAT = "folio.claimset/v1"
MANIFEST = "manifest.json"
SHARD_SUFFIX = ".jsonl"


class SharePolicy(BaseModel):
    """What of a site's data may leave it. Claims (subject phrase, attribute, value) always do:
    they are the point. ``raw``: record bodies and structured fields too (lets the central
    compile search full text). ``quotes``: the source sentence behind each claim; without it,
    quotes are blanked and sentence-level statements (whose value *is* the sentence) stay home."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    raw: bool = False
    quotes: bool = True


class ClaimSetEntry(BaseModel):
    """One record as it leaves its site (a line of a shard)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    record: SourceRecord
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="of the full record, at the site")
    extraction: Extraction
    search_text: str


class ClaimSetManifest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["folio.claimset/v1"] = FORMAT
    site: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,62}$")
    tenant: str
    backend: dict[str, object] = Field(description="the extraction backend, as it describes itself")
    share: SharePolicy
    records: int
    shards: dict[str, str] = Field(description="shard file name → sha256 of its bytes")
    members: dict[str, str] = Field(
        description="shard file name → digest of the (record key, record sha256) pairs in it")
    extraction: str = Field(
        "", description="digest of what the records were extracted with (the backend's rules "
        "and the schema it maps through): a schema edit re-extracts unchanged records")


def shard_of(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:2] + SHARD_SUFFIX


def entry_for(record_json: str, sha256: str, extraction_json: str, policy: SharePolicy,
              ) -> ClaimSetEntry:
    """Pure: one stored record → what of it may leave the site."""
    # where the site read it from is the site's business
    record = SourceRecord.model_validate_json(record_json).model_copy(update={"origin": None})
    extraction = Extraction.model_validate_json(extraction_json)
    names = [record.title, record.entity_name, *record.aliases,
             *(ref.target_name for ref in record.references)]
    if policy.raw:
        search = [*names, record.body, *(str(v) for v in record.fields.values() if v is not None)]
    else:
        record = record.model_copy(update={"body": "", "fields": {}})
        search = list(names)
    claims = extraction.claims
    if not policy.quotes:
        # a fact's subject phrase is its sentence too: without quotes the centre links the
        # fact by the schema's subject rules alone (the home entity, the record's own)
        claims = tuple(c.model_copy(update={"quote": "", "subject_phrase": None}) for c in claims
                       if c.kind != "statement")
        extraction = extraction.model_copy(update={"claims": claims})
    search += [c.value for c in claims] + [c.quote for c in claims if c.quote]
    return ClaimSetEntry(record=record, sha256=sha256, extraction=extraction,
                         search_text="\n".join(search))


def entry_line(entry: ClaimSetEntry) -> bytes:
    return canonical_json(entry.model_dump(mode="json", exclude={"record": {"key", "sha256"}}))


def shard_bytes(entries: Iterable[ClaimSetEntry]) -> bytes:
    lines = sorted(entry_line(e) for e in entries)
    return b"".join(line + b"\n" for line in lines)


def export_claimset(state_path: Path, out: Path, *, site: str, tenant: str,
                    policy: SharePolicy) -> tuple[ClaimSetManifest, list[str]]:
    """Bring the claim set in ``out`` up to date with the site's extracted state; returns the
    manifest and the shards rewritten.

    Which shards to rewrite is decided by comparing each shard's members (key and digest of
    every record in it) with what the manifest says was exported, not by what the last compile
    changed: a crash between the compile's commit and this export would otherwise lose those
    changes. Shards are written first and the manifest last (atomically), so the manifest never
    names a shard that is not there."""
    out.mkdir(parents=True, exist_ok=True)
    previous = load_manifest(out / MANIFEST)
    state = State(state_path, readonly=True)
    try:
        backend = json.loads(state.meta("backend") or "{}")
        extraction = state.meta("extract_digest") or ""
        by_shard: dict[str, list[tuple[str, str]]] = {}
        for key, (sha, _) in state.record_index().items():
            by_shard.setdefault(shard_of(key), []).append((key, sha))
        members = {name: _members_digest(rows) for name, rows in by_shard.items()}
        same_basis = (previous is not None and previous.share == policy
                      and previous.backend == backend and previous.extraction == extraction)
        old_members = previous.members if same_basis and previous else {}
        redo = sorted(n for n in set(members) | set(old_members)
                      if members.get(n) != old_members.get(n)
                      or not (out / n).exists())
        shards = {n: sha for n, sha in (previous.shards.items() if same_basis and previous else ())
                  if n in members}
        for name in redo:
            rows = by_shard.get(name)
            if not rows:
                remove_if_exists(out / name)
                shards.pop(name, None)
                continue
            data = shard_bytes(entry_for(rj, sha, ej, policy)
                               for _, rj, ej, sha in state.load_records(k for k, _ in rows))
            write_atomic(out / name, data)
            shards[name] = sha256_hex(data)
        records = sum(len(rows) for rows in by_shard.values())
    finally:
        state.close()
    manifest = ClaimSetManifest(site=site, tenant=tenant, backend=backend, share=policy,
                                records=records, shards=dict(sorted(shards.items())),
                                members=dict(sorted(members.items())), extraction=extraction)
    if previous is None or manifest != previous:
        write_atomic(out / MANIFEST, manifest_bytes(manifest), durable=True)
    return manifest, [n for n in redo if n in shards]


def _members_digest(rows: list[tuple[str, str]]) -> str:
    return sha256_hex("\n".join(f"{k} {sha}" for k, sha in sorted(rows)).encode("utf-8"))


def manifest_bytes(manifest: ClaimSetManifest) -> bytes:
    return canonical_json(manifest.model_dump(mode="json"))


def load_manifest(path: Path) -> ClaimSetManifest | None:
    try:
        return ClaimSetManifest.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        return None


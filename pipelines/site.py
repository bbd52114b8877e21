"""A site's part of the distributed compile: extract its own records, ship its claim set.

Runs where the data lives. It reads only the site's corpus and writes only the site's workdir
and the site's prefix of the central store (``sites/<name>/``). What it ships is a claim set
(``compiler/claimset.py``): claims, digests and permitted quotes, never raw bodies unless the
site's share policy allows them.

Store layout for one site, written in this order so a reader never sees a manifest naming a
shard that is not there: ``sites/<name>/shards/<sha256>.jsonl`` (content-addressed, so a shard
is never overwritten in place and an uploaded one is never uploaded again), then
``sites/<name>/claimset.json`` (the manifest, shard name → digest).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from compiler.atomic import write_atomic
from compiler.build import CompileReport, compile_wiki
from compiler.canonical import sha256_hex
from compiler.claimset import MANIFEST, ClaimSetManifest, export_claimset, manifest_bytes
from compiler.provenance.attest import signer_from_settings
from compiler.settings import FolioSettings
from compiler.store.base import NotFound, Store

from .claimset_signature import sign_manifest, signature_key
from .topology import SiteConfig

STATE = "state"
CLAIMSET = "claimset"


class SiteReport(BaseModel):
    site: str
    records: int
    extracted: int
    removed: int
    rejected: int
    shards_written: list[str]
    uploaded: int
    extract_seconds: float


def site_prefix(site: str) -> str:
    return f"sites/{site}"


def shard_key(site: str, sha256: str) -> str:
    return f"{site_prefix(site)}/shards/{sha256}.jsonl"


def manifest_key(site: str) -> str:
    return f"{site_prefix(site)}/claimset.json"


def extract(site: SiteConfig, settings: FolioSettings, tenant: str,
            schema_file: Path | None = None) -> tuple[CompileReport, ClaimSetManifest, list[str]]:
    """Extract changed records into the site's state, then bring its claim set up to date.
    Both steps are idempotent: rerun after a crash anywhere, they converge on the same bytes.

    ``schema_file``: the topology's schema. Prose is read against the schema at the site (the
    centre never sees raw text), so a site extracting under another vocabulary than the centre
    links under would ship claims one compile of all sources would not make."""
    if schema_file is not None:
        data = schema_file.read_bytes()
        target = site.corpus / "schema.yaml"
        if not target.exists() or target.read_bytes() != data:
            write_atomic(target, data)
    state_dir = site.workdir / STATE
    report = compile_wiki(site.corpus, state_dir, settings, extract_only=True)
    manifest, written = export_claimset(state_dir / ".folio" / "state.db",
                                        site.workdir / CLAIMSET, site=site.name, tenant=tenant,
                                        policy=site.share)
    return report, manifest, written


def ship(site: SiteConfig, store: Store, settings: FolioSettings) -> int:
    """Upload the site's claim set: missing shards, the site's signature over the manifest
    (unless FOLIO_SIGNING=off), then the manifest. Returns objects sent."""
    folder = site.workdir / CLAIMSET
    manifest = ClaimSetManifest.model_validate_json((folder / MANIFEST).read_bytes())
    sent = 0
    for name, sha in sorted(manifest.shards.items()):
        key = shard_key(site.name, sha)
        if not store.exists(key):
            store.put(key, (folder / name).read_bytes())
            sent += 1
    data = manifest_bytes(manifest)
    signer = signer_from_settings(settings)
    signature = signature_key(site.name, sha256_hex(data))
    if signer is not None and not store.exists(signature):
        store.put(signature, sign_manifest(signer, manifest_key(site.name), data, manifest))
        sent += 1
    try:
        current = store.get(manifest_key(site.name))
    except NotFound:
        current = None
    if current != data:
        store.put(manifest_key(site.name), data)
        sent += 1
    return sent


def site_compile(site: SiteConfig, store: Store, settings: FolioSettings, tenant: str
                 ) -> SiteReport:
    report, manifest, written = extract(site, settings, tenant)
    sent = ship(site, store, settings)
    return SiteReport(site=site.name, records=manifest.records,
                      extracted=report.records_extracted, removed=report.records_removed,
                      rejected=report.rejected, shards_written=written, uploaded=sent,
                      extract_seconds=report.seconds)


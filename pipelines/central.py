"""The central aggregation: every site's claim set in, one signed wiki out, published.

1. gather: for each site, read its manifest from the store and download only the shards the
   aggregate corpus does not already hold (each checked against its digest), removing shards
   the manifest no longer names; the aggregate corpus is an ordinary corpus folder whose
   sources are the sites' claim sets (``connectors/claimset.py``);
2. compile it incrementally: linking, authority across sites, blast radius, rendering, DBOMs
   and the index root are the same code as a single-folder compile;
3. publish the wiki to the store (``compiler/store/publish.py``: blobs, tree, then HEAD).

Each step is idempotent, so a crash anywhere, rerun, ends in the same published tree.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from pydantic import BaseModel

from compiler.atomic import remove_if_exists, write_atomic
from compiler.build import CompileReport, compile_wiki
from compiler.canonical import sha256_hex
from compiler.claimset import MANIFEST, SHARD_SUFFIX, ClaimSetManifest, manifest_bytes
from compiler.settings import FolioSettings
from compiler.store.base import NotFound, Store, get_verified
from compiler.store.publish import PublishReport, publish_wiki
from connectors.claimset import SYSTEM as CLAIMSET_SYSTEM
from connectors.loader import MANIFEST as SOURCES

from .claimset_signature import check_manifest, signature_key, site_trust
from .site import manifest_key, shard_key
from .topology import Topology

CORPUS = "corpus"
WIKI = "wiki"
CLAIMSETS = "claimsets"


class GatherReport(BaseModel):
    sites: dict[str, int]  # site → records in its claim set
    missing: list[str]  # sites that have shipped nothing yet
    downloaded: int
    removed: int


class AggregateReport(BaseModel):
    gather: GatherReport
    compile: dict[str, object]
    publish: PublishReport | None


class BackendMismatch(RuntimeError):
    """A site extracted with another backend than the central compile records in its DBOMs."""


def corpus_dir(topo: Topology) -> Path:
    return topo.central.workdir / CORPUS


def wiki_dir(topo: Topology) -> Path:
    return topo.central.workdir / WIKI


def _write_if_changed(path: Path, data: bytes) -> None:
    if not path.exists() or path.read_bytes() != data:
        write_atomic(path, data)


def prepare_corpus(topo: Topology) -> Path:
    """The aggregate corpus's own files: sources.yaml (one claim-set source per site), the
    central authority policy and directory."""
    corpus = corpus_dir(topo)
    corpus.mkdir(parents=True, exist_ok=True)
    manifest = {"tenant": topo.tenant, "sources": [
        {"path": f"{CLAIMSETS}/{s.name}", "system": CLAIMSET_SYSTEM, "instance": s.name}
        for s in topo.sites]}
    _write_if_changed(corpus / SOURCES, yaml.safe_dump(manifest, sort_keys=True).encode())
    _write_if_changed(corpus / "authority.yaml", topo.central.authority.read_bytes())
    if topo.central.directory is not None:
        _write_if_changed(corpus / "directory.yaml", topo.central.directory.read_bytes())
    if topo.central.schema_file is not None:
        _write_if_changed(corpus / "schema.yaml", topo.central.schema_file.read_bytes())
    else:
        (corpus / "schema.yaml").unlink(missing_ok=True)
    for s in topo.sites:
        (corpus / CLAIMSETS / s.name).mkdir(parents=True, exist_ok=True)
    return corpus


def expected_backend(settings: FolioSettings) -> dict:
    """The extraction backend this aggregation records in its DBOMs, as sites store theirs
    (through JSON)."""
    from compiler.extract import get_backend

    return json.loads(json.dumps(get_backend(settings.backend, settings).describe()))


def gather(topo: Topology, store: Store, settings: FolioSettings,
           expect_backend: dict | None = None) -> GatherReport:
    """Bring the aggregate corpus up to date with every site's shipped claim set. Refuses
    claim sets extracted with another backend than ``expect_backend`` (:class:`BackendMismatch`)
    and, unless FOLIO_SIGNING=off, claim sets not signed by the identity expected for their
    site (:class:`ClaimSetUntrusted`), before anything is downloaded."""
    corpus = prepare_corpus(topo)
    sites: dict[str, int] = {}
    missing: list[str] = []
    downloaded = removed = 0
    manifests: list[tuple[str, ClaimSetManifest]] = []
    for s in topo.sites:
        try:
            data = store.get(manifest_key(s.name))
        except NotFound:
            missing.append(s.name)
            continue
        manifest = ClaimSetManifest.model_validate_json(data)
        if manifest.site != s.name or manifest.tenant != topo.tenant:
            raise ValueError(f"{store.url}/{manifest_key(s.name)}: claim set of site "
                             f"{manifest.site!r} tenant {manifest.tenant!r}, expected "
                             f"{s.name!r} tenant {topo.tenant!r}")
        if settings.signing != "off":
            key = signature_key(s.name, sha256_hex(data))
            try:
                bundle: bytes | None = store.get(key)
            except NotFound:
                bundle = None
            check_manifest(bundle, f"{store.url}/{key}", site_trust(settings, s), s.name,
                           topo.tenant, manifest_key(s.name), data)
        manifests.append((s.name, manifest))
    mismatch = [name for name, m in manifests
                if expect_backend is not None and m.backend != expect_backend]
    if mismatch:
        raise BackendMismatch(
            f"sites {', '.join(mismatch)} extracted with another backend than this "
            f"aggregation's ({expect_backend}); set the same FOLIO_BACKEND/FOLIO_LLM_* everywhere")
    for name, manifest in manifests:
        folder = corpus / CLAIMSETS / name
        for shard, sha in sorted(manifest.shards.items()):
            path = folder / shard
            if path.exists() and sha256_hex(path.read_bytes()) == sha:
                continue
            write_atomic(path, get_verified(
                store, shard_key(name, sha), sha, missing="named by the claim-set manifest "
                "but missing", corrupt="content does not match its digest"))
            downloaded += 1
        for path in folder.glob(f"*{SHARD_SUFFIX}"):
            if path.name not in manifest.shards:
                remove_if_exists(path)
                removed += 1
        # last: the manifest beside the shards says which generation the folder holds
        _write_if_changed(folder / MANIFEST, manifest_bytes(manifest))
        sites[name] = manifest.records
    return GatherReport(sites=sites, missing=missing, downloaded=downloaded, removed=removed)


def aggregate(topo: Topology, store: Store, settings: FolioSettings, *,
              publish: bool = True, today: str | None = None) -> AggregateReport:
    """Gather, compile, publish: what the ``aggregate`` flow does, as one plain call."""
    report = gather(topo, store, settings, expect_backend=expected_backend(settings))
    compiled: CompileReport = compile_wiki(corpus_dir(topo), wiki_dir(topo), settings,
                                           today=today)
    published = publish_wiki(wiki_dir(topo), store, settings) if publish else None
    return AggregateReport(gather=report, compile=compile_summary(compiled), publish=published)


def compile_summary(r: CompileReport) -> dict[str, object]:
    return {"records": r.records_seen, "extracted": r.records_extracted,
            "removed": r.records_removed, "pages_rendered": r.pages_rendered,
            "pages_written": r.pages_written, "pages_removed": r.pages_removed,
            "pages_total": r.pages_total, "written": r.written[:200],
            "errors": [str(e) for e in r.errors[:50]], "seconds": round(r.seconds, 3)}


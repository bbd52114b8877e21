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
import shutil
from pathlib import Path

import yaml
from pydantic import BaseModel

from compiler.atomic import remove_if_exists, write_atomic
from compiler.build import CompileReport, compile_wiki
from compiler.canonical import sha256_hex
from compiler.claimset import MANIFEST, SHARD_SUFFIX, ClaimSetManifest, manifest_bytes
from compiler.settings import FolioSettings
from compiler.store.base import BlobCorrupt, NotFound, Store
from compiler.store.publish import PublishReport, publish_wiki
from connectors.claimset import SYSTEM as CLAIMSET_SYSTEM
from connectors.loader import MANIFEST as SOURCES

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
    backend_mismatch: list[str]


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
    for s in topo.sites:
        (corpus / CLAIMSETS / s.name).mkdir(parents=True, exist_ok=True)
    return corpus


def gather(topo: Topology, store: Store, expect_backend: dict | None = None) -> GatherReport:
    corpus = prepare_corpus(topo)
    sites: dict[str, int] = {}
    missing: list[str] = []
    mismatch: list[str] = []
    downloaded = removed = 0
    for s in topo.sites:
        folder = corpus / CLAIMSETS / s.name
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
        if expect_backend is not None and manifest.backend != expect_backend:
            mismatch.append(s.name)
            continue
        for name, sha in sorted(manifest.shards.items()):
            path = folder / name
            if path.exists() and sha256_hex(path.read_bytes()) == sha:
                continue
            blob = store.get(shard_key(s.name, sha))
            if sha256_hex(blob) != sha:
                raise BlobCorrupt(f"{store.url}/{shard_key(s.name, sha)}: content does not "
                                  f"match its digest")
            write_atomic(path, blob)
            downloaded += 1
        for path in folder.glob(f"*{SHARD_SUFFIX}"):
            if path.name not in manifest.shards:
                remove_if_exists(path)
                removed += 1
        # last: the manifest beside the shards says which generation the folder holds
        _write_if_changed(folder / MANIFEST, manifest_bytes(manifest))
        sites[s.name] = manifest.records
    return GatherReport(sites=sites, missing=missing, downloaded=downloaded, removed=removed,
                        backend_mismatch=mismatch)


def aggregate(topo: Topology, store: Store, settings: FolioSettings, *,
              publish: bool = True, today: str | None = None) -> AggregateReport:
    from compiler.extract import get_backend

    # compared as the sites stored it: through JSON
    backend = json.loads(json.dumps(get_backend(settings.backend, settings).describe()))
    report = gather(topo, store, expect_backend=backend)
    if report.backend_mismatch:
        raise BackendMismatch(
            f"sites {', '.join(report.backend_mismatch)} extracted with another backend than "
            f"this aggregation's ({backend}); set the same FOLIO_BACKEND/FOLIO_LLM_* everywhere")
    compiled: CompileReport = compile_wiki(corpus_dir(topo), wiki_dir(topo), settings,
                                           today=today)
    published = publish_wiki(wiki_dir(topo), store, settings) if publish else None
    return AggregateReport(gather=report, compile=_summary(compiled), publish=published)


def _summary(r: CompileReport) -> dict[str, object]:
    return {"records": r.records_seen, "extracted": r.records_extracted,
            "removed": r.records_removed, "pages_rendered": r.pages_rendered,
            "pages_written": r.pages_written, "pages_removed": r.pages_removed,
            "pages_total": r.pages_total, "written": r.written[:200],
            "errors": [str(e) for e in r.errors[:50]], "seconds": round(r.seconds, 3)}


def reset(topo: Topology) -> None:
    """Forget the local aggregate (corpus and wiki); the next run rebuilds from the store."""
    shutil.rmtree(topo.central.workdir, ignore_errors=True)

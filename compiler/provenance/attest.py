"""The compile's entry points into provenance: sign what this compile wrote.

:func:`plan_signing` runs before pages are rendered. With a local key, each page is signed
where it is rendered (:func:`page_payload`, a batch signed at once inside the compile's worker
processes), from the claims, statuses and bytes already at hand. :func:`attest_compile` runs after pages and index
are written and before the state commits: it signs whatever the render did not (a page whose
bundle went missing, keyless signing), removes bundles of removed pages and signs the index
root, so a failure to sign fails the compile (and rolls the state back) instead of leaving
pages that claim a provenance they do not have.

Pages the compile did not rewrite keep their bundle; a page whose bundle is missing, every page
of a full rebuild, and every page after the signer changed get (re-)signed.
"""

from __future__ import annotations

import json
import logging
import multiprocessing as mp
import os
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from .. import __version__
from ..atomic import remove_if_exists
from ..canonical import sha256_hex
from ..compile_context import CompileContext, CompileError
from ..models import SCHEMA_VERSION, Claim, ClaimStatus, Conflict
from ..settings import FolioSettings
from . import ledger
from .bundle_watch import forget_folders, missing_bundles
from .index_root import bucket_of, bundle_name
from .root_update import update_root
from .signers import LocalKeySigner, Signer, SigningError, SigstoreSigner
from .statement import PAYLOAD_TYPE, BuildContext, encoded_parts, page_statement_bytes

if TYPE_CHECKING:
    from ..state import State

log = logging.getLogger("folio.provenance")

_PARALLEL_MIN = 2000  # pages; below this a worker pool costs more than it saves
_CHUNK = 256


def signer_from_settings(settings: FolioSettings, create: bool = True) -> Signer | None:
    """The configured signer; the default local key is created on first use, so a fresh
    machine compiles (and signs) with no manual step."""
    if settings.signing == "off":
        return None
    if settings.signing == "sigstore":
        return SigstoreSigner(settings.sigstore_token_file, settings.sigstore_trust_config)
    path = settings.key_path.expanduser()
    if not path.exists() and create:
        signer = LocalKeySigner.generate(path)
        log.warning("created signing key %s (key id %s)", path, signer.key_id)
        return signer
    return LocalKeySigner.load(path)


def _chunks(items: Sequence[str], size: int = 500) -> Iterable[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def _statuses_and_conflicts(
    st: State, subjects: Sequence[str], everything: bool
) -> tuple[dict[str, ClaimStatus], dict[str, list[Conflict]]]:
    status: dict[str, ClaimStatus] = {}
    conflicts: dict[str, list[Conflict]] = {}
    if everything:
        status.update(st.db.execute("SELECT id, status FROM claims"))
        rows: Iterable = st.db.execute("SELECT subject, conflict_json FROM conflicts ORDER BY id")
    else:
        rows = []
        for chunk in _chunks(list(subjects)):
            marks = ",".join("?" * len(chunk))
            status.update(st.db.execute(
                f"SELECT id, status FROM claims WHERE subject IN ({marks})", chunk))
            rows += list(st.db.execute(
                f"SELECT subject, conflict_json FROM conflicts WHERE subject IN ({marks}) "
                "ORDER BY id", chunk))
    for subject, js in rows:
        conflicts.setdefault(subject, []).append(Conflict.model_validate_json(js))
    return status, conflicts


@dataclass
class _Job:
    """Everything signing needs, set before workers fork so they inherit it: claims are never
    pickled, a forked worker reads the compile's memory copy-on-write."""

    c: CompileContext
    signer: Signer
    pages: dict[str, tuple[str, str, str]]
    status: dict[str, ClaimStatus]
    conflicts: dict[str, list[Conflict]]
    internal: dict
    run_details: dict
    usage: dict[str, dict[str, float]]
    encoded: tuple[str, str]


_JOB: _Job | None = None


def _sign_one(job: _Job, eid: str) -> tuple[str, str | None]:
    """Sign and write one page's bundle: (page id, bundle sha256, or None if not signed)."""
    c = job.c
    path, sha, _ = job.pages[eid]
    page_bytes = c.files.read_bytes(path)
    if sha256_hex(page_bytes) != sha:
        # the file on disk is not what this compile rendered: never sign it; verify reports it
        log.error("%s: page bytes differ from the compiled page; not signed", path)
        return eid, None
    claims: list[Claim] = c.state.claims_of_subject(eid)
    payload = page_statement_bytes(path, page_bytes, claims, job.status,
                                   job.conflicts.get(eid, ()), None, usage=job.usage,
                                   encoded=job.encoded, page_sha256=sha)
    bundle = job.signer.sign_bundle(payload, PAYLOAD_TYPE)
    c.files.write(bundle_name(eid), bundle)  # staged; a forked worker's the parent notes
    return eid, sha256_hex(bundle)


def _sign_chunk(eids: list[str]) -> list[tuple[str, str | None]]:
    assert _JOB is not None, "worker forked without a job"
    return [_sign_one(_JOB, eid) for eid in eids]


def _workers() -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(cores or 1, 4)


def _sign_all(job: _Job, ordered: list[str]) -> Iterator[tuple[str, str | None]]:
    """Statement, signature and file of each page cost CPU and file creation in equal parts;
    the compile is one process, so a big batch is spread over the cores with forked workers.
    Small batches, keyless signing (network bound, one Fulcio certificate per process) and
    platforms without fork stay in this process."""
    global _JOB
    workers = _workers()
    if (len(ordered) < _PARALLEL_MIN or workers < 2 or not isinstance(job.signer, LocalKeySigner)
            or "fork" not in mp.get_all_start_methods()):
        for eid in ordered:
            yield _sign_one(job, eid)
        return
    chunks = [ordered[i:i + _CHUNK] for i in range(0, len(ordered), _CHUNK)]
    _JOB = job
    try:
        with mp.get_context("fork").Pool(processes=workers) as pool:
            for results in pool.imap_unordered(_sign_chunk, chunks):
                yield from results
    finally:
        _JOB = None


@dataclass
class SigningPlan:
    """What this compile signs with, decided once before any page is rendered."""

    signer: Signer
    build: BuildContext
    internal: dict
    run_details: dict
    resign_all: bool
    usage: dict[str, dict[str, float]]  # record sha256 → LLM usage of its extraction
    # pages whose bundle went missing since the last compile; looked for before this compile
    # writes into the page folders, whose mtimes tell which folders to look in
    missing: set[str]
    encoded: tuple[str, str] = ("", "")  # internal, run_details as canonical JSON (set below)

    def __post_init__(self) -> None:
        self.encoded = encoded_parts(self.internal, self.run_details)

    @property
    def in_render(self) -> bool:
        # a local key signs in microseconds and forks with the workers; keyless signing is
        # network bound (one Fulcio certificate per process) and stays in attest_compile
        return isinstance(self.signer, LocalKeySigner)


def plan_signing(c: CompileContext, started_perf: float) -> SigningPlan | None:
    """The signer and the parts every statement of this compile shares; ``None`` when
    signing is off."""
    try:
        signer = signer_from_settings(c.settings)
    except SigningError as exc:
        raise CompileError(f"cannot sign the compiled wiki: {exc}") from exc
    if signer is None:
        return None
    # finishedOn is when the pages were built: they are rendered and signed from here on
    now = datetime.now(UTC)
    build = BuildContext(
        compiler_version=__version__, schema_version=SCHEMA_VERSION,
        backend=c.backend.describe(), policy_digest=c.policy.digest,
        corpus_schema=(c.schema.version, c.schema_digest),
        builder_id=c.settings.builder_id, invocation_id=str(uuid.uuid4()),
        started_on=now - timedelta(seconds=time.perf_counter() - started_perf),
        finished_on=now,
    )
    # a full rebuild re-signs everything: the way to re-bless a wiki after a key change or to
    # repair bundles edited behind the compile's back
    # a schema change re-signs every page (its DBOM names the schema) but re-renders only
    # the pages whose claims changed
    resign_all = (ledger.signer(c.state) != signer.identity or c.report.full_rebuild
                  or c.report.schema_changed)
    # what each source cost to extract goes into the DBOM (LLM backends only: offline
    # extraction is not cached, so this finds nothing)
    usage = c.state.extraction_usage(c.backend.digest) if hasattr(c.backend, "usage") else {}
    missing = set() if resign_all else missing_bundles(c.state, c.out)
    return SigningPlan(signer, build, build.internal().model_dump(mode="json"),
                       build.run_details().model_dump(mode="json", by_alias=True),
                       resign_all, usage, missing)


def page_payload(plan: SigningPlan, page_path: str, page_bytes: bytes, claims: Sequence[Claim],
                 status: dict[str, ClaimStatus], conflicts: Sequence[Conflict],
                 claim_digests: dict[str, str] | None = None,
                 page_sha256: str | None = None) -> bytes:
    """The statement to sign for one page, from what its render produced (``claim_digests``:
    claim id → sha256 of its JSON, when the caller has that JSON already; ``page_sha256``: the
    digest of ``page_bytes``, when it has that). The render signs a batch of them at once."""
    return page_statement_bytes(page_path, page_bytes, claims, status, conflicts, None,
                                claim_digests=claim_digests, usage=plan.usage,
                                encoded=plan.encoded, page_sha256=page_sha256)


def attest_compile(c: CompileContext, plan: SigningPlan | None, signed: dict[str, str],
                   aggregates: dict[str, str]) -> None:
    """Write ``<page>.dbom.json`` for every page this compile wrote (or that lacks one) and
    that the render did not sign already (``signed``: page id → bundle sha256), remove those
    of removed pages, and bring the index root up to date (``aggregates``: sha256 of the
    aggregate files the compile wrote or compared)."""
    if plan is None:
        if ledger.signer(c.state) is not None:
            # pages change unsigned from here on: the next signed compile re-signs them all
            ledger.reset(c.state, None)
            forget_folders(c.state)
        return
    try:
        _attest(c, plan, signed, aggregates)
    except SigningError as exc:
        raise CompileError(f"cannot sign the compiled wiki: {exc}") from exc


def _attest(c: CompileContext, plan: SigningPlan, signed: dict[str, str],
            aggregates: dict[str, str]) -> None:
    st, out, signer = c.state, c.out, plan.signer
    removed = set(c.report.removed)
    for eid in removed:
        c.files.remove(bundle_name(eid))
    remove_if_exists(out / ".folio" / _OLD_LEAVES)  # memory of the unsharded root (format 3)

    if plan.resign_all:
        ledger.reset(st, signer.identity)
        forget_folders(st)
        all_pages = set(st.page_ids())
        todo = all_pages - set(signed)
    else:
        all_pages = set()
        todo = (set(c.report.written) | plan.missing) - set(signed)
    pages = ledger.pages_of(st, todo - removed)
    ordered = sorted(pages)
    digests: dict[str, str | None] = dict(signed)
    if ordered:
        status, conflicts = _statuses_and_conflicts(st, ordered,
                                                    len(ordered) > c.report.pages_total // 2)
        job = _Job(c, signer, pages, status, conflicts, plan.internal, plan.run_details,
                   plan.usage, plan.encoded)
        c.progress.phase("sign", len(ordered))
        for eid, digest in _sign_all(job, ordered):
            digests[eid] = digest
            if digest is not None and bundle_name(eid) not in c.files.written:
                c.files.note(bundle_name(eid))  # staged by a forked worker
            c.progress.advance()
    # a written page whose signing was refused keeps its page and sidecar in the root, without
    # a bundle (verify reports it as unsigned)
    for eid in set(c.report.written) - set(digests) - removed:
        digests[eid] = None
    bucket = {eid: bucket_of(eid) for eid in digests.keys() | removed}
    ledger.put_bundles(st, ((eid, bucket[eid], d or "") for eid, d in digests.items()))
    ledger.drop_pages(st, removed)
    touched = set(bucket.values())
    # their mtimes are noted once the generation is applied (compile_run.py)
    c.remember_folders = {eid.partition("/")[0] for eid in digests.keys() | removed | all_pages}
    res = update_root(st, c.files, signer, plan.build, c.report.pages_total, touched, aggregates,
                      rebuild=plan.resign_all)
    log.info("signed %d page DBOMs (%d while rendering); index root over %d files: %d buckets "
             "written, %d removed, root %s, as %s", len(ordered) + len(signed), len(signed),
             res.files, res.buckets_written, res.buckets_removed,
             "re-signed" if res.signed else "unchanged", json.dumps(signer.identity))


_OLD_LEAVES = "dbom-leaves.json"


__all__ = ["SigningPlan", "attest_compile", "page_payload", "plan_signing", "signer_from_settings"]

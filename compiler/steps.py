"""The compile's per-item steps, as plain functions a worker process can run: a file's bytes
to record rows, a record to claim rows, a page's claims to its files. They read their shared
context from :data:`compiler.workers.CONTEXT` and never touch the state database; the parent
does every database and file write, in input order."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, NamedTuple

from connectors import _common as connector_common
from connectors._common import ItemMemo, KnownItem
from connectors.base import ExtractedRecord, RecordError
from connectors.loader import SourceConfig
from connectors.registry import get_connector

from .canonical import sha256_hex
from .extract import Extraction
from .linking import link_record
from .models import Claim, Entity, SourceRecord
from .registry import Declaration, declaration_for
from .render import render_page, sidecar_bytes, stored_claims
from .resolve import resolve
from .settings import DEFAULT_MAX_RECORD_TEXT_BYTES
from .provenance.attest import page_payload
from .provenance.index_root import bundle_name
from .provenance.statement import PAYLOAD_TYPE
from .state_claims import CLAIM_PROVENANCE
from .workers import CONTEXT


def fts_text(r: SourceRecord) -> str:
    parts = [r.title, r.entity_name, *r.aliases, r.body]
    parts += [str(v) for v in r.fields.values() if v is not None]
    parts += [ref.target_name for ref in r.references]
    return "\n".join(parts)


def _oversized(text: str, limit: int) -> int:
    """The UTF-8 size of ``text`` when it is above ``limit``, else 0 (the common case is
    decided from the character count alone: UTF-8 takes at most 4 bytes per character)."""
    if len(text) * 4 <= limit:
        return 0
    size = len(text.encode("utf-8", "surrogatepass"))
    return size if size > limit else 0


class RecordRow(NamedTuple):
    """A parsed record, ready for the state store."""

    key: str
    id: str
    sha256: str
    version: str
    file: str
    declaration: Declaration
    record_json: str
    fts_text: str
    tier: str
    max_age_days: int
    # None: not extracted here (the backend is not fork-safe: the parent extracts; or the
    # record is unchanged and needs no extraction)
    extraction_json: str | None
    # digest of the payload object it was built from (connectors._common.ItemMemo), if any
    item_digest: str | None = None


def parse_file(item: tuple[str, bytes, SourceConfig, str]) -> list[RecordRow | RecordError]:
    """One input file → its records (extracted when the backend runs in workers) and errors."""
    rel, data, source, tenant = item
    policy, backend, stored = CONTEXT["policy"], CONTEXT.get("backend"), CONTEXT.get("stored", {})
    limit = CONTEXT.get("max_record_text_bytes", DEFAULT_MAX_RECORD_TEXT_BYTES)
    items = CONTEXT.get("items")  # None: this compile keeps no memo of payload objects
    memo = None if items is None else ItemMemo(
        items.get(rel, {}), stored, f"{rel}\0{source.model_dump_json()}\0{tenant}\0{limit}")
    connector_common.ITEM_MEMO = memo
    try:
        out = _parse_records(rel, data, source, tenant, policy, backend, stored, limit)
    finally:
        connector_common.ITEM_MEMO = None
    if memo is not None and memo.digests:
        out = [r._replace(item_digest=memo.digests.get(r.key)) if isinstance(r, RecordRow)
               else r for r in out]
    return out


def _parse_records(rel: str, data: bytes, source: SourceConfig, tenant: str, policy: Any,
                   backend: Any, stored: dict[str, str], limit: int) -> list[RecordRow | RecordError]:
    out: list[RecordRow | RecordError] = []
    for r in get_connector(source.system).parse(rel, data, source, tenant):
        if isinstance(r, RecordError):
            out.append(r)
            continue
        if isinstance(r, KnownItem):
            out.append(RecordRow(key=r.key, id=r.id, sha256=r.sha256, version="", file="",
                                 declaration=None, record_json="",  # type: ignore[arg-type]
                                 fts_text="", tier="", max_age_days=0, extraction_json=None))
            continue
        if isinstance(r, ExtractedRecord):
            out.append(_extracted_row(r, rel))
            continue
        text = fts_text(r)
        too_big = _oversized(text, limit)
        if too_big:
            out.append(RecordError(
                path=rel, record=r.id, field="text",
                message=f"record text is {too_big:,} bytes, above FOLIO_MAX_RECORD_TEXT_BYTES "
                        f"({limit:,}); not compiled"))
            continue
        if stored.get(r.key) == r.sha256:
            # the stored record is this one: the parent only notes that it was read (an
            # edited file is parsed whole, and most of its records are unchanged)
            out.append(_unchanged_row(r))
            continue
        tier = policy.freshness_tier(r)
        out.append(RecordRow(
            key=r.key, id=r.id, sha256=r.sha256, version=r.version,
            file=r.origin.split("#")[0] if r.origin else "",
            declaration=declaration_for(r, policy.authority(r).rank),
            record_json=r.model_dump_json(exclude={"key", "sha256"}),
            fts_text=text, tier=tier.name, max_age_days=tier.max_age_days,
            # unchanged records are not stored again, so they need no extraction
            extraction_json=(backend.extract(r).model_dump_json()
                             if backend and stored.get(r.key) != r.sha256 else None),
        ))
    return out


def _unchanged_row(r: SourceRecord) -> RecordRow:
    """A record the state holds with this digest: its key, id and digest, nothing to store."""
    return RecordRow(key=r.key, id=r.id, sha256=r.sha256, version=r.version, file="",
                     declaration=None, record_json="", fts_text="",  # type: ignore[arg-type]
                     tier="", max_age_days=0, extraction_json=None)


def _extracted_row(x: ExtractedRecord, rel: str) -> RecordRow:
    """A record another site extracted: its digest and claims come with it, unrecomputed."""
    r, policy = x.record, CONTEXT["policy"]
    tier = policy.freshness_tier(r)
    return RecordRow(
        key=r.key, id=r.id, sha256=x.sha256, version=r.version, file=rel,
        declaration=declaration_for(r, policy.authority(r).rank),
        record_json=r.model_dump_json(exclude={"key", "sha256"}),
        fts_text=x.search_text, tier=tier.name, max_age_days=tier.max_age_days,
        extraction_json=x.extraction_json,
    )


def reextract(item: tuple[str, str, str, str]) -> tuple[str, str | None, bool]:
    """(record key, record JSON, stored extraction JSON, record sha256) → the key, the
    record's new extraction JSON when it differs from the stored one (else None) and whether
    its claims differ (not only the backend digest it names). A record whose stored digest is
    not its content's was extracted elsewhere (a site's claim set): it keeps that extraction."""
    key, record_json, old, sha = item
    record = SourceRecord.model_validate_json(record_json)
    if record.sha256 != sha:
        return key, None, False
    new = CONTEXT["backend"].extract(record).model_dump_json()
    return key, (new if new != old else None), claims_differ(old, new)


def claims_differ(old: str, new: str) -> bool:
    """Two extractions' JSON differ beyond the backend digest they lead with."""
    marker = ',"claims":'
    return old.partition(marker)[2] != new.partition(marker)[2] or marker not in new


class ClaimRow(NamedTuple):
    id: str
    subject: str
    attribute: str
    kind: str
    claim_json: str
    mentions: tuple[str, ...]


def link(item: tuple[str, str, str, str]) -> tuple[str, list[ClaimRow], str]:
    """(record key, record JSON, extraction JSON, record sha256) → the record's claims as state
    rows (without the fields all its claims share) and the JSON of those shared fields."""
    key, record_json, extraction_json, sha = item
    record = SourceRecord.model_validate_json(record_json)
    # the content digest was computed when the record was read; recomputing it (a canonical
    # dump of the whole record) per relink cost more than validating the record
    record.__dict__["sha256"] = sha
    extraction = Extraction.model_validate_json(extraction_json)
    claims = link_record(record, extraction, CONTEXT["lookup"], CONTEXT["policy"].authority(record),
                         CONTEXT.get("schema"))
    provenance = claims[0].model_dump_json(include=CLAIM_PROVENANCE) if claims else "{}"
    return key, [
        ClaimRow(c.id, c.subject, c.attribute, c.kind,
                 c.model_dump_json(exclude=CLAIM_PROVENANCE),
                 tuple(m.entity for m in c.mentions))
        for c in claims
    ], provenance


class PageJob(NamedTuple):
    entity_id: str
    entity_json: str
    claim_jsons: list[str]
    backlinks: list[tuple[str, str]]
    previous: tuple[str, str] | None  # (page sha256, sidecar sha256) last written
    md_path: str
    synthesis: list[tuple[str, list[str]]] | None = None  # LLM overview: (sentence, claim ids)
    sign: bool = False  # sign even if the bytes did not change (bundle missing, full rebuild)
    inputs: str | None = None  # input_digest() of the above, when the parent computed it
    # (page id, title) of the pages its reference claims point to: rendered as their titles
    titles: tuple[tuple[str, str], ...] = ()


class RenderedPage(NamedTuple):
    entity_id: str
    # new bytes to write (page, sidecar), None when unchanged; (b"", b"") once a worker
    # process wrote them into the compile's stage itself (``staged``)
    files: tuple[bytes, bytes] | None
    bundle: bytes | None  # the page's signed DBOM, when this compile signs it here
    bundle_sha256: str | None  # and its sha256, for the index root
    sha256: str
    sidecar_sha256: str
    type: str
    title: str
    summary: str
    statuses: list[tuple[str, str]]  # (status, claim id)
    conflicts: list[tuple[str, str, str, str]]  # (id, subject, state, json)
    search_rows: list[tuple[str, str, str, str, str, str]]
    inputs_sha256: str = ""  # input_digest() of what it was rendered from
    # files and bundle were written into the stage by the worker (only their names go back)
    staged: bool = False


def input_digest(entity_json: str, claim_jsons: list[str], backlinks: list[tuple[str, str]],
                 synthesis: list | None, titles: tuple[tuple[str, str], ...] = ()) -> str:
    """What a page is rendered from (the policy, schema and page format are the config's:
    a change of those renders every page): equal digests, equal page bytes. The titles of
    the pages its references point to are inputs too: a renamed target renders it anew."""
    h = hashlib.sha256(entity_json.encode())
    for js in sorted(claim_jsons):
        h.update(b"\0")
        h.update(js.encode())
    h.update(b"\1")
    h.update(json.dumps([backlinks, synthesis], ensure_ascii=False).encode())
    if titles:  # a page without references keeps the digest it had
        h.update(b"\2")
        h.update(json.dumps(titles, ensure_ascii=False).encode())
    return h.hexdigest()


def _searchable(c: Claim) -> str:
    """The value as written, and its typed form where that reads differently, so a search for
    ``22000000`` finds ``$22M`` and one for ``Food & Beverage`` finds ``FOOD_BEVERAGES``."""
    n = c.normalized
    if c.kind in ("field", "fact") and n and n.lower() != c.value.lower():
        return f"{c.value} {n}"
    return c.value


def render(jobs: list[PageJob]) -> list[RenderedPage]:
    """Pages' claims → their markdown and sidecar bytes (returned only if they changed), and,
    when this compile signs here, their bundles. A batch of pages at a time, so that their
    signatures are made back to back once every page is rendered (see ``sign_bundles``)."""
    rendered = [_render_one(job) for job in jobs]
    payloads = [payload for _, payload in rendered if payload is not None]
    if not payloads:
        return _staged([page for page, _ in rendered])
    bundles = iter(CONTEXT["signing"].signer.sign_bundles(payloads, PAYLOAD_TYPE))
    out = []
    for page, payload in rendered:
        if payload is not None:
            bundle = next(bundles)
            page = page._replace(bundle=bundle, bundle_sha256=sha256_hex(bundle))
        out.append(page)
    return _staged(out)


def _staged(pages: list[RenderedPage]) -> list[RenderedPage]:
    """In a worker process: write the pages' new files into the compile's stage here, so
    that the parent, which stores every page's rows, does not also create every file (three
    per page) one after the other; only the fact goes back, not the bytes. The parent notes
    them (``Generation.note``); what a generation commits is unchanged."""
    stage = CONTEXT.get("stage")
    if stage is None or not stage.in_worker():
        return pages
    out = []
    for page in pages:
        if page.files is None and page.bundle is None:
            out.append(page)
            continue
        eid = page.entity_id
        if page.files is not None:
            stage.write(f"{eid}.md", page.files[0])
            stage.write(f"{eid}.claims.json", page.files[1])
        if page.bundle is not None:
            stage.write(bundle_name(eid), page.bundle)
        out.append(page._replace(files=None if page.files is None else (b"", b""),
                                 bundle=None if page.bundle is None else b"", staged=True))
    return out


def _render_one(job: PageJob) -> tuple[RenderedPage, bytes | None]:
    """One page, and the statement to sign for it (None when it needs no new bundle)."""
    entity = Entity.model_validate_json(job.entity_json)
    claims = stored_claims(job.claim_jsons)
    stored = {c.id: js for c, js in zip(claims, job.claim_jsons)}
    status, conflicts = resolve(claims, CONTEXT["tiebreak_of"])
    markdown, summary, ordered, sources = render_page(entity, claims, status, conflicts,
                                                      job.backlinks, job.synthesis,
                                                      dict(job.titles))
    md_bytes = markdown.encode("utf-8")
    sha = sha256_hex(md_bytes)
    conflict_jsons = [c.model_dump_json() for c in conflicts]
    sc_bytes = sidecar_bytes(
        entity.id, job.entity_json, summary, sha,
        [(stored[c.id], status.get(c.id, "winner")) for c in ordered],
        conflict_jsons, sources, [eid for eid, _ in job.backlinks], job.synthesis)
    sc_sha = sha256_hex(sc_bytes)
    changed = job.previous != (sha, sc_sha) or not Path(job.md_path).exists()
    signing = CONTEXT.get("signing")
    payload = None
    if signing is not None and (changed or job.sign):
        # a claim's digest is over its JSON, which is exactly what the state stored
        digests = {cid: sha256_hex(js) for cid, js in stored.items()}
        payload = page_payload(signing, f"{entity.id}.md", md_bytes, claims, status, conflicts,
                               digests, sha)
    name = " ".join((entity.name, *entity.aliases))
    inputs = job.inputs or input_digest(job.entity_json, job.claim_jsons, job.backlinks,
                                        job.synthesis, job.titles)
    return RenderedPage(
        entity_id=entity.id, files=(md_bytes, sc_bytes) if changed else None, bundle=None,
        bundle_sha256=None, sha256=sha, sidecar_sha256=sc_sha,
        type=entity.type, title=entity.name, summary=summary,
        statuses=[(s, cid) for cid, s in status.items()],
        conflicts=[(c.id, entity.id, c.state, js) for c, js in zip(conflicts, conflict_jsons)],
        search_rows=[(c.id, entity.id, name, c.label, _searchable(c), c.quote) for c in claims],
        inputs_sha256=inputs,
    ), payload

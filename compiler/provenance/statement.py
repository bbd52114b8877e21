"""The DBOM (data bill of materials) of a page: an in-toto Statement v1 whose predicate is SLSA
Provenance v1 with Folio's own buildType.

Built by a pure function of the page bytes, the page's claims (with the status authority
resolution gave them), its conflicts and the compile's :class:`BuildContext`, so the same
inputs always produce the same statement bytes (the golden test pins them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from json.encoder import encode_basestring  # what json.dumps uses with ensure_ascii=False
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..canonical import canonical_json, sha256_hex
from ..models import ACL, Claim, ClaimStatus, Conflict

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
SLSA_PROVENANCE = "https://slsa.dev/provenance/v1"
PAGE_BUILD_TYPE = "https://folio.dev/dbom/page/v1"
INDEX_PREDICATE = "https://folio.dev/dbom/index-root/v2"  # v2: sharded into buckets
ANSWER_PREDICATE = "https://folio.dev/dbom/answer/v1"
PAYLOAD_TYPE = "application/vnd.in-toto+json"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class ResourceDescriptor(_Model):
    """in-toto ResourceDescriptor (the fields Folio uses)."""

    name: str | None = None
    uri: str | None = None
    digest: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, Any] | None = None


class SourceAnnotations(_Model):
    key: str
    version: str
    system: str
    authority: str = Field(description="authority rule the record ranked under")
    rank: int
    updated_at: datetime | None = None
    acl_digest: str = Field(description="sha256 of the record's canonical ACL")
    url: str | None = None
    llm_usage: dict[str, float] | None = Field(
        None, description="LLM backends: calls, tokens and cost (USD, litellm's response_cost) "
        "spent extracting this record version, recorded when it was first extracted")


class Dependency(_Model):
    """A source record version the page was compiled from."""

    name: str = Field(description="record key")
    uri: str = Field(description="folio:<record key>@<version>")
    digest: dict[str, str]
    annotations: SourceAnnotations


class InternalParameters(_Model):
    compiler_version: str
    schema_version: str
    extraction_backend: str
    extraction_model: str
    prompt_template_digest: str = Field(
        description="sha256 of the extraction prompt template or rule set")
    authority_policy_digest: str
    corpus_schema_version: str = Field(
        "", description="`version` of the schema the page was compiled under (the bundled "
        "base with the corpus's schema.yaml merged over it)")
    corpus_schema_digest: str = Field(
        "", description="sha256 of that schema's canonical JSON (compiler/schema)")


class BuildDefinition(_Model):
    build_type: str = Field(alias="buildType")
    external_parameters: dict[str, Any] = Field(alias="externalParameters")
    internal_parameters: InternalParameters = Field(alias="internalParameters")
    resolved_dependencies: tuple[Dependency, ...] = Field(alias="resolvedDependencies")


class Builder(_Model):
    id: str
    version: dict[str, str] = Field(default_factory=dict)


class BuildMetadata(_Model):
    invocation_id: str = Field(alias="invocationId")
    started_on: datetime = Field(alias="startedOn")
    finished_on: datetime = Field(alias="finishedOn")


class RunDetails(_Model):
    builder: Builder
    metadata: BuildMetadata


class OverruledSource(_Model):
    claim_id: str
    source: str = Field(description="record key@version")
    rule: str
    rank: int
    reason: str


class ClaimEntry(_Model):
    """One claim on the page: what it says, where it came from, and what it beat."""

    id: str
    digest: dict[str, str] = Field(description="sha256 of the claim's canonical JSON")
    attribute: str
    kind: str
    status: ClaimStatus
    rule: str
    rank: int
    supporting_sources: tuple[str, ...] = Field(description="record key@version")
    overruled_sources: tuple[OverruledSource, ...] = ()


class FolioExtension(_Model):
    """Extension field of the predicate (consumers ignore unknown fields, per in-toto)."""

    page: str
    claims: tuple[ClaimEntry, ...]
    open_conflicts: tuple[str, ...] = Field((), description="attributes left contested, with their qualifiers: refund window (Enterprise)")
    llm_usage: dict[str, float] | None = Field(
        None, description="LLM backends: the sum of the resolved dependencies' llm_usage, what "
        "extracting this page's sources cost (a record feeding several pages counts in each)")


class ProvenancePredicate(_Model):
    build_definition: BuildDefinition = Field(alias="buildDefinition")
    run_details: RunDetails = Field(alias="runDetails")
    folio: FolioExtension


class PageStatement(_Model):
    """in-toto Statement v1 over one page; pinned by docs/schemas/DBOMStatement.schema.json."""

    type: Literal["https://in-toto.io/Statement/v1"] = Field(STATEMENT_TYPE, alias="_type")
    subject: tuple[ResourceDescriptor, ...] = Field(min_length=1)
    predicate_type: Literal["https://slsa.dev/provenance/v1"] = Field(
        SLSA_PROVENANCE, alias="predicateType")
    predicate: ProvenancePredicate


class BuildContext(_Model):
    """What one compile contributes to every statement it signs; no secrets belong here."""

    compiler_version: str
    schema_version: str
    backend: dict[str, str]
    policy_digest: str
    corpus_schema: tuple[str, str] | None = Field(
        None, description="(version, digest) of the schema the compile ran under")
    builder_id: str
    invocation_id: str
    started_on: datetime
    finished_on: datetime

    def internal(self) -> InternalParameters:
        b = dict(self.backend)
        name = b.get("backend", "unknown")
        # the offline backend has no prompt: its rule-set version plays the prompt's part
        template = b.get("prompt_template_digest") or sha256_hex(
            canonical_json({k: v for k, v in sorted(b.items()) if k != "model"}))
        version, digest = self.corpus_schema or ("", "")
        return InternalParameters(
            compiler_version=self.compiler_version, schema_version=self.schema_version,
            extraction_backend=name, extraction_model=b.get("model", "none"),
            prompt_template_digest=template, authority_policy_digest=self.policy_digest,
            corpus_schema_version=version, corpus_schema_digest=digest)

    def run_details(self) -> RunDetails:
        return RunDetails(
            builder=Builder(id=self.builder_id, version={"folio": self.compiler_version}),
            metadata=BuildMetadata(invocationId=self.invocation_id, startedOn=self.started_on,
                                   finishedOn=self.finished_on))


def claim_digest(claim: Claim) -> str:
    return sha256_hex(claim.__pydantic_serializer__.to_json(claim))


def source_uri(key: str, version: str) -> str:
    """A stable URI for one record version (the record's own URL can change or be absent)."""
    return f"folio:{key}@{version}"


def _iso(dt: datetime) -> str:
    # the form pydantic writes, so the model and the fast path serialise alike
    return dt.isoformat().replace("+00:00", "Z")


@lru_cache(maxsize=4096)
def _acl_digest(acl: ACL) -> str:
    return acl.digest


def _need(build: BuildContext | None) -> BuildContext:
    if build is None:
        raise ValueError("a BuildContext or both internal and run_details are required")
    return build


def page_statement_doc(
    page_path: str,
    page_bytes: bytes,
    claims: Sequence[Claim],
    status: Mapping[str, ClaimStatus],
    conflicts: Sequence[Conflict],
    build: BuildContext | None,
    internal: Mapping[str, Any] | None = None,
    run_details: Mapping[str, Any] | None = None,
    claim_digests: Mapping[str, str] | None = None,
    *,
    usage: Mapping[str, Mapping[str, float]] | None = None,
) -> dict[str, Any]:
    """The DBOM of the page at ``page_path`` (relative to the wiki) with exactly these bytes, in
    its wire form. Plain dicts because the compile signs one per page: validating a model per
    claim cost more than the signature. :func:`page_statement` validates the same document
    against :class:`PageStatement`; a test checks both agree on every example page.
    ``internal``/``run_details`` let a caller reuse the per-compile parts; ``claim_digests``
    (claim id → :func:`claim_digest`) one that has each claim's JSON at hand already;
    ``usage`` (record sha256 → LLM usage of its extraction) adds what the page's sources cost
    to extract."""
    page = page_path.removesuffix(".md")
    overruled_by_winner: dict[str, list[dict[str, Any]]] = {}
    for conflict in conflicts:
        lost = [{"claim_id": o.claim_id, "source": o.source, "rule": o.rule, "rank": o.rank,
                 "reason": o.reason} for o in conflict.overruled]
        for winner in conflict.winners:
            overruled_by_winner.setdefault(winner, []).extend(lost)

    deps: dict[str, dict[str, Any]] = {}
    for c in claims:
        s = c.source
        if s.key in deps:
            continue
        ann: dict[str, Any] = {"key": s.key, "version": s.version, "system": s.system,
                               "authority": c.authority.rule, "rank": c.authority.rank,
                               "acl_digest": _acl_digest(c.acl)}
        if s.updated_at is not None:
            ann["updated_at"] = _iso(s.updated_at)
        if s.url:
            ann["url"] = s.url
        if usage and usage.get(s.sha256):
            ann["llm_usage"] = dict(sorted(usage[s.sha256].items()))
        deps[s.key] = {"name": s.key, "uri": source_uri(s.key, s.version),
                       "digest": {"sha256": s.sha256}, "annotations": ann}

    entries = [
        {"id": c.id,
         "digest": {"sha256": claim_digests[c.id] if claim_digests else claim_digest(c)},
         "attribute": c.attribute,
         "kind": c.kind, "status": status.get(c.id, "winner"), "rule": c.authority.rule,
         "rank": c.authority.rank, "supporting_sources": [c.source.label],
         "overruled_sources": overruled_by_winner.get(c.id, [])}
        for c in sorted(claims, key=lambda c: c.id)
    ]
    folio: dict[str, Any] = {
        "page": page, "claims": entries,
        "open_conflicts": sorted(c.label for c in conflicts if c.state == "open"),
    }
    spent = [d["annotations"]["llm_usage"] for d in deps.values() if "llm_usage" in d["annotations"]]
    if spent:
        total: dict[str, float] = {}
        for u in spent:
            for k, v in u.items():
                total[k] = total.get(k, 0.0) + v
        folio["llm_usage"] = {k: round(v, 9) for k, v in sorted(total.items())}
    return {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": page_path, "digest": {"sha256": sha256_hex(page_bytes)}}],
        "predicateType": SLSA_PROVENANCE,
        "predicate": {
            "buildDefinition": {
                "buildType": PAGE_BUILD_TYPE,
                "externalParameters": {"page": page},
                "internalParameters": dict(internal if internal is not None
                                           else _need(build).internal().model_dump(mode="json")),
                "resolvedDependencies": [deps[k] for k in sorted(deps)],
            },
            "runDetails": dict(run_details if run_details is not None
                               else _need(build).run_details().model_dump(mode="json",
                                                                          by_alias=True)),
            "folio": folio,
        },
    }


def page_statement(
    page_path: str,
    page_bytes: bytes,
    claims: Sequence[Claim],
    status: Mapping[str, ClaimStatus],
    conflicts: Sequence[Conflict],
    build: BuildContext,
    usage: Mapping[str, Mapping[str, float]] | None = None,
) -> PageStatement:
    """:func:`page_statement_doc` as a validated model."""
    return PageStatement.model_validate(
        page_statement_doc(page_path, page_bytes, claims, status, conflicts, build, usage=usage))


def encoded_parts(internal: Mapping[str, Any], run_details: Mapping[str, Any]) -> tuple[str, str]:
    """The per-compile parts of every page statement as canonical JSON text, made once per
    compile and passed to :func:`page_statement_bytes` as ``encoded``."""
    return (canonical_json(dict(internal)).decode("utf-8"),
            canonical_json(dict(run_details)).decode("utf-8"))


_ENC = encode_basestring
_HEAD = f'{{"_type":{_ENC(STATEMENT_TYPE)},"predicate":{{"buildDefinition":{{"buildType":' \
        f'{_ENC(PAGE_BUILD_TYPE)},"externalParameters":{{"page":'
_TAIL = f',"predicateType":{_ENC(SLSA_PROVENANCE)},"subject":[{{"digest":{{"sha256":'


def page_statement_bytes(
    page_path: str,
    page_bytes: bytes,
    claims: Sequence[Claim],
    status: Mapping[str, ClaimStatus],
    conflicts: Sequence[Conflict],
    build: BuildContext | None,
    internal: Mapping[str, Any] | None = None,
    run_details: Mapping[str, Any] | None = None,
    claim_digests: Mapping[str, str] | None = None,
    *,
    usage: Mapping[str, Mapping[str, float]] | None = None,
    encoded: tuple[str, str] | None = None,
    page_sha256: str | None = None,
) -> bytes:
    """The signed bytes of :func:`page_statement_doc` (same arguments): its canonical JSON,
    written directly with every object's keys in sorted order. The compile signs one statement
    per page, and building the document to hand it to the JSON encoder cost three times what
    the signature does. ``test_fast_statement_bytes_equal_the_model_on_every_page`` keeps the
    two identical. ``encoded``: :func:`encoded_parts` of ``internal`` and ``run_details``,
    which it then replaces; ``page_sha256``: the page's digest when the caller has it."""
    enc = _ENC
    if encoded is None:
        if internal is None:
            internal = _need(build).internal().model_dump(mode="json")
        if run_details is None:
            run_details = _need(build).run_details().model_dump(mode="json", by_alias=True)
        encoded = encoded_parts(internal, run_details)
    page = enc(page_path.removesuffix(".md"))
    overruled_by_winner: dict[str, list[str]] = {}
    for conflict in conflicts:
        lost = [f'{{"claim_id":{enc(o.claim_id)},"rank":{o.rank},"reason":{enc(o.reason)},'
                f'"rule":{enc(o.rule)},"source":{enc(o.source)}}}' for o in conflict.overruled]
        for winner in conflict.winners:
            overruled_by_winner.setdefault(winner, []).extend(lost)

    deps: dict[str, str] = {}
    spent: list[Mapping[str, float]] = []
    for c in claims:
        s = c.source
        if s.key in deps:
            continue
        key = enc(s.key)
        ann = [f'{{"acl_digest":{enc(_acl_digest(c.acl))},"authority":{enc(c.authority.rule)},'
               f'"key":{key}']
        if usage and usage.get(s.sha256):
            u = dict(sorted(usage[s.sha256].items()))
            spent.append(u)
            ann.append(f',"llm_usage":{canonical_json(u).decode("utf-8")}')
        ann.append(f',"rank":{c.authority.rank},"system":{enc(s.system)}')
        if s.updated_at is not None:
            ann.append(f',"updated_at":{enc(_iso(s.updated_at))}')
        if s.url:
            ann.append(f',"url":{enc(s.url)}')
        ann.append(f',"version":{enc(s.version)}}}')
        deps[s.key] = (f'{{"annotations":{"".join(ann)},"digest":{{"sha256":{enc(s.sha256)}}},'
                       f'"name":{key},"uri":{enc(source_uri(s.key, s.version))}}}')

    entries = ",".join(
        f'{{"attribute":{enc(c.attribute)},"digest":{{"sha256":'
        f'{enc(claim_digests[c.id] if claim_digests else claim_digest(c))}}},"id":{enc(c.id)},'
        f'"kind":{enc(c.kind)},"overruled_sources":[{",".join(overruled_by_winner.get(c.id, ()))}],'
        f'"rank":{c.authority.rank},"rule":{enc(c.authority.rule)},'
        f'"status":{enc(status.get(c.id, "winner"))},"supporting_sources":[{enc(c.source.label)}]}}'
        for c in sorted(claims, key=lambda c: c.id))
    llm = ""
    if spent:
        total: dict[str, float] = {}
        for u in spent:
            for k, v in u.items():
                total[k] = total.get(k, 0.0) + v
        llm = ',"llm_usage":' + canonical_json(
            {k: round(v, 9) for k, v in sorted(total.items())}).decode("utf-8")
    open_conflicts = ",".join(enc(a) for a in sorted(c.label for c in conflicts
                                                      if c.state == "open"))
    sha = page_sha256 if page_sha256 is not None else sha256_hex(page_bytes)
    return (
        f'{_HEAD}{page}}},"internalParameters":{encoded[0]},'
        f'"resolvedDependencies":[{",".join(deps[k] for k in sorted(deps))}]}},'
        f'"folio":{{"claims":[{entries}]{llm},"open_conflicts":[{open_conflicts}],"page":{page}}},'
        f'"runDetails":{encoded[1]}}}{_TAIL}{enc(sha)}}},"name":{enc(page_path)}}}]}}'
    ).encode("utf-8")


def statement_bytes(statement: BaseModel) -> bytes:
    """The exact bytes that get signed: canonical JSON of the statement by its wire names."""
    return canonical_json(statement.model_dump(mode="json", by_alias=True, exclude_none=True))

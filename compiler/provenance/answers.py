"""Signed answer records (``folio query --attest``) and their audit (``folio audit <id>``).

A record is an in-toto statement over the answer: question, answer text, principal, time, and
each cited claim with the digest of the page it is on and the source version it came from,
signed like a page DBOM. The audit re-walks answer → claims → pages → source records and
flags anything that changed or disappeared since the answer was given.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..atomic import write_atomic
from ..canonical import canonical_json, sha256_hex
from ..settings import FolioSettings
from ..state import State
from .attest import signer_from_settings
from .index_root import ROOT_FILE
from .signers import SigningError
from .statement import (
    ANSWER_PREDICATE, PAYLOAD_TYPE, STATEMENT_TYPE, ResourceDescriptor, claim_digest, source_uri,
    statement_bytes,
)
from .state_check import StateCheck, check_served
from .verify import SourcesNow, Trust, VerifyError, verify_bundle_bytes

ANSWERS_DIR = ".answers"
_ID_LEN = 20


class AttestableAnswer(Protocol):
    """What an answer record is made of: a ``query`` answer or an ``ask`` answer both are one
    (provenance signs answers; it does not depend on how they are found)."""

    question: str
    found: bool
    principal: str | None

    def cited_claims(self) -> list[tuple[str, str]]: ...

    def text(self) -> str: ...


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class CitedSource(_Model):
    key: str
    version: str
    sha256: str
    uri: str


class CitedClaim(_Model):
    claim_id: str = Field(alias="claimId")
    claim_digest: str = Field(alias="claimDigest", description="sha256 of the claim's JSON")
    status: str
    attribute: str
    value: str
    page: str
    page_path: str = Field(alias="pagePath")
    page_sha256: str = Field(alias="pageSha256")
    source: CitedSource


class AnswerPredicate(_Model):
    question: str
    answer: str
    found: bool
    principal: str = Field(description="who asked; 'operator' without --as")
    answered_at: datetime = Field(alias="answeredAt")
    builder_id: str = Field(alias="builderId")
    wiki_root_sha256: str | None = Field(None, alias="wikiRootSha256",
                                         description="sha256 of dbom-root.json when answered")
    citations: tuple[CitedClaim, ...]


class AnswerStatement(_Model):
    type: Literal["https://in-toto.io/Statement/v1"] = Field(STATEMENT_TYPE, alias="_type")
    subject: tuple[ResourceDescriptor, ...]
    predicate_type: Literal["https://folio.dev/dbom/answer/v1"] = Field(
        ANSWER_PREDICATE, alias="predicateType")
    predicate: AnswerPredicate


class AuditError(ValueError):
    pass


def answer_statement(state: State, wiki: Path, result: AttestableAnswer,
                     settings: FolioSettings, now: datetime | None = None) -> AnswerStatement:
    """``result``: a ``query`` :class:`~compiler.query.Answer` or an ``ask`` answer."""
    pairs = result.cited_claims()
    claims = state.claims_by_ids([cid for cid, _ in pairs])
    cited: list[CitedClaim] = []
    for cid, status in pairs:
        claim, _ = claims[cid]
        page = state.page(claim.subject)
        path, page_sha = (page[0], page[1]) if page else (f"{claim.subject}.md", "")
        s = claim.source
        cited.append(CitedClaim(
            claimId=claim.id, claimDigest=claim_digest(claim), status=status,
            attribute=getattr(claim, "label", claim.attribute), value=claim.value,
            page=claim.subject,
            pagePath=path, pageSha256=page_sha,
            source=CitedSource(key=s.key, version=s.version, sha256=s.sha256,
                               uri=source_uri(s.key, s.version))))
    text = result.text()
    root = wiki / ROOT_FILE
    return AnswerStatement(
        subject=(ResourceDescriptor(name="answer", digest={"sha256": sha256_hex(text)}),),
        predicate=AnswerPredicate(
            question=result.question, answer=text, found=result.found,
            principal=result.principal or "operator",
            answeredAt=(now or datetime.now(UTC)), builderId=settings.builder_id,
            wikiRootSha256=sha256_hex(root.read_bytes()) if root.exists() else None,
            citations=tuple(cited)),
    )


def record_id(payload: bytes) -> str:
    return sha256_hex(payload)[:_ID_LEN]


def attest_answer(state: State, wiki: Path, result: AttestableAnswer, settings: FolioSettings,
                  now: datetime | None = None) -> str:
    """Sign and store the answer; returns its id (the digest prefix of the signed statement)."""
    signer = signer_from_settings(settings)
    if signer is None:
        raise SigningError("signing is off (FOLIO_SIGNING=off): cannot attest an answer")
    payload = statement_bytes(answer_statement(state, wiki, result, settings, now))
    rid = record_id(payload)
    write_atomic(wiki / ANSWERS_DIR / f"{rid}.json", signer.sign_bundle(payload, PAYLOAD_TYPE),
                 durable=True)
    return rid


# -- audit --------------------------------------------------------------------------------------
# "overruled": the claim is still there but lost to another source since; "retracted": its page
# no longer carries it (its record changed or was deleted); "changed": same id, other content
Flag = Literal["unchanged", "changed", "deleted", "overruled", "retracted"]


class TraceStep(BaseModel):
    claim_id: str
    attribute: str
    value: str
    status: str
    claim: Flag
    claim_now: str | None = Field(None, description="the claim's status now, or the value its "
                                  "page now gives the attribute from the same source")
    page: str
    page_flag: Flag
    source: str = Field(description="key@version as cited")
    source_sha256: str
    source_flag: Flag
    source_now: str | None = Field(None, description="key@version now, when changed")


class AuditReport(BaseModel):
    id: str
    question: str
    answer: str
    principal: str
    answered_at: datetime
    signed_by: str
    trace: list[TraceStep]

    @property
    def changed(self) -> bool:
        return any("unchanged" != f for s in self.trace
                   for f in (s.claim, s.page_flag, s.source_flag))


def load_answer(wiki: Path, rid: str, trust: Trust) -> AnswerStatement:
    if not rid or any(ch not in "0123456789abcdef" for ch in rid):
        raise AuditError(f"{rid!r}: not an answer id (hex digits, printed by query --attest)")
    path = wiki / ANSWERS_DIR / f"{rid}.json"
    where = f"{ANSWERS_DIR}/{rid}.json"
    if not path.exists():
        raise AuditError(f"{where}: no answer record with id {rid} in {wiki}")
    payload = verify_bundle_bytes(path.read_bytes(), where, trust)
    if record_id(payload) != rid:
        raise VerifyError(f"{where}: record content has id {record_id(payload)}, not {rid} "
                          "(record renamed or replaced)")
    try:
        return AnswerStatement.model_validate_json(payload)
    except ValidationError as exc:
        raise VerifyError(f"{where}: signed payload is not a Folio answer record "
                          f"({exc.errors()[0]['msg']})") from exc


def audit(wiki: Path, state: State, rid: str, trust: Trust,
          sources: SourcesNow | None = None) -> AuditReport:
    """Each cited claim against the signed DBOM of its page now (the page pinned by the signed
    index root), never against the unsigned state; sources against the DBOM's resolved
    dependencies, or against the corpus's records as they are now (``sources``, read by
    :func:`connectors.loader.current_sources`)."""
    stmt = load_answer(wiki, rid, trust)
    p = stmt.predicate
    check = StateCheck(wiki, state, trust)
    # the audit reads signed files only, but refuses a wiki whose state contradicts them
    check_served(wiki, state, trust, {c.page for c in p.citations}, check)
    trace = []
    for c in p.citations:
        page_stmt = check.page_statement(c.page)  # raises when the root or its bundle fails
        claim_flag: Flag
        claim_now: str | None = None
        deps: dict[str, tuple[str, str]] = {}
        if page_stmt is None:
            claim_flag, page_flag = "deleted", "deleted"
        else:
            entries = {e.id: e for e in page_stmt.predicate.folio.claims}
            entry = entries.get(c.claim_id)
            if entry is None:
                claim_flag = "retracted"
                claim_now = _value_now(check, c.page, c.attribute, c.source.key)
            elif entry.digest.get("sha256") != c.claim_digest:
                claim_flag = "changed"
            elif entry.status != c.status:
                claim_flag = "overruled" if entry.status == "overruled" else "changed"
                claim_now = entry.status
            else:
                claim_flag = "unchanged"
            page_flag = ("unchanged" if page_stmt.subject[0].digest.get("sha256") == c.page_sha256
                         else "changed")
            deps = {d.name: (d.annotations.version, d.digest.get("sha256", ""))
                    for d in page_stmt.predicate.build_definition.resolved_dependencies}
        now = sources if sources is not None else deps
        cur = now.get(c.source.key)
        src_flag: Flag = ("deleted" if cur is None else
                          "unchanged" if cur[1] == c.source.sha256 else "changed")
        trace.append(TraceStep(
            claim_id=c.claim_id, attribute=c.attribute, value=c.value, status=c.status,
            claim=claim_flag, claim_now=claim_now, page=c.page_path, page_flag=page_flag,
            source=f"{c.source.key}@{c.source.version}", source_sha256=c.source.sha256,
            source_flag=src_flag,
            source_now=f"{c.source.key}@{cur[0]}" if cur and src_flag == "changed" else None))
    return AuditReport(id=rid, question=p.question, answer=p.answer, principal=p.principal,
                       answered_at=p.answered_at, signed_by=trust.describe(), trace=trace)


def _value_now(check: StateCheck, page: str, attribute: str, source_key: str) -> str | None:
    """What the page now says for the cited attribute (with its qualifiers, as the record names
    it) from the same source: its sidecar, pinned by the signed root (the DBOM carries
    digests only)."""
    import json

    from ..models import qualified_label

    try:
        data = json.loads(check._signed_file(f"{page}.claims.json"))
        return next((c["value"] for c in data["claims"]
                     if c["source"]["key"] == source_key
                     and qualified_label(c["attribute"], c.get("qualifiers") or {}) == attribute),
                    None)
    except (VerifyError, ValueError, KeyError, TypeError):
        return None


def audit_json(report: AuditReport) -> str:
    data = report.model_dump(mode="json")
    data["changed"] = report.changed
    return canonical_json(data).decode()

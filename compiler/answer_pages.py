"""Answers filed back into the wiki: ``folio ask … --save`` / ``folio answers save <id>``.

A filed answer is an input of the wiki (``<wiki>/.folio/answers/<slug>.json``: question,
principal, sentences, and each cited claim with its digest, status, source and ACL as they
were when answered). Every compile — and ``answers save`` / ``answers refresh`` themselves —
renders each filed answer as a page of type ``answer`` (``answer/<slug>.md``, a sidecar, and a
signed DBOM whose resolved dependencies are the cited claims' digests), listed in ``index.md``
and logged like any page. The page is kept current: when a cited claim changed, was overruled
or retracted since, the page says so (``stale: true`` in its frontmatter and a notice at the
top) and ``folio lint`` lists it; ``folio answers refresh`` asks the stale ones again.

An answer page is visible only to principals who may see every claim it cites (its sidecar
carries the cited claims' ACLs). Rendering is a pure function of the filed answer and the
current status of its cited claims, so an incremental compile and a clean rebuild of the same
inputs write the same page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from .atomic import write_atomic
from .compile_context import CompileError
from .canonical import canonical_json, sha256_hex
from . import okf
from .models import ACL, Principal, SourceRef
from .render import escape, frontmatter_fields, index_entry, wikilink
from .slug import slugify
from .state import State
from .views import Visibility, principal
from .wiki_owner import recorded_corpus
from .provenance.index_root import SIDECAR_SUFFIX, bundle_name
from .provenance.state_check import ANSWER_BUILD_TYPE
from .provenance.statement import (
    SLSA_PROVENANCE, STATEMENT_TYPE, BuildContext, PageStatement, claim_digest, statement_bytes,
)

ANSWER_TYPE = "answer"
FILED_DIR = ".folio/answers"  # where a wiki with no recorded corpus keeps them
DURABLE_DIR = ".folio-answers"  # in the corpus folder (hidden: no connector reads it)
RECORDS_DIR = ".answers"  # signed answer records (compiler/provenance/answers.py)
_RECORD_ID = re.compile(r"[0-9a-f]{8,64}")  # a record id names a file: hex digits only
STALE_META = "answers_stale"


class FiledAnswerError(CompileError):
    """A filed answer cannot be read or filed; the message names the file or the answer."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FiledCitation(_Model):
    claim_id: str
    claim_digest: str
    page: str
    attribute: str
    kind: str
    value: str
    status: str
    source_key: str
    source_version: str
    source_sha256: str
    system: str
    rule: str
    rank: int
    acl: ACL
    # what the page shows of the claim, as the asker read it when it was filed: its value (a
    # reference: the target page's title) and its page's title. "Current" means the claim's
    # digest and status AND these are unchanged: a renamed target changes no claim of the
    # citing page, yet the answer would show the old name (None: filed before they were kept)
    shown: str | None = None
    page_title: str | None = None
    qualifiers: dict[str, str] | None = None  # which claim of its attribute (Enterprise's)
    label: str | None = None  # the attribute as shown: "return window (Enterprise)"

    @property
    def what(self) -> str:
        return self.label or self.attribute

    @property
    def display(self) -> str:
        return self.value if self.shown is None else self.shown


class FiledSentence(_Model):
    text: str
    claims: tuple[str, ...]
    contested: bool = False


class FiledAnswer(_Model):
    page: str = Field(description="answer/<slug of the question>")
    question: str
    principal: str = Field(description="who asked; 'operator' without --as")
    groups: tuple[str, ...] | None = Field(
        None, description="the asker's groups when asked (None: the operator, or filed by an "
        "older Folio); never widened when the answer is judged or asked again")
    backend: str
    answered_at: datetime
    record_id: str | None = Field(description="the signed answer record (folio audit)")
    sentences: tuple[FiledSentence, ...]
    citations: tuple[FiledCitation, ...]

    def visible_to(self, who: Principal | None) -> bool:
        return all(c.acl.allows(who) for c in self.citations)


def answer_page_id(question: str) -> str:
    return f"{ANSWER_TYPE}/{slugify(question)}"


def answers_home(wiki: Path, corpus: Path | None = None) -> Path:
    """Where the filed answers of ``wiki`` are kept: beside its corpus (``<corpus>/
    .folio-answers/``), because they are inputs like the corpus's records: a clean rebuild into
    a new folder, or into the same folder after deleting it, files them again. A wiki with no
    recorded corpus keeps them in its own ``.folio/answers/``."""
    if corpus is None:
        owner = recorded_corpus(wiki)
        corpus = Path(owner.corpus) if owner is not None else None
    return corpus / DURABLE_DIR if corpus is not None else wiki / FILED_DIR


def filed_path(wiki: Path, page: str, corpus: Path | None = None) -> Path:
    name = page.split("/", 1)[1] + ".json"
    home = answers_home(wiki, corpus) / name
    legacy = wiki / FILED_DIR / name
    return legacy if not home.exists() and legacy.exists() else home


def asker(state: State, filed: FiledAnswer) -> Principal | None:
    """The principal an answer was asked as, now: its name's groups in the directory, never
    more than it had when asked (``--as alice --group support`` stays narrowed when the answer
    is judged or asked again; a group taken away since is gone). ``operator``: everything."""
    if filed.principal == "operator":
        return None
    who = principal(state, filed.principal)
    if who is not None and filed.groups is not None:
        kept = set(filed.groups)
        who = who.model_copy(update={"groups": tuple(g for g in who.groups if g in kept)})
    return who


def _reads(vis: Visibility, claim) -> tuple[str, str]:  # noqa: ANN001 - a Claim
    """(value, page title) of a claim as ``vis``'s principal reads them."""
    return vis.shown(claim), vis.title(claim.subject) or claim.subject


def file_answer(wiki: Path, state: State, result, record_id: str | None,  # noqa: ANN001
                answered_at: datetime, who: Principal | None = None,
                corpus: Path | None = None, write: bool = True) -> FiledAnswer:
    """Store an ``ask`` answer as a filed answer (the page follows in :func:`update_pages`).
    ``who`` is the principal it was asked as (default: its name's principal now)."""
    if who is None and result.principal:
        who = principal(state, result.principal)
    vis = Visibility(state, who)
    ids = [cid for s in result.sentences for cid in s.claims]
    claims = state.claims_by_ids(list(dict.fromkeys(ids)))
    cites = []
    for cid in dict.fromkeys(ids):
        if cid not in claims:
            raise FiledAnswerError(f"answer {record_id or result.question!r}: cites claim {cid}, "
                                   "which the wiki no longer holds; ask again")
        claim, status = claims[cid]
        shown, title = _reads(vis, claim)
        cites.append(FiledCitation(
            claim_id=cid, claim_digest=claim_digest(claim), page=claim.subject,
            attribute=claim.attribute, kind=claim.kind, value=claim.value, status=status,
            source_key=claim.source.key, source_version=claim.source.version,
            source_sha256=claim.source.sha256, system=claim.source.system,
            rule=claim.authority.rule, rank=claim.authority.rank, acl=claim.acl,
            shown=shown, page_title=title, qualifiers=dict(claim.qualifiers),
            label=claim.label))
    filed = FiledAnswer(
        page=answer_page_id(result.question), question=result.question,
        principal=result.principal or "operator", backend=result.backend,
        groups=tuple(who.groups) if who is not None else None,
        answered_at=answered_at, record_id=record_id,
        sentences=tuple(FiledSentence(text=s.text, claims=tuple(s.claims),
                                      contested=s.contested) for s in result.sentences),
        citations=tuple(cites))
    if write:
        write_filed(wiki, filed, corpus)
    return filed


def write_filed(wiki: Path, filed: FiledAnswer, corpus: Path | None = None) -> Path:
    home = answers_home(wiki, corpus)
    path = home / (filed.page.split("/", 1)[1] + ".json")
    # its signed answer record travels with it (folio audit on any rebuild)
    if filed.record_id and _RECORD_ID.fullmatch(filed.record_id):
        record = wiki / RECORDS_DIR / f"{filed.record_id}.json"
        if record.exists():
            write_atomic(home / "records" / record.name, record.read_bytes(), durable=True)
    write_atomic(path, canonical_json(filed.model_dump(mode="json")), durable=True)
    legacy = wiki / FILED_DIR / path.name
    if legacy != path:
        legacy.unlink(missing_ok=True)  # moved to its durable place (filed before it existed)
    return path


def _read_filed(path: Path) -> FiledAnswer:
    try:
        return FiledAnswer.model_validate_json(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise FiledAnswerError(f"{path}: not a filed answer ({str(exc).splitlines()[0]}); "
                               "fix or delete it and compile again") from exc


def load_filed(wiki: Path, corpus: Path | None = None) -> list[FiledAnswer]:
    """Every filed answer of ``wiki``: those beside its corpus, and any a wiki of an older
    Folio still keeps in its own ``.folio/answers/`` (the corpus's copy wins)."""
    found: dict[str, FiledAnswer] = {}
    folders = [wiki / FILED_DIR, answers_home(wiki, corpus)]
    for folder in dict.fromkeys(folders):
        if folder.is_dir():
            for p in sorted(folder.glob("*.json")):
                f = _read_filed(p)
                found[f.page] = f
    return [found[k] for k in sorted(found)]


def staleness(state: State, filed: FiledAnswer) -> list[str]:
    """Why the answer no longer matches the wiki (empty: current). Current means: every cited
    claim has the digest and status it had, and still reads, for the asker, as the page shows
    it (its value, a reference's target title, its page's title)."""
    now = state.claims_by_ids([c.claim_id for c in filed.citations])
    vis = Visibility(state, asker(state, filed))
    reasons = []
    for c in filed.citations:
        hit = now.get(c.claim_id)
        if hit is None:
            # only what the asker may read now: a value their record took behind a narrower
            # ACL since must not reach the notice (for them it is gone)
            same = [g for g, _ in state.claims_of_group(c.page, c.attribute)
                    if g.source.key == c.source_key and vis.claim_visible(g)
                    and (c.qualifiers is None or dict(g.qualifiers) == c.qualifiers)]
            if not same:
                reasons.append(f"{c.what} ({c.display}) on {c.page} was retracted")
            elif any(g.value == c.value for g in same):
                reasons.append(f"{c.what} ({c.display}) on {c.page}: its record changed since "
                               f"(now {same[0].source.label}), the value is the same")
            else:
                reasons.append(f"{c.what} on {c.page} changed from {c.display} to "
                               f"{vis.shown(same[0])}")
            continue
        if claim_digest(hit[0]) != c.claim_digest:
            reasons.append(f"{c.what} on {c.page} changed")
        elif hit[1] != c.status:
            reasons.append(f"{c.what} ({c.display}) on {c.page} is now {hit[1]}")
        shown, title = _reads(vis, hit[0])
        if c.shown is not None and shown != c.shown:
            reasons.append(f"{c.what} on {c.page} now reads {shown} (was {c.shown})")
        if c.page_title is not None and title != c.page_title:
            reasons.append(f"{c.page} is now titled {title} (was {c.page_title})")
    return list(dict.fromkeys(reasons))


# -- rendering (pure) ----------------------------------------------------------------------------
def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def render_answer(filed: FiledAnswer, stale: Sequence[str]) -> tuple[bytes, bytes, str]:
    """(page markdown, sidecar JSON, summary for index.md)."""
    refs = {c.claim_id: f"c{i}" for i, c in enumerate(filed.citations, 1)}
    summary = ("STALE — " if stale else "") + (filed.sentences[0].text if filed.sentences
                                                 else "no answer")
    # OKF v0.2 (docs/okf.md): the cited records as sources, each cited by its footnote below
    records = {c.source_key: SourceRef(key=c.source_key, version=c.source_version,
                                       sha256=c.source_sha256, system=c.system)
               for c in filed.citations}
    sources = [records[k] for k in sorted(records)]
    ids = okf.source_ids(sources)
    lines = [
        "---", f"type: {_q(ANSWER_TYPE)}", f"title: {_q(filed.question)}",
        frontmatter_fields({
            "description": escape(summary),
            "sources": okf.source_entries(sources, ids, {k: None for k in ids}),
            "generated": okf.generated(filed.answered_at)}).rstrip("\n"),
        "aliases: []",
        f"question: {_q(filed.question)}", f"principal: {_q(filed.principal)}",
        f"backend: {_q(filed.backend)}",
        f"answered: {_q(filed.answered_at.isoformat())}",
        f"record: {_q(filed.record_id or '')}", f"cites: {len(filed.citations)}",
        f"stale: {'true' if stale else 'false'}",
        "scope: \"principals who may see every cited claim\"",
        "folio:", '  schema: "1"', "---", "", f"# {escape(filed.question)}", "",
    ]
    if stale:
        lines += ["> **Stale.** Since this answer was given: "
                  + "; ".join(escape(r) for r in stale)
                  + ". Run `folio answers refresh` to ask again.", ""]
    for s in filed.sentences:
        marks = "".join(f"[{refs[c]}]" for c in s.claims if c in refs)
        lines += [f"{escape(s.text)} {marks}".rstrip(), ""]
    lines += ["## Cited claims", "", "| | Page | Attribute | Value | Status | Source |",
              "|---|---|---|---|---|---|"]
    for c in filed.citations:
        lines.append(f"| {refs[c.claim_id]} | {wikilink(c.page, '', table=True)} | "
                     f"{escape(c.what)} | {escape(c.display)}"
                     f" | {c.status} | "
                     f"`{escape(c.source_key)}@{escape(c.source_version)}` "
                     f"{okf.footnote(ids[c.source_key])} |")
    lines += ["", "## Record", "",
              f"Asked by {escape(filed.principal)} at {filed.answered_at.isoformat()}"
              + (f"; signed answer record `{filed.record_id}` (`folio audit "
                 f"{filed.record_id}`)." if filed.record_id else "."), ""]
    lines += [okf.footnote_definition(ids[s.key], s, None) for s in sources] + [""]
    page = "\n".join(lines).encode("utf-8")
    sidecar = canonical_json({
        "schema": "folio.answer-page/1", "name": filed.page, "question": filed.question,
        "principal": filed.principal, "groups": filed.groups,
        "page_sha256": sha256_hex(page), "stale": list(stale),
        "citations": [c.model_dump(mode="json") for c in filed.citations],
    })
    return page, sidecar, summary


def answer_statement(filed: FiledAnswer, page_path: str, page_bytes: bytes,
                     build: BuildContext) -> bytes:
    """The page's DBOM: its dependencies are the cited claims, each by its digest, and the
    source records they came from, each by its sha256."""
    deps = [{
        "name": f"claim/{c.claim_id}", "uri": f"folio:claim/{c.claim_id}",
        "digest": {"sha256": c.claim_digest},
        "annotations": {"key": c.source_key, "version": c.source_version, "system": c.system,
                        "authority": c.rule, "rank": c.rank, "acl_digest": c.acl.digest},
    } for c in sorted(filed.citations, key=lambda c: c.claim_id)]
    # … and the records they came from, as a page's DBOM names its records: `folio verify
    # --sources` compares these with the corpus (a claim id is no record it could find)
    records = {c.source_key: c for c in filed.citations}
    deps += [{
        "name": key, "uri": f"folio:{key}@{c.source_version}",
        "digest": {"sha256": c.source_sha256},
        "annotations": {"key": key, "version": c.source_version, "system": c.system,
                        "authority": c.rule, "rank": c.rank, "acl_digest": c.acl.digest},
    } for key, c in sorted(records.items())]
    entries = [{
        "id": c.claim_id, "digest": {"sha256": c.claim_digest}, "attribute": c.attribute,
        "kind": c.kind, "status": c.status, "rule": c.rule, "rank": c.rank,
        "supporting_sources": [f"{c.source_key}@{c.source_version}"], "overruled_sources": [],
    } for c in sorted(filed.citations, key=lambda c: c.claim_id)]
    doc = {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": page_path, "digest": {"sha256": sha256_hex(page_bytes)}}],
        "predicateType": SLSA_PROVENANCE,
        "predicate": {
            "buildDefinition": {
                "buildType": ANSWER_BUILD_TYPE,
                "externalParameters": {"page": filed.page, "question": filed.question,
                                       "principal": filed.principal, "groups": filed.groups,
                                       "record": filed.record_id or ""},
                "internalParameters": build.internal().model_dump(mode="json"),
                "resolvedDependencies": deps,
            },
            "runDetails": build.run_details().model_dump(mode="json", by_alias=True),
            "folio": {"page": filed.page, "claims": entries, "open_conflicts": []},
        },
    }
    return statement_bytes(PageStatement.model_validate(doc))


# -- keeping the pages current -------------------------------------------------------------------
def update_pages(state: State, out: Path, files, signer,  # noqa: ANN001
                 build: BuildContext | None, resign_all: bool, corpus: Path | None = None,
                 filed_now: Sequence[FiledAnswer] | None = None,
                 ) -> tuple[list[str], list[str], dict[str, str], bool]:
    """Render every filed answer whose page changed, drop pages of answers no longer filed;
    files go through ``files``, the compile's next generation (compiler/staging.py). Returns
    (pages written, pages removed, page id → bundle sha256 of those signed here, whether
    index.md must be re-assembled). ``filed_now``: the filed answers, when the caller already
    holds them (``folio answers refresh`` renders before it writes them)."""
    written: list[str] = []
    removed: list[str] = []
    signed: dict[str, str] = {}
    index_changed = False
    stale_of: dict[str, list[str]] = {}
    filed = {f.page: f for f in (load_filed(out, corpus) if filed_now is None else filed_now)}
    known = {eid for (eid,) in state.db.execute(
        "SELECT entity_id FROM pages WHERE type=?", (ANSWER_TYPE,))}
    for eid in sorted(known - set(filed)):
        for rel in (f"{eid}.md", f"{eid}{SIDECAR_SUFFIX}", bundle_name(eid)):
            files.remove(rel)
        state.drop_page(eid)
        removed.append(eid)
        index_changed = True
    _restore_records(out, corpus, filed.values())
    for eid, f in sorted(filed.items()):
        stale = staleness(state, f)
        if stale:
            stale_of[eid] = stale
        page, sidecar, summary = render_answer(f, stale)
        sha, sc_sha = sha256_hex(page), sha256_hex(sidecar)
        before = state.page(eid)
        path = f"{eid}.md"
        changed = before is None or before[1:] != (sha, sc_sha) or not files.exists(path)
        if changed:
            files.write(path, page)
            files.write(f"{eid}{SIDECAR_SUFFIX}", sidecar)
            written.append(eid)
        row = state.index_rows_of([eid]).get(eid)
        if row != (ANSWER_TYPE, f.question, summary):
            index_changed = True
        state.put_page(eid, path, sha, sc_sha, ANSWER_TYPE, f.question, summary)
        sort_key, line = index_entry(eid, f.question, summary)
        state.db.execute("INSERT OR REPLACE INTO page_index VALUES (?,?,?,?)",
                         (eid, ANSWER_TYPE, sort_key, line))
        if signer is not None and build is not None and (
                changed or resign_all or not files.exists(bundle_name(eid))):
            bundle = signer.sign_bundle(answer_statement(f, path, page, build),
                                        "application/vnd.in-toto+json")
            files.write(bundle_name(eid), bundle)
            signed[eid] = sha256_hex(bundle)
    state.set_meta(STALE_META, json.dumps(stale_of, sort_keys=True))
    return written, removed, signed, index_changed


def readable_by(state: State, filed: FiledAnswer, who: Principal | None) -> bool:
    """May ``who`` read this answer page? Only if ``who`` may see every claim it cites, and
    reads each as its asker does (a reference's target title, a page's title): a title shown
    to the asker from a record ``who`` may not see must not reach ``who`` through the answer."""
    if who is None:
        return True
    if not filed.visible_to(who):
        return False
    claims = state.claims_by_ids([c.claim_id for c in filed.citations])
    mine = Visibility(state, who)
    # now, too: every page it cites exists for who and every cited claim still held is one
    # who may see (a record narrowed since withdraws the answer, the asker's view included)
    if not all(mine.exists(c.page) and ((hit := claims.get(c.claim_id)) is None
                                        or mine.claim_visible(hit[0]))
               for c in filed.citations):
        return False
    if who.name == filed.principal:
        return True
    theirs = Visibility(state, asker(state, filed))
    return all(_reads(mine, hit[0]) == _reads(theirs, hit[0])
               for c in filed.citations if (hit := claims.get(c.claim_id)) is not None)


def _restore_records(out: Path, corpus: Path | None, filed) -> None:  # noqa: ANN001
    """A wiki rebuilt from scratch gets back the signed answer records its filed answers cite
    (an operator file, outside the signed root: `folio audit <record>` reads it)."""
    home = answers_home(out, corpus) / "records"
    for f in filed:
        if not f.record_id or not _RECORD_ID.fullmatch(f.record_id):
            continue
        target = out / RECORDS_DIR / f"{f.record_id}.json"
        kept = home / target.name
        if not target.exists() and kept.exists():
            write_atomic(target, kept.read_bytes())


def answer_page_text(wiki: Path, state: State, page: str, who: Principal | None) -> str | None:
    """An answer page as ``folio show`` prints it: only to a principal who may read it
    (:func:`readable_by`), and only as the signed index root pins it (None: not an answer page,
    or not for ``who``). Who may read it is judged from the page's signed sidecar, the filed
    answer the page was rendered from."""
    row = state.index_rows_of([page]).get(page)
    if row is None or row[0] != ANSWER_TYPE or not page.startswith(f"{ANSWER_TYPE}/"):
        return None
    from .provenance.state_check import StateCheck, StateMismatch
    from .provenance.verify import trust_from
    from .settings import FolioSettings

    settings = FolioSettings()
    rel, side = f"{page}.md", f"{page}{SIDECAR_SUFFIX}"
    try:
        if settings.signing != "off":
            check = StateCheck(wiki, state, trust_from(settings))
            data, sidecar = check._signed_file(rel), check._signed_file(side)
        else:
            data, sidecar = (wiki / rel).read_bytes(), (wiki / side).read_bytes()
    except (StateMismatch, OSError):
        return None
    try:
        meta = json.loads(sidecar)
        filed = FiledAnswer(
            page=page, question=meta["question"], principal=meta.get("principal", "operator"),
            groups=meta.get("groups"),
            backend="", answered_at=datetime.fromtimestamp(0, UTC), record_id=None,
            sentences=(), citations=tuple(FiledCitation.model_validate(c)
                                          for c in meta["citations"]))
    except (ValueError, KeyError, TypeError):
        return None
    return data.decode("utf-8") if readable_by(state, filed, who) else None


def stale_answers(state: State) -> dict[str, list[str]]:
    raw = state.meta(STALE_META)
    return json.loads(raw) if raw else {}


__all__ = ["ANSWER_TYPE", "FiledAnswer", "FiledAnswerError", "answer_page_id", "answer_page_text",
           "answers_home", "file_answer", "load_filed", "readable_by", "write_filed",
           "render_answer", "stale_answers", "staleness", "update_pages"]

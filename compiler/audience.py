"""Audience vaults: a compiled wiki as one principal or group may see it, as a folder.

``folio render --audience <principal or group> --wiki W --out DIR`` writes an Obsidian vault
holding only what the audience may read: each page re-rendered from its visible claims with
authority settled again among those (compiler/views.py), ``index.md`` of the visible pages,
``log.md`` entries cut down to visible pages, ``SCHEMA.md``, and the same provenance as the main
wiki (a signed DBOM per page, the sharded index root), so ``folio verify --wiki DIR`` checks it.

A hidden page leaves no trace: no file, no index line, no count that includes it, no title or
alias, and a link to it is plain text, as a link to a page nobody wrote is. The operator's full
wiki folder is an operator artifact (docs/permissions.md): hand an audience its vault instead.
"""

from __future__ import annotations

import json
import shutil
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from . import __version__
from .atomic import write_atomic
from .canonical import sha256_hex
from .directory import RESERVED_PREFIX
from .models import SCHEMA_VERSION, Principal
from .provenance.attest import signer_from_settings
from .provenance.index_root import (
    ROOT_FILE, bucket_bytes, bucket_file, bucket_of, bundle_name, index_statement,
)
from .provenance.statement import PAYLOAD_TYPE, BuildContext, page_statement_bytes, statement_bytes
from .render import render_index, render_log, render_page, sidecar_bytes
from .settings import FolioSettings
from .state import State
from .views import Visibility, page_view, stored_directory, stored_policy

MARKER = ".folio-audience.json"  # says the folder is a vault Folio may replace
_UPDATED = "- updated [["


class AudienceError(ValueError):
    """The audience or the output folder cannot be used; the message says which and why."""


@dataclass
class VaultReport:
    audience: str
    pages: int
    files: int
    signed: bool


def audience_principal(state: State, audience: str) -> Principal:
    """A directory principal by name, else a directory group (everyone in it sees what the
    group may: the vault holds only what the group's ACL entries grant, nothing personal)."""
    directory = stored_directory(state)
    known = directory.principal(audience)
    if known is not None:
        return known
    if directory.group_members(audience) and not audience.startswith(RESERVED_PREFIX):
        return Principal(name=f"group:{audience}", groups=(audience,))
    raise AudienceError(f"no principal or group named {audience!r} in the wiki's directory "
                        "(directory.yaml of the compiled corpus)")


def _prepare(out: Path, wiki: Path) -> None:
    out, wiki = out.resolve(), wiki.resolve()
    if out == wiki or wiki in out.parents or out in wiki.parents:
        raise AudienceError(f"{out}: the vault must be outside the wiki folder {wiki}")
    if out.exists():
        if not out.is_dir():
            raise AudienceError(f"{out}: exists and is not a folder")
        if any(out.iterdir()):
            if not (out / MARKER).exists():
                raise AudienceError(f"{out}: not empty and not an audience vault; refusing to "
                                    "replace it")
            shutil.rmtree(out)  # a vault is rewritten whole: nothing of an older one may stay
    out.mkdir(parents=True, exist_ok=True)


def _log(state: State, shown: set[str]) -> str:
    """``log.md`` entries with only the visible pages they touched; an entry that touched
    none is left out, and its counts are recounted over what is shown."""
    entries = []
    for day, op, _title, body in state.log_entries():
        if op != "compile":
            continue
        lines = [ln for ln in body.splitlines()
                 if ln.startswith(_UPDATED) and ln[len(_UPDATED):].split("]]")[0] in shown]
        if lines:
            entries.append((day, op, f"{len(lines)} pages updated", "\n".join(lines)))
    return render_log(entries)


def render_audience(wiki: Path, state: State, audience: str, out: Path,
                    settings: FolioSettings | None = None) -> VaultReport:
    settings = settings or FolioSettings()
    who = audience_principal(state, audience)
    _prepare(out, wiki)
    vis = Visibility(state, who)
    policy = stored_policy(state)
    signer = signer_from_settings(settings)
    now = datetime.now(UTC)
    build = BuildContext(
        compiler_version=__version__, schema_version=SCHEMA_VERSION,
        backend=json.loads(state.meta("backend") or "{}"), policy_digest=policy.digest,
        corpus_schema=(state.meta("schema_version") or "", state.meta("schema_digest") or ""),
        builder_id=settings.builder_id, invocation_id=str(uuid.uuid4()),
        started_on=now, finished_on=now)

    files: dict[str, str] = {}  # wiki-relative path → sha256, for the index root

    def write(rel: str, data: bytes) -> None:
        write_atomic(out / rel, data)
        files[rel] = sha256_hex(data)

    listed: list[tuple[str, str, str, str]] = []
    for eid in state.page_ids():
        view = page_view(state, eid, who, visibility=vis)
        if view is None:
            continue
        markdown, summary, ordered, sources = render_page(
            view.entity, view.claims, view.status, view.conflicts, view.backlinks,
            titles=view.titles)
        md = markdown.encode("utf-8")
        sha = sha256_hex(md)
        write(f"{eid}.md", md)
        write(f"{eid}.claims.json", sidecar_bytes(
            eid, view.entity.model_dump_json(), summary, sha,
            [(c.model_dump_json(), view.status.get(c.id, "winner")) for c in ordered],
            [c.model_dump_json() for c in view.conflicts], sources,
            [b for b, _ in view.backlinks]))
        if signer is not None:
            payload = page_statement_bytes(f"{eid}.md", md, view.claims, view.status,
                                           view.conflicts, build, page_sha256=sha)
            write(bundle_name(eid), signer.sign_bundle(payload, PAYLOAD_TYPE))
        listed.append((view.entity.type, eid, view.entity.name, summary))

    pages = sorted(files)
    aggregates = {
        "index.md": render_index(sorted(listed)).encode("utf-8"),
        "log.md": _log(state, {eid for _, eid, _, _ in listed}).encode("utf-8"),
        # the authority policy and vocabulary: configuration, no record's content
        "SCHEMA.md": (wiki / "SCHEMA.md").read_bytes() if (wiki / "SCHEMA.md").exists() else b"",
    }
    for rel, data in aggregates.items():
        write(rel, data)
    if signer is not None:
        buckets: dict[str, list[tuple[str, str]]] = {}
        for rel in pages:
            buckets.setdefault(bucket_of(rel), []).append((rel, files[rel]))
        subjects = {}
        for bucket, members in sorted(buckets.items()):
            data = bucket_bytes(bucket, members)
            write_atomic(out / bucket_file(bucket), data)
            subjects[bucket_file(bucket)] = sha256_hex(data)
        subjects.update({rel: files[rel] for rel in aggregates})
        stmt = index_statement(subjects, len(listed), len(pages) + len(aggregates),
                               build.run_details().builder, build.invocation_id, now)
        write_atomic(out / ROOT_FILE, signer.sign_bundle(statement_bytes(stmt), PAYLOAD_TYPE))
    # dot-files are outside what verify pins (like the wiki's own .folio/)
    write_atomic(out / MARKER, json.dumps({"audience": audience}).encode("utf-8"))
    return VaultReport(audience=audience, pages=len(listed), files=len(files),
                       signed=signer is not None)

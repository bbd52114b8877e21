"""``folio verify``: is the wiki on disk exactly what a trusted signer compiled?

Three layers, each reported with what failed and where:

1. the index root is signed by the trusted key/identity and its subject set equals the files
   present (catches deleted, added, swapped or edited files anywhere);
2. every page's bundle is signed by the trusted key/identity, describes *this* page, and the
   page bytes match its subject digest;
3. with ``--sources``: every source version a DBOM depends on still has the digest it had at
   compile time (drift: the page is stale, not forged).

Nothing inside a bundle is trusted: the key hint is only used to explain a mismatch.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError
from cryptography.hazmat.primitives.asymmetric import ec

from ..settings import FolioSettings
from .bundle import BundleError, parse_bundle
from .index_root import AGGREGATE_FILES, BUNDLE_SUFFIX, ROOT_FILE, IndexStatement
from .root_check import check_root
from .signers import (
    SigningError, key_id, load_public_key, public_key_path, verify_signature,
)
from .statement import PAYLOAD_TYPE, PageStatement
from .verify_report import SourceChange, StalePage, VerifyReport


# the corpus's records now: key → (version, sha256), read by the connectors (connectors/loader.py)
SourcesNow = Mapping[str, tuple[str, str]]


class VerifyError(ValueError):
    """One signature or statement failed; the message says what and where."""


@dataclass(frozen=True)
class Trust:
    """What the verifier was told to trust, from flags or settings only."""

    key: ec.EllipticCurvePublicKey | None = None
    key_source: str = ""
    identity: str | None = None
    issuer: str | None = None
    trust_config: Path | None = None

    @property
    def key_id(self) -> str | None:
        return key_id(self.key) if self.key is not None else None

    def describe(self) -> str:
        parts = []
        if self.key is not None:
            parts.append(f"key sha256:{self.key_id} ({self.key_source})")
        if self.identity:
            parts.append(f"sigstore identity {self.identity} from {self.issuer}")
        return "; ".join(parts) or "nothing"


def trust_from(settings: FolioSettings, key: Path | None = None) -> Trust:
    """``--key`` wins, then ``FOLIO_TRUSTED_KEY``, then the public half of the local signing key
    (``FOLIO_KEY_PATH``): each is configuration, never something read from the wiki."""
    local = settings.key_path.expanduser()
    if key is not None:
        path, source = key, "--key"
    elif settings.trusted_key is not None:
        path, source = settings.trusted_key, "FOLIO_TRUSTED_KEY"
    elif local.exists():
        path, source = local, "FOLIO_KEY_PATH"
    elif public_key_path(local).exists():
        path, source = public_key_path(local), "FOLIO_KEY_PATH (public key)"
    else:
        path = None
    return Trust(key=load_public_key(path) if path is not None else None,
                 key_source=f"{source}: {path}" if path is not None else "",
                 identity=settings.sigstore_identity, issuer=settings.sigstore_issuer,
                 trust_config=settings.sigstore_trust_config)


def verify_bundle_bytes(data: bytes, where: str, trust: Trust) -> bytes:
    """The signed statement bytes of a bundle, if and only if a trusted signer signed them."""
    try:
        parsed = parse_bundle(data, where)
    except BundleError as exc:
        raise VerifyError(str(exc)) from exc
    if parsed.envelope.payload_type != PAYLOAD_TYPE:
        raise VerifyError(f"{where}: payload type {parsed.envelope.payload_type!r}, expected "
                          f"{PAYLOAD_TYPE!r}")
    if parsed.keyless:
        return _verify_keyless(data, where, trust)
    if trust.key is None:
        raise VerifyError(f"{where}: no trusted key configured (--key, FOLIO_TRUSTED_KEY or "
                          "FOLIO_KEY_PATH)")
    message = parsed.envelope.pae()
    for sig in parsed.envelope.signatures:
        try:
            raw = sig.sig_bytes
        except ValueError as exc:
            raise VerifyError(f"{where}: signature is not base64") from exc
        if verify_signature(trust.key, raw, message):
            return parsed.envelope.payload_bytes
    hint = parsed.key_hint or (parsed.envelope.signatures[0].keyid or "none")
    if hint != trust.key_id:
        raise VerifyError(f"{where}: signed by key sha256:{hint[:16]}…, not by the trusted key "
                          f"sha256:{(trust.key_id or '')[:16]}… ({trust.key_source})")
    raise VerifyError(f"{where}: signature does not match its content (bundle altered after "
                      "signing)")


def _verify_keyless(data: bytes, where: str, trust: Trust) -> bytes:
    if not (trust.identity and trust.issuer):
        raise VerifyError(f"{where}: keyless bundle, but no identity to trust is configured "
                          "(FOLIO_SIGSTORE_IDENTITY and FOLIO_SIGSTORE_ISSUER)")
    from sigstore.errors import Error as SigstoreError
    from sigstore.models import Bundle, ClientTrustConfig
    from sigstore.verify import Verifier, policy

    try:
        config = (ClientTrustConfig.from_json(trust.trust_config.read_text())
                  if trust.trust_config else ClientTrustConfig.production(offline=True))
        verifier = Verifier(trusted_root=config.trusted_root)
        ptype, payload = verifier.verify_dsse(
            Bundle.from_json(data), policy.Identity(identity=trust.identity, issuer=trust.issuer))
    except (SigstoreError, ValueError, OSError) as exc:
        raise VerifyError(f"{where}: keyless verification failed: {exc}") from exc
    if ptype != PAYLOAD_TYPE:
        raise VerifyError(f"{where}: payload type {ptype!r}, expected {PAYLOAD_TYPE!r}")
    return payload


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    return f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"


# Paths under a wiki that are not part of it, and so not pinned by the index root: the compile's
# own state (SQLite state, LLM cache, locks, the staged generation), the answer records filed by
# `query --attest` (each signed on its own, checked by `folio audit`), an audience vault's marker
# file and the root itself (verified by its signature). Everything else a wiki folder holds, dot-files,
# dot-folders and symbolic links included, must be pinned by the signed root or verify fails
# naming it. Documented in docs/provenance.md ("What verify covers").
ANSWERS_DIR = ".answers"  # compiler.provenance.answers.ANSWERS_DIR
AUDIENCE_MARKER = ".folio-audience.json"  # compiler.audience.MARKER: a vault's marker
OPERATOR_DIRS = (".folio", ANSWERS_DIR, AUDIENCE_MARKER)


@dataclass(frozen=True)
class WikiScan:
    files: dict[str, Path]  # regular files, wiki-relative path → path
    foreign: dict[str, str]  # symbolic links and special files → what they are


def scan_wiki(wiki: Path) -> WikiScan:
    """Every entry under ``wiki`` except the operator folders and the root. Symbolic links are
    never followed (a compile writes none: a linked folder would smuggle files past the root)."""
    files: dict[str, Path] = {}
    foreign: dict[str, str] = {}
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            entries = sorted(os.scandir(wiki / rel_dir if rel_dir else wiki), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            continue
        for e in entries:
            rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
            if not rel_dir and (e.name in OPERATOR_DIRS or e.name == ROOT_FILE):
                if e.is_symlink():
                    foreign[rel] = f"symbolic link to {os.readlink(e.path)}"
                elif e.name == ANSWERS_DIR:
                    foreign.update(_stray_answers(wiki, rel))
                continue
            if e.is_symlink():
                foreign[rel] = f"symbolic link to {os.readlink(e.path)}"
            elif e.is_dir(follow_symlinks=False):
                stack.append(rel)
            elif e.is_file(follow_symlinks=False):
                files[rel] = Path(e.path)
            else:
                foreign[rel] = "not a regular file (fifo, socket or device)"
    return WikiScan(files, foreign)


def _stray_answers(wiki: Path, rel: str) -> dict[str, str]:
    """Entries of the answers folder that are not answer records (``<id>.json``, each signed
    and checked by ``folio audit``): the folder is the operators', not a place to hide pages."""
    try:
        entries = list(os.scandir(wiki / rel))
    except NotADirectoryError:
        return {rel: "not the answers folder (a file)"}
    return {f"{rel}/{e.name}": "not an answer record (<id>.json)" for e in entries
            if e.is_symlink() or not e.is_file(follow_symlinks=False)
            or not e.name.endswith(".json") or e.name.startswith(".")}


def wiki_files(wiki: Path) -> dict[str, Path]:
    """Every regular file of the wiki (see :func:`scan_wiki`), the operator folders and the
    root itself excepted."""
    return scan_wiki(wiki).files


def _sha(path: Path) -> str:
    import hashlib

    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def read_page_statement(bundle: Path, where: str, trust: Trust) -> PageStatement:
    payload = verify_bundle_bytes(bundle.read_bytes(), where, trust)
    try:
        return PageStatement.model_validate_json(payload)
    except ValidationError as exc:
        raise VerifyError(f"{where}: signed payload is not a Folio page DBOM "
                          f"({exc.errors()[0]['msg']})") from exc


def verify_wiki(wiki: Path, trust: Trust, sources: SourcesNow | None = None) -> VerifyReport:
    """Verify the wiki's current generation: one a killed compile committed is rolled forward
    first, and a compile committing meanwhile waits until this read is done (staging.py).
    ``sources``: the corpus's records now (:func:`connectors.loader.current_sources`), to
    report the pages compiled from sources that have changed since."""
    from ..staging import reading

    with reading(wiki):
        return _verify_wiki(wiki, trust, sources)


def _verify_wiki(wiki: Path, trust: Trust, sources: SourcesNow | None) -> VerifyReport:
    report = VerifyReport(wiki=str(wiki), trusted=trust.describe())
    scan = scan_wiki(wiki)
    present = scan.files
    report.files = len(present) + len(scan.foreign)
    for rel, what in sorted(scan.foreign.items()):
        report.add("added", rel, f"{rel}: {what}; a compile writes only regular files, so this "
                   "is not part of the signed wiki")
    digests: dict[str, str] = {}

    def sha_of(rel: str) -> str:
        if rel not in digests:
            digests[rel] = _sha(present[rel])
        return digests[rel]

    # 1. the index root: the set of files
    root_path = wiki / ROOT_FILE
    if not root_path.exists():
        report.add("root", ROOT_FILE, f"{ROOT_FILE}: index root missing (was this wiki compiled "
                   "with signing on?)")
    else:
        try:
            root = IndexStatement.model_validate_json(
                verify_bundle_bytes(root_path.read_bytes(), ROOT_FILE, trust))
        except VerifyError as exc:
            report.add("root", ROOT_FILE, str(exc))
        except ValidationError as exc:
            report.add("root", ROOT_FILE, f"{ROOT_FILE}: signed payload is not a Folio index "
                       f"root ({_first_error(exc)})")
        else:
            check_root(root, present, sha_of, report)

    # 2. each page against its own manifest
    statements: dict[str, PageStatement] = {}
    pages = sorted(rel for rel in present if rel.endswith(".md") and "/" in rel
                   and rel not in AGGREGATE_FILES)
    report.pages = len(pages)
    for rel in pages:
        page_id = rel.removesuffix(".md")
        bundle_rel = page_id + BUNDLE_SUFFIX
        if bundle_rel not in present:
            report.add("unsigned", rel, f"{rel}: no manifest {bundle_rel}")
            continue
        try:
            stmt = read_page_statement(present[bundle_rel], bundle_rel, trust)
        except VerifyError as exc:
            report.add("signature", bundle_rel, str(exc))
            continue
        subject = stmt.subject[0]
        if subject.name != rel:
            report.add("mismatch", bundle_rel, f"{bundle_rel}: manifest describes {subject.name}, "
                       f"not {rel} (manifests swapped or copied)")
            continue
        if subject.digest.get("sha256") != sha_of(rel):
            report.add("changed", rel, f"{rel}: sha256 {sha_of(rel)[:16]}… differs from its "
                       f"manifest {bundle_rel} ({subject.digest.get('sha256', '')[:16]}…)")
            continue
        statements[rel] = stmt
    for rel in sorted(r for r in present if r.endswith(BUNDLE_SUFFIX)):
        if rel.removesuffix(BUNDLE_SUFFIX) + ".md" not in present:
            report.add("unsigned", rel, f"{rel}: manifest of a page that is not there")

    # 3. drift of the sources the verified pages were compiled from
    if sources is not None:
        report.stale = source_drift(sources, statements)
        for s in report.stale:
            what = ", ".join(f"{c.key} {c.state}" for c in s.sources)
            report.add("stale", s.page, f"{s.page}: compiled from sources that have since "
                       f"changed: {what}")
    return report


def source_changes(deps: list[tuple[str, str, str]], now: SourcesNow) -> list[SourceChange]:
    """``deps`` are (key, version, sha256) as compiled."""
    changes = []
    for key, version, sha in deps:
        cur = now.get(key)
        if cur is None:
            changes.append(SourceChange(key=key, state="deleted", compiled_version=version,
                                        compiled_sha256=sha))
        elif cur[1] != sha:
            changes.append(SourceChange(key=key, state="changed", compiled_version=version,
                                        compiled_sha256=sha, current_version=cur[0],
                                        current_sha256=cur[1]))
    return changes


def source_drift(now: SourcesNow, statements: dict[str, PageStatement]) -> list[StalePage]:
    stale = []
    for rel in sorted(statements):
        # a filed answer's DBOM also names its cited claims (compiler/answer_pages.py): no
        # record of the corpus, its records are listed beside them
        deps = [(d.name, d.annotations.version, d.digest.get("sha256", ""))
                for d in statements[rel].predicate.build_definition.resolved_dependencies
                if not d.uri.startswith("folio:claim/")]
        changes = source_changes(deps, now)
        if changes:
            stale.append(StalePage(page=rel, sources=changes))
    return stale


def report_json(report: VerifyReport) -> str:
    data = report.model_dump(mode="json")
    data["ok"] = report.ok
    data["errors"] = report.errors
    return json.dumps(data, indent=2, sort_keys=True)


__all__ = ["Trust", "VerifyError", "trust_from", "verify_bundle_bytes",
           "verify_wiki", "source_drift", "report_json", "SigningError", "SourcesNow"]

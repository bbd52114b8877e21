"""Is what the compile state serves what the signed wiki says?

``query``, ``ask``, ``show``, ``export`` and ``audit`` answer from ``.folio/state.db`` (claims,
their statuses and ACLs, the principals of ``--as``, the authority policy), a file no signature
covers. Instead of signing the database (a 100k-record state is a gigabyte, rewritten in place
by every incremental compile), what it serves is checked against what *is* signed:

- every claim of a page: its digest (the sha256 of its JSON: value, quote, source version, ACL,
  authority) and its status must equal the entry for it in the page's DBOM, and the page's
  claims in the state must be exactly the DBOM's;
- the page's DBOM bundle must be the one the signed index root pins (through its bucket), so an
  older, validly signed DBOM cannot be swapped in with an older state;
- the page's entity (name, aliases) must equal the one in its sidecar, pinned by the root;
- the stored authority policy must have the digest every DBOM names;
- the principals and their groups must equal ``directory.json``, which the compile writes
  beside ``index.md`` and the root pins like any aggregate file.

``folio verify`` checks the whole state; serving commands check what they serve (the pages
whose claims they cite or show, and the directory), so a query costs a few signature checks,
not a scan of the wiki. A published central index is checked the same way: its state snapshot
is materialised into the cache beside the signed files it must agree with.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from ..canonical import canonical_json, sha256_hex
from ..models import Claim, Entity
from ..state import State
from ..state_claims import _FULL_JSON, _WITH_RECORD
from .index_root import (
    BUNDLE_SUFFIX, ROOT_FILE, SIDECAR_SUFFIX, IndexBucket, IndexStatement, bucket_file, bucket_of,
    is_bucket_file,
)
from .statement import PageStatement, claim_digest
from .verify import Trust, VerifyError, verify_bundle_bytes

DIRECTORY_FILE = "directory.json"
ANSWER_BUILD_TYPE = "https://folio.dev/dbom/answer-page/v1"  # compiler/answer_pages.py
# up to this many pages a serving command checks the whole state (~1 ms a page: a signature
# and a digest per claim); above it, the directory and every page it serves
FULL_CHECK_PAGES = 300
DIRECTORY_TYPE = "https://folio.dev/directory/v1"


def directory_bytes(principals: dict[str, list[str]], directory: dict | None = None) -> bytes:
    """``directory.json``: the principals ``--as`` may name, their groups and (``directory``,
    compiler/directory.py) their identities in each system, as canonical JSON."""
    doc: dict = {"_type": DIRECTORY_TYPE,
                 "principals": {n: sorted(set(g)) for n, g in sorted(principals.items())}}
    if directory is not None:
        doc["directory"] = directory
    return canonical_json(doc)


class StateMismatch(VerifyError):
    """The state serves something the signed wiki does not say."""


@dataclass
class StateCheck:
    """Checks of one wiki's state against its signed files; signatures and files read once."""

    wiki: Path
    state: State
    trust: Trust
    problems: list[str] = field(default_factory=list)
    _root: IndexStatement | None = None
    _root_error: str | None = None
    _root_digests: dict[str, str] | None = None
    _buckets: dict[str, dict[str, str] | None] = field(default_factory=dict)
    _pages: dict[str, PageStatement | None] = field(default_factory=dict)
    _checked: set[str] = field(default_factory=set)
    _policy_digest: str | None = None

    # -- signed side -----------------------------------------------------------------------
    def root(self) -> IndexStatement:
        if self._root_error is not None:
            raise StateMismatch(self._root_error)
        try:
            return self._load_root()
        except VerifyError as exc:
            self._root_error = str(exc)
            raise

    def _load_root(self) -> IndexStatement:
        if self._root is None:
            path = self.wiki / ROOT_FILE
            if not path.exists():
                raise StateMismatch(f"{ROOT_FILE}: index root missing: nothing vouches for "
                                    "this wiki (compile it with signing on)")
            try:
                self._root = IndexStatement.model_validate_json(
                    verify_bundle_bytes(path.read_bytes(), ROOT_FILE, self.trust))
            except ValidationError as exc:
                raise StateMismatch(f"{ROOT_FILE}: not a Folio index root "
                                    f"({exc.errors()[0]['msg']})") from exc
        return self._root

    def _pinned(self, rel: str) -> str | None:
        """sha256 the signed root (directly or through its bucket) pins for a wiki file."""
        if self._root_digests is None:
            self._root_digests = self.root().digests()
        pinned = self._root_digests
        if rel in pinned:
            return pinned[rel]
        name = bucket_file(bucket_of(rel))
        if name not in self._buckets:
            listed: dict[str, str] | None = None
            want = pinned.get(name)
            path = self.wiki / name
            if want and path.exists():
                data = path.read_bytes()
                if sha256_hex(data) == want and is_bucket_file(name):
                    try:
                        listed = IndexBucket.model_validate_json(data).digests()
                    except ValidationError:
                        listed = None
            self._buckets[name] = listed
        listed = self._buckets[name]
        return listed.get(rel) if listed else None

    def _signed_file(self, rel: str) -> bytes:
        want = self._pinned(rel)
        if want is None:
            raise StateMismatch(f"{rel}: not pinned by the signed index root")
        path = self.wiki / rel
        if not path.exists():
            raise StateMismatch(f"{rel}: pinned by the index root but missing")
        data = path.read_bytes()
        if sha256_hex(data) != want:
            raise StateMismatch(f"{rel}: differs from the signed index root")
        return data

    def page_statement(self, page: str) -> PageStatement | None:
        """The page's DBOM as the root pins and its signature proves (None: no such page)."""
        if page not in self._pages:
            rel = page + BUNDLE_SUFFIX
            if self._pinned(rel) is None:
                self._pages[page] = None
            else:
                payload = verify_bundle_bytes(self._signed_file(rel), rel, self.trust)
                try:
                    self._pages[page] = PageStatement.model_validate_json(payload)
                except ValidationError as exc:
                    raise StateMismatch(f"{rel}: not a Folio page DBOM "
                                        f"({exc.errors()[0]['msg']})") from exc
        return self._pages[page]

    # -- checks ----------------------------------------------------------------------------
    def _fail(self, message: str) -> None:
        self.problems.append(message)

    def _stored_policy_digest(self) -> str | None:
        if self._policy_digest is None:
            from ..views import stored_policy

            self._policy_digest = stored_policy(self.state).digest
        return self._policy_digest

    def check_pages(self, pages: Iterable[str]) -> None:
        """Claims (digest, status, set), entity and policy of each page against its DBOM."""
        todo = sorted(set(pages) - self._checked)
        self._checked.update(todo)
        if todo:
            try:
                self.root()
            except VerifyError as exc:
                if str(exc) not in self.problems:
                    self._fail(str(exc))
                return
        for page in todo:
            try:
                stmt = self.page_statement(page)
            except VerifyError as exc:
                self._fail(str(exc))
                continue
            rows = self.state.db.execute(
                f"SELECT c.id, {_FULL_JSON}, c.status FROM {_WITH_RECORD} WHERE c.subject=?",
                (page,)).fetchall()
            if stmt is None:
                if rows:
                    self._fail(f"state.db: {len(rows)} claims of {page}, a page the signed "
                               "wiki does not have")
                continue
            if stmt.predicate.build_definition.build_type == ANSWER_BUILD_TYPE:
                continue  # a filed answer: its page cites claims of other pages, none its own
            where = f"state.db: page {page}"
            signed = {e.id: e for e in stmt.predicate.folio.claims}
            seen: set[str] = set()
            for cid, js, status in rows:
                seen.add(cid)
                entry = signed.get(cid)
                if entry is None:
                    self._fail(f"{where}: claim {cid} is not in its signed DBOM")
                    continue
                want = entry.digest.get("sha256")
                # the stored JSON is the claim's serialisation byte for byte: its hash is the
                # digest; only a mismatch is parsed (a re-encoded but equal claim is no edit)
                digest = sha256_hex(js)
                if digest != want:
                    try:
                        digest = claim_digest(Claim.model_validate_json(js))
                    except ValidationError:
                        digest = ""
                if digest != want:
                    self._fail(f"{where}: claim {cid} ({entry.attribute}) differs from its signed "
                               "DBOM (value, source, authority or ACL edited)")
                if status != entry.status:
                    self._fail(f"{where}: claim {cid} ({entry.attribute}) has status {status}, "
                               f"its signed DBOM says {entry.status}")
            for cid in sorted(set(signed) - seen):
                self._fail(f"{where}: claim {cid} of its signed DBOM is missing from the state")
            want = stmt.predicate.build_definition.internal_parameters.authority_policy_digest
            if self._stored_policy_digest() != want:
                self._fail(f"state.db: the stored authority policy is not the one {page}'s "
                           "signed DBOM was compiled under")
            self._check_entity(page)

    def _check_entity(self, page: str) -> None:
        rel = page + SIDECAR_SUFFIX
        try:
            sidecar = json.loads(self._signed_file(rel))
            signed = Entity.model_validate(sidecar["entity"])
        except (VerifyError, ValueError, KeyError, TypeError) as exc:
            self._fail(f"{rel}: cannot check the page's name and aliases: {exc}")
            return
        if self.state.entity(page) != signed:
            self._fail(f"state.db: entity {page} (name, aliases) differs from its signed sidecar")

    def check_principals(self) -> None:
        try:
            self.root()
        except VerifyError as exc:
            self._fail(str(exc))
            return
        try:
            data = json.loads(self._signed_file(DIRECTORY_FILE))
            signed = {n: sorted(g) for n, g in data["principals"].items()}
        except (VerifyError, ValueError, KeyError, TypeError, AttributeError) as exc:
            self._fail(f"{DIRECTORY_FILE}: cannot check the principals: {exc}")
            return
        stored = {n: sorted(json.loads(g)) for n, g in
                  self.state.db.execute("SELECT name, groups_json FROM principals")}
        if "directory" in data:
            # identities and groups as `--as` resolves them (the state's meta "directory")
            raw = self.state.meta("directory")
            try:
                served = canonical_json(json.loads(raw)) if raw else b""
            except ValueError:
                served = b""
            if served != canonical_json(data["directory"]):
                self._fail("state.db: the directory (principals, groups, identities) differs "
                           f"from the signed {DIRECTORY_FILE}")
        for name in sorted(signed.keys() | stored.keys()):
            if signed.get(name) != stored.get(name):
                self._fail(f"state.db: principal {name!r} has groups {stored.get(name)}, the "
                           f"signed {DIRECTORY_FILE} says {signed.get(name)}")

    def check_all(self) -> None:
        """Everything the state can serve: every page it has or the root lists, every
        claim's page, the principals."""
        self.check_principals()
        pages = {r[0] for r in self.state.db.execute("SELECT entity_id FROM pages")}
        pages |= {r[0] for r in self.state.db.execute("SELECT DISTINCT subject FROM claims")}
        try:
            root = self.root()
        except VerifyError as exc:
            self._fail(str(exc))
            return
        for name in root.digests():
            if not is_bucket_file(name):
                continue
            try:
                data = IndexBucket.model_validate_json(self._signed_file(name)).digests()
            except (VerifyError, ValidationError) as exc:
                self._fail(f"{name}: cannot list the signed pages: {exc}")
                continue
            pages |= {rel.removesuffix(BUNDLE_SUFFIX) for rel in data
                      if rel.endswith(BUNDLE_SUFFIX)}
        self.check_pages(pages)
        listed = {r[0] for r in self.state.db.execute("SELECT entity_id FROM pages")}
        for page in sorted(pages - listed):
            if self._pages.get(page) is not None:
                self._fail(f"state.db: page {page} of the signed wiki is missing from the state")

    def raise_if_failed(self) -> None:
        if self.problems:
            shown = "; ".join(self.problems[:5])
            more = f" (and {len(self.problems) - 5} more)" if len(self.problems) > 5 else ""
            raise StateMismatch(
                f"{self.wiki}/.folio/state.db does not match the signed wiki: {shown}{more}. "
                "Refusing to serve from it: recompile (folio compile … --full) or restore the "
                "wiki, then run folio verify")


def check_served(wiki: Path, state: State, trust: Trust, pages: Iterable[str],
                 check: StateCheck | None = None) -> None:
    """Raise :class:`StateMismatch` unless the directory and the given pages (every page, for
    a wiki of at most :data:`FULL_CHECK_PAGES`) in the state match the signed wiki."""
    check = check or StateCheck(wiki, state, trust)
    check.check_principals()
    if state.page_count() <= FULL_CHECK_PAGES:
        check.check_all()
    else:
        check.check_pages(pages)
    check.raise_if_failed()


__all__ = ["DIRECTORY_FILE", "StateCheck", "StateMismatch", "check_served", "directory_bytes"]

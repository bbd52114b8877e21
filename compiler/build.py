"""The compile: corpus folder in, wiki folder out, incrementally.

I/O lives here; every decision is made by the pure modules (connectors, extract, linking,
resolve, render). Order of work, and why:

1. scan files (stat, then hash when the stat is not trustworthy) → changed files only;
2. parse changed files → records whose content hash changed, records that disappeared;
3. extract only those (cached by backend digest and record hash);
4. update the entity registry; if names changed, find records that mention them (FTS);
5. relink the affected records; pages whose claim set changed become dirty;
6. re-render dirty pages, write only those whose bytes changed, remove unsupported ones;
7. index.md, log.md, SCHEMA.md; commit the state last, so a crash means "redo", never "half".
"""

from __future__ import annotations

import fcntl
import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

import yaml

from connectors.base import RecordError
from connectors.loader import discover, load_manifest, read_input
from connectors.registry import get_connector

from . import __version__
from .atomic import remove_if_exists, write_atomic
from .canonical import content_id, sha256_hex
from .extract import Extraction, ExtractionFailed, get_backend
from .linking import link_record
from .models import SCHEMA_VERSION, SourceRecord
from .policy import AuthorityPolicy, load_policy
from .registry import NameIndex, declaration_for, merge_entity
from .render import render_index, render_log, render_page, sidecar_bytes
from .resolve import resolve
from .schema_page import render_schema
from .settings import FolioSettings
from .state import State

STATE_DIR = ".folio"
_PAGE_ID = re.compile(r"^[a-z0-9-]{1,32}/[a-z0-9-]{1,100}$")
_RACY_NS = 2_000_000_000  # a file modified this close to the last scan is re-hashed


class CompileError(RuntimeError):
    """The compile could not run at all (bad manifest or policy, wiki locked)."""


class Progress:
    """No-op progress sink; the CLI passes one that draws bars."""

    def phase(self, name: str, total: int) -> None: ...

    def advance(self, n: int = 1) -> None: ...


@dataclass
class CompileReport:
    full_rebuild: bool = False
    files_seen: int = 0
    files_changed: int = 0
    records_seen: int = 0
    records_extracted: int = 0
    records_removed: int = 0
    records_relinked: int = 0
    pages_rendered: int = 0
    pages_written: int = 0
    pages_removed: int = 0
    pages_total: int = 0
    claims_total: int = 0
    conflicts_resolved: int = 0
    conflicts_open: int = 0
    seconds: float = 0.0
    errors: list[RecordError] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    # LLM backend: model output rejected by validation (records extracted this run), and
    # what this run's calls cost; both stay empty offline
    claims_rejected: int = 0
    rejected_by_reason: dict[str, int] = field(default_factory=dict)
    llm: dict[str, float | int] = field(default_factory=dict)

    @property
    def rejected(self) -> int:
        return len(self.errors)


@contextmanager
def _locked(folio_dir: Path) -> Iterator[None]:
    folio_dir.mkdir(parents=True, exist_ok=True)
    with open(folio_dir / "lock", "w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise CompileError(f"{folio_dir.parent}: another compile is running") from exc
        yield


def load_directory(path: Path) -> dict[str, list[str]]:
    """``directory.yaml``: ``users: {alice: {groups: [staff]}}`` → name → groups."""
    if not path.exists():
        return {}
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        users = raw.get("users", {}) or {}
        return {str(n): [str(g) for g in (u or {}).get("groups", [])] for n, u in users.items()}
    except (OSError, yaml.YAMLError, AttributeError, TypeError) as exc:
        raise CompileError(f"{path}: invalid directory (users → groups): {exc}") from exc


def _fts_text(r: SourceRecord) -> str:
    parts = [r.title, r.entity_name, *r.aliases, r.body]
    parts += [str(v) for v in r.fields.values() if v is not None]
    parts += [ref.target_name for ref in r.references]
    return "\n".join(parts)


class _Compile:
    def __init__(self, src: Path, out: Path, settings: FolioSettings, progress: Progress,
                 today: str) -> None:
        self.src, self.out, self.settings, self.progress, self.today = (
            src, out, settings, progress, today)
        self.report = CompileReport()
        try:
            self.manifest = load_manifest(src)
            self.policy: AuthorityPolicy = load_policy(src / "authority.yaml")
        except ValueError as exc:
            raise CompileError(str(exc)) from exc
        self.principals = load_directory(src / "directory.yaml")
        self.backend = get_backend(settings.backend, settings, out / STATE_DIR)
        self.state = State(out / STATE_DIR / "state.db")
        self.pending_path = out / STATE_DIR / "pending.json"
        self._in_memory = False
        self._claims_by_subject: dict[str, list] = {}
        self._backlinks: dict[str, set[str]] = {}
        self._synthesis: dict[str, list] = {}

    def tiebreak_of(self, rule: str) -> str:
        return self.policy.rule_named(rule).tiebreak

    # -- 1 and 2: scan and parse ------------------------------------------------------------
    def _scan(self) -> tuple[dict[str, SourceRecord], dict[str, str], set[str], set[str]]:
        """Parsed records of changed files, their files, the files re-read, all files."""
        st = self.state
        files, errors = discover(self.src, self.manifest)
        self.report.errors.extend(errors)
        self.report.files_seen = len(files)
        prev = st.files()
        now_ns = time.time_ns()
        changed: list[tuple] = []
        reread: set[str] = set()
        for f in files:
            try:
                stat = f.path.stat()
            except OSError as exc:
                self.report.errors.append(RecordError(path=f.rel, message=f"cannot read: {exc}"))
                reread.add(f.rel)
                continue
            old = prev.get(f.rel)
            if (old and old[0] == stat.st_size and old[1] == stat.st_mtime_ns
                    and stat.st_mtime_ns < old[3] - _RACY_NS):
                continue
            data = read_input(f, self.settings.max_file_bytes)
            if isinstance(data, RecordError):
                self.report.errors.append(data)
                st.drop_file(f.rel)
                reread.add(f.rel)
                continue
            sha = sha256_hex(data)
            if old and old[2] == sha:
                st.put_file(f.rel, stat.st_size, stat.st_mtime_ns, sha, now_ns)
                continue
            changed.append((f, data, stat, sha))
            reread.add(f.rel)
        all_rels = {f.rel for f in files}
        gone = set(prev) - all_rels
        for rel in gone:
            st.drop_file(rel)
        reread |= gone
        self.report.files_changed = len(changed) + len(gone)
        unchanged = all_rels - reread
        self.report.errors.extend(
            RecordError.model_validate_json(e) for e in st.file_errors(unchanged))

        parsed: dict[str, SourceRecord] = {}
        owner: dict[str, str] = {}
        self.progress.phase("read", len(changed))
        for f, data, stat, sha in changed:
            connector = get_connector(f.source.system)
            file_errors: list[RecordError] = []
            for item in connector.parse(f.rel, data, f.source, self.manifest.tenant):
                if isinstance(item, RecordError):
                    file_errors.append(item)
                    continue
                other = owner.get(item.key) or st.record_file(item.key)
                if other is not None and other != f.rel and other not in reread | {f.rel}:
                    file_errors.append(RecordError(
                        path=f.rel, record=item.id,
                        message=f"duplicate record key {item.key} (already read from {other})"))
                    continue
                if item.key in owner:
                    file_errors.append(RecordError(
                        path=f.rel, record=item.id,
                        message=f"duplicate record key {item.key} (already read from "
                                f"{owner[item.key]})"))
                    continue
                parsed[item.key] = item
                owner[item.key] = f.rel
            self.report.errors.extend(file_errors)
            st.put_file(f.rel, stat.st_size, stat.st_mtime_ns, sha, now_ns)
            st.set_file_errors(f.rel, [e.model_dump_json() for e in file_errors])
            self.progress.advance()
        return parsed, owner, reread, all_rels

    # -- the whole compile ------------------------------------------------------------------
    def run(self, full: bool) -> CompileReport:
        t0 = time.perf_counter()
        st = self.state
        config = content_id(self.policy.digest, self.backend.digest, SCHEMA_VERSION, __version__,
                            self.manifest.model_dump(mode="json"))
        st.begin()
        try:
            dirty: set[str] = set(self._pending())
            if full or st.meta("config") != config:
                full = True
                dirty |= set(st.page_ids())
                st.reset_inputs()
            self.report.full_rebuild = full
            st.set_principals(self.principals)

            parsed, owner, reread, _ = self._scan()
            before = st.record_keys_of_files(reread)
            removed = set(before) - set(parsed)
            changed = sorted(k for k, r in parsed.items() if st.record_sha(k) != r.sha256)
            for k, r in parsed.items():
                if k not in changed:
                    st.set_record_file(k, owner[k])
            self.report.records_removed = len(removed)

            extractions = self._extract(parsed, changed)
            decl_changed, name_keys = self._register(parsed, changed, removed)

            total = st.record_count()
            if full or len(changed) + len(removed) > self.settings.full_relink_ratio * max(total, 1):
                relink = set(st.all_record_keys())
                lookup = NameIndex(st.all_declarations())
            else:
                relink = set(changed)
                for key in name_keys:
                    relink |= st.records_mentioning(key)
                relink -= removed
                lookup = lru_cache(maxsize=200_000)(st.lookup_name)
            dirty |= self._link(parsed, extractions, relink, removed, lookup, full)
            for eid in decl_changed:
                dirty.add(eid)
                dirty |= st.mention_targets_of_subject(eid)

            self._synthesize(dirty)  # LLM calls end here, before anything is written
            self._write_pending(dirty)
            self._render(dirty)
            self._aggregate()
            self.report.records_seen = st.record_count()
            st.set_meta("config", config)
            st.set_meta("policy", self.policy.model_dump_json())
            st.set_meta("backend", json.dumps(self.backend.describe(), sort_keys=True))
            st.commit()
        except BaseException:
            st.rollback()
            raise
        finally:
            st.close()
            if hasattr(self.backend, "usage"):
                self.report.llm = self.backend.usage()
        remove_if_exists(self.pending_path)
        self.report.seconds = time.perf_counter() - t0
        return self.report

    # -- 3: extract -------------------------------------------------------------------------
    def _extract(self, parsed: dict[str, SourceRecord], changed: list[str]) -> dict[str, Extraction]:
        st, digest = self.state, self.backend.digest
        out: dict[str, Extraction] = {}
        prefetch = getattr(self.backend, "prefetch", None)
        if prefetch is not None:  # LLM backends make all their calls up front, concurrently
            prefetch([parsed[k] for k in changed
                      if st.cached_extraction(digest, parsed[k].sha256) is None])
        self.progress.phase("extract", len(changed))
        for key in changed:
            r = parsed[key]
            cached = st.cached_extraction(digest, r.sha256)
            if cached is not None:
                ex = Extraction.model_validate_json(cached)
                ex_json = cached
            else:
                ex = self.backend.extract(r)
                ex_json = ex.model_dump_json()
                st.cache_extraction(digest, r.sha256, ex_json)
            out[key] = ex
            for reason, n in ex.rejected.items():
                self.report.rejected_by_reason[reason] = (
                    self.report.rejected_by_reason.get(reason, 0) + n)
                self.report.claims_rejected += n
            tier = self.policy.freshness_tier(r)
            st.put_record(key, r.origin.split("#")[0] if r.origin else "", r.sha256, r.version,
                          declaration_for(r, 0).entity_id,
                          r.model_dump_json(exclude={"key", "sha256"}), ex_json,
                          tier.name, tier.max_age_days, _fts_text(r))
            self.progress.advance()
        self.report.records_extracted = len(changed)
        return out

    # -- 4: registry ------------------------------------------------------------------------
    def _register(self, parsed: dict[str, SourceRecord], changed: list[str],
                  removed: set[str]) -> tuple[set[str], set[str]]:
        """Update declarations; return entities whose identity changed and name keys that
        may now resolve differently."""
        st = self.state
        old = st.declarations_of_records([*changed, *removed])
        affected = {d.entity_id for d in old.values()}
        for key in removed:
            st.drop_record(key)
            st.drop_declaration(key)
        for key in changed:
            r = parsed[key]
            d = declaration_for(r, self.policy.authority(r).rank)
            st.put_declaration(d)
            affected.add(d.entity_id)
        entity_changed: set[str] = set()
        name_keys: set[str] = set()
        for eid in sorted(affected):
            decls = st.declarations_of_entity(eid)
            entity = merge_entity(eid, decls) if decls else None
            new_json = entity.model_dump_json() if entity else None
            if new_json == st.entity_json(eid):
                continue
            entity_changed.add(eid)
            name_keys |= st.name_keys_of_entity(eid)
            st.set_names(eid, decls)
            name_keys |= st.name_keys_of_entity(eid)
            st.put_entity(entity, eid)
        return entity_changed, name_keys

    # -- 5: link ----------------------------------------------------------------------------
    def _link(self, parsed: dict[str, SourceRecord], extractions: dict[str, Extraction],
              relink: set[str], removed: set[str], lookup: Callable, full: bool) -> set[str]:
        st = self.state
        dirty: set[str] = set()
        for key in removed:
            _, touched = st.claim_touch_set(key)
            dirty |= touched
            st.drop_claims_of(key)
        stored = {k: (rj, ej) for k, rj, ej in st.load_records(relink - set(extractions))}
        self.progress.phase("link", len(relink))
        for key in sorted(relink):
            if key in extractions:
                record, extraction = parsed[key], extractions[key]
            else:
                rj, ej = stored[key]
                record = SourceRecord.model_validate_json(rj)
                extraction = Extraction.model_validate_json(ej)
            claims = link_record(record, extraction, lookup, self.policy.authority(record))
            old, touched = (set(), set()) if full else st.claim_touch_set(key)
            if full or {c.model_dump_json() for c in claims} != old:
                dirty |= touched
                dirty |= {c.subject for c in claims}
                dirty |= {m.entity for c in claims for m in c.mentions}
                st.drop_claims_of(key)
                st.put_claims(key, claims)
            if full:
                # a full build renders every page: keep what it needs in memory rather than
                # reading every claim back from the database
                for c in claims:
                    self._claims_by_subject.setdefault(c.subject, []).append(c)
                    for m in c.mentions:
                        if m.entity != c.subject:
                            self._backlinks.setdefault(m.entity, set()).add(c.subject)
            self.progress.advance()
        self.report.records_relinked = len(relink)
        self._in_memory = full
        return dirty

    # -- 6: render --------------------------------------------------------------------------
    def _page_paths(self, eid: str) -> tuple[Path, Path]:
        if not _PAGE_ID.match(eid):
            raise CompileError(f"refusing unsafe page name {eid!r}")
        return self.out / f"{eid}.md", self.out / f"{eid}.claims.json"

    def _render(self, dirty: set[str]) -> None:
        st = self.state
        self.progress.phase("render", len(dirty))
        for eid in sorted(dirty):
            self.progress.advance()
            md_path, sc_path = self._page_paths(eid)
            entity = st.entity(eid)
            if entity is None:
                claims = []
            elif self._in_memory:
                claims = self._claims_by_subject.get(eid, [])
            else:
                claims = st.claims_of_subject(eid)
            prev = st.page(eid)
            if entity is None or not claims:
                if prev is not None or md_path.exists():
                    remove_if_exists(md_path)
                    remove_if_exists(sc_path)
                    st.drop_page(eid)
                    self.report.pages_removed += 1
                    self.report.removed.append(eid)
                continue
            status, conflicts = resolve(claims, self.tiebreak_of)
            linking = (sorted(self._backlinks.get(eid, ())) if self._in_memory
                       else st.backlinks(eid))
            names = st.entity_names(linking)
            backlinks = sorted(names.items(), key=lambda kv: (kv[1].lower(), kv[0]))
            markdown, sidecar, summary = render_page(entity, claims, status, conflicts, backlinks,
                                                     synthesis=self._synthesis.get(eid))
            md_bytes, sc_bytes = markdown.encode("utf-8"), sidecar_bytes(sidecar)
            sha, sc_sha = sha256_hex(md_bytes), sha256_hex(sc_bytes)
            self.report.pages_rendered += 1
            if prev is None or prev[1] != sha or prev[2] != sc_sha or not md_path.exists():
                write_atomic(md_path, md_bytes)
                write_atomic(sc_path, sc_bytes)
                self.report.pages_written += 1
                self.report.written.append(eid)
            st.put_page(eid, f"{eid}.md", sha, sc_sha, entity.type, entity.name, summary)
            st.set_statuses(status)
            st.set_conflicts(eid, conflicts)
            st.index_claims(eid, " ".join((entity.name, *entity.aliases)), claims)

    # -- 6a: LLM page synthesis (optional) --------------------------------------------------
    def _synthesize(self, dirty: set[str]) -> None:
        """Overviews of dirty pages from their winning claims, made before any page is written
        so that a budget stop leaves the wiki untouched."""
        synthesizer = getattr(self.backend, "synthesizer", None)
        if synthesizer is None:
            return
        st, pages = self.state, []
        for eid in sorted(dirty):
            entity = st.entity(eid)
            if entity is None:
                continue
            claims = (self._claims_by_subject.get(eid, []) if self._in_memory
                      else st.claims_of_subject(eid))
            status, _ = resolve(claims, self.tiebreak_of)
            winners = [c for c in claims if status.get(c.id) == "winner"]
            if winners:
                pages.append((entity, winners))
        self._synthesis = {eid: [(s.text, s.claims) for s in sentences]
                           for eid, sentences in synthesizer.synthesize(pages).items()}

    # -- 7: aggregate files -----------------------------------------------------------------
    def _aggregate(self) -> None:
        st, r = self.state, self.report
        changed = bool(r.pages_written or r.pages_removed)
        index_path = self.out / "index.md"
        if changed or not index_path.exists():
            write_atomic(index_path, render_index(st.index_rows()).encode("utf-8"))
        schema = render_schema(self.policy).encode("utf-8")
        schema_path = self.out / "SCHEMA.md"
        if not schema_path.exists() or schema_path.read_bytes() != schema:
            write_atomic(schema_path, schema)
        if changed or r.records_extracted or r.records_removed:
            title = (f"{r.records_extracted} records re-extracted, {r.records_removed} removed; "
                     f"{r.pages_written} pages written, {r.pages_removed} removed")
            body = "\n".join(
                [f"- updated [[{p}]]" for p in r.written[:50]]
                + [f"- removed `{p}` (no remaining support)" for p in r.removed[:50]]
                + ([f"- … and {len(r.written) + len(r.removed) - 100} more"]
                   if len(r.written) + len(r.removed) > 100 else []))
            st.append_log(self.today, "compile", title, body)
        log_path = self.out / "log.md"
        log = render_log(st.log_entries()).encode("utf-8")
        if not log_path.exists() or log_path.read_bytes() != log:
            write_atomic(log_path, log)
        r.pages_total = st.page_count()
        r.claims_total = st.claim_count()
        r.conflicts_resolved, r.conflicts_open = st.conflict_counts()

    # -- crash recovery ---------------------------------------------------------------------
    def _pending(self) -> list[str]:
        try:
            return list(json.loads(self.pending_path.read_text()))
        except (FileNotFoundError, ValueError):
            return []

    def _write_pending(self, dirty: set[str]) -> None:
        """Pages a crash could leave half-updated; the next run re-renders them."""
        previous = set(self._pending())
        write_atomic(self.pending_path, json.dumps(sorted(dirty | previous)).encode(), durable=True)


def compile_wiki(
    src: Path,
    out: Path,
    settings: FolioSettings | None = None,
    *,
    full: bool = False,
    progress: Progress | None = None,
    today: str | None = None,
) -> CompileReport:
    """Compile the corpus at ``src`` into the wiki at ``out`` (incrementally if it exists)."""
    settings = settings or FolioSettings()
    today = today or datetime.now(UTC).date().isoformat()
    if not src.is_dir():
        raise CompileError(f"{src}: corpus folder not found")
    out.mkdir(parents=True, exist_ok=True)
    with _locked(out / STATE_DIR):
        try:
            return _Compile(src, out, settings, progress or Progress(), today).run(full)
        except ExtractionFailed as exc:  # model down or budget spent: already rolled back
            raise CompileError(str(exc)) from exc


def wiki_state(wiki: Path) -> State:
    """Open a compiled wiki's state read-only (query, show, lint, export)."""
    return State(wiki / STATE_DIR / "state.db", readonly=True)


__all__ = ["CompileError", "CompileReport", "Progress", "compile_wiki", "wiki_state"]

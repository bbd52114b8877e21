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
import os
import re
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar


from connectors.base import RecordError
from connectors.loader import corpus_identity, discover, load_manifest, read_input

from . import __version__
from .okf import OKF_VERSION
from .atomic import remove_if_exists, write_atomic
from .canonical import content_id, sha256_hex
from .compile_context import CompileError
from .directory import DirectoryError, load_directory
from .extract import Extraction, ExtractionFailed, get_backend
from .models import SCHEMA_VERSION, Entity, SourceRecord
from .policy import AuthorityPolicy, load_policy
from .provenance.state_check import DIRECTORY_FILE, directory_bytes
from .registry import Declaration, NameIndex, StoredNameLookup, merge_entity
from .render import assemble_index, index_entry, log_title, patch_index, render_log
from .provenance.attest import SigningPlan, attest_compile, plan_signing
from .provenance.bundle_watch import remember_folders
from .provenance.index_root import bundle_name
from .resolve import resolve
from .schema import SchemaError, load_schema
from .schema import digest as schema_digest
from .schema_page import render_schema
from .staging import (
    Generation, apply_committed, generation_lock, recover, sweep_temp_files,
)
from .settings import FolioSettings
from .state import State
from .steps import ClaimRow, PageJob, RecordRow, RenderedPage, parse_file
from .steps import link as link_step
from .steps import claims_differ, input_digest
from .steps import reextract as reextract_step
from .steps import render as render_step
from .wiki_owner import (FolderGuardError, foreign_page_files, foreign_pages_error, guard,
                         remember_corpus)
from .workers import Runner, step_runner, worker_count

STATE_DIR = ".folio"
_PAGE_ID = re.compile(r"^[a-z0-9-]{1,32}/[a-z0-9-]{1,100}$")
_RACY_NS = 2_000_000_000  # a file modified this close to the last scan is re-hashed
_INDEX_PATCH_MAX = 50  # index.md lines replaced in place; more are cheaper re-assembled
_WAVE = 1_000  # records or pages read from / written to the state per batch
_BYTES_PER_RECORD = 1_500  # rough size of one exported record, to size the worker pool
_REMEMBERED_COST = 8  # a remembered payload object costs at most 1/8 of a record to parse
# what stored claims look like; a state whose claims were stored otherwise is rebuilt
# (schema-1: claims carry qualifiers, mapped, value type, normalised value, own time)
_CLAIM_LAYOUT = "schema-1"

T = TypeVar("T")


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
    # record keys whose content changed (re-extracted) or that disappeared: what a site must
    # ship to the central compile
    changed_keys: list[str] = field(default_factory=list)
    removed_keys: list[str] = field(default_factory=list)
    # the schema (base + schema.yaml) differs from the last compile's: every record was
    # relinked (and, where extraction uses it, re-extracted); only pages whose claims
    # changed were rendered, every page's DBOM re-signed with the new schema digest
    schema_changed: bool = False
    records_reextracted: int = 0  # unchanged records whose extracted claims changed

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


class _Compile:
    def __init__(self, src: Path, out: Path, settings: FolioSettings, progress: Progress,
                 today: str) -> None:
        self.src, self.out, self.settings, self.progress, self.today = (
            src, out, settings, progress, today)
        self.report = CompileReport()
        try:
            self.manifest = load_manifest(src)
            self.policy: AuthorityPolicy = load_policy(src / "authority.yaml")
            self.schema = load_schema(src)
        except (ValueError, SchemaError) as exc:
            raise CompileError(str(exc)) from exc
        self.schema_digest = schema_digest(self.schema)
        try:
            self.directory = load_directory(src / "directory.yaml")
        except DirectoryError as exc:
            raise CompileError(str(exc)) from exc
        self.backend = get_backend(settings.backend, settings, out / STATE_DIR, self.schema)
        self.state = State(out / STATE_DIR / "state.db")
        self.pending_path = out / STATE_DIR / "pending.json"
        self.workers = worker_count(settings.workers)
        self._synthesis: dict[str, list] = {}
        self._signed: dict[str, str] = {}  # page id → sha256 of the bundle the render wrote
        # index.md lists every page: re-rendered only when a line of it can have changed
        self._index_changed = False
        # lines of index.md that changed in place (page kept its type and title): (old, new)
        self._index_edits: list[tuple[str, str]] = []
        # sha256 of the aggregate files as this compile wrote or found them, for the index root
        self._aggregates: dict[str, str] = {}
        # every file this compile writes or removes, staged until it commits (staging.py)
        self.files = Generation(out)
        self._out_str = os.fspath(out)
        # page folders whose mtime to note once applied (bundle_watch); None: not signed
        self.remember_folders: set[str] | None = None
        self._created: set[str] = set()  # pages that had no file before this compile
        # pages whose claim rows were stored again (statuses reset): never skipped unrendered
        self._restored: set[str] = set()
        self.induction = None  # what schema induction mapped (compiler/schema/induce.py)

    def tiebreak_of(self, rule: str) -> str:
        return self.policy.rule_named(rule).tiebreak

    # -- the whole compile ------------------------------------------------------------------
    def run(self, full: bool, extract_only: bool = False) -> CompileReport:
        t0 = time.perf_counter()
        st = self.state
        # the backend's rules without the schema: a schema edit is not a full rebuild, it
        # re-extracts and relinks, and only pages whose claims changed are rendered again;
        # the page format (OKF_VERSION) is part of it: a wiki written in another form is rebuilt
        engine = getattr(self.backend, "engine_digest", self.backend.digest)
        config = content_id(self.policy.digest, engine, SCHEMA_VERSION, __version__, OKF_VERSION,
                            self.manifest.model_dump(mode="json"), _CLAIM_LAYOUT)
        st.begin()
        committed = False
        try:
            crashed = self.pending_path.exists()
            dirty: set[str] = set(self._pending())
            if full or st.meta("config") != config:
                full = True
                dirty |= set(st.page_ids())
                st.reset_inputs()
            self.report.full_rebuild = full
            self.report.schema_changed = not full and st.meta("schema_digest") != self.schema_digest
            if full or crashed:  # temp files of a killed writer (older Folio) go now
                sweep_temp_files(self.out)
            st.set_principals(self.directory.groups_by_user())
            st.set_meta("directory", self.directory.to_json())  # identities: compiler/directory.py

            changed_files, reread = self._scan()
            held = st.record_index_of_files(reread)
            before = {key: sha for key, (sha, _) in held.items()}
            changed, seen, decls = self._read(changed_files, reread, before, held)
            del held
            del changed_files  # the corpus's bytes: not to be carried into the workers
            removed = set(before) - seen
            # what follows holds one entry per record at most once: at 1M records each of
            # these (keys read, declarations, keys to relink) is 100-300 MB, which every
            # worker forked later would map too
            del seen, before
            if not full and st.meta("extract_digest") != self.backend.digest:
                self._reextract(set(changed) | removed)
            self.report.records_removed = len(removed)
            self.report.changed_keys, self.report.removed_keys = changed, sorted(removed)
            if extract_only:
                self._finish_extract_only(removed, config)
                self.report.seconds = time.perf_counter() - t0
                return self.report
            decl_changed, name_keys = self._register(decls, removed)
            del decls
            self._induce_schema(changed, removed, full)

            total = st.record_count()
            if (full or self.report.schema_changed
                    or len(changed) + len(removed) > self.settings.full_relink_ratio * max(total, 1)):
                relink = st.all_record_keys()
            else:
                wanted = set(changed)
                for key in name_keys:
                    wanted |= st.records_mentioning(key)
                relink = sorted(wanted - removed)
            # built inline so that it is freed once linked, before the render workers fork
            dirty |= self._link(relink, removed, self._name_lookup(len(relink)), full)
            del relink
            for eid in decl_changed:
                dirty.add(eid)
                dirty |= st.mention_targets_of_subject(eid)
            del decl_changed, name_keys

            if not st.first_build:  # a first compile's folder was checked by guard()
                self._refuse_foreign_pages(dirty)
            self._synthesize(dirty)  # LLM calls end here, before anything is written
            self._write_pending(dirty)
            signing = plan_signing(self, t0)  # provenance: compiler/provenance, docs/provenance.md
            self._render(dirty - self._answer_pages(), signing)
            self._file_answers(signing)
            self._aggregate()
            attest_compile(self, signing, self._signed, self._aggregates)
            self.report.records_seen = st.record_count()
            st.set_meta("config", config)
            st.set_meta("policy", self.policy.model_dump_json())
            st.set_meta("backend", json.dumps(self.backend.describe(), sort_keys=True))
            self._set_schema_meta()
            # the commit point of the new generation: journal and state in one transaction;
            # then the journal is applied (staging.py)
            with generation_lock(self.out, exclusive=True):
                self.files.journal(st.db)
                st.commit()
                committed = True
                apply_committed(self.out, st.db)
            if self.remember_folders is not None:  # their mtimes as the moves left them
                remember_folders(st, self.out, self.remember_folders)
        except BaseException:
            if not committed:
                st.rollback()
                self.files.discard()
            raise
        finally:
            st.close()
            if hasattr(self.backend, "usage"):
                self.report.llm = self.backend.usage()
        remove_if_exists(self.pending_path)
        self.report.seconds = time.perf_counter() - t0
        return self.report

    def _finish_extract_only(self, removed: set[str], config: str) -> None:
        """A site's compile: records are read and extracted, nothing is linked or rendered
        (the central compile does that for every site at once)."""
        st = self.state
        for key in removed:
            st.drop_record(key)
        self.report.records_seen = st.record_count()
        st.set_meta("config", config)
        st.set_meta("backend", json.dumps(self.backend.describe(), sort_keys=True))
        st.set_meta("extract_digest", self.backend.digest)
        st.commit()
        self.files.discard()

    def _induce_schema(self, changed: list[str], removed: set[str], full: bool) -> None:
        """Schema induction (compiler/schema/induce.py): fields the schema leaves unmapped
        that the corpus's own records show to be one attribute are mapped for linking. A
        function of the schema and every stored record's fields (kept as small rows beside
        the records, compiler/schema/induce_store.py), recomputed when a record changed and
        reused otherwise; when the induced schema's digest differs from the last compile's,
        every record is relinked (as for a schema.yaml edit)."""
        from .schema import induce_store
        from .schema.induce import Induction, apply, induce
        from .schema.loader import digest as _digest

        st = self.state
        declared = self.schema_digest
        # what the stored induction was computed under: the schema, and induction on or off
        basis = (f"{declared}:{'on' if self.settings.schema_induction else 'off'}"
                 f":{self.settings.schema_induction_sample}")
        stored = st.meta("induced")
        rows_version = st.meta("induce_fields")
        # a schema edit re-extracts unchanged records (their prose facts may differ): all rows
        rebuild = full or (st.meta("induced_basis") or basis) != basis
        new_rows, touched = induce_store.refresh(st.db, rows_version, changed, removed, rebuild)
        st.set_meta("induce_fields", new_rows)
        unchanged = not touched
        if not self.settings.schema_induction:
            induction = Induction()
        elif unchanged and stored and st.meta("induced_basis") == basis:
            induction = Induction.from_json(stored)
        else:
            induction = induce(self.schema, induce_store.inputs(
                st.db, self.settings.schema_induction_sample))
        st.set_meta("induced", induction.to_json())
        st.set_meta("induced_basis", basis)
        self.induction = induction
        if not induction.empty:
            self.schema = apply(self.schema, induction)
            self.schema_digest = _digest(self.schema)
        self.report.schema_changed = (not self.report.full_rebuild
                                      and st.meta("schema_digest") != self.schema_digest)

    def _set_schema_meta(self) -> None:
        st = self.state
        st.set_meta("schema_digest", self.schema_digest)
        st.set_meta("schema_version", self.schema.version)
        st.set_meta("extract_digest", self.backend.digest)

    def _reextract(self, skip: set[str]) -> None:
        """The backend's output changed for unchanged records (the schema it maps through was
        edited): extract every stored record again and keep the new extraction where it
        differs; the relink then finds exactly the claims that changed. Records extracted
        elsewhere (a site's claim set: their stored digest is not their content's) keep the
        site's extraction; linking maps their fields through the schema."""
        st, backend = self.state, self.backend
        keys = [k for k in st.all_record_keys() if k not in skip]
        self.progress.phase("re-extract", len(keys))
        # pure, cheap backends in the worker processes; others here, through their cache
        pure = getattr(backend, "fork_safe", False)
        with step_runner(self.workers if pure else 1, len(keys),
                         self.settings.parallel_min_items, {"backend": backend},
                         self.state.release_memory) as run:
            for wave in _waves(keys):
                rows = sorted(st.load_records(wave))
                results = (list(run(reextract_step, rows)) if pure
                           else [self._reextract_cached(row) for row in rows])
                st.set_extractions([(key, new) for key, new, _ in results if new is not None])
                self.report.records_reextracted += sum(changed for _, _, changed in results)
                self.progress.advance(len(wave))

    def _reextract_cached(self, row: tuple[str, str, str, str]) -> tuple[str, str | None, bool]:
        st, backend = self.state, self.backend
        key, record_json, old, sha = row
        record = SourceRecord.model_validate_json(record_json)
        if record.sha256 != sha:
            return key, None, False
        new = st.cached_extraction(backend.digest, sha)
        if new is None:
            new = backend.extract(record).model_dump_json()
            st.cache_extraction(backend.digest, sha, new)
        return key, (new if new != old else None), claims_differ(old, new)

    # -- 1: scan ---------------------------------------------------------------------------
    def _scan(self) -> tuple[list[tuple], set[str]]:
        """Changed files as (file, bytes, stat, sha256, scan time), and every file whose
        records must be accounted for again (changed, unreadable or gone). A file the state
        has never seen comes with bytes and sha256 None: ``_read`` reads it."""
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
                stat = os.stat(f.where)
            except OSError as exc:
                self.report.errors.append(RecordError(path=f.rel, message=f"cannot read: {exc}"))
                reread.add(f.rel)
                continue
            old = prev.get(f.rel)
            if old is None:
                # new to the state (every file of a clean build): read while it is parsed
                # (_read), not here, so the corpus's bytes are never all in memory at once
                changed.append((f, None, stat, None, now_ns))
                reread.add(f.rel)
                continue
            if (old[0] == stat.st_size and old[1] == stat.st_mtime_ns
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
            changed.append((f, data, stat, sha, now_ns))
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
        return changed, reread

    # -- 2 and 3: parse and extract ---------------------------------------------------------
    def _read(self, changed_files: list[tuple], reread: set[str], stored: dict[str, str],
              held: dict[str, tuple[str, str]]
              ) -> tuple[list[str], set[str], dict[str, Declaration]]:
        """Parse changed files and store the records whose content changed, extracted.
        ``stored``: record key → sha256 of the records the state holds for those files;
        ``held``: the same keys → (sha256, file).
        Returns those keys (sorted), every key read, and the changed records' declarations."""
        st = self.state
        # what the state knows of the records read: those of the files read again are known
        # already; others (new keys, or keys another file held) are looked up per file
        # (loading the whole record index made every incremental compile O(all records))
        known: dict[str, tuple[str, str]] = dict(held)
        owner: dict[str, str] = {}
        changed: list[str] = []
        decls: dict[str, Declaration] = {}
        batch: list[RecordRow] = []
        in_workers = getattr(self.backend, "fork_safe", False)
        # an edited file is parsed whole, but only its records whose content changed need
        # extracting: the workers skip the rest (a 1 % edit re-read ~60x more records)
        context = {"policy": self.policy, "backend": self.backend if in_workers else None,
                   "stored": stored,
                   "max_record_text_bytes": self.settings.max_record_text_bytes,
                   # payload objects of these files built last time (connectors._common.ItemMemo)
                   "items": st.item_digests(f.rel for f, *_ in changed_files)}
        size_hint = _parse_work([(f.rel, stat.st_size) for f, _, stat, _, _ in changed_files],
                                context["items"])
        self.progress.phase("read", len(changed_files))
        # files whose bytes the scan did not keep are read as the workers take them (the pool
        # pulls items lazily): what each read gave is queued here, in order, for this loop
        fetched: deque[tuple] = deque()
        max_bytes, tenant = self.settings.max_file_bytes, self.manifest.tenant

        def items() -> Iterator[tuple]:
            for f, data, stat, sha, now_ns in changed_files:
                if data is None:
                    data = read_input(f, max_bytes)
                    if isinstance(data, RecordError):
                        fetched.append((f, data, stat, None, now_ns))
                        continue
                    sha = sha256_hex(data)
                fetched.append((f, None, stat, sha, now_ns))
                yield (f.rel, data, f.source, tenant)

        def unreadable() -> None:
            while fetched and fetched[0][1] is not None:
                f, error, _, _, _ = fetched.popleft()
                self.report.errors.append(error)
                self.report.files_changed -= 1
                st.drop_file(f.rel)
                self.progress.advance()

        with step_runner(self.workers, size_hint, self.settings.parallel_min_items, context,
                         self.state.release_memory) as run:
            for results in run(parse_file, _Sized(items(), len(changed_files))):
                unreadable()
                f, _, stat, sha, now_ns = fetched.popleft()
                known.update(st.record_index_of(
                    r.key for r in results if not isinstance(r, RecordError)
                    and r.key not in known))
                file_errors: list[RecordError] = []
                memo: list[tuple[str, str, str, str]] = []
                for item in results:
                    if isinstance(item, RecordError):
                        file_errors.append(item)
                        continue
                    other = owner.get(item.key) or (known.get(item.key) or (None, None))[1]
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
                    owner[item.key] = f.rel
                    if item.item_digest is not None:
                        memo.append((item.item_digest, item.key, item.id, item.sha256))
                    old = known.get(item.key)
                    if old is not None and old[0] == item.sha256:
                        if old[1] != f.rel:
                            st.set_record_file(item.key, f.rel)
                        continue
                    if not item.record_json:  # parse_file: "unchanged", yet it is not
                        raise CompileError(f"{f.rel}: record {item.id}: its stored digest "
                                           "changed during the compile")
                    changed.append(item.key)
                    decls[item.key] = item.declaration
                    batch.append(item)
                    if len(batch) >= _WAVE:
                        self._store(batch)
                self.report.errors.extend(file_errors)
                st.put_file(f.rel, stat.st_size, stat.st_mtime_ns, sha, now_ns)
                st.set_file_errors(f.rel, [e.model_dump_json() for e in file_errors])
                _store_memo(st, f.rel, context["items"].get(f.rel, {}), memo)
                self.progress.advance()
            unreadable()
        self._store(batch)
        self.report.records_extracted = len(changed)
        return sorted(changed), set(owner), decls

    def _store(self, batch: list[RecordRow]) -> None:
        """Extract (where the workers did not) and store a batch of changed records."""
        st, digest = self.state, self.backend.digest
        prefetch = getattr(self.backend, "prefetch", None)
        if prefetch is not None:  # LLM backends make a batch's calls up front, concurrently
            prefetch([SourceRecord.model_validate_json(r.record_json) for r in batch
                      if r.extraction_json is None
                      and st.cached_extraction(digest, r.sha256) is None])
        rows = []
        for r in batch:
            ex_json = r.extraction_json
            if ex_json is None:
                ex_json = st.cached_extraction(digest, r.sha256)
                if ex_json is None:
                    record = SourceRecord.model_validate_json(r.record_json)
                    ex_json = self.backend.extract(record).model_dump_json()
                    st.cache_extraction(digest, r.sha256, ex_json)
                self._count_rejected(Extraction.model_validate_json(ex_json))
            rows.append((r.key, r.file, r.sha256, r.version, r.declaration.entity_id,
                         r.record_json, ex_json, r.tier, r.max_age_days, r.fts_text))
        if rows:
            st.put_records(rows)
        batch.clear()

    def _count_rejected(self, ex: Extraction) -> None:
        for reason, n in ex.rejected.items():
            self.report.rejected_by_reason[reason] = (
                self.report.rejected_by_reason.get(reason, 0) + n)
            self.report.claims_rejected += n

    # -- 4: registry ------------------------------------------------------------------------
    def _register(self, decls: dict[str, Declaration], removed: set[str]
                  ) -> tuple[set[str], set[str]]:
        """Update declarations; return entities whose identity changed and name keys that
        may now resolve differently."""
        st = self.state
        old = st.declarations_of_records([*decls, *removed])
        affected = {d.entity_id for d in old.values()}
        for key in removed:
            st.drop_record(key)
            st.drop_declaration(key)
        st.put_declarations(decls.values())
        affected |= {d.entity_id for d in decls.values()}
        entity_changed: set[str] = set()
        name_keys: set[str] = set()
        # read and written in bulk: a clean build registers ~one entity per record
        for wave in _waves(sorted(affected)):
            decls_of, stored = st.declarations_of_entities(wave), st.entity_jsons(wave)
            names: dict[str, list[Declaration]] = {}
            entities: dict[str, Entity | None] = {}
            for eid in wave:
                entity = merge_entity(eid, decls_of[eid]) if eid in decls_of else None
                if (entity.model_dump_json() if entity else None) != stored.get(eid):
                    names[eid], entities[eid] = decls_of.get(eid, []), entity
            if not entities:
                continue
            entity_changed |= entities.keys()
            name_keys |= st.name_keys_of_entities(entities)
            st.set_names_of(names)
            name_keys |= st.name_keys_of_entities(entities)
            st.put_entities(entities)
        return entity_changed, name_keys

    # -- 5: link ----------------------------------------------------------------------------
    def _name_lookup(self, n_records: int) -> Callable:
        st = self.state
        if n_records >= self.settings.parallel_min_items:
            return NameIndex(st.all_declarations())
        return StoredNameLookup(st.lookup_name, st.name_keys_from)

    def _link(self, relink: list[str], removed: set[str], lookup: Callable, full: bool
              ) -> set[str]:
        st = self.state
        dirty: set[str] = set()
        for key in removed:
            _, touched = st.claim_touch_set(key)
            dirty |= touched
            st.drop_claims_of(key)
        self.progress.phase("link", len(relink))
        # a database-backed lookup cannot cross into a worker process
        workers = self.workers if isinstance(lookup, NameIndex) else 1
        context = {"policy": self.policy, "lookup": lookup, "schema": self.schema}
        # a full build stores claims without comparing them to stored ones: no index is read
        bulk = st.deferred_indexes("claims", "mentions") if full else nullcontext()
        with bulk, step_runner(workers, len(relink), self.settings.parallel_min_items, context,
                               self.state.release_memory) as run:
            waves = ((wave, run(link_step, sorted(st.load_records(wave))))
                     for wave in _waves(relink))
            for wave, results in _one_ahead(waves):
                dirty |= self._store_claims(results, full)
                self.progress.advance(len(wave))
        self.report.records_relinked = len(relink)
        return dirty

    def _store_claims(self, results: Iterable[tuple[str, list[ClaimRow], str]], full: bool
                      ) -> set[str]:
        """Store one wave's claims; returns the pages they (and the claims they replace) touch.
        A full build skips the comparison: nothing is stored to compare with."""
        st = self.state
        dirty: set[str] = set()
        rows: list[tuple] = []
        provenance: list[tuple[str, str]] = []
        for key, claims, shared in results:
            if not full:
                # only the pages of claims that changed (a schema edit relinks every record,
                # most of whose claims stay as they were)
                old = st.claim_touches(key)
                new = {c.claim_json: (c.subject, set(c.mentions)) for c in claims}
                if new.keys() == old.keys():
                    continue
                dirty |= {(old.get(js) or new[js])[0] for js in old.keys() ^ new.keys()}
                # a page a claim mentions shows only which pages mention it (its backlinks):
                # it changes only where a (subject, mentioned page) pair comes or goes, not
                # when an edit rewrites a claim that mentions it (most edits)
                dirty |= {m for _, m in _mention_pairs(old.values()) ^ _mention_pairs(new.values())}
                st.drop_claims_of(key)
                # every claim of the record is stored anew, its status reset: their pages are
                # rendered even if their inputs read the same (which sets the statuses again)
                self._restored.update(c.subject for c in claims)
            else:
                for c in claims:
                    dirty.add(c.subject)
                    dirty.update(c.mentions)
            provenance.append((key, shared))
            for c in claims:
                rows.append((c.id, key, c.subject, c.attribute, c.kind, c.claim_json,
                             c.mentions))
        st.put_claim_rows(rows)
        st.set_provenance(provenance)
        return dirty

    # -- 6: render --------------------------------------------------------------------------
    def _page_rels(self, eid: str) -> tuple[str, str]:
        if not _PAGE_ID.match(eid):
            raise CompileError(f"refusing unsafe page name {eid!r}")
        return f"{eid}.md", f"{eid}.claims.json"

    def _page_paths(self, eid: str) -> tuple[str, str]:
        md_rel, sc_rel = self._page_rels(eid)
        return os.path.join(self._out_str, md_rel), os.path.join(self._out_str, sc_rel)

    def _render(self, dirty: set[str], signing: SigningPlan | None) -> None:
        ids = sorted(dirty)
        self.progress.phase("render", len(ids))
        signing = signing if signing is not None and signing.in_render else None
        context = {"tiebreak_of": self.tiebreak_of, "signing": signing, "stage": self.files}
        with step_runner(self.workers, len(ids), self.settings.parallel_min_items, context,
                         self.state.release_memory) as run:
            waves = ((wave, *self._page_jobs(wave, signing, run)) for wave in _waves(ids))
            for wave, listed, results in _one_ahead(waves):
                self._store_pages(results, listed)
                self.progress.advance(len(wave))

    def _write_page_file(self, rel: str, data: bytes) -> None:
        self.files.write(rel, data)

    def _note_page_file(self, rel: str, _: bytes) -> None:
        self.files.note(rel)

    def _page_jobs(self, wave: list[str], signing: SigningPlan | None, run: Runner
                   ) -> tuple[dict[str, tuple[str, str, str]], Iterator[RenderedPage]]:
        """Queue one wave of pages to render (removing those left without claims); returns
        what index.md shows of them now and their rendered pages, in order."""
        st, report = self.state, self.report
        entities, claims, linking, previous = st.page_inputs(wave)
        # a dirty page whose inputs are those it was last rendered from renders the same bytes
        # (a record's edit dirties every page its claims mention; most show only its name)
        skip = not (report.full_rebuild or report.schema_changed)
        rendered_from = st.input_digests(wave) if skip else {}
        listed = st.index_rows_of(wave)
        names = st.entity_names({s for subs in linking.values() for s in subs})
        jobs: list[PageJob] = []
        for eid in wave:
            md_path, _ = self._page_paths(eid)
            if eid not in entities or eid not in claims:
                md_rel, sc_rel = self._page_rels(eid)
                if eid in previous or self.files.exists(md_rel):
                    self.files.remove(md_rel)
                    self.files.remove(sc_rel)
                    st.drop_page(eid)
                    report.pages_removed += 1
                    report.removed.append(eid)
                continue
            backlinks = sorted(
                ((s, names[s]) for s in linking.get(eid, ()) if s in names),
                key=lambda kv: (kv[1].lower(), kv[0]))
            sign = signing is not None and (
                signing.resign_all or not self.files.exists(bundle_name(eid)))
            inputs = None  # a full build has nothing to compare: the workers digest them
            if skip:
                inputs = input_digest(entities[eid], claims[eid], backlinks,
                                      self._synthesis.get(eid))
                if (rendered_from.get(eid) == inputs and not sign
                        and eid not in self._restored and self.files.exists(f"{eid}.md")):
                    continue
            if eid not in previous:
                self._created.add(eid)
            jobs.append(PageJob(eid, entities[eid], claims[eid], backlinks,
                                previous.get(eid), str(md_path),
                                self._synthesis.get(eid), sign, inputs))
        return listed, run(render_step, jobs, batched=True)

    def _store_pages(self, results: Iterable[RenderedPage],
                     listed: dict[str, tuple[str, str, str]]) -> None:
        """Write one wave's rendered pages (only those whose bytes changed) and their rows."""
        st, report = self.state, self.report
        pages, statuses, conflicts, search, index_lines = [], [], [], [], []
        inputs: list[tuple[str, str]] = []
        for page in results:
            report.pages_rendered += 1
            # a worker process may have staged the files itself (steps._staged): noted here
            put = self._note_page_file if page.staged else self._write_page_file
            if page.files is not None:
                md_rel, sc_rel = self._page_rels(page.entity_id)
                put(md_rel, page.files[0])
                put(sc_rel, page.files[1])
                report.pages_written += 1
                report.written.append(page.entity_id)
            if page.bundle is not None:
                put(bundle_name(page.entity_id), page.bundle)
                self._signed[page.entity_id] = page.bundle_sha256
            pages.append((page.entity_id, f"{page.entity_id}.md", page.sha256,
                          page.sidecar_sha256, page.type, page.title, page.summary))
            key_line = index_entry(page.entity_id, page.title, page.summary)
            was = listed.get(page.entity_id)
            if was != (page.type, page.title, page.summary):
                if was is not None and was[:2] == (page.type, page.title):
                    self._index_edits.append(
                        (index_entry(page.entity_id, was[1], was[2])[1], key_line[1]))
                else:
                    self._index_changed = True
            index_lines.append((page.entity_id, page.type, *key_line))
            statuses += page.statuses
            conflicts += page.conflicts
            search += page.search_rows
            inputs.append((page.entity_id, page.inputs_sha256))
        st.put_rendered(pages, statuses, conflicts, search, index_lines)
        st.set_input_digests(inputs)

    def _refuse_foreign_pages(self, dirty: set[str]) -> None:
        """A page new to this wiki whose path already holds a file: someone else's (pages a
        crashed compile left are in pending.json, and re-rendered)."""
        new = sorted(dirty - set(self._pending()))
        known: set[str] = set()
        for wave in _waves(new):
            known |= self.state.index_rows_of(wave).keys()
        found = foreign_page_files(self.out, (eid for eid in new if eid not in known))
        if found:
            raise CompileError(str(foreign_pages_error(self.out, found)))

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
            claims = st.claims_of_subject(eid)
            status, _ = resolve(claims, self.tiebreak_of)
            winners = [c for c in claims if status.get(c.id) == "winner"]
            if winners:
                pages.append((entity, winners))
        self._synthesis = {eid: [(s.text, s.claims) for s in sentences]
                           for eid, sentences in synthesizer.synthesize(pages).items()}

    # -- 6b: answers filed back as pages (compiler/answers/pages.py) ------------------------
    def _answer_pages(self) -> set[str]:
        """Pages of filed answers: rendered from their filed answer, never from claims."""
        from .answers.pages import ANSWER_TYPE, answer_page_id, load_filed

        rows = self.state.db.execute("SELECT entity_id FROM pages WHERE type=?", (ANSWER_TYPE,))
        return {r[0] for r in rows} | {answer_page_id(f.question) for f in load_filed(self.out)}

    def _file_answers(self, signing: SigningPlan | None) -> None:
        from .answers.pages import update_pages

        written, removed, signed, index_changed = update_pages(
            self.state, self.out, self.files, signing.signer if signing else None,
            signing.build if signing else None, bool(signing and signing.resign_all))
        r = self.report
        r.written += written
        r.pages_written += len(written)
        r.removed += removed
        r.pages_removed += len(removed)
        self._signed.update(signed)
        self._index_changed = self._index_changed or index_changed

    # -- 7: aggregate files -----------------------------------------------------------------
    def _aggregate(self) -> None:
        st, r = self.state, self.report
        changed = bool(r.pages_written or r.pages_removed)
        files = self.files
        # a full rebuild rewrites index.md too, so that it is never re-signed as found on disk
        index = None
        if (self._index_changed or r.pages_removed or r.full_rebuild
                or not files.exists("index.md")):
            index = assemble_index(st.index_lines()).encode("utf-8")
        elif self._index_edits:
            index = self._patched_index()
        if index is not None:
            files.write("index.md", index)
            self._aggregates["index.md"] = sha256_hex(index)
            st.set_meta("index_sha256", self._aggregates["index.md"])
        schema = render_schema(self.policy, self.schema, self.schema_digest).encode("utf-8")
        if not files.exists("SCHEMA.md") or files.read_bytes("SCHEMA.md") != schema:
            files.write("SCHEMA.md", schema)
        self._aggregates["SCHEMA.md"] = sha256_hex(schema)
        if changed or r.records_extracted or r.records_removed:
            created = sum(1 for p in r.written if p in self._created)
            title = log_title(first=st.first_build, extracted=r.records_extracted,
                              records_removed=r.records_removed, created=created,
                              updated=r.pages_written - created, pages_removed=r.pages_removed)
            body = "\n".join(
                [f"- {'created' if p in self._created else 'updated'} [[{p}]]"
                 for p in r.written[:50]]
                + [f"- removed `{p}` (no remaining support)" for p in r.removed[:50]]
                + ([f"- … and {len(r.written) + len(r.removed) - 100} more"]
                   if len(r.written) + len(r.removed) > 100 else []))
            st.append_log(self.today, "compile", title, body)
        # the directory the state serves `--as` from, signed through the index root so that
        # an edited principal in the state is caught (compiler/provenance/state_check.py)
        directory = directory_bytes(self.directory.groups_by_user(),
                                    self.directory.model_dump(mode="json"))
        if not files.exists(DIRECTORY_FILE) or files.read_bytes(DIRECTORY_FILE) != directory:
            files.write(DIRECTORY_FILE, directory)
        self._aggregates[DIRECTORY_FILE] = sha256_hex(directory)
        log = render_log(st.log_entries()).encode("utf-8")
        if not files.exists("log.md") or files.read_bytes("log.md") != log:
            files.write("log.md", log)
        self._aggregates["log.md"] = sha256_hex(log)
        r.pages_total = st.page_count()
        r.claims_total = st.claim_total(recount=r.full_rebuild)
        r.conflicts_resolved, r.conflicts_open = st.conflict_counts()

    def _patched_index(self) -> bytes:
        """index.md with the lines of pages whose summary changed replaced in place, if the
        file is the one the last compile wrote and the edits are few; else re-assembled."""
        st = self.state
        if len(self._index_edits) <= _INDEX_PATCH_MAX:
            data = self.files.read_bytes("index.md")
            if sha256_hex(data) == st.meta("index_sha256"):
                patched = patch_index(data, self._index_edits)
                if patched is not None:
                    return patched
        return assemble_index(st.index_lines()).encode("utf-8")

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


class _Sized(Iterable[T]):
    """An iterator that knows its length (the worker pool sizes its chunks by it)."""

    def __init__(self, it: Iterator[T], n: int) -> None:
        self._it, self._n = it, n

    def __iter__(self) -> Iterator[T]:
        return self._it

    def __len__(self) -> int:
        return self._n


def _store_memo(st: State, rel: str, before: dict[str, tuple[str, str, str]],
                memo: list[tuple[str, str, str, str]]) -> None:
    """The file's payload object digests as this parse found them, written as a change to
    those of its last parse (a 1 % edit changes ~2 of an export's ~100 objects)."""
    now = {digest: (key, rid, sha) for digest, key, rid, sha in memo}
    gone = [d for d in before if d not in now]
    new = [(d, *row) for d, row in now.items() if before.get(d) != row]
    if gone or new:
        st.update_item_digests(rel, gone, new)


def _parse_work(items: list[tuple[str, int]], remembered: dict[str, dict]) -> int:
    """What parsing ``items`` (file, size in bytes) costs, in records built, to decide whether the
    worker pool pays (it pays off by records, not files; a file holds ~10 records on average).
    A file whose payload objects the state remembers builds only the objects that changed: the
    others cost a decode and a digest, ~1/40 of building and extracting a record, counted at
    1/8 so that a wholesale rewrite of many remembered exports still goes to the workers (a
    1 % edit forked a pool, and paid its start, to decode the ~60 files it touched)."""
    total = 0
    for rel, size in items:
        n = size // _BYTES_PER_RECORD
        total += n // _REMEMBERED_COST if remembered.get(rel) else n
    return max(len(items), total)


def _mention_pairs(touches: Iterable[tuple[str, set[str]]]) -> set[tuple[str, str]]:
    """(subject, mentioned page) of claims: what the mentioned pages' backlinks are made of."""
    return {(subject, m) for subject, mentions in touches for m in mentions if m != subject}


def _waves(keys: list[str]) -> Iterator[list[str]]:
    for i in range(0, len(keys), _WAVE):
        yield keys[i:i + _WAVE]


def _one_ahead(waves: Iterable[T]) -> Iterator[T]:
    """Each wave, handed out only once the next one has been prepared: preparing a wave queues
    it to the workers, so they keep working while the parent stores the previous one (the two
    never touch the same rows: waves are disjoint sets of records or pages)."""
    previous: list[T] = []
    for wave in waves:
        if previous:
            yield previous.pop()
        previous.append(wave)
    yield from previous


def compile_wiki(
    src: Path,
    out: Path,
    settings: FolioSettings | None = None,
    *,
    full: bool = False,
    progress: Progress | None = None,
    today: str | None = None,
    extract_only: bool = False,
    force_corpus: bool = False,
    allow_foreign_files: bool = False,
) -> CompileReport:
    """Compile the corpus at ``src`` into the wiki at ``out`` (incrementally if it exists).
    ``extract_only``: stop once changed records are extracted into the state (a site's part
    of a distributed compile, see ``compiler/claimset.py``); no page is written.
    ``force_corpus`` / ``allow_foreign_files``: see ``compiler/wiki_owner.py``."""
    settings = settings or FolioSettings()
    today = today or datetime.now(UTC).date().isoformat()
    if src.is_file():
        raise CompileError(f"{src} is a file, not a corpus folder")
    if not src.is_dir():
        raise CompileError(f"{src}: corpus folder not found")
    try:  # before anything is written: whose folder is out?
        guard(src, corpus_identity(src), out, force_corpus=force_corpus,
              allow_foreign=allow_foreign_files)
    except FolderGuardError as exc:
        raise CompileError(str(exc)) from exc
    out.mkdir(parents=True, exist_ok=True)
    with _locked(out / STATE_DIR):
        recover(out)  # a generation committed by a compile killed before it was applied
        try:
            report = _Compile(src, out, settings, progress or Progress(), today).run(
                full, extract_only)
        except ExtractionFailed as exc:  # model down or budget spent: already rolled back
            raise CompileError(str(exc)) from exc
        remember_corpus(corpus_identity(src), out)
        return report


def wiki_state(wiki: Path) -> State:
    """Open a compiled wiki's state read-only (query, show, lint, export), after rolling a
    committed generation forward (compiler/staging.py)."""
    recover(wiki)
    return State(wiki / STATE_DIR / "state.db", readonly=True)


__all__ = ["CompileError", "CompileReport", "Progress", "compile_wiki", "wiki_state"]

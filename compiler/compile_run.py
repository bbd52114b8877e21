"""One compile, its phases in order: corpus folder in, wiki folder out, incrementally.

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

import gc
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager

from . import __version__
from .aggregate_files import AggregatePhase
from .atomic import remove_if_exists
from .canonical import content_id
from .claim_link import LinkPhase
from .compile_report import CompileReport
from .corpus_scan import ScanPhase
from .models import SCHEMA_VERSION
from .okf import OKF_VERSION
from .page_render import RenderPhase
from .provenance.attest import attest_compile, plan_signing
from .provenance.bundle_watch import remember_folders
from .record_read import ReadPhase
from .schema_refresh import SchemaPhase
from .staging import apply_committed, generation_lock, sweep_temp_files

# what stored claims look like; a state whose claims were stored otherwise is rebuilt
# (schema-1: claims carry qualifiers, mapped, value type, normalised value, own time)
_CLAIM_LAYOUT = "schema-1"


class CompileRun(ScanPhase, ReadPhase, SchemaPhase, LinkPhase, RenderPhase, AggregatePhase):
    """The phases (each in its module, on the shared :class:`CompileSetup`) run in order, and
    the commit: state and file journal in one transaction, applied after (staging.py)."""

    # -- the whole compile ------------------------------------------------------------------
    def run(self, full: bool, extract_only: bool = False) -> CompileReport:
        with _older_objects_frozen():
            return self._run(full, extract_only)

    def _run(self, full: bool, extract_only: bool) -> CompileReport:
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
            # a page whose reference points to a renamed (or gone) page shows its title (a
            # full build renders every page with claims anyway)
            if not full:
                dirty |= st.referencing_subjects(sorted(decl_changed))
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


# allocations between young collections during a compile (CPython's default: 700): a compile
# builds millions of short-lived, acyclic objects (decoded exports, rows, rendered strings),
# and each young collection walked those still alive. 1 % edit at 10k: 280 young collections,
# ~23 ms per compile at 700; ~12 ms at 10,000 (cycles it leaves are collected a little later)
_YOUNG_THRESHOLD = 10_000


@contextmanager
def _older_objects_frozen() -> Iterator[None]:
    """The objects that exist before a compile (imported modules, the process's caches, a
    previous compile's leftovers in a long-running consumer) are kept out of the cyclic
    collector's full collections while it runs: a compile allocates millions of objects
    (every edited export is decoded whole), which set off full collections, and each walked
    every object of the process. A 1 % edit at 10k records after a clean compile in the same
    process: ~2 full collections per compile, ~90 ms of its ~900 ms CPU; frozen, ~25 ms.
    Nothing is collected less: garbage older than the compile is collected after it. A caller
    that froze objects itself keeps them frozen (the freeze has one generation, not a stack).
    The young generation's threshold is raised meanwhile (``_YOUNG_THRESHOLD``) and restored."""
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], _YOUNG_THRESHOLD), *thresholds[1:])
    frozen = gc.get_freeze_count() == 0
    if frozen:
        gc.freeze()
    try:
        yield
    finally:
        if frozen:
            gc.unfreeze()
        gc.set_threshold(*thresholds)

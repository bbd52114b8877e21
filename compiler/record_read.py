"""Phases 2 and 3 of a compile: parse the changed files (in the worker pool, each file's bytes
read as it is parsed) and extract the records whose content changed, storing them in waves;
and re-extract unchanged records when the backend's output for them changed."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from connectors.base import RecordError
from connectors.loader import read_input

from .canonical import sha256_hex
from .compile_context import CompileError
from .compile_setup import CompileSetup
from .extract import Extraction
from .models import SourceRecord
from .registry import Declaration
from .state import State
from .steps import RecordRow, claims_differ, parse_file
from .steps import reextract as reextract_step
from .waves import WAVE, SizedIter, in_waves
from .workers import step_runner

_BYTES_PER_RECORD = 1_500  # rough size of one exported record, to size the worker pool
_REMEMBERED_COST = 8  # a remembered payload object costs at most 1/8 of a record to parse


class ReadPhase(CompileSetup):
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
            # files are weighed by their bytes: the pool cuts its chunks by cost, not count
            files = SizedIter(items(), len(changed_files), weigh=_item_bytes,
                              weight=sum(stat.st_size for _, _, stat, _, _ in changed_files))
            for results in run(parse_file, files):
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
                    if len(batch) >= WAVE:
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
            for wave in in_waves(keys):
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


def _store_memo(st: State, rel: str, before: dict[str, tuple[str, str, str]],
                memo: list[tuple[str, str, str, str]]) -> None:
    """The file's payload object digests as this parse found them, written as a change to
    those of its last parse (a 1 % edit changes ~2 of an export's ~100 objects)."""
    now = {digest: (key, rid, sha) for digest, key, rid, sha in memo}
    gone = [d for d in before if d not in now]
    new = [(d, *row) for d, row in now.items() if before.get(d) != row]
    if gone or new:
        st.update_item_digests(rel, gone, new)


def _item_bytes(item: tuple) -> int:
    return len(item[1])


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

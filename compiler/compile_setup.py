"""What one compile works with, loaded before it starts: the corpus manifest, authority policy,
schema, directory, extraction backend and the wiki's state; the report it fills; and the list
of pages a crash could leave half-written (``pending.json``). Each phase of the compile
(corpus_scan, record_read, schema_refresh, claim_link, page_render, aggregate_files) works on
this; compile_run.py runs them in order."""

from __future__ import annotations

import json
import os
from pathlib import Path

from connectors.loader import load_manifest

from .atomic import write_atomic
from .compile_context import CompileError
from .compile_report import CompileReport, Progress
from .directory import DirectoryError, load_directory
from .extract import get_backend
from .policy import AuthorityPolicy, load_policy
from .schema import SchemaError, load_schema
from .schema import digest as schema_digest
from .settings import FolioSettings
from .staging import Generation
from .state import State
from .workers import worker_count

STATE_DIR = ".folio"


class CompileSetup:
    """The inputs and running state of one compile, shared by its phases."""

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


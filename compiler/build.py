"""The compile's public entry: :func:`compile_wiki` (corpus folder in, wiki folder out,
incrementally) and :func:`wiki_state` (a compiled wiki's state, read-only).

Here: the folder checks and the lock around one compile. The compile itself is
compile_run.py, its phases in the modules it names; what it reports is compile_report.py.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from connectors.loader import corpus_identity

from .compile_context import CompileError
from .compile_report import CompileReport, Progress
from .compile_run import CompileRun
from .compile_setup import STATE_DIR
from .extract import ExtractionFailed
from .settings import FolioSettings
from .staging import recover
from .state import State
from .wiki_owner import FolderGuardError, guard, remember_corpus


@contextmanager
def _locked(folio_dir: Path) -> Iterator[None]:
    folio_dir.mkdir(parents=True, exist_ok=True)
    with open(folio_dir / "lock", "w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise CompileError(f"{folio_dir.parent}: another compile is running") from exc
        yield


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
            report = CompileRun(src, out, settings, progress or Progress(), today).run(
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



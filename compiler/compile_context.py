"""What a compile run is to the work it hands off (signing: provenance/attest.py): the error
that stops a compile, and the run's context as a protocol. compile_run.py's ``CompileRun`` is
that context; the steps it calls type against this module instead of importing it back."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .extract import ExtractionBackend
    from .policy import AuthorityPolicy
    from .schema import Schema
    from .settings import FolioSettings
    from .staging import Generation
    from .state import State


class CompileError(RuntimeError):
    """The compile could not run at all (bad manifest or policy, wiki locked)."""


class PhaseProgress(Protocol):
    def phase(self, name: str, total: int) -> None: ...

    def advance(self, n: int = 1) -> None: ...


class CompileTally(Protocol):
    """What signing reads of the run's CompileReport (compile_report.py)."""

    full_rebuild: bool
    schema_changed: bool
    pages_total: int
    written: list[str]
    removed: list[str]


class CompileContext(Protocol):
    """The compile run as signing sees it: its settings, inputs' digests, state and the
    staged generation of files it writes."""

    out: Path
    settings: FolioSettings
    state: State
    files: Generation
    backend: ExtractionBackend
    policy: AuthorityPolicy
    schema: Schema
    schema_digest: str
    report: CompileTally
    progress: PhaseProgress
    remember_folders: set[str] | None

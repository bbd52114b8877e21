"""rich progress bars for phased work (compile, publish, sync): one bar per phase."""

from __future__ import annotations

from rich.progress import Progress


class PhaseBars:
    """The ``Progress`` sink of :mod:`compiler.build`, drawn with rich (quiet when not a
    terminal)."""

    def __init__(self, progress: Progress) -> None:
        self.p = progress
        self.task: int | None = None

    def phase(self, name: str, total: int) -> None:
        if self.task is not None:
            self.p.update(self.task, visible=False)
        self.task = self.p.add_task(name, total=max(total, 0))

    def advance(self, n: int = 1) -> None:
        if self.task is not None:
            self.p.advance(self.task, n)

"""Page files written by one background thread while the parent keeps storing rows.

Creating a file is kernel work (directory entry, inode allocation) during which Python
releases the GIL; on a clean build the parent spent about a third of its time there, with
the worker processes idle behind it. One thread keeps a single writer per folder (two
processes creating files in one folder contend on its lock) and the same write order.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from pathlib import Path

from .atomic import write_atomic

_DONE = None
_QUEUED_MAX = 3_000  # files waiting (~3 per page); bounds the bytes held in memory


class FileWriter:
    """``put(path, data)`` queues an atomic write; ``close()`` waits for all of them and
    raises the first error any of them met (the compile then rolls back)."""

    def __init__(self, write: Callable[[Path, bytes], None] = write_atomic) -> None:
        self._write = write
        self._queue: queue.Queue[tuple[Path, bytes] | None] = queue.Queue(_QUEUED_MAX)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="folio-writer", daemon=True)
        self._thread.start()

    def put(self, path: Path, data: bytes) -> None:
        if self._error is not None:
            self.close()
        self._queue.put((path, data))

    def close(self) -> None:
        if self._thread.is_alive():
            self._queue.put(_DONE)
            self._thread.join()
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _run(self) -> None:
        while (item := self._queue.get()) is not _DONE:
            if self._error is None:  # after a failure, drain without writing
                try:
                    self._write(*item)
                except BaseException as exc:  # noqa: BLE001 - re-raised by close()
                    self._error = exc

"""Atomic file replacement: a reader (or a crash) sees the old file or the new one, never half.

For single files (state-folder files, keys, claim checks, caches). A compile's wiki files go
through :mod:`compiler.staging` instead, where a whole generation changes at once."""

from __future__ import annotations

import os
from pathlib import Path

from . import retire


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW


def write_atomic(path: Path, data: bytes, durable: bool = False, mode: int = 0o644,
                 trash: Path | None = None) -> None:
    """Write via a temp file in the same folder and ``os.replace``.

    ``durable`` adds an fsync; compiles skip it per page because the state database, which is
    committed last and fsynced by SQLite, decides what a rerun redoes. ``mode`` holds from
    before the first byte is written (a private key is never readable by others, not even
    briefly). ``trash``: the file replaced is parked there and freed later (compiler/retire.py).
    """
    # one writer per wiki (the compile lock) and per process: a pid-named temp file is unique
    # and much cheaper than mkstemp's random names; O_NOFOLLOW refuses a planted symlink.
    # Plain str paths and os.write, no pathlib or file object: a compile writes three files
    # per page, and those cost a fifth of each write.
    folder, name = os.path.split(os.fspath(path))
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    # a parked file of the trash costs less than a new one (compiler/retire.py)
    fd = retire.reuse(tmp, trash) if trash is not None and mode == 0o644 else None
    reused = fd is not None
    if fd is None:
        try:
            fd = os.open(tmp, _CREATE, 0o644)
        except FileNotFoundError:  # the folder is new: create it only then, not per page
            os.makedirs(folder, exist_ok=True)
            fd = os.open(tmp, _CREATE, 0o644)
    try:
        try:
            if mode != 0o644:  # also fixes a stale temp file left with another mode
                os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if reused:
                retire.finish(fd, len(data))
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        if trash is None:
            os.replace(tmp, path)
        else:
            retire.replace(tmp, path, trash)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def remove_if_exists(path: Path) -> bool:
    try:
        path.unlink()
        return True
    except FileNotFoundError:
        return False

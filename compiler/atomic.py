"""Atomic file replacement: a reader (or a crash) sees the old file or the new one, never half."""

from __future__ import annotations

import os
from pathlib import Path


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW


def write_atomic(path: Path, data: bytes, durable: bool = False) -> None:
    """Write via a temp file in the same folder and ``os.replace``.

    ``durable`` adds an fsync; compiles skip it per page because the state database, which is
    committed last and fsynced by SQLite, decides what a rerun redoes.
    """
    # one writer per wiki (the compile lock) and per process: a pid-named temp file is unique
    # and much cheaper than mkstemp's random names; O_NOFOLLOW refuses a planted symlink
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, _CREATE, 0o644)
    except FileNotFoundError:  # the folder is new: create it only then, not per page
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, _CREATE, 0o644)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
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

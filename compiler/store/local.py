"""A store in a local folder (embedded mode, shared filesystems): the same layout as S3."""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from ..atomic import write_atomic
from .base import LostUpdate, NotFound, StoreError, Versioned

_LOCK = ".store.lock"


class LocalStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.url = f"file://{root}"

    def _path(self, key: str) -> Path:
        # keys come from our own layout, but a tree read from elsewhere must not escape root
        if key.startswith("/") or ".." in key.split("/"):
            raise StoreError(f"{self.url}: refusing key {key!r} outside the store")
        return self.root / key

    def get(self, key: str) -> bytes:
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError:
            raise NotFound(f"{self.url}/{key}: no such object") from None

    def put(self, key: str, data: bytes) -> None:
        write_atomic(self._path(key), data)

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def list(self, prefix: str) -> Iterator[str]:
        base = self._path(prefix.rstrip("/")) if prefix else self.root
        for dirpath, _dirs, files in os.walk(base):
            for name in files:
                if not name.startswith("."):  # write_atomic's temp files, the lock
                    yield (Path(dirpath) / name).relative_to(self.root).as_posix()

    def get_versioned(self, key: str) -> Versioned | None:
        try:
            data = self._path(key).read_bytes()
        except FileNotFoundError:
            return None
        return Versioned(data, hashlib.sha256(data).hexdigest())

    def put_if(self, key: str, data: bytes, expected_etag: str | None) -> str:
        self.root.mkdir(parents=True, exist_ok=True)
        # compare-and-swap under an exclusive lock: every publisher to this folder takes it,
        # so the read and the replace cannot interleave with another's
        with open(self.root / _LOCK, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            current = self.get_versioned(key)
            if (current.etag if current else None) != expected_etag:
                raise LostUpdate(
                    f"{self.url}/{key} changed since it was read (expected "
                    f"{expected_etag or 'no object'}, found {current.etag if current else 'none'})")
            # durable: the pointer is what readers trust, it must not vanish on a crash
            write_atomic(self._path(key), data, durable=True)
        return hashlib.sha256(data).hexdigest()

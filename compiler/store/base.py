"""What every store offers: plain objects plus one conditionally replaced pointer.

Keys are relative to the store's root (an S3 prefix or a folder) and always use ``/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple, Protocol, runtime_checkable


class StoreError(RuntimeError):
    """A store operation failed; the message names the store URL and the key."""


class NotFound(StoreError):
    pass


class LostUpdate(StoreError):
    """The pointer moved since it was read: another publisher got there first. Nothing this
    publish uploaded is lost (blobs are content-addressed); rerun it on top of the new head."""


class BlobCorrupt(StoreError):
    """Bytes read from the store do not hash to the digest they are stored under."""


class Versioned(NamedTuple):
    data: bytes
    etag: str  # opaque: S3's ETag, or the sha256 of a local file


@runtime_checkable
class Store(Protocol):
    url: str  # for messages; never carries credentials

    def get(self, key: str) -> bytes:
        """The object's bytes; :class:`NotFound` when absent."""

    def put(self, key: str, data: bytes) -> None:
        """Create or replace (atomically: a reader sees the old bytes or the new)."""

    def exists(self, key: str) -> bool: ...

    def list(self, prefix: str) -> Iterator[str]:
        """Keys under ``prefix`` (relative to the store root), in no particular order."""

    def get_versioned(self, key: str) -> Versioned | None:
        """The object with a version tag for :meth:`put_if`, or None when absent."""

    def put_if(self, key: str, data: bytes, expected_etag: str | None) -> str:
        """Replace ``key`` only if it is still at ``expected_etag`` (None: only if it does
        not exist yet); returns the new etag, raises :class:`LostUpdate` otherwise."""


def get_verified(store: Store, key: str, sha256: str, *, missing: str, corrupt: str) -> bytes:
    """A content-addressed object, checked against the digest it is stored under; the two
    messages say what the object is to the reader (``<url>/<key>: <message>``)."""
    import hashlib

    try:
        data = store.get(key)
    except NotFound:
        raise StoreError(f"{store.url}/{key}: {missing}") from None
    if hashlib.sha256(data).hexdigest() != sha256:
        raise BlobCorrupt(f"{store.url}/{key}: {corrupt}")
    return data

"""Store locations: ``s3://bucket/prefix``, ``file:///path`` or a plain folder path."""

from __future__ import annotations

from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlparse

from pydantic import BaseModel, ConfigDict

from ..settings import FolioSettings
from .base import Store, StoreError


class StoreLocation(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: Literal["s3", "file"]
    bucket: str = ""
    prefix: str = ""  # S3: no leading or trailing slash
    path: Path | None = None

    @property
    def url(self) -> str:
        if self.kind == "s3":
            return f"s3://{self.bucket}/{self.prefix}".rstrip("/")
        return f"file://{self.path}"


def is_remote(value: str) -> bool:
    """A ``--wiki`` value that names a published store rather than a wiki folder."""
    return "://" in value  # s3://, file:// and anything unsupported (refused by the parser)


def parse_store_url(value: str) -> StoreLocation:
    if value.startswith("s3://"):
        u = urlparse(value)
        if not u.netloc:
            raise StoreError(f"{value}: no bucket (expected s3://bucket/prefix)")
        prefix = unquote(u.path).strip("/")
        if ".." in prefix.split("/"):
            raise StoreError(f"{value}: '..' is not allowed in a prefix")
        return StoreLocation(kind="s3", bucket=u.netloc, prefix=prefix)
    if value.startswith("file://"):
        u = urlparse(value)
        if u.netloc not in ("", "localhost"):
            raise StoreError(f"{value}: only local file:// URLs are supported")
        return StoreLocation(kind="file", path=Path(unquote(u.path)).resolve())
    if "://" in value:
        raise StoreError(f"{value}: unsupported store URL (s3://bucket/prefix, file:///path "
                         "or a folder path)")
    return StoreLocation(kind="file", path=Path(value).expanduser().resolve())


def open_store(value: str | StoreLocation, settings: FolioSettings | None = None) -> Store:
    loc = value if isinstance(value, StoreLocation) else parse_store_url(value)
    if loc.kind == "s3":
        try:
            from .s3 import S3Store  # boto3 is an optional extra
        except ImportError as exc:
            raise StoreError(f"{loc.url}: S3 stores need boto3 (pip install 'folio[s3]')") from exc

        return S3Store(loc.bucket, loc.prefix, settings or FolioSettings())
    from .local import LocalStore

    assert loc.path is not None
    return LocalStore(loc.path)

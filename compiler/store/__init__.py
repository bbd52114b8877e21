"""The central index store (docs/central-index.md): a compiled wiki published as
content-addressed blobs, a tree and a HEAD pointer, on S3 or in a local folder."""

from .base import BlobCorrupt, LostUpdate, NotFound, Store, StoreError
from .url import open_store, parse_store_url

__all__ = ["BlobCorrupt", "LostUpdate", "NotFound", "Store", "StoreError", "open_store",
           "parse_store_url"]

"""The published layout: blobs, trees and HEAD (docs/central-index.md).

    <root>/blobs/sha256/<aa>/<sha256>   file bytes, named by their digest (written once)
    <root>/trees/<sha256>.json          wiki path -> blob digest and size, named by its digest
    <root>/answers/<id>.json            signed answer records (immutable, named by their id)
    <root>/HEAD.json                    the published generation; replaced last, conditionally

A reader goes HEAD -> tree -> blobs and so sees exactly one generation; everything HEAD names
was written before HEAD, so it never points at a missing object.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..canonical import canonical_json, sha256_hex

HEAD_KEY = "HEAD.json"
BLOBS = "blobs/sha256/"
TREES = "trees/"
ANSWERS = "answers/"
STATE_SNAPSHOT = ".folio/state.db"  # the one private file readers need (query, show, lint)

_HEX = re.compile(r"^[0-9a-f]{64}$")


def blob_key(sha256: str) -> str:
    # two-character fan-out: S3 scales request rates per prefix, folders list faster
    return f"{BLOBS}{sha256[:2]}/{sha256}"


def tree_key(sha256: str) -> str:
    return f"{TREES}{sha256}.json"


def safe_wiki_path(path: str) -> str:
    """A tree comes from the store: its paths must stay inside the folder they are written to."""
    parts = path.split("/")
    if not path or path.startswith("/") or "\\" in path or any(p in ("", ".", "..")
                                                              for p in parts):
        raise ValueError(f"unsafe wiki path {path!r} in tree")
    return path


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TreeEntry(_Model):
    sha256: str = Field(pattern=_HEX.pattern)
    size: int = Field(ge=0)


class Tree(_Model):
    format: Literal["folio-tree/v1"] = "folio-tree/v1"
    files: dict[str, TreeEntry]

    @field_validator("files")
    @classmethod
    def _paths(cls, v: dict[str, TreeEntry]) -> dict[str, TreeEntry]:
        for p in v:
            safe_wiki_path(p)
        return v

    def to_bytes(self) -> bytes:
        return canonical_json(self.model_dump(mode="json"))

    def digest(self) -> str:
        return sha256_hex(self.to_bytes())


class Head(_Model):
    format: Literal["folio-head/v1"] = "folio-head/v1"
    generation: int = Field(ge=1, description="1 for the first publish, +1 for each after")
    tree: str = Field(pattern=_HEX.pattern, description="sha256 of the tree object")
    root_sha256: str | None = Field(
        description="sha256 of the signed index root (dbom-root.json) in this tree")
    files: int
    bytes: int
    published_at: datetime
    publisher: str = Field(description="builder id of the site that published")
    previous_tree: str | None = None

    def to_bytes(self) -> bytes:
        return canonical_json(self.model_dump(mode="json"))

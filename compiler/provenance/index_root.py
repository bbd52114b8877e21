"""The index root: one signed statement that pins every file the compile vouches for (each page,
its claims sidecar, its DBOM bundle, and index.md / SCHEMA.md / log.md / directory.json).

A per-page bundle proves a page is what was compiled; only the root proves the *set* of pages
is: a deleted, added or swapped page changes the set, which the root pins.

The root is sharded. Each page's three files go to one of :data:`BUCKETS` buckets chosen by
the sha256 of the page id; a bucket is a plain file ``dbom-root.d/<hex>.json`` listing its files
and their sha256 (canonical JSON, sorted by name), and the signed root's subjects are the
non-empty bucket files and the aggregate files with their digests. Why: a 100k-page wiki has
~300k files; a root listing each of them made every compile, incremental ones too, rebuild,
sign and write a ~40 MB statement. Sharded, a 1-page change rewrites one bucket (~1/256 of the
listing) and re-signs a root of at most 259 subjects. The buckets need no signature of their
own: the signed root pins each one's digest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from json.encoder import encode_basestring  # what json.dumps uses with ensure_ascii=False
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..canonical import canonical_json, sha256_hex
from .statement import INDEX_PREDICATE, STATEMENT_TYPE, Builder, ResourceDescriptor

ROOT_FILE = "dbom-root.json"
BUCKET_DIR = "dbom-root.d"  # a page folder never contains a dot, so this cannot be a page type
BUCKET_TYPE = "https://folio.dev/dbom/index-bucket/v1"
BUCKETS = 256
BUCKET_SCHEME = "sha256(page id)[:2]"  # page id = path without .md / .claims.json / .dbom.json
AGGREGATE_FILES = ("index.md", "SCHEMA.md", "log.md", "directory.json")
BUNDLE_SUFFIX = ".dbom.json"
SIDECAR_SUFFIX = ".claims.json"
_PAGE_SUFFIXES = (BUNDLE_SUFFIX, SIDECAR_SUFFIX, ".md")


def bundle_name(page_id: str) -> str:
    return f"{page_id}{BUNDLE_SUFFIX}"


def page_key(rel: str) -> str:
    """The page a wiki file belongs to (its id), or the path itself for any other file."""
    for suffix in _PAGE_SUFFIXES:
        if rel.endswith(suffix):
            return rel[:-len(suffix)]
    return rel


def bucket_of(rel_or_page_id: str) -> str:
    """The bucket of a page id or of any of its files: all three land in the same bucket, so a
    re-rendered page rewrites one bucket."""
    return sha256_hex(page_key(rel_or_page_id))[:2]


def bucket_file(bucket: str) -> str:
    return f"{BUCKET_DIR}/{bucket}.json"


def is_bucket_file(rel: str) -> bool:
    return rel.startswith(BUCKET_DIR + "/")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class BucketEntry(_Model):
    name: str = Field(description="wiki-relative path")
    sha256: str


class IndexBucket(_Model):
    """``dbom-root.d/<bucket>.json``: the files of the pages whose id hashes to ``bucket``."""

    type: Literal["https://folio.dev/dbom/index-bucket/v1"] = Field(BUCKET_TYPE, alias="_type")
    bucket: str = Field(pattern="^[0-9a-f]{2}$")
    files: tuple[BucketEntry, ...]

    def digests(self) -> dict[str, str]:
        return {f.name: f.sha256 for f in self.files}


def bucket_bytes(bucket: str, files: Iterable[tuple[str, str]]) -> bytes:
    """Canonical JSON of an :class:`IndexBucket` from (path, sha256) pairs, serialised as text:
    a bucket of a 100k-page wiki holds ~1,200 entries and a model per entry would cost more than
    the write. ``test_bucket_bytes_match_the_model`` keeps the two identical."""
    enc = encode_basestring
    entries = ",".join(f'{{"name":{enc(name)},"sha256":{enc(sha)}}}'
                       for name, sha in sorted(files))
    return (f'{{"_type":{enc(BUCKET_TYPE)},"bucket":{enc(bucket)},"files":[{entries}]}}'
            .encode("utf-8"))


class IndexPredicate(_Model):
    builder: Builder
    invocation_id: str = Field(alias="invocationId")
    finished_on: datetime = Field(alias="finishedOn")
    pages: int = Field(description="pages (markdown files with a DBOM) in the wiki")
    files: int = Field(description="files pinned: those the buckets list plus the aggregates")
    buckets: Literal[256] = Field(description="how many buckets page files are spread over")
    bucket_scheme: Literal["sha256(page id)[:2]"] = Field(alias="bucketScheme")


class IndexStatement(_Model):
    type: Literal["https://in-toto.io/Statement/v1"] = Field(STATEMENT_TYPE, alias="_type")
    subject: tuple[ResourceDescriptor, ...]
    predicate_type: Literal["https://folio.dev/dbom/index-root/v2"] = Field(
        INDEX_PREDICATE, alias="predicateType")
    predicate: IndexPredicate

    def digests(self) -> dict[str, str]:
        return {s.name or "": s.digest.get("sha256", "") for s in self.subject}


def index_statement(subjects: Mapping[str, str], pages: int, files: int, builder: Builder,
                    invocation_id: str, finished_on: datetime) -> IndexStatement:
    """Pure: ``subjects`` maps bucket file or aggregate file → sha256."""
    return IndexStatement(
        subject=tuple(ResourceDescriptor(name=p, digest={"sha256": subjects[p]})
                      for p in sorted(subjects)),
        predicate=IndexPredicate(builder=builder, invocationId=invocation_id,
                                 finishedOn=finished_on, pages=pages, files=files,
                                 buckets=BUCKETS, bucketScheme=BUCKET_SCHEME),
    )


def canonical_bucket(bucket: IndexBucket) -> bytes:
    return canonical_json(bucket.model_dump(mode="json", by_alias=True))

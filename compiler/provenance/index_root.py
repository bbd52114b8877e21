"""The index root: one signed statement whose subjects are every file the compile vouches for
(each page, its claims sidecar, its DBOM bundle, and index.md / SCHEMA.md / log.md).

A per-page bundle proves a page is what was compiled; only the root proves the *set* of pages
is: a deleted, added or swapped page changes the set, which the root pins.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring  # what json.dumps uses with ensure_ascii=False
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..atomic import write_atomic
from ..canonical import canonical_json
from .statement import INDEX_PREDICATE, STATEMENT_TYPE, Builder, ResourceDescriptor

ROOT_FILE = "dbom-root.json"
LEAVES_FILE = "dbom-leaves.json"  # under .folio/: the compile's memory of bundle digests
AGGREGATE_FILES = ("index.md", "SCHEMA.md", "log.md")
BUNDLE_SUFFIX = ".dbom.json"


def bundle_name(page_id: str) -> str:
    return f"{page_id}{BUNDLE_SUFFIX}"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class IndexPredicate(_Model):
    builder: Builder
    invocation_id: str = Field(alias="invocationId")
    finished_on: datetime = Field(alias="finishedOn")
    pages: int = Field(description="pages (markdown files with a DBOM) in the wiki")


class IndexStatement(_Model):
    type: Literal["https://in-toto.io/Statement/v1"] = Field(STATEMENT_TYPE, alias="_type")
    subject: tuple[ResourceDescriptor, ...]
    predicate_type: Literal["https://folio.dev/dbom/index-root/v1"] = Field(
        INDEX_PREDICATE, alias="predicateType")
    predicate: IndexPredicate

    def digests(self) -> dict[str, str]:
        return {s.name or "": s.digest.get("sha256", "") for s in self.subject}


def index_statement(files: Mapping[str, str], pages: int, builder: Builder,
                    invocation_id: str, finished_on: datetime) -> IndexStatement:
    """Pure: ``files`` maps wiki-relative path → sha256."""
    return IndexStatement(
        subject=tuple(ResourceDescriptor(name=p, digest={"sha256": files[p]})
                      for p in sorted(files)),
        predicate=IndexPredicate(builder=builder, invocationId=invocation_id,
                                 finishedOn=finished_on, pages=pages),
    )


def index_statement_bytes(files: Mapping[str, str], pages: int, builder: Builder,
                          invocation_id: str, finished_on: datetime) -> bytes:
    """The same statement as :func:`index_statement`, serialised without building one model per
    subject: the root of a 100k-page wiki is signed after every compile, incremental ones too.
    ``test_index_root_fast_path_matches_model`` keeps the two identical."""
    doc = {
        "_type": STATEMENT_TYPE,
        "subject": [],
        "predicateType": INDEX_PREDICATE,
        "predicate": {
            "builder": builder.model_dump(mode="json"),
            "invocationId": invocation_id,
            "finishedOn": finished_on.isoformat().replace("+00:00", "Z"),
            "pages": pages,
        },
    }
    # "subject" sorts last among the keys, so the canonical form ends in its (empty) list; the
    # subjects, three per page, are spliced in as text: canonical_json over 300k small dicts
    # cost more than everything else an incremental compile of a 100k-page wiki does
    head = canonical_json(doc)
    assert head.endswith(b'"subject":[]}')
    enc = encode_basestring
    subjects = ",".join(f'{{"digest":{{"sha256":{enc(files[p])}}},"name":{enc(p)}}}'
                        for p in sorted(files))
    return head[:-2] + subjects.encode("utf-8") + b"]}"


class Leaves(_Model):
    """Digest of each page's bundle as last written, and who signed them; kept in .folio/ so an
    incremental compile can re-sign the root without re-reading every bundle."""

    signer: str = ""
    bundles: dict[str, str] = Field(default_factory=dict)


def load_leaves(path: Path) -> Leaves:
    try:
        return Leaves.model_validate_json(path.read_bytes())
    except (FileNotFoundError, ValidationError, ValueError):
        # unreadable memory only costs a re-sign of every page
        return Leaves()


def save_leaves(path: Path, leaves: Leaves) -> None:
    write_atomic(path, json.dumps(leaves.model_dump(), sort_keys=True).encode("utf-8"))

"""What of a signed file must be the same for an incremental compile and a clean rebuild.

Bundles differ run to run by construction (invocation id, times, ECDSA nonces); what they
*say* about the pages must not. Used by the incremental-equals-clean tests and the benchmark.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from ..canonical import canonical_json
from .index_root import BUNDLE_SUFFIX, ROOT_FILE, is_bucket_file

_VOLATILE_SUBJECTS = ("log.md",)
STATE_DIR = ".folio"


def _stable(name: str) -> bool:
    """Whether a file's digest is the same for every build of the same inputs: bundles carry
    run details and ECDSA nonces, so do the buckets listing them; log.md has dates."""
    return not (name.endswith(BUNDLE_SUFFIX) or name in _VOLATILE_SUBJECTS
                or is_bucket_file(name))


def reproducible_view(rel: str, data: bytes) -> bytes:
    """``data`` itself for ordinary files; the run-independent part of a signed statement for
    ``*.dbom.json`` and the index root, and of the root's bucket files."""
    if is_bucket_file(rel):
        doc = json.loads(data)
        doc["files"] = [f if _stable(f["name"]) else {"name": f["name"]} for f in doc["files"]]
        return canonical_json(doc)
    if not (rel.endswith(BUNDLE_SUFFIX) or rel == ROOT_FILE):
        return data
    stmt = json.loads(base64.b64decode(json.loads(data)["dsseEnvelope"]["payload"]))
    if rel == ROOT_FILE:
        stmt["predicate"] = {k: stmt["predicate"][k]
                             for k in ("pages", "files", "buckets", "bucketScheme")}
        stmt["subject"] = [s if _stable(s["name"]) else {"name": s["name"]}
                           for s in stmt["subject"]]
    else:
        stmt["predicate"].pop("runDetails", None)
    return canonical_json(stmt)


def reproducible_files(root: Path, volatile: tuple[str, ...] = _VOLATILE_SUBJECTS) -> dict[str, bytes]:
    """Every file of a wiki (state folder and ``volatile`` files excepted) by its path, as
    :func:`reproducible_view` sees it: two builds of the same inputs give equal dicts."""
    out: dict[str, bytes] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if p.is_file() and STATE_DIR not in rel.parts and rel.as_posix() not in volatile:
            out[rel.as_posix()] = reproducible_view(rel.as_posix(), p.read_bytes())
    return out

"""``folio verify``, layer 1: the files present are exactly those the signed root pins.

The root (already verified as signed by a trusted key) pins each bucket file and aggregate file
by digest; each bucket whose digest matches is trusted for the files it lists. Every finding
names the file. Files whose bucket is missing or altered cannot be checked against the root:
the bucket's own finding says so once, instead of one "added" finding per file of it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from pydantic import ValidationError

from .index_root import (
    BUCKET_DIR, IndexBucket, IndexStatement, bucket_file, bucket_of, is_bucket_file,
)
from .verify_report import VerifyReport

_UNCHECKED = "; the files of its pages cannot be checked against the root"


def _bucket_name(rel: str) -> str:
    return rel[len(BUCKET_DIR) + 1:].removesuffix(".json")


def _read_bucket(rel: str, data: bytes, report: VerifyReport) -> dict[str, str] | None:
    """The files a bucket whose digest the root pinned lists, if it is well formed and lists
    only files that belong in it (a signer bug, not tampering: the digest already matched)."""
    try:
        bucket = IndexBucket.model_validate_json(data)
    except ValidationError as exc:
        report.add("statement", rel, f"{rel}: not a Folio index bucket "
                   f"({exc.errors()[0]['msg']}){_UNCHECKED}")
        return None
    name = _bucket_name(rel)
    wrong = [f.name for f in bucket.files if bucket_of(f.name) != name]
    if bucket.bucket != name or wrong:
        what = wrong[0] if wrong else f"bucket {bucket.bucket}"
        report.add("statement", rel, f"{rel}: lists {what}, which belongs in "
                   f"{bucket_file(bucket_of(what) if wrong else bucket.bucket)}{_UNCHECKED}")
        return None
    return bucket.digests()


def check_root(root: IndexStatement, present: Mapping[str, Path], sha_of: Callable[[str], str],
               report: VerifyReport) -> None:
    listed: dict[str, str] = {}  # file → sha256, from the buckets that verified
    bad: set[str] = set()  # buckets that did not
    pinned = root.digests()
    for rel in sorted(pinned):
        want = pinned[rel]
        if rel not in present:
            report.add("deleted", rel, f"{rel}: listed in the index root but missing (deleted or "
                       f"renamed){_UNCHECKED if is_bucket_file(rel) else ''}")
        elif sha_of(rel) != want:
            report.add("changed", rel, f"{rel}: sha256 {sha_of(rel)[:16]}… differs from the "
                       f"index root's {want[:16]}…{_UNCHECKED if is_bucket_file(rel) else ''}")
        elif is_bucket_file(rel):
            files = _read_bucket(rel, present[rel].read_bytes(), report)
            if files is not None:
                listed.update(files)
                continue
        else:
            continue
        if is_bucket_file(rel):
            bad.add(_bucket_name(rel))
    for rel in sorted(listed):
        if rel not in present:
            report.add("deleted", rel, f"{rel}: listed in the index root but missing "
                       "(deleted or renamed)")
        elif sha_of(rel) != listed[rel]:
            report.add("changed", rel, f"{rel}: sha256 {sha_of(rel)[:16]}… differs from the "
                       f"index root's {listed[rel][:16]}… ({bucket_file(bucket_of(rel))})")
    for rel in sorted(set(present) - set(listed) - set(pinned)):
        if is_bucket_file(rel):
            report.add("added", rel, f"{rel}: bucket not in the index root (added after the "
                       "compile)")
        elif bucket_of(rel) not in bad:
            report.add("added", rel, f"{rel}: not in the index root (added after the compile)")

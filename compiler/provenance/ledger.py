"""What the index root pins, kept in the compile state so that an incremental compile re-signs
the root from the few rows it changed, never from a listing of every file.

Two tables (created with the rest of the state, ``compiler/state.py``):

* ``page_bundles``: every page's bucket and the sha256 of its bundle as last written ('' when
  the page could not be signed); the page's own and its sidecar's sha256 are in ``pages``;
* ``root_subjects``: the signed root's subjects as last signed: each non-empty bucket file and
  each aggregate file, with its sha256 and how many files it lists.

They live in the state, inside the compile's transaction, so they roll back with the pages a
failed compile did not commit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .index_root import SIDECAR_SUFFIX, bundle_name

if TYPE_CHECKING:
    from ..state import State

_SIGNER = "root_signer"  # meta key: identity that signed the bundles the ledger lists


def _chunks(items: Sequence[str], size: int = 500) -> Iterable[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def signer(st: State) -> str | None:
    return st.meta(_SIGNER)


def reset(st: State, identity: str | None) -> None:
    """Forget every bundle and subject (a full re-sign follows); ``identity`` None means the
    wiki is no longer signed, so the next signed compile must re-sign every page."""
    st.db.execute("DELETE FROM page_bundles")
    st.db.execute("DELETE FROM root_subjects")
    if identity is None:
        st.db.execute("DELETE FROM meta WHERE key=?", (_SIGNER,))
    else:
        st.set_meta(_SIGNER, identity)


def put_bundles(st: State, rows: Iterable[tuple[str, str, str]]) -> None:
    """(page id, bucket, bundle sha256 or '')."""
    st.db.executemany("INSERT OR REPLACE INTO page_bundles VALUES (?,?,?)", rows)


def drop_pages(st: State, page_ids: Iterable[str]) -> None:
    st.db.executemany("DELETE FROM page_bundles WHERE entity_id=?", [(e,) for e in page_ids])


def signed_pages(st: State) -> Iterable[str]:
    """Page ids with a bundle."""
    return (e for (e,) in st.db.execute("SELECT entity_id FROM page_bundles WHERE sha256 != ''"))


def pages_of(st: State, page_ids: Iterable[str]) -> dict[str, tuple[str, str, str]]:
    """page id → (path, page sha256, sidecar sha256), for the pages that exist."""
    out: dict[str, tuple[str, str, str]] = {}
    for chunk in _chunks(sorted(page_ids)):
        marks = ",".join("?" * len(chunk))
        for eid, path, sha, sc_sha in st.db.execute(
                "SELECT entity_id, path, sha256, sidecar_sha256 FROM pages "
                f"WHERE entity_id IN ({marks})", chunk):
            out[eid] = (path, sha, sc_sha)
    return out


def bucket_members(st: State, bucket: str) -> list[tuple[str, str]]:
    """(path, sha256) of every file of the pages in ``bucket``."""
    files: list[tuple[str, str]] = []
    for eid, path, sha, sc_sha, b_sha in st.db.execute(
            "SELECT p.entity_id, p.path, p.sha256, p.sidecar_sha256, b.sha256 "
            "FROM page_bundles b JOIN pages p ON p.entity_id = b.entity_id WHERE b.bucket=?",
            (bucket,)):
        files.append((path, sha))
        files.append((eid + SIDECAR_SUFFIX, sc_sha))
        if b_sha:
            files.append((bundle_name(eid), b_sha))
    return files


def subjects(st: State) -> dict[str, tuple[str, int]]:
    """Root subject → (sha256, files it stands for)."""
    return {name: (sha, n) for name, sha, n in st.db.execute(
        "SELECT name, sha256, files FROM root_subjects")}


def put_subject(st: State, name: str, sha: str, files: int) -> None:
    st.db.execute("INSERT OR REPLACE INTO root_subjects VALUES (?,?,?)", (name, sha, files))


def drop_subject(st: State, name: str) -> None:
    st.db.execute("DELETE FROM root_subjects WHERE name=?", (name,))

"""Find page bundles deleted behind the compile's back, without listing every bundle.

A compile restores a missing ``<page>.dbom.json`` (``verify`` would report the page unsigned).
Listing every page folder to find one cost an incremental compile of a 100k-page wiki ~300k
directory entries (0.3-2 s on the development machine). Deleting a file changes its folder's
mtime, so each compile remembers the mtime of every page folder as it left it (state meta
``bundle_dirs``), and the next one lists only folders whose mtime moved: none, normally.

Limit: a deletion in the same filesystem timestamp tick as the compile's last write into that
folder (a few ms, while the compile still runs) is not seen; ``verify`` still reports the page,
and ``folio compile --full`` re-signs it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from .index_root import BUNDLE_SUFFIX

if TYPE_CHECKING:
    from ..state import State

_META = "bundle_dirs"


def bundles_in(out: Path, folder: str) -> set[str]:
    """Page ids with a bundle file in ``folder``, from one listing."""
    try:
        entries = list(os.scandir(out / folder))
    except (FileNotFoundError, NotADirectoryError):
        return set()
    return {f"{folder}/{e.name[:-len(BUNDLE_SUFFIX)]}" for e in entries
            if e.name.endswith(BUNDLE_SUFFIX) and e.is_file()}


def _mtime(out: Path, folder: str) -> int | None:
    try:
        return os.stat(out / folder).st_mtime_ns
    except FileNotFoundError:
        return None


def _signed_in(st: State, folder: str) -> set[str]:
    # page ids are [a-z0-9-]+/…, and "0" sorts right after "/": a primary-key range scan
    return {e for (e,) in st.db.execute(
        "SELECT entity_id FROM page_bundles WHERE sha256 != '' AND entity_id >= ? "
        "AND entity_id < ?", (folder + "/", folder + "0"))}


def _ledger_folders(st: State) -> list[str]:
    return [f for (f,) in st.db.execute(
        "SELECT DISTINCT substr(entity_id, 1, instr(entity_id, '/') - 1) FROM page_bundles")]


def missing_bundles(st: State, out: Path) -> set[str]:
    """Pages the ledger says have a bundle whose file is gone, looked for only in folders
    changed since the last compile (every folder when no compile recorded them)."""
    raw = st.meta(_META)
    folders: dict[str, int | None] = (
        json.loads(raw) if raw is not None else dict.fromkeys(_ledger_folders(st)))
    missing: set[str] = set()
    for folder, mtime in folders.items():
        if mtime is not None and _mtime(out, folder) == mtime:
            continue
        missing |= _signed_in(st, folder) - bundles_in(out, folder)
    return missing


def remember_folders(st: State, out: Path, folders: Iterable[str]) -> None:
    """Record the mtime of ``folders`` and of those already recorded, after this compile's
    last write into them."""
    raw = st.meta(_META)
    known = json.loads(raw) if raw is not None else {}
    # with nothing recorded, every folder of the ledger, not only those this compile wrote to
    names = set(known) | set(folders) | (set(_ledger_folders(st)) if raw is None else set())
    now = {f: m for f in sorted(names) if (m := _mtime(out, f)) is not None}
    if now != known:
        st.set_meta(_META, json.dumps(now, sort_keys=True))


def forget_folders(st: State) -> None:
    st.db.execute("DELETE FROM meta WHERE key=?", (_META,))

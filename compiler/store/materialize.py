"""Read a published wiki: sync HEAD's tree into a local cache folder that every ``folio``
command reads as if it were a compiled wiki.

Only blobs whose digest differs from what the cache holds are downloaded, each checked against
its digest before it is written. A marker naming the synced generation is removed before the
sync starts and written after it ends, so a sync killed half-way is redone, never trusted.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pydantic import BaseModel, ValidationError

from ..atomic import remove_if_exists, write_atomic
from ..settings import FolioSettings
from .base import Store, StoreError, get_verified
from .layout import HEAD_KEY, Head, Tree, blob_key, tree_key
from .publish import ANSWERS_DIR, Progress, _NoProgress, read_head

MARKER = "synced.json"
TREE_COPY = "tree.json"
WIKI = "wiki"


class Synced(BaseModel):
    store: str
    generation: int
    tree: str
    downloaded: int = 0
    removed: int = 0


def cache_folder(store: Store, settings: FolioSettings) -> Path:
    """One folder per store URL: readable name plus a digest so distinct URLs never collide."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", store.url.split("://", 1)[-1])[:80]
    digest = hashlib.sha256(store.url.encode()).hexdigest()[:12]
    return settings.cache_dir.expanduser() / f"{name}-{digest}"


def _sha256(path: Path) -> str | None:
    try:
        with open(path, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except FileNotFoundError:
        return None


def _load_tree(store: Store, digest: str) -> Tree:
    key = tree_key(digest)
    data = get_verified(store, key, digest, missing=f"named by {HEAD_KEY} but missing",
                        corrupt="content does not match its digest")
    try:
        return Tree.model_validate_json(data)
    except ValidationError as exc:
        raise StoreError(f"{store.url}/{key}: not a Folio tree ({exc})") from None


def _cached_tree(folder: Path) -> Tree | None:
    """The tree of the last *completed* sync (the marker is written after the tree copy)."""
    if not (folder / MARKER).is_file():
        return None
    try:
        return Tree.model_validate_json((folder / TREE_COPY).read_bytes())
    except (OSError, ValueError):
        return None


def materialize(store: Store, settings: FolioSettings | None = None,
                progress: Progress | None = None) -> tuple[Path, Synced]:
    """Sync the store's HEAD into the cache; returns the wiki folder and what was done."""
    settings = settings or FolioSettings()
    bar = progress or _NoProgress()
    folder = cache_folder(store, settings)
    folder.mkdir(parents=True, exist_ok=True)
    wiki = folder / WIKI
    # one sync per cache folder at a time: two commands started together must not interleave
    with open(folder / "lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = read_head(store)
        if found is None:
            raise StoreError(f"{store.url}: nothing published here (no {HEAD_KEY})")
        head: Head = found[0]
        try:
            done = Synced.model_validate_json((folder / MARKER).read_bytes())
        except (OSError, ValueError):
            done = None
        if done and done.tree == head.tree and done.store == store.url and wiki.is_dir():
            return wiki, Synced(store=store.url, generation=head.generation, tree=head.tree)
        old = _cached_tree(folder)
        remove_if_exists(folder / MARKER)  # from here on the cache is "being synced"
        tree = _load_tree(store, head.tree)
        need: list[tuple[str, str]] = []
        for rel, entry in tree.files.items():
            path = wiki / rel
            if old is not None and rel in old.files:
                same = (old.files[rel].sha256 == entry.sha256 and path.is_file()
                        and path.stat().st_size == entry.size)
            else:  # no trusted memory of this file: hash what is there
                same = _sha256(path) == entry.sha256
            if not same:
                need.append((rel, entry.sha256))
        bar.phase("download", len(need))

        def fetch(item: tuple[str, str]) -> None:
            rel, digest = item
            data = get_verified(
                store, blob_key(digest), digest, missing=f"blob of {rel} is missing",
                corrupt=f"blob of {rel} does not match its sha256 (tampered or corrupted in "
                        "the store)")
            write_atomic(wiki / rel, data)
            bar.advance()

        with ThreadPoolExecutor(settings.s3_concurrency) as pool:
            list(pool.map(fetch, sorted(need)))
        removed = _prune(wiki, set(tree.files))
        write_atomic(folder / TREE_COPY, tree.to_bytes(), durable=True)
        synced = Synced(store=store.url, generation=head.generation, tree=head.tree,
                        downloaded=len(need), removed=removed)
        write_atomic(folder / MARKER, synced.model_dump_json().encode(), durable=True)
    return wiki, synced


def _prune(wiki: Path, keep: set[str]) -> int:
    """Remove files the published tree does not have (pages deleted since the last sync),
    keeping answer records fetched or written locally for ``folio audit``."""
    removed = 0
    for dirpath, dirnames, filenames in os.walk(wiki, topdown=False):
        rel_dir = Path(dirpath).relative_to(wiki).as_posix()
        if rel_dir == ANSWERS_DIR or rel_dir.startswith(f"{ANSWERS_DIR}/"):
            continue
        for name in filenames:
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if rel not in keep:
                os.unlink(os.path.join(dirpath, name))
                removed += 1
        if dirpath != str(wiki) and not os.listdir(dirpath):
            os.rmdir(dirpath)
    return removed

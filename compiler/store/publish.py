"""``folio publish``: upload a compiled wiki to a store as one new generation.

Order is the guarantee: every blob first, then the tree that names them, then HEAD, replaced
with a conditional put against the HEAD this publish started from. A publish stopped anywhere
leaves HEAD on the previous generation; rerunning it skips the blobs already uploaded and ends
with the same tree an uninterrupted run would have written.
"""

from __future__ import annotations

import fcntl
import hashlib
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from ..provenance.index_root import ROOT_FILE
from ..provenance.verify import wiki_files
from ..settings import FolioSettings
from .base import LostUpdate, NotFound, Store, StoreError
from .layout import (
    ANSWERS, BLOBS, HEAD_KEY, STATE_SNAPSHOT, Head, Tree, TreeEntry, blob_key, tree_key,
)

STATE_DIR = ".folio"
ANSWERS_DIR = ".answers"


class Progress(Protocol):
    def phase(self, name: str, total: int) -> None: ...
    def advance(self, n: int = 1) -> None: ...


class _NoProgress:
    def phase(self, name: str, total: int) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass


class PublishReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    store: str
    generation: int
    tree: str
    root_sha256: str | None
    unchanged: bool  # HEAD already named this tree: no new generation
    files: int
    bytes_total: int
    uploaded: int  # blobs uploaded by this run (trees and HEAD not counted)
    skipped: int  # blobs the store already had
    bytes_uploaded: int
    answers_uploaded: int
    seconds: float


class Staged(BaseModel):
    """Everything uploaded but HEAD: :func:`commit` makes it the published generation."""

    model_config = ConfigDict(frozen=True)

    head: Head
    base_etag: str | None  # version of HEAD this publish builds on (None: first publish)
    base_tree: str | None
    uploaded: int
    skipped: int
    bytes_uploaded: int
    answers_uploaded: int
    started: float


@contextmanager
def _compile_lock(wiki: Path) -> Iterator[None]:
    """The compile's own lock: a wiki half-way through a compile is never published."""
    folio = wiki / STATE_DIR
    if not (folio / "state.db").is_file():
        raise StoreError(f"{wiki}: not a compiled wiki (no {STATE_DIR}/state.db)")
    with open(folio / "lock", "a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreError(f"{wiki}: a compile is running; publish after it finishes") from None
        yield


def _snapshot_state(wiki: Path, dest: Path) -> None:
    """A consistent copy of the live state DB through SQLite's backup API (a file copy could
    catch a half-applied WAL), as one self-contained file (rollback journal, no -wal)."""
    src = sqlite3.connect(f"file:{wiki / STATE_DIR / 'state.db'}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(dest)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE").fetchone()
        finally:
            dst.close()
    finally:
        src.close()


def _sha256(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def collect(wiki: Path, scratch: Path) -> dict[str, Path]:
    """What readers get: every file verify checks, the signed root and the state snapshot.
    Nothing else under .folio/ (LLM cache, compile memory, locks) and never a key: signing
    keys live outside the wiki (FOLIO_KEY_PATH)."""
    from ..staging import recover

    recover(wiki)  # a generation a killed compile committed is published whole (staging.py)
    files = wiki_files(wiki)
    if (wiki / ROOT_FILE).is_file():
        files[ROOT_FILE] = wiki / ROOT_FILE
    _snapshot_state(wiki, scratch / "state.db")
    files[STATE_SNAPSHOT] = scratch / "state.db"
    return files


def read_head(store: Store) -> tuple[Head, str] | None:
    cur = store.get_versioned(HEAD_KEY)
    if cur is None:
        return None
    try:
        return Head.model_validate_json(cur.data), cur.etag
    except ValueError as exc:
        raise StoreError(f"{store.url}/{HEAD_KEY}: not a Folio HEAD ({exc})") from None


def stage(wiki: Path, store: Store, settings: FolioSettings | None = None,
          progress: Progress | None = None, expected_generation: int | None = None) -> Staged:
    """Upload blobs, answers and the tree; read the HEAD to build on first."""
    settings = settings or FolioSettings()
    bar = progress or _NoProgress()
    started = time.monotonic()
    with _compile_lock(wiki), tempfile.TemporaryDirectory(prefix="folio-publish-") as tmp:
        files = collect(wiki, Path(tmp))
        bar.phase("hash", len(files))
        entries: dict[str, TreeEntry] = {}
        for rel, path in files.items():
            entries[rel] = TreeEntry(sha256=_sha256(path), size=path.stat().st_size)
            bar.advance()
        tree = Tree(files=entries)
        base = read_head(store)
        base_gen = base[0].generation if base else 0
        if expected_generation is not None and base_gen != expected_generation:
            raise LostUpdate(f"{store.url}/{HEAD_KEY} is at generation {base_gen}, "
                             f"not {expected_generation}")
        present = {k.rsplit("/", 1)[-1] for k in store.list(BLOBS)}
        todo: dict[str, Path] = {}
        for rel, e in entries.items():
            if e.sha256 not in present:
                todo.setdefault(e.sha256, files[rel])
        bar.phase("upload", len(todo))

        def upload(item: tuple[str, Path]) -> int:
            digest, path = item
            data = path.read_bytes()
            if hashlib.sha256(data).hexdigest() != digest:  # the lock makes this a bug guard
                raise StoreError(f"{path}: changed while publishing; publish again")
            store.put(blob_key(digest), data)
            bar.advance()
            return len(data)

        with ThreadPoolExecutor(settings.s3_concurrency) as pool:
            sent = sum(pool.map(upload, sorted(todo.items())))
        answers = _upload_answers(wiki, store)
        store.put(tree_key(tree.digest()), tree.to_bytes())  # after every blob it names
    root = entries.get(ROOT_FILE)
    head = Head(
        generation=base_gen + 1, tree=tree.digest(),
        root_sha256=root.sha256 if root else None, files=len(entries),
        bytes=sum(e.size for e in entries.values()),
        published_at=datetime.now(UTC).replace(microsecond=0),
        publisher=settings.builder_id, previous_tree=base[0].tree if base else None)
    return Staged(head=head, base_etag=base[1] if base else None,
                  base_tree=base[0].tree if base else None, uploaded=len(todo),
                  skipped=len({e.sha256 for e in entries.values()}) - len(todo),
                  bytes_uploaded=sent, answers_uploaded=answers, started=started)


def _upload_answers(wiki: Path, store: Store) -> int:
    """Signed answer records are immutable and named by their digest-derived id, so they live
    beside the generations rather than in them: an audit finds them whatever HEAD is now."""
    folder = wiki / ANSWERS_DIR
    if not folder.is_dir():
        return 0
    have = {k.rsplit("/", 1)[-1] for k in store.list(ANSWERS)}
    n = 0
    for path in sorted(folder.glob("*.json")):
        if path.name not in have:
            store.put(f"{ANSWERS}{path.name}", path.read_bytes())
            n += 1
    return n


def commit(store: Store, staged: Staged) -> PublishReport:
    """Make the staged tree the published generation: a conditional put of HEAD, refused with
    :class:`LostUpdate` when another publish moved HEAD since :func:`stage` read it."""
    head = staged.head
    unchanged = staged.base_tree == head.tree
    if not unchanged:
        store.put_if(HEAD_KEY, head.to_bytes(), staged.base_etag)
    else:
        # nothing to write, but the caller is told its tree is current: only true if no other
        # publish moved HEAD since stage() read it
        now = store.get_versioned(HEAD_KEY)
        if now is None or now.etag != staged.base_etag:
            raise LostUpdate(f"{store.url}/{HEAD_KEY} changed since it was read (expected "
                             f"{staged.base_etag}, found {now.etag if now else 'none'})")
    return PublishReport(
        store=store.url, generation=head.generation - 1 if unchanged else head.generation,
        tree=head.tree, root_sha256=head.root_sha256, unchanged=unchanged, files=head.files,
        bytes_total=head.bytes, uploaded=staged.uploaded, skipped=staged.skipped,
        bytes_uploaded=staged.bytes_uploaded, answers_uploaded=staged.answers_uploaded,
        seconds=round(time.monotonic() - staged.started, 3))


def publish_wiki(wiki: Path, store: Store, settings: FolioSettings | None = None,
                 progress: Progress | None = None,
                 expected_generation: int | None = None) -> PublishReport:
    """Publish ``wiki`` to ``store`` (the Python API Prefect flows call)."""
    return commit(store, stage(wiki, store, settings, progress, expected_generation))


def fetch_answer(store: Store, wiki: Path, rid: str) -> bool:
    """Copy a published answer record into a materialised wiki (for ``folio audit``)."""
    if not rid.isalnum():
        return False  # ids are hex digits; anything else is not a key to look up
    dest = wiki / ANSWERS_DIR / f"{rid}.json"
    if dest.is_file():
        return True
    try:
        data = store.get(f"{ANSWERS}{rid}.json")
    except NotFound:
        return False
    from ..atomic import write_atomic

    write_atomic(dest, data)
    return True

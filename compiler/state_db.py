"""The compile state's connection: opened read-only or for a compile (a first compile builds
its state under another name, without a journal, and renames it into place when it commits),
transactions, meta values, and what every table group (compiler/state_*.py) shares."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from .state_schema import _RESETTABLE, SCHEMA, upgrade

_CACHE_SIZE = "PRAGMA cache_size=-200000"


def chunks(items: Sequence[str], size: int = 500) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


class StateDB:
    """The connection, and the bookkeeping every table group of the state shares."""

    def __init__(self, path: Path, readonly: bool = False) -> None:
        self.path = path
        self._building: Path | None = None
        self._next_rowid: dict[str, int] = {}
        self._claim_delta = 0  # claims this compile stored minus those it dropped
        if readonly:
            if not path.exists():
                raise FileNotFoundError(f"{path}: no compile state here (run `folio compile` first)")
            self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            # A first compile builds its state under another name, without a journal, and
            # renames it into place when it commits: a crash leaves no state (the rerun starts
            # over), and the whole state is written once instead of through the WAL and back.
            self._building = None if path.exists() else path.with_name(path.name + ".new")
            if self._building is not None:
                self._building.unlink(missing_ok=True)  # left by a crashed first compile
                self.db = sqlite3.connect(self._building, isolation_level=None)
                self.db.execute("PRAGMA journal_mode=OFF")
                self.db.execute("PRAGMA synchronous=OFF")
            else:
                self.db = sqlite3.connect(path, isolation_level=None)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
            upgrade(self.db)
            self.db.executescript(SCHEMA)
        self.db.execute(_CACHE_SIZE)

    @property
    def first_build(self) -> bool:
        """No state existed: this compile builds the wiki's first (nothing was committed yet)."""
        return self._building is not None

    # -- transactions ---------------------------------------------------------------------
    def begin(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self.db.execute("COMMIT")
        if self._building is not None:
            self._move_into_place(self._building)

    def _move_into_place(self, built: Path) -> None:
        """The first compile's commit: the built state, synced, becomes the state."""
        self.db.execute("PRAGMA journal_mode=WAL")  # kept in the file's header
        self.db.close()
        fd = os.open(built, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(built, self.path)
        fd = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        self._building = None
        self.db = sqlite3.connect(self.path, isolation_level=None)
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(_CACHE_SIZE)

    def rollback(self) -> None:
        if self._building is not None:  # without a journal there is nothing to roll back to
            self.db.close()
            self._building.unlink(missing_ok=True)
            return
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")

    def close(self) -> None:
        self.db.close()

    def release_memory(self) -> None:
        """Drop the page cache (it refills from the OS's file cache as needed)."""
        self.db.execute("PRAGMA shrink_memory")

    @contextmanager
    def deferred_indexes(self, *tables: str) -> Iterator[None]:
        """Fill empty ``tables`` without their indexes and build those at the end: one sorted
        build each instead of an insert per row into every index (at 100k records the claim
        indexes outgrow the cache and every insert is a miss). Inside, nothing may query
        those tables by an index. Tables that hold rows keep their indexes."""
        marks = ",".join("?" * len(tables))
        if any(self.db.execute(f"SELECT 1 FROM {t} LIMIT 1").fetchone()  # noqa: S608
               for t in tables):
            yield
            return
        indexes = self.db.execute(
            f"SELECT name, sql FROM sqlite_master WHERE type='index' AND sql IS NOT NULL "
            f"AND tbl_name IN ({marks}) ORDER BY name", tables).fetchall()
        for name, _ in indexes:
            self.db.execute(f'DROP INDEX "{name}"')
        yield  # an error rolls the whole compile back, the dropped indexes with it
        for _, sql in indexes:
            self.db.execute(sql)

    # -- meta -------------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def reset_inputs(self) -> None:
        """Forget every input and claim (the policy or backend changed); pages stay listed so
        the rebuild can remove the ones that no longer exist."""
        for table in _RESETTABLE:
            self.db.execute(f"DELETE FROM {table}")  # noqa: S608 - fixed table names

    def _take_rowids(self, table: str, n: int) -> int:
        """The first of ``n`` fresh FTS rowids (explicit rowids let the side table be
        written in one batch)."""
        nxt = self._next_rowid.get(table)
        if nxt is None:
            row = self.db.execute(
                f"SELECT rowid FROM {table} ORDER BY rowid DESC LIMIT 1").fetchone()  # noqa: S608
            nxt = (row[0] if row else 0) + 1
        self._next_rowid[table] = nxt + n
        return nxt

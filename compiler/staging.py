"""Generations: a reader sees the wiki of the previous compile or of this one, never a mix,
whatever point a compile is killed at (SIGKILL included).

A compile writes nothing into the visible wiki while it works. Every file it creates or changes
goes into the stage ``.folio/stage/`` (same relative path); every file it removes is noted. At
the end, in the same SQLite transaction that commits the compile's state, it writes the commit
journal: the table ``generation_journal`` of moves (stage → wiki) and deletes. That commit is
the one instant the new generation comes into being. Then the journal is applied (renames and
unlinks, each idempotent) and emptied.

- killed before the commit: the state rolls back (SQLite) and the stage is debris; the wiki is
  the previous generation, untouched. The next compile clears the stage;
- killed after the commit: the state is the new generation's; whoever opens the wiki next (a
  compile, ``verify``, ``query``, ``show``, ``lint``, ``export``) finds the journal non-empty
  and rolls it forward before reading (:func:`recover`), so it reads the new generation.

Concurrent readers take ``.folio/generation.lock`` shared while they read (``verify``), the
writer takes it exclusive from just before its commit until the journal is applied, so a
reader never reads files during the renames. Details and the operator files:
``docs/provenance.md`` ("Generations").

A first compile's stage holds whole page folders the wiki does not have yet: each moves in with
one rename (a clean build of 100k records creates ~300k files, created once each, directly).

Not covered: power loss. Staged files are not fsynced (the previous design did not fsync pages
either); SQLite's commit is. After a power cut right after a commit, a rolled-forward file may
be empty: ``verify`` names it and ``folio compile --full`` rewrites it.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import signal
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from . import retire

STATE_DIR = ".folio"
STAGE = "stage"
RETIRED = "retired"  # replaced and removed files until the reaper frees them (retire.py)
LOCK = "generation.lock"
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
_JOURNAL_SQL = ("CREATE TABLE IF NOT EXISTS generation_journal "
                "(seq INTEGER PRIMARY KEY, op TEXT NOT NULL, rel TEXT NOT NULL)")
# the temp files of compiler.atomic.write_atomic: ".<name>.<pid>.tmp"
_TEMP = re.compile(r"^\..+\.\d+\.tmp$")


# -- test hook: a real SIGKILL at the n-th file operation of a phase --------------------------
# FOLIO_TEST_KILL_AT=<phase>:<n>, phases: stage (n-th staged file), journal (before the commit),
# commit (after the commit, before applying), apply (n-th move or delete). Read once per process;
# only the process that created the generation kills itself (never a forked worker).
_KILL_AT = os.environ.get("FOLIO_TEST_KILL_AT", "")
_counts: dict[str, int] = {}


def _checkpoint(phase: str) -> None:
    if not _KILL_AT:
        return
    want, _, n = _KILL_AT.partition(":")
    if want != phase:
        return
    _counts[phase] = _counts.get(phase, 0) + 1
    if _counts[phase] == int(n or 1):
        os.kill(os.getpid(), signal.SIGKILL)


# -- locking ----------------------------------------------------------------------------------
@contextmanager
def generation_lock(wiki: Path, exclusive: bool) -> Iterator[None]:
    """Writers hold it exclusive while a generation is committed and applied; readers hold it
    shared while they read. A wiki whose state folder cannot be written (a read-only copy) has
    no writer, and is read unlocked."""
    path = wiki / STATE_DIR / LOCK
    try:
        fh = open(path, "a")
    except OSError:
        yield
        return
    with fh:
        fcntl.flock(fh, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield


# -- the writer's side -------------------------------------------------------------------------
class Generation:
    """The files one compile writes and removes, relative to the wiki, until it commits."""

    def __init__(self, wiki: Path) -> None:
        self.wiki = wiki
        self.stage = wiki / STATE_DIR / STAGE
        # anything here belongs to a compile that never committed (recover() ran first)
        shutil.rmtree(self.stage, ignore_errors=True)
        self.stage.mkdir(parents=True)
        self._stage_root = os.fspath(self.stage)
        self._trash = os.fspath(wiki / STATE_DIR / RETIRED)
        self._wiki_root = os.fspath(wiki)
        self.written: set[str] = set()
        self.removed: set[str] = set()
        self._pid = os.getpid()

    def write(self, rel: str, data: bytes) -> None:
        """Stage ``rel``. Safe in a forked worker too; the parent then calls :meth:`note`."""
        path = os.path.join(self._stage_root, rel)
        # a file an earlier generation retired costs less than a new one (retire.py)
        fd = retire.reuse(path, self._trash)
        reused = fd is not None
        if fd is None:
            try:
                fd = os.open(path, _CREATE, 0o644)
            except FileNotFoundError:  # the page type's folder is new: created once per type
                os.makedirs(os.path.dirname(path), exist_ok=True)
                fd = os.open(path, _CREATE, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if reused:
                retire.finish(fd, len(data))
        finally:
            os.close(fd)
        if os.getpid() == self._pid:
            self.note(rel)

    def in_worker(self) -> bool:
        """Whether this is a forked worker (whose writes the parent then notes)."""
        return os.getpid() != self._pid

    def note(self, rel: str) -> None:
        """``rel`` was staged (by this process or a forked worker)."""
        self.written.add(rel)
        self.removed.discard(rel)
        _checkpoint("stage")

    def remove(self, rel: str) -> bool:
        """Remove ``rel`` from the next generation; whether it existed."""
        existed = False
        if rel in self.written:
            self.written.discard(rel)
            os.unlink(os.path.join(self._stage_root, rel))
            existed = True
        if os.path.lexists(os.path.join(self._wiki_root, rel)):
            self.removed.add(rel)
            existed = True
        return existed

    def exists(self, rel: str) -> bool:
        if rel in self.written:
            return True
        return rel not in self.removed and os.path.exists(os.path.join(self._wiki_root, rel))

    def read_bytes(self, rel: str) -> bytes:
        """``rel`` as the next generation will hold it."""
        if rel in self.written:
            return Path(self._stage_root, rel).read_bytes()
        if rel in self.removed:
            raise FileNotFoundError(rel)
        return Path(self._wiki_root, rel).read_bytes()

    def plan(self) -> list[tuple[str, str]]:
        """The journal: (op, rel) in order. A top-level folder the wiki lacks moves whole."""
        ops: list[tuple[str, str]] = []
        whole: set[str] = set()
        for rel in sorted(self.written):
            top, sep, _ = rel.partition("/")
            if sep and top not in whole and not os.path.lexists(os.path.join(self._wiki_root, top)):
                whole.add(top)
                ops.append(("move", top))
            elif not (sep and top in whole):
                ops.append(("move", rel))
        ops += [("delete", rel) for rel in sorted(self.removed)]
        return ops

    def journal(self, db: sqlite3.Connection) -> None:
        """Write the journal into the open transaction that commits the compile's state."""
        _checkpoint("journal")
        db.execute(_JOURNAL_SQL)
        db.execute("DELETE FROM generation_journal")
        db.executemany("INSERT INTO generation_journal (op, rel) VALUES (?, ?)", self.plan())

    def discard(self) -> None:
        shutil.rmtree(self.stage, ignore_errors=True)


# -- applying a committed journal (the writer right after its commit, or any later reader) --
def _move(stage: Path, wiki: Path, rel: str) -> None:
    src, dst = stage / rel, wiki / rel
    if not os.path.lexists(src):
        return  # applied already
    if src.is_dir() and not src.is_symlink() and os.path.lexists(dst):
        # a folder that appeared meanwhile (only a crashed older compile can do that): merge
        for child in sorted(os.listdir(src)):
            _move(stage, wiki, f"{rel}/{child}")
        src.rmdir()
        return
    try:
        retire.replace(src, dst, wiki / STATE_DIR / RETIRED)
    except FileNotFoundError:
        dst.parent.mkdir(parents=True, exist_ok=True)
        os.replace(src, dst)


def _apply(wiki: Path, db: sqlite3.Connection) -> int:
    stage = wiki / STATE_DIR / STAGE
    rows = db.execute("SELECT op, rel FROM generation_journal ORDER BY seq").fetchall()
    for op, rel in rows:
        _checkpoint("apply")
        if op == "move":
            _move(stage, wiki, rel)
        else:
            retire.remove(wiki / rel, wiki / STATE_DIR / RETIRED)
    db.execute("DELETE FROM generation_journal")
    shutil.rmtree(stage, ignore_errors=True)
    # the replaced and removed files' blocks are freed in the background (retire.py)
    retire.release(wiki / STATE_DIR / RETIRED)
    return len(rows)


def _pending(db: sqlite3.Connection) -> bool:
    try:
        return db.execute("SELECT 1 FROM generation_journal LIMIT 1").fetchone() is not None
    except sqlite3.OperationalError:  # no journal table: nothing was ever journaled
        return False


def apply_committed(wiki: Path, db: sqlite3.Connection) -> int:
    """The writer, right after its commit (holding the generation lock): apply and empty the
    journal; returns how many operations it held."""
    _checkpoint("commit")
    if not _pending(db):
        shutil.rmtree(wiki / STATE_DIR / STAGE, ignore_errors=True)
        return 0
    return _apply(wiki, db)


def journal_pending(wiki: Path) -> bool:
    """Whether a generation is committed but not applied (one read of the state)."""
    path = wiki / STATE_DIR / "state.db"
    if not path.exists():
        return False
    try:
        ro = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return _pending(ro)
        finally:
            ro.close()
    except sqlite3.Error:
        return False


@contextmanager
def reading(wiki: Path) -> Iterator[None]:
    """Hold the current generation for a reader: rolled forward if committed, and no compile
    commits until the block ends."""
    while True:
        recover(wiki)
        with generation_lock(wiki, exclusive=False):
            # a writer killed between our recovery and our lock left a journal: go again
            if not journal_pending(wiki):
                yield
                return


def recover(wiki: Path) -> bool:
    """Roll a committed but unapplied generation forward, if there is one; whether there was.
    Cheap when there is none (one read of the state). Readers and writers call it first."""
    if not journal_pending(wiki):
        return False
    # Under the exclusive lock no writer is between its commit and its apply, and no compile
    # holds the state's write lock with a journal pending (a compile recovers before it
    # begins): reading the journal, applying it and emptying it (autocommit) cannot race.
    with generation_lock(wiki, exclusive=True):
        db = sqlite3.connect(wiki / STATE_DIR / "state.db", isolation_level=None, timeout=60)
        try:
            if not _pending(db):  # another process applied it meanwhile
                return False
            _apply(wiki, db)
        finally:
            db.close()
    return True


def sweep_temp_files(wiki: Path) -> int:
    """Remove temp files a killed writer of an older Folio left in the wiki (``.<name>.<pid>.tmp``);
    how many. Called by compiles that follow a crash and by full rebuilds."""
    removed = 0
    for dirpath, dirnames, filenames in os.walk(wiki):
        if dirpath == os.fspath(wiki):
            dirnames[:] = [d for d in dirnames if d != STATE_DIR]
        for name in filenames:
            if _TEMP.match(name):
                try:
                    os.unlink(os.path.join(dirpath, name))
                    removed += 1
                except FileNotFoundError:
                    pass
    for name in os.listdir(wiki / STATE_DIR) if (wiki / STATE_DIR).is_dir() else ():
        if _TEMP.match(name):
            try:
                os.unlink(wiki / STATE_DIR / name)
                removed += 1
            except FileNotFoundError:
                pass
    return removed


__all__ = ["Generation", "apply_committed", "generation_lock", "journal_pending", "reading",
           "recover", "sweep_temp_files"]

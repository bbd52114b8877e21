"""The compile state under ``<wiki>/.folio/state.db`` (SQLite): what each input file and
record was, what each record claimed, which pages exist, and the full-text search index.

A compile runs in one transaction; it commits after every page is on disk, so a crash leaves
the previous state, and the rerun redoes exactly the same work.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from .models import Claim, ClaimStatus, Conflict, Entity
from .registry import Declaration

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, sha256 TEXT, recorded_ns INTEGER);
CREATE TABLE IF NOT EXISTS records (
    key TEXT PRIMARY KEY, file TEXT NOT NULL, sha256 TEXT NOT NULL, version TEXT NOT NULL,
    entity_id TEXT NOT NULL, tier TEXT NOT NULL, max_age_days INTEGER NOT NULL,
    provenance_json TEXT NOT NULL DEFAULT '{}',
    record_json TEXT NOT NULL, extraction_json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS records_by_file ON records(file);
CREATE TABLE IF NOT EXISTS extraction_cache (
    backend TEXT NOT NULL, sha256 TEXT NOT NULL, extraction_json TEXT NOT NULL,
    PRIMARY KEY (backend, sha256));
CREATE TABLE IF NOT EXISTS declarations (
    record_key TEXT PRIMARY KEY, entity_id TEXT NOT NULL, type TEXT NOT NULL, name TEXT NOT NULL,
    aliases_json TEXT NOT NULL, rank INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS declarations_by_entity ON declarations(entity_id);
CREATE TABLE IF NOT EXISTS names (
    key TEXT NOT NULL, entity_id TEXT NOT NULL, type TEXT NOT NULL, rank INTEGER NOT NULL,
    PRIMARY KEY (key, entity_id));
CREATE INDEX IF NOT EXISTS names_by_entity ON names(entity_id);
CREATE TABLE IF NOT EXISTS entities (id TEXT PRIMARY KEY, entity_json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS claims (
    id TEXT NOT NULL, record_key TEXT NOT NULL, subject TEXT NOT NULL, attribute TEXT NOT NULL,
    kind TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'winner', claim_json TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS claims_by_id ON claims(id);
CREATE INDEX IF NOT EXISTS claims_by_record ON claims(record_key);
CREATE INDEX IF NOT EXISTS claims_by_subject ON claims(subject);
CREATE TABLE IF NOT EXISTS mentions (claim_id TEXT NOT NULL, subject TEXT NOT NULL,
    entity_id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS mentions_by_entity ON mentions(entity_id);
CREATE INDEX IF NOT EXISTS mentions_by_claim ON mentions(claim_id);
CREATE INDEX IF NOT EXISTS mentions_by_subject ON mentions(subject);
CREATE TABLE IF NOT EXISTS conflicts (
    id TEXT PRIMARY KEY, subject TEXT NOT NULL, state TEXT NOT NULL, conflict_json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS conflicts_by_subject ON conflicts(subject);
CREATE TABLE IF NOT EXISTS pages (
    entity_id TEXT PRIMARY KEY, path TEXT NOT NULL, sha256 TEXT NOT NULL,
    sidecar_sha256 TEXT NOT NULL, type TEXT NOT NULL, title TEXT NOT NULL, summary TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS page_index (
    entity_id TEXT PRIMARY KEY, type TEXT NOT NULL, sort_key TEXT NOT NULL, line TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS page_index_order ON page_index(type, sort_key, entity_id);
CREATE TABLE IF NOT EXISTS log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, day TEXT NOT NULL, op TEXT NOT NULL,
    title TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS file_errors (path TEXT NOT NULL, error_json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS file_errors_by_path ON file_errors(path);
CREATE TABLE IF NOT EXISTS principals (name TEXT PRIMARY KEY, groups_json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records_fts_rows (key TEXT PRIMARY KEY, fts_rowid INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS claims_fts_rows (
    subject TEXT PRIMARY KEY, first_rowid INTEGER NOT NULL, last_rowid INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS page_bundles (
    entity_id TEXT PRIMARY KEY, bucket TEXT NOT NULL, sha256 TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS page_bundles_by_bucket ON page_bundles(bucket);
CREATE TABLE IF NOT EXISTS item_digests (
    file TEXT NOT NULL, digest TEXT NOT NULL, key TEXT NOT NULL, id TEXT NOT NULL,
    sha256 TEXT NOT NULL, PRIMARY KEY (file, digest)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS page_input_digests (entity_id TEXT PRIMARY KEY, sha256 TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS root_subjects (
    name TEXT PRIMARY KEY, sha256 TEXT NOT NULL, files INTEGER NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS records_fts USING fts5(key UNINDEXED, text);
CREATE VIRTUAL TABLE IF NOT EXISTS claims_fts USING fts5(
    claim_id UNINDEXED, subject UNINDEXED, name, attribute, value, quote);
"""

# Bumped when the tables change shape; an older state is dropped and the wiki rebuilt.
# 4: the sharded index root's ledger (page_bundles, root_subjects; compiler/provenance/ledger.py)
# 5: claims.id is a unique index, not the primary key, so that a full build can build it last;
#    records keep their small columns before the JSON (a row is ~4 KB: a column after the JSON
#    is read through its overflow pages); a page's search rows are one rowid range
STATE_FORMAT = 5

# A claim is stored without the fields every claim of its record shares (source, authority,
# observed_at, acl: the last fields of Claim); they are stored once per record and spliced
# back, which gives exactly Claim.model_dump_json().
CLAIM_PROVENANCE = frozenset({"source", "authority", "observed_at", "acl"})
_FULL_JSON = ("substr(c.claim_json, 1, length(c.claim_json) - 1) || ',' || "
              "substr(r.provenance_json, 2)")
_WITH_RECORD = "claims c JOIN records r ON r.key = c.record_key"

_RESETTABLE = (
    "files", "file_errors", "records", "declarations", "names", "entities", "claims", "mentions", "conflicts",
    "records_fts", "claims_fts", "records_fts_rows", "claims_fts_rows", "page_input_digests",
    "item_digests",
)


_CACHE_SIZE = "PRAGMA cache_size=-200000"


def _chunks(items: Sequence[str], size: int = 500) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


class State:
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
            self._upgrade()
            self.db.executescript(SCHEMA)
        self.db.execute(_CACHE_SIZE)

    def _upgrade(self) -> None:
        """A state written by another format is only a cache of the sources: drop it (the
        changed config then forces a full rebuild), keeping the pages to clean up and the log."""
        (version,) = self.db.execute("PRAGMA user_version").fetchone()
        if version != STATE_FORMAT:
            # virtual tables first: dropping one drops its shadow tables
            for kind in ("virtual", "plain"):
                for name, sql in self.db.execute(
                        "SELECT name, sql FROM sqlite_master WHERE type='table' "
                        "AND name NOT LIKE 'sqlite_%'").fetchall():
                    virtual = (sql or "").upper().startswith("CREATE VIRTUAL")
                    if name not in ("pages", "log") and virtual == (kind == "virtual"):
                        self.db.execute(f'DROP TABLE IF EXISTS "{name}"')
            self.db.execute(f"PRAGMA user_version={STATE_FORMAT}")

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

    # -- files ------------------------------------------------------------------------------
    def files(self) -> dict[str, tuple[int, int, str, int]]:
        return {
            r[0]: (r[1], r[2], r[3], r[4])
            for r in self.db.execute("SELECT path, size, mtime_ns, sha256, recorded_ns FROM files")
        }

    def put_file(self, path: str, size: int, mtime_ns: int, sha: str, recorded_ns: int) -> None:
        self.db.execute("INSERT OR REPLACE INTO files VALUES (?,?,?,?,?)",
                        (path, size, mtime_ns, sha, recorded_ns))

    def drop_file(self, path: str) -> None:
        self.db.execute("DELETE FROM files WHERE path=?", (path,))
        self.db.execute("DELETE FROM item_digests WHERE file=?", (path,))
        self.db.execute("DELETE FROM file_errors WHERE path=?", (path,))

    def item_digests(self, files: Iterable[str]) -> dict[str, dict[str, tuple[str, str, str]]]:
        """file → {payload object digest → (record key, id, sha256)} of its last parse
        (connectors._common.ItemMemo)."""
        out: dict[str, dict[str, tuple[str, str, str]]] = {}
        for chunk in _chunks(list(files)):
            q = ("SELECT file, digest, key, id, sha256 FROM item_digests "
                 f"WHERE file IN ({','.join('?' * len(chunk))})")
            for file, digest, key, rid, sha in self.db.execute(q, chunk):
                out.setdefault(file, {})[digest] = (key, rid, sha)
        return out

    def update_item_digests(self, path: str, gone: Sequence[str],
                            rows: Sequence[tuple[str, str, str, str]]) -> None:
        """Remove the file's rows of digests ``gone`` and put ``rows`` (object digest, record
        key, id, sha256): an edited export rewrites only the rows of the objects that changed."""
        self.db.executemany("DELETE FROM item_digests WHERE file=? AND digest=?",
                            [(path, d) for d in gone])
        self.db.executemany("INSERT OR REPLACE INTO item_digests VALUES (?,?,?,?,?)",
                            [(path, *r) for r in rows])

    def set_file_errors(self, path: str, errors_json: Sequence[str]) -> None:
        self.db.execute("DELETE FROM file_errors WHERE path=?", (path,))
        self.db.executemany("INSERT INTO file_errors VALUES (?, ?)",
                            [(path, e) for e in errors_json])

    def file_errors(self, paths: Iterable[str]) -> list[str]:
        out: list[str] = []
        for chunk in _chunks(sorted(paths)):
            q = ("SELECT error_json FROM file_errors "
                 f"WHERE path IN ({','.join('?' * len(chunk))}) ORDER BY rowid")
            out.extend(r[0] for r in self.db.execute(q, chunk))
        return out

    # -- records ----------------------------------------------------------------------------
    def record_index(self) -> dict[str, tuple[str, str]]:
        """key → (sha256, file) of every stored record."""
        return {r[0]: (r[1], r[2]) for r in self.db.execute("SELECT key, sha256, file FROM records")}

    def record_index_of(self, keys: Iterable[str]) -> dict[str, tuple[str, str]]:
        """key → (sha256, file) of those keys that are stored."""
        out: dict[str, tuple[str, str]] = {}
        for chunk in _chunks(list(keys)):
            q = ("SELECT key, sha256, file FROM records "
                 f"WHERE key IN ({','.join('?' * len(chunk))})")
            out.update((r[0], (r[1], r[2])) for r in self.db.execute(q, chunk))
        return out

    def record_sha(self, key: str) -> str | None:
        row = self.db.execute("SELECT sha256 FROM records WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def record_file(self, key: str) -> str | None:
        row = self.db.execute("SELECT file FROM records WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_record_file(self, key: str, file: str) -> None:
        self.db.execute("UPDATE records SET file=? WHERE key=? AND file != ?", (file, key, file))

    def record_count(self) -> int:
        return self.db.execute("SELECT count(*) FROM records").fetchone()[0]

    def record_index_of_files(self, files: Iterable[str]) -> dict[str, tuple[str, str]]:
        """key → (sha256, file) of the records stored for ``files``."""
        out: dict[str, tuple[str, str]] = {}
        for chunk in _chunks(list(files)):
            q = ("SELECT key, sha256, file FROM records "
                 f"WHERE file IN ({','.join('?' * len(chunk))})")
            out.update((r[0], (r[1], r[2])) for r in self.db.execute(q, chunk))
        return out

    def load_records(self, keys: Iterable[str]) -> Iterator[tuple[str, str, str, str]]:
        """(key, record_json, extraction_json, sha256)."""
        for chunk in _chunks(sorted(keys)):
            q = ("SELECT key, record_json, extraction_json, sha256 FROM records "
                 f"WHERE key IN ({','.join('?' * len(chunk))})")
            yield from self.db.execute(q, chunk)

    def set_extractions(self, rows: Sequence[tuple[str, str]]) -> None:
        """(key, extraction_json): a stored record extracted again, its content unchanged."""
        self.db.executemany("UPDATE records SET extraction_json=? WHERE key=?",
                            [(ex, key) for key, ex in rows])

    def all_record_keys(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT key FROM records ORDER BY key")]

    def put_records(self, rows: Sequence[tuple]) -> None:
        """Many records at once: (key, file, sha, version, entity_id, record_json,
        extraction_json, tier, max_age_days, fts_text)."""
        keys = [(r[0],) for r in rows]
        self.db.executemany("DELETE FROM records_fts WHERE rowid IN "
                            "(SELECT fts_rowid FROM records_fts_rows WHERE key=?)", keys)
        self.db.executemany("DELETE FROM records_fts_rows WHERE key=?", keys)
        self.db.executemany(
            "INSERT OR REPLACE INTO records (key, file, sha256, version, entity_id, record_json, "
            "extraction_json, tier, max_age_days) VALUES (?,?,?,?,?,?,?,?,?)", [r[:9] for r in rows])
        start = self._take_rowids("records_fts", len(rows))
        self.db.executemany("INSERT INTO records_fts (rowid, key, text) VALUES (?,?,?)",
                            [(start + i, r[0], r[9]) for i, r in enumerate(rows)])
        self.db.executemany("INSERT INTO records_fts_rows VALUES (?, ?)",
                            [(r[0], start + i) for i, r in enumerate(rows)])

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

    def _unindex_record(self, key: str) -> None:
        # FTS5 cannot index an UNINDEXED column, so deletes go by rowid through a side table
        row = self.db.execute("SELECT fts_rowid FROM records_fts_rows WHERE key=?",
                              (key,)).fetchone()
        if row:
            self.db.execute("DELETE FROM records_fts WHERE rowid=?", row)
            self.db.execute("DELETE FROM records_fts_rows WHERE key=?", (key,))

    def drop_record(self, key: str) -> None:
        self.db.execute("DELETE FROM records WHERE key=?", (key,))
        self._unindex_record(key)

    def records_mentioning(self, name_key: str) -> set[str]:
        phrase = '"' + name_key.replace('"', '""') + '"'
        return {r[0] for r in self.db.execute(
            "SELECT key FROM records_fts WHERE records_fts MATCH ?", (phrase,))}

    def record_ages(self) -> Iterator[tuple[str, str, str, list[str]]]:
        """(key, version, updated_at, subjects it supports) of every record with claims."""
        for key, version, updated, subjects in self.db.execute(
                "SELECT r.key, r.version, json_extract(r.record_json, '$.updated_at'), "
                "group_concat(DISTINCT c.subject) FROM records r "
                "JOIN claims c ON c.record_key = r.key GROUP BY r.key ORDER BY r.key"):
            yield key, version, updated, sorted(subjects.split(","))

    def record_freshness(self) -> dict[str, tuple[str, int]]:
        return {r[0]: (r[1], r[2]) for r in
                self.db.execute("SELECT key, tier, max_age_days FROM records")}

    # -- extraction cache -------------------------------------------------------------------
    def cached_extraction(self, backend: str, sha: str) -> str | None:
        row = self.db.execute(
            "SELECT extraction_json FROM extraction_cache WHERE backend=? AND sha256=?",
            (backend, sha)).fetchone()
        return row[0] if row else None

    def extraction_usage(self, backend: str) -> dict[str, dict[str, float]]:
        """Record sha256 → the LLM usage its extraction by ``backend`` cost (records an
        offline backend extracted have none)."""
        rows = self.db.execute(
            "SELECT sha256, json_extract(extraction_json, '$.usage') FROM extraction_cache "
            "WHERE backend=? AND json_extract(extraction_json, '$.usage') NOT IN ('{}', '')",
            (backend,))
        return {sha: json.loads(js) for sha, js in rows if js}

    def cache_extraction(self, backend: str, sha: str, extraction_json: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO extraction_cache VALUES (?,?,?)",
                        (backend, sha, extraction_json))

    # -- declarations, names, entities ------------------------------------------------------
    def declarations_of_records(self, keys: Iterable[str]) -> dict[str, Declaration]:
        out: dict[str, Declaration] = {}
        for chunk in _chunks(list(keys)):
            q = ("SELECT record_key, entity_id, type, name, aliases_json, rank FROM declarations "
                 f"WHERE record_key IN ({','.join('?' * len(chunk))})")
            for rk, eid, t, n, a, rank in self.db.execute(q, chunk):
                out[rk] = Declaration(rk, eid, t, n, tuple(json.loads(a)), rank)
        return out

    def all_declarations(self) -> Iterator[Declaration]:
        for rk, eid, t, n, a, rank in self.db.execute(
                "SELECT record_key, entity_id, type, name, aliases_json, rank FROM declarations"):
            yield Declaration(rk, eid, t, n, tuple(json.loads(a)), rank)

    def declarations_of_entity(self, entity_id: str) -> list[Declaration]:
        return self.declarations_of_entities([entity_id]).get(entity_id, [])

    def declarations_of_entities(self, ids: Sequence[str]) -> dict[str, list[Declaration]]:
        out: dict[str, list[Declaration]] = {}
        for chunk in _chunks(list(ids)):
            q = ("SELECT record_key, entity_id, type, name, aliases_json, rank FROM declarations "
                 f"WHERE entity_id IN ({','.join('?' * len(chunk))}) ORDER BY rowid")
            for rk, eid, t, n, a, rank in self.db.execute(q, chunk):
                out.setdefault(eid, []).append(Declaration(rk, eid, t, n, tuple(json.loads(a)), rank))
        return out

    def put_declarations(self, decls: Iterable[Declaration]) -> None:
        self.db.executemany("INSERT OR REPLACE INTO declarations VALUES (?,?,?,?,?,?)",
                            [(d.record_key, d.entity_id, d.type, d.name,
                              json.dumps(list(d.aliases)), d.rank) for d in decls])

    def drop_declaration(self, record_key: str) -> None:
        self.db.execute("DELETE FROM declarations WHERE record_key=?", (record_key,))

    def name_keys_of_entities(self, ids: Iterable[str]) -> set[str]:
        out: set[str] = set()
        for chunk in _chunks(list(ids)):
            q = f"SELECT key FROM names WHERE entity_id IN ({','.join('?' * len(chunk))})"
            out.update(r[0] for r in self.db.execute(q, chunk))
        return out

    def set_names_of(self, decls_of: Mapping[str, Sequence[Declaration]]) -> None:
        """Replace the name keys of these entities: every key of their declarations, at the
        entity's best rank and its first declaration's type (none for an entity now gone)."""
        self.db.executemany("DELETE FROM names WHERE entity_id=?", [(e,) for e in decls_of])
        rows = []
        for entity_id, decls in decls_of.items():
            if decls:
                rank, etype = max(d.rank for d in decls), decls[0].type
                keys = set().union(*(d.keys() for d in decls))
                rows += [(k, entity_id, etype, rank) for k in sorted(keys)]
        self.db.executemany("INSERT INTO names VALUES (?,?,?,?)", rows)

    def name_keys_from(self, word: str) -> frozenset[str]:
        """Every name key that is ``word`` or begins with ``word`` and a space (a range of
        the key index: " " sorts just before "!")."""
        return frozenset(r[0] for r in self.db.execute(
            "SELECT DISTINCT key FROM names WHERE key = ? OR (key >= ? AND key < ?)",
            (word, word + " ", word + "!")))

    def lookup_name(self, key: str, entity_type: str | None) -> str | None:
        if entity_type is not None:
            row = self.db.execute(
                "SELECT entity_id FROM names WHERE key=? AND type=? "
                "ORDER BY rank DESC, entity_id LIMIT 1", (key, entity_type)).fetchone()
            if row:
                return row[0]
        row = self.db.execute(
            "SELECT entity_id FROM names WHERE key=? ORDER BY rank DESC, entity_id LIMIT 1",
            (key,)).fetchone()
        return row[0] if row else None

    def entity(self, entity_id: str) -> Entity | None:
        row = self.db.execute("SELECT entity_json FROM entities WHERE id=?",
                              (entity_id,)).fetchone()
        return Entity.model_validate_json(row[0]) if row else None

    def entity_jsons(self, ids: Sequence[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for chunk in _chunks(list(ids)):
            q = f"SELECT id, entity_json FROM entities WHERE id IN ({','.join('?' * len(chunk))})"
            out.update(self.db.execute(q, chunk))
        return out

    def put_entities(self, entities: Mapping[str, Entity | None]) -> None:
        self.db.executemany("DELETE FROM entities WHERE id=?",
                            [(eid,) for eid, e in entities.items() if e is None])
        self.db.executemany("INSERT OR REPLACE INTO entities VALUES (?, ?)",
                            [(eid, e.model_dump_json()) for eid, e in entities.items()
                             if e is not None])

    def entity_names(self, ids: Iterable[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for chunk in _chunks(sorted(set(ids))):
            q = ("SELECT id, json_extract(entity_json, '$.name') FROM entities "
                 f"WHERE id IN ({','.join('?' * len(chunk))})")
            out.update(self.db.execute(q, chunk))
        return out

    def all_entities(self) -> Iterator[Entity]:
        for (js,) in self.db.execute("SELECT entity_json FROM entities ORDER BY id"):
            yield Entity.model_validate_json(js)

    # -- claims -----------------------------------------------------------------------------
    def claim_touch_set(self, record_key: str) -> tuple[set[str], set[str]]:
        """(stored claim JSON, subjects and mentioned entities) of a record's claims. The JSON,
        not the id, is compared: relinking can change mentions without changing content."""
        claims, touched = set(), set()
        for js, subject in self.db.execute(
                "SELECT claim_json, subject FROM claims WHERE record_key=?", (record_key,)):
            claims.add(js)
            touched.add(subject)
        touched |= {r[0] for r in self.db.execute(
            "SELECT m.entity_id FROM mentions m JOIN claims c ON c.id = m.claim_id "
            "WHERE c.record_key=?", (record_key,))}
        return claims, touched

    def claim_touches(self, record_key: str) -> dict[str, tuple[str, set[str]]]:
        """Stored claim JSON of a record's claims → (its subject, the entities it mentions),
        so a relink dirties only the pages of claims that changed."""
        touches: dict[str, tuple[str, set[str]]] = {}
        ids: dict[str, str] = {}
        for cid, js, subject in self.db.execute(
                "SELECT id, claim_json, subject FROM claims WHERE record_key=?", (record_key,)):
            touches[js] = (subject, set())
            ids[cid] = js
        for cid, entity in self.db.execute(
                "SELECT m.claim_id, m.entity_id FROM mentions m JOIN claims c ON c.id = m.claim_id "
                "WHERE c.record_key=?", (record_key,)):
            touches[ids[cid]][1].add(entity)
        return touches

    def drop_claims_of(self, record_key: str) -> None:
        self.db.execute("DELETE FROM mentions WHERE claim_id IN "
                        "(SELECT id FROM claims WHERE record_key=?)", (record_key,))
        self._claim_delta -= self.db.execute("DELETE FROM claims WHERE record_key=?",
                                             (record_key,)).rowcount

    def set_provenance(self, rows: Sequence[tuple[str, str]]) -> None:
        """(record key, JSON of the claim fields its claims share) — see CLAIM_PROVENANCE."""
        self.db.executemany("UPDATE records SET provenance_json=? WHERE key=?",
                            [(js, key) for key, js in rows])

    def put_claim_rows(self, rows: Sequence[tuple[str, str, str, str, str, str,
                                                  tuple[str, ...]]]) -> None:
        """(id, record key, subject, attribute, kind, claim json without the record's
        provenance, mentioned entity ids)."""
        # a record's old claims are dropped before its new ones are stored, and ids include
        # the record: only repeats within the batch replace a row. They are settled here (the
        # last one wins, as a REPLACE would) because a bulk load has no unique index yet.
        unique = list({r[0]: r for r in rows}.values())
        self.db.executemany(
            "INSERT OR REPLACE INTO claims (id, record_key, subject, attribute, kind, claim_json) "
            "VALUES (?,?,?,?,?,?)", [r[:6] for r in unique])
        self._claim_delta += len(unique)
        self.db.executemany("INSERT INTO mentions VALUES (?,?,?)",
                            [(r[0], r[2], e) for r in unique for e in r[6]])

    def page_inputs(self, ids: Sequence[str]) -> tuple[
            dict[str, str], dict[str, list[str]], dict[str, set[str]],
            dict[str, tuple[str, str]]]:
        """For many pages at once: entity JSON, claim JSONs, linking subjects and the
        (page sha256, sidecar sha256) last written."""
        entities: dict[str, str] = {}
        claims: dict[str, list[str]] = {}
        linking: dict[str, set[str]] = {}
        previous: dict[str, tuple[str, str]] = {}
        for chunk in _chunks(list(ids)):
            marks = ",".join("?" * len(chunk))
            entities.update(self.db.execute(
                f"SELECT id, entity_json FROM entities WHERE id IN ({marks})", chunk))
            for subject, js in self.db.execute(
                    f"SELECT c.subject, {_FULL_JSON} FROM {_WITH_RECORD} "
                    f"WHERE c.subject IN ({marks})", chunk):
                claims.setdefault(subject, []).append(js)
            for eid, subject in self.db.execute(
                    f"SELECT entity_id, subject FROM mentions WHERE entity_id IN ({marks}) "
                    "AND subject != entity_id", chunk):
                linking.setdefault(eid, set()).add(subject)
            for eid, sha, sc in self.db.execute(
                    f"SELECT entity_id, sha256, sidecar_sha256 FROM pages "
                    f"WHERE entity_id IN ({marks})", chunk):
                previous[eid] = (sha, sc)
        return entities, claims, linking, previous

    def claims_of_subject(self, subject: str) -> list[Claim]:
        return [Claim.model_validate_json(r[0]) for r in self.db.execute(
            f"SELECT {_FULL_JSON} FROM {_WITH_RECORD} WHERE c.subject=?", (subject,))]

    def mention_targets_of_subject(self, subject: str) -> set[str]:
        return {r[0] for r in self.db.execute(
            "SELECT entity_id FROM mentions WHERE subject=?", (subject,))}

    def claims_of_group(self, subject: str, attribute: str) -> list[tuple[Claim, str]]:
        return [(Claim.model_validate_json(r[0]), r[1]) for r in self.db.execute(
            f"SELECT {_FULL_JSON}, c.status FROM {_WITH_RECORD} "
            "WHERE c.subject=? AND c.attribute=?",
            (subject, attribute))]

    def claims_by_ids(self, ids: Sequence[str]) -> dict[str, tuple[Claim, str]]:
        out: dict[str, tuple[Claim, str]] = {}
        for chunk in _chunks(list(ids)):
            q = (f"SELECT c.id, {_FULL_JSON}, c.status FROM {_WITH_RECORD} WHERE c.id IN "
                 f"({','.join('?' * len(chunk))})")
            for cid, js, status in self.db.execute(q, chunk):
                out[cid] = (Claim.model_validate_json(js), status)
        return out

    def iter_claims(self) -> Iterator[tuple[Claim, str]]:
        for js, status in self.db.execute(
                f"SELECT {_FULL_JSON}, c.status FROM {_WITH_RECORD} "
                "ORDER BY c.subject, c.attribute, c.id"):
            yield Claim.model_validate_json(js), status

    def mentioning_claims(self, entity_id: str) -> list[Claim]:
        return [Claim.model_validate_json(r[0]) for r in self.db.execute(
            f"SELECT {_FULL_JSON} FROM mentions m JOIN claims c ON c.id = m.claim_id "
            "JOIN records r ON r.key = c.record_key "
            "WHERE m.entity_id=? AND m.subject != ?", (entity_id, entity_id))]

    def unmapped_attributes(self, limit: int) -> list[tuple[str, int, int, str]]:
        """(attribute, claims, subjects, an example subject) of the most frequent attributes
        of comparable claims the schema does not declare (``name`` is every record's own)."""
        return [tuple(r) for r in self.db.execute(  # type: ignore[misc]
            "SELECT attribute, count(*) AS n, count(DISTINCT subject), min(subject) FROM claims "
            "WHERE kind IN ('field', 'fact') AND attribute != 'name' "
            "AND coalesce(json_extract(claim_json, '$.mapped'), 0) = 0 "
            "GROUP BY attribute ORDER BY n DESC, attribute LIMIT ?", (limit,))]

    def open_conflicts(self) -> list[Conflict]:
        return [Conflict.model_validate_json(r[0]) for r in self.db.execute(
            "SELECT conflict_json FROM conflicts WHERE state='open' ORDER BY subject, id")]

    def unresolved_references(self) -> Iterator[tuple[Claim, str]]:
        for js, status in self.db.execute(
                f"SELECT {_FULL_JSON}, c.status FROM {_WITH_RECORD} "
                "WHERE c.kind='reference' AND NOT EXISTS "
                "(SELECT 1 FROM mentions m WHERE m.claim_id = c.id) ORDER BY c.subject, c.id"):
            yield Claim.model_validate_json(js), status

    def search_claims(self, match: str, limit: int) -> list[tuple[str, float]]:
        return list(self.db.execute(
            "SELECT claim_id, bm25(claims_fts, 0, 0, 2.0, 4.0, 2.0, 1.0) AS score FROM claims_fts "
            "WHERE claims_fts MATCH ? ORDER BY score LIMIT ?", (match, limit)))

    def find_entity(self, text: str) -> str | None:
        """A page by id, by name or alias (case-insensitive), or by slug."""
        if self.db.execute("SELECT 1 FROM pages WHERE entity_id=?", (text,)).fetchone():
            return text
        from .text import name_key

        hit = self.lookup_name(name_key(text), None)
        if hit and self.db.execute("SELECT 1 FROM pages WHERE entity_id=?", (hit,)).fetchone():
            return hit
        rows = [r[0] for r in self.db.execute(
            "SELECT entity_id FROM pages WHERE entity_id LIKE ? ORDER BY entity_id",
            ("%/" + text.lower(),))]
        return rows[0] if len(rows) == 1 else None

    def backlinks(self, entity_id: str) -> list[str]:
        return sorted({r[0] for r in self.db.execute(
            "SELECT subject FROM mentions WHERE entity_id=? AND subject != ?",
            (entity_id, entity_id))})

    def set_statuses(self, status: dict[str, ClaimStatus]) -> None:
        self.db.executemany("UPDATE claims SET status=? WHERE id=?",
                            [(s, cid) for cid, s in status.items()])

    def set_conflicts(self, subject: str, conflicts: Sequence[Conflict]) -> None:
        self.db.execute("DELETE FROM conflicts WHERE subject=?", (subject,))
        self.db.executemany("INSERT INTO conflicts VALUES (?,?,?,?)",
                            [(c.id, subject, c.state, c.model_dump_json()) for c in conflicts])

    def _unindex_claims(self, subject: str) -> None:
        self._unindex_subjects([(subject,)])

    def _unindex_subjects(self, subjects: Sequence[tuple[str]]) -> None:
        ranges: list[tuple[int, int]] = []
        for chunk in _chunks([s for (s,) in subjects]):
            ranges += self.db.execute(
                "SELECT first_rowid, last_rowid FROM claims_fts_rows "
                f"WHERE subject IN ({','.join('?' * len(chunk))})", chunk).fetchall()
        if ranges:  # an FTS5 range with a NULL bound scans the whole index: only real ones
            self.db.executemany("DELETE FROM claims_fts WHERE rowid BETWEEN ? AND ?", ranges)
            self.db.executemany("DELETE FROM claims_fts_rows WHERE subject=?", subjects)

    def index_claims(self, subject: str, name: str, claims: Sequence[Claim]) -> None:
        self._unindex_claims(subject)
        self.add_search_rows([(c.id, subject, name, c.attribute, c.value, c.quote)
                              for c in claims])

    def add_search_rows(self, rows: Sequence[tuple[str, str, str, str, str, str]]) -> None:
        """(claim id, subject, name, attribute, value, quote) into the claim search index, whose
        rows for one subject (a page) get consecutive rowids: a page is unindexed by one range
        (a side table row per claim, indexed, cost more than the search index itself)."""
        by_subject: dict[str, list[tuple[str, str, str, str, str, str]]] = {}
        for r in rows:
            by_subject.setdefault(r[1], []).append(r)
        start = self._take_rowids("claims_fts", len(rows))
        ordered = [r for group in by_subject.values() for r in group]
        self.db.executemany(
            "INSERT INTO claims_fts (rowid, claim_id, subject, name, attribute, value, quote) "
            "VALUES (?,?,?,?,?,?,?)", [(start + i, *r) for i, r in enumerate(ordered)])
        ranges, first = [], start
        for subject, group in by_subject.items():
            ranges.append((subject, first, first + len(group) - 1))
            first += len(group)
        self.db.executemany("INSERT OR REPLACE INTO claims_fts_rows VALUES (?,?,?)", ranges)

    def put_rendered(self, pages: Sequence[tuple[str, str, str, str, str, str, str]],
                     statuses: Sequence[tuple[str, str]],
                     conflicts: Sequence[tuple[str, str, str, str]],
                     search_rows: Sequence[tuple[str, str, str, str, str, str]],
                     index_lines: Sequence[tuple[str, str, str, str]]) -> None:
        """Rows of many rendered pages at once: pages (entity_id, path, sha, sidecar sha,
        type, title, summary), claim statuses (status, id), conflicts (id, subject, state,
        json), search rows, index.md lines (entity_id, type, sort key, line); replaces what
        those pages had before."""
        self.db.executemany("INSERT OR REPLACE INTO page_index VALUES (?,?,?,?)", index_lines)
        subjects = [(p[0],) for p in pages]
        self.db.executemany("DELETE FROM conflicts WHERE subject=?", subjects)
        self._unindex_subjects(subjects)
        self.db.executemany("INSERT OR REPLACE INTO pages VALUES (?,?,?,?,?,?,?)", pages)
        # most claims win: reset the pages' claims to the default, then mark the rest
        self.db.executemany("UPDATE claims SET status='winner' WHERE subject=? "
                            "AND status != 'winner'", subjects)
        self.db.executemany("UPDATE claims SET status=? WHERE id=?",
                            [s for s in statuses if s[0] != "winner"])
        self.db.executemany("INSERT INTO conflicts VALUES (?,?,?,?)", conflicts)
        self.add_search_rows(search_rows)

    # -- pages ------------------------------------------------------------------------------
    def page(self, entity_id: str) -> tuple[str, str, str] | None:
        """(path, page sha256, sidecar sha256)."""
        row = self.db.execute("SELECT path, sha256, sidecar_sha256 FROM pages WHERE entity_id=?",
                              (entity_id,)).fetchone()
        return (row[0], row[1], row[2]) if row else None

    def page_summary(self, entity_id: str) -> tuple[str, str, str] | None:
        row = self.db.execute("SELECT type, title, summary FROM pages WHERE entity_id=?",
                              (entity_id,)).fetchone()
        return (row[0], row[1], row[2]) if row else None

    def put_page(self, entity_id: str, path: str, sha: str, sidecar_sha: str, etype: str,
                 title: str, summary: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO pages VALUES (?,?,?,?,?,?,?)",
                        (entity_id, path, sha, sidecar_sha, etype, title, summary))

    def input_digests(self, ids: Sequence[str]) -> dict[str, str]:
        """entity id → digest of what its page was last rendered from (see
        ``set_input_digests``); pages rendered before digests were kept have none."""
        out: dict[str, str] = {}
        for chunk in _chunks(list(ids)):
            q = ("SELECT entity_id, sha256 FROM page_input_digests "
                 f"WHERE entity_id IN ({','.join('?' * len(chunk))})")
            out.update(self.db.execute(q, chunk))
        return out

    def set_input_digests(self, rows: Sequence[tuple[str, str]]) -> None:
        """(entity id, digest of its render's inputs): an incremental compile renders a dirty
        page again only when these differ."""
        self.db.executemany("INSERT OR REPLACE INTO page_input_digests VALUES (?, ?)", rows)

    def drop_page(self, entity_id: str) -> None:
        self.db.execute("DELETE FROM pages WHERE entity_id=?", (entity_id,))
        self.db.execute("DELETE FROM page_input_digests WHERE entity_id=?", (entity_id,))
        self.db.execute("DELETE FROM page_index WHERE entity_id=?", (entity_id,))
        self._unindex_claims(entity_id)
        self.db.execute("DELETE FROM conflicts WHERE subject=?", (entity_id,))

    def page_count(self) -> int:
        return self.db.execute("SELECT count(*) FROM pages").fetchone()[0]

    def claim_count(self) -> int:
        return self.db.execute("SELECT count(*) FROM claims").fetchone()[0]

    def claim_total(self, recount: bool) -> int:
        """:meth:`claim_count` without scanning the claims table (seconds at 100k records) on
        every compile: the count is kept in meta and moved by this compile's stores and drops;
        it is counted afresh when asked (full builds) or when none is kept."""
        kept = self.meta("claim_count")
        total = self.claim_count() if recount or kept is None else int(kept) + self._claim_delta
        self.set_meta("claim_count", str(total))
        return total

    def conflict_counts(self) -> tuple[int, int]:
        counts = dict(self.db.execute("SELECT state, count(*) FROM conflicts GROUP BY state"))
        return counts.get("resolved", 0), counts.get("open", 0)

    def page_ids(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT entity_id FROM pages ORDER BY entity_id")]

    def index_rows_of(self, ids: Sequence[str]) -> dict[str, tuple[str, str, str]]:
        """entity id → (type, title, summary) of those pages: what index.md shows of them."""
        out: dict[str, tuple[str, str, str]] = {}
        for chunk in _chunks(list(ids)):
            q = ("SELECT entity_id, type, title, summary FROM pages "
                 f"WHERE entity_id IN ({','.join('?' * len(chunk))})")
            out.update((r[0], (r[1], r[2], r[3])) for r in self.db.execute(q, chunk))
        return out

    def index_rows(self) -> Iterator[tuple[str, str, str, str]]:
        yield from self.db.execute("SELECT type, entity_id, title, summary FROM pages")

    def index_lines(self) -> Iterator[tuple[str, str]]:
        """(type, line) of every page, in index.md order (UTF-8 byte order is code point
        order, so SQLite sorts exactly as Python does)."""
        yield from self.db.execute(
            "SELECT type, line FROM page_index ORDER BY type, sort_key, entity_id")

    # -- log and principals -----------------------------------------------------------------
    def append_log(self, day: str, op: str, title: str, body: str) -> None:
        self.db.execute("INSERT INTO log (day, op, title, body) VALUES (?,?,?,?)",
                        (day, op, title, body))

    def log_entries(self) -> Iterator[tuple[str, str, str, str]]:
        yield from self.db.execute("SELECT day, op, title, body FROM log ORDER BY seq")

    def set_principals(self, principals: dict[str, list[str]]) -> None:
        self.db.execute("DELETE FROM principals")
        self.db.executemany("INSERT INTO principals VALUES (?, ?)",
                            [(n, json.dumps(sorted(g))) for n, g in sorted(principals.items())])

    def principal_groups(self, name: str) -> list[str] | None:
        row = self.db.execute("SELECT groups_json FROM principals WHERE name=?",
                              (name,)).fetchone()
        return json.loads(row[0]) if row else None

"""The tables of the compile state (compiler/state.py) and the format they are in: a state
written in another format is only a cache of the sources, dropped and rebuilt."""

from __future__ import annotations

import sqlite3

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, sha256 TEXT, recorded_ns INTEGER);
CREATE TABLE IF NOT EXISTS records (
    key TEXT PRIMARY KEY, file TEXT NOT NULL, sha256 TEXT NOT NULL, version TEXT NOT NULL,
    entity_id TEXT NOT NULL, tier TEXT NOT NULL, max_age_days INTEGER NOT NULL,
    provenance_json TEXT NOT NULL DEFAULT '{}',
    record_json TEXT NOT NULL, extraction_json TEXT NOT NULL);
-- key and digest in the index: an incremental compile reads them for every record of the
-- files it reads again (~7,800 for a 1 % edit at 10k), and through an index on file alone
-- each came from its ~4 KB row's page, cold in a new connection (44 ms; covered: a few)
DROP INDEX IF EXISTS records_by_file;
CREATE INDEX IF NOT EXISTS records_by_file_key ON records(file, key, sha256);
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

_RESETTABLE = (
    "files", "file_errors", "records", "declarations", "names", "entities", "claims", "mentions", "conflicts",
    "records_fts", "claims_fts", "records_fts_rows", "claims_fts_rows", "page_input_digests",
    "item_digests",
)


def upgrade(db: sqlite3.Connection) -> None:
    """A state written by another format is only a cache of the sources: drop it (the
    changed config then forces a full rebuild), keeping the pages to clean up and the log."""
    (version,) = db.execute("PRAGMA user_version").fetchone()
    if version != STATE_FORMAT:
        # virtual tables first: dropping one drops its shadow tables
        for kind in ("virtual", "plain"):
            for name, sql in db.execute(
                    "SELECT name, sql FROM sqlite_master WHERE type='table' "
                    "AND name NOT LIKE 'sqlite_%'").fetchall():
                virtual = (sql or "").upper().startswith("CREATE VIRTUAL")
                if name not in ("pages", "log") and virtual == (kind == "virtual"):
                    db.execute(f'DROP TABLE IF EXISTS "{name}"')
        db.execute(f"PRAGMA user_version={STATE_FORMAT}")

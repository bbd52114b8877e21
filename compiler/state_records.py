"""Record bookkeeping in the compile state: each record's file, digest, JSON and extraction,
the record search index, and the extraction cache."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence

from .state_db import StateDB, chunks


class RecordRows(StateDB):
    # -- records ----------------------------------------------------------------------------
    def record_index(self) -> dict[str, tuple[str, str]]:
        """key → (sha256, file) of every stored record."""
        return {r[0]: (r[1], r[2]) for r in self.db.execute("SELECT key, sha256, file FROM records")}

    def record_index_of(self, keys: Iterable[str]) -> dict[str, tuple[str, str]]:
        """key → (sha256, file) of those keys that are stored."""
        out: dict[str, tuple[str, str]] = {}
        for chunk in chunks(list(keys)):
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
        for chunk in chunks(list(files)):
            q = ("SELECT key, sha256, file FROM records "
                 f"WHERE file IN ({','.join('?' * len(chunk))})")
            out.update((r[0], (r[1], r[2])) for r in self.db.execute(q, chunk))
        return out

    def load_records(self, keys: Iterable[str]) -> Iterator[tuple[str, str, str, str]]:
        """(key, record_json, extraction_json, sha256)."""
        for chunk in chunks(sorted(keys)):
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
        self._take_rowids("records_fts", 0)  # read before the deletes (state_claims.put_rendered)
        # in rowid order (see state_claims._unindex_subjects): in key order each delete below
        # the one before wrote FTS5's pending terms out as a segment of its own
        stale: list[int] = []
        for chunk in chunks([k for (k,) in keys]):
            stale += [r[0] for r in self.db.execute(
                "SELECT fts_rowid FROM records_fts_rows "
                f"WHERE key IN ({','.join('?' * len(chunk))})", chunk)]
        self.db.executemany("DELETE FROM records_fts WHERE rowid=?", [(r,) for r in sorted(stale)])
        self.db.executemany("DELETE FROM records_fts_rows WHERE key=?", keys)
        self.db.executemany(
            "INSERT OR REPLACE INTO records (key, file, sha256, version, entity_id, record_json, "
            "extraction_json, tier, max_age_days) VALUES (?,?,?,?,?,?,?,?,?)", [r[:9] for r in rows])
        start = self._take_rowids("records_fts", len(rows))
        self.db.executemany("INSERT INTO records_fts (rowid, key, text) VALUES (?,?,?)",
                            [(start + i, r[0], r[9]) for i, r in enumerate(rows)])
        self.db.executemany("INSERT INTO records_fts_rows VALUES (?, ?)",
                            [(r[0], start + i) for i, r in enumerate(rows)])

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

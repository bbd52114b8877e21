"""What the state's search indexes write when pages and records are stored again
(compiler/state_claims.py, compiler/state_records.py): FTS5 writes its pending terms out as a
new segment at every `rowid BETWEEN` delete and at every write whose rowid is below the last
one's, and each segment sets merges going that rewrite the index. Rows stored again must
reach the index in one pending batch (one segment at the commit), and search the same."""

from __future__ import annotations

import shutil
from pathlib import Path

from compiler.build import compile_wiki
from compiler.state import State

ACME = Path(__file__).resolve().parents[1] / "examples" / "acme"


def _segments(state, table: str) -> int:  # noqa: ANN001
    return state.db.execute(f"SELECT count(DISTINCT segid) FROM {table}_idx").fetchone()[0]


def _state(tmp_path: Path) -> State:
    corpus = tmp_path / "corpus"
    shutil.copytree(ACME, corpus)
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today="2026-11-21")
    return State(wiki / ".folio" / "state.db")


def test_pages_stored_again_reach_the_claim_index_in_one_batch(tmp_path: Path) -> None:
    state = _state(tmp_path)
    try:
        db = state.db
        # pages in subject order, which is not their search rows' rowid order
        subjects = [s for (s,) in db.execute(
            "SELECT subject FROM claims_fts_rows ORDER BY subject DESC LIMIT 8")]
        assert len(subjects) == 8
        marks = ",".join("?" * len(subjects))
        pages = db.execute(f"SELECT * FROM pages WHERE entity_id IN ({marks})",
                           subjects).fetchall()
        search = db.execute("SELECT claim_id, subject, name, attribute, value, quote "
                            f"FROM claims_fts WHERE subject IN ({marks}) ORDER BY rowid",
                            subjects).fetchall()
        hits = db.execute("SELECT claim_id FROM claims_fts WHERE claims_fts MATCH 'acme OR "
                          "renewal OR support' ORDER BY claim_id").fetchall()
        before = _segments(state, "claims_fts")
        state.begin()
        state.put_rendered(pages, [], [], search, [])
        assert _segments(state, "claims_fts") == before  # nothing written out per page
        state.commit()
        assert _segments(state, "claims_fts") <= before + 1
        assert db.execute("SELECT claim_id, subject, name, attribute, value, quote "
                          f"FROM claims_fts WHERE subject IN ({marks}) ORDER BY rowid",
                          subjects).fetchall() == search
        assert db.execute("SELECT claim_id FROM claims_fts WHERE claims_fts MATCH 'acme OR "
                          "renewal OR support' ORDER BY claim_id").fetchall() == hits
    finally:
        state.close()


def test_records_stored_again_reach_the_record_index_in_one_batch(tmp_path: Path) -> None:
    state = _state(tmp_path)
    try:
        db = state.db
        # records in key order, which is not their search rows' rowid order
        rows = db.execute(
            "SELECT r.key, r.file, r.sha256, r.version, r.entity_id, r.record_json, "
            "r.extraction_json, r.tier, r.max_age_days, f.text FROM records r "
            "JOIN records_fts_rows x ON x.key = r.key JOIN records_fts f ON f.rowid = x.fts_rowid "
            "ORDER BY x.fts_rowid DESC LIMIT 8").fetchall()
        assert len(rows) == 8
        before = _segments(state, "records_fts")
        state.begin()
        state.put_records(rows)
        assert _segments(state, "records_fts") == before
        state.commit()
        assert _segments(state, "records_fts") <= before + 1
        keys = sorted(r[0] for r in rows)
        assert sorted(k for (k,) in db.execute(
            f"SELECT key FROM records_fts WHERE key IN ({','.join('?' * len(keys))})",
            keys)) == keys
    finally:
        state.close()

"""Induction's inputs kept beside the records in the state: one small row per record with
fields (system, instance, type, entity type, the page its entity lands on, the fields), so an
incremental compile refreshes the rows of the records it changed and induces from the rows,
instead of reading every stored record again. A full rebuild, or a state written before this
table existed, fills it from every stored record; either way the rows equal what a clean
rebuild would store, so incremental and clean compiles induce the same mappings.

Induction reads at most a bounded sample of the rows: the rows of the entities whose hash is
lowest (``inputs``). A sample that is a function of the row set keeps incremental == clean, and
taking whole entities (but at the sample's edge) keeps the join across systems that agreement is measured on; it bounds
what every edit of a record with fields costs (re-inducing read every row: 0.7 s of a 0.8 s
1-record edit at 10k records, growing with the wiki) while a few thousand entities are ample
evidence of which columns agree."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Iterator

from .induce import RecordFields, prose_fact
from .induce_statements import statement_rows
from .narrow import narrowed_rows

_VERSION = "10"  # 2: unmapped prose facts too; 3: the name a fact is stated of; 4: sample bucket;
# 5: statements holding one typed value; 6: or one version or clock time; 7: narrowed names;
# 8: … from the heading above a list item too; 9: statements with a value per clause;
# 10: … and table rows' cells as sentences, counts
_TABLE = ("CREATE TABLE IF NOT EXISTS induce_fields (key TEXT PRIMARY KEY, "
          "bucket INTEGER NOT NULL, row_json TEXT NOT NULL)")
_INDEX = "CREATE INDEX IF NOT EXISTS induce_fields_bucket ON induce_fields (bucket, key)"


def _bucket(entity_id: str) -> int:
    """Where an entity falls in the sample order: a stable hash, so every record of one entity
    shares it (agreement compares one entity's values across systems)."""
    return int.from_bytes(hashlib.blake2b(entity_id.encode(), digest_size=4).digest(), "big")


def _row(entity_id: str, record_json: str, extraction_json: str) -> tuple[int, str] | None:
    r = json.loads(record_json)
    fields = r.get("fields") or {}
    claims = json.loads(extraction_json).get("claims") or ()
    facts = sorted({(*prose_fact(c["attribute"], c.get("subject_phrase")), c["value"])
                    for c in claims if c.get("kind") == "fact" and not c.get("mapped")})
    statements = statement_rows(claims)
    narrow = narrowed_rows(claims, r.get("body") or "")
    if not fields and not facts and not statements and not narrow:
        return None
    return _bucket(entity_id or ""), json.dumps(
        [r["system"], r["instance"], r["type"], r.get("entity_type") or "topic",
         entity_id, sorted(fields.items()), facts, statements, narrow], separators=(",", ":"))


def _chunks(keys: list[str], n: int = 500) -> Iterator[list[str]]:
    for i in range(0, len(keys), n):
        yield keys[i:i + n]


def refresh(db: sqlite3.Connection, version: str | None, changed: Iterable[str],
            removed: Iterable[str], full: bool) -> tuple[str, bool]:
    """Bring the rows up to date with the records table; returns the version to store (the
    caller keeps it in the state's meta, ``induce_fields``) and whether any row changed (a
    compile whose changed records keep the rows they had, such as an edited sentence that
    states no typed fact, need not induce again). Only rows that differ are written: most
    edits leave a record's row as it was, and rewriting it dirtied two index pages a record."""
    if full or version != _VERSION:
        db.execute("DROP TABLE IF EXISTS induce_fields")  # an older version's columns differ
        db.execute(_TABLE)
        db.execute(_INDEX)
        cur = db.execute("SELECT key, entity_id, record_json, extraction_json FROM records")
        rows = [(k, *row) for k, e, js, ex in cur if (row := _row(e, js, ex)) is not None]
        db.executemany("INSERT INTO induce_fields (key, bucket, row_json) VALUES (?, ?, ?)", rows)
        return _VERSION, True
    keys = sorted(set(changed) | set(removed))
    old: dict[str, tuple[int, str]] = {}
    new: dict[str, tuple[int, str]] = {}
    for chunk in _chunks(keys):
        marks = ",".join("?" * len(chunk))
        old.update((k, (b, js)) for k, b, js in db.execute(
            f"SELECT key, bucket, row_json FROM induce_fields WHERE key IN ({marks})", chunk))
        new.update((k, row) for k, e, js, ex in db.execute(
            "SELECT key, entity_id, record_json, extraction_json FROM records "
            f"WHERE key IN ({marks})", chunk) if (row := _row(e, js, ex)) is not None)
    gone = [(k,) for k in old if k not in new]
    put = [(k, b, js) for k, (b, js) in new.items() if old.get(k) != (b, js)]
    db.executemany("DELETE FROM induce_fields WHERE key=?", gone)
    db.executemany("INSERT OR REPLACE INTO induce_fields (key, bucket, row_json) VALUES (?, ?, ?)",
                   put)
    return _VERSION, bool(gone or put)


def inputs(db: sqlite3.Connection, sample: int) -> Iterator[RecordFields]:
    """The rows induction reads, in key order: all of them up to ``sample`` rows, else the
    ``sample`` rows lowest in (bucket, key) order (see the module docstring)."""
    picked = db.execute("SELECT key, row_json FROM induce_fields ORDER BY bucket, key LIMIT ?",
                        (sample,)).fetchall()
    for _key, row_json in sorted(picked):
        system, instance, rtype, etype, entity, fields, facts, statements, narrow = \
            json.loads(row_json)
        yield RecordFields(system, instance, rtype, etype, entity,
                           tuple((k, v) for k, v in fields),
                           tuple((a, v, about) for a, about, v in facts), tuple(statements),
                           tuple((n, a) for n, a in narrow))

"""Induction's inputs kept beside the records in the state: one small row per record with
fields (system, instance, type, entity type, the page its entity lands on, the fields), so an
incremental compile refreshes the rows of the records it changed and induces from the rows,
instead of reading every stored record again. A full rebuild, or a state written before this
table existed, fills it from every stored record; either way the rows equal what a clean
rebuild would store, so incremental and clean compiles induce the same mappings."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator

from .induce import RecordFields, prose_fact

_VERSION = "3"  # 2: unmapped prose facts too; 3: the name a fact is stated of
_TABLE = ("CREATE TABLE IF NOT EXISTS induce_fields (key TEXT PRIMARY KEY, "
          "row_json TEXT NOT NULL)")


def _row(entity_id: str, record_json: str, extraction_json: str) -> str | None:
    r = json.loads(record_json)
    fields = r.get("fields") or {}
    facts = sorted({(*prose_fact(c["attribute"], c.get("subject_phrase")), c["value"])
                    for c in (json.loads(extraction_json).get("claims") or ())
                    if c.get("kind") == "fact" and not c.get("mapped")})
    if not fields and not facts:
        return None
    return json.dumps([r["system"], r["instance"], r["type"], r.get("entity_type") or "topic",
                       entity_id, sorted(fields.items()), facts], separators=(",", ":"))


def _chunks(keys: list[str], n: int = 500) -> Iterator[list[str]]:
    for i in range(0, len(keys), n):
        yield keys[i:i + n]


def refresh(db: sqlite3.Connection, version: str | None, changed: Iterable[str],
            removed: Iterable[str], full: bool) -> tuple[str, bool]:
    """Bring the rows up to date with the records table; returns the version to store (the
    caller keeps it in the state's meta, ``induce_fields``) and whether any row changed (a
    compile that changed only documents without fields need not induce again)."""
    db.execute(_TABLE)
    touched = False
    if full or version != _VERSION:
        db.execute("DELETE FROM induce_fields")
        keys = None
    else:
        keys = sorted(set(changed) | set(removed))
        for chunk in _chunks(keys):
            cur = db.execute(
                f"DELETE FROM induce_fields WHERE key IN ({','.join('?' * len(chunk))})", chunk)
            touched |= cur.rowcount > 0
    rows: list[tuple[str, str]] = []
    if keys is None:
        cur = db.execute("SELECT key, entity_id, record_json, extraction_json FROM records")
        rows = [(k, row) for k, e, js, ex in cur if (row := _row(e, js, ex)) is not None]
    else:
        for chunk in _chunks(keys):
            cur = db.execute("SELECT key, entity_id, record_json, extraction_json FROM records "
                             f"WHERE key IN ({','.join('?' * len(chunk))})", chunk)
            rows += [(k, row) for k, e, js, ex in cur if (row := _row(e, js, ex)) is not None]
    db.executemany("INSERT OR REPLACE INTO induce_fields (key, row_json) VALUES (?, ?)", rows)
    return _VERSION, touched or bool(rows) or keys is None


def inputs(db: sqlite3.Connection) -> Iterator[RecordFields]:
    for (row_json,) in db.execute("SELECT row_json FROM induce_fields ORDER BY key"):
        system, instance, rtype, etype, entity, fields, facts = json.loads(row_json)
        yield RecordFields(system, instance, rtype, etype, entity,
                           tuple((k, v) for k, v in fields),
                           tuple((a, v, about) for a, about, v in facts))

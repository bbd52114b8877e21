"""The entity registry in the compile state: records' declarations, the names they resolve
by, and the merged entities."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence

from .models import Entity
from .registry import Declaration
from .state_db import StateDB, chunks


class EntityRows(StateDB):
    # -- declarations, names, entities ------------------------------------------------------
    def declarations_of_records(self, keys: Iterable[str]) -> dict[str, Declaration]:
        out: dict[str, Declaration] = {}
        for chunk in chunks(list(keys)):
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
        for chunk in chunks(list(ids)):
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
        for chunk in chunks(list(ids)):
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
        for chunk in chunks(list(ids)):
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
        for chunk in chunks(sorted(set(ids))):
            q = ("SELECT id, json_extract(entity_json, '$.name') FROM entities "
                 f"WHERE id IN ({','.join('?' * len(chunk))})")
            out.update(self.db.execute(q, chunk))
        return out

    def all_entities(self) -> Iterator[Entity]:
        for (js,) in self.db.execute("SELECT entity_json FROM entities ORDER BY id"):
            yield Entity.model_validate_json(js)

"""Read-only questions to the compile state's claims, for retrieval, answers, lint and the
CLI: claims by group, id or mention, open conflicts, unresolved references, claim search,
finding a page by name."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .models import Claim, Conflict
from .state_claims import _FULL_JSON, _WITH_RECORD
from .state_db import chunks
from .state_entities import EntityRows


class ClaimQueries(EntityRows):
    def claims_of_group(self, subject: str, attribute: str) -> list[tuple[Claim, str]]:
        return [(Claim.model_validate_json(r[0]), r[1]) for r in self.db.execute(
            f"SELECT {_FULL_JSON}, c.status FROM {_WITH_RECORD} "
            "WHERE c.subject=? AND c.attribute=?",
            (subject, attribute))]

    def claims_by_ids(self, ids: Sequence[str]) -> dict[str, tuple[Claim, str]]:
        out: dict[str, tuple[Claim, str]] = {}
        for chunk in chunks(list(ids)):
            q = (f"SELECT c.id, {_FULL_JSON}, c.status FROM {_WITH_RECORD} WHERE c.id IN "
                 f"({','.join('?' * len(chunk))})")
            for cid, js, status in self.db.execute(q, chunk):
                out[cid] = (Claim.model_validate_json(js), status)
        return out

    def claims_of_subjects(self, subjects: Sequence[str]) -> Iterator[tuple[str, Claim, str]]:
        """(subject, claim, status) of every claim about one of ``subjects``."""
        for chunk in chunks(list(subjects), 200):
            q = (f"SELECT c.subject, {_FULL_JSON}, c.status FROM {_WITH_RECORD} "
                 f"WHERE c.subject IN ({','.join('?' * len(chunk))})")
            for subject, js, status in self.db.execute(q, chunk):
                yield subject, Claim.model_validate_json(js), status

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

    def attribute_names(self) -> list[str]:
        """Every attribute name a claim states, once each (the wiki's own words for facts)."""
        return [a for (a,) in self.db.execute("SELECT DISTINCT attribute FROM claims")]

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

"""Claim storage in the compile state: each record's claims and the entities they mention, what
a relink compares, what a page renders from, the claim search index and the rendered pages'
rows (statuses, conflicts, index lines)."""

from __future__ import annotations

from collections.abc import Sequence

from .models import Claim, ClaimStatus, Conflict
from .state_db import StateDB, chunks

# A claim is stored without the fields every claim of its record shares (source, authority,
# observed_at, acl: the last fields of Claim); they are stored once per record and spliced
# back, which gives exactly Claim.model_dump_json().
CLAIM_PROVENANCE = frozenset({"source", "authority", "observed_at", "acl"})
_FULL_JSON = ("substr(c.claim_json, 1, length(c.claim_json) - 1) || ',' || "
              "substr(r.provenance_json, 2)")
_WITH_RECORD = "claims c JOIN records r ON r.key = c.record_key"


class ClaimRows(StateDB):
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
        for chunk in chunks(list(ids)):
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

    def reference_targets(self, ids: Sequence[str]) -> dict[str, set[str]]:
        """Page → the pages its reference claims resolved to (whose titles it shows)."""
        out: dict[str, set[str]] = {}
        for chunk in chunks(list(ids)):
            for subject, target in self.db.execute(
                    "SELECT m.subject, m.entity_id FROM mentions m JOIN claims c "
                    "ON c.id = m.claim_id WHERE c.kind = 'reference' "
                    f"AND m.subject IN ({','.join('?' * len(chunk))})", chunk):
                out.setdefault(subject, set()).add(target)
        return out

    def referencing_subjects(self, targets: Sequence[str]) -> set[str]:
        """Pages whose reference claims resolved to one of ``targets`` (they show its title)."""
        out: set[str] = set()
        for chunk in chunks(sorted(set(targets))):
            out.update(r[0] for r in self.db.execute(
                "SELECT m.subject FROM mentions m JOIN claims c ON c.id = m.claim_id "
                f"WHERE c.kind = 'reference' AND m.entity_id IN ({','.join('?' * len(chunk))})",
                chunk))
        return out

    def claims_of_subject(self, subject: str) -> list[Claim]:
        return [Claim.model_validate_json(r[0]) for r in self.db.execute(
            f"SELECT {_FULL_JSON} FROM {_WITH_RECORD} WHERE c.subject=?", (subject,))]

    def mention_targets_of_subject(self, subject: str) -> set[str]:
        return {r[0] for r in self.db.execute(
            "SELECT entity_id FROM mentions WHERE subject=?", (subject,))}

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
        for chunk in chunks([s for (s,) in subjects]):
            ranges += self.db.execute(
                "SELECT first_rowid, last_rowid FROM claims_fts_rows "
                f"WHERE subject IN ({','.join('?' * len(chunk))})", chunk).fetchall()
        if ranges:
            # one rowid at a time, in rowid order: FTS5 writes its pending terms out as a new
            # segment at every `rowid BETWEEN` delete (and at any write below the last one's
            # rowid), so a compile's few dozen pages made as many segments, and the merges they
            # set off rewrote the whole claim index (~390 of 1,990 pages written by a 20-record
            # edit at 2k records)
            self.db.executemany("DELETE FROM claims_fts WHERE rowid=?",
                                [(r,) for a, z in sorted(ranges) for r in range(a, z + 1)])
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
        # the next free search rowid read before the deletes: reading the index once they are
        # pending wrote them out as a segment of their own (see _unindex_subjects)
        self._take_rowids("claims_fts", 0)
        subjects = [(p[0],) for p in pages]
        self.db.executemany("DELETE FROM conflicts WHERE subject=?", subjects)
        self._unindex_subjects(subjects)
        self.db.executemany("INSERT OR REPLACE INTO pages VALUES (?,?,?,?,?,?,?)", pages)
        # most claims win (the default): only the claims whose status differs from the stored
        # one are written (a re-rendered page mostly keeps its claims' statuses, and resetting
        # every overruled claim to win before marking it again wrote its row twice)
        stored: dict[str, str] = {}
        for chunk in chunks([s for (s,) in subjects]):
            stored.update(self.db.execute(
                "SELECT id, status FROM claims WHERE status != 'winner' "
                f"AND subject IN ({','.join('?' * len(chunk))})", chunk))
        wanted = {cid: status for status, cid in statuses if status != "winner"}
        self.db.executemany("UPDATE claims SET status='winner' WHERE id=?",
                            [(cid,) for cid in stored if cid not in wanted])
        self.db.executemany("UPDATE claims SET status=? WHERE id=?",
                            [(status, cid) for cid, status in wanted.items()
                             if stored.get(cid) != status])
        self.db.executemany("INSERT INTO conflicts VALUES (?,?,?,?)", conflicts)
        self.add_search_rows(search_rows)

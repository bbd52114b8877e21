"""Pages in the compile state: what each page was last written as, the inputs it was rendered
from, index.md's lines, and the compile log and the principals served from."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

from .state_claims import ClaimRows
from .state_db import chunks


class PageRows(ClaimRows):
    """(A page dropped leaves the claim search index too.)"""

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
        for chunk in chunks(list(ids)):
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
        for chunk in chunks(list(ids)):
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

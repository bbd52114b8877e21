"""Input file bookkeeping in the compile state: size, mtime and digest of each corpus file as
last scanned, its payload object digests (connectors._common.ItemMemo) and its errors."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .state_db import StateDB, chunks


class FileRows(StateDB):
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
        for chunk in chunks(list(files)):
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
        for chunk in chunks(sorted(paths)):
            q = ("SELECT error_json FROM file_errors "
                 f"WHERE path IN ({','.join('?' * len(chunk))}) ORDER BY rowid")
            out.extend(r[0] for r in self.db.execute(q, chunk))
        return out

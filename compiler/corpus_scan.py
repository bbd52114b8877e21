"""Phase 1 of a compile: scan the corpus folder for changed files (stat, then hash when the
stat is not trustworthy), and account for the files that became unreadable or disappeared."""

from __future__ import annotations

import os
import time

from connectors.base import RecordError
from connectors.loader import discover, read_input

from .canonical import sha256_hex
from .compile_setup import CompileSetup

_RACY_NS = 2_000_000_000  # a file modified this close to the last scan is re-hashed


class ScanPhase(CompileSetup):
    def _scan(self) -> tuple[list[tuple], set[str]]:
        """Changed files as (file, bytes, stat, sha256, scan time), and every file whose
        records must be accounted for again (changed, unreadable or gone). A file the state
        has never seen comes with bytes and sha256 None: ``_read`` reads it."""
        st = self.state
        files, errors = discover(self.src, self.manifest)
        self.report.errors.extend(errors)
        self.report.files_seen = len(files)
        prev = st.files()
        now_ns = time.time_ns()
        changed: list[tuple] = []
        reread: set[str] = set()
        for f in files:
            try:
                stat = os.stat(f.where)
            except OSError as exc:
                self.report.errors.append(RecordError(path=f.rel, message=f"cannot read: {exc}"))
                reread.add(f.rel)
                continue
            old = prev.get(f.rel)
            if old is None:
                # new to the state (every file of a clean build): read while it is parsed
                # (_read), not here, so the corpus's bytes are never all in memory at once
                changed.append((f, None, stat, None, now_ns))
                reread.add(f.rel)
                continue
            if (old[0] == stat.st_size and old[1] == stat.st_mtime_ns
                    and stat.st_mtime_ns < old[3] - _RACY_NS):
                continue
            data = read_input(f, self.settings.max_file_bytes)
            if isinstance(data, RecordError):
                self.report.errors.append(data)
                st.drop_file(f.rel)
                reread.add(f.rel)
                continue
            sha = sha256_hex(data)
            if old and old[2] == sha:
                st.put_file(f.rel, stat.st_size, stat.st_mtime_ns, sha, now_ns)
                continue
            changed.append((f, data, stat, sha, now_ns))
            reread.add(f.rel)
        all_rels = {f.rel for f in files}
        gone = set(prev) - all_rels
        for rel in gone:
            st.drop_file(rel)
        reread |= gone
        self.report.files_changed = len(changed) + len(gone)
        unchanged = all_rels - reread
        self.report.errors.extend(
            RecordError.model_validate_json(e) for e in st.file_errors(unchanged))
        return changed, reread

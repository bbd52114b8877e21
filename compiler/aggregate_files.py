"""Phase 7 of a compile: the aggregate files (index.md, SCHEMA.md, log.md, directory.json)
and the totals of the report."""

from __future__ import annotations

from .canonical import sha256_hex
from .compile_setup import CompileSetup
from .provenance.state_check import DIRECTORY_FILE, directory_bytes
from .render import assemble_index, log_title, patch_index, render_log
from .schema_page import render_schema

_INDEX_PATCH_MAX = 50  # index.md lines replaced in place; more are cheaper re-assembled


class AggregatePhase(CompileSetup):
    # -- 7: aggregate files -----------------------------------------------------------------
    def _aggregate(self) -> None:
        st, r = self.state, self.report
        changed = bool(r.pages_written or r.pages_removed)
        files = self.files
        # a full rebuild rewrites index.md too, so that it is never re-signed as found on disk
        index = None
        if (self._index_changed or r.pages_removed or r.full_rebuild
                or not files.exists("index.md")):
            index = assemble_index(st.index_lines()).encode("utf-8")
        elif self._index_edits:
            index = self._patched_index()
        if index is not None:
            files.write("index.md", index)
            self._aggregates["index.md"] = sha256_hex(index)
            st.set_meta("index_sha256", self._aggregates["index.md"])
        schema = render_schema(self.policy, self.schema, self.schema_digest).encode("utf-8")
        if not files.exists("SCHEMA.md") or files.read_bytes("SCHEMA.md") != schema:
            files.write("SCHEMA.md", schema)
        self._aggregates["SCHEMA.md"] = sha256_hex(schema)
        if changed or r.records_extracted or r.records_removed:
            created = sum(1 for p in r.written if p in self._created)
            title = log_title(first=st.first_build, extracted=r.records_extracted,
                              records_removed=r.records_removed, created=created,
                              updated=r.pages_written - created, pages_removed=r.pages_removed)
            body = "\n".join(
                [f"- {'created' if p in self._created else 'updated'} [[{p}]]"
                 for p in r.written[:50]]
                + [f"- removed `{p}` (no remaining support)" for p in r.removed[:50]]
                + ([f"- … and {len(r.written) + len(r.removed) - 100} more"]
                   if len(r.written) + len(r.removed) > 100 else []))
            st.append_log(self.today, "compile", title, body)
        # the directory the state serves `--as` from, signed through the index root so that
        # an edited principal in the state is caught (compiler/provenance/state_check.py)
        directory = directory_bytes(self.directory.groups_by_user(),
                                    self.directory.model_dump(mode="json"))
        if not files.exists(DIRECTORY_FILE) or files.read_bytes(DIRECTORY_FILE) != directory:
            files.write(DIRECTORY_FILE, directory)
        self._aggregates[DIRECTORY_FILE] = sha256_hex(directory)
        log = render_log(st.log_entries()).encode("utf-8")
        if not files.exists("log.md") or files.read_bytes("log.md") != log:
            files.write("log.md", log)
        self._aggregates["log.md"] = sha256_hex(log)
        r.pages_total = st.page_count()
        r.claims_total = st.claim_total(recount=r.full_rebuild)
        r.conflicts_resolved, r.conflicts_open = st.conflict_counts()

    def _patched_index(self) -> bytes:
        """index.md with the lines of pages whose summary changed replaced in place, if the
        file is the one the last compile wrote and the edits are few; else re-assembled."""
        st = self.state
        if len(self._index_edits) <= _INDEX_PATCH_MAX:
            data = self.files.read_bytes("index.md")
            if sha256_hex(data) == st.meta("index_sha256"):
                patched = patch_index(data, self._index_edits)
                if patched is not None:
                    return patched
        return assemble_index(st.index_lines()).encode("utf-8")

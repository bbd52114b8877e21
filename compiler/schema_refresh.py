"""The schema a compile links through: schema induction (compiler/schema/induce.py) applied
to the declared schema, and the schema digests stored with the state."""

from __future__ import annotations

from .compile_setup import CompileSetup
from .schema import induce_store
from .schema.induce import Induction, apply
from .schema.loader import digest as _digest


class SchemaPhase(CompileSetup):
    def _induce_schema(self, changed: list[str], removed: set[str], full: bool) -> None:
        """Schema induction (compiler/schema/induce.py): fields the schema leaves unmapped
        that the corpus's own records show to be one attribute are mapped for linking. A
        function of the schema and every stored record's fields (kept as small rows beside
        the records, compiler/schema/induce_store.py), recomputed when a record changed and
        reused otherwise; when the induced schema's digest differs from the last compile's,
        every record is relinked (as for a schema.yaml edit)."""
        st = self.state
        declared = self.schema_digest
        # what the stored induction was computed under: the schema, and induction on or off
        basis = (f"{declared}:{'on' if self.settings.schema_induction else 'off'}"
                 f":{self.settings.schema_induction_sample}")
        stored = st.meta("induced")
        rows_version = st.meta("induce_fields")
        # a schema edit re-extracts unchanged records (their prose facts may differ): all rows
        rebuild = full or (st.meta("induced_basis") or basis) != basis
        new_rows, touched = induce_store.refresh(st.db, rows_version, changed, removed, rebuild)
        st.set_meta("induce_fields", new_rows)
        unchanged = not touched
        if not self.settings.schema_induction:
            induction = Induction()
        elif unchanged and stored and st.meta("induced_basis") == basis:
            induction = Induction.from_json(stored)
        else:
            induction = induce_store.induced(st.db, self.schema, basis,
                                             self.settings.schema_induction_sample)
        st.set_meta("induced", induction.to_json())
        st.set_meta("induced_basis", basis)
        self.induction = induction
        if not induction.empty:
            self.schema = apply(self.schema, induction)
            self.schema_digest = _digest(self.schema)
        self.report.schema_changed = (not self.report.full_rebuild
                                      and st.meta("schema_digest") != self.schema_digest)

    def _set_schema_meta(self) -> None:
        st = self.state
        st.set_meta("schema_digest", self.schema_digest)
        st.set_meta("schema_version", self.schema.version)
        st.set_meta("extract_digest", self.backend.digest)

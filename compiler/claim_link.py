"""Phases 4 and 5 of a compile: update the entity registry from the changed records'
declarations, then relink the affected records (in the worker pool) and store their claims;
returns the pages whose claims changed (dirty)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import nullcontext

from .compile_setup import CompileSetup
from .models import Entity
from .registry import Declaration, NameIndex, StoredNameLookup, merge_entity
from .steps import ClaimRow
from .steps import link as link_step
from .waves import in_waves, one_ahead
from .workers import step_runner


class LinkPhase(CompileSetup):
    # -- 4: registry ------------------------------------------------------------------------
    def _register(self, decls: dict[str, Declaration], removed: set[str]
                  ) -> tuple[set[str], set[str]]:
        """Update declarations; return entities whose identity changed and name keys that
        may now resolve differently."""
        st = self.state
        old = st.declarations_of_records([*decls, *removed])
        affected = {d.entity_id for d in old.values()}
        for key in removed:
            st.drop_record(key)
            st.drop_declaration(key)
        st.put_declarations(decls.values())
        affected |= {d.entity_id for d in decls.values()}
        entity_changed: set[str] = set()
        name_keys: set[str] = set()
        # read and written in bulk: a clean build registers ~one entity per record
        for wave in in_waves(sorted(affected)):
            decls_of, stored = st.declarations_of_entities(wave), st.entity_jsons(wave)
            names: dict[str, list[Declaration]] = {}
            entities: dict[str, Entity | None] = {}
            for eid in wave:
                entity = merge_entity(eid, decls_of[eid]) if eid in decls_of else None
                if (entity.model_dump_json() if entity else None) != stored.get(eid):
                    names[eid], entities[eid] = decls_of.get(eid, []), entity
            if not entities:
                continue
            entity_changed |= entities.keys()
            name_keys |= st.name_keys_of_entities(entities)
            st.set_names_of(names)
            name_keys |= st.name_keys_of_entities(entities)
            st.put_entities(entities)
        return entity_changed, name_keys

    # -- 5: link ----------------------------------------------------------------------------
    def _name_lookup(self, n_records: int) -> Callable:
        st = self.state
        if n_records >= self.settings.parallel_min_items:
            return NameIndex(st.all_declarations())
        return StoredNameLookup(st.lookup_name, st.name_keys_from)

    def _link(self, relink: list[str], removed: set[str], lookup: Callable, full: bool
              ) -> set[str]:
        st = self.state
        dirty: set[str] = set()
        for key in removed:
            _, touched = st.claim_touch_set(key)
            dirty |= touched
            st.drop_claims_of(key)
        self.progress.phase("link", len(relink))
        # a database-backed lookup cannot cross into a worker process
        workers = self.workers if isinstance(lookup, NameIndex) else 1
        context = {"policy": self.policy, "lookup": lookup, "schema": self.schema}
        # a full build stores claims without comparing them to stored ones: no index is read
        bulk = st.deferred_indexes("claims", "mentions") if full else nullcontext()
        with bulk, step_runner(workers, len(relink), self.settings.parallel_min_items, context,
                               self.state.release_memory) as run:
            waves = ((wave, run(link_step, sorted(st.load_records(wave))))
                     for wave in in_waves(relink))
            for wave, results in one_ahead(waves):
                dirty |= self._store_claims(results, full)
                self.progress.advance(len(wave))
        self.report.records_relinked = len(relink)
        return dirty

    def _store_claims(self, results: Iterable[tuple[str, list[ClaimRow], str]], full: bool
                      ) -> set[str]:
        """Store one wave's claims; returns the pages they (and the claims they replace) touch.
        A full build skips the comparison: nothing is stored to compare with."""
        st = self.state
        dirty: set[str] = set()
        rows: list[tuple] = []
        provenance: list[tuple[str, str]] = []
        for key, claims, shared in results:
            if not full:
                # only the pages of claims that changed (a schema edit relinks every record,
                # most of whose claims stay as they were)
                old = st.claim_touches(key)
                new = {c.claim_json: (c.subject, set(c.mentions)) for c in claims}
                if new.keys() == old.keys():
                    continue
                dirty |= {(old.get(js) or new[js])[0] for js in old.keys() ^ new.keys()}
                # a page a claim mentions shows only which pages mention it (its backlinks):
                # it changes only where a (subject, mentioned page) pair comes or goes, not
                # when an edit rewrites a claim that mentions it (most edits)
                dirty |= {m for _, m in _mention_pairs(old.values()) ^ _mention_pairs(new.values())}
                st.drop_claims_of(key)
                # every claim of the record is stored anew, its status reset: their pages are
                # rendered even if their inputs read the same (which sets the statuses again)
                self._restored.update(c.subject for c in claims)
            else:
                for c in claims:
                    dirty.add(c.subject)
                    dirty.update(c.mentions)
            provenance.append((key, shared))
            for c in claims:
                rows.append((c.id, key, c.subject, c.attribute, c.kind, c.claim_json,
                             c.mentions))
        st.put_claim_rows(rows)
        st.set_provenance(provenance)
        return dirty


def _mention_pairs(touches: Iterable[tuple[str, set[str]]]) -> set[tuple[str, str]]:
    """(subject, mentioned page) of claims: what the mentioned pages' backlinks are made of."""
    return {(subject, m) for subject, mentions in touches for m in mentions if m != subject}

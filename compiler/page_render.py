"""Phase 6 of a compile: render the dirty pages (in the worker pool), stage the files whose
bytes changed and remove pages left without claims; LLM page synthesis before anything is
written; answers filed back as pages (compiler/answer_pages.py)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator

from .compile_context import CompileError
from .compile_setup import CompileSetup
from .provenance.attest import SigningPlan
from .provenance.index_root import bundle_name
from .render import index_entry
from .resolve import resolve
from .steps import PageJob, RenderedPage, input_digest
from .steps import render as render_step
from .waves import in_waves, one_ahead
from .wiki_owner import foreign_page_files, foreign_pages_error
from .workers import Runner, step_runner

_PAGE_ID = re.compile(r"^[a-z0-9-]{1,32}/[a-z0-9-]{1,100}$")


class RenderPhase(CompileSetup):
    # -- 6: render --------------------------------------------------------------------------
    def _page_rels(self, eid: str) -> tuple[str, str]:
        if not _PAGE_ID.match(eid):
            raise CompileError(f"refusing unsafe page name {eid!r}")
        return f"{eid}.md", f"{eid}.claims.json"

    def _page_paths(self, eid: str) -> tuple[str, str]:
        md_rel, sc_rel = self._page_rels(eid)
        return os.path.join(self._out_str, md_rel), os.path.join(self._out_str, sc_rel)

    def _render(self, dirty: set[str], signing: SigningPlan | None) -> None:
        ids = sorted(dirty)
        self.progress.phase("render", len(ids))
        signing = signing if signing is not None and signing.in_render else None
        context = {"tiebreak_of": self.tiebreak_of, "signing": signing, "stage": self.files}
        with step_runner(self.workers, len(ids), self.settings.parallel_min_items, context,
                         self.state.release_memory) as run:
            waves = ((wave, *self._page_jobs(wave, signing, run)) for wave in in_waves(ids))
            for wave, listed, results in one_ahead(waves):
                self._store_pages(results, listed)
                self.progress.advance(len(wave))

    def _write_page_file(self, rel: str, data: bytes) -> None:
        self.files.write(rel, data)

    def _note_page_file(self, rel: str, _: bytes) -> None:
        self.files.note(rel)

    def _page_jobs(self, wave: list[str], signing: SigningPlan | None, run: Runner
                   ) -> tuple[dict[str, tuple[str, str, str]], Iterator[RenderedPage]]:
        """Queue one wave of pages to render (removing those left without claims); returns
        what index.md shows of them now and their rendered pages, in order."""
        st, report = self.state, self.report
        entities, claims, linking, previous = st.page_inputs(wave)
        # a dirty page whose inputs are those it was last rendered from renders the same bytes
        # (a record's edit dirties every page its claims mention; most show only its name)
        skip = not (report.full_rebuild or report.schema_changed)
        rendered_from = st.input_digests(wave) if skip else {}
        listed = st.index_rows_of(wave)
        # a reference shows its target's title (compiler/render.py, shown_value)
        targets = st.reference_targets([eid for eid in wave if eid in claims])
        names = st.entity_names({s for subs in linking.values() for s in subs}
                                | {t for ts in targets.values() for t in ts})
        jobs: list[PageJob] = []
        for eid in wave:
            md_path, _ = self._page_paths(eid)
            if eid not in entities or eid not in claims:
                md_rel, sc_rel = self._page_rels(eid)
                if eid in previous or self.files.exists(md_rel):
                    self.files.remove(md_rel)
                    self.files.remove(sc_rel)
                    st.drop_page(eid)
                    report.pages_removed += 1
                    report.removed.append(eid)
                continue
            backlinks = sorted(
                ((s, names[s]) for s in linking.get(eid, ()) if s in names),
                key=lambda kv: (kv[1].lower(), kv[0]))
            titles = tuple((t, names[t]) for t in sorted(targets.get(eid, ())) if t in names)
            sign = signing is not None and (
                signing.resign_all or not self.files.exists(bundle_name(eid)))
            inputs = None  # a full build has nothing to compare: the workers digest them
            if skip:
                inputs = input_digest(entities[eid], claims[eid], backlinks,
                                      self._synthesis.get(eid), titles)
                if (rendered_from.get(eid) == inputs and not sign
                        and eid not in self._restored and self.files.exists(f"{eid}.md")):
                    continue
            if eid not in previous:
                self._created.add(eid)
            jobs.append(PageJob(eid, entities[eid], claims[eid], backlinks,
                                previous.get(eid), str(md_path),
                                self._synthesis.get(eid), sign, inputs, titles))
        return listed, run(render_step, jobs, batched=True)

    def _store_pages(self, results: Iterable[RenderedPage],
                     listed: dict[str, tuple[str, str, str]]) -> None:
        """Write one wave's rendered pages (only those whose bytes changed) and their rows."""
        st, report = self.state, self.report
        pages, statuses, conflicts, search, index_lines = [], [], [], [], []
        inputs: list[tuple[str, str]] = []
        for page in results:
            report.pages_rendered += 1
            # a worker process may have staged the files itself (steps._staged): noted here
            put = self._note_page_file if page.staged else self._write_page_file
            if page.files is not None:
                md_rel, sc_rel = self._page_rels(page.entity_id)
                put(md_rel, page.files[0])
                put(sc_rel, page.files[1])
                report.pages_written += 1
                report.written.append(page.entity_id)
            if page.bundle is not None:
                put(bundle_name(page.entity_id), page.bundle)
                self._signed[page.entity_id] = page.bundle_sha256
            pages.append((page.entity_id, f"{page.entity_id}.md", page.sha256,
                          page.sidecar_sha256, page.type, page.title, page.summary))
            key_line = index_entry(page.entity_id, page.title, page.summary)
            was = listed.get(page.entity_id)
            if was != (page.type, page.title, page.summary):
                if was is not None and was[:2] == (page.type, page.title):
                    self._index_edits.append(
                        (index_entry(page.entity_id, was[1], was[2])[1], key_line[1]))
                else:
                    self._index_changed = True
            # a page that keeps its title and summary (most re-rendered pages) keeps its
            # index.md row as stored: not written again (each row written dirtied two of the
            # state's pages, the row's and its index's)
            if was != (page.type, page.title, page.summary) or report.full_rebuild:
                index_lines.append((page.entity_id, page.type, *key_line))
            statuses += page.statuses
            conflicts += page.conflicts
            search += page.search_rows
            inputs.append((page.entity_id, page.inputs_sha256))
        st.put_rendered(pages, statuses, conflicts, search, index_lines)
        st.set_input_digests(inputs)

    def _refuse_foreign_pages(self, dirty: set[str]) -> None:
        """A page new to this wiki whose path already holds a file: someone else's (pages a
        crashed compile left are in pending.json, and re-rendered)."""
        new = sorted(dirty - set(self._pending()))
        known: set[str] = set()
        for wave in in_waves(new):
            known |= self.state.index_rows_of(wave).keys()
        found = foreign_page_files(self.out, (eid for eid in new if eid not in known))
        if found:
            raise CompileError(str(foreign_pages_error(self.out, found)))

    # -- 6a: LLM page synthesis (optional) --------------------------------------------------
    def _synthesize(self, dirty: set[str]) -> None:
        """Overviews of dirty pages from their winning claims, made before any page is written
        so that a budget stop leaves the wiki untouched."""
        synthesizer = getattr(self.backend, "synthesizer", None)
        if synthesizer is None:
            return
        st, pages = self.state, []
        for eid in sorted(dirty):
            entity = st.entity(eid)
            if entity is None:
                continue
            claims = st.claims_of_subject(eid)
            status, _ = resolve(claims, self.tiebreak_of)
            winners = [c for c in claims if status.get(c.id) == "winner"]
            if winners:
                pages.append((entity, winners))
        self._synthesis = {eid: [(s.text, s.claims) for s in sentences]
                           for eid, sentences in synthesizer.synthesize(pages).items()}

    # -- 6b: answers filed back as pages (compiler/answer_pages.py) ------------------------
    def _answer_pages(self) -> set[str]:
        """Pages of filed answers: rendered from their filed answer, never from claims."""
        from .answer_pages import ANSWER_TYPE, answer_page_id, load_filed

        rows = self.state.db.execute("SELECT entity_id FROM pages WHERE type=?", (ANSWER_TYPE,))
        filed = load_filed(self.out, self.src)  # kept beside the corpus
        return {r[0] for r in rows} | {answer_page_id(f.question) for f in filed}

    def _file_answers(self, signing: SigningPlan | None) -> None:
        from .answer_pages import update_pages

        written, removed, signed, index_changed = update_pages(
            self.state, self.out, self.files, signing.signer if signing else None,
            signing.build if signing else None, bool(signing and signing.resign_all),
            corpus=self.src)  # filed answers are kept beside the corpus
        r = self.report
        r.written += written
        r.pages_written += len(written)
        r.removed += removed
        r.pages_removed += len(removed)
        self._signed.update(signed)
        self._index_changed = self._index_changed or index_changed

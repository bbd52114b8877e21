"""An incremental compile does work in proportion to what changed (issue 24, target 3): a dirty
page whose render inputs did not change is not rendered again, and the records of an edited
file that did not change are not carried back from the parse as whole rows. What it writes stays
exactly what a clean rebuild writes (tests/test_incremental.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

from compiler.build import compile_wiki, wiki_state
from compiler.state import State
from compiler.policy import load_policy
from compiler.steps import parse_file
from compiler.workers import CONTEXT
from connectors.loader import discover, load_manifest, read_input

from test_incremental import ACME, assert_same_wiki

TODAY = "2026-11-21"


def _edit_return_policy_sentence(corpus: Path) -> None:
    """A sentence of a record whose claims mention other pages: those pages show only the
    record's page as a backlink, and the edit changes nothing they show."""
    doc = corpus / "handbook" / "returns-handling.md"
    text = doc.read_text()
    assert "Return Policy" in text
    doc.write_text(text + "\nThe checklist was reviewed again in November.\n")


def test_pages_that_only_mention_an_edited_record_are_not_rendered_again(tmp_path: Path) -> None:
    corpus, wiki = tmp_path / "corpus", tmp_path / "wiki"
    shutil.copytree(ACME, corpus)
    compile_wiki(corpus, wiki, today=TODAY)
    st = wiki_state(wiki)
    try:
        key = next(k for k in st.all_record_keys() if k.endswith("returns-handling"))
        _, touched = st.claim_touch_set(key)
    finally:
        st.close()
    assert len(touched) > 1, "the edited record's claims must mention other pages"

    _edit_return_policy_sentence(corpus)
    report = compile_wiki(corpus, wiki, today=TODAY)
    assert report.records_extracted == 1
    assert report.written == ["process/returns-handling"]
    # every page its claims touch was dirty; only the one whose inputs changed was rendered
    assert report.pages_rendered == 1

    clean = tmp_path / "clean"
    compile_wiki(corpus, clean, today=TODAY, full=True)
    assert_same_wiki(wiki, clean)


def test_a_page_rendered_from_the_same_inputs_is_rendered_again_when_its_file_is_gone(
        tmp_path: Path) -> None:
    corpus, wiki = tmp_path / "corpus", tmp_path / "wiki"
    shutil.copytree(ACME, corpus)
    compile_wiki(corpus, wiki, today=TODAY)
    (wiki / "policy" / "return-policy.md").unlink()
    # dirty, its inputs unchanged: a page a crashed compile left pending (an edit no longer
    # dirties the pages its claims only mention, see the test below)
    (wiki / ".folio" / "pending.json").write_text('["policy/return-policy"]')
    _edit_return_policy_sentence(corpus)
    report = compile_wiki(corpus, wiki, today=TODAY)
    assert "policy/return-policy" in report.written
    clean = tmp_path / "clean"
    compile_wiki(corpus, clean, today=TODAY, full=True)
    assert_same_wiki(wiki, clean)


def test_an_edit_that_keeps_what_pages_mention_does_not_dirty_the_mentioned_pages(
        tmp_path: Path, monkeypatch) -> None:
    """A page a claim mentions shows only which pages mention it: an edited sentence whose
    claims mention the same pages as before leaves those pages clean (their inputs are not
    even read again), and the wiki is still the clean rebuild's."""
    corpus, wiki = tmp_path / "corpus", tmp_path / "wiki"
    shutil.copytree(ACME, corpus)
    compile_wiki(corpus, wiki, today=TODAY)
    st = wiki_state(wiki)
    try:
        key = next(k for k in st.all_record_keys() if k.endswith("returns-handling"))
        _, touched = st.claim_touch_set(key)
    finally:
        st.close()
    assert "policy/return-policy" in touched

    read: list[str] = []
    page_inputs = State.page_inputs

    def spy(self, ids):
        read.extend(ids)
        return page_inputs(self, ids)

    monkeypatch.setattr(State, "page_inputs", spy)
    _edit_return_policy_sentence(corpus)
    report = compile_wiki(corpus, wiki, today=TODAY)
    assert report.written == ["process/returns-handling"]
    assert read == ["process/returns-handling"]

    monkeypatch.setattr(State, "page_inputs", page_inputs)
    clean = tmp_path / "clean"
    compile_wiki(corpus, clean, today=TODAY, full=True)
    assert_same_wiki(wiki, clean)


def test_a_new_mention_dirties_the_page_it_mentions(tmp_path: Path) -> None:
    """The other way: a sentence that now names a page adds the record's page to that
    page's backlinks, and the page is rendered again."""
    corpus, wiki = tmp_path / "corpus", tmp_path / "wiki"
    shutil.copytree(ACME, corpus)
    compile_wiki(corpus, wiki, today=TODAY)
    doc = corpus / "handbook" / "returns-handling.md"
    before = (wiki / "product").glob("*.md")
    target = sorted(p.stem for p in before)[0]
    st = wiki_state(wiki)
    try:
        name = st.entity_names([f"product/{target}"])[f"product/{target}"]
        assert "process/returns-handling" not in st.backlinks(f"product/{target}")
    finally:
        st.close()
    doc.write_text(doc.read_text() + f"\nReturns of the {name} follow the same checklist.\n")
    report = compile_wiki(corpus, wiki, today=TODAY)
    assert f"product/{target}" in report.written
    clean = tmp_path / "clean"
    compile_wiki(corpus, clean, today=TODAY, full=True)
    assert_same_wiki(wiki, clean)


def test_unchanged_records_of_an_edited_file_come_back_from_the_parse_without_their_rows(
        tmp_path: Path) -> None:
    manifest = load_manifest(ACME)
    files, _ = discover(ACME, manifest)
    f = next(f for f in files if f.rel.endswith("pol.json"))
    item = (f.rel, read_input(f, 1 << 30), f.source, manifest.tenant)
    CONTEXT.clear()
    CONTEXT.update({"policy": load_policy(ACME / "authority.yaml"), "backend": None,
                    "stored": {}})
    fresh = parse_file(item)
    assert len(fresh) > 1 and all(r.record_json for r in fresh)
    # the state holds the first record as read: the rest changed
    CONTEXT["stored"] = {fresh[0].key: fresh[0].sha256, fresh[1].key: "another digest"}
    again = parse_file(item)
    assert [(r.key, r.sha256) for r in again] == [(r.key, r.sha256) for r in fresh]
    assert again[0].record_json == "" and again[0].declaration is None
    assert again[1:] == fresh[1:]
    CONTEXT.clear()


def _compile_counting(monkeypatch, module, corpus: Path, wiki: Path) -> tuple[object, int]:
    """Compile in this process (one worker), counting the records ``module`` builds."""
    from compiler.settings import FolioSettings

    calls = []
    real = module._record
    monkeypatch.setattr(module, "_record", lambda *a, **k: calls.append(1) or real(*a, **k))
    report = compile_wiki(corpus, wiki, FolioSettings(workers=1), today=TODAY)
    monkeypatch.setattr(module, "_record", real)
    return report, len(calls)


def _assert_equals_clean(corpus: Path, wiki: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean"
    shutil.rmtree(clean, ignore_errors=True)
    compile_wiki(corpus, clean, today=TODAY, full=True)
    assert_same_wiki(wiki, clean)


def test_an_edited_export_builds_again_only_the_objects_that_changed(
        tmp_path: Path, monkeypatch) -> None:
    from connectors import confluence

    from test_incremental import edit_policy

    corpus, wiki = tmp_path / "corpus", tmp_path / "wiki"
    shutil.copytree(ACME, corpus)
    compile_wiki(corpus, wiki, today=TODAY)
    edit_policy(corpus, 0, 45)  # one page of the three in pol.json
    report, built = _compile_counting(monkeypatch, confluence, corpus, wiki)
    assert report.records_extracted == 1
    assert built == 1
    _assert_equals_clean(corpus, wiki, tmp_path)


def test_what_the_rest_of_the_document_says_rebuilds_every_object(
        tmp_path: Path, monkeypatch) -> None:
    """Jira's ``names`` (how custom fields are called) is outside the issues list."""
    import json

    from connectors import jira

    corpus, wiki = tmp_path / "corpus", tmp_path / "wiki"
    shutil.copytree(ACME, corpus)
    compile_wiki(corpus, wiki, today=TODAY)
    path = corpus / "jira" / "search-page-1.json"
    doc = json.loads(path.read_text())
    doc["names"]["customfield_10050"] = "Client"
    path.write_text(json.dumps(doc, indent=2))
    report, built = _compile_counting(monkeypatch, jira, corpus, wiki)
    assert built == len(doc["issues"])
    _assert_equals_clean(corpus, wiki, tmp_path)


def test_a_share_row_rebuilds_the_record_it_grants_on(tmp_path: Path, monkeypatch) -> None:
    """Salesforce share rows are other rows of the file: the record they grant on changes."""
    import json

    from connectors import salesforce

    corpus, wiki = tmp_path / "corpus", tmp_path / "wiki"
    shutil.copytree(ACME, corpus)
    compile_wiki(corpus, wiki, today=TODAY)
    path = corpus / "salesforce" / "prod" / "opportunities.json"
    doc = json.loads(path.read_text())
    target = doc["records"][0]["Id"]
    doc["records"].append({"attributes": {"type": "OpportunityShare"}, "OpportunityId": target,
                           "UserOrGroupId": "0055g00000CarolAAB"})
    path.write_text(json.dumps(doc, indent=2))
    report, built = _compile_counting(monkeypatch, salesforce, corpus, wiki)
    assert (report.records_extracted, built) == (1, 1)
    _assert_equals_clean(corpus, wiki, tmp_path)


def test_worker_processes_stage_the_pages_they_render(tmp_path: Path, monkeypatch) -> None:
    """The parent stores every page's rows; the workers that render the pages also create
    their files in the stage (the parent only notes them), and the wiki is the same."""
    from compiler import staging
    from compiler.settings import FolioSettings

    corpus = tmp_path / "corpus"
    shutil.copytree(ACME, corpus)
    by_parent: list[str] = []
    real = staging.Generation.write

    def write(self, rel: str, data: bytes) -> None:  # noqa: ANN001
        if not self.in_worker():
            by_parent.append(rel)
        real(self, rel, data)

    monkeypatch.setattr(staging.Generation, "write", write)
    wiki = tmp_path / "parallel"
    report = compile_wiki(corpus, wiki, FolioSettings(workers=2, parallel_min_items=1),
                          today=TODAY)
    assert report.pages_written > 20
    page_files = [rel for rel in by_parent if "/" in rel and not rel.startswith("dbom-root")]
    assert page_files == []
    serial = tmp_path / "serial"
    compile_wiki(corpus, serial, FolioSettings(workers=1), today=TODAY)
    assert_same_wiki(wiki, serial)


def test_an_edit_of_a_remembered_export_is_parsed_without_starting_workers(
        tmp_path: Path, monkeypatch) -> None:
    """Parsing an edited export whose objects the state remembers builds only the changed
    ones: the read phase counts it at a fraction of its size, and a pool sized to pay for a
    first parse of those bytes is not started for it (a 1 % edit forked one per compile).
    A first compile of the same files still goes to the workers."""
    import compiler.record_read as record_read
    from compiler.settings import FolioSettings

    from test_incremental import edit_policy

    corpus, wiki = tmp_path / "corpus", tmp_path / "wiki"
    shutil.copytree(ACME, corpus)
    size = (corpus / "confluence" / "pol.json").stat().st_size
    threshold = size // record_read._BYTES_PER_RECORD  # a first parse of pol.json alone reaches it
    assert threshold >= 2
    settings = FolioSettings(workers=2, parallel_min_items=threshold)
    phases: list[tuple[int, int]] = []
    real = record_read.step_runner  # the read phase's pool

    def spy(workers, n_items, min_items, *a, **k):
        phases.append((n_items, min_items))
        return real(workers, n_items, min_items, *a, **k)

    monkeypatch.setattr(record_read, "step_runner", spy)
    compile_wiki(corpus, wiki, settings, today=TODAY)
    first_read = phases[0]
    assert first_read[0] >= first_read[1]  # the first parse: workers
    phases.clear()
    edit_policy(corpus, 0, 45)
    report = compile_wiki(corpus, wiki, settings, today=TODAY)
    assert report.files_changed == 1 and report.records_extracted == 1
    read = phases[0]
    assert read[0] < read[1]  # the edit: parsed in this process
    monkeypatch.setattr(record_read, "step_runner", real)
    _assert_equals_clean(corpus, wiki, tmp_path)


def test_payload_digests_take_what_json_takes() -> None:
    """The digests of what a payload object's record takes besides its own bytes (the rest of
    the document, a connector's derived data such as Salesforce's share rows): key order does
    not matter, an integer beyond 64 bits (which orjson refuses) still digests, and different
    values digest differently. (The objects themselves are digested as their bytes:
    tests/test_connector_raw_memo.py.)"""
    from connectors._common import _digest

    assert _digest({"a": 1, "b": [2, "é"]}) == _digest({"b": [2, "é"], "a": 1})
    big = _digest({"id": 2 ** 70})
    assert big == _digest({"id": 2 ** 70}) and big != _digest({"id": 2 ** 70 + 1})
    assert _digest({"a": 1.5}) != _digest({"a": "1.5"})


def test_an_edited_export_rewrites_only_the_memo_rows_of_its_changed_objects(
        tmp_path: Path, monkeypatch) -> None:
    """The payload object digests of an edited export are written as a change (the edited
    object's row goes, its new one comes) and end up what a clean compile stores."""
    from test_incremental import edit_policy

    corpus, wiki = tmp_path / "corpus", tmp_path / "wiki"
    shutil.copytree(ACME, corpus)
    compile_wiki(corpus, wiki, today=TODAY)
    written: list[tuple[str, list, list]] = []
    real = State.update_item_digests

    def spy(self, path, gone, rows):
        written.append((path, list(gone), list(rows)))
        return real(self, path, gone, rows)

    monkeypatch.setattr(State, "update_item_digests", spy)
    edit_policy(corpus, 0, 45)
    compile_wiki(corpus, wiki, today=TODAY)
    assert [(p, len(g), len(r)) for p, g, r in written] == [("confluence/pol.json", 1, 1)]
    monkeypatch.setattr(State, "update_item_digests", real)

    clean = tmp_path / "clean"
    compile_wiki(corpus, clean, today=TODAY, full=True)

    def memo(w: Path) -> list[tuple]:
        st = wiki_state(w)
        try:
            return sorted(st.db.execute("SELECT * FROM item_digests"))
        finally:
            st.close()

    assert memo(wiki) == memo(clean) != []


def test_records_of_an_edited_file_are_not_looked_up_one_file_at_a_time_again(
        tmp_path: Path, monkeypatch) -> None:
    """The state's index of the records an edited file held comes with the scan; only keys
    it does not hold (new ones, or keys another file held) are looked up while parsing."""
    import json

    from test_incremental import edit_policy

    corpus, wiki = tmp_path / "corpus", tmp_path / "wiki"
    shutil.copytree(ACME, corpus)
    compile_wiki(corpus, wiki, today=TODAY)
    edit_policy(corpus, 0, 45)
    path = corpus / "confluence" / "pol.json"
    doc = json.loads(path.read_text())
    page = json.loads(json.dumps(doc["results"][0]))
    page["id"], page["title"] = "990001", "A Page New To The Export"
    doc["results"].append(page)
    path.write_text(json.dumps(doc, indent=2))
    asked: list[str] = []
    real = State.record_index_of

    def spy(self, keys):
        keys = list(keys)
        asked.extend(keys)
        return real(self, keys)

    monkeypatch.setattr(State, "record_index_of", spy)
    report = compile_wiki(corpus, wiki, today=TODAY)
    monkeypatch.setattr(State, "record_index_of", real)
    assert report.records_extracted == 2
    assert [k.rsplit("/", 1)[1] for k in asked] == ["990001"]
    _assert_equals_clean(corpus, wiki, tmp_path)


def test_objects_older_than_a_compile_are_spared_the_collectors_full_walks(
        tmp_path: Path, monkeypatch) -> None:
    """A compile allocates millions of objects, which set off full collections; each walked
    every object of the process (modules, caches, the previous compile's leftovers). Those are
    frozen while it runs, and thawed after; a caller's own freeze is left as it was. Young
    collections are fewer meanwhile, and the process's thresholds restored after."""
    import gc

    from compiler.compile_run import CompileRun

    seen: list[int] = []
    young: list[int] = []
    real = CompileRun._aggregate
    monkeypatch.setattr(CompileRun, "_aggregate", lambda self: seen.append(
        gc.get_freeze_count()) or young.append(gc.get_threshold()[0]) or real(self))
    thresholds = gc.get_threshold()
    corpus, wiki = tmp_path / "corpus", tmp_path / "wiki"
    shutil.copytree(ACME, corpus)
    older = [object() for _ in range(10)]  # noqa: F841 - objects that exist before the compile
    assert gc.get_freeze_count() == 0
    compile_wiki(corpus, wiki, today=TODAY)
    assert seen and seen[-1] > 0
    assert gc.get_freeze_count() == 0
    # fewer young collections while it runs (each walked the young objects still alive)
    assert young[-1] > thresholds[0] and gc.get_threshold() == thresholds

    gc.freeze()
    try:
        _edit_return_policy_sentence(corpus)
        compile_wiki(corpus, wiki, today=TODAY)
        assert gc.get_freeze_count() > 0  # still frozen: the caller thaws its own
    finally:
        gc.unfreeze()


def test_a_page_rendered_again_as_it_was_rewrites_no_status_and_no_index_row(
        tmp_path: Path) -> None:
    """A page rendered again whose claims keep their statuses and whose index.md line is the
    same writes neither again: a 1 % edit at 10k wrote ~6,000 of the state's pages per commit,
    each row written dirtying one page of its table and one of each index."""
    import sqlite3

    corpus, wiki = tmp_path / "corpus", tmp_path / "wiki"
    shutil.copytree(ACME, corpus)
    compile_wiki(corpus, wiki, today=TODAY)
    page = "policy/return-policy"
    db = sqlite3.connect(wiki / ".folio" / "state.db", isolation_level=None)
    try:
        assert db.execute("SELECT count(*) FROM claims WHERE subject=? AND status='overruled'",
                          (page,)).fetchone()[0] > 0
        db.executescript(f"""
            CREATE TABLE writes (what TEXT);
            CREATE TRIGGER status_written AFTER UPDATE OF status ON claims
              WHEN NEW.subject = '{page}' BEGIN INSERT INTO writes VALUES ('status'); END;
            CREATE TRIGGER index_written AFTER INSERT ON page_index
              WHEN NEW.entity_id = '{page}' BEGIN INSERT INTO writes VALUES ('index'); END;""")
    finally:
        db.close()
    (wiki / "policy" / "return-policy.md").unlink()
    (wiki / ".folio" / "pending.json").write_text(f'["{page}"]')  # dirty, inputs unchanged
    report = compile_wiki(corpus, wiki, today=TODAY)
    assert page in report.written
    db = sqlite3.connect(wiki / ".folio" / "state.db")
    try:
        assert db.execute("SELECT what FROM writes").fetchall() == []
    finally:
        db.close()
    clean = tmp_path / "clean"
    compile_wiki(corpus, clean, today=TODAY, full=True)
    assert_same_wiki(wiki, clean)


def test_the_records_of_files_read_again_are_found_in_the_index_alone(tmp_path: Path) -> None:
    """An incremental compile looks up the key and digest of every record of the files it
    reads again (~7,800 for a 1 % edit at 10k): through an index of files alone each came from
    its ~4 KB row, cold in each compile's new connection. A state with the older index gets the
    covering one when a compile opens it, without a rebuild."""
    import sqlite3

    corpus, wiki = tmp_path / "corpus", tmp_path / "wiki"
    shutil.copytree(ACME, corpus)
    compile_wiki(corpus, wiki, today=TODAY)
    path = wiki / ".folio" / "state.db"

    def plan() -> str:
        db = sqlite3.connect(path)
        try:
            return " ".join(str(r[-1]) for r in db.execute(
                "EXPLAIN QUERY PLAN SELECT key, sha256, file FROM records WHERE file IN (?, ?)",
                ("a", "b")))
        finally:
            db.close()

    assert "COVERING INDEX" in plan()
    db = sqlite3.connect(path)  # the index a state written before had
    try:
        for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='index' "
                                  "AND tbl_name='records' AND sql IS NOT NULL").fetchall():
            db.execute(f'DROP INDEX "{name}"')
        db.execute("CREATE INDEX records_by_file ON records(file)")
        db.commit()
    finally:
        db.close()
    assert "COVERING INDEX" not in plan()
    _edit_return_policy_sentence(corpus)
    report = compile_wiki(corpus, wiki, today=TODAY)
    assert not report.full_rebuild and report.records_extracted == 1
    assert "COVERING INDEX" in plan()
    clean = tmp_path / "clean"
    compile_wiki(corpus, clean, today=TODAY, full=True)
    assert_same_wiki(wiki, clean)

"""Filed answers that stay honest (issue 21, item 5): an answer page is current only while
what it shows is (its cited claims' digests and statuses, and the titles and values it shows:
a renamed reference target changes no claim of the citing page, yet the answer would show the
old name); filed answers survive a clean rebuild (they are kept beside the corpus); a failed
filing or refresh leaves nothing half-written; and an answer page never shows a title to a
principal who may not read it."""

from __future__ import annotations

import fcntl
import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from connectors.loader import current_sources
from compiler.answer_pages import answers_home, load_filed, staleness
from compiler.build import compile_wiki, wiki_state
from compiler.provenance.verify import trust_from, verify_wiki
from compiler.settings import FolioSettings
from pipelines.folio_cli import app
from conftest import TODAY, flat
from test_incremental import assert_same_wiki
from test_reference_titles import write_company, write_corpus

Q = "Which account is the Orchid renewal for?"
PAGE = "answer/which-account-is-the-orchid-renewal-for"
DAY = "2026-11-21"


def _ask(runner: CliRunner, wiki: Path, *extra: str, q: str = Q) -> dict:
    res = runner.invoke(app, ["ask", q, "--wiki", str(wiki), "--json", *extra])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _hubspot(tmp: Path) -> tuple[Path, Path]:
    corpus = write_corpus(tmp / "corpus")
    wiki = tmp / "wiki"
    compile_wiki(corpus, wiki, today=DAY)
    return corpus, wiki


def _page(wiki: Path) -> str:
    return (wiki / f"{PAGE}.md").read_text()


def test_an_answer_goes_stale_when_a_title_it_shows_changes(tmp_path: Path,
                                                            runner: CliRunner) -> None:
    corpus, wiki = _hubspot(tmp_path)
    assert _ask(runner, wiki, "--save")["page"] == PAGE
    page = _page(wiki)
    # the cited claims table shows the value as the answer does: the title, not the id
    assert "| account | Orchid Learning |" in page and "HubSpot company 500" not in page
    # the company renamed: the deal's claims are unchanged, the title the answer shows is not
    write_company(corpus, "Orchid Learning Inc.", "2026-11-05T10:00:00Z")
    report = compile_wiki(corpus, wiki, today=DAY)
    assert PAGE in report.written
    page = _page(wiki)
    assert "stale: true" in page and "> **Stale.**" in page
    assert "now reads Orchid Learning Inc. (was Orchid Learning)" in page
    lint = runner.invoke(app, ["lint", "--wiki", str(wiki), "--json"])
    found = {(f["code"], f["page"]) for f in json.loads(lint.stdout)["findings"]}
    assert ("stale-answer", PAGE) in found
    assert ("orphan-page", PAGE) not in found  # reached from index.md, linked from no page
    listed = runner.invoke(app, ["answers", "list", "--wiki", str(wiki)])
    assert f"STALE [[{PAGE}]]" in flat(listed.stdout)
    assert verify_wiki(wiki, trust_from(FolioSettings())).ok

    res = runner.invoke(app, ["answers", "refresh", "--wiki", str(wiki)])
    assert res.exit_code == 0, res.output
    page = _page(wiki)
    assert "stale: false" in page and "| account | Orchid Learning Inc. |" in page
    assert not staleness(wiki_state(wiki), load_filed(wiki)[0])
    assert verify_wiki(wiki, trust_from(FolioSettings())).ok


def test_answers_save_refuses_an_answer_whose_shown_title_changed(tmp_path: Path,
                                                                  runner: CliRunner) -> None:
    corpus, wiki = _hubspot(tmp_path)
    rid = _ask(runner, wiki)["answer_id"]
    write_company(corpus, "Orchid Learning Inc.", "2026-11-05T10:00:00Z")
    compile_wiki(corpus, wiki, today=DAY)
    res = runner.invoke(app, ["answers", "save", rid, "--wiki", str(wiki)])
    assert res.exit_code == 1
    # its claims are unchanged; what it shows (and the deal page's bytes) are not
    assert f"answer {rid}: what it" in flat(res.output) and "changed" in flat(res.output)
    assert load_filed(wiki) == [] and not (wiki / f"{PAGE}.md").exists()
    # an unknown id is named in the error
    res = runner.invoke(app, ["answers", "save", "0123456789abcdef0123", "--wiki", str(wiki)])
    assert res.exit_code == 1 and "answer 0123456789abcdef0123" in flat(res.output)


def test_an_answer_page_shows_no_title_its_reader_may_not_read(tmp_path: Path,
                                                             runner: CliRunner) -> None:
    """alice may read the company (she owns it), bob only the deal, which names it by id: the
    answer alice filed says "Orchid Learning", so bob may not read it, though he may see every
    claim it cites."""
    _, wiki = _hubspot(tmp_path)
    _ask(runner, wiki, "--save", "--as", "alice")
    res = runner.invoke(app, ["show", PAGE, "--wiki", str(wiki), "--as", "alice"])
    assert res.exit_code == 0 and "Orchid Learning" in res.stdout
    res = runner.invoke(app, ["show", PAGE, "--wiki", str(wiki), "--as", "bob"])
    assert res.exit_code == 1 and "Orchid Learning" not in res.stdout
    # bob's own answer shows the id: his to read, and the operator's
    res = runner.invoke(app, ["ask", Q, "--wiki", str(wiki), "--save", "--as", "bob"])
    assert res.exit_code == 0 and f"[[{PAGE}]] was filed by alice" in flat(res.output)
    res = runner.invoke(app, ["show", PAGE, "--wiki", str(wiki), "--as", "bob"])
    assert res.exit_code == 0 and "HubSpot company 500" in res.stdout
    assert "Orchid Learning" not in res.stdout


def test_a_clean_rebuild_keeps_filed_answers(acme_copy: Path, tmp_path: Path,
                                             runner: CliRunner) -> None:
    wiki = tmp_path / "wiki"
    compile_wiki(acme_copy, wiki, today=TODAY)
    rid = _ask(runner, wiki, "--save",
               q="What is the return window for Enterprise customers?")["answer_id"]
    page = "answer/what-is-the-return-window-for-enterprise-customers"
    # kept beside the corpus, not only in the wiki's output folder
    assert (answers_home(wiki) / f"{page.split('/')[1]}.json").exists()
    assert answers_home(wiki).parent == acme_copy.resolve()
    before = (wiki / f"{page}.md").read_bytes()
    # a clean rebuild into a new folder, and into the same folder after deleting it
    fresh = tmp_path / "fresh"
    compile_wiki(acme_copy, fresh, today=TODAY)
    shutil.rmtree(wiki)
    compile_wiki(acme_copy, wiki, today=TODAY)
    for w in (fresh, wiki):
        assert (w / f"{page}.md").read_bytes() == before
        assert f"({page}.md)" in (w / "index.md").read_text()
        assert verify_wiki(w, trust_from(FolioSettings())).ok
        # the signed answer record it cites came back too: folio audit works on the rebuild
        res = runner.invoke(app, ["audit", rid, "--wiki", str(w)])
        assert res.exit_code == 0, res.output
    assert_same_wiki(fresh, wiki)


def test_incremental_equals_clean_rebuild_after_a_rename_with_answer_pages(
        tmp_path: Path, runner: CliRunner) -> None:
    corpus, inc = _hubspot(tmp_path)
    _ask(runner, inc, "--save")
    for name, when in (("Orchid Learning Inc.", "05"), ("Orchid Learning Group", "06")):
        write_company(corpus, name, f"2026-11-{when}T10:00:00Z")
        compile_wiki(corpus, inc, today=DAY)
        clean = tmp_path / f"clean-{when}"
        compile_wiki(corpus, clean, today=DAY)
        assert "stale: true" in _page(inc)
        assert_same_wiki(inc, clean)


def test_a_failed_filing_or_refresh_leaves_nothing_half_written(tmp_path: Path,
                                                               runner: CliRunner) -> None:
    corpus, wiki = _hubspot(tmp_path)
    with open(wiki / ".folio" / "lock", "w") as fh:  # another compile holds the wiki
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        res = runner.invoke(app, ["ask", Q, "--wiki", str(wiki), "--save"])
        assert res.exit_code == 1 and "nothing filed" in flat(res.output)
        assert load_filed(wiki) == [] and not (wiki / f"{PAGE}.md").exists()
    _ask(runner, wiki, "--save")
    home = answers_home(wiki)
    filed_bytes = {p.name: p.read_bytes() for p in home.glob("*.json")}
    write_company(corpus, "Orchid Learning Inc.", "2026-11-05T10:00:00Z")
    compile_wiki(corpus, wiki, today=DAY)
    page = _page(wiki)
    with open(wiki / ".folio" / "lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        res = runner.invoke(app, ["answers", "refresh", "--wiki", str(wiki)])
    assert res.exit_code == 1 and "another compile is running" in flat(res.output)
    assert {p.name: p.read_bytes() for p in home.glob("*.json")} == filed_bytes
    assert _page(wiki) == page and "stale: true" in page
    assert verify_wiki(wiki, trust_from(FolioSettings())).ok


def test_a_broken_filed_answer_is_named(tmp_path: Path, runner: CliRunner) -> None:
    corpus, wiki = _hubspot(tmp_path)
    _ask(runner, wiki, "--save")
    (bad,) = answers_home(wiki).glob("*.json")
    bad.write_text("{not json")
    res = runner.invoke(app, ["answers", "list", "--wiki", str(wiki)])
    assert res.exit_code == 1 and f"{bad}: not a filed answer" in flat(res.output)
    res = runner.invoke(app, ["compile", str(corpus), "--out", str(wiki)])
    assert res.exit_code == 1 and f"{bad}: not a filed answer" in flat(res.output)
    assert "stale: false" in _page(wiki)  # the wiki as it was
    assert verify_wiki(wiki, trust_from(FolioSettings())).ok
    bad.unlink()  # un-filed: the next compile removes its page
    assert PAGE in compile_wiki(corpus, wiki, today=DAY).removed
    assert not (wiki / f"{PAGE}.md").exists()
    assert f"({PAGE}.md)" not in (wiki / "index.md").read_text()
    assert verify_wiki(wiki, trust_from(FolioSettings())).ok


def test_verify_sources_calls_an_answer_page_stale_only_when_its_records_changed(
        acme_copy: Path, tmp_path: Path, runner: CliRunner) -> None:
    """`folio verify --sources` compares a page's DBOM records with the corpus: an answer
    page's DBOM names its cited records beside its claims, so a current answer is not stale
    (a claim id is no record of the corpus) and one whose record changed is."""
    wiki = tmp_path / "wiki"
    compile_wiki(acme_copy, wiki, today=TODAY)
    _ask(runner, wiki, "--save", q="What is the return window for Enterprise customers?")
    page = "answer/what-is-the-return-window-for-enterprise-customers.md"
    res = runner.invoke(app, ["verify", "--wiki", str(wiki), "--sources", str(acme_copy)])
    assert res.exit_code == 0, res.output
    conf = acme_copy / "confluence" / "pol.json"
    conf.write_text(conf.read_text().replace("60 days", "45 days"))
    report = verify_wiki(wiki, trust_from(FolioSettings()),
                         sources=current_sources(acme_copy))
    stale = {s.page: {c.key for c in s.sources} for s in report.stale}
    assert stale[page] == {"acme/confluence/acme.atlassian.net/page/33001"}


def test_answers_an_older_wiki_kept_in_its_own_folder_are_kept_and_move_when_refiled(
        tmp_path: Path, runner: CliRunner) -> None:
    corpus, wiki = _hubspot(tmp_path)
    _ask(runner, wiki, "--save")
    (filed,) = answers_home(wiki).glob("*.json")
    legacy = wiki / ".folio" / "answers" / filed.name
    legacy.parent.mkdir(parents=True)
    filed.rename(legacy)  # where a wiki of an older Folio kept it
    page = _page(wiki)
    assert PAGE not in compile_wiki(corpus, wiki, today=DAY).removed
    assert _page(wiki) == page
    res = runner.invoke(app, ["answers", "refresh", "--all", "--wiki", str(wiki)])
    assert res.exit_code == 0, res.output
    assert not legacy.exists() and (answers_home(wiki) / filed.name).exists()
    assert [f.page for f in load_filed(wiki)] == [PAGE]


def test_answers_remove_unfiles_an_answer(tmp_path: Path, runner: CliRunner) -> None:
    corpus, wiki = _hubspot(tmp_path)
    _ask(runner, wiki, "--save")
    res = runner.invoke(app, ["answers", "remove", "answer/nope", "--wiki", str(wiki)])
    assert res.exit_code == 1 and "'answer/nope': no filed answer" in flat(res.output)
    res = runner.invoke(app, ["answers", "remove", Q, "--wiki", str(wiki)])  # by its question
    assert res.exit_code == 0, res.output
    assert f"removed [[{PAGE}]]" in res.output
    assert load_filed(wiki) == [] and not (wiki / f"{PAGE}.md").exists()
    assert f"({PAGE}.md)" not in (wiki / "index.md").read_text()
    assert f"removed `{PAGE}`" in (wiki / "log.md").read_text()
    assert verify_wiki(wiki, trust_from(FolioSettings())).ok
    clean = tmp_path / "clean"
    compile_wiki(corpus, clean, today=DAY)
    assert not (clean / f"{PAGE}.md").exists()


def test_an_answer_asked_with_narrowed_groups_stays_narrowed(acme_copy: Path, tmp_path: Path,
                                                             runner: CliRunner) -> None:
    """`--as bob --group staff` asks as bob without his finance group: the filed answer is
    judged, shown and asked again as that, never as all of bob."""
    from compiler.answer_pages import asker

    wiki = tmp_path / "wiki"
    compile_wiki(acme_copy, wiki, today=TODAY)
    _ask(runner, wiki, "--save", "--as", "bob", "--group", "staff",
         q="What is the return window for Enterprise customers?")
    (filed,) = load_filed(wiki)
    assert filed.principal == "bob" and filed.groups == ("staff",)
    who = asker(wiki_state(wiki), filed)
    assert who is not None and who.groups == ("staff",)
    res = runner.invoke(app, ["answers", "refresh", "--all", "--wiki", str(wiki)])
    assert res.exit_code == 0, res.output
    assert load_filed(wiki)[0].groups == ("staff",)
    # an earlier ask with narrowed groups, filed later by its id, is filed as asked
    rid = _ask(runner, wiki, "--as", "bob", "--group", "staff",
               q="How much is the restocking fee on returned units?")["answer_id"]
    res = runner.invoke(app, ["answers", "save", rid, "--wiki", str(wiki)])
    assert res.exit_code == 0, res.output
    assert {f.groups for f in load_filed(wiki)} == {("staff",)}

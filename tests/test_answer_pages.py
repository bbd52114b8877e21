"""Answers filed back into the wiki (compiler/answer_pages.py): a page of type answer with its
own signed DBOM over the cited claims' digests, listed in index.md and logged; marked stale
when a cited record changes, listed by lint, re-asked by `folio answers refresh`; and an
incremental compile equals a clean rebuild with answer pages present."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from typer.testing import CliRunner

from compiler.answer_pages import load_filed, staleness
from compiler.build import compile_wiki, wiki_state
from pipelines.folio_cli import app
from compiler.provenance.reproducible import reproducible_files
from compiler.provenance.statement import claim_digest
from compiler.provenance.verify import trust_from, verify_wiki
from compiler.settings import FolioSettings
from compiler.views import principal
from conftest import TODAY, flat

Q = "What is the return window for Enterprise customers?"
PAGE = "answer/what-is-the-return-window-for-enterprise-customers"


def _save(runner: CliRunner, wiki: Path, q: str = Q, *extra: str) -> dict:
    res = runner.invoke(app, ["ask", q, "--wiki", str(wiki), "--save", "--json", *extra])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _compiled(src: Path, tmp: Path) -> Path:
    wiki = tmp / "wiki"
    assert compile_wiki(src, wiki, today=TODAY).rejected == 0
    return wiki


def _payload(bundle: Path) -> dict:
    return json.loads(base64.b64decode(json.loads(bundle.read_text())["dsseEnvelope"]["payload"]))


def test_a_saved_answer_is_a_signed_page_listed_and_logged(acme_copy: Path, tmp_path: Path,
                                                          runner: CliRunner) -> None:
    wiki = _compiled(acme_copy, tmp_path)
    data = _save(runner, wiki)
    assert data["page"] == PAGE
    page = (wiki / f"{PAGE}.md").read_text()
    assert page.startswith("---\n") and 'type: "answer"' in page and "stale: false" in page
    assert "60 days" in page and "[[policy/return-policy]]" in page
    assert f"* [{Q}]({PAGE}.md) - " in (wiki / "index.md").read_text()
    # an OKF concept like every page (docs/okf.md), and the wiki still an OKF bundle
    from compiler.okf import check_bundle
    assert check_bundle(wiki) == []
    assert f"filed [[{PAGE}]]" in (wiki / "log.md").read_text()
    # its DBOM's dependencies are the cited claims, by digest
    stmt = _payload(wiki / f"{PAGE}.dbom.json")
    deps = {d["name"]: d["digest"]["sha256"] for d in
            stmt["predicate"]["buildDefinition"]["resolvedDependencies"]
            if d["name"].startswith("claim/")}
    st = wiki_state(wiki)
    cited = {c for s in data["sentences"] for c in s["claims"]}
    claims = st.claims_by_ids(sorted(cited))
    assert deps == {f"claim/{cid}": claim_digest(c) for cid, (c, _) in claims.items()}
    report = verify_wiki(wiki, trust_from(FolioSettings()))
    assert report.ok, report.findings
    assert runner.invoke(app, ["verify", "--wiki", str(wiki)]).exit_code == 0


def test_an_answer_page_is_scoped_to_who_may_see_every_cited_claim(
        acme_copy: Path, tmp_path: Path, runner: CliRunner) -> None:
    wiki = _compiled(acme_copy, tmp_path)
    _save(runner, wiki, "Who must approve a discount above 35%?")
    (filed,) = load_filed(wiki)
    st = wiki_state(wiki)
    assert filed.visible_to(principal(st, "bob")) and filed.visible_to(None)
    assert not filed.visible_to(principal(st, "carol"))
    sidecar = json.loads((wiki / f"{filed.page}.claims.json").read_text())
    assert all(c["acl"]["groups"] == ["finance"] for c in sidecar["citations"])


def test_an_answer_goes_stale_when_its_cited_record_changes(acme_copy: Path, tmp_path: Path,
                                                            runner: CliRunner) -> None:
    wiki = _compiled(acme_copy, tmp_path)
    _save(runner, wiki)
    conf = acme_copy / "confluence" / "pol.json"
    conf.write_text(conf.read_text().replace("60 days", "45 days"))
    report = compile_wiki(acme_copy, wiki, today=TODAY)
    assert PAGE in report.written
    page = (wiki / f"{PAGE}.md").read_text()
    assert "stale: true" in page and "> **Stale.**" in page and "60 days" in page
    lint = runner.invoke(app, ["lint", "--wiki", str(wiki), "--json"])
    codes = {(f["code"], f["page"]) for f in json.loads(lint.stdout)["findings"]}
    assert ("stale-answer", PAGE) in codes
    assert verify_wiki(wiki, trust_from(FolioSettings())).ok
    # a compile that changes nothing leaves the page (and its bundle) as they are
    bundle = (wiki / f"{PAGE}.dbom.json").read_bytes()
    assert PAGE not in compile_wiki(acme_copy, wiki, today=TODAY).written
    assert (wiki / f"{PAGE}.dbom.json").read_bytes() == bundle

    res = runner.invoke(app, ["answers", "refresh", "--wiki", str(wiki)])
    assert res.exit_code == 0, res.output
    assert "1 answers asked again" in flat(res.output)
    page = (wiki / f"{PAGE}.md").read_text()
    assert "stale: false" in page and "45 days" in page and "60 days" not in page
    assert not staleness(wiki_state(wiki), load_filed(wiki)[0])
    assert verify_wiki(wiki, trust_from(FolioSettings())).ok
    lint = runner.invoke(app, ["lint", "--wiki", str(wiki), "--json"])
    assert "stale-answer" not in lint.stdout


def test_answers_save_files_a_signed_answer_and_refuses_a_changed_one(
        acme_copy: Path, tmp_path: Path, runner: CliRunner) -> None:
    wiki = _compiled(acme_copy, tmp_path)
    res = runner.invoke(app, ["ask", Q, "--wiki", str(wiki), "--json"])
    rid = json.loads(res.stdout)["answer_id"]
    assert not (wiki / f"{PAGE}.md").exists()
    res = runner.invoke(app, ["answers", "save", rid, "--wiki", str(wiki)])
    assert res.exit_code == 0, res.output
    assert (wiki / f"{PAGE}.md").exists()
    # an answer whose claims changed since is not filed as if it were current
    other = runner.invoke(app, ["ask", "What is the restocking fee?", "--wiki", str(wiki),
                                "--json"])
    rid2 = json.loads(other.stdout)["answer_id"]
    conf = acme_copy / "confluence" / "pol.json"
    conf.write_text(conf.read_text().replace("15%", "20%"))
    compile_wiki(acme_copy, wiki, today=TODAY)
    res = runner.invoke(app, ["answers", "save", rid2, "--wiki", str(wiki)])
    assert res.exit_code == 1 and "changed since" in flat(res.output)


def test_incremental_equals_clean_rebuild_with_answer_pages(acme_copy: Path, tmp_path: Path,
                                                            runner: CliRunner) -> None:
    inc = _compiled(acme_copy, tmp_path / "inc")
    _save(runner, inc)
    _save(runner, inc, "How much is the restocking fee on returned units?")
    doc = acme_copy / "handbook" / "returns-handling.md"
    doc.write_text(doc.read_text().replace("Compare the delivery date",
                                           "Always compare the delivery date"))
    conf = acme_copy / "confluence" / "pol.json"
    conf.write_text(conf.read_text().replace("60 days", "45 days"))
    compile_wiki(acme_copy, inc, today=TODAY)

    # the filed answers are inputs kept beside the corpus: a clean build files them too
    clean = tmp_path / "clean" / "wiki"
    compile_wiki(acme_copy, clean, today=TODAY)
    # signed answer records (.answers/): a clean build gets back those its filed answers cite
    # (the other asks' records are the history of questions asked there, not build output)
    cited = {f".answers/{f.record_id}.json" for f in load_filed(inc)}
    a, b = ({k: v for k, v in reproducible_files(w, ("log.md",)).items()
             if not k.startswith(".answers/") or k in cited} for w in (inc, clean))
    assert sorted(a) == sorted(b)
    assert [k for k in a if a[k] != b[k]] == []
    assert any(k.startswith("answer/") for k in a)
    assert "stale: true" in (clean / f"{PAGE}.md").read_text()


def test_show_prints_an_answer_page_only_to_who_may_see_its_claims(
        acme_copy: Path, tmp_path: Path, runner: CliRunner) -> None:
    wiki = _compiled(acme_copy, tmp_path)
    page = _save(runner, wiki, "Who must approve a discount above 35%?")["page"]
    res = runner.invoke(app, ["show", page, "--wiki", str(wiki), "--raw"])
    assert res.exit_code == 0, res.output
    assert res.stdout == (wiki / f"{page}.md").read_text() and "CFO" in res.stdout
    assert runner.invoke(app, ["show", page, "--wiki", str(wiki), "--as", "bob"]).exit_code == 0
    res = runner.invoke(app, ["show", page, "--wiki", str(wiki), "--as", "carol"])
    assert res.exit_code == 1 and "CFO" not in res.stdout
    assert "no page named" in flat(res.stderr)

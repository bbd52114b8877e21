"""The wiki as an Open Knowledge Format v0.2 bundle (issue 25 item 5, docs/okf.md): every page
of both example companies (examples/acme and the generated company) and an audience vault
pass the OKF checker (compiler/okf.py, written from the spec's rules), and the checker fails
what breaks them: a page without ``description``, a dangling or unused footnote, a missing
``type``, a source without ``resource``, an index or log out of form."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
import re
import shutil
import sys

import pytest
import yaml

from compiler import __version__
from compiler.audience import render_audience
from compiler.build import compile_wiki, wiki_state
from compiler.models import SourceRef
from compiler.okf import (OKF_VERSION, bundle_files, check_bundle, check_index, check_log,
                          check_page, source_ids, split_frontmatter)
from conftest import TODAY

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from companygen import generate  # noqa: E402
from quality_bench import prepare_corpus  # noqa: E402

PAGE = "policy/return-policy.md"
_REF = re.compile(r"(?<!\\)\[\^([^\]\s]+)\](?!:)")


@pytest.fixture(scope="module")
def company_wiki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated company (seed 7), compiled once."""
    root = tmp_path_factory.mktemp("okf-company")
    generate(7, root / "gen")
    corpus, _ = prepare_corpus(root / "gen", root)
    report = compile_wiki(corpus, root / "wiki", today=TODAY)
    assert report.pages_total > 40
    return root / "wiki"


def _meta(text: str) -> dict:  # type: ignore[type-arg]
    raw, _ = split_frontmatter(text)
    assert raw is not None
    meta = yaml.safe_load(raw)
    assert isinstance(meta, dict)
    return meta


def _concepts(wiki: Path) -> list[Path]:
    return [p for p in bundle_files(wiki) if p.name not in ("index.md", "log.md")]


@pytest.mark.parametrize("which", ["acme", "company"])
def test_every_page_of_both_companies_conforms(which: str, acme_wiki: Path,
                                               company_wiki: Path) -> None:
    wiki = acme_wiki if which == "acme" else company_wiki
    assert check_bundle(wiki) == []
    concepts = _concepts(wiki)
    assert len(concepts) > 20
    index = (wiki / "index.md").read_text(encoding="utf-8")
    cited_pages = 0
    for path in concepts:
        text = path.read_text(encoding="utf-8")
        meta = _meta(text)
        assert meta["generated"]["by"] == f"folio/{__version__}"
        if path.name == "SCHEMA.md":
            continue
        # Folio's own fields and Obsidian's stay beside OKF's
        assert {"aliases", "claims", "authority", "updated", "conflicts", "folio"} <= meta.keys()
        assert isinstance(meta["aliases"], list) and meta["folio"]["schema"]
        # generated.at is the newest source time (deterministic), the page's `updated`
        assert meta["generated"]["at"] == meta["updated"]
        ids = [s["id"] for s in meta["sources"]]
        assert all(re.fullmatch(r"[a-z0-9-]+", i) for i in ids), ids
        assert all(s["title"] and s["resource"] and s["version"] for s in meta["sources"])
        labels = set(_REF.findall(text))
        assert labels and labels <= set(ids), path
        cited_pages += 1
        # the index line carries the page's description, as OKF §8 asks
        rel = path.relative_to(wiki).as_posix()
        line = f"]({rel}) - {meta['description']}\n"
        assert line in index, (rel, meta["description"])
    assert cited_pages == len(concepts) - 1
    assert _meta(index) == {"okf_version": OKF_VERSION}


def test_an_audience_vault_conforms_too(acme_wiki: Path, tmp_path: Path) -> None:
    wiki = tmp_path / "wiki"
    shutil.copytree(acme_wiki, wiki)
    state = wiki_state(wiki)
    try:
        render_audience(wiki, state, "dave", tmp_path / "vault")
    finally:
        state.close()
    assert len(_concepts(tmp_path / "vault")) > 5
    assert check_bundle(tmp_path / "vault") == []


def test_page_without_description_fails(acme_wiki: Path) -> None:
    text = (acme_wiki / PAGE).read_text(encoding="utf-8")
    assert check_page(text, PAGE) == []
    broken = re.sub(r"^description: .*\n", "", text, count=1, flags=re.M)
    assert broken != text
    assert check_page(broken, PAGE) == [
        f"{PAGE}: description: missing (recommended by OKF §4.1, always written by Folio)"]


def test_dangling_and_unused_footnotes_fail(acme_wiki: Path) -> None:
    text = (acme_wiki / PAGE).read_text(encoding="utf-8")
    dangling = text.replace("## Statements\n\n", "## Statements\n\n- Made up.[^nowhere]\n", 1)
    assert check_page(dangling, PAGE) == [
        f"{PAGE}: [^nowhere]: footnote label is not a sources id (OKF §5.1)",
        f"{PAGE}: [^nowhere]: footnote cited but never defined"]
    # a definition whose source no claim cites any more
    label = _meta(text)["sources"][0]["id"]
    unused = re.sub(rf"(?<!\\)\[\^{label}\](?!:)", "", text)
    assert check_page(unused, PAGE) == [f"{PAGE}: [^{label}]:: footnote defined but never cited"]
    # a label that is defined and cited but is no sources id
    renamed = text.replace(f"[^{label}]", "[^s1]")
    assert f"{PAGE}: [^s1]: footnote label is not a sources id (OKF §5.1)" in check_page(
        renamed, PAGE)


def test_front_matter_rules_of_the_spec_fail_when_broken(acme_wiki: Path) -> None:
    text = (acme_wiki / PAGE).read_text(encoding="utf-8")
    assert check_page(text.split("\n---\n", 1)[1], PAGE) == [
        f"{PAGE}: no YAML front matter delimited by '---' lines (OKF §4)"]
    no_type = re.sub(r"^type: .*\n", "", text, count=1, flags=re.M)
    assert f"{PAGE}: type: required, a non-empty string (OKF §4.1)" in check_page(no_type, PAGE)
    no_resource = re.sub(r"^  resource: .*\n", "", text, count=1, flags=re.M)
    assert check_page(no_resource, PAGE) == [
        f"{PAGE}: sources[0].resource: required within an entry (OKF §5.1)"]
    bad_actor = text.replace(f'by: "folio/{__version__}"', 'by: "folio"')
    assert check_page(bad_actor, PAGE) == [
        f"{PAGE}: generated.by: 'folio': required, an actor (OKF §7)"]
    bad_day = re.sub(r'last_modified: "[^"]*"', 'last_modified: "12 Nov"', text, count=1)
    assert check_page(bad_day, PAGE) == [
        f"{PAGE}: sources[0].last_modified: '12 Nov' is not YYYY-MM-DD (OKF §5.1)"]


def test_reserved_files_fail_out_of_form(acme_wiki: Path) -> None:
    index = (acme_wiki / "index.md").read_text(encoding="utf-8")
    assert check_index(index, "index.md", root=True) == []
    assert check_index(index, "team/index.md", root=False) == [
        "team/index.md: front matter in an index.md below the root (OKF §8)"]
    prose = index.replace("# Index\n", "# Index\n\nGenerated by Folio; do not edit.\n", 1)
    (problem,) = check_index(prose, "index.md", root=True)
    assert "neither a heading nor an entry" in problem
    log = (acme_wiki / "log.md").read_text(encoding="utf-8")
    assert check_log(log, "log.md") == []
    assert check_log("# Log\n\n## [2026-11-21] compile | x\n", "log.md") == [
        "log.md: line 3: date heading '[2026-11-21] compile | x' is not YYYY-MM-DD (OKF §9)"]
    assert check_log("# Log\n\n## 2026-11-01\n* a\n\n## 2026-11-02\n* b\n", "log.md") == [
        "log.md: date groups are not unique and newest first (OKF §9)"]


def test_log_groups_by_day_newest_first(tmp_path: Path, acme_copy: Path) -> None:
    wiki = tmp_path / "wiki"
    compile_wiki(acme_copy, wiki, today="2026-11-20")
    (acme_copy / "handbook" / "returns-handling.md").write_text(
        (acme_copy / "handbook" / "returns-handling.md").read_text() + "\nA new line.\n")
    compile_wiki(acme_copy, wiki, today="2026-11-21")
    log = (wiki / "log.md").read_text(encoding="utf-8")
    assert check_log(log, "log.md") == []
    assert log.index("## 2026-11-21") < log.index("## 2026-11-20")


def test_source_ids_are_stable_keyed_and_inert() -> None:
    def ref(key: str) -> SourceRef:
        return SourceRef(key=key, version="1", sha256="ab" * 32, system="s",
                         updated_at=datetime(2026, 11, 1, tzinfo=UTC))

    two = source_ids([ref("t/jira/h/issue/1"), ref("t/jira/h/issue/2")])
    three = source_ids([ref("t/confluence/h/page/9"), ref("t/jira/h/issue/1"),
                        ref("t/jira/h/issue/2")])
    # keyed, not positional: a new source does not renumber the others
    assert two.items() <= three.items()
    assert two["t/jira/h/issue/1"] == "t-jira-h-issue-1"
    # keys that fold to one label stay apart; hostile keys give plain labels
    folded = source_ids([ref("a.b"), ref("a-b"), ref("x]: [y](javascript:z) ^`$<i>"),
                         ref("k" * 300)])
    assert len(set(folded.values())) == 4
    assert all(re.fullmatch(r"[a-z0-9-]{1,64}", v) for v in folded.values()), folded


def test_page_bytes_do_not_depend_on_the_compile_day(tmp_path: Path) -> None:
    """generated.at comes from the sources, so a clean rebuild on another day writes the same
    page bytes (incremental == clean rebuild, and signed page digests stay put)."""
    from conftest import ACME
    a = compile_wiki(ACME, tmp_path / "a", today="2026-11-20")
    b = compile_wiki(ACME, tmp_path / "b", today="2030-01-01")
    assert a.pages_total == b.pages_total
    for path in _concepts(tmp_path / "a"):
        rel = path.relative_to(tmp_path / "a")
        assert path.read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel


# -- hostile input still makes conformant pages ------------------------------------------------

from hypothesis import given, strategies as st  # noqa: E402

from compiler.render import render_page  # noqa: E402
from compiler.resolve import resolve  # noqa: E402
from test_fuzz import SMALL, hostile_text, pages  # noqa: E402
from test_hostile import assert_inert  # noqa: E402


@SMALL
@given(pages(), st.lists(st.tuples(hostile_text.filter(lambda s: s.strip()), hostile_text),
                         min_size=5, max_size=5))
def test_fuzzed_pages_with_hostile_record_keys_conform(page: tuple, keys: list) -> None:  # type: ignore[type-arg]
    """Record keys, versions, titles and URLs from a source cannot break the footnotes or the
    front matter: the page still passes the OKF check and stays inert."""
    entity, claims, backlinks = page
    claims = [c.model_copy(update={"source": c.source.model_copy(
        update={"key": keys[i][0], "version": keys[i][1] or "1"})}) for i, c in enumerate(claims)]
    status, conflicts = resolve(claims, lambda rule: "none")
    markdown, _, _, _ = render_page(entity, claims, status, conflicts, backlinks)
    assert check_page(markdown, "topic/x.md") == []
    assert_inert(markdown, "page")

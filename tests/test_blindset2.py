"""The second blind question set (benchmarks/truth/larkspur-questions.yaml) stays true to its corpus.

Larkspur Payments is a second stand-in for the independent answer benchmark of issue 21, written
without reading Folio's retrieval or answer code. So that it cannot rot: the corpus compiles with
no rejected input, every gold page is a page of the compiled wiki, every gold value is written
(verbatim) in a source record of one of the question's gold pages, restricted questions are asked
by a principal who may not see their gold pages while their permitted twins are asked by one who
may, the planted disagreements are really there, and unanswerable questions name nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from compiler.build import compile_wiki, wiki_state
from compiler.settings import FolioSettings
from compiler.views import principal, visible_entity
from connectors.loader import corpus_records

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "benchmarks" / "corpora" / "larkspur"
QUESTIONS = ROOT / "benchmarks" / "truth" / "larkspur-questions.yaml"
KINDS = {"single", "multi", "contested", "restricted", "unanswerable"}
# a page's "## Sources" table names each source record by its key in backticks
_RECORD_KEY = re.compile(r"^\| `[^`]+` \| `([^`]+)` \|", re.M)

QUESTION_LIST = yaml.safe_load(QUESTIONS.read_text(encoding="utf-8"))
ANSWERABLE = [q for q in QUESTION_LIST if q["kind"] != "unanswerable"]


@pytest.fixture(scope="module")
def wiki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("larkspur") / "wiki"
    report = compile_wiki(CORPUS, out, today="2026-11-24")
    assert report.errors == [], [str(e) for e in report.errors]
    return out


@pytest.fixture(scope="module")
def record_text() -> dict[str, str]:
    """Each source record's key → everything it states (title, body, field values)."""
    out = {}
    for r in corpus_records(CORPUS, FolioSettings().max_file_bytes):
        fields = " ".join(str(v) for v in r.fields.values())
        out[r.key] = f"{r.title}\n{r.body}\n{fields}"
    return out


def _page_records(wiki: Path, page: str) -> list[str]:
    return _RECORD_KEY.findall((wiki / f"{page}.md").read_text(encoding="utf-8"))


def test_question_set_has_the_shape_of_the_independent_benchmark() -> None:
    ids = [q["id"] for q in QUESTION_LIST]
    assert len(ids) == len(set(ids))
    kinds = Counter(q["kind"] for q in QUESTION_LIST)
    assert set(kinds) == KINDS
    assert kinds["unanswerable"] >= 15 and len(ANSWERABLE) >= 25
    for q in QUESTION_LIST:
        if q["kind"] == "unanswerable":
            assert q["gold_pages"] == [] and q["gold_values"] == [], q["id"]
        else:
            assert q["gold_pages"] and q["gold_values"], q["id"]
        if q["kind"] in ("multi", "contested"):
            assert len(q["gold_pages"]) >= 2 and len(q["gold_values"]) >= 2, q["id"]


def test_corpus_has_the_sources_the_benchmark_draws_on(record_text: dict[str, str]) -> None:
    systems = Counter(key.split("/")[1] for key in record_text)
    assert systems == {"confluence": 10, "jira": 10, "hubspot": 7}


@pytest.mark.parametrize("q", ANSWERABLE, ids=[q["id"] for q in ANSWERABLE])
def test_gold_pages_exist_and_gold_values_are_in_their_sources(
    q: dict, wiki: Path, record_text: dict[str, str]
) -> None:
    for page in q["gold_pages"]:
        assert (wiki / f"{page}.md").is_file(), f"{q['id']}: no page {page}"
    texts = [record_text[key] for page in q["gold_pages"] for key in _page_records(wiki, page)]
    assert texts, f"{q['id']}: gold pages cite no source record"
    for value in q["gold_values"]:
        assert any(value in t for t in texts), f"{q['id']}: {value!r} is in no gold page's source"


def test_contested_values_come_from_different_sources(wiki: Path, record_text: dict[str, str]) -> None:
    """A contested question's values are each stated by a different gold page, not one page twice."""
    for q in (q for q in QUESTION_LIST if q["kind"] == "contested"):
        holders = [
            {page for page in q["gold_pages"]
             if any(value in record_text[k] for k in _page_records(wiki, page))}
            for value in q["gold_values"]
        ]
        assert all(holders), q["id"]
        assert len(set().union(*holders)) >= 2, q["id"]
        for value, pages in zip(q["gold_values"], holders):
            others = [v for v in q["gold_values"] if v != value]
            assert any(
                not any(o in record_text[k] for o in others for k in _page_records(wiki, p))
                for p in pages
            ), f"{q['id']}: {value!r} only appears alongside its rival"


def test_restricted_questions_are_asked_by_someone_who_may_not_see(wiki: Path) -> None:
    state = wiki_state(wiki)
    try:
        restricted = [q for q in QUESTION_LIST if q["kind"] == "restricted"]
        assert len(restricted) >= 3
        for q in restricted:
            who = principal(state, q["principal"])
            assert who is not None and who.groups, f"{q['id']}: {q['principal']} not in directory.yaml"
            for page in q["gold_pages"]:
                assert visible_entity(state, page, who) is None, f"{q['id']}: {page} is visible"
        # their permitted twins (same gold pages, kind single) are asked by someone who may see
        twins = [q for q in ANSWERABLE if q["kind"] == "single" and q["principal"]]
        assert {p for q in twins for p in q["gold_pages"]} == {
            p for q in restricted for p in q["gold_pages"]}
        for q in twins:
            who = principal(state, q["principal"])
            for page in q["gold_pages"]:
                assert visible_entity(state, page, who) is not None, f"{q['id']}: {page} hidden"
    finally:
        state.close()

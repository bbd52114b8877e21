"""The blind question set (benchmarks/truth/kestrel-questions.yaml) stays true to its corpus.

The set stands in for the independent answer benchmark of issue 21, so it must not rot: the
corpus compiles without a rejected input, every gold page of every answerable or restricted
question is a page of the compiled wiki, every gold value is written in a source record of one
of the question's gold pages (so a gold value is never a paraphrase the sources do not hold),
restricted questions are asked by a principal who cannot see their gold pages, and the kinds
keep their shape (unanswerable ones name nothing).
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
CORPUS = ROOT / "benchmarks" / "corpora" / "kestrel"
QUESTIONS = ROOT / "benchmarks" / "truth" / "kestrel-questions.yaml"
KINDS = {"single", "multi", "contested", "restricted", "unanswerable"}
# a page's "## Sources" table names each source record by its key in backticks
_RECORD_KEY = re.compile(r"^\| `[^`]+` \| `([^`]+)` \|", re.M)

QUESTION_LIST = yaml.safe_load(QUESTIONS.read_text(encoding="utf-8"))
ANSWERABLE = [q for q in QUESTION_LIST if q["kind"] != "unanswerable"]


@pytest.fixture(scope="module")
def wiki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("kestrel") / "wiki"
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
    assert systems == {"confluence": 11, "jira": 10, "hubspot": 7}


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


def test_restricted_questions_are_asked_by_someone_who_may_not_see(wiki: Path) -> None:
    state = wiki_state(wiki)
    try:
        restricted = [q for q in QUESTION_LIST if q["kind"] == "restricted"]
        assert restricted
        for q in restricted:
            who = principal(state, q["principal"])
            assert who is not None and who.groups, f"{q['id']}: {q['principal']} not in directory.yaml"
            for page in q["gold_pages"]:
                assert visible_entity(state, page, who) is None, f"{q['id']}: {page} is visible"
        # their permitted twins (same gold pages, kind single) are asked by someone who may see
        twins = [q for q in ANSWERABLE if q["kind"] == "single" and q["principal"]]
        assert len(twins) >= 2
        for q in twins:
            who = principal(state, q["principal"])
            for page in q["gold_pages"]:
                assert visible_entity(state, page, who) is not None, f"{q['id']}: {page} hidden"
    finally:
        state.close()

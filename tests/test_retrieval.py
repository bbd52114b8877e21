"""Retrieval (compiler/retrieval/): field-weighted BM25 over pages and claims, stems, alias
phrases, wikilink expansion, answer types, multi-clause questions and the abstention
threshold, on the compiled Acme wiki and on the bench's second company."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from compiler import retrieval
from compiler.build import compile_wiki, wiki_state
from compiler.retrieval import answer_type, key, question_terms, retrieve, split_question
from compiler.views import principal

REPO = Path(__file__).resolve().parents[1]
NORTHWIND = REPO / "benchmarks" / "corpora" / "northwind"


@pytest.fixture(scope="module")
def state(acme_state):  # noqa: ANN001, ANN201
    return acme_state


def test_word_forms_meet_on_one_key() -> None:
    assert key("refunds") == key("refund") == key("refunded")
    assert key("policy") == key("policies")
    assert key("response") == key("responses") == key("respond")[:6]
    assert key("warranty") == key("warranties")
    assert key("60") == "60"


def test_question_words_and_frames_are_not_terms() -> None:
    assert question_terms("How long does it take to process a refund?") == [
        key("process"), key("refund")]
    assert question_terms("What is the capital of France?") == [key("capital"), key("france")]
    assert question_terms("who is in charge of the Lyon depot") == [
        key("manager"), key("lyon"), key("depot")]


def test_paraphrase_finds_the_policy_and_its_claim(state) -> None:  # noqa: ANN001
    r = retrieve(state, "How many days do standard-tier customers get to return hardware?", None)
    assert r.answerable
    assert r.pages[0].page == "policy/return-policy"
    assert (r.claims[0].claim.attribute, r.claims[0].claim.qualifiers) == (
        "return window", {"customer tier": "Standard"})


def test_numbers_in_the_question_pick_the_claim(state) -> None:  # noqa: ANN001
    r = retrieve(state, "What is the severity 1 response time?", None)
    assert r.claims[0].claim.value == "1 hour"
    r = retrieve(state, "Response time for sev 2 issues?", None)
    assert r.claims[0].claim.value == "4 hours"


def test_an_alias_in_the_question_finds_its_page(state) -> None:  # noqa: ANN001
    r = retrieve(state, "Which chat channel does Platform Engineering use for on-call?", None)
    assert r.pages[0].page == "team/platform-team"
    assert r.claims[0].claim.value == "#platform-oncall"


def test_the_answer_type_prefers_a_value_of_that_shape(state) -> None:  # noqa: ANN001
    """"How long … last" is answered by the incident's duration, which shares no word with
    the question, not by the sentence that repeats its words."""
    r = retrieve(state, "How long did the eu-west sign-in incident last?", None)
    assert r.claims[0].claim.value == "47 minutes"
    assert answer_type("How long did it last?").search("47 minutes")
    assert not answer_type("How long did it last?").search("eu-west")
    assert answer_type("Who leads the team?").search("Jonas Weber")
    assert answer_type("What colour is it?") is None


def test_a_two_clause_question_retrieves_both(state) -> None:  # noqa: ANN001
    q = "Who leads the Platform Team, and what does Acme Cloud cost per user?"
    assert split_question(q) == ["Who leads the Platform Team", "what does Acme Cloud cost per user"]
    assert split_question("What is the return window and fee?") == [
        "What is the return window and fee?"]
    r = retrieve(state, q, None)
    values = {e.claim.value for e in r.claims[:4]}
    assert "Jonas Weber" in values and any(v.startswith("$40") for v in values)
    assert {"team/platform-team", "product/acme-cloud"} <= {p.page for p in r.pages}


def test_linked_pages_gain_from_their_neighbours(state, monkeypatch) -> None:  # noqa: ANN001
    q = "What is the restocking fee for returned Acme Edge gateways?"
    with_links = {p.page: p.score for p in retrieve(state, q, None, k_pages=20).pages}
    monkeypatch.setattr(retrieval.scoring, "LINK_SHARE", 0.0)
    without = {p.page: p.score for p in retrieve(state, q, None, k_pages=20).pages}
    # the Return Policy links to Acme Edge and back: each gains from the other
    assert with_links["product/acme-edge"] > without["product/acme-edge"]
    assert with_links["policy/return-policy"] > without["policy/return-policy"]


@pytest.mark.parametrize("question", [
    "What is the capital of France?",
    "What is the parental leave policy?",
    "Who is the CEO of Acme?",
    "What is the return window for government customers?",  # a member the family lacks
    "What response time applies to Severity 4 tickets?",     # … by number
    "How long is the warranty on Acme Analytics?",           # Acme Edge's is not its
])
def test_unanswerable_questions_abstain(state, question: str) -> None:  # noqa: ANN001
    assert not retrieve(state, question, None).answerable


def test_a_principal_retrieves_only_what_they_may_see(state) -> None:  # noqa: ANN001
    q = "Who must approve a discount above 35%?"
    bob = retrieve(state, q, principal(state, "bob"))
    assert bob.answerable and bob.claims[0].claim.value == "CFO"
    carol = retrieve(state, q, principal(state, "carol"))
    assert all(e.claim.acl.allows(principal(state, "carol")) for e in carol.claims)
    assert "policy/discount-approval-policy" not in {p.page for p in carol.pages}
    assert "Discount Approval Policy" not in carol.titles.values()
    assert not carol.answerable


def _bench():  # noqa: ANN202
    sys.path.insert(0, str(REPO / "benchmarks"))
    import answer_bench

    return answer_bench


@pytest.mark.parametrize("corpus,questions", [
    (REPO / "examples" / "acme", "acme-questions-answers.yaml"),
    (NORTHWIND, "northwind-questions-answers.yaml"),
])
def test_recall_at_5_beats_raw_bm25_and_abstention_holds(corpus: Path, questions: str,
                                                         tmp_path: Path) -> None:
    """The bench's own measure (benchmarks/answer_bench.py), retrieval only."""
    import yaml

    bench = _bench()
    qs = yaml.safe_load((REPO / "benchmarks" / "truth" / questions).read_text())
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki)
    st = wiki_state(wiki)
    record_page = dict(st.db.execute("SELECT key, entity_id FROM records"))
    raw = bench.RawBM25(bench.raw_docs(corpus))
    folio = base = answerable = answered = abstained = unanswerable = 0
    for q in qs:
        r = retrieve(st, q["question"], principal(st, q.get("principal")))
        if q["kind"] in bench.ANSWERABLE:
            answerable += 1
            answered += r.answerable
            folio += bool(set(q["gold_pages"]) & {p.page for p in r.pages[:5]})
            pages = list(dict.fromkeys(record_page.get(k, k) for k in raw.rank(q["question"])))
            base += bool(set(q["gold_pages"]) & set(pages[:5]))
        elif q["kind"] == "unanswerable":
            unanswerable += 1
            abstained += not r.answerable
    assert folio >= base and folio / answerable >= 0.9, (folio, base, answerable)
    # abstention from evidence coverage (docs/answers.md): both targets of issue 21 at once
    assert abstained / unanswerable >= 0.9, (abstained, unanswerable)
    assert answered / answerable >= 0.9, (answered, answerable)


def test_glued_crm_field_names_answer_plain_questions(tmp_path: Path) -> None:
    """HubSpot's property names come glued ("dealstage", "closedate", "numberofemployees"):
    a question that says "stage" or "close date" still finds them."""
    import json

    corpus = tmp_path / "crm"
    (corpus / "hubspot").mkdir(parents=True)
    (corpus / "sources.yaml").write_text(
        "tenant: t\nsources:\n  - {path: hubspot, system: hubspot, instance: portal-1, "
        "default_acl: {public: true}}\n")
    deals = {"results": [
        {"id": "1", "properties": {"dealname": "Globex renewal", "dealstage": "contractsent",
                                   "closedate": "2027-02-01", "amount": "84000",
                                   "hs_lastmodifieddate": "2026-10-01T00:00:00Z"}},
        {"id": "2", "properties": {"dealname": "Initech pilot", "dealstage": "qualified",
                                   "closedate": "2027-05-30", "amount": "12000",
                                   "hs_lastmodifieddate": "2026-10-02T00:00:00Z"}}]}
    (corpus / "hubspot" / "deals.json").write_text(json.dumps(deals))
    wiki = tmp_path / "wiki"
    assert compile_wiki(corpus, wiki).rejected == 0
    st = wiki_state(wiki)
    r = retrieve(st, "What stage is the Globex renewal deal in?", None)
    assert r.answerable and r.claims[0].claim.value == "contractsent"
    r = retrieve(st, "When is the Initech pilot expected to close?", None)
    assert r.answerable and r.claims[0].claim.value == "2027-05-30"


def test_a_qualifier_the_claims_carry_decides_a_near_miss() -> None:
    """With the schema layer's qualifiers, the family is one attribute and its qualifier
    values: a question naming one of them is no near miss, one naming another value is."""
    from types import SimpleNamespace

    from compiler.retrieval.aspect import _near_miss

    def claim(tier: str, value: str):  # noqa: ANN202
        return SimpleNamespace(kind="fact", attribute="return window", value=value,
                               qualifiers=(("tier", tier),))

    enterprise, gold = claim("Enterprise", "60 days"), claim("Gold", "90 days")
    siblings = [(enterprise, "winner"), (gold, "winner")]
    gold_q = set(question_terms("How long is the return window for Gold customers?"))
    assert not _near_miss(enterprise, siblings, gold_q) and not _near_miss(gold, siblings, gold_q)
    platinum_q = set(question_terms("How long is the return window for Platinum customers?"))
    assert _near_miss(enterprise, siblings, platinum_q) and _near_miss(gold, siblings, platinum_q)
    assert not _near_miss(enterprise, siblings, set(question_terms("What is the return window?")))

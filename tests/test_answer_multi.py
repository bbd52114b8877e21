"""Multi-part and relation questions (compiler/retrieval/retriever.py, clauses.py, acronyms.py,
lexicon.py; issue 21): a question of two clauses is answered clause by clause, each from its
own cited claim, a later clause's "that customer" / "the company's" read as the page an earlier
clause answered with (of the kind it names); an acronym the wiki never uses is read spelled
out from the wiki's own words; a contact's role, employer and a deal's size are asked in
everyday words.

The corpus is invented here (a bakery-equipment maker nobody tuned on)."""

from __future__ import annotations

import pytest

from compiler.answers.ask import ask
from compiler.retrieval import retrieve
from compiler.retrieval.acronyms import expansion, spell_out
from compiler.query import answer as query_answer
from compiler.retrieval.clauses import _ANAPHOR, split_question
from answer_corpus import abstains, answers, markdown_state

PAGES = {
    "juniper.md": """---
title: Juniper Bakeries
type: account
---

# Juniper Bakeries

Customer success manager: Odile Marchetti
Service plan: Gold
Renewal date: 2027-05-01
City: Lyon
""",
    "harrow.md": """---
title: Harrow Mills
type: account
---

# Harrow Mills

Customer success manager: Bram Vermeulen
Service plan: Silver
Renewal date: 2027-08-12
City: Ghent
""",
    "ovn-7.md": """---
title: OVN-7
type: ticket
---

# OVN-7

Summary: Oven thermostat drifts by twelve degrees
Customer: [[Juniper Bakeries]]
Due date: 2026-12-09
""",
    "inc-3.md": """---
title: INC-3
type: ticket
---

# INC-3

Summary: Proofer line outage at the Lyon plant in March
Status: Resolved
Follow-up: add a door sensor alarm (OVN-9)
""",
    "ovn-9.md": """---
title: OVN-9
type: ticket
---

# OVN-9

Summary: Door sensor alarm for proofers
Due date: 2027-01-20

Raised by the Proofer Line Controller (PLC) team after the March outage.
""",
    "proofer.md": """---
title: Juniper Bakeries - Proofer Upgrade
type: opportunity
---

# Juniper Bakeries - Proofer Upgrade

Amount: 48000
Close date: 2027-02-14
Create date: 2026-09-01
Account: [[Juniper Bakeries]]
""",
    "ines.md": """---
title: Ines Okafor
type: contact
---

# Ines Okafor

Job title: Head of Production
Account: [[Juniper Bakeries]]
Email: ines.okafor@juniper.example
""",
}


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    yield from markdown_state(tmp_path_factory, "bakery", PAGES)


def _cited_values(state, question: str) -> list[str]:
    """The values of the claims the kept sentences of ``ask`` offline cite, in order."""
    result = ask(state, question, None, "offline")
    assert result.found, question
    facts = {f.claim_id: f for f in result.facts}
    return [facts[c].value for s in result.sentences for c in s.claims if c in facts]


def test_acronym_spelled_out_from_the_wikis_attribute_names(state):
    assert expansion(state, "CSM") == "customer success manager"
    # an acronym the wiki itself uses is left as written
    assert spell_out("Who is the CSM of OVN?", state, lambda w: w == "OVN") == \
        "Who is the customer success manager of OVN?"


def test_acronym_defined_by_a_source_and_ties_left_alone(state):
    assert expansion(state, "PLC") == "proofer line controller"
    # no definition, no attribute or title spelling it, not an everyday acronym: left alone
    assert expansion(state, "QZX") == ""


def test_demonstrative_of_any_noun_is_an_anaphor():
    assert _ANAPHOR.sub("X", "which manager looks after that district", count=1) == \
        "which manager looks after X"
    # a relative clause is not one
    assert _ANAPHOR.search("what is the plan that customers pay for") is None


def test_two_clauses_each_answered_from_its_own_claim_through_the_first_answer(state):
    question = ("Which customer is hit by the oven thermostat drift, and which CSM looks "
                "after that customer?")
    r = retrieve(state, question, None)
    assert r.answerable and r.clauses == 2
    values = _cited_values(state, question)
    assert any("Juniper Bakeries" in v for v in values), values
    assert "Odile Marchetti" in values, values
    assert "Bram Vermeulen" not in values  # the other account's manager is no answer


def test_later_clause_reads_the_page_the_first_answer_links_to(state):
    # the follow-up is named in the outage ticket's text; its due date is on its own page
    values = _cited_values(state, "Which follow-up ticket came out of the March proofer "
                                  "outage, and when is it due?")
    assert any("OVN-9" in v for v in values) and "2027-01-20" in values, values
    assert "2026-12-09" not in values  # another ticket's due date is no answer


def test_the_companys_attribute_is_the_related_account_not_the_contact(state):
    question = "Which customer is Ines Okafor with, and what is the company's service plan?"
    values = _cited_values(state, question)
    assert any("Juniper Bakeries" in v for v in values), values
    assert any("Gold" in v for v in values) and not any("Silver" in v for v in values), values


def test_later_clause_by_it_reads_the_first_clauses_page(state):
    values = _cited_values(state, "How big is the Juniper Bakeries proofer upgrade deal, "
                                  "and when is it expected to close?")
    assert "48000" in values and "2027-02-14" in values, values


@pytest.mark.parametrize("question, value", [
    ("What does Ines Okafor do at Juniper?", "Head of Production"),
    ("Which customer is Ines Okafor with?", "Juniper Bakeries"),
    ("How big is the Juniper Bakeries proofer upgrade deal in dollars?", "48000"),
    ("Expected close date of the Juniper Bakeries proofer upgrade?", "2027-02-14"),
    ("By what date does the Harrow Mills contract need renewing?", "2027-08-12"),
    ("Who handles the Harrow Mills account on our side?", "Bram Vermeulen"),
])
def test_relation_questions_in_everyday_words(state, question, value):
    answers(state, question, value, lead_only=True)


def test_a_clause_the_wiki_cannot_answer_is_named_and_the_other_answered(state):
    question = "What is the Juniper Bakeries service plan, and what is its parking fee?"
    result = ask(state, question, None, "offline")
    assert result.found and result.unanswered == ["what is its parking fee"]
    assert "Gold" in result.text() and "Not found in the wiki: what is its parking fee?" in \
        result.text()
    assert "Not found in the wiki" in query_answer(state, question, None).text()


def test_a_clause_referring_to_an_unanswered_one_is_not_answered_alone(state):
    # whose renewal "their" means is unknown: any account's renewal date would be no answer
    abstains(state, "Which customer ordered the blue sourdough mixer, and when is their "
                    "renewal date?")


def test_no_clause_answered_abstains(state):
    abstains(state, "What is the Juniper Bakeries parking fee, and what is its canteen menu?")


def test_a_greeting_or_a_lead_in_is_no_clause(state):
    assert len(split_question("Hey, which customer is Ines Okafor with?")) == 1
    assert len(split_question("Under the new tariff, what is the Harrow Mills plan?")) == 1
    answers(state, "Hey, which customer is Ines Okafor with?", "Juniper Bakeries")

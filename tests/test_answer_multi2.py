"""Multi-part questions of a second shape (compiler/retrieval/clauses.py, retriever.py; issue 21):
a noun phrase put first and referred back to ("The customer that asked for X - when is their
contract up?", "The contractor on the claim: who are they, and how many people …"), asked as a
clause of its own whose answer the later "they" / "their" is; "what's" starting a clause; and a
ticket's link to the page that calls itself what is asked ("the *contractor*": the customer, not
the assignee or reporter).

The corpus is invented here (a marine-parts distributor nobody tuned on)."""

from __future__ import annotations

import pytest

from compiler.answers.ask import ask
from compiler.retrieval import retrieve
from compiler.retrieval.clauses import elided_topic, fronted, split_question
from answer_corpus import markdown_state

PAGES = {
    "saltmarsh.md": """---
title: Saltmarsh Marine
type: account
---

# Saltmarsh Marine

Employees: 64
Renewal date: 2028-06-30
City: Bergen

Marine contractor for ferry refits along the west coast.
""",
    "fjordline.md": """---
title: Fjordline Yachts
type: account
---

# Fjordline Yachts

Employees: 410
Renewal date: 2027-02-28
City: Stavanger

Yacht builder with two slipways.
""",
    "sup-51.md": """---
title: SUP-51
type: ticket
---

# SUP-51

Summary: Dispute over the cracked hull panel invoice
Customer: [[Saltmarsh Marine]]
Assignee: Tove Lindahl
Reporter: Per Olsen
Status: Waiting for customer

The customer says the cracked hull panel was damaged in transit and refuses the invoice.
""",
    "sup-60.md": """---
title: SUP-60
type: ticket
---

# SUP-60

Summary: Request for a bulk order portal
Customer: [[Fjordline Yachts]]
Assignee: Ivar Holm
Reporter: Sigrid Aas
Status: To Do

Fjordline Yachts asked for a bulk order portal to reorder deck fittings.
""",
    "renewal.md": """---
title: Fjordline Yachts - 2028 Fleet Renewal
type: opportunity
---

# Fjordline Yachts - 2028 Fleet Renewal

Amount: 96000
Account: [[Fjordline Yachts]]
Contact: [[CRM contact 4411]]
""",
    "astrid.md": """---
title: Astrid Berg
type: contact
aliases: [CRM contact 4411]
---

# Astrid Berg

Job title: Head of Procurement
Account: [[Fjordline Yachts]]
""",
    "crane-outage.md": """---
title: "Postmortem: Dock Crane Outage"
type: topic
---

# Postmortem: Dock Crane Outage

Incident lead: Kari Nyland

On 3 March 2026 the dock crane at the Bergen yard stopped for four hours because its hydraulic pump had seized.
""",
    "sup-72.md": """---
title: SUP-72
type: ticket
---

# SUP-72

Summary: Alert rule paged the wrong rota
Root cause: a misconfigured alert rule in the paging tool.
""",
    "hullscan.md": """---
title: Hullscan
type: product
---

# Hullscan

Offline mode default sync interval: 30 minutes

Offline mode ships with Hullscan 2.0 in Q4 2027.
""",
}


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    yield from markdown_state(tmp_path_factory, "marineparts", PAGES)


def _cited_values(state, question: str) -> list[str]:
    """The values of the claims the kept sentences of ``ask`` offline cite, in order."""
    result = ask(state, question, None, "offline")
    assert result.found, question
    facts = {f.claim_id: f for f in result.facts}
    return [facts[c].value for s in result.sentences for c in s.claims if c in facts]


def test_fronted_phrase_is_asked_first_and_identity_clause_dropped():
    assert fronted("The contractor disputing the cracked hull invoice: who are they, and how "
                   "many people do they employ?") == [
        "who is the contractor that is disputing the cracked hull invoice",
        "how many people do they employ"]
    assert fronted("The customer that asked for a bulk order portal - when is their contract "
                   "with us up?") == [
        "who is the customer that asked for a bulk order portal",
        "when is their contract with us up"]
    # a fronted name that nothing describes is not a clause of its own, nor is a question
    # without a reference back
    assert fronted("The Bergen depot: who runs it?") is None
    assert fronted("The contractor on the invoice: what is the renewal date of Fjordline?") \
        is None


def test_whats_starts_a_clause_but_cant_does_not():
    assert split_question("Who is the contact on the deal, and what's their title?") == [
        "Who is the contact on the deal", "what's their title"]
    assert len(split_question("Who runs the depot and can't remember what time it opens?")) == 1


def test_fronted_contractor_is_the_tickets_customer_and_they_its_head_count(state):
    question = ("The contractor disputing the cracked hull invoice: who are they, and how "
                "many people do they employ?")
    r = retrieve(state, question, None)
    assert r.answerable and r.clauses == 2
    values = _cited_values(state, question)
    assert any("Saltmarsh Marine" in v for v in values), values
    assert "64" in values, values
    # the assignee and reporter name someone too, but no contractor; the other account's
    # head count is no answer
    assert not {"Tove Lindahl", "Per Olsen", "410"} & set(values), values


def test_fronted_customer_then_their_contract_end(state):
    question = ("The customer that asked for a bulk order portal - when is their contract "
                "with us up?")
    values = _cited_values(state, question)
    assert any("Fjordline Yachts" in v for v in values), values
    assert "2027-02-28" in values and "2028-06-30" not in values, values


def test_who_answered_by_a_link_whose_value_is_only_a_label_of_a_contact(state):
    # the deal links its contact by a CRM label ("CRM contact 4411"), which is no name: the
    # link to a contact's page names someone all the same, and "their" is that contact
    question = "Who is the buyer-side contact on the Fjordline fleet renewal, and what's their title?"
    r = retrieve(state, question, None)
    assert r.answerable and r.clauses == 2 and not r.unanswered, r.unanswered
    text = ask(state, question, None, "offline").text()
    assert "Astrid Berg" in text and "Head of Procurement" in text, text


def test_a_later_clause_that_names_nothing_asks_of_what_the_earlier_one_ends_with(state):
    assert elided_topic("Who was the incident lead for the March dock crane outage") == \
        "the March dock crane outage"
    question = ("Who was the incident lead for the March dock crane outage, and what was the "
                "cause?")
    r = retrieve(state, question, None)
    assert r.answerable and not r.unanswered, r.unanswered
    text = ask(state, question, None, "offline").text()
    assert "Kari Nyland" in text and "hydraulic" in text, text
    assert "misconfigured" not in text, text  # another ticket's root cause is no answer


def test_when_is_answered_by_a_quarter_of_a_year(state):
    # "Q4 2027" is a date a "when" asks; the interval beside it is a duration, no launch date
    text = ask(state, "When is Hullscan offline mode supposed to launch?", None, "offline").text()
    assert "Q4 2027" in text and "30 minutes" not in text, text

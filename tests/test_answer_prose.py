"""Values stated only in prose, list items and table notes (compiler/retrieval/reading.py; issue
21): a question asking a count, an amount, a duration, a date or a range is answered with the one
value of that kind a claim's source sentence holds next to the question's words, citing that
claim; a name the question scopes by must stand in the clause, its row or its page ("Bergen"
picks the Notes cell, not the general limit), a month or day it names must be a date of the page.

The corpus is invented here (a ferry operator nobody tuned on)."""

from __future__ import annotations

import json

import pytest

from compiler.answers.ask import ask
from compiler.extract.fake_provider import FakeProvider, chat_completion
from compiler.retrieval.reading import asked_value, clauses
from answer_corpus import abstains, answers, markdown_state
from conftest import llm

PAGES = {
    "travel.md": """---
title: Crew Travel Policy
type: policy
---

# Crew Travel Policy

This policy applies to every crew member travelling on company business.

| Expense | Limit | Notes |
|---|---|---|
| Lodging | €150 per night | €190 per night in Oslo and Bergen |
| Meals | €60 per day | Alcohol is not reimbursed |

Receipts are required for every expense over €20.
""",
    "shuttle.md": """---
title: Fjord Shuttle
type: product
---

# Fjord Shuttle

Fjord Shuttle is our passenger ferry between the harbour and the islands.

- Up to 120 passengers per crossing.
- Bicycles travel free of charge.
""",
    "inc-7.md": """---
title: "INC-7: Harbour gate outage"
type: ticket
---

# INC-7

Starting 06:10 UTC on 2026-03-03, the ticket gates at the harbour rejected every pass.

Impact: 14 terminals.

Comment by Ola Berg on 2026-03-05:

Root cause: an expired signing key.
""",
    "inc-9.md": """---
title: "INC-9: Slow booking checkout"
type: ticket
---

# INC-9

From 09:00 to 11:30 UTC on 2026-04-14, booking checkout latency rose to a p99 of 9 seconds (normally under 1 second).

Checkout recovered after the payment workers were restarted.
""",
    "bands.md": """---
title: Crew Pay Bands
type: policy
---

# Crew Pay Bands

Bands are annual base pay in euros.

| Role | Band minimum | Band maximum |
|---|---|---|
| Deckhand | €31,000 | €36,000 |
| Senior Deckhand | €37,000 | €43,000 |
""",
    "data.md": """---
title: Passenger Data Policy
type: policy
---

# Passenger Data Policy

This policy says how long we keep passenger data.

| Data category | Retention period |
|---|---|
| Booking records | 3 years after the last trip |
| Gate camera footage | 30 days |

When a passenger sends a written deletion request, their booking data is deleted within 10 days.
""",
    "company.md": """---
title: Brightline Ferries
type: topic
---

# Brightline Ferries

Brightline Ferries has 240 employees; a second office is in Bergen.
""",
}


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    yield from markdown_state(tmp_path_factory, "brightline", PAGES)


# -- the reading, pure ---------------------------------------------------------------------------
def test_what_kind_of_value_a_question_asks() -> None:
    assert asked_value("How many terminals were affected by the outage?").kind == "count"
    assert "termin" in asked_value("How many terminals were affected?").nouns
    assert asked_value("What's the most I can spend on lodging in Bergen?").kind == "money"
    assert asked_value("What's the pay range for a deckhand?").pair
    assert asked_value("how bad did checkout latency get on May 2?").kind == "measure"
    assert asked_value("When are we going to build the gate app?").kind == "date"
    assert asked_value("How long is the crossing?").kind == "duration"
    assert asked_value("Who runs the harbour office?") is None


def test_a_quote_is_read_clause_by_clause() -> None:
    # a row as the Confluence connector writes it: each cell with the row's label
    row = clauses("Expense: Hotel; Limit: $220 per night; Notes: $300 per night in Oslo.")
    assert [(c.text, c.label) for c in row[:2]] == [
        ("Limit: $220 per night", "Hotel"), ("Notes: $300 per night in Oslo", "Hotel")]
    # a parenthesis stands apart: the usual value is not the one the sentence reports
    prose = [c.text for c in clauses("Latency rose to 9 seconds (normally under 1 second).")]
    assert prose == ["normally under 1 second", "Latency rose to 9 seconds."]
    # clauses between semicolons: the office in Bergen is not what the 240 counts
    assert [c.text for c in clauses("We have 240 employees; a second office is in Bergen.")
            ] == ["We have 240 employees", "a second office is in Bergen."]


# -- answers -------------------------------------------------------------------------------------
def test_a_table_note_answers_for_the_name_it_scopes_by(state) -> None:  # noqa: ANN001
    answers(state, "What's the most I can spend on lodging per night in Bergen?", "€190",
            lead_only=True)
    result = ask(state, "What's the most I can spend on lodging per night in Bergen?", None,
                 "offline")
    assert "€150" not in result.text().split("\n\n")[0]
    (fact,) = result.facts
    assert "€190" in fact.quote and fact.read_from and "Bergen" in fact.read_from
    assert result.cited_claims() == [(fact.claim_id, "winner")]


def test_a_list_item_answers_a_count(state) -> None:  # noqa: ANN001
    answers(state, "What is the maximum number of passengers on a Fjord Shuttle crossing?",
            "120", lead_only=True)
    answers(state, "How many passengers can ride the Fjord Shuttle at once?", "120",
            lead_only=True)


def test_a_second_of_something_is_no_duration() -> None:
    from compiler.retrieval.reading import _spans

    assert _spans("A second inspector starts next week.", ["duration"]) == []
    assert _spans("The gate reopened after a second.", ["duration"]) != []


def test_incident_figures_stated_in_ticket_prose(state) -> None:  # noqa: ANN001
    answers(state, "How many terminals were affected by the March gate outage?", "14",
            lead_only=True)
    answers(state, "How bad did checkout latency get during the booking slowdown on April 14?",
            "9 seconds", lead_only=True)


def test_the_sentence_that_says_what_is_asked_beats_the_table_row(state) -> None:  # noqa: ANN001
    # everyday words ("wipe", "ask") reach the policy's deletion sentence, not its retention row
    result = ask(state, "How long do we have to wipe a passenger's booking data once they ask "
                 "us in writing?", None, "offline")
    lead = result.text().split("\n\n")[0]
    assert "10 days" in lead and "3 years" not in lead


def test_a_range_is_both_ends_of_the_row_asked(state) -> None:  # noqa: ANN001
    result = ask(state, "What's the pay range for a senior deckhand?", None, "offline")
    lead = result.text().split("\n\n")[0]
    assert "€37,000" in lead and "€43,000" in lead and "€31,000" not in lead


def test_no_reading_without_the_scope_the_question_names(state) -> None:  # noqa: ANN001
    # a city the wiki never names, a day the slowdown did not happen on, an office the
    # employee count is not about, a fix no sentence dates (a comment's date is not it)
    for question in ("What's the most I can spend on lodging per night in Madrid?",
                     "How bad did checkout latency get during the booking slowdown on April 15?",
                     "How many people work in the Bergen office?",
                     "When was the gate signing key fixed?"):
        abstains(state, question)


def test_the_llm_backend_is_given_the_value_read_and_cites_its_claim(  # noqa: ANN001
        fake: FakeProvider, state) -> None:
    seen: list[str] = []

    def respond(messages, model, request):  # noqa: ANN001, ANN202
        body = messages[-1]["content"]
        seen.append(body)
        return chat_completion(json.dumps({"sentences": [
            {"text": "In Bergen lodging may cost up to €190 per night.", "claims": ["c1"]}]}),
            model=model)

    fake.respond = respond
    result = ask(state, "What's the most I can spend on lodging per night in Bergen?", None,
                 "llm", llm(llm_model="folio-fake/a"))
    assert 'c1: Crew Travel Policy — Lodging = "€190"' in seen[0]
    assert [s.text for s in result.sentences] == [
        "In Bergen lodging may cost up to €190 per night."]
    assert result.cited_claims()[0][0] == result.facts[0].claim_id


def test_folio_query_answers_with_the_value_read_citing_its_claim(state) -> None:  # noqa: ANN001
    from compiler.query import answer

    result = answer(state, "What's the most I can spend on lodging per night in Bergen?", None)
    assert result.found
    (part,) = result.parts
    assert part.value == "€190" and part.read_from == "€190 per night in Oslo and Bergen"
    (cite,) = part.citations
    assert "€150" in cite.quote and "€190" in cite.quote and cite.status == "winner"
    assert "€190" in result.text()

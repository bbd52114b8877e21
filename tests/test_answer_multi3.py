"""Questions that ask several things, each clause answered on its own (compiler/query.py,
compiler/retrieval/clauses.py, compiler/answers/ask.py; issue 21, answer7): what a question says
before its clauses to set the scene (a sentence that asks nothing, a topic put first, a
lead-in) is said of each clause; a clause the scene does not concern is asked alone; a clause
not answered is named. And an open contradiction answers a question only when what its sides
disagree on (attribute, value) says something of it: one side's sentence sharing words with the
question is no answer.

The corpus is invented here (a chain of leisure clubs nobody tuned on)."""

from __future__ import annotations

import pytest

from compiler.answers.ask import ask
from compiler.query import answer
from compiler.retrieval.clauses import split_clauses, split_question
from answer_corpus import markdown_state

PAGES = {
    "harbourview.md": """---
title: Harbourview Physio
type: account
---

# Harbourview Physio

Employees: 85
Renewal date: 2028-01-31
City: Galway
Contact: [[Niamh Keane]]

Physiotherapy chain with six clinics.
""",
    "larchfield.md": """---
title: Larchfield Dental
type: account
---

# Larchfield Dental

Employees: 240
Renewal date: 2027-05-15
City: Cork
Contact: [[Ronan Doyle]]

Dental group with a lab of its own.
""",
    "niamh.md": """---
title: Niamh Keane
type: contact
---

# Niamh Keane

Job title: Practice Manager
Account: [[Harbourview Physio]]
""",
    "ronan.md": """---
title: Ronan Doyle
type: contact
---

# Ronan Doyle

Job title: Operations Director
Account: [[Larchfield Dental]]
""",
    "tariff.md": """---
title: Membership Tariff 2027
type: topic
---

# Membership Tariff 2027

| Tier | Monthly fee | Joining fee | Guest passes per month |
|---|---|---|---|
| Silver | €39 | €25 | 2 |
| Gold | €59 | €40 | 6 |

Every new member signs the health declaration form before their first class.
""",
    "facilities.md": """---
title: Club Facilities Policy
type: policy
---

# Club Facilities Policy

Members rent a day locker at the front desk for €3 per visit.

Towel service is included for Gold members.
""",
    "desk-notes.md": """---
title: Front Desk Notes
type: topic
---

# Front Desk Notes

Members rent a day locker at the front desk for €4 per visit; the pool towel service is priced separately.

The desk opens at 06:00 on weekdays.
""",
    "sauna.md": """---
title: Sauna Suite
type: product
---

# Sauna Suite

Opened: 2026-03-01

The sauna suite seats 14 people and is cleaned every two hours.
""",
}


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    yield from markdown_state(tmp_path_factory, "clubs", PAGES)


def _text(state, question: str) -> str:
    result = ask(state, question, None, "offline")
    assert result.found, question
    return result.text()


def test_a_scene_a_topic_or_a_lead_in_is_said_of_every_clause():
    assert split_question("Signing up a new Gold member. What's the joining fee, and how many "
                          "guest passes do they get?") == [
        "Signing up a new Gold member. What's the joining fee",
        "Signing up a new Gold member. how many guest passes do they get"]
    assert split_question("harbourview physio - who is our contact there and when does their "
                          "contract renew?") == [
        "harbourview physio - who is our contact there",
        "harbourview physio - when does their contract renew"]
    assert split_question("sauna suite: how many people does it seat and when did it open") == [
        "sauna suite - how many people does it seat", "sauna suite - when did it open"]
    # a clause asking "when is …" after the topic is a question, not a condition
    assert split_question("sauna suite: when is it cleaned and how many people does it "
                          "seat") == ["sauna suite - when is it cleaned",
                                      "sauna suite - how many people does it seat"]
    assert split_question("For a Silver member, what's the monthly fee and how many guest "
                          "passes do they get?") == [
        "For a Silver member, what's the monthly fee",
        "For a Silver member, how many guest passes do they get"]
    # … and the clauses as the question says them, for naming one not answered
    assert split_clauses("harbourview physio - who is our contact there and when does their "
                         "contract renew?")[1] == ["who is our contact there",
                                                   "when does their contract renew"]


def test_a_question_of_one_clause_is_asked_whole():
    for q in ("Signing up a new Gold member. What's the joining fee?",
              "harbourview physio - who is our contact there?",
              "For an Enterprise customer, what's the list price?",
              "Hey, which customer is Niamh Keane with?"):
        assert split_question(q) == [q]


def test_a_topic_put_first_gives_its_entity_to_each_clause(state):
    question = ("harbourview physio - who is our contact there and when does their contract "
                "renew?")
    result = ask(state, question, None, "offline")
    assert result.found and not result.unanswered, result.text()
    text = result.text()
    assert "Niamh Keane" in text and "2028-01-31" in text, text
    assert "2027-05-15" not in text and "Ronan Doyle" not in text, text


def test_a_clause_the_scene_does_not_concern_is_asked_alone(state):
    text = _text(state, "harbourview physio - who is our contact there and how many guest "
                        "passes does a Gold member get?")
    assert "Niamh Keane" in text and "6" in text, text


def test_each_clause_answered_as_if_asked_alone_a_value_read_from_a_sentence_too(state):
    # the seat count is only in a sentence (a value read from it); the fee a table cell
    result = answer(state, "What is the joining fee for Gold, and how many people does the "
                           "sauna suite seat?", None)
    assert result.found and not result.unanswered
    assert [p.clause for p in result.parts] == sorted(p.clause for p in result.parts)
    assert {p.clause for p in result.parts} == {0, 1}
    text = _text(state, "What is the joining fee for Gold, and how many people does the "
                        "sauna suite seat?")
    assert "€40" in text and "14" in text and "€25" not in text, text


def test_the_clause_not_answered_is_named_as_asked(state):
    result = ask(state, "For a Gold member, what's the joining fee and what is the parking "
                        "fee?", None, "offline")
    assert result.found and "€40" in result.text()
    assert result.unanswered == ["what is the parking fee"], result.unanswered
    nothing = ask(state, "What is the parking fee, and what does the creche cost?", None,
                  "offline")
    assert not nothing.found and not nothing.unanswered


def test_a_contradiction_answers_only_when_what_its_sides_disagree_on_is_asked(state):
    # both sides say what a day locker costs: the open contradiction is the answer
    text = _text(state, "How much does a day locker cost?")
    assert "Contested" in text and "€3" in text and "€4" in text, text
    # one side's sentence also mentions the pool towel service, the other does not: the
    # contradiction is about the locker, not about what is asked
    for backend in ("offline",):
        result = ask(state, "How is the pool towel service priced?", None, backend)
        assert not result.found or "€3" not in result.text(), result.text()
    assert not answer(state, "How is the pool towel service priced?", None).found

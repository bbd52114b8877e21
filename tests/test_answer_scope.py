"""A question about another scope than the wiki's words seem to match is not answered
(compiler/retrieval/aspect.py, compiler/retrieval/coverage.py; issue 21, fourth round): what a
preposition restricts the asked phrase to ("the shelf life *of frozen dough*") must be said by
the claim or its page when the wiki uses the word elsewhere; a possessive name's attribute
("What's Ana Ruiz's *phone* number") is the asked phrase, so her owner id does not answer.

The corpus is invented here (a bakery chain nobody tuned on)."""

from __future__ import annotations

import pytest

from compiler.retrieval.coverage import asked_head, asked_scope
from compiler.retrieval.text import FRAME_WORDS, STOPWORDS
from answer_corpus import abstains, answers, markdown_state

PAGES = {
    "ana.md": """---
title: Ana Ruiz
type: contact
---

# Ana Ruiz

Job title: Store Manager
Owner id: 55120934
""",
    "pablo.md": """---
title: Pablo Serra
type: contact
---

# Pablo Serra

Job title: Head Baker
Phone: +34 600 111 222
""",
    "loaf.md": """---
title: Sourdough Loaf
type: product
---

# Sourdough Loaf

Price: EUR 4
Shelf life: 3 days
Category lead: Lucia Vidal
""",
    "depot.md": """---
title: Gracia Depot
type: site
---

# Gracia Depot

Frozen storage: -18 °C
Tablet kiosks: 4
Delivery vans: 12
Average van age: 3.5 years
Opening hours: 06:00-14:00
""",
    "directory.md": """---
title: Staff Directory
type: topic
---

# Staff Directory

Crumb and Co has 95 employees; the bakery school is in Valencia, with a second kitchen in Girona.
""",
    "oven.md": """---
title: Deck Oven Line
type: product
---

# Deck Oven Line

Warranty period: 5 years
Installed at: [[Gracia Depot]]
""",
    "ovens-girona.md": """---
title: Girona Kitchen Notes
type: topic
---

# Girona Kitchen Notes

The Girona kitchen bakes for the [[Deck Oven Line]] trials.
""",
    "outage.md": """---
title: Oven Outage
type: ticket
---

# Oven Outage

Date: 2026-11-09
Duration: 2 hours
Cause: normal wear on a new door seal
""",
    "refunds.md": """---
title: Catering Refund Policy
type: policy
---

# Catering Refund Policy

Owner: Finance Team
Refund deadline for Gold customers: 14 days
Refund deadline for Basic customers: 7 days
""",
}


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    yield from markdown_state(tmp_path_factory, "bakery", PAGES)




def test_the_asked_phrase_after_a_possessive_name() -> None:
    words = STOPWORDS | FRAME_WORDS
    assert asked_head("What's Ana Ruiz's phone number?", words) == ["phone", "number"]
    assert asked_scope("What is the shelf life of frozen dough?", words) == ["frozen", "dough"]
    assert asked_scope("Who is the category lead for the tablet kiosks?",
                       words) == ["tablet", "kiosks"]
    assert asked_scope("What is the shelf life?", words) == []
    assert asked_scope("How long is the shelf life for frozen loaves?",
                       words) == ["frozen", "loaves"]


def test_the_value_clause_of_a_prose_quote() -> None:
    from types import SimpleNamespace

    from compiler.retrieval.aspect import value_clause

    def claim(value: str, quote: str):  # noqa: ANN202 - the two fields value_clause reads
        return SimpleNamespace(value=value, quote=quote)
    prose = "Crumb and Co has 95 employees; the bakery school is in Valencia."
    assert value_clause(claim("95", prose)) == "Crumb and Co has 95 employees"
    row = "Data category: Orders; Retention period: 3 years"
    assert value_clause(claim("3 years", row)) == row  # a table row's cells belong together


@pytest.mark.parametrize("question", [
    # her page has an owner id, not a phone: a number, but not the asked one
    "What's Ana Ruiz's phone number?",
    # "frozen" and "tablet" are the depot's words, not the loaf's: another scope
    "What is the shelf life of frozen dough?",
    "Who is the category lead for the tablet kiosks?",
    "How long is the shelf life for frozen loaves?",
    # an owner is not who approves: another verb than one anyone in charge does
    "Who approves catering refunds for Gold customers?",
    # one extreme member is not the average of all, nor their count
    "How old is the oldest delivery van at the Gracia Depot?",
    # 95 is the whole firm's headcount; Girona is in another clause of its sentence
    "How many people work in the Girona kitchen?",
    # Girona is on a page that links to the oven line, not on the oven's page nor one it links
    "What is the warranty period of the ovens in Girona?",
])
def test_another_scope_than_the_claims_is_not_answered(state, question: str) -> None:  # noqa: ANN001
    abstains(state, question)


@pytest.mark.parametrize(("question", "value"), [
    ("What's Pablo Serra's phone number?", "+34 600 111 222"),
    ("What is the shelf life of the Sourdough Loaf?", "3 days"),
    ("How long is the shelf life of the Sourdough Loaf?", "3 days"),
    ("How many employees does Crumb and Co have?", "95"),
    ("What is the warranty period of the Deck Oven Line?", "5 years"),
    ("Who is the category lead for the Sourdough Loaf?", "Lucia Vidal"),
    # a month is a date, not a name the wiki lacks (its sources write 2026-11-09)
    ("What was the duration of the oven outage on November 9?", "2 hours"),
    ("Who owns the Catering Refund Policy?", "Finance Team"),
    # "normal", "new": words that say which kind is meant without narrowing it to another
    # thing (the wiki uses them elsewhere, on the outage's page)
    ("What is the shelf life of a normal Sourdough Loaf?", "3 days"),
    ("What is the warranty period on a new Deck Oven Line?", "5 years"),
    ("What is the average van age at the Gracia Depot?", "3.5 years"),
    # who holds a contract is a customer
    ("What is the refund deadline for Gold contract holders?", "14 days"),
])
def test_the_claims_own_scope_is_answered(state, question: str, value: str) -> None:  # noqa: ANN001
    answers(state, question, value)

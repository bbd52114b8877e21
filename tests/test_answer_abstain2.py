"""Near misses answered from prose (compiler/retrieval/aspect.py, coverage.py; issue 21): a
statement or claim answers only when it covers the asked concept, not when it shares incidental
words with the question. The subject of the question's verb ("how much leave do *seasonal
staff* get") must be the claim's, a condition ("a charge *if a tenant leaves early*") must be
the claim's case, a "slated for" asks a planned value (not the current one), a "when" asks the
date of its own event, a fee or rate is an amount (never "30 days"), and a table row naming
another role ("… for regional director") does not answer about another ("store managers").
The same pages answer the questions they do hold.

The corpus is invented here (a kitchen-equipment leasing firm nobody tuned on)."""

from __future__ import annotations

import pytest

from compiler.retrieval import FRAME_WORDS, STOPWORDS
from compiler.retrieval.answer_types import _shaped, answer_type
from compiler.retrieval.coverage import KIND_WORDS, asked_condition, asked_subject
from answer_corpus import abstains, answers, markdown_state

STOP = STOPWORDS | FRAME_WORDS

PAGES = {
    "leave.md": """---
title: Annual Leave Policy
type: policy
---

# Annual Leave Policy

Annual leave covers holidays and personal days for all salaried staff.

Staff may roll over up to three days of unused leave into the next year.

Home office allowance: EUR 250 per year

| Tenure | Annual leave |
|---|---|
| Under 3 years | 22 days |
| 3 years or more | 26 days |
""",
    "claims.md": """---
title: Mileage and Claims Policy
type: policy
---

# Mileage and Claims Policy

Claims must be filed no later than 45 days after the visit ends.

Claims above EUR 500 need the finance lead's sign-off.

Approved claims are reimbursed by bank payment.
""",
    "ovenlink.md": """---
title: OvenLink
type: product
---

# OvenLink

OvenLink is the remote monitoring service for our leased ovens.

Current version: OvenLink 4.2
Temperature alerts are sent by text message.

Each replacement OvenLink sensor costs EUR 35.
""",
    "bonus.md": """---
title: Sales Bonus Plan
type: policy
---

# Sales Bonus Plan

| Role | Bonus rate | Notes |
|---|---|---|
| Regional director | 3% of leased value | Paid yearly |

Bonuses are paid out 60 days after the year closes.
""",
    "crumbwell.md": """---
title: Crumbwell Hearth Bakeries
type: account
---

# Crumbwell Hearth Bakeries

Crumbwell Hearth Bakeries runs twelve bakeries in Leeds.

The Crumbwell Hearth deck oven rental in Leeds was reviewed on 2026-09-30.

Account manager: Priya Natt
""",
    "crumbwell-deal.md": """---
title: Crumbwell Hearth - Second Oven Line
type: opportunity
---

# Crumbwell Hearth - Second Oven Line

Amount: EUR 48,000
Stage: Negotiation
""",
    "incident.md": """---
title: Deck oven fire in Leeds
type: ticket
---

# Deck oven fire in Leeds

A Crumbwell Hearth Bakeries deck oven overheated in the Leeds bakery on 2026-10-14.
""",
    "returns.md": """---
title: Equipment Return Policy
type: policy
---

# Equipment Return Policy

Returned ovens are cleaned and inspected at the depot.

Cleaning charge: EUR 80 per oven

Cleaning charges of EUR 80 are sometimes billed to bakeries late.
""",
}


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    yield from markdown_state(tmp_path_factory, "oventec", PAGES)


def test_subject_and_condition_are_read_from_the_question() -> None:
    assert asked_subject("How much leave do seasonal staff get?", STOP) == ["seasonal", "staff"]
    assert asked_subject("When does the lease with us expire?", STOP) == ["lease"]
    assert asked_subject("Which OvenLink version is the recipe sync feature slated for?",
                         STOP) == ["recipe", "sync", "feature"]
    assert asked_subject("What do we charge for cleaning?", STOP) == []  # a pronoun
    assert asked_condition("Is there a fee if a bakery keeps an oven past the lease end?",
                           STOP) == ["bakery", "keeps", "oven", "past", "lease", "end"]
    assert asked_condition("What is the cleaning charge?", STOP) == []


def test_a_fee_or_rate_is_an_amount_not_a_span_of_time() -> None:
    for word in ("fee", "rate", "price", "cost"):
        shape = KIND_WORDS[word]
        assert not shape.search("no later than 45 days after the visit ends"), word
        assert not shape.search("120 days"), word
        for amount in ("EUR 80", "3% of leased value", "EUR 3 per day", "$1,200"):
            assert shape.search(amount), (word, amount)


def test_an_amount_per_year_is_no_duration() -> None:
    wanted = answer_type("How many days a week can staff work from home?")
    assert not _shaped(wanted, "EUR 250 per year")
    assert _shaped(wanted, "up to 3 days a week")


@pytest.mark.parametrize("question", [
    # the subject's modifier names another kind than the policy's (salaried staff)
    "How much leave do seasonal staff get?",
    # a condition no claim covers: the claims deadline shares only "later"/"ends"
    "Is there a fee if a bakery keeps an oven late, past the lease end?",
    # a planned version is not the current one
    "Which OvenLink version is the recipe sync feature slated for?",
    # another role than the bonus table's row
    "What bonus rate do store managers get?",
    # the date of a fire, or of a signature, is not when a contract expires
    "When does Crumbwell Hearth's contract with us expire?",
    "When does the Crumbwell Hearth deck oven rental in Leeds expire?",
    # a sentence holding an amount says no fee unless it says one
    "What is the fee for a late claim?",
    # a sentence that leaves a word of the asked phrase out ("payment") speaks of another thing
    "What is the late payment fee for bakeries?",
    # a condition the wiki never speaks of (cancelling) is not a case a price covers
    "Is there a fee if a bakery cancels an oven delivery late?",
])
def test_near_misses_in_prose_are_not_answered(state, question: str) -> None:
    abstains(state, question)


@pytest.mark.parametrize(("question", "value"), [
    ("How much annual leave do staff with under 3 years get?", "22 days"),
    ("How much leave can staff roll over into the next year?", "three days"),
    ("Which OvenLink version is current?", "OvenLink 4.2"),
    ("What bonus rate do regional directors get?", "3%"),
    ("What is the cleaning charge for a returned oven?", "EUR 80"),
    ("What is the price of a replacement OvenLink sensor?", "EUR 35"),
    ("How much is the home office allowance for staff?", "EUR 250"),
    ("Is there a cleaning charge if a bakery returns an oven?", "EUR 80"),
    ("When must mileage claims be filed?", "45 days"),
    ("When did the deck oven overheat at Crumbwell Hearth?", "2026-10-14"),
    ("When was the Crumbwell Hearth oven rental reviewed?", "2026-09-30"),
])
def test_the_same_pages_answer_what_they_hold(state, question: str, value: str) -> None:
    answers(state, question, value)

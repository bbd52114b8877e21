"""Near misses (compiler/retrieval/aspect.py, coverage.py; issue 21): a question whose asked
concept is not in the wiki is not answered with a claim about a neighbouring one. The asked
action ("take to *recharge*") is not a battery's runtime, the thing a price is *of* ("an
extended service plan") is not the product, "outside X" is not X's, a deal's owner is not its
account's manager, a rate is a number. The same pages answer the questions they do hold.

The corpus is invented here (a bicycle maker nobody tuned on)."""

from __future__ import annotations

import pytest

from compiler.retrieval import FRAME_WORDS, STOPWORDS
from compiler.retrieval.coverage import (asked_action, asked_owner, measures, negated_scope,
                                         parse_schema_contexts, parse_schema_page,
                                         passive_subject, per_units)
from answer_corpus import abstains, answers, markdown_state

STOP = STOPWORDS | FRAME_WORDS

PAGES = {
    "tern.md": """---
title: Tern E-Bike
type: product
---

# Tern E-Bike

The Tern E-Bike is our folding electric bicycle for city commuters.

On a full charge the Tern E-Bike lasts 6 hours.
List price: EUR 2,400
Service interval: 6 months
Warranty: 24 months
""",
    "winter-rush.md": """---
title: Winter Rush Plan
type: process
---

# Winter Rush Plan

The winter rush runs from 1 December to 15 January.

Overtime cap: 12 hours per week
""",
    "ridetrack.md": """---
title: RideTrack
type: product
---

# RideTrack

RideTrack is the app riders use to log their trips.

Price: EUR 3 per logged ride
Data retention: 18 months
""",
    "parcelbox.md": """---
title: ParcelBox
type: product
---

# ParcelBox

ParcelBox ships spare parts to our dealers.

Supported carriers: DPD, GLS
""",
    "trailers.md": """---
title: Trailer Rental Rates
type: policy
---

# Trailer Rental Rates

| Trailer | Daily | Weekly |
|---|---|---|
| 20 kg cargo trailer | EUR 15 | EUR 60 |
| 40 kg cargo trailer | EUR 25 | EUR 110 |
""",
    "commission.md": """---
title: Dealer Commission Plan
type: policy
---

# Dealer Commission Plan

| Role | Base commission | Accelerator |
|---|---|---|
| Account manager | 5% of new-dealer revenue | 8% above quota |
""",
    "workshop.md": """---
title: Repair Workshop
type: team
---

# Repair Workshop

The repair workshop fixes customer bikes in Porto.

Lead: Marta Quintas
Invoices are sent by email within two days.
""",
    "harbour.md": """---
title: Harbour Cycles
type: account
---

# Harbour Cycles

Harbour Cycles is a bike rental chain in Lisbon.

Account manager: Ines Duarte
Account type: Reseller
Renewal date: 2027-05-01
Create date: 2024-02-01
""",
    "harbour-deal.md": """---
title: Harbour Cycles - Tern Fleet Expansion
type: opportunity
---

# Harbour Cycles - Tern Fleet Expansion

Amount: EUR 96,000
Stage: Proposal
Close date: 2027-03-01
Create date: 2026-10-12
""",
    "travel.md": """---
title: Travel Policy
type: policy
---

# Travel Policy

| Expense | Limit | Notes |
|---|---|---|
| Hotel | EUR 140 per night | Breakfast included where possible |
| Ground transport | Actual cost | Personal car mileage at the standard rate |
""",
}

# the corpus's schema: a battery's runtime is also said "on a full charge" (a context, not a
# name of the attribute), a service interval a "maintenance cycle"
SCHEMA = """version: spoke-1
types:
  product:
    attributes:
      battery runtime:
        type: duration
        unit: hours
        phrases: [battery life, on a full charge]
      service interval:
        type: duration
        unit: months
        phrases: [maintenance cycle]
"""


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    yield from markdown_state(tmp_path_factory, "spoke", PAGES, SCHEMA)


@pytest.mark.parametrize("question", [
    # the action whose duration is asked is not the attribute's
    "How long does it take to recharge the Tern E-Bike battery?",
    "How long does the Tern E-Bike battery take to recharge?",
    # … and "on a full charge" says when a runtime holds, not that it is a charging time
    "How long does it take to fully charge the Tern E-Bike?",
    # what the price is of, or what the money is for, is neither the claim's nor its page's
    "What is the price of an extended service plan for the Tern E-Bike?",
    "What is the list price of Tern E-Bike rental contracts?",
    "How much does RideTrack charge for API access?",
    # a yes/no question asks whether its phrase exists: a list price is no volume discount
    "Is there a volume discount on the Tern E-Bike for ten or more bikes?",
    # the subject of the duration is not on the page ("cycle" is a service interval's word)
    "How long does a degreasing cycle of the Tern E-Bike take?",
    # "outside X" excludes what the claim is scoped to
    "What is the overtime cap outside winter rush?",
    "What is the overtime cap outside the winter rush season?",
    # the passive's subject is another page's
    "How long are workshop invoices retained?",
    # the deal is named, its account only inside the deal's name
    "Who owns the Harbour Cycles Tern fleet expansion deal?",
    # a rate is a number; the notes cell beside the limit is another attribute's
    "What mileage rate per kilometre do we reimburse?",
    # a rate per another unit
    "How much does RideTrack charge per kilometre?",
    # the row of another kind of manager ("account manager") than the question's
    "What commission rate do store managers get?",
    "What accelerator do store managers get?",
    # the thing asked about is measured by another number than every claim's
    "Weekly rate on a 60 kg cargo trailer?",
])
def test_a_neighbouring_attribute_does_not_answer(state, question: str) -> None:
    abstains(state, question)


@pytest.mark.parametrize(("question", "value"), [
    ("How long does the Tern E-Bike battery last?", "6 hours"),
    ("What is the battery life of the Tern E-Bike?", "6 hours"),
    ("What is the price of the Tern E-Bike?", "2,400"),
    ("How much does the Tern E-Bike cost?", "2,400"),
    ("What's the price tag on a Tern E-Bike?", "2,400"),  # a price tag is a price
    ("Is there a warranty on the Tern E-Bike?", "24 months"),
    ("How often does the Tern E-Bike need servicing?", "6 months"),
    ("What is the overtime cap during the winter rush?", "12 hours"),
    ("How much does RideTrack charge per ride?", "EUR 3"),
    ("How long is RideTrack data retained?", "18 months"),
    ("Who is the account manager for Harbour Cycles?", "Ines Duarte"),
    ("What is the Harbour Cycles Tern fleet expansion deal worth?", "96,000"),
    ("What is the limit for ground transport?", "Actual cost"),
    # the head noun names a kind of someone ("companies"): a claim naming carriers answers
    ("ParcelBox: which haulage companies are supported?", "DPD"),
    ("Weekly rate on a 40 kg cargo trailer?", "EUR 110"),
    ("What is the base commission for an account manager?", "5%"),
    # "how big" asks a quantity: the deal's amount, not its stage
    ("How big is the Harbour Cycles Tern fleet expansion deal?", "96,000"),
    # "handles" is what the one in charge does: the account's manager, not its type
    ("Who handles the Harbour Cycles account on our side?", "Ines Duarte"),
    # "renewing" names the renewal date of the create/renewal family
    ("By what date does the Harbour Cycles contract need renewing?", "2027-05-01"),
    # the account named inside the deal's name is not asked a member of its date family
    ("Expected close date of the Harbour Cycles Tern fleet expansion?", "2027-03-01"),
])
def test_the_same_pages_answer_what_they_hold(state, question: str, value: str) -> None:
    answers(state, question, value, lead_only=True)


def test_what_a_question_asks_beyond_its_head() -> None:
    assert asked_action("How long does it take to fully charge the pump?", STOP) == "charge"
    assert asked_action("How long does the battery take to recharge?", STOP) == "recharge"
    assert asked_action("How long does it take for a refund to arrive?", STOP) == "arrive"
    assert asked_action("How long does the warranty last?", STOP) == ""
    assert passive_subject("How long are helpdesk tickets retained?", STOP) == [
        "helpdesk", "tickets"]
    assert negated_scope("What is the overtime cap outside peak season?", STOP) == [
        "peak", "season"]
    assert negated_scope("Which regions are covered, other than the EU?", STOP) == ["eu"]
    assert negated_scope("What is the overtime cap during peak season?", STOP) == []
    assert asked_owner("What's the price of an extended service contract for the pump?",
                       STOP) == ["extended", "service", "contract"]
    assert asked_owner("How much does FreightLink charge for API access?", STOP) == [
        "api", "access"]
    assert asked_owner("How long does a sterilisation cycle of the oximeter take?", STOP) == [
        "sterilisation", "cycle"]
    assert asked_owner("What is the price of the pump?", STOP) == ["pump"]
    assert asked_owner("What is the price for the pump?", STOP) == []
    assert per_units("What do we charge per gallon of fuel?", STOP) == ["gallon"]
    assert measures("Weekly rate on a 60 ft boom?") == [("60", "ft")]
    assert measures("a 2.5 t excavator, $945 a week and 5 in stock") == [("2.5", "t")]


def test_context_phrases_of_the_schema_are_read_apart() -> None:
    page = ("| attribute | type | cardinality | qualifiers | phrases | values |\n"
            "|---|---|---|---|---|---|\n"
            "| battery runtime | duration (hours) | single |  | battery life, on battery, "
            "on a full charge |  |\n")
    assert parse_schema_contexts(page)["batteryruntime"] == {"on", "a", "full", "charge"}
    # the whole vocabulary still has every word of every phrase
    assert {"charge", "life", "on"} <= parse_schema_page(page)["batteryruntime"]

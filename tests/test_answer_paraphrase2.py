"""Everyday paraphrases of a source's words (compiler/retrieval/lexicon.py's paraphrase groups
and phrases) and clipped words of a corpus's own terms (compiler/retrieval/abbreviations.py):
"was the booking site *down*" asks its *outage*, "*thrown in for free*" what is *included at no
charge*, "a *cargo tr*" the *cargo trike* the wiki names. Each has a near miss the wiki does not
answer.

The corpus is invented here (a bicycle courier co-operative nobody tuned on)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from compiler.retrieval.acronyms import expansion
from compiler.retrieval.abbreviations import expand_clipped, spell_out_clipped
from compiler.state import State
from answer_corpus import abstains, answers, markdown_state

PAGES = {
    "booking-site-incident.md": """---
title: Incident Review - Booking Site Outage 2026-03-02
---
# Incident Review - Booking Site Outage 2026-03-02

- Duration: 2 hours 15 minutes
- Severity: SEV2

The booking site returned errors to every rider after a certificate expired.
""",
    "helmet-programme.md": """---
title: Helmet Programme
---
# Helmet Programme

A branded helmet is included at no charge for members who ride with us for 6 months or longer.
Replacement visors are sold at the front desk.
""",
    "fleet-rates.md": """---
title: Fleet Hire Rates 2027
---
# Fleet Hire Rates 2027

| Vehicle | Daily | Weekly |
|---|---|---|
| Cargo trike | $45 | $210 |
| Folding bike | $18 | $80 |
""",
    "hybrid-working.md": """---
title: Hybrid Working Rules
---
# Hybrid Working Rules

- Core hours: 09:30-14:30 GMT
- Equipment budget: GBP 250 per year
""",
    "oak-valley-tandem.md": """---
title: Oak Valley - Tandem Service
---
# Oak Valley - Tandem Service

Oak Valley riders book tandems through the front desk.
""",
    "mileage-claims.md": """---
title: Mileage Claims Procedure
---
# Mileage Claims Procedure

Mileage logs must be handed in to the office no later than 14 days after the month ends.

| Incident | Notes |
|---|---|
| Puncture | Repaired free at any partner workshop. |
| Theft of a bike | Insured only if the rider reports it to the police within 24 hours of noticing. |
""",
}


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[State]:
    yield from markdown_state(tmp_path_factory, "spokeworks", PAGES)


def test_down_asks_the_outage(state: State) -> None:
    answers(state, "How long was the booking site down?", "2 hours 15 minutes")


def test_thrown_in_for_free_is_included_at_no_charge(state: State) -> None:
    answers(state, "How long do I need to ride with you before a helmet is thrown in for free?",
            "6 months")


def test_when_must_i_be_online_asks_the_core_hours(state: State) -> None:
    answers(state, "When do I have to be online if I'm working from home?", "09:30-14:30")


def test_is_there_a_cutoff_reads_no_later_than(state: State) -> None:
    answers(state, "I came back from a long tour last week and haven't handed in my mileage "
            "log yet. Is there a cutoff?", "14 days")


def test_circumstances_before_the_question_weigh_less(state: State) -> None:
    answers(state, "My bike got stolen outside the canteen. How long do I have to tell the "
            "police for it to be insured?", "24 hours")


def test_a_clipped_word_of_a_corpus_term_is_spelt_out(state: State) -> None:
    spelt = spell_out_clipped(state, "Weekly price of a cargo tr?")
    assert spelt == "Weekly price of a cargo trike?"
    answers(state, "Weekly price of a cargo tr?", "$210")


def test_an_acronym_is_not_spelt_across_the_parts_of_a_name(state: State) -> None:
    assert expansion(state, "FHR") == "fleet hire rates"
    # "Oak Valley - Tandem Service": no phrase "oak valley tandem" to spell "OVT"
    assert expansion(state, "OVT") == ""


def test_clipped_words_need_one_reading_of_the_wiki() -> None:
    pairs = frozenset({("mini", "excavator"), ("mini", "exhibit"), ("cargo", "trike")})
    # two terms start that way: nothing to choose between them
    assert expand_clipped("a mini ex for a week", pairs, frozenset()) == "a mini ex for a week"
    # a word the wiki uses is its own word, and a stop word is never clipped
    assert expand_clipped("the cargo tri", pairs, frozenset({"tri"})) == "the cargo tri"
    assert expand_clipped("cargo to go", pairs, frozenset()) == "cargo to go"
    assert expand_clipped("a cargo tr", pairs, frozenset()) == "a cargo trike"


def test_near_misses_stay_abstained(state: State) -> None:
    # the site was down, not slow: no review says how long it was slow
    abstains(state, "How long was the booking site slow?")
    # what is free is the helmet, not a lock
    abstains(state, "How long before a lock is thrown in for free?")
    # no cutoff for handing in a lost property form
    abstains(state, "I found a rider's glove last week. Is there a cutoff for lost property "
             "forms?")
    # no monthly rate of a cargo trike
    abstains(state, "What is the price of a cargo tr per quarter?")

"""Another amount of the right record (answer8): the claim carries a word of the same kind as
the question's, but another one.

* an amount's stage: what was paid, spent or billed ("how much did the yard *end up paying*",
  "the *actual* cost") is not the *estimated* cost, and an estimate asked is not the amount
  *invoiced*; a question in the future ("how much will we pay") may be answered by an estimate;
* the default kind of a noun ("*standard* discount") does not answer another kind the question
  names ("the *loyalty* commission"), nor a special kind ("*winter* rate") the standard one;
* a table row's fact ("Supplier: X; Rating: B+; Standard discount: 8%") does not answer a
  question whose head noun only another cell's label says ("what discount" is no rating;
  tested on the row's text: a markdown table's rows are quoted otherwise);
* a count is a number standing as a word, not digits inside an identifier (a meeting's
  attendee ids count no riggers);
* a row "for frozen *seafood*" does not answer a question "… for frozen *bait*": the same kind
  (frozen), another head the question never says.

The corpus is invented here (a boat-repair yard nobody tuned on)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from answer_corpus import abstains, answers, markdown_state
from compiler.retrieval.aspect import _STANDALONE_NUMBER
from compiler.retrieval.coverage import head_phrase
from compiler.retrieval.rivals import other_cell, other_kind, other_stage, stage_of_question
from compiler.retrieval.text import key
from compiler.state import State

PAGES = {
    "saltmarsh.md": """---
title: Saltmarsh Rigging
type: account
---
# Saltmarsh Rigging

- Standard commission: 12%
- City: Falmouth
""",
    "cold-room.md": """---
title: Cold Room Runbook
type: runbook
---
# Cold Room Runbook

- Setpoint for frozen seafood: -18°C
- Door alarm delay: 2 minutes
""",
    "yard-meeting.md": """---
title: 2026-03-02 Yard Planning Meeting
type: meeting
---
# 2026-03-02 Yard Planning Meeting

- Attendees: Ines Varga, @5521:9f3c2e1a-44b0-4c1d-8e2f-7a6b5c4d3e21, @5521:9f3c2e1a-44b0-4c1d-8e2f-7a6b5c4d3e22
- Topic: spring launch season staffing
""",
    "rep-41.md": """---
title: REP-41 hull repair for the Tern
type: ticket
---
# REP-41 hull repair for the Tern

- Estimated cost: $6,400
- Assignee: Ines Varga
""",
    "rates.md": """---
title: Slipway Rates
type: policy
---
# Slipway Rates

- Winter rate: $45 per day
- Haul-out fee: $180
""",
}


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[State]:
    yield from markdown_state(tmp_path_factory, "slipway", PAGES)


def test_stage_of_an_amount_in_english() -> None:
    assert stage_of_question("How much did the owner end up paying for the mast?") == "after"
    assert stage_of_question("What was the actual cost of the refit?") == "after"
    assert stage_of_question("What's the projected spend on paint?") == "before"
    # the future asks what will be, which an estimate answers
    assert stage_of_question("How much will we pay for the refit?") == ""
    assert other_stage("What was the actual cost of the refit?", "estimated cost")
    assert other_stage("What's the forecast revenue for May?", "invoiced revenue")
    assert not other_stage("What was the actual cost of the refit?", "cost")
    assert not other_stage("What was the actual cost of the refit?", "actual cost")
    assert not other_stage("How much will we pay for the refit?", "estimated cost")


def test_another_kind_of_the_noun() -> None:
    def never(_: str) -> bool:
        return False

    assert other_kind(("loyalty", "discount"), "standard discount for gullwing", never, set())
    # the claim says the asked kind elsewhere (its value or quote): not a rival
    assert not other_kind(("loyalty", "discount"), "standard discount", lambda t: t == key(
        "loyalty"), set())
    assert other_kind(("standard", "rate"), "winter rate", never, {key("standard"), key("rate")})
    assert not other_kind(("standard", "rate"), "standard rate", never, set())
    assert not other_kind(("discount",), "standard discount", never, set())
    # words compared whole: "regulatory" is no "regular"
    assert not other_kind(("regulatory", "class"), "device class", never, set())
    assert not other_stage("What was the final cost?", "financial cost")


def test_another_cell_of_the_row() -> None:
    row = "Supplier: Gullwing Chandlery; Rating: B+; Standard discount: 8%"
    assert other_cell(row, "B+", (key("discount"),), lambda t: False)
    assert not other_cell(row, "8%", (key("discount"),), lambda t: t == key("discount"))
    assert not other_cell("Rating: B+", "B+", (key("discount"),), lambda t: False)


def test_paid_is_not_the_estimate(state: State) -> None:
    answers(state, "What is the estimated cost of REP-41?", "6,400")
    answers(state, "What will the Tern hull repair cost?", "6,400")
    abstains(state, "What did the Tern hull repair actually cost?")
    abstains(state, "How much did we end up paying for REP-41?")


def test_another_kind_is_not_the_standard_row(state: State) -> None:
    answers(state, "What commission does Saltmarsh Rigging pay us?", "12%")
    abstains(state, "What loyalty commission does Saltmarsh Rigging pay us?")
    answers(state, "What is the winter rate on the slipway?", "$45")
    abstains(state, "What is the standard rate on the slipway?")


def test_a_row_of_the_same_kind_with_another_head(state: State) -> None:
    answers(state, "What temperature do we keep the cold room at for frozen seafood?", "-18")
    abstains(state, "What temperature do we keep the cold room at for frozen bait?")


def test_a_hyphenated_modifier_does_not_end_the_asked_phrase() -> None:
    # "per" and "on" end a phrase as words, not as the first part of a hyphenated modifier
    stop = frozenset({"what", "was", "the", "is", "in"})
    assert head_phrase("What was the Gold per-seat price in 2025?", stop) == [
        "gold", "per-seat", "price"]
    assert head_phrase("What is the on-call allowance?", stop) == ["on-call", "allowance"]
    assert head_phrase("What is the price per seat?", stop) == ["price"]


def test_digits_inside_an_identifier_count_nothing(state: State) -> None:
    for counts in ("20 riggers", "1,200 moorings", "about 40.", "3.5 FTE"):
        assert _STANDALONE_NUMBER.search(counts), counts
    for identifier in ("@5521:9f3c2e1a-44b0", "REP-41", "v4.3", "RM-26-118407"):
        assert not _STANDALONE_NUMBER.search(identifier), identifier
    abstains(state, "spring launch season staffing riggers needed, how many?")

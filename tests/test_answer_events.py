"""A date of one event does not answer "when" of another, an amount is not answered by a
stage, and a page linking to the named one may be what is asked (compiler/retrieval/aspect.py,
compiler/retrieval/retriever.py; fifth round): "when will the bug be *fixed*" is not the
ticket's *created* date, "a customer's annual revenue" is not its deal's stage, "our contact
at X" is the contact page that links to X.

The corpus is invented here (a food-scales supplier nobody tuned on)."""

from __future__ import annotations

import pytest

from answer_corpus import abstains, answers, markdown_state


PAGES = {
    "acc.md": """---
title: Brightmoor Foods
type: account
---

# Brightmoor Foods

City: Leeds
Annual revenue: GBP 4.2 million
""",
    "acc2.md": """---
title: Halden Dairy
type: account
---

# Halden Dairy

City: York
""",
    "c1.md": """---
title: Greta Lind
type: contact
---

# Greta Lind

Job title: Buyer
Company: [[Halden Dairy]]
""",
    "deal.md": """---
title: Halden Dairy - Scale Renewal
type: deal
---

# Halden Dairy - Scale Renewal

Account: [[Halden Dairy]]
Stage: contractsent
""",
    "t1.md": """---
title: TCK-7
type: ticket
---

# TCK-7

Summary: Label printer jams on thick card
Created: 2026-10-02
Status: Open
""",
    "t3.md": """---
title: TCK-12
type: ticket
---

# TCK-12

Summary: Move the scale feed to the new label format
The old label format is retired in March 2027, so every depot moves before then.
Due date: 2027-01-15
Created: 2026-11-06
""",
    "t2.md": """---
title: TCK-9
type: ticket
---

# TCK-9

Summary: Scale drifts after calibration
Created: 2026-09-14
Resolved: 2026-09-30
""",
}


def _answers_lead(state, question: str, value: str) -> None:  # noqa: ANN001
    answers(state, question, value, lead_only=True)


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    yield from markdown_state(tmp_path_factory, "scales", PAGES)






@pytest.mark.parametrize("question", [
    # the open ticket has only its created date: another event's date
    "When will the label printer jam be fixed?",
    # the account has no revenue; its deal's stage is no amount
    "What is Halden Dairy's annual revenue?",
])
def test_another_kind_of_value_does_not_answer(state, question: str) -> None:  # noqa: ANN001
    abstains(state, question)


@pytest.mark.parametrize(("question", "value"), [
    ("When was the label printer jam reported?", "2026-10-02"),
    ("When was the scale drift ticket resolved?", "2026-09-30"),
    ("When was the scale drift ticket fixed?", "2026-09-30"),
    ("When was the scale drift ticket created?", "2026-09-14"),
    ("What is Brightmoor Foods's annual revenue?", "GBP 4.2 million"),
    # the due date of the very event asked, before prose that mentions a month
    ("When is the label format move ticket due?", "2027-01-15"),
])
def test_the_asked_kind_of_value_answers_lead(state, question: str, value: str) -> None:  # noqa: ANN001
    _answers_lead(state, question, value)


@pytest.mark.parametrize(("question", "value"), [
    ("Who is our main contact at Halden Dairy?", "Greta Lind"),
    ("Which deal do we have with Halden Dairy?", "Halden Dairy - Scale Renewal"),
])
def test_a_related_page_linking_to_the_named_one_answers_lead(state, question: str,  # noqa: ANN001
                                                         value: str) -> None:
    _answers_lead(state, question, value)


def test_no_related_page_of_the_asked_kind_is_no_answer(state) -> None:  # noqa: ANN001
    # Brightmoor has no contact page linking to it
    abstains(state, "Who is our main contact at Brightmoor Foods?")
    # Greta's page does not say she is the procurement contact: another one is asked
    abstains(state, "Who is our procurement contact at Halden Dairy?")

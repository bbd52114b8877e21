"""Near misses the wiki cannot answer, by general English (issue 21; compiler/retrieval/aspect.py,
retriever.py, reading.py, typos.py): the answer must be about what is asked, not only share most
of the question's words.

* a lower-case word the wiki writes only as a name ("how many bakers is *nantes* hiring") is
  that name, and a sentence about another name ("*Lyon* will hire 8 bakers") does not answer it;
* the words restricting the asked phrase ("the on-call stipend *for delivery drivers*") must be
  in the clause a value is read from, or on its page: the bakers' stipend is not the drivers';
* a calendar day the question names ("the surcharge *for the week of March 9*") says which value,
  it asks none: a policy's effective date is no surcharge;
* a "when" is not answered by a bare duration of something else ("data retention period: 18
  months" of "when will single sign-on be available");
* "the dollar amount" is not a percentage;
* an asked head noun the wiki never uses after a word it does ("the oven cleaning *penalty*")
  is not a paraphrase of the rate it holds;
* "when does our agreement expire" is not a date whose attribute names no event and no word of
  the question (a ticket's "go-live target");
* "how many bakers" is not answered by "2 delivery attempts": the value counts another noun.

The same pages answer what they hold. The corpus is invented here (a bakery distributor nobody
tuned on)."""

from __future__ import annotations

import pytest

from answer_corpus import abstains, answers, markdown_state
from compiler.retrieval.reading import read_value

PAGES = {
    "oncall.md": """---
title: Baker On-Call Compensation
type: policy
---

# Baker On-Call Compensation

Bakers on the night rotation answer oven alarms and driver calls from 22:00 to 05:00.

| Item | Amount |
|---|---|
| Weekly on-call stipend | EUR 300 per week |
| Holiday on-call week | EUR 450 per week |

Stipends are paid with the next regular payroll.
""",
    "zone-north.md": """---
title: Delivery Zone North
type: process
---

# Delivery Zone North

Delivery drivers of the north zone start at the north depot.
""",
    "zone-south.md": """---
title: Delivery Zone South
type: process
---

# Delivery Zone South

Delivery drivers of the south zone start at the south depot.
""",
    "zone-east.md": """---
title: Delivery Zone East
type: process
---

# Delivery Zone East

Delivery drivers of the east zone start at the east depot.
""",
    "zone-west.md": """---
title: Delivery Zone West
type: process
---

# Delivery Zone West

Delivery drivers of the west zone start at the west depot.
""",
    "zone-central.md": """---
title: Delivery Zone Central
type: process
---

# Delivery Zone Central

Delivery drivers of the central zone start at the central depot.
""",
    "zone-coast.md": """---
title: Delivery Zone Coast
type: process
---

# Delivery Zone Coast

Delivery drivers of the coast zone start at the coast depot.
""",
    "zone-river.md": """---
title: Delivery Zone River
type: process
---

# Delivery Zone River

Delivery drivers of the river zone start at the river depot.
""",
    "zone-hill.md": """---
title: Delivery Zone Hill
type: process
---

# Delivery Zone Hill

Delivery drivers of the hill zone start at the hill depot.
""",
    "cleaning.md": """---
title: Oven Cleaning Charges Policy
type: policy
---

# Oven Cleaning Charges Policy

| Item | Rate |
|---|---|
| Oven cleaning | EUR 40 per hour |
| Late pickup | EUR 25 per hour |

Oven cleaning is billed in 15-minute increments.
""",
    "crm-7.md": """---
title: CRM-7
type: ticket
---

# CRM-7

Onboarding of Rosa Cafés to the Order Portal under our supply agreement with them.

Go-live target: January 12, 2027
""",
    "meeting.md": """---
title: 2026-10-12 Operations Meeting
type: topic
---

# 2026-10-12 Operations Meeting

- Lyon will hire 8 bakers before the holiday rush.
- The Nantes night shift starts on 2027-01-04.
- Packaging costs rose 6% in March because of paper prices.
- The Nantes depot asked for a second mixer.
- Delivery vans get new tablets in May.
""",
    "nantes.md": """---
title: Nantes Depot
type: site
---

# Nantes Depot

The Nantes Depot supplies cafés in western France.

Ovens: 6
""",
    "lyon.md": """---
title: Lyon Bakery
type: site
---

# Lyon Bakery

The Lyon Bakery bakes bread for hotels.

Ovens: 9
""",
    "surcharge.md": """---
title: Flour Surcharge Policy
type: policy
---

# Flour Surcharge Policy

Effective: 2026-01-05

The flour surcharge follows the weekly wheat index published each Monday.

Orders under 20 kg carry no surcharge.
""",
    "portal.md": """---
title: Order Portal
type: product
---

# Order Portal

The Order Portal lets cafés place and track orders.

Data retention period: 18 months

Single sign-on available for: Enterprise accounts

Standard accounts get email support only.
""",
    "redelivery.md": """---
title: "Runbook: Failed Deliveries"
type: process
---

# Runbook: Failed Deliveries

A van that cannot deliver returns the order to the depot.

| Step | Count |
|---|---|
| Courier attempts before return to dispatch | 2 delivery attempts |
| Night rotation checks | 1 check |

The night rotation checks returned orders at 05:00.
""",
}


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    yield from markdown_state(tmp_path_factory, "crumbworks", PAGES)


@pytest.mark.parametrize("question", [
    # a lower-case name is a name: Lyon's hiring is not Nantes's
    "how many bakers is nantes hiring before the rush",
    # the asked role is not the claim's, nor on its page
    "What's the on-call stipend for delivery drivers?",
    # a named day qualifies the asked value; the effective date is none
    "What's the flour surcharge for the week of March 9, 2026?",
    # an event the wiki never dates: not a retention period
    "When will single sign-on be available to Standard accounts in the portal?",
    # an event no page dates: another day of the page is no answer
    "When does our agreement with Rosa Cafés expire?",
    # a head noun the wiki never uses, after one it does, is a concept it does not hold
    "What's our oven cleaning penalty per hour?",
    # a dollar amount is not a percentage
    "packaging costs march dollar amount",
    # the counted noun is not what the value counts
    "How many dispatchers are on the night rotation?",
])
def test_near_misses_are_not_answered(state, question: str) -> None:
    abstains(state, question)


@pytest.mark.parametrize(("question", "value"), [
    ("how many bakers is lyon hiring before the rush", "8"),
    ("When does the Nantes night shift start?", "2027-01-04"),
    ("What's the on-call stipend for bakers?", "300"),
    ("How long is data kept in the Order Portal?", "18 months"),
    ("How much did packaging costs rise in March?", "6%"),
    ("What's our oven cleaning rate per hour?", "EUR 40"),
    ("When does the Rosa Cafés onboarding go live?", "January 12, 2027"),
    ("How many delivery attempts are made before an order returns to dispatch?", "2"),
    ("When is the Flour Surcharge Policy effective?", "2026-01-05"),
])
def test_the_same_pages_answer_what_they_hold(state, question: str, value: str) -> None:
    answers(state, question, value)


def test_a_value_is_read_only_for_the_asked_scope(state) -> None:
    """A clause read for a value (reading.py) of a page that does not say the asked phrase's
    scope words ("for *delivery* drivers") answers nothing, though its other words fit."""
    page = ["policy/baker-on-call-compensation"]
    assert read_value(state, "What's the on-call stipend for delivery drivers?", None, page) is None
    found = read_value(state, "What's the on-call stipend for bakers?", None, page)
    assert found is not None and found.value == "EUR 300"

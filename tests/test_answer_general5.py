"""General patterns of how documents state facts and of what an answer shows (issue 21,
answer5): an everyday phrasing the question is read through ("comes at no charge" asks free) is
read in the claim too ("included at no charge"), and once a claim that answers is found, a
lower-scoring claim retrieval judged not to answer is left out of the answer.

The corpus is invented here (a wine merchant nobody tuned on)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from compiler.answers.ask import ask
from compiler.retrieval import retrieve
from compiler.state import State
from answer_corpus import answers, markdown_state

PAGES = {
    "cellar-club.md": """---
title: Cellar Club Membership
---
# Cellar Club Membership

Cellar Club members receive a case of six bottles each quarter.

Bottle insurance is included at no charge on storage plans of 24 months or longer.
""",
    "members-meeting.md": """---
title: 2026-05-04 Members Meeting
---
# 2026-05-04 Members Meeting

- Bottle insurance is free on storage plans of 24 months or longer.
""",
    "cellar-portal.md": """---
title: Cellar Portal
---
# Cellar Portal

Members see their cellar's humidity and temperature readings in the portal.
The portal keeps sensor readings for 18 months.
For security the portal locks a member's login for 20 minutes after 4 failed sign-in attempts.
""",
    "cork-taint.md": """---
title: "Runbook: Cork Taint Returns"
---
# Runbook: Cork Taint Returns

Every refund of a corked bottle is logged in the returns sheet by the customer service team.
If the customer still has the cork, refund the bottle within 5 business days of the return.
""",
}


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[State]:
    yield from markdown_state(tmp_path_factory, "vinhouse", PAGES)


def test_a_phrasing_the_question_is_read_through_is_read_in_the_claim(state: State) -> None:
    # the question's "comes at no charge" is read as free; so is the sentence's "at no charge"
    question = "how long must a storage plan run before bottle insurance comes at no charge"
    answers(state, question, "24 months")
    aspect = {e.claim.source.label.rsplit("/", 1)[-1].split("@")[0]: e.aspect
              for e in retrieve(state, question, None).claims if "24 months" in e.claim.value}
    # the sentence saying "at no charge" answers it as well as the one saying "free"
    assert aspect["cellar-club"] == aspect["members-meeting"], aspect


def test_how_far_back_records_can_be_pulled_is_their_retention(state: State) -> None:
    answers(state, "a member wants to know how far back they can pull humidity readings",
            "18 months")


def test_how_long_before_a_lock_clears_on_its_own_is_how_long_it_lasts(state: State) -> None:
    answers(state, "A member got locked out of the Cellar Portal. How long before the lock "
            "clears on its own?", "20 minutes")


def test_a_lower_scoring_claim_judged_not_to_answer_is_left_out(state: State) -> None:
    question = "how long do we have to refund a corked bottle"
    r = retrieve(state, question, None)
    fit = [e for e in r.claims if e.aspect is not None]
    assert fit and "5 business days" in fit[0].claim.value
    # the neighbour sentence of the same runbook is retrieved, but judged not to answer …
    assert any("returns sheet" in e.claim.value and e.aspect is None for e in r.claims)
    text = ask(state, question, None, "offline").text()
    assert "5 business days" in text
    # … so the answer does not list it beside the answer
    assert "returns sheet" not in text, text

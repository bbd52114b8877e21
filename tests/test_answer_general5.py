"""General patterns of English questions and of how documents state facts (issue 21, answer5):
"how far back can they pull X" asks how long X is kept, "how long before the lock clears on its
own" how long the lock lasts, "why did X quit" its root cause, a distance is said with its unit
("within 25 miles") and a word naming a kind of value typed a keystroke off is still that word,
and a later clause's "its" is the name the earlier clause says.

The corpus is invented here (a wine merchant nobody tuned on)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from compiler.answers.ask import ask
from compiler.state import State
from answer_corpus import answers, markdown_state

PAGES = {
    "cellar-club.md": """---
title: Cellar Club Membership
---
# Cellar Club Membership

Cellar Club members receive a case of six bottles each quarter.

Home tastings are offered to members living within 25 miles of one of our cellars.

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
""",
    "sup-88.md": """---
title: SUP-88 Member locked out of the portal
---
# SUP-88 Member locked out of the portal

Member cannot sign in after several wrong passwords.

Reply: Hi Dana, for security the portal locks an account for 20 minutes after 4 failed sign-in
attempts.
""",
    "ops-12.md": """---
title: OPS-12 Cooling unit down in cellar 3
---
# OPS-12 Cooling unit down in cellar 3

- Status: Done
- Root cause: a cracked fan belt on the cooling unit

The cooling unit in cellar 3 shut down overnight and the cellar warmed to 19 °C by morning.
""",
    "porto-receiving.md": """---
title: "Runbook: Porto Cellar Receiving"
---
# Runbook: Porto Cellar Receiving

- Loading bays: 6
- Pallets per bay: 2
""",
    "ops-review.md": """---
title: 2026-09-01 Operations Review
---
# 2026-09-01 Operations Review

- The Porto night shift starts on 2027-02-01.
- The Lisbon night shift starts on 2027-03-15.
- Two more forklifts are ordered for the spring.
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


def test_how_far_back_records_can_be_pulled_is_their_retention(state: State) -> None:
    answers(state, "a member wants to know how far back they can pull humidity readings",
            "18 months")


def test_how_long_before_a_lock_clears_on_its_own_is_how_long_it_lasts(state: State) -> None:
    answers(state, "A member got locked out of the portal. How long before the lock "
            "clears on its own?", "20 minutes")


def test_a_distance_says_its_unit_and_a_kind_of_value_typed_a_keystroke_off(
        state: State) -> None:
    # "distnace": a word for a kind of value the wiki never writes is still read as that word
    answers(state, "whats the max distnace from a cellar for home tastings?", "25 miles")


def test_why_something_quit_asks_its_cause(state: State) -> None:
    answers(state, "why did the cooling unit in cellar 3 quit", "cracked fan belt")


def test_its_in_a_second_clause_is_the_name_the_first_says(state: State) -> None:
    # the first clause is answered from a page only named after Porto; "its" is Porto
    question = "How many loading bays does Porto have, and when does its night shift begin?"
    answers(state, question, "6")
    answers(state, question, "2027-02-01")
    # … read as Porto's night shift, whose date leads: Lisbon's, if listed at all, comes after
    text = ask(state, question, None, "offline").text()
    assert "2027-03-15" not in text or text.index("2027-02-01") < text.index("2027-03-15"), text

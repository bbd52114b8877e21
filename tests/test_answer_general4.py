"""General patterns of English questions and of how policies state facts (issue 21, answer4):
a percentage is what something costs ("the fee is 12% of the charter price"), "on top of" is
an idiom and no scope, a time said relative to now ("next year") restricts nothing a source
can say, a two-letter role acronym used as a noun ("an AM") is spelled out, a hyphenated word
of the asked phrase ("list-price") is matched by its parts, a temperature is a kind of value,
a keyword query's words the wiki never says are a paraphrase when every word it does say is
the claim's, and what "comes back" is returned. Each has a near miss the wiki does not answer.

The corpus is invented here (a sailing-boat charter firm nobody tuned on)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from compiler.answers.ask import ask
from compiler.retrieval import retrieve
from compiler.retrieval.acronyms import expansion
from compiler.retrieval.reading import ValueReader
from compiler.retrieval.text import ATTRIBUTE_SYNONYMS, SYNONYMS, key
from compiler.state import State
from answer_corpus import abstains, answers, markdown_state

PAGES = {
    "skipper-waiver.md": """---
title: Skipper Waiver Policy
---
# Skipper Waiver Policy

The Skipper Waiver (SW) covers accidental damage caused by the charter's own skipper.

## Fee and coverage

- The SW fee is 14% of the gross charter price on the booking; mooring fees are extra.
- With SW, the customer pays a deductible of $900 per incident.
- SW pays repair costs up to $20,000 per incident.
""",
    "crew-commission.md": """---
title: Crew Commission Plan 2027
---
# Crew Commission Plan 2027

Commission plan for the 2027 plan year for the booking team.

| Role | Base commission | Accelerator |
|---|---|---|
| Account Manager | 7% of new-booking revenue | 10% above 120% of quota |
| Harbour Agent | 3% of berth revenue | 5% above 110% of quota |
""",
    "pricing-board.md": """---
title: 2026-10-02 Pricing Board
---
# 2026-10-02 Pricing Board

- List rates rise 3.5% on 2027-03-01 for every boat class except catamarans, which rise 5%.
- No change to the Skipper Waiver fee for 2027.
""",
    "bergen-marina.md": """---
title: Bergen Marina
---
# Bergen Marina

- Cold storage: yes, 1 to 5 °C
- Opening hours: 07:00-21:00
- Berths: 120

Unused berth credits carry over into the next calendar year.
""",
    "oslo-marina.md": """---
title: Oslo Marina
---
# Oslo Marina

- Opening hours: 08:00-20:00
- Berths: 80
""",
    "crew-expenses.md": """---
title: Crew Expense Policy
---
# Crew Expense Policy

Crew book travel through the booking portal.

Mileage rate: EUR 0.35 per km
Meal allowance: EUR 40

Crew members can receive a laundry allowance of up to $300 per calendar year once their
manager signs the request; the allowance is paid with the next payroll run.
Message the harbour office on channel 12; the office replies within 30 minutes during the season.
""",
    "booking-outage.md": """---
title: INC-9 Booking Site Sign-in Failure
---
# INC-9 Booking Site Sign-in Failure

Starting 08:10 UTC on 14 October 2026, customers could not sign in to the booking site for
two hours while the harbour office took bookings by phone.

Impact: 212 bookings. Root cause: an expired TLS certificate on the login gateway, which
nobody had renewed; the renewal reminder went to a mailbox nobody reads.
""",
    "tide-alert-bug.md": """---
title: APP-77 Tide alerts not delivered
---
# APP-77 Tide alerts not delivered

Skippers on Android 14 stopped getting tide alerts after the 2.1 release.

About 450 skippers were affected.
""",
    "bk-41.md": """---
title: BK-41 Invoice export drops decimals
---
# BK-41 Invoice export drops decimals

- Ticket type: Bug
- Assignee: Nora Lind
- Status: In progress

Since the 3.2 release, invoice totals with decimals export as whole numbers.
""",
    "harbour-club.md": """---
title: Harbour Club
---
# Harbour Club

- Renewal date: 2027-06-30
- Create date: 2021-03-02
- Members: 140
""",
    "return-checklist.md": """---
title: Boat Return Checklist
---
# Boat Return Checklist

Boats returned with less diesel than they left with are refuelled at $7.25 per litre.
Record engine hours and the diesel level.
""",
}


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[State]:
    yield from markdown_state(tmp_path_factory, "saltline", PAGES)


def test_a_percentage_is_what_something_costs_on_top_of_another(state: State) -> None:
    # "on top of the charter" says what the fee is added to: no scope of its own
    answers(state, "If a customer keeps the skipper waiver on their booking, what does it cost "
            "them on top of the charter?", "14%")


def test_next_year_restricts_nothing_and_an_am_is_an_account_manager(state: State) -> None:
    answers(state, "what % commission does an AM get on a brand-new booking next year?", "7%")


def test_a_two_letter_role_acronym_is_spelled_only_as_a_noun(state: State) -> None:
    question = "what % commission does an AM get?"
    assert expansion(state, "AM", question) == "account manager"
    # "9 AM" is a time of day, never a role
    assert expansion(state, "AM", "is the marina open at 9 AM?") == ""


def test_a_hyphenated_word_of_the_asked_phrase_is_its_parts(state: State) -> None:
    answers(state, "What general list-price increase did the pricing board sign off for 2027?",
            "3.5%")


def test_a_temperature_is_a_kind_of_value(state: State) -> None:
    answers(state, "Can Bergen Marina store chilled goods, and at what temperature?", "1 to 5")


def test_keyword_words_the_wiki_never_says_are_a_paraphrase(state: State) -> None:
    answers(state, "car mileage payback rate", "EUR 0.35 per km")


def test_what_comes_back_is_returned(state: State) -> None:
    answers(state, "what do we bill per litre when a boat comes back low on diesel?", "$7.25")


def test_a_labelled_line_is_read_in_its_pages_context(state: State) -> None:
    answers(state, "October booking site bookings affected", "212")


def test_what_broke_something_asks_the_cause(state: State) -> None:
    answers(state, "what broke sign-in to the booking site back in October?", "TLS certificate")


def test_up_to_states_a_limit_and_whats_is_what_is(state: State) -> None:
    question = "whats the limit the skipper waiver pays for one incident"
    # "whats" is "what is": a question, not a keyword query whose every word is asked
    assert "what" not in retrieve(state, question, None).terms
    answers(state, question, "$20,000")


def test_a_lower_case_name_typed_a_keystroke_off_is_the_name(state: State) -> None:
    question = "how many berths does the marina in bergn have"
    answers(state, question, "120")
    assert "80" not in ask(state, question, None, "offline").text()


def test_sentences_before_the_asked_one_are_the_situation(state: State) -> None:
    answers(state, "I've got a crew member on the phone whose manager just signed her laundry "
            "request. What's the most we can cover for her in a year?", "$300")


def test_a_sentence_counts_only_what_stands_after_its_number(state: State) -> None:
    # "Skippers on Android 14 stopped …" holds no count of skippers (retrieval's answer is
    # replaced by the sentence that does: compiler/retrieval/reading.py)
    question = "How many skippers were hit by the Android 14 tide alert bug?"
    reader = ValueReader(state, question, None, ["topic/app-77-tide-alerts-not-delivered"])
    said = {e.claim.value.split()[0]: e.claim for e in retrieve(state, question, None).claims}
    assert {"About", "Skippers"} <= set(said)
    assert not reader.holds_asked(said["Skippers"])
    assert reader.holds_asked(said["About"])


def test_a_contracts_end_is_its_renewal_date(state: State) -> None:
    # "end date" / "expire" is no member the renewal date / create date family lacks (an
    # attribute's word for it: kestrel's account, whose family has a third, linked, member)
    assert key("renewal") in ATTRIBUTE_SYNONYMS[key("end")]
    assert key("renewal") in ATTRIBUTE_SYNONYMS[key("expire")]
    answers(state, "Harbour Club contract end date", "2027-06-30")
    answers(state, "when does the harbour club contract expire", "2027-06-30")


def test_a_ticket_kind_and_who_works_on_it(state: State) -> None:
    # a keyword query's word its page's type says ("bug") is context, not a word to cover
    answers(state, "invoice export decimals bug assignee", "Nora Lind")
    # who is working on a ticket is its assignee
    answers(state, "Who is working on the invoice export decimals bug?", "Nora Lind")


def test_an_answer_to_a_message_is_a_reply() -> None:
    assert key("reply") in SYNONYMS[key("answer")]


def test_near_misses_stay_abstained(state: State) -> None:
    # the keyword rule: a word the wiki says ("meal") that the claim does not is no paraphrase
    abstains(state, "car mileage meal payback rate")
    # a preposition's words are a scope, never a paraphrase
    abstains(state, "mileage rate on public holidays")
    # what a commission is on must still be the row's: no row of deckhands
    abstains(state, "what % commission does a deckhand get next year?")
    # no humidity is stated anywhere: a kind of value the wiki lacks
    abstains(state, "At what humidity is Bergen Marina's cold storage kept?")
    # a labelled line answers its own label only: no outage says how long it lasted
    abstains(state, "October booking site outage duration")
    # "weight" is no typo of a word the wiki uses
    abstains(state, "bergen marina weight")

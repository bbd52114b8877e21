"""Bands of a table's rows ("discount above 20% up to 35%: VP of Sales"): a number the question
asks about inside a row's bounds is that row's, though the row never writes it; "who approves"
is answered by a role a row of the approval policy names."""

from __future__ import annotations


import pytest

from compiler.answers.ask import ask
from compiler.retrieval.ranges import band, in_band


@pytest.mark.parametrize(("text", "expected"), [
    ("discount above 20% up to 35%", (20.0, False, 35.0, True)),
    ("discount up to 20%", (None, True, 20.0, True)),
    ("orders over 1,000 kg", (1000.0, False, None, True)),
    ("between 10 and 50 seats", (10.0, True, 50.0, True)),
    ("10–50 employees", (10.0, True, 50.0, True)),
    ("at least 3 years of service", (3.0, True, None, True)),
    ("severity 1 response time", None),       # a number, no bound
    ("escalate to 2nd line", None),           # a bare "to" bounds nothing
    ("above 35% up to 20%", None),            # bounds that hold nothing
])
def test_a_band_is_read_from_its_bounds(text: str, expected) -> None:  # noqa: ANN001
    assert band(text) == expected


def test_a_number_is_in_the_band_whose_bounds_hold_it() -> None:
    assert in_band("discount above 20% up to 35%", 30)
    assert in_band("discount above 20% up to 35%", 35)       # "up to" includes
    assert not in_band("discount above 20% up to 35%", 20)   # "above" does not
    assert not in_band("discount above 35%", 30)
    assert not in_band("discount up to 20%", 30)
    assert not in_band("severity 1 response time", 1)


@pytest.fixture(scope="module")
def state(acme_state):  # noqa: ANN001, ANN201
    return acme_state


def _lead(state, question: str) -> str:  # noqa: ANN001
    return ask(state, question, None, "offline").text().split("\n")[0]


@pytest.mark.parametrize(("question", "value"), [
    ("Who signs off on a 30% discount?", "VP of Sales"),
    ("who needs to approve a 25 percent discount", "VP of Sales"),
    ("who approves discounts bigger than 35 percent", "CFO"),
    ("who approves a discount above 35%", "CFO"),
    ("can an account exec give 15% off without approval?", "Account executive"),
])
def test_the_row_whose_band_holds_the_number_answers(state, question: str, value: str) -> None:  # noqa: ANN001
    assert value in _lead(state, question)

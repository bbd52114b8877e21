"""Everyday phrasings of questions the Acme wiki answers, each a pattern the benchmark's
questions use: a state asked with "when" (hours, not an event's date), a qualifier value that
picks one member of a family (and rules out its siblings), a guarantee that is an SLA, and
hours around the clock as an answer to "when"."""

from __future__ import annotations


import pytest

from compiler.answers.ask import ask
from compiler.retrieval.aspect import asked_events


@pytest.fixture(scope="module")
def state(acme_state):  # noqa: ANN001, ANN201
    return acme_state


def _lead(state, question: str) -> str:  # noqa: ANN001
    return ask(state, question, None, "offline").text().split("\n")[0]


def test_an_open_or_closed_state_is_no_event() -> None:
    assert asked_events("when is support open for standard customers") == set()
    assert asked_events("when are the offices closed over christmas") == set()
    assert asked_events("When was SUP-103 opened?") == {"start"}
    assert asked_events("when was the ticket closed") == {"end"}


@pytest.mark.parametrize(("question", "present", "absent"), [
    # a state asked with "when": the hours, not a ticket's created date
    ("when is support open for standard customers", "Monday to Friday", "created"),
    # the qualifier the question names picks the member; its sibling is no answer
    ("when is support open for enterprise customers", "24x7", "Monday to Friday"),
    ("What are the support hours for Enterprise customers?", "24x7", "Monday to Friday"),
    # an uptime guarantee is the uptime SLA (contested between two pages)
    ("what's the uptime guarantee for acme cloud", "99.9", "no answer"),
    # … and the opening of a ticket is an event
    ("When was SUP-103 opened?", "2026-11-05", "Monday"),
])
def test_everyday_phrasings_get_the_asked_value(state, question: str, present: str,  # noqa: ANN001
                                                absent: str) -> None:
    lead = _lead(state, question)
    assert present in lead and absent not in lead, lead

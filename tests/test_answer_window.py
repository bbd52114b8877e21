"""Questions that ask the window for an action ("how long do customers have to return a
product?"): the answer is a claim whose attribute names the action (the return window), for
every value of its family when the question names none, never a duration of something else
on a page that mentions returns."""

from __future__ import annotations


import pytest

from compiler.retrieval import retrieve
from compiler.retrieval.coverage import action_object, asked_action
from compiler.retrieval.text import FRAME_WORDS, STOPWORDS

WORDS = STOPWORDS | FRAME_WORDS


@pytest.fixture(scope="module")
def state(acme_state):  # noqa: ANN001, ANN201
    return acme_state


@pytest.mark.parametrize(("question", "action", "obj"), [
    ("How long do customers have to return a product?", "return", ["product"]),
    ("how many days do I get to file my expenses", "file", ["expenses"]),
    ("How much time does a driver have to report an accident to the insurer?", "report",
     ["accident"]),
    ("how many weeks to cancel an order", "cancel", ["order"]),
    # a verb of lasting asks a threshold, not a window
    ("how long does a machine have to sit idle before the alert fires?", "", []),
    ("how long is the warranty?", "", []),
])
def test_the_window_frame_names_its_action_and_object(question: str, action: str,
                                                       obj: list[str]) -> None:
    assert asked_action(question, WORDS) == action
    assert action_object(question, WORDS) == obj


@pytest.mark.parametrize("question", [
    "How long do customers have to return a product?",
    "how many days to send back an edge device",
    "How much time do customers get to return hardware?",
])
def test_the_window_of_the_asked_action_answers(state, question: str) -> None:  # noqa: ANN001
    r = retrieve(state, question, None)
    assert r.answerable
    fit = [e for e in r.claims if not e.doubtful and e.aspect is not None]
    assert fit and fit[0].claim.attribute == "return window"
    assert not any(e.claim.attribute in ("severity 1 escalation deadline", "warranty period",
                                         "refund processing time") for e in fit)
    # both tiers' windows: the question names no tier, and "customers" names the qualifier
    assert {e.claim.value for e in fit if e.claim.attribute == "return window"} >= {
        "30 days", "60 days"}


@pytest.mark.parametrize("question", [
    "How long do partners have to return a product?",   # a tier the policy does not have
])
def test_a_window_nobody_states_is_not_answered_by_another(state, question: str) -> None:  # noqa: ANN001
    r = retrieve(state, question, None)
    fit = [e for e in r.claims if not e.doubtful and e.aspect is not None]
    assert not r.answerable or not fit, [(e.claim.attribute, e.claim.value) for e in fit]


def test_a_light_verb_asks_the_window_of_its_object() -> None:
    assert asked_action("how long do I have to give notice before cancelling", WORDS) == "notice"
    assert asked_action("how many days do we have to make a claim", WORDS) == "claim"


def test_without_an_attribute_naming_the_action_the_window_is_read_from_the_rest(state) -> None:  # noqa: ANN001
    # no attribute names "refund"; the refund processing time answers, not abstention
    r = retrieve(state, "How many days do customers have to wait to get refunded?", None)
    assert r.answerable

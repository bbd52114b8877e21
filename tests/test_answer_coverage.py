"""Abstention from evidence coverage (compiler/retrieval/coverage.py, compiler/retrieval/): a
question is answered when a claim covers what it asks, not when it merely names the entity.

The corpus is invented here (a bakery chain nobody tuned on); its questions share the entity's
words with the wiki but ask attributes it does not hold, or name things it does not know."""

from __future__ import annotations


import pytest

from compiler.answers.ask import ask
from compiler.retrieval.coverage import asked_head, digits, keyword_query, unknown_names
from compiler.query import answer
from compiler.retrieval import FRAME_WORDS, STOPWORDS, retrieve
from answer_corpus import markdown_state

STOP = STOPWORDS | FRAME_WORDS

PAGES = {
    "bakehouse.md": """---
title: Millbrook Bakehouse
type: site
---

# Millbrook Bakehouse

The Millbrook Bakehouse bakes bread for every shop of the chain.

Opening hours: 04:00-12:00, Monday to Saturday
Oven count: 6
Manager: Petra Lindgren

Bread leaves the bakehouse for the shops at 05:30 every morning.
""",
    "leave.md": """---
title: Holiday Policy
type: policy
---

# Holiday Policy

Annual holiday allowance: 27 days
Carry-over limit: 5 days

Holiday requests go to the shop manager two weeks ahead.
""",
    "sourdough.md": """---
title: Sourdough Loaf
type: product
---

# Sourdough Loaf

Price: EUR 4.20
Shelf life: 3 days

The Quayside shop sells more sourdough than any other.
""",
}


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    yield from markdown_state(tmp_path_factory, "bakery", PAGES)


@pytest.mark.parametrize("question", [
    # the entity is known, the asked attribute is not: the entity's words alone scored enough
    "What is the dress code at the Millbrook Bakehouse?",
    "Who is the fire safety officer of the Millbrook Bakehouse?",
    "Which courier delivers the bread from the Millbrook Bakehouse to the shops?",
    "What is the flour supplier of the Millbrook Bakehouse?",
    "How much parental leave do employees get?",
    # a name the wiki never uses
    "What is the price of the Rye Loaf?",
    "How many ovens does the Harbourside Bakehouse have?",
    # a name the wiki knows, but not on the page of the best evidence
    "When does the Quayside shop open?",
    # a search-box query: every word but the entity's name is asked
    "millbrook bakehouse flour supplier",
    "bakehouse fire exit plan",
    # a "when" wants a date or time, the statement holds none
    "When was the Sourdough Loaf recipe changed?",
])
def test_questions_the_wiki_cannot_answer_abstain(state, question: str) -> None:  # noqa: ANN001
    assert not retrieve(state, question, None).answerable
    result = ask(state, question, None, "offline")
    assert not result.found
    assert result.text() == "The wiki has no answer to this question."
    assert answer(state, question, None).text() == "The wiki has no answer to this question."


@pytest.mark.parametrize(("question", "value"), [
    ("When does the Millbrook Bakehouse open?", "04:00-12:00"),
    ("millbrook bakehouse oven count", "6"),
    ("bakehouse opening hours", "04:00-12:00"),
    ("How many days of holiday do we get per year?", "27 days"),
    ("Who runs the bakehouse?", "Petra Lindgren"),
    ("How long do sourdough loaves last on the shelf?", "3 days"),
    ("What does the sourdough loaf cost?", "EUR 4.20"),
])
def test_questions_the_wiki_answers_are_answered(state, question: str,  # noqa: ANN001
                                                 value: str) -> None:
    result = ask(state, question, None, "offline")
    assert result.found, question
    assert value in result.text()


def test_the_asked_head_is_the_noun_phrase_after_the_question_frame() -> None:
    assert asked_head("What is the data retention period for the dashboards?", STOP) == [
        "data", "retention", "period"]
    assert asked_head("Which courier does the hub use for same-day shipments?", STOP) == [
        "courier"]
    assert asked_head("How many pallet spaces does the warehouse have?", STOP) == [
        "pallet", "spaces"]
    assert asked_head("What is the maximum discount a sales rep can give?", STOP) == [
        "maximum", "discount"]
    assert asked_head("When does the depot open?", STOP) == []


def test_unknown_names_are_capitalised_words_inside_the_question() -> None:
    known = {"millbrook", "bakehouse", "sourdough"}.__contains__

    def check(word: str) -> bool:
        return known(word.lower())

    assert unknown_names("What is the price of the Rye Loaf?", check, STOP) == ["Rye", "Loaf"]
    # the first word of a sentence, "I" and known names are not unknown names
    assert unknown_names("Hey. Does Millbrook Bakehouse sell Sourdough? I wonder.", check,
                         STOP) == []
    # a hyphenated capitalised word is judged by its first part ("Gold-tier")
    assert unknown_names("How long does a Millbrook-tier shop have?", check, STOP) == []


def test_a_query_without_a_question_word_is_a_keyword_query() -> None:
    assert keyword_query("lyon depot cold storage temperature")
    assert keyword_query("Response time for sev 2 issues?")
    assert not keyword_query("When does the depot open?")
    assert not keyword_query("Is there an allowance for a home office?")
    assert not keyword_query("Compare the response times of severity 1 and 3")


def test_number_words_read_as_digits() -> None:
    assert digits("up to three days a week") == "up to 3 days a week"
    assert digits("twelve months") == "12 months"

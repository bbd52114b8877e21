"""benchmarks/answer_bench.py's value matching: what counts as the gold value in an answer
(correctness) and in an answer to a principal who may not see it (a leak)."""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

import answer_bench  # noqa: E402


def test_a_typed_or_bare_number_matches_a_one_number_gold() -> None:
    assert answer_bench.same_value("$7,500", "7500 USD")
    assert answer_bench.same_value("30 days", "30")
    assert not answer_bench.same_value("30 days", "45")


def test_a_ratio_is_not_matched_by_one_of_its_numbers() -> None:
    # harrow h48: "3 of 24" (findings) was counted as leaked by "3 business days"
    assert not answer_bench.same_value("3 of 24", "3 business days")
    assert not answer_bench.same_value("3 of 24", "24")
    assert answer_bench.same_value("3 of 24", "3 of 24 sampled accounts")


def test_a_typed_match_needs_the_value_to_say_its_type() -> None:
    # osprey: a claim value of nine words whose first number equalled a percent gold
    assert not answer_bench.same_value("15%", "15 business days after the end of the quarter")
    assert not answer_bench.same_value("$15", "15 business days after the end of the quarter")
    assert answer_bench.same_value("15%", "15 percent")
    assert answer_bench.same_value("$15", "15 USD")
    assert answer_bench.same_value("2 years", "24 months")

"""Statement reading is memoised (compiler/schema/induce_statements.py): one sentence is read
by ``statement_rows`` three ways, by statement induction and by restate's reread, and a clean
compile of 3k records read 18k sentences 70k times. A kept reading must be the one reading the
sentence again gives, and a caller may not change what the next caller gets."""

from __future__ import annotations

from compiler.schema import induce_statements as st

SENTENCES = [
    "Tests stay available offline for up to 72 hours.",
    "The offline window in Assess is 48 hours, after which cached tests are wiped.",
    "Page the on-call after 10 minutes instead of 30 minutes.",
    "Refunds drop to 15% rather than the usual 20%; fees are $9.50 per gallon.",
    "We start renewals 30 days before the auth expires, and the payer takes up to 25 days.",
    "If no one is home, the courier makes 2 delivery attempts.",
    "Is the window 48 hours?",
    "The rate went down from $12 a month, replacing the Q3 2026 price.",
    "Take a reading every 5 minutes and keep the last 30 days.",
    "Nothing here holds a value at all.",
]


def test_memoised_readings_equal_fresh_ones() -> None:
    st._found.cache_clear()
    st._statement_clauses.cache_clear()
    for text in SENTENCES:
        for _ in range(2):  # the second read comes from the memo
            assert st._found(text) == st._found.__wrapped__(text)
            assert st.statement_clauses(text) == list(st._statement_clauses.__wrapped__(text))
            assert st.replaced_values(text) == {v.lower() for _, _, v, gone
                                                in st._found.__wrapped__(text) if gone}
    assert st.replaced_values(SENTENCES[2]) == {"30 minutes"}
    assert st.replaced_values(SENTENCES[0]) == set()


def test_a_sentence_is_read_once_per_process() -> None:
    claims = [{"kind": "statement", "value": text} for text in SENTENCES]
    for memo in (st._found, st._statement_clauses, st._kind_of_sentence):
        memo.cache_clear()
    st.statement_rows(claims)
    first = st._found.cache_info()
    st.statement_rows(claims)  # induction and reread read the same sentences again
    again = st._found.cache_info()
    assert first.misses > 0 and first.hits > 0  # read three ways, scanned once
    assert again.misses == first.misses  # and none again


def test_a_caller_changing_its_clauses_leaves_the_next_callers() -> None:
    text = SENTENCES[4]
    got = st.statement_clauses(text)
    want = list(got)
    got.clear()
    assert st.statement_clauses(text) == want and want

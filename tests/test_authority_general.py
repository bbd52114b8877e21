"""General rules that decide whether two sources' sentences become comparable claims, tested
with phrasings of our own (no benchmark corpus's words): a count or an amount that bounds a
class is no value, a count counts its own thing, a reference names an entity, a rule's time
limit in its condition is stated, a price per the thing it is of is a flat price, and two facts
sharing a few words through a third sentence are not chained into one."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path


from compiler.build import compile_wiki, wiki_state
from compiler.export import export_claims
from compiler.lint import lint

from compiler.extract.phrases import vocabulary
from compiler.extract.prose import sentence_hits
from compiler.schema.induce_statements import induce_statements, statement_clauses, statement_values
from compiler.schema.index import vocabulary as schema_vocabulary
from compiler.schema.induction import Induction, RecordFields
from compiler.schema.loader import base_schema
from tests.test_statement_facts import _corpus  # one small markdown corpus of (title, type, body)


def _hits(text: str, entity_type: str) -> list[tuple[str, str]]:
    return [(h.ref.name, h.value) for h in sentence_hits(vocabulary(base_schema()), text, entity_type)]


def test_a_bound_or_a_range_of_a_count_describes_a_class_not_a_count() -> None:
    assert _hits("Vendors with more than 200 employees are audited every year.", "account") == []
    assert _hits("The plan suits studios of 12 to 900 employees.", "account") == []
    assert _hits("Members with revenue over $40 million get a named adviser.", "account") == []
    # the plain statements of one company's figures still are
    assert _hits("The clinic has 85 employees.", "account") == [("employees", "85")]
    assert _hits("Annual revenue is $12 million.", "account") == [("annual revenue", "$12 million")]


def test_a_count_is_its_attributes_only_when_it_counts_that_thing() -> None:
    # "employees" is named, but 6 counts lockers and "one" counts a shift
    assert _hits("Employees may rent up to 6 lockers at the depot.", "account") == []
    assert _hits("Employees were sent home one shift early.", "account") == []
    # a day of a date is no count
    assert _hits("Employees get their tax forms by March 14.", "account") == []
    assert _hits("Vantor Ltd, 430 employees across 9 sites.", "account") == [("employees", "430")]


def test_a_reference_in_prose_is_a_name() -> None:
    # "account" is a reference: a clock time, a date or a state is no account
    assert _hits("Wire the deposit to our escrow account by 09:15 on Monday.", "ticket") == []
    assert _hits("The portal says my account is suspended.", "ticket") == []
    assert _hits("Account: Vantor Ltd", "ticket") == [("account", "Vantor Ltd")]


def test_a_rules_time_limit_in_its_condition_is_stated() -> None:
    got = statement_clauses("If no reply comes within 30 minutes, call the duty manager.")
    assert [v for _, v in got] == [("duration", "minute", "30 minutes")]
    got = statement_clauses("If the lab has no sample 10 days before the audit, warn the auditor.")
    assert [v for _, v in got] == [("duration", "day", "10 days")]
    # a supposed value states nothing
    assert statement_clauses("If the surcharge is 20%, we decline the order.") == []
    assert statement_clauses("If delivery takes 3 days, the courier phones ahead.") == []


def test_a_price_per_the_thing_it_is_of_is_a_flat_price() -> None:
    assert statement_values("A rush rebuild is billed at $400 per rebuild.") == [("money", "", "$400")]
    assert statement_values("Diesel is charged at $3.10 per litre.") == [("money", "litre", "$3.10")]
    # a second rate of the same unit is still per that unit
    assert statement_values("Parking is $6 per hour, or $9 per hour after dark.") == []


def _record(entity: str, *sentences: str) -> RecordFields:
    return RecordFields("confluence", "wiki", "page", entity.split("/")[0], entity, (), (),
                        tuple(sentences))


def test_two_facts_sharing_words_through_a_third_sentence_stay_two() -> None:
    # a reminder 30 days before a permit lapses and an escalation 14 days before it: one
    # reminder sentence shares three words with one escalation sentence (permit, lapse,
    # team), so joining every linked pair would chain the two facts into one
    records = [
        _record("policy/permit-policy",
                "The clerk mails each contractor a written permit reminder notice at least "
                "30 days before the lapse date."),
        _record("topic/ops-meeting",
                "Permit reminder notices: the team agreed to mail them 21 days before the "
                "permit lapse so the notice can list the fees."),
        _record("process/permit-runbook",
                "If no inspector booking is confirmed 14 days before the permit lapse, the "
                "site supervisor escalates to the regional inspector lead and tells the team."),
        _record("topic/lapse-review",
                "Escalate any permit without a confirmed inspector booking 10 days before the "
                "lapse to the regional inspector lead."),
    ]
    out = Induction()
    induce_statements(records, schema_vocabulary(base_schema()), out)
    names = sorted(name for _, name in out.attributes)
    assert len(names) == 2, names


# -- end to end: a sentence read as one fact still states its other value -----------------


def test_a_fact_sentences_other_value_meets_the_same_fact_elsewhere(tmp_path: Path) -> None:
    docs = {
        "Member Expense Handbook": ("policy", "Members may resubmit a rejected expense claim "
                                   "within 45 days after the appeal closes."),
        "Appeal by Calder Mills": ("ticket", "Per the expense handbook they have 30 days "
                                   "after the appeal closes to resubmit the rejected "
                                   "expense claim, so the due date is 2026-12-01."),
    }
    wiki = tmp_path / "wiki"
    compile_wiki(_corpus(tmp_path, docs), wiki, today="2026-11-21")
    state = wiki_state(wiki)
    try:
        claims = {c["claim_id"]: c for c in map(json.loads, export_claims(state))}
        found = [f for f in lint(state, wiki, datetime.now(UTC)).findings
                 if f.code == "open-contradiction"]
    finally:
        state.close()
    # the ticket's date is still its due date ...
    assert any(c["attribute"] == "due date" and c["value"] == "2026-12-01" for c in claims.values())
    # ... and its 30 days contradicts the handbook's 45 (equal rank: contested)
    (f,) = found
    assert sorted(claims[i]["value"] for i in f.claims) == ["30 days", "45 days"]
    assert {claims[i]["status"] for i in f.claims} == {"contested"}

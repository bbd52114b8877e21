"""A fact a high-rank policy states in one sentence and a low-rank note or ticket comment states
in a sentence of its own meets on one induced attribute, so authority settles it
(compiler/schema/induce_statements.py): the comment's sentence may hold a second value in a
coordinated clause ("…, and the payer now takes up to 25 days"), a condition may lead the
clause stating the value ("If no one is home, …"), and a word of the policy's own title
("assistance" of a "Patient Assistance Policy") is the fact's word, not a name."""

from __future__ import annotations

from pathlib import Path

import yaml

from compiler.build import compile_wiki
from compiler.schema import base_schema
from compiler.schema.induce import induce
from compiler.schema.induce_statements import statement_clauses
from tests.test_statement_facts import _claims, _contradictions, said, stated

RENEWAL_POLICY = ("Renewals are started 45 days before the current authorization expires so "
                  "that no patient misses a fill while the payer reviews it.")
RENEWAL_COMMENT = ("We start renewals 30 days before the auth expires, and the payer is now "
                   "taking up to 25 days on some of them, so there is almost no slack left.")
COPAY_POLICY = ("Commercially insured patients can receive copay assistance of up to $7,500 per "
                "calendar year, applied after any manufacturer copay card.")
COPAY_NOTE = ("Patient Access: a reminder that copay assistance tops out at $6,000 a year per "
              "patient, so counselors should start foundation referrals early.")


def test_each_coordinated_clause_states_its_own_value() -> None:
    got = [(part, value[2]) for part, value in statement_clauses(RENEWAL_COMMENT)]
    assert got == [("We start renewals 30 days before the auth expires", "30 days"),
                   ("the payer is now taking up to 25 days on some of them", "25 days")]
    assert [v[2] for _, v in statement_clauses(
        "If no one is home, the courier makes a second try within 2 days.")] == ["2 days"]
    assert statement_clauses("If the fee is 20%, the order is held.") == []
    # a clause without a subject of its own holds too few words to say which fact it states,
    # but each verb's clause holds its own value
    assert [v[2] for _, v in statement_clauses(
        "Our data loggers take a reading every 5 minutes and keep the last 30 days of "
        "readings.")] == ["5 minutes", "30 days"]


def test_a_count_of_a_thing_is_a_value_where_no_typed_value_is() -> None:
    (_, got), = statement_clauses("The courier makes 3 delivery attempts before the package "
                                  "comes back to the pharmacy.")
    assert got == ("number", "attempt", "3 delivery attempts")
    (_, got), = statement_clauses("Personal conveyance is capped at 25 miles a day.")
    assert got[:2] == ("number", "mile")
    assert statement_clauses("In 2026 we moved 12 sites.")[0][1][2] == "12 sites"
    assert statement_clauses("Refunds above $10,000 for 3 orders need sign-off.")[0][1][0] == "money"


def test_a_comment_clause_and_a_policy_sentence_are_one_fact() -> None:
    ind = induce(base_schema(), [said("policy/prior-authorization-policy", RENEWAL_POLICY),
                                 said("ticket/pa-88", RENEWAL_COMMENT, system="jira")])
    (key, spec), = stated(ind).items()
    assert spec.type == "duration" and spec.unit == "days"
    assert spec.home == "prior-authorization-policy"


def test_a_word_of_a_documents_title_is_the_facts_word() -> None:
    ind = induce(base_schema(), [said("policy/patient-assistance-policy", COPAY_POLICY),
                                 said("topic/ops-meeting", COPAY_NOTE)])
    (key, spec), = stated(ind).items()
    assert spec.type == "money" and spec.home == "patient-assistance-policy"


ATTEMPTS_RUNBOOK = ("Specialty deliveries always need a signature. The courier makes 3 delivery "
                    "attempts before the package comes back to the pharmacy; after each failed "
                    "attempt the courier leaves a door tag.")
ATTEMPTS_FAQ = ("Your medication needs a signature. If no one is home, the courier makes 2 "
                "delivery attempts and then returns the package to the pharmacy, and we call "
                "you to reschedule.")


def test_equal_rank_counts_one_behind_a_condition_are_contested(tmp_path: Path) -> None:
    from tests.test_statement_facts import _corpus as one_source

    wiki = tmp_path / "wiki"
    compile_wiki(one_source(tmp_path, {"Delivery Runbook": ("process", ATTEMPTS_RUNBOOK),
                                       "Patient App": ("product", ATTEMPTS_FAQ)}),
                 wiki, today="2026-11-21")
    (found,) = _contradictions(wiki)
    by_id = {c["claim_id"]: c for c in _claims(wiki)}
    assert found.code == "open-contradiction"
    assert sorted(by_id[i]["value"] for i in found.claims) == ["2 delivery attempts",
                                                               "3 delivery attempts"]
    assert {by_id[i]["status"] for i in found.claims} == {"contested"}


def _corpus(root: Path) -> Path:
    corpus = root / "corpus"
    docs = {"policies": {"Patient Assistance Policy": ("policy", COPAY_POLICY),
                         "Prior Authorization Policy": ("policy", RENEWAL_POLICY)},
            "notes": {"Ops Meeting": ("topic", COPAY_NOTE),
                      "Intake Thread": ("topic", RENEWAL_COMMENT)}}
    for folder, pages in docs.items():
        (corpus / folder).mkdir(parents=True)
        for name, (etype, body) in pages.items():
            (corpus / folder / f"{name}.md").write_text(
                f"---\ntitle: {name}\ntype: {etype}\n---\n\n# {name}\n\n{body}\n")
    (corpus / "sources.yaml").write_text(yaml.safe_dump({"tenant": "t", "sources": [
        {"path": f, "system": "markdown", "instance": f, "default_acl": {"public": True}}
        for f in docs]}))
    (corpus / "authority.yaml").write_text(yaml.safe_dump({
        "version": 1, "default": {"name": "unranked", "rank": 10},
        "rules": [{"name": "policy", "rank": 100, "match": {"instance": "policies"}},
                  {"name": "notes", "rank": 30, "match": {"instance": "notes"}}]}))
    return corpus


def test_the_policy_outranks_the_notes_on_each_fact(tmp_path: Path) -> None:
    wiki = tmp_path / "wiki"
    compile_wiki(_corpus(tmp_path), wiki, today="2026-11-21")
    facts = [c for c in _claims(wiki) if c["kind"] == "fact" and c.get("induced")]
    got = {(c["subject"], c["value"], c["status"]) for c in facts}
    assert ("policy/patient-assistance-policy", "$7,500", "winner") in got
    assert ("policy/patient-assistance-policy", "$6,000", "overruled") in got
    assert ("policy/prior-authorization-policy", "45 days", "winner") in got
    assert ("policy/prior-authorization-policy", "30 days", "overruled") in got
    assert _contradictions(wiki) == []


def test_rates_sharing_only_their_per_unit_are_not_one_fact() -> None:
    ind = induce(base_schema(), [
        said("policy/fuel-surcharge-policy", "Reefer unit fuel is billed on its own line at a "
             "flat $0.04 per loaded mile on temperature-controlled loads."),
        said("topic/pricing-committee", "Floor for spot reefer quotes: $2.85 per loaded mile "
             "on lanes under 500 miles.")])
    assert stated(ind) == {}


def _reference(value: str) -> "RawClaim":
    from compiler.extract.base import RawClaim

    return RawClaim(attribute="customer", value=value, kind="reference", quote=value)


def _statement(text: str) -> "RawClaim":
    from compiler.extract.base import RawClaim

    return RawClaim(attribute="statement", value=text, kind="statement", quote=text,
                    span=(0, len(text)))


def test_a_tickets_sentence_states_an_attribute_of_the_customer_it_refers_to() -> None:
    from compiler.extract.restate import reread

    def named(text: str) -> list:
        at = text.find("Harbor Mutual")
        return [(at, at + len("Harbor Mutual"), "account")] if at >= 0 else []

    ends = _statement("FYI their network contract ends March 31, 2027, so I will raise renewal "
                      "turnaround in the contract talks.")
    ref = _reference("Harbor Mutual")
    got = reread([ref, ends], "ticket", base_schema(), named)[1]
    assert (got.kind, got.attribute, got.value, got.subject_type) == (
        "fact", "renewal date", "March 31, 2027", "account")
    # without the reference, or saying only one of the attribute's words, it stays a statement
    assert reread([ends], "ticket", base_schema(), named)[0].kind == "statement"
    once = _statement("The renewal call moved to June 3, 2027.")
    assert reread([ref, once], "ticket", base_schema(), named)[1].kind == "statement"

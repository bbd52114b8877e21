"""A count compounded with the thing it counts ("runs a 660-bed facility") states that
thing's count of its named subject, with no word of the attribute's name in the sentence;
sizes and times stay what they were."""

from __future__ import annotations

import pytest

from compiler.extract.shapes import shape
from compiler.schema import base_schema
from compiler.schema.induce import RecordFields, induce, prose_fact
from compiler.text import normalize_attribute


def test_a_counted_compound_states_the_count_of_its_named_subject() -> None:
    got = shape("Harbourview Clinics Ltd runs a 660-bed facility.")
    assert got is not None
    subject, attribute, value = got
    assert value == "660"
    assert prose_fact(normalize_attribute(attribute), subject) == ("bed count",
                                                                   "harbourview-clinics-ltd")


def test_a_named_subject_operating_a_number_of_things_states_their_count() -> None:
    got = shape("Brightwater Regional Hospital operates 210 beds.")
    assert got is not None
    subject, attribute, value = got
    assert value == "210"
    assert prose_fact(normalize_attribute(attribute), subject) == (
        "bed count", "brightwater-regional-hospital")


@pytest.mark.parametrize("sentence", [
    "It operates 210 beds.",
    "Brightwater Regional Hospital runs 3 shifts of 8 hours.",
    "Brightwater Regional Hospital operates 24 hours.",
    "It runs a 660-bed facility.",                  # no named subject
    "Nordwind ships a 40-foot container.",          # a size, not a count
    "Acme has a 12-person team.",                   # people are not a thing's count
    "We need pumps for every bed.",
])
def test_sizes_pronouns_and_prose_stay_out(sentence: str) -> None:
    assert shape(sentence) is None


def test_a_fact_of_a_company_named_with_its_legal_suffix_is_the_account_s() -> None:
    account = RecordFields("salesforce", "s", "Account", "account", "account/harbourview-clinics",
                           (("Name", "Harbourview Clinics"),))
    tickets = [RecordFields("zendesk", "z", "ticket", "ticket", f"ticket/t{i}", (),
                            (("bed count", v, "harbourview-clinics-ltd"),))
               for i, v in enumerate(("660", "740"))]
    ind = induce(base_schema(), [account, *tickets])
    assert [p.entity_types for p in ind.phrases] == [("account",)]

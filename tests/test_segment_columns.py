"""Policy facts a company states per customer segment in shapes no phrase of the schema names:
a table whose rows are its segments (compiler/schema/induce.py ``_induce_segment_rows``), a
list item led by a segment under a heading (compiler/extract/restate.py ``_segment_item``), a
narrowed attribute named by a heading or said unhyphenated (compiler/schema/narrow.py), and
one fact stated under several names by several records."""

from __future__ import annotations

from compiler.extract.base import RawClaim
from compiler.extract.restate import reread
from compiler.schema import base_schema
from compiler.schema.induce import Induction, apply, induce
from compiler.schema.induction import SEGMENT_ROW_MARK, RecordFields
from compiler.schema.model import Attribute
from compiler.schema.narrow import NARROW_MARK, narrowed_rows
from test_induce import crm

SEGMENTS = {"contract tier": {"Gold": ("gold",), "Silver": ("silver",), "Bronze": ("bronze",)}}


def _none(text: str) -> list:
    return []


def _policy(*facts: tuple[str, str, str], entity: str = "policy/field-service-policy"
            ) -> RecordFields:
    return RecordFields("confluence", "wiki-1", "page", "policy", entity, (), tuple(facts))


def _row(column: str, label: str, value: str) -> tuple[str, str, str]:
    return (f"{column} for {label.lower()}", value, "")


def test_a_column_whose_rows_are_the_segments_is_an_attribute_qualified_by_the_segment() -> None:
    table = _policy(_row("engineer on site", "Gold", "8 hours"),
                    _row("engineer on site", "Silver", "12 hours"),
                    _row("engineer on site", "Bronze", "2 days"),
                    _row("escalation contact", "Gold", "Dana Whitfield"),
                    _row("escalation contact", "Silver", "Lee Park"))
    ind = induce(base_schema(), [*crm(), table])
    (segment,) = ind.qualifiers
    spec = ind.attributes[("policy", "engineer on site")]
    assert (spec.type, spec.unit, spec.qualifiers, spec.description) == (
        "duration", "hours", (segment,), SEGMENT_ROW_MARK)
    # free text per segment is no measure to compare
    assert ("policy", "escalation contact") not in ind.attributes


def test_a_column_with_one_segment_row_or_rows_that_are_no_segment_is_not_induced() -> None:
    one = _policy(_row("engineer on site", "Gold", "8 hours"))
    other = _policy(_row("engineer on site", "Berlin", "8 hours"),
                    _row("engineer on site", "Paris", "6 hours"),
                    entity="policy/other")
    ind = induce(base_schema(), [*crm(), one, other])
    assert ("policy", "engineer on site") not in ind.attributes


def _with_column(schema=None):
    schema = schema or apply(base_schema(), Induction(qualifiers=SEGMENTS))
    policy = schema.types["policy"]
    attrs = dict(policy.attributes)
    attrs["engineer on site"] = Attribute(type="duration", unit="hours",
                                          qualifiers=("contract tier",), induced=True,
                                          description=SEGMENT_ROW_MARK)
    attrs["loaner delivery"] = Attribute(type="duration", unit="days",
                                         qualifiers=("contract tier",), induced=True,
                                         description=SEGMENT_ROW_MARK)
    types = dict(schema.types)
    types["policy"] = policy.model_copy(update={"attributes": attrs})
    return schema.model_copy(update={"types": types})


def _statement(text: str) -> RawClaim:
    return RawClaim(attribute="statement", value=text, kind="statement", quote=text)


def test_a_segment_row_and_a_sentence_saying_the_column_for_one_segment_meet() -> None:
    schema = _with_column()
    row = RawClaim(attribute="engineer on site for gold", value="8 hours", kind="fact",
                   quote="Service plan: Gold; Engineer on site: 8 hours.", subject_phrase="Gold")
    (got,) = reread([row], "policy", schema, _none)
    assert (got.attribute, got.value, dict(got.qualifiers), got.mapped) == (
        "engineer on site", "8 hours", {"contract tier": "Gold"}, True)
    text = "Our rep said the policy gives Gold customers an engineer on site within 36 hours."
    (said,) = reread([_statement(text)], "policy", schema, _none)
    assert (said.attribute, said.value, dict(said.qualifiers)) == (
        "engineer on site", "36 hours", {"contract tier": "Gold"})


def test_a_column_name_is_stated_only_by_a_sentence_saying_all_its_words() -> None:
    # "delivery" alone is no "loaner delivery": the return window the sentence shares
    # "return" with is the one attribute it states
    text = "Returns from Gold customers are accepted up to 45 days after delivery."
    (got,) = reread([_statement(text)], "policy", _with_column(), _none)
    assert (got.attribute, got.value, dict(got.qualifiers)) == (
        "return window", "45 days", {"contract tier": "Gold"})


def test_a_statement_item_led_by_a_segment_under_a_heading_no_phrase_names() -> None:
    schema = apply(base_schema(), Induction(qualifiers=SEGMENTS))
    body = "Intro.\n## Return authorisation period\n- Silver: 90 days\n- Gold plan — 60 days\n" \
           "- Bronze customers: 45 days\n"
    gold = body.index("Gold plan")
    bronze = body.index("Bronze")
    raws = [RawClaim(attribute="statement", value="Gold plan — 60 days", kind="statement",
                     quote="Gold plan — 60 days", span=(gold, gold + 19)),
            RawClaim(attribute="bronze customers", value="45 days", kind="fact",
                     quote="Bronze customers: 45 days", span=(bronze, bronze + 25),
                     subject_phrase="Bronze customers")]
    got = reread(raws, "policy", schema, _none, body)
    assert [(c.attribute, c.value, dict(c.qualifiers)) for c in got] == [
        ("return window", "60 days", {"contract tier": "Gold"}),
        ("return window", "45 days", {"contract tier": "Bronze"})]
    # a heading sharing no word with a segment-varying attribute names none
    other = body.replace("Return authorisation period", "Loaner turnaround")
    got = reread(raws, "policy", schema, _none, other)
    assert [c.kind for c in got] == ["statement", "fact"] and not got[1].mapped


def test_a_heading_above_a_list_item_narrows_its_attribute_for_induction() -> None:
    body = "Intro.\n## On-site response time\n- Gold: 8 hours\n"
    start = body.index("Gold")
    facts = [{"kind": "fact", "mapped": True, "attribute": "response time",
              "quote": "Gold: 8 hours", "span": [start, start + 13]}]
    assert narrowed_rows(facts, body) == [("on-site response time", "response time")]
    assert narrowed_rows(facts) == []  # the item alone names no modifier


def _narrowed_schema():
    schema = apply(base_schema(), Induction(qualifiers=SEGMENTS))
    policy = schema.types["policy"]
    attrs = dict(policy.attributes)
    attrs["on-site response time"] = attrs["response time"].model_copy(update={
        "induced": True, "phrases": (), "description": NARROW_MARK})
    types = dict(schema.types)
    types["policy"] = policy.model_copy(update={"attributes": attrs})
    return schema.model_copy(update={"types": types})


def test_a_sentence_saying_the_narrowing_modifier_unhyphenated_states_the_narrow_attribute(
        ) -> None:
    schema = _narrowed_schema()
    text = "For Gold customers a field engineer is on site within 12 hours."
    fact = RawClaim(attribute="gold customers a field engineer", value="on site within 12 hours",
                    kind="fact", quote=text, subject_phrase="For Gold customers a field engineer")
    for raw in (_statement(text), fact):
        (got,) = reread([raw], "policy", schema, _none)
        assert (got.attribute, got.value, dict(got.qualifiers)) == (
            "on-site response time", "12 hours", {"contract tier": "Gold"}), raw
    # "site" alone is not "on site"
    (kept,) = reread([_statement("We visit Gold customer sites within 12 hours.")], "policy",
                     schema, _none)
    assert kept.attribute != "on-site response time"


def _product(entity: str, *facts: tuple[str, str, str]) -> RecordFields:
    return RecordFields("confluence", "wiki-1", "page", "product", f"product/{entity}", (),
                        tuple(facts))


def test_one_fact_stated_once_each_under_joined_names_by_several_records_is_induced() -> None:
    records = [_product("kora", ("battery life", "eight hours", "")),
               _product("lumen", ("runtime on battery", "10 hours", "")),
               _product("vela", ("battery runtime", "14 hours", ""))]
    ind = induce(base_schema(), records)
    names = {a for (t, a) in ind.attributes if t == "product"}
    assert len(names) == 1 and names <= {"battery life", "runtime on battery",
                                         "battery runtime"}, names
    (name,) = names
    assert set(ind.attributes[("product", name)].phrases) == {
        "battery life", "runtime on battery", "battery runtime"} - {name}
    # one record alone is not enough, nor two names that only share a word
    assert not {a for (t, a) in induce(base_schema(), records[:1]).attributes if t == "product"}
    two = [_product("kora", ("units affected", "12", "")),
           _product("lumen", ("users affected", "40", ""))]
    assert not {a for (t, a) in induce(base_schema(), two).attributes if t == "product"}


def test_on_a_full_charge_says_battery() -> None:
    schema = base_schema()
    product = schema.types["product"]
    attrs = dict(product.attributes)
    attrs["battery runtime"] = Attribute(type="duration", unit="hours", induced=True)
    types = dict(schema.types)
    types["product"] = product.model_copy(update={"attributes": attrs})
    schema = schema.model_copy(update={"types": types})
    (got,) = reread([_statement("On a full charge the pump lasts 8 hours.")], "product",
                    schema, _none)
    assert (got.attribute, got.value) == ("battery runtime", "8 hours")


def test_a_value_in_words_between_thirteen_and_nineteen_is_a_value() -> None:
    text = "The ventilator must be recalibrated every fifteen months."
    (got,) = reread([_statement(text)], "product", base_schema(), _none)
    assert (got.attribute, got.value) == ("calibration interval", "fifteen months")


def _site(entity: str, *facts: tuple[str, str, str]) -> RecordFields:
    return RecordFields("markdown", "handbook", "doc", "site", f"site/{entity}", (), tuple(facts))


def test_two_names_of_one_count_that_sources_disagree_on_closely_are_one_attribute() -> None:
    # every entity both names are stated of disagrees, but by less than half: one count
    # that sources dispute, which authority must decide
    records = [_site("rotterdam", ("pallet positions", "7,600", "")),
               _site("rotterdam-note", ("pallet capacity", "8,300", "rotterdam")),
               _site("singapore", ("pallet capacity", "4,800", "")),
               _site("singapore-note", ("pallet positions", "5,200", "singapore"))]
    records = [RecordFields(r.system, "bulletin" if "-note" in r.entity else r.instance,
                            r.record_type, r.entity_type, r.entity.replace("-note", ""),
                            r.fields, r.facts) for r in records]
    ind = induce(base_schema(), records)
    names = {a for (t, a) in ind.attributes if t == "site"}
    assert len(names) == 1, names
    # far apart (a count of beds beside a count of wards), they stay two attributes
    far = [RecordFields(r.system, r.instance, r.record_type, r.entity_type, r.entity, r.fields,
                        tuple((n, "40" if n == "pallet capacity" else v, a) for n, v, a in r.facts))
           for r in records]
    assert len({a for (t, a) in induce(base_schema(), far).attributes if t == "site"}) == 2


def test_emphasis_marks_inside_a_value_do_not_hide_it() -> None:
    schema = apply(base_schema(), Induction(qualifiers=SEGMENTS))
    text = "Per the policy, Gold customers have a *75-*day return window."
    (got,) = reread([_statement(text)], "policy", schema, _none)
    assert (got.attribute, got.value, dict(got.qualifiers)) == (
        "return window", "75-day", {"contract tier": "Gold"})


def test_a_segment_columns_rows_are_no_prose_names_of_their_own() -> None:
    # "on-site response for gold" is the column's Gold row, not an attribute a sentence
    # naming Gold could state
    tables = [_policy(_row("on-site response", "Gold", "8 hours"),
                      _row("on-site response", "Silver", "12 hours"), entity=f"policy/p{i}")
              for i in range(2)]
    ind = induce(base_schema(), [*crm(), *tables])
    assert {a for (t, a) in ind.attributes if t == "policy"} == {"on-site response"}


def test_a_column_named_with_a_compound_modifier_is_stated_by_a_sentence_saying_it() -> None:
    schema = _with_column()
    policy = schema.types["policy"]
    attrs = dict(policy.attributes)
    attrs["on-site response"] = attrs.pop("engineer on site")
    types = dict(schema.types)
    types["policy"] = policy.model_copy(update={"attributes": attrs})
    schema = schema.model_copy(update={"types": types})
    text = "Our rep said the policy gives Gold customers an engineer on site within 24 hours."
    (got,) = reread([_statement(text)], "policy", schema, _none)
    assert (got.attribute, got.value, dict(got.qualifiers)) == (
        "on-site response", "24 hours", {"contract tier": "Gold"})
    (kept,) = reread([_statement("Gold customers get a response within 24 hours.")], "policy",
                     schema, _none)
    assert kept.attribute != "on-site response"


def test_a_column_naming_a_narrowed_attribute_less_fully_states_that_attribute() -> None:
    # a ticket's "the on-site response time for Gold customers" narrows `response time`; the
    # policy table's column "On-site response" is that attribute, not one of its own
    ticket = RecordFields("zendesk", "desk-1", "ticket", "ticket", "ticket/t1", (), (),
                          narrowed=(("on-site response time", "response time"),))
    table = _policy(_row("on-site response", "Gold", "8 hours"),
                    _row("on-site response", "Silver", "12 hours"))
    ind = induce(base_schema(), [*crm(), table, ticket])
    policy = {a: s for (t, a), s in ind.attributes.items() if t == "policy"}
    assert set(policy) == {"on-site response time"}
    assert "on-site response" in policy["on-site response time"].phrases
    schema = apply(base_schema(), ind)
    (segment,) = ind.qualifiers
    row = RawClaim(attribute="on-site response for gold", value="8 hours", kind="fact",
                   quote="Service plan: Gold; On-site response: 8 hours.", subject_phrase="Gold")
    (got,) = reread([row], "policy", schema, _none)
    assert (got.attribute, got.value, dict(got.qualifiers)) == (
        "on-site response time", "8 hours", {segment: "Gold"})


def test_a_column_saying_a_narrowed_names_modifier_states_that_attribute() -> None:
    ticket = RecordFields("zendesk", "desk-1", "ticket", "ticket", "ticket/t1", (), (),
                          narrowed=(("on-site response time", "response time"),))
    table = _policy(_row("engineer on site", "Gold", "8 hours"),
                    _row("engineer on site", "Silver", "12 hours"))
    ind = induce(base_schema(), [*crm(), table, ticket])
    policy = {a: s for (t, a), s in ind.attributes.items() if t == "policy"}
    assert set(policy) == {"on-site response time"}
    assert "engineer on site" in policy["on-site response time"].phrases

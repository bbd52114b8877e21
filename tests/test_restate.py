"""Prose read again at link time against what schema induction added
(compiler/extract/restate.py): customer-segment qualifiers induced from CRM fields, and
statements that state a typed attribute by one of its content words."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from compiler.build import compile_wiki
from compiler.extract.base import RawClaim
from compiler.extract.restate import reread
from compiler.schema import base_schema
from compiler.schema.induce import Induction, apply, induce
from compiler.schema.model import Attribute
from test_induce import claims, crm, rf

SEGMENTS = {"contract tier": {"Gold": ("gold",), "Silver": ("silver",), "Bronze": ("bronze",)}}


def _schema():
    return apply(base_schema(), Induction(qualifiers=SEGMENTS))


def _none(text: str) -> list:
    return []


def test_an_enum_two_systems_agree_on_for_accounts_is_a_customer_segment_qualifier() -> None:
    ind = induce(base_schema(), crm())
    assert len(ind.qualifiers) == 1, ind.qualifiers
    (name, values), = ind.qualifiers.items()
    assert set(values) == {"Gold", "Silver", "Bronze"}
    assert "gold" in values["Gold"]
    # it survives the round trip through the state, and the merged schema declares it
    assert Induction.from_json(ind.to_json()).qualifiers == ind.qualifiers
    assert name in apply(base_schema(), ind).qualifiers


def test_values_the_schema_already_qualifies_with_are_not_a_new_segment() -> None:
    tiers = {"Alder Works": "enterprise", "Birch Labs": "standard", "Cedar Health": "enterprise",
             "Dunmore Freight": "standard", "Elm Pharma": "standard"}
    records = []
    for name, tier in tiers.items():
        e = name.split()[0].lower()
        records.append(rf("salesforce", "Account", e, Segment_Code__c=tier.title()))
        records.append(rf("hubspot", "company", e, segment_code=tier))
    assert induce(base_schema(), records).qualifiers == {}


def test_a_fact_gains_the_induced_segment_its_sentence_names() -> None:
    raw = RawClaim(attribute="return window", value="75 days", kind="fact",
                   quote="the RMA window for Gold customers is 75 days",
                   subject_phrase="the RMA window for Gold customers is 75 days", mapped=True,
                   subject_type="policy")
    (got,) = reread([raw], "ticket", _schema(), _none)
    assert dict(got.qualifiers) == {"contract tier": "Gold"}
    # without the induced qualifier the fact is left as it was
    (same,) = reread([raw], "ticket", base_schema(), _none)
    assert same == raw


def test_a_base_qualifier_read_from_a_segment_word_is_that_segment() -> None:
    schema = apply(base_schema(), Induction(qualifiers={
        "contract tier": {"Gold": ("gold",), "Basic": ("basic",)}}))
    raw = RawClaim(attribute="response time", value="48 hours", kind="fact",
                   quote="Basic: 48 hours", subject_phrase="Basic: 48 hours", mapped=True,
                   qualifiers=(("customer tier", "Starter"),), subject_type="policy")
    (got,) = reread([raw], "policy", schema, _none)
    assert dict(got.qualifiers) == {"contract tier": "Basic"}


def _statement(text: str) -> RawClaim:
    return RawClaim(attribute="statement", value=text, kind="statement", quote=text,
                    span=(0, len(text)))


def test_a_statement_sharing_a_word_with_one_typed_attribute_states_it() -> None:
    (got,) = reread([_statement("Returns from Gold customers are accepted up to 60 days after "
                                "delivery.")], "policy", _schema(), _none)
    assert (got.kind, got.attribute, got.value, got.mapped) == ("fact", "return window",
                                                               "60 days", True)
    assert dict(got.qualifiers) == {"contract tier": "Gold"}


def test_a_statement_about_a_named_entity_reads_that_entity_types_attributes() -> None:
    text = "Singapore Hub holds up to 8,900 pallets."
    schema = base_schema()
    schema = schema.model_copy(update={"types": {**schema.types, "site": schema.types[
        "product"].model_copy(update={"attributes": {
            "pallet capacity": schema.types["account"].attributes["employees"]}})}})
    named = lambda t: [(0, 13, "site")]  # noqa: E731
    (got,) = reread([_statement(text)], "topic", schema, named)
    assert (got.kind, got.attribute, got.value, got.subject_type) == (
        "fact", "pallet capacity", "8,900", "site")


def test_statements_that_do_not_say_one_typed_value_of_one_attribute_stay_statements() -> None:
    texts = ["Is the return window 60 days?",                      # a question
             "Returns are inspected in the Rotterdam hub.",         # no value
             "Returns from Gold customers take 60 days or 90 days.",  # two values
             "Three engineers visited on 12 May."]                  # no attribute word
    got = reread([_statement(t) for t in texts], "policy", _schema(), _none)
    assert [c.kind for c in got] == ["statement"] * len(texts)


# -- end to end ------------------------------------------------------------------------------
def _corpus(root: Path) -> Path:
    from test_induce import write_corpus

    write_corpus(root)
    for folder, title, body in (
            ("policies", "Returns Policy",
             "Returns from Gold customers are accepted up to 60 days after delivery."),
            ("notes", "Desk Notes",
             "Per the Returns Policy, the return window for Gold customers is 75 days.")):
        (root / folder).mkdir()
        (root / folder / "doc.md").write_text(
            f"---\ntitle: {title}\ntype: {'policy' if folder == 'policies' else 'topic'}\n"
            f"updated: 2026-10-01\n---\n\n{body}\n")
    sources = yaml.safe_load((root / "sources.yaml").read_text())
    sources["sources"] += [{"path": f, "system": "markdown", "instance": f,
                            "default_acl": {"public": True}} for f in ("policies", "notes")]
    (root / "sources.yaml").write_text(yaml.safe_dump(sources))
    policy = yaml.safe_load((root / "authority.yaml").read_text())
    policy["rules"] += [{"name": "policies", "rank": 100, "match": {"instance": "policies"}},
                        {"name": "notes", "rank": 20, "match": {"instance": "notes"}}]
    (root / "authority.yaml").write_text(yaml.safe_dump(policy))
    return root


def test_authority_decides_a_policy_sentence_against_a_note_through_an_induced_segment(
        tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "corpus")
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today="2026-11-21")
    got = claims(wiki)
    window = [c for c in got if c["subject"] == "policy/returns-policy"
              and c["attribute"] == "return window"]
    assert {(c["normalized"], c["status"]) for c in window} == {
        ("60 days", "winner"), ("75 days", "overruled")}, window
    assert all(set(c["qualifiers"].values()) == {"Gold"} for c in window)


def test_a_line_led_by_a_segment_name_states_that_segments_value() -> None:
    got = reread([_statement("Gold — on-site response of 12 hours per the policy."),
                  _statement("Silver: a response of 24 hours per the policy.")],
                 "topic", _schema(), lambda t: [(0, 0, "policy")])
    assert [(c.attribute, c.value, dict(c.qualifiers)) for c in got] == [
        ("response time", "12 hours", {"contract tier": "Gold"}),
        ("response time", "24 hours", {"contract tier": "Silver"})]


def test_a_segment_named_outside_a_segment_shape_is_not_read_unqualified() -> None:
    # "Gold" here qualifies the value, but in no shape this reader knows: an unqualified
    # response time would contradict the Gold and Silver values of the same policy
    texts = ["Response for gold is 12 hours.",
             "Gold customers and Silver customers get a response within 12 hours."]
    got = reread([_statement(t) for t in texts], "policy", _schema(), _none)
    assert [c.kind for c in got] == ["statement", "statement"]


def test_a_list_item_led_by_a_segment_under_a_heading_states_the_headings_attribute() -> None:
    body = "Intro.\n## On-site response time\n- Gold: 8 hours\n- Bronze: two days\n"
    start = body.index("Gold")
    raw = RawClaim(attribute="gold", value="8 hours", kind="fact", quote="Gold: 8 hours",
                   span=(start, start + 13), subject_phrase="Gold")
    other = RawClaim(attribute="gold", value="8 hours", kind="fact", quote="Gold: 8 hours",
                     span=(0, 6), subject_phrase="Gold")  # above the heading: its own
    got, kept = reread([raw, other], "policy", _schema(), _none, body)
    assert (got.attribute, got.value, dict(got.qualifiers), got.mapped) == (
        "response time", "8 hours", {"contract tier": "Gold"}, True)
    assert kept == other


def test_a_version_in_a_sentence_sharing_a_word_with_an_induced_version_attribute() -> None:
    schema = base_schema()
    product = schema.types["product"]
    induced = product.attributes["current version"].model_copy(update={
        "induced": True, "phrases": ()})
    schema = schema.model_copy(update={"types": {**schema.types, "product": product.model_copy(
        update={"attributes": {"current firmware": induced}})}})
    got = reread([_statement("Orbis Pulse Oximeter runs firmware 4.2.0 as current release."),
                  _statement("Firmware audit on 12 May, 4.2.0 and 4.2.1 seen.")],
                 "ticket", schema, lambda t: [(0, 20, "product")] if "Orbis" in t else [])
    assert (got[0].attribute, got[0].value) == ("current firmware", "4.2.0")
    assert got[1].kind == "statement"  # two versions, and no entity of the type named


def test_a_value_in_words_and_an_unmapped_fact_sharing_a_word_with_one_attribute() -> None:
    statement = _statement("Devices bought under the Bronze plan can be returned for up to "
                           "thirty days.")
    fact = RawClaim(attribute="firmware", value="4.2.1", kind="fact",
                    quote="Firmware: 4.2.1", subject_phrase="Firmware: 4.2.1")
    named = lambda t: [(0, 0, "product")] if "Firmware" in t else []  # noqa: E731
    got = reread([statement, fact], "policy", _schema(), named)
    assert (got[0].attribute, got[0].value, dict(got[0].qualifiers)) == (
        "return window", "thirty days", {"contract tier": "Bronze"})
    # "current version" is the base schema's (text, phrased "firmware version"), not induced:
    # a version is read into an induced attribute only, so the fact stays as it was
    assert got[1] == fact


# -- enum value maps between systems ----------------------------------------------------------
def _deals(pairs: list[tuple[str, str, str]]) -> list:
    from compiler.schema.induce import RecordFields

    out = []
    for entity, sf, hs in pairs:
        out.append(RecordFields("salesforce", "prod", "Opportunity", "opportunity",
                                f"opportunity/{entity}", (("StageName", sf),)))
        out.append(RecordFields("hubspot", "mkt", "deal", "opportunity",
                                f"opportunity/{entity}", (("dealstage", hs),)))
    return out


def test_codes_that_consistently_stand_beside_another_systems_values_map_onto_them() -> None:
    ind = induce(base_schema(), _deals([
        ("a", "Negotiation/Review", "contractsent"), ("b", "Proposal/Price Quote",
                                                     "presentationscheduled"),
        ("c", "Proposal/Price Quote", "presentationscheduled"),
        ("d", "Qualification", "qualifiedtobuy"),
        # a code beside two different values names neither for sure
        ("e", "Prospecting", "appointmentscheduled"), ("f", "Closed Won",
                                                       "appointmentscheduled")]))
    (f,) = [f for f in ind.fields if f.column.field == "dealstage"]
    assert dict(f.values) == {"contractsent": "Negotiation/Review",
                              "presentationscheduled": "Proposal/Price Quote",
                              "qualifiedtobuy": "Qualification"}
    assert f.attribute == "stage" and not f.new_attribute
    # the map goes through the state and into the merged schema as a field value map
    again = Induction.from_json(ind.to_json())
    assert again.fields == ind.fields
    mapping = [m for m in apply(base_schema(), ind).mappings if "dealstage" in m.fields][-1]
    assert mapping.fields["dealstage"].values["contractsent"] == "Negotiation/Review"


def test_values_both_systems_already_name_alike_get_no_map() -> None:
    ind = induce(base_schema(), _deals([
        ("a", "Negotiation/Review", "negotiation"), ("b", "Qualification", "qualification"),
        ("c", "Prospecting", "prospecting")]))
    assert not [f for f in ind.fields if f.values]


def test_a_value_map_leaves_a_real_disagreement_a_conflict(tmp_path: Path) -> None:
    from test_induce import write_corpus

    corpus = write_corpus(tmp_path / "corpus")
    sf = json.loads((corpus / "salesforce" / "accounts.json").read_text())
    hs = json.loads((corpus / "hubspot" / "companies.json").read_text())
    industries = [("Transportation", "LOGISTICS_AND_SUPPLY_CHAIN"),
                  ("Transportation", "LOGISTICS_AND_SUPPLY_CHAIN"),
                  ("Transportation", "LOGISTICS_AND_SUPPLY_CHAIN"),
                  ("Hospital & Health Care", "LOGISTICS_AND_SUPPLY_CHAIN"),  # a real conflict
                  ("Hospital & Health Care", "HOSPITAL_HEALTH_CARE")]
    for rec, company, (a, b) in zip(sf["records"], hs["results"], industries, strict=True):
        rec["Industry"], company["properties"]["industry"] = a, b
    (corpus / "salesforce" / "accounts.json").write_text(json.dumps(sf))
    (corpus / "hubspot" / "companies.json").write_text(json.dumps(hs))
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today="2026-11-21")
    got = claims(wiki)
    status = {(c["subject"], c["source_system"]): c["status"] for c in got
              if c["attribute"] == "industry"}
    assert status[("account/alder-works", "hubspot")] == "winner"  # the same, said otherwise
    assert status[("account/dunmore-freight", "hubspot")] == "overruled"  # a real difference
    assert status[("account/elm-pharma", "hubspot")] == "winner"


def test_a_qualifier_word_outside_a_qualifier_shape_reads_nothing_loosely() -> None:
    texts = ["Business travel is booked at least 14 days ahead unless a visit needs "
             "shorter notice.",                                         # not a customer tier
             "Annual subscriptions cancelled within the first 45 days receive a pro-rated "
             "refund."]                                                 # "pro" is no tier here
    got = reread([_statement(t) for t in texts], "policy", _schema(), _none)
    assert [c.kind for c in got] == ["statement", "statement"]
    (ok,) = reread([_statement("Enterprise customers may give cancellation notice up to 60 "
                               "days before renewal.")], "policy", _schema(), _none)
    assert (ok.attribute, ok.value, dict(ok.qualifiers)) == (
        "notice period", "60 days", {"customer tier": "Enterprise"})


def test_sent_back_is_a_return_not_the_back_of_a_money_back_refund() -> None:
    """'money-back period' (a refund window phrase) shares only the compound's part 'back'
    with 'can be sent back': the sentence is about returns, as send/sent back says."""
    raw = RawClaim(attribute="statement", value=(
        "Devices bought under the Gold plan can be sent back for up to 45 days."),
        kind="statement", quote="Devices bought under the Gold plan can be sent back for up "
        "to 45 days.")
    (got,) = reread([raw], "policy", _schema(), _none)
    assert got.kind == "fact" and got.attribute == "return window", got
    raw2 = RawClaim(attribute="statement", value=(
        "Proposed: Gold accounts get up to 120 days to send devices back."), kind="statement",
        quote="Proposed: Gold accounts get up to 120 days to send devices back.")
    (got2,) = reread([raw2], "policy", _schema(), _none)
    assert got2.attribute == "return window", got2


def test_an_unmapped_fact_counting_what_an_attribute_measures_states_it() -> None:
    # "Storage: 2,200 pallet positions" beside an induced number attribute "pallet capacity":
    # the surface name shares no word with it, what the number counts does
    schema = apply(base_schema(), Induction(attributes={
        ("site", "pallet capacity"): Attribute(type="number", induced=True)}))
    fact = RawClaim(attribute="storage", value="2,200 pallet positions", kind="fact",
                    quote="Storage at Singapore Hub: 2,200 pallet positions.",
                    subject_phrase="Storage at Singapore Hub")
    (got,) = reread([fact], "site", schema, _none)
    assert (got.attribute, got.value, got.mapped) == ("pallet capacity", "2,200", True)
    # a count of something no attribute measures stays as it was
    other = fact.model_copy(update={"value": "12 loading bays"})
    assert reread([other], "site", schema, _none) == [other]


def test_a_value_a_question_presupposes_of_our_own_thing_states_it() -> None:
    # "whether this breaks our 99.5% uptime SLA" asks about the breach; that the SLA is
    # 99.5% it takes as given (a possessive names the thing by its value)
    schema = base_schema()
    schema = schema.model_copy(update={"types": {**schema.types, "product": schema.types[
        "product"].model_copy(update={"attributes": {
            **schema.types["product"].attributes,
            "uptime sla": Attribute.model_validate({"type": "percent"})}})}})
    named = lambda t: [(m.start(), m.end(), "product")  # noqa: E731
                       for m in __import__("re").finditer("Kestrel Classroom", t)]
    # the ticket names its product in full in another sentence: it is about it
    text = "Several districts asked whether this breaks our 99.5% uptime SLA for Classroom."
    _, got = reread([_statement("Teachers could not sign in to Kestrel Classroom."),
                     _statement(text)], "ticket", schema, named)
    assert (got.kind, got.attribute, got.value, got.subject_type) == (
        "fact", "uptime sla", "99.5%", "product")
    # a value the question proposes, or asks about, is no fact
    for asked in ("Should we raise the uptime SLA for Classroom to 99.95%?",
                  "Customers asked whether a 99.5% uptime SLA for Classroom is possible."):
        _, kept = reread([_statement("Kestrel Classroom was down."), _statement(asked)],
                         "ticket", schema, named)
        assert kept.kind == "statement", asked


def test_a_presupposed_value_lands_on_the_entity_the_record_names_in_full(
        tmp_path: Path) -> None:
    from test_statement_facts import _claims, _corpus as docs_corpus

    corpus = docs_corpus(tmp_path, {
        "Orbis Monitor": ("product", "Uptime SLA: 99.9%\n\nMonitor streams vitals."),
        "Orbis Assess": ("product", "Uptime SLA: 99.5%\n\nAssess scores tests."),
        "Incident 57": ("ticket", "Nurses could not sign in to Orbis Monitor for an hour.\n\n"
                        "Several wards asked whether this breaks our 99.7% uptime SLA for "
                        "Monitor.")})
    compile_wiki(corpus, tmp_path / "wiki", today="2026-11-21")
    sla = {(c["subject"], c["normalized"]) for c in _claims(tmp_path / "wiki")
           if c["attribute"] == "uptime sla"}
    assert ("product/orbis-monitor", "99.7") in sla and not any(
        s.startswith("ticket/") for s, _ in sla), sla


def test_a_fact_induced_through_a_citation_is_read_where_its_document_is_cited() -> None:
    from compiler.schema.induce_statements import STATEMENT_MARK

    schema = base_schema()
    attr = Attribute.model_validate({
        "type": "duration", "unit": "days", "induced": True, "description": STATEMENT_MARK,
        "phrases": ["request deletion"], "home": "customer-privacy-policy"})
    schema = schema.model_copy(update={"types": {**schema.types, "policy": schema.types[
        "policy"].model_copy(update={"attributes": {**schema.types["policy"].attributes,
                                                    "request deletion": attr}})}})
    ticket = "Per the privacy policy we have 45 days from the request to finish the deletion."
    (got,) = reread([_statement(ticket)], "ticket", schema, _none, own="ticket/dpr-9")
    assert (got.kind, got.attribute, got.value) == ("fact", "request deletion", "45 days")
    policy = "A written deletion request is honoured within 30 days."
    (got,) = reread([_statement(policy)], "policy", schema, _none,
                    own="policy/customer-privacy-policy")
    assert (got.kind, got.value) == ("fact", "30 days")
    # two shared words, neither in the document nor citing it: too few for a duration
    (kept,) = reread([_statement(ticket.replace("Per the privacy policy ", ""))], "ticket",
                     schema, _none, own="ticket/dpr-9")
    assert kept.kind == "statement"

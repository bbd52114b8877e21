"""One fact stated in sentences of several documents (compiler/schema/induce_statements.py):
two runbooks giving different SEV1 acknowledgement times, a product page and review notes
giving different offline windows, are compared as one induced attribute, so equal-rank
sources that disagree are an open contradiction with both claims contested; sentences that
merely share a unit, or share words outside the clause holding the value, are not."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import yaml

from compiler.build import compile_wiki, wiki_state
from compiler.export import export_claims
from compiler.lint import lint
from compiler.schema import base_schema
from compiler.schema.induce import RecordFields, induce
from compiler.schema.induce_statements import statement_value, value_clause


def said(entity: str, *sentences: str, system: str = "confluence") -> RecordFields:
    etype = entity.split("/", 1)[0]
    return RecordFields(system, "i", "page", etype, entity, (), (), tuple(sentences))


RUNBOOK_A = "The on-call engineer acknowledges a SEV1 page in PagerDuty within 5 minutes."
RUNBOOK_B = ("Under our on-call standard, SEV1 pages must be acknowledged within 10 minutes; "
             "if nobody acknowledges, PagerDuty escalates to the SRE lead.")


def stated(ind) -> dict:
    return {k: v for k, v in ind.attributes.items() if v.home}


def test_a_sentence_holds_one_typed_value_or_none() -> None:
    assert statement_value(RUNBOOK_A)[:2] == ("duration", "minute")
    assert statement_value("Refunds above $10,000 need sign-off.")[0] == "money"
    assert statement_value("Backups run every 4 hours and are kept for 30 days.") is None
    assert statement_value("Is the window 48 hours?") is None
    assert value_clause(RUNBOOK_B, "10 minutes").startswith("Under our on-call standard")


def test_two_documents_stating_one_company_wide_fact_make_an_attribute_with_a_home() -> None:
    ind = induce(base_schema(), [said("process/incident-response-runbook", RUNBOOK_A),
                                 said("process/database-failover-runbook", RUNBOOK_B)])
    (key, spec), = stated(ind).items()
    assert key[0] == "process" and spec.type == "duration" and spec.unit == "minutes"
    assert spec.home in ("incident-response-runbook", "database-failover-runbook")
    assert {"acknowledges", "pagerduty"} <= set(spec.phrases[0].split())


def test_words_shared_outside_the_value_clause_make_no_attribute() -> None:
    ind = induce(base_schema(), [
        said("policy/refund-policy", "Refunds above $10,000 need sign-off from the Finance "
             "Director."),
        said("policy/expense-policy", "Managers approve expense reports up to $2,500; "
             "anything above that also needs the Finance Director's approval.")])
    assert stated(ind) == {}


def test_sentences_of_another_unit_or_few_shared_words_make_no_attribute() -> None:
    ind = induce(base_schema(), [
        said("process/a", "The on-call engineer acknowledges a SEV1 page within 5 minutes."),
        said("process/b", "The on-call engineer acknowledges a SEV1 page within 2 hours."),
        said("process/c", "Status page updates for SEV1 go out within 15 minutes.")])
    assert stated(ind) == {}


def test_one_record_stating_two_values_keeps_them_apart() -> None:
    ind = induce(base_schema(), [
        said("process/a", RUNBOOK_A, "The on-call engineer acknowledges a SEV2 page in "
             "PagerDuty within 30 minutes."),
        said("process/b", RUNBOOK_B)])
    assert stated(ind) == {}


def test_sentences_naming_different_entities_are_never_one_fact() -> None:
    recs = [said("product/heron-pump", "Heron Pump page."),
            said("product/osprey-pump", "Osprey Pump page."),
            said("topic/bench-a", "After a full charge cycle the Heron Pump drains its "
                 "battery pack in 9 hours."),
            said("topic/bench-b", "After a full charge cycle the Osprey Pump drains its "
                 "battery pack in 7 hours.")]
    ind = induce(base_schema(), recs)
    assert stated(ind) == {}


# -- end to end ---------------------------------------------------------------------------
def _corpus(root: Path, docs: dict[str, tuple[str, str]]) -> Path:
    corpus = root / "corpus"
    (corpus / "handbook").mkdir(parents=True)
    (corpus / "sources.yaml").write_text(yaml.safe_dump({"tenant": "t", "sources": [
        {"path": "handbook", "system": "markdown", "instance": "hb",
         "default_acl": {"public": True}}]}))
    for name, (etype, body) in docs.items():
        (corpus / "handbook" / f"{name}.md").write_text(
            f"---\ntitle: {name}\ntype: {etype}\n---\n\n# {name}\n\n{body}\n")
    return corpus


def _claims(wiki: Path) -> list[dict]:
    state = wiki_state(wiki)
    try:
        return [json.loads(x) for x in export_claims(state)]
    finally:
        state.close()


def _contradictions(wiki: Path) -> list:
    state = wiki_state(wiki)
    try:
        return [f for f in lint(state, wiki, datetime.now(UTC)).findings
                if "contradiction" in f.code]
    finally:
        state.close()


DOCS = {
    "Incident Response Runbook": ("process", RUNBOOK_A + "\n\nStatus page updates for SEV1 "
                                  "go out within 15 minutes."),
    "Database Failover Runbook": ("process", RUNBOOK_B + "\n\nFailover drills run quarterly; "
                                  "the last drill completed in 22 minutes."),
    "Kestrel Assess": ("product", "Offline mode keeps tests available for up to 72 hours "
                       "without a connection; responses upload automatically when the device "
                       "reconnects."),
    "Q4 Product Review": ("topic", "Tobias: the offline window in Assess is 48 hours, after "
                          "which cached tests are wiped from the device; districts with longer "
                          "outages have to reschedule."),
    "Travel Policy": ("policy", "Managers approve expense reports up to $2,500; anything "
                      "above that also needs the Finance Director's approval."),
    "Refund Policy": ("policy", "Refunds above $10,000 need sign-off from the Finance "
                      "Director."),
}


def test_equal_rank_documents_disagreeing_in_prose_are_an_open_contradiction(
        tmp_path: Path) -> None:
    wiki = tmp_path / "wiki"
    compile_wiki(_corpus(tmp_path, DOCS), wiki, today="2026-11-21")
    found = _contradictions(wiki)
    assert sorted(f.code for f in found) == ["open-contradiction", "open-contradiction"]
    by_id = {c["claim_id"]: c for c in _claims(wiki)}
    values = sorted(sorted(by_id[i]["value"] for i in f.claims) for f in found)
    assert values == [["10 minutes", "5 minutes"], ["48 hours", "72 hours"]]
    for f in found:
        assert {by_id[i]["status"] for i in f.claims} == {"contested"}
        assert len({by_id[i]["source_key"] for i in f.claims}) == 2
    offline = [f for f in found if "48 hours" in f.message][0]
    assert offline.page == "product/kestrel-assess"


def test_without_the_second_document_nothing_is_contested(tmp_path: Path) -> None:
    docs = {k: v for k, v in DOCS.items() if k not in ("Database Failover Runbook",
                                                      "Q4 Product Review")}
    wiki = tmp_path / "wiki"
    compile_wiki(_corpus(tmp_path, docs), wiki, today="2026-11-21")
    assert _contradictions(wiki) == []
    statements = {c["value"] for c in _claims(wiki) if c["kind"] == "statement"}
    assert RUNBOOK_A in statements


# -- a prose name one record states, another record's sentence states too -----------------
def _fact(entity: str, name: str, value: str, about: str, *sentences: str,
          system: str = "jira") -> RecordFields:
    etype = entity.split("/", 1)[0]
    return RecordFields(system, "i", "issue", etype, entity, (), ((name, value, about),),
                        tuple(sentences))


def test_a_sentence_stating_a_once_stated_name_with_its_entity_and_kind_declares_it() -> None:
    recs = [said("product/orbis-pulse-oximeter", "Orbis Pulse Oximeter page."),
            _fact("ticket/fs-1046", "current firmware", "4.2.1", "orbis-pulse-oximeter"),
            said("ticket/fs-1045", "Orbis Pulse Oximeter runs firmware 4.2.0 as current release.",
                 system="jira")]
    ind = induce(base_schema(), recs)
    assert ind.attributes[("product", "current firmware")].type == "text"
    # the same sentence about another entity, or without the name's words, is no evidence
    for other in ("Arden Ventilator runs firmware 4.2.0 as current release.",
                  "Orbis Pulse Oximeter runs 4.2.0 as current release."):
        recs[2] = said("ticket/fs-1045", other, system="jira")
        recs.append(said("product/arden-ventilator", "Arden Ventilator page."))
        assert ("product", "current firmware") not in induce(base_schema(), recs).attributes


def test_two_tickets_disagreeing_on_a_version_are_contested_end_to_end(tmp_path: Path) -> None:
    # (induction knows an entity's type from the records it reads: the product page states a
    # typed value of its own)
    docs = {"Orbis Pulse Oximeter": ("product", "Alarm tones stop after 2 minutes of silence."),
            "Firmware Audit": ("topic", "Orbis Pulse Oximeter runs firmware 4.2.0 as current "
                               "release."),
            "Rollout Notes": ("topic", "The current firmware of Orbis Pulse Oximeter is 4.2.1.")}
    wiki = tmp_path / "wiki"
    compile_wiki(_corpus(tmp_path, docs), wiki, today="2026-11-21")
    got = {(c["attribute"], c["value"], c["status"]) for c in _claims(wiki)
           if c["subject"] == "product/orbis-pulse-oximeter" and c["kind"] == "fact"}
    assert got == {("current firmware", "4.2.0", "contested"),
                   ("current firmware", "4.2.1", "contested")}
    assert [f.code for f in _contradictions(wiki)] == ["open-contradiction"]


# -- a declared attribute narrowed by a compound modifier (compiler/schema/narrow.py) -------
def test_a_compound_modifier_before_a_declared_attribute_names_a_narrower_one() -> None:
    from compiler.schema.narrow import narrowed_names

    assert narrowed_names("the On-site response time for Gold customers is 24 hours",
                          "response time") == ["on-site response time"]
    assert narrowed_names("a 30-day return window", "return window") == []
    assert narrowed_names("the response time for Gold customers", "response time") == []
    rec = RecordFields("zendesk", "i", "ticket", "ticket", "ticket/1", (), (), (),
                       (("on-site response time", "response time"),))
    ind = induce(base_schema(), [rec])
    spec = ind.attributes[("policy", "on-site response time")]
    base = base_schema().types["policy"].attributes["response time"]
    assert (spec.type, spec.unit, spec.qualifiers) == (base.type, base.unit, base.qualifiers)


def test_sources_saying_on_site_response_time_meet_under_that_name(tmp_path: Path) -> None:
    # a policy's list under the heading "On-site response time" and a help-desk page saying
    # "the on-site response time for Enterprise customers": one narrower fact, decided by
    # authority, and a plain "response time" (a first reply) stays apart
    corpus = _corpus(tmp_path, {
        "Field Service Policy": ("policy", "## On-site response time\n\n- Enterprise "
                                 "customers: 8 hours\n\nThe response time for Enterprise "
                                 "customers is 1 hour."),
        "Help Desk Notes": ("topic", "According to the Field Service Policy, the on-site "
                            "response time for Enterprise customers is 24 hours.")})
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today="2026-11-21")
    got = sorted((c["attribute"], c["normalized"], c["source_key"].rsplit("/", 1)[-1].lower())
                 for c in _claims(wiki) if c["subject"] == "policy/field-service-policy"
                 and c["kind"] == "fact")
    assert got == [("on-site response time", "24 hours", "help desk notes"),
                   ("on-site response time", "8 hours", "field service policy"),
                   ("response time", "1 hour", "field service policy")]
    on_site = [c for c in _claims(wiki) if c["attribute"] == "on-site response time"]
    # one source, one rank: the two values of the narrower fact are contested with each
    # other, and the plain response time is not drawn in
    assert {c["status"] for c in on_site} == {"contested"}
    assert [f.code for f in _contradictions(wiki)] == ["open-contradiction"]


def test_a_fact_filed_on_another_documents_page_never_becomes_that_pages_summary(
        tmp_path: Path) -> None:
    # the company-wide fact's home is the first page by id; the other runbook's record sorts
    # first by key, so its sentence (filed on the home page) must not speak for that page
    corpus = tmp_path / "corpus"
    (corpus / "handbook").mkdir(parents=True)
    (corpus / "sources.yaml").write_text(yaml.safe_dump({"tenant": "t", "sources": [
        {"path": "handbook", "system": "markdown", "instance": "hb",
         "default_acl": {"public": True}}]}))
    own = "Replicas are promoted by the orchestrator after two failed health checks."
    for file, title, body in (("a.md", "Zulu Incident Runbook", RUNBOOK_A),
                              ("b.md", "Alpha Failover Runbook", f"{own}\n\n{RUNBOOK_B}")):
        (corpus / "handbook" / file).write_text(
            f"---\ntitle: {title}\ntype: process\n---\n\n# {title}\n\n{body}\n")
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today="2026-11-21")
    assert len(_contradictions(wiki)) == 1
    home = (wiki / "process" / "alpha-failover-runbook.md").read_text(encoding="utf-8")
    assert f'description: "{own}"' in home


def test_free_and_at_no_charge_are_one_word_of_a_fact() -> None:
    # everyday synonyms: "included at no charge" and "free" say the same of a price
    ind = induce(base_schema(), [
        said("product/parcel-tracker", "Tracker is included at no charge on leases of 12 "
             "months or longer."),
        said("topic/sales-meeting", "Tracker is free on leases of 10 months or more, so "
             "mention it on every yearly lease.")])
    (key, spec), = stated(ind).items()
    assert spec.type == "duration" and spec.unit == "months", spec
    # two figures far apart (a factor above 6) are no one fact, synonyms or not
    ind = induce(base_schema(), [
        said("product/parcel-tracker", "Tracker is included at no charge on leases of 12 "
             "months or longer."),
        said("topic/sales-meeting", "Tracker is free on leases of 1 month or more.")])
    assert stated(ind) == {}


def test_a_sentence_citing_the_policy_by_its_title_shares_a_word_with_it() -> None:
    policy = ("When a customer sends a written deletion request, the data the request covers "
              "is removed within 30 days.")
    ticket = "Per the privacy policy we have 45 days from the request to finish the deletion."
    ind = induce(base_schema(), [said("policy/customer-privacy-policy", policy),
                                 said("ticket/dpr-9", ticket, system="jira")])
    (key, spec), = stated(ind).items()
    assert spec.type == "duration" and spec.home == "customer-privacy-policy", spec
    # without the citation two shared words are too few for a duration
    ind = induce(base_schema(), [said("policy/customer-privacy-policy", policy),
                                 said("ticket/dpr-9", ticket.replace("Per the privacy policy ",
                                                                     ""), system="jira")])
    assert stated(ind) == {}


def test_each_sentence_is_slugified_a_bounded_number_of_times_however_many_pairs(
        monkeypatch) -> None:
    """The citation test of a pair of sentences slugified both sentences for every pair they
    share a word in: at a 10k corpus's 3,000-row sample, ~47,000 slugs, most of a 1 % edit's
    induction. Now each sentence is slugified once for it (and a bounded few times for the
    names it says), however many sentences share its words."""
    import compiler.slug as slug

    calls = []
    real = slug.slugify
    monkeypatch.setattr(slug, "slugify", lambda text, *a, **k: calls.append(text) or real(
        text, *a, **k))
    sentences = [f"Per the retention policy the archive {i} is kept for {i + 10} days."
                 for i in range(40)]
    recs = [said(f"policy/records-retention-policy-{i}", s) for i, s in enumerate(sentences)]
    induce(base_schema(), recs)
    assert len(calls) <= 4 * len(sentences), len(calls)
    # (that a citation still counts: test_a_sentence_citing_the_policy_by_its_title_…)

"""A fact one document states in a table row and another in a sentence
(compiler/schema/induce_statements.py, compiler/extract/restate.py): a rate card's sentence
"refuelled at $8.75 per gallon" beside a runbook's row "Refuelling | $9.50 per gallon", a
product page's "ships in Q2 2027" beside a roadmap row "Q3 2027 | … idle-time alerts", a
runbook sentence holding a percentage and a duration beside a postmortem action item that
says which value it replaces. Equal ranks that disagree are an open contradiction; rows of one
table stating one attribute for different things are never rivals."""

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
from compiler.schema.induce_statements import (replaced_values, row_sentence, statement_clauses,
                                               statement_value,
                                               statement_values)

RUNBOOK = ("The gateway-silence alert pages the on-call engineer when fewer than 70% of "
           "gateways have reported for 15 minutes.")
ACTION = ("Action: Page after 10 minutes of gateway silence instead of 30 minutes; "
          "Owner: Owen Baptiste; Status: Done; Notes: Alert rule changed 2026-09-24.")


def test_a_sentence_gives_each_kinds_one_value_and_drops_a_replaced_one() -> None:
    assert [v[:2] for v in statement_values(RUNBOOK)] == [("duration", "minute"),
                                                          ("percent", "%")]
    assert statement_value(RUNBOOK) is None  # two values: phrase induction reads neither
    action = row_sentence(ACTION)
    assert action is not None and action.startswith("Page after 10 minutes")
    assert statement_value(action)[2] == "10 minutes"
    assert replaced_values(action) == {"30 minutes"}
    assert statement_values("Backups run every 4 hours and are kept for 30 days.") == []


def test_a_money_rate_is_per_its_unit_and_a_quarter_is_a_value() -> None:
    assert statement_value("It is refuelled at $8.75 per gallon.") == ("money", "gallon",
                                                                       "$8.75")
    assert statement_value("A cleaning fee of $150 applies.") == ("money", "", "$150")
    assert statement_value("Idle-time alerts ship with FleetLink 3.0 in Q2 2027.") == (
        "quarter", "", "Q2 2027")
    assert row_sentence("Tier: Gold") is None  # one pair: no row


def said(entity: str, *sentences: str) -> RecordFields:
    return RecordFields("confluence", "i", "page", entity.split("/", 1)[0], entity, (), (),
                        tuple(sentences))


def test_a_row_and_a_sentence_sharing_a_rates_words_make_one_attribute() -> None:
    ind = induce(base_schema(), [
        said("process/return-runbook", "Refuelling, $9.50 per gallon, Diesel and gasoline alike"),
        said("topic/rate-card", "Equipment returned with less fuel than it left with is "
             "refuelled at $8.75 per gallon.")])
    (key, spec), = [(k, v) for k, v in ind.attributes.items() if v.home]
    assert spec.type == "money" and spec.unit == "gallon", spec
    # a flat fee shares no unit with a rate per gallon
    ind = induce(base_schema(), [
        said("process/return-runbook", "Refuelling, $150, Diesel and gasoline alike"),
        said("topic/rate-card", "Equipment returned with less fuel is refuelled at $8.75 per "
             "gallon.")])
    assert [k for k, v in ind.attributes.items() if v.home] == []


# -- end to end, Confluence Cloud REST v1 storage payloads ---------------------------------
def _page(pid: str, space: str, title: str, body: str, when: str, label: str = "") -> dict:
    labels = [{"prefix": "global", "name": label}] if label else []
    return {"id": pid, "type": "page", "status": "current", "title": title,
            "space": {"key": space, "name": space},
            "version": {"when": when, "number": 3},
            "body": {"storage": {"value": body, "representation": "storage"}},
            "metadata": {"labels": {"results": labels}},
            "_links": {"webui": f"/spaces/{space}/pages/{pid}"}}


def _table(header: list[str], *rows: list[str]) -> str:
    head = "".join(f"<th><p><strong>{h}</strong></p></th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td><p>{c}</p></td>" for c in r) + "</tr>" for r in rows)
    return f"<table><tbody><tr>{head}</tr>{body}</tbody></table>"


PAGES = [
    _page("101", "OPS", "Runbook: Equipment Return",
          "<p>Yard staff inspect every returned machine on the day it comes back.</p>"
          "<h2>Return charges</h2>" + _table(["Charge", "Amount", "Notes"],
                                            ["Refuelling", "$9.50 per gallon", "Diesel alike"],
                                            ["Cleaning", "$150", "Only when pressure-washed"]),
          "2026-06-01T10:00:00.000Z"),
    _page("102", "OPS", "Runbook: Telematics Outage",
          f"<p>{RUNBOOK}</p><p>Post a status update every 30 minutes until gateways report.</p>",
          "2026-06-02T10:00:00.000Z"),
    _page("103", "OPS", "Postmortem: Telematics Outage",
          "<p>Our gateway-silence alert waited 30 minutes before paging, so the first page "
          "came after customers had called.</p><h2>Action items</h2>"
          + _table(["Action", "Owner", "Status", "Notes"],
                   ["Page after 10 minutes of gateway silence instead of 30 minutes",
                    "Owen Baptiste", "Done", "Alert rule changed 2026-09-24"]),
          "2026-06-03T10:00:00.000Z"),
    _page("104", "PROD", "Rate Card 2027",
          "<p>Equipment returned with less fuel than it left with is refuelled at $8.75 per "
          "gallon.</p>", "2026-06-04T10:00:00.000Z"),
    _page("105", "PROD", "Telematics Product",
          "<p>Idle-time alerts ship with version 3.0 in Q2 2027.</p>",
          "2026-06-05T10:00:00.000Z"),
    _page("106", "PROD", "Roadmap 2027",
          _table(["Quarter", "Initiative", "Status", "Notes"],
                 ["Q1 2027", "Portal single sign-on", "Committed", "Security asked"],
                 ["Q3 2027", "Version 3.0: idle-time alerts", "Planned", "Asked for"],
                 # two rows of one quarter: their notes are no rival values
                 ["Q4 2027", "Customer API", "Planned", "Asked for by a customer"],
                 ["Q4 2027", "Electric fleet", "Proposed", "Waiting on capital approval"]),
          "2026-06-06T10:00:00.000Z"),
    _page("107", "POL", "Data Retention Policy",
          _table(["Record", "Retention", "Notes"],
                 ["License scans", "90 days after the rental ends", "Taken at the counter"],
                 ["Location history", "13 months", "Engine hours are kept"],
                 ["Call recordings", "1 year", ""]),
          "2026-06-07T10:00:00.000Z", label="policy"),
]


def _corpus(root: Path) -> Path:
    (root / "confluence").mkdir(parents=True)
    (root / "confluence" / "pages.json").write_text(json.dumps(
        {"results": PAGES, "start": 0, "limit": 25, "size": len(PAGES)}))
    (root / "sources.yaml").write_text(yaml.safe_dump({"tenant": "t", "sources": [
        {"path": "confluence", "system": "confluence", "instance": "t.atlassian.net",
         "default_acl": {"public": True},
         "options": {"base_url": "https://t.atlassian.net/wiki"}}]}))
    (root / "authority.yaml").write_text(yaml.safe_dump({
        "version": 1, "default": {"name": "unranked", "rank": 10},
        "rules": [{"name": "docs", "rank": 70, "match": {"system": "confluence"}}]}))
    return root


def _compiled(tmp_path: Path) -> tuple[list[dict], list]:
    wiki = tmp_path / "wiki"
    compile_wiki(_corpus(tmp_path / "corpus"), wiki, today="2026-11-21")
    state = wiki_state(wiki)
    try:
        claims = [json.loads(x) for x in export_claims(state)]
        found = [f for f in lint(state, wiki, datetime.now(UTC)).findings
                 if "contradiction" in f.code]
    finally:
        state.close()
    return claims, found


def test_rows_and_sentences_stating_one_fact_are_an_open_contradiction(tmp_path: Path) -> None:
    claims, found = _compiled(tmp_path)
    contested = {}
    for c in claims:
        if c["status"] == "contested":
            contested.setdefault(c["attribute"], set()).add(c["value"])
    assert sorted(contested.values(), key=sorted) == sorted(
        [{"$9.50", "$8.75"}, {"10 minutes", "15 minutes"}, {"Q2 2027", "Q3 2027"}],
        key=sorted), contested
    errors = [f for f in found if f.code == "open-contradiction"]
    assert len(errors) == 3 and len(found) == 3, [f.message for f in found]


def test_rows_of_one_table_read_as_one_attribute_are_apart(tmp_path: Path) -> None:
    claims, _ = _compiled(tmp_path)
    kept = {(c["value"], tuple(c["qualifiers"].values()), c["status"]) for c in claims
            if c["subject"].endswith("data-retention-policy") and c["kind"] == "fact"
            and c["value"] in ("13 months", "1 year")}
    assert kept == {("13 months", ("Location history",), "winner"),
                    ("1 year", ("Call recordings",), "winner")}, kept


def test_a_sentence_counting_a_names_word_states_a_count_one_record_names() -> None:
    # one ticket names the count ("Bed count at Harbourview Clinics Ltd: 480"), another says
    # what it counts ("has 400 beds in service"): two records state `bed count`
    recs = [RecordFields("zendesk", "z", "ticket", "ticket", "ticket/t1", (),
                         (("bed count", "480", "harbourview-clinics"),)),
            RecordFields("zendesk", "z", "ticket", "ticket", "ticket/t2", (), (),
                         ("Harbourview Clinics Ltd has 400 beds in service.",)),
            RecordFields("hubspot", "h", "company", "account", "account/harbourview-clinics",
                         (("name", "Harbourview Clinics"),))]
    ind = induce(base_schema(), recs)
    assert any(name == "bed count" and spec.type == "number"
               for (_, name), spec in ind.attributes.items()), ind.attributes.keys()
    # a sentence whose one number counts another thing states nothing of it
    recs[1] = RecordFields("zendesk", "z", "ticket", "ticket", "ticket/t2", (), (),
                           ("Harbourview Clinics Ltd has 400 nurses in service.",))
    ind = induce(base_schema(), recs)
    assert not any(name == "bed count" for (_, name) in ind.attributes)


def test_rates_of_different_units_in_one_row_are_each_a_value() -> None:
    # a rate per hour and a cap per stop are two facts' figures, as a duration and a
    # percentage are: the row offers each, and the other sentences' unit says which
    row = "Driver waiting, $80 per hour, 15-minute increments after free time, Capped at $500 per stop"
    assert [v[:2] for _, v in statement_clauses(row)] == [
        ("duration", "minute"), ("money", "hour"), ("money", "stop")]
    # two amounts of one unit are still two values of one kind: neither is offered
    assert statement_values("Waiting is $80 per hour, or $95 per hour at night.") == []
    ind = induce(base_schema(), [
        said("policy/accessorial-policy", row),
        said("ticket/inv-1", "Looked it up: waiting is $70 per hour after the free hours.")])
    (key, spec), = [(k, v) for k, v in ind.attributes.items() if v.home]
    assert spec.type == "money" and spec.unit == "hour", spec
    # a rate far from the row's (a factor above 3 on two shared words) is another fact
    ind = induce(base_schema(), [
        said("policy/accessorial-policy", row),
        said("ticket/inv-1", "Looked it up: waiting is $700 per hour after the free hours.")])
    assert [k for k, v in ind.attributes.items() if v.home] == []
    # the cap's cell says what the cap is: a sentence sharing the rate's words and the
    # cap's ("stop") at a figure far from the rate is no rival of it
    assert "stop" not in [t for t, v in statement_clauses(row) if v[1] == "hour"][0]
    ind = induce(base_schema(), [
        said("policy/accessorial-policy", row),
        said("policy/driver-pay", "Driver waiting pay: $20 per hour, starting after the "
             "first 2 hours at a stop.")])
    assert [k for k, v in ind.attributes.items() if v.home] == []

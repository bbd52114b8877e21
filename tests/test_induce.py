"""Schema induction (compiler/schema/induce.py, docs/schema.md "Schema induction"): fields of
different systems that the corpus's own records show to be one attribute meet in one group,
so authority decides between them, without anyone writing a schema.yaml."""

from __future__ import annotations

import json
import shutil
from collections import Counter
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.build import compile_wiki, wiki_state
from compiler.export import export_claims
from compiler.schema import base_schema, load_schema, parse_schema
from compiler.schema.induce import (Induction, RecordFields, apply, induce, name_tokens,
                                    suggested_yaml)
from compiler.settings import FolioSettings

from test_incremental import assert_same_wiki

REPO = Path(__file__).resolve().parents[1]

# five joined accounts; the tiers agree except on the fourth (a conflict to decide)
ACCOUNTS = [("Alder Works", "Gold", "2027-03-01"), ("Birch Labs", "Silver", "2027-05-09"),
            ("Cedar Health", "Gold", "2027-01-15"), ("Dunmore Freight", "Bronze", "2026-12-31"),
            ("Elm Pharma", "Silver", "2027-08-20")]
HS_TIER = {"Dunmore Freight": "silver"}


def rf(system: str, rtype: str, entity: str, **fields: object) -> RecordFields:
    return RecordFields(system, f"{system}-1", rtype, "account", f"account/{entity}",
                        tuple(sorted(fields.items())))


def crm(tiers: dict[str, str] | None = None, sf_field: str = "Contract_Tier__c",
        hs_field: str = "support_level") -> list[RecordFields]:
    tiers = tiers if tiers is not None else HS_TIER
    out = []
    for name, tier, renew in ACCOUNTS:
        e = name.split()[0].lower()
        out.append(rf("salesforce", "Account", e, **{sf_field: tier, "Renewal_On__c": renew}))
        out.append(rf("hubspot", "company", e, **{hs_field: tiers.get(name, tier.lower()),
                                                  "term_end": f"{renew}T00:00:00.000Z"}))
    return out


def by_field(ind: Induction) -> dict[str, tuple[str, bool]]:
    return {f.column.field: (f.attribute, f.new_attribute) for f in ind.fields}


# -- the rules -----------------------------------------------------------------------------
def test_field_names_fold_to_words() -> None:
    assert name_tokens("Contract_Tier__c") == {"contract", "tier"}
    assert name_tokens("hs_support_level") == {"support", "tier"}  # a level is a tier
    assert name_tokens("cf_serial_number") == name_tokens("Serial_Number__c") == {"serial"}
    assert name_tokens("customfield_10042") == frozenset()  # an id says nothing
    assert name_tokens("AnnualRevenue") == {"annual", "revenue"}


def test_fields_whose_values_agree_on_joined_entities_are_one_attribute() -> None:
    ind = induce(base_schema(), crm())
    got = by_field(ind)
    assert got["Contract_Tier__c"] == got["support_level"]
    assert got["Contract_Tier__c"][1] is True  # the schema declares no such attribute
    # dates agree too (a HubSpot datetime at midnight is the Salesforce date)
    assert got["Renewal_On__c"] == got["term_end"]
    evidence = next(f.evidence for f in ind.fields if f.column.field == "support_level")
    assert "values agree on 4 of 5 shared entities" in evidence


def test_values_that_agree_no_more_than_chance_do_not_merge() -> None:
    # two values each, half of them equal: what two unrelated yes/no fields do
    recs = []
    for i, (a, b) in enumerate([("x", "x"), ("x", "y"), ("y", "x"), ("y", "y"), ("x", "x"),
                                ("y", "x")]):
        recs += [rf("salesforce", "Account", f"e{i}", Region__c=a),
                 rf("hubspot", "company", f"e{i}", segment=b)]
    assert induce(base_schema(), recs).fields == []


def test_constant_fields_are_no_evidence() -> None:
    recs = []
    for i in range(6):
        recs += [rf("salesforce", "Account", f"e{i}", Is_Archived__c="false"),
                 rf("hubspot", "company", f"e{i}", hs_is_test="false")]
    assert induce(base_schema(), recs).fields == []


def test_a_state_without_induction_rows_is_filled_from_the_stored_records(tmp_path: Path
                                                                          ) -> None:
    import sqlite3

    corpus = write_corpus(tmp_path / "corpus")
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today="2026-11-21")
    db = sqlite3.connect(wiki / ".folio" / "state.db")
    db.execute("DROP TABLE induce_fields")  # as a wiki compiled before the table existed
    db.execute("DELETE FROM meta WHERE key = 'induce_fields'")
    db.commit()
    db.close()
    _tiers(corpus, 1)  # one record changes; induction must still see all of them
    compile_wiki(corpus, wiki, today="2026-11-21")
    clean = tmp_path / "clean"
    compile_wiki(corpus, clean, today="2026-11-21")
    assert_same_wiki(wiki, clean)
    assert len({c["attribute"] for c in tier_claims(wiki, "account/alder-works")}) == 1


def test_two_fields_of_one_system_are_never_merged() -> None:
    recs = [rf("salesforce", "Account", f"e{i}", Tier__c=t, Level__c=t)
            for i, t in enumerate(["a", "b", "c", "a", "b"])]
    assert induce(base_schema(), recs).fields == []


def test_incompatible_value_types_are_never_merged() -> None:
    recs = []
    for i in range(5):
        recs += [rf("salesforce", "Account", f"e{i}", Since__c=f"2020-01-0{i + 1}"),
                 rf("hubspot", "company", f"e{i}", since=str(20200101 + i))]
    assert induce(base_schema(), recs).fields == []


def test_an_unmapped_field_joins_the_attribute_another_system_maps() -> None:
    # Salesforce AnnualRevenue is the base schema's annual revenue; HubSpot's field is not
    recs = []
    for i, rev in enumerate([1e6, 2e6, 3e6, 4e6, 5e6]):
        recs += [rf("salesforce", "Account", f"e{i}", AnnualRevenue=rev),
                 rf("hubspot", "company", f"e{i}", yearly_turnover_usd=str(int(rev)))]
    got = by_field(induce(base_schema(), recs))
    assert got == {"yearly_turnover_usd": ("annual revenue", False)}


def test_names_alone_merge_only_when_they_say_the_same_words() -> None:
    recs = [RecordFields("jira", "j", "issue", "ticket", f"ticket/t{i}", (("cf_serial_number", f"SN{i}"),))
            for i in range(3)]
    recs += [RecordFields("zendesk", "z", "ticket", "ticket", f"ticket/z{i}", (("Serial Number", f"Z{i}"),))
             for i in range(3)]
    recs += [RecordFields("zendesk", "z", "ticket", "ticket", f"ticket/z{i}", (("Serial Batch", f"B{i}"),))
             for i in range(3, 6)]
    got = by_field(induce(base_schema(), recs))
    assert got["cf_serial_number"] == got["Serial Number"]
    assert "Serial Batch" not in got


def test_a_field_the_schema_maps_is_left_to_the_schema() -> None:
    declared = parse_schema("""
types:
  account:
    attributes:
      service plan: {type: enum}
mappings:
  - system: salesforce
    fields: {Contract_Tier__c: service plan}
""", "schema.yaml")
    from compiler.schema import merge

    schema = merge(base_schema(), declared)
    got = by_field(induce(schema, crm()))
    assert "Contract_Tier__c" not in got  # declared: not induction's
    assert got["support_level"] == ("service plan", False)


def test_induction_is_deterministic_and_its_suggestion_is_a_valid_schema(tmp_path: Path) -> None:
    a, b = induce(base_schema(), crm()), induce(base_schema(), list(reversed(crm())))
    assert a.to_json() == b.to_json()
    assert Induction.from_json(a.to_json()).to_json() == a.to_json()
    text = yaml.safe_dump(suggested_yaml(a), sort_keys=False)
    (tmp_path / "schema.yaml").write_text(text)
    schema = load_schema(tmp_path)  # validates, mappings point at declared attributes
    assert apply(base_schema(), a).mappings[-1].fields  # the overlay applies
    assert not any(getattr(t, "induced", False) for m in schema.mappings
                   for t in m.fields.values())


# -- through a compile ---------------------------------------------------------------------
def write_corpus(root: Path, tiers: dict[str, str] | None = None,
                 hs_field: str = "support_level") -> Path:
    tiers = tiers if tiers is not None else HS_TIER
    (root / "salesforce").mkdir(parents=True, exist_ok=True)
    (root / "hubspot").mkdir(parents=True, exist_ok=True)
    (root / "sources.yaml").write_text(yaml.safe_dump({"tenant": "t", "sources": [
        {"path": "salesforce", "system": "salesforce", "instance": "crm",
         "default_acl": {"public": True}},
        {"path": "hubspot", "system": "hubspot", "instance": "mkt",
         "default_acl": {"public": True}}]}))
    (root / "authority.yaml").write_text(yaml.safe_dump({"version": 1, "rules": [
        {"name": "crm", "rank": 80, "match": {"system": "salesforce"}},
        {"name": "marketing", "rank": 50, "match": {"system": "hubspot"}}]}))
    sf, hs = [], []
    for i, (name, tier, renew) in enumerate(ACCOUNTS):
        sf.append({"attributes": {"type": "Account"}, "Id": f"001A{i:014d}", "Name": name,
                   "Contract_Tier__c": tier, "Renewal_On__c": renew,
                   "LastModifiedDate": "2026-10-01T00:00:00.000+0000"})
        hs.append({"id": str(500 + i), "properties": {
            "name": name, hs_field: tiers.get(name, tier.lower()),
            "term_end": f"{renew}T00:00:00.000Z"},
            "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-10-02T00:00:00.000Z",
            "archived": False})
    (root / "salesforce" / "accounts.json").write_text(json.dumps(
        {"totalSize": len(sf), "done": True, "records": sf}))
    (root / "hubspot" / "companies.json").write_text(json.dumps({"results": hs}))
    return root


def claims(wiki: Path) -> list[dict]:
    state = wiki_state(wiki)
    try:
        return [json.loads(x) for x in export_claims(state)]
    finally:
        state.close()


def tier_claims(wiki: Path, page: str) -> list[dict]:
    return [c for c in claims(wiki) if c["subject"] == page
            and c["source_key"].split("/")[1] in ("salesforce", "hubspot")
            and c["value"].lower() in ("gold", "silver", "bronze")]


def test_authority_decides_between_fields_only_induction_joins(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today="2026-11-21")
    got = tier_claims(wiki, "account/dunmore-freight")
    assert len({c["attribute"] for c in got}) == 1, got
    status = {c["source_system"]: c["status"] for c in got}
    assert status == {"salesforce": "winner", "hubspot": "overruled"}
    assert all(c["induced"] and c["mapped"] for c in got)
    schema_md = (wiki / "SCHEMA.md").read_text()
    assert "(induced)" in schema_md and "support\\_level" in schema_md
    # the same corpus with induction off: two winning values on one page, never compared
    off = tmp_path / "off"
    compile_wiki(corpus, off, FolioSettings(schema_induction=False), today="2026-11-21")
    got = tier_claims(off, "account/dunmore-freight")
    assert {c["status"] for c in got} == {"winner"} and len({c["attribute"] for c in got}) == 2


def test_lint_and_schema_induce_list_the_induced_mappings(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today="2026-11-21")
    env = {"PYTHONPATH": str(REPO), "FOLIO_SIGNING": "off", "PATH": "/usr/bin:/bin"}
    folio = [sys.executable, "-c", "import sys; from compiler.cli import app; app()"]
    lint = subprocess.run([*folio, "lint", "--wiki", str(wiki), "--json"], capture_output=True,
                          text=True, env=env, cwd=REPO, check=False)
    induced = json.loads(lint.stdout)["induced"]
    assert {(m["system"], m["field"]) for m in induced} >= {
        ("salesforce", "Contract_Tier__c"), ("hubspot", "support_level")}
    assert all("agree" in m["evidence"] for m in induced)
    target = tmp_path / "suggested.yaml"
    run = subprocess.run([*folio, "schema", "induce", "--wiki", str(wiki), "--out", str(target)],
                         capture_output=True, text=True, env=env, cwd=REPO, check=False)
    assert run.returncode == 0, run.stderr + run.stdout
    again = subprocess.run([*folio, "schema", "induce", "--wiki", str(wiki), "--out", str(target)],
                           capture_output=True, text=True, env=env, cwd=REPO, check=False)
    assert again.returncode == 2 and str(target) in again.stdout + again.stderr
    # accepted: the mappings are declared now, the claims meet as before and are not induced
    shutil.copy(target, corpus / "schema.yaml")
    accepted = tmp_path / "accepted"
    compile_wiki(corpus, accepted, today="2026-11-21")
    got = tier_claims(accepted, "account/dunmore-freight")
    assert {c["source_system"]: c["status"] for c in got} == {
        "salesforce": "winner", "hubspot": "overruled"}
    assert not any(c.get("induced") for c in got)


# -- incremental == clean rebuild while induction changes ------------------------------------
def _tiers(corpus: Path, flips: int) -> None:
    """HubSpot's tiers disagree with Salesforce's on ``flips`` accounts (enough flips and the
    two fields are no longer shown to be one)."""
    tiers = {name: ("bronze" if tier != "Bronze" else "gold")
             for name, tier, _ in ACCOUNTS[:flips]}
    write_corpus(corpus, tiers)


def _rename(corpus: Path, n: int) -> None:
    write_corpus(corpus, hs_field=["support_level", "plan_tier", "care_level"][n % 3])


def _drop(corpus: Path, n: int) -> None:
    path = corpus / "hubspot" / "companies.json"
    data = json.loads(path.read_text())
    data["results"] = data["results"][: max(1, len(data["results"]) - 1 - n % 3)]
    path.write_text(json.dumps(data))


OPS = [_tiers, _rename, _drop]


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(ops=st.lists(st.tuples(st.sampled_from(range(len(OPS))), st.integers(0, 5)),
                    min_size=1, max_size=4))
def test_incremental_equals_clean_rebuild_as_induction_changes(ops: list[tuple[int, int]],
                                                                tmp_path_factory) -> None:  # noqa: ANN001
    root = tmp_path_factory.mktemp("induce")
    corpus = write_corpus(root / "corpus")
    inc = root / "inc"
    compile_wiki(corpus, inc, today="2026-11-21")
    for op, n in ops:
        OPS[op](corpus, n)
        compile_wiki(corpus, inc, today="2026-11-21")
    clean = root / "clean"
    compile_wiki(corpus, clean, today="2026-11-21")
    assert_same_wiki(inc, clean)


def test_turning_induction_on_again_induces_without_a_record_change(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, FolioSettings(schema_induction=False), today="2026-11-21")
    compile_wiki(corpus, wiki, today="2026-11-21")
    assert len({c["attribute"] for c in tier_claims(wiki, "account/alder-works")}) == 1
    clean = tmp_path / "clean"
    compile_wiki(corpus, clean, today="2026-11-21")
    assert_same_wiki(wiki, clean)


def test_an_induction_change_relinks_the_claims_it_maps(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today="2026-11-21")
    assert len({c["attribute"] for c in tier_claims(wiki, "account/alder-works")}) == 1
    _tiers(corpus, 4)  # four of five disagree now: no longer one attribute
    report = compile_wiki(corpus, wiki, today="2026-11-21")
    assert report.schema_changed
    got = tier_claims(wiki, "account/alder-works")
    assert len({c["attribute"] for c in got}) == 2 and not any(c.get("induced") for c in got)


@pytest.mark.parametrize("seed", [5])
def test_generated_company_names_vary_by_seed(seed: int) -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    from companygen.lexicon import Lexicon

    names = {tuple(sorted(Lexicon(s).sf.values())) + tuple(sorted(Lexicon(s).hs.values()))
             for s in range(seed, seed + 6)}
    assert len(names) >= 4


# -- prose attributes --------------------------------------------------------------------------
def prose(rtype: str, entity: str, *facts: tuple[str, str]) -> RecordFields:
    return RecordFields("markdown", "hb", "doc", rtype, f"{rtype}/{entity}", (),
                        tuple((a, v, "") for a, v in facts))


def test_a_phrase_several_records_state_with_typed_values_is_an_attribute() -> None:
    recs = [prose("product", "a", ("battery runtime", "10 hours")),
            prose("product", "b", ("battery runtime", "twelve hours"), ("owner", "Dana")),
            prose("product", "c", ("owner", "Lee"), ("stock", "4 units left")),
            prose("product", "d", ("mood", "calm"))]
    ind = induce(base_schema(), recs)
    assert {(p.attribute, p.value_type) for p in ind.phrases} == {("battery runtime", "duration")}
    spec = ind.attributes[("product", "battery runtime")]
    assert (spec.type, spec.unit, spec.induced) == ("duration", "hours", True)
    # text values (a name) are never induced: where surface phrases contradict themselves
    # without meaning one fact; a one-off phrase neither; the schema's own names are its own
    assert induce(base_schema(), [prose("product", "a", ("price", "$10")),
                                  prose("product", "b", ("price", "$12"))]).phrases == []


def handbook_sources(corpus: Path) -> None:
    """One public markdown source, ``handbook/``, of tenant ``t``."""
    (corpus / "sources.yaml").write_text(yaml.safe_dump({"tenant": "t", "sources": [
        {"path": "handbook", "system": "markdown", "instance": "hb",
         "default_acl": {"public": True}}]}))


def handbook_doc(root: Path, name: str, body: str) -> None:
    """A product page ``name`` of the handbook source."""
    (root / "handbook").mkdir(parents=True, exist_ok=True)
    (root / "handbook" / f"{name}.md").write_text(
        f"---\ntitle: {name}\ntype: product\n---\n\n# {name}\n\n{body}\n")


def test_equal_rank_prose_that_disagrees_on_an_induced_attribute_is_an_open_contradiction(
        tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    handbook_sources(corpus)
    handbook_doc(corpus, "Kestrel Pump", "Battery runtime: 10 hours.\n\nThe Heron Pump page has the rest.")
    handbook_doc(corpus, "Heron Pump", "Battery runtime: 6 hours.\n\nThe battery runtime of Kestrel Pump "
         "is twelve hours.")
    from compiler.lint import lint

    def codes(wiki: Path) -> list[str]:
        from datetime import UTC, datetime

        state = wiki_state(wiki)
        try:
            return sorted(f.code for f in lint(state, wiki, datetime.now(UTC)).findings
                          if "contradiction" in f.code)
        finally:
            state.close()

    on, off = tmp_path / "on", tmp_path / "off"
    compile_wiki(corpus, on, today="2026-11-21")
    compile_wiki(corpus, off, FolioSettings(schema_induction=False), today="2026-11-21")
    kestrel = [c for c in claims(on) if c["subject"] == "product/kestrel-pump"
               and c["attribute"] == "battery runtime"]
    assert {c["normalized"] for c in kestrel} == {"10 hours", "12 hours"}, kestrel
    assert all(c["induced"] and c["status"] == "contested" for c in kestrel)
    assert codes(on) == ["open-contradiction"]
    assert codes(off) in ([], ["possible-contradiction"])
    from compiler.lint import induced_mappings, induced_text

    state = wiki_state(on)
    try:
        listed = induced_mappings(state)
    finally:
        state.close()
    assert [(m.system, m.entity_type, m.attribute) for m in listed] == [
        ("prose", "product", "battery runtime")]
    assert "prose 'battery runtime' → product.battery runtime (new)" in induced_text(listed)


def test_a_fact_stated_of_a_named_entity_is_named_as_linking_names_it() -> None:
    from compiler.schema.induce import prose_fact

    assert prose_fact("battery runtime of kora ecg cart", "The battery runtime of Kora ECG Cart"
                      ) == ("battery runtime", "kora-ecg-cart")
    assert prose_fact("storage at memphis hub", "Storage at Memphis Hub") == ("storage",
                                                                               "memphis-hub")
    # no capitalised name at the end: the attribute stays as extraction wrote it
    assert prose_fact("gold customers a field engineer", "For Gold customers a field engineer"
                      ) == ("gold customers a field engineer", "")
    assert prose_fact("pallet capacity", "Pallet capacity") == ("pallet capacity", "")
    assert prose_fact("time to fix", None) == ("time to fix", "")


def test_a_phrase_stated_of_named_entities_is_declared_on_their_type() -> None:
    # only comparison pages (topics) state it, of products: the products' attribute
    page = RecordFields("confluence", "c", "page", "product", "product/kora-ecg-cart",
                        (("code", "K-1"),))
    recs = [page, RecordFields("confluence", "c", "page", "topic", "topic/comparison", (),
                               (("battery runtime", "16 hours", "kora-ecg-cart"),)),
            RecordFields("confluence", "c", "page", "topic", "topic/bench-report", (),
                         (("battery runtime", "eight hours", "kora-ecg-cart"),))]
    ind = induce(base_schema(), recs)
    assert [(p.entity_types, p.attribute) for p in ind.phrases] == [(("product",),
                                                                     "battery runtime")]


def test_versions_and_opening_hours_are_shaped_text_free_text_is_not() -> None:
    from compiler.schema.induce import prose_kind

    assert prose_kind("3.3.5") == ("code", None)
    assert prose_kind("open 07:00-19:00") == ("code", None)
    assert prose_kind("13:00") == ("code", None)
    assert prose_kind("main ward") is None
    assert prose_kind("3.5") == ("number", None)
    recs = [prose("product", "a", ("current firmware", "3.3.5")),
            prose("product", "a", ("current firmware", "3.3.6")),
            prose("site", "b", ("duty manager", "Dana Lee")),
            prose("site", "c", ("duty manager", "Lee Dana"))]
    recs[1] = RecordFields("jira", "j", "issue", "product", "product/a", (),
                           (("current firmware", "3.3.6", ""),))
    ind = induce(base_schema(), recs)
    assert [(p.attribute, p.value_type) for p in ind.phrases] == [("current firmware", "code")]
    assert ind.attributes[("product", "current firmware")].type == "text"


def test_incremental_equals_clean_rebuild_as_a_prose_attribute_comes_and_goes(
        tmp_path: Path) -> None:
    # one page states the phrase (no attribute), a second makes it one, then it is edited away
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    handbook_sources(corpus)
    handbook_doc(corpus, "Kestrel Pump", "Battery runtime: 10 hours.")
    handbook_doc(corpus, "Heron Pump", "The Kestrel Pump page has the rest.")
    inc = tmp_path / "inc"
    compile_wiki(corpus, inc, today="2026-11-21")
    steps = ["The battery runtime of Kestrel Pump is twelve hours.", "Firmware: 1.2.3.",
             "The battery runtime of Kestrel Pump is 10 hours."]
    for i, body in enumerate(steps):
        handbook_doc(corpus, "Heron Pump", body)
        compile_wiki(corpus, inc, today="2026-11-21")
        clean = tmp_path / f"clean{i}"
        compile_wiki(corpus, clean, today="2026-11-21")
        assert_same_wiki(inc, clean)
        runtime = [c for c in claims(inc) if c["attribute"] == "battery runtime"]
        assert all(c.get("induced") for c in runtime) == (i != 1), runtime


def test_a_value_counting_an_attribute_states_that_attribute(tmp_path: Path) -> None:
    # two site pages make "pallet positions" a number attribute; a bulletin's "Storage at
    # Ostend Hub: 9,300 pallet positions" states it too, and disagrees at equal rank
    corpus = tmp_path / "corpus"
    (corpus / "handbook").mkdir(parents=True)
    handbook_sources(corpus)
    for name, n in (("Ostend Hub", "8,900"), ("Lyon Hub", "4,100")):
        (corpus / "handbook" / f"{name}.md").write_text(
            f"---\ntitle: {name}\ntype: site\n---\n\n# {name}\n\nPallet positions: {n}.\n")
    (corpus / "handbook" / "bulletin.md").write_text(
        "---\ntitle: Bulletin\n---\n\n# Bulletin\n\nStorage at Ostend Hub: 9,300 pallet "
        "positions.\n")
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today="2026-11-21")
    got = {c["normalized"] for c in claims(wiki) if c["subject"] == "site/ostend-hub"
           and c["attribute"] == "pallet positions" and c["status"] == "contested"}
    assert got == {"8900", "9300"}


# -- a bounded sample (compiler/schema/induce_store.py) ---------------------------------------
def _many_accounts(root: Path, n: int, drop: int = 0) -> Path:
    """``n`` accounts in Salesforce and HubSpot whose tier fields agree (every fifth one not),
    the last ``drop`` of HubSpot's left out."""
    corpus = write_corpus(root)
    tiers = ["Gold", "Silver", "Bronze"]
    sf = [{"attributes": {"type": "Account"}, "Id": f"001B{i:014d}", "Name": f"Account {i:03d}",
           "Contract_Tier__c": tiers[i % 3], "LastModifiedDate": "2026-10-01T00:00:00.000+0000"}
          for i in range(n)]
    hs = [{"id": str(900 + i), "properties": {
        "name": f"Account {i:03d}", "support_level": tiers[(i + (i % 5 == 4)) % 3].lower()},
        "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-10-02T00:00:00.000Z",
        "archived": False} for i in range(n - drop)]
    (corpus / "salesforce" / "accounts.json").write_text(json.dumps(
        {"totalSize": len(sf), "done": True, "records": sf}))
    (corpus / "hubspot" / "companies.json").write_text(json.dumps({"results": hs}))
    return corpus


def test_induction_reads_a_bounded_sample_of_whole_entities(tmp_path: Path) -> None:
    import sqlite3

    from compiler.schema import induce_store

    corpus = _many_accounts(tmp_path / "corpus", 80)
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, FolioSettings(schema_induction_sample=100), today="2026-11-21")
    db = sqlite3.connect(wiki / ".folio" / "state.db")
    try:
        every = list(induce_store.inputs(db, 10_000))
        sample = list(induce_store.inputs(db, 100))
    finally:
        db.close()
    assert len(every) == 160 and len(sample) == 100  # an edit no longer reads every record
    assert all(r in every for r in sample)
    # whole entities: both systems' records of an entity are in, but at the sample's edge
    per_entity: dict[str, int] = {}
    for r in sample:
        per_entity[r.entity] = per_entity.get(r.entity, 0) + 1
    assert sum(1 for c in per_entity.values() if c == 1) <= 1
    # the sample is evidence enough: the two tier fields are one attribute
    got = tier_claims(wiki, "account/account-004")
    assert len({c["attribute"] for c in got}) == 1, got
    assert {c["source_system"]: c["status"] for c in got} == {"salesforce": "winner",
                                                               "hubspot": "overruled"}


def test_incremental_equals_clean_rebuild_while_the_sample_moves(tmp_path: Path) -> None:
    settings_ = FolioSettings(schema_induction_sample=100)
    corpus = _many_accounts(tmp_path / "corpus", 80)
    inc = tmp_path / "inc"
    compile_wiki(corpus, inc, settings_, today="2026-11-21")
    for drop in (7, 30, 2):  # fewer records: other entities move into the sample
        _many_accounts(tmp_path / "corpus", 80, drop=drop)
        compile_wiki(corpus, inc, settings_, today="2026-11-21")
    clean = tmp_path / "clean"
    compile_wiki(corpus, clean, settings_, today="2026-11-21")
    assert_same_wiki(inc, clean)


def test_an_edit_that_keeps_every_records_fields_does_not_induce_again(tmp_path: Path) -> None:
    """Induction is a function of the records' fields and unmapped facts: a changed record
    whose fields and facts are as they were (a new modification time) leaves it as it was, so
    it is not recomputed (a 1 % edit of prose at 10k records spent an eighth of its CPU here);
    an edited field still is."""
    from compiler.schema import induce_store

    corpus = write_corpus(tmp_path / "corpus")
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today="2026-11-21")
    start = induce_store.STAGE_RUNS.copy()

    def calls() -> Counter:
        return induce_store.STAGE_RUNS - start

    path = corpus / "hubspot" / "companies.json"
    data = json.loads(path.read_text())
    data["results"][0]["updatedAt"] = "2026-11-02T00:00:00.000Z"
    path.write_text(json.dumps(data))
    report = compile_wiki(corpus, wiki, today="2026-11-21")
    assert report.records_extracted == 1 and not calls()

    _tiers(corpus, 4)  # the tiers disagree now: fields changed, induction runs again
    report = compile_wiki(corpus, wiki, today="2026-11-21")
    assert calls()["fields"] == 1 and report.schema_changed
    clean = tmp_path / "clean"
    compile_wiki(corpus, clean, today="2026-11-21")
    assert_same_wiki(wiki, clean)


# -- induction's stages kept (compiler/schema/induce_store.py ``induced``) ----------------------
def _with_handbook(root: Path) -> Path:
    """The CRM corpus (fields to induce from) and handbook pages stating facts in sentences
    (statements to induce from)."""
    from test_statement_facts import DOCS

    corpus = write_corpus(root)
    sources = yaml.safe_load((corpus / "sources.yaml").read_text())
    sources["sources"].append({"path": "handbook", "system": "markdown", "instance": "hb",
                               "default_acl": {"public": True}})
    (corpus / "sources.yaml").write_text(yaml.safe_dump(sources))
    (corpus / "handbook").mkdir()
    for name, (etype, body) in DOCS.items():
        (corpus / "handbook" / f"{name}.md").write_text(
            f"---\ntitle: {name}\ntype: {etype}\n---\n\n# {name}\n\n{body}\n")
    return corpus


def _stored_induction(wiki: Path) -> str:
    state = wiki_state(wiki)
    try:
        return state.meta("induced")
    finally:
        state.close()


def test_an_edited_sentence_runs_the_statements_stage_alone_and_induces_what_clean_does(
        tmp_path: Path) -> None:
    """A statement row holds its sentence as written, so an edited sentence changes the row;
    induction then runs only the stage that reads sentences (the benchmark's 1 % edit re-ran
    all of it, reading the 3,000-row sample: ~1.3 ms of CPU per edited record at 10k), and
    the schema it induces is a clean compile's."""
    from compiler.schema import induce_store

    corpus = _with_handbook(tmp_path)
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today="2026-11-21")
    assert "offline" in _stored_induction(wiki)  # the two offline windows are one attribute

    review = corpus / "handbook" / "Q4 Product Review.md"
    review.write_text(review.read_text().replace("48 hours", "36 hours").replace(
        "device;", "device (revision 1);"))
    before = induce_store.STAGE_RUNS.copy()
    report = compile_wiki(corpus, wiki, today="2026-11-21")
    assert report.records_extracted == 1
    ran = induce_store.STAGE_RUNS - before
    assert ran == {"statements": 1}  # fields, phrases and rows kept: their parts are unchanged
    clean = tmp_path / "clean"
    compile_wiki(corpus, clean, today="2026-11-21")
    assert _stored_induction(wiki) == _stored_induction(clean)
    assert "offline" in _stored_induction(wiki)
    assert_same_wiki(wiki, clean)

    # the sentence no longer states the window (nor a prose fact of it): the stages reading
    # either run, and the attribute is gone as in a clean compile
    review.write_text(review.read_text().replace("is 36 hours", "is short"))
    before = induce_store.STAGE_RUNS.copy()
    compile_wiki(corpus, wiki, today="2026-11-21")
    ran = induce_store.STAGE_RUNS - before
    assert ran["statements"] == 1 and ran["rows"] == 1 and ran["fields"] == 0
    shutil.rmtree(clean)
    compile_wiki(corpus, clean, today="2026-11-21")
    assert "offline" not in _stored_induction(wiki)
    assert _stored_induction(wiki) == _stored_induction(clean)
    assert_same_wiki(wiki, clean)


def _rows_db(records: list[tuple[str, dict, list[dict]]]):  # noqa: ANN202
    """An in-memory state holding only what the induction store reads of the records table."""
    import sqlite3

    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE records (key TEXT PRIMARY KEY, entity_id TEXT, record_json TEXT, "
               "extraction_json TEXT)")
    for key, record, claims_ in records:
        db.execute("INSERT INTO records VALUES (?, ?, ?, ?)",
                   (key, record.pop("entity"), json.dumps(record),
                    json.dumps({"claims": claims_})))
    return db


def test_the_phrases_stage_is_kept_across_sentence_edits_only_while_it_reads_no_sentence(
        ) -> None:
    """A prose name one record states counts as stated twice when another record's sentence
    states it (``statement_support``): the phrases stage then read the sentences, and an edit
    of one runs it again; otherwise it is kept."""
    from compiler.schema import induce_store

    fact = {"kind": "fact", "attribute": "current firmware", "value": "4.2.1",
            "subject_phrase": "current firmware of Orbis Pulse Oximeter", "mapped": False}

    def sentence(text: str) -> dict:
        return {"kind": "statement", "value": text}

    def page(name: str, *claims_: dict) -> tuple[str, dict, list[dict]]:
        return (f"t/markdown/hb/page/{name}", {"system": "markdown", "instance": "hb",
                                               "type": "page", "entity_type": "product",
                                               "entity": f"product/{name}", "fields": {}},
                list(claims_))

    said = "Orbis Pulse Oximeter runs firmware 4.2.0 as its release."

    def edit(db, text: str) -> Induction:  # noqa: ANN001
        db.execute("UPDATE records SET extraction_json=? WHERE key LIKE '%release-notes'",
                   (json.dumps({"claims": [sentence(text)]}),))
        _, touched = induce_store.refresh(db, induce_store._VERSION, ["t/markdown/hb/page/release-notes"], [],
                                          full=False)
        assert touched
        return induce_store.induced(db, schema, "b", 3000)

    schema = base_schema()
    db = _rows_db([page("orbis-pulse-oximeter", fact), page("release-notes", sentence(said))])
    induce_store.refresh(db, None, [], [], full=True)
    got = induce_store.induced(db, schema, "b", 3000)
    assert got.to_json() == induce(schema, induce_store.inputs(db, 3000)).to_json()
    assert [p.attribute for p in got.phrases] == ["current firmware"]  # two records state it
    before = induce_store.STAGE_RUNS.copy()
    got = edit(db, "Kestrel Assess runs firmware 4.2.0 as its release.")  # no longer of Orbis
    assert (induce_store.STAGE_RUNS - before)["phrases"] == 1
    assert got.to_json() == induce(schema, induce_store.inputs(db, 3000)).to_json()
    assert got.phrases == []

    # a name of one word needs no sentence: the phrases stage reads none, and is kept
    db = _rows_db([page("orbis-pulse-oximeter", {**fact, "attribute": "firmware"}),
                   page("release-notes", sentence(said))])
    induce_store.refresh(db, None, [], [], full=True)
    induce_store.induced(db, schema, "b", 3000)
    before = induce_store.STAGE_RUNS.copy()
    got = edit(db, "Kestrel Assess runs firmware 4.2.0 as its release.")
    assert (induce_store.STAGE_RUNS - before) == {"statements": 1}
    assert got.to_json() == induce(schema, induce_store.inputs(db, 3000)).to_json()

"""The second example company (benchmarks/companygen), its truth and question sets, and
benchmarks/quality_bench.py end to end. Structure and determinism, not quality thresholds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from compiler.models import SourceRecord
from compiler.policy import AuthorityPolicy
from compiler.schema.model import Schema
from connectors.base import RecordError
from connectors.loader import discover, load_manifest, read_input
from connectors.registry import get_connector

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from companygen import generate  # noqa: E402
from companygen import values as V  # noqa: E402

import quality_bench  # noqa: E402

SEED = 3
KINDS = {"single", "multi", "contested", "restricted", "unanswerable"}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("company") / "co"
    generate(SEED, out)
    return out


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _parse(root: Path) -> tuple[list[SourceRecord], list[RecordError]]:
    manifest = load_manifest(root)
    files, errors = discover(root, manifest)
    records: list[SourceRecord] = []
    for f in files:
        data = read_input(f, 50_000_000)
        assert isinstance(data, bytes), data
        for item in get_connector(f.source.system).parse(f.rel, data, f.source, manifest.tenant):
            (records if isinstance(item, SourceRecord) else errors).append(item)
    return records, list(errors)


def _src(key: str) -> tuple[str, str, str]:
    parts = key.split("/", 4)
    return parts[1], parts[2], parts[4]


def test_generator_is_deterministic_by_seed(corpus: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    generate(SEED, again)
    assert _files(again) == _files(corpus)
    other = tmp_path / "other"
    generate(SEED + 1, other)
    assert _files(other) != _files(corpus)
    assert _files(other).keys() == _files(corpus).keys()


def test_generator_cli_is_deterministic_across_processes(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "cli"
    run = subprocess.run([sys.executable, str(REPO / "benchmarks/company_gen.py"), "--seed", str(SEED),
                          "--out", str(out)], capture_output=True, text=True, cwd=str(REPO),
                         env={**os.environ, "PYTHONHASHSEED": "12345"}, check=False)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["questions"] >= 40
    assert _files(out) == _files(corpus)


def test_exports_parse_with_the_connectors(corpus: Path) -> None:
    records, errors = _parse(corpus)
    # The two inputs issue 20 item 4 makes legal (an organizations export, a markdown note
    # without `updated`) are the only ones a connector may still reject.
    for e in errors:
        legal_later = (e.path == "zendesk/organizations.json"
                       or (e.path.endswith(".md") and e.field == "updated"))
        assert legal_later, str(e)
    systems = Counter(r.system for r in records)
    assert set(systems) == {"confluence", "jira", "zendesk", "salesforce", "hubspot", "markdown"}
    assert 85 <= len(records) + 11 <= 220
    labelled = {r.title: r.labels for r in records if r.system == "confluence"}
    assert {"approved", "draft"} <= set(labelled["Device Returns Policy 2027 Revision"])
    restricted = [r for r in records if r.system == "confluence" and r.acl.groups == ("finance",)]
    assert len(restricted) == 1


def test_corpus_configuration_is_valid(corpus: Path) -> None:
    schema = Schema.model_validate(yaml.safe_load((corpus / "schema.yaml").read_text()))
    assert {"account", "product", "policy", "site"} <= set(schema.types)
    assert "service plan" in schema.qualifiers
    raw = yaml.safe_load((corpus / "authority.yaml").read_text())
    assert raw["rules"][0]["match"]["labels_not"] == ["draft"]
    prepared, notes = quality_bench.prepare_corpus(corpus, corpus.parent / "prep")
    policy = AuthorityPolicy.model_validate(yaml.safe_load((prepared / "authority.yaml").read_text()))
    assert [r.name for r in policy.rules][0] == "approved-policy"
    assert all("labels_not" in n for n in notes)
    directory = yaml.safe_load((corpus / "directory.yaml").read_text())
    assert {"ines", "omar", "sven", "kim", "lee"} == set(directory["users"])


def test_truth_points_at_real_records_and_pages(corpus: Path) -> None:
    truth = yaml.safe_load((corpus / "truth.yaml").read_text())
    records, _ = _parse(corpus)
    known = {(r.system, r.instance, r.id) for r in records}
    known |= {("zendesk", "corvane.zendesk.com", str(o["id"])) for o in
              json.loads((corpus / "zendesk/organizations.json").read_text())["organizations"]}
    known.add(("markdown", "handbook", "singapore"))
    pages = {e["page"] for e in truth["entities"]}
    for f in truth["facts"]:
        assert _src(f["source"]) in known, f
        assert f["page"] in pages, f
        assert f["kind"] in ("structured", "prose")
        assert V.key(f["type"], f["value"]) is not None, f
    for section in ("authority_conflicts", "recency_conflicts"):
        for x in truth[section]:
            assert x["page"] in pages
            assert x["overruled"] and all(_src(o["source"]) in known for o in x["overruled"])
            assert all(not V.same(x["type"], o["value"], x["winner"]["value"]) for o in x["overruled"])
    for x in truth["recency_conflicts"]:
        stamps = x["timestamps"]
        assert len(set(stamps.values())) == len(stamps)
        assert stamps[x["winner"]["sources"][0]] == max(stamps.values())
    for c in truth["contested"]:
        assert len({V.key(c["type"], v["value"]) for v in c["values"]}) == len(c["values"]) >= 2
    assert len(truth["authority_conflicts"]) >= 10
    assert len(truth["recency_conflicts"]) >= 6
    assert len(truth["contested"]) >= 6
    assert {"Nordwind Freight GmbH", "Nordwind Freight", "NORDWIND"} in [
        {m["name"] for m in g["members"]} for g in truth["alias_groups"]]
    assert len(truth["injections"]) >= 2 and len(truth["restricted"]) >= 3
    prose = [f for f in truth["facts"] if f["kind"] == "prose"]
    assert len({f["written"] for f in prose}) == len(prose) or len(prose) > 40


def _check_questions(questions: list[dict], pages: set[str], principals: set[str], least: int) -> None:
    assert len(questions) >= least
    assert len({q["id"] for q in questions}) == len(questions)
    kinds = Counter(q["kind"] for q in questions)
    assert set(kinds) == KINDS
    assert kinds["unanswerable"] >= 10
    for q in questions:
        assert q["question"].endswith("?") or q["question"].endswith(".")
        assert q["principal"] is None or q["principal"] in principals, q
        assert set(q["gold_pages"]) <= pages, q
        if q["kind"] == "unanswerable":
            assert not q["gold_pages"] and not q["gold_values"]
        else:
            assert q["gold_pages"] and q["gold_values"], q
        if q["kind"] == "restricted":
            assert q["principal"], q


def test_question_sets(corpus: Path) -> None:
    truth = yaml.safe_load((corpus / "truth.yaml").read_text())
    directory = yaml.safe_load((corpus / "directory.yaml").read_text())
    questions = yaml.safe_load((corpus / "questions.yaml").read_text())
    _check_questions(questions, {e["page"] for e in truth["entities"]}, set(directory["users"]), 40)
    acme = yaml.safe_load((REPO / "benchmarks/truth/acme.yaml").read_text())
    acme_dir = yaml.safe_load((REPO / "examples/acme/directory.yaml").read_text())
    _check_questions(yaml.safe_load((REPO / "benchmarks/truth/acme-questions.yaml").read_text()),
                     {e["page"] for e in acme["entities"]}, set(acme_dir["users"]), 25)


def test_acme_truth_points_at_acme_records() -> None:
    truth = yaml.safe_load((REPO / "benchmarks/truth/acme.yaml").read_text())
    records, errors = _parse(REPO / "examples/acme")
    assert not errors
    known = {(r.system, r.instance, r.id): r for r in records}
    for f in truth["facts"]:
        rec = known[_src(f["source"])]
        if f["kind"] == "prose":  # the sentence or table cell is in the record's text
            cell = f["written"].split(" | ")[-1].split(": ")[-1].strip(".")
            assert cell.replace("[[", "").replace("]]", "")[:12] in rec.body.replace("\n", " "), f
        else:
            assert f["written"].lower() in {str(v).lower() for v in rec.fields.values()} | {
                ref.target_name.lower() for ref in rec.references}, f
    assert {x["page"] for x in truth["authority_conflicts"]} == {"policy/return-policy", "account/globex"}
    assert [c["page"] for c in truth["contested"]] == ["product/acme-cloud"]


def test_values_normalisation() -> None:
    assert V.same("duration", "30 days", "thirty days")
    assert V.same("duration", "30-day", "30 days")
    assert V.same("duration", "2 years", "24 months")
    assert not V.same("duration", "2 business days", "2 days")
    assert V.same("money", "$1.2M", "USD 1,200,000")
    assert V.same("money", "2400000000.0", "2400000000 USD")
    assert not V.same("money", "EUR 5", "5 USD")
    assert V.same("percent", "15 percent", "15%")
    assert V.same("date", "March 1, 2026", "2026-03-01")
    assert V.same("date", "1 March 2026", "2026-03-01T00:00:00.000Z")
    assert V.same("enum", "Food & Beverage", "food and beverage")
    assert not V.same("enum", "FOOD_BEVERAGES", "Food & Beverage")
    assert V.same("duration", "NET 45", "45 days")


def _claim(**kw: object) -> dict:
    base = {"claim_id": "c1", "subject": "policy/device-returns-policy", "attribute": "rma window",
            "value": "60 days", "kind": "fact", "status": "winner",
            "source_key": "corvane/confluence/corvane.atlassian.net/page/52002"}
    return base | kw


def test_scorer_matches_schema_and_legacy_claims() -> None:
    truth = {"entities": [{"page": "policy/device-returns-policy", "type": "policy",
                           "name": "Device Returns Policy", "aliases": []}],
             "facts": [{"id": "f1", "page": "policy/device-returns-policy", "attribute": "rma window",
                        "qualifiers": {"service plan": "Gold"}, "type": "duration",
                        "value": "60 days", "kind": "prose", "written": "x",
                        "source": "corvane/confluence/corvane.atlassian.net/page/52002"}]}
    schema = quality_bench.Scorer(truth, [_claim(qualifiers={"service plan": "Gold"},
                                                 value="sixty days", normalized="60 days")], [])
    assert schema.schema_mode and schema.recall()["prose"] == {"found": 1, "total": 1}
    wrong_tier = quality_bench.Scorer(truth, [_claim(qualifiers={"service plan": "Basic"})], [])
    assert wrong_tier.recall()["prose"]["found"] == 0
    legacy = quality_bench.Scorer(truth, [_claim(attribute="rma window for gold customers")], [])
    assert not legacy.schema_mode and legacy.recall()["prose"]["found"] == 1
    other_words = quality_bench.Scorer(truth, [_claim(attribute="gold customers")], [])
    assert other_words.recall()["prose"]["found"] == 0


def test_a_qualifier_is_forgiven_its_name_as_an_attribute_is_never_its_value() -> None:
    truth = {"entities": [{"page": "policy/device-returns-policy", "type": "policy",
                           "name": "Device Returns Policy", "aliases": []}],
             "facts": [{"id": "f1", "page": "policy/device-returns-policy", "attribute": "rma window",
                        "qualifiers": {"service plan": "Gold"}, "type": "duration",
                        "value": "60 days", "kind": "prose", "written": "x",
                        "source": "corvane/confluence/corvane.atlassian.net/page/52002"}]}
    names = {"service plan": {"plan level", "support tier"}}
    named = quality_bench.Scorer(truth, [_claim(qualifiers={"plan level": "Gold"})], [], names)
    assert named.recall()["prose"]["found"] == 1
    other = quality_bench.Scorer(truth, [_claim(qualifiers={"plan level": "Basic"})], [], names)
    assert other.recall()["prose"]["found"] == 0
    unknown = quality_bench.Scorer(truth, [_claim(qualifiers={"region": "Gold"})], [], names)
    assert unknown.recall()["prose"]["found"] == 0
    # -v: the miss, with the claims its source record gave
    result = quality_bench.score(truth, {"claims": other.claims, "findings": [], "as": {},
                                         "seconds": 0.0, "rejected_inputs": False}, [], names)
    text = result.pop("_scorer").explain(result)
    assert "-- fact f1" in text and "rma window{'plan level': 'Basic'} = '60 days'" in text


def test_bench_end_to_end(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, str(REPO / "benchmarks/quality_bench.py"), "--seed", str(SEED),
                          "--workdir", str(tmp_path / "w")], capture_output=True, text=True,
                         cwd=str(REPO), check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    for label in quality_bench.LABELS.values():
        assert label in run.stdout
    assert "corvane-seed-3" in run.stdout and ("met" in run.stdout or "MISSED" in run.stdout)
    js = subprocess.run([sys.executable, str(REPO / "benchmarks/quality_bench.py"), "--corpus",
                         str(REPO / "examples/acme"), "--truth", str(REPO / "benchmarks/truth/acme.yaml"),
                         "--json", "--workdir", str(tmp_path / "a")], capture_output=True, text=True,
                        cwd=str(REPO), check=False)
    assert js.returncode == 0, js.stderr[-3000:]
    (result,) = json.loads(js.stdout)
    assert result["corpus"] == "acme"
    assert set(result["figures"]) == set(quality_bench.TARGETS) == set(result["met"])
    for k, v in result["figures"].items():
        if v is not None and k.endswith(("recall", "winners", "recorded", "reported", "merges", "share")) \
                and k != "false_merges":
            assert 0.0 <= v <= 1.0, (k, v)
    assert result["claims"] > 100
    assert quality_bench.table(result).count("\n") >= len(quality_bench.TARGETS) + 2


def test_alias_group_is_merged_only_on_one_page() -> None:
    sf = "corvane/salesforce/corvane-prod/Account/001A"
    hs = "corvane/hubspot/corvane-marketing/company/77"
    zd = "corvane/zendesk/corvane.zendesk.com/organization/9"
    truth = {"entities": [{"page": "account/nordwind-freight", "type": "account",
                           "name": "Nordwind Freight GmbH", "aliases": ["Nordwind Freight", "NORDWIND"]}],
             "facts": [],
             "alias_groups": [{"page": "account/nordwind-freight", "type": "account", "members": [
                 {"name": "Nordwind Freight GmbH", "source": sf}, {"name": "Nordwind Freight", "source": hs},
                 {"name": "NORDWIND", "source": zd}]}]}

    def claims(zd_page: str) -> list[dict]:
        return [_claim(claim_id=f"c{i}", subject=page, attribute="name", value=n, kind="field", source_key=k)
                for i, (page, n, k) in enumerate([("account/nordwind-freight", "Nordwind Freight GmbH", sf),
                                                  ("account/nordwind-freight", "Nordwind Freight", hs),
                                                  (zd_page, "NORDWIND", zd)])]

    merged = quality_bench.Scorer(truth, claims("account/nordwind-freight"), []).aliases()
    assert (merged["merged"], merged["false_merges"]) == (1, 0)
    split = quality_bench.Scorer(truth, claims("account/nordwind"), []).aliases()
    assert split["merged"] == 0
    assert split["missed"][0]["landed"] == ["account/nordwind-freight", "account/nordwind-freight",
                                           "account/nordwind"]

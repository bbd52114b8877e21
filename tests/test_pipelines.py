"""Prefect flows over two sites and a central store (issue 5), on Prefect's test harness.

The Acme corpus is split the way a platform team would deploy it: ``emea`` holds Confluence,
Jira and the handbook, ``us`` holds both Salesforce orgs. Each site extracts only its own
records and ships a claim set; the aggregation compiles them into one signed wiki in the store.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from compiler.build import compile_wiki
from compiler.provenance.reproducible import reproducible_files
from conftest import ACME, TODAY, flat
from pipeline_sites import SITES, make_topology


def store_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted((root / "store").rglob("*")) if p.is_file())


def test_two_sites_aggregate_to_the_same_wiki_as_one_compile(prefect_harness, tmp_path: Path):
    from pipelines.flows import compile_all

    config = make_topology(tmp_path)
    result = compile_all(str(config), today=TODAY)
    assert result["sites"]["emea"]["extract"]["records"] > 0
    assert result["sites"]["us"]["extract"]["records"] > 0
    agg = result["aggregate"]
    assert agg["gather"]["sites"] == {
        "emea": result["sites"]["emea"]["extract"]["records"],
        "us": result["sites"]["us"]["extract"]["records"]}
    assert agg["compile"]["errors"] == []
    assert agg["publish"]["generation"] == 1

    direct = tmp_path / "direct"
    compile_wiki(ACME, direct, today=TODAY)
    central = reproducible_files(tmp_path / "central" / "wiki")
    assert central == reproducible_files(direct)

    # the published index verifies from the store, and answers like the local wiki
    from typer.testing import CliRunner

    from pipelines.folio_cli import app

    runner = CliRunner()
    env = {"FOLIO_CACHE_DIR": str(tmp_path / "cache")}
    store_url = f"file://{tmp_path / 'store'}"
    ok = runner.invoke(app, ["verify", "--wiki", store_url], env=env)
    assert ok.exit_code == 0, ok.output
    q = runner.invoke(app, ["query", "What is the return window for Enterprise customers?",
                            "--wiki", store_url], env=env)
    assert q.exit_code == 0, q.output
    text = flat(q.output)
    assert "return window (Enterprise): 60 days" in text
    assert "acme/confluence/acme.atlassian.net/page/33001@7" in text


def test_one_record_change_recompiles_only_the_pages_citing_it(prefect_harness, tmp_path: Path):
    from pipelines.flows import aggregate, site_compile

    config = make_topology(tmp_path)
    for s in SITES:
        site_compile(str(config), s)
    first = aggregate(str(config), today=TODAY)

    # edit one Jira issue's summary at emea
    page = tmp_path / "emea" / "corpus" / "jira" / "search-page-1.json"
    doc = json.loads(page.read_text())
    issue = doc["issues"][0]
    issue["fields"]["summary"] = issue["fields"]["summary"] + " (escalated)"
    issue["fields"]["updated"] = "2026-11-20T10:00:00.000+0000"
    page.write_text(json.dumps(doc))

    us = site_compile(str(config), "us")
    assert us["extract"]["extracted"] == 0 and us["uploaded"] == 0
    emea = site_compile(str(config), "emea")
    assert emea["extract"]["extracted"] == 1
    assert len(emea["extract"]["shards_written"]) == 1
    assert emea["uploaded"] == 3  # the one new shard, the site's signature over the new manifest, the manifest
    second = aggregate(str(config), today=TODAY)
    assert second["gather"]["downloaded"] == 1
    assert second["compile"]["extracted"] == 1
    assert second["publish"]["generation"] == first["publish"]["generation"] + 1

    # the same edit compiled directly touches the same pages
    direct_src = tmp_path / "direct-src"
    shutil.copytree(ACME, direct_src)
    compile_wiki(direct_src, tmp_path / "direct", today=TODAY)
    direct_page = direct_src / "jira" / "search-page-1.json"
    direct_page.write_text(json.dumps(doc))
    direct = compile_wiki(direct_src, tmp_path / "direct", today=TODAY)
    assert sorted(second["compile"]["written"]) == sorted(direct.written)
    assert 0 < len(direct.written) < direct.pages_total


def test_raw_text_stays_at_its_site(prefect_harness, tmp_path: Path):
    """Default policy: no body leaves. ``quotes: false``: no source sentence either."""
    from compiler.claimset import ClaimSetEntry
    from pipelines.flows import site_compile

    config = make_topology(tmp_path, share={"raw": False, "quotes": False})
    site_compile(str(config), "emea")
    pol = json.loads((ACME / "confluence" / "pol.json").read_text())
    body_html = pol["results"][0]["body"]["storage"]["value"]
    shipped = store_bytes(tmp_path)
    assert shipped, "nothing was shipped"
    # every sentence of the page body: none may appear in what the site shipped
    from connectors.xhtml import storage_to_text

    text = storage_to_text(body_html)
    text = getattr(text, "text", text)
    sentences = [s.strip() for s in str(text).split(".") if len(s.strip()) > 30]
    assert sentences
    for s in sentences:
        assert s.encode() not in shipped, s
    shards = [p for p in (tmp_path / "store").rglob("*.jsonl")]
    entries = [ClaimSetEntry.model_validate_json(line) for p in shards
               for line in p.read_text().splitlines()]
    assert entries and all(e.record.body == "" and e.record.fields == {} for e in entries)
    assert all(c.quote == "" and c.kind != "statement" for e in entries
               for c in e.extraction.claims)


def test_store_tampering_of_a_shard_is_refused(prefect_harness, tmp_path: Path):
    from compiler.store.base import BlobCorrupt
    from pipelines.flows import aggregate, site_compile

    config = make_topology(tmp_path)
    site_compile(str(config), "us")
    site_compile(str(config), "emea")
    shard = sorted((tmp_path / "store" / "sites" / "us" / "shards").glob("*.jsonl"))[0]
    shard.write_bytes(shard.read_bytes().replace(b"acme", b"acmx", 1))
    with pytest.raises(BlobCorrupt, match=shard.name):
        aggregate(str(config), today=TODAY)
    # shards are content-addressed, so a damaged one is not overwritten in place: once it is
    # removed, the site's next run ships it again
    shard.unlink()
    site_compile(str(config), "us")
    assert aggregate(str(config), today=TODAY)["publish"]["generation"] == 1


def test_freshness_reports_late_pages(prefect_harness, tmp_path: Path):
    from pipelines.flows import compile_all, freshness

    config = make_topology(tmp_path)
    compile_all(str(config), today=TODAY)
    on_time = freshness(str(config), now="2026-11-21T00:00:00+00:00")
    late = freshness(str(config), now="2030-01-01T00:00:00+00:00")
    assert late["sources_checked"] == on_time["sources_checked"] > 0
    assert len(late["late"]) > len(on_time["late"])
    assert all(p["overdue_hours"] > 0 for p in late["late"])


def test_sites_file_errors_name_the_field(tmp_path: Path):
    from pipelines.topology import TopologyError, load_topology

    bad = tmp_path / "sites.yaml"
    bad.write_text(yaml.safe_dump({"tenant": "acme", "store": "s", "central": {
        "workdir": "c", "authority": "a.yaml"}, "sites": [
        {"name": "EMEA!", "corpus": "x", "workdir": "y"}]}))
    with pytest.raises(TopologyError, match=r"sites\.0\.name"):
        load_topology(bad)
    bad.write_text(yaml.safe_dump({"tenant": "acme", "store": "s", "central": {
        "workdir": "c", "authority": "a.yaml"}, "sites": [
        {"name": "a", "corpus": "x", "workdir": "y"}, {"name": "a", "corpus": "x", "workdir": "z"}]}))
    with pytest.raises(TopologyError, match="unique"):
        load_topology(bad)


def test_bridge_triggers_one_idempotent_run_per_debounced_batch(prefect_harness, tmp_path: Path):
    from prefect.client.orchestration import get_client

    from compiler.settings import FolioSettings
    from connectors.bus.base import Topics
    from connectors.bus.memory import InProcessBus
    from connectors.events import encode, record_event
    from eventdata import ticket
    from pipelines.bridge import Bridge, prefect_trigger
    from pipelines.flows import site_compile

    with get_client(sync_client=True) as client:
        flow_id = client.create_flow(site_compile)
        deployment_id = client.create_deployment(
            flow_id=flow_id, name="emea", entrypoint="pipelines/flows.py:site_compile")

    bus = InProcessBus(Topics("folio", "acme"))
    site_sub = bus.subscribe("emea", ["jira"])
    bridge_sub = bus.subscribe("emea", ["jira"], group="folio-bridge-emea")
    settings = FolioSettings(events={"debounce_ms": 50, "max_batch_wait_ms": 500})
    # a storm: five edits of two tickets
    for rev in range(1, 6):
        bus.publish("jira", encode(record_event(ticket("acme", 1, rev), "u"))
                    + encode(record_event(ticket("acme", 2, rev), "u")))
    bridge = Bridge(bridge_sub, "emea", str(tmp_path / "folio-sites.yaml"), settings)
    fired = bridge.run_once(wait_s=1.0)
    assert fired is not None and fired.events == 10
    assert bridge.run_once(wait_s=0.2) is None  # one run for the whole storm

    with get_client(sync_client=True) as client:
        run = client.read_flow_run(fired.flow_run_id)
    assert str(run.deployment_id) == str(deployment_id)
    assert run.parameters == {"config": str(tmp_path / "folio-sites.yaml"), "site": "emea",
                              "drain": True}
    assert run.idempotency_key == fired.idempotency_key
    # a bridge that crashed before committing re-sends the same key: the same run comes back
    again = prefect_trigger("site-compile/emea", run.parameters, fired.idempotency_key)
    assert again == fired.flow_run_id
    # the bridge's group took nothing from the site's own group
    assert len(site_sub.poll(1.0, 100)) == 10


def test_two_sites_through_s3(prefect_harness, s3env, tmp_path: Path):
    """The same flows against a real S3 API: claim sets and the central index in one bucket."""
    import boto3
    from typer.testing import CliRunner

    from pipelines.folio_cli import app
    from pipelines.flows import aggregate, compile_all, site_compile

    bucket = "folio-pipelines"
    boto3.client("s3", endpoint_url=s3env.url, region_name="us-east-1").create_bucket(Bucket=bucket)
    url = f"s3://{bucket}/acme"
    config = make_topology(tmp_path, store=url)
    result = compile_all(str(config), today=TODAY)
    assert result["aggregate"]["publish"]["generation"] == 1
    keys = {o["Key"] for o in boto3.client("s3", endpoint_url=s3env.url, region_name="us-east-1")
            .list_objects_v2(Bucket=bucket, Prefix="acme/sites/")["Contents"]}
    assert "acme/sites/emea/claimset.json" in keys and "acme/sites/us/claimset.json" in keys
    ok = CliRunner().invoke(app, ["verify", "--wiki", url])
    assert ok.exit_code == 0, ok.output
    # a rerun with nothing changed ships nothing and rewrites no page
    assert site_compile(str(config), "us")["uploaded"] == 0
    again = aggregate(str(config), today=TODAY)
    assert again["gather"]["downloaded"] == 0
    assert again["compile"]["pages_written"] == 0 and again["compile"]["extracted"] == 0


def test_every_sites_llm_calls_take_slots_of_one_limit(prefect_harness, fake, monkeypatch,
                                                       tmp_path: Path):
    """FOLIO_LLM_RATE_LIMIT at every site: one quota, one slot per call the cache cannot
    answer (tests/test_llm_rate_limit.py checks the pace, the cache and a missing limit)."""
    from prefect.client.orchestration import get_client

    from pipelines.flows import site_compile
    from pipelines.llm_limit import ensure_llm_limit

    # slots hardly decay while the test runs, so the limit's active slots count those taken
    ensure_llm_limit("folio-llm-sites", per_second=0.001, burst=10_000)
    monkeypatch.setenv("FOLIO_BACKEND", "llm")
    monkeypatch.setenv("FOLIO_LLM_MODEL", "folio-fake/extractor")
    monkeypatch.setenv("FOLIO_LLM_RATE_LIMIT", "folio-llm-sites")
    config = make_topology(tmp_path)
    calls = {}
    for s in SITES:
        before = fake.calls
        site_compile(str(config), s)
        calls[s] = fake.calls - before
    assert all(calls.values()), calls
    with get_client(sync_client=True) as client:
        limit = client.read_global_concurrency_limit_by_name("folio-llm-sites")
    assert limit.active_slots == sum(calls.values())

"""HubSpot API connector (CRM v3 search) against a real local HTTP server."""

from __future__ import annotations

import signal
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.folio_cli import app
from compiler.models import ACL, SourceRecord
from connectors.api.base import ApiSourceConfig, AuthConfig
from connectors.api.client import ApiAuthError, ApiError
from connectors.api.registry import make_api_connector
from connectors.api.runner import CursorStore, poll_once
from connectors.bus.base import PublishError, Topics
from connectors.bus.memory import InProcessBus
from connectors.events import ChangeEvent, Tombstone, decode

from fake_hubspot import FakeHubSpot, ms
from flaky_bus import FlakyBus
from http_replay import serve

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(hours=2)
GLOBEX, INITECH, UMBRELLA, ARCHIVED = "18190542101", "18190542102", "18190542103", "18190542099"
SEARCH = "/crm/v3/objects/companies/search"


def _cfg(url: str, **kw) -> ApiSourceConfig:
    kw.setdefault("scope", ["companies"])
    return ApiSourceConfig(system="hubspot", instance="portal-4711", base_url=url, page_size=2,
                           auth=AuthConfig(kind="bearer", token_env="T_HS"),
                           default_acl=ACL(groups=("sales",)), **kw)


def _events(bus: InProcessBus) -> list[ChangeEvent | Tombstone]:
    return [decode(m) for m in bus.messages("folio.acme.hubspot.state")]


def _filters(body: dict) -> dict[str, str]:
    return {f["operator"]: f["value"] for f in body["filterGroups"][0]["filters"]}


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_HS", "pat-na1-s3cret")


def test_search_pages_retries_429_and_publishes_edits_and_archivals(tmp_path: Path, token: None) -> None:
    hs = FakeHubSpot()
    hs.fail_next, hs.fail_searches_only = [(429, {"Retry-After": "1"})], True
    bus = InProcessBus(Topics("folio", "acme"), partitions=1)
    store = CursorStore(tmp_path / "hubspot.cursor.json")
    slept: list[float] = []
    with serve(hs) as server:
        cfg = _cfg(server.url)
        conn = make_api_connector(cfg, "acme", sleep=slept.append)
        first = poll_once(conn, cfg, bus, store, "acme", now=NOW)
        searches = [b for (p, _, _), b in zip(server.requests, server.bodies) if p == SEARCH]
        assert slept == [1.0]
        assert [b.get("after") for b in searches] == [None, None, "2"]  # 429 retried, then paging.after
        body = searches[0]
        assert _filters(body) == {"GTE": "0", "LT": str(ms("2026-11-01T11:00:00Z"))}
        assert body["sorts"] == [{"propertyName": "hs_lastmodifieddate", "direction": "ASCENDING"}]
        assert {"name", "domain", "description", "hs_lastmodifieddate"} <= set(body["properties"])
        archived_lists = [q for p, q, _ in server.requests if p == "/crm/v3/objects/companies"]
        assert archived_lists[0]["archived"] == "true"
        # 3 live companies; the one archived in the window (2026-10-20) is a deletion
        assert (first.published, first.deleted, first.errors) == (3, 1, [])
        records = {e.record.id: e.record for e in _events(bus) if isinstance(e, ChangeEvent) and e.op == "c"}
        assert sorted(records) == [GLOBEX, INITECH, UMBRELLA]
        assert records[GLOBEX].acl == ACL(groups=("sales",)) and records[GLOBEX].type == "company"
        seen = len(_events(bus))

        hs.edit("companies", INITECH, "Initech (renamed)", NOW + timedelta(minutes=5))
        hs.archive("companies", GLOBEX, NOW + timedelta(minutes=6))
        second = poll_once(conn, cfg, bus, store, "acme", now=NOW + timedelta(minutes=10), prune=True)
        conn.close()
    assert (second.published, second.deleted) == (1, 1)  # pruning finds nothing more to delete
    new = _events(bus)[seen:]
    edited = next(e for e in new if isinstance(e, ChangeEvent) and e.op == "u")
    assert edited.record.title == "Initech (renamed)"
    assert {e.key for e in new if isinstance(e, Tombstone)} == {f"acme/hubspot/portal-4711/company/{GLOBEX}"}
    assert sorted(k.split("\x1f")[1] for k in store.load().versions) == [INITECH, UMBRELLA]


def test_exact_window_contacts_property_and_only_the_last_type_sets_high_water(token: None) -> None:
    hs = FakeHubSpot()
    since = datetime(2026, 11, 1, 9, 1, 0, 250000, tzinfo=UTC)  # Initech's exact modification time
    until = datetime(2026, 11, 1, 9, 2, 0, 500000, tzinfo=UTC)  # Umbrella's: excluded
    with serve(hs) as server:
        conn = make_api_connector(_cfg(server.url, scope=["companies", "contacts"]), "acme",
                                  sleep=lambda s: None)
        pages = list(conn.poll(since, until))
        conn.close()
        bodies = {p: b for (p, _, _), b in zip(server.requests, server.bodies) if b is not None}
    assert _filters(bodies[SEARCH]) == {"GTE": str(ms("2026-11-01T09:01:00.250Z")),
                                        "LT": str(ms("2026-11-01T09:02:00.500Z"))}
    contacts = bodies["/crm/v3/objects/contacts/search"]
    assert {f["propertyName"] for f in contacts["filterGroups"][0]["filters"]} == {"lastmodifieddate"}
    assert contacts["sorts"][0]["propertyName"] == "lastmodifieddate"
    records = [i for p in pages for i in p.items if isinstance(i, SourceRecord)]
    assert [(r.type, r.id) for r in records] == [("company", INITECH), ("contact", "52")]
    company_pages = [p for p in pages if any(getattr(i, "type", "") == "company" for i in p.items)]
    assert all(p.high_water is None for p in company_pages)
    assert pages[-1].high_water == datetime(2026, 11, 1, 9, 1, 30, tzinfo=UTC)


def test_search_cap_is_handled_by_requerying_from_the_last_time_seen(token: None) -> None:
    hs = FakeHubSpot(count=7, cap=4)  # 10 companies; a query may page through 4 of them
    with serve(hs) as server:
        conn = make_api_connector(_cfg(server.url, options={"poll_archived": False}), "acme",
                                  sleep=lambda s: None)
        conn.search_cap = 4
        records = [i for p in conn.poll(T0, NOW) for i in p.items if isinstance(i, SourceRecord)]
        conn.close()
        bodies = [b for b in server.bodies if b is not None]
    assert {r.id for r in records} == {GLOBEX, INITECH, UMBRELLA} | {str(18190600000 + i) for i in range(7)}
    assert all(int(b.get("after", 0)) < 4 for b in bodies)  # never paged past the cap
    restarts = [_filters(b)["GTE"] for b in bodies if "after" not in b]
    assert restarts[0] == str(ms(T0.isoformat())) and len(restarts) >= 3
    assert restarts[1] == str(ms("2026-11-01T09:10:00.000Z"))  # the 4th record's time, re-read from there

    with serve(FakeHubSpot(count=6, cap=4, same_time=True)) as server:
        conn = make_api_connector(_cfg(server.url, options={"poll_archived": False}), "acme",
                                  sleep=lambda s: None)
        conn.search_cap = 4
        with pytest.raises(ApiError, match="more than 4 companies share hs_lastmodifieddate"):
            list(conn.poll(datetime(2026, 11, 1, 9, 10, tzinfo=UTC), NOW))
        conn.close()


def test_list_ids_pages_live_objects_only(token: None) -> None:
    with serve(FakeHubSpot(count=3)) as server:
        conn = make_api_connector(_cfg(server.url), "acme", sleep=lambda s: None)
        ids = list(conn.list_ids())
        conn.close()
        lists = [q for p, q, _ in server.requests if p == "/crm/v3/objects/companies"]
    assert len(ids) == 6 and ("company", ARCHIVED) not in ids
    assert [q.get("after") for q in lists] == [None, "18190542103", "18190600001"]
    assert all(q["archived"] == "false" and q["properties"] == "hs_lastmodifieddate" for q in lists)


def test_bad_credentials_fail_clearly_without_leaking_the_token(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_HS", "pat-wrong")
    bus = InProcessBus(Topics("folio", "acme"), partitions=1)
    store = CursorStore(tmp_path / "c.json")
    with serve(FakeHubSpot()) as server:
        cfg = _cfg(server.url, options={"poll_archived": False})
        conn = make_api_connector(cfg, "acme", sleep=lambda s: None)
        with pytest.raises(ApiAuthError) as info:
            poll_once(conn, cfg, bus, store, "acme", now=NOW)
        assert len(server.requests) == 1
    assert "HTTP 401" in str(info.value) and f"POST {server.url}{SEARCH}" in str(info.value)
    assert "pat-wrong" not in str(info.value) and "pat-wrong" not in repr(conn.client._http.auth)
    assert not store.path.exists() and bus.messages("folio.acme.hubspot.state") == []


def test_cursor_advances_only_after_the_bus_acknowledged_the_page(tmp_path: Path, token: None) -> None:
    bus = FlakyBus(fail_on=3)  # 1: the archived page, 2: search page 1, 3: search page 2 fails
    store = CursorStore(tmp_path / "hubspot.cursor.json")
    with serve(FakeHubSpot()) as server:
        cfg = _cfg(server.url)
        conn = make_api_connector(cfg, "acme", sleep=lambda s: None)
        with pytest.raises(PublishError):
            poll_once(conn, cfg, bus, store, "acme", now=NOW)
        cursor = store.load()
        assert cursor.since == datetime(2026, 11, 1, 9, 1, 0, 250000, tzinfo=UTC)
        assert sorted(k.split("\x1f")[1] for k in cursor.versions) == [GLOBEX, INITECH]
        again = poll_once(conn, cfg, bus, store, "acme", now=NOW)
        conn.close()
    assert (again.published, again.unchanged, again.deleted) == (1, 2, 0)
    ids = [e.record.id for e in _events(bus) if isinstance(e, ChangeEvent) and e.op == "c"]
    assert sorted(ids) == [GLOBEX, INITECH, UMBRELLA]
    assert [i for i in _events(bus) if isinstance(i, ChangeEvent) and i.op == "d"][0].key.endswith(ARCHIVED)


def test_cli_run_once_polls_and_compiles_in_embedded_mode(tmp_path: Path, token: None,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FOLIO_EVENTS_KAFKA_BOOTSTRAP", raising=False)
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    with serve(FakeHubSpot()) as server:
        site = tmp_path / "site.yaml"
        site.write_text("tenant: acme\nsite: emea\nconnectors:\n"
                        f"  - {{system: hubspot, instance: portal-4711, base_url: '{server.url}',"
                        " scope: [companies, contacts], auth: {kind: bearer, token_env: T_HS}}\n")
        result = CliRunner().invoke(app, ["connectors", "run", "hubspot", "--config", str(site), "--once",
                                          "--wiki", str(tmp_path / "wiki")])
    assert result.exit_code == 0, result.output
    assert "hubspot/portal-4711: 5 published, 1 deleted" in result.output and "batch:" in result.output
    assert (tmp_path / ".folio-connectors" / "hubspot-portal-4711.cursor.json").is_file()
    # `run` traps SIGTERM/SIGINT only while it runs: a caller in the same process (here, later
    # fork-based worker pools that terminate their workers) gets its own handlers back
    assert {s: signal.getsignal(s) for s in handlers} == handlers

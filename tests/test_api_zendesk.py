"""Zendesk API connector (incremental cursor export) against a real local HTTP server."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.folio_cli import app
from compiler.models import ACL, SourceRecord
from connectors.api.base import ApiSourceConfig, AuthConfig, ConfigError, Deletion
from connectors.api.client import ApiAuthError
from connectors.api.registry import make_api_connector
from connectors.api.runner import CursorStore, poll_once
from connectors.bus.base import PublishError, Topics
from connectors.bus.memory import InProcessBus
from connectors.events import ChangeEvent, Tombstone, decode

from fake_zendesk import EXPORT, FIXTURE, FakeZendesk
from flaky_bus import FlakyBus
from http_replay import serve

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)  # the fixture's tickets change at T0 + 0, 1, 2, 3 min
NOW = T0 + timedelta(hours=2)


def _cfg(url: str, **kw) -> ApiSourceConfig:
    return ApiSourceConfig(system="zendesk", instance="acme", base_url=url, page_size=2,
                           auth=AuthConfig(kind="basic", username="bot@acme.test/token", token_env="T_ZD"),
                           **kw)


def _events(bus: InProcessBus) -> list[ChangeEvent | Tombstone]:
    return [decode(m) for m in bus.messages("folio.acme.zendesk.state")]


def _epoch(t: datetime) -> str:
    return str(int(t.timestamp()))


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_ZD", "s3cret-token")


def test_export_follows_cursors_honours_retry_after_and_publishes_changes(tmp_path: Path, token: None) -> None:
    zd = FakeZendesk()
    zd.fail_next = [(429, {"Retry-After": "7"})]
    bus = InProcessBus(Topics("folio", "acme"), partitions=1)
    store = CursorStore(tmp_path / "zendesk.cursor.json")
    slept: list[float] = []
    with serve(zd) as server:
        cfg = _cfg(server.url)
        conn = make_api_connector(cfg, "acme", sleep=slept.append)
        first = poll_once(conn, cfg, bus, store, "acme", now=NOW)
        queries = [q for p, q, _ in server.requests if p == EXPORT]
        assert slept == [7.0]  # the 429's Retry-After, not a guess
        assert [("start_time" in q, "cursor" in q) for q in queries] == [(True, False), (True, False), (False, True)]
        assert queries[0] == {"start_time": "0", "per_page": "2"}
        assert (first.published, first.deleted, first.errors) == (3, 1, [])  # 35439 arrives deleted
        events = _events(bus)
        records = {e.record.id: e.record for e in events if isinstance(e, ChangeEvent) and e.op == "c"}
        assert records["35436"].acl == ACL(users=("zendesk:9000000001",),
                                           groups=("staff", "zendesk-org-360000111"))
        assert records["35438"].acl == ACL(users=("zendesk:9000000003",), groups=("staff",))

        # an edit (new updated_at), a deletion, and a prune that must not delete anything else
        zd.edit("35437", "Invoice shows the wrong seat count (edited)", NOW + timedelta(minutes=5))
        zd.delete("35436", NOW + timedelta(minutes=6))
        second = poll_once(conn, cfg, bus, store, "acme", now=NOW + timedelta(minutes=10), prune=True)
        conn.close()
    assert (second.published, second.deleted) == (1, 1)
    new = _events(bus)[len(events):]
    edited = next(e for e in new if isinstance(e, ChangeEvent) and e.op == "u")
    assert edited.record.title.endswith("(edited)")
    assert edited.id == "acme/zendesk/acme/ticket/35437@" + (NOW + timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert {e.key for e in new if isinstance(e, Tombstone)} == {"acme/zendesk/acme/ticket/35436"}
    assert sorted(k.split("\x1f")[1] for k in store.load().versions) == ["35437", "35438"]


def test_window_bounds_use_the_export_stamp_and_start_time_avoids_the_withheld_minute(token: None) -> None:
    zd = FakeZendesk()
    zd.touch("35436", T0 + timedelta(minutes=1, seconds=30))  # a system update inside the window
    with serve(zd) as server:
        conn = make_api_connector(_cfg(server.url), "acme", sleep=lambda s: None)
        since, until = T0 + timedelta(seconds=30), T0 + timedelta(minutes=2)
        pages = list(conn.poll(since, until))
        assert server.requests[0][1]["start_time"] == _epoch(since)
        list(conn.poll(NOW - timedelta(seconds=10), NOW))  # a start_time Zendesk would refuse as too recent
        assert server.requests[-1][1]["start_time"] == _epoch(NOW - timedelta(minutes=1))
        conn.close()
    items = [i for p in pages for i in p.items]
    # 35437 changed at 09:01, 35436 was touched at 09:01:30; 35438 (09:02 = until) and the
    # deletion of 35439 (09:03) fall outside
    assert sorted(i.id for i in items if isinstance(i, SourceRecord)) == ["35436", "35437"]
    assert not [i for i in items if isinstance(i, Deletion)]
    assert max(p.high_water for p in pages if p.high_water) == T0 + timedelta(minutes=1, seconds=30)


def test_deleted_ticket_in_the_window_is_a_deletion(token: None) -> None:
    with serve(FakeZendesk()) as server:
        conn = make_api_connector(_cfg(server.url), "acme", sleep=lambda s: None)
        items = [i for p in conn.poll(T0 + timedelta(minutes=3), T0 + timedelta(minutes=4)) for i in p.items]
        ids = sorted(conn.list_ids())
        conn.close()
    assert items == [Deletion("ticket", "35439", T0 + timedelta(minutes=3))]
    assert ids == [("ticket", "35436"), ("ticket", "35437"), ("ticket", "35438")]


def test_bad_credentials_fail_clearly_without_leaking_the_token(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_ZD", "wrong-token")
    bus = InProcessBus(Topics("folio", "acme"), partitions=1)
    store = CursorStore(tmp_path / "c.json")
    with serve(FakeZendesk()) as server:
        cfg = _cfg(server.url)
        conn = make_api_connector(cfg, "acme", sleep=lambda s: None)
        with pytest.raises(ApiAuthError) as info:
            poll_once(conn, cfg, bus, store, "acme", now=NOW)
        assert len(server.requests) == 1
    assert "HTTP 401" in str(info.value) and EXPORT in str(info.value)
    assert "wrong-token" not in str(info.value)
    assert not store.path.exists() and bus.messages("folio.acme.zendesk.state") == []


def test_cursor_advances_only_after_the_bus_acknowledged_the_page(tmp_path: Path, token: None) -> None:
    bus = FlakyBus(fail_on=2)
    store = CursorStore(tmp_path / "zendesk.cursor.json")
    with serve(FakeZendesk()) as server:
        cfg = _cfg(server.url)
        conn = make_api_connector(cfg, "acme", sleep=lambda s: None)
        with pytest.raises(PublishError):
            poll_once(conn, cfg, bus, store, "acme", now=NOW)
        cursor = store.load()
        assert cursor.since == T0 + timedelta(minutes=1)  # the first page (09:00, 09:01) only
        assert sorted(k.split("\x1f")[1] for k in cursor.versions) == ["35436", "35437"]
        again = poll_once(conn, cfg, bus, store, "acme", now=NOW)
        conn.close()
    assert (again.published, again.deleted, again.unchanged) == (1, 1, 2)
    assert sorted(e.record.id for e in _events(bus) if isinstance(e, ChangeEvent) and e.op == "c") == [
        "35436", "35437", "35438"]


def test_overlap_shorter_than_the_withheld_minute_is_refused(token: None) -> None:
    with pytest.raises(ConfigError, match="overlap_s must be at least 60"):
        make_api_connector(_cfg("http://127.0.0.1:9", overlap_s=30), "acme")


def test_cli_sync_from_export_compiles_tickets_in_embedded_mode(tmp_path: Path, token: None,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FOLIO_EVENTS_KAFKA_BOOTSTRAP", raising=False)
    export = tmp_path / "export"
    export.mkdir()
    shutil.copy(FIXTURE, export / "tickets-1.json")
    site = tmp_path / "site.yaml"
    site.write_text("tenant: acme\nsite: emea\nconnectors:\n"
                    "  - {system: zendesk, instance: acme, base_url: 'https://acme.zendesk.com',"
                    " auth: {kind: basic, username: bot@acme.test/token, token_env: T_ZD}}\n")
    wiki = tmp_path / "wiki"
    result = CliRunner().invoke(app, ["connectors", "sync", "zendesk", "--from-export", str(export),
                                      "--config", str(site), "--wiki", str(wiki)])
    assert result.exit_code == 0, result.output
    assert "3 published" in result.output and "batch:" in result.output
    assert len(list((wiki / "ticket").glob("*.md"))) == 3

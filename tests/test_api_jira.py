"""Jira API connector against a real local HTTP server replaying the search payload shape."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from connectors.api.base import ApiSourceConfig, AuthConfig
from connectors.api.client import ApiAuthError
from connectors.api.registry import make_api_connector
from connectors.api.runner import CursorStore, poll_once
from connectors.bus.base import Topics
from connectors.bus.memory import InProcessBus
from connectors.events import ChangeEvent, Tombstone, decode

from fake_jira import FakeJira
from http_replay import serve

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(hours=2)


def _cfg(url: str, **kw) -> ApiSourceConfig:
    return ApiSourceConfig(system="jira", instance="acme-jira", base_url=url, page_size=4,
                           auth=AuthConfig(kind="basic", username="bot@acme.test", token_env="T_JIRA"),
                           options={"security_groups": {"Confidential": ["legal"]}}, **kw)


def _events(bus: InProcessBus) -> list[ChangeEvent | Tombstone]:
    return [decode(m) for m in bus.messages("folio.acme.jira.state")]


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_JIRA", "s3cret-token")


def test_poll_pages_retries_429_and_then_publishes_only_changes(tmp_path: Path, token: None) -> None:
    jira = FakeJira()
    secured = next(iter(jira.issues))
    jira.issues[secured]["fields"]["security"] = {"id": "10000", "name": "Confidential"}
    jira.fail_next = [(429, {"Retry-After": "0"})]
    bus = InProcessBus(Topics("folio", "acme"), partitions=1)
    store = CursorStore(tmp_path / "jira.cursor.json")
    with serve(jira) as server:
        cfg = _cfg(server.url)
        conn = make_api_connector(cfg, "acme", sleep=lambda s: None)
        first = poll_once(conn, cfg, bus, store, "acme", now=NOW)
        assert first.published == 11 and not first.errors
        searches = [q for p, q, _ in server.requests if p == "/rest/api/2/search"]
        assert [q["startAt"] for q in searches] == ["0", "0", "4", "8"]  # 429 retried, 3 pages
        assert 'updated >= "1970-01-01 00:00"' in searches[0]["jql"]
        events = _events(bus)
        assert [e.op for e in events] == ["c"] * 11
        acl = {e.record.id: e.record.acl for e in events}
        assert acl[secured].groups == ("legal",)  # the security level travels onto the record

        # an edit, a deletion, and a poll that re-reads the overlap
        ids = list(jira.issues)
        jira.edit(ids[3], "blarg, edited", NOW + timedelta(minutes=5))
        jira.delete(ids[5])
        second = poll_once(conn, cfg, bus, store, "acme", now=NOW + timedelta(minutes=10), prune=True)
        conn.close()
    assert (second.published, second.deleted) == (1, 1)
    new = _events(bus)[11:]
    assert [type(e).__name__ for e in new] == ["ChangeEvent", "ChangeEvent", "Tombstone"]
    edited, deleted = new[0], new[1]
    assert edited.op == "u" and edited.record.title.endswith("blarg, edited")
    assert edited.id == f"acme/jira/acme-jira/issue/{ids[3]}@{edited.record.version}"
    assert deleted.op == "d" and deleted.key == f"acme/jira/acme-jira/issue/{ids[5]}"
    assert store.load().since >= NOW + timedelta(minutes=5)


def test_bad_credentials_fail_clearly_without_leaking_the_token(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_JIRA", "wrong-token")
    bus = InProcessBus(Topics("folio", "acme"), partitions=1)
    store = CursorStore(tmp_path / "c.json")
    with serve(FakeJira()) as server:
        cfg = _cfg(server.url)
        conn = make_api_connector(cfg, "acme", sleep=lambda s: None)
        with pytest.raises(ApiAuthError) as info:
            poll_once(conn, cfg, bus, store, "acme", now=NOW)
        assert len(server.requests) == 1  # a 401 is not retried
    assert "HTTP 401" in str(info.value) and "/rest/api/2/search" in str(info.value)
    assert "wrong-token" not in str(info.value) and "wrong-token" not in repr(conn.client._http.auth)
    assert not store.path.exists() and bus.messages("folio.acme.jira.state") == []


def test_missing_token_env_is_a_config_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from connectors.api.base import ConfigError

    monkeypatch.delenv("T_JIRA", raising=False)
    with pytest.raises(ConfigError, match="T_JIRA"):
        make_api_connector(_cfg("http://127.0.0.1:9"), "acme")


def test_server_errors_are_retried_then_reported(tmp_path: Path, token: None) -> None:
    jira = FakeJira()
    jira.fail_next = [(503, {})] * 3
    with serve(jira) as server:
        cfg = _cfg(server.url)
        conn = make_api_connector(cfg, "acme", sleep=lambda s: None, max_retries=2)
        from connectors.api.client import ApiError

        with pytest.raises(ApiError, match="HTTP 503"):
            list(conn.poll(T0, NOW))
        assert len(server.requests) == 3

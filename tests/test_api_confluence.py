"""Confluence API connector (CQL search) against a real local HTTP server replaying the v1 shapes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from compiler.models import SourceRecord
from connectors.api.base import ApiSourceConfig, AuthConfig, Deletion
from connectors.api.client import ApiAuthError
from connectors.api.registry import make_api_connector
from connectors.api.runner import CursorStore, poll_once
from connectors.bus.base import PublishError, Topics
from connectors.bus.memory import InProcessBus
from connectors.events import ChangeEvent, Tombstone, decode

from fake_confluence import SEARCH, FakeConfluence
from flaky_bus import FlakyBus
from http_replay import serve

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(hours=2)
# ids of the real content list, oldest first (the fake dates them T0 + i min + 30 s)
IDS = ["196695", "64290817", "64290828", "65798145"]


def _cfg(url: str, **kw) -> ApiSourceConfig:
    return ApiSourceConfig(system="confluence", instance="acme-wiki", base_url=url, page_size=3,
                           scope=["DUMMY"],
                           auth=AuthConfig(kind="basic", username="bot@acme.test", token_env="T_CONF"),
                           options={"space_groups": {"DUMMY": ["dummy-readers"]}}, **kw)


def _events(bus: InProcessBus) -> list[ChangeEvent | Tombstone]:
    return [decode(m) for m in bus.messages("folio.acme.confluence.state")]


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_CONF", "s3cret-token")


def test_poll_pages_retries_429_carries_restrictions_and_prunes(tmp_path: Path, token: None) -> None:
    wiki = FakeConfluence()
    wiki.restrict(IDS[2], users=["557058:carol"], groups=["legal"])
    wiki.fail_next = [(429, {"Retry-After": "0"})]
    bus = InProcessBus(Topics("folio", "acme"), partitions=1)
    store = CursorStore(tmp_path / "confluence.cursor.json")
    with serve(wiki) as server:
        cfg = _cfg(server.url)
        conn = make_api_connector(cfg, "acme", sleep=lambda s: None)
        first = poll_once(conn, cfg, bus, store, "acme", now=NOW)
        assert first.published == 4 and not first.errors
        searches = [q for p, q, _ in server.requests if p == SEARCH]
        assert [q.get("start") for q in searches] == ["0", "0", "3"]  # 429 retried, then _links.next
        cql = searches[0]["cql"]
        assert cql.startswith('type in (page, blogpost) and space in ("DUMMY") and lastmodified >= "1970/01/01 00:00"')
        assert 'lastmodified < "2026/11/01 11:01"' in cql and cql.endswith("order by lastmodified")
        assert "restrictions.read.restrictions.group" in searches[0]["expand"]
        events = _events(bus)
        assert [e.op for e in events] == ["c"] * 4
        records = {e.record.id: e.record for e in events}
        assert (records[IDS[2]].acl.users, records[IDS[2]].acl.groups) == (("atlassian:557058:carol",), ("legal",))
        assert records[IDS[0]].acl.groups == ("dummy-readers",)  # no page restriction: the space's readers
        assert records[IDS[1]].url == "https://ctreminiom.atlassian.net/wiki/spaces/DUMMY/pages/64290817/TEST"
        assert records[IDS[1]].container == "DUMMY" and "Acme rollout" in records[IDS[1]].body

        # an edit (new version), a page moved to the trash, a page purged; the next poll prunes
        wiki.edit(IDS[1], "TEST, edited", NOW + timedelta(minutes=5))
        wiki.trash(IDS[3])
        wiki.delete(IDS[0])
        before = len(server.requests)
        second = poll_once(conn, cfg, bus, store, "acme", now=NOW + timedelta(minutes=10), prune=True)
        listing = [q for p, q, _ in server.requests[before:] if p == SEARCH and "order by created" in q["cql"]]
        conn.close()
    assert (second.published, second.deleted, second.unchanged) == (1, 2, 0)
    assert listing and all("expand" not in q for q in listing)  # ids only, no bodies
    new = _events(bus)[4:]
    edited = new[0]
    assert isinstance(edited, ChangeEvent) and edited.op == "u" and edited.record.title == "TEST, edited"
    assert edited.id == f"acme/confluence/acme-wiki/page/{IDS[1]}@2"
    gone = {e.key for e in new[1:] if isinstance(e, Tombstone)}
    assert gone == {f"acme/confluence/acme-wiki/page/{IDS[0]}", f"acme/confluence/acme-wiki/page/{IDS[3]}"}
    assert store.load().since >= NOW + timedelta(minutes=5)


def test_window_is_widened_to_minutes_and_filtered_exactly_and_trashed_is_a_deletion(token: None) -> None:
    wiki = FakeConfluence()
    wiki.trash(IDS[2])  # returned by this search: a deletion at its last version's date
    with serve(wiki) as server:
        conn = make_api_connector(_cfg(server.url), "acme", sleep=lambda s: None)
        since, until = T0 + timedelta(minutes=1, seconds=30), T0 + timedelta(minutes=3, seconds=30)
        pages = list(conn.poll(since, until))
        conn.close()
        (query,) = [q for p, q, _ in server.requests if p == SEARCH]
    assert 'lastmodified >= "2026/11/01 09:01" and lastmodified < "2026/11/01 09:04"' in query["cql"]
    items = [i for p in pages for i in p.items]
    # the search answered 09:01:30, 09:02:30 and 09:03:30; 09:03:30 is `until` itself: excluded
    assert [i.id for i in items if isinstance(i, SourceRecord)] == [IDS[1]]
    assert [i for i in items if isinstance(i, Deletion)] == [
        Deletion("page", IDS[2], T0 + timedelta(minutes=2, seconds=30))]
    assert pages[-1].high_water == T0 + timedelta(minutes=2, seconds=30)


def test_bad_credentials_fail_clearly_without_leaking_the_token(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_CONF", "wrong-token")
    bus = InProcessBus(Topics("folio", "acme"), partitions=1)
    store = CursorStore(tmp_path / "c.json")
    with serve(FakeConfluence()) as server:
        cfg = _cfg(server.url)
        conn = make_api_connector(cfg, "acme", sleep=lambda s: None)
        with pytest.raises(ApiAuthError) as info:
            poll_once(conn, cfg, bus, store, "acme", now=NOW)
        assert len(server.requests) == 1  # a 401 is not retried
    assert "HTTP 401" in str(info.value) and SEARCH in str(info.value)
    assert "wrong-token" not in str(info.value)
    assert not store.path.exists() and bus.messages("folio.acme.confluence.state") == []


def test_cursor_advances_only_after_the_bus_acknowledged_the_page(tmp_path: Path, token: None) -> None:
    bus = FlakyBus(fail_on=2)  # the second page's publish fails
    store = CursorStore(tmp_path / "confluence.cursor.json")
    with serve(FakeConfluence()) as server:
        cfg = _cfg(server.url)
        conn = make_api_connector(cfg, "acme", sleep=lambda s: None)
        with pytest.raises(PublishError):
            poll_once(conn, cfg, bus, store, "acme", now=NOW)
        cursor = store.load()
        assert cursor.since == T0 + timedelta(minutes=2, seconds=30)  # the first page's high water
        assert sorted(k.split("\x1f")[1] for k in cursor.versions) == sorted(IDS[:3])
        again = poll_once(conn, cfg, bus, store, "acme", now=NOW)
        conn.close()
    assert (again.published, again.unchanged) == (1, 3)  # the re-read publishes only what was lost
    ids = [e.record.id for e in _events(bus) if isinstance(e, ChangeEvent)]
    assert sorted(ids) == sorted(IDS)

"""The site consumer over the in-process bus (the embedded default): same code path as Kafka."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from pipelines.folio_cli import app
from connectors.base import SourceConfig
from connectors.bus.base import DLQ_REASON_HEADER, Topics
from connectors.bus.memory import InProcessBus
from pipelines.consumer import SiteConsumer
from connectors.events import WireMessage, delete_event, encode, record_event
from connectors.record_json import RecordJsonConnector
from connectors.site_corpus import SiteCorpus
from eventdata import T0, kafka_settings, pages, ticket


def _setup(tmp_path: Path, tenant: str = "acme"):  # type: ignore[no-untyped-def]
    bus = InProcessBus(Topics("folio", tenant), partitions=3)
    settings = kafka_settings("unused")
    consumer = SiteConsumer(bus.subscribe("emea", ["jira"]), SiteCorpus(tmp_path / "corpus", tenant),
                            tmp_path / "wiki", settings)
    return bus, consumer


def test_a_storm_of_edits_to_one_record_compiles_once(tmp_path: Path) -> None:
    bus, consumer = _setup(tmp_path)
    for rev in range(1, 51):
        bus.publish("jira", encode(record_event(ticket("acme", 1, rev), "u")))
    report = consumer.run_once(wait_s=0)
    assert (report.events, report.keys, report.applied.written) == (50, 1, 1)
    assert report.compile is not None and report.compile.records_extracted == 1
    assert "Revision 50" in (tmp_path / "wiki" / "ticket" / "ops-1.md").read_text()
    assert consumer.run_once(wait_s=0) is None  # committed: nothing is redelivered


def test_redelivery_and_replayed_snapshots_change_nothing(tmp_path: Path) -> None:
    bus, consumer = _setup(tmp_path)
    events = [m for n in range(12) for m in encode(record_event(ticket("acme", n, 2), "c"))]
    bus.publish("jira", events)
    consumer.run_once(wait_s=0)
    before = pages(tmp_path / "wiki")
    # the same events again (at-least-once), and an older export replayed as a snapshot
    bus.publish("jira", events)
    bus.publish("jira", [m for n in range(12) for m in encode(record_event(ticket("acme", n, 1), "r"))])
    report = consumer.run_once(wait_s=0)
    # per key only the last event counts: the older snapshot, which must not roll pages back
    assert (report.applied.written, report.applied.stale) == (0, 12)
    assert report.compile is None
    assert pages(tmp_path / "wiki") == before


def test_delete_removes_the_page_and_bad_events_are_dead_lettered(tmp_path: Path) -> None:
    bus, consumer = _setup(tmp_path)
    bus.publish("jira", encode(record_event(ticket("acme", 1), "c")) + encode(record_event(ticket("acme", 2), "c")))
    consumer.run_once(wait_s=0)
    assert (tmp_path / "wiki" / "ticket" / "ops-2.md").exists()
    bus.publish("jira", encode(delete_event("acme", "jira", "acme-jira", "issue", "10002", deleted_at=T0)))
    bus.publish("jira", encode(record_event(ticket("other-tenant", 3), "c")))
    bus.publish("jira", [WireMessage(b"acme/jira/acme-jira/issue/9", b"{}", ())])
    report = consumer.run_once(wait_s=0)
    assert report.dead_lettered == 2 and report.applied.deleted == 1
    assert not (tmp_path / "wiki" / "ticket" / "ops-2.md").exists()
    assert (tmp_path / "wiki" / "ticket" / "ops-1.md").exists()
    reasons = sorted(m.header(DLQ_REASON_HEADER) for m in bus.messages("folio.acme.deadletter"))
    assert reasons[0] == "missing CloudEvents header ce_specversion"
    assert "not a key of tenant 'acme'" in reasons[1]


def test_record_files_reject_other_tenants_and_broken_fields() -> None:
    src = SourceConfig(path="records", system="folio-record", instance="events")
    good = ticket("acme", 1).model_dump(mode="json")
    assert [r.key for r in RecordJsonConnector().parse("a.json", json.dumps(good).encode(), src, "acme")] \
        == ["acme/jira/acme-jira/issue/10001"]
    (err,) = RecordJsonConnector().parse("a.json", json.dumps(good).encode(), src, "beta")
    assert err.field == "tenant" and "tenant 'acme'" in err.message
    (err,) = RecordJsonConnector().parse("b.json", json.dumps({**good, "updated_at": "soon"}).encode(), src, "acme")
    assert err.path == "b.json" and err.field == "updated_at"


def test_cli_sync_from_export_in_embedded_mode(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("FOLIO_EVENTS_KAFKA_BOOTSTRAP", raising=False)
    monkeypatch.setenv("T_JIRA", "unused-for-export")
    examples = Path(__file__).resolve().parents[1] / "examples" / "acme" / "jira"
    site = tmp_path / "site.yaml"
    site.write_text("tenant: acme\nsite: emea\nconnectors:\n"
                    "  - {system: jira, instance: acme-jira, base_url: 'https://acme.atlassian.net',"
                    " auth: {kind: basic, username: bot, token_env: T_JIRA}}\n")
    wiki = tmp_path / "wiki"
    result = CliRunner().invoke(app, ["connectors", "sync", "jira", "--from-export", str(examples),
                                      "--config", str(site), "--wiki", str(wiki)])
    assert result.exit_code == 0, result.output
    assert "published" in result.output and "batch:" in result.output
    assert list((wiki / "ticket").glob("*.md"))
    # a second sync publishes nothing new: the cursor remembers the versions
    again = CliRunner().invoke(app, ["connectors", "sync", "jira", "--from-export", str(examples),
                                     "--config", str(site), "--wiki", str(wiki)])
    assert again.exit_code == 0 and " 0 published" in again.output


def test_cli_consume_without_a_broker_says_how_to_configure_one(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("FOLIO_EVENTS_KAFKA_BOOTSTRAP", raising=False)
    result = CliRunner().invoke(app, ["consume", "--site", "emea", "--wiki", "w"])
    assert result.exit_code == 1 and "FOLIO_EVENTS_KAFKA_BOOTSTRAP" in result.output


def _undated(record):  # type: ignore[no-untyped-def]
    from compiler.models import SourceRecord

    doc = record.model_dump(exclude={"key", "sha256", "origin"})
    return SourceRecord.model_validate({**doc, "updated_at": None, "version": record.version + "-undated"})


def test_a_batch_applies_each_keys_events_as_if_one_by_one(tmp_path: Path) -> None:
    bus, consumer = _setup(tmp_path)
    bus.publish("jira", encode(record_event(ticket("acme", 1, 1), "c")) + encode(record_event(ticket("acme", 2, 5), "c")))
    consumer.run_once(wait_s=0)
    # key 1: revision 3, then a replayed export of revision 2 (older than 3, newer than the file):
    # one by one, the replay is stale and revision 3 stays
    msgs = encode(record_event(ticket("acme", 1, 3), "u")) + encode(record_event(ticket("acme", 1, 2), "r"))
    # key 2: an undated version (it always wins), then revision 4, older than the file's 5 but
    # not comparable with the undated one it follows: one by one, revision 4 ends up
    msgs += encode(record_event(_undated(ticket("acme", 2, 6)), "u")) + encode(record_event(ticket("acme", 2, 4), "u"))
    bus.publish("jira", msgs)
    report = consumer.run_once(wait_s=0)
    assert (report.events, report.keys, report.applied.written) == (4, 2, 2)
    assert "Revision 3" in (tmp_path / "wiki" / "ticket" / "ops-1.md").read_text()
    assert "Revision 4" in (tmp_path / "wiki" / "ticket" / "ops-2.md").read_text()


class _ScriptedBus:
    """A subscription whose events arrive at given times of a fake clock (the outside edge:
    when a broker delivers): a poll returns what has arrived, else waits for the next arrival
    or its timeout, moving the clock."""

    def __init__(self, arrivals: list[float], per_poll: int = 500) -> None:
        self.arrivals, self.taken, self.now, self.per_poll = arrivals, 0, 0.0, per_poll

    def monotonic(self) -> float:
        return self.now

    def poll(self, timeout_s: float, max_records: int) -> list:  # type: ignore[type-arg]
        from connectors.bus.base import Delivery

        deadline = self.now + timeout_s
        if self.taken < len(self.arrivals) and self.arrivals[self.taken] > self.now:
            self.now = min(deadline, self.arrivals[self.taken])
        out = []
        while (self.taken < len(self.arrivals) and self.arrivals[self.taken] <= self.now
               and len(out) < min(max_records, self.per_poll)):
            out.append(Delivery("t", 0, self.taken, WireMessage(b"k", b"v")))
            self.taken += 1
        if not out:
            self.now = deadline
        return out


def test_a_steady_stream_is_batched_within_the_linger_and_a_backlog_drains_whole(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import connectors.bus.batching as batching_mod
    from connectors.bus.batching import collect_batch
    from compiler.event_settings import EventSettings

    ev = EventSettings(debounce_ms=100, max_batch_wait_ms=2000, max_batch=20_000)
    # a steady stream, one event every 10 ms, is never quiet: the batch closes once it is
    # debounce_ms old instead of waiting max_batch_wait_ms (which every event would pay)
    live = _ScriptedBus([i * 0.01 for i in range(1000)])
    monkeypatch.setattr(batching_mod, "time", live)
    batch = collect_batch(live, ev, None, 1.0)
    assert len(batch) <= 12 and live.now <= 0.1 + 1e-9
    # the next batch starts where it stopped: nothing is lost or taken twice
    assert [d.offset for d in batch + collect_batch(live, ev, None, 1.0)] == list(range(len(batch) + 11))
    # a backlog (a burst, fetched in chunks) goes into one batch, past the linger
    backlog = _ScriptedBus([0.0] * 5000 + [0.5 + i * 0.01 for i in range(100)])
    monkeypatch.setattr(batching_mod, "time", backlog)
    assert len(collect_batch(backlog, ev, None, 1.0)) == 5000
    # and so does a burst still being published (5,000 events/s, a few per poll)
    flowing = _ScriptedBus([i * 0.0002 for i in range(4000)] + [1.5 + i * 0.01 for i in range(100)])
    monkeypatch.setattr(batching_mod, "time", flowing)
    assert len(collect_batch(flowing, ev, None, 1.0)) == 4000

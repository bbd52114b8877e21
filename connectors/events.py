"""Change events: CloudEvents 1.0 in Kafka binary mode around a Debezium-shaped body.

On the wire (any bus) an event is a :class:`WireMessage`:

- key: the record key ``<tenant>/<system>/<instance>/<type>/<id>`` (UTF-8), so every version
  of one record lands on one partition, in order, and a compacted topic keeps the latest;
- headers: ``ce_specversion``, ``ce_id`` (``<key>@<version>``: a replay is a duplicate),
  ``ce_source``, ``ce_type``, ``ce_subject`` (the key), ``ce_time``, ``content-type``;
- value: :class:`ChangeBody` as JSON (``op`` c/u/d/r, ``before``, ``after``, ``source``,
  ``ts_ms``), or ``None`` for the tombstone that follows every delete.

A body above the size limit travels by reference: the record goes to a claim-check store and
``after_ref`` carries its digest. :func:`decode` checks every invariant and raises
:class:`EventError` with a reason a person can act on; consumers send such messages to the
dead-letter topic instead of stopping.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, Protocol

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError

from compiler import __version__
from compiler.atomic import write_atomic
from compiler.canonical import sha256_hex
from compiler.models import SourceRecord
from compiler.store.base import Store, StoreError, get_verified

SPECVERSION = "1.0"
CONTENT_TYPE = "application/json"
TYPE_PREFIX = "dev.folio.record.v1."
Op = Literal["c", "u", "d", "r"]
OP_TYPES: dict[str, str] = {"c": "created", "u": "updated", "d": "deleted", "r": "snapshot"}
# Kafka's default max.message.bytes is 1 MiB; leave room for headers and the envelope.
DEFAULT_MAX_BODY_BYTES = 512 * 1024
# key and sha256 travel (the body describes itself); origin is where a parser read it, not content
_RECORD_EXCLUDE = {"origin"}
_COMPUTED = ("key", "sha256")
Header = tuple[str, bytes]


class EventError(ValueError):
    """A message that is not a valid change event; ``reason`` goes into the dead-letter header."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class EventSource(_Frozen):
    """Debezium's ``source`` block: where the change came from."""

    connector: Literal["folio"] = "folio"
    version: str = Field(description="folio version that emitted the event")
    tenant: str
    system: str
    instance: str
    type: str = Field(description="record type in the source system")
    id: str = Field(description="record id in the source system")
    record_version: str = Field(description="version of the record (for a delete: the deletion marker)")
    sha256: str | None = Field(None, description="digest of the record in `after` (None for deletes)")
    snapshot: bool = Field(False, description="true when replayed from an export (op r)")
    ts_ms: int = Field(description="when the record changed in the source, epoch milliseconds")

    @property
    def key(self) -> str:
        return f"{self.tenant}/{self.system}/{self.instance}/{self.type}/{self.id}"


class ClaimCheck(_Frozen):
    """A record body too large for the bus, stored by digest in a claim-check store."""

    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    size: int = Field(ge=0)


class ChangeBody(_Frozen):
    """The event value: a Debezium envelope whose rows are :class:`SourceRecord` contents."""

    op: Op
    before: SourceRecord | None = Field(None, description="last known version, when the connector knows it")
    after: SourceRecord | None = Field(None, description="new version (c, u, r); absent when sent by claim check")
    after_ref: ClaimCheck | None = Field(None, description="claim check for `after` above the size limit")
    source: EventSource
    ts_ms: int = Field(description="when the connector emitted the event, epoch milliseconds")


class ChangeEvent(_Frozen):
    """One change, with its CloudEvents attributes (structured form of the binary message)."""

    specversion: Literal["1.0"] = SPECVERSION
    id: str = Field(description="`<record key>@<version>`")
    source: str = Field(description="`/folio/<tenant>/<system>/<instance>`")
    type: str = Field(description="`dev.folio.record.v1.<created|updated|deleted|snapshot>`")
    subject: str = Field(description="the record key")
    time: AwareDatetime
    datacontenttype: Literal["application/json"] = CONTENT_TYPE
    data: ChangeBody

    @property
    def key(self) -> str:
        return self.subject

    @property
    def op(self) -> Op:
        return self.data.op

    @property
    def record(self) -> SourceRecord | None:
        return self.data.after


@dataclass(frozen=True, slots=True)
class Tombstone:
    """Null value after a delete: lets a compacted topic drop the key."""

    key: str


@dataclass(frozen=True, slots=True)
class WireMessage:
    key: bytes | None
    value: bytes | None
    headers: tuple[Header, ...] = ()

    def header(self, name: str) -> str | None:
        for k, v in self.headers:
            if k == name:
                return v.decode("utf-8", "replace") if v is not None else None
        return None


class ClaimCheckStore(Protocol):
    def put(self, data: bytes) -> ClaimCheck: ...
    def get(self, ref: ClaimCheck) -> bytes: ...


class FolderClaimCheckStore:
    """Claim checks as files named by digest: content-addressed, so re-puts are no-ops."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, sha: str) -> Path:
        return self.root / sha[:2] / f"{sha}.json"

    def put(self, data: bytes) -> ClaimCheck:
        sha = sha256_hex(data)
        path = self._path(sha)
        if not path.exists():
            # durable: the event referring to it may be acknowledged by the broker right after
            write_atomic(path, data, durable=True)
        return ClaimCheck(sha256=sha, size=len(data))

    def get(self, ref: ClaimCheck) -> bytes:
        try:
            data = self._path(ref.sha256).read_bytes()
        except OSError as exc:
            raise EventError(f"claim check {ref.sha256} not found in {self.root}: {exc.strerror}") from None
        if sha256_hex(data) != ref.sha256:
            raise EventError(f"claim check {ref.sha256} is corrupt (digest mismatch)")
        return data


class StoreClaimCheckStore:
    """Claim checks in an object store (``s3://bucket/prefix``): the one place a connector pod
    and a site worker on different nodes both reach. Content-addressed like the folder store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @staticmethod
    def _key(sha: str) -> str:
        return f"{sha[:2]}/{sha}.json"

    def put(self, data: bytes) -> ClaimCheck:
        sha = sha256_hex(data)
        if not self.store.exists(self._key(sha)):
            self.store.put(self._key(sha), data)  # S3 acknowledges a PUT once it is durable
        return ClaimCheck(sha256=sha, size=len(data))

    def get(self, ref: ClaimCheck) -> bytes:
        try:
            return get_verified(self.store, self._key(ref.sha256), ref.sha256,
                                missing=f"claim check {ref.sha256} not found",
                                corrupt=f"claim check {ref.sha256} is corrupt (digest mismatch)")
        except StoreError as exc:
            raise EventError(str(exc)) from None


def _ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


def record_event(
    record: SourceRecord, op: Op, *, now: datetime | None = None, before: SourceRecord | None = None
) -> ChangeEvent:
    """The event for a new version (``c``/``u``) or a snapshot row (``r``) of ``record``."""
    if op == "d":
        raise ValueError("use delete_event for deletions")
    now = now or datetime.now(UTC)
    src = EventSource(
        version=__version__, tenant=record.tenant, system=record.system, instance=record.instance,
        type=record.type, id=record.id, record_version=record.version, sha256=record.sha256,
        # a record with no time of its own (an undated note) is dated by its event
        snapshot=op == "r", ts_ms=_ms(record.updated_at or now),
    )
    return ChangeEvent(
        id=f"{record.key}@{record.version}",
        source=f"/folio/{record.tenant}/{record.system}/{record.instance}",
        type=TYPE_PREFIX + OP_TYPES[op], subject=record.key, time=now,
        data=ChangeBody(op=op, before=before, after=record, source=src, ts_ms=_ms(now)),
    )


def delete_event(
    tenant: str, system: str, instance: str, type_: str, id_: str, *,
    deleted_at: datetime, before: SourceRecord | None = None, now: datetime | None = None,
) -> ChangeEvent:
    """The ``op: d`` event; the deletion time is its version, so a replayed delete is a duplicate."""
    now = now or datetime.now(UTC)
    version = "deleted:" + deleted_at.astimezone(UTC).isoformat().replace("+00:00", "Z")
    src = EventSource(
        version=__version__, tenant=tenant, system=system, instance=instance, type=type_, id=id_,
        record_version=version, ts_ms=_ms(deleted_at),
    )
    return ChangeEvent(
        id=f"{src.key}@{version}", source=f"/folio/{tenant}/{system}/{instance}",
        type=TYPE_PREFIX + OP_TYPES["d"], subject=src.key, time=now,
        data=ChangeBody(op="d", before=before, source=src, ts_ms=_ms(now)),
    )


def _record_json(record: SourceRecord) -> dict:
    return record.model_dump(mode="json", exclude=_RECORD_EXCLUDE)


def encode(
    event: ChangeEvent, *, claim_checks: ClaimCheckStore | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
) -> list[WireMessage]:
    """The Kafka messages for one event: the event, then a tombstone when it is a delete."""
    body = event.data
    doc = body.model_dump(mode="json", exclude={"before", "after"})
    doc["before"] = _record_json(body.before) if body.before else None
    doc["after"] = _record_json(body.after) if body.after else None
    value = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    if len(value) > max_body_bytes and body.after is not None:
        if claim_checks is None:
            raise ValueError(f"{event.id}: body is {len(value):,} bytes, over {max_body_bytes:,}, "
                             "and no claim-check store is configured")
        record_bytes = json.dumps(doc["after"], ensure_ascii=False, sort_keys=True).encode()
        doc["after_ref"] = claim_checks.put(record_bytes).model_dump(mode="json")
        doc["after"] = None
        doc["before"] = None  # the consumer never needs it, and it is as large as `after`
        value = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    key = event.subject.encode()
    headers: tuple[Header, ...] = (
        ("ce_specversion", SPECVERSION.encode()),
        ("ce_id", event.id.encode()),
        ("ce_source", event.source.encode()),
        ("ce_type", event.type.encode()),
        ("ce_subject", event.subject.encode()),
        ("ce_time", event.time.astimezone(UTC).isoformat().replace("+00:00", "Z").encode()),
        ("content-type", CONTENT_TYPE.encode()),
    )
    out = [WireMessage(key=key, value=value, headers=headers)]
    if body.op == "d":
        out.append(WireMessage(key=key, value=None, headers=()))
    return out


def _required(msg: WireMessage, name: str) -> str:
    value = msg.header(name)
    if not value:
        raise EventError(f"missing CloudEvents header {name}")
    return value


def decode(msg: WireMessage, *, claim_checks: ClaimCheckStore | None = None,
           max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> ChangeEvent | Tombstone:
    """Validate one message; every broken invariant raises :class:`EventError` with why.
    A body above ``max_body_bytes`` (``FOLIO_EVENTS_MAX_BODY_BYTES``) is refused unread: a
    producer sends such a record by claim check, so an inline one is either a broken producer
    or an attempt to push a record past the limits the claim check enforces."""
    if msg.key is None:
        raise EventError("message has no key (expected the record key)")
    try:
        key = msg.key.decode("utf-8")
    except UnicodeDecodeError:
        raise EventError("message key is not UTF-8") from None
    if key.count("/") < 4:
        raise EventError(f"message key {key!r} is not <tenant>/<system>/<instance>/<type>/<id>")
    if msg.value is None:
        return Tombstone(key=key)
    if len(msg.value) > max_body_bytes:
        raise EventError(f"inline body is {len(msg.value):,} bytes, above "
                         f"FOLIO_EVENTS_MAX_BODY_BYTES ({max_body_bytes:,}): records that large "
                         "travel by claim check; not compiled")
    if _required(msg, "ce_specversion") != SPECVERSION:
        raise EventError(f"ce_specversion {msg.header('ce_specversion')!r} is not {SPECVERSION}")
    attrs = {name: _required(msg, f"ce_{name}") for name in ("id", "source", "type", "subject", "time")}
    ctype = msg.header("content-type") or CONTENT_TYPE
    if ctype.split(";")[0].strip() != CONTENT_TYPE:
        raise EventError(f"content-type {ctype!r} is not {CONTENT_TYPE}")
    try:
        doc = json.loads(msg.value)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EventError(f"value is not JSON: {exc}") from None
    except RecursionError:  # a few KiB of "[" nest past the interpreter's stack
        raise EventError("value nests too deeply to be a change event") from None
    if not isinstance(doc, dict):
        raise EventError("value is not a JSON object (expected a Debezium-shaped envelope)")
    ref = doc.get("after_ref")
    if ref is not None and doc.get("after") is None:
        if claim_checks is None:
            raise EventError("event body is a claim check but no claim-check store is configured")
        try:
            check = ClaimCheck.model_validate(ref)
        except ValidationError as exc:
            raise EventError(f"after_ref: {_first_error(exc)}") from None
        try:
            doc = {**doc, "after": json.loads(claim_checks.get(check))}
        except json.JSONDecodeError as exc:
            raise EventError(f"claim check {check.sha256} is not JSON: {exc}") from None
        except RecursionError:
            raise EventError(f"claim check {check.sha256} nests too deeply") from None
    claimed: dict[str, str] = {}
    for side in ("before", "after"):
        row = doc.get(side)
        if isinstance(row, dict):
            row = dict(row)
            for name in _COMPUTED:
                value = row.pop(name, None)
                if side == "after" and isinstance(value, str):
                    claimed[name] = value
            doc = {**doc, side: row}
    try:
        event = ChangeEvent.model_validate({**attrs, "data": doc})
    except ValidationError as exc:
        raise EventError(f"invalid event: {_first_error(exc)}") from None
    _check(event, key)
    record = event.data.after
    if record is not None and claimed.get("sha256", record.sha256) != record.sha256:
        raise EventError(f"`after.sha256` {claimed['sha256'][:12]}… is not the digest of the record "
                         f"({record.sha256[:12]}…)")
    if record is not None and claimed.get("key", record.key) != record.key:
        raise EventError(f"`after.key` {claimed['key']!r} is not the record's key {record.key!r}")
    return event


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors(include_url=False)
    e = errors[0]
    loc = ".".join(str(p) for p in e["loc"])
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{loc}: {e['msg']}{more}"


def _check(event: ChangeEvent, key: str) -> None:
    body = event.data
    src = body.source
    if event.subject != key:
        raise EventError(f"ce_subject {event.subject!r} differs from the message key {key!r}")
    if src.key != key:
        raise EventError(f"source block names {src.key!r}, not the message key {key!r}")
    if event.id != f"{key}@{src.record_version}":
        raise EventError(f"ce_id {event.id!r} is not <key>@<version> ({key}@{src.record_version})")
    if event.type != TYPE_PREFIX + OP_TYPES[body.op]:
        raise EventError(f"ce_type {event.type!r} does not match op {body.op!r}")
    if body.op == "d":
        if body.after is not None:
            raise EventError("op d must not carry `after`")
        return
    record = body.after
    if record is None:
        raise EventError(f"op {body.op} carries no `after` record")
    if record.key != key:
        raise EventError(f"`after` is record {record.key!r}, not the message key {key!r}")
    if record.version != src.record_version:
        raise EventError(f"`after` is version {record.version!r}, source says {src.record_version!r}")
    if src.sha256 is not None and record.sha256 != src.sha256:
        raise EventError(f"`after` digest {record.sha256[:12]}… differs from source.sha256 {src.sha256[:12]}…")


__all__ = [
    "ChangeBody", "ChangeEvent", "ClaimCheck", "ClaimCheckStore", "EventError", "EventSource",
    "FolderClaimCheckStore", "StoreClaimCheckStore", "Tombstone", "WireMessage", "decode", "delete_event", "encode",
    "record_event",
]

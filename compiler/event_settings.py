"""Settings of the event pipeline (bus, topics, consumer), nested in :class:`FolioSettings`.

Env vars ``FOLIO_EVENTS_<FIELD>``, e.g. ``FOLIO_EVENTS_KAFKA_BOOTSTRAP=broker:9092``. Secrets
are :class:`SecretStr`: they never appear in reprs or logs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class EventSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FOLIO_EVENTS_", extra="ignore")

    kafka_bootstrap: str | None = Field(
        None, description="Kafka bootstrap servers (host:port,…); unset = in-process queue (embedded)")
    kafka_security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = "PLAINTEXT"
    kafka_sasl_mechanism: Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"] | None = None
    kafka_sasl_username: str | None = None
    kafka_sasl_password: SecretStr | None = None
    kafka_ssl_cafile: Path | None = None
    kafka_ssl_certfile: Path | None = None
    kafka_ssl_keyfile: Path | None = None
    topic_prefix: str = Field("folio", description="topics are <prefix>.<tenant>.<system>.<history|state>")
    partitions: int = Field(6, ge=1, description="partitions of each new topic")
    replication_factor: int = Field(1, ge=1, description="replicas of each new topic (3 in production)")
    history_retention_ms: int = Field(7 * 24 * 3600 * 1000, ge=-1, description="history topic retention")
    tombstone_retention_ms: int = Field(
        24 * 3600 * 1000, ge=0,
        description="state topic delete.retention.ms: how long a tombstone outlives compaction, so "
        "a consumer that is behind still sees the delete")
    session_timeout_ms: int = Field(45_000, ge=1_000, description="consumer group session timeout")
    max_poll_interval_ms: int = Field(300_000, ge=1_000)
    debounce_ms: int = Field(
        100, ge=0, description="a batch stays open this long after its first event, so a storm "
        "of events for one record compiles once; it grows past that only while the bus holds a "
        "backlog (the event bridge instead waits for this long a quiet moment)")
    max_batch: int = Field(20_000, ge=1, description="events per compile at most")
    max_batch_wait_ms: int = Field(2_000, ge=0, description="a batch closes after this long even while a backlog drains")
    max_body_bytes: int = Field(512 * 1024, ge=1024, description="above this, a record goes by claim check")
    claim_check_store: str | None = Field(
        None, description="where bodies over max_body_bytes go (claim checks): s3://bucket/prefix, "
        "or a folder that producers and consumers share; unset = such records are rejected")

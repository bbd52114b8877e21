"""The one settings object. Every field can be set by an env var ``FOLIO_<FIELD>``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from .event_settings import EventSettings

DEFAULT_MAX_RECORD_TEXT_BYTES = 2 * 1024 * 1024
# YAML limits (compiler/safe_yaml.py): far above any real configuration file or front matter,
# far below what hurts
DEFAULT_MAX_DEPTH = 64
DEFAULT_MAX_NODES = 200_000
DEFAULT_MAX_EXPANDED_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_ALIASES = 1_000


def default_cache_dir() -> Path:
    """Where ``--wiki s3://…`` snapshots are materialised (one folder per store URL)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "folio"


def default_key_path() -> Path:
    """Per-user, outside any wiki: a key that lived next to the pages could be replaced by
    whoever can replace the pages."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "folio" / "signing-key.pem"


class FolioSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FOLIO_", extra="ignore")

    backend: str = Field("offline", description="extraction backend: offline (default) or llm")
    max_file_bytes: int = Field(
        20 * 1024 * 1024, gt=0, description="input files larger than this are rejected unread"
    )
    max_record_text_bytes: int = Field(
        DEFAULT_MAX_RECORD_TEXT_BYTES, gt=0,
        description="a record whose text (title, body and field values, UTF-8) is larger than "
        "this is rejected with its file and record named (the rest of the file compiles)")
    # YAML (front matter, sources/authority/directory/schema files, site configs): bounded
    # before anything is built, see compiler/safe_yaml.py
    yaml_max_depth: int = Field(DEFAULT_MAX_DEPTH, ge=1, le=10_000, description="YAML nesting depth at most")
    yaml_max_nodes: int = Field(
        DEFAULT_MAX_NODES, ge=1, description="YAML nodes a document may expand to, aliases expanded")
    yaml_max_expanded_bytes: int = Field(
        DEFAULT_MAX_EXPANDED_BYTES, ge=1,
        description="bytes of YAML scalars a document may expand to, aliases expanded")
    yaml_max_aliases: int = Field(DEFAULT_MAX_ALIASES, ge=0, description="YAML aliases per document at most")
    schema_induction: bool = Field(
        True, description="map fields no schema maps when the corpus's own records show them "
        "to be one attribute (compiler/schema/induce.py, docs/schema.md); off: only declared "
        "mappings apply")
    schema_induction_sample: int = Field(
        3000, ge=100, description="records induction reads at most: whole entities, chosen by "
        "a stable hash, so an edit's cost does not grow with the wiki (docs/schema.md)")
    full_relink_ratio: float = Field(
        0.2, gt=0, le=1,
        description="above this share of records changed, relink everything instead of "
        "searching for affected records",
    )
    workers: int = Field(
        0, ge=0, description="processes for parsing, linking and rendering; 0 = one per core"
    )
    parallel_min_items: int = Field(
        2_000, ge=1,
        description="a compile phase with fewer records or pages than this runs in one process "
        "(starting workers costs more than it saves)",
    )

    # -- LLM backend (FOLIO_BACKEND=llm) ----------------------------------------------------
    llm_model: str | None = Field(
        None, description="litellm model, e.g. openai/gpt-4o-mini or hosted_vllm/smollm2")
    llm_api_base: str | None = Field(None, description="API base URL (local or proxy servers)")
    llm_api_key: SecretStr | None = Field(None, description="API key; never logged or written")
    llm_fallbacks: list[str] = Field(
        default_factory=list,
        description="models tried in order when the primary fails (JSON list); they share "
        "api base and key")
    llm_timeout_s: float = Field(120.0, gt=0, description="per-call timeout")
    llm_retries: int = Field(2, ge=0, le=10, description="retries per call (429, 5xx, timeouts)")
    llm_concurrency: int = Field(4, ge=1, le=64, description="calls in flight at once")
    llm_rate_limit: str | None = Field(
        None,
        description="name of a Prefect global concurrency limit with slot decay shared by "
        "every site (`folio pipeline llm-limit`); each LLM call the cache cannot answer takes "
        "one slot first. Needs the pipelines extra and a reachable Prefect API")
    llm_max_output_tokens: int = Field(1024, ge=16, description="max_tokens of one call")
    llm_budget_tokens: int | None = Field(
        None, gt=0, description="stop the run before a call would pass this many tokens")
    llm_budget_usd: float | None = Field(
        None, gt=0, description="stop the run once this much has been spent (response_cost)")
    llm_max_claims_per_chunk: int = Field(
        24, ge=1, le=200, description="claims asked for per chunk (small models: fewer)")
    llm_chunk_chars: int = Field(2000, ge=200, description="target characters per chunk")
    llm_min_confidence: float = Field(
        0.3, ge=0, le=1, description="claims the model is less sure of are rejected")
    llm_json_schema: bool = Field(
        True, description="ask for JSON-schema constrained output (else plain JSON mode)")
    llm_synthesis: bool = Field(
        False, description="write an LLM prose overview on each page, citing claim ids")
    events: EventSettings = Field(
        default_factory=EventSettings, description="event bus and site consumer (FOLIO_EVENTS_*)")

    # -- provenance (docs/provenance.md) ------------------------------------------------------
    signing: Literal["local", "sigstore", "off"] = Field(
        "local",
        description="how compiles sign each page's DBOM and the index root: local (an ECDSA "
        "P-256 key at key_path, created on first use), sigstore (keyless, Fulcio + Rekor) or off",
    )
    key_path: Path = Field(
        default_factory=default_key_path,
        description="PEM private key of the local signer (0600); its public key is written "
        "next to it as <name>.pub",
    )
    trusted_key: Path | None = Field(
        None,
        description="PEM public key that `folio verify`/`audit` trust; default: the public key "
        "of key_path",
    )
    builder_id: str = Field(
        "urn:folio:builder:local",
        description="SLSA builder id written into every DBOM: the site or workload identity",
    )
    sigstore_token_file: Path = Field(
        Path("/var/run/secrets/folio/sigstore-token"),
        description="projected Kubernetes service-account token (audience `sigstore`); when "
        "absent, ambient CI credentials are tried",
    )
    sigstore_trust_config: Path | None = Field(
        None,
        description="ClientTrustConfig JSON of a private Sigstore (Fulcio, Rekor, roots); "
        "default: the public-good instance",
    )
    sigstore_identity: str | None = Field(
        None, description="certificate identity (SAN) `folio verify` accepts for keyless bundles"
    )
    sigstore_issuer: str | None = Field(
        None, description="OIDC issuer `folio verify` accepts for keyless bundles"
    )

    # -- central index store (docs/central-index.md) ------------------------------------------
    s3_endpoint_url: str | None = Field(
        None, description="S3 API endpoint for MinIO, Ceph RGW or a test server; default AWS")
    s3_region: str | None = Field(None, description="S3 region (default: the AWS config chain)")
    s3_addressing_style: Literal["auto", "path", "virtual"] = Field(
        "auto", description="bucket addressing; auto = path-style when s3_endpoint_url is set")
    s3_max_attempts: int = Field(
        6, ge=1, le=20,
        description="attempts per S3 request (botocore standard retries: 5xx, throttling, "
        "connection errors) before a publish or sync fails")
    s3_timeout_s: float = Field(30.0, gt=0, description="S3 connect and read timeout")
    s3_concurrency: int = Field(8, ge=1, le=64, description="parallel uploads/downloads")
    cache_dir: Path = Field(
        default_factory=default_cache_dir,
        description="local snapshots of published wikis read with --wiki s3://… (one folder "
        "per store URL)")

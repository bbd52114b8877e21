"""The interface every API connector implements, and the site config that wires them.

A connector polls a time window and yields :class:`Page` s (records, per-record failures and
deletions, plus the high-water mark the cursor may advance to once the page is published); it
lists ids only (to prune deletions the incremental query cannot see); and it names the
export-file parser that reads the same payloads from disk (``--from-export``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol

import httpx
import yaml
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, SecretStr, ValidationError

from compiler import safe_yaml
from compiler.models import ACL, SourceRecord

from ..base import Connector, RecordError, SourceConfig
from .client import ApiClient, BearerAuth, basic_auth


class ConfigError(ValueError):
    """``site.yaml`` (or an env var it names) is missing or invalid."""


class AuthConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["basic", "bearer", "none"] = "bearer"
    username: str | None = Field(None, description="basic auth user (Atlassian: the account e-mail)")
    token_env: str | None = Field(
        None, description="name of the env var holding the token or password; the file never holds it")

    def build(self, where: str) -> httpx.Auth | None:
        if self.kind == "none":
            return None
        if not self.token_env:
            raise ConfigError(f"{where}: auth.token_env is required for {self.kind} auth")
        raw = os.environ.get(self.token_env)
        if not raw:
            raise ConfigError(f"{where}: env var {self.token_env} (the API token) is not set")
        token = SecretStr(raw)
        if self.kind == "basic":
            if not self.username:
                raise ConfigError(f"{where}: auth.username is required for basic auth")
            return basic_auth(self.username, token)
        return BearerAuth(token)


class ApiSourceConfig(BaseModel):
    """One connector of a site: which system, where, how to authenticate, what to read."""

    model_config = ConfigDict(extra="forbid")

    system: str
    instance: str = Field(pattern=r"^[^/\x00-\x1f\x7f]+$")
    base_url: str
    auth: AuthConfig = Field(default_factory=AuthConfig)
    default_acl: ACL = Field(default_factory=lambda: ACL(groups=("staff",)))
    options: dict[str, Any] = Field(default_factory=dict, description="passed to the payload parser")
    scope: list[str] = Field(default_factory=list,
                             description="Jira projects, Confluence spaces, Salesforce objects, …")
    page_size: int = Field(100, ge=1, le=2000)
    overlap_s: int = Field(
        120, ge=0, description="each poll re-reads this much before the cursor: source clocks and "
        "index lag make the newest changes visible late (re-read versions are not re-published)")
    poll_interval_s: float = Field(60, gt=0)
    start: AwareDatetime | None = Field(None, description="first poll reads changes since then")
    prune_every: int = Field(10, ge=0, description="id-only deletion listing every N polls (0: never)")

    def source_config(self) -> SourceConfig:
        return SourceConfig(path=".", system=self.system, instance=self.instance,
                            default_acl=self.default_acl, options=self.options)


class SiteConfig(BaseModel):
    """``site.yaml``."""

    model_config = ConfigDict(extra="forbid")

    tenant: str = Field(pattern=r"^[^/\x00-\x1f\x7f]+$")
    site: str = Field(pattern=r"^[A-Za-z0-9._-]+$")
    state_dir: Path = Field(Path(".folio-connectors"), description="cursor files, relative to site.yaml")
    connectors: list[ApiSourceConfig]

    def connector(self, system: str, instance: str | None = None) -> ApiSourceConfig:
        found = [c for c in self.connectors
                 if c.system == system and (instance is None or c.instance == instance)]
        if not found:
            raise ConfigError(f"site.yaml has no {system} connector"
                              + (f" with instance {instance!r}" if instance else ""))
        if len(found) > 1:
            raise ConfigError(f"site.yaml has {len(found)} {system} connectors: pass --instance")
        return found[0]


def load_site_config(path: Path) -> SiteConfig:
    try:
        raw = safe_yaml.load(path.read_text(encoding="utf-8")) or {}
        cfg = SiteConfig.model_validate(raw)
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"{path}: invalid site config: {problems}") from None
    if not cfg.state_dir.is_absolute():
        cfg = cfg.model_copy(update={"state_dir": path.parent / cfg.state_dir})
    return cfg


@dataclass(frozen=True, slots=True)
class Deletion:
    type: str
    id: str
    deleted_at: datetime


@dataclass(slots=True)
class Page:
    items: list[SourceRecord | RecordError | Deletion] = field(default_factory=list)
    high_water: datetime | None = None


class ApiConnector(Protocol):
    system: ClassVar[str]

    def poll(self, since: datetime, until: datetime) -> Iterator[Page]:
        """Changes with since <= modified < until, oldest first, one API page at a time."""
        ...

    def list_ids(self) -> Iterator[tuple[str, str]]:
        """(type, id) of every live record in scope: ids only, for pruning deletions."""
        ...

    def export_parser(self) -> Connector: ...

    def close(self) -> None: ...


def make_client(cfg: ApiSourceConfig, transport: httpx.BaseTransport | None = None,
                **kw: Any) -> ApiClient:
    return ApiClient(cfg.base_url, cfg.auth.build(f"{cfg.system}/{cfg.instance}"),
                     transport=transport, **kw)



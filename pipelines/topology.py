"""Where each site's data lives, what may leave it, and where the central index goes.

One YAML file (``folio-sites.yaml``) read by every flow, the bridge and the CLI; each site only
ever reads its own ``corpus`` (a deployment never touches another site's raw data), and the
central aggregation reads only what sites ship to the store.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from compiler import safe_yaml
from compiler.claimset import SharePolicy


class TopologyError(ValueError):
    """The sites file is missing or invalid; the message names the file and the field."""


class SiteConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,62}$",
                      description="site id: names its work pool, deployment and store prefix")
    corpus: Path = Field(description="the site's corpus folder (export files or a consumer's "
                                     "record folder, with sources.yaml)")
    workdir: Path = Field(description="the site's extraction state and outgoing claim set")
    share: SharePolicy = Field(default_factory=SharePolicy,
                               description="what may leave the site besides claims")
    systems: tuple[str, ...] = Field(
        ("confluence", "jira", "salesforce", "zendesk", "hubspot"),
        description="source systems whose change events this site consumes")
    work_pool: str | None = Field(None, description="Prefect work pool (default: folio-<name>)")
    schedule: str | None = Field(
        None, description="cron schedule of the site's scheduled compile, e.g. '*/15 * * * *'")
    reconcile_schedule: str | None = Field(
        None, description="cron schedule of the reconcile flow (full id listing, re-verify)")
    service_account: str | None = Field(
        None, description="Kubernetes service account the site's jobs run as: its signing "
                          "identity for keyless signing")
    namespace: str | None = Field(None, description="Kubernetes namespace of the site's jobs")
    signer_identity: str | None = Field(
        None, description="keyless certificate identity the centre requires on this site's claim "
                          "sets; default: the service account's "
                          "(https://kubernetes.io/namespaces/<namespace>/serviceaccounts/<name>)")
    trusted_key: Path | None = Field(
        None, description="PEM public key the centre requires on this site's claim sets when "
                          "the site signs with its own local key; default: the centre's trusted key")

    @property
    def pool(self) -> str:
        return self.work_pool or f"folio-{self.name}"


class CentralConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    workdir: Path = Field(description="the aggregate corpus (claim sets) and wiki, before publish")
    authority: Path = Field(description="authority.yaml: settles conflicts across all sites")
    directory: Path | None = Field(None, description="directory.yaml: users → groups")
    schema_file: Path | None = Field(
        None, alias="schema", description="schema.yaml: the vocabulary every site's claims are "
        "linked under (docs/schema.md); without one, the bundled base schema")
    schedule: str | None = Field(None, description="cron schedule of the aggregation")
    freshness_schedule: str | None = Field(None, description="cron schedule of freshness checks")
    freshness_slo_hours: float = Field(
        24.0, gt=0, description="a page is late when a source of it is older than its freshness "
                                "tier allows for longer than this")


class Topology(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    tenant: str = Field(pattern=r"^[^/\x00-\x1f\x7f]+$")
    store: str = Field(description="central index: s3://bucket/prefix or a folder")
    central: CentralConfig
    sites: tuple[SiteConfig, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_sites(self) -> Topology:
        names = [s.name for s in self.sites]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"site names must be unique: {', '.join(dupes)}")
        return self

    def site(self, name: str) -> SiteConfig:
        for s in self.sites:
            if s.name == name:
                return s
        raise TopologyError(f"no site {name!r} (sites: {', '.join(s.name for s in self.sites)})")


def load_topology(path: Path) -> Topology:
    """Read and validate; relative paths are relative to the file's folder."""
    try:
        raw = safe_yaml.load(path.read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        raise TopologyError(f"{path}: sites file not found") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise TopologyError(f"{path}: cannot read: {exc}") from exc
    try:
        topo = Topology.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(top)'}: {e['msg']}"
                             for e in exc.errors(include_url=False))
        raise TopologyError(f"{path}: invalid sites file: {problems}") from exc
    base = path.parent.resolve()

    def here(p: Path | None) -> Path | None:
        return None if p is None else (p if p.is_absolute() else base / p)

    store = topo.store if "://" in topo.store else str(here(Path(topo.store)))
    central = topo.central.model_copy(update={
        "workdir": here(topo.central.workdir), "authority": here(topo.central.authority),
        "directory": here(topo.central.directory),
        "schema_file": here(topo.central.schema_file)})
    sites = tuple(s.model_copy(update={"corpus": here(s.corpus), "workdir": here(s.workdir),
                                       "trusted_key": here(s.trusted_key)})
                  for s in topo.sites)
    return topo.model_copy(update={"store": store, "central": central, "sites": sites})

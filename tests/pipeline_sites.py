"""The Acme corpus split over two sites, as a platform team would deploy it: ``emea`` holds
Confluence, Jira and the handbook, ``us`` holds both Salesforce orgs."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from conftest import ACME

SITES = {"emea": ["confluence", "jira", "handbook"], "us": ["salesforce/prod", "salesforce/legacy"]}


def site_entry(name: str, **extra: object) -> dict:
    return {"name": name, "corpus": f"{name}/corpus", "workdir": f"{name}/work", **extra}


def write_topology(root: Path, sites: list[dict], store: str) -> Path:
    """The sites file: these sites, Acme's authority policy and directory at the centre."""
    topo = {"tenant": "acme", "store": store,
            "central": {"workdir": "central", "authority": str(ACME / "authority.yaml"),
                        "directory": str(ACME / "directory.yaml"),
                        "schema": str(ACME / "schema.yaml")},
            "sites": sites}
    path = root / "folio-sites.yaml"
    path.write_text(yaml.safe_dump(topo))
    return path


def make_topology(root: Path, share: dict | None = None, store: str | None = None) -> Path:
    """Each site's corpus a copy of its Acme export folders."""
    manifest = yaml.safe_load((ACME / "sources.yaml").read_text())
    sites = []
    for name, paths in SITES.items():
        corpus = root / name / "corpus"
        for p in paths:
            shutil.copytree(ACME / p, corpus / p)
        shutil.copy(ACME / "authority.yaml", corpus)
        shutil.copy(ACME / "schema.yaml", corpus)
        (corpus / "sources.yaml").write_text(yaml.safe_dump(
            {"tenant": "acme", "sources": [s for s in manifest["sources"] if s["path"] in paths]}))
        sites.append(site_entry(name, **({"share": share} if share else {})))
    return write_topology(root, sites, store or "store")

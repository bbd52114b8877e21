"""The Acme corpus split over two sites, as a platform team would deploy it: ``emea`` holds
Confluence, Jira and the handbook, ``us`` holds both Salesforce orgs."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from conftest import ACME

SITES = {"emea": ["confluence", "jira", "handbook"], "us": ["salesforce/prod", "salesforce/legacy"]}


def make_topology(root: Path, share: dict | None = None, store: str | None = None) -> Path:
    manifest = yaml.safe_load((ACME / "sources.yaml").read_text())
    sites = []
    for name, paths in SITES.items():
        corpus = root / name / "corpus"
        for p in paths:
            shutil.copytree(ACME / p, corpus / p)
        shutil.copy(ACME / "authority.yaml", corpus)
        (corpus / "sources.yaml").write_text(yaml.safe_dump(
            {"tenant": "acme", "sources": [s for s in manifest["sources"] if s["path"] in paths]}))
        sites.append({"name": name, "corpus": f"{name}/corpus", "workdir": f"{name}/work",
                      **({"share": share} if share else {})})
    topo = {"tenant": "acme", "store": store or "store",
            "central": {"workdir": "central", "authority": str(ACME / "authority.yaml"),
                        "directory": str(ACME / "directory.yaml")},
            "sites": sites}
    path = root / "folio-sites.yaml"
    path.write_text(yaml.safe_dump(topo))
    return path

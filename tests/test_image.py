"""The container image for real: ``deploy/Dockerfile`` built with buildah and run with podman.

No registry is reachable here, so the base image is Debian bookworm's own Python made with
``mmdebstrap`` (cached under ``/var/cache/folio-ci``, checked against its recorded sha256 and
rebuilt when missing, altered or a week old), imported into podman and passed to the
Dockerfile as ``PYTHON_IMAGE``. Builds use ``--isolation chroot`` (no daemon, no user
namespaces); pip inside the build trusts the host's CA bundle, mounted read-only with
``PIP_CERT`` naming it. Containers run with runc (crun fails on this kernel's hybrid cgroups)
and explicit ulimits.

Then the compose stack's Folio services (``deploy/compose.yaml``: keys-init, deploy, seed,
worker-hq, bridge-hq, worker-central, the CLI) run under podman with the settings compose
gives them — user, read-only root, tmpfs, dropped capabilities, init, entrypoint, command,
environment, volumes — against the host's SeaweedFS, noida-db and Prefect server on
PostgreSQL in place of the MinIO, Kafka and Prefect images (no registry to pull them from), on
the host's network namespace so that the loopback reaches them. docs/compose.md lists what
does not run here.

The tools are Debian packages (``bash .ci/real-parts.sh``); a missing one fails the test.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tarfile
import time
import tomllib
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import boto3
import pytest
import yaml

from brokers import fresh
from compiler.build import compile_wiki
from compiler.provenance.reproducible import reproducible_files
from conftest import ACME, flat
from prefect_server import PrefectServer, Proc
from s3 import CREDENTIALS, free_port

REPO = Path(__file__).resolve().parents[1]
DEPLOY = REPO / "deploy"
TOOLS = ("buildah", "podman", "runc", "catatonit", "mmdebstrap")
BASE_IMAGE = "localhost/folio-ci-base:bookworm"
IMAGE = "localhost/folio:test"
BASE_PACKAGES = "python3,python3-venv,python3-pip,ca-certificates"
BASE_MAX_AGE_S = 7 * 24 * 3600  # then rebuilt, for Debian's security updates
UID = 10001
PODMAN = ["podman", "--runtime", "runc"]
RUN = [*PODMAN, "run", "--rm", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"]
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


def cache_dir() -> Path:
    if os.access("/var/cache", os.W_OK):
        return Path("/var/cache/folio-ci")
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "folio-ci"


def ca_bundle() -> Path:
    """The host's CA bundle (Debian's ca-certificates file): it trusts whatever proxy stands
    between this machine and PyPI, which the base image's own bundle does not."""
    bundle = Path(os.environ.get("PIP_CERT") or "/etc/ssl/certs/ca-certificates.crt")
    assert bundle.is_file(), f"no CA bundle at {bundle} (Debian package ca-certificates)"
    return bundle


def sh(cmd: list[str], timeout: float = 600, **kw: Any) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    assert out.returncode == 0, f"{' '.join(cmd)} exited {out.returncode}:\n" \
                                f"{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out


def _sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / ".lock").open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)  # one build of the base at a time on this machine
        yield


def base_tarball() -> tuple[Path, str]:
    """The mmdebstrap tarball and its sha256: the cached one if it still hashes to the digest
    recorded when it was made (and is under a week old), else a fresh one."""
    cache = cache_dir()
    tar, recorded = cache / "python-bookworm-base.tar", cache / "python-bookworm-base.tar.sha256"
    with _locked(cache):
        if tar.is_file() and recorded.is_file() \
                and time.time() - tar.stat().st_mtime < BASE_MAX_AGE_S:
            digest = _sha256(tar)
            if digest == recorded.read_text().split()[0]:
                return tar, digest
        tmp = cache / f".base-{os.getpid()}.tar"
        sh(["mmdebstrap", "--quiet", "--variant=minbase", f"--include={BASE_PACKAGES}",
            "bookworm", str(tmp)], timeout=900)
        digest = _sha256(tmp)
        (cache / ".base.sha256").write_text(f"{digest}  {tar.name}\n")
        os.replace(tmp, tar)
        os.replace(cache / ".base.sha256", recorded)
        return tar, digest


def base_image() -> str:
    """The tarball as a podman image, labelled with its digest; imported again only when the
    tarball changed (an unchanged base keeps buildah's layer cache valid)."""
    tar, digest = base_tarball()
    have = subprocess.run([*PODMAN, "image", "inspect", BASE_IMAGE, "--format",
                           '{{ index .Labels "org.folio.base-sha256" }}'],
                          capture_output=True, text=True)
    if have.returncode != 0 or have.stdout.strip() != digest:
        sh([*PODMAN, "import", "--quiet", "--change", f"LABEL org.folio.base-sha256={digest}",
            str(tar), BASE_IMAGE])
    return BASE_IMAGE


@pytest.fixture(scope="module")
def image() -> str:
    if os.geteuid() != 0:
        pytest.fail("the image tests run buildah and podman as root (CI does): chroot "
                    "isolation, runc and volumes owned by uid 10001 need it")
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        pytest.fail(f"container tools missing: {', '.join(missing)} (Debian packages; "
                    f"install them with `bash .ci/real-parts.sh` as root)")
    base = base_image()
    bundle = ca_bundle()
    sh(["buildah", "bud", "--quiet", "--isolation", "chroot", "--layers",
        "-f", str(DEPLOY / "Dockerfile"), "--build-arg", f"PYTHON_IMAGE={base}",
        "--build-arg", f"PIP_CERT={bundle}", "--volume", f"{bundle}:{bundle}:ro",
        "-t", IMAGE, str(REPO)], timeout=1800)
    # --layers keeps every step as an untagged image, so the next build on this machine reuses
    # the dependency layer until pyproject.toml changes. Steps no current image descends from
    # and older than a few hours are garbage from earlier builds: without this each build with
    # changed code would leave ~0.5 GB behind.
    sh([*PODMAN, "image", "prune", "--force", "--filter", "until=6h"])
    return IMAGE


def test_image_compiles_and_verifies_acme_read_only_as_10001(image: str, tmp_path: Path) -> None:
    hardened = ["--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges"]
    out = sh([*RUN, *hardened, "--network", "none", image, "--version"])
    assert out.stdout.strip() == f"folio {VERSION}"

    # the compile goes to a tmpfs; the wiki comes back out as a tar stream on stdout
    script = """
        id -u; id -g
        for d in /app /opt/folio /var/lib/folio; do
            if touch "$d/probe" 2>/dev/null; then echo "WRITABLE $d"; fi
        done
        folio compile examples/acme --out /out/wiki >/out/compile.log
        folio verify --wiki /out/wiki >&2
        tar -C /out/wiki -cf - . | base64 -w0
    """
    out = sh([*RUN, *hardened, "--network", "none", "--tmpfs", "/tmp:rw,size=256m,mode=1777",
              "--tmpfs", "/out:rw,size=256m,mode=1777",
              "--entrypoint", "/bin/sh", image, "-ec", script])
    lines = out.stdout.splitlines()
    assert lines[:2] == [str(UID), str(UID)]
    assert not [ln for ln in lines if ln.startswith("WRITABLE")], lines
    assert "OK: 30 pages" in flat(out.stderr), out.stderr
    import base64
    import io

    wiki = tmp_path / "from-image"
    with tarfile.open(fileobj=io.BytesIO(base64.b64decode(lines[-1]))) as tar:
        tar.extractall(wiki, filter="data")
    direct = tmp_path / "direct"
    compile_wiki(ACME, direct)
    assert reproducible_files(wiki) == reproducible_files(direct)


# -- the compose stack's Folio services under podman ---------------------------------------------

class ComposeOnPodman:
    """Turns a service of deploy/compose.yaml into a ``podman run``: the host's servers stand in
    for the infrastructure services, reached through the host's loopback."""

    def __init__(self, root: Path, image: str, hosts: dict[str, str]) -> None:
        doc = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
        self.services: dict[str, dict[str, Any]] = doc["services"]
        self.root, self.image, self.hosts = root, image, hosts
        self.volumes: dict[str, Path] = {}
        self.procs: list[Proc] = []

    def _subst(self, value: str) -> str:
        value = value.replace("$$", "$")  # compose's escape of a literal $
        for old, new in self.hosts.items():
            value = value.replace(old, new)
        return value

    def volume(self, name: str) -> Path:
        if name not in self.volumes:
            path = self.root / "volumes" / name
            path.mkdir(parents=True)
            os.chown(path, UID, UID)  # a new named volume takes the image's owner: 10001
            self.volumes[name] = path
        return self.volumes[name]

    def args(self, name: str, env: dict[str, str] | None = None) -> list[str]:
        svc = self.services[name]
        args = [*RUN, "--name", f"folio-test-{name}-{os.getpid()}", "--network", "host"]
        if svc.get("user"):
            args += ["--user", svc["user"]]
        if svc.get("read_only"):
            args.append("--read-only")
        for cap in svc.get("cap_drop", []):
            args += ["--cap-drop", cap]
        for opt in svc.get("security_opt", []):
            args += ["--security-opt", opt.replace(":true", "")]
        for mount in svc.get("tmpfs", []):
            args += ["--tmpfs", f"{mount}:rw,mode=1777"]
        if svc.get("init"):
            args.append("--init")
        if svc.get("working_dir"):
            args += ["--workdir", svc["working_dir"]]
        environment: dict[str, str] = {}
        for env_file in svc.get("env_file", []):
            for line in (DEPLOY / env_file).read_text().splitlines():
                if line.strip() and not line.startswith("#"):
                    k, _, v = line.partition("=")
                    environment[k] = v
        environment.update({k: self._subst(str(v)) for k, v in
                            (svc.get("environment") or {}).items()})
        environment.update(env or {})
        for k, v in sorted(environment.items()):
            args += ["--env", f"{k}={v}"]
        for vol in svc.get("volumes", []):
            if isinstance(vol, dict):  # a bind of a file under deploy/
                src = (DEPLOY / vol["source"]).resolve()
                args += ["--volume", f"{src}:{vol['target']}{':ro' if vol.get('read_only') else ''}"]
            else:
                src, target, *mode = vol.split(":")
                args += ["--volume", f"{self.volume(src)}:{target}" + (f":{mode[0]}" if mode else "")]
        entrypoint = svc.get("entrypoint")
        if entrypoint:
            args += ["--entrypoint", entrypoint[0]]
        args.append(self.image)
        args += (entrypoint or [])[1:]
        command = svc.get("command", [])
        args += [self._subst(c) for c in ([command] if isinstance(command, str) else command)]
        return args

    def run(self, name: str, env: dict[str, str] | None = None, timeout: float = 300) -> str:
        out = subprocess.run(self.args(name, env), capture_output=True, text=True,
                             timeout=timeout)
        assert out.returncode == 0, f"{name} exited {out.returncode}:\n{out.stdout[-3000:]}\n" \
                                    f"{out.stderr[-3000:]}"
        return out.stdout

    def start(self, name: str, env: dict[str, str] | None = None) -> Proc:
        proc = Proc(self.args(name, env), {}, self.root / f"{name}.log")
        self.procs.append(proc)
        return proc

    def stop(self) -> None:
        for proc in reversed(self.procs):
            proc.stop(30)  # podman run forwards SIGTERM to the container, then removes it


def _healthy(port: int, path: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=3) as r:
            return r.status == 200
    except OSError:
        return False


def test_compose_services_run_on_podman_against_seaweedfs_noida_and_postgres(
        image: str, seaweed, noida, postgres, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """keys-init, deploy and seed run to completion; worker-hq, bridge-hq and worker-central
    run: the seeded events become a site run that ships hq's claim set and a central run that
    publishes the signed index, which the CLI service verifies and queries."""
    boto3.client("s3", endpoint_url=seaweed.url, region_name="us-east-1").create_bucket(
        Bucket="folio-central")
    server = PrefectServer(tmp_path / "prefect", postgres.create_database(
        fresh("prefect_compose").replace("-", "_"))).start()
    stack = ComposeOnPodman(tmp_path, image, {
        "kafka:9092": noida.bootstrap, "http://minio:9000": seaweed.url,
        "http://prefect-server:4200/api": server.api_url})
    # SeaweedFS's identity instead of dev.env's MinIO one
    creds = {k: v for k, v in CREDENTIALS.items() if k != "AWS_DEFAULT_REGION"}
    health = {"worker-hq": free_port(), "worker-central": free_port()}
    bridge_health = free_port()
    try:
        stack.run("keys-init")
        stack.run("deploy")
        stack.run("seed", creds, timeout=600)
        for worker, port in health.items():
            # on the host's network the workers' health servers need ports of their own
            stack.start(worker, {**creds, "PREFECT_WORKER_WEBSERVER_HOST": "127.0.0.1",
                                 "PREFECT_WORKER_WEBSERVER_PORT": str(port),
                                 "PREFECT_WORKER_QUERY_SECONDS": "2"})
        stack.hosts["127.0.0.1:8081"] = f"127.0.0.1:{bridge_health}"
        stack.start("bridge-hq")

        s3 = boto3.client("s3", endpoint_url=seaweed.url, region_name="us-east-1")

        def has(key: str) -> bool:
            return s3.list_objects_v2(Bucket="folio-central", Prefix=key).get("KeyCount", 0) > 0

        deadline = time.monotonic() + 600
        while not (has("acme/sites/hq/claimset.json") and has("acme/HEAD.json")):
            for proc in stack.procs:
                assert proc.running(), f"{proc.log.name} stopped:\n{proc.tail()}"
            assert time.monotonic() < deadline, "\n".join(
                f"--- {p.log.name}\n{p.tail()}" for p in stack.procs) + server.server.tail()
            time.sleep(3)
        assert all(_healthy(port, "/health") for port in health.values())
        assert _healthy(bridge_health, "/healthz")
        from prefect.client.orchestration import SyncPrefectClient

        with SyncPrefectClient(server.api_url) as client:
            deployments = {d.id: d.name for d in client.read_deployments()}
            runs = [(deployments.get(r.deployment_id), r.parameters, r.state_type.value)
                    for r in client.read_flow_runs() if r.state_type]
        # the bridge started hq's run (drain: the events), the shipped event the aggregation
        assert ("hq", {"drain": True}, "COMPLETED") in [
            (d, {k: v for k, v in params.items() if k == "drain"}, s) for d, params, s in runs], runs
        assert any(d == "central" and s == "COMPLETED" for d, _, s in runs), runs

        # the CLI service (profile cli): its command is the image's `folio` plus arguments
        for args, expect in ((["verify", "--wiki", "s3://folio-central/acme"], "0 failures"),
                             (["query", "What is the return window for Enterprise customers?",
                               "--wiki", "s3://folio-central/acme"], "60 days")):
            out = subprocess.run(stack.args("folio", creds) + args, capture_output=True,
                                 text=True, timeout=300)
            assert out.returncode == 0, out.stdout + out.stderr
            assert expect in flat(out.stdout), out.stdout
    finally:
        stack.stop()
        server.stop()

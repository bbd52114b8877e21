"""The Helm chart, rendered by the real helm and checked as Kubernetes would take it:
manifests valid against the Kubernetes schemas (kubernetes-validate, strict), the values schema
rejecting typos, and the properties the chart promises — non-root read-only pods without
capabilities, one worker per site, the site's identity as a projected `sigstore` token,
Secrets referenced and never inlined, the configuration Folio itself accepts."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from chart import CHART, TWO_SITES, WORKLOADS, by_kind, helm, pod_spec, render
from compiler.policy import load_policy
from connectors.api.base import load_site_config
from connectors.bus.base import Topics
from pipelines.deployments import prefect_yaml
from pipelines.topology import load_topology

KUBE_VERSIONS = ("1.27.0", "1.37.0")  # the chart's kubeVersion floor, and the newest schemas


@pytest.fixture(scope="module")
def two() -> list[dict[str, Any]]:
    return render(TWO_SITES)


@pytest.fixture(scope="module")
def default() -> list[dict[str, Any]]:
    return render()


def _workloads(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] in WORKLOADS]


def test_lint_passes_strict_for_default_and_two_sites() -> None:
    for extra in ([], ["-f", str(TWO_SITES)]):
        r = helm("lint", "--strict", str(CHART), *extra, check=False)
        assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("kube", KUBE_VERSIONS)
def test_rendered_manifests_validate_against_kubernetes_schemas(kube: str) -> None:
    checked = 0
    for values in ((), (TWO_SITES,)):
        for doc in render(*values, kube_version=kube):
            if doc["apiVersion"].startswith("kafka.strimzi.io/"):
                continue  # a CRD: no schema ships with kubernetes-validate (checked below)
            kubernetes_validate.validate(doc, kube, strict=True)
            checked += 1
    assert checked >= 30


def test_the_validator_catches_a_bad_manifest(two: list[dict[str, Any]]) -> None:
    """So a pass above means something: a wrong type and a misspelt field both fail."""
    deployment = yaml.safe_load(yaml.safe_dump(by_kind(two, "Deployment")["acme-folio-emea-worker"]))
    deployment["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, "1.37.0", strict=True)
    deployment["spec"]["replicas"] = 1
    sc = deployment["spec"]["template"]["spec"]["containers"][0]["securityContext"]
    sc["readOnlyRootFilesytem"] = sc.pop("readOnlyRootFilesystem")
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, "1.37.0", strict=True)


@pytest.mark.parametrize("typo, where", [
    ("sites[0].name=emea,sites[0].bridgee.enabled=false", "bridgee"),
    ("sigining.mode=off", "sigining"),
    ("kafka.bootstrapServers=x:9092", "bootstrapServers"),
    ("central.persistence.sise=5Gi", "sise"),
])
def test_a_typo_in_values_fails_and_names_the_key(typo: str, where: str) -> None:
    r = helm("template", "x", str(CHART), "--set", typo, check=False)
    assert r.returncode != 0
    assert where in r.stderr and "not allowed" in r.stderr


@pytest.mark.parametrize("bad, message", [
    ("signing.mode=local", "keySecret"),             # local signing needs its key Secret
    ("sites[0].name=EMEA", "sites/0/name"),           # site names become DNS names
    ("store.url=/var/folio", "store/url"),
    ("sites[0].name=a,sites[1].name=a", "site name \"a\" is used twice"),
])
def test_invalid_values_are_refused(bad: str, message: str) -> None:
    r = helm("template", "x", str(CHART), "--set", bad, check=False)
    assert r.returncode != 0 and message in r.stderr, r.stderr


def test_every_pod_runs_non_root_read_only_without_capabilities(two: list[dict[str, Any]],
                                                               default: list[dict[str, Any]]) -> None:
    pods = _workloads(two) + _workloads(default)
    assert len(pods) >= 10
    for doc in pods:
        spec = pod_spec(doc)
        name = doc["metadata"]["name"]
        assert spec["securityContext"]["runAsNonRoot"] is True, name
        assert spec["securityContext"]["runAsUser"] != 0, name
        assert spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}, name
        assert spec["automountServiceAccountToken"] is False, name  # no Kubernetes API token
        for c in spec["containers"]:
            sc = c["securityContext"]
            assert sc["readOnlyRootFilesystem"] is True, name
            assert sc["allowPrivilegeEscalation"] is False, name
            assert sc["capabilities"] == {"drop": ["ALL"]}, name
            assert sc["runAsNonRoot"] is True, name
            assert c["resources"]["requests"] and c["resources"]["limits"]["memory"], name
            # a read-only root still needs a writable /tmp
            assert any(m["mountPath"] == "/tmp" for m in c["volumeMounts"]), name


def test_long_running_containers_have_probes(two: list[dict[str, Any]]) -> None:
    for doc in by_kind(two, "Deployment").values():
        for c in pod_spec(doc)["containers"]:
            for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
                assert c[probe]["httpGet"]["port"] == "health", (doc["metadata"]["name"], probe)
            port = {p["name"]: p["containerPort"] for p in c["ports"]}["health"]
            if c.get("command") == ["prefect"]:  # Prefect's own worker health server
                env = {e["name"]: e.get("value") for e in c["env"]}
                assert "--with-healthcheck" in c["args"]
                assert env["PREFECT_WORKER_WEBSERVER_PORT"] == str(port)
            else:  # folio's --health
                assert c["args"][c["args"].index("--health") + 1] == f"0.0.0.0:{port}"


def test_one_worker_per_site_pool_plus_the_centre(two: list[dict[str, Any]],
                                                  tmp_path: Path) -> None:
    workers = [d for d in by_kind(two, "Deployment").values()
               if pod_spec(d)["containers"][0].get("command") == ["prefect"]]
    pools = sorted(pod_spec(d)["containers"][0]["args"][3] for d in workers)
    assert pools == ["folio-central", "folio-emea", "folio-us"]
    for d in workers:
        assert d["spec"]["replicas"] == 1 and d["spec"]["strategy"]["type"] == "Recreate"
        args = pod_spec(d)["containers"][0]["args"]
        assert args[:2] == ["worker", "start"] and args[args.index("--type") + 1] == "process"
    # and the pools the workers serve are exactly those of the deployments Folio generates
    topo = _topology(two, tmp_path)
    generated = {dep["work_pool"]["name"] for dep in prefect_yaml(topo, "/x")["deployments"]}
    assert generated == set(pools)


def test_site_pods_run_as_the_site_identity_with_a_projected_sigstore_token(
        two: list[dict[str, Any]]) -> None:
    sas = by_kind(two, "ServiceAccount")
    assert set(sas) == {"acme-folio-emea", "acme-folio-us", "acme-folio-central"}
    assert all(sa["automountServiceAccountToken"] is False for sa in sas.values())
    signers = 0
    for doc in _workloads(two):
        spec = pod_spec(doc)
        labels = doc["spec"].get("template", {}).get("metadata", {}).get("labels") or \
            doc["spec"]["jobTemplate"]["spec"]["template"]["metadata"]["labels"]
        site = labels.get("folio.dev/site")
        if site:
            assert spec["serviceAccountName"] == f"acme-folio-{site}", doc["metadata"]["name"]
        projected = [v for v in spec["volumes"] if "projected" in v]
        if not projected:
            continue
        signers += 1
        (vol,) = projected
        (src,) = vol["projected"]["sources"]
        assert src["serviceAccountToken"]["audience"] == "sigstore"
        assert src["serviceAccountToken"]["expirationSeconds"] >= 600
        c = spec["containers"][0]
        mount = next(m for m in c["volumeMounts"] if m["name"] == vol["name"])
        env = {e["name"]: e.get("value") for e in c["env"]}
        token = Path(mount["mountPath"]) / src["serviceAccountToken"]["path"]
        assert env["FOLIO_SIGSTORE_TOKEN_FILE"] == str(token) and mount["readOnly"] is True
        assert env["FOLIO_SIGNING"] == "sigstore"
        # whose signed claim sets the centre accepts: each site's service account, this issuer
        assert env["FOLIO_SIGSTORE_ISSUER"] == "https://kubernetes.default.svc.cluster.local"
        # the builder id in every DBOM is the identity Fulcio certifies for this token
        assert env["FOLIO_BUILDER_ID"] == (
            f"https://kubernetes.io/namespaces/folio/serviceaccounts/{spec['serviceAccountName']}")
    assert signers == 3  # the two site workers and the central worker; nothing else signs


def test_local_signing_mounts_the_key_secret_instead(default: list[dict[str, Any]]) -> None:
    docs = render(sets=("signing.mode=local", "signing.local.keySecret=folio-signing-key"))
    worker = pod_spec(by_kind(docs, "Deployment")["acme-folio-central-worker"])
    assert not [v for v in worker["volumes"] if "projected" in v]
    (vol,) = [v for v in worker["volumes"] if "secret" in v]
    assert vol["secret"] == {"secretName": "folio-signing-key", "defaultMode": 0o400}
    env = {e["name"]: e.get("value") for e in worker["containers"][0]["env"]}
    assert env["FOLIO_SIGNING"] == "local"
    assert env["FOLIO_KEY_PATH"] == "/etc/folio/signing/signing-key.pem"


def test_secrets_are_referenced_never_inlined(two: list[dict[str, Any]]) -> None:
    assert not [d for d in two if d["kind"] == "Secret"]
    text = yaml.safe_dump_all(two)
    refs = {}
    for doc in _workloads(two):
        for c in pod_spec(doc)["containers"]:
            for e in c["env"]:
                if "valueFrom" in e:
                    ref = e["valueFrom"]["secretKeyRef"]
                    refs[e["name"]] = (ref["name"], ref["key"])
                elif any(w in e["name"] for w in ("PASSWORD", "TOKEN", "KEY", "SECRET", "AUTH")):
                    # a path to a mounted secret is fine, a value is not
                    assert e["name"].endswith(("_FILE", "_PATH", "_CAFILE")), e
    assert refs["FOLIO_EVENTS_KAFKA_SASL_PASSWORD"] == ("folio-kafka-user", "password")
    assert refs["FOLIO_LLM_API_KEY"] == ("folio-llm", "api-key")
    assert refs["PREFECT_API_AUTH_STRING"] == ("prefect-basic-auth", "auth-string")
    assert refs["AWS_SECRET_ACCESS_KEY"] == ("folio-s3", "AWS_SECRET_ACCESS_KEY")
    assert refs["FOLIO_SOURCE_TOKEN"][0] in {"emea-atlassian", "us-salesforce", "us-zendesk"}
    assert "token_env: FOLIO_SOURCE_TOKEN" in text  # site.yaml names the variable only
    # and there is no field to put a secret value in: the schema refuses one
    r = helm("template", "x", str(CHART), "--set", "kafka.saslPasswordSecret.value=hunter2",
             check=False)
    assert r.returncode != 0 and "'value' not allowed" in r.stderr


def _config(docs: list[dict[str, Any]], name: str, key: str, tmp: Path) -> Path:
    data = by_kind(docs, "ConfigMap")[name]["data"][key]
    path = tmp / key
    path.write_text(data)
    return path


def _topology(docs: list[dict[str, Any]], tmp: Path):  # type: ignore[no-untyped-def]
    return load_topology(_config(docs, "acme-folio-config", "folio-sites.yaml", tmp))


def test_the_rendered_configuration_is_what_folio_accepts(two: list[dict[str, Any]],
                                                        tmp_path: Path) -> None:
    topo = _topology(two, tmp_path)
    assert [s.name for s in topo.sites] == ["emea", "us"]
    assert topo.store == "s3://folio-central/acme"
    us = topo.site("us")
    assert us.systems == ("salesforce", "zendesk") and us.share.quotes is False
    # each site's data sits on its own volume, mounted only into that site's worker
    deployments = by_kind(two, "Deployment")
    for s in topo.sites:
        mounts = {m["mountPath"] for m in
                  pod_spec(deployments[f"acme-folio-{s.name}-worker"])["containers"][0]["volumeMounts"]}
        assert str(s.corpus.parent) in mounts and s.workdir.parent == s.corpus.parent
        others = [o for o in topo.sites if o.name != s.name]
        assert not any(str(o.corpus.parent) in mounts for o in others)
    assert load_policy(_config(two, "acme-folio-config", "authority.yaml", tmp_path)).rules
    for site, systems in (("emea", {"confluence", "jira"}), ("us", {"salesforce", "zendesk"})):
        cfg = load_site_config(_config(two, f"acme-folio-{site}-connectors", "site.yaml", tmp_path))
        assert {c.system for c in cfg.connectors} == systems
        assert all(c.auth.token_env == "FOLIO_SOURCE_TOKEN" for c in cfg.connectors)
    # the default values render a configuration Folio accepts too, once a site is added
    docs = render(sets=("sites[0].name=solo",))
    assert [s.name for s in _topology(docs, tmp_path).sites] == ["solo"]


def test_connectors_run_as_deployments_or_cronjobs_with_their_own_cursor(
        two: list[dict[str, Any]]) -> None:
    deployments, cronjobs = by_kind(two, "Deployment"), by_kind(two, "CronJob")
    pvcs = by_kind(two, "PersistentVolumeClaim")
    conf = pod_spec(deployments["acme-folio-emea-confluence-acme-wiki"])["containers"][0]
    assert conf["args"][:6] == ["connectors", "run", "confluence", "--instance", "acme-wiki",
                                "--config"]
    assert conf["args"][conf["args"].index("--webhook") + 1] == "0.0.0.0:8088"
    assert by_kind(two, "Service")["acme-folio-emea-confluence-acme-wiki"]["spec"]["ports"][0]["port"] == 8088
    sf = cronjobs["acme-folio-us-salesforce-acme-prod"]
    assert sf["spec"]["concurrencyPolicy"] == "Forbid" and sf["spec"]["schedule"] == "*/5 * * * *"
    assert "--once" in pod_spec(sf)["containers"][0]["args"]
    for doc in [*cronjobs.values(), deployments["acme-folio-emea-confluence-acme-wiki"]]:
        (claim,) = [v["persistentVolumeClaim"]["claimName"] for v in pod_spec(doc)["volumes"]
                    if "persistentVolumeClaim" in v]
        assert claim in pvcs and claim.endswith("-cursor")
        assert pvcs[claim]["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"


def test_register_job_applies_the_generated_deployments_after_install_and_upgrade(
        two: list[dict[str, Any]]) -> None:
    job = by_kind(two, "Job")["acme-folio-register"]
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "post-install,post-upgrade,post-rollback"
    script = pod_spec(job)["containers"][0]["args"][0]
    assert "folio pipeline deployments --config /etc/folio/config/folio-sites.yaml" in script
    assert "for pool in folio-central folio-emea folio-us; do" in script
    assert 'folio pipeline llm-limit --name "folio-llm" --per-second 2 --burst 10' in script
    assert script.rstrip().endswith("prefect --no-prompt deploy --all --prefect-file /tmp/prefect.yaml")
    # the script is valid sh
    subprocess.run(["sh", "-n", "-c", script], check=True)


def test_strimzi_topics_match_the_topics_folio_uses(two: list[dict[str, Any]]) -> None:
    topics = {d["spec"]["topicName"]: d for d in two if d["kind"] == "KafkaTopic"}
    names = Topics("folio", "acme")
    expected = {names.dead_letter()}
    for system in ("confluence", "jira", "salesforce", "zendesk"):
        expected |= {names.history(system), names.state(system)}
    assert set(topics) == expected
    for name, d in topics.items():
        assert d["metadata"]["labels"]["strimzi.io/cluster"] == "folio-kafka"
        assert d["spec"]["replicas"] == 3 and d["spec"]["partitions"] == 6
        policy = d["spec"]["config"]["cleanup.policy"]
        assert policy == ("compact" if name.endswith(".state") else "delete")
    assert not [d for d in render() if d["kind"] == "KafkaTopic"]  # optional


def test_network_policy_denies_ingress_but_webhooks_from_listed_peers(
        two: list[dict[str, Any]], default: list[dict[str, Any]]) -> None:
    assert not by_kind(default, "NetworkPolicy")
    policies = by_kind(two, "NetworkPolicy")
    base = policies["acme-folio-default"]["spec"]
    assert base["ingress"] == [] and base["policyTypes"] == ["Ingress"]
    hooks = policies["acme-folio-webhooks"]["spec"]
    assert hooks["podSelector"]["matchLabels"]["app.kubernetes.io/component"] == "connector"
    assert hooks["ingress"][0]["from"] == [{"ipBlock": {"cidr": "185.166.140.0/22"}}]


def test_values_schema_rejects_unknown_keys_everywhere() -> None:
    import json

    schema = json.loads((CHART / "values.schema.json").read_text())
    open_objects = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node \
                    and node.get("additionalProperties") is not False:
                open_objects.append(path)
            for k, v in node.items():
                walk(v, f"{path}/{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}/{i}")

    walk(schema, "")
    assert open_objects == []
    # values.yaml documents every top-level field, and the schema knows each of them
    lines = (CHART / "values.yaml").read_text().splitlines()
    for n, line in enumerate(lines):
        if line[:1].isalpha():
            key = line.split(":", 1)[0]
            assert key in schema["properties"], key
            assert any(p.startswith("#") for p in lines[max(0, n - 4):n]), f"values.yaml: {key} undocumented"


def test_register_job_script_registers_everything_on_a_real_prefect_server(
        prefect_harness: None, two: list[dict[str, Any]], tmp_path: Path) -> None:
    """The hook Job's script, run as the chart renders it (the sites file read from tmp_path;
    flow runs still look for it where the chart mounts it), against a real Prefect server,
    twice as an install then an upgrade would."""
    import os

    from prefect import get_client
    from prefect.settings import get_current_settings

    from chart import REPO

    _config(two, "acme-folio-config", "folio-sites.yaml", tmp_path)
    job = by_kind(two, "Job")["acme-folio-register"]
    script = pod_spec(job)["containers"][0]["args"][0] \
        .replace("--config /etc/folio/config/", f"--config {tmp_path}/") \
        .replace("/tmp/prefect.yaml", str(tmp_path / "prefect.yaml"))
    env = {**os.environ, "PREFECT_API_URL": str(get_current_settings().api.url),
           "PREFECT_HOME": str(tmp_path / "prefect-home"), "PYTHONDONTWRITEBYTECODE": "1"}
    before = set(subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=REPO,
                                capture_output=True, text=True).stdout.splitlines())
    for _ in range(2):  # install, then upgrade: the same result
        r = subprocess.run(["sh", "-ec", script], cwd=REPO, env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
    after = set(subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=REPO,
                               capture_output=True, text=True).stdout.splitlines())
    assert after == before  # the image's /app is read-only: registering writes nothing there

    with get_client(sync_client=True) as client:
        deployments = {d.name: d for d in client.read_deployments()}
        pools = {p.name: p.type for p in client.read_work_pools()}
        limit = client.read_global_concurrency_limit_by_name("folio-llm")
    assert {"emea", "emea-reconcile", "us", "us-reconcile", "central", "freshness"} <= set(deployments)
    assert deployments["emea"].work_pool_name == "folio-emea"
    assert deployments["us"].work_pool_name == "folio-us"
    assert deployments["central"].work_pool_name == "folio-central"
    assert deployments["emea"].parameters["config"] == "/etc/folio/config/folio-sites.yaml"
    # the site's signing identity travels with its deployments
    assert deployments["emea"].job_variables == {"namespace": "folio",
                                                 "service_account_name": "acme-folio-emea"}
    assert {"folio-emea", "folio-us", "folio-central"} <= set(pools)
    assert {pools[p] for p in ("folio-emea", "folio-us", "folio-central")} == {"process"}
    assert limit.limit == 10 and limit.slot_decay_per_second == 2


def test_umbrella_with_the_official_prefect_chart_lints_and_carries_valid_folio_values(
        tmp_path: Path) -> None:
    """helm/folio-stack adds the official prefect-server chart (fetched by `helm dependency
    build`, which needs the Prefect chart repository, so it is not rendered here); what can be
    checked offline is: it lints, it depends on this chart and a conditional prefect-server, and
    its `folio:` values pass this chart's schema and point at the server it installs."""
    stack = CHART.parent / "folio-stack"
    r = helm("lint", str(stack), check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    meta = yaml.safe_load((stack / "Chart.yaml").read_text())
    deps = {d["name"]: d for d in meta["dependencies"]}
    assert deps["folio"]["repository"] == "file://../folio"
    assert deps["folio"]["version"] == yaml.safe_load((CHART / "Chart.yaml").read_text())["version"]
    assert deps["prefect-server"]["condition"] == "prefect-server.enabled"
    values = yaml.safe_load((stack / "values.yaml").read_text())
    assert values["prefect-server"]["global"]["prefect"]["image"]["prefectTag"].startswith("3.8.8")
    sub = tmp_path / "folio-values.yaml"
    sub.write_text(yaml.safe_dump(values["folio"]))
    docs = render(sub)
    env = {e["name"]: e.get("value") for e in
           pod_spec(by_kind(docs, "Deployment")["acme-folio-central-worker"])["containers"][0]["env"]}
    assert env["PREFECT_API_URL"] == "http://prefect-server:4200/api"


def test_connectors_and_site_workers_share_the_claim_check_store(two: list[dict[str, Any]]) -> None:
    """Bodies too large for a Kafka message go by claim check: the connector pod that writes one
    and the worker pod that reads it share no disk, so the chart points both at the store."""
    stores = set()
    for doc in _workloads(two):
        for c in pod_spec(doc)["containers"]:
            stores.add({e["name"]: e.get("value") for e in c["env"]}["FOLIO_EVENTS_CLAIM_CHECK_STORE"])
    assert stores == {"s3://folio-central/acme/claim-checks"}


def test_the_centre_expects_each_sites_claim_sets_from_that_sites_own_identity(
        two: list[dict[str, Any]], tmp_path: Path) -> None:
    """What a site worker signs as (its projected token's identity, also its builder id) is
    exactly what the central worker requires on that site's claim sets."""
    from compiler.settings import FolioSettings
    from pipelines.claimset_signature import site_trust

    topo = _topology(two, tmp_path)
    deployments = by_kind(two, "Deployment")
    central_env = {e["name"]: e.get("value") for e in
                   pod_spec(deployments["acme-folio-central-worker"])["containers"][0]["env"]}
    settings = FolioSettings(sigstore_issuer=central_env["FOLIO_SIGSTORE_ISSUER"])
    for s in topo.sites:
        env = {e["name"]: e.get("value") for e in
               pod_spec(deployments[f"acme-folio-{s.name}-worker"])["containers"][0]["env"]}
        trust = site_trust(settings, s)
        assert trust.identity == env["FOLIO_BUILDER_ID"]
        assert trust.issuer == env["FOLIO_SIGSTORE_ISSUER"]
    assert len({site_trust(settings, s).identity for s in topo.sites}) == len(topo.sites)

"""Sites sign the claim sets they ship; the centre merges only what the expected site signed.

Plain calls of the site and central steps on a folder store (the flows around them are tested
in test_pipelines.py and test_pipeline_e2e.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from compiler.canonical import sha256_hex
from compiler.claimset import ClaimSetManifest, manifest_bytes
from compiler.provenance.signers import LocalKeySigner
from compiler.settings import FolioSettings
from compiler.store import open_store
from conftest import TODAY
from pipeline_sites import make_topology
from pipelines import central
from pipelines.claimset_signature import ClaimSetUntrusted, signature_key, site_trust
from pipelines.site import manifest_key, site_compile
from pipelines.topology import load_topology


@pytest.fixture
def shipped(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Both Acme sites extracted and shipped, signed with the test key (FOLIO_KEY_PATH)."""
    topo = load_topology(make_topology(tmp_path))
    store = open_store(topo.store)
    settings = FolioSettings()
    for s in topo.sites:
        site_compile(s, store, settings, topo.tenant)
    return topo, store, settings


def _forge(store, site: str, mutate) -> bytes:  # type: ignore[no-untyped-def]
    key = manifest_key(site)
    manifest = ClaimSetManifest.model_validate_json(store.get(key))
    data = manifest_bytes(mutate(manifest))
    store.put(key, data)
    return data


def test_each_shipped_manifest_has_the_sites_signature_and_gathers(shipped, tmp_path: Path) -> None:
    topo, store, settings = shipped
    for s in topo.sites:
        data = store.get(manifest_key(s.name))
        assert store.exists(signature_key(s.name, sha256_hex(data)))
    report = central.gather(topo, store, settings)
    assert set(report.sites) == {"emea", "us"} and report.downloaded > 0
    # and the whole aggregation still compiles the same wiki as before signatures existed
    agg = central.aggregate(topo, store, settings, publish=False, today=TODAY)
    assert agg.compile["pages_total"] > 10 and not agg.compile["errors"]


def test_a_manifest_changed_in_the_store_is_refused_before_anything_is_downloaded(shipped) -> None:
    topo, store, settings = shipped
    # someone with write access to the bucket drops a record from emea's claim set
    _forge(store, "emea", lambda m: m.model_copy(update={"records": m.records - 1}))
    with pytest.raises(ClaimSetUntrusted, match="'emea' is not signed"):
        central.gather(topo, store, settings)
    assert not list((central.corpus_dir(topo) / "claimsets").rglob("*.jsonl"))


def test_a_forgery_signed_with_another_key_is_refused(shipped, tmp_path: Path) -> None:
    topo, store, settings = shipped
    data = _forge(store, "us", lambda m: m.model_copy(update={"records": m.records + 1}))
    rogue = LocalKeySigner.generate(tmp_path / "rogue.pem")
    from pipelines.claimset_signature import sign_manifest

    store.put(signature_key("us", sha256_hex(data)),
              sign_manifest(rogue, manifest_key("us"), data, ClaimSetManifest.model_validate_json(data)))
    with pytest.raises(ClaimSetUntrusted, match="claim set of site 'us' not trusted"):
        central.gather(topo, store, settings)


def test_one_sites_signature_does_not_vouch_for_another_site(shipped) -> None:
    topo, store, settings = shipped
    emea = store.get(manifest_key("emea"))
    # emea's genuine manifest and signature, replayed under us
    store.put(manifest_key("us"), emea)
    store.put(signature_key("us", sha256_hex(emea)),
              store.get(signature_key("emea", sha256_hex(emea))))
    with pytest.raises(ValueError, match="claim set of site 'emea'"):
        central.gather(topo, store, settings)


def test_a_site_with_its_own_key_is_trusted_only_where_the_sites_file_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = make_topology(tmp_path)
    topo = load_topology(config)
    store = open_store(topo.store)
    central_settings = FolioSettings()
    us_key = tmp_path / "us-key.pem"
    LocalKeySigner.generate(us_key)
    for s in topo.sites:
        settings = FolioSettings(key_path=us_key) if s.name == "us" else central_settings
        site_compile(s, store, settings, topo.tenant)
    with pytest.raises(ClaimSetUntrusted, match="'us' not trusted"):
        central.gather(topo, store, central_settings)
    doc = yaml.safe_load(config.read_text())
    doc["sites"][1]["trusted_key"] = str(us_key.with_suffix(".pub"))
    config.write_text(yaml.safe_dump(doc))
    report = central.gather(load_topology(config), store, central_settings)
    assert set(report.sites) == {"emea", "us"}


def test_without_signing_nothing_is_signed_or_checked(tmp_path: Path) -> None:
    topo = load_topology(make_topology(tmp_path))
    store = open_store(topo.store)
    off = FolioSettings(signing="off")
    for s in topo.sites:
        site_compile(s, store, off, topo.tenant)
    assert not list(store.list("sites/emea/signatures/"))
    assert set(central.gather(topo, store, off).sites) == {"emea", "us"}
    # a centre that signs refuses the unsigned claim sets, naming the site
    with pytest.raises(ClaimSetUntrusted, match="is not signed"):
        central.gather(topo, store, FolioSettings())


def test_keyless_trust_is_the_sites_service_account(tmp_path: Path) -> None:
    config = make_topology(tmp_path)
    doc = yaml.safe_load(config.read_text())
    doc["sites"][0].update(namespace="folio", service_account="folio-emea")
    doc["sites"][1]["signer_identity"] = "https://ci.example/us-pipeline"
    config.write_text(yaml.safe_dump(doc))
    topo = load_topology(config)
    settings = FolioSettings(sigstore_identity="https://ci.example/central",
                             sigstore_issuer="https://oidc.example")
    assert site_trust(settings, topo.site("emea")).identity == \
        "https://kubernetes.io/namespaces/folio/serviceaccounts/folio-emea"
    assert site_trust(settings, topo.site("us")).identity == "https://ci.example/us-pipeline"
    assert site_trust(settings, topo.site("us")).issuer == "https://oidc.example"

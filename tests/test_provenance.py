"""Provenance (issue 3): page DBOMs, DSSE + Sigstore bundles, signers, the index root,
verification, tamper detection, independent verification, answer records and audits."""

from __future__ import annotations

import base64
import json
import os
import shutil
import stat
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import jsonschema
import pytest
from cryptography.hazmat.primitives import serialization

from compiler.build import compile_wiki, wiki_state
from compiler.canonical import sha256_hex
from pipelines.folio_cli import app
from compiler.provenance.bundle import MEDIA_TYPE, make_bundle, make_bundle_model, parse_bundle
from compiler.provenance.dsse import Envelope, pae
from compiler.provenance.index_root import (
    BUCKET_DIR, ROOT_FILE, IndexBucket, bucket_bytes, bucket_file, bucket_of, canonical_bucket,
)
from compiler.provenance.signers import (
    LocalKeySigner, SigningError, SigstoreSigner, public_der, verify_signature,
)
from compiler.provenance.statement import (
    PAYLOAD_TYPE, BuildContext, Builder, encoded_parts, page_statement, page_statement_bytes,
    statement_bytes,
)
from compiler.provenance.verify import Trust, trust_from, verify_wiki
from connectors.loader import current_sources
from compiler.schemas import all_schemas
from compiler.settings import FolioSettings
from conftest import TEST_KEY, TODAY, flat

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "dbom-return-policy.json"
PAGE = "policy/return-policy"

FIXED_BUILD = BuildContext(
    compiler_version="0.1.0", schema_version="1",
    backend={"backend": "offline", "model": "none", "rules": "offline-1"},
    policy_digest="0" * 64, corpus_schema=("acme-2026.11", "1" * 64),
    builder_id="urn:folio:builder:test",
    invocation_id="00000000-0000-4000-8000-000000000000",
    started_on=datetime(2026, 11, 21, 0, 0, tzinfo=UTC),
    finished_on=datetime(2026, 11, 21, 0, 1, tzinfo=UTC),
)


def _trust() -> Trust:
    return trust_from(FolioSettings())


@pytest.fixture
def wiki(acme_wiki: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "wiki"
    shutil.copytree(acme_wiki, dest)
    return dest


def _page_inputs(wiki: Path, eid: str):  # noqa: ANN202
    st = wiki_state(wiki)
    try:
        claims = st.claims_of_subject(eid)
        status = dict(st.db.execute("SELECT id, status FROM claims WHERE subject=?", (eid,)))
        from compiler.models import Conflict

        conflicts = [Conflict.model_validate_json(r[0]) for r in st.db.execute(
            "SELECT conflict_json FROM conflicts WHERE subject=? ORDER BY id", (eid,))]
    finally:
        st.close()
    return claims, status, conflicts


def _statement_of(bundle: Path) -> dict:
    return json.loads(base64.b64decode(json.loads(bundle.read_bytes())["dsseEnvelope"]["payload"]))


# -- 1. the DBOM statement ----------------------------------------------------------------------

def test_page_dbom_matches_golden_and_schema(acme_wiki: Path) -> None:
    claims, status, conflicts = _page_inputs(acme_wiki, PAGE)
    page_bytes = (acme_wiki / f"{PAGE}.md").read_bytes()
    stmt = page_statement(f"{PAGE}.md", page_bytes, claims, status, conflicts, FIXED_BUILD)
    doc = json.loads(statement_bytes(stmt))
    if os.environ.get("FOLIO_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    assert doc == json.loads(GOLDEN.read_text()), "DBOM layout changed: review, then rerun with " \
        "FOLIO_UPDATE_GOLDEN=1"
    jsonschema.Draft202012Validator(all_schemas()["DBOMStatement"]).validate(doc)
    # pure: same inputs, same bytes
    assert statement_bytes(page_statement(f"{PAGE}.md", page_bytes, claims, status, conflicts,
                                          FIXED_BUILD)) == statement_bytes(stmt)


def test_fast_statement_bytes_equal_the_model_on_every_page(acme_wiki: Path) -> None:
    st = wiki_state(acme_wiki)
    eids = st.page_ids()
    st.close()
    for eid in eids:
        claims, status, conflicts = _page_inputs(acme_wiki, eid)
        data = (acme_wiki / f"{eid}.md").read_bytes()
        args = (f"{eid}.md", data, claims, status, conflicts, FIXED_BUILD)
        assert page_statement_bytes(*args) == statement_bytes(page_statement(*args)), eid
        # and what the compile signed is exactly that statement, with its own run details
        signed = _statement_of(acme_wiki / f"{eid}.dbom.json")
        want = json.loads(page_statement_bytes(*args))
        signed["predicate"].pop("runDetails")
        want["predicate"].pop("runDetails")
        signed["predicate"]["buildDefinition"].pop("internalParameters")
        want["predicate"]["buildDefinition"].pop("internalParameters")
        assert signed == want, eid
        # with LLM usage on some of its sources, and with the compile's parts pre-encoded
        usage = {c.source.sha256: {"calls": 1.0, "cost_usd": 0.000123 * i, "tokens": 812.0}
                 for i, c in enumerate(claims) if i % 2 == 0}
        model = statement_bytes(page_statement(*args, usage=usage))
        assert page_statement_bytes(*args, usage=usage) == model, eid
        internal = FIXED_BUILD.internal().model_dump(mode="json")
        run = FIXED_BUILD.run_details().model_dump(mode="json", by_alias=True)
        assert page_statement_bytes(
            *args[:5], None, usage=usage, encoded=encoded_parts(internal, run),
            page_sha256=sha256_hex(data)) == model, eid


def test_page_dbom_content(acme_wiki: Path) -> None:
    doc = _statement_of(acme_wiki / f"{PAGE}.dbom.json")
    assert doc["_type"] == "https://in-toto.io/Statement/v1"
    assert doc["predicateType"] == "https://slsa.dev/provenance/v1"
    page_bytes = (acme_wiki / f"{PAGE}.md").read_bytes()
    assert doc["subject"] == [{"name": f"{PAGE}.md", "digest": {"sha256": sha256_hex(page_bytes)}}]
    bd = doc["predicate"]["buildDefinition"]
    assert bd["buildType"] == "https://folio.dev/dbom/page/v1"
    deps = {d["name"]: d for d in bd["resolvedDependencies"]}
    conf = deps["acme/confluence/acme.atlassian.net/page/33001"]
    assert conf["uri"] == "folio:acme/confluence/acme.atlassian.net/page/33001@7"
    assert set(conf["annotations"]) >= {"system", "authority", "rank", "updated_at", "acl_digest",
                                         "version"}
    assert set(bd["internalParameters"]) == {
        "compiler_version", "schema_version", "extraction_backend", "extraction_model",
        "prompt_template_digest", "authority_policy_digest", "corpus_schema_version",
        "corpus_schema_digest"}
    # the schema the page compiled under (issue 20): the base with examples/acme/schema.yaml
    from compiler.schema import digest, load_schema

    schema = load_schema(ROOT / "examples" / "acme")
    assert bd["internalParameters"]["corpus_schema_digest"] == digest(schema)
    assert bd["internalParameters"]["corpus_schema_version"] == schema.version == "acme-2026.11"
    meta = doc["predicate"]["runDetails"]["metadata"]
    assert meta["startedOn"] <= meta["finishedOn"] and meta["invocationId"]
    claims = doc["predicate"]["folio"]["claims"]
    overruled = [c for c in claims if c["status"] == "overruled"]
    assert overruled, "the Jira ticket's 30-day window is overruled on this page"
    winners = [c for c in claims if c["overruled_sources"]]
    lost = winners[0]["overruled_sources"][0]
    assert lost["source"].startswith("acme/jira/") and lost["rule"] == "support-tickets"
    assert all(c["digest"]["sha256"] and c["supporting_sources"] for c in claims)


# -- 2. DSSE, bundle, signers -------------------------------------------------------------------

def test_pae_matches_the_dsse_spec_vector() -> None:
    assert pae("http://example.com/HelloWorld", b"hello world") == \
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"


def test_bundle_round_trips_as_sigstore_v03(tmp_path: Path) -> None:
    from sigstore_models.bundle.v1 import Bundle

    signer = LocalKeySigner.generate(tmp_path / "k.pem")
    data = signer.sign_bundle(b'{"_type":"x"}', PAYLOAD_TYPE)
    raw = json.loads(data)
    assert raw["mediaType"] == MEDIA_TYPE == "application/vnd.dev.sigstore.bundle.v0.3+json"
    assert raw["verificationMaterial"]["publicKey"]["hint"] == signer.key_id
    parsed = parse_bundle(data, "x")
    assert parsed.envelope.payload_bytes == b'{"_type":"x"}' and not parsed.keyless
    assert json.loads(Bundle.from_json(data).to_json()) == raw
    assert make_bundle(parsed.envelope, parsed.key_hint or "") == data
    # the fast writers (the signer's and make_bundle) and sigstore_models write the same bytes
    assert make_bundle_model(parsed.envelope, signer.key_id) == data
    assert make_bundle(parsed.envelope, "hint") == make_bundle_model(parsed.envelope, "hint")


def test_batch_signing_gives_each_payload_its_own_valid_bundle(tmp_path: Path) -> None:
    signer = LocalKeySigner.generate(tmp_path / "k.pem")
    payloads = [b'{"_type":"a"}', b'{"_type":"b"}', b'{"_type":"a"}']
    bundles = signer.sign_bundles(payloads, PAYLOAD_TYPE)
    assert len(bundles) == len(payloads)
    for payload, data in zip(payloads, bundles):
        envelope = parse_bundle(data, "x").envelope
        assert envelope.payload_bytes == payload  # in order, none swapped
        sig = base64.b64decode(envelope.signatures[0].sig)
        assert verify_signature(signer.public_key, sig, pae(PAYLOAD_TYPE, payload))
        assert not verify_signature(signer.public_key, sig, pae(PAYLOAD_TYPE, payload + b" "))
    assert signer.sign_bundles([], PAYLOAD_TYPE) == []


def test_local_key_file_mode_and_id(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "k.pem"
    signer = LocalKeySigner.generate(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert signer.key_id == sha256_hex(public_der(signer.public_key))
    with pytest.raises(SigningError, match="already exists"):
        LocalKeySigner.generate(path)
    os.chmod(path, 0o644)
    with pytest.raises(SigningError, match=r"k\.pem: signing key is accessible to other users"):
        LocalKeySigner.load(path)


def test_the_private_key_is_never_readable_by_others_while_it_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import compiler.atomic as atomic

    modes: list[int] = []
    real_write = os.write

    def watched(fd: int, data) -> int:  # type: ignore[no-untyped-def]
        modes.append(stat.S_IMODE(os.fstat(fd).st_mode))
        return real_write(fd, data)

    monkeypatch.setattr(atomic.os, "write", watched)
    LocalKeySigner.generate(tmp_path / "k.pem")
    assert modes[0] == 0o600  # the key's bytes went into a file only its owner can read


def test_keys_init_cli(runner, tmp_path: Path) -> None:  # noqa: ANN001
    path = tmp_path / "k.pem"
    res = runner.invoke(app, ["keys", "init", "--path", str(path)])
    assert res.exit_code == 0, res.output
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert (tmp_path / "k.pub").exists()
    assert LocalKeySigner.load(path).key_id in res.output
    assert runner.invoke(app, ["keys", "init", "--path", str(path)]).exit_code == 1


def _jwt(claims: dict) -> str:
    import jwt

    return jwt.encode(claims, "an-unverified-test-key-32-bytes-long", algorithm="HS256")


def _private_trust_config(tmp_path: Path) -> Path:
    """The public-good trust config with every service moved to a private host (air-gapped)."""
    import sigstore

    store = Path(sigstore.__file__).parent / "_store" / "https%3A%2F%2Ftuf-repo-cdn.sigstore.dev"
    text = json.dumps({
        "mediaType": "application/vnd.dev.sigstore.clienttrustconfig.v0.1+json",
        "trustedRoot": json.loads((store / "trusted_root.json").read_text()),
        "signingConfig": json.loads((store / "signing_config.v0.2.json").read_text()),
    })
    for host in ("fulcio.sigstore.dev", "rekor.sigstore.dev", "oauth2.sigstore.dev",
                 "timestamp.sigstore.dev", "log2025-1.rekor.sigstore.dev"):
        text = text.replace(host, "sigstore.internal.example")
    path = tmp_path / "trust.json"
    path.write_text(text)
    return path


def test_sigstore_signer_reaches_private_fulcio_with_projected_token(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import requests

    now = int(time.time())
    token = _jwt({"iss": "https://kubernetes.default.svc", "aud": "sigstore",
                  "sub": "system:serviceaccount:folio:compiler", "iat": now, "exp": now + 600})
    token_file = tmp_path / "token"
    token_file.write_text(token)
    signer = SigstoreSigner(token_file, _private_trust_config(tmp_path))
    assert signer.identity == ("oidc:https://kubernetes.default.svc:"
                               "system:serviceaccount:folio:compiler")
    calls: list[str] = []

    class Offline(Exception):
        pass

    def post(self, url, *a, **kw):  # noqa: ANN001, ANN202
        calls.append(url)
        raise Offline(url)

    monkeypatch.setattr(requests.Session, "post", post)
    with pytest.raises(Offline):
        signer.sign_bundle(b'{"_type":"https://in-toto.io/Statement/v1","subject":[],'
                           b'"predicateType":"x","predicate":{}}', PAYLOAD_TYPE)
    assert calls and calls[0].startswith("https://sigstore.internal.example/")
    assert "signingCert" in calls[0]
    assert token not in repr(signer)


def test_sigstore_signer_rejects_wrong_audience_without_leaking_token(tmp_path: Path) -> None:
    now = int(time.time())
    token = _jwt({"iss": "https://kubernetes.default.svc", "aud": "kubernetes",
                  "sub": "system:serviceaccount:folio:compiler", "iat": now, "exp": now + 600})
    (tmp_path / "token").write_text(token)
    with pytest.raises(SigningError) as exc:
        SigstoreSigner(tmp_path / "token", None).identity_token()
    assert str(tmp_path / "token") in str(exc.value) and token not in str(exc.value)


def test_sigstore_signer_without_any_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sigstore.oidc

    monkeypatch.setattr(sigstore.oidc, "detect_credential", lambda audience: None)
    with pytest.raises(SigningError, match="no identity token"):
        SigstoreSigner(tmp_path / "missing", None).identity_token()


def test_sigstore_signer_uses_ambient_ci_credentials(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import sigstore.oidc

    now = int(time.time())
    token = _jwt({"iss": "https://token.actions.githubusercontent.com", "aud": "sigstore",
                  "sub": "repo:acme/folio:ref:refs/heads/main", "iat": now, "exp": now + 600,
                  "job_workflow_ref": "acme/folio/.github/workflows/compile.yml@refs/heads/main"})
    seen = {}

    def detect(audience: str) -> str:
        seen["aud"] = audience
        return token

    monkeypatch.setattr(sigstore.oidc, "detect_credential", detect)
    tok = SigstoreSigner(tmp_path / "missing", None).identity_token()
    assert seen["aud"] == "sigstore" and "acme/folio" in tok.identity


def test_invalid_trust_config_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "trust.json"
    bad.write_text("{}")
    with pytest.raises(SigningError, match=r"trust\.json: invalid Sigstore trust config"):
        SigstoreSigner(tmp_path / "t", bad).trust_config()


# -- 5. independent verification ----------------------------------------------------------------

def _export_for_openssl(bundle: Path, pub: Path, out: Path) -> tuple[Path, Path, Path]:
    env = json.loads(bundle.read_bytes())["dsseEnvelope"]
    payload = base64.b64decode(env["payload"])
    (out / "pae.bin").write_bytes(pae(env["payloadType"], payload))
    (out / "sig.der").write_bytes(base64.b64decode(env["signatures"][0]["sig"]))
    return out / "pae.bin", out / "sig.der", pub


def test_openssl_verifies_our_signature(acme_wiki: Path, tmp_path: Path) -> None:
    pub = tmp_path / "pub.pem"
    pub.write_bytes(LocalKeySigner.load(TEST_KEY).public_key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    pae_bin, sig, _ = _export_for_openssl(acme_wiki / f"{PAGE}.dbom.json", pub, tmp_path)
    cmd = ["openssl", "dgst", "-sha256", "-verify", str(pub), "-signature", str(sig), str(pae_bin)]
    ok = subprocess.run(cmd, capture_output=True, text=True)
    assert ok.returncode == 0 and "Verified OK" in ok.stdout
    data = bytearray(pae_bin.read_bytes())
    data[-2] ^= 1
    pae_bin.write_bytes(bytes(data))
    bad = subprocess.run(cmd, capture_output=True, text=True)
    assert bad.returncode != 0 and "Verification failure" in bad.stdout


def test_securesystemslib_verifies_our_dsse_envelope(acme_wiki: Path) -> None:
    from securesystemslib.dsse import Envelope as SslibEnvelope
    from securesystemslib.signer import SSlibKey

    signer = LocalKeySigner.load(TEST_KEY)
    pem = signer.public_key.public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo)
    key = SSlibKey.from_crypto(serialization.load_pem_public_key(pem),
                               scheme="ecdsa-sha2-nistp256", keyid=signer.key_id)
    env = json.loads((acme_wiki / f"{PAGE}.dbom.json").read_bytes())["dsseEnvelope"]
    envelope = SslibEnvelope.from_dict(env)
    verified = envelope.verify([key], 1)
    assert signer.key_id in verified
    other = LocalKeySigner.generate(Path(os.path.dirname(TEST_KEY)) / "other-ssl.pem", force=True)
    other_key = SSlibKey.from_crypto(other.public_key, scheme="ecdsa-sha2-nistp256",
                                     keyid=signer.key_id)
    from securesystemslib.exceptions import VerificationError

    with pytest.raises(VerificationError):
        envelope.verify([other_key], 1)


# -- 3/4. the index root and verify ------------------------------------------------------------

def _root_files(wiki: Path) -> dict[str, str]:
    """Every file the root pins, through its buckets: path → sha256."""
    root = _statement_of(wiki / ROOT_FILE)
    files = {}
    for s in root["subject"]:
        assert sha256_hex((wiki / s["name"]).read_bytes()) == s["digest"]["sha256"], s["name"]
        if s["name"].startswith(BUCKET_DIR + "/"):
            files.update({f["name"]: f["sha256"]
                          for f in json.loads((wiki / s["name"]).read_bytes())["files"]})
        else:
            files[s["name"]] = s["digest"]["sha256"]
    return files


def test_fresh_wiki_verifies_and_root_covers_every_file(wiki: Path, runner) -> None:  # noqa: ANN001
    report = verify_wiki(wiki, _trust())
    assert report.ok, report.findings
    assert report.pages == 30
    # every file of the wiki, and nothing else, is pinned (the root and its buckets aside)
    on_disk = {p.relative_to(wiki).as_posix(): sha256_hex(p.read_bytes()) for p in wiki.rglob("*")
               if p.is_file() and ".folio" not in p.parts and p.name != ROOT_FILE
               and BUCKET_DIR not in p.parts}
    assert _root_files(wiki) == on_disk
    assert {f"{PAGE}.md", f"{PAGE}.claims.json", f"{PAGE}.dbom.json", "index.md",
            "log.md", "SCHEMA.md"} <= set(on_disk)
    root = _statement_of(wiki / ROOT_FILE)
    jsonschema.Draft202012Validator(all_schemas()["DBOMIndexRoot"]).validate(root)
    assert root["predicate"]["files"] == len(on_disk) and root["predicate"]["pages"] == 30
    # a page's three files share one bucket, named by its page id
    bucket = wiki / bucket_file(bucket_of(PAGE))
    names = [f["name"] for f in json.loads(bucket.read_bytes())["files"]]
    assert {f"{PAGE}.md", f"{PAGE}.claims.json", f"{PAGE}.dbom.json"} <= set(names)
    assert names == sorted(names)
    for b in (wiki / BUCKET_DIR).iterdir():
        jsonschema.Draft202012Validator(all_schemas()["DBOMIndexBucket"]).validate(
            json.loads(b.read_bytes()))
    res = runner.invoke(app, ["verify", "--wiki", str(wiki), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["ok"] is True and data["findings"] == [] and data["pages"] == 30


def test_bucket_bytes_match_the_model() -> None:
    files = [("b/x.md", "1" * 64), ("a/x.md", "2" * 64), ("a/\u00e9\"q.md", "3" * 64)]
    model = IndexBucket(bucket="0f", files=[{"name": n, "sha256": d} for n, d in sorted(files)])
    assert bucket_bytes("0f", files) == canonical_bucket(model)
    assert bucket_bytes("0f", []) == canonical_bucket(IndexBucket(bucket="0f", files=()))
    assert bucket_of("a/x") == bucket_of("a/x.md") == bucket_of("a/x.claims.json") \
        == bucket_of("a/x.dbom.json") == sha256_hex("a/x")[:2]


def _flip(path: Path, offset: int = -5) -> None:
    data = bytearray(path.read_bytes())
    data[offset] = (data[offset] + 1) % 256 or 65
    path.write_bytes(bytes(data))


def _messages(wiki: Path, trust: Trust | None = None) -> list[str]:
    report = verify_wiki(wiki, trust or _trust())
    assert not report.ok
    return [f.message for f in report.findings]


def test_tamper_one_byte_of_a_page(wiki: Path, runner) -> None:  # noqa: ANN001
    _flip(wiki / f"{PAGE}.md")
    msgs = _messages(wiki)
    assert any(m.startswith(f"{PAGE}.md: sha256") and "index root" in m for m in msgs)
    assert any(m.startswith(f"{PAGE}.md: sha256") and f"manifest {PAGE}.dbom.json" in m
               for m in msgs)
    res = runner.invoke(app, ["verify", "--wiki", str(wiki)])
    assert res.exit_code == 1 and f"FAIL {PAGE}.md" in flat(res.output)


def test_tamper_one_byte_of_a_manifest(wiki: Path) -> None:
    bundle = wiki / f"{PAGE}.dbom.json"
    raw = json.loads(bundle.read_bytes())
    payload = bytearray(base64.b64decode(raw["dsseEnvelope"]["payload"]))
    payload[payload.index(b'"rank":100')+7] = ord("9")  # rank 100 → 900
    raw["dsseEnvelope"]["payload"] = base64.b64encode(bytes(payload)).decode()
    bundle.write_text(json.dumps(raw))
    msgs = _messages(wiki)
    assert any(m.startswith(f"{PAGE}.dbom.json: signature does not match") for m in msgs)
    assert any(m.startswith(f"{PAGE}.dbom.json: sha256") for m in msgs)


def test_tamper_one_byte_of_the_index_root(wiki: Path) -> None:
    root = wiki / ROOT_FILE
    raw = json.loads(root.read_bytes())
    payload = bytearray(base64.b64decode(raw["dsseEnvelope"]["payload"]))
    payload[-3] = ord("0") if payload[-3] != ord("0") else ord("1")
    raw["dsseEnvelope"]["payload"] = base64.b64encode(bytes(payload)).decode()
    root.write_text(json.dumps(raw))
    assert _messages(wiki) == [f"{ROOT_FILE}: signature does not match its content (bundle "
                               "altered after signing)"]


def test_delete_a_page(wiki: Path) -> None:
    (wiki / f"{PAGE}.md").unlink()
    msgs = _messages(wiki)
    assert f"{PAGE}.md: listed in the index root but missing (deleted or renamed)" in msgs
    assert f"{PAGE}.dbom.json: manifest of a page that is not there" in msgs


def test_delete_a_page_with_everything_it_had(wiki: Path) -> None:
    for suffix in (".md", ".dbom.json", ".claims.json"):
        (wiki / f"{PAGE}{suffix}").unlink()
    msgs = _messages(wiki)
    assert f"{PAGE}.md: listed in the index root but missing (deleted or renamed)" in msgs


def test_add_a_page(wiki: Path) -> None:
    shutil.copy(wiki / f"{PAGE}.md", wiki / "policy" / "forged-policy.md")
    msgs = _messages(wiki)
    assert "policy/forged-policy.md: not in the index root (added after the compile)" in msgs
    assert "policy/forged-policy.md: no manifest policy/forged-policy.dbom.json" in msgs


def test_add_a_page_with_a_copied_manifest(wiki: Path) -> None:
    shutil.copy(wiki / f"{PAGE}.md", wiki / "policy" / "forged-policy.md")
    shutil.copy(wiki / f"{PAGE}.dbom.json", wiki / "policy" / "forged-policy.dbom.json")
    msgs = _messages(wiki)
    assert ("policy/forged-policy.dbom.json: manifest describes policy/return-policy.md, not "
            "policy/forged-policy.md (manifests swapped or copied)") in msgs


def test_swap_two_pages_manifests(wiki: Path) -> None:
    a, b = wiki / f"{PAGE}.dbom.json", wiki / "policy" / "support-policy.dbom.json"
    da, db = a.read_bytes(), b.read_bytes()
    a.write_bytes(db)
    b.write_bytes(da)
    msgs = _messages(wiki)
    assert (f"{PAGE}.dbom.json: manifest describes policy/support-policy.md, not {PAGE}.md "
            "(manifests swapped or copied)") in msgs
    assert ("policy/support-policy.dbom.json: manifest describes policy/return-policy.md, not "
            "policy/support-policy.md (manifests swapped or copied)") in msgs


def _bucket_of_page(wiki: Path, page: str = PAGE) -> tuple[Path, dict]:
    path = wiki / bucket_file(bucket_of(page))
    return path, json.loads(path.read_bytes())


def _write_bucket(path: Path, doc: dict) -> None:
    path.write_bytes(bucket_bytes(doc["bucket"], [(f["name"], f["sha256"]) for f in doc["files"]]))


def _move_page_entry(wiki: Path) -> tuple[Path, Path]:
    """Move the page's entry from its own bucket into another one; returns both buckets."""
    src, doc = _bucket_of_page(wiki)
    other = next(p for p in sorted((wiki / BUCKET_DIR).iterdir()) if p != src)
    entry = next(f for f in doc["files"] if f["name"] == f"{PAGE}.md")
    doc["files"].remove(entry)
    _write_bucket(src, doc)
    odoc = json.loads(other.read_bytes())
    odoc["files"].append(entry)
    _write_bucket(other, odoc)
    return src, other


def test_tamper_a_bucket_to_match_an_edited_page(wiki: Path) -> None:
    """The attacker edits a page and updates its bucket to the new digest: the signed root pins
    the bucket, and the page's own manifest still disagrees."""
    _flip(wiki / f"{PAGE}.md")
    path, doc = _bucket_of_page(wiki)
    for f in doc["files"]:
        if f["name"] == f"{PAGE}.md":
            f["sha256"] = sha256_hex((wiki / f"{PAGE}.md").read_bytes())
    _write_bucket(path, doc)
    rel = bucket_file(bucket_of(PAGE))
    msgs = _messages(wiki)
    assert any(m.startswith(f"{rel}: sha256 ") and "differs from the index root's" in m
               and "cannot be checked" in m for m in msgs), msgs
    assert any(m.startswith(f"{PAGE}.md: sha256") and f"manifest {PAGE}.dbom.json" in m
               for m in msgs)


def test_tamper_one_byte_of_a_bucket(wiki: Path) -> None:
    path, _ = _bucket_of_page(wiki)
    _flip(path, -10)
    rel = bucket_file(bucket_of(PAGE))
    assert [m for m in _messages(wiki) if m.startswith(rel)] and all(
        m.startswith(f"{rel}: sha256 ") for m in _messages(wiki))


def test_delete_a_bucket(wiki: Path, acme_copy: Path) -> None:
    path, _ = _bucket_of_page(wiki)
    path.unlink()
    rel = bucket_file(bucket_of(PAGE))
    msgs = _messages(wiki)
    assert msgs == [f"{rel}: listed in the index root but missing (deleted or renamed); the "
                    "files of its pages cannot be checked against the root"]
    # the next compile restores it from the state, as it restores a deleted manifest
    compile_wiki(acme_copy, wiki, today=TODAY)
    assert verify_wiki(wiki, _trust()).ok


def test_delete_the_bucket_folder(wiki: Path) -> None:
    shutil.rmtree(wiki / BUCKET_DIR)
    msgs = _messages(wiki)
    # every subject but the aggregate files (index.md, SCHEMA.md, log.md, directory.json)
    assert len(msgs) == len(list(_statement_of(wiki / ROOT_FILE)["subject"])) - 4
    assert all(m.startswith(BUCKET_DIR + "/") and "missing" in m for m in msgs)


def test_move_an_entry_between_buckets(wiki: Path) -> None:
    src, other = _move_page_entry(wiki)
    msgs = _messages(wiki)
    for p in (src, other):
        rel = p.relative_to(wiki).as_posix()
        assert any(m.startswith(f"{rel}: sha256 ") and "differs from the index root's" in m
                   for m in msgs), (rel, msgs)


def test_add_a_bucket(wiki: Path) -> None:
    used = {p.stem for p in (wiki / BUCKET_DIR).iterdir()}
    free = next(f"{i:02x}" for i in range(256) if f"{i:02x}" not in used)
    (wiki / bucket_file(free)).write_bytes(bucket_bytes(free, []))
    assert _messages(wiki) == [f"{bucket_file(free)}: bucket not in the index root (added after "
                               "the compile)"]


def _resign_root(wiki: Path, edit) -> None:  # noqa: ANN001
    """Re-sign the root with the trusted key after ``edit`` changed its statement: what only a
    buggy signer could produce, to test the checks that do not rely on the signature."""
    signer = LocalKeySigner.load(TEST_KEY)
    stmt = _statement_of(wiki / ROOT_FILE)
    edit(stmt)
    from compiler.canonical import canonical_json

    (wiki / ROOT_FILE).write_bytes(signer.sign_bundle(canonical_json(stmt), PAYLOAD_TYPE))


def test_a_signed_bucket_listing_a_file_of_another_bucket_is_refused(wiki: Path) -> None:
    src, other = _move_page_entry(wiki)

    def repin(stmt: dict) -> None:
        for s in stmt["subject"]:
            if s["name"].startswith(BUCKET_DIR + "/"):
                s["digest"]["sha256"] = sha256_hex((wiki / s["name"]).read_bytes())
    _resign_root(wiki, repin)
    orel = other.relative_to(wiki).as_posix()
    assert (f"{orel}: lists {PAGE}.md, which belongs in {bucket_file(bucket_of(PAGE))}; the files "
            "of its pages cannot be checked against the root") in _messages(wiki)


def test_a_root_of_the_old_unsharded_format_is_refused(wiki: Path) -> None:
    def old(stmt: dict) -> None:
        stmt["predicateType"] = "https://folio.dev/dbom/index-root/v1"
    _resign_root(wiki, old)
    msgs = _messages(wiki)
    assert len(msgs) == 1 and msgs[0].startswith(
        f"{ROOT_FILE}: signed payload is not a Folio index root (predicateType:")


def test_replaced_key_is_detected(acme_copy: Path, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """An attacker re-signs the whole wiki with their own key: it must not verify against ours."""
    wiki = tmp_path / "wiki"
    monkeypatch.setenv("FOLIO_KEY_PATH", str(tmp_path / "attacker.pem"))
    compile_wiki(acme_copy, wiki, today=TODAY)
    attacker = LocalKeySigner.load(tmp_path / "attacker.pem")
    monkeypatch.setenv("FOLIO_KEY_PATH", str(TEST_KEY))
    msgs = _messages(wiki)
    ours = LocalKeySigner.load(TEST_KEY).key_id
    assert any(m.startswith(f"{ROOT_FILE}: signed by key sha256:{attacker.key_id[:16]}…, not by "
                            f"the trusted key sha256:{ours[:16]}…") for m in msgs)
    assert any(m.startswith(f"{PAGE}.dbom.json: signed by key") for m in msgs)
    # and the attacker's own public key passed explicitly does verify: --key is what is trusted
    pub = tmp_path / "attacker.pub"
    assert verify_wiki(wiki, trust_from(FolioSettings(), pub)).ok


def test_key_hint_is_never_trusted(wiki: Path, tmp_path: Path) -> None:
    """Rewriting the hint to the trusted key id does not make a foreign signature verify."""
    other = LocalKeySigner.generate(tmp_path / "o.pem")
    ours = LocalKeySigner.load(TEST_KEY)
    bundle = wiki / f"{PAGE}.dbom.json"
    payload = parse_bundle(bundle.read_bytes(), "b").envelope.payload_bytes
    forged = Envelope.of(PAYLOAD_TYPE, payload, [(ours.key_id, other.sign(pae(PAYLOAD_TYPE,
                                                                                payload)))])
    bundle.write_bytes(make_bundle(forged, ours.key_id))
    assert any(m.startswith(f"{PAGE}.dbom.json: signature does not match")
               for m in _messages(wiki))


def test_verify_without_any_trusted_key_fails(wiki: Path, tmp_path: Path) -> None:
    trust = trust_from(FolioSettings(key_path=tmp_path / "none.pem"))
    assert trust.key is None
    msgs = _messages(wiki, trust)
    assert any("no trusted key configured" in m for m in msgs)


# -- incremental compiles, drift ----------------------------------------------------------------

def _changed_root_files(wiki: Path, seen: dict[str, tuple[bytes, int]]) -> list[str]:
    """Root and bucket files whose bytes or inode changed since ``seen`` (updated): a rewrite
    with equal bytes still replaces the inode (write_atomic)."""
    now = {p.relative_to(wiki).as_posix(): (p.read_bytes(), p.stat().st_ino)
           for p in [wiki / ROOT_FILE, *(wiki / BUCKET_DIR).iterdir()]}
    changed = sorted(k for k in now.keys() | seen.keys() if now.get(k) != seen.get(k))
    seen.clear()
    seen.update(now)
    return changed


def test_incremental_compile_resigns_only_written_pages(acme_copy: Path, tmp_path: Path) -> None:
    wiki = tmp_path / "wiki"
    compile_wiki(acme_copy, wiki, today=TODAY)
    before = {p.relative_to(wiki).as_posix(): p.read_bytes() for p in wiki.rglob("*.dbom.json")}
    roots: dict[str, tuple[bytes, int]] = {}
    _changed_root_files(wiki, roots)
    doc = acme_copy / "handbook" / "returns-handling.md"
    doc.write_text(doc.read_text().replace("Compare the delivery date", "Check the delivery date"))
    report = compile_wiki(acme_copy, wiki, today=TODAY)
    assert report.written == ["process/returns-handling"]
    after = {p.relative_to(wiki).as_posix(): p.read_bytes() for p in wiki.rglob("*.dbom.json")}
    changed = sorted(k for k in after if after[k] != before.get(k))
    assert changed == ["process/returns-handling.dbom.json"]
    assert verify_wiki(wiki, _trust()).ok
    # the root: one bucket rewritten (that page's), the root re-signed
    assert _changed_root_files(wiki, roots) == [bucket_file(bucket_of("process/returns-handling")),
                                                ROOT_FILE]
    # nothing changed: neither the root nor any bucket is rewritten
    compile_wiki(acme_copy, wiki, today=TODAY)
    assert _changed_root_files(wiki, roots) == []
    assert verify_wiki(wiki, _trust()).ok
    # a removed page loses its manifest, and the root no longer lists it
    (acme_copy / "handbook" / "platform-team.md").unlink()
    report = compile_wiki(acme_copy, wiki, today=TODAY)
    assert "team/platform-team" in report.removed
    assert not (wiki / "team" / "platform-team.dbom.json").exists()
    assert verify_wiki(wiki, _trust()).ok
    # a deleted manifest is restored by the next compile
    (wiki / f"{PAGE}.dbom.json").unlink()
    compile_wiki(acme_copy, wiki, today=TODAY)
    assert verify_wiki(wiki, _trust()).ok


def test_verify_sources_reports_drift(acme_copy: Path, tmp_path: Path, runner) -> None:  # noqa: ANN001
    wiki = tmp_path / "wiki"
    compile_wiki(acme_copy, wiki, today=TODAY)
    doc = acme_copy / "handbook" / "returns-handling.md"
    doc.write_text(doc.read_text().replace("Compare the delivery date", "Check the delivery date"))
    (acme_copy / "handbook" / "platform-team.md").unlink()
    report = verify_wiki(wiki, _trust(), current_sources(acme_copy))
    assert report.ok
    stale = {s.page: {c.key: c.state for c in s.sources} for s in report.stale}
    assert stale["process/returns-handling.md"] == {
        "acme/markdown/handbook/doc/returns-handling": "changed"}
    assert stale["team/platform-team.md"] == {"acme/markdown/handbook/doc/platform-team": "deleted"}
    res = runner.invoke(app, ["verify", "--wiki", str(wiki), "--sources", str(acme_copy)])
    assert res.exit_code == 2
    assert "STALE process/returns-handling.md" in flat(res.output)


# -- 6. answer records --------------------------------------------------------------------------

QUESTION = "What is the return window for Enterprise customers?"


def test_query_attest_and_audit(acme_copy: Path, tmp_path: Path, runner) -> None:  # noqa: ANN001
    wiki = tmp_path / "wiki"
    compile_wiki(acme_copy, wiki, today=TODAY)
    res = runner.invoke(app, ["query", QUESTION, "--wiki", str(wiki), "--attest", "--json"])
    assert res.exit_code == 0, res.output
    rid = json.loads(res.output)["answer_id"]
    stmt = _statement_of(wiki / ".answers" / f"{rid}.json")
    pred = stmt["predicate"]
    assert pred["question"] == QUESTION and pred["principal"] == "operator"
    cite = next(c for c in pred["citations"] if c["status"] == "winner")
    assert cite["page"] == PAGE and cite["source"]["version"] == "7"
    assert cite["pageSha256"] == sha256_hex((wiki / f"{PAGE}.md").read_bytes())

    res = runner.invoke(app, ["audit", rid, "--wiki", str(wiki), "--json"])
    assert res.exit_code == 0, res.output
    trace = json.loads(res.output)
    assert trace["changed"] is False and trace["trace"]

    # the policy page changes at its source and the wiki is recompiled: the audit flags it
    conf = acme_copy / "confluence" / "pol.json"
    text = conf.read_text()
    assert "60 days" in text
    conf.write_text(text.replace("60 days", "45 days"))
    compile_wiki(acme_copy, wiki, today=TODAY)
    res = runner.invoke(app, ["audit", rid, "--wiki", str(wiki), "--json"])
    assert res.exit_code == 2
    steps = json.loads(res.output)["trace"]
    src = next(s for s in steps if s["source"].startswith(
        "acme/confluence/acme.atlassian.net/page/33001@"))
    assert src["source_flag"] == "changed" and src["page_flag"] == "changed"
    res = runner.invoke(app, ["audit", rid, "--wiki", str(wiki)])
    assert "source changed" in flat(res.output)


def test_audit_rejects_a_tampered_or_renamed_record(wiki: Path, runner) -> None:  # noqa: ANN001
    res = runner.invoke(app, ["query", QUESTION, "--wiki", str(wiki), "--attest"])
    rid = flat(res.output).split("answer record: ")[1].split()[0]
    rec = wiki / ".answers" / f"{rid}.json"
    shutil.copy(rec, wiki / ".answers" / "0123456789abcdef0123.json")
    res = runner.invoke(app, ["audit", "0123456789abcdef0123", "--wiki", str(wiki)])
    assert res.exit_code == 1 and "record renamed or replaced" in flat(res.output)
    raw = json.loads(rec.read_bytes())
    p = bytearray(base64.b64decode(raw["dsseEnvelope"]["payload"]))
    i = p.index(b"60 days")
    p[i:i + 2] = b"90"
    raw["dsseEnvelope"]["payload"] = base64.b64encode(bytes(p)).decode()
    rec.write_text(json.dumps(raw))
    res = runner.invoke(app, ["audit", rid, "--wiki", str(wiki)])
    assert res.exit_code == 1 and "signature does not match" in flat(res.output)
    res = runner.invoke(app, ["audit", "nope", "--wiki", str(wiki)])
    assert res.exit_code == 1 and "not an answer id" in flat(res.output)


# -- 7. no secrets ------------------------------------------------------------------------------

def test_no_secrets_in_manifests_or_logs(acme_copy: Path, tmp_path: Path, runner,  # noqa: ANN001
                                         monkeypatch: pytest.MonkeyPatch,
                                         caplog: pytest.LogCaptureFixture) -> None:
    key_path = tmp_path / "fresh" / "k.pem"
    monkeypatch.setenv("FOLIO_KEY_PATH", str(key_path))
    wiki = tmp_path / "wiki"
    with caplog.at_level("DEBUG"):
        res = runner.invoke(app, ["compile", str(acme_copy), "--out", str(wiki), "-q"])
        assert res.exit_code == 0, res.output
        res2 = runner.invoke(app, ["query", QUESTION, "--wiki", str(wiki), "--attest"])
        res3 = runner.invoke(app, ["verify", "--wiki", str(wiki), "--json"])
    assert key_path.exists(), "the first compile creates the default local key"
    pem = key_path.read_bytes()
    body = b"".join(pem.splitlines()[1:-1])  # the base64 of the private key
    private = LocalKeySigner.load(key_path)._key.private_numbers().private_value
    secrets = [body, body[:40], format(private, "x").encode(), str(private).encode()]
    texts = [p.read_bytes() for p in wiki.rglob("*") if p.is_file() and p.suffix != ".db"
             and "-wal" not in p.name and "-shm" not in p.name]
    texts += [res.output.encode(), res2.output.encode(), res3.output.encode(),
              caplog.text.encode()]
    # the payloads are base64 inside the bundles: look there too
    for p in wiki.rglob("*.json"):
        try:
            texts.append(base64.b64decode(json.loads(p.read_bytes())["dsseEnvelope"]["payload"]))
        except (KeyError, ValueError, TypeError):
            pass
    for secret in secrets:
        assert not any(secret in t for t in texts), "private key material leaked"
    env = {k: v for k, v in os.environ.items() if "TOKEN" in k or "SECRET" in k}
    for v in env.values():
        assert not any(v.encode() in t for t in texts if len(v) > 8)


def test_signing_off_writes_no_bundles(acme_copy: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FOLIO_SIGNING", "off")
    wiki = tmp_path / "wiki"
    compile_wiki(acme_copy, wiki, today=TODAY)
    assert not list(wiki.rglob("*.dbom.json")) and not (wiki / ROOT_FILE).exists()


def test_unusable_key_fails_the_compile_naming_the_file(acme_copy: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.build import CompileError

    bad = tmp_path / "bad.pem"
    bad.write_text("not a key")
    os.chmod(bad, 0o600)
    monkeypatch.setenv("FOLIO_KEY_PATH", str(bad))
    with pytest.raises(CompileError, match=r"bad\.pem: not an unencrypted PEM private key"):
        compile_wiki(acme_copy, tmp_path / "wiki", today=TODAY)


def test_edited_bundle_stays_reported_until_a_full_compile(acme_copy: Path, tmp_path: Path) -> None:
    wiki = tmp_path / "wiki"
    compile_wiki(acme_copy, wiki, today=TODAY)
    bundle = wiki / f"{PAGE}.dbom.json"
    bundle.write_bytes(bundle.read_bytes().replace(b'"tlogEntries":[]', b'"tlogEntries": []'))
    compile_wiki(acme_copy, wiki, today=TODAY)
    assert [f.path for f in verify_wiki(wiki, _trust()).findings] == [f"{PAGE}.dbom.json"]
    compile_wiki(acme_copy, wiki, today=TODAY, full=True)
    assert verify_wiki(wiki, _trust()).ok


def test_parallel_signing_writes_the_same_verified_wiki(acme_copy: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Big batches are signed by forked workers; force that path on the example corpus."""
    import compiler.provenance.attest as attest

    monkeypatch.setattr(attest, "_PARALLEL_MIN", 1)
    monkeypatch.setattr(attest, "_CHUNK", 4)
    monkeypatch.setattr(attest, "_workers", lambda: 2)
    wiki = tmp_path / "wiki"
    compile_wiki(acme_copy, wiki, today=TODAY)
    assert verify_wiki(wiki, _trust()).ok
    assert len(list(wiki.rglob("*.dbom.json"))) == 30


def test_signing_off_then_on_resigns_what_changed_meanwhile(acme_copy: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    wiki = tmp_path / "wiki"
    compile_wiki(acme_copy, wiki, today=TODAY)
    monkeypatch.setenv("FOLIO_SIGNING", "off")
    doc = acme_copy / "handbook" / "returns-handling.md"
    doc.write_text(doc.read_text().replace("Compare the delivery date", "Check the delivery date"))
    assert compile_wiki(acme_copy, wiki, today=TODAY).written == ["process/returns-handling"]
    assert not verify_wiki(wiki, _trust()).ok  # the old bundle and root describe the old page
    monkeypatch.delenv("FOLIO_SIGNING")
    compile_wiki(acme_copy, wiki, today=TODAY)
    assert verify_wiki(wiki, _trust()).ok


def test_a_wiki_of_the_unsharded_format_rebuilds_its_root_once(acme_copy: Path, tmp_path: Path
                                                               ) -> None:
    """State format 3 had no ledger and kept bundle digests in .folio/dbom-leaves.json."""
    import sqlite3

    wiki = tmp_path / "wiki"
    compile_wiki(acme_copy, wiki, today=TODAY)
    db = sqlite3.connect(wiki / ".folio" / "state.db")
    db.execute("DROP TABLE page_bundles")
    db.execute("DROP TABLE root_subjects")
    db.execute("PRAGMA user_version=3")
    db.commit()
    db.close()
    shutil.rmtree(wiki / BUCKET_DIR)
    (wiki / ".folio" / "dbom-leaves.json").write_text('{"signer": "x", "bundles": {}}')
    report = compile_wiki(acme_copy, wiki, today=TODAY)
    assert report.full_rebuild
    assert not (wiki / ".folio" / "dbom-leaves.json").exists()
    assert verify_wiki(wiki, _trust()).ok
    assert len(list((wiki / BUCKET_DIR).iterdir())) == len(
        _statement_of(wiki / ROOT_FILE)["subject"]) - 4  # the 4 aggregate files


def test_bundles_deleted_in_any_folder_are_restored_without_recorded_folder_mtimes(
        acme_copy: Path, tmp_path: Path) -> None:
    """With no folder mtimes recorded (state meta lost), every folder is listed once, and all
    of them are recorded again: a later deletion in a folder the compile did not write to is
    still found."""
    import sqlite3

    wiki = tmp_path / "wiki"
    compile_wiki(acme_copy, wiki, today=TODAY)
    db = sqlite3.connect(wiki / ".folio" / "state.db")
    db.execute("DELETE FROM meta WHERE key='bundle_dirs'")
    db.commit()
    db.close()
    (wiki / f"{PAGE}.dbom.json").unlink()
    compile_wiki(acme_copy, wiki, today=TODAY)
    assert verify_wiki(wiki, _trust()).ok
    other = "team/platform-team"
    assert other.partition("/")[0] != PAGE.partition("/")[0]
    (wiki / f"{other}.dbom.json").unlink()
    compile_wiki(acme_copy, wiki, today=TODAY)
    assert (wiki / f"{other}.dbom.json").exists()
    assert verify_wiki(wiki, _trust()).ok

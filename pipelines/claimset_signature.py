"""A site vouches for the claim set it ships; the centre checks who did before merging it.

Anyone who can write to the bucket could otherwise put claims into the central wiki under a
site's name. So a site signs an in-toto statement over the exact bytes of its claim-set
manifest, with its own identity (keyless: the site's Kubernetes service account; or a local
key), and uploads the bundle, named by the manifest's digest, *before* the manifest: a reader
that sees a manifest finds its signature. The manifest pins every shard by digest, so one
signature covers the whole claim set. The centre gathers a manifest only with a bundle for
exactly those bytes, signed by the identity it was told to expect for that site.
"""

from __future__ import annotations

import json
from dataclasses import replace

from compiler.canonical import canonical_json, sha256_hex
from compiler.claimset import ClaimSetManifest
from compiler.provenance.signers import Signer, load_public_key
from compiler.provenance.statement import PAYLOAD_TYPE
from compiler.provenance.verify import Trust, VerifyError, trust_from, verify_bundle_bytes
from compiler.settings import FolioSettings

from .topology import SiteConfig

PREDICATE_TYPE = "https://folio.dev/claimset/v1"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"


class ClaimSetUntrusted(ValueError):
    """A shipped claim set without a valid signature by the identity expected for its site."""


def signature_key(site: str, manifest_sha256: str) -> str:
    return f"sites/{site}/signatures/{manifest_sha256}.sigstore.json"


def statement_bytes(manifest_key: str, data: bytes, manifest: ClaimSetManifest) -> bytes:
    return canonical_json({
        "_type": STATEMENT_TYPE,
        "subject": [{"name": manifest_key, "digest": {"sha256": sha256_hex(data)}}],
        "predicateType": PREDICATE_TYPE,
        "predicate": {"site": manifest.site, "tenant": manifest.tenant,
                      "records": manifest.records, "shards": len(manifest.shards),
                      "backend": manifest.backend},
    })


def sign_manifest(signer: Signer, manifest_key: str, data: bytes,
                  manifest: ClaimSetManifest) -> bytes:
    return signer.sign_bundle(statement_bytes(manifest_key, data, manifest), PAYLOAD_TYPE)


def site_trust(settings: FolioSettings, site: SiteConfig) -> Trust:
    """Whom the centre believes for this site: the site's own key or identity when the sites
    file names one, else the centre's trusted key; for keyless bundles, the service account the
    site's jobs run as (``namespace`` + ``service_account``) under FOLIO_SIGSTORE_ISSUER."""
    trust = trust_from(settings)
    if site.trusted_key is not None:
        trust = replace(trust, key=load_public_key(site.trusted_key),
                        key_source=f"sites.{site.name}.trusted_key: {site.trusted_key}")
    identity = site.signer_identity
    if identity is None and site.namespace and site.service_account:
        identity = (f"https://kubernetes.io/namespaces/{site.namespace}"
                    f"/serviceaccounts/{site.service_account}")
    return replace(trust, identity=identity or trust.identity)


def check_manifest(bundle: bytes | None, where: str, trust: Trust, site: str, tenant: str,
                   manifest_key: str, data: bytes) -> None:
    """Raise :class:`ClaimSetUntrusted` unless ``bundle`` is a trusted signature over exactly
    ``data`` as the manifest of ``site``."""
    if bundle is None:
        raise ClaimSetUntrusted(f"{where}: the claim set of site {site!r} is not signed (the "
                                "site ships with FOLIO_SIGNING=off, or something else wrote it)")
    try:
        statement = json.loads(verify_bundle_bytes(bundle, where, trust))
    except VerifyError as exc:
        raise ClaimSetUntrusted(f"claim set of site {site!r} not trusted: {exc}") from None
    except ValueError as exc:
        raise ClaimSetUntrusted(f"{where}: signed statement is not JSON: {exc}") from None
    if not isinstance(statement, dict):
        raise ClaimSetUntrusted(f"{where}: signed statement is not a JSON object")
    subjects = statement.get("subject") or [{}]
    predicate = statement.get("predicate") or {}
    if statement.get("predicateType") != PREDICATE_TYPE \
            or subjects[0].get("name") != manifest_key \
            or subjects[0].get("digest", {}).get("sha256") != sha256_hex(data) \
            or predicate.get("site") != site or predicate.get("tenant") != tenant:
        raise ClaimSetUntrusted(f"{where}: the signed statement is about another claim set "
                                f"(expected {manifest_key} of site {site!r}, tenant {tenant!r})")

"""Who signs: one interface, two signers.

* :class:`LocalKeySigner` (default, embedded mode): an ECDSA P-256 key in a 0600 PEM file.
  Key id = sha256 of the public key's DER SubjectPublicKeyInfo, written as the bundle's hint.
* :class:`SigstoreSigner` (production): keyless through sigstore-python. The identity token
  comes from a projected Kubernetes service-account token file (audience ``sigstore``) or
  ambient CI credentials; Fulcio/Rekor come from a custom trust config for a private Sigstore.

Neither signer ever puts key material or tokens into what it returns or into its ``repr``.
"""

from __future__ import annotations

import base64
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from ..atomic import write_atomic
from ..canonical import sha256_hex
from .bundle import bundle_bytes
from .dsse import pae
from .statement import PAYLOAD_TYPE


class SigningError(RuntimeError):
    """Cannot sign: no key, unusable key, no identity. The message names the file or source."""


class Signer(Protocol):
    kind: str

    @property
    def identity(self) -> str:
        """Public, non-secret name of the signer (key id or certificate identity)."""
        ...

    def sign_bundle(self, payload: bytes, payload_type: str) -> bytes:
        """A Sigstore bundle (JSON bytes) holding a DSSE envelope over ``payload``."""
        ...


# -- keys ---------------------------------------------------------------------------------------
def public_der(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.DER,
                            serialization.PublicFormat.SubjectPublicKeyInfo)


def key_id(key: ec.EllipticCurvePublicKey) -> str:
    return sha256_hex(public_der(key))


def public_key_path(private_path: Path) -> Path:
    return private_path.with_name(private_path.name.removesuffix(".pem") + ".pub")


def public_pem(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.PEM,
                            serialization.PublicFormat.SubjectPublicKeyInfo)


def load_public_key(path: Path) -> ec.EllipticCurvePublicKey:
    """A trusted key from a PEM file: a public key, or the public half of a private key."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SigningError(f"{path}: cannot read trusted key: {exc.strerror or exc}") from exc
    try:
        if b"PRIVATE KEY" in data:
            key = serialization.load_pem_private_key(data, password=None).public_key()
        else:
            key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as exc:
        raise SigningError(f"{path}: not a PEM public key") from exc
    if not isinstance(key, ec.EllipticCurvePublicKey) or key.curve.name != "secp256r1":
        raise SigningError(f"{path}: trusted key must be ECDSA P-256")
    return key


_ECDSA_SHA256 = ec.ECDSA(hashes.SHA256())  # stateless: one for every signature


def verify_signature(key: ec.EllipticCurvePublicKey, signature: bytes, message: bytes) -> bool:
    try:
        key.verify(signature, message, ec.ECDSA(hashes.SHA256()))
        return True
    except InvalidSignature:
        return False


class LocalKeySigner:
    kind = "local"

    def __init__(self, private_key: ec.EllipticCurvePrivateKey, path: Path | None = None) -> None:
        self._key = private_key
        self.path = path
        self.public_key = private_key.public_key()
        self.key_id = key_id(self.public_key)

    def __repr__(self) -> str:
        return f"LocalKeySigner(key_id={self.key_id[:16]}…, path={self.path})"

    @property
    def identity(self) -> str:
        return f"key:sha256:{self.key_id}"

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message, _ECDSA_SHA256)

    def sign_bundle(self, payload: bytes, payload_type: str) -> bytes:
        return self.sign_bundles([payload], payload_type)[0]

    def sign_bundles(self, payloads: Sequence[bytes], payload_type: str) -> list[bytes]:
        """:meth:`sign_bundle` of each payload. The signatures are made back to back: one
        among others costs about 35 µs here, one after other work 65–125 µs (the curve's
        precomputed tables have left the CPU cache)."""
        sigs = [self.sign(pae(payload_type, payload)) for payload in payloads]
        # the bundle make_bundle writes for Envelope.of(payload_type, payload, [(key id, sig)]),
        # without the models in between (a test keeps the two identical)
        return [bundle_bytes(base64.b64encode(payload), payload_type,
                             [(base64.b64encode(sig).decode("ascii"), self.key_id)], self.key_id)
                for payload, sig in zip(payloads, sigs)]

    @classmethod
    def generate(cls, path: Path, force: bool = False) -> LocalKeySigner:
        """A new key at ``path`` (0600, folder 0700) and its public key beside it."""
        if path.exists() and not force:
            raise SigningError(f"{path}: a signing key already exists (use --force to replace "
                               "it; pages signed with it will no longer verify)")
        key = ec.generate_private_key(ec.SECP256R1())
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_atomic(path, pem, durable=True, mode=0o600)  # 0600 before the key is written
        pub = public_key_path(path)
        write_atomic(pub, public_pem(key.public_key()), durable=True)
        os.chmod(pub, 0o644)
        return cls(key, path)

    @classmethod
    def load(cls, path: Path) -> LocalKeySigner:
        try:
            st = path.stat()
            data = path.read_bytes()
        except OSError as exc:
            raise SigningError(f"{path}: cannot read signing key: {exc.strerror or exc} "
                               "(run `folio keys init`)") from exc
        if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise SigningError(f"{path}: signing key is accessible to other users (mode "
                               f"{stat.S_IMODE(st.st_mode):04o}); run `chmod 600 {path}`")
        try:
            key = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as exc:
            raise SigningError(f"{path}: not an unencrypted PEM private key") from exc
        if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
            raise SigningError(f"{path}: signing key must be ECDSA P-256")
        return cls(key, path)

    @classmethod
    def load_or_create(cls, path: Path) -> LocalKeySigner:
        return cls.load(path) if path.exists() else cls.generate(path)


# -- keyless ------------------------------------------------------------------------------------
SIGSTORE_AUDIENCE = "sigstore"


class SigstoreSigner:
    """Keyless signing: an ephemeral key certified by Fulcio for the workload's OIDC identity,
    each signature logged in Rekor. Network work starts at the first :meth:`sign_bundle`."""

    kind = "sigstore"

    def __init__(self, token_file: Path, trust_config: Path | None) -> None:
        self.token_file = token_file
        self.trust_config_path = trust_config
        self._signer = None
        self._token = None

    def __repr__(self) -> str:
        return f"SigstoreSigner(token_file={self.token_file}, trust_config={self.trust_config_path})"

    def identity_token(self):  # noqa: ANN201 - sigstore.oidc.IdentityToken, imported lazily
        from sigstore.oidc import IdentityError, IdentityToken, detect_credential

        if self._token is not None:
            return self._token
        where = str(self.token_file)
        if self.token_file.exists():
            try:
                raw = self.token_file.read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise SigningError(f"{where}: cannot read identity token: {exc.strerror}") from exc
        else:
            where = "ambient CI credentials"
            try:
                raw = detect_credential(SIGSTORE_AUDIENCE)
            except IdentityError as exc:
                raise SigningError(f"ambient credential detection failed: {exc}") from exc
            if not raw:
                raise SigningError(
                    f"no identity token: {self.token_file} does not exist and no ambient CI "
                    "credentials were found (project a service-account token with audience "
                    f"{SIGSTORE_AUDIENCE!r}, see docs/provenance.md)")
        try:
            # checks audience `sigstore`, expiry and the claims Fulcio binds the certificate to
            self._token = IdentityToken(raw, client_id=SIGSTORE_AUDIENCE)
        except IdentityError as exc:
            # the token itself must never reach a message or a log
            raise SigningError(f"{where}: unusable identity token: {exc}") from None
        return self._token

    def trust_config(self):  # noqa: ANN201 - sigstore.models.ClientTrustConfig
        from sigstore.models import ClientTrustConfig

        if self.trust_config_path is None:
            return ClientTrustConfig.production()
        try:
            return ClientTrustConfig.from_json(self.trust_config_path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise SigningError(f"{self.trust_config_path}: cannot read trust config: "
                               f"{exc.strerror or exc}") from exc
        except ValueError as exc:
            raise SigningError(f"{self.trust_config_path}: invalid Sigstore trust config: "
                               f"{str(exc).splitlines()[0]}") from exc

    def signing_context(self):  # noqa: ANN201 - sigstore.sign.SigningContext
        from sigstore.sign import SigningContext

        return SigningContext.from_trust_config(self.trust_config())

    @property
    def identity(self) -> str:
        tok = self.identity_token()
        return f"oidc:{tok.issuer}:{tok.identity}"

    def sign_bundle(self, payload: bytes, payload_type: str) -> bytes:
        from sigstore import dsse as sdsse

        if payload_type != PAYLOAD_TYPE:
            raise SigningError(f"sigstore signs in-toto statements only, not {payload_type}")
        if self._signer is None:
            ctx = self.signing_context()
            # cache=True: one Fulcio certificate for the whole compile, not one per page
            self._signer = ctx.signer(self.identity_token(), cache=True).__enter__()
        bundle = self._signer.sign_dsse(sdsse.Statement(payload))
        return bundle.to_json().encode("utf-8") + b"\n"

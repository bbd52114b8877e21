"""Sigstore bundle v0.3 around a DSSE envelope, through ``sigstore_models`` (the protobuf-spec
models): a public-key hint for locally signed bundles, a certificate and log entry for keyless
ones. The hint only says which key to *look up*; verification never takes a key from here.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from json.encoder import encode_basestring  # what json.dumps uses with ensure_ascii=False

from pydantic import BaseModel, ConfigDict, ValidationError
from sigstore_models.bundle.v1 import Bundle, VerificationMaterial
from sigstore_models.common.v1 import PublicKeyIdentifier
from sigstore_models.intoto import Envelope as _SMEnvelope
from sigstore_models.intoto import Signature as _SMSignature

from .dsse import Envelope

MEDIA_TYPE = "application/vnd.dev.sigstore.bundle.v0.3+json"


class BundleError(ValueError):
    """A file that should be a bundle is not one; the message names the file."""


class ParsedBundle(BaseModel):
    """What a verifier needs from a bundle, with nothing interpreted yet."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    envelope: Envelope
    key_hint: str | None
    keyless: bool
    raw: bytes


def make_bundle(envelope: Envelope, key_hint: str) -> bytes:
    """The bundle's JSON, written directly: one per page per compile, and building the
    protobuf-spec model only to serialise it doubled the cost of signing. The layout is the one
    ``sigstore_models`` writes (:func:`make_bundle_model`); a test keeps them byte-identical."""
    return bundle_bytes(envelope.payload.encode("ascii"), envelope.payload_type,
                        [(s.sig, s.keyid) for s in envelope.signatures], key_hint)


def bundle_bytes(payload_b64: bytes, payload_type: str, signatures: Sequence[tuple[str, str]],
                 key_hint: str) -> bytes:
    """:func:`make_bundle` from the envelope's parts (``signatures``: (base64 signature, key
    id)), without an :class:`Envelope` in between: what :meth:`LocalKeySigner.sign_bundle`
    calls once per page. Base64 text never needs JSON escaping; everything else is escaped as
    ``json.dumps`` would."""
    enc = encode_basestring
    sigs = ",".join(f'{{"sig":{enc(sig)},"keyid":{enc(keyid)}}}' for sig, keyid in signatures)
    return b"".join((
        f'{{"mediaType":{enc(MEDIA_TYPE)},"verificationMaterial":{{"publicKey":{{"hint":'
        f'{enc(key_hint)}}},"tlogEntries":[]}},"dsseEnvelope":{{"payload":"'.encode("utf-8"),
        payload_b64,
        f'","payloadType":{enc(payload_type)},"signatures":[{sigs}]}}}}\n'.encode("utf-8"),
    ))


def make_bundle_model(envelope: Envelope, key_hint: str) -> bytes:
    bundle = Bundle(
        media_type=MEDIA_TYPE,
        verification_material=VerificationMaterial(
            public_key=PublicKeyIdentifier(hint=key_hint), tlog_entries=[]),
        # ProtoBytes fields take base64 text and decode it; the envelope already holds base64
        dsse_envelope=_SMEnvelope(
            payload=envelope.payload, payload_type=envelope.payload_type,
            signatures=[_SMSignature(sig=s.sig, keyid=s.keyid) for s in envelope.signatures]),
    )
    return bundle.to_json().encode("utf-8") + b"\n"


def parse_bundle(data: bytes, where: str) -> ParsedBundle:
    try:
        bundle = Bundle.from_json(data)
    except (ValidationError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise BundleError(f"{where}: not a Sigstore bundle ({first})") from exc
    if bundle.dsse_envelope is None:
        raise BundleError(f"{where}: bundle holds no DSSE envelope")
    env = bundle.dsse_envelope
    vm = bundle.verification_material
    envelope = Envelope(
        payload=base64.b64encode(env.payload).decode(), payloadType=env.payload_type,
        signatures=tuple({"keyid": s.keyid or "", "sig": base64.b64encode(s.sig).decode()}
                         for s in env.signatures))
    return ParsedBundle(
        envelope=envelope,
        key_hint=vm.public_key.hint if vm.public_key is not None else None,
        keyless=vm.certificate is not None or vm.x509_certificate_chain is not None,
        raw=data,
    )

"""DSSE (Dead Simple Signing Envelope) v1: the pre-authentication encoding and the envelope.

The signature covers PAE(payloadType, payload), never the JSON of the envelope, so an envelope
can be re-serialised freely; PAE is what ``openssl dgst -verify`` checks (docs/provenance.md).
"""

from __future__ import annotations

import base64

from pydantic import BaseModel, ConfigDict, Field


def pae(payload_type: str, payload: bytes) -> bytes:
    """``"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body``, lengths as ASCII decimals."""
    t = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(payload), payload)


class Signature(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    keyid: str = ""
    sig: str = Field(description="base64 of the DER ECDSA signature over the PAE")

    @property
    def sig_bytes(self) -> bytes:
        return base64.b64decode(self.sig, validate=True)


class Envelope(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    payload: str = Field(description="base64 of the statement bytes")
    payload_type: str = Field(alias="payloadType")
    signatures: tuple[Signature, ...] = Field(min_length=1)

    @property
    def payload_bytes(self) -> bytes:
        return base64.b64decode(self.payload, validate=True)

    @classmethod
    def of(cls, payload_type: str, payload: bytes, signatures: list[tuple[str, bytes]]) -> Envelope:
        return cls(payload=base64.b64encode(payload).decode(), payloadType=payload_type,
                   signatures=tuple(Signature(keyid=k, sig=base64.b64encode(s).decode())
                                    for k, s in signatures))

    def pae(self) -> bytes:
        return pae(self.payload_type, self.payload_bytes)

"""OIDC bearer tokens: a JWT is accepted only when signed by a key of the configured JWKS, for
the configured issuer and audience, unexpired, and naming a principal the directory knows."""

from __future__ import annotations

import json
import time
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from starlette.testclient import TestClient

from compiler.provenance.verify import trust_from
from compiler.serve.app import build_app
from compiler.serve.auth import AuthConfig, OIDCConfig
from compiler.settings import FolioSettings
from serve_wiki import DISCOUNT_PAGE, Served, served  # noqa: F401 - fixture

ISSUER = "https://login.example.test/realms/acme"
AUDIENCE = "folio"


@pytest.fixture(scope="module")
def idp(tmp_path_factory: pytest.TempPathFactory) -> tuple[rsa.RSAPrivateKey, Path]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    jwk.update(kid="k1", use="sig", alg="RS256")
    path = tmp_path_factory.mktemp("idp") / "jwks.json"
    path.write_text(json.dumps({"keys": [jwk]}))
    return key, path


def _token(key, **over) -> str:  # noqa: ANN001
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "bob", "iat": now, "exp": now + 300}
    claims.update(over.pop("claims", {}))
    for k in over.pop("drop", ()):
        claims.pop(k)
    return jwt.encode(claims, key, algorithm=over.pop("alg", "RS256"),
                      headers={"kid": over.pop("kid", "k1")})


@pytest.fixture(scope="module")
def client(served: Served, idp) -> TestClient:  # noqa: ANN001, F811
    _, jwks = idp
    cfg = AuthConfig(oidc=OIDCConfig(issuer=ISSUER, audience=AUDIENCE, jwks_file=jwks))
    return TestClient(build_app(served.wiki, cfg, trust_from(FolioSettings())))


def _get(client: TestClient, token: str | None, url: str = "/api/me"):  # noqa: ANN202
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return client.get(url, headers=headers)


def test_valid_token_is_the_principal(client: TestClient, idp) -> None:  # noqa: ANN001
    key, _ = idp
    assert _get(client, _token(key)).json() == {"principal": "bob",
                                                 "groups": ["finance", "staff"]}
    assert _get(client, _token(key), f"/api/pages/{DISCOUNT_PAGE}").status_code == 200
    carol = _token(key, claims={"sub": "carol"})
    assert _get(client, carol, f"/api/pages/{DISCOUNT_PAGE}").status_code == 404


def _refused(r) -> None:  # noqa: ANN001
    assert r.status_code == 401, r.text
    assert r.json() == {"error": "authentication required"}
    assert r.headers["www-authenticate"].startswith("Bearer")


def test_wrong_issuer_refused(client: TestClient, idp) -> None:  # noqa: ANN001
    _refused(_get(client, _token(idp[0], claims={"iss": "https://evil.example.test"})))


def test_wrong_audience_refused(client: TestClient, idp) -> None:  # noqa: ANN001
    _refused(_get(client, _token(idp[0], claims={"aud": "another-app"})))


def test_expired_refused(client: TestClient, idp) -> None:  # noqa: ANN001
    past = int(time.time()) - 3600
    _refused(_get(client, _token(idp[0], claims={"iat": past - 600, "exp": past})))


def test_no_expiry_refused(client: TestClient, idp) -> None:  # noqa: ANN001
    _refused(_get(client, _token(idp[0], drop=("exp",))))


def test_bad_signature_refused(client: TestClient, idp) -> None:  # noqa: ANN001
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    _refused(_get(client, _token(other)))  # right kid, wrong key
    good = _token(idp[0])
    head, body, sig = good.split(".")
    tampered_body = jwt.utils.base64url_encode(json.dumps(
        {**jwt.decode(good, options={"verify_signature": False}), "sub": "carol"}).encode())
    _refused(_get(client, f"{head}.{tampered_body.decode()}.{sig}"))


def test_unknown_key_and_other_algorithms_refused(client: TestClient, idp) -> None:  # noqa: ANN001
    _refused(_get(client, _token(idp[0], kid="k2")))
    ec_key = ec.generate_private_key(ec.SECP256R1())
    _refused(_get(client, _token(ec_key, alg="ES256")))
    unsigned = jwt.encode({"iss": ISSUER, "aud": AUDIENCE, "sub": "bob",
                           "exp": int(time.time()) + 60}, None, algorithm="none")
    _refused(_get(client, unsigned))


def test_unknown_principal_refused(client: TestClient, idp) -> None:  # noqa: ANN001
    _refused(_get(client, _token(idp[0], claims={"sub": "mallory"})))
    _refused(_get(client, _token(idp[0], drop=("sub",))))


def test_missing_token_refused(client: TestClient) -> None:
    _refused(_get(client, None))
    _refused(_get(client, ""))
    _refused(client.get(f"/api/pages/{DISCOUNT_PAGE}"))


def test_session_from_a_jwt_ends_with_the_jwt(client: TestClient, idp) -> None:  # noqa: ANN001
    import time as clock

    short = _token(idp[0], claims={"exp": int(clock.time()) + 2})
    r = client.post("/login", data={"token": short}, follow_redirects=False)
    assert r.status_code == 303
    sid = r.cookies.get("folio_session") or client.cookies.get("folio_session")
    srv = client.app.state.server
    ident, expiry = srv.sessions._live[sid]
    assert ident.name == "bob" and expiry <= clock.time() + 2
    srv.sessions._live[sid] = (ident, clock.time() - 1)  # as it will be in two seconds
    assert client.get("/api/me").status_code == 401

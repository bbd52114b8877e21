"""Who is asking: tokens from a token file, a trusted reverse proxy's header, OIDC bearer JWTs.

Every method ends in a principal *name* that the wiki's directory knows (``directory.yaml``),
or in the operator (a token-file entry marked ``operator: true``). Nothing is anonymous unless
``anonymous`` names the principal that unauthenticated requests act as.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import secrets
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .. import safe_yaml
from ..atomic import write_atomic


class AuthError(Exception):
    """Refused. The message is for the server log; clients get a generic 401."""


class ConfigError(ValueError):
    pass


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TokenEntry(_Strict):
    principal: str = Field(min_length=1)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="sha256 hex of the token")
    operator: bool = Field(False, description="sees everything, like the CLI without --as")


class TokenFile(_Strict):
    tokens: list[TokenEntry] = []


class ProxyConfig(_Strict):
    header: str = Field(description="request header carrying the principal name")
    allow: list[str] = Field(min_length=1, description="proxy addresses or CIDR ranges")

    @field_validator("allow")
    @classmethod
    def _networks(cls, v: list[str]) -> list[str]:
        for item in v:
            ipaddress.ip_network(item, strict=False)
        return v


class OIDCConfig(_Strict):
    issuer: str
    audience: str
    jwks_file: Path
    principal_claim: str = Field("sub", description="JWT claim holding the principal name")
    algorithms: list[str] = ["RS256", "ES256"]
    leeway_s: int = Field(30, ge=0, le=300)

    @field_validator("algorithms")
    @classmethod
    def _no_none(cls, v: list[str]) -> list[str]:
        if not v or any(a.lower() == "none" or a.upper().startswith("HS") for a in v):
            raise ValueError("asymmetric algorithms only (RS*, ES*, PS*, EdDSA)")
        return v


class AuthConfig(_Strict):
    """``--auth FILE`` (YAML). Relative paths are relative to that file."""

    tokens_file: Path | None = None
    proxy: ProxyConfig | None = None
    oidc: OIDCConfig | None = None
    anonymous: str | None = Field(None, description="principal for requests with no credentials")
    session_hours: float = Field(8, gt=0, le=24 * 7)


def load_auth_config(path: Path | None, tokens_file: Path | None = None) -> AuthConfig:
    cfg = AuthConfig()
    if path is not None:
        try:
            raw = safe_yaml.load(path.read_text(encoding="utf-8")) or {}
            cfg = AuthConfig.model_validate(raw)
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"{path}: {exc}") from exc
        except ValidationError as exc:
            e = exc.errors()[0]
            raise ConfigError(f"{path}: field {'.'.join(map(str, e['loc']))}: {e['msg']}") from exc
        base = path.parent
        if cfg.tokens_file is not None and not cfg.tokens_file.is_absolute():
            cfg.tokens_file = base / cfg.tokens_file
        if cfg.oidc is not None and not cfg.oidc.jwks_file.is_absolute():
            cfg.oidc.jwks_file = base / cfg.oidc.jwks_file
    if tokens_file is not None:
        cfg.tokens_file = tokens_file
    if not (cfg.tokens_file or cfg.proxy or cfg.oidc or cfg.anonymous):
        raise ConfigError("no authentication configured: give --tokens FILE or --auth FILE "
                          "(tokens_file, proxy, oidc or anonymous)")
    return cfg


# -- token file ---------------------------------------------------------------------------------
def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def read_token_file(path: Path) -> TokenFile:
    try:
        raw = safe_yaml.load(path.read_text(encoding="utf-8")) if path.exists() else {}
        return TokenFile.model_validate(raw or {})
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    except ValidationError as exc:
        e = exc.errors()[0]
        raise ConfigError(f"{path}: field {'.'.join(map(str, e['loc']))}: {e['msg']}") from exc


def add_token(path: Path, principal: str, operator: bool = False) -> str:
    """A new random token for ``principal``; only its digest is stored. Returns the token."""
    tf = read_token_file(path)
    token = "folio_" + secrets.token_urlsafe(32)
    tf.tokens.append(TokenEntry(principal=principal, sha256=token_digest(token),
                                operator=operator))
    write_atomic(path, yaml.safe_dump(tf.model_dump(mode="json"), sort_keys=False).encode())
    path.chmod(0o600)
    return token


# -- identities ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Identity:
    """An authenticated caller. ``name`` None is the operator."""

    name: str | None
    via: str
    expires: float | None = None  # epoch seconds, when the credential itself expires (JWT)


class Authenticator:
    def __init__(self, cfg: AuthConfig) -> None:
        self.cfg = cfg
        self._tokens = read_token_file(cfg.tokens_file).tokens if cfg.tokens_file else []
        self._nets = [ipaddress.ip_network(a, strict=False)
                      for a in (cfg.proxy.allow if cfg.proxy else [])]
        self._jwks = None
        if cfg.oidc is not None:
            import jwt

            try:
                self._jwks = jwt.PyJWKSet.from_dict(
                    json.loads(cfg.oidc.jwks_file.read_text(encoding="utf-8")))
            except (OSError, ValueError, jwt.PyJWTError) as exc:
                raise ConfigError(f"{cfg.oidc.jwks_file}: not a JWKS file ({exc})") from exc

    def token(self, token: str) -> Identity:
        """A token-file token: its digest against every entry, each compared in constant
        time, with no early exit."""
        digest = token_digest(token)
        found: TokenEntry | None = None
        for entry in self._tokens:
            if hmac.compare_digest(entry.sha256, digest):
                found = entry
        if found is None:
            raise AuthError("unknown token")
        return Identity(None if found.operator else found.principal, "token")

    def jwt(self, token: str) -> Identity:
        import jwt

        oidc = self.cfg.oidc
        if oidc is None or self._jwks is None:
            raise AuthError("OIDC is not configured")
        try:
            kid = jwt.get_unverified_header(token).get("kid")
            keys = [k for k in self._jwks.keys if kid is None or k.key_id == kid]
            if len(keys) != 1:
                raise AuthError(f"no single key in the JWKS for kid {kid!r}")
            claims = jwt.decode(
                token, keys[0], algorithms=oidc.algorithms, audience=oidc.audience,
                issuer=oidc.issuer, leeway=oidc.leeway_s,
                options={"require": ["exp", "iat", "iss", "aud"]})
        except jwt.PyJWTError as exc:
            raise AuthError(f"JWT refused: {exc}") from exc
        name = claims.get(oidc.principal_claim)
        if not isinstance(name, str) or not name:
            raise AuthError(f"JWT has no {oidc.principal_claim!r} claim")
        return Identity(name, "oidc", float(claims["exp"]))

    def bearer(self, token: str) -> Identity:
        if token.count(".") == 2 and self.cfg.oidc is not None:
            return self.jwt(token)
        return self.token(token)

    def proxy(self, client_host: str | None, headers: dict[str, str]) -> Identity | None:
        """The proxy's header, only from an allowed proxy address; from anywhere else the
        header is ignored (anyone can send it)."""
        p = self.cfg.proxy
        if p is None or client_host is None:
            return None
        value = headers.get(p.header.lower())
        if not value:
            return None
        try:
            addr = ipaddress.ip_address(client_host)
        except ValueError:
            return None
        if not any(addr in n for n in self._nets):
            return None
        return Identity(value.strip(), "proxy")

    def anonymous(self) -> Identity | None:
        return Identity(self.cfg.anonymous, "anonymous") if self.cfg.anonymous else None

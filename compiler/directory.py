"""``directory.yaml``: who the principals are, their groups, and who they are in each system.

Record ACLs name people the way their source system does (a Salesforce ``OwnerId``, an
Atlassian ``accountId``, a Zendesk requester id, a HubSpot owner id): the connectors write them
as ``<namespace>:<id>`` (``salesforce:0055g00000AbCdEAAZ``). The directory says which principal
each id is. The match happens when a principal is checked, not at compile time: a record's ACL
is part of its content digest, so resolving ids into it would re-extract every record of a
system whenever one person joined, and the DBOMs would pin the directory's state of the day
instead of what the source said. See docs/permissions.md.

Format::

    users:
      alice:
        groups: [staff, support]
        email: alice@acme.example
        identities:
          salesforce: 0055g00000AbCdEAAZ     # 15- or 18-character id
          atlassian: 5b10ac8d82e05b22cc7d4ef5
          zendesk: [372001, 372002]          # one or several ids per namespace
          hubspot: "61234567"

A namespace is the system's name (``salesforce``, ``atlassian`` for Jira and Confluence,
``zendesk``, ``hubspot``), or whatever a source's ``options.identity_namespace`` sets when two
instances of one system number their users independently.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from . import safe_yaml
from .models import Principal

RESERVED_PREFIX = "folio:"  # groups the compiler itself writes (docs/permissions.md)
_SF_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"


class DirectoryError(ValueError):
    """``directory.yaml`` cannot be read; the message names the file, user and field."""


def salesforce_id18(raw: str) -> str:
    """The case-insensitive 18-character form of a Salesforce id (the API returns 18; the UI
    shows 15): both spellings in a directory must match an ``OwnerId``."""
    if len(raw) != 15 or not raw.isalnum():
        return raw
    suffix = ""
    for i in range(3):
        chunk = raw[i * 5:(i + 1) * 5]
        bits = sum(1 << j for j, ch in enumerate(chunk) if ch.isupper())
        suffix += _SF_ALPHABET[bits]
    return raw + suffix


def identity(namespace: str, raw: object) -> str:
    """How an ACL names a system's user: ``<namespace>:<id>``, e-mail addresses lower-cased."""
    text = str(raw).strip()
    if namespace == "email":
        text = text.lower()
    elif namespace == "salesforce":
        text = salesforce_id18(text)
    return f"{namespace}:{text}"


class DirectoryUser(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    groups: tuple[str, ...] = ()
    email: str | None = None
    identities: dict[str, str | int | list[str | int]] = Field(default_factory=dict)

    @field_validator("groups")
    @classmethod
    def _no_reserved(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for g in v:
            if str(g).startswith(RESERVED_PREFIX):
                raise ValueError(f"group {g!r}: names starting {RESERVED_PREFIX!r} are the "
                                 "compiler's own and cannot be granted")
        return tuple(sorted({str(g) for g in v}))

    def identity_keys(self) -> tuple[str, ...]:
        out = [identity("email", self.email)] if self.email else []
        for ns, ids in self.identities.items():
            values = ids if isinstance(ids, list) else [ids]
            out += [identity(ns, i) for i in values if str(i).strip()]
        return tuple(sorted(set(out)))


class Directory(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    users: dict[str, DirectoryUser] = Field(default_factory=dict)

    @field_validator("users")
    @classmethod
    def _plain_names(cls, v: dict[str, DirectoryUser]) -> dict[str, DirectoryUser]:
        for name in v:
            if ":" in name or not name.strip():
                raise ValueError(f"user {name!r}: a principal's name has no ':' (that is how "
                                 "ACLs write a system's ids)")
        return v

    def principal(self, name: str) -> Principal | None:
        user = self.users.get(name)
        if user is None:
            return None
        return Principal(name=name, groups=user.groups, identities=user.identity_keys())

    def group_members(self, group: str) -> list[str]:
        return sorted(n for n, u in self.users.items() if group in u.groups)

    def groups_by_user(self) -> dict[str, list[str]]:
        return {n: list(u.groups) for n, u in self.users.items()}

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None) -> Directory:
        return cls.model_validate_json(text) if text else cls()


def load_directory(path: Path) -> Directory:
    """The directory at ``path``; an absent file is an empty directory (everyone is an
    unknown principal, who sees public records only)."""
    if not path.exists():
        return Directory()
    try:
        raw = safe_yaml.load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise DirectoryError(f"{path}: cannot read: {exc}") from exc
    if not isinstance(raw, dict):
        raise DirectoryError(f"{path}: expected a mapping with 'users'")
    users = raw.get("users") or {}
    if isinstance(users, dict):
        # a user listed with no settings (``carol:``) is a principal with no groups
        raw = {**raw, "users": {str(k): (v or {}) for k, v in users.items()}}
    try:
        return Directory.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise DirectoryError(f"{path}: {where}: {err['msg']}") from exc

"""What every connector shares about record privacy: how a system's user ids are written into
ACLs, and the ACL of a record whose privacy the export does not let us determine.

People are named in an ACL as ``<namespace>:<id>`` (``salesforce:0055g…``,
``atlassian:5b10ac8d…``, ``zendesk:372001``, ``hubspot:61234567``); ``directory.yaml`` says which
principal each one is (compiler/directory.py). A source whose instances number users apart from
another instance of the same system sets ``options.identity_namespace``.

A record whose privacy cannot be determined (a private Salesforce object without ``OwnerId``, a
Confluence page exported without its restrictions, a Jira security level nobody mapped) gets
the source's ``options.restricted_acl`` (never public; default: nobody but the operator) plus
the marker group ``folio:undetermined:<why>``, which no principal can hold (the directory
refuses ``folio:`` groups) and which ``folio lint`` reports.
"""

from __future__ import annotations

from typing import Any

from compiler.directory import identity
from compiler.models import ACL

from .base import SourceConfig

UNDETERMINED = "folio:undetermined:"


def namespace(source: SourceConfig, default: str) -> str:
    return str(source.options.get("identity_namespace") or default)


def person(source: SourceConfig, default_ns: str, raw: Any) -> str | None:
    """A system's user id as ACLs name it, or None for an empty id."""
    if raw is None or not str(raw).strip():
        return None
    return identity(namespace(source, default_ns), raw)


def declared_acl(value: Any, where: str) -> ACL:
    """An ACL written in ``sources.yaml`` options (``{users: […], groups: […]}``, or a list or
    a single name of groups)."""
    if isinstance(value, str):
        return ACL(groups=(value,))
    if isinstance(value, list):
        return ACL(groups=tuple(str(v) for v in value))
    if isinstance(value, dict):
        return ACL.model_validate(value)
    if value is None:
        return ACL()
    raise ValueError(f"{where}: expected groups or {{users, groups}}, got {value!r}")


def restricted(source: SourceConfig, why: str) -> ACL:
    """The most restrictive ACL the source declares, marked as undetermined (see above)."""
    declared = declared_acl(source.options.get("restricted_acl"), "options.restricted_acl")
    return ACL(users=declared.users,
               groups=(*declared.groups, UNDETERMINED + why))  # public never carries over


def is_undetermined(acl: ACL) -> list[str]:
    """The reasons an ACL was marked undetermined (empty when it was not)."""
    found = [g[len(UNDETERMINED):] for g in acl.groups if g.startswith(UNDETERMINED)]
    for inner in acl.all_of:
        found += is_undetermined(inner)
    return found


def union(*acls: ACL) -> ACL:
    """Readers of any of ``acls`` (none of which may carry ``all_of``)."""
    return ACL(public=any(a.public for a in acls),
               users=tuple(u for a in acls for u in a.users),
               groups=tuple(g for a in acls for g in a.groups))

"""Confluence Cloud REST v1 content exports (``GET /wiki/rest/api/content`` and ``/content/{id}``).

Export with ``expand=body.storage,version,space,history,metadata.labels,``
``restrictions.read.restrictions.user,restrictions.read.restrictions.group``. A content item
without ``version`` cannot be identified at a version, so it is reported rather than guessed.

ACL: the page's own read restriction (users and groups) wins; otherwise the space's readers
from ``options.space_groups`` (``{SPACE_KEY: [group, …]}``: space permissions are not part of the
content payload and need space-admin rights to read, so the operator declares them); otherwise
the source's ``default_acl``. Users are ``atlassian:<accountId>`` (Data Center: the username).
Confluence view restrictions are inherited: a reader must pass the page's restriction *and*
every restricted ancestor's. With ``ancestors`` exported and their restrictions expanded
(``expand=…,ancestors.restrictions.read.restrictions.user,ancestors.restrictions.read.restrictions.group``)
each restricted ancestor becomes one of the ACL's ``all_of``. A page exported without its read
restrictions, or with ancestors whose restrictions were not expanded, cannot be decided: it gets
the source's restricted ACL (connectors/privacy.py) and lint names it.

Mentions: storage format names a mentioned user only by id (``<ri:user ri:account-id=…/>``). The
body shows them by name: ``options.user_names`` (``{accountId: name}``) first, else the name of a
user object of the same export carrying that id (a page's ``history.createdBy``, ``version.by``,
restriction users…), else ``@<id>``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from compiler.models import ACL, Reference, SourceRecord

from ._common import (
    FieldError,
    as_dict,
    as_list,
    build_each,
    memo_context,
    origin,
    payload_items,
    sorted_unique,
)
from .base import RecordError, SourceConfig
from .privacy import person, restricted
from .timefmt import parse_timestamp
from .xhtml import storage_to_text

_CONTENT_TYPES = frozenset({"page", "blogpost"})
# Absent from the export's point of view: the wiki must retract what they contributed.
_GONE = frozenset({"trashed", "deleted"})
_DEFAULT_ENTITY_LABELS = {
    "policy": "policy",
    "product": "product",
    "runbook": "process",
    "process": "process",
}
_SPACE_PATH = "/rest/api/space/"


class ConfluenceConnector:
    system: ClassVar[str] = "confluence"
    file_suffixes: ClassVar[tuple[str, ...]] = (".json",)

    def parse(
        self, path: str, data: bytes, source: SourceConfig, tenant: str
    ) -> Iterator[SourceRecord | RecordError]:
        got = payload_items(path, data, "results",
                            lambda d: ("", d) if "id" in d and "type" in d else None,
                            "a Confluence content list ({'results': [...]}) or content object",
                            # every page's text takes the names of users any object names
                            lazy=False)
        if isinstance(got, RecordError):
            yield got
            return
        doc, items = got
        listed = isinstance(doc.get("results"), list)
        # a list response says where its links are relative to; a single object does not
        base = as_dict(doc.get("_links")).get("base") if listed else None
        users = {**export_users(doc), **{str(k): str(v) for k, v in
                                         as_dict(source.options.get("user_names")).items() if v}}
        if listed and users:
            # one page's text now depends on users other pages of the file name
            memo_context("results", doc, {"users": users})
        yield from build_each(path, items, "content",
                              lambda item, pointer: _record(item, pointer, base, users, path, source,
                                                            tenant))


_USER_IDS = ("accountId", "userKey", "username")
_MAX_DEPTH = 12


def export_users(doc: Any) -> dict[str, str]:
    """Display name by account id (and user key, username) of every user object in an
    export: ``{"accountId": …, "displayName": …}`` wherever the payload expands one."""
    out: dict[str, str] = {}

    def walk(node: Any, depth: int) -> None:
        if depth > _MAX_DEPTH:
            return
        if isinstance(node, list):
            for child in node:
                walk(child, depth + 1)
        elif isinstance(node, dict):
            name = node.get("displayName") or node.get("publicName")
            if isinstance(name, str) and name.strip():
                for key in _USER_IDS:
                    if isinstance(node.get(key), str) and node[key]:
                        out.setdefault(node[key], name.strip())
            for key, child in node.items():
                if key != "body" and isinstance(child, dict | list):
                    walk(child, depth + 1)

    walk(doc, 0)
    return out


def _record(
    item: Any, pointer: str, list_base: str | None, users: dict[str, str], path: str,
    source: SourceConfig, tenant: str,
) -> SourceRecord | None:
    if not isinstance(item, dict):
        raise FieldError(None, "expected a content object")
    kind = item.get("type")
    if not kind:
        raise FieldError("type", "content has no type")
    if kind not in _CONTENT_TYPES:
        return None  # attachments and comments belong to their page, not the wiki
    if item.get("status") in _GONE:
        return None
    if item.get("id") in (None, ""):
        raise FieldError("id", "content has no id")

    version = as_dict(item.get("version"))
    if version.get("number") is None:
        raise FieldError("version", "version not expanded (export with expand=version)")
    when = version.get("when") or as_dict(item.get("history")).get("createdDate")
    if not when:
        raise FieldError("version.when", "no version.when or history.createdDate to date the version")
    try:
        updated_at = parse_timestamp(when)
    except ValueError as exc:
        raise FieldError("version.when", str(exc)) from None

    storage = as_dict(as_dict(item.get("body")).get("storage")).get("value")
    converted = storage_to_text(storage if isinstance(storage, str) else "", users)
    label_list = as_dict(as_dict(item.get("metadata")).get("labels")).get("results")
    labels = sorted_unique(as_dict(label).get("name") for label in as_list(label_list))
    title = item.get("title")
    return SourceRecord(
        tenant=tenant,
        system=ConfluenceConnector.system,
        instance=source.instance,
        type=str(kind),
        id=str(item["id"]),
        version=str(version["number"]),
        updated_at=updated_at,
        title=title if isinstance(title, str) else "",
        url=_url(item, list_base, source),
        body=converted.text,
        references=tuple(
            Reference(relation="links to", target_type=None, target_name=t)
            for t in dict.fromkeys(converted.page_links)
        ),
        entity_type=_entity_type(labels, source),
        container=_space_key(item),
        status=item.get("status"),
        labels=labels,
        acl=page_acl(item, source),
        origin=origin(path, pointer),
    )


def _url(item: dict[str, Any], list_base: str | None, source: SourceConfig) -> str | None:
    links = as_dict(item.get("_links"))
    webui = links.get("webui")
    base = links.get("base") or list_base or source.options.get("base_url")
    if not webui or not base:
        return None
    return str(base).rstrip("/") + str(webui)


def _space_key(item: dict[str, Any]) -> str | None:
    key = as_dict(item.get("space")).get("key")
    if key:
        return str(key)
    expandable = as_dict(item.get("_expandable"))
    for ref in (expandable.get("space"), expandable.get("container")):
        if isinstance(ref, str) and _SPACE_PATH in ref:
            return ref.rsplit(_SPACE_PATH, 1)[1].strip("/") or None
    return None


def _entity_type(labels: tuple[str, ...], source: SourceConfig) -> str:
    mapping = source.options.get("entity_labels", _DEFAULT_ENTITY_LABELS)
    for label in labels:  # already sorted: the same page always maps to the same type
        if label in mapping:
            return str(mapping[label])
    return "topic"


def _space_acl(space: str | None, source: SourceConfig) -> ACL | None:
    groups = as_dict(source.options.get("space_groups")).get(space) if space else None
    if not groups:
        return None
    return ACL(groups=tuple([groups] if isinstance(groups, str) else map(str, groups)))


def _read_restrictions(item: dict[str, Any]) -> dict[str, Any] | None:
    """``restrictions.read.restrictions`` when the export expanded it, else None."""
    read = as_dict(as_dict(item.get("restrictions")).get("read")).get("restrictions")
    return read if isinstance(read, dict) else None


def _acl(read: dict[str, Any], source: SourceConfig) -> ACL | None:
    """A read restriction as an ACL, or None when it restricts nobody (the page inherits)."""
    users = [
        person(source, "atlassian", u.get("accountId") or u.get("username") or u.get("userKey")
               or u.get("publicName"))
        for u in map(as_dict, as_list(as_dict(read.get("user")).get("results")))
    ]
    groups = [g.get("name") for g in map(as_dict, as_list(as_dict(read.get("group")).get("results")))]
    users = [u for u in users if u]
    groups = [str(g) for g in groups if g]
    if not users and not groups:
        return None
    return ACL(users=tuple(users), groups=tuple(groups))


def page_acl(item: dict[str, Any], source: SourceConfig) -> ACL:
    """Who may read the page: its own restriction (else its space's readers, else the source
    default), and every restricted ancestor's restriction too."""
    read = _read_restrictions(item)
    if read is None:
        return restricted(source, "confluence-restrictions-not-exported")
    inherited: list[ACL] = []
    for ancestor in map(as_dict, as_list(item.get("ancestors"))):
        above = _read_restrictions(ancestor)
        if above is None:
            return restricted(source, "confluence-ancestor-restrictions-not-exported")
        acl = _acl(above, source)
        if acl is not None:
            inherited.append(acl)
    own = _acl(read, source) or _space_acl(_space_key(item), source) or source.default_acl
    if not inherited:
        return own
    return own.model_copy(update={"all_of": tuple(inherited)})

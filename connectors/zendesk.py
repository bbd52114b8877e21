"""Zendesk Support ticket exports (``GET /api/v2/incremental/tickets/cursor.json``, ``/tickets.json``,
``/tickets/{id}.json``).

One record per ticket, type ``ticket``, versioned by ``updated_at``: title is the subject, body
the description (the first comment), fields the status, priority, ticket type, people and group
ids, and every custom field named in ``options.custom_field_names`` (``{"360001234": "Customer"}``;
unnamed custom fields are ids without meaning in a wiki and are skipped, as for Jira). Tags are
the record's labels. A ticket with ``status: "deleted"`` is skipped here: the incremental export
reports deletions that way and the API connector turns them into tombstones.

The organization is a reference by its name when the name is known (the ``organizations``
sideload, ``include=organizations``, or ``options.organization_names``), else by the name
every organization record also goes by, ``Zendesk organization <id>`` (pages and answers show
the organization's page title in its place when the compile holds it); its id is always a field.

Organization exports (``GET /api/v2/organizations.json``, ``/organizations/{id}.json``) are read
too: one record per organization, type ``organization``, describing an ``account`` entity. Help
desks name organizations their own way (``NORDWIND``) and commonly keep the CRM account's name
in an organization field: the field ``options.organization_name_field`` names, else the first
field whose key reads as a CRM/account/company name (``crm_account_name``, ``account_name``,
``Company name``). With one, the entity is that account and the organization's own name becomes
an alias of it, so the organization, its tickets and the CRM's account share one page. The
aliases also hold ``Zendesk organization <id>`` (a ticket that knows only the organization's id
links to it) and the domain names. Details and notes are its body, tags its labels, the other
``organization_fields`` its fields.

ACL: Zendesk has no per-ticket sharing list. Agents see tickets by role and group, and end users
of the requester's organization see them when the organization shares tickets. The record is
therefore readable by the source's ``default_acl`` (the agents/staff who may read the help desk)
plus, when the ticket has an ``organization_id``, the group
``<options.organization_group_prefix><id>`` (default ``zendesk-org-<id>``) or the groups listed
for it in ``options.organization_groups`` (``{"360000111": ["customer-globex"]}``), so a
directory can grant a customer's people their organization's tickets and nothing else. The
requester reads their own ticket: ``zendesk:<requester_id>`` is one of its users (the directory
maps it to a principal).

Comments: when the export carries each ticket's comments (``comments``, in the shape of
``GET /api/v2/tickets/{id}/comments.json``; the API connector attaches them with
``options.comments: true``), public ones are appended to the body. A private comment
(``public: false``, an agent's internal note) is never compiled: the ticket is readable by its
requester and organization, and the note is not theirs to read. When the first comment (the
one ``description`` repeats) is private, the description is left out too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, ClassVar

from compiler.models import ACL, Reference, Scalar, SourceRecord

from ._common import FieldError, as_dict, as_list, build_each, origin, payload_items, sorted_unique
from .base import RecordError, SourceConfig
from .privacy import person
from .timefmt import parse_timestamp

DELETED = "deleted"
# the API's organization responses start with their list (or object) key
_ORG_EXPORT = re.compile(rb'^(?:\xef\xbb\xbf)?\s*\{\s*"organizations?"\s*:')
_ID_FIELDS = ("requester_id", "submitter_id", "assignee_id", "group_id", "organization_id", "brand_id")
_NAMED_FIELDS = ("status", "priority", "type", "due_at", "created_at")


class ZendeskConnector:
    system: ClassVar[str] = "zendesk"
    file_suffixes: ClassVar[tuple[str, ...]] = (".json",)

    def parse(
        self, path: str, data: bytes, source: SourceConfig, tenant: str
    ) -> Iterator[SourceRecord | RecordError]:
        if _is_organization_export(data):
            yield from _organizations(path, data, source, tenant)
            return
        got = payload_items(path, data, "tickets",
                            lambda d: ("ticket", d["ticket"]) if isinstance(d.get("ticket"), dict) else None,
                            "a Zendesk ticket export ({'tickets': [...]}) or ticket")
        if isinstance(got, RecordError):
            yield got
            return
        doc, items = got
        orgs = {**organization_names(doc), **{str(k): str(v) for k, v in
                                              as_dict(source.options.get("organization_names")).items()}}
        yield from build_each(path, items, "ticket", lambda ticket, pointer: _record(
            ticket, pointer, orgs, path, source, tenant))


def _is_organization_export(data: bytes) -> bool:
    """An organizations list or one organization, not a ticket export with them sideloaded."""
    return _ORG_EXPORT.match(data[:256]) is not None


def _organizations(path: str, data: bytes, source: SourceConfig, tenant: str
                   ) -> Iterator[SourceRecord | RecordError]:
    got = payload_items(path, data, "organizations",
                        lambda d: ("organization", d["organization"])
                        if isinstance(d.get("organization"), dict) else None,
                        "a Zendesk organization export ({'organizations': [...]}) or organization")
    if isinstance(got, RecordError):
        yield got
        return
    _, items = got
    yield from build_each(path, items, "organization", lambda org, pointer: _organization(
        org, pointer, path, source, tenant))


def _organization(org: Any, pointer: str, path: str, source: SourceConfig, tenant: str
                  ) -> SourceRecord | None:
    if not isinstance(org, dict):
        raise FieldError(None, "expected an organization object")
    if org.get("id") in (None, ""):
        raise FieldError("id", "organization has no id")
    name = org.get("name")
    if not isinstance(name, str) or not name.strip():
        raise FieldError("name", "organization has no name")
    updated = org.get("updated_at")
    updated_at = None
    if updated:
        try:
            updated_at = parse_timestamp(updated)
        except ValueError as exc:
            raise FieldError("updated_at", str(exc)) from None
    org_id = str(org["id"])
    fields = {str(k): v for k, v in as_dict(org.get("organization_fields")).items()
              if isinstance(v, str | int | float | bool) and v != ""}
    crm_key = _crm_name_field(fields, source)
    crm_name = str(fields.pop(crm_key)).strip() if crm_key else ""
    body = "\n\n".join(str(org[k]).replace("\r\n", "\n").strip() for k in ("details", "notes")
                        if isinstance(org.get(k), str) and org[k].strip())
    own = name.strip()
    return SourceRecord(
        tenant=tenant,
        system=ZendeskConnector.system,
        instance=source.instance,
        type="organization",
        id=org_id,
        version=str(updated or org.get("created_at") or "1"),
        updated_at=updated_at,
        title=crm_name or own,
        url=_org_url(org, org_id, source),
        body=body,
        fields=fields,
        entity_type="account",
        aliases=sorted_unique([org_alias(org_id), *([own] if crm_name else []), *(
            d for d in as_list(org.get("domain_names")) if isinstance(d, str))]),
        labels=sorted_unique(as_list(org.get("tags"))),
        acl=ticket_acl(org_id, source),
        origin=origin(path, pointer),
    )


_CRM_NAME_KEY = re.compile(r"(?i)^(?:crm|sf|salesforce|hubspot|account|company|legal|customer)"
                          r"[\s_-]*(?:account[\s_-]*|company[\s_-]*)?name$")


def _crm_name_field(fields: dict[str, Any], source: SourceConfig) -> str | None:
    """The organization field holding the CRM account's name (see the module docstring)."""
    wanted = source.options.get("organization_name_field")
    if wanted:
        return str(wanted) if isinstance(fields.get(str(wanted)), str) else None
    for key in sorted(fields):
        if _CRM_NAME_KEY.match(key) and isinstance(fields[key], str) and fields[key].strip():
            return key
    return None


def _org_url(org: dict[str, Any], org_id: str, source: SourceConfig) -> str | None:
    api = org.get("url")
    base = api.split("/api/v2/", 1)[0] if isinstance(api, str) and "/api/v2/" in api \
        else source.options.get("base_url")
    return f"{str(base).rstrip('/')}/agent/organizations/{org_id}" if base else None


def org_alias(organization_id: Any) -> str:
    """The name an organization goes by where only its id is known."""
    return f"Zendesk organization {organization_id}"


def organization_names(doc: Any) -> dict[str, str]:
    """Organization id → name from a sideloaded ``organizations`` list."""
    return {str(o["id"]): str(o["name"]) for o in map(as_dict, as_list(as_dict(doc).get("organizations")))
            if o.get("id") is not None and o.get("name")}


def _record(
    ticket: Any, pointer: str, orgs: dict[str, str], path: str, source: SourceConfig, tenant: str
) -> SourceRecord | None:
    if not isinstance(ticket, dict):
        raise FieldError(None, "expected a ticket object")
    if ticket.get("id") in (None, ""):
        raise FieldError("id", "ticket has no id")
    if ticket.get("status") == DELETED:
        return None
    updated = ticket.get("updated_at")
    if not updated:
        raise FieldError("updated_at", "ticket has no updated_at")
    try:
        updated_at = parse_timestamp(updated)
    except ValueError as exc:
        raise FieldError("updated_at", str(exc)) from None

    ticket_id = str(ticket["id"])
    subject = ticket.get("subject") or ticket.get("raw_subject")
    description = ticket.get("description")
    org = ticket.get("organization_id")
    org_name = (orgs.get(str(org)) or org_alias(org)) if org not in (None, "") else None
    return SourceRecord(
        tenant=tenant,
        system=ZendeskConnector.system,
        instance=source.instance,
        type="ticket",
        id=ticket_id,
        version=str(updated),
        updated_at=updated_at,
        # a ticket opened by API or e-mail may have no subject; its number still names it
        title=str(subject) if subject else f"Ticket #{ticket_id}",
        name=f"Ticket #{ticket_id}",
        url=_url(ticket, ticket_id, source),
        body=_body(ticket, description),
        fields=_fields(ticket, source),
        references=(Reference(relation="organization", target_type="account", target_name=org_name),)
        if org_name else (),
        entity_type="ticket",
        status=ticket.get("status") if isinstance(ticket.get("status"), str) else None,
        labels=sorted_unique(as_list(ticket.get("tags"))),
        acl=ticket_acl(org, source, ticket.get("requester_id")),
        origin=origin(path, pointer),
    )


def _url(ticket: dict[str, Any], ticket_id: str, source: SourceConfig) -> str | None:
    """The agent UI link; ``url`` is the API's (``https://acme.zendesk.com/api/v2/tickets/35.json``)."""
    api = ticket.get("url")
    base = api.split("/api/v2/", 1)[0] if isinstance(api, str) and "/api/v2/" in api \
        else source.options.get("base_url")
    return f"{str(base).rstrip('/')}/agent/tickets/{ticket_id}" if base else None


def _scalar(value: Any) -> Scalar:
    if isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list):  # multi-select custom fields
        parts = [str(v) for v in value if isinstance(v, str | int | float) and str(v) != ""]
        return ", ".join(parts) or None
    return None


def _fields(ticket: dict[str, Any], source: SourceConfig) -> dict[str, Scalar]:
    out: dict[str, Scalar] = {name: _scalar(ticket.get(name)) for name in (*_NAMED_FIELDS, *_ID_FIELDS)}
    names = {str(k): str(v) for k, v in as_dict(source.options.get("custom_field_names")).items()}
    for cf in map(as_dict, as_list(ticket.get("custom_fields"))):
        display = names.get(str(cf.get("id")))
        value = _scalar(cf.get("value"))
        if display and value not in (None, ""):
            out[display] = value
    return {k: v for k, v in out.items() if v is not None}


def _clean(text: Any) -> str:
    return text.replace("\r\n", "\n").strip() if isinstance(text, str) else ""


def _body(ticket: dict[str, Any], description: Any) -> str:
    """The description and the public comments after it (see the module docstring)."""
    comments = [c for c in map(as_dict, as_list(ticket.get("comments")))
                if c.get("type", "Comment") == "Comment"]
    comments.sort(key=lambda c: (str(c.get("created_at") or ""), str(c.get("id") or "")))
    if not comments:
        return _clean(description)
    blocks = [_clean(description)] if comments[0].get("public") is True else []
    for c in comments[1:]:
        if c.get("public") is not True:  # internal note, or a comment that does not say
            continue
        text = _clean(c.get("plain_body") or c.get("body"))
        if text:
            when = f" on {str(c['created_at'])[:10]}" if c.get("created_at") else ""
            blocks.append(f"Comment{when}:\n{text}")
    return "\n\n".join(b for b in blocks if b)


def ticket_acl(organization_id: Any, source: SourceConfig, requester_id: Any = None) -> ACL:
    """The default readers, the requester, and the ticket's organization (module docstring)."""
    requester = person(source, "zendesk", requester_id)
    if requester is not None:
        base = source.default_acl
        source = source.model_copy(update={"default_acl": ACL(
            public=base.public, users=(*base.users, requester), groups=base.groups)})
    if organization_id in (None, ""):
        return source.default_acl
    org = str(organization_id)
    groups = as_dict(source.options.get("organization_groups")).get(org)
    if not groups:
        groups = [f"{source.options.get('organization_group_prefix', 'zendesk-org-')}{org}"]
    extra = [groups] if isinstance(groups, str) else [str(g) for g in groups]
    base = source.default_acl
    return ACL(public=base.public, users=base.users, groups=(*base.groups, *extra))

"""HubSpot CRM v3 object exports (``GET /crm/v3/objects/{type}``, ``POST …/search``, ``GET …/{id}``).

The payload does not say which object type it holds, so the type comes from
``options.object_type`` (the API connector sets it per scope entry) or, for export folders, from
the file's path (``companies.json``, ``contacts/page-2.json``). Record type is the singular
(``company``, ``contact``, ``deal``…), versioned by the last-modified property: HubSpot names it
``hs_lastmodifieddate`` on every object but contacts, where it is ``lastmodifieddate``.
An ``archived: true`` object is skipped here; the API connector turns it into a deletion.

Associations (``?associations=companies,contacts``: ``"associations": {"companies": {"results":
[{"id": "…", "type": "deal_to_company"}]}}``, or the v4 shape ``{"toObjectId": …,
"associationTypes": […]}``) are references: a deal has no property naming its company. An
association carries only the other record's id, and that record lives in another file (or is
not exported at all), so the reference names it by ``HubSpot <type> <id>`` (``HubSpot company
9284710021``), a name every HubSpot record also goes by (an alias): the link resolves to the
record's entity when the compile holds it, and pages and answers then show that page's title
(compiler/render.py ``shown_value``: current, and only where the reader may see the page); it
stays the bare id, never a guessed name, when the compile does not hold it. A relation a reference property already names (a contact's ``company``) keeps
that name instead.

ACL: HubSpot's object payload carries no grant list; what it carries is the record's owner
(``hubspot_owner_id``) and the owner's team (``hubspot_team_id``). A portal whose users see only
their own (or their team's) records declares it: ``options.owner_access: [deals, companies]``
(object types, or ``true`` for all) makes those records readable by their owner
(``hubspot:<owner id>``, a directory identity), with ``options.team_access: true`` by the team too
(group ``hubspot-team:<id>``, or ``options.team_groups: {<id>: group}``), and by
``options.private_readers`` (super admins, managers). Such a record without an owner cannot be
decided and gets the source's restricted ACL (connectors/privacy.py). Every other record gets
the source's ``default_acl``: declare there who may read this portal's CRM.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any, ClassVar

from compiler.models import ACL, Reference, Scalar, SourceRecord

from ._common import FieldError, as_dict, as_list, build_each, origin, payload_items
from .base import RecordError, SourceConfig
from .privacy import declared_acl, person, restricted, union
from .timefmt import parse_timestamp


class ObjectType:
    """What Folio needs to know about one HubSpot object type."""

    def __init__(self, record_type: str, entity_type: str, type_id: str | None,
                 title: tuple[str, ...], body: str | None, status: str | None) -> None:
        self.record_type = record_type
        self.entity_type = entity_type
        self.type_id = type_id  # the UI's objectTypeId, for record links
        self.title = title
        self.body = body
        self.status = status


OBJECT_TYPES: dict[str, ObjectType] = {
    "companies": ObjectType("company", "account", "0-2", ("name", "domain"), "description", "lifecyclestage"),
    "contacts": ObjectType("contact", "contact", "0-1", ("firstname+lastname", "email"), None,
                           "lifecyclestage"),
    "deals": ObjectType("deal", "opportunity", "0-3", ("dealname",), "description", "dealstage"),
    "tickets": ObjectType("ticket", "ticket", "0-5", ("subject",), "content", "hs_pipeline_stage"),
    "products": ObjectType("product", "product", "0-7", ("name",), "description", None),
}
_CUSTOM = ObjectType("", "topic", None, ("name",), "description", None)
_DEFAULT_REFERENCES = {"company": "account"}
_BOOKKEEPING = frozenset({"hs_object_id", "hs_lastmodifieddate", "lastmodifieddate"})
_TOKEN = re.compile(r"[^a-z0-9_]+")


def modified_property(object_type: str) -> str:
    """The property search filters and sorts by: contacts predate the ``hs_`` naming."""
    return "lastmodifieddate" if object_type == "contacts" else "hs_lastmodifieddate"


def record_type(object_type: str) -> str:
    known = OBJECT_TYPES.get(object_type)
    return known.record_type if known else object_type


def object_alias(object_type: str, object_id: Any) -> str:
    """The name a HubSpot record goes by where only its id is known (an association)."""
    return f"HubSpot {record_type(object_type).replace('_', ' ')} {object_id}"


def object_type_for(path: str, source: SourceConfig) -> str | None:
    """``options.object_type``, else the first part of the path naming a known object type."""
    if source.options.get("object_type"):
        return str(source.options["object_type"])
    p = PurePosixPath(path)
    for part in [*p.parent.parts, p.stem]:
        for token in _TOKEN.split(part.lower()):
            if token in OBJECT_TYPES:
                return token
    return None


class HubSpotConnector:
    system: ClassVar[str] = "hubspot"
    file_suffixes: ClassVar[tuple[str, ...]] = (".json",)

    def parse(
        self, path: str, data: bytes, source: SourceConfig, tenant: str
    ) -> Iterator[SourceRecord | RecordError]:
        got = payload_items(path, data, "results",
                            lambda d: ("", d) if "id" in d and "properties" in d else None,
                            "a HubSpot CRM object list ({'results': [...]}) or object")
        if isinstance(got, RecordError):
            yield got
            return
        _, items = got
        object_type = object_type_for(path, source)
        if object_type is None:
            yield RecordError(path=path, field="options.object_type", message=(
                "cannot tell the HubSpot object type: set options.object_type or name the file or "
                f"folder after it ({', '.join(OBJECT_TYPES)})"))
            return
        yield from build_each(path, items, "object", lambda obj, pointer: _record(
            obj, object_type, pointer, path, source, tenant))


def _record(
    obj: Any, object_type: str, pointer: str, path: str, source: SourceConfig, tenant: str
) -> SourceRecord | None:
    if not isinstance(obj, dict):
        raise FieldError(None, "expected a CRM object")
    if obj.get("id") in (None, ""):
        raise FieldError("id", "object has no id")
    if obj.get("archived") is True:
        return None
    props = obj.get("properties")
    if not isinstance(props, dict):
        raise FieldError("properties", "object has no properties")
    modified = modified_property(object_type)
    version = props.get(modified) or obj.get("updatedAt")
    if not version:
        raise FieldError(f"properties.{modified}", f"object has no {modified} or updatedAt")
    try:
        updated_at = parse_timestamp(str(version))
    except ValueError as exc:
        raise FieldError(f"properties.{modified}", str(exc)) from None
    if obj.get("updatedAt"):  # the object's own time, which the recency tiebreak uses
        try:
            updated_at = parse_timestamp(str(obj["updatedAt"]))
        except ValueError as exc:
            raise FieldError("updatedAt", str(exc)) from None

    kind = OBJECT_TYPES.get(object_type, _CUSTOM)
    title, title_keys = _title(props, kind, object_type)
    body = props.get(kind.body) if kind.body else None
    status = props.get(kind.status) if kind.status else None
    return SourceRecord(
        tenant=tenant,
        system=HubSpotConnector.system,
        instance=source.instance,
        type=record_type(object_type),
        id=str(obj["id"]),
        version=str(version),
        updated_at=updated_at,
        title=title,
        url=_url(kind, str(obj["id"]), source),
        body=body.strip() if isinstance(body, str) else "",
        fields=_fields(props, {*title_keys, kind.body or ""}),
        references=_all_references(props, obj.get("associations"), source),
        entity_type=kind.entity_type,
        aliases=(object_alias(object_type, obj["id"]),),
        container=object_type,
        status=status if isinstance(status, str) and status else None,
        acl=record_acl(props, object_type, source),
        origin=origin(path, pointer),
    )


def owner_scoped(object_type: str, source: SourceConfig) -> bool:
    scoped = source.options.get("owner_access")
    return scoped is True or (isinstance(scoped, list) and object_type in scoped)


def record_acl(props: dict[str, Any], object_type: str, source: SourceConfig) -> ACL:
    """Who may read one object (see the module docstring)."""
    if not owner_scoped(object_type, source):
        return source.default_acl
    readers = declared_acl(source.options.get("private_readers"), "options.private_readers")
    owner = person(source, "hubspot", props.get("hubspot_owner_id"))
    if owner is None:
        return union(restricted(source, f"hubspot-{object_type}-owner-missing"), readers)
    groups: list[str] = []
    team = props.get("hubspot_team_id")
    if source.options.get("team_access") and team not in (None, ""):
        mapped = (source.options.get("team_groups") or {}).get(str(team))
        groups += ([mapped] if isinstance(mapped, str) else list(mapped)) if mapped \
            else [f"hubspot-team:{team}"]
    return union(ACL(users=(owner,), groups=tuple(groups)), readers)


def _title(props: dict[str, Any], kind: ObjectType, object_type: str) -> tuple[str, set[str]]:
    for spec in kind.title:
        keys = spec.split("+")
        text = " ".join(str(props[k]).strip() for k in keys if props.get(k) not in (None, ""))
        if text:
            return text, set(keys)
    wanted = " or ".join(kind.title).replace("+", " and ")
    raise FieldError(f"properties.{kind.title[0].split('+')[0]}", f"{object_type} object has no {wanted}")


def _url(kind: ObjectType, object_id: str, source: SourceConfig) -> str | None:
    portal = source.options.get("portal_id")
    if not portal or not kind.type_id:
        return None
    app = str(source.options.get("app_url", "https://app.hubspot.com")).rstrip("/")
    return f"{app}/contacts/{portal}/record/{kind.type_id}/{object_id}"


def _fields(props: dict[str, Any], used: set[str]) -> dict[str, Scalar]:
    # HubSpot returns every property value as a string; they are kept as the API gives them
    return {k: v for k, v in sorted(props.items())
            if k not in _BOOKKEEPING and k not in used
            and isinstance(v, str | int | float | bool) and v != ""}


def _references(props: dict[str, Any], source: SourceConfig) -> tuple[Reference, ...]:
    mapping = source.options.get("reference_properties", _DEFAULT_REFERENCES)
    return tuple(
        Reference(relation=prop, target_type=str(target), target_name=str(props[prop]).strip())
        for prop, target in sorted(as_dict(mapping).items())
        if isinstance(props.get(prop), str) and props[prop].strip()
    )


def _all_references(props: dict[str, Any], associations: Any,
                    source: SourceConfig) -> tuple[Reference, ...]:
    """Reference properties, then associations of the relations no property already names (a
    contact's ``company`` property names its company as the page should show it)."""
    named = _references(props, source)
    relations = {r.relation for r in named}
    return named + tuple(r for r in _associations(associations) if r.relation not in relations)


def _associations(value: Any) -> tuple[Reference, ...]:
    """One reference per associated record (see the module docstring), by association type
    (``companies`` → relation ``company``); an id listed twice (HubSpot lists the primary
    and the unlabeled association of one pair) is one reference."""
    refs: list[Reference] = []
    for to_type, page in sorted(as_dict(value).items()):
        kind = OBJECT_TYPES.get(str(to_type))
        relation = record_type(str(to_type)).replace("_", " ").strip()
        for item in map(as_dict, as_list(as_dict(page).get("results"))):
            other = item.get("id", item.get("toObjectId"))
            if other in (None, "") or not relation:
                continue
            refs.append(Reference(relation=relation, target_type=kind.entity_type if kind else None,
                                  target_name=object_alias(str(to_type), other)))
    return tuple(dict.fromkeys(refs))

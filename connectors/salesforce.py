"""Salesforce REST query exports (``GET /services/data/vXX.X/query`` and ``queryAll``).

Each page of a paginated query is its own file; ``getDeleted`` responses carry no records to
compile (deletions reach the wiki as the record's absence from the next export).

Privacy (``sources.yaml`` options; docs/permissions.md):

- ``sharing_model``: the org-wide default per object (``{Account: Private, Opportunity: Read,
  default: ReadWrite}``). ``Read``/``ReadWrite`` objects are readable by the source's
  ``default_acl``; ``Private`` ones by their owner (``OwnerId``), the users and groups of their
  share rows, and ``options.private_readers`` (who sees every private record: the role
  hierarchy and "View All" are not in the payload, so the operator declares them). Without a
  ``sharing_model`` every record gets ``default_acl``, as before.
- ``privacy_rules``: ``{Opportunity: {field: Confidential__c, private_when: [true]}}`` makes a
  record private by its own field, whatever the object's default.
  The API connector reads it from the org itself with ``sharing_model: from-org``
  (connectors/api/salesforce.py).
- Share rows: a ``Shares`` child subquery on the record
  (``SELECT Id, …, OwnerId, (SELECT UserOrGroupId, RowCause FROM Shares) FROM Account``) or
  ``AccountShare``/``OpportunityShare``/``X__Share`` rows in the same query file. ``005…`` ids are
  users (``salesforce:<id>``); groups and roles map through ``options.sharing_groups``
  (``{00G…: sales-emea}``), else stay ``salesforce:<id>``.
- A private record without ``OwnerId``, a rule whose field was not exported, and an object whose
  default is ``ControlledByParent`` (or unknown) cannot be decided: they get the source's
  restricted ACL (connectors/privacy.py) and lint names them.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any, ClassVar

from compiler.directory import salesforce_id18
from compiler.models import ACL, Reference, Scalar, SourceRecord
from compiler.slug import slugify

from ._common import (
    FieldError, Item, as_dict, build_memo, decode_json, lazy_items, memo_context, origin,
    raw_list, raw_value,
)
from .base import RecordError, SourceConfig
from .privacy import declared_acl, person, restricted, union
from .timefmt import parse_timestamp

ENTITY_TYPES = {
    "Account": "account",
    "Contact": "contact",
    "Lead": "contact",
    "Opportunity": "opportunity",
    "Product2": "product",
    "Case": "ticket",
}
# System bookkeeping and the keys already carried by the record itself.
_NOT_FIELDS = frozenset(
    {"Id", "Name", "Description", "attributes", "IsDeleted", "SystemModstamp", "LastModifiedDate",
     "CreatedDate", "CreatedById", "LastModifiedById", "OwnerId"}
)  # fmt: skip


class SalesforceConnector:
    system: ClassVar[str] = "salesforce"
    file_suffixes: ClassVar[tuple[str, ...]] = (".json",)

    def parse(
        self, path: str, data: bytes, source: SourceConfig, tenant: str
    ) -> Iterator[SourceRecord | RecordError]:
        got = lazy_items(data, "records", _may_be_share, _share_rows, _shares_of)
        if got is None:
            got = _decoded(path, data)
            if isinstance(got, RecordError):
                yield got
                return
        doc, items = got
        if "deletedRecords" in doc:
            return
        # share rows never make a record, so the memo never skips them: all are here
        shares = _share_rows([obj for _, obj, _, known in items if known is None])
        for pointer, row, raw, known in items:
            if known is not None:
                yield known
                continue
            if _is_share(row):
                continue  # a grant on another row of this file, read above
            label = _record_id(row) or pointer
            # a row's record takes the share rows of the file that grant on it
            result = build_memo(path, label, pointer, raw,
                                partial(_record, row, pointer, path, source, tenant, shares),
                                extra=shares.get(label))
            if result is not None:
                yield result


def _decoded(path: str, data: bytes) -> tuple[dict[str, Any], list[Item]] | RecordError:
    """The query response decoded whole: its document and rows."""
    doc = decode_json(path, data)
    if isinstance(doc, RecordError):
        return doc
    if isinstance(doc, dict) and "deletedRecords" in doc:
        return doc, []
    if not (isinstance(doc, dict) and isinstance(doc.get("records"), list)):
        return RecordError(path=path, message="not a Salesforce query response ({'records': [...]})")
    rows = doc["records"]
    memo_context("records", doc)
    raws = raw_list(data, "records", len(rows))
    return doc, [Item(f"records[{i}]", row, raws[i] if raws else None)
                 for i, row in enumerate(rows)]


def _shares_of(raw: Any, shares: dict[str, list[dict[str, Any]]]) -> Any:
    """The share rows granting on the row of bytes ``raw`` (what :func:`_record_id` reads of
    it, decoded alone): the ``extra`` its memo digest is taken with."""
    if not shares:
        return None
    label = _record_id({"Id": raw_value(raw, "Id"), "attributes": raw_value(raw, "attributes")})
    return shares.get(label) if label else None


def _may_be_share(raw: bytes) -> bool:
    """Whether a row's bytes may be a share row's (see :func:`_is_share`): its type's name
    ends in "Share", which JSON writes as those letters or with a \\u escape."""
    return b'Share"' in raw or b"\\u" in raw


def entity_type(sobject: str) -> str:
    """What a Salesforce object describes; custom objects by their name without ``__c``."""
    return ENTITY_TYPES.get(sobject) or slugify(sobject.removesuffix("__c"))


def _record(row: Any, pointer: str, path: str, source: SourceConfig, tenant: str,
            shares: dict[str, list[dict[str, Any]]] | None = None) -> SourceRecord | None:
    if not isinstance(row, dict):
        raise FieldError(None, "expected a record object")
    attributes = as_dict(row.get("attributes"))
    sobject = attributes.get("type")
    if not sobject or not isinstance(sobject, str):
        raise FieldError("attributes.type", "record has no attributes.type")
    if row.get("IsDeleted") is True:
        return None  # queryAll rows for the recycle bin

    api_url = attributes.get("url") if isinstance(attributes.get("url"), str) else None
    record_id = _record_id(row)
    if not record_id:
        raise FieldError("Id", "record has no Id and no attributes.url")
    version = row.get("SystemModstamp") or row.get("LastModifiedDate")
    if not version:
        raise FieldError(
            "SystemModstamp", "record has no SystemModstamp or LastModifiedDate (add it to the SOQL)"
        )
    # SystemModstamp versions the record (it moves on system updates too); the record's time for
    # recency is when a user last changed it, LastModifiedDate
    updated_at = None
    for stamp in ("SystemModstamp", "LastModifiedDate"):
        if row.get(stamp):
            try:
                updated_at = parse_timestamp(row[stamp])
            except ValueError as exc:
                raise FieldError(stamp, str(exc)) from None

    description = row.get("Description")
    instance_url = str(source.options.get("instance_url", "")).rstrip("/")
    return SourceRecord(
        tenant=tenant,
        system=SalesforceConnector.system,
        instance=source.instance,
        type=sobject,
        id=str(record_id),
        version=str(version),
        updated_at=updated_at,
        title=_title(row),
        url=(instance_url + api_url) if api_url else None,
        body=description if isinstance(description, str) else "",
        fields=_fields(row),
        references=_references(row),
        entity_type=entity_type(sobject),
        container=sobject,
        status=row.get("StageName") or row.get("Status"),
        acl=record_acl(row, sobject, str(record_id), source, (shares or {}).get(str(record_id), [])),
        origin=origin(path, pointer),
    )


# -- privacy ----------------------------------------------------------------------------------

_OPEN = frozenset({"read", "readwrite", "readwritetransfer", "fullaccess", "public",
                   "publicreadonly", "publicreadwrite", "publicreadwritetransfer", "publicfullaccess"})
_SHARE_PARENT = {"AccountShare": "AccountId", "OpportunityShare": "OpportunityId",
                 "CaseShare": "CaseId", "LeadShare": "LeadId", "ContactShare": "ContactId"}


def _is_share(row: Any) -> bool:
    sobject = as_dict(as_dict(row).get("attributes")).get("type")
    return isinstance(sobject, str) and (sobject.endswith("Share") or sobject.endswith("__Share"))


def _share_rows(rows: list[Any]) -> dict[str, list[dict[str, Any]]]:
    """Share rows of a query file, by the id of the record they grant access to."""
    out: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if not _is_share(row):
            continue
        sobject = row["attributes"]["type"]
        parent = row.get(_SHARE_PARENT.get(sobject, "ParentId"))
        if parent:
            out.setdefault(str(parent), []).append(row)
    return out


def _sharing_model(source: SourceConfig, sobject: str) -> str | None:
    declared = source.options.get("sharing_model")
    if declared is not None and not isinstance(declared, dict):
        # "from-org" is read from the Organization object by the API connector; an export
        # cannot say it, so nothing here may fall back to the (wider) default
        return "undeclared"
    model = as_dict(declared)
    if not model:
        # ``sharing: true`` alone (the API connector's older switch): records are as private
        # as their share rows say
        return "Private" if source.options.get("sharing") else None
    value = model.get(sobject, model.get("default"))
    return str(value) if value is not None else "undeclared"


def _private_by_rule(row: dict[str, Any], sobject: str, source: SourceConfig) -> bool | None:
    """True/False by the object's declared privacy rule; None when the rule's field is absent
    from the export (undecidable); False when no rule is declared."""
    rule = as_dict(as_dict(source.options.get("privacy_rules")).get(sobject))
    if not rule.get("field"):
        return False
    field = str(rule["field"])
    if field not in row:
        return None
    wanted = rule.get("private_when", [True])
    wanted = wanted if isinstance(wanted, list) else [wanted]
    return row[field] in wanted or str(row[field]) in {str(w) for w in wanted}


def share_acl(rows: list[dict[str, Any]], source: SourceConfig) -> ACL:
    """Users and groups the share rows grant read access to."""
    users: list[str] = []
    groups: list[str] = []
    for row in map(as_dict, rows):
        acl = _grantee(str(row.get("UserOrGroupId") or "").strip(), source)
        users += acl.users
        groups += acl.groups
    return ACL(users=tuple(users), groups=tuple(groups))


def _grantee(who: str, source: SourceConfig) -> ACL:
    """A user (``005…``) or a group, role or queue (``00G…``, ``00E…``) as ACL entries; groups
    through ``options.sharing_groups`` (15- or 18-character keys), else ``salesforce:<id>``."""
    if not who:
        return ACL()
    if who.startswith("005"):  # Salesforce key prefix of users
        return ACL(users=(person(source, "salesforce", who) or who,))
    names = {salesforce_id18(str(k)): v for k, v in as_dict(source.options.get("sharing_groups")).items()}
    mapped = names.get(salesforce_id18(who))
    if mapped is None:
        return ACL(groups=(person(source, "salesforce", who) or who,))
    return ACL(groups=tuple([mapped] if isinstance(mapped, str) else [str(g) for g in mapped]))


def record_acl(row: dict[str, Any], sobject: str, record_id: str, source: SourceConfig,
               share_rows: list[dict[str, Any]]) -> ACL:
    """Who may read one record (see the module docstring)."""
    model = _sharing_model(source, sobject)
    by_rule = _private_by_rule(row, sobject, source)
    if model is None and by_rule is False:
        return source.default_acl
    if by_rule is None:
        return restricted(source, f"salesforce-{sobject}-rule-field-missing")
    normalized = (model or "").replace(" ", "").replace("/", "").lower()
    if by_rule is False and normalized in _OPEN:
        return source.default_acl
    if by_rule is False and normalized != "private":
        return restricted(source, f"salesforce-{sobject}-sharing-{normalized or 'undeclared'}")
    children = as_dict(row.get("Shares")).get("records")
    shares = share_acl([*share_rows, *(children if isinstance(children, list) else [])], source)
    readers = declared_acl(source.options.get("private_readers"), "options.private_readers")
    owner = str(row.get("OwnerId") or "").strip()
    if not owner:
        return union(restricted(source, f"salesforce-{sobject}-owner-missing"), readers)
    # a Lead or Case may be owned by a queue (00G…): its members, as a group
    return union(_grantee(owner, source), shares, readers)


def _record_id(row: Any) -> str | None:
    """``Id``, or the tail of ``attributes.url`` (``…/sobjects/Account/001…``) when not selected."""
    if not isinstance(row, dict):
        return None
    if row.get("Id"):
        return str(row["Id"])
    api_url = as_dict(row.get("attributes")).get("url")
    tail = api_url.rstrip("/").rsplit("/", 1)[-1] if isinstance(api_url, str) else ""
    return tail or None


def _title(row: dict[str, Any]) -> str:
    if row.get("Name"):
        return str(row["Name"])
    person = " ".join(str(row[k]) for k in ("FirstName", "LastName") if row.get(k))
    title = person or row.get("Subject") or row.get("CaseNumber")
    if not title:
        raise FieldError("Name", "record has no Name, FirstName/LastName, Subject or CaseNumber")
    return str(title)


def _is_relationship(value: Any) -> bool:
    return isinstance(value, dict) and "attributes" in value


def _fields(row: dict[str, Any]) -> dict[str, Scalar]:
    out: dict[str, Scalar] = {}
    for key, value in row.items():
        if key in _NOT_FIELDS or isinstance(value, dict | list) or value is None:
            continue
        # A lookup id is only an id; when its relationship was queried the reference says more.
        if key.endswith("Id") and _is_relationship(row.get(key[:-2])):
            continue
        if key.endswith("__c") and _is_relationship(row.get(key[:-3] + "__r")):
            continue
        if isinstance(value, str | int | float | bool):
            out[key] = value
    return out


def _relation(key: str) -> str:
    return key.removesuffix("__r").replace("_", " ").strip().lower()


def _references(row: dict[str, Any]) -> tuple[Reference, ...]:
    refs: list[Reference] = []
    for key, value in row.items():
        if key == "attributes" or not isinstance(value, dict):
            continue
        if _is_relationship(value) and value.get("Name"):
            refs.append(_ref(key, value))
        elif isinstance(value.get("records"), list):  # child subquery
            refs += [_ref(key, child) for child in map(as_dict, value["records"]) if child.get("Name")]
    return tuple(dict.fromkeys(refs))


def _ref(key: str, target: dict[str, Any]) -> Reference:
    sobject = as_dict(target.get("attributes")).get("type")
    return Reference(
        relation=_relation(key),
        target_type=entity_type(sobject) if isinstance(sobject, str) and sobject else None,
        target_name=str(target["Name"]),
    )

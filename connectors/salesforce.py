"""Salesforce REST query exports (``GET /services/data/vXX.X/query`` and ``queryAll``).

Each page of a paginated query is its own file; ``getDeleted`` responses carry no records to
compile (deletions reach the wiki as the record's absence from the next export).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any, ClassVar

from compiler.models import Reference, Scalar, SourceRecord
from compiler.slug import slugify

from ._common import FieldError, as_dict, build, decode_json, origin
from .base import RecordError, SourceConfig
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
        doc = decode_json(path, data)
        if isinstance(doc, RecordError):
            yield doc
            return
        if isinstance(doc, dict) and "deletedRecords" in doc:
            return
        if not (isinstance(doc, dict) and isinstance(doc.get("records"), list)):
            yield RecordError(path=path, message="not a Salesforce query response ({'records': [...]})")
            return
        for i, row in enumerate(doc["records"]):
            pointer = f"records[{i}]"
            label = _record_id(row) or pointer
            result = build(path, label, partial(_record, row, pointer, path, source, tenant))
            if result is not None:
                yield result


def entity_type(sobject: str) -> str:
    """What a Salesforce object describes; custom objects by their name without ``__c``."""
    return ENTITY_TYPES.get(sobject) or slugify(sobject.removesuffix("__c"))


def _record(row: Any, pointer: str, path: str, source: SourceConfig, tenant: str) -> SourceRecord | None:
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
        acl=source.default_acl,
        origin=origin(path, pointer),
    )


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

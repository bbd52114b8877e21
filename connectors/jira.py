"""Jira REST search/issue exports (``GET /rest/api/2/search``, ``/rest/api/3/search``, ``/issue/{key}``).

Record id is the numeric issue id, which survives the issue moving project (its key does not);
the key is kept as the entity name. v3 Atlassian Document Format bodies are flattened to text.

Custom fields are named by the export's ``names`` map (``expand=names``) or
``options.custom_field_names``; unnamed ones are skipped. Fields Jira keeps for its own ordering
(Rank: ``0|i000cls412:``) say nothing to a reader: the export's ``schema`` map (``expand=schema``)
names their type (``schema.custom`` ``com.pyxis.greenhopper.jira:gh-lexo-rank``); without a
schema entry a field named "Rank" is taken for one. A custom field listed in
``options.reference_fields`` becomes a reference to the entity it names, and only that (the same
value as a field too made the fact appear twice on the page).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, ClassVar

from compiler.models import ACL, Reference, Scalar, SourceRecord
from compiler.slug import slugify

from ._common import FieldError, as_dict, as_list, build_each, origin, payload_items, sorted_unique
from .base import RecordError, SourceConfig
from .privacy import declared_acl
from .timefmt import parse_timestamp
from .xhtml import header_row

_DEFAULT_REFERENCE_FIELDS = {"Customer": "account", "Account": "account"}
_NAMED_FIELDS = ("status", "priority", "issuetype", "resolution")
_PEOPLE_FIELDS = ("assignee", "reporter")
_DATE_FIELDS = ("created", "duedate", "resolutiondate")
# custom field types Jira Software keeps for ordering issues on boards, not for people
_INTERNAL_CUSTOM_TYPES = frozenset(
    {"com.pyxis.greenhopper.jira:gh-lexo-rank", "com.pyxis.greenhopper.jira:gh-global-rank"})
_INTERNAL_NAMES = frozenset({"rank", "rank (obsolete)"})
_SPACE = re.compile(r"[ \t\r\f\v\u00a0]+")
_ADF_BLOCKS = frozenset(
    {"paragraph", "heading", "blockquote", "codeBlock", "rule", "panel", "bulletList",
     "orderedList", "table", "mediaSingle", "mediaGroup", "expand", "nestedExpand",
     "taskList", "taskItem", "decisionList", "decisionItem"}
)  # fmt: skip


class JiraConnector:
    system: ClassVar[str] = "jira"
    file_suffixes: ClassVar[tuple[str, ...]] = (".json",)

    def parse(
        self, path: str, data: bytes, source: SourceConfig, tenant: str
    ) -> Iterator[SourceRecord | RecordError]:
        got = payload_items(path, data, "issues",
                            lambda d: ("", d) if "key" in d and "fields" in d else None,
                            "a Jira search response ({'issues': [...]}) or issue")
        if isinstance(got, RecordError):
            yield got
            return
        doc, items = got
        # Operator-configured names win over the export's: they are how the wiki should say it.
        names = {**_str_map(doc.get("names")), **_str_map(source.options.get("custom_field_names"))}
        internal = _internal_fields(doc.get("schema"), names)
        names = {k: v for k, v in names.items() if k not in internal}
        yield from build_each(path, items, "issue",
                              lambda issue, pointer: _record(issue, pointer, names, path, source, tenant))


def _str_map(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in as_dict(value).items() if v is not None}


def _internal_fields(schema: Any, names: dict[str, str]) -> frozenset[str]:
    """Custom fields that only order issues (Rank): by the export's field schema where it
    describes the field, else by the field's name."""
    types = {str(k): as_dict(v).get("custom") for k, v in as_dict(schema).items()}
    return frozenset(
        field for field, name in names.items()
        if (types[field] in _INTERNAL_CUSTOM_TYPES if field in types
            else name.strip().lower() in _INTERNAL_NAMES))


def _record(
    issue: Any, pointer: str, names: dict[str, str], path: str, source: SourceConfig, tenant: str
) -> SourceRecord:
    if not isinstance(issue, dict):
        raise FieldError(None, "expected an issue object")
    if issue.get("id") in (None, ""):
        raise FieldError("id", "issue has no id")
    key = issue.get("key")
    if not key:
        raise FieldError("key", "issue has no key")
    fields = issue.get("fields")
    if not isinstance(fields, dict):
        raise FieldError("fields", "issue has no fields object")
    updated = fields.get("updated")
    if not updated:
        raise FieldError("updated", "issue has no fields.updated (include it in the export's fields)")
    try:
        updated_at = parse_timestamp(updated)
    except ValueError as exc:
        raise FieldError("updated", str(exc)) from None

    summary = fields.get("summary")
    record_fields, references = _fields_and_references(fields, names, source)
    body, span_times = _body(fields)
    return SourceRecord(
        tenant=tenant,
        system=JiraConnector.system,
        instance=source.instance,
        type="issue",
        id=str(issue["id"]),
        version=str(updated),
        updated_at=updated_at,
        title=f"{key}: {summary}" if summary else str(key),
        name=str(key),
        url=_url(issue, str(key), source),
        body=body,
        span_times=span_times,
        fields=record_fields,
        references=references,
        entity_type="ticket",
        container=as_dict(fields.get("project")).get("key"),
        status=as_dict(fields.get("status")).get("name"),
        labels=sorted_unique(as_list(fields.get("labels"))),
        acl=_acl(fields, source),
        origin=origin(path, pointer),
    )


def _url(issue: dict[str, Any], key: str, source: SourceConfig) -> str | None:
    self_link = issue.get("self")
    if isinstance(self_link, str) and "/rest/api/" in self_link:
        base = self_link.split("/rest/api/", 1)[0]
    else:
        base = source.options.get("base_url")
    return f"{str(base).rstrip('/')}/browse/{key}" if base else None


def _body(fields: dict[str, Any]) -> tuple[str, tuple[tuple[int, int, datetime], ...]]:
    """Description and visible comments as text, and each comment's span with its own time
    (a claim made in a comment is as of the comment, not the issue's last update)."""
    blocks: list[tuple[str, datetime | None]] = [(_text(fields.get("description")), None)]
    comment = fields.get("comment")
    # v2 wraps comments in a page object; the v3 reference example inlines the list.
    comments = as_list(comment.get("comments")) if isinstance(comment, dict) else as_list(comment)
    for c in map(as_dict, comments):
        if c.get("visibility"):
            # Role/group-restricted comments would leak through the issue's wider ACL.
            continue
        author = as_dict(c.get("author"))
        who = author.get("displayName") or author.get("name") or "unknown"
        created = c.get("created")
        when = f" on {str(created)[:10]}" if created else ""
        text = _text(c.get("body"))
        if text:
            blocks.append((f"Comment by {who}{when}:\n{text}", _comment_time(c)))
    parts: list[str] = []
    times: list[tuple[int, int, datetime]] = []
    at = 0
    for text, stamp in blocks:
        if not text:
            continue
        if parts:
            at += 2  # the blank line between blocks
        if stamp is not None:
            times.append((at, at + len(text), stamp))
        parts.append(text)
        at += len(text)
    return "\n\n".join(parts), tuple(times)


def _comment_time(comment: dict[str, Any]) -> datetime | None:
    """When the comment said what it says: its last edit, else its creation."""
    for key in ("updated", "created"):
        if isinstance(comment.get(key), str):
            try:
                return parse_timestamp(comment[key])
            except ValueError:
                continue
    return None


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value.replace("\r\n", "\n").strip()
    if isinstance(value, dict) and value.get("type") == "doc":
        return adf_to_text(value)
    return ""


def _value(value: Any) -> Scalar:
    """The readable value of a field: scalars as-is, options/users by their value or name."""
    if isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, dict):
        if value.get("type") == "doc":
            return adf_to_text(value) or None
        for k in ("value", "name", "displayName", "key"):
            if isinstance(value.get(k), str):
                return value[k]
    return None


def _values(value: Any) -> list[Scalar]:
    items = value if isinstance(value, list) else [value]
    return [v for v in map(_value, items) if v is not None and v != ""]


def _fields_and_references(
    fields: dict[str, Any], names: dict[str, str], source: SourceConfig
) -> tuple[dict[str, Scalar], tuple[Reference, ...]]:
    out: dict[str, Scalar] = {}
    for name in _NAMED_FIELDS:
        out[name] = as_dict(fields.get(name)).get("name")
    for name in _PEOPLE_FIELDS:
        person = as_dict(fields.get(name))
        out[name] = person.get("displayName") or person.get("name")
    for name in _DATE_FIELDS:
        out[name] = fields.get(name) if isinstance(fields.get(name), str) else None
    out.update(_versions(fields.get("fixVersions"), "fixVersions"))

    refs: list[Reference] = [
        Reference(relation="component", target_type="product", target_name=str(c["name"]))
        for c in map(as_dict, as_list(fields.get("components")))
        if c.get("name")
    ]
    reference_fields = source.options.get("reference_fields", _DEFAULT_REFERENCE_FIELDS)
    for field_id in sorted(k for k in fields if k.startswith("customfield_")):
        # Unnamed custom fields are mostly Jira internals (rank, sprint ids): noise in a wiki.
        display = names.get(field_id)
        values = _values(fields[field_id])
        if not display or not values:
            continue
        if display in reference_fields:
            # the reference carries the value (and its link): a field too would state it twice
            refs += [
                Reference(relation=display.lower(), target_type=reference_fields[display], target_name=str(v))
                for v in values
            ]
        else:
            out[display] = values[0] if len(values) == 1 else ", ".join(str(v) for v in values)
    for link in map(as_dict, as_list(fields.get("issuelinks"))):
        other = as_dict(link.get("inwardIssue") or link.get("outwardIssue")).get("key")
        if other:
            refs.append(Reference(relation="linked issue", target_type="ticket", target_name=str(other)))
    return {k: v for k, v in out.items() if v is not None}, tuple(dict.fromkeys(refs))


def _versions(value: Any, field: str) -> dict[str, Scalar]:
    """A version list (``fixVersions``: ``[{name, releaseDate, released}]``) as the versions'
    names and, when every one has a release date, their dates (in the same order)."""
    versions = [v for v in map(as_dict, as_list(value)) if isinstance(v.get("name"), str) and v["name"].strip()]
    if not versions:
        return {}
    out: dict[str, Scalar] = {field: ", ".join(v["name"].strip() for v in versions)}
    dates = [str(v["releaseDate"]) for v in versions if isinstance(v.get("releaseDate"), str)]
    if dates and len(dates) == len(versions):
        out[f"{field}.releaseDate"] = ", ".join(dates)
    return out


def _acl(fields: dict[str, Any], source: SourceConfig) -> ACL:
    security = fields.get("security")
    if not security:
        return source.default_acl
    level = str(security.get("name") or security.get("id")) if isinstance(security, dict) else str(security)
    # a level maps to groups, or to {users: [atlassian:<accountId>…], groups: […]}; an unmapped
    # level is readable by the group named after it (never by the project's default readers)
    declared = source.options.get("security_groups", {}).get(level) or [slugify(level)]
    return declared_acl(declared, f"options.security_groups.{level}")


def adf_to_text(doc: dict[str, Any]) -> str:
    """Atlassian Document Format to plain text: one block per line, list items as ``- item``."""
    out: list[str] = []
    _walk(doc, out)
    lines = (_SPACE.sub(" ", line).strip() for line in "".join(out).split("\n"))
    return "\n".join(line for line in lines if line)


def _walk(node: Any, out: list[str]) -> None:
    if isinstance(node, list):
        for child in node:
            _walk(child, out)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    attrs = as_dict(node.get("attrs"))
    if kind == "text":
        out.append(str(node.get("text") or ""))
    elif kind == "hardBreak":
        out.append("\n")
    elif kind in ("mention", "status"):
        out.append(str(attrs.get("text") or ""))
    elif kind == "emoji":
        out.append(str(attrs.get("text") or attrs.get("shortName") or ""))
    elif kind == "inlineCard":
        out.append(str(attrs.get("url") or ""))
    elif kind == "date":
        out.append(_adf_date(attrs.get("timestamp")))
    elif kind == "listItem":
        inner = adf_to_text({"content": node.get("content")})
        out.append("\n- " + inner + "\n")  # nested items keep their own "- " on later lines
    elif kind == "taskItem":
        # an action item keeps its checkbox, as Confluence storage task lists do (xhtml.py)
        mark = {"DONE": "[x] ", "TODO": "[ ] "}.get(str(attrs.get("state")), "")
        inner = adf_to_text({"content": node.get("content")})
        out.append("\n- " + mark + inner + "\n")
    elif kind == "table":
        _adf_table(node, out)
    elif kind == "tableRow":
        cells = _adf_cells(node)
        row = f"{cells[0]}: {cells[1]}" if len(cells) == 2 else " | ".join(cells)
        out.append("\n" + row + "\n")
    else:
        block = kind in _ADF_BLOCKS
        out.append("\n" if block else "")
        _walk(node.get("content"), out)
        out.append("\n" if block else "")


def _adf_cells(row: Any) -> list[str]:
    return [adf_to_text({"content": as_dict(c).get("content")}).replace("\n", " ")
            for c in as_list(as_dict(row).get("content"))]


def _adf_table(node: dict[str, Any], out: list[str]) -> None:
    """A table whose first row is all header cells: its rows as ``Header: cell; …`` (the form
    Confluence tables take too); otherwise row by row as before."""
    rows = [r for r in as_list(node.get("content")) if as_dict(r).get("type") == "tableRow"]
    first = as_list(as_dict(rows[0]).get("content")) if rows else []
    if len(first) < 2 or not all(as_dict(c).get("type") == "tableHeader" for c in first):
        out.append("\n")
        _walk(node.get("content"), out)
        out.append("\n")
        return
    header = _adf_cells(rows[0])
    for row in rows[1:]:
        line = header_row(header, _adf_cells(row))
        if line:
            out.append("\n" + line + "\n")


def _adf_date(timestamp: Any) -> str:
    try:
        return datetime.fromtimestamp(int(timestamp) / 1000, UTC).date().isoformat()
    except (TypeError, ValueError, OverflowError, OSError):
        return ""

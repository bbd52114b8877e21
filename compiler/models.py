"""The domain model: every boundary of the compiler speaks these types.

Exported as JSON Schema under ``docs/schemas/`` by ``folio schemas``. Ids are digests of
content (see :mod:`compiler.canonical`), never counters.
"""

from __future__ import annotations

from datetime import datetime
from functools import cached_property
from json.encoder import encode_basestring as _encode_str  # json.dumps, ensure_ascii=False
from typing import Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    computed_field,
    field_validator,
    model_serializer,
)

from .canonical import canonical_json, sha256_hex

SCHEMA_VERSION = "1"

Scalar = str | int | float | bool | None
ClaimKind = Literal["field", "fact", "statement", "reference"]
ClaimStatus = Literal["winner", "overruled", "contested"]

_KEY_PART = r"^[^/\x00-\x1f\x7f]+$"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ACL(_Frozen):
    """Who may see a record and everything compiled from it.

    An empty ACL (not public, no users, no groups) is visible to nobody but the operator.
    ``users`` holds Folio principal names or a system's own ids (``salesforce:005…``,
    ``atlassian:<accountId>``): those resolve to principals through the directory when a
    principal is checked (docs/permissions.md). ``all_of``: further ACLs that must *also* allow
    (a Confluence page under restricted ancestors); left out of the serialised form when empty,
    so ACLs without it keep their bytes and digests.
    """

    public: bool = False
    users: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    all_of: tuple[ACL, ...] = ()

    @field_validator("users", "groups")
    @classmethod
    def _sorted_unique(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted({s.strip() for s in v if s and s.strip()}))

    @model_serializer(mode="wrap")
    def _omit_empty_all_of(self, handler: SerializerFunctionWrapHandler) -> dict:
        data = handler(self)
        if not self.all_of:
            data.pop("all_of", None)
        return data

    def allows(self, principal: Principal | None) -> bool:
        """``None`` is the operator compiling the wiki, who sees everything."""
        if principal is None:
            return True
        return self._allows_own(principal) and all(a.allows(principal) for a in self.all_of)

    def _allows_own(self, principal: Principal) -> bool:
        if self.public:
            return True
        # a name is matched only as a name: "salesforce:005…" is an identity the directory
        # grants, never something a principal can be called
        named = ":" not in principal.name and principal.name in self.users
        if named or any(i in self.users for i in principal.identities):
            return True
        return any(g in self.groups for g in principal.groups)

    @property
    def digest(self) -> str:
        return sha256_hex(canonical_json(self.model_dump(mode="json")))


class Principal(_Frozen):
    name: str
    groups: tuple[str, ...] = ()
    identities: tuple[str, ...] = Field(
        (), description="the principal's ids in each system, as ACLs name them "
        "(``salesforce:005…``, ``email:ann@example.com``); from the directory")


class Reference(_Frozen):
    """A structured pointer from a record to another entity (an Opportunity's account,
    a ticket's product component). Resolved against the entity registry at link time."""

    relation: str = Field(min_length=1)
    target_type: str | None = None
    target_name: str = Field(min_length=1)


class SourceRecord(_Frozen):
    """One immutable version of one record in a source system."""

    tenant: str = Field(pattern=_KEY_PART)
    system: str = Field(pattern=_KEY_PART)
    instance: str = Field(pattern=_KEY_PART)
    type: str = Field(pattern=_KEY_PART, description="record type in the source system")
    id: str = Field(min_length=1, pattern=r"^[^\x00-\x1f\x7f]+$")
    version: str = Field(min_length=1)
    updated_at: AwareDatetime | None = Field(
        None, description="the source system's own time for this version (Confluence "
        "version.when, Jira updated, Salesforce LastModifiedDate, HubSpot updatedAt, Zendesk "
        "updated_at, markdown front matter `updated`); None when the source gives none")
    title: str = Field(min_length=1)
    name: str | None = Field(
        None, description="name of the entity the record describes, when not its title (a ticket key)"
    )
    url: str | None = None
    body: str = Field("", description="plain text; claim spans are offsets into it")
    fields: dict[str, Scalar] = Field(default_factory=dict)
    references: tuple[Reference, ...] = ()
    entity_type: str = Field("topic", description="what the record describes: policy, account, ticket, …")
    aliases: tuple[str, ...] = ()
    container: str | None = Field(None, description="space, project or object the record lives in")
    status: str | None = None
    labels: tuple[str, ...] = ()
    acl: ACL = ACL()
    origin: str | None = Field(
        None, description="file and position it was read from; not part of its content"
    )
    span_times: tuple[tuple[int, int, AwareDatetime], ...] = Field(
        (), description="body ranges [start, end) with a time of their own (a Jira comment's): "
        "a claim quoted from inside one is as of that time, not the record's")

    @field_validator("title", "name")
    @classmethod
    def _title_has_no_control_chars(cls, v: str | None) -> str | None:
        from .slug import has_control_chars

        if v is not None and has_control_chars(v):
            raise ValueError("title contains control characters")
        return v

    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def key(self) -> str:
        return f"{self.tenant}/{self.system}/{self.instance}/{self.type}/{self.id}"

    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def sha256(self) -> str:
        """Digest of the canonical content: everything but where the record was read from."""
        content = self.model_dump(mode="json", exclude={"origin", "key", "sha256"})
        if not content["span_times"]:
            # added later: a record without any keeps the digest (and claim ids) it had
            del content["span_times"]
        return sha256_hex(canonical_json(content))

    def time_of(self, span: tuple[int, int] | None) -> datetime | None:
        """The source's time for a claim quoted from ``span``: a comment's own, else the
        record's."""
        if span is not None:
            for start, end, when in self.span_times:
                if start <= span[0] and span[1] <= end:
                    return when
        return self.updated_at

    @property
    def entity_name(self) -> str:
        return self.name or self.title

    @property
    def ref(self) -> SourceRef:
        return SourceRef(
            key=self.key,
            version=self.version,
            sha256=self.sha256,
            system=self.system,
            title=self.title,
            url=self.url,
            updated_at=self.updated_at,
        )


class SourceRef(_Frozen):
    key: str
    version: str
    sha256: str
    system: str
    title: str = ""
    url: str | None = None
    updated_at: datetime | None = None

    @property
    def label(self) -> str:
        return f"{self.key}@{self.version}"


class Entity(_Frozen):
    """A thing the wiki has a page about. ``id`` doubles as the page name."""

    id: str
    type: str
    name: str
    aliases: tuple[str, ...] = ()
    declared_by: tuple[str, ...] = Field((), description="record keys that declare it")


class Authority(_Frozen):
    rank: int
    rule: str


class Mention(_Frozen):
    """An entity named inside a claim's value: ``value[start:end]`` is the text as written."""

    entity: str
    start: int
    end: int


class Claim(_Frozen):
    """An atomic statement about an entity, with the exact source version it came from."""

    id: str
    subject: str = Field(description="entity id")
    attribute: str
    value: str
    kind: ClaimKind
    quote: str
    span: tuple[int, int] | None = Field(None, description="[start, end) in the record body")
    field: str | None = Field(None, description="source field, for structured claims")
    mentions: tuple[Mention, ...] = Field((), description="entities linked from the value")
    # the schema layer (compiler/schema, docs/schema.md). Each is left out of the claim's JSON
    # while it has its default: a claim the schema says nothing about is stored (and digested)
    # as before, and the state, sidecars and DBOMs do not grow by a hundred bytes per claim
    qualifiers: dict[str, str] = Field(
        default_factory=dict, exclude_if=lambda v: not v,
        description="qualifier → canonical value: part of the attribute's identity (a refund "
        "window for Enterprise is not the one for Standard)")
    mapped: bool = Field(False, exclude_if=lambda v: not v,
                         description="the attribute is declared in the schema")
    induced: bool = Field(False, exclude_if=lambda v: not v,
                          description="mapped by schema induction (the corpus's own evidence, "
                          "compiler/schema/induce.py), not by a declared mapping")
    value_type: str = Field("text", exclude_if=lambda v: v == "text",
                            description="the attribute's value type (text when unmapped)")
    normalized: str | None = Field(
        None, exclude_if=lambda v: v is None,
        description="the typed canonical value conflicts and search compare (facts, fields and "
        "references); the display keeps `value` as the source wrote it")
    cardinality: Literal["single", "multi"] = Field(
        "single", exclude_if=lambda v: v == "single",
        description="multi-valued attributes accumulate values and never conflict")
    stated_at: datetime | None = Field(
        None, exclude_if=lambda v: v is None,
        description="the source's own time for this claim when it differs from the record's (a "
        "Jira comment's); the recency tiebreak uses it")
    source: SourceRef
    authority: Authority
    observed_at: datetime | None = Field(
        None, description="the record's time in its source system; None when it gives none")
    acl: ACL

    @staticmethod
    def make_id(
        subject: str,
        attribute: str,
        value: str,
        kind: str,
        quote: str,
        span: tuple[int, int] | None,
        source: SourceRef,
        qualifiers: dict[str, str] | None = None,
    ) -> str:
        # the bytes content_id() would hash (a list of strings, ints and null is canonical
        # JSON without sort_keys), written out directly with the string encoder json.dumps
        # uses: one call per claim, and json.dumps's generic path cost more than the hash
        e = _encode_str
        where = f"[{int(span[0])},{int(span[1])}]" if span else "null"
        # qualifiers only when there are any: unqualified claims keep the ids they had
        quals = "".join(f",{e(k)},{e(v)}" for k, v in sorted((qualifiers or {}).items()))
        text = (f"[{e(subject)},{e(attribute)},{e(value)},{e(kind)},{e(quote)},{where},"
                f"{e(source.key)},{e(source.version)},{e(source.sha256)}{quals}]")
        return sha256_hex(text)[:16]

    @property
    def comparable(self) -> bool:
        """Only attribute/value claims are compared: sentences and references are many-valued."""
        return self.kind in ("field", "fact")

    @property
    def as_of(self) -> datetime | None:
        """The source's time for this claim (None: the source gave none)."""
        return self.stated_at or self.observed_at

    @property
    def label(self) -> str:
        """The attribute as a page shows it: ``refund window (Enterprise)``."""
        return qualified_label(self.attribute, self.qualifiers)


def qualified_label(attribute: str, qualifiers: dict[str, str]) -> str:
    if not qualifiers:
        return attribute
    return f"{attribute} ({', '.join(v for _, v in sorted(qualifiers.items()))})"


class Overruled(_Frozen):
    claim_id: str
    value: str
    source: str = Field(description="record key@version")
    rank: int
    rule: str
    reason: str


class Conflict(_Frozen):
    """Two or more values for one subject attribute, and how (or whether) it was settled."""

    id: str
    subject: str
    attribute: str
    qualifiers: dict[str, str] = Field(default_factory=dict)
    state: Literal["resolved", "open"]
    value: str | None = Field(None, description="the winning value when resolved")
    winners: tuple[str, ...] = ()
    overruled: tuple[Overruled, ...] = ()
    contested: tuple[str, ...] = Field((), description="claim ids in an open contradiction")

    @property
    def label(self) -> str:
        return qualified_label(self.attribute, self.qualifiers)


class Page(_Frozen):
    """A rendered wiki page and everything it was rendered from."""

    name: str = Field(description="<type>/<slug>, the wiki link target")
    path: str = Field(description="relative path of the markdown file")
    entity: Entity
    summary: str
    claims: tuple[Claim, ...]
    status: dict[str, ClaimStatus]
    conflicts: tuple[Conflict, ...] = ()
    sources: tuple[SourceRef, ...] = ()
    backlinks: tuple[str, ...] = ()
    sha256: str


EXPORTED_MODELS: dict[str, type[BaseModel]] = {
    "SourceRecord": SourceRecord,
    "Entity": Entity,
    "Claim": Claim,
    "Conflict": Conflict,
    "Page": Page,
    "ACL": ACL,
}

"""What ``folio lint`` reports: findings (errors and warnings), the most frequent unmapped
attributes and the induced field mappings. Its own module so that the checks living elsewhere (privacy_check.py) and the
principal's filter (views.py) build a report without importing lint.py."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Finding(BaseModel):
    severity: Literal["error", "warning"]
    code: str
    page: str | None = None
    message: str
    claims: list[str] = []
    sources: list[str] = []
    # every other page the message names (the pages a stale source supports): a principal's
    # lint keeps the finding only when each exists for them (compiler/views.py)
    pages: list[str] = []


class UnmappedAttribute(BaseModel):
    attribute: str
    claims: int
    pages: int
    example: str = Field(description="a page that states it")


class InducedMapping(BaseModel):
    """A field mapping schema induction made (compiler/schema/induce.py), with its evidence."""

    system: str
    instance: str
    record_type: str
    field: str
    entity_type: str
    attribute: str
    new_attribute: bool = Field(description="the attribute is induction's own, not declared")
    evidence: str


class LintReport(BaseModel):
    findings: list[Finding]
    unmapped: list[UnmappedAttribute] = []
    induced: list[InducedMapping] = []

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == "warning")

"""What ``folio verify`` reports: one finding per file that failed, and the pages whose sources
drifted. Its own module so that each layer of the check (verify.py, root_check.py) fills the
report without importing the other."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Code = Literal["root", "signature", "statement", "changed", "deleted", "added", "mismatch",
               "unsigned", "stale"]


class Finding(BaseModel):
    severity: Literal["error", "stale"]
    code: Code
    path: str = Field(description="wiki-relative file the finding is about")
    message: str


class SourceChange(BaseModel):
    key: str
    state: Literal["changed", "deleted"]
    compiled_version: str
    compiled_sha256: str
    current_version: str | None = None
    current_sha256: str | None = None


class StalePage(BaseModel):
    page: str
    sources: list[SourceChange]


class VerifyReport(BaseModel):
    wiki: str
    trusted: str
    pages: int = 0
    files: int = 0
    findings: list[Finding] = []
    stale: list[StalePage] = []

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    @property
    def ok(self) -> bool:
        return self.errors == 0

    def add(self, code: Code, path: str, message: str) -> None:
        self.findings.append(Finding(severity="stale" if code == "stale" else "error",
                                     code=code, path=path, message=message))

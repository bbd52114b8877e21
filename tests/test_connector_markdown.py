"""Markdown files with YAML frontmatter."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from compiler.canonical import sha256_hex
from compiler.models import ACL, Reference, SourceRecord
from connectors.base import RecordError, SourceConfig
from connectors.markdown import MarkdownConnector

PAGE = """---
id: refund-policy
title: Refund Policy
type: policy
aliases: [Refunds, Returns policy]
version: "4"
updated: 2024-05-01
status: approved
labels: [finance]
tags: billing
owner: Jane Doe
review_by: 2025-01-01
acl:
  groups: [finance, legal]
---

# Ignored heading

Refunds are issued within [[Refund Window|30 days]] via [[Payments]].
See [[Payments#Cards]] and ![[diagram.png]].
"""


def _source(**options: Any) -> SourceConfig:
    return SourceConfig(path="handbook", system="markdown", instance="handbook", options=options)


def _parse(text: str | bytes, path: str = "handbook/policies/refunds.md", source: SourceConfig | None = None) -> list[Any]:
    data = text.encode() if isinstance(text, str) else text
    return list(MarkdownConnector().parse(path, data, source or _source(), "acme"))


def _one(text: str | bytes, **kw: Any) -> SourceRecord:
    (record,) = _parse(text, **kw)
    assert isinstance(record, SourceRecord), record
    return record


def _error(text: str | bytes, **kw: Any) -> RecordError:
    (err,) = _parse(text, **kw)
    assert isinstance(err, RecordError), err
    return err


def test_frontmatter_maps_every_key() -> None:
    record = _one(PAGE)
    assert record.system == "markdown" and record.type == "doc" and record.instance == "handbook"
    assert record.id == "refund-policy" and record.version == "4"
    assert record.title == "Refund Policy" and record.entity_type == "policy"
    assert record.aliases == ("Refunds", "Returns policy")
    assert record.updated_at == datetime(2024, 5, 1, tzinfo=UTC)
    assert record.status == "approved"
    assert record.labels == ("billing", "finance")
    assert record.acl == ACL(groups=("finance", "legal"))
    assert record.container == "handbook" and record.url is None
    assert record.fields == {"owner": "Jane Doe", "review_by": "2025-01-01"}
    assert record.origin == "handbook/policies/refunds.md"


def test_wikilinks_are_replaced_by_shown_text_and_become_references() -> None:
    record = _one(PAGE)
    assert record.body == (
        "# Ignored heading\n\n"
        "Refunds are issued within 30 days via Payments.\n"
        "See Payments#Cards and ."
    )
    start = record.body.index("30 days")
    assert record.body[start : start + 7] == "30 days"
    assert record.references == (
        Reference(relation="links to", target_type=None, target_name="Refund Window"),
        Reference(relation="links to", target_type=None, target_name="Payments"),
    )


def test_defaults_without_frontmatter_except_updated() -> None:
    text = "---\nupdated: 2024-05-01T10:00:00+02:00\n---\nIntro line\n\n```\n# not a heading\n```\n# Shipping   Guide ##\n"
    data = text.encode()
    record = _one(data, path="docs/ship.md", source=_source(default_type="process"))
    assert record.id == "ship"
    assert record.title == "Shipping Guide"
    assert record.entity_type == "process"
    assert record.version == sha256_hex(data)[:12]
    assert record.updated_at == datetime(2024, 5, 1, 10, tzinfo=timezone(timedelta(hours=2)))
    assert record.acl == ACL(groups=("staff",))
    assert record.labels == () and record.aliases == () and record.status is None


def test_title_falls_back_to_file_stem() -> None:
    record = _one("---\nupdated: 2024-01-01\n---\nno heading here\n", path="a/b/onboarding.markdown")
    assert record.title == "onboarding" and record.id == "onboarding"
    assert record.entity_type == "topic"


def test_note_without_updated_compiles_undated() -> None:
    """Issue 20: a note without ``updated`` is compiled with no timestamp, not rejected."""
    record = _one("# Title\n\nbody\n", path="notes/x.md")
    assert (record.id, record.title, record.updated_at) == ("x", "Title", None)
    record = _one("---\ntitle: X\nupdated:\n---\nbody\n")
    assert record.updated_at is None and record.body == "body"


def test_bad_updated_values_are_errors() -> None:
    assert _error("---\nupdated: soon\n---\n").field == "updated"
    assert _error("---\nupdated: [2024]\n---\n").field == "updated"


def test_invalid_yaml_is_a_frontmatter_error_with_line() -> None:
    err = _error("---\ntitle: ok\nupdated: 2024-01-01\nbad: [unclosed\n---\nbody\n", path="x/broken.md")
    assert err.path == "x/broken.md" and err.field == "frontmatter"
    assert "invalid YAML" in err.message and "line" in err.message


def test_unterminated_and_non_mapping_frontmatter() -> None:
    assert "never closed" in _error("---\ntitle: x\nbody without a fence\n").message
    err = _error("---\n- a\n- b\n---\nbody\n")
    assert err.field == "frontmatter" and "mapping" in err.message


def test_horizontal_rule_at_top_is_not_frontmatter() -> None:
    record = _one("-----\nbody\n")  # a rule, not a fence: all of it is body
    assert record.body == "-----\nbody" and record.updated_at is None


def test_invalid_acl_is_an_acl_error() -> None:
    err = _error("---\nupdated: 2024-01-01\nacl: {groups: [a], admins: [b]}\n---\n")
    assert err.field is not None and err.field.startswith("acl")


def test_control_characters_in_title_are_a_title_error() -> None:
    err = _error('---\nupdated: 2024-01-01\ntitle: "bad\\x07"\n---\n', path="t/ctl.md")
    assert (err.record, err.field) == ("ctl", "title")


def test_path_like_title_is_accepted() -> None:
    record = _one('---\nupdated: 2024-01-01\ntitle: "../../etc/passwd"\n---\n')
    assert record.title == "../../etc/passwd"


def test_invalid_utf8_is_an_error() -> None:
    err = _error(b"---\nupdated: 2024-01-01\n---\ncaf\xe9\n")
    assert "UTF-8" in err.message


def test_crlf_and_lf_files_are_the_same_record() -> None:
    lf = _one(PAGE)
    crlf = _one(PAGE.replace("\n", "\r\n"))
    assert crlf.body == lf.body
    assert crlf.sha256 == lf.sha256  # explicit version: line endings do not matter


def test_sha256_stable_ignores_origin_and_tracks_body() -> None:
    a = _one(PAGE, path="one.md")
    b = _one(PAGE, path="two.md")
    assert a.origin != b.origin and a.sha256 == b.sha256
    c = _one(PAGE.replace("30 days", "14 days"))
    assert c.sha256 != a.sha256

"""Fuzzing every parser and the renderer (issue 23, case 6) with hypothesis.

Each target has a fixed example budget (``max_examples``, no deadline): together they run in
well under a minute on the 2-core development machine. Properties:

- parsers (YAML loader, markdown front matter, each connector's export parser, change-event
  decoding, sources/authority/directory files): a result or a clean rejection (the error type
  the caller handles, naming the file/record), never another exception, and bounded memory;
- the renderer: the page's front matter parses, no raw HTML reaches a Markdown renderer, no
  link outside http(s)/mailto, no image, and wikilinks are balanced and point at page ids.
"""

from __future__ import annotations

import json
import os
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler import safe_yaml
from compiler.directory import DirectoryError, load_directory
from compiler.models import ACL, Authority, Claim, Entity, Mention, SourceRef
from compiler.policy import load_policy
from compiler.render import index_entry, render_log, render_page
from compiler.resolve import resolve
from connectors.base import ExtractedRecord, RecordError, SourceConfig
from connectors.events import EventError, WireMessage, decode
from connectors.loader import ManifestError, load_manifest
from connectors.registry import CONNECTORS, get_connector
from compiler.models import SourceRecord
from test_hostile import assert_inert

FIXTURES = Path(__file__).parent / "fixtures"
ACME = Path(__file__).resolve().parents[1] / "examples" / "acme"
MAX_PEAK_BYTES = 64 * 1024 * 1024  # per example; a bomb would take gigabytes

# examples per target: the CI budget (~15 s for every target together on 2 cores);
# FOLIO_FUZZ_SCALE=10 runs ten times as many (a longer local hunt)
SCALE = float(os.environ.get("FOLIO_FUZZ_SCALE", "1"))
BUDGET = settings(max_examples=int(150 * SCALE), deadline=None, derandomize=SCALE == 1,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                         HealthCheck.function_scoped_fixture])
SMALL = settings(BUDGET, max_examples=int(80 * SCALE))

HOSTILE = ["<script>alert(1)</script>", "<iframe src=//e>", "<img src=x onerror=alert(1)>",
           "<!-- c -->", "&lt;b&gt;", "&amp;", "[[", "]]", "[x](javascript:alert(1))",
           "![i](https://e.example/p.png)", "|", "\\", "`", "---", "\n", "#", "*", "&a", "*a",
           "!!python/object:os.system", "%%", "==", "<https://e>", "javascript:", "\x00", "\u202e"]
hostile_text = st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(max_size=12)),
                        max_size=12).map("".join)


def bounded(fn, *args):  # type: ignore[no-untyped-def]
    """Run ``fn`` and check its peak allocation."""
    tracemalloc.start()
    try:
        return fn(*args)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < MAX_PEAK_BYTES, f"{fn.__name__} peaked at {peak:,} bytes"


# -- YAML ---------------------------------------------------------------------------------------

def _alias_doc(levels: int, width: int) -> str:
    lines = [f"l0: &l0 [{','.join(['x'] * width)}]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [{','.join([f'*l{i - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


yaml_docs = st.one_of(
    st.text(max_size=300),
    hostile_text,
    st.builds(_alias_doc, st.integers(1, 12), st.integers(1, 12)),
    st.integers(1, 300).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 300).map(lambda n: "a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(n))),
)


@BUDGET
@given(yaml_docs)
def test_fuzz_yaml_loader(text: str) -> None:
    try:
        bounded(safe_yaml.load, text)
    except yaml.YAMLError:
        pass


# -- markdown front matter and the connectors' export parsers ------------------------------

def _source(system: str) -> SourceConfig:
    return SourceConfig(path="x", system=system, instance="inst", default_acl=ACL(public=True),
                        options={"base_url": "https://e.example", "instance_url": "https://e.example"})


def _parse(system: str, path: str, data: bytes) -> None:
    for item in get_connector(system).parse(path, data, _source(system), "t"):
        assert isinstance(item, SourceRecord | RecordError | ExtractedRecord), item
        if isinstance(item, RecordError):
            assert item.path == path and item.message


front_matter = st.builds(
    lambda meta, body: f"---\n{meta}\n---\n{body}",
    st.one_of(yaml_docs, st.just("updated: 2026-11-01\ntitle: T"),
              hostile_text.map(lambda t: f"updated: 2026-11-01\ntitle: {json.dumps(t)}")),
    hostile_text)


@BUDGET
@given(st.one_of(front_matter, hostile_text, st.binary(max_size=200).map(
    lambda b: b.decode("latin-1"))))
def test_fuzz_markdown_connector(text: str) -> None:
    bounded(_parse, "markdown", "handbook/doc.md", text.encode("utf-8", "surrogatepass"))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | hostile_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)

SAMPLES = {
    "confluence": [ACME / "confluence" / "pol.json", FIXTURES / "confluence_content_list_v1.json"],
    "jira": [FIXTURES / "jira_search_v2.json"],
    "salesforce": [FIXTURES / "query_paginated_first_page_response.json"],
    "zendesk": [FIXTURES / "zendesk_incremental_tickets_cursor.json"],
    "hubspot": [FIXTURES / "hubspot_companies_page_1.json"],
}


def _paths(doc: object, prefix: tuple = ()) -> list[tuple]:  # type: ignore[type-arg]
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:3]):
            out += _paths(v, (*prefix, i))
    return out


def _mutate(doc: object, path: tuple, value: object) -> object:  # type: ignore[type-arg]
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(doc, dict):
        return {**doc, head: _mutate(doc[head], rest, value)}
    assert isinstance(doc, list)
    return [_mutate(v, rest, value) if i == head else v for i, v in enumerate(doc)]


@pytest.mark.parametrize("system", sorted(SAMPLES))
@SMALL
@given(data=st.data())
def test_fuzz_export_parsers(system: str, data: st.DataObject) -> None:
    sample = data.draw(st.sampled_from(SAMPLES[system]))
    doc = json.loads(sample.read_text())
    paths = _paths(doc)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        doc = _mutate(doc, path, data.draw(json_values))
        paths = _paths(doc)
    raw = json.dumps(doc).encode()
    if data.draw(st.booleans()):  # truncated or with garbage
        raw = raw[: data.draw(st.integers(0, len(raw)))] + data.draw(st.binary(max_size=8))
    bounded(_parse, system, f"{system}/export.json", raw)


@pytest.mark.parametrize("system", sorted(set(CONNECTORS) - set(SAMPLES) - {"markdown"}))
@SMALL
@given(st.one_of(st.binary(max_size=300), json_values.map(lambda v: json.dumps(v).encode()),
                 st.integers(1, 20_000).map(lambda n: b"[" * n)),
       st.sampled_from(["x.json", "shard-0000.jsonl", "manifest.json"]))
def test_fuzz_other_parsers_on_garbage(system: str, raw: bytes, name: str) -> None:
    bounded(_parse, system, f"{system}/{name}", raw)


# -- change events ------------------------------------------------------------------------------

headers = st.lists(st.tuples(
    st.sampled_from(["ce_specversion", "ce_id", "ce_source", "ce_type", "ce_subject", "ce_time",
                     "content-type", "x"]),
    st.one_of(st.sampled_from([b"1.0", b"application/json", b"2026-11-01T00:00:00Z"]),
              st.binary(max_size=20))), max_size=8).map(tuple)


VALID_HEADERS = (("ce_specversion", b"1.0"), ("ce_id", b"t/jira/i/issue/1@1"),
                 ("ce_source", b"s"), ("ce_type", b"t"), ("ce_subject", b"t/jira/i/issue/1"),
                 ("ce_time", b"2026-11-01T00:00:00Z"), ("content-type", b"application/json"))


@BUDGET
@given(st.one_of(st.just(b"t/jira/i/issue/1"), st.none(), st.binary(max_size=40)),
       st.one_of(st.none(), st.binary(max_size=200),
                 json_values.map(lambda v: json.dumps(v).encode()),
                 st.just(b'{"op":"c","after":null,"after_ref":{"sha256":"00","size":1}}'),
                 st.integers(1, 20_000).map(lambda n: b"[" * n + b"]" * n),
                 st.integers(1, 20_000).map(lambda n: b'{"after":' * n + b"1" + b"}" * n)),
       st.one_of(headers, st.just(VALID_HEADERS)))
def test_fuzz_event_decode(key: bytes | None, value: bytes | None, hdrs: tuple) -> None:  # type: ignore[type-arg]
    try:
        bounded(decode, WireMessage(key=key, value=value, headers=hdrs))
    except EventError as exc:
        assert exc.reason


# -- corpus configuration files -----------------------------------------------------------------

@SMALL
@given(st.one_of(yaml_docs, json_values.map(lambda v: yaml.safe_dump(v))))
def test_fuzz_corpus_files(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    root = tmp_path_factory.mktemp("corpus")
    for name in ("sources.yaml", "authority.yaml", "directory.yaml"):
        (root / name).write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        bounded(load_manifest, root)
    except ManifestError as exc:
        assert "sources.yaml" in str(exc)
    try:
        bounded(load_policy, root / "authority.yaml")
    except ValueError as exc:
        assert "authority.yaml" in str(exc)
    try:
        bounded(load_directory, root / "directory.yaml")
    except DirectoryError as exc:
        assert "directory.yaml" in str(exc)


# -- the renderer -------------------------------------------------------------------------------

T0 = datetime(2026, 11, 1, tzinfo=UTC)


@st.composite
def pages(draw: st.DrawFn) -> tuple:  # type: ignore[type-arg]
    name = draw(hostile_text.filter(lambda s: s.strip()))
    entity = Entity(id="topic/x", type="topic", name=name,
                    aliases=tuple(draw(st.lists(hostile_text, max_size=2))))
    claims = []
    for i in range(draw(st.integers(1, 5))):
        value = draw(hostile_text.filter(lambda s: s.strip()))
        src = SourceRef(key=f"t/s/i/doc/{i}", version="1", sha256="ab" * 32, system="s",
                        title=draw(hostile_text), url=draw(st.one_of(
                            st.none(), hostile_text, st.sampled_from(
                                ["javascript:alert(1)", "https://e.example/a b)(", "mailto:a@b",
                                 "data:text/html,<script>", "//e.example"]))))
        mentions = ()
        if draw(st.booleans()) and len(value) > 1:
            start = draw(st.integers(0, len(value) - 1))
            end = draw(st.integers(start + 1, len(value)))
            target = draw(st.sampled_from(["topic/y", "../../etc", "<x>"]))
            mentions = (Mention(entity=target, start=start, end=end),)
        kind = draw(st.sampled_from(["field", "statement"]))
        attribute = draw(hostile_text) or "a"
        claims.append(Claim(
            id=f"c{i}", subject="topic/x", attribute=attribute, value=value, kind=kind,
            quote=value, span=(0, len(value)) if kind == "statement" else None,
            mentions=mentions, source=src,
            authority=Authority(rank=draw(st.integers(0, 3)), rule=draw(hostile_text) or "r"),
            observed_at=T0, acl=ACL(public=True)))
    backlinks = [("topic/z", draw(hostile_text))]
    return entity, claims, backlinks


@SMALL
@given(pages())
def test_fuzz_renderer_output_is_well_formed_and_inert(page: tuple) -> None:  # type: ignore[type-arg]
    entity, claims, backlinks = page
    status, conflicts = resolve(claims, lambda rule: "none")
    markdown, summary, _, _ = bounded(render_page, entity, claims, status, conflicts, backlinks)
    assert_inert(markdown, "page")
    meta = yaml.safe_load(markdown[4:markdown.index("\n---\n", 4)])
    assert meta["title"] == entity.name.replace("<", "&lt;").replace(">", "&gt;")
    _, line = index_entry(entity.id, entity.name, summary)
    log = render_log([("2026-11-01", "compile", entity.name, f"- updated [[{entity.id}]]")])
    assert_inert(f"# Index\n\n{line}\n", "index line")
    assert_inert(log, "log")

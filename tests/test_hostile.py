"""Hostile input (issue 23): YAML bombs, live markup in sources, files smuggled past verify,
oversize inline events. Each test names the numbered case of the issue it covers."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest
import yaml
from markdown_it import MarkdownIt

from compiler.build import CompileError, compile_wiki
from compiler.provenance.verify import trust_from, verify_wiki
from compiler.settings import FolioSettings
from connectors.bus.base import DLQ_REASON_HEADER, Topics
from connectors.bus.memory import InProcessBus
from pipelines.consumer import SiteConsumer
from connectors.events import encode, record_event
from connectors.site_corpus import SiteCorpus
from conftest import ACME, TODAY
from eventdata import kafka_settings, ticket

MANIFEST = """\
tenant: t
sources:
  - {path: handbook, system: markdown, instance: handbook, default_acl: {public: true}}
"""


def bomb(levels: int) -> str:
    """The billion-laughs front matter: ``levels`` levels of nine aliases each."""
    names = "abcdefghijklmnopqrstuvwxyz"
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        prev, cur = names[i - 1], names[i]
        lines.append(f"{cur}: &{cur} [{','.join(['*' + prev] * 9)}]")
    return "\n".join(lines) + "\n"


def _corpus(tmp_path: Path, files: dict[str, str], manifest: str = MANIFEST) -> Path:
    src = tmp_path / "src"
    (src / "handbook").mkdir(parents=True)
    (src / "sources.yaml").write_text(manifest)
    for name, text in files.items():
        (src / "handbook" / name).write_text(text)
    return src


GOOD = "---\ntitle: Night Shift\nupdated: 2026-11-01\n---\nThe night shift hands over at 06:00.\n"


# -- 1. YAML alias bombs and record size --------------------------------------------------------

def test_case1_alias_bomb_in_front_matter_is_refused_naming_file_and_record(tmp_path: Path) -> None:
    # six levels (531,441 scalars) compile in seconds on the old loader, so this test shows the
    # old behaviour failing without taking the machine down; nine levels are below
    src = _corpus(tmp_path, {"bomb.md": f"---\n{bomb(6)}updated: 2026-11-01\n---\n# Bomb\n",
                             "good.md": GOOD})
    report = compile_wiki(src, tmp_path / "wiki", today=TODAY)
    (err,) = report.errors
    assert err.path == "handbook/bomb.md" and err.record == "bomb" and err.field == "frontmatter"
    assert "FOLIO_YAML_MAX_NODES" in err.message and "before expansion" in err.message
    assert (tmp_path / "wiki" / "process").exists() or list((tmp_path / "wiki").glob("*/night*"))


def test_case1_nine_level_bomb_is_refused_before_expansion() -> None:
    from compiler import safe_yaml

    text = bomb(9)
    assert len(text.encode()) < 600  # the 413-byte file, give or take key names
    with pytest.raises(safe_yaml.YamlLimitError, match="FOLIO_YAML_MAX_NODES"):
        safe_yaml.load(text)
    # a recursive alias and deep nesting are refused too, each by its own limit
    with pytest.raises(yaml.YAMLError):
        safe_yaml.load("a: &a [1, *a]\n")
    with pytest.raises(safe_yaml.YamlLimitError, match="FOLIO_YAML_MAX_DEPTH"):
        safe_yaml.load("[" * 10_000 + "]" * 10_000)
    with pytest.raises(safe_yaml.YamlLimitError, match="FOLIO_YAML_MAX_EXPANDED_BYTES"):
        safe_yaml.load("a: &a " + "x" * 5000 + "\nb: [" + ",".join(["*a"] * 200) + "]\n",
                       safe_yaml.YamlLimits(max_expanded_bytes=100_000))
    # ordinary YAML, aliases included, loads as before
    assert safe_yaml.load("base: &b {x: 1}\nother: *b\n") == {"base": {"x": 1}, "other": {"x": 1}}


def test_case1_limits_are_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler import safe_yaml

    monkeypatch.setenv("FOLIO_YAML_MAX_NODES", "10")
    with pytest.raises(safe_yaml.YamlLimitError, match="10 nodes"):
        safe_yaml.load("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]")
    monkeypatch.delenv("FOLIO_YAML_MAX_NODES")
    assert len(safe_yaml.load("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]")) == 12


@pytest.mark.parametrize("name", ["sources.yaml", "authority.yaml", "directory.yaml"])
def test_case1_alias_bomb_in_a_corpus_file_fails_the_compile_naming_it(
        tmp_path: Path, name: str) -> None:
    src = _corpus(tmp_path, {"good.md": GOOD})
    path = src / name
    base = path.read_text() if path.exists() else ""
    path.write_text(base + "bomb:\n" + "".join("  " + line + "\n" for line in bomb(7).splitlines()))
    with pytest.raises(CompileError, match=re.escape(name)) as exc:
        compile_wiki(src, tmp_path / "wiki", today=TODAY)
    assert "FOLIO_YAML_MAX_NODES" in str(exc.value)


def test_case1_oversized_record_text_is_rejected_naming_file_and_record(tmp_path: Path) -> None:
    big = "---\ntitle: Big\nupdated: 2026-11-01\n---\n" + "Words and more words. " * 5_000
    src = _corpus(tmp_path, {"big.md": big, "good.md": GOOD})
    report = compile_wiki(src, tmp_path / "wiki", FolioSettings(max_record_text_bytes=50_000),
                          today=TODAY)
    (err,) = report.errors
    assert (err.path, err.record, err.field) == ("handbook/big.md", "big", "text")
    assert "FOLIO_MAX_RECORD_TEXT_BYTES" in err.message and "50,000" in err.message
    assert report.pages_total >= 1  # the rest compiled


# -- 2. source text renders inert -------------------------------------------------------------

# http(s)/mailto, or a page file the compiler links from index.md (compiler.sanitize.page_href)
_ALLOWED_HREF = re.compile(r"^(https?://|mailto:)|^[a-z0-9-]{1,32}/[a-z0-9-]{1,100}\.md$", re.I)
_MD = MarkdownIt("commonmark", {"html": True}).enable("table")
_WIKILINK = re.compile(r"(?<!\\)\[\[([^\]]*)\]\]")


def assert_inert(text: str, where: str) -> None:
    """No live HTML, no link outside http(s)/mailto and page files, no image, no wikilink to anything but a
    page id, the front matter YAML; the Markdown as a browser-bound renderer sees it."""
    body = text
    if text.startswith("---\n"):
        end = text.index("\n---\n", 4)
        meta = yaml.safe_load(text[4:end])
        assert isinstance(meta, dict), where
        assert "<" not in json.dumps(meta), where  # no tag even for a template printing raw
        body = text[end + 5:]

    def walk(tokens):  # type: ignore[no-untyped-def]
        for tok in tokens:
            assert tok.type not in ("html_inline", "html_block"), (where, tok.content)
            assert tok.type != "image", (where, tok.attrs)
            if tok.type == "link_open":
                assert _ALLOWED_HREF.match(str(tok.attrs.get("href", ""))), (where, tok.attrs)
            if tok.children:
                walk(tok.children)

    walk(_MD.parse(body))
    html = _MD.render(body)
    assert "<script" not in html and "<iframe" not in html and "<img" not in html, where
    assert "<!--" not in html, where
    prose = re.sub(r"(?<!\\)`[^`]*`", "", body)  # code spans show their text literally
    # what is left once escaped characters are taken out (a table's alias bar stays)
    live = re.sub(r"\\[^|]", "", prose)
    for target in _WIKILINK.findall(live):
        assert re.fullmatch(r"[a-z0-9-]+/[a-z0-9-]+(\\?\|.*)?", target), (where, target)
    assert live.count("[[") == live.count("]]"), where
    assert "$" not in live, where  # Obsidian would render $…$ as math


HOSTILE_MD = """\
---
title: "<script>alert(1)</script> Returns"
updated: 2026-11-01
---
The return window is 30 days <iframe src="https://evil.example/x"></iframe> and see [x](javascript:alert(7)) or ![p](https://evil.example/pixel.png) <!-- hidden --> &lt;b&gt; [[../../etc/passwd]].

The restocking fee is 15% <img src=x onerror=alert(3)> $\\href{javascript:alert(5)}{x}$.
"""


def test_case2_markup_from_sources_renders_as_text(tmp_path: Path) -> None:
    src = tmp_path / "acme"
    shutil.copytree(ACME, src)
    pol = src / "confluence" / "pol.json"
    data = json.loads(pol.read_text())
    page = data["results"][0]
    page["title"] = "<script>alert(1)</script>Return Policy"
    page["body"]["storage"]["value"] = (
        "<p>&lt;script&gt;alert(2)&lt;/script&gt; The return window for Enterprise customers is "
        "60 days &lt;img src=x onerror=alert(3)&gt;.</p>" + page["body"]["storage"]["value"])
    page["_links"]["webui"] = "javascript:alert(4)//"
    pol.write_text(json.dumps(data))
    (src / "handbook" / "hostile.md").write_text(HOSTILE_MD)
    wiki = tmp_path / "wiki"
    report = compile_wiki(src, wiki, today=TODAY)
    assert report.pages_total > 0
    rendered = {p.relative_to(wiki).as_posix(): p.read_text() for p in wiki.rglob("*.md")
                if ".folio" not in p.parts}
    assert {"index.md", "log.md", "SCHEMA.md"} <= rendered.keys()
    for rel, text in rendered.items():
        assert_inert(text, rel)
    everything = "\n".join(rendered.values())
    # the hostile text is still there, as text a reader sees
    shown = _MD.render(everything)
    for visible in ("&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;script&gt;alert(2)",
                    "&lt;img src=x onerror=alert(3)&gt;", "javascript:alert(7)"):
        assert visible in shown, visible
    assert "javascript:alert(4)" not in everything.replace("\\", "")  # a source URL not linked
    assert not re.search(r"(?<!\\)\]\(javascript", everything)


# -- 4. verify sees every file ----------------------------------------------------------------

@pytest.fixture
def fresh_wiki(tmp_path: Path, acme_wiki: Path) -> Path:
    wiki = tmp_path / "wiki"
    shutil.copytree(acme_wiki, wiki, symlinks=True)
    assert verify_wiki(wiki, trust_from(FolioSettings())).ok
    return wiki


@pytest.mark.parametrize("rel", ["policy/.hidden.md", ".evil/x.md", ".stray", "policy/.x/y.md"])
def test_case4_unsigned_dot_files_fail_verify(fresh_wiki: Path, rel: str) -> None:
    path = fresh_wiki / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# Unsigned\n\nNot compiled by anyone.\n")
    report = verify_wiki(fresh_wiki, trust_from(FolioSettings()))
    assert not report.ok
    assert {f.path for f in report.findings} == {rel}


def test_case4_symlinked_folder_and_file_fail_verify(fresh_wiki: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "planted.md").write_text("# Planted\n")
    (fresh_wiki / "linked").symlink_to(outside, target_is_directory=True)
    (fresh_wiki / "policy" / "alias.md").symlink_to(outside / "planted.md")
    report = verify_wiki(fresh_wiki, trust_from(FolioSettings()))
    assert sorted(f.path for f in report.findings) == ["linked", "policy/alias.md"]
    assert all("symbolic link" in f.message for f in report.findings)


def test_case4_operator_state_is_not_part_of_the_wiki(fresh_wiki: Path) -> None:
    (fresh_wiki / ".folio" / "notes.txt").write_text("operator scratch")
    (fresh_wiki / ".answers").mkdir(exist_ok=True)
    (fresh_wiki / ".answers" / "0123abcd.json").write_text("{}")  # checked by folio audit
    assert verify_wiki(fresh_wiki, trust_from(FolioSettings())).ok
    # but the answers folder holds answer records only
    (fresh_wiki / ".answers" / "page.md").write_text("# Hidden page\n")
    report = verify_wiki(fresh_wiki, trust_from(FolioSettings()))
    assert [f.path for f in report.findings] == [".answers/page.md"]


# -- 5. oversize inline events ----------------------------------------------------------------

def test_case5_oversize_inline_event_is_dead_lettered_never_compiled(tmp_path: Path) -> None:
    bus = InProcessBus(Topics("folio", "acme"), partitions=3)
    settings = kafka_settings("unused")
    consumer = SiteConsumer(bus.subscribe("emea", ["jira"]), SiteCorpus(tmp_path / "corpus", "acme"),
                            tmp_path / "wiki", settings)
    big = ticket("acme", 1)
    big = big.model_copy(update={"body": "Pump 1 fails. " + "x" * (3 * 1024 * 1024)})
    # a producer that ignores the limit: the encoder is told the limit is higher
    (msg,) = encode(record_event(big, "c"), max_body_bytes=10 * 1024 * 1024)
    assert len(msg.value or b"") > 3 * 1024 * 1024
    bus.publish("jira", [msg] + encode(record_event(ticket("acme", 2), "c")))
    report = consumer.run_once(wait_s=0)
    assert report is not None and report.dead_lettered == 1
    assert not (tmp_path / "wiki" / "ticket" / "ops-1.md").exists()
    assert (tmp_path / "wiki" / "ticket" / "ops-2.md").exists()
    (dead,) = bus.messages("folio.acme.deadletter")
    reason = dead.header(DLQ_REASON_HEADER) or ""
    assert "FOLIO_EVENTS_MAX_BODY_BYTES" in reason and "claim check" in reason


def test_case5_the_producer_sends_large_records_by_claim_check(tmp_path: Path) -> None:
    from connectors.events import FolderClaimCheckStore, decode

    big = ticket("acme", 1).model_copy(update={"body": "y" * (3 * 1024 * 1024)})
    store = FolderClaimCheckStore(tmp_path / "checks")
    (msg,) = encode(record_event(big, "c"), claim_checks=store)
    assert len(msg.value or b"") < 4096
    event = decode(msg, claim_checks=store)
    assert event.record is not None and event.record.body == big.body


def test_case5_oversize_inline_event_through_a_real_broker(tansu, tmp_path: Path) -> None:
    """The same over Kafka (Tansu): the 3 MB event is dead-lettered with its reason (its value
    not copied: no producer could send it) and the consumer moves on to the next event."""
    from confluent_kafka import Consumer as CKConsumer
    from confluent_kafka import Producer as CKProducer
    from confluent_kafka import TopicPartition as CKTopicPartition

    from brokers import fresh
    from connectors.bus.base import DLQ_OMITTED_HEADER
    from connectors.bus.kafka import KafkaBus

    tenant, site = fresh("t"), fresh("emea")
    settings = kafka_settings(tansu.bootstrap)
    topics = Topics("folio", tenant)
    bus = KafkaBus(settings.events, topics)
    bus.ensure_topics(["jira"])
    big = ticket(tenant, 1).model_copy(update={"body": "Pump 1 fails. " + "x" * (3 * 1024 * 1024)})
    (msg,) = encode(record_event(big, "c"), max_body_bytes=10 * 1024 * 1024)
    (small,) = encode(record_event(ticket(tenant, 2), "c"))
    producer = CKProducer({"bootstrap.servers": tansu.bootstrap, "message.max.bytes": 8 << 20})
    for m in (msg, small):
        producer.produce(topics.state("jira"), key=m.key, value=m.value, headers=list(m.headers))
    assert producer.flush(20) == 0
    del producer

    wiki = tmp_path / "wiki"
    sub = bus.subscribe(site, ["jira"])
    consumer = SiteConsumer(sub, SiteCorpus(tmp_path / "corpus", tenant), wiki, settings)
    deadline = time.monotonic() + 60
    while not (wiki / "ticket" / "ops-2.md").exists():
        assert time.monotonic() < deadline, "the consumer did not get past the oversize event"
        consumer.run_once(wait_s=0.5)
    assert not (wiki / "ticket" / "ops-1.md").exists()
    sub.close()
    bus.close()

    dlq = CKConsumer({"bootstrap.servers": tansu.bootstrap, "group.id": fresh("dlq-reader"),
                      "enable.auto.commit": False})
    dlq.assign([CKTopicPartition(topics.dead_letter(), p, 0) for p in range(3)])
    got = None
    deadline = time.monotonic() + 20
    while got is None and time.monotonic() < deadline:
        m = dlq.poll(0.5)
        if m is not None and m.error() is None:
            got = m
    dlq.close()
    assert got is not None
    headers = {k: v.decode() for k, v in got.headers()}
    assert "FOLIO_EVENTS_MAX_BODY_BYTES" in headers[DLQ_REASON_HEADER]
    assert int(headers[DLQ_OMITTED_HEADER]) == len(msg.value or b"")


@pytest.mark.parametrize("value", [b"[" * 5_000 + b"]" * 5_000, b'{"after":' * 5_000 + b"1" + b"}" * 5_000])
def test_case5_deeply_nested_event_is_a_clean_rejection(value: bytes) -> None:
    """A few KiB of nesting overflowed the JSON decoder's stack: a RecursionError, which the
    consumer did not catch, instead of a dead-lettered event."""
    from connectors.events import EventError, WireMessage, decode

    (good,) = encode(record_event(ticket("acme", 1), "c"))
    with pytest.raises(EventError, match="nests too deeply"):
        decode(WireMessage(good.key, value, good.headers))

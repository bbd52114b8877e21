"""Bad input (scope point 10): each rejected input is named, the rest compiles, nothing is
written outside the wiki, and a crash mid-compile never leaves a half-updated wiki."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compiler.build import compile_wiki
from compiler.provenance.reproducible import reproducible_files
from compiler.cli import EXIT_REJECTED
from pipelines.folio_cli import app
from conftest import ACME, TODAY, flat, strip_ansi

MAX_BYTES = 50_000

SOURCES = """\
tenant: bad
sources:
  - {path: confluence, system: confluence, instance: wiki.example, default_acl: {public: true}}
  - {path: jira, system: jira, instance: jira.example, default_acl: {public: true}}
  - {path: handbook, system: markdown, instance: handbook, default_acl: {public: true}}
  - {path: sharepoint, system: sharepoint, instance: sp}
"""

GOOD_MD = """\
---
title: Night Shift Runbook
type: process
updated: 2026-11-01
---
The night shift hands over at 06:00.
"""
EVIL_MD = """\
---
title: ../../etc/passwd
updated: 2026-11-01
---
root:x:0:0:root:/root:/bin/bash
"""
CTRL_MD = """\
---
title: "Bell\\x07Title"
updated: 2026-11-01
---
Ringing.
"""

# (file, record label or None, words the message must contain)
EXPECTED_ERRORS = [
    ("sources.yaml", "sources[3]", "sharepoint"),
    ("confluence/broken.json", None, "invalid JSON"),
    ("confluence/blob.json", None, "binary"),
    ("handbook/huge.md", None, "FOLIO_MAX_FILE_BYTES"),
    ("handbook/ctrl.md", "ctrl", "control characters"),
    ("jira/no-id.json", "issues[0]", "no id"),
]

GOOD_PAGES = [
    "process/night-shift-runbook",  # handbook/good.md
    "product/acme-cloud",           # confluence/good.json (page 44001)
    "product/acme-edge",            # confluence/good.json (page 44002)
    "topic/pricing",                # confluence/good.json (page 44003)
    "ticket/sup-102",               # jira/good.json
    "ticket/sup-87",                # jira/good.json
]


def _make_bad_corpus(root: Path) -> Path:
    src = root / "corpus"
    for d in ("confluence", "jira", "handbook", "sharepoint"):
        (src / d).mkdir(parents=True)
    (src / "sources.yaml").write_text(SOURCES, encoding="utf-8")
    shutil.copy(ACME / "confluence" / "prod.json", src / "confluence" / "good.json")
    (src / "confluence" / "broken.json").write_text('{"results": [ {"id": "1", ', encoding="utf-8")
    (src / "confluence" / "blob.json").write_bytes(b'{"results": [\x00\x00\x01\x02]}' + b"\x00" * 64)
    shutil.copy(ACME / "jira" / "search-page-2.json", src / "jira" / "good.json")
    page1 = json.loads((ACME / "jira" / "search-page-1.json").read_text(encoding="utf-8"))
    issue = page1["issues"][0]
    del issue["id"]
    (src / "jira" / "no-id.json").write_text(json.dumps({"issues": [issue]}), encoding="utf-8")
    (src / "handbook" / "good.md").write_text(GOOD_MD, encoding="utf-8")
    (src / "handbook" / "huge.md").write_text(
        "---\ntitle: Huge\nupdated: 2026-11-01\n---\n" + "lorem ipsum " * 6000, encoding="utf-8")
    assert (src / "handbook" / "huge.md").stat().st_size > MAX_BYTES
    (src / "handbook" / "evil.md").write_text(EVIL_MD, encoding="utf-8")
    (src / "handbook" / "ctrl.md").write_text(CTRL_MD, encoding="utf-8")
    (src / "sharepoint" / "site.json").write_text("{}", encoding="utf-8")
    for f in src.rglob("*"):
        if f.is_file() and f.name != "huge.md":
            assert f.stat().st_size < MAX_BYTES, f
    return src


def _tree(root: Path, skip: Path) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for p in sorted(root.rglob("*")):
        if p == skip or skip in p.parents:
            continue
        out[p.relative_to(root).as_posix()] = p.read_bytes() if p.is_file() else None
    return out


@pytest.fixture
def bad_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    src = _make_bad_corpus(tmp_path)
    wiki = tmp_path / "out" / "site" / "wiki"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    wiki.parent.mkdir(parents=True)  # the wiki's own parents are the caller's to create
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("FOLIO_MAX_FILE_BYTES", str(MAX_BYTES))
    return src, wiki


def _assert_named(errors: list[str]) -> None:
    for path, record, words in EXPECTED_ERRORS:
        hits = [e for e in errors if e.startswith(path + ":") or e.startswith(path + " ")]
        assert len(hits) == 1, (path, errors)
        if record is not None:
            assert f"[record {record}]" in hits[0], hits[0]
        assert words in hits[0], hits[0]


def test_bad_inputs_are_named_and_the_rest_compiles(runner: CliRunner, bad_env,
                                                    tmp_path: Path) -> None:
    src, wiki = bad_env
    before = _tree(tmp_path, wiki)
    result = runner.invoke(app, ["compile", str(src), "--out", str(wiki), "--json"])
    assert result.exit_code == EXIT_REJECTED == 3, result.output
    report = json.loads(strip_ansi(result.stdout))
    errors = report["errors"]
    assert len(errors) == len(EXPECTED_ERRORS), errors
    _assert_named(errors)

    # the good records still compiled
    for page in GOOD_PAGES:
        assert (wiki / f"{page}.md").is_file(), page
        assert (wiki / f"{page}.claims.json").is_file(), page
    assert report["records_seen"] == 7  # 3 confluence pages, 2 tickets, 2 handbook docs

    # the traversal title became a safe page inside the wiki
    evil = wiki / "topic" / "etc-passwd.md"
    assert evil.is_file()
    assert 'title: "../../etc/passwd"' in evil.read_text(encoding="utf-8")
    for p in wiki.rglob("*"):
        assert p.resolve().is_relative_to(wiki.resolve()), p

    # the control-character title produced no page
    assert not any("bell" in p.name.lower() for p in wiki.rglob("*"))

    # nothing anywhere outside the wiki folder was created or changed
    after = _tree(tmp_path, wiki)
    assert after == before
    assert not (wiki.parent / "etc").exists()
    assert sorted(p.name for p in wiki.parent.iterdir()) == ["wiki"]
    assert list(Path.cwd().iterdir()) == []

    # no leftover temp files
    assert not list(wiki.rglob(".*.tmp"))
    assert not [p for p in wiki.rglob("*") if p.name.endswith(".tmp")]


def test_bad_inputs_named_in_human_output(runner: CliRunner, bad_env) -> None:
    """Without --json the rejected inputs are listed on stderr, each with file and record."""
    src, wiki = bad_env
    result = runner.invoke(app, ["compile", str(src), "--out", str(wiki), "--quiet"])
    assert result.exit_code == 3
    text = flat(result.stderr)
    for path, record, words in EXPECTED_ERRORS:
        assert f"rejected: {path}" in text, (path, text)
        if record is not None:
            assert f"{path} [record {record}]" in text, (path, record, text)
        assert words in text


def test_rejections_are_reported_again_on_an_unchanged_rerun(runner: CliRunner, bad_env) -> None:
    src, wiki = bad_env
    first = runner.invoke(app, ["compile", str(src), "--out", str(wiki), "--json"])
    second = runner.invoke(app, ["compile", str(src), "--out", str(wiki), "--json"])
    assert first.exit_code == second.exit_code == 3
    rep2 = json.loads(strip_ansi(second.stdout))
    assert rep2["records_extracted"] == 0
    assert sorted(rep2["errors"]) == sorted(json.loads(strip_ansi(first.stdout))["errors"])
    _assert_named(rep2["errors"])


def test_fixed_inputs_compile_cleanly(runner: CliRunner, bad_env) -> None:
    src, wiki = bad_env
    assert runner.invoke(app, ["compile", str(src), "--out", str(wiki), "-q"]).exit_code == 3
    for name in ("broken.json", "blob.json"):
        (src / "confluence" / name).unlink()
    for name in ("huge.md", "ctrl.md"):
        (src / "handbook" / name).unlink()
    (src / "jira" / "no-id.json").unlink()
    (src / "sources.yaml").write_text(SOURCES.rsplit("  - {path: sharepoint", 1)[0],
                                      encoding="utf-8")
    result = runner.invoke(app, ["compile", str(src), "--out", str(wiki), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(strip_ansi(result.stdout))["errors"] == []


def test_missing_manifest_exits_1(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = runner.invoke(app, ["compile", str(tmp_path / "empty"), "--out",
                                 str(tmp_path / "wiki"), "-q"])
    assert result.exit_code == 1
    assert "sources.yaml" in flat(result.stderr)


# -- a crash mid-compile ---------------------------------------------------------------------

def _change(corpus: Path) -> None:
    prod = corpus / "confluence" / "prod.json"
    text = prod.read_text(encoding="utf-8")
    old = "The uptime SLA of Acme Cloud is 99.95%."
    assert old in text
    prod.write_text(text.replace(old, "The uptime SLA of Acme Cloud is 99.9%."), encoding="utf-8")
    doc = corpus / "handbook" / "returns-handling.md"
    doc.write_text(doc.read_text(encoding="utf-8")
                   + "\nReturned units are inspected within two business days.\n",
                   encoding="utf-8")
    os.utime(prod, ns=(1, 1))  # far from "now": no racy-stat shortcut either way
    os.utime(doc, ns=(1, 1))


class Boom(RuntimeError):
    pass


@pytest.mark.parametrize("after_calls", [0, 1, 2, 5, 10, 11, 12])
def test_crash_mid_compile_leaves_a_consistent_wiki(acme_copy: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    after_calls: int) -> None:
    wiki = tmp_path / "wiki"
    compile_wiki(acme_copy, wiki, today=TODAY)
    _change(acme_copy)

    from compiler.staging import Generation

    real = Generation.write
    calls = {"n": 0}

    def flaky(self, rel: str, data: bytes) -> None:  # noqa: ANN001
        if calls["n"] >= after_calls:
            raise Boom(f"simulated crash writing {rel}")
        calls["n"] += 1
        real(self, rel, data)

    monkeypatch.setattr(Generation, "write", flaky)
    with pytest.raises(Boom):
        compile_wiki(acme_copy, wiki, today=TODAY)
    assert calls["n"] == after_calls
    monkeypatch.setattr(Generation, "write", real)

    report = compile_wiki(acme_copy, wiki, today=TODAY)
    assert report.rejected == 0
    clean = tmp_path / "clean"
    compile_wiki(acme_copy, clean, today=TODAY)

    got, want = reproducible_files(wiki), reproducible_files(clean)
    assert sorted(got) == sorted(want)
    differing = [name for name in want if got[name] != want[name]]
    assert not differing, differing
    assert not list(wiki.rglob(".*.tmp"))
    assert not (wiki / ".folio" / "pending.json").exists()
    # the recovered wiki's signed DBOMs and index root match its pages
    from compiler.provenance.verify import trust_from, verify_wiki
    from compiler.settings import FolioSettings

    assert verify_wiki(wiki, trust_from(FolioSettings())).findings == []
    # the change really is in the recovered wiki
    assert "99.95%" not in got["product/acme-cloud.md"].decode()

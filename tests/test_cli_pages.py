"""The pages a reader opens first (the compiled Acme wiki): the summary said once, links folded,
``updated`` meaning the newest standing source, a ticket comment's header with its text, and a
SCHEMA.md that describes every kind of file in the folder and links nowhere."""

from __future__ import annotations

import json
import os
import re
import shutil
from datetime import datetime
from pathlib import Path

from typer.testing import CliRunner

from pipelines.folio_cli import app

QUESTION = "What is the return window for Enterprise customers?"


def _pages(wiki: Path) -> list[Path]:
    return sorted(p for p in wiki.glob("*/*.md"))


def _frontmatter(text: str) -> dict[str, str]:
    head = text.split("---\n", 2)[1]
    return dict(re.findall(r"^(\w+): (.+)$", head, re.M))


def _statements(text: str) -> list[str]:
    part = text.split("## Statements\n", 1)
    if len(part) == 1:
        return []
    block = part[1].split("\n## ", 1)[0]
    return [ln[2:] for ln in block.splitlines() if ln.startswith("- ")]


_CITE = re.compile(r"(?: \(S\d+\)| ?\[\^[^\]]+\])+$")  # (S1) or OKF footnotes


def test_the_summary_is_said_once(acme_wiki: Path) -> None:
    checked = 0
    for page in _pages(acme_wiki):
        # the front matter's OKF `description` is the summary as data; the body says it once
        text = page.read_text().split("\n---\n", 1)[1]
        lead = re.search(r"^> (.+)$", text, re.M).group(1)
        bare = _CITE.sub("", lead)
        assert all(_CITE.sub("", s) != bare for s in _statements(text)), page
        assert text.count(bare) == 1, (page, bare)
        checked += 1
    assert checked >= 20
    policy = (acme_wiki / "policy" / "return-policy.md").read_text()
    assert "> This policy sets out how Acme accepts hardware returns" in policy


def test_links_to_rows_fold_into_one(acme_wiki: Path) -> None:
    folded = 0
    for page in _pages(acme_wiki):
        rows = [ln for ln in page.read_text().splitlines() if ln.startswith("| links to |")]
        sources = [ln.rsplit("|", 3)[1] for ln in rows]
        assert len(sources) == len(set(sources)), (page, rows)  # one row per source
        folded += any(ln.count("[[") > 1 for ln in rows)
    assert folded, "no page links to two pages from one source"


def test_updated_is_the_newest_standing_source_not_an_overruled_one(acme_wiki: Path) -> None:
    seen_overruled_newer = False
    for page in _pages(acme_wiki):
        sidecar = json.loads(page.with_suffix("").with_suffix(".claims.json").read_text())
        claims = sidecar["claims"]
        standing = [c for c in claims if c["status"] != "overruled"] or claims
        newest = max(datetime.fromisoformat(c["observed_at"].replace("Z", "+00:00"))
                     for c in standing)
        updated = json.loads(_frontmatter(page.read_text())["updated"])
        assert datetime.fromisoformat(updated) == newest, page
        overall = max(datetime.fromisoformat(c["observed_at"].replace("Z", "+00:00"))
                      for c in claims)
        seen_overruled_newer |= overall > newest
    # the Return Policy's enterprise window is overruled in a newer ticket: the case that matters
    assert seen_overruled_newer


def test_a_ticket_comment_keeps_its_header_with_its_text(acme_wiki: Path) -> None:
    statements = _statements((acme_wiki / "ticket" / "sup-101.md").read_text())
    assert not [s for s in statements if re.sub(r" \(S\d+\)$", "", s).endswith(":")], statements
    comments = [s for s in statements if s.startswith("Comment by ")]
    assert len(comments) == 2, statements
    assert all(re.match(r"Comment by [^:]+ on \d{4}-\d\d-\d\d: \S.+", c) for c in comments)


def test_schema_md_lists_every_file_kind_and_links_nowhere(
        acme_wiki: Path, tmp_path: Path, runner: CliRunner) -> None:
    wiki = tmp_path / "wiki"
    shutil.copytree(acme_wiki, wiki)
    assert runner.invoke(app, ["query", QUESTION, "--wiki", str(wiki), "--attest"]).exit_code == 0
    schema = (wiki / "SCHEMA.md").read_text()
    assert "[[" not in schema  # no placeholder that reads as an unresolved link
    kinds: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(wiki):
        rel = Path(dirpath).relative_to(wiki)
        for name in filenames:
            if rel.parts and rel.parts[0] == ".folio":
                kinds |= {".folio/", name}
            elif rel.parts and rel.parts[0] in (".answers", "dbom-root.d"):
                kinds.add(f"{rel.parts[0]}/")
            elif not rel.parts:
                kinds.add(name)
            else:
                suffix = name[name.index("."):]
                kinds.add(f"<type>/<slug>{suffix}")
    assert {".answers/", "dbom-root.d/", "<type>/<slug>.dbom.json", "dbom-root.json"} <= kinds
    missing = sorted(k for k in kinds if k not in schema)
    assert not missing, missing
    assert "`updated`" in schema and "overruled" in schema  # what `updated` means

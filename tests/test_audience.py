"""Audience vaults (``folio render --audience``): only what the audience may see, signed and
verifiable, hidden pages indistinguishable from missing ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from compiler.build import compile_wiki
from pipelines.folio_cli import app
from compiler.provenance.verify import trust_from, verify_wiki
from compiler.settings import FolioSettings
from conftest import TODAY

SOURCES = """\
tenant: t
sources:
  - path: docs
    system: markdown
    instance: docs
    default_acl: {public: true}
"""
AUTHORITY = """\
version: 1
default: {name: unranked, rank: 10}
rules:
  - name: official
    rank: 90
    match: {system: markdown, labels: [official]}
  - name: notes
    rank: 20
    match: {system: markdown}
"""
DIRECTORY = """\
users:
  dave: {groups: [staff]}
  erin: {groups: [finance]}
"""
FILES = {
    "official.md": "---\ntitle: Budget Plan\ntype: plan\nlabels: [official]\naliases: [Project Goldfinch]\n"
                   "acl: {groups: [finance]}\nupdated: 2026-11-01\n---\nBudget ceiling: 500000 EUR\n",
    "notes.md": "---\ntitle: Budget Plan\ntype: plan\nupdated: 2026-11-02\n---\nBudget ceiling: 250000 EUR\n",
    "secret.md": "---\ntitle: Merger Talks\ntype: project\nacl: {groups: [finance]}\nupdated: 2026-11-01\n---\n"
                 "Counterparty: Initrode.\n",
    "hub.md": "---\ntitle: Hub\ntype: topic\nupdated: 2026-11-01\n---\nSee [[Merger Talks]], "
              "[[Budget Plan]] and [[Nowhere Page]].\n",
}


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    src = tmp_path / "corpus"
    (src / "docs").mkdir(parents=True)
    (src / "sources.yaml").write_text(SOURCES)
    (src / "authority.yaml").write_text(AUTHORITY)
    (src / "directory.yaml").write_text(DIRECTORY)
    for name, text in FILES.items():
        (src / "docs" / name).write_text(text)
    out = tmp_path / "wiki"
    assert compile_wiki(src, out, today=TODAY).rejected == 0
    return out


def _render(wiki: Path, audience: str, out: Path) -> tuple[int, str]:
    r = CliRunner().invoke(app, ["render", "--audience", audience, "--out", str(out),
                                 "--wiki", str(wiki)])
    return r.exit_code, r.stdout + r.stderr


def _text(vault: Path) -> str:
    return "\n".join(p.read_text() for p in sorted(vault.rglob("*")) if p.is_file())


def test_vault_for_dave_holds_only_what_he_may_see(wiki: Path, tmp_path: Path) -> None:
    vault = tmp_path / "dave"
    code, out = _render(wiki, "dave", vault)
    assert code == 0, out
    everything = _text(vault)
    assert not (vault / "project" / "merger-talks.md").exists()
    for secret in ("merger-talks", "Initrode", "500000", "Goldfinch", "t/markdown/docs/doc/official"):
        assert secret not in everything, secret
    hub = (vault / "topic" / "hub.md").read_text()
    # the hidden page and the page nobody wrote look alike: plain text, no link
    rows = {value for line in hub.splitlines() if line.startswith("| links to |")
            for value in line.split(" | ")[1].split(", ")}  # links of one source share a row
    assert {"Merger Talks", "Nowhere Page"} <= rows
    assert "[[plan/budget-plan" in hub  # a visible page still links
    # the plan's winner among what dave sees is the notes' value, with no overruled trace
    plan = (vault / "plan" / "budget-plan.md").read_text()
    assert "250000 EUR" in plan and "overruled" not in plan.lower()
    index = (vault / "index.md").read_text()
    assert "## project" not in index and "project/merger-talks" not in index
    assert verify_wiki(vault, trust_from(FolioSettings())).ok


def test_vault_for_a_group_and_for_erin(wiki: Path, tmp_path: Path) -> None:
    code, out = _render(wiki, "finance", tmp_path / "finance")
    assert code == 0, out
    assert (tmp_path / "finance" / "project" / "merger-talks.md").exists()
    plan = (tmp_path / "finance" / "plan" / "budget-plan.md").read_text()
    assert "500000 EUR" in plan and "overruled" in plan
    code, _ = _render(wiki, "erin", tmp_path / "erin")
    assert code == 0
    assert verify_wiki(tmp_path / "erin", trust_from(FolioSettings())).ok


def test_vault_is_rewritten_whole_and_never_over_another_folder(wiki: Path, tmp_path: Path) -> None:
    vault = tmp_path / "v"
    assert _render(wiki, "finance", vault)[0] == 0
    assert (vault / "project" / "merger-talks.md").exists()
    assert _render(wiki, "dave", vault)[0] == 0  # a narrower audience into the same folder
    assert not (vault / "project").exists()
    assert verify_wiki(vault, trust_from(FolioSettings())).ok
    other = tmp_path / "notes"
    other.mkdir()
    (other / "mine.txt").write_text("keep me")
    code, out = _render(wiki, "dave", other)
    assert code == 1 and "not an audience vault" in " ".join(out.split())
    assert (other / "mine.txt").read_text() == "keep me"
    code, out = _render(wiki, "dave", wiki / "inside")
    assert code == 1 and "outside the wiki" in " ".join(out.split())


def test_unknown_audience_is_refused(wiki: Path, tmp_path: Path) -> None:
    code, out = _render(wiki, "mallory", tmp_path / "m")
    assert code == 1 and "no principal or group named 'mallory'" in " ".join(out.split())

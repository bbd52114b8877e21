"""``folio lint``: open contradictions, broken links, missing entities, stale sources."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from compiler.build import compile_wiki
from pipelines.folio_cli import app
from conftest import NOW, TODAY, flat

SUP87 = "acme/jira/acme.atlassian.net/issue/10087"
SUP102 = "acme/jira/acme.atlassian.net/issue/10214"


def _lint(runner: CliRunner, wiki: Path, now: str = NOW, *extra: str):
    return runner.invoke(app, ["lint", "--wiki", str(wiki), "--json", "--now", now, *extra])


def _findings(result, code: str | None = None) -> list[dict]:
    data = json.loads(result.stdout)
    return [f for f in data["findings"] if code is None or f["code"] == code]


def test_lint_acme_findings(runner: CliRunner, acme_wiki: Path) -> None:
    result = _lint(runner, acme_wiki)
    assert result.exit_code == 1, result.output  # because of the open contradiction
    data = json.loads(result.stdout)

    errors = [f for f in data["findings"] if f["severity"] == "error"]
    assert data["errors"] == len(errors) == 1, errors
    (contra,) = errors
    assert contra["code"] == "open-contradiction"
    assert contra["page"] == "product/acme-cloud"
    assert "'uptime sla'" in contra["message"]
    assert "'99.9%'" in contra["message"] and "'99.95%'" in contra["message"]
    assert sorted(contra["sources"]) == [
        "acme/confluence/acme.atlassian.net/page/44001@23",
        "acme/confluence/acme.atlassian.net/page/44003@15",
    ]
    assert len(contra["claims"]) == 2

    missing = [f for f in data["findings"] if f["code"] == "missing-entity"]
    assert len(missing) == 1, missing
    assert missing[0]["severity"] == "warning"
    assert "'Project Phoenix'" in missing[0]["message"]
    assert "process/customer-onboarding" in missing[0]["message"]

    stale = [f for f in data["findings"] if f["code"] == "stale-source"]
    assert len(stale) == 1, stale
    assert stale[0]["severity"] == "warning"
    assert stale[0]["sources"] == [f"{SUP87}@2024-05-20T16:41:09.112+0000"]
    assert "ticket/sup-87" in stale[0]["message"]
    assert "tier 'tickets' allows 30" in stale[0]["message"]

    assert data["warnings"] == sum(1 for f in data["findings"] if f["severity"] == "warning")
    assert not [f for f in data["findings"] if f["code"] in ("broken-link", "missing-page-file")]


def test_lint_text_output_and_exit_code(runner: CliRunner, acme_wiki: Path) -> None:
    result = runner.invoke(app, ["lint", "--wiki", str(acme_wiki), "--now", NOW])
    assert result.exit_code == 1
    text = flat(result.stdout)
    assert "open-contradiction" in text
    assert "1 error," in text


def test_lint_freshness_depends_on_now(runner: CliRunner, acme_wiki: Path) -> None:
    """Before SUP-87's tier ran out nothing is stale; two days after SUP-102's ran out (and
    before SUP-101's, updated 2026-11-12) exactly those two are."""
    early = _findings(_lint(runner, acme_wiki, "2024-05-21T00:00:00+00:00"), "stale-source")
    assert early == []
    late = _findings(_lint(runner, acme_wiki, "2026-12-11T12:00:00+00:00"), "stale-source")
    assert sorted(s for f in late for s in f["sources"]) == [
        f"{SUP87}@2024-05-20T16:41:09.112+0000",
        f"{SUP102}@2026-11-09T11:20:37.845+0000",
    ]


def test_lint_stale_boundary_matches_documented_date(runner: CliRunner, acme_wiki: Path) -> None:
    """examples/acme/README.md: SUP-87 is the only stale source "until 2026-12-09, when the
    next Jira ticket (SUP-102, updated 2026-11-09) passes 30 days". SUP-102 was updated at
    2026-11-09T11:20:37Z, so half a day after 2026-12-09T11:20:37Z it is more than 30 days
    old and must be reported; an hour before that point it must not."""
    before = _findings(_lint(runner, acme_wiki, "2026-12-09T10:20:00+00:00"), "stale-source")
    assert [s for f in before for s in f["sources"]] == [f"{SUP87}@2024-05-20T16:41:09.112+0000"]
    after = _findings(_lint(runner, acme_wiki, "2026-12-09T23:00:00+00:00"), "stale-source")
    assert any(s.startswith(SUP102) for f in after for s in f["sources"]), after


def test_lint_reports_broken_link(runner: CliRunner, acme_wiki: Path, tmp_path: Path) -> None:
    wiki = tmp_path / "wiki"
    shutil.copytree(acme_wiki, wiki)
    page = wiki / "process" / "returns-handling.md"
    with page.open("a", encoding="utf-8") as fh:
        fh.write("\nSee also [[topic/does-not-exist]].\n")
    result = _lint(runner, wiki)
    assert result.exit_code == 1
    broken = _findings(result, "broken-link")
    assert len(broken) == 1, broken
    assert broken[0]["severity"] == "error"
    assert broken[0]["page"] == "process/returns-handling"
    assert "[[topic/does-not-exist]]" in broken[0]["message"]
    assert json.loads(result.stdout)["errors"] == 2  # the contradiction and the broken link


def test_lint_reports_missing_page_file(runner: CliRunner, acme_wiki: Path, tmp_path: Path) -> None:
    wiki = tmp_path / "wiki"
    shutil.copytree(acme_wiki, wiki)
    (wiki / "account" / "initech.md").unlink()
    result = _lint(runner, wiki)
    assert result.exit_code == 1
    missing = _findings(result, "missing-page-file")
    assert [f["page"] for f in missing] == ["account/initech"]
    # links to the state-listed page are not broken links
    assert _findings(result, "broken-link") == []


def test_lint_clean_after_contradiction_removed(runner: CliRunner, acme_copy: Path,
                                                tmp_path: Path) -> None:
    prod = acme_copy / "confluence" / "prod.json"
    text = prod.read_text(encoding="utf-8")
    old = "The uptime SLA of Acme Cloud is 99.95%."
    assert text.count(old) == 1
    prod.write_text(text.replace(old, "The uptime SLA of Acme Cloud is 99.9%."), encoding="utf-8")
    wiki = tmp_path / "wiki"
    report = compile_wiki(acme_copy, wiki, today=TODAY)
    assert report.rejected == 0
    assert report.conflicts_open == 0
    result = _lint(runner, wiki)
    data = json.loads(result.stdout)
    assert data["errors"] == 0, data["findings"]
    assert result.exit_code == 0
    assert _findings(result, "open-contradiction") == []
    # the warnings are still there
    assert len(_findings(result, "missing-entity")) == 1
    assert len(_findings(result, "stale-source")) == 1

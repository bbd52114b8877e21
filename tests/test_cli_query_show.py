"""``folio query`` and ``folio show`` on the compiled Acme wiki (scenario 1 and aliases)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from pipelines.folio_cli import app
from conftest import flat, strip_ansi

RETURN_Q = "What is the return window for Enterprise customers?"
POLICY_KEY = "acme/confluence/acme.atlassian.net/page/33001"
POLICY_SOURCE = f"{POLICY_KEY}@7"
TICKET_KEY = "acme/jira/acme.atlassian.net/issue/10231"
RULE = "outranked: approved-policy (rank 100) over support-tickets (rank 30)"


def _query(runner: CliRunner, wiki: Path, question: str, *extra: str):
    return runner.invoke(app, ["query", question, "--wiki", str(wiki), *extra])


# -- query ---------------------------------------------------------------------------------

def test_query_return_window_answers_60_days_from_policy(runner: CliRunner, acme_wiki: Path) -> None:
    result = _query(runner, acme_wiki, RETURN_Q)
    assert result.exit_code == 0, result.output
    text = strip_ansi(result.stdout)
    lines = text.splitlines()
    # the first answer is the Return Policy's enterprise window
    assert lines[0] == ("Return Policy — return window (Enterprise): 60 days")
    winner = lines[1]
    assert winner.strip().startswith("source: [[policy/return-policy]]")
    assert POLICY_SOURCE in winner
    assert "approved-policy, rank 100" in winner
    overruled = [ln for ln in lines if ln.strip().startswith("overruled:")]
    assert len(overruled) == 1, text
    assert TICKET_KEY in overruled[0]
    assert "30 days" in overruled[0]
    assert RULE in overruled[0]
    assert "The wiki has no answer" not in text


def test_query_json_has_found_and_citations(runner: CliRunner, acme_wiki: Path) -> None:
    result = _query(runner, acme_wiki, RETURN_Q, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(strip_ansi(result.stdout))
    assert data["found"] is True
    assert data["question"] == RETURN_Q
    assert data["principal"] is None
    first = data["parts"][0]
    assert first["page"] == "policy/return-policy"
    assert first["attribute"] == "return window (Enterprise)"  # the schema's qualifier
    assert first["state"] == "answered"
    assert first["value"] == "60 days"
    cites = first["citations"]
    assert [c["status"] for c in cites] == ["winner", "overruled"]
    win, lost = cites
    assert win["source"] == POLICY_SOURCE and win["value"] == "60 days"
    assert lost["source"].startswith(TICKET_KEY + "@") and lost["value"] == "30 days"
    assert lost["reason"] == RULE
    assert win["reason"] is None
    for part in data["parts"]:
        assert part["citations"], part
        for c in part["citations"]:
            assert re.fullmatch(r"[^@\s]+@\S+", c["source"]), c["source"]
            assert re.fullmatch(r"[0-9a-f]{64}", c["sha256"]), c["sha256"]


def test_query_json_sha256_matches_the_page_sidecar(runner: CliRunner, acme_wiki: Path) -> None:
    data = json.loads(strip_ansi(_query(runner, acme_wiki, RETURN_Q, "--json").stdout))
    sidecar = (acme_wiki / "policy" / "return-policy.claims.json").read_text(encoding="utf-8")
    for c in data["parts"][0]["citations"]:
        assert c["sha256"] in sidecar


def test_query_unrelated_question_has_no_answer(runner: CliRunner, acme_wiki: Path) -> None:
    q = "What is the capital of France?"
    result = _query(runner, acme_wiki, q)
    assert result.exit_code == 0, result.output
    assert "The wiki has no answer" in strip_ansi(result.stdout)
    data = json.loads(strip_ansi(_query(runner, acme_wiki, q, "--json").stdout))
    assert data["found"] is False
    assert data["parts"] == []


def test_query_on_missing_wiki_exits_1(runner: CliRunner, tmp_path: Path) -> None:
    result = _query(runner, tmp_path / "nowhere", RETURN_Q)
    assert result.exit_code == 1


# -- show ----------------------------------------------------------------------------------

def _show(runner: CliRunner, wiki: Path, page: str, *extra: str):
    return runner.invoke(app, ["show", page, "--wiki", str(wiki), "--raw", *extra])


def test_show_return_policy_raw(runner: CliRunner, acme_wiki: Path) -> None:
    result = _show(runner, acme_wiki, "policy/return-policy")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith("---\n")
    assert 'title: "Return Policy"' in text
    # the claims
    assert re.search(r"^\| return window \(Enterprise\) \| 60 days \|", text, re.M)
    assert re.search(r"^\| return window \(Standard\) \| 30 days \|", text, re.M)
    # a Sources section with record key and version
    assert "## Sources" in text
    sources = text.split("## Sources", 1)[1]
    # its table row (the OKF footnote definition below the table names the key too)
    policy_row = [ln for ln in sources.splitlines() if POLICY_KEY in ln and ln.startswith("|")]
    assert len(policy_row) == 1 and "| 7 |" in policy_row[0], sources
    assert any(TICKET_KEY in ln for ln in sources.splitlines())
    # the overruled 30 days with its reason
    overruled = [ln for ln in text.splitlines() if "overruled" in ln and "30 days" in ln]
    assert len(overruled) == 1, text
    assert RULE in overruled[0]
    assert TICKET_KEY in overruled[0]


def test_show_raw_equals_page_file(runner: CliRunner, acme_wiki: Path) -> None:
    """As the operator, show prints exactly the compiled page."""
    result = _show(runner, acme_wiki, "policy/return-policy")
    assert result.stdout == (acme_wiki / "policy" / "return-policy.md").read_text(encoding="utf-8")


def test_show_by_title(runner: CliRunner, acme_wiki: Path) -> None:
    by_title = _show(runner, acme_wiki, "Return Policy")
    by_id = _show(runner, acme_wiki, "policy/return-policy")
    assert by_title.exit_code == 0, by_title.output
    assert by_title.stdout == by_id.stdout


def test_show_by_alias(runner: CliRunner, acme_wiki: Path) -> None:
    for alias in ("Platform Engineering", "Acme Cloud Platform"):
        result = _show(runner, acme_wiki, alias)
        assert result.exit_code == 0, (alias, result.output)
        assert 'title: "Platform Team"' in result.stdout, alias
        assert result.stdout == (acme_wiki / "team" / "platform-team.md").read_text(encoding="utf-8")


def test_show_unknown_page_exits_1(runner: CliRunner, acme_wiki: Path) -> None:
    result = _show(runner, acme_wiki, "topic/no-such-page")
    assert result.exit_code == 1
    assert "no page named" in flat(result.stderr)
    assert result.stdout == ""
    assert _show(runner, acme_wiki, "Nothing Like This Exists").exit_code == 1

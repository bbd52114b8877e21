"""Permission trimming (scope point 9): what alice, bob and carol see of the Acme wiki, and
that a hidden higher-authority claim is never revealed by what it overruled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compiler.build import compile_wiki
from pipelines.folio_cli import app
from conftest import TODAY, flat, strip_ansi

DISCOUNT_Q = "What is the maximum discount without VP approval?"
DIRECTORY = {"alice": {"staff", "support"}, "bob": {"staff", "finance"}, "carol": {"contractors"}}
# who each principal is in the source systems (examples/acme/directory.yaml)
IDENTITIES = {"alice": {"salesforce:0055g00000AliceAAA", "atlassian:5b10ac8d82e05b22cc7d4e01",
                        "email:alice@acme.example"},
              "bob": {"salesforce:0055g00000Bob01AAA", "atlassian:5b10ac8d82e05b22cc7d4e02",
                      "email:bob@acme.example"},
              "carol": set()}


def _show(runner: CliRunner, wiki: Path, page: str, who: str | None):
    args = ["show", page, "--wiki", str(wiki), "--raw"]
    if who:
        args += ["--as", who]
    return runner.invoke(app, args)


def _query_json(runner: CliRunner, wiki: Path, q: str, who: str | None) -> dict:
    args = ["query", q, "--wiki", str(wiki), "--json"]
    if who:
        args += ["--as", who]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(strip_ansi(result.stdout))


def _export(runner: CliRunner, wiki: Path, who: str | None) -> list[dict]:
    args = ["export", "claims", "--wiki", str(wiki), "--format", "jsonl"]
    if who:
        args += ["--as", who]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


# -- the Acme directory ---------------------------------------------------------------------

def test_discount_policy_does_not_exist_for_carol(runner: CliRunner, acme_wiki: Path) -> None:
    result = _show(runner, acme_wiki, "Discount Approval Policy", "carol")
    assert result.exit_code == 1
    assert "no page" in flat(result.stderr)
    assert "20%" not in result.stdout
    # not even by page id
    assert _show(runner, acme_wiki, "policy/discount-approval-policy", "carol").exit_code == 1


def test_discount_policy_hidden_from_alice(runner: CliRunner, acme_wiki: Path) -> None:
    assert _show(runner, acme_wiki, "Discount Approval Policy", "alice").exit_code == 1


def test_discount_policy_shown_to_bob(runner: CliRunner, acme_wiki: Path) -> None:
    result = _show(runner, acme_wiki, "Discount Approval Policy", "bob")
    assert result.exit_code == 0, result.output
    assert 'title: "Discount Approval Policy"' in result.stdout
    assert "| discount limit | 20% |" in result.stdout


def test_discount_query_by_principal(runner: CliRunner, acme_wiki: Path) -> None:
    carol = _query_json(runner, acme_wiki, DISCOUNT_Q, "carol")
    assert carol["found"] is False
    assert carol["principal"] == "carol"
    assert "20%" not in json.dumps(carol)

    text = runner.invoke(app, ["query", DISCOUNT_Q, "--wiki", str(acme_wiki), "--as", "carol"])
    assert "The wiki has no answer" in strip_ansi(text.stdout)

    bob = _query_json(runner, acme_wiki, DISCOUNT_Q, "bob")
    assert bob["found"] is True
    first = bob["parts"][0]
    assert first["page"] == "policy/discount-approval-policy"
    assert first["attribute"] == "discount limit"
    assert first["value"] == "20%"
    assert first["citations"][0]["source"] == "acme/confluence/acme.atlassian.net/page/33003@4"


def test_sup_103_visible_to_alice_not_bob(runner: CliRunner, acme_wiki: Path) -> None:
    alice = _show(runner, acme_wiki, "SUP-103", "alice")
    assert alice.exit_code == 0, alice.output
    assert 'title: "SUP-103"' in alice.stdout
    bob = _show(runner, acme_wiki, "SUP-103", "bob")
    assert bob.exit_code == 1
    assert "no page" in flat(bob.stderr)
    assert _show(runner, acme_wiki, "SUP-103", "carol").exit_code == 1
    # its claims are not exported for bob either
    assert not [c for c in _export(runner, acme_wiki, "bob") if c["subject"] == "ticket/sup-103"]
    assert [c for c in _export(runner, acme_wiki, "alice") if c["subject"] == "ticket/sup-103"]


def test_operator_sees_everything(runner: CliRunner, acme_wiki: Path) -> None:
    for page in ("Discount Approval Policy", "SUP-103", "Key Accounts"):
        assert _show(runner, acme_wiki, page, None).exit_code == 0, page


def _visible(acl: dict, name: str) -> bool:
    users = {name} | IDENTITIES[name]
    own = bool(acl["public"] or users & set(acl["users"]) or set(acl["groups"]) & DIRECTORY[name])
    return own and all(_visible(inner, name) for inner in acl.get("all_of", ()))


@pytest.mark.parametrize("who", ["alice", "bob", "carol"])
def test_export_as_principal_contains_only_visible_claims(runner: CliRunner, acme_wiki: Path,
                                                          who: str) -> None:
    claims = _export(runner, acme_wiki, who)
    assert claims, who
    for c in claims:
        assert _visible(c["acl"], who), (who, c)
    everything = _export(runner, acme_wiki, None)
    assert len(claims) < len(everything)
    # … of the pages that exist for them: a claim a visible record states of a hidden page
    # (a ticket's sentence read as a fact of a restricted opportunity) would name that page
    from compiler.build import wiki_state
    from compiler.views import principal, visible_entity

    state = wiki_state(acme_wiki)
    try:
        p = principal(state, who)
        pages = {c["subject"] for c in everything}
        shown = {s for s in pages if visible_entity(state, s, p) is not None}
    finally:
        state.close()
    expected = {c["claim_id"] for c in everything
                if _visible(c["acl"], who) and c["subject"] in shown}
    assert {c["claim_id"] for c in claims} == expected


def test_export_as_carol_is_only_public_handbook(runner: CliRunner, acme_wiki: Path) -> None:
    claims = _export(runner, acme_wiki, "carol")
    for c in claims:
        assert c["acl"]["public"] is True, c
        assert c["source_system"] == "markdown", c
    subjects = {c["subject"] for c in claims}
    assert subjects == {"process/customer-onboarding", "team/platform-team",
                        "process/returns-handling", "process/support-escalation"}


def test_unknown_principal_sees_only_public(runner: CliRunner, acme_wiki: Path) -> None:
    claims = _export(runner, acme_wiki, "mallory")
    assert claims
    assert all(c["acl"]["public"] for c in claims)
    assert _show(runner, acme_wiki, "Return Policy", "mallory").exit_code == 1


# -- a hidden higher-authority winner -------------------------------------------------------

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
DIRECTORY_YAML = """\
users:
  dave: {groups: [staff]}
  erin: {groups: [finance]}
"""
OFFICIAL = """\
---
title: Budget Plan
type: plan
labels: [official]
aliases: [Project Goldfinch]
acl: {groups: [finance]}
updated: 2026-11-01
---
Budget ceiling: 500000 EUR
"""
NOTES = """\
---
title: Budget Plan
type: plan
updated: 2026-11-02
---
Budget ceiling: 250000 EUR
"""
BUDGET_Q = "What is the budget ceiling?"


@pytest.fixture
def hidden_wiki(tmp_path: Path) -> Path:
    src = tmp_path / "corpus"
    (src / "docs").mkdir(parents=True)
    (src / "sources.yaml").write_text(SOURCES, encoding="utf-8")
    (src / "authority.yaml").write_text(AUTHORITY, encoding="utf-8")
    (src / "directory.yaml").write_text(DIRECTORY_YAML, encoding="utf-8")
    (src / "docs" / "official.md").write_text(OFFICIAL, encoding="utf-8")
    (src / "docs" / "notes.md").write_text(NOTES, encoding="utf-8")
    wiki = tmp_path / "wiki"
    report = compile_wiki(src, wiki, today=TODAY)
    assert report.rejected == 0, [str(e) for e in report.errors]
    assert report.conflicts_resolved == 1
    return wiki


def test_operator_sees_hidden_winner_overrule(runner: CliRunner, hidden_wiki: Path) -> None:
    page = _show(runner, hidden_wiki, "plan/budget-plan", None)
    assert page.exit_code == 0, page.output
    assert "| budget ceiling | 500000 EUR |" in page.stdout
    assert "overruled" in page.stdout
    assert "outranked: official (rank 90) over notes (rank 20)" in page.stdout

    data = _query_json(runner, hidden_wiki, BUDGET_Q, None)
    part = data["parts"][0]
    assert part["value"] == "500000 EUR"
    assert [c["status"] for c in part["citations"]] == ["winner", "overruled"]
    assert part["citations"][1]["value"] == "250000 EUR"

    statuses = {c["value"]: c["status"] for c in _export(runner, hidden_wiki, None)
                if c["attribute"] == "budget ceiling"}
    assert statuses == {"500000 EUR": "winner", "250000 EUR": "overruled"}


@pytest.mark.parametrize("who", ["dave", "nobody-in-directory"])
def test_hidden_winner_not_revealed(runner: CliRunner, hidden_wiki: Path, who: str) -> None:
    page = _show(runner, hidden_wiki, "plan/budget-plan", who)
    assert page.exit_code == 0, page.output
    assert "| budget ceiling | 250000 EUR |" in page.stdout
    assert "500000" not in page.stdout
    assert "overruled" not in page.stdout.lower()
    assert "official" not in page.stdout
    assert "t/markdown/docs/doc/official" not in page.stdout

    data = _query_json(runner, hidden_wiki, BUDGET_Q, who)
    assert data["found"] is True
    dumped = json.dumps(data)
    assert "500000" not in dumped and "overruled" not in dumped and "official" not in dumped
    part = data["parts"][0]
    assert part["value"] == "250000 EUR"
    assert [c["status"] for c in part["citations"]] == ["winner"]

    text = runner.invoke(app, ["query", BUDGET_Q, "--wiki", str(hidden_wiki), "--as", who])
    assert "overruled" not in text.stdout and "500000" not in text.stdout

    exported = _export(runner, hidden_wiki, who)
    assert exported
    assert all(c["status"] == "winner" for c in exported), exported
    assert not any("500000" in c["value"] or c["source_key"].endswith("/official")
                   for c in exported)


def test_finance_principal_sees_the_winner(runner: CliRunner, hidden_wiki: Path) -> None:
    page = _show(runner, hidden_wiki, "plan/budget-plan", "erin")
    assert page.exit_code == 0
    assert "| budget ceiling | 500000 EUR |" in page.stdout
    assert "overruled" in page.stdout


def test_hidden_record_alias_not_revealed(runner: CliRunner, hidden_wiki: Path) -> None:
    """The alias "Project Goldfinch" is declared only by the finance-only record: for dave it
    must neither resolve to the page nor appear in the page's frontmatter."""
    by_alias = _show(runner, hidden_wiki, "Project Goldfinch", "dave")
    assert by_alias.exit_code == 1, by_alias.stdout
    page = _show(runner, hidden_wiki, "plan/budget-plan", "dave")
    assert "Goldfinch" not in page.stdout
    # erin may see and use it
    assert _show(runner, hidden_wiki, "Project Goldfinch", "erin").exit_code == 0


def test_query_names_pages_as_the_principal_knows_them(acme_wiki: Path) -> None:
    """Answers name pages from what the asker may see, and never a page hidden from them."""
    from compiler.build import wiki_state
    from compiler.views import principal, visible_names

    state = wiki_state(acme_wiki)
    try:
        ids = {"policy/discount-approval-policy", "policy/return-policy"}
        assert visible_names(state, ids, principal(state, "alice")) == {
            "policy/return-policy": "Return Policy"}
        assert set(visible_names(state, ids, principal(state, "bob"))) == ids
        assert set(visible_names(state, ids, None)) == ids
    finally:
        state.close()

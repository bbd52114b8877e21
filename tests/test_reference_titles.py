"""A reference whose source names its target only by id (a HubSpot association, a Zendesk
ticket's organization id) renders and answers as the target page's title, kept current when
the target is renamed, and never shows a title its reader may not see."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from compiler.audience import render_audience
from compiler.build import compile_wiki, wiki_state
from compiler.provenance.verify import trust_from, verify_wiki
from compiler.query import _part
from compiler.serve import html
from compiler.serve.visible import Viewer
from compiler.settings import FolioSettings
from compiler.views import Visibility, page_view, principal

from test_incremental import assert_same_wiki

DEAL = "opportunity/orchid-renewal"
ORPHAN = "opportunity/lost-lead-upsell"
TICKET = "ticket/ticket-48100"
COMPANY_LINK = "[[account/orchid-learning\\|Orchid Learning]]"

SOURCES = """\
tenant: t
sources:
  - path: hubspot
    system: hubspot
    instance: portal-1
    default_acl: {groups: [staff]}
    options:
      portal_id: "1"
      owner_access: [companies]
  - path: zendesk
    system: zendesk
    instance: t.zendesk.com
    default_acl: {groups: [staff]}
"""
DIRECTORY = """\
users:
  alice: {groups: [staff], identities: {hubspot: "111"}}
  bob: {groups: [staff]}
"""


def _company(name: str, modified: str, owner: str = "111") -> dict:
    return {"id": "500", "archived": False, "updatedAt": modified,
            "properties": {"name": name, "hubspot_owner_id": owner,
                           "hs_lastmodifieddate": modified}}


def _deal(deal_id: str, name: str, company: str) -> dict:
    when = "2026-11-01T10:00:00Z"
    return {"id": deal_id, "archived": False, "updatedAt": when,
            "properties": {"dealname": name, "amount": "5000", "hs_lastmodifieddate": when},
            "associations": {"companies": {"results": [
                {"id": company, "type": "deal_to_company"}]}}}


def write_corpus(root: Path, company_name: str = "Orchid Learning",
                 modified: str = "2026-11-02T10:00:00Z") -> Path:
    (root / "hubspot").mkdir(parents=True, exist_ok=True)
    (root / "zendesk").mkdir(parents=True, exist_ok=True)
    (root / "sources.yaml").write_text(SOURCES)
    (root / "directory.yaml").write_text(DIRECTORY)
    write_company(root, company_name, modified)
    (root / "hubspot" / "deals.json").write_text(json.dumps({"results": [
        _deal("900", "Orchid renewal", "500"),
        _deal("901", "Lost lead upsell", "599"),  # a company the export does not hold
    ]}))
    (root / "zendesk" / "organizations.json").write_text(json.dumps({"organizations": [
        {"id": 361000101, "name": "Polaris Cold Chain AB", "updated_at": "2026-10-01T08:00:00Z"},
    ]}))
    (root / "zendesk" / "tickets.json").write_text(json.dumps({"tickets": [
        {"id": 48100, "subject": "Freezer alarm keeps firing", "description": "It beeps.",
         "status": "open", "organization_id": 361000101,
         "created_at": "2026-10-02T08:00:00Z", "updated_at": "2026-10-02T08:00:00Z"},
    ]}))
    return root


def write_company(root: Path, name: str, modified: str) -> None:
    (root / "hubspot" / "companies.json").write_text(
        json.dumps({"results": [_company(name, modified)]}))


def page(wiki: Path, eid: str) -> str:
    return (wiki / f"{eid}.md").read_text(encoding="utf-8")


def test_reference_renders_target_title_not_its_id(tmp_path: Path) -> None:
    wiki = tmp_path / "wiki"
    compile_wiki(write_corpus(tmp_path / "corpus"), wiki, today="2026-11-21")
    deal = page(wiki, DEAL)
    assert f"| account | {COMPANY_LINK} |" in deal
    assert "HubSpot company 500" not in deal
    ticket = page(wiki, TICKET)
    assert "[[account/polaris-cold-chain\\|Polaris Cold Chain AB]]" in ticket
    assert "Zendesk organization 361000101" not in ticket
    # a target the compile does not hold stays its id, unlinked: never a guessed name
    orphan = page(wiki, ORPHAN)
    assert "| account | HubSpot company 599 |" in orphan
    # the claim keeps what the source said; its DBOM still verifies
    sidecar = json.loads((wiki / f"{DEAL}.claims.json").read_text())
    assert any(c["value"] == "HubSpot company 500" for c in sidecar["claims"])
    assert verify_wiki(wiki, trust_from(FolioSettings())).ok


def _account_part(wiki: Path, who_name: str | None):  # noqa: ANN202
    state = wiki_state(wiki)
    try:
        who = principal(state, who_name)
        claim = next(c for c in state.claims_of_subject(DEAL) if c.attribute == "account")
        return _part(state, claim, "Orchid renewal", who)
    finally:
        state.close()


def test_answer_states_the_target_title(tmp_path: Path) -> None:
    wiki = tmp_path / "wiki"
    compile_wiki(write_corpus(tmp_path / "corpus"), wiki, today="2026-11-21")
    part = _account_part(wiki, None)
    assert part is not None and part.value == "Orchid Learning"
    assert [c.value for c in part.citations] == ["Orchid Learning"]


def test_restricted_target_title_is_shown_only_to_who_may_see_it(tmp_path: Path) -> None:
    """The company is readable by its owner (alice) only; bob sees the deal, which names it by
    id: he gets the id, unlinked, on every surface, and alice gets the title."""
    wiki = tmp_path / "wiki"
    compile_wiki(write_corpus(tmp_path / "corpus"), wiki, today="2026-11-21")
    state = wiki_state(wiki)
    try:
        bob, alice = principal(state, "bob"), principal(state, "alice")
        seen_by_bob = page_view(state, DEAL, bob)
        assert seen_by_bob is not None
        md = seen_by_bob.markdown()
        assert "Orchid Learning" not in md and "account/orchid-learning" not in md
        assert "| account | HubSpot company 500 |" in md
        assert f"| account | {COMPANY_LINK} |" in page_view(state, DEAL, alice).markdown()
        claim = next(c for c in state.claims_of_subject(DEAL) if c.attribute == "account")
        assert Visibility(state, bob).shown(claim) == "HubSpot company 500"
        assert Visibility(state, alice).shown(claim) == "Orchid Learning"
        trust = trust_from(FolioSettings())
        served = Viewer(state, wiki, bob, trust).page(DEAL)
        assert served is not None and "Orchid Learning" not in served.model_dump_json()
        assert "HubSpot company 500" in html.page(served, "bob")
        served = Viewer(state, wiki, alice, trust).page(DEAL)
        assert served is not None and ">Orchid Learning</a>" in html.page(served, "alice")
        vault = tmp_path / "bob-vault"
        render_audience(wiki, state, "bob", vault)
        for f in vault.rglob("*"):
            if f.is_file():
                assert b"Orchid Learning" not in f.read_bytes(), f
        assert "HubSpot company 500" in (vault / f"{DEAL}.md").read_text()
    finally:
        state.close()
    bob_part = _account_part(wiki, "bob")
    assert bob_part is not None and bob_part.value == "HubSpot company 500"
    assert "Orchid Learning" not in bob_part.model_dump_json()
    alice_part = _account_part(wiki, "alice")
    assert alice_part is not None and alice_part.value == "Orchid Learning"


def test_renamed_target_rerenders_citing_pages_as_a_clean_build_would(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    inc, clean = tmp_path / "incremental", tmp_path / "clean"
    compile_wiki(corpus, inc, today="2026-11-21")

    def rebuild_and_compare() -> None:
        shutil.rmtree(clean, ignore_errors=True)
        compile_wiki(corpus, clean, today="2026-11-21")
        assert_same_wiki(inc, clean)

    # a new title, the same page (the id drops the legal suffix): only the company record
    # changed and the deal's claims are as they were, yet the deal shows the new title
    write_company(corpus, "Orchid Learning Inc.", "2026-11-05T10:00:00Z")
    report = compile_wiki(corpus, inc, today="2026-11-21")
    assert report.changed_keys == ["t/hubspot/portal-1/company/500"]
    assert DEAL in report.written
    assert "[[account/orchid-learning\\|Orchid Learning Inc.]]" in page(inc, DEAL)
    rebuild_and_compare()
    # a new title that is a new page: the deal links to it
    write_company(corpus, "Orchid Learning Group", "2026-11-06T10:00:00Z")
    compile_wiki(corpus, inc, today="2026-11-21")
    assert "[[account/orchid-learning-group\\|Orchid Learning Group]]" in page(inc, DEAL)
    rebuild_and_compare()
    # the target gone: the citing page falls back to the id, as a clean build does
    (corpus / "hubspot" / "companies.json").unlink()
    compile_wiki(corpus, inc, today="2026-11-21")
    assert "| account | HubSpot company 500 |" in page(inc, DEAL)
    rebuild_and_compare()

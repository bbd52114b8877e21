"""Permission leak count over every surface Folio serves without a server: the CLI with
``--as`` (query, show, export, lint) and audience vaults, for every principal of the Acme
directory (plus one it does not know) and every group.

What a principal may not see is computed from the compile state, independently of the code
under test: claims whose record ACL does not allow them, and pages none of whose claims (or
declaring records) they may read. From those come the strings that must never reach them:

- restricted values: values of hidden claims that no visible claim also says;
- titles: names and aliases given only by hidden records;
- link targets: ids of hidden pages (as a wikilink target or anywhere else).

Every output is scanned for each; a hit is one leak. The count must be 0. The same detector run
over the operator's own output (no ``--as``) must find leaks, or it would prove nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compiler.audience import audience_principal
from compiler.build import wiki_state
from pipelines.folio_cli import app
from compiler.directory import load_directory
from compiler.models import Principal
from compiler.provenance.verify import trust_from, verify_wiki
from compiler.settings import FolioSettings
from compiler.views import principal, visible_entity
from conftest import ACME, NOW, flat

DIRECTORY = load_directory(ACME / "directory.yaml")
PRINCIPALS = sorted(DIRECTORY.users) + ["mallory"]  # mallory: not in the directory
GROUPS = sorted({g for u in DIRECTORY.users.values() for g in u.groups})
_MIN_CHARS = 5  # shorter values ("80.0", "USD") are too common to attribute to one record


def _distinctive(value: str) -> bool:
    """A value that can be attributed to its record: long enough, and not one common word
    ("Resolved", "question", "default"), which page templates, JSON keys and SCHEMA.md
    write on their own."""
    return len(value) >= _MIN_CHARS and not (value.isalpha() and len(value) < 12)


@dataclass
class Secrets:
    """What one principal must never be shown."""

    values: set[str] = field(default_factory=set)
    titles: set[str] = field(default_factory=set)
    page_ids: set[str] = field(default_factory=set)
    visible_pages: set[str] = field(default_factory=set)
    questions: list[str] = field(default_factory=list)

    def leaks(self, text: str) -> list[str]:
        # a value is found as itself, not inside a longer token: "2026-10-01" is not in a
        # visible record's version "2026-10-01T17:40:12"
        def said(v: str) -> bool:
            return re.search(r"(?<![0-9a-z])" + re.escape(v) + r"(?![0-9a-z])", text,
                             re.IGNORECASE) is not None

        found = [f"value {v!r}" for v in self.values if said(v)]
        found += [f"title {t!r}" for t in self.titles if said(t)]
        found += [f"page {p!r}" for p in self.page_ids
                  if re.search(re.escape(p) + r"(?![a-z0-9-])", text)]
        return found


def secrets_for(wiki: Path, who: Principal) -> Secrets:
    state = wiki_state(wiki)
    try:
        visible_text: list[str] = []
        hidden_values: set[str] = set()
        hidden_subjects: dict[str, str] = {}
        for claim, _ in state.iter_claims():
            if claim.acl.allows(who):
                visible_text += [claim.value, claim.quote, claim.source.title]
                if claim.source.updated_at is not None:  # the OKF last_modified of its source
                    visible_text.append(claim.source.updated_at.date().isoformat())
            else:
                hidden_values.add(claim.value)
                hidden_subjects.setdefault(f"{claim.attribute} of {claim.subject}", claim.subject)
        s = Secrets()
        hidden_names: set[str] = set()
        for eid in state.page_ids():
            seen = visible_entity(state, eid, who)
            full = state.entity(eid)
            assert full is not None
            if seen is None:
                s.page_ids.add(eid)
                hidden_names |= {full.name, *full.aliases}
            else:
                s.visible_pages.add(eid)
                visible_text += [seen[0].name, *seen[0].aliases, eid]
                hidden_names |= {full.name, *full.aliases} - {seen[0].name, *seen[0].aliases}
        said = "\n".join(visible_text).casefold()
        s.values = {v for v in hidden_values if _distinctive(v) and v.casefold() not in said}
        s.titles = {t for t in hidden_names if len(t) >= _MIN_CHARS and t.casefold() not in said}
        # questions aimed at what is hidden: its attribute, about its page
        for ask in sorted(hidden_subjects)[:40]:
            attribute, _, subject = ask.partition(" of ")
            name = state.entity(subject).name if state.entity(subject) else subject
            s.questions.append(f"What is the {attribute} of {name}?")
        return s
    finally:
        state.close()


def _cli(runner: CliRunner, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout + result.stderr


def cli_leaks(runner: CliRunner, wiki: Path, who: str | None, s: Secrets,
              pages: list[str]) -> dict[str, list[str]]:
    """Leaks per surface of the CLI as ``who`` (``None``: the operator, for the control)."""
    as_ = ["--as", who] if who else []
    w = ["--wiki", str(wiki)]
    out: dict[str, list[str]] = {"query": [], "show": [], "export": [], "lint": []}
    for q in s.questions + ["What is the amount?", "Who owns the pilot?"]:
        # the answer repeats the question asked: that echo is the asker's own words
        _, text = _cli(runner, "query", q, *w, *as_, "--json")
        out["query"] += s.leaks(text.replace(json.dumps(q)[1:-1], ""))
        _, text = _cli(runner, "query", q, *w, *as_)
        out["query"] += s.leaks(text.replace(q, ""))
    missing_code, missing_text = _cli(runner, "show", "no-such-page-xyz", *w, *as_, "--raw")
    for page in pages:
        code, text = _cli(runner, "show", page, *w, *as_, "--raw")
        if who is not None and page in s.page_ids:
            # a hidden page answers exactly as a missing one (the name asked for echoed back)
            # (rich wraps stderr at the terminal width: compare words, not line breaks)
            if (code, flat(text.replace(page, "no-such-page-xyz"))) != (missing_code,
                                                                         flat(missing_text)):
                out["show"].append(f"show {page!r} differs from a missing page")
            continue
        out["show"] += s.leaks(text)
    _, text = _cli(runner, "export", "claims", *w, *as_)
    out["export"] += s.leaks(text)
    _, text = _cli(runner, "lint", *w, *as_, "--json", "--now", NOW)
    out["lint"] += s.leaks(text)
    return out


def vault_leaks(vault: Path, s: Secrets) -> list[str]:
    found = []
    for path in sorted(vault.rglob("*")):
        if path.is_file():
            rel = path.relative_to(vault).as_posix()
            found += [f"{rel}: {leak}" for leak in s.leaks(rel)]
            found += [f"{rel}: {leak}" for leak in s.leaks(path.read_text(encoding="utf-8"))]
    return found


@pytest.fixture(scope="module")
def leak_report(acme_wiki: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    runner = CliRunner()
    state = wiki_state(acme_wiki)
    pages = state.page_ids()
    whos = {name: principal(state, name) for name in PRINCIPALS}
    whos |= {f"group:{g}": audience_principal(state, g) for g in GROUPS}
    state.close()
    report: dict[str, dict] = {}
    vaults = tmp_path_factory.mktemp("vaults")
    for name, who in whos.items():
        assert who is not None
        s = secrets_for(acme_wiki, who)
        entry: dict = {"secrets": s}
        if not name.startswith("group:"):
            entry["cli"] = cli_leaks(runner, acme_wiki, name, s, pages)
        audience = name.removeprefix("group:")
        if audience != "mallory":
            vault = vaults / name.replace(":", "-")
            code, text = _cli(runner, "render", "--audience", audience, "--out", str(vault),
                              "--wiki", str(acme_wiki))
            assert code == 0, text
            entry["vault"] = vault_leaks(vault, s)
            entry["vault_path"] = vault
        report[name] = entry
    return report


def test_every_principal_has_something_hidden(leak_report: dict) -> None:
    """The leak count below means something only if each principal has secrets to leak."""
    for name, entry in leak_report.items():
        s = entry["secrets"]
        assert s.page_ids and (s.values or s.titles), name


@pytest.mark.parametrize("surface", ["query", "show", "export", "lint"])
def test_cli_leaks_nothing(leak_report: dict, surface: str) -> None:
    counts = {name: len(e["cli"][surface]) for name, e in leak_report.items() if "cli" in e}
    print(f"\nCLI {surface} leaks per principal: {counts}")
    details = {name: e["cli"][surface][:5] for name, e in leak_report.items()
               if "cli" in e and e["cli"][surface]}
    assert sum(counts.values()) == 0, details


def test_audience_vaults_leak_nothing(leak_report: dict) -> None:
    counts = {name: len(e["vault"]) for name, e in leak_report.items() if "vault" in e}
    print(f"\naudience vault leaks per audience: {counts}")
    details = {name: e["vault"][:5] for name, e in leak_report.items()
               if "vault" in e and e["vault"]}
    assert sum(counts.values()) == 0, details


def test_audience_vaults_verify_and_hold_exactly_the_visible_pages(leak_report: dict) -> None:
    trust = trust_from(FolioSettings())
    for name, entry in leak_report.items():
        if "vault" not in entry:
            continue
        vault: Path = entry["vault_path"]
        report = verify_wiki(vault, trust)
        assert report.ok, (name, [f.message for f in report.findings])
        on_disk = {p.relative_to(vault).as_posix().removesuffix(".md")
                   for p in vault.rglob("*.md") if "/" in p.relative_to(vault).as_posix()}
        assert on_disk == entry["secrets"].visible_pages, name
        index = (vault / "index.md").read_text(encoding="utf-8")
        counts = sum(int(n) for n in re.findall(r"^## \S+ \((\d+)\)$", index, re.M))
        assert counts == len(entry["secrets"].visible_pages), name


def test_the_detector_finds_leaks_in_operator_output(acme_wiki: Path, leak_report: dict) -> None:
    """Control: the operator's unfiltered export and full wiki folder hold what carol and dave
    may not see, and the detector says so."""
    runner = CliRunner()
    for name in ("carol", "dave"):
        s = leak_report[name]["secrets"]
        _, text = _cli(runner, "export", "claims", "--wiki", str(acme_wiki))
        assert s.leaks(text), name
        index = (acme_wiki / "index.md").read_text(encoding="utf-8")
        assert s.leaks(index), name


def test_private_opportunity_follows_owner_and_share(leak_report: dict) -> None:
    """The Umbrella Health pilot is Sam's, shared with alice: alice sees it, bob (who owns the
    other three) does not, dave (staff, no share) sees none; the account page is staff's."""
    pilot = "opportunity/umbrella-health-acme-analytics-pilot"
    visible = {name: e["secrets"].visible_pages for name, e in leak_report.items()}
    assert pilot in visible["alice"] and pilot not in visible["bob"]
    assert "opportunity/globex-acme-edge-expansion" in visible["bob"]
    assert not {p for p in visible["dave"] if p.startswith("opportunity/")}
    assert "account/umbrella-health" in visible["dave"]
    # dave's vault shows the account with no trace of the pilot: its name is plain text at most
    page = (leak_report["dave"]["vault_path"] / "account" / "umbrella-health.md").read_text()
    assert pilot not in page and "Acme Analytics Pilot" not in page


def test_group_narrows_and_never_widens(acme_wiki: Path) -> None:
    """``--group`` keeps only the listed directory groups: bob as finance only loses staff
    content; carol asking for finance gains nothing."""
    state = wiki_state(acme_wiki)
    try:
        bob_finance = principal(state, "bob", ["finance"])
        assert bob_finance is not None and bob_finance.groups == ("finance",)
        carol_finance = principal(state, "carol", ["finance"])
        assert carol_finance is not None and carol_finance.groups == ()
        stranger = principal(state, "mallory", ["finance", "staff"])
        assert stranger is not None and stranger.groups == ()
    finally:
        state.close()
    runner = CliRunner()
    carol = _cli(runner, "show", "Discount Approval Policy", "--wiki", str(acme_wiki),
                 "--as", "carol", "--group", "finance", "--raw")
    assert carol[0] == 1 and "20%" not in carol[1]


def test_export_json_lines_of_all_principals_parse(leak_report: dict, acme_wiki: Path) -> None:
    runner = CliRunner()
    for name in PRINCIPALS:
        result = runner.invoke(app, ["export", "claims", "--wiki", str(acme_wiki), "--as", name])
        assert result.exit_code == 0
        for line in result.stdout.splitlines():  # stderr may warn of an unknown principal
            json.loads(line)

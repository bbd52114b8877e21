"""``folio export claims --format jsonl`` (scope point 6): a stable, validated, deterministic
claim export."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from compiler.build import wiki_state
from compiler.canonical import sha256_hex
from compiler.models import Claim
from pipelines.folio_cli import app
from compiler.export import EXPORT_SCHEMA, ExportedClaim
from compiler.schemas import all_schemas

GLOBEX_PROD = "acme/salesforce/acme-prod/Account/0015g00000QXcWkAAL"
GLOBEX_LEGACY = "acme/salesforce/acme-legacy/Account/0013t00001ZqKpRAAV"


def _export(runner: CliRunner, wiki: Path, *extra: str) -> str:
    result = runner.invoke(app, ["export", "claims", "--wiki", str(wiki), "--format", "jsonl",
                                 *extra])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def exported(acme_wiki: Path) -> str:
    return _export(CliRunner(), acme_wiki)


def test_every_line_validates(exported: str) -> None:
    assert exported.endswith("\n")
    lines = exported.splitlines()
    assert len(lines) > 100
    validator = jsonschema.Draft202012Validator(all_schemas()["ExportedClaim"])
    for line in lines:
        claim = ExportedClaim.model_validate_json(line)
        raw = json.loads(line)
        assert raw["schema"] == EXPORT_SCHEMA
        assert claim.model_dump_json(by_alias=True) == line  # lossless round trip
        assert len(claim.source_sha256) == 64
        validator.validate(raw)
    ids = [json.loads(line)["claim_id"] for line in lines]
    assert len(ids) == len(set(ids))


def test_claim_count_matches_compile(exported: str, acme_wiki: Path) -> None:
    state = wiki_state(acme_wiki)
    try:
        assert len(exported.splitlines()) == state.claim_count()
    finally:
        state.close()


def test_statuses_present(exported: str) -> None:
    statuses = {json.loads(line)["status"] for line in exported.splitlines()}
    assert statuses == {"winner", "overruled", "contested"}
    contested = [json.loads(line) for line in exported.splitlines()
                 if json.loads(line)["status"] == "contested"]
    assert {(c["subject"], c["attribute"], c["value"]) for c in contested} == {
        ("product/acme-cloud", "uptime sla", "99.9%"),
        ("product/acme-cloud", "uptime sla", "99.95%"),
    }


def test_globex_industry(exported: str) -> None:
    industry = [json.loads(line) for line in exported.splitlines()
                if json.loads(line)["subject"] == "account/globex"
                and json.loads(line)["attribute"] == "industry"]
    by_value = {c["value"]: c for c in industry}
    assert set(by_value) == {"Manufacturing", "Retail"}
    prod, legacy = by_value["Manufacturing"], by_value["Retail"]
    assert prod["status"] == "winner"
    assert prod["source_key"] == GLOBEX_PROD
    assert (prod["authority_rule"], prod["authority_rank"]) == ("crm-production", 80)
    assert legacy["status"] == "overruled"
    assert legacy["source_key"] == GLOBEX_LEGACY
    assert (legacy["authority_rule"], legacy["authority_rank"]) == ("crm-legacy", 40)


def test_return_window_statuses(exported: str) -> None:
    claims = [json.loads(line) for line in exported.splitlines()]
    window = {c["value"]: c["status"] for c in claims
              if c["subject"] == "policy/return-policy"
              and c["attribute"] == "return window"
              and c["qualifiers"] == {"customer tier": "Enterprise"}}
    assert window == {"60 days": "winner", "30 days": "overruled"}


@pytest.mark.parametrize("who", [None, "alice", "bob", "carol"])
def test_lines_sorted_deterministically(runner: CliRunner, acme_wiki: Path,
                                        who: str | None) -> None:
    extra = ["--as", who] if who else []
    lines = _export(runner, acme_wiki, *extra).splitlines()
    keys = [(c["subject"], c["attribute"], c["claim_id"]) for c in map(json.loads, lines)]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)


def test_two_exports_are_byte_identical(runner: CliRunner, acme_wiki: Path, exported: str,
                                        tmp_path: Path) -> None:
    assert _export(runner, acme_wiki) == exported
    out = tmp_path / "claims.jsonl"
    result = runner.invoke(app, ["export", "claims", "--wiki", str(acme_wiki), "--output",
                                 str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == exported.encode("utf-8")
    assert not list(tmp_path.glob(".*.tmp"))
    for who in ("alice", "carol"):
        assert _export(runner, acme_wiki, "--as", who) == _export(runner, acme_wiki, "--as", who)


def test_export_matches_page_sidecars(exported: str, acme_wiki: Path) -> None:
    """Each page's sidecar is JSON holding exactly its subject's exported claims, with the
    same status, and the sha256 of the page beside it."""
    by_subject: dict[str, dict[str, str]] = {}
    for c in map(json.loads, exported.splitlines()):
        by_subject.setdefault(c["subject"], {})[c["claim_id"]] = c["status"]
    for subject, statuses in by_subject.items():
        sidecar = json.loads((acme_wiki / f"{subject}.claims.json").read_text(encoding="utf-8"))
        assert sidecar["name"] == subject
        assert sidecar["page_sha256"] == sha256_hex((acme_wiki / f"{subject}.md").read_bytes())
        claims = {c["id"]: c for c in sidecar["claims"]}
        assert {cid: c["status"] for cid, c in claims.items()} == statuses, subject
        for c in claims.values():
            Claim.model_validate({k: v for k, v in c.items() if k != "status"})


def test_unsupported_format_exits_2(runner: CliRunner, acme_wiki: Path) -> None:
    result = runner.invoke(app, ["export", "claims", "--wiki", str(acme_wiki), "--format", "csv"])
    assert result.exit_code == 2
    assert result.stdout == ""

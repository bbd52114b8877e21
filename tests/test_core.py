"""The pure compile core: ids, slugs, extraction, linking, authority resolution, schemas."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from compiler.extract import OfflineBackend
from compiler.linking import link_record
from compiler.models import ACL, Authority, Claim, SourceRecord, SourceRef
from compiler.policy import AuthorityPolicy, PolicyError, load_policy
from compiler.registry import NameIndex, declaration_for, find_mentions
from compiler.resolve import resolve
from compiler.schemas import all_schemas
from compiler.slug import page_name, slugify
from compiler.text import normalize_value, sentences

ROOT = Path(__file__).resolve().parents[1]


def record(**kw) -> SourceRecord:
    base = dict(tenant="t", system="markdown", instance="h", type="doc", id="a", version="1",
                updated_at=datetime(2026, 1, 1, tzinfo=UTC), title="Return Policy",
                entity_type="policy", acl=ACL(public=True))
    base.update(kw)
    return SourceRecord(**base)


# -- ids and names ---------------------------------------------------------------------------

def test_record_hash_is_content_derived_and_ignores_origin() -> None:
    a = record(body="The return window is 30 days.", origin="x.md")
    b = record(body="The return window is 30 days.", origin="elsewhere/y.md")
    c = record(body="The return window is 60 days.")
    assert a.sha256 == b.sha256 != c.sha256
    assert a.key == "t/markdown/h/doc/a"


@pytest.mark.parametrize("title", ["../../etc/passwd", "/etc/shadow", "..", "a/../../b",
                                   "CON", "ä\u202eevil", "   "])
def test_page_names_cannot_escape_the_wiki(title: str) -> None:
    name = page_name("topic", title)
    kind, slug = name.split("/")
    assert kind == "topic" and slug and ".." not in slug
    assert all(ch.isalnum() or ch == "-" for ch in slug)
    assert Path("/wiki", f"{name}.md").resolve().is_relative_to(Path("/wiki"))


def test_slug_is_stable_and_bounded() -> None:
    assert slugify("Globex Corporation") == "globex-corporation"
    long = slugify("x" * 500)
    assert len(long) <= 90 and long == slugify("x" * 500)


def test_control_characters_in_titles_are_rejected() -> None:
    with pytest.raises(ValueError, match="control characters"):
        record(title="bell\x07title")


# -- extraction ------------------------------------------------------------------------------

def test_sentences_respect_abbreviations_and_lists() -> None:
    text = "Acme Corp. sells tools. Returns are free!\n- Refund window: 30 days\n# Heading"
    got = [text[s:e] for s, e in sentences(text)]
    assert got == ["Acme Corp. sells tools.", "Returns are free!", "Refund window: 30 days"]


def test_offline_backend_extracts_fields_facts_and_statements() -> None:
    r = record(body="The return window for Enterprise customers is 60 days.\n"
                    "Support hours: 9am to 5pm\nWe love our customers dearly.",
               fields={"Industry": "Retail", "NumberOfEmployees": 12000, "Empty": None})
    ex = OfflineBackend().extract(r)
    got = {(c.kind, c.attribute, c.value) for c in ex.claims}
    assert ("fact", "return window for enterprise customers", "60 days") in got
    assert ("fact", "support hours", "9am to 5pm") in got
    assert ("field", "number of employees", "12000") in got
    assert ("statement", "statement", "We love our customers dearly.") in got
    assert not any(c.field == "Empty" for c in ex.claims)
    for c in ex.claims:
        if c.span:
            assert r.body[c.span[0]:c.span[1]] == c.quote
    assert ex == OfflineBackend().extract(r)  # deterministic


def test_values_normalise_dates_quantities_and_case() -> None:
    assert normalize_value("March 1, 2026") == normalize_value("2026-03-01") == "2026-03-01"
    assert normalize_value("60 Days.") == normalize_value("60-day") == "60 days"
    assert normalize_value("20 percent") == normalize_value("20%")
    assert normalize_value("$1,200") == "$1200"
    assert normalize_value("60 days") != normalize_value("30 days")


# -- linking -----------------------------------------------------------------------------------

def test_fact_about_another_entity_moves_to_that_entity() -> None:
    policy = record()
    ticket = record(system="jira", type="issue", id="1", title="SUP-1: refund", name="SUP-1",
                    entity_type="ticket",
                    body="Per the Return Policy, the return window for Enterprise customers "
                         "is 30 days.")
    index = NameIndex([declaration_for(policy, 100), declaration_for(ticket, 30)])
    claims = link_record(ticket, OfflineBackend().extract(ticket), index,
                         Authority(rank=30, rule="tickets"))
    fact = next(c for c in claims if c.kind == "fact")
    assert fact.subject == "policy/return-policy"
    assert fact.attribute == "return window for enterprise customers"
    assert fact.source.key == ticket.key and fact.source.sha256 == ticket.sha256


def test_mentions_match_whole_words_longest_first() -> None:
    a = record(title="Acme Cloud", entity_type="product", id="p1")
    b = record(title="Acme", entity_type="account", id="p2")
    index = NameIndex([declaration_for(a, 10), declaration_for(b, 10)])
    text = "Acme Cloud runs for Acme, not for Acmeville."
    hits = [(text[s:e], eid) for s, e, eid in find_mentions(text, index.lookup)]
    assert hits == [("Acme Cloud", "product/acme-cloud"), ("Acme", "account/acme")]
    assert find_mentions(text, index.lookup, index.starts) == find_mentions(text, index.lookup)


def test_legal_suffix_variants_land_on_one_entity() -> None:
    prod = record(title="Globex Corporation", entity_type="account", id="1")
    legacy = record(title="Globex Corp.", entity_type="account", id="2")
    assert declaration_for(prod, 1).entity_id == declaration_for(legacy, 1).entity_id


# -- authority ----------------------------------------------------------------------------------

def claim(value: str, rank: int, rule: str, key: str, day: int = 1,
          attribute: str = "industry") -> Claim:
    src = SourceRef(key=key, version="1", sha256="0" * 64, system="s")
    cid = Claim.make_id("account/globex", attribute, value, "field", value, None, src)
    return Claim(id=cid, subject="account/globex", attribute=attribute, value=value,
                 kind="field", quote=value, source=src, authority=Authority(rank=rank, rule=rule),
                 observed_at=datetime(2026, 1, day, tzinfo=UTC), acl=ACL(public=True))


def test_higher_rank_wins_and_overruled_claims_keep_the_rule() -> None:
    prod = claim("Manufacturing", 80, "crm-prod", "a")
    legacy = claim("Retail", 40, "crm-legacy", "b", day=20)  # newer, but outranked
    agrees = claim("manufacturing.", 30, "tickets", "c")
    status, conflicts = resolve([legacy, prod, agrees], lambda r: "none")
    assert status == {prod.id: "winner", agrees.id: "winner", legacy.id: "overruled"}
    (conflict,) = conflicts
    assert conflict.state == "resolved" and conflict.value == "Manufacturing"
    assert conflict.overruled[0].claim_id == legacy.id
    assert "crm-prod (rank 80) over crm-legacy (rank 40)" in conflict.overruled[0].reason


def test_equal_rank_different_values_is_an_open_contradiction() -> None:
    a, b = claim("99.9%", 70, "docs", "a"), claim("99.95%", 70, "docs", "b", day=9)
    low = claim("98%", 10, "default", "c")
    status, (conflict,) = resolve([a, b, low], lambda r: "none")
    assert conflict.state == "open" and conflict.value is None
    assert status == {a.id: "contested", b.id: "contested", low.id: "overruled"}


def test_declared_recency_tiebreak_picks_the_newest() -> None:
    old, new = claim("Retail", 70, "crm", "a", day=1), claim("Energy", 70, "crm", "b", day=5)
    status, (conflict,) = resolve([old, new], lambda r: "recency")
    assert conflict.state == "resolved" and conflict.value == "Energy"
    assert status[old.id] == "overruled" and "recency" in conflict.overruled[0].reason


def test_resolution_does_not_depend_on_input_order() -> None:
    cs = [claim("A", 50, "x", "k1"), claim("B", 50, "x", "k2"), claim("C", 60, "y", "k3")]
    assert resolve(cs, lambda r: "none") == resolve(list(reversed(cs)), lambda r: "none")


def test_policy_first_matching_rule_gives_rank(tmp_path: Path) -> None:
    policy = load_policy(ROOT / "examples" / "acme" / "authority.yaml")
    r = record(system="confluence", container="POL", labels=("approved", "policy"),
               status="current")
    assert policy.authority(r).rank == 100
    assert policy.authority(record(system="unknown")).rule == policy.default.name


def test_invalid_policy_names_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "authority.yaml"
    bad.write_text("rules:\n  - name: x\n    rank: high\n    matches: {system: jira}\n")
    with pytest.raises(PolicyError) as exc:
        load_policy(bad)
    assert str(bad) in str(exc.value) and "rules.0.rank" in str(exc.value)
    assert "rules.0.matches" in str(exc.value)
    assert AuthorityPolicy().default.rank == 10


# -- schemas ---------------------------------------------------------------------------------

def test_exported_json_schemas_are_current() -> None:
    for name, schema in all_schemas().items():
        path = ROOT / "docs" / "schemas" / f"{name}.schema.json"
        assert path.exists(), f"run `folio schemas` to write {path}"
        assert json.loads(path.read_text()) == schema, f"{path} is stale: run `folio schemas`"

"""The schema layer (issue 20): schema.yaml loading and errors, the base schema's mappings, typed
values, schema-aware linking and the authority semantics that rely on them.

The three conflicts the issue quotes are here in our own data: two CRMs' revenue fields on one
account, HubSpot's industry code against Salesforce's label, and a policy page against a ticket
on a qualified refund window."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from compiler.build import CompileError, compile_wiki, wiki_state
from compiler.extract.base import Extraction, RawClaim
from compiler.extract.offline import OfflineBackend, structured_claims
from compiler.linking import link_record
from compiler.models import ACL, Authority, Claim, SourceRecord
from compiler.policy import AuthorityPolicy, Match
from compiler.registry import NameIndex, declaration_for
from compiler.resolve import resolve
from compiler.schema import SchemaError, base_schema, digest, load_schema, merge, parse_schema
from compiler.schema.index import vocabulary
from compiler.schema.keys import attr_key, field_words, value_key
from compiler.schema.values import normalize

TODAY = "2026-11-21"
T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


# -- 2: typed values -------------------------------------------------------------------------

@pytest.mark.parametrize(("a", "b"), [
    ("30 days", "thirty days"), ("30 days", "30-day"), ("4 weeks", "28 days"),
    ("up to 45 days", "45 days"), ("a fortnight", "14 days"), ("48 hours", "2 days"),
])
def test_equal_durations(a: str, b: str) -> None:
    assert normalize(a, "duration", unit="days") == normalize(b, "duration", unit="days")


@pytest.mark.parametrize(("a", "b"), [
    ("one month", "30 days"), ("10 business days", "14 days"), ("1 year", "365 days"),
])
def test_durations_of_other_families_never_meet(a: str, b: str) -> None:
    assert normalize(a, "duration", unit="days") != normalize(b, "duration", unit="days")


def test_money_number_percent_date_datetime_boolean() -> None:
    forms = {"$22,000,000", "22000000", "22M", "22 million", "USD 22,000,000", "22000000.0"}
    assert {normalize(v, "money", currency="USD") for v in forms} == {"22000000 USD"}
    assert normalize("€22M", "money", currency="USD") == "22000000 EUR"
    assert {normalize(v, "money") for v in ("6,950 US dollars", "USD 6,950", "$6,950",
                                            "6950 dollars", "6,950 U.S. dollars")} == {"6950 USD"}
    assert normalize("6,950 Swiss francs", "money", currency="USD") == "6950 CHF"
    assert normalize("2400000000.0", "number") == "2400000000"
    assert normalize("12k", "number") == "12000"
    assert {normalize(v, "percent") for v in ("15%", "15 percent", "15")} == {"15"}
    dates = {"2026-03-01", "March 1, 2026", "1 Mar 2026", "03/01/2026", "Sunday, March 1st, 2026",
             "2026-03-01T10:00:00Z"}
    assert {normalize(v, "date") for v in dates} == {"2026-03-01"}
    assert normalize("31/12/2026", "date") == "2026-12-31"  # cannot be month first
    assert normalize("2026-03-01T10:00:00+02:00", "datetime") == "2026-03-01T08:00:00Z"
    assert normalize("2026-03-01T08:00:00.000+0000", "datetime") == "2026-03-01T08:00:00Z"
    assert {normalize(v, "boolean") for v in ("Yes", "true", "checked")} == {"true"}
    # what does not read as its type falls back to text: never equal to a number
    assert normalize("TBD", "money", currency="USD") == "tbd"
    # text with a shape: a web address, a phone number (a date stays a date)
    assert {normalize(v, "text") for v in ("https://www.globex.example/", "www.globex.example",
                                           "globex.example")} == {"globex.example"}
    assert {normalize(v, "text") for v in ("+1 555 0100", "+1-555-0100", "+15550100")} == {
        "+15550100"}
    assert normalize("2026-03-01", "text") == "2026-03-01"


def test_names_and_enum_values_compare_by_key_and_words() -> None:
    assert attr_key("annual revenue") == attr_key("annualrevenue") == attr_key("AnnualRevenue") \
        == attr_key("Annual_Revenue") == attr_key("AnnualRevenue__c")
    assert value_key("FOOD_BEVERAGES") == value_key("Food & Beverage") \
        == value_key("food and beverages")
    assert value_key("Retail") != value_key("Real Estate")
    assert field_words("issuetype") == "issue type"
    assert field_words("numberofemployees") == "number of employees"
    assert field_words("CustomerTier__c") == "customer tier"


# -- 1: schema.yaml ----------------------------------------------------------------------------

def test_base_schema_maps_the_standard_fields_of_each_system() -> None:
    vocab = vocabulary(base_schema())
    cases = [
        ("salesforce", "Account", "account", "AnnualRevenue", "annual revenue"),
        ("hubspot", "company", "account", "annualrevenue", "annual revenue"),
        ("salesforce", "Account", "account", "NumberOfEmployees", "employees"),
        ("hubspot", "company", "account", "numberofemployees", "employees"),
        ("salesforce", "Opportunity", "opportunity", "StageName", "stage"),
        ("hubspot", "deal", "opportunity", "dealstage", "stage"),
        ("hubspot", "contact", "contact", "jobtitle", "title"),
        ("zendesk", "ticket", "ticket", "type", "ticket type"),
        ("jira", "issue", "ticket", "issuetype", "ticket type"),
        ("jira", "issue", "ticket", "resolutiondate", "resolved"),
        ("jira", "issue", "ticket", "fixVersions", "fix version"),
    ]
    for system, rtype, etype, field, attribute in cases:
        hit = vocab.field(system, "any", rtype, etype, field)
        assert hit is not None and hit[0].name == attribute, (system, field)
    industry = vocab.attribute("account", "industry")
    assert vocab.enum_label(industry, "FOOD_BEVERAGES") == "Food & Beverage"
    assert vocab.enum_label(industry, "COMPUTER_SOFTWARE") == "Computer Software"
    assert vocab.enum_label(industry, "Food & Beverage") == "Food & Beverage"
    country = vocab.attribute("account", "billing country")
    assert {vocab.enum_label(country, v) for v in ("US", "USA", "United States", "U.S.")} == {
        "United States"}
    assert vocab.enum_label(country, "NO") == "Norway"


def test_corpus_schema_extends_and_overrides_the_base(tmp_path: Path) -> None:
    (tmp_path / "schema.yaml").write_text(
        "version: '7'\n"
        "types:\n"
        "  Account:\n"
        "    attributes:\n"
        "      Annual_Revenue: {currency: EUR, phrases: [sales volume]}\n"
        "      segment: {type: enum, values: {SMB: [small business]}}\n"
        "mappings:\n"
        "  - system: salesforce\n"
        "    record_type: accounts\n"
        "    fields: {Segment__c: segment, AnnualRevenue: {attribute: segment}}\n")
    schema = load_schema(tmp_path)
    revenue = schema.types["account"].attributes["annual revenue"]
    assert (revenue.type, revenue.currency) == ("money", "EUR")  # overridden, type kept
    assert "sales volume" in revenue.phrases and "yearly revenue" in revenue.phrases
    vocab = vocabulary(schema)
    assert vocab.field("salesforce", "x", "Account", "account", "Segment__c")[0].name == "segment"
    # the corpus's mapping is as specific as the base's and comes later: it wins
    assert vocab.field("salesforce", "x", "Account", "account", "AnnualRevenue")[0].name == \
        "segment"
    assert schema.version == "7" and digest(schema) != digest(base_schema())
    assert load_schema(tmp_path / "none") == base_schema()  # no schema.yaml: the base alone


@pytest.mark.parametrize(("text", "line", "key", "why"), [
    ("types:\n  account:\n    attributes:\n      revenue: {type: currency}\n", 4,
     "types.account.attributes.revenue.type", "Input should be"),
    ("version: 1\ntypes:\n  policy:\n    attributes:\n      window:\n        type: duration\n"
     "        qualifiers: [tier]\n", 7, "types.policy.attributes.window.qualifiers[0]",
     "not declared"),
    ("types:\n  a: {}\n  a: {}\n", 3, "types.a", "duplicate key"),
    ("types:\n  account:\n    attribs: {}\n", 3, "types.account.attribs", "Extra inputs"),
    ("mappings:\n  - system: hubspot\n    fields: [a, b]\n", 3, "mappings[0].fields",
     "valid dictionary"),
    ("types:\n  account:\n    attributes:\n      Annual Revenue: {}\n      annual_revenue: {}\n",
     5, "types.account.attributes.annual_revenue", "the same attribute as 'Annual Revenue'"),
])
def test_schema_errors_name_file_line_and_key(tmp_path: Path, text: str, line: int, key: str,
                                             why: str) -> None:
    path = tmp_path / "schema.yaml"
    path.write_text(text)
    with pytest.raises(SchemaError) as err:
        load_schema(tmp_path)
    message = str(err.value)
    assert message.startswith(f"{path}:{line}: {key}: "), message
    assert why in message


def test_mapping_onto_an_undeclared_attribute_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "schema.yaml").write_text(
        "mappings:\n  - system: hubspot\n    fields: {hs_x: no such thing}\n")
    with pytest.raises(SchemaError, match=r"mappings\[\d+\]\.fields\.hs_x: attribute 'no such "
                                          r"thing' is not declared"):
        load_schema(tmp_path)


def test_alias_bombs_are_refused_not_expanded() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"{chr(97 + i)}: &{chr(97 + i)} [" + ", ".join([f"*{chr(96 + i)}"] * 10) + "]")
    with pytest.raises(SchemaError, match="YAML nodes"):
        parse_schema("\n".join(lines) + "\n", "bomb.yaml")


def test_a_bad_schema_stops_the_compile_with_its_location(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    (corpus / "schema.yaml").write_text("types:\n  account:\n    attributes: [revenue]\n")
    with pytest.raises(CompileError, match=r"schema.yaml:3: types.account.attributes: "):
        compile_wiki(corpus, tmp_path / "wiki", today=TODAY)


# -- structured fields through the schema ------------------------------------------------------

def _record(system: str = "salesforce", rtype: str = "Account", etype: str = "account",
            name: str = "Globex Corporation", **kw: object) -> SourceRecord:
    defaults: dict = dict(tenant="t", system=system, instance="i", type=rtype, id=f"{system}-{name}",
                          version="1", updated_at=T0, title=name, entity_type=etype,
                          acl=ACL(public=True))
    defaults.update(kw)
    return SourceRecord(**defaults)


def test_structured_claims_map_fields_and_keep_the_source_number_form() -> None:
    record = _record(fields={"AnnualRevenue": 2400000000.0, "Phone": "+1 555", "Rank__c": 3,
                             "NumberOfEmployees": 96000.0, "Weird_Field__c": True})
    by_field = {c.field: c for c in structured_claims(record, base_schema())}
    assert by_field["AnnualRevenue"].value == "2400000000"
    assert by_field["NumberOfEmployees"].value == "96000"
    assert (by_field["AnnualRevenue"].attribute, by_field["AnnualRevenue"].mapped) == (
        "annual revenue", True)
    assert by_field["AnnualRevenue"].subject_type == "account"
    assert (by_field["Weird_Field__c"].attribute, by_field["Weird_Field__c"].mapped,
            by_field["Weird_Field__c"].value) == ("weird field", False, "true")
    jira = _record("jira", "issue", "ticket", "SUP-1", fields={"issuetype": "Bug"})
    (claim,) = [c for c in structured_claims(jira, base_schema()) if c.field == "issuetype"]
    assert (claim.attribute, claim.mapped) == ("ticket type", True)


def test_offline_backend_digest_follows_the_schema(tmp_path: Path) -> None:
    (tmp_path / "schema.yaml").write_text("version: '2'\n")
    a, b = OfflineBackend(schema=base_schema()), OfflineBackend(schema=load_schema(tmp_path))
    assert a.digest != b.digest and a.engine_digest == b.engine_digest
    assert OfflineBackend().digest == a.engine_digest


# -- (a) and (b): two CRMs on one account ------------------------------------------------------

AUTHORITY = """version: 1
rules:
  - {name: crm, rank: 80, match: {system: salesforce}}
  - {name: marketing, rank: 60, match: {system: hubspot}}
  - {name: support, rank: 30, match: {system: [zendesk, jira]}}
"""


def _corpus(tmp_path: Path, sf: dict | None = None, hs: dict | None = None) -> Path:
    corpus = tmp_path / "corpus"
    for sub in ("sf", "hs/companies", "zd"):
        (corpus / sub).mkdir(parents=True, exist_ok=True)
    (corpus / "sources.yaml").write_text(
        "tenant: t\nsources:\n"
        "  - {path: sf, system: salesforce, instance: prod}\n"
        "  - {path: hs, system: hubspot, instance: portal-1}\n"
        "  - {path: zd, system: zendesk, instance: t.zendesk.com}\n")
    (corpus / "authority.yaml").write_text(AUTHORITY)
    account = {"attributes": {"type": "Account", "url": "/services/data/v59.0/sobjects/Account/001A"},
               "Id": "001A", "Name": "Globex Corporation", "AnnualRevenue": 2400000000.0,
               "Industry": "Food & Beverage", "NumberOfEmployees": 12000,
               "LastModifiedDate": "2026-10-01T10:00:00.000+0000",
               "SystemModstamp": "2026-10-02T03:00:00.000+0000", **(sf or {})}
    (corpus / "sf" / "accounts.json").write_text(json.dumps(
        {"totalSize": 1, "done": True, "records": [account]}))
    company = {"id": "1801", "properties": {
        "name": "Globex", "annualrevenue": "2100000000", "industry": "FOOD_BEVERAGES",
        "numberofemployees": "12,000", "hs_lastmodifieddate": "2026-11-01T09:00:00.000Z",
        **(hs or {})}, "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-11-01T09:00:00Z",
        "archived": False}
    (corpus / "hs" / "companies" / "page-1.json").write_text(json.dumps({"results": [company]}))
    return corpus


def _claims(wiki: Path, subject: str) -> list[tuple[Claim, str]]:
    st = wiki_state(wiki)
    try:
        return [(c, s) for c, s in st.iter_claims() if c.subject == subject]
    finally:
        st.close()


def test_a_two_crms_revenue_fields_meet_on_one_attribute_and_authority_decides(
        tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    wiki = tmp_path / "wiki"
    report = compile_wiki(corpus, wiki, today=TODAY)
    assert report.rejected == 0
    revenue = [(c, s) for c, s in _claims(wiki, "account/globex") if c.field in (
        "AnnualRevenue", "annualrevenue")]
    assert {c.attribute for c, _ in revenue} == {"annual revenue"}
    status = {c.source.system: (c.value, c.normalized, s) for c, s in revenue}
    assert status == {"salesforce": ("2400000000", "2400000000 USD", "winner"),
                      "hubspot": ("2100000000", "2100000000 USD", "overruled")}
    sidecar = json.loads((wiki / "account" / "globex.claims.json").read_text())
    (conflict,) = [c for c in sidecar["conflicts"] if c["attribute"] == "annual revenue"]
    assert conflict["state"] == "resolved" and conflict["value"] == "2400000000"
    assert "outranked: crm (rank 80) over marketing (rank 60)" in conflict["overruled"][0]["reason"]
    page = (wiki / "account" / "globex.md").read_text()
    assert page.count("| annual revenue |") == 1  # one row, the winner's value as written
    # the same figure written differently is no conflict at all
    corpus = _corpus(tmp_path / "b", hs={"annualrevenue": "2400000000.00"})
    compile_wiki(corpus, tmp_path / "wiki-b", today=TODAY)
    assert {s for c, s in _claims(tmp_path / "wiki-b", "account/globex")
            if c.attribute == "annual revenue"} == {"winner"}


def test_b_an_enum_code_and_its_label_are_the_same_value(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today=TODAY)
    industry = [(c, s) for c, s in _claims(wiki, "account/globex") if c.attribute == "industry"]
    assert sorted(c.value for c, _ in industry) == ["FOOD_BEVERAGES", "Food & Beverage"]
    assert {(c.normalized, c.value_type, s) for c, s in industry} == {
        ("Food & Beverage", "enum", "winner")}
    employees = [s for c, s in _claims(wiki, "account/globex") if c.attribute == "employees"]
    assert employees == ["winner", "winner"]  # 12000 and "12,000"
    sidecar = json.loads((wiki / "account" / "globex.claims.json").read_text())
    # the revenue figures differ (and the names, "Globex" and "Globex Corporation"); industry
    # and headcount agree once typed
    assert [c["attribute"] for c in sidecar["conflicts"]] == ["annual revenue", "name"]
    # a different industry is a conflict, which authority settles
    corpus = _corpus(tmp_path / "b", hs={"industry": "COMPUTER_SOFTWARE"})
    compile_wiki(corpus, tmp_path / "wiki-b", today=TODAY)
    statuses = {c.value: s for c, s in _claims(tmp_path / "wiki-b", "account/globex")
                if c.attribute == "industry"}
    assert statuses == {"Food & Beverage": "winner", "COMPUTER_SOFTWARE": "overruled"}


# -- (c): a policy page and a ticket on a qualified refund window --------------------------------

REFUND_SCHEMA = """
version: "r-1"
types:
  policy:
    attributes:
      refund window:
        type: duration
        unit: days
        qualifiers: [customer tier]
        phrases: [refund period]
        home: Refund Policy
"""


def _link(records: list[SourceRecord], raws: dict[str, list[RawClaim]], policy: AuthorityPolicy,
          schema) -> list[Claim]:  # noqa: ANN001
    index = NameIndex(declaration_for(r, policy.authority(r).rank) for r in records)
    out: list[Claim] = []
    for r in records:
        out += link_record(r, Extraction(backend="t", claims=tuple(raws[r.id])), index,
                           policy.authority(r), schema)
    return out


def _refund_claim(quote: str, value: str, tier: str = "Enterprise") -> RawClaim:
    return RawClaim(attribute="refund window", value=value, kind="fact", quote=quote,
                    span=(0, len(quote)), mapped=True, subject_type="policy",
                    qualifiers=(("customer tier", tier),))


def test_c_a_policy_sentence_and_a_ticket_meet_on_one_qualified_attribute() -> None:
    schema = merge(base_schema(), parse_schema(REFUND_SCHEMA, "schema.yaml"))
    policy = AuthorityPolicy(rules=(
        {"name": "approved-policy", "rank": 100, "match": {"system": "confluence"}},
        {"name": "support", "rank": 30, "match": {"system": "zendesk"}}))
    page = _record("confluence", "page", "policy", "Refund Policy")
    other = _record("confluence", "page", "policy", "Travel Policy")
    ticket = _record("zendesk", "ticket", "ticket", "Ticket #4411")
    sentence = "Refund requests from Enterprise customers are accepted up to 30 days after purchase."
    said = "The refund window for Enterprise customers is 45 days."
    raws = {
        page.id: [_refund_claim(sentence, "up to 30 days"),
                  _refund_claim("Standard customers get fourteen days.", "fourteen days",
                                "Standard")],
        other.id: [],
        ticket.id: [_refund_claim(said, "45 days"),
                    _refund_claim("Per the Refund Policy, Standard is 2 weeks.", "2 weeks",
                                  "Standard")],
    }
    claims = _link([page, other, ticket], raws, policy, schema)
    window = [c for c in claims if c.attribute == "refund window"]
    # the ticket names no policy: its claim is about the attribute's home, the Refund Policy
    assert {c.subject for c in window} == {"policy/refund-policy"}
    assert all(c.mapped and c.value_type == "duration" for c in window)
    status, conflicts = resolve(window, lambda rule: policy.rule_named(rule).tiebreak)
    by_value = {c.value: status[c.id] for c in window}
    assert by_value == {"up to 30 days": "winner", "45 days": "overruled",
                        "fourteen days": "winner", "2 weeks": "winner"}  # 14 days = 2 weeks
    (conflict,) = conflicts
    assert conflict.qualifiers == {"customer tier": "Enterprise"}
    assert conflict.label == "refund window (Enterprise)" and conflict.value == "up to 30 days"
    # the qualifier is part of the claim's identity
    ids = {c.id for c in window}
    assert len(ids) == 4


def test_typed_subject_prefers_an_entity_of_that_type_named_in_the_sentence() -> None:
    schema = merge(base_schema(), parse_schema(REFUND_SCHEMA, "schema.yaml"))
    policy = AuthorityPolicy()
    page = _record("confluence", "page", "policy", "Refund Policy")
    travel = _record("confluence", "page", "policy", "Partner Refund Policy")
    ticket = _record("zendesk", "ticket", "ticket", "Ticket #9")
    note = _record("zendesk", "ticket", "ticket", "Ticket #10")
    raws = {page.id: [], travel.id: [],
            ticket.id: [_refund_claim("Under the Partner Refund Policy it is 60 days.", "60 days")],
            note.id: [RawClaim(attribute="refund window", value="9 days", kind="fact",
                               quote="x", span=(0, 1), mapped=True, subject_type="invoice")]}
    claims = {c.value: c for c in _link([page, travel, ticket, note], raws, policy, schema)
              if c.attribute == "refund window"}
    assert claims["60 days"].subject == "policy/partner-refund-policy"
    # no entity of the type and no home: the record's own entity, unmapped
    assert (claims["9 days"].subject, claims["9 days"].mapped) == ("ticket/ticket-10", False)
    assert claims["9 days"].value_type == "text"
    # a policy attribute, no policy named and its home not in the wiki: stays on the ticket,
    # unmapped (a ticket has no refund window)
    alone = _link([note], {note.id: [_refund_claim("It is 9 days.", "9 days")]}, policy, schema)
    assert [(c.subject, c.mapped, c.value_type, c.qualifiers) for c in alone
            if c.value == "9 days"] == [("ticket/ticket-10", False, "text", {})]


# -- 4: authority semantics --------------------------------------------------------------------

def _claim(value: str, rule: str, rank: int, when: datetime | None, key: str,
           stated: datetime | None = None, multi: bool = False) -> Claim:
    from compiler.models import SourceRef

    ref = SourceRef(key=key, version="1", sha256="0" * 64, system="x")
    return Claim(id=Claim.make_id("topic/x", "a", value, "fact", value, None, ref),
                 subject="topic/x", attribute="a", value=value, kind="fact", quote=value,
                 source=ref, authority=Authority(rank=rank, rule=rule), observed_at=when,
                 stated_at=stated, acl=ACL(), normalized=value,
                 cardinality="multi" if multi else "single")


def _recency(rule: str) -> str:
    return "recency" if rule == "wiki" else "none"


def test_recency_uses_each_claims_own_time_and_refuses_to_guess() -> None:
    older, newer = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 6, 1, tzinfo=UTC)
    a, b = _claim("10", "wiki", 50, older, "k/a"), _claim("20", "wiki", 50, newer, "k/b")
    status, (conflict,) = resolve([a, b], _recency)
    assert (status[a.id], status[b.id], conflict.value) == ("overruled", "winner", "20")
    # a comment's own time beats its record's later update
    c = _claim("30", "wiki", 50, newer, "k/c", stated=older)
    d = _claim("40", "wiki", 50, datetime(2026, 3, 1, tzinfo=UTC), "k/d")
    status, _ = resolve([c, d], _recency)
    assert (status[c.id], status[d.id]) == ("overruled", "winner")
    # a claim without a timestamp: contested, not picked
    e = _claim("50", "wiki", 50, None, "k/e")
    status, (conflict,) = resolve([a, b, e], _recency)
    assert conflict.state == "open" and {status[x.id] for x in (a, b, e)} == {"contested"}
    # a tie at the latest time: contested
    f = _claim("60", "wiki", 50, newer, "k/f")
    status, (conflict,) = resolve([a, b, f], _recency)
    assert conflict.state == "open" and status[b.id] == status[f.id] == "contested"
    assert status[a.id] == "contested"  # at the leaders' rank, an older value is contested too


def test_multi_valued_attributes_accumulate() -> None:
    a = _claim("eu-west", "wiki", 50, None, "k/a", multi=True)
    b = _claim("us-east", "wiki", 50, None, "k/b", multi=True)
    status, conflicts = resolve([a, b], _recency)
    assert conflicts == [] and set(status.values()) == {"winner"}


def test_label_exclusion_in_match() -> None:
    rule = Match(system="confluence", labels=["approved"], labels_not=["draft"])
    approved = _record("confluence", "page", "policy", "P", labels=("approved",))
    draft = _record("confluence", "page", "policy", "P", labels=("approved", "draft"))
    assert rule.holds(approved) and not rule.holds(draft)


def test_jira_comment_claims_are_as_of_the_comment(tmp_path: Path) -> None:
    from connectors.base import SourceConfig
    from connectors.jira import JiraConnector

    issue = {"id": "10001", "key": "SUP-1", "fields": {
        "summary": "Refunds", "updated": "2026-11-20T10:00:00.000+0000",
        "description": "The refund window is 30 days.",
        "comment": {"comments": [
            {"author": {"displayName": "Ana"}, "created": "2026-11-02T08:00:00.000+0000",
             "body": "The refund window is 45 days."}]}}}
    (record,) = JiraConnector().parse("j.json", json.dumps({"issues": [issue]}).encode(),
                                      SourceConfig(path="j", system="jira", instance="i"), "t")
    claims = link_record(record, OfflineBackend(schema=base_schema()).extract(record),
                         NameIndex([declaration_for(record, 10)]), Authority(rank=10, rule="r"),
                         base_schema())
    times = {c.value: c.as_of for c in claims if c.attribute == "refund window"}
    assert times == {"30 days": datetime(2026, 11, 20, 10, tzinfo=UTC),
                     "45 days": datetime(2026, 11, 2, 8, tzinfo=UTC)}


def test_salesforce_and_hubspot_claims_carry_their_own_modified_times(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today=TODAY)
    times = {c.source.system: c.as_of for c, _ in _claims(wiki, "account/globex")}
    assert times == {"salesforce": datetime(2026, 10, 1, 10, tzinfo=UTC),  # LastModifiedDate
                     "hubspot": datetime(2026, 11, 1, 9, tzinfo=UTC)}  # updatedAt


def test_zendesk_organizations_are_read_and_name_the_account(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    (corpus / "zd" / "organizations.json").write_text(json.dumps({"organizations": [
        {"id": 360000111, "name": "Globex Corporation", "domain_names": ["globex.example"],
         "details": "Key account since 2019.", "tags": ["vip"],
         "updated_at": "2026-09-01T00:00:00Z"}], "next_page": None}))
    # a ticket export that knows the organization by id only
    (corpus / "zd" / "tickets.json").write_text(json.dumps({"tickets": [
        {"id": 77, "subject": "Invoice question", "description": "Where is my invoice?",
         "status": "open", "organization_id": 360000111,
         "updated_at": "2026-11-02T00:00:00Z"}]}))
    wiki = tmp_path / "wiki"
    report = compile_wiki(corpus, wiki, today=TODAY)
    assert report.rejected == 0
    st = wiki_state(wiki)
    try:
        entity = st.entity("account/globex")
        assert entity is not None
        assert "t/zendesk/t.zendesk.com/organization/360000111" in entity.declared_by
        assert {"globex.example", "Zendesk organization 360000111"} <= set(entity.aliases)
        (ref,) = [c for c, _ in st.iter_claims()
                  if c.subject == "ticket/ticket-77" and c.kind == "reference"]
        assert ref.normalized == "account/globex"  # the ticket links to the CRM's account
    finally:
        st.close()


# -- 5: SCHEMA.md, DBOM, lint -------------------------------------------------------------------

def test_schema_md_dbom_and_lint_describe_the_schema(tmp_path: Path) -> None:
    from compiler.lint import lint

    corpus = _corpus(tmp_path, sf={"Region_Code__c": "EMEA-7"})
    (corpus / "schema.yaml").write_text(REFUND_SCHEMA)
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today=TODAY)
    text = (wiki / "SCHEMA.md").read_text()
    want = digest(load_schema(corpus))
    assert f"Schema version `r-1`, digest `{want}`" in text
    # the corpus's declaration merges over the base's own refund window (phrases add up)
    assert ("| refund window | duration (days) | single | customer tier | "
            "refund period, money-back period |") in text
    assert "| hubspot | any | company | annualrevenue | account.annual revenue |" in text
    st = wiki_state(wiki)
    try:
        report = lint(st, wiki, datetime(2026, 11, 21, tzinfo=UTC))
    finally:
        st.close()
    unmapped = {u.attribute: u.claims for u in report.unmapped}
    assert unmapped.get("region code") == 1 and "annual revenue" not in unmapped


def test_search_finds_a_value_by_its_typed_form(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, hs={"annualrevenue": "$2.1B"})
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today=TODAY)
    st = wiki_state(wiki)
    try:
        by_id = {c.id: c for c, _ in st.iter_claims()}
        found = {by_id[cid].value for cid, _ in st.search_claims("beverage", 20)}
        # HubSpot wrote FOOD_BEVERAGES: only its typed form says "beverage"
        assert found == {"FOOD_BEVERAGES", "Food & Beverage"}
        found = {by_id[cid].value for cid, _ in st.search_claims("2100000000", 20)}
        assert found == {"$2.1B"}
    finally:
        st.close()


def test_a_mapping_without_entity_type_may_name_an_attribute_of_several_types(
        tmp_path: Path) -> None:
    (tmp_path / "schema.yaml").write_text(
        "mappings:\n  - system: pipedrive\n    fields: {phone_number: phone}\n")
    vocab = vocabulary(load_schema(tmp_path))  # phone: on account and on contact
    assert vocab.field("pipedrive", "x", "person", "contact", "phone_number")[0].type == "contact"
    assert vocab.field("pipedrive", "x", "org", "account", "phone_number")[0].type == "account"


def test_lint_tells_surface_phrase_disagreements_from_fact_contradictions(tmp_path: Path) -> None:
    """Two prose facts under an undeclared attribute are a possible contradiction (warning);
    declared in schema.yaml, the same disagreement is an open contradiction (error)."""
    from compiler.lint import lint

    corpus = tmp_path / "corpus"
    (corpus / "notes").mkdir(parents=True)
    (corpus / "sources.yaml").write_text(
        "tenant: t\nsources:\n  - {path: notes, system: markdown, instance: notes}\n")
    for name, days in (("a", 30), ("b", 45)):
        (corpus / "notes" / f"{name}.md").write_text(
            f"---\ntitle: Note {name}\nupdated: 2026-11-0{1 if name == 'a' else 2}\n---\n"
            f"Project Kestrel's review cycle is {days} days.\n")
    (corpus / "notes" / "k.md").write_text("---\ntitle: Project Kestrel\n---\nA project.\n")

    def findings(wiki: Path) -> dict[str, str]:
        compile_wiki(corpus, wiki, today=TODAY)
        st = wiki_state(wiki)
        try:
            return {f.code: f.severity for f in lint(st, wiki, datetime(2026, 11, 21, tzinfo=UTC))
                    .findings if "contradiction" in f.code}
        finally:
            st.close()

    assert findings(tmp_path / "w1") == {"possible-contradiction": "warning"}
    (corpus / "schema.yaml").write_text(
        "types:\n  topic:\n    attributes:\n      review cycle: {type: duration, unit: days}\n")
    assert findings(tmp_path / "w2") == {"open-contradiction": "error"}


def test_a_field_map_carries_qualifiers_and_a_value_map(tmp_path: Path) -> None:
    (tmp_path / "schema.yaml").write_text(REFUND_SCHEMA + """
mappings:
  - system: salesforce
    record_type: Account
    fields:
      Ent_Refund_Days__c: {attribute: refund window, qualifiers: {Customer Tier: ent}}
      Sector__c: {attribute: industry, values: {"F&B ": Food & Beverage}}
""")
    schema = load_schema(tmp_path)
    record = _record(fields={"Ent_Refund_Days__c": 45, "Sector__c": "F&B"})
    raws = {c.field: c for c in structured_claims(record, schema)}
    assert raws["Ent_Refund_Days__c"].qualifiers == (("customer tier", "Enterprise"),)
    claims = {c.field: c for c in link_record(
        record, Extraction(backend="t", claims=tuple(raws.values())),
        NameIndex([declaration_for(record, 10)]), Authority(rank=10, rule="r"), schema)}
    window = claims["Ent_Refund_Days__c"]
    # declared on policies, stated by an account's field: the field's own record is the subject
    assert (window.attribute, window.qualifiers, window.normalized) == (
        "refund window", {"customer tier": "Enterprise"}, "45 days")
    sector = claims["Sector__c"]
    assert (sector.attribute, sector.value, sector.normalized) == (
        "industry", "F&B", "Food & Beverage")


def test_a_declared_relation_is_a_mapped_reference_to_an_entity_id() -> None:
    from compiler.models import Reference

    schema = load_schema(Path(__file__).resolve().parents[1] / "examples" / "acme")
    deal = _record("salesforce", "Opportunity", "opportunity", "Globex renewal", references=(
        Reference(relation="primary product", target_type="product", target_name="Acme Edge"),
        Reference(relation="partner", target_type="account", target_name="Acme Edge")))
    product = _record("salesforce", "Product2", "product", "Acme Edge")
    index = NameIndex([declaration_for(deal, 10), declaration_for(product, 10)])
    claims = {c.attribute: c for c in link_record(
        deal, Extraction(backend="t", claims=tuple(structured_claims(deal, schema))), index,
        Authority(rank=10, rule="r"), schema)}
    primary = claims["primary product"]
    assert (primary.kind, primary.mapped, primary.value_type, primary.normalized) == (
        "reference", True, "reference", "product/acme-edge")
    assert claims["partner"].mapped is False


def test_schema_scalars_are_read_as_written() -> None:
    schema = parse_schema("version: 2026.10\ntypes:\n  account:\n    attributes:\n"
                          "      country:\n        type: enum\n"
                          "        values: {Norway: [NO, nor], 'Yes Corp': [yes, 1]}\n", "s.yaml")
    country = schema.types["account"].attributes["country"]
    assert schema.version == "2026.10"
    assert country.values == {"Norway": ("NO", "nor"), "Yes Corp": ("yes", "1")}


def test_a_site_schema_edit_reships_its_claim_set(tmp_path: Path) -> None:
    """A site's extraction maps fields through its schema: after a schema edit the unchanged
    records' new extractions must reach the centre, so every shard is written again."""
    from compiler.claimset import SharePolicy, export_claimset

    corpus = _corpus(tmp_path)
    site = tmp_path / "site"
    compile_wiki(corpus, site, today=TODAY, extract_only=True)
    out = tmp_path / "claimset"
    _, written = export_claimset(site / ".folio" / "state.db", out, site="emea", tenant="t",
                                 policy=SharePolicy())
    assert written
    _, written = export_claimset(site / ".folio" / "state.db", out, site="emea", tenant="t",
                                 policy=SharePolicy())
    assert written == []  # nothing changed
    (corpus / "schema.yaml").write_text(
        "types:\n  account:\n    attributes:\n      headcount: {type: number}\n"
        "mappings:\n  - system: hubspot\n    fields: {numberofemployees: headcount}\n")
    report = compile_wiki(corpus, site, today=TODAY, extract_only=True)
    assert report.records_reextracted == 1 and report.changed_keys == []  # the HubSpot company
    _, written = export_claimset(site / ".folio" / "state.db", out, site="emea", tenant="t",
                                 policy=SharePolicy())
    assert written
    shipped = b"".join(p.read_bytes() for p in out.glob("*") if p.name != "claimset.json")
    assert b'"attribute":"headcount"' in shipped


def test_the_documented_example_is_a_valid_schema(tmp_path: Path) -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "schema.md").read_text()
    example = doc.split("```yaml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "schema.yaml").write_text(example)
    schema = load_schema(tmp_path)
    vocab = vocabulary(schema)
    industry = vocab.attribute("account", "industry")
    assert vocab.enum_label(industry, "F&B") == "Food & Beverage"
    hit = vocab.field("hubspot", "portal", "company", "account", "annualrevenue")
    assert hit is not None and hit[0].name == "annual revenue"
    assert schema.types["policy"].attributes["refund window"].home == "Refund Policy"


def test_a_field_map_scale_makes_hubspots_probability_a_percent() -> None:
    schema = base_schema()
    sf = _record(rtype="Opportunity", etype="opportunity", name="Big Deal",
                 fields={"Probability": 60.0})
    hs = _record("hubspot", "deal", "opportunity", "Big Deal",
                 fields={"hs_deal_stage_probability": "0.6"})
    index = NameIndex([declaration_for(sf, 10), declaration_for(hs, 10)])
    claims = [c for r in (sf, hs) for c in link_record(
        r, Extraction(backend="t", claims=tuple(structured_claims(r, schema))), index,
        Authority(rank=10, rule="r"), schema) if c.attribute == "probability"]
    assert sorted((c.value, c.normalized) for c in claims) == [("0.6", "60"), ("60", "60")]


def test_a_zendesk_organization_with_its_crm_name_is_that_account(tmp_path: Path) -> None:
    """The help desk calls it NORDWIND; an organization field keeps the CRM's name: one page."""
    corpus = _corpus(tmp_path, sf={"Name": "Nordwind Freight GmbH"}, hs={"name": "Nordwind Freight"})
    (corpus / "zd" / "organizations.json").write_text(json.dumps({"organizations": [
        {"id": 361000100, "name": "NORDWIND", "external_id": "001A",
         "organization_fields": {"crm_account_name": "Nordwind Freight GmbH",
                                 "service_plan": "platinum"},
         "updated_at": "2026-09-07T11:36:57Z"}]}))
    (corpus / "zd" / "tickets.json").write_text(json.dumps({"tickets": [
        {"id": 78, "subject": "Late delivery", "description": "Where is it?", "status": "open",
         "organization_id": 361000100, "updated_at": "2026-11-02T00:00:00Z"}],
        "organizations": [{"id": 361000100, "name": "NORDWIND"}]}))
    wiki = tmp_path / "wiki"
    assert compile_wiki(corpus, wiki, today=TODAY).rejected == 0
    st = wiki_state(wiki)
    try:
        entity = st.entity("account/nordwind-freight")
        assert entity is not None and len(entity.declared_by) == 3  # SF, HubSpot, Zendesk
        assert "NORDWIND" in entity.aliases
        assert st.entity("account/nordwind") is None
        (ref,) = [c for c, _ in st.iter_claims()
                  if c.subject == "ticket/ticket-78" and c.kind == "reference"]
        assert ref.normalized == "account/nordwind-freight"
    finally:
        st.close()


def test_a_corpus_files_values_under_its_own_labels_over_the_bases(tmp_path: Path) -> None:
    (tmp_path / "schema.yaml").write_text(
        "types:\n  opportunity:\n    attributes:\n      stage:\n        values:\n"
        "          Negotiation: [contractsent, Negotiation/Review]\n"
        "  account:\n    attributes:\n      industry:\n        values:\n"
        "          Logistics: [LOGISTICS_AND_SUPPLY_CHAIN, Transportation]\n"
        "qualifiers:\n  customer tier:\n    values:\n      Premium: [enterprise]\n")
    schema = load_schema(tmp_path)
    vocab = vocabulary(schema)
    stage = vocab.attribute("opportunity", "stage")
    assert {vocab.enum_label(stage, v) for v in ("Negotiation/Review", "contractsent",
                                                 "negotiation")} == {"Negotiation"}
    assert vocab.enum_label(stage, "closedwon") == "Closed Won"  # the base's, untouched
    industry = vocab.attribute("account", "industry")
    assert {vocab.enum_label(industry, v) for v in ("LOGISTICS_AND_SUPPLY_CHAIN",
                                                    "Transportation")} == {"Logistics"}
    assert vocab.qualifier_value("customer tier", "enterprise") == "Premium"


def test_a_relation_maps_through_the_field_it_comes_from(tmp_path: Path) -> None:
    from compiler.models import Reference

    (tmp_path / "schema.yaml").write_text(
        "types:\n  opportunity:\n    attributes:\n      product: {type: reference, target: product}\n"
        "mappings:\n  - system: salesforce\n    record_type: Opportunity\n"
        "    fields: {Primary_Product__c: product}\n")
    schema = load_schema(tmp_path)
    deal = _record("salesforce", "Opportunity", "opportunity", "Big deal", references=(
        Reference(relation="primary product", target_type="product", target_name="Orbis"),))
    product = _record("salesforce", "Product2", "product", "Orbis")
    index = NameIndex([declaration_for(deal, 10), declaration_for(product, 10)])
    (ref,) = [c for c in link_record(
        deal, Extraction(backend="t", claims=tuple(structured_claims(deal, schema))), index,
        Authority(rank=10, rule="r"), schema) if c.kind == "reference"]
    assert (ref.attribute, ref.mapped, ref.normalized) == ("product", True, "product/orbis")


def test_a_draft_label_takes_an_approved_page_out_of_its_rule(tmp_path: Path) -> None:
    import shutil

    acme = Path(__file__).resolve().parents[1] / "examples" / "acme"
    corpus = tmp_path / "acme"
    shutil.copytree(acme, corpus)
    pol = corpus / "confluence" / "pol.json"
    doc = json.loads(pol.read_text())
    for page in doc["results"]:
        if page["title"] == "Return Policy":
            page["metadata"]["labels"]["results"].append({"prefix": "global", "name": "draft"})
    pol.write_text(json.dumps(doc))
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today=TODAY)
    rules = {c.authority.rule for c, _ in _claims(wiki, "policy/return-policy")
             if c.source.title == "Return Policy"}
    assert rules == {"confluence-other"}
    rules = {c.authority.rule for c, _ in _claims(wiki, "policy/support-policy")
             if c.source.title == "Support Policy"}
    assert rules == {"approved-policy"}


def test_a_typed_claim_in_a_ticket_is_about_the_product_it_refers_to() -> None:
    from compiler.models import Reference

    schema = merge(base_schema(), parse_schema(
        "types:\n  product:\n    attributes:\n"
        "      calibration interval: {type: duration, unit: months}\n", "schema.yaml"))
    product = _record("salesforce", "Product2", "product", "Tessa Syringe Driver")
    other = _record("salesforce", "Product2", "product", "Orbis Oximeter")
    ticket = _record("jira", "issue", "ticket", "FS-1", references=(
        Reference(relation="component", target_type="product", target_name="Tessa Syringe Driver"),))
    index = NameIndex(declaration_for(r, 10) for r in (product, other, ticket))
    raw = RawClaim(attribute="calibration interval", value="twelve months", kind="fact",
                   quote="Calibration is due every twelve months.", span=(0, 39), mapped=True,
                   subject_type="product")
    claims = link_record(ticket, Extraction(backend="t", claims=(
        *structured_claims(ticket, schema), raw)), index, Authority(rank=10, rule="r"), schema)
    (claim,) = [c for c in claims if c.attribute == "calibration interval"]
    assert (claim.subject, claim.mapped, claim.normalized) == (
        "product/tessa-syringe-driver", True, "12 months")

"""The bundled base schema generalises to a corpus without a schema.yaml (common enterprise
attributes, custom fields read as their words), and yields to a corpus's own words when it
has one."""

from __future__ import annotations

from compiler.extract.phrases import vocabulary as prose_vocabulary
from compiler.extract.prose import sentence_hits
from compiler.schema import base_schema, merge, parse_schema
from compiler.schema.index import vocabulary


def test_base_maps_common_custom_fields_by_their_words() -> None:
    vocab = vocabulary(base_schema())
    cases = [
        ("salesforce", "Product2", "product", "Warranty_Months__c", "warranty period"),
        ("hubspot", "contacts", "contact", "company", "account"),
        ("salesforce", "Account", "account", "Payment_Terms__c", "payment terms"),
        ("salesforce", "Account", "account", "Credit_Limit__c", "credit limit"),
        ("hubspot", "product", "product", "price", "price"),
    ]
    for system, rtype, etype, field, want in cases:
        hit = vocab.field(system, "x", rtype, etype, field)
        assert hit is not None and hit[0].name == want, (system, field)


def test_base_reads_policy_prose_without_a_corpus_schema() -> None:
    vocab = prose_vocabulary(base_schema())
    hits = sentence_hits(vocab, "Enterprise customers have a refund period of 45 days.", "policy")
    assert [(h.ref.name, h.qualifiers) for h in hits] == [
        ("refund window", (("customer tier", "Enterprise"),))]
    hits = sentence_hits(vocab, "Payment terms are 30 days from invoice.", "account")
    assert [h.ref.name for h in hits] == ["payment terms"]


def test_corpus_words_take_over_base_attributes() -> None:
    corpus = parse_schema("""
types:
  policy:
    attributes:
      rma window:
        type: duration
        unit: days
        phrases: [return window, refund period]
  product:
    attributes:
      uptime sla: {type: percent, phrases: [uptime, uptime guarantee]}
""", "schema.yaml")
    merged = merge(base_schema(), corpus)
    policy = merged.types["policy"].attributes
    # the corpus files "return window" under its own attribute: the base's goes
    assert "return window" not in policy and "rma window" in policy
    # the base's refund window stays, without the phrase the corpus claims
    assert "refund period" not in policy["refund window"].phrases
    assert "uptime guarantee" not in policy["uptime commitment"].phrases
    vocab = vocabulary(merged)
    assert vocab.attribute("policy", "return window").name == "rma window"
    # and without a corpus the base keeps them all
    assert "return window" in base_schema().types["policy"].attributes


def test_a_table_row_naming_a_customer_is_about_that_customer() -> None:
    # a policy page's table of each customer's payment terms: payment terms are declared on
    # policy and on account; the row names an account, so the claim is the account's
    from test_schema import _link, _record

    from compiler.extract.base import RawClaim
    from compiler.policy import AuthorityPolicy

    schema = base_schema()
    policy = AuthorityPolicy(rules=({"name": "wiki", "rank": 50, "match": {"system": "confluence"}},
                                    {"name": "crm", "rank": 80, "match": {"system": "salesforce"}}))
    page = _record("confluence", "page", "policy", "Credit Terms")
    account = _record("salesforce", "Account", "account", "Globex Corporation")
    row = "Customer: Globex Corporation; Payment terms: 60 days."
    raws = {page.id: [RawClaim(attribute="payment terms", value="60 days", kind="fact", quote=row,
                               span=(0, len(row)), mapped=True, subject_type="policy",
                               subject_phrase="Globex Corporation")],
            account.id: []}
    (claim,) = [c for c in _link([page, account], raws, policy, schema)
                if c.attribute == "payment terms"]
    assert claim.subject == "account/globex" and claim.mapped
    assert claim.value_type == "duration"


def test_numbered_severities_qualify_response_times() -> None:
    # without the qualifier the three response times of one page collide into a contradiction
    vocab = prose_vocabulary(base_schema())
    got = [(h.ref.name, h.qualifiers, h.value) for text in (
        "The first response time for Severity 1 issues is 1 hour.",
        "Sev 2 tickets have a first response time of 4 hours.")
        for h in sentence_hits(vocab, text, "policy")]
    assert got == [("response time", (("severity", "Severity 1"),), "1 hour"),
                   ("response time", (("severity", "Severity 2"),), "4 hours")]

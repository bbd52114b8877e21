"""An acronym the corpus spells out counts as its phrase's words when sentences of two
documents are compared ("TLP pays …" / "under tool loan protection we cover …"), and a
sentence's figure far from every figure the fact was induced from is another fact. Phrasings
are our own."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path


from compiler.build import compile_wiki, wiki_state
from compiler.export import export_claims
from compiler.lint import lint
from compiler.schema.acronyms import expand, glossary
from compiler.schema.induce_statements import figure_span, induce_statements, near_figures
from compiler.schema.index import vocabulary as schema_vocabulary
from compiler.schema.induction import Induction, RecordFields
from compiler.schema.loader import base_schema
from tests.test_statement_facts import _corpus  # one small markdown corpus of (title, type, body)


def test_a_definition_spells_an_acronym_out() -> None:
    terms = glossary([], ["The Loss Payee Endorsement (LPE) is filed within 3 days.",
                          "Send the LPE to the lender within 5 days."])
    assert terms == {"LPE": ("loss", "payee", "endorsement")}


def test_a_run_of_a_document_names_words_spells_it_out_a_linking_word_or_not() -> None:
    names = ["winter-snow-removal-policy", "proof-of-delivery-guide"]
    terms = glossary(names, ["SR starts within 2 hours.", "Attach the POD within 1 day."])
    assert terms == {"SR": ("snow", "removal"), "POD": ("proof", "of", "delivery")}


def test_a_whole_name_or_two_readings_spell_out_nothing() -> None:
    # "Nadia Voss" is someone; "night visit" and "new vendor" both spell NV
    assert glossary(["nadia-voss"], ["NV approves refunds over $500."]) == {}
    assert glossary(["night-visit-rules", "new-vendor-checklist"],
                    ["NV takes 3 days."]) == {}
    # times of day and zones are no terms
    assert glossary(["after-midnight-rules"], ["Calls after 9 PM ET wait."]) == {}


def test_expand_writes_out_only_defined_acronyms() -> None:
    terms = {"TLP": ("tool", "loan", "protection")}
    assert expand("Per TLP we pay $40, not ABC.", terms) == \
        "Per tool loan protection we pay $40, not ABC."


def test_figures_of_another_size_are_another_fact() -> None:
    span = figure_span([2500.0, 4000.0])
    assert span == (2048.0, 4096.0)
    assert near_figures("$2,500", span) and near_figures("$1,000", span)
    assert near_figures("$20,000", span)
    assert not near_figures("$150", span) and not near_figures("$30,000", span)


def _record(entity: str, *sentences: str) -> RecordFields:
    return RecordFields("confluence", "wiki", "page", entity.split("/")[0], entity, (), (),
                        tuple(sentences))


def test_a_sentence_saying_the_acronym_meets_one_spelling_it_out() -> None:
    records = [
        _record("policy/tool-loan-protection-policy",
                "TLP pays replacement costs up to $4,000 per claim.",
                "With TLP, the member pays a deductible of $150 per claim."),
        _record("ticket/tk-31",
                "Under tool loan protection we only cover up to $2,500 per claim."),
    ]
    out = Induction()
    induce_statements(records, schema_vocabulary(base_schema()), out)
    (spec,) = out.attributes.values()
    assert spec.figures == (2048.0, 4096.0)  # the deductible's $150 joined nothing
    assert "TLP (tool loan protection)" in spec.phrases




def test_an_acronym_and_its_phrase_contradict_and_a_deductible_stays_out(tmp_path: Path) -> None:
    docs = {
        "Tool Loan Protection Policy": ("policy", "TLP pays replacement costs up to $4,000 "
                                        "per claim.\n\nWith TLP, the member pays a "
                                        "deductible of $150 per claim."),
        "Claim from Orla Penn": ("ticket", "Under tool loan protection we only cover up to "
                                 "$2,500 per claim, so I told her she owes the rest."),
    }
    wiki = tmp_path / "wiki"
    compile_wiki(_corpus(tmp_path, docs), wiki, today="2026-11-21")
    state = wiki_state(wiki)
    try:
        claims = {c["claim_id"]: c for c in map(json.loads, export_claims(state))}
        found = [f for f in lint(state, wiki, datetime.now(UTC)).findings
                 if f.code == "open-contradiction"]
    finally:
        state.close()
    (f,) = found
    assert sorted(claims[i]["value"] for i in f.claims) == ["$2,500", "$4,000"]
    assert not any(c["value"] == "$150" and c["kind"] == "fact" for c in claims.values())

"""Two prose names of one fact (issue: "battery life" vs "battery runtime", "response time" vs
"on-site response time") become one induced attribute only on strong, generic evidence; one
record stating both with different values keeps them apart."""

from __future__ import annotations

from pathlib import Path


from compiler.build import compile_wiki
from compiler.schema import base_schema
from compiler.schema.index import vocabulary
from compiler.schema.induce import RecordFields, apply, induce

from test_induce import claims, handbook_doc, handbook_sources


def prose(rtype: str, entity: str, *facts: tuple[str, str], about: str = "",
          system: str = "markdown") -> RecordFields:
    return RecordFields(system, "i", "doc", rtype, f"{rtype}/{entity}", (),
                        tuple((a, v, about) for a, v in facts))


def test_two_names_agreeing_on_shared_entities_are_one_attribute() -> None:
    # product pages state "battery runtime"; review notes and a ticket state "battery life"
    # of two of the same products, with the same values
    recs = [prose("product", "a", ("battery runtime", "10 hours")),
            prose("product", "b", ("battery runtime", "12 hours")),
            prose("product", "c", ("battery runtime", "8 hours")),
            prose("topic", "review", ("battery life", "10 hours"), about="a",
                  system="confluence"),
            prose("topic", "memo", ("battery life", "8 hours"), about="c", system="jira")]
    ind = induce(base_schema(), recs)
    spec = ind.attributes[("product", "battery runtime")]
    assert spec.phrases == ("battery life",)
    assert ("product", "battery life") not in ind.attributes
    d = vocabulary(apply(base_schema(), ind)).attribute("product", "battery life")
    assert d is not None and d.name == "battery runtime"


def test_a_name_holding_the_other_with_one_modifier_joins_it() -> None:
    recs = [prose("contract", "a", ("on-site repair time", "4 hours")),
            prose("contract", "b", ("on-site repair time", "8 hours")),
            prose("contract", "c", ("repair time", "6 hours"))]
    ind = induce(base_schema(), recs)
    assert ind.attributes[("contract", "on-site repair time")].phrases == ("repair time",)


def test_one_record_stating_both_names_with_different_values_keeps_them_apart() -> None:
    recs = [prose("product", "a", ("battery runtime", "10 hours"), ("battery life", "3 years")),
            prose("product", "b", ("battery runtime", "12 hours"), ("battery life", "4 years")),
            prose("product", "c", ("battery runtime", "8 hours"))]
    ind = induce(base_schema(), recs)
    assert ind.attributes[("product", "battery runtime")].phrases == ()
    assert ind.attributes[("product", "battery life")].phrases == ()


def test_names_disagreeing_on_shared_entities_stay_apart() -> None:
    recs = [prose("site", "a", ("dock hours", "08:00-16:00")),
            prose("site", "b", ("dock hours", "07:00-15:00")),
            RecordFields("jira", "i", "doc", "site", "site/a", (),
                         (("visiting hours", "09:00-17:00", ""),)),
            RecordFields("jira", "i", "doc", "site", "site/b", (),
                         (("visiting hours", "10:00-18:00", ""),))]
    ind = induce(base_schema(), recs)
    assert ind.attributes[("site", "dock hours")].phrases == ()
    assert ind.attributes[("site", "visiting hours")].phrases == ()


def test_claims_under_the_second_name_meet_the_first_and_conflict_there(
        tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    handbook_sources(corpus)
    handbook_doc(corpus, "Kestrel Pump", "Battery runtime: 10 hours.")
    handbook_doc(corpus, "Heron Pump", "Battery runtime: 6 hours.")
    handbook_doc(corpus, "Osprey Pump", "Battery runtime: 9 hours.")
    handbook_doc(corpus, "Field Notes", "The battery life of Kestrel Pump is 10 hours.\n\n"
         "The battery life of Osprey Pump is 7 hours.")
    handbook_doc(corpus, "Bench Notes", "The battery life of Heron Pump is 6 hours.")
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, today="2026-11-21")
    got = claims(wiki)
    osprey = {(c["attribute"], c["value"], c["status"]) for c in got
              if c["subject"] == "product/osprey-pump" and c["kind"] == "fact"}
    assert osprey == {("battery runtime", "9 hours", "contested"),
                      ("battery runtime", "7 hours", "contested")}
    assert not [c for c in got if c["attribute"].startswith("battery life")]


def test_names_alone_join_on_a_telling_shared_word_never_on_a_general_one() -> None:
    recs = [prose("product", "a", ("battery runtime", "10 hours")),
            prose("product", "b", ("battery runtime", "12 hours")),
            prose("product", "c", ("battery life", "6 hours")),
            prose("product", "d", ("battery life", "8 hours")),
            prose("site", "e", ("dock hours", "08:00-16:00")),
            prose("site", "f", ("dock hours", "07:00-15:00")),
            prose("site", "g", ("visiting hours", "09:00-17:00")),
            prose("site", "h", ("visiting hours", "10:00-18:00"))]
    ind = induce(base_schema(), recs)
    kept = {k: v.phrases for k, v in ind.attributes.items()}
    assert kept[("product", "battery life")] == ("battery runtime",) or \
        kept[("product", "battery runtime")] == ("battery life",)
    assert kept[("site", "dock hours")] == () and kept[("site", "visiting hours")] == ()

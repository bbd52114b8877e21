"""Induction's stages (compiler/schema/induce_store.py ``induced``) each read some parts of the
sampled rows; a clean compile runs all four, and decoding each stage's parts afresh decoded
every sampled header four times and the facts twice. Each column is now decoded once per
induction, and what induction gives is unchanged."""

from __future__ import annotations

import json
from collections import Counter

from compiler.schema import base_schema
from compiler.schema import induce_store
from compiler.schema.induce import induce
from tests.test_induce import _rows_db


def _page(name: str, fields: dict, *claims: dict) -> tuple[str, dict, list[dict]]:
    return (f"t/markdown/hb/page/{name}", {"system": "markdown", "instance": "hb",
                                           "type": "page", "entity_type": "product",
                                           "entity": f"product/{name}", "fields": fields},
            list(claims))


def test_a_clean_induction_decodes_each_sampled_column_once(monkeypatch) -> None:  # noqa: ANN001
    fact = {"kind": "fact", "attribute": "current firmware", "value": "4.2.1",
            "subject_phrase": "current firmware of Orbis Pulse Oximeter", "mapped": False}
    said = {"kind": "statement",
            "value": "Orbis Pulse Oximeter runs firmware 4.2.0 as its release."}
    window = {"kind": "statement", "value": "Tests stay available offline for up to 72 hours."}
    db = _rows_db([_page("orbis", {"Owner": "Ana"}, fact, window),
                   _page("notes", {"Owner": "Bo"}, said, fact),
                   _page("kestrel", {}, {**fact, "value": "4.3.0"}, window)])
    induce_store.refresh(db, None, [], [], full=True)
    schema = base_schema()
    want = induce(schema, induce_store.inputs(db, 3000)).to_json()

    heads = {h for (h,) in db.execute("SELECT head_json FROM induce_fields")}
    # rows stating the same facts hold the same JSON: counted per row
    facts = Counter(f for (f,) in db.execute("SELECT facts_json FROM induce_fields")
                    if f != "[]")
    decoded: Counter[str] = Counter()
    loads = json.loads

    def counting(text, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        decoded[text] += 1
        return loads(text, *args, **kwargs)

    monkeypatch.setattr(induce_store.json, "loads", counting)
    got = induce_store.induced(db, schema, "b", 3000)
    monkeypatch.undo()

    assert got.to_json() == want
    assert induce_store.STAGE_RUNS  # the stages ran (nothing kept: a fresh store)
    # a header: once for the rows with fields (the fields stage's subset), once for all
    assert heads and max(decoded[h] for h in heads) <= 2
    assert facts and all(decoded[f] == n for f, n in facts.items())  # each row's once

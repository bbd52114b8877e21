"""benchmarks/conflict_bench.py: its counts come from the compiled claims and lint findings."""
from __future__ import annotations

import copy
import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _bench():
    spec = importlib.util.spec_from_file_location("conflict_bench", REPO / "benchmarks" / "conflict_bench.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["conflict_bench"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def kestrel(tmp_path_factory):
    cb = _bench()
    truth = cb.load_truth("kestrel")
    claims, findings = cb.compile_corpus(cb.CORPORA / "kestrel", tmp_path_factory.mktemp("k") / "wiki")
    return cb, truth, claims, findings


def test_counts_follow_the_claims_and_findings(kestrel):
    cb, truth, claims, findings = kestrel
    base = cb.Scorer(truth, claims, findings).score()
    assert base["settled_total"] == sum(x["outcome"] == "settled" for x in truth["conflicts"])
    assert base["contested_total"] == sum(x["outcome"] == "contested" for x in truth["conflicts"])
    assert base["contested_reported"] >= 1, base["missed"]

    # without lint's open contradictions no contested fact counts as reported
    quiet = cb.Scorer(truth, claims, [f for f in findings if f.get("code") != "open-contradiction"]).score()
    assert quiet["contested_reported"] == 0

    # a contested claim turned winner unsettles exactly the fact it states
    judged = [cb.Scorer(truth, claims, findings).judge(x) for x in truth["conflicts"]]
    ok = next(j for j in judged if j["outcome"] == "contested" and j["ok"])
    flipped = copy.deepcopy(claims)
    for c in flipped:
        if c["claim_id"] in ok["claims"] and c.get("status") == "contested":
            c["status"] = "winner"
            break
    assert cb.Scorer(truth, flipped, findings).score()["contested_reported"] == base["contested_reported"] - 1

    # a finding naming claims of no planted disagreement is a false alarm
    other = next(c for c in claims if c["claim_id"] not in ok["claims"])
    extra = findings + [{"code": "possible-contradiction", "claims": [other["claim_id"]], "message": "x"}]
    assert cb.Scorer(truth, claims, extra).score()["false_alarms"] == base["false_alarms"] + 1


def test_settled_needs_winner_and_overruled_on_one_attribute():
    cb = _bench()
    truth = {"conflicts": [{"fact": "f", "outcome": "settled", "winner": "$7,500", "values": [
        {"page": "policy/p", "value": "$7,500"}, {"page": "ticket/t", "value": "$6,000"}]}]}

    def claim(i, src, subject, attr, value, status):
        return {"claim_id": i, "source_key": src, "subject": subject, "attribute": attr,
                "value": value, "status": status, "kind": "fact", "qualifiers": {}}
    page = [claim("p0", "s/p", "policy/p", "name", "P", "winner")]
    ticket = [claim("t0", "s/t", "ticket/t", "title", "T", "winner")]
    one = page + ticket + [claim("a", "s/p", "policy/p", "cap", "$7,500", "winner"),
                           claim("b", "s/t", "policy/p", "cap", "6000 USD", "overruled")]
    assert cb.Scorer(truth, one, []).score()["settled_found"] == 1
    two = page + ticket + [claim("a", "s/p", "policy/p", "cap", "$7,500", "winner"),
                           claim("b", "s/t", "policy/p", "limit", "$6,000", "winner")]
    assert cb.Scorer(truth, two, []).score()["settled_found"] == 0

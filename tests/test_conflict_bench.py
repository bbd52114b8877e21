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


def test_heldout_mode_prints_only_summed_counts(kestrel, tmp_path, monkeypatch, capsys):
    """--heldout runs HELDOUT and prints the summed counts alone: no corpus line, no fact,
    no value, no page, no miss (the held-out truths must not show what to tune on). Here a
    stand-in held-out corpus: kestrel's truth and compiled claims under another name, twice."""
    import re

    import yaml

    cb, truth, claims, findings = kestrel
    for name in ("heldone", "heldtwo"):
        (tmp_path / f"{name}-conflicts.yaml").write_text(yaml.safe_dump(truth), encoding="utf-8")
    monkeypatch.setattr(cb, "TRUTH", tmp_path)
    monkeypatch.setattr(cb, "HELDOUT", ("heldone", "heldtwo"))
    monkeypatch.setattr(cb, "HELD_OUT", frozenset({"heldone", "heldtwo"}))
    monkeypatch.setattr(cb, "compile_corpus", lambda corpus, wiki: (claims, findings))

    assert cb.main(["--heldout"]) == 0
    out = capsys.readouterr().out
    one = cb.Scorer(truth, claims, findings).score()
    assert out.strip() == cb.heldout_line({k: 2 * one[k] for k in cb.COUNTS}, 2)
    assert re.fullmatch(r"held-out \(2 corpora, summed\): settled \d+/\d+  contested \d+/\d+"
                        r"  false alarms \d+ of \d+\n", out), out
    secrets = {x["fact"] for x in truth["conflicts"]}
    secrets |= {str(v[k]) for x in truth["conflicts"] for v in x["values"] for k in ("page", "value")}
    secrets |= {str(x["winner"]) for x in truth["conflicts"] if "winner" in x}
    numbers = re.sub(r"\d+/\d+|\d+ of \d+", "", out)  # the counts themselves may look like values
    assert not [s for s in secrets if s in numbers], out

    # a failing held-out corpus fails with its message withheld
    monkeypatch.setattr(cb, "compile_corpus", lambda corpus, wiki: (_ for _ in ()).throw(
        SystemExit(f"folio compile failed: {truth['conflicts'][0]['fact']}")))
    assert cb.main(["--heldout"]) == 1
    out = capsys.readouterr().out
    assert truth["conflicts"][0]["fact"] not in out and "withheld" in out


@pytest.mark.parametrize("argv", [["--heldout", "-v"], ["--heldout", "--json"], ["--heldout", "kestrel"],
                                  ["larkspur"], ["fenwick", "-v"], ["tidewater", "--json"],
                                  ["osprey", "-v"], ["juniper", "-v"]])
def test_heldout_corpora_refuse_details(argv, capsys):
    cb = _bench()
    assert cb.HELDOUT == ("larkspur", "tidewater", "fenwick", "osprey", "juniper")
    assert not set(cb.DEFAULT) & cb.HELD_OUT
    with pytest.raises(SystemExit) as exc:
        cb.main(argv)
    assert exc.value.code == 2
    assert capsys.readouterr().out == ""

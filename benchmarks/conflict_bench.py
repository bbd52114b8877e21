"""Conflict bench: do the blind stand-in corpora's planted disagreements come out as planted?

    python3 benchmarks/conflict_bench.py                      # ashgrove brindle marlowe kestrel harrow quillon
    python3 benchmarks/conflict_bench.py ashgrove -v          # one corpus, every miss explained
    python3 benchmarks/conflict_bench.py --json
    python3 benchmarks/conflict_bench.py --heldout            # larkspur tidewater fenwick: sums only

Truth: ``benchmarks/truth/<corpus>-conflicts.yaml``, written from each corpus README's
"Planted disagreements" table (a document's wiki page and the value as it writes it; the
outcome: the winner's value, or ``contested``). The corpus is compiled offline, its claims
exported and ``folio lint --json`` read; per corpus it prints

* settled found: the winner value's claims are ``winner`` and every loser's ``overruled``, all
  on one (subject, attribute, qualifiers);
* contested reported: every value's claims ``contested`` on one (subject, attribute,
  qualifiers) and a lint ``open-contradiction`` naming them;
* false alarms: lint open contradictions and ``possible-contradiction`` warnings that name
  no claim of a planted contested disagreement (one over a settled fact's claims is false too).

A claim states a truth value when it comes from the truth's document (the page most of its
source record's claims land on) and its value (or normalised value) holds the same numbers
(``$7,500`` = ``7500 USD``; ``March 31, 2027`` = ``2027-03-31``), or, for a value without
numbers, the same words.

Held-out corpora (HELDOUT: larkspur, tidewater, fenwick, osprey, juniper) run only with
``--heldout``, which prints the three counts summed over them and nothing else: no corpus line, no fact, no value,
no miss, no lint message (``-v`` and ``--json`` are refused there), so a run tells whether the
rules generalise without showing what to tune on.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from quality_bench import compile_and_export  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
CORPORA = REPO / "benchmarks" / "corpora"
TRUTH = REPO / "benchmarks" / "truth"
# the tunable corpora, named one by one: a new corpus joins when its truth is written
DEFAULT = ("ashgrove", "brindle", "marlowe", "kestrel", "harrow", "quillon")
HELDOUT = ("larkspur", "tidewater", "fenwick", "osprey", "juniper")
HELD_OUT = frozenset(HELDOUT)
COUNTS = ("settled_found", "settled_total", "contested_reported", "contested_total",
          "false_alarms", "alarms")
_MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), 1)}


def compile_corpus(corpus: Path, wiki: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(claims, lint findings) of a clean offline compile of ``corpus`` into ``wiki``: the
    quality bench's run of the real CLI, with no principal to export as."""
    got = compile_and_export(corpus, wiki, [])
    return got["claims"], got["findings"]


# -- values -------------------------------------------------------------------------------
def _numbers(text: str) -> list[float]:
    """The numbers a value writes, a spelled month as its number (so a date in words and
    its ISO form agree), in order-free form."""
    t = str(text).lower().replace(",", "")
    for name, num in _MONTHS.items():
        t = re.sub(rf"\b{name}\b", f" {num} ", t)
    return sorted(float(n) for n in re.findall(r"\d+(?:\.\d+)?", t))


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", str(text).lower())


def value_states(claim: dict[str, Any], value: str) -> bool:
    want = _numbers(value)
    for got in (claim.get("value"), claim.get("normalized")):
        if got is None:
            continue
        if want and _numbers(got) == want:
            return True
        if not want and _words(got) == _words(value):
            return True
    return False


def _key(c: dict[str, Any]) -> tuple[str, str, str]:
    return (c["subject"], str(c["attribute"]).lower(), json.dumps(c.get("qualifiers") or {}, sort_keys=True))


# -- scoring ------------------------------------------------------------------------------
class Scorer:
    def __init__(self, truth: dict[str, Any], claims: list[dict[str, Any]],
                 findings: list[dict[str, Any]]) -> None:
        self.truth = truth
        self.claims = [c for c in claims if c.get("kind") not in ("statement", "reference")]
        self.by_id = {c["claim_id"]: c for c in claims}
        self.findings = findings
        per_source: dict[str, Counter[str]] = defaultdict(Counter)
        for c in claims:
            per_source[c["source_key"]][c["subject"]] += 1
        # a document's page: the subject most of its record's claims land on
        self.doc_page = {k: cnt.most_common(1)[0][0] for k, cnt in per_source.items()}

    def stating(self, v: dict[str, Any]) -> list[dict[str, Any]]:
        return [c for c in self.claims if self.doc_page.get(c["source_key"]) == v["page"]
                and value_states(c, str(v["value"]))]

    def expected(self, x: dict[str, Any], v: dict[str, Any]) -> set[str]:
        """The statuses a value's claims may have (``expect``: one or a list)."""
        if v.get("expect"):
            e = v["expect"]
            return {str(s) for s in e} if isinstance(e, list) else {str(e)}
        if x["outcome"] == "contested":
            return {"contested"}
        return {"winner"} if _numbers(v["value"]) == _numbers(x["winner"]) and \
            _words(v["value"]) == _words(x["winner"]) else {"overruled"}

    def judge(self, x: dict[str, Any]) -> dict[str, Any]:
        """Whether one planted disagreement came out right: some (subject, attribute,
        qualifiers) group holds a claim of every value with the expected status."""
        stated = [self.stating(v) for v in x["values"]]
        groups: set[tuple[str, str, str]] = set.intersection(
            *[{_key(c) for c in cs} for cs in stated]) if all(stated) else set()
        good = [g for g in groups if all(
            any(_key(c) == g and c.get("status") in self.expected(x, v) for c in cs)
            for v, cs in zip(x["values"], stated))]
        linted: list[dict[str, Any]] = []
        if x["outcome"] == "contested":
            ids = {c["claim_id"] for cs in stated for c in cs if _key(c) in good}
            linted = [f for f in self.findings if f.get("code") == "open-contradiction"
                      and ids & set(f.get("claims", []))]
        ok = bool(good) and (x["outcome"] != "contested" or bool(linted))
        why = ""
        if not ok:
            parts = []
            for v, cs in zip(x["values"], stated):
                seen = "; ".join(f"{c['attribute']!r}{c.get('qualifiers') or ''}={c['value']!r} "
                                 f"[{c.get('status')}] on {c['subject']}" for c in cs[:3])
                parts.append(f"{v['page']} {v['value']!r}: {seen or 'no claim states it'}")
            if not groups and all(stated):
                parts.append("values never meet on one attribute")
            elif groups and not good:
                parts.append("they meet, statuses wrong")
            elif good and not linted:
                parts.append("no lint open-contradiction names them")
            why = " | ".join(parts)
        return {"fact": x["fact"], "outcome": x["outcome"], "ok": ok, "why": why,
                "claims": {c["claim_id"] for cs in stated for c in cs}}

    def score(self) -> dict[str, Any]:
        judged = [self.judge(x) for x in self.truth["conflicts"]]
        # an alarm is true only when it names claims of a planted *contested* fact: one over
        # a settled fact's claims (they should have been decided) is as false as any other
        truth_ids = set().union(*(j["claims"] for j in judged if j["outcome"] == "contested"))
        alarms = [f for f in self.findings if f.get("code") in ("open-contradiction", "possible-contradiction")]
        false = [f for f in alarms if not set(f.get("claims", [])) & truth_ids]
        settled = [j for j in judged if j["outcome"] == "settled"]
        contested = [j for j in judged if j["outcome"] == "contested"]
        return {
            "settled_found": sum(j["ok"] for j in settled), "settled_total": len(settled),
            "contested_reported": sum(j["ok"] for j in contested), "contested_total": len(contested),
            "false_alarms": len(false), "alarms": len(alarms),
            "missed": [f"{j['fact']}: {j['why']}" for j in judged if not j["ok"]],
            "false_examples": [f"{f.get('code')}: {f.get('message', '')[:200]}" for f in false],
        }


def load_truth(name: str) -> dict[str, Any]:
    path = TRUTH / f"{name}-conflicts.yaml"
    truth = yaml.safe_load(path.read_text(encoding="utf-8"))
    for i, x in enumerate(truth.get("conflicts") or []):
        if x.get("outcome") not in ("settled", "contested") or len(x.get("values") or []) < 2:
            raise SystemExit(f"{path}: conflicts[{i}]: needs outcome settled|contested and 2+ values")
        if x["outcome"] == "settled" and "winner" not in x:
            raise SystemExit(f"{path}: conflicts[{i}] ({x.get('fact')}): a settled fact needs a winner")
    return truth


def run(name: str, work: Path, heldout: bool = False) -> dict[str, Any]:
    if name in HELD_OUT and not heldout:
        raise SystemExit(f"{name} is held out: run it only with --heldout (sums, no facts)")
    truth = load_truth(name)
    claims, findings = compile_corpus(CORPORA / name, work / f"wiki-{name}")
    return Scorer(truth, claims, findings).score()


def heldout_sums(corpora: tuple[str, ...], work: Path) -> dict[str, int] | None:
    """The counts summed over the held-out ``corpora``; None when one fails (its error is
    withheld too: a truth's or a compile's message can name a fact)."""
    total = dict.fromkeys(COUNTS, 0)
    for name in corpora:
        try:
            r = run(name, work, heldout=True)
        except (Exception, SystemExit):  # noqa: BLE001 - the message may hold held-out text
            return None
        for k in COUNTS:
            total[k] += int(r[k])
    return total


def heldout_line(t: dict[str, int], n: int) -> str:
    return (f"held-out ({n} corpora, summed): settled {t['settled_found']}/{t['settled_total']}"
            f"  contested {t['contested_reported']}/{t['contested_total']}"
            f"  false alarms {t['false_alarms']} of {t['alarms']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpora", nargs="*", help=f"default: {' '.join(DEFAULT)}")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--heldout", action="store_true",
                    help="run the held-out corpora (HELDOUT) and print only their summed counts")
    args = ap.parse_args(argv)
    if args.heldout:
        if args.verbose or args.json:
            ap.error("--heldout prints summed counts only: -v and --json are refused")
        if args.corpora:
            ap.error("--heldout runs HELDOUT and names no corpus")
        with tempfile.TemporaryDirectory(prefix="folio-conflicts-") as tmp:
            sums = heldout_sums(HELDOUT, Path(tmp))
        if sums is None:
            print("held-out: a corpus failed to compile or score (details withheld)")
            return 1
        print(heldout_line(sums, len(HELDOUT)))
        return 0
    args.corpora = args.corpora or list(DEFAULT)
    if set(args.corpora) & HELD_OUT:
        ap.error("a held-out corpus runs only with --heldout (summed counts, no facts)")
    results = {}
    with tempfile.TemporaryDirectory(prefix="folio-conflicts-") as tmp:
        for name in args.corpora:
            results[name] = run(name, Path(tmp))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'corpus':<10} {'settled':>8} {'contested':>10} {'false alarms':>13}")
    for name, r in results.items():
        print(f"{name:<10} {r['settled_found']:>4}/{r['settled_total']:<3} "
              f"{r['contested_reported']:>6}/{r['contested_total']:<3} "
              f"{r['false_alarms']:>6} of {r['alarms']}")
        if args.verbose:
            for m in r["missed"]:
                print(f"   miss  {m}")
            for f in r["false_examples"]:
                print(f"   false {f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

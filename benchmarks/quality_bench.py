#!/usr/bin/env python3
"""Quality benchmark: compile a corpus with known truth and score the wiki against it.

    python3 benchmarks/quality_bench.py                        # generated company, seed 7
    python3 benchmarks/quality_bench.py --seed 11              # another generated company
    python3 benchmarks/quality_bench.py --corpus examples/acme --truth benchmarks/truth/acme.yaml
    python3 benchmarks/quality_bench.py --all                  # generated company and acme
    python3 benchmarks/quality_bench.py --json                 # machine-readable figures
    python3 benchmarks/quality_bench.py --no-schema --seed 11  # without the corpus's schema.yaml
    python3 benchmarks/quality_bench.py --seed 11 -v           # … and every miss, with the claims
                                                               #   its source records gave

The compile runs through the real CLI in a subprocess (``folio compile``, ``folio export
claims --format jsonl`` also ``--as`` each denied principal, ``folio lint --json``), offline
backend, signing off. One table per corpus, each figure beside its target from issue 20's
"Done means" (targets marked ``bench`` are this bench's own: the issue names the figure but no
number).

Figures (truth layout: benchmarks/companygen/truth.py):

* fact recall, structured / prose: a truth fact is found when a claim from its source record
  is on its page, with its canonical attribute and qualifiers, and the same value;
* winner accuracy, authority / recency: the truth winner's value is a ``winner`` and no other
  value of that attribute is ``winner`` or ``contested``;
* overruled recorded: every losing claim of those conflicts is exported ``overruled``;
* contested reported: every value of a contested item is ``contested`` and ``folio lint``
  reports an open contradiction on its page;
* alias merges: the records of one company in Salesforce, HubSpot and Zendesk (organization)
  land on one page; false merges: pairs of distinct truth entities sharing a page;
* injected values surfaced: claims from an injection's record carrying its value or quoting it;
* false alarms: lint open contradictions that are not a truth contested item (count and % of
  reported);
* restricted leaks: claims of a restricted record exported ``--as`` a principal it denies.

Matching: subject by page name: the entity's one page is the truth page, or else the page
named (``compiler.slug.page_name``, with the registry's legal-suffix folding) after one of its
aliases that holds the most claims; claims on a second alias page are split off and do not
count (a losing value there still counts against the winner); attribute by canonical name plus ``qualifiers`` when the
export carries them (docs/schema.md). An export without ``qualifiers`` (before the schema
layer) is read in *legacy* mode: a qualified fact also matches a surface attribute made of the
canonical name, the qualifier's words and filler (``rma window for platinum customers``).
Values: ``normalized`` when exported, else ``value``, compared after this bench's own tolerant
typed normalisation (benchmarks/companygen/values.py), never the compiler's.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(REPO))

from companygen import DEFAULT_SEED, generate  # noqa: E402
from companygen import values as V  # noqa: E402
from compiler.slug import page_name  # noqa: E402

try:  # the registry's folding of legal suffixes ("Globex Corporation" is account/globex)
    from compiler.text import entity_slug_name  # noqa: E402
except ImportError:  # pragma: no cover - older trees
    def entity_slug_name(name: str, entity_type: str) -> str:
        return name

TARGETS: dict[str, tuple[str, float, str]] = {
    # key: (comparison, target, origin)
    "structured_recall": (">=", 0.98, "issue"),
    "prose_recall": (">=", 0.85, "issue"),
    "authority_winners": (">=", 1.0, "issue"),
    "recency_winners": (">=", 1.0, "issue"),
    "overruled_recorded": (">=", 1.0, "issue"),
    "contested_reported": (">=", 1.0, "issue"),
    "alias_merges": (">=", 1.0, "bench"),
    "false_merges": ("<=", 0, "bench"),
    "injected_surfaced": ("<=", 0, "issue"),
    "false_alarm_share": ("<=", 0.02, "issue"),
    "restricted_leaks": ("<=", 0, "bench"),
}
_FILLER = frozenset({"for", "customers", "customer", "the", "of", "plan", "tier", "accounts",
                     "account", "on", "a", "an", "contracts", "sites", "holders"})


# -- running the CLI ----------------------------------------------------------------------
def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"FOLIO_SIGNING": "off", "FOLIO_BACKEND": "offline"})
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _folio(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "import sys; from pipelines.folio_cli import app; sys.argv[0] = 'folio'; app()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(), cwd=str(REPO), check=False)


def prepare_corpus(corpus: Path, work: Path) -> tuple[Path, list[str]]:
    """The corpus as this compiler can read it, and notes on what had to be dropped: a
    ``labels_not`` key the compiler's authority model rejects is removed (so the label
    exclusion is simply not applied, which the winner figures then show)."""
    notes: list[str] = []
    policy = corpus / "authority.yaml"
    if not policy.is_file():
        return corpus, notes
    from compiler.policy import PolicyError, load_policy
    try:
        load_policy(policy)
        return corpus, notes
    except PolicyError as exc:
        if "labels_not" not in str(exc):
            raise
    copy = work / "corpus"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(corpus, copy)
    raw = yaml.safe_load(policy.read_text(encoding="utf-8"))
    for rule in raw.get("rules", []):
        if "labels_not" in (rule.get("match") or {}):
            notes.append(f"authority.yaml rule {rule['name']!r}: labels_not "
                         f"{rule['match']['labels_not']} unsupported by this compiler; dropped")
            del rule["match"]["labels_not"]
    (copy / "authority.yaml").write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    return copy, notes


def compile_and_export(corpus: Path, wiki: Path, principals: list[str]) -> dict[str, Any]:
    t0 = time.perf_counter()
    comp = _folio("compile", str(corpus), "--out", str(wiki))
    seconds = time.perf_counter() - t0
    if comp.returncode not in (0, 3):
        raise SystemExit(f"folio compile {corpus} failed (exit {comp.returncode}):\n"
                         f"{comp.stdout[-2000:]}\n{comp.stderr[-2000:]}")
    exp = _folio("export", "claims", "--wiki", str(wiki), "--format", "jsonl")
    if exp.returncode != 0:
        raise SystemExit(f"folio export failed: {exp.stderr[-2000:]}")
    claims = [json.loads(line) for line in exp.stdout.splitlines() if line.strip()]
    lint = _folio("lint", "--wiki", str(wiki), "--json")
    try:
        findings = json.loads(lint.stdout).get("findings", [])
    except json.JSONDecodeError:
        raise SystemExit(f"folio lint --json gave no JSON: {lint.stderr[-2000:]}") from None
    as_principal = {}
    for p in principals:
        e = _folio("export", "claims", "--wiki", str(wiki), "--format", "jsonl", "--as", p)
        as_principal[p] = [json.loads(x) for x in e.stdout.splitlines() if x.strip()] \
            if e.returncode == 0 else None
    rejected = comp.returncode == 3
    return {"claims": claims, "findings": findings, "as": as_principal, "seconds": seconds,
            "rejected_inputs": rejected, "compile_output": comp.stdout + comp.stderr}


# -- matching -----------------------------------------------------------------------------
def _norm_attr(a: str) -> str:
    return " ".join(str(a).lower().replace("_", " ").split())


def _src(key: str) -> tuple[str, str, str]:
    parts = key.split("/", 4)
    return (parts[1], parts[2], parts[4]) if len(parts) == 5 else (key, "", "")


class Scorer:
    def __init__(self, truth: dict[str, Any], claims: list[dict[str, Any]],
                 findings: list[dict[str, Any]],
                 names: dict[str, set[str]] | None = None) -> None:
        self.truth = truth
        # --no-schema: the other names the company's own schema gives each attribute
        self.names_of = {_norm_attr(k): {_norm_attr(n) for n in v} for k, v in (names or {}).items()}
        self.claims = claims
        self.findings = findings
        self.schema_mode = any("qualifiers" in c for c in claims)
        self.entities = {e["page"]: e for e in truth.get("entities", [])}
        self.by_subject: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for c in claims:
            self.by_subject[c["subject"]].append(c)
        self.by_id = {c["claim_id"]: c for c in claims}
        self._cands: dict[str, set[str]] = {}

    def pages(self, page: str) -> set[str]:
        if page not in self._cands:
            out = {page}
            e = self.entities.get(page)
            if e:
                for n in (e["name"], *e.get("aliases", [])):
                    out.add(page_name(e["type"], n))
                    out.add(page_name(e["type"], entity_slug_name(n, e["type"])))
            self._cands[page] = out
        return self._cands[page]

    def home(self, page: str) -> str:
        """The one page the wiki keeps for a truth entity: its own name when that page
        exists, else the candidate (a page named after an alias) with the most claims.
        Facts on other candidates sit on a split-off page and do not count."""
        if page in self.by_subject:
            return page
        found = [p for p in sorted(self.pages(page)) if p in self.by_subject]
        return max(found, key=lambda p: len(self.by_subject[p])) if found else page

    def names(self, page: str) -> set[str]:
        e = self.entities.get(page)
        out = {V.slug(page.rsplit("/", 1)[-1])}
        if e:
            out |= {V.slug(n) for n in (e["name"], *e.get("aliases", []))}
            out |= {V.slug(entity_slug_name(n, e["type"])) for n in (e["name"], *e.get("aliases", []))}
        return out

    def attr_ok(self, c: dict[str, Any], attr: str, quals: dict[str, str]) -> bool:
        ca = _norm_attr(c.get("attribute", ""))
        want = _norm_attr(attr)
        if ca in self.names_of.get(want, ()):
            ca = want
        if "qualifiers" in c:
            wanted = {_norm_attr(k): _norm_attr(v) for k, v in quals.items()}
            got = {}
            for k, v in (c.get("qualifiers") or {}).items():
                k = _norm_attr(k)
                # --no-schema: a qualifier the compiler named from the corpus's own fields
                # (`plan level`) is the truth's when the company's schema gives it that name
                k = next((w for w in wanted if k in self.names_of.get(w, ())), k)
                got[k] = _norm_attr(v)
            return ca == want and got == wanted
        if not quals:
            return ca == want
        toks = set(V.tokens(ca))
        need = set(V.tokens(want))
        qtoks = {t for v in quals.values() for t in V.tokens(v)}
        return need <= toks and qtoks <= toks and toks - need - qtoks <= _FILLER

    def value_ok(self, c: dict[str, Any], vtype: str, value: str) -> bool:
        if vtype == "reference":
            got = {V.slug(str(c.get("value", "")))}
            if c.get("normalized"):
                got.add(V.slug(str(c["normalized"]).rsplit("/", 1)[-1]))
            return bool(got & self.names(value)) or c.get("normalized") in self.pages(value)
        cur = value.split()[-1] if vtype == "money" and len(value.split()) > 1 else "USD"
        for got in (c.get("normalized"), c.get("value")):
            if got not in (None, "") and V.same(vtype, got, value, currency=cur):
                return True
        return False

    def matching(self, page: str, attr: str, quals: dict[str, str], vtype: str,
                 value: str | None = None, source: str | None = None) -> list[dict[str, Any]]:
        out = []
        src = _src(source) if source else None
        for subject in (self.home(page),):
            for c in self.by_subject.get(subject, ()):
                if c.get("kind") == "statement":
                    continue
                if src and _src(c["source_key"]) != src:
                    continue
                if not self.attr_ok(c, attr, quals):
                    continue
                if value is not None and not self.value_ok(c, vtype, value):
                    continue
                out.append(c)
        return out

    # -- figures --------------------------------------------------------------------------
    def recall(self) -> dict[str, Any]:
        found = {"structured": [0, 0], "prose": [0, 0], "prose_only": [0, 0]}
        missed = []
        for f in self.truth.get("facts", []):
            ok = bool(self.matching(f["page"], f["attribute"], f.get("qualifiers") or {},
                                    f["type"], f["value"], f["source"]))
            kinds = [f["kind"]] + (["prose_only"] if f.get("prose_only") else [])
            for k in kinds:
                found[k][1] += 1
                found[k][0] += ok
            if not ok:
                missed.append(f["id"])
        return {k: {"found": a, "total": b} for k, (a, b) in found.items()} | {"missed": missed}

    def winners(self, conflicts: list[dict[str, Any]]) -> dict[str, Any]:
        good, wrong, over, unrecorded = 0, [], [0, 0], []
        for x in conflicts:
            q = x.get("qualifiers") or {}
            win = [c for s in x["winner"]["sources"]
                   for c in self.matching(x["page"], x["attribute"], q, x["type"], x["winner"]["value"], s)]
            everything = self.matching(x["page"], x["attribute"], q, x["type"])
            bad = [c for c in everything if c.get("status") in ("winner", "contested")
                   and not self.value_ok(c, x["type"], x["winner"]["value"])]
            # a loser still stated as a winner under another attribute name (HubSpot's
            # `annualrevenue` beside Salesforce's `annual revenue`) leaves two values on the page
            bad += [c for lo in x["overruled"] for c in self.loser_claims(x, lo)
                    if c.get("status") in ("winner", "contested")]
            if any(c.get("status") == "winner" for c in win) and not bad:
                good += 1
            else:
                wrong.append(x["id"])
            for lo in x["overruled"]:
                over[1] += 1
                recorded = any(c.get("status") == "overruled" for c in self.matching(
                    x["page"], x["attribute"], q, x["type"], lo["value"], lo["source"]))
                over[0] += recorded
                if not recorded and x["id"] not in wrong and x["id"] not in unrecorded:
                    unrecorded.append(x["id"])
        return {"right": good, "total": len(conflicts), "wrong": wrong,
                "overruled": {"recorded": over[0], "total": over[1]}, "unrecorded": unrecorded}

    def loser_claims(self, x: dict[str, Any], lo: dict[str, Any]) -> list[dict[str, Any]]:
        """Claims of a losing source on the conflict's page stating the losing value, under
        any attribute (its value as typed, or as the source wrote it)."""
        written = {f.get("written") for f in self.truth.get("facts", [])
                   if f["page"] == x["page"] and _src(f["source"]) == _src(lo["source"])
                   and f["value"] == lo["value"]} - {None}
        out = []
        for subject in self.pages(x["page"]):
            for c in self.by_subject.get(subject, ()):
                if c.get("kind") in ("statement", "reference") or _src(c["source_key"]) != _src(lo["source"]):
                    continue
                if self.value_ok(c, x["type"], lo["value"]) or any(
                        V.tokens(c.get("value", "")) == V.tokens(w) for w in written):
                    out.append(c)
        return out

    def contradiction_pages(self) -> list[dict[str, Any]]:
        return [f for f in self.findings if f.get("code") == "open-contradiction"]

    def contested(self) -> dict[str, Any]:
        alarms = self.contradiction_pages()
        ok, missed = 0, []
        for x in self.truth.get("contested", []):
            q = x.get("qualifiers") or {}
            each = all(any(c.get("status") == "contested" for c in self.matching(
                x["page"], x["attribute"], q, x["type"], v["value"], v["source"])) for v in x["values"])
            linted = any(self._finding_is(f, x) for f in alarms)
            if each and linted:
                ok += 1
            else:
                missed.append(x["id"])
        return {"reported": ok, "total": len(self.truth.get("contested", [])), "missed": missed}

    def _finding_is(self, f: dict[str, Any], x: dict[str, Any]) -> bool:
        claims = [self.by_id[i] for i in f.get("claims", []) if i in self.by_id]
        on_page = f.get("page") in self.pages(x["page"]) or any(
            c["subject"] in self.pages(x["page"]) for c in claims)
        if not on_page:
            return False
        if not claims:
            return True
        return any(self.attr_ok(c, x["attribute"], x.get("qualifiers") or {}) for c in claims)

    def false_alarms(self) -> dict[str, Any]:
        alarms = self.contradiction_pages()
        false = [f for f in alarms if not any(self._finding_is(f, x) for x in self.truth.get("contested", []))]
        n = len(alarms)
        others = Counter(f.get("code") for f in self.findings
                         if "contradiction" in str(f.get("code")) and f.get("code") != "open-contradiction")
        return {"false": len(false), "reported": n, "share": (len(false) / n) if n else 0.0,
                "other_contradiction_findings": dict(others),
                "examples": [f.get("message", "")[:160] for f in false[:5]]}

    def _main_subject(self, source: str) -> str | None:
        mine = [c for c in self.claims if _src(c["source_key"]) == _src(source)
                and c.get("kind") != "reference"]
        if not mine:
            return None
        named = [c["subject"] for c in mine if _norm_attr(c.get("attribute", "")) == "name"]
        if named:
            return named[0]
        counts: dict[str, int] = defaultdict(int)
        for c in mine:
            counts[c["subject"]] += 1
        return max(sorted(counts), key=lambda s: counts[s])

    def aliases(self) -> dict[str, Any]:
        merged, missed = 0, []
        for g in self.truth.get("alias_groups", []):
            subjects = [self._main_subject(m["source"]) for m in g["members"]]
            if all(s is not None and s == self.home(g["page"]) for s in subjects):
                merged += 1
            else:
                missed.append({"page": g["page"], "landed": subjects})
        # false merges: records of different truth entities on one page
        owner: dict[str, set[str]] = defaultdict(set)
        sources: dict[str, set[str]] = defaultdict(set)
        for f in self.truth.get("facts", []):
            if f["kind"] == "structured":
                sources[f["page"]].add(f["source"])
        for g in self.truth.get("alias_groups", []):
            sources[g["page"]] |= {m["source"] for m in g["members"]}
        for page, srcs in sources.items():
            for s in srcs:
                subj = self._main_subject(s)
                if subj is not None:
                    owner[subj].add(page)
        pairs = sum(len(p) * (len(p) - 1) // 2 for p in owner.values())
        return {"merged": merged, "total": len(self.truth.get("alias_groups", [])),
                "missed": missed, "false_merges": pairs,
                "false_merge_pages": sorted(s for s, p in owner.items() if len(p) > 1)}

    def injections(self) -> dict[str, Any]:
        surfaced = []
        for inj in self.truth.get("injections", []):
            marker = inj["text"][:40].lower()
            for c in self.claims:
                if _src(c["source_key"]) != _src(inj["source"]):
                    continue
                val_hit = V.same(inj["type"], c.get("normalized") or c.get("value", ""), inj["value"]) \
                    or V.same(inj["type"], c.get("value", ""), inj["value"])
                quote_hit = marker in str(c.get("quote") or "").lower() or marker in str(c.get("value", "")).lower()
                if val_hit or quote_hit:
                    surfaced.append({"injection": inj["id"], "claim": c["claim_id"],
                                     "status": c.get("status"), "attribute": c.get("attribute")})
        return {"surfaced": len(surfaced), "total": len(self.truth.get("injections", [])),
                "claims": surfaced}


    def explain(self, result: dict[str, Any]) -> str:
        """Every miss of ``result`` beside what the wiki holds for it: the truth item, then
        each claim its source records gave (subject, attribute, qualifiers, value, status),
        so a miss can be read without opening the wiki."""
        d = result["details"]
        items: list[tuple[str, dict[str, Any], list[str]]] = []
        facts = {f["id"]: f for f in self.truth.get("facts", [])}
        for fid in d["recall_missed"]:
            f = facts[fid]
            items.append(("fact", f, [f["source"]]))
        for key, kind in (("authority_wrong", "authority_conflicts"),
                          ("recency_wrong", "recency_conflicts")):
            by_id = {x["id"]: x for x in self.truth.get(kind, [])}
            for xid in d[key]:
                x = by_id[xid]
                items.append((kind, x, [*x["winner"]["sources"],
                                        *(lo["source"] for lo in x["overruled"])]))
        conflicts = {x["id"]: x for k in ("authority_conflicts", "recency_conflicts")
                     for x in self.truth.get(k, [])}
        for xid in d.get("overruled_unrecorded", ()):
            x = conflicts[xid]
            items.append(("overruled not recorded", x, [lo["source"] for lo in x["overruled"]]))
        by_id = {x["id"]: x for x in self.truth.get("contested", [])}
        for xid in d["contested_missed"]:
            x = by_id[xid]
            items.append(("contested", x, [v["source"] for v in x["values"]]))
        out = []
        for kind, x, sources in items:
            head = {k: v for k, v in x.items() if k not in ("sources", "timestamps")}
            out.append(f"-- {kind} {x['id']}: {json.dumps(head, default=str)[:400]}")
            for src in dict.fromkeys(sources):
                mine = [c for c in self.claims if _src(c["source_key"]) == _src(src)
                        and c.get("kind") != "reference" and c.get("attribute") != "name"]
                out.append(f"   {src}: {len(mine)} claims")
                for c in mine:
                    q = c.get("qualifiers") or {}
                    quote = " ".join(str(c.get("quote") or "").split())[:110]
                    out.append(f"     {c.get('kind', '')[:5]:5} {c['subject']} | "
                               f"{c.get('attribute')}{q if q else ''} = {c.get('value')!r} "
                               f"[{c.get('status')}]  «{quote}»")
        for ex in d["false_alarm_examples"]:
            out.append(f"-- false alarm: {ex}")
        return "\n".join(out)


def restricted_leaks(truth: dict[str, Any], as_principal: dict[str, Any]) -> dict[str, Any]:
    leaks, checked, unavailable = [], 0, []
    for r in truth.get("restricted", []):
        for p in r.get("denied", []):
            seen = as_principal.get(p)
            if seen is None:
                unavailable.append(p)
                continue
            checked += 1
            n = sum(1 for c in seen if _src(c["source_key"]) == _src(r["source"]))
            if n:
                leaks.append({"source": r["source"], "principal": p, "claims": n})
    return {"leaks": len(leaks), "checked": checked, "details": leaks,
            "unavailable": sorted(set(unavailable))}


# -- report -------------------------------------------------------------------------------
def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def score(truth: dict[str, Any], run: dict[str, Any], notes: list[str],
          names: dict[str, set[str]] | None = None) -> dict[str, Any]:
    s = Scorer(truth, run["claims"], run["findings"], names)
    rec = s.recall()
    auth = s.winners(truth.get("authority_conflicts", []))
    rcy = s.winners(truth.get("recency_conflicts", []))
    con = s.contested()
    fa = s.false_alarms()
    al = s.aliases()
    inj = s.injections()
    rl = restricted_leaks(truth, run["as"])
    over_rec = auth["overruled"]["recorded"] + rcy["overruled"]["recorded"]
    over_tot = auth["overruled"]["total"] + rcy["overruled"]["total"]
    figures = {
        "structured_recall": _ratio(rec["structured"]["found"], rec["structured"]["total"]),
        "prose_recall": _ratio(rec["prose"]["found"], rec["prose"]["total"]),
        "authority_winners": _ratio(auth["right"], auth["total"]),
        "recency_winners": _ratio(rcy["right"], rcy["total"]),
        "overruled_recorded": _ratio(over_rec, over_tot),
        "contested_reported": _ratio(con["reported"], con["total"]),
        "alias_merges": _ratio(al["merged"], al["total"]),
        "false_merges": al["false_merges"],
        "injected_surfaced": inj["surfaced"],
        "false_alarm_share": fa["share"],
        "restricted_leaks": rl["leaks"],
    }
    counts = {
        "structured_recall": f"{rec['structured']['found']}/{rec['structured']['total']}",
        "prose_recall": f"{rec['prose']['found']}/{rec['prose']['total']}"
                        f" (prose-only {rec['prose_only']['found']}/{rec['prose_only']['total']})",
        "authority_winners": f"{auth['right']}/{auth['total']}",
        "recency_winners": f"{rcy['right']}/{rcy['total']}",
        "overruled_recorded": f"{over_rec}/{over_tot}",
        "contested_reported": f"{con['reported']}/{con['total']}",
        "alias_merges": f"{al['merged']}/{al['total']}",
        "false_merges": f"{al['false_merges']} pairs",
        "injected_surfaced": f"{inj['surfaced']} claims ({inj['total']} injections)",
        "false_alarm_share": f"{fa['false']} of {fa['reported']} reported",
        "restricted_leaks": f"{rl['leaks']} ({rl['checked']} record×principal checks)",
    }
    met = {}
    for k, (op, target, _) in TARGETS.items():
        v = figures[k]
        met[k] = None if v is None else (v >= target - 1e-9 if op == ">=" else v <= target + 1e-9)
    mode = "schema" if s.schema_mode else "legacy"
    if names is not None:
        mode += ", no schema.yaml"
    return {"corpus": truth.get("corpus"), "mode": mode,
            "claims": len(run["claims"]), "compile_seconds": round(run["seconds"], 2),
            "rejected_inputs": run["rejected_inputs"], "notes": notes, "figures": figures,
            "counts": counts, "met": met,
            "details": {"recall_missed": rec["missed"], "authority_wrong": auth["wrong"],
                        "recency_wrong": rcy["wrong"], "contested_missed": con["missed"],
                        # right winner, but a losing claim not exported ``overruled``
                        "overruled_unrecorded": auth["unrecorded"] + rcy["unrecorded"],
                        "alias_missed": al["missed"], "false_merge_pages": al["false_merge_pages"],
                        "false_alarm_examples": fa["examples"],
                        "other_contradiction_findings": fa["other_contradiction_findings"],
                        "injections": inj["claims"],
                        "restricted": rl},
            "_scorer": s}


LABELS = {
    "structured_recall": "fact recall, structured", "prose_recall": "fact recall, prose",
    "authority_winners": "winner accuracy, authority", "recency_winners": "winner accuracy, recency",
    "overruled_recorded": "overruled claims recorded", "contested_reported": "contested reported",
    "alias_merges": "alias groups merged", "false_merges": "false merges",
    "injected_surfaced": "injected values surfaced", "false_alarm_share": "lint false alarms",
    "restricted_leaks": "restricted leaks",
}


def table(result: dict[str, Any]) -> str:
    rows = [("figure", "value", "count", "target", "met")]
    for k, (op, target, origin) in TARGETS.items():
        v = result["figures"][k]
        if v is None:
            shown = "n/a"
        elif k in ("false_merges", "injected_surfaced", "restricted_leaks"):
            shown = str(v)
        else:
            shown = f"{v * 100:.1f} %"
        tgt = (f"{op} {target * 100:g} %" if isinstance(target, float) and k not in
               ("false_merges", "injected_surfaced", "restricted_leaks") else f"{op} {target:g}")
        if origin == "bench":
            tgt += " (bench)"
        m = result["met"][k]
        rows.append((LABELS[k], shown, result["counts"][k], tgt,
                     "n/a" if m is None else ("met" if m else "MISSED")))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = [f"== {result['corpus']}  ({result['claims']} claims, compile {result['compile_seconds']} s, "
             f"attribute matching: {result['mode']}"
             + (", some inputs rejected" if result["rejected_inputs"] else "") + ")"]
    for i, r in enumerate(rows):
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines += [f"note: {n}" for n in result["notes"]]
    return "\n".join(lines)


def schema_names(corpus: Path) -> dict[str, set[str]]:
    """Attribute → the other names the corpus's own schema.yaml gives it (its phrases). Used
    with --no-schema: the compiler never sees them, but an attribute it names ``title`` or
    ``price`` from the sources' own words is the truth's ``job title`` or ``list price``
    when the company itself uses those words for it. Only naming is forgiven: the claims
    still have to meet in one group for a conflict to be decided. A qualifier is forgiven its
    name the same way (the company's ``service plan`` attribute, phrased ``plan level``, is
    its ``service plan`` qualifier), never its value."""
    path = corpus / "schema.yaml"
    if not path.is_file():
        return {}
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    out: dict[str, set[str]] = defaultdict(set)
    for t in (raw.get("types") or {}).values():
        for name, a in ((t or {}).get("attributes") or {}).items():
            out[name] |= {str(p) for p in ((a or {}).get("phrases") or [])}
    return dict(out)


def without_schema(corpus: Path, work: Path) -> Path:
    """A copy of the corpus without its schema.yaml (the bundled base schema still applies)."""
    copy = work / "corpus-no-schema"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(corpus, copy, ignore=shutil.ignore_patterns("schema.yaml"))
    return copy


def run_one(corpus: Path, truth_path: Path, work: Path, no_schema: bool = False
            ) -> dict[str, Any]:
    truth = yaml.safe_load(truth_path.read_text(encoding="utf-8"))
    work.mkdir(parents=True, exist_ok=True)
    names = None
    if no_schema:
        names = schema_names(corpus)
        corpus = without_schema(corpus, work)
    prepared, notes = prepare_corpus(corpus, work)
    principals = sorted({p for r in truth.get("restricted", []) for p in r.get("denied", [])})
    wiki = work / "wiki"
    if wiki.exists():
        shutil.rmtree(wiki)
    run = compile_and_export(prepared, wiki, principals)
    return score(truth, run, notes, names)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Score a compiled corpus against its ground truth.")
    ap.add_argument("--corpus", type=Path, action="append",
                    help="corpus folder (repeatable); default: generate the company")
    ap.add_argument("--truth", type=Path, action="append",
                    help="truth file per --corpus (default: <corpus>/truth.yaml)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the generated company")
    ap.add_argument("--all", action="store_true", help="the generated company and examples/acme")
    ap.add_argument("--json", action="store_true", help="print JSON instead of tables")
    ap.add_argument("--no-schema", action="store_true",
                    help="compile each corpus without its schema.yaml (schema induction's case); "
                    "attribute names the corpus's schema lists as phrases count as its names")
    ap.add_argument("-v", "--misses", action="store_true",
                    help="after each table, every miss with the claims its source records gave")
    ap.add_argument("--workdir", type=Path, help="keep corpora and wikis here (default: a temp dir)")
    args = ap.parse_args(argv)

    tmp = None
    if args.workdir is None:
        tmp = tempfile.mkdtemp(prefix="folio-quality-")
        work = Path(tmp)
    else:
        work = args.workdir
    try:
        jobs: list[tuple[Path, Path]] = []
        corpora = list(args.corpus or [])
        truths = list(args.truth or [])
        if not corpora or args.all:
            gen = work / f"company-seed-{args.seed}"
            if gen.exists():
                shutil.rmtree(gen)
            generate(args.seed, gen)
            jobs.append((gen, gen / "truth.yaml"))
        if args.all:
            corpora.append(REPO / "examples" / "acme")
            truths.append(HERE / "truth" / "acme.yaml")
        for i, c in enumerate(corpora):
            t = truths[i] if i < len(truths) else c / "truth.yaml"
            jobs.append((c, t))
        results = [run_one(c, t, work / f"run-{i}", args.no_schema)
                   for i, (c, t) in enumerate(jobs)]
        scorers = [r.pop("_scorer") for r in results]
        if args.json:
            print(json.dumps(results, indent=2))
        else:
            print("\n\n".join(table(r) + (f"\n{s.explain(r)}" if args.misses else "")
                               for r, s in zip(results, scorers, strict=True)))
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Answer benchmark: does Folio find, answer, abstain and keep secrets?

    python3 benchmarks/answer_bench.py                        # every question set below
    python3 benchmarks/answer_bench.py --set CORPUS QUESTIONS # one corpus and its questions
    python3 benchmarks/answer_bench.py -v                     # and every miss, named
    python3 benchmarks/answer_bench.py --paraphrase           # the paraphrase sets (PARAPHRASE)

A question set is a YAML list (format: /work/QUESTIONS_FORMAT.md, copied in docs/answers.md):
question, kind (single | multi | contested | restricted | unanswerable), principal, gold pages
(entity ids) and gold values. Each corpus is compiled offline into a temporary wiki; then, in
one run and side by side:

* retrieval recall@5: a gold page among the first 5 pages, for Folio's retrieval
  (compiler/retrieval/) and for a plain BM25 over the raw source documents (title, body and
  fields of every record, no stems, no fields, no links; a record counts as its page);
* answer correctness: every gold value appears in a kept sentence that cites a claim holding
  it, for ``ask`` offline and ``ask`` through the LLM path against a fake litellm provider
  (compiler/extract/fake_provider.py's pattern: a registered custom provider answering in the
  OpenAI chat-completion shape; it writes one sentence per fact it is given, citing it);
  contested questions also need every side and the answer marked contested;
* abstention: share of unanswerable questions abstained on, share of answerable ones answered,
  and precision (abstentions that were right);
* leaks: a restricted question whose gold value shows up in any answer, or any answer citing
  a claim its principal may not see. Must be 0.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from compiler.answers.ask import ask, llm_client  # noqa: E402
from compiler.build import compile_wiki, wiki_state  # noqa: E402
from compiler.extract.fake_provider import FakeProvider, chat_completion, register  # noqa: E402
from compiler.retrieval import retrieve  # noqa: E402
from compiler.settings import FolioSettings  # noqa: E402
from compiler.views import principal  # noqa: E402
from connectors.loader import corpus_records  # noqa: E402

# the sets no change of compiler/ was tuned on (their misses unread by whoever changed it):
# the measure of the next round's work; move a set out when a round tunes on it
NEVER_TUNED = {"larkspur-questions", "tidewater-questions", "fenwick-questions",
               # osprey: written blind, held out, nothing in compiler/ tuned on it
               "osprey-questions",
               # juniper: written blind, held out, nothing in compiler/ tuned on it
               "juniper-questions"}

SETS = [
    (REPO / "examples" / "acme", REPO / "benchmarks" / "truth" / "acme-questions-answers.yaml"),
    (REPO / "benchmarks" / "corpora" / "northwind",
     REPO / "benchmarks" / "truth" / "northwind-questions-answers.yaml"),
    # written by another hand (the company generator's author): the independent measure
    (REPO / "examples" / "acme", REPO / "benchmarks" / "truth" / "acme-questions.yaml"),
    # written blind (their authors never read the retrieval or answer code): stand-ins for
    # the independent benchmark; kestrel was tuned on in the fourth and fifth rounds
    (REPO / "benchmarks" / "corpora" / "kestrel",
     REPO / "benchmarks" / "truth" / "kestrel-questions.yaml"),
    (REPO / "benchmarks" / "corpora" / "larkspur",
     REPO / "benchmarks" / "truth" / "larkspur-questions.yaml"),
    (REPO / "benchmarks" / "corpora" / "tidewater",
     REPO / "benchmarks" / "truth" / "tidewater-questions.yaml"),
    # written blind like the three above but meant to be tuned on (not in NEVER_TUNED): marlowe
    # (equipment rental) and ashgrove (specialty pharmacy)
    (REPO / "benchmarks" / "corpora" / "marlowe",
     REPO / "benchmarks" / "truth" / "marlowe-questions.yaml"),
    (REPO / "benchmarks" / "corpora" / "ashgrove",
     REPO / "benchmarks" / "truth" / "ashgrove-questions.yaml"),
    # written blind like marlowe, tunable; the first with Zendesk tickets beside Jira and HubSpot
    (REPO / "benchmarks" / "corpora" / "brindle",
     REPO / "benchmarks" / "truth" / "brindle-questions.yaml"),
    # written blind like brindle, tunable; Zendesk tickets with their public comments (and
    # private notes that must stay out) beside Confluence, Jira and HubSpot
    (REPO / "benchmarks" / "corpora" / "harrow",
     REPO / "benchmarks" / "truth" / "harrow-questions.yaml"),
    # written blind and HELD OUT (in NEVER_TUNED): fenwick (veterinary hospitals), the first
    # with Salesforce beside HubSpot (two CRMs of different ranks) as well as Confluence and Jira
    (REPO / "benchmarks" / "corpora" / "fenwick",
     REPO / "benchmarks" / "truth" / "fenwick-questions.yaml"),
    # written blind like marlowe, tunable (not in NEVER_TUNED): quillon (commercial insurance
    # brokerage), the same three systems as the independent benchmark
    (REPO / "benchmarks" / "corpora" / "quillon",
     REPO / "benchmarks" / "truth" / "quillon-questions.yaml"),
    # written blind and HELD OUT (in NEVER_TUNED): osprey (managed IT services for small
    # offices; Confluence, Jira v3, HubSpot and Salesforce), nothing in compiler/ tuned on it
    (REPO / "benchmarks" / "corpora" / "osprey",
     REPO / "benchmarks" / "truth" / "osprey-questions.yaml"),
    # written blind and HELD OUT (in NEVER_TUNED): juniper (commercial cleaning and building
    # maintenance; Confluence, Jira v3, Zendesk, HubSpot and Salesforce), nothing in compiler/
    # tuned on it
    (REPO / "benchmarks" / "corpora" / "juniper",
     REPO / "benchmarks" / "truth" / "juniper-questions.yaml"),
]


# Paraphrases of tunable sets (same gold, every question re-asked in other voices: terse,
# chatty, lower case, typos, the sources' words avoided): a rule that answers the original but
# not its paraphrase learned the wording, not the fact. marlowe's and kestrel's re-ask the
# answerable questions; ashgrove's and brindle's every question, the unanswerable ones too.
# Run them with --paraphrase (docs/answers.md).
PARAPHRASE = [
    (REPO / "benchmarks" / "corpora" / name,
     REPO / "benchmarks" / "truth" / f"paraphrase-questions-{name}.yaml")
    for name in ("marlowe", "kestrel", "ashgrove", "brindle")
]

# Sets named "heldout-…" were written before a round of the answer work of issue 21 and held
# out of it (in other voices: terse, chatty, the sources' words avoided); each was tuned on in a
# later round (docs/answers.md says which), so the column says "HELD-OUT" only for a set that
# nothing in compiler/ was tuned on yet: see NEVER_TUNED.
HELDOUT = [
    (REPO / "benchmarks" / "corpora" / "northwind",
     REPO / "benchmarks" / "truth" / "heldout-northwind.yaml"),
    # third round (answer types, missing attributes, paraphrase bridges): written before any
    # of its changes, measured before and after; tuned on in the fourth round (scope)
    (REPO / "benchmarks" / "corpora" / "northwind",
     REPO / "benchmarks" / "truth" / "heldout-northwind-2.yaml"),
]
# generated companies by seed (no other question set uses these seeds): seed 31 for the first
# abstention round; seeds 47 and 59 for the second (paraphrase bridging, asked aspect), both
# written before changes they then informed (docs/answers.md says how); seed 71 written after
# all of that round's changes and measured once, nothing tuned on it
HELDOUT_COMPANIES = [
    (31, REPO / "benchmarks" / "truth" / "heldout-corvane-seed31.yaml"),
    (47, REPO / "benchmarks" / "truth" / "heldout-corvane-seed47.yaml"),
    (59, REPO / "benchmarks" / "truth" / "heldout-corvane-seed59.yaml"),
    (71, REPO / "benchmarks" / "truth" / "heldout-corvane-seed71.yaml"),
    # third round: written before any of its changes, measured before and after; tuned on in
    # the fourth round (scope)
    (83, REPO / "benchmarks" / "truth" / "heldout-corvane-seed83.yaml"),
    (97, REPO / "benchmarks" / "truth" / "heldout-corvane-seed97.yaml"),
]


def generated_company(seed: int | None = None,
                      questions: Path | None = None) -> tuple[Path, Path] | None:
    """The generated second company (benchmarks/company_gen.py, default seed) and its
    questions (or ``questions``, a set written for that seed), in a temporary folder."""
    try:
        from companygen import DEFAULT_SEED, generate
    except ImportError:
        return None
    seed = DEFAULT_SEED if seed is None else seed
    out = Path(tempfile.mkdtemp(prefix="folio-answer-bench-company-")) / "generated-company"
    generate(seed, out)
    return out, questions or out / "questions.yaml"
ANSWERABLE = ("single", "multi", "contested")
_WORD = re.compile(r"[^\W_]+")
_RAW_STOP = frozenset("a an the is are was were be of for to in on at by with what which who "
                      "how do does did and or it its this that".split())


# -- value normalisation --------------------------------------------------------------------------
def norm(text: str) -> str:
    """Lower case, numbers without thousands separators or a trailing .0, one space."""
    t = text.lower()
    t = re.sub(r"(?<=\d),(?=\d{3}\b)", "", t)
    t = re.sub(r"(?<=\d)\.0\b", "", t)
    return " ".join(t.split())


def has(value: str, text: str) -> bool:
    return norm(value) in norm(text)


_TYPED = ("money", "percent", "duration")  # a date is compared first, before the one-number rule
_NUMBERS = re.compile(r"\d+(?:[.,]\d+)*")
# a typed match needs the value to say its type: the tolerant parsers read "15 business days
# after the quarter" as 15 USD and as 15 %, which answers (and leaks) neither "$15" nor "15%"
_MARKS = {
    "money": re.compile(r"[$€£]|\b(?:usd|eur|gbp|dollars?|euros?|pounds?|k|m|million|thousand)\b", re.I),
    "percent": re.compile(r"%|\bper ?cent\b|\bpct\b", re.I),
    "duration": re.compile(r"\b(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|months?|mos?|"
                           r"years?|yrs?|quarters?)\b|\d\s*[hdwmy]\b", re.I),
}


def same_value(gold: str, value: str) -> bool:
    """The gold value is this claim value: as text, or read as a typed value with the company
    generator's tolerant normalisation (benchmarks/companygen/values.py: $480,000 = 480000.0,
    2 years = 24 months), never the compiler's own."""
    if has(gold, value):
        return True
    try:
        from companygen import values as V
    except ImportError:
        return False
    if V.same("date", gold, value):
        return True
    # a typed or bare number stands for the gold value only when the gold holds one number:
    # "3 of 24" is a ratio, and "3 business days" neither answers nor leaks it
    if len(_NUMBERS.findall(gold)) > 1:
        return False
    if any(V.same(t, gold, value) and _MARKS[t].search(value) for t in _TYPED):
        return True
    g, v = V.number(gold), V.number(value)
    return g is not None and v is not None and abs(g - v) < 1e-6 and len(V.tokens(value)) <= 3


# -- the raw-document baseline ----------------------------------------------------------------------
class RawBM25:
    """Plain Okapi BM25 over whole source records (k1 1.2, b 0.75)."""

    def __init__(self, docs: dict[str, str]) -> None:
        self.docs = {k: [w for w in _WORD.findall(v.lower()) if w not in _RAW_STOP]
                     for k, v in docs.items()}
        self.df: Counter = Counter()
        for toks in self.docs.values():
            self.df.update(set(toks))
        self.n = len(self.docs)
        self.avg = sum(len(t) for t in self.docs.values()) / max(self.n, 1)

    def rank(self, query: str) -> list[str]:
        q = [w for w in _WORD.findall(query.lower()) if w not in _RAW_STOP]
        scores = {}
        for key, toks in self.docs.items():
            tf = Counter(toks)
            s = 0.0
            for w in q:
                if tf[w]:
                    idf = math.log(1 + (self.n - self.df[w] + 0.5) / (self.df[w] + 0.5))
                    s += idf * tf[w] * 2.2 / (tf[w] + 1.2 * (0.25 + 0.75 * len(toks) / self.avg))
            if s > 0:
                scores[key] = s
        return sorted(scores, key=lambda k: (-scores[k], k))


def raw_docs(corpus: Path) -> dict[str, str]:
    out = {}
    for r in corpus_records(corpus, 20 << 20):
        fields = " ".join(f"{k} {v}" for k, v in r.fields.items())
        out[r.key] = f"{r.title}\n{r.name or ''}\n{r.body}\n{fields}"
    return out


# -- the fake model ---------------------------------------------------------------------------------
_FACTS = re.compile(r"BEGIN FACTS (\w+)\n(.*)\nEND FACTS \1", re.DOTALL)
_LINE = re.compile(r'^(c\d+): (.*?) = ("(?:[^"\\]|\\.)*")( CONTESTED| OVERRULED)?')


def answerer(messages: list[dict[str, str]], model: str, request: dict) -> dict:
    """A model that answers from the first facts it is given, one sentence each, citing it;
    contested facts it reports as disputed."""
    m = _FACTS.search(messages[-1]["content"])
    sentences = []
    for line in (m.group(2).splitlines() if m else [])[:5]:
        hit = _LINE.match(line)
        if not hit:
            continue
        ref, what, value, mark = hit.groups()
        value = json.loads(value)
        if mark == " OVERRULED":
            continue
        text = (f"Sources disagree: one says {what} is {value}." if mark else
                f"{what}: {value}.")
        sentences.append({"text": text, "claims": [ref]})
    return chat_completion(json.dumps({"sentences": sentences}), model=model,
                           prompt_tokens=sum(len(x["content"]) for x in messages) // 4)


# -- scoring ----------------------------------------------------------------------------------------
def correct(result, values: list[str], contested: bool) -> bool:  # noqa: ANN001
    if not result.found:
        return False
    facts = {f.claim_id: f for f in result.facts}
    for v in values:
        ok = False
        for s in result.sentences:
            cited = [facts[c] for c in s.claims if c in facts]
            hit = [f for f in cited if same_value(v, f.value) or has(v, f.quote)]
            if hit and any(has(f.value, s.text) or has(v, s.text) for f in hit):
                ok = ok or (not contested or s.contested)
        if not ok:
            return False
    return True


def leaked(result, values: list[str], state, who) -> bool:  # noqa: ANN001
    text = result.text() if hasattr(result, "text") else ""
    if any(has(v, text) for v in values):
        return True
    if any(same_value(v, f.value) for v in values for f in getattr(result, "facts", [])
           if any(f.claim_id in s.claims for s in result.sentences)):
        return True
    ids = [cid for cid, _ in result.cited_claims()]
    claims = state.claims_by_ids(ids)
    return any(not c.acl.allows(who) for c, _ in claims.values())


def run_set(corpus: Path, questions: Path, fake: FakeProvider, verbose: bool) -> dict:
    qs = yaml.safe_load(questions.read_text(encoding="utf-8"))
    work = Path(tempfile.mkdtemp(prefix="folio-answer-bench-"))
    wiki = work / "wiki"
    compile_wiki(corpus, wiki)
    state = wiki_state(wiki)
    record_page = dict(state.db.execute("SELECT key, entity_id FROM records"))
    raw = RawBM25(raw_docs(corpus))
    llm = FolioSettings(backend="llm", llm_model="folio-fake/answerer", llm_retries=0)
    client = llm_client(llm, None)  # one client (one litellm Router) for every question
    t: Counter = Counter()
    misses: list[str] = []
    t0 = time.perf_counter()
    for q in qs:
        kind, gold_pages, values = q["kind"], set(q["gold_pages"]), q["gold_values"]
        who = principal(state, q.get("principal"))
        r = retrieve(state, q["question"], who)
        off = ask(state, q["question"], who, "offline")
        gen = ask(state, q["question"], who, "llm", llm, client=client)
        if kind in ANSWERABLE:
            t["answerable"] += 1
            folio_hit = bool(gold_pages & {p.page for p in r.pages[:5]})
            top = []
            for key in raw.rank(q["question"]):
                page = record_page.get(key, key)
                if page not in top:
                    top.append(page)
                if len(top) == 5:
                    break
            raw_hit = bool(gold_pages & set(top))
            t["folio_recall"] += folio_hit
            t["raw_recall"] += raw_hit
            for name, res in (("offline", off), ("llm", gen)):
                ok = correct(res, values, kind == "contested")
                t[f"{name}_correct"] += ok
                t[f"{name}_answered"] += res.found
                if not ok and verbose:
                    misses.append(f"{q['id']} {name} wrong: {q['question']} -> "
                                  f"{res.text().splitlines()[0] if res.found else 'no answer'}")
            if not folio_hit and verbose:
                misses.append(f"{q['id']} retrieval missed {sorted(gold_pages)}: {q['question']}"
                              f" -> {[p.page for p in r.pages[:5]]}")
        elif kind == "unanswerable":
            t["unanswerable"] += 1
            for name, res in (("offline", off), ("llm", gen)):
                t[f"{name}_abstained"] += not res.found
                if res.found and verbose:
                    misses.append(f"{q['id']} {name} answered the unanswerable: {q['question']}"
                                  f" -> {res.text().splitlines()[0]}")
        elif kind == "restricted":
            t["restricted"] += 1
        for name, res in (("offline", off), ("llm", gen)):
            if leaked(res, values if kind == "restricted" else [], state, who):
                t[f"{name}_leaks"] += 1
                misses.append(f"{q['id']} {name} LEAK: {q['question']}")
    t["seconds"] = time.perf_counter() - t0
    t["questions"] = len(qs)
    name = questions.stem if questions.parent.name == "truth" else questions.parent.name
    name = name.removeprefix("heldout-")
    if name in NEVER_TUNED:
        name = "HELD-OUT " + name
    return {"name": name, "t": t, "misses": misses}


def _rate(a: float, b: float) -> str:
    return f"{a / b:.2f} ({int(a)}/{int(b)})" if b else "n/a"


def markdown_table(rows: list[tuple]) -> str:
    """Rows (the first the header) as a markdown table, columns padded to their widest cell."""
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for i, r in enumerate(rows):
        lines.append("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |")
        if i == 0:
            lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def table(results: list[dict]) -> str:
    rows = [("question set", *(r["name"] for r in results))]

    def row(label: str, fn) -> None:  # noqa: ANN001
        rows.append((label, *(fn(r["t"]) for r in results)))

    row("questions (answerable / unanswerable / restricted)", lambda t: (
        f"{t['questions']} ({t['answerable']} / {t['unanswerable']} / {t['restricted']})"))
    row("retrieval recall@5, Folio", lambda t: _rate(t["folio_recall"], t["answerable"]))
    row("retrieval recall@5, BM25 over raw documents", lambda t: _rate(t["raw_recall"],
                                                                       t["answerable"]))
    for name in ("offline", "llm"):
        label = "ask offline" if name == "offline" else "ask llm (fake provider)"
        row(f"{label}: correct (gold value present and cited)",
            lambda t, n=name: _rate(t[f"{n}_correct"], t["answerable"]))
        row(f"{label}: answered the answerable",
            lambda t, n=name: _rate(t[f"{n}_answered"], t["answerable"]))
        row(f"{label}: abstained on the unanswerable",
            lambda t, n=name: _rate(t[f"{n}_abstained"], t["unanswerable"]))
        row(f"{label}: abstention precision", lambda t, n=name: _rate(
            t[f"{n}_abstained"], t[f"{n}_abstained"] + t["answerable"] - t[f"{n}_answered"]))
        row(f"{label}: permission leaks", lambda t, n=name: str(t[f"{n}_leaks"]))
    row("seconds (all questions, both backends)", lambda t: f"{t['seconds']:.1f}")
    return markdown_table(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", nargs=2, action="append", metavar=("CORPUS", "QUESTIONS"),
                    help="a corpus folder and its question set (repeatable)")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every miss")
    ap.add_argument("--paraphrase", action="store_true",
                    help="run the paraphrase sets (PARAPHRASE) instead of the default sets")
    ap.add_argument("--no-heldout", action="store_true",
                    help="leave out the held-out sets (while tuning: do not look at them)")
    ap.add_argument("--exclude", action="append", default=[], metavar="NAME",
                    help="leave out question sets whose file name contains NAME (a held-out "
                         "set not to be looked at while tuning)")
    args = ap.parse_args()
    if args.set and args.paraphrase:
        ap.error("--set and --paraphrase are exclusive")
    sets = [(Path(c), Path(q)) for c, q in args.set] if args.set else [
        (c, q) for c, q in (PARAPHRASE if args.paraphrase else SETS) if q.exists()]
    default = not args.set and not args.paraphrase
    if default and (company := generated_company()) is not None:
        sets.append(company)
    if default and not args.no_heldout:
        sets += [(c, q) for c, q in HELDOUT if q.exists()]
        for seed, questions in HELDOUT_COMPANIES:
            if questions.exists() and (
                    held := generated_company(seed, questions)) is not None:
                sets.append(held)
    sets = [(c, q) for c, q in sets if not any(x in q.name for x in args.exclude)]
    fake = FakeProvider(answerer)
    register(fake)
    results = []
    for c, q in sets:
        try:
            results.append(run_set(c, q, fake, args.verbose))
        except Exception as exc:  # noqa: BLE001 - one corpus that does not compile is reported
            print(f"{q}: skipped, {c} did not compile: {str(exc).splitlines()[0]}")
    print(table(results))
    print(f"fake provider: {fake.calls} calls, {fake.prompt_tokens} prompt tokens")
    for r in results:
        for m in r["misses"]:
            print(f"  [{r['name']}] {m}")
    leaks = sum(r["t"]["offline_leaks"] + r["t"]["llm_leaks"] for r in results)
    return 1 if leaks else 0


if __name__ == "__main__":
    sys.exit(main())

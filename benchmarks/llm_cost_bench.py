#!/usr/bin/env python3
"""LLM cost benchmark: how many model calls and tokens a compile costs, clean and incremental.

    python benchmarks/llm_cost_bench.py                 # N = 2,000 records, synthesis on
    python benchmarks/llm_cost_bench.py --n 10000 --no-synthesis --workdir /tmp/folio-llm-bench

The corpus is compile_bench.py's synthetic enterprise (imported, not copied). The model is the
counting fake provider (``compiler.extract.fake_provider``): a litellm custom provider that
answers in the OpenAI chat-completion shape, so every call goes through the real Router,
cache, budget and validation code; only the model is fake. Measured:

* a clean compile;
* a 1-record edit and a 1 % edit (compile_bench's own edits);
* for each, the same run's full-rebuild baseline: a compile of the same corpus into a fresh
  wiki with an empty cache (what a system without per-call caching would pay every time).

Target: a change calls the model only for the chunks of the changed records (extraction) and
for the pages whose winning claims changed (synthesis). Both are checked and printed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import compile_bench  # noqa: E402 - the corpus generator and its edits

from compiler.build import compile_wiki  # noqa: E402
from compiler.canonical import content_id  # noqa: E402
from compiler.extract.chunking import chunk_spans  # noqa: E402
from compiler.extract.fake_provider import FakeProvider, register, source_text  # noqa: E402
from compiler.extract.synthesis import page_facts  # noqa: E402
from compiler.models import Claim  # noqa: E402
from compiler.settings import FolioSettings  # noqa: E402

TODAY = compile_bench.TODAY


def settings(synthesis: bool) -> FolioSettings:
    return FolioSettings(backend="llm", llm_model="folio-fake/bench", llm_synthesis=synthesis,
                         llm_concurrency=4)


def split(fake: FakeProvider) -> dict[str, int]:
    ex = sum(1 for r in fake.requests if source_text(r["messages"]) is not None)
    return {"calls": fake.calls, "extract_calls": ex, "synth_calls": fake.calls - ex,
            "tokens": fake.prompt_tokens + fake.completion_tokens}


def synthesis_inputs(wiki: Path) -> dict[str, str]:
    """Page → digest of what synthesis is given (its winning claims, as page_facts picks)."""
    out = {}
    for p in wiki.rglob("*.claims.json"):
        side = json.loads(p.read_text())
        winners = [Claim.model_validate({k: v for k, v in c.items() if k != "status"})
                   for c in side["claims"] if c["status"] == "winner"]
        out[side["name"]] = content_id(*[c.id for c in page_facts(winners)])
    return out


def record_chunks(wiki: Path, keys: set[str], size: int) -> dict[str, list[str]]:
    import sqlite3

    db = sqlite3.connect(wiki / ".folio" / "state.db")
    out = {}
    for key, rj in db.execute("SELECT key, record_json FROM records"):
        if key in keys:
            body = json.loads(rj)["body"]
            out[key] = [body[c.start:c.end] for c in chunk_spans(body, size, 2 * size)]
    return out


def change(corpus: Path, wiki: Path, fake: FakeProvider, s: FolioSettings,
           picks: list[dict[str, Any]], rev: int, label: str) -> dict[str, Any]:
    keys = {p["key"] for p in picks}
    chunks_before = record_chunks(wiki, keys, s.llm_chunk_chars)
    synth_before = synthesis_inputs(wiki)
    compile_bench.edit_records(corpus, picks, rev)
    fake.reset()
    t0 = time.perf_counter()
    rep = compile_wiki(corpus, wiki, s, today=TODAY)
    dt = time.perf_counter() - t0
    got = split(fake)
    chunks_after = record_chunks(wiki, keys, s.llm_chunk_chars)
    changed_chunks = sum(len(set(chunks_after.get(k, [])) - set(chunks_before.get(k, [])))
                         for k in keys)
    synth_after = synthesis_inputs(wiki)
    changed_pages = sum(1 for p, d in synth_after.items() if synth_before.get(p) != d)
    return {"label": label, "records": len(picks), "s": dt, **got,
            "changed_chunks": changed_chunks,
            "record_chunks": sum(len(v) for v in chunks_after.values()),
            "pages_claims_changed": changed_pages if s.llm_synthesis else 0,
            "extracted": rep.records_extracted, "rendered": rep.pages_rendered,
            "target_met": got["extract_calls"] <= changed_chunks
            and got["synth_calls"] <= (changed_pages if s.llm_synthesis else 0)}


def baseline(corpus: Path, root: Path, s: FolioSettings, name: str) -> dict[str, int]:
    fresh = FakeProvider()
    register(fresh)
    wiki = root / f"baseline-{name}"
    shutil.rmtree(wiki, ignore_errors=True)
    compile_wiki(corpus, wiki, s, today=TODAY, full=True)
    out = split(fresh)
    shutil.rmtree(wiki, ignore_errors=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=compile_bench.SEED)
    ap.add_argument("--workdir", type=Path)
    ap.add_argument("--no-synthesis", action="store_true")
    args = ap.parse_args()
    root = args.workdir or Path(tempfile.mkdtemp(prefix="folio-llm-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    corpus, wiki = root / "corpus", root / "wiki"
    shutil.rmtree(wiki, ignore_errors=True)
    index = compile_bench.generate(args.n, corpus, args.seed)
    s = settings(not args.no_synthesis)

    fake = FakeProvider()
    register(fake)
    t0 = time.perf_counter()
    rep = compile_wiki(corpus, wiki, s, today=TODAY)
    clean = {"label": "clean compile", "records": rep.records_seen,
             "s": time.perf_counter() - t0, **split(fake)}
    rows = [(clean, dict(clean))]  # a clean compile is its own baseline

    import random

    rng = random.Random(args.seed)
    register(fake)
    one = change(corpus, wiki, fake, s, [index[rng.randrange(len(index))]], 1, "1-record edit")
    rows.append((one, baseline(corpus, root, s, "one")))
    register(fake)
    pct = change(corpus, wiki, fake, s, rng.sample(index, max(1, len(index) // 100)), 2,
                 "1% edit")
    rows.append((pct, baseline(corpus, root, s, "pct")))
    register(fake)
    fake.reset()
    compile_wiki(corpus, wiki, s, today=TODAY)
    noop = {"label": "no change", "records": 0, **split(fake)}
    fake.reset()
    compile_wiki(corpus, wiki, s, today=TODAY, full=True)
    full_warm = {"label": "--full, warm cache", "records": rep.records_seen, **split(fake)}
    rows += [(noop, None), (full_warm, None)]

    print(f"\nLLM cost, N = {args.n} records ({rep.pages_total} pages), synthesis "
          f"{'on' if s.llm_synthesis else 'off'}; fake model, real litellm Router and cache\n")
    print("| run | records changed | LLM calls (extract + synth) | tokens | changed chunks + "
          "pages with changed claims | full-rebuild baseline calls | baseline tokens | "
          "share of baseline | target |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for r, b in rows:
        bound = (f"{r['changed_chunks']} + {r['pages_claims_changed']}"
                 if "changed_chunks" in r else "–")
        share = f"{100 * r['tokens'] / b['tokens']:.2f} %" if b and b["tokens"] else "–"
        target = ("met" if r["target_met"] else "MISSED") if "target_met" in r else "–"
        print(f"| {r['label']} | {r['records']} | {r['calls']} ({r['extract_calls']} + "
              f"{r['synth_calls']}) | {r['tokens']} | {bound} | "
              f"{b['calls'] if b else '–'} | {b['tokens'] if b else '–'} | {share} | {target} |")
    ok = all(r.get("target_met", True) for r, _ in rows) and noop["calls"] == 0 \
        and full_warm["calls"] == 0
    print(f"\nworkdir: {root}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

"""Target 5: a 1M-record clean compile on this machine.

* peak RSS of the compile (parent + workers, sampled every 20 ms; shared pages counted in each
  process, so the figure errs high) < 4 GiB;
* CPU per record within 1.2 × of the 10k figure measured in the same run (medians of
  ``--rounds`` 10k compiles, the 1M compile once: it takes most of an hour here);
* a 1-record edit at 1M < 1 s wall (median of three edits, each of another record).

Everything runs in child processes: the 10k compiles, then one child that compiles 1M records
clean and then makes the three edits. ``--quick`` runs 1k against 5k records instead.
"""

from __future__ import annotations

import json
import shutil

from perf.clean import _python, compile_child, corpus_for, settle, workdir_of
from perf.report import Figure, TargetResult, machine_load

BIG_N, SMALL_N = 1_000_000, 10_000
QUICK_BIG_N, QUICK_SMALL_N = 5_000, 1_000
RSS_LIMIT_MIB = 4096.0
CPU_LIMIT = 1.2
EDIT_LIMIT_S = 1.0

_BIG = """
import json, os, random, time
from pathlib import Path
import compile_bench
from compile_bench import RssSampler, SEED, TODAY, edit_records
from compiler.build import compile_wiki
root = Path({root!r}); corpus, wiki = root / "corpus", root / "wiki"
sampler = compile_bench._SAMPLER = RssSampler()
cpu = lambda t: t.user + t.system + t.children_user + t.children_system
c = cpu(os.times()); t = time.perf_counter()
rep = compile_wiki(corpus, wiki, full=True, today=TODAY)
out = dict(wall=time.perf_counter() - t, cpu=cpu(os.times()) - c, records=rep.records_seen,
           pages=rep.pages_total, claims=rep.claims_total, rss_mib=compile_bench.rss_mib())
index = json.loads((root / "records.json").read_text())
rng = random.Random(SEED)
edits = []
for rev, e in enumerate(rng.sample(index, 3), 1):
    edit_records(corpus, [e], rev)
    t = time.perf_counter()
    r = compile_wiki(corpus, wiki, today=TODAY)
    edits.append(dict(s=time.perf_counter() - t, kind=e["system"] + "/" + e["kind"],
                      rendered=r.pages_rendered, written=r.pages_written))
out["edits"] = edits
print("RESULT " + json.dumps(out))
"""


def run(args) -> list[TargetResult]:
    from compile_bench import SEED, run_child

    root, temporary = workdir_of(args, "scale")
    big_n, small_n = (QUICK_BIG_N, QUICK_SMALL_N) if args.quick else (BIG_N, SMALL_N)
    try:
        load_before = machine_load()
        corpus = corpus_for(root, small_n)
        key = root / "bench-key.pem"
        small: list[float] = []
        small_rss: list[float] = []
        for _ in range(args.rounds):
            settle(args.quick)
            r = compile_child(corpus, root / f"wiki-{small_n}", key, rss=True)
            small.append(1e3 * r["cpu"] / r["records"])
            small_rss.append(r["rss_mib"])
        shutil.rmtree(root / f"wiki-{small_n}", ignore_errors=True)
        sub = root / f"n{big_n}"
        sub.mkdir(parents=True, exist_ok=True)
        run_child(["--_generate", str(big_n), str(sub), "--seed", str(SEED)])
        settle(args.quick)
        big = json.loads(_python(_BIG.format(root=str(sub)),
                                 {"FOLIO_KEY_PATH": str(key)}).split("RESULT ", 1)[1])
        shutil.rmtree(sub, ignore_errors=True)
    finally:
        if temporary:
            shutil.rmtree(root, ignore_errors=True)
    load = f"load before: {load_before}; after: {machine_load()}"
    big_label = f"{big_n // 1000}k" if big_n < 1_000_000 else f"{big_n // 1_000_000}M"
    fig_small = Figure(f"clean compile, {small_n:,} records", "CPU ms/record", small)
    fig_big = Figure(f"clean compile, {big_n:,} records", "CPU ms/record",
                     [1e3 * big["cpu"] / big["records"]])
    rss = Figure(f"peak RSS, {big_n:,} records", "MiB", [big["rss_mib"]])
    edits = Figure(f"1-record edit at {big_n:,} records", "s wall", [e["s"] for e in big["edits"]])
    counts = (f"{big['records']:,} records, {big['pages']:,} pages, {big['claims']:,} claims; "
              f"clean compile {big['wall']:.0f} s wall, {big['cpu']:.0f} s CPU")
    return [
        TargetResult(target=f"5a. scale: peak RSS of a {big_label}-record clean compile",
                     figures=[rss, Figure(f"peak RSS, {small_n:,} records", "MiB", small_rss)],
                     ratio=rss.median / RSS_LIMIT_MIB, limit=1.0, direction="<=",
                     ratio_label="peak RSS ÷ 4 GiB", notes=[counts, load]),
        TargetResult(target=f"5b. scale: CPU per record at {big_label} vs {small_n // 1000}k",
                     figures=[fig_big, fig_small], ratio=fig_big.median / fig_small.median,
                     limit=CPU_LIMIT, direction="<=",
                     ratio_label=f"{big_label} CPU/record ÷ {small_n // 1000}k CPU/record",
                     notes=[counts, load]),
        TargetResult(target=f"5c. scale: 1-record edit at {big_label} records", figures=[edits],
                     ratio=edits.median / EDIT_LIMIT_S, limit=1.0, direction="<=",
                     ratio_label=f"median edit ÷ {EDIT_LIMIT_S:g} s",
                     notes=[", ".join(f"{e['kind']}: {e['rendered']} rendered, {e['written']} "
                                      "written" for e in big["edits"]), load]),
    ]

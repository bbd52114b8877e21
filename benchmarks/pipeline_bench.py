"""Pipeline benchmark: two sites, Prefect flows, the central index in a store.

The synthetic corpus of ``compile_bench`` (real payload shapes) is split the way a platform team
would deploy it: site ``emea`` holds Confluence, Jira and the handbook, site ``us`` the
Salesforce orgs. Measured, with the offline backend and Prefect in ephemeral mode:

- clean: every site extracts and ships, the aggregation compiles and publishes (pages/s);
- bursts: ``--events`` record edits spread over both sites, then the site flows and the
  aggregation; event → page-in-central-index latency (edit time to HEAD published) p50/p95;
- Prefect's own cost per flow run: the same no-change site run and aggregation as flows and as
  plain function calls, side by side (medians).

    python benchmarks/pipeline_bench.py --n 2000 --events 50 --rounds 5 [--store s3://b/p]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
# the first start of an ephemeral server migrates a fresh database: slow on a busy machine
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")

from compile_bench import edit_records, generate  # noqa: E402

SITES = {"emea": ("confluence", "jira", "markdown"), "us": ("salesforce",)}


def split(corpus: Path, root: Path, store: str) -> Path:
    manifest = yaml.safe_load((corpus / "sources.yaml").read_text())
    sites = []
    for name, systems in SITES.items():
        dest = root / name / "corpus"
        mine = [s for s in manifest["sources"] if s["system"] in systems]
        for s in mine:
            shutil.copytree(corpus / s["path"], dest / s["path"])
        shutil.copy(corpus / "authority.yaml", dest)
        (dest / "sources.yaml").write_text(yaml.safe_dump({"tenant": manifest["tenant"],
                                                           "sources": mine}))
        sites.append({"name": name, "corpus": str(dest), "workdir": str(root / name / "work")})
    topo = {"tenant": manifest["tenant"], "store": store,
            "central": {"workdir": str(root / "central"),
                        "authority": str(corpus / "authority.yaml"),
                        "directory": str(corpus / "directory.yaml")},
            "sites": sites}
    path = root / "folio-sites.yaml"
    path.write_text(yaml.safe_dump(topo))
    return path


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000, help="records in the corpus")
    ap.add_argument("--events", type=int, default=50, help="record edits per burst")
    ap.add_argument("--rounds", type=int, default=5, help="bursts")
    ap.add_argument("--store", default=None, help="store URL (default: a folder)")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()

    from rich.console import Console
    from rich.table import Table

    from compiler.settings import FolioSettings
    from compiler.store.url import open_store
    from pipelines import central, site as site_mod
    from pipelines.flows import aggregate, compile_all, site_compile
    from pipelines.topology import load_topology

    root = Path(tempfile.mkdtemp(prefix="folio-pipeline-bench-"))
    os.environ.setdefault("PREFECT_HOME", str(root / "prefect"))
    try:
        entries = generate(args.n, root / "gen", args.seed)
        config = split(root / "gen", root, args.store or str(root / "store"))
        topo, settings = load_topology(config), FolioSettings()
        store = open_store(topo.store, settings)

        t0 = time.perf_counter()
        first = compile_all(str(config))
        clean_s = time.perf_counter() - t0
        pages = first["aggregate"]["compile"]["pages_total"]

        rng = random.Random(args.seed)
        by_site = {name: [e for e in entries if e["system"] in systems]
                   for name, systems in SITES.items()}
        latencies: list[float] = []
        written: list[int] = []
        round_s: list[float] = []
        for rev in range(2, 2 + args.rounds):
            picked = rng.sample([e for es in by_site.values() for e in es], args.events)
            stamps = []
            for name, systems in SITES.items():
                mine = [e for e in picked if e["system"] in systems]
                if mine:
                    edit_records(topo.site(name).corpus, mine, rev)
                stamps += [time.time()] * len(mine)
            t = time.perf_counter()
            for s in topo.sites:
                site_compile(str(config), s.name)
            agg = aggregate(str(config))
            done = time.time()
            round_s.append(time.perf_counter() - t)
            written.append(agg["compile"]["pages_written"])
            latencies += [done - s for s in stamps]

        flow_s, plain_s, flow_a, plain_a = [], [], [], []
        for _ in range(3):
            t = time.perf_counter(); site_compile(str(config), "emea"); flow_s.append(time.perf_counter() - t)
            t = time.perf_counter(); site_mod.site_compile(topo.site("emea"), store, settings, topo.tenant); plain_s.append(time.perf_counter() - t)
            t = time.perf_counter(); aggregate(str(config)); flow_a.append(time.perf_counter() - t)
            t = time.perf_counter(); central.aggregate(topo, store, settings); plain_a.append(time.perf_counter() - t)

        table = Table(title=f"pipeline_bench: N={args.n}, 2 sites, offline backend, "
                            f"store {'s3' if args.store else 'folder'}")
        table.add_column("measure")
        table.add_column("value", justify="right")
        table.add_row("clean: sites + aggregation + publish", f"{clean_s:.1f} s")
        table.add_row("clean: pages/s (central pages / wall)", f"{pages / clean_s:.0f}")
        table.add_row(f"burst of {args.events} edits: wall (median of {args.rounds})",
                      f"{statistics.median(round_s):.2f} s")
        table.add_row("burst: pages written (median)", f"{statistics.median(written):.0f}")
        table.add_row("burst: pages/s (written / wall)",
                      f"{statistics.median(written) / statistics.median(round_s):.0f}")
        table.add_row("event → central index latency p50", f"{pct(latencies, 0.5):.2f} s")
        table.add_row("event → central index latency p95", f"{pct(latencies, 0.95):.2f} s")
        table.add_row("site run, no change: flow / plain (median)",
                      f"{statistics.median(flow_s):.2f} / {statistics.median(plain_s):.2f} s")
        table.add_row("aggregation, no change: flow / plain (median)",
                      f"{statistics.median(flow_a):.2f} / {statistics.median(plain_a):.2f} s")
        table.add_row("Prefect overhead per flow run (site, aggregation)",
                      f"{statistics.median(flow_s) - statistics.median(plain_s):+.2f} / "
                      f"{statistics.median(flow_a) - statistics.median(plain_a):+.2f} s")
        Console().print(table)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

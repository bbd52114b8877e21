#!/usr/bin/env python3
"""Floor benchmark: the least CPU a clean compile of the synthetic corpus can cost in CPython,
beside what Folio's clean compile costs, in one run.

    python benchmarks/floor_bench.py                 # N = 10,000
    python benchmarks/floor_bench.py --n 100000 --workdir /tmp/floor

A real clean compile runs first (a fresh interpreter, signing with a local key); its outputs
size the floor. The floor then does, single-process, only the work whose result the formats
require and no compile logic at all (no extraction, linking, authority, rendering):

* parse every source file (``json.loads``) and hash each record's canonical JSON;
* insert the compile's real number of claims into SQLite with the two indexes the state
  needs, and the same number of rows into an FTS5 table (``folio query`` searches it);
* per page: serialize its real sidecar and DBOM statement (loaded from the compiled wiki
  beforehand, untimed) as compact JSON, sha256 the page, one ECDSA P-256 signature;
* per page: create its three files (page, sidecar, bundle) with their real sizes.

The table gives each part in CPU ms per record and as a share of the budget that a target of
R records/s leaves on this machine's cores (cores / R CPU-seconds per record, assuming perfect
parallelism and nothing else running). The floor is a lower bound, not an estimate: a compile
that does more than this cannot cost less.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from compile_bench import cpu_seconds, settle_disk  # noqa: E402
from sign_bench import _compile_child, _corpus  # noqa: E402


def _outputs(wiki: Path) -> tuple[list[dict], list[dict], list[tuple[int, int, int]]]:
    """Each page's sidecar, its DBOM statement, and its three file sizes."""
    import base64

    sidecars, statements, sizes = [], [], []
    for side in sorted(wiki.glob("*/*.claims.json")):
        page = side.with_name(side.name.removesuffix(".claims.json") + ".md")
        bundle = side.with_name(side.name.removesuffix(".claims.json") + ".dbom.json")
        sidecars.append(json.loads(side.read_bytes()))
        envelope = json.loads(bundle.read_bytes())["dsseEnvelope"]
        statements.append(json.loads(base64.b64decode(envelope["payload"])))
        sizes.append((page.stat().st_size, side.stat().st_size, bundle.stat().st_size))
    return sidecars, statements, sizes


def floor(corpus: Path, wiki: Path, scratch: Path) -> tuple[dict[str, float], int, int, int]:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec

    sidecars, statements, sizes = _outputs(wiki)
    claims = [(c["id"], c["subject"], c["attribute"], str(c["value"]))
              for s in sidecars for c in s["claims"]]
    parts: dict[str, float] = {}

    def part(name: str, started: float) -> float:
        parts[name] = cpu_seconds() - started
        return cpu_seconds()

    t = cpu_seconds()
    records: list[dict] = []
    for f in sorted(corpus.rglob("*.json")):
        doc = json.loads(f.read_bytes())
        records.extend(doc.get("issues") or doc.get("results") or doc.get("records") or [doc])
    records.extend(p.read_bytes() for p in sorted(corpus.rglob("*.md")))
    t = part("parse source files", t)
    digests = [hashlib.sha256(r if isinstance(r, bytes) else json.dumps(
        r, sort_keys=True, separators=(",", ":")).encode()).hexdigest() for r in records]
    t = part("hash canonical records", t)

    db = sqlite3.connect(scratch / "floor.db")
    db.execute("pragma journal_mode=wal")
    db.execute("pragma synchronous=normal")
    db.execute("create table claims(id text, subject text, attribute text, value text, "
               "source text, sha256 text)")
    db.executemany("insert into claims values (?,?,?,?,?,?)",
                   (c + (f"r{i}", digests[i % len(digests)]) for i, c in enumerate(claims)))
    db.execute("create unique index claims_by_id on claims(id)")
    db.execute("create index claims_by_subject on claims(subject)")
    db.commit()
    t = part("store claims (SQLite)", t)
    db.execute("create virtual table search using fts5(subject, attribute, value)")
    db.executemany("insert into search values (?,?,?)", (c[1:] for c in claims))
    db.commit()
    db.close()
    t = part("search rows (FTS5)", t)

    for s, st in zip(sidecars, statements):
        json.dumps(s, separators=(",", ":"), ensure_ascii=False)
        json.dumps(st, sort_keys=True, separators=(",", ":"))
    t = part("serialize sidecar + statement", t)
    key = ec.generate_private_key(ec.SECP256R1())
    for i, (page_size, _, _) in enumerate(sizes):
        digest = hashlib.sha256(i.to_bytes(8, "big") * (page_size // 8)).hexdigest()
        key.sign(b"DSSEv1 28 application/vnd.in-toto+json " + digest.encode() * 40,
                 ec.ECDSA(hashes.SHA256()))
    t = part("hash + sign pages", t)

    out = scratch / "files"
    for i, three in enumerate(sizes):
        folder = out / f"t{i % 12}"
        folder.mkdir(parents=True, exist_ok=True)
        for ext, size in zip((".md", ".claims.json", ".dbom.json"), three):
            fd = os.open(folder / f"p{i}{ext}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.write(fd, b"x" * size)
            os.close(fd)
    part("create 3 files per page", t)
    return parts, len(records), len(sizes), len(claims)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="corpus size in records")
    ap.add_argument("--target", type=float, default=2_000, help="records/s target to budget against")
    ap.add_argument("--workdir", type=Path, default=None, help="default: a temporary folder")
    args = ap.parse_args()
    root = args.workdir or Path(tempfile.mkdtemp(prefix="folio-floor-"))
    root.mkdir(parents=True, exist_ok=True)
    key = root / "bench-key.pem"
    corpus = _corpus(root, args.n)
    wiki, scratch = root / "wiki", root / "scratch"
    for p in (wiki, scratch):
        shutil.rmtree(p, ignore_errors=True)
    scratch.mkdir()
    settle_disk()
    wall, compile_cpu = _compile_child(corpus, wiki, "local", key)
    settle_disk()
    parts, n_records, n_pages, n_claims = floor(corpus, wiki, scratch)

    from rich.console import Console
    from rich.table import Table

    cores = os.cpu_count() or 1
    budget_ms = cores / args.target * 1e3
    table = Table(title=f"{n_records:,} records, {n_pages:,} pages, {n_claims:,} claims; "
                        f"budget at {args.target:,.0f} rec/s on {cores} cores: "
                        f"{budget_ms:.2f} CPU ms/record")
    for col in ("part", "CPU s", "CPU ms/rec", "of budget"):
        table.add_column(col, justify="left" if col == "part" else "right")

    def row(name: str, seconds: float, style: str | None = None) -> None:
        ms = seconds / n_records * 1e3
        table.add_row(name, f"{seconds:.2f}", f"{ms:.3f}", f"{ms / budget_ms:.0%}", style=style)

    for name, seconds in parts.items():
        row(name, seconds)
    total = sum(parts.values())
    row("floor (sum)", total, "bold")
    row(f"Folio clean compile ({wall:.1f} s wall)", compile_cpu, "bold")
    Console().print(table)
    print(f"floor allows at most {cores * n_records / total:,.0f} records/s on {cores} cores; "
          f"Folio's compile: {n_records / wall:,.0f} records/s wall, "
          f"{cores * n_records / compile_cpu:,.0f} at perfect parallelism of its CPU time; "
          f"compile logic above the floor: {(compile_cpu - total) / n_records * 1e3:.2f} ms/record")
    if args.workdir is None:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

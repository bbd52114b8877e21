#!/usr/bin/env python3
"""Provenance benchmark: signing and verification rate of page DBOMs, and what signing adds to a
clean compile.

    python benchmarks/sign_bench.py                      # sign/verify at >= 10k pages; overhead at 100k records
    python benchmarks/sign_bench.py --overhead-n 10000 --repeat 3

The corpus comes from ``compile_bench.generate`` (same synthetic enterprise). Measured:

* sign rate: pages/s for statement building + DSSE signing + Sigstore bundle + atomic write,
  over every page of a compiled wiki (inputs loaded first, not timed), single-process, the way
  the compile signs (``page_statement_bytes``; each claim's digest computed here, where the
  compile hashes the JSON it already has);
* verify rate: pages/s of ``verify_wiki`` (index root, every page against its manifest, every
  signature against the trusted key);
* compile overhead: median clean compile with signing (local key) vs ``FOLIO_SIGNING=off``,
  alternating the two so drift in machine speed hits both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from compile_bench import SEED, TODAY, generate, settle_disk  # noqa: E402


def _corpus(root: Path, n: int) -> Path:
    corpus = root / f"corpus-{n}"
    if not (corpus / "sources.yaml").exists():
        generate(n, corpus, SEED)
    return corpus


def _compile_child(corpus: Path, wiki: Path, signing: str, key: Path) -> tuple[float, float]:
    """One clean compile in a fresh interpreter: (wall seconds, CPU seconds including the
    signing workers). CPU time is the steadier figure on a shared machine."""
    code = (
        "import os,sys,time,shutil;from pathlib import Path;from compiler.build import compile_wiki;"
        f"w=Path({str(wiki)!r});"
        "cpu=lambda t:t.user+t.system+t.children_user+t.children_system;"
        "c=cpu(os.times());t=time.perf_counter();"
        f"compile_wiki(Path({str(corpus)!r}),w,full=True,today={TODAY!r});"
        "print(time.perf_counter()-t, cpu(os.times())-c)")
    env = {**os.environ, "FOLIO_SIGNING": signing, "FOLIO_KEY_PATH": str(key)}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, check=True,
                         capture_output=True, text=True)
    wall, cpu = out.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def sign_verify(root: Path, min_pages: int, key: Path) -> dict:
    from compiler.build import compile_wiki, wiki_state
    from compiler.atomic import write_atomic
    from compiler.models import Conflict
    from compiler.provenance.index_root import bundle_name
    from compiler.provenance.signers import LocalKeySigner
    from compiler.provenance.statement import PAYLOAD_TYPE, BuildContext, page_statement_bytes
    from compiler.provenance.verify import trust_from, verify_wiki
    from compiler.settings import FolioSettings
    from datetime import UTC, datetime

    n = 10_000
    while True:
        corpus, wiki = _corpus(root, n), root / f"wiki-{n}"
        os.environ["FOLIO_KEY_PATH"] = str(key)
        compile_wiki(corpus, wiki, full=True, today=TODAY)
        st = wiki_state(wiki)
        pages = list(st.db.execute("SELECT entity_id, path FROM pages ORDER BY entity_id"))
        if len(pages) >= min_pages or n >= 400_000:
            break
        st.close()
        n *= 2
    status = dict(st.db.execute("SELECT id, status FROM claims"))
    conflicts: dict[str, list[Conflict]] = {}
    for subject, js in st.db.execute("SELECT subject, conflict_json FROM conflicts"):
        conflicts.setdefault(subject, []).append(Conflict.model_validate_json(js))
    inputs = [(eid, path, (wiki / path).read_bytes(), st.claims_of_subject(eid))
              for eid, path in pages]
    st.close()
    signer = LocalKeySigner.load(key)
    now = datetime.now(UTC)
    build = BuildContext(compiler_version="bench", schema_version="1",
                         backend={"backend": "offline", "model": "none"}, policy_digest="0" * 64,
                         builder_id="urn:folio:builder:bench", invocation_id="bench",
                         started_on=now, finished_on=now)
    # into a folder of its own: bundles rewritten behind the compile's back would (rightly) no
    # longer match the wiki's index root
    dest = root / f"signed-{n}"
    t0 = time.perf_counter()
    for eid, path, data, claims in inputs:
        payload = page_statement_bytes(path, data, claims, status, conflicts.get(eid, ()), build)
        write_atomic(dest / bundle_name(eid), signer.sign_bundle(payload, PAYLOAD_TYPE))
    sign_s = time.perf_counter() - t0
    trust = trust_from(FolioSettings(key_path=key))
    t0 = time.perf_counter()
    report = verify_wiki(wiki, trust)
    verify_s = time.perf_counter() - t0
    assert report.ok, report.findings[:5]
    return {"records": n, "pages": len(pages), "sign_s": sign_s,
            "sign_rate": len(pages) / sign_s, "verify_s": verify_s,
            "verify_rate": report.pages / verify_s}


def overhead(root: Path, n: int, repeat: int, key: Path) -> dict:
    corpus = _corpus(root, n)
    wiki = root / f"wiki-overhead-{n}"
    on, off = [], []

    def clean_compile(signing: str) -> tuple[float, float]:
        # the previous wiki is deleted before, untimed, and its write-back let finish: on this
        # VM's disk, files created during that write-back cost several times the usual
        shutil.rmtree(wiki, ignore_errors=True)
        settle_disk()
        return _compile_child(corpus, wiki, signing, key)

    clean_compile("off")  # warm-up: imports and bytecode, not timed
    for i in range(repeat):
        print(f"  compile {n:,} records, run {i + 1}/{repeat}", file=sys.stderr, flush=True)
        # alternate which goes first, so that drift in machine speed hits both alike
        for signing in (("off", "local") if i % 2 == 0 else ("local", "off")):
            (off if signing == "off" else on).append(clean_compile(signing))
    shutil.rmtree(wiki, ignore_errors=True)
    m_on, m_off = statistics.median(w for w, _ in on), statistics.median(w for w, _ in off)
    c_on, c_off = statistics.median(c for _, c in on), statistics.median(c for _, c in off)
    return {"records": n, "runs": repeat, "signed_s": m_on, "unsigned_s": m_off,
            "overhead_pct": 100.0 * (m_on - m_off) / m_off,
            "signed_cpu_s": c_on, "unsigned_cpu_s": c_off,
            "cpu_overhead_pct": 100.0 * (c_on - c_off) / c_off,
            "load_avg": os.getloadavg(), "signed_all": on, "unsigned_all": off}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=10_000, help="sign/verify at least this many")
    ap.add_argument("--overhead-n", type=int, default=100_000, help="records for the overhead run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    root = args.workdir or Path(tempfile.mkdtemp(prefix="folio-sign-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    key = root / "bench-key.pem"
    sv = sign_verify(root, args.pages, key)
    ov = overhead(root, args.overhead_n, args.repeat, key)
    rows = [
        ("pages signed / verified", f"{sv['pages']:,} (from {sv['records']:,} records)"),
        ("sign rate (statement + DSSE + bundle + write)", f"{sv['sign_rate']:,.0f} pages/s"),
        ("verify rate (root + pages + signatures)", f"{sv['verify_rate']:,.0f} pages/s"),
        (f"clean compile, {ov['records']:,} records, signing off (median of {ov['runs']})",
         f"{ov['unsigned_s']:.2f} s"),
        (f"clean compile, {ov['records']:,} records, signing on (median of {ov['runs']})",
         f"{ov['signed_s']:.2f} s"),
        ("signing overhead on clean compile, wall (target < 10 %)", f"{ov['overhead_pct']:+.1f} %"),
        ("CPU time of the compile, signing off / on", f"{ov['unsigned_cpu_s']:.2f} s / "
                                                      f"{ov['signed_cpu_s']:.2f} s"),
        ("signing overhead, CPU time (all cores)", f"{ov['cpu_overhead_pct']:+.1f} %"),
        ("load average at the end (other work on the machine)",
         " ".join(f"{x:.1f}" for x in ov["load_avg"])),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  value")
    print(f"{'-' * width}  {'-' * 24}")
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    if args.json:
        args.json.write_text(json.dumps({"sign_verify": sv, "overhead": ov}, indent=2))


if __name__ == "__main__":
    main()

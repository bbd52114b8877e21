#!/usr/bin/env python3
"""Claim counts and rejection rate of a real tiny model next to the offline backend, on the
example company (examples/acme).

    python benchmarks/llm_tiny_model.py [--min-confidence 0.0] [--workdir /tmp/folio-tiny]

Starts SmolLM2-135M-Instruct (tests/gguf_server.py: llama.cpp's OpenAI-compatible server from
the xllamacpp wheel) on a free 127.0.0.1 port, compiles the corpus offline and through the
model (litellm ``openai/`` route, JSON-schema constrained output), and prints both.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from compiler.build import compile_wiki  # noqa: E402
from compiler.extract.llm import RESPONSE_REASONS  # noqa: E402
from compiler.settings import FolioSettings  # noqa: E402

ACME = REPO / "examples" / "acme"


def kinds(wiki: Path) -> Counter[str]:
    return Counter(c["kind"] for p in wiki.rglob("*.claims.json")
                   for c in json.loads(p.read_text())["claims"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-confidence", type=float, default=0.0)
    ap.add_argument("--max-claims", type=int, default=4)
    ap.add_argument("--max-output-tokens", type=int, default=400)
    ap.add_argument("--workdir", type=Path)
    args = ap.parse_args()
    root = args.workdir or Path(tempfile.mkdtemp(prefix="folio-tiny-"))
    for d in ("offline", "tiny"):
        shutil.rmtree(root / d, ignore_errors=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, str(REPO / "tests" / "gguf_server.py"),
                               "--port", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        off = compile_wiki(ACME, root / "offline", FolioSettings(), today="2026-11-21")
        t0 = time.perf_counter()
        tiny = compile_wiki(ACME, root / "tiny", FolioSettings(
            backend="llm", llm_model="openai/smollm2",
            llm_api_base=f"http://127.0.0.1:{port}/v1", llm_api_key="unused",
            llm_max_claims_per_chunk=args.max_claims,
            llm_max_output_tokens=args.max_output_tokens,
            llm_min_confidence=args.min_confidence, llm_concurrency=2, llm_timeout_s=600),
            today="2026-11-21")
        secs = time.perf_counter() - t0
    finally:
        server.terminate()
        server.wait(timeout=30)
    ko, kt = kinds(root / "offline"), kinds(root / "tiny")
    by = tiny.rejected_by_reason
    claim_rej = sum(n for r, n in by.items() if r not in RESPONSE_REASONS)
    resp_rej = sum(n for r, n in by.items() if r in RESPONSE_REASONS)
    text_claims = kt["fact"] + kt["statement"]
    proposed = text_claims + claim_rej  # every text claim came from the model
    print(f"\nexamples/acme, SmolLM2-135M-Instruct Q4_1 (min confidence {args.min_confidence}, "
          f"{args.max_claims} claims/chunk, {args.max_output_tokens} max tokens): "
          f"{tiny.llm['calls']} calls, {tiny.llm['prompt_tokens']} + "
          f"{tiny.llm['completion_tokens']} tokens, {secs:.0f} s\n")
    print("| backend | claims | field | reference | fact | statement | text claims "
          "| rejected (claims) | rejected answers | rejection rate |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| offline | {off.claims_total} | {ko['field']} | {ko['reference']} | {ko['fact']} | "
          f"{ko['statement']} | {ko['fact'] + ko['statement']} | – | – | – |")
    rate = f"{100 * claim_rej / proposed:.0f} %" if proposed else "–"
    print(f"| tiny model | {tiny.claims_total} | {kt['field']} | {kt['reference']} | "
          f"{kt['fact']} | {kt['statement']} | {text_claims} | {claim_rej} | {resp_rej} of "
          f"{tiny.llm['calls']} | {rate} |")
    print(f"\nrejections by reason: {dict(sorted(by.items()))}")


if __name__ == "__main__":
    main()

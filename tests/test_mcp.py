"""``folio mcp`` through the official MCP SDK's client: over stdio (a real ``folio mcp``
subprocess, principal fixed by its token) and over streamable HTTP (a real uvicorn server on
the loopback, principal from each request's bearer token). Same guarantees as the web view."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
import pytest
import uvicorn
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from compiler.provenance.verify import trust_from
from compiler.serve.auth import AuthConfig
from compiler.serve.mcp import http_app
from compiler.settings import FolioSettings
from serve_wiki import QUESTIONS, DISCOUNT_PAGE, Served, forbidden_for, leaks, served  # noqa: F401

REPO = Path(__file__).resolve().parents[1]
TOOLS = {"search", "show_page", "query", "ask", "audit", "page_dbom"}


def served_question(who: str) -> str:
    return QUESTIONS[who]


def _text(result) -> str:  # noqa: ANN001
    return "".join(getattr(c, "text", "") for c in result.content)


async def _calls(session: ClientSession, served: Served, who: str) -> list[tuple[str, bool, str]]:
    """Every tool over every page the operator has, the hidden names, and every answer."""
    from contextlib import closing

    from compiler.build import wiki_state

    with closing(wiki_state(served.wiki)) as state:
        pages = state.page_ids()
    out = []
    calls: list[tuple[str, dict]] = []
    for pid in pages:
        calls += [("show_page", {"page": pid}), ("page_dbom", {"page": pid})]
    for q in ("discount", "Discount Approval Policy", "VP approval", "SUP-103", "FHIR",
              "Umbrella Health", "return window"):
        calls += [("search", {"query": q}), ("query", {"question": q}),
                  ("ask", {"question": q}), ("show_page", {"page": q})]
    for rid in served.answers.values():
        calls.append(("audit", {"answer_id": rid}))
    for name, args in calls:
        r = await session.call_tool(name, args)
        text = _text(r)
        for v in args.values():  # the caller's own words echoed back are not a leak
            text = text.replace(json.dumps(v)[1:-1], "")
        out.append((f"{name} {args}", bool(r.is_error), text))
    return out


async def _check(session: ClientSession, served: Served, who: str) -> None:
    await session.initialize()
    names = {t.name for t in (await session.list_tools()).tools}
    assert TOOLS <= names
    forbidden = forbidden_for(served.wiki, who)
    results = await _calls(session, served, who)
    assert len(results) > 60
    print(f"{who}: {len(results)} tool calls, {len(forbidden)} hidden strings, 0 leaks")
    for call, _, text in results:
        assert leaks(text, forbidden) == [], (who, call)
    by_call = {c: (err, t) for c, err, t in results}
    hidden = by_call[f"show_page {{'page': '{DISCOUNT_PAGE}'}}"]
    missing = await session.call_tool("show_page", {"page": "policy/no-such-policy"})
    if who == "bob":
        assert not hidden[0] and json.loads(hidden[1])["title"] == "Discount Approval Policy"
        rid = served.answers["bob"]
        trail = json.loads(by_call[f"audit {{'answer_id': '{rid}'}}"][1])
        assert trail["trace"] and trail["question"].startswith("What is the maximum discount")
        dbom = json.loads(by_call[f"page_dbom {{'page': '{DISCOUNT_PAGE}'}}"][1])
        assert dbom["status"] == "verified"
        asked = await session.call_tool("ask", {"question": served_question("bob")})
        answer = json.loads(_text(asked))
        assert answer["found"] and any(f["value"] == "20%" for f in answer["facts"])
    else:
        assert hidden[0] and missing.is_error
        assert hidden[1] == _text(missing)
        assert hidden[1].endswith("not found")


def _stdio_params(served: Served, who: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-c", "from pipelines.folio_cli import app; app()", "mcp", "--wiki", str(served.wiki),
              "--tokens", str(served.tokens_file)],
        env={"PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
             "FOLIO_KEY_PATH": os.environ["FOLIO_KEY_PATH"],
             "FOLIO_MCP_TOKEN": served.tokens[who]},
        cwd=str(REPO))


@pytest.mark.parametrize("who", ["alice", "bob", "carol"])
def test_stdio(served: Served, who: str) -> None:
    async def main() -> None:
        async with stdio_client(_stdio_params(served, who)) as (read, write):
            async with ClientSession(read, write) as session:
                await _check(session, served, who)

    anyio.run(main)


ISSUER, AUDIENCE = "https://login.example.test/realms/acme", "folio-mcp"


@pytest.fixture(scope="module")
def idp_key(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    import jwt
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
    jwk.update(kid="mcp1", use="sig", alg="ES256")
    path = tmp_path_factory.mktemp("idp") / "jwks.json"
    path.write_text(json.dumps({"keys": [jwk]}))
    return key, path


def _jwt(key, sub: str) -> str:  # noqa: ANN001
    import jwt

    now = int(time.time())
    return jwt.encode({"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "iat": now,
                       "exp": now + 300}, key, algorithm="ES256", headers={"kid": "mcp1"})


@pytest.fixture(scope="module")
def mcp_url(served: Served, idp_key) -> Iterator[str]:  # noqa: ANN001
    from compiler.serve.auth import OIDCConfig

    oidc = OIDCConfig(issuer=ISSUER, audience=AUDIENCE, jwks_file=idp_key[1])
    app = http_app(served.wiki, AuthConfig(tokens_file=served.tokens_file, oidc=oidc),
                   trust_from(FolioSettings()))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(400):
        if server.started:
            break
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(10)


@asynccontextmanager
async def _http_session(url: str, token: str | None) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                yield session


@pytest.mark.parametrize("who", ["alice", "bob", "carol"])
def test_http(served: Served, mcp_url: str, who: str) -> None:
    async def main() -> None:
        async with _http_session(mcp_url, served.tokens[who]) as session:
            await _check(session, served, who)

    anyio.run(main)


def test_http_refuses_without_a_valid_token(served: Served, mcp_url: str) -> None:
    import httpx

    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "0"}}}
    headers = {"Accept": "application/json, text/event-stream"}
    for token in (None, "not-a-token", served.tokens["stranger"]):
        h = dict(headers, **({"Authorization": f"Bearer {token}"} if token else {}))
        r = httpx.post(mcp_url, json=body, headers=h)
        assert r.status_code == 401 and r.json() == {"error": "authentication required"}
    ok = httpx.post(mcp_url, json=body,
                    headers=dict(headers, Authorization=f"Bearer {served.tokens['bob']}"))
    assert ok.status_code == 200


def test_stdio_refuses_a_token_not_in_the_file(served: Served) -> None:
    import subprocess

    params = _stdio_params(served, "bob")
    for token in ("nope", served.tokens["stranger"]):
        env = {**os.environ, **(params.env or {}), "FOLIO_MCP_TOKEN": token}
        r = subprocess.run([params.command, *params.args], env=env, cwd=params.cwd,
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert r.returncode == 1
        assert "refused" in r.stderr or "not in the directory" in r.stderr


def test_http_with_oidc_tokens(served: Served, mcp_url: str, idp_key) -> None:  # noqa: ANN001
    async def main() -> None:
        async with _http_session(mcp_url, _jwt(idp_key[0], "bob")) as session:
            await session.initialize()
            page = await session.call_tool("show_page", {"page": DISCOUNT_PAGE})
            assert not page.is_error and "20%" in _text(page)
        async with _http_session(mcp_url, _jwt(idp_key[0], "carol")) as session:
            await session.initialize()
            page = await session.call_tool("show_page", {"page": DISCOUNT_PAGE})
            assert page.is_error and _text(page).endswith("not found")

    anyio.run(main)
    import httpx

    r = httpx.post(mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                   headers={"Authorization": f"Bearer {_jwt(idp_key[0], 'mallory')}",
                            "Accept": "application/json, text/event-stream"})
    assert r.status_code == 401

"""``folio mcp``: the wiki as Model Context Protocol tools (the official ``mcp`` SDK).

Tools: ``search``, ``show_page``, ``query`` (the offline answer), ``ask`` (``folio ask``,
offline backend), ``audit`` and ``page_dbom``. Each call is computed for one principal by the same
:class:`~compiler.serve.visible.Viewer` as the web view, so a hidden page and a missing one give
the same "not found".

- stdio (local agents): the operator fixes the principal at launch with a token from the token
  file (``FOLIO_MCP_TOKEN``; never on the command line, where ``ps`` shows it).
- HTTP (shared agents): streamable HTTP, stateless; every request carries a bearer token
  (token file or OIDC JWT) or comes from the trusted proxy, checked before the SDK sees it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from ..provenance.verify import Trust
from .app import Server, Unauthorized, resolve_principal
from .auth import AuthConfig, Identity
from .visible import Viewer, snapshot

NOT_FOUND = "not found"
IDENTITY_KEY = "folio.identity"


def _dump(data: object) -> str:
    if hasattr(data, "model_dump_json"):
        return data.model_dump_json()  # type: ignore[union-attr]
    if isinstance(data, list):
        return json.dumps([d.model_dump(mode="json") for d in data])
    return json.dumps(data)


def build_mcp(wiki: Path, trust: Trust,
              identity_of: Callable[[Context], Identity]) -> MCPServer:
    server = MCPServer(
        name="folio", log_level="WARNING", instructions="Read a Folio wiki as the authenticated principal: search "
        "pages, show a page with its claims, sources and authority, answer a question from "
        "winning claims, and audit a signed answer.")

    def run(ctx: Context, fn: Callable[[Viewer], object]) -> str:
        ident = identity_of(ctx)
        with snapshot(wiki) as state:
            try:
                viewer = Viewer(state, wiki, resolve_principal(state, ident), trust)
            except Unauthorized as exc:
                raise ToolError("not authorized") from exc
            data = fn(viewer)
            if data is None:
                raise ToolError(NOT_FOUND)
            return _dump(data)

    @server.tool(structured_output=False)
    def search(query: str, ctx: Context) -> str:
        """Pages whose claims or names match the words of ``query`` (JSON list of hits)."""
        return run(ctx, lambda v: v.search(query[:500]))

    @server.tool(structured_output=False)
    def show_page(page: str, ctx: Context) -> str:
        """One page by id (``policy/return-policy``), title or alias: its claims with status
        (winner, overruled, contested), sources, authority, conflicts and backlinks (JSON)."""
        return run(ctx, lambda v: v.page(page))

    @server.tool(structured_output=False)
    def query(question: str, ctx: Context) -> str:
        """Answer a question from the wiki's winning claims, each cited with its page and the
        exact source record version (JSON)."""
        return run(ctx, lambda v: v.ask(question[:500]))

    @server.tool(structured_output=False)
    def ask(question: str, ctx: Context) -> str:
        """``folio ask``: sentences answering the question, each citing the claims (page,
        source record version) it rests on; contested values said as contested (JSON)."""
        return run(ctx, lambda v: v.ask_answer(question[:500]))

    @server.tool(structured_output=False)
    def audit(answer_id: str, ctx: Context) -> str:
        """The audit trail of a signed answer: answer → claims → pages → source versions, each
        flagged unchanged, changed or deleted since the answer was given (JSON)."""
        return run(ctx, lambda v: v.audit(answer_id))

    @server.tool(structured_output=False)
    def page_dbom(page: str, ctx: Context) -> str:
        """A page's signed DBOM and whether it verifies (JSON)."""
        return run(ctx, lambda v: v.dbom(page))

    return server


def stdio_server(wiki: Path, trust: Trust, ident: Identity) -> MCPServer:
    return build_mcp(wiki, trust, lambda ctx: ident)


class _Authenticate:
    """ASGI middleware: no request reaches the MCP SDK without an identity."""

    def __init__(self, app: ASGIApp, srv: Server) -> None:
        self.app = app
        self.srv = srv

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            ident = self.srv.identity(Request(scope))
            with snapshot(self.srv.wiki) as state:
                resolve_principal(state, ident)  # a name outside the directory stops here
            scope[IDENTITY_KEY] = ident
        except Unauthorized:
            response = JSONResponse({"error": "authentication required"}, status_code=401,
                                    headers={"WWW-Authenticate": 'Bearer realm="folio"'})
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


def http_app(wiki: Path, cfg: AuthConfig, trust: Trust, host: str = "127.0.0.1") -> ASGIApp:
    srv = Server(wiki, cfg, trust)

    def identity_of(ctx: Context) -> Identity:
        request = ctx.request_context.request
        ident = getattr(request, "scope", {}).get(IDENTITY_KEY) if request is not None else None
        if ident is None:
            raise ToolError("not authorized")
        return ident

    server = build_mcp(wiki, trust, identity_of)
    inner = server.streamable_http_app(stateless_http=True, json_response=True, host=host)
    app = _Authenticate(inner, srv)
    return app

"""``folio serve``: the read-only web view and JSON API, one Starlette app.

Each request authenticates (session cookie from the login form, bearer token or OIDC JWT,
trusted proxy header, or the configured anonymous principal), opens the wiki state read-only,
and computes its answer for that principal only (:mod:`compiler.serve.visible`). A hidden page
and a missing one get the same 404 body, HTML or JSON.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ..models import Principal
from ..provenance.verify import Trust
from ..state import State
from ..views import principal
from . import html as H
from .auth import AuthConfig, AuthError, Authenticator, Identity
from .visible import Viewer, snapshot

log = logging.getLogger("folio.serve")
SESSION_COOKIE = "folio_session"
NOT_FOUND_JSON = {"error": "not found"}
MAX_QUERY_CHARS = 500
MAX_LOGIN_BYTES = 8192


class Unauthorized(Exception):
    pass


def security_headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = H.CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Cache-Control"] = "no-store"
    return response


def resolve_principal(state: State, ident: Identity) -> Principal | None:
    """The principal an identity acts as, built like ``--as`` builds it
    (:func:`compiler.views.principal`: directory groups and identities). A name the directory
    does not know is refused, except the configured anonymous principal (which then sees
    public claims only)."""
    if ident.name is None:
        return None
    if state.principal_groups(ident.name) is None and ident.via != "anonymous":
        raise Unauthorized(f"principal {ident.name!r} ({ident.via}) is not in the directory")
    return principal(state, ident.name)


@dataclass
class Sessions:
    """Login sessions of the web view, in memory (one process): id → (identity, expiry)."""

    hours: float
    _live: dict[str, tuple[Identity, float]] = field(default_factory=dict)

    def create(self, ident: Identity) -> str:
        """A session never outlives the credential it was started with (a JWT's ``exp``)."""
        now = time.time()
        for old in [k for k, (_, exp) in self._live.items() if exp < now]:
            del self._live[old]
        sid = secrets.token_urlsafe(32)
        expiry = now + self.hours * 3600
        if ident.expires is not None:
            expiry = min(expiry, ident.expires)
        self._live[sid] = (ident, expiry)
        return sid

    def get(self, sid: str | None) -> Identity | None:
        if not sid or sid not in self._live:
            return None
        ident, expiry = self._live[sid]
        if time.time() > expiry:
            del self._live[sid]
            return None
        return ident

    def drop(self, sid: str | None) -> None:
        self._live.pop(sid or "", None)


class Server:
    def __init__(self, wiki: Path, cfg: AuthConfig, trust: Trust) -> None:
        self.wiki = wiki
        self.auth = Authenticator(cfg)
        self.trust = trust
        self.sessions = Sessions(cfg.session_hours)

    def identity(self, request: Request) -> Identity:
        header = request.headers.get("authorization", "")
        if header:
            scheme, _, token = header.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise Unauthorized("Authorization header is not a bearer token")
            try:
                return self.auth.bearer(token.strip())
            except AuthError as exc:
                raise Unauthorized(str(exc)) from exc
        ident = self.sessions.get(request.cookies.get(SESSION_COOKIE))
        if ident is not None:
            return ident
        client = request.client.host if request.client else None
        ident = self.auth.proxy(client, dict(request.headers))
        if ident is not None:
            return ident
        ident = self.auth.anonymous()
        if ident is not None:
            return ident
        raise Unauthorized("no credentials")

    def viewer(self, state: State, request: Request) -> Viewer:
        try:
            who = resolve_principal(state, self.identity(request))
        except Unauthorized as exc:
            # why, for the operator's log; the client only learns that it was refused
            log.info("refused %s %s from %s: %s", request.method, request.url.path,
                     request.client.host if request.client else "?", exc)
            raise
        return Viewer(state, self.wiki, who, self.trust)


def build_app(wiki: Path, cfg: AuthConfig, trust: Trust,
              allowed_hosts: list[str] | None = None) -> Starlette:
    """``allowed_hosts``: Host header values answered (DNS rebinding: a page on another site
    whose name resolves to the loopback must not read a loopback server); None answers any."""
    srv = Server(wiki, cfg, trust)

    def json_view(fn: Callable[[Request, Viewer], Any]) -> Callable[[Request], Awaitable[Response]]:
        def work(request: Request) -> Any:
            with snapshot(wiki) as state:
                return fn(request, srv.viewer(state, request))

        async def endpoint(request: Request) -> Response:
            try:
                # reads are blocking SQLite and file work: off the event loop, one state each
                data = await run_in_threadpool(work, request)
            except Unauthorized:
                return security_headers(JSONResponse(
                    {"error": "authentication required"}, status_code=401,
                    headers={"WWW-Authenticate": 'Bearer realm="folio"'}))
            if data is None:
                return security_headers(JSONResponse(NOT_FOUND_JSON, status_code=404))
            if hasattr(data, "model_dump"):
                data = data.model_dump(mode="json")
            elif isinstance(data, list):
                data = [d.model_dump(mode="json") if hasattr(d, "model_dump") else d
                        for d in data]
            return security_headers(JSONResponse(data))
        return endpoint

    def html_view(fn: Callable[[Request, Viewer, str | None], str | None]
                  ) -> Callable[[Request], Awaitable[Response]]:
        def work(request: Request) -> tuple[str, str | None]:
            with snapshot(wiki) as state:
                viewer = srv.viewer(state, request)
                name = viewer.who.name if viewer.who else "operator"
                return name, fn(request, viewer, name)

        async def endpoint(request: Request) -> Response:
            try:
                name, body = await run_in_threadpool(work, request)
            except Unauthorized:
                return security_headers(RedirectResponse("/login", status_code=303))
            if body is None:
                return security_headers(HTMLResponse(H.not_found(name), status_code=404))
            return security_headers(HTMLResponse(body))
        return endpoint

    def q(request: Request, key: str = "q") -> str:
        return request.query_params.get(key, "")[:MAX_QUERY_CHARS]

    def pid(request: Request) -> str:
        return request.path_params["page"]

    # -- HTML -----------------------------------------------------------------------------------
    def home(r: Request, v: Viewer, who: str | None) -> str:
        return H.index(v.index(), who)

    def page(r: Request, v: Viewer, who: str | None) -> str | None:
        p = v.page(pid(r))
        if p is None:
            filed = v.answer_page(pid(r))
            return H.filed_answer(filed, who) if filed else None
        return H.page(p, who)

    def search(r: Request, v: Viewer, who: str | None) -> str:
        return H.search(q(r), v.search(q(r)), who)

    def dbom(r: Request, v: Viewer, who: str | None) -> str | None:
        d = v.dbom(pid(r))
        ref = v.ref(d.page) if d else None
        return H.dbom(d, ref.title, who) if d and ref else None

    def history(r: Request, v: Viewer, who: str | None) -> str | None:
        entries = v.history(pid(r))
        view = v.find(pid(r))
        ref = v.ref(view.entity.id) if view else None
        return H.history(entries, ref, who) if entries is not None and ref else None

    def answers(r: Request, v: Viewer, who: str | None) -> str:
        return H.answers(v.answers(), who)

    def audit(r: Request, v: Viewer, who: str | None) -> str | None:
        report = v.audit(r.path_params["rid"])
        return H.audit(report, who) if report else None

    def ask(r: Request, v: Viewer, who: str | None) -> str:
        return H.answer(v.ask(q(r)), who)

    async def login_form(request: Request) -> Response:
        return security_headers(HTMLResponse(H.login(error=False)))

    def cross_site(request: Request) -> bool:
        """A form post from another origin (login CSRF): browsers send Origin on POSTs."""
        origin = request.headers.get("origin")
        return origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}"

    async def login(request: Request) -> Response:
        if cross_site(request):
            return security_headers(HTMLResponse(H.login(error=True), status_code=403))
        if int(request.headers.get("content-length") or 0) > MAX_LOGIN_BYTES:
            return security_headers(HTMLResponse(H.login(error=True), status_code=413))
        form = await request.form(max_files=0, max_fields=4)
        token = str(form.get("token", "")).strip()
        try:
            ident = srv.auth.bearer(token) if token else None
            if ident is not None:
                with snapshot(wiki) as state:
                    resolve_principal(state, ident)
        except (AuthError, Unauthorized):
            ident = None
        if ident is None:
            return security_headers(HTMLResponse(H.login(error=True), status_code=401))
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(SESSION_COOKIE, srv.sessions.create(ident), httponly=True,
                            samesite="strict", secure=request.url.scheme == "https", path="/")
        return security_headers(response)

    async def logout(request: Request) -> Response:
        if cross_site(request):
            return security_headers(HTMLResponse(H.login(error=True), status_code=403))
        srv.sessions.drop(request.cookies.get(SESSION_COOKIE))
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return security_headers(response)

    async def css(request: Request) -> Response:
        return security_headers(Response(H.CSS, media_type="text/css"))

    async def missing(request: Request, exc: Exception) -> Response:
        if request.url.path.startswith("/api/"):
            return security_headers(JSONResponse(NOT_FOUND_JSON, status_code=404))
        return security_headers(HTMLResponse(H.not_found(None), status_code=404))

    # -- JSON -----------------------------------------------------------------------------------
    def api_me(r: Request, v: Viewer) -> dict:
        return {"principal": v.who.name if v.who else None,
                "groups": list(v.who.groups) if v.who else None}

    routes = [
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/static/folio.css", css),
        Route("/", html_view(home)),
        Route("/search", html_view(search)),
        Route("/ask", html_view(ask)),
        Route("/page/{page:path}", html_view(page)),
        Route("/dbom/{page:path}", html_view(dbom)),
        Route("/history/{page:path}", html_view(history)),
        Route("/answers", html_view(answers)),
        Route("/answers/{rid}", html_view(audit)),
        Route("/api/me", json_view(api_me)),
        Route("/api/pages", json_view(lambda r, v: v.index())),
        Route("/api/search", json_view(lambda r, v: v.search(q(r)))),
        Route("/api/query", json_view(lambda r, v: v.ask(q(r)))),
        Route("/api/ask", json_view(lambda r, v: v.ask_answer(q(r)))),
        Route("/api/dbom/{page:path}", json_view(lambda r, v: v.dbom(pid(r)))),
        Route("/api/history/{page:path}", json_view(lambda r, v: v.history(pid(r)))),
        Route("/api/pages/{page:path}", json_view(
            lambda r, v: v.page(pid(r)) or v.answer_page(pid(r)))),
        Route("/api/answers", json_view(lambda r, v: v.answers())),
        Route("/api/answers/{rid}", json_view(lambda r, v: v.audit(r.path_params["rid"]))),
    ]
    middleware = ([Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)]
                  if allowed_hosts else [])
    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={404: missing, 405: missing})
    app.state.server = srv
    return app

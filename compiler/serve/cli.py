"""``folio serve``, ``folio mcp`` and ``folio serve-token`` (registered from compiler/cli.py)."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape

err = Console(stderr=True)

# a folder, or a published wiki (s3://bucket/prefix, file:///path) synced into the cache once
# at start: the server then serves that verified snapshot
from ..store.cli import WikiOpt  # noqa: E402

AuthOpt = Annotated[Optional[Path], typer.Option(
    "--auth", help="auth config (YAML): tokens_file, proxy {header, allow}, oidc {issuer, "
    "audience, jwks_file, principal_claim}, anonymous (docs/serve.md)")]
TokensOpt = Annotated[Optional[Path], typer.Option(
    "--tokens", help="token file (YAML: tokens: [{principal, sha256}]); see serve-token")]
HostOpt = Annotated[str, typer.Option("--host", help="address to bind (default loopback only)")]


def _setup(wiki: Path, auth: Path | None, tokens: Path | None):  # noqa: ANN202
    from ..provenance.verify import trust_from
    from ..settings import FolioSettings
    from .auth import ConfigError, load_auth_config

    if not (wiki / ".folio" / "state.db").is_file():
        err.print(f"[red]error:[/red] {escape(str(wiki))}: not a compiled wiki "
                  "(run `folio compile` first)")
        raise typer.Exit(1)
    try:
        cfg = load_auth_config(auth, tokens)
        trust = trust_from(FolioSettings())
    except (ConfigError, ValueError) as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from exc
    _check_state(wiki)
    return cfg, trust


def _check_state(wiki: Path) -> None:
    """Refuse to serve a state the signed wiki contradicts: the answers work's check
    (compiler/answers/guard.py), over every page, once before serving."""
    from contextlib import closing

    from ..answers.guard import served
    from ..build import wiki_state

    with closing(wiki_state(wiki)) as state:
        served(wiki, state, None)


LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"]


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _warn_bind(host: str) -> None:
    if not _is_loopback(host):
        err.print(f"[yellow]warning:[/yellow] listening on {escape(host)}: put it behind a "
                  "TLS-terminating reverse proxy (docs/serve.md)")


def serve_cmd(
    wiki: WikiOpt = "wiki",
    auth: AuthOpt = None,
    tokens: TokensOpt = None,
    host: HostOpt = "127.0.0.1",
    port: Annotated[int, typer.Option("--port")] = 8765,
    allowed_host: Annotated[Optional[list[str]], typer.Option(
        "--allowed-host", help="Host header to answer (repeatable; default: the loopback "
        "names when bound to the loopback, else any)")] = None,
) -> None:
    """Serve a read-only web view and JSON API of the wiki, every response computed for the
    authenticated principal only (docs/serve.md)."""
    import uvicorn

    from .app import build_app

    cfg, trust = _setup(wiki, auth, tokens)
    _warn_bind(host)
    hosts = allowed_host or (LOOPBACK_HOSTS if _is_loopback(host) else None)
    uvicorn.run(build_app(wiki, cfg, trust, hosts), host=host, port=port, log_level="warning",
                proxy_headers=False, server_header=False)


def mcp_cmd(
    wiki: WikiOpt = "wiki",
    http: Annotated[bool, typer.Option("--http", help="streamable HTTP instead of stdio")] = False,
    auth: AuthOpt = None,
    tokens: TokensOpt = None,
    host: HostOpt = "127.0.0.1",
    port: Annotated[int, typer.Option("--port")] = 8766,
) -> None:
    """Serve the wiki to agents over the Model Context Protocol. stdio: the principal is the
    one whose token is in FOLIO_MCP_TOKEN; HTTP: each request's bearer token or OIDC JWT."""
    from .auth import AuthError, Authenticator
    from .mcp import http_app, stdio_server

    cfg, trust = _setup(wiki, auth, tokens)
    if http:
        import uvicorn

        _warn_bind(host)
        uvicorn.run(http_app(wiki, cfg, trust, host), host=host, port=port,
                    log_level="warning", proxy_headers=False, server_header=False)
        return
    token = os.environ.get("FOLIO_MCP_TOKEN", "").strip()
    if not token:
        err.print("[red]error:[/red] FOLIO_MCP_TOKEN is not set: the stdio server runs as the "
                  "principal whose token it holds")
        raise typer.Exit(1)
    try:
        ident = Authenticator(cfg).bearer(token)
    except AuthError as exc:
        err.print("[red]error:[/red] FOLIO_MCP_TOKEN was refused")
        raise typer.Exit(1) from exc
    from contextlib import closing

    from ..build import wiki_state
    from .app import Unauthorized, resolve_principal

    with closing(wiki_state(wiki)) as state:
        try:
            resolve_principal(state, ident)
        except Unauthorized as exc:
            err.print(f"[red]error:[/red] {escape(str(exc))}")
            raise typer.Exit(1) from exc
    stdio_server(wiki, trust, ident).run()


def serve_token_cmd(
    principal: Annotated[str, typer.Argument(help="principal name from directory.yaml")],
    tokens: Annotated[Path, typer.Option("--tokens", help="token file to add to")],
    operator: Annotated[bool, typer.Option(
        "--operator", help="the token sees everything (operators and auditors only)")] = False,
) -> None:
    """Create a token for a principal: prints it once; the file keeps only its sha256."""
    from .auth import add_token

    typer.echo(add_token(tokens, principal, operator))


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_cmd)
    app.command("mcp")(mcp_cmd)
    app.command("serve-token")(serve_token_cmd)

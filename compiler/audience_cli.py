"""``folio render --audience``: the CLI side of compiler/audience.py (registered by cli.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from .store.cli import WikiOpt

out = Console()
err = Console(stderr=True)


def render_cmd(
    audience: Annotated[str, typer.Option(
        "--audience", help="a principal or group of the wiki's directory.yaml")],
    dest: Annotated[Path, typer.Option(
        "--out", "-o", help="vault folder to write (created; an older vault there is replaced)")],
    wiki: WikiOpt = "wiki",
) -> None:
    """Write an Obsidian vault holding only what an audience may see: its pages re-rendered
    from the claims it may read (authority settled again among those), index.md, log.md and
    SCHEMA.md, signed like the wiki (check it with `folio verify --wiki DIR`). Pages it may
    not see leave no trace: no file, title, link target or count."""
    from .audience import AudienceError, render_audience
    from .build import wiki_state
    from .provenance.signers import SigningError
    path = Path(wiki)
    try:
        state = wiki_state(path)
    except FileNotFoundError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from exc
    from .answers.guard import served

    served(path, state, None)  # a vault is signed anew: never from a state the wiki contradicts
    try:
        report = render_audience(path, state, audience, dest)
    except (AudienceError, SigningError) as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from exc
    finally:
        state.close()
    out.print(f"wrote {report.pages} pages for {escape(audience)} to {escape(str(dest))}"
              + ("" if report.signed else " (unsigned: FOLIO_SIGNING=off)"), highlight=False)


def register(app: typer.Typer) -> None:
    app.command("render")(render_cmd)

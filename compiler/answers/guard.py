"""The serving commands' check that the state they answer from matches the signed wiki
(:mod:`compiler.provenance.state_check`), with the message and exit code they share."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from ..models import Principal
from ..settings import FolioSettings
from ..state import State

err = Console(stderr=True)
EXIT_REFUSED = 1


def served(wiki: Path, state: State, pages: Iterable[str] | None,
           who: Principal | None = None, settings: FolioSettings | None = None) -> None:
    """Exit 1 with a clear message unless ``pages`` (``None``: every page; every page too for
    a wiki of at most ``state_check.FULL_CHECK_PAGES``) and the directory in ``state`` match the
    signed wiki. A wiki compiled with signing off has nothing to check
    against: it is served with a warning."""
    from ..provenance.signers import SigningError
    from ..provenance import state_check
    from ..provenance.state_check import StateCheck, StateMismatch
    from ..provenance.verify import VerifyError, trust_from

    settings = settings or FolioSettings()
    if settings.signing == "off":
        err.print("[yellow]warning:[/yellow] FOLIO_SIGNING=off: serving from a state no "
                  "signature checks", highlight=False)
        return
    try:
        check = StateCheck(wiki, state, trust_from(settings))
        check.check_principals()
        if pages is None or state.page_count() <= state_check.FULL_CHECK_PAGES:
            check.check_all()
        else:
            check.check_pages(pages)
        check.raise_if_failed()
    except (StateMismatch, VerifyError, SigningError) as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_REFUSED) from exc

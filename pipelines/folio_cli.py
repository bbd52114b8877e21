"""``folio``: the whole command line, composed from what each package registers.

compiler/cli.py holds the compiler's own commands (compile, query, show, lint, verify, publish,
ask, serve, …), pipelines/connectors_cli.py the event commands (``connectors run|sync``, ``consume``),
pipelines/cli.py the Prefect flows (``pipeline …``). The composition lives here, in the package
that already stands on both compiler/ and connectors/, so no package imports the CLI of one
above it. Each of those modules imports only typer, rich and its own light modules: the optional
dependencies (httpx, kafka, prefect, …) are imported inside the commands that use them, so the
base install runs ``folio --help`` and every base command, and a command that needs an extra
says which (compiler/cli_base.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer
from rich.console import Console

from compiler import __version__
from compiler.cli import app as compiler_app
from compiler.cli_base import folio_typer

from .cli import register as register_pipelines
from .connectors_cli import register as register_connectors

app = folio_typer(
    help="Folio compiles enterprise sources (CMS pages, tickets, CRM records) into a "
    "provenance-tracked, authority-resolved, incrementally maintained markdown wiki.",
)


def _version(value: bool) -> None:
    if value:
        Console().print(f"folio {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="print the version and exit")] = False,
) -> None:
    """Folio: knowledge compiled once and kept current."""


def _registered_by(*registers: Callable[[typer.Typer], None]) -> typer.Typer:
    commands = folio_typer()
    for register in registers:
        register(commands)
    return commands


# added without a name, a group's commands stand at the top level; the compiler's first, so
# `folio --help` lists compile, query, show, … before the event and pipeline commands
app.add_typer(compiler_app)
app.add_typer(_registered_by(register_connectors, register_pipelines))

if __name__ == "__main__":  # `python -m pipelines.folio_cli`, as the `folio` script
    app(prog_name="folio")

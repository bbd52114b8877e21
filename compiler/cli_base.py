"""What every ``folio`` command group shares: plain help text, and a missing optional
dependency reported as the extra to install instead of a traceback.

The base install (``pip install -e .``) has no httpx, kafka, boto3, prefect or litellm: the
modules that need them are imported inside the commands that use them, and whatever still
raises ``ModuleNotFoundError`` for one of them ends here, as one line naming the extra."""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console
from typer.core import TyperGroup

from .render import plural

# top-level module → the extra of pyproject.toml that installs it
EXTRA_OF = {
    "httpx": "connectors",
    "kafka": "kafka",
    "crc32c": "kafka",
    "boto3": "s3",
    "botocore": "s3",
    "prefect": "pipelines",
    "fastapi": "pipelines",
    "litellm": "llm",
    "xllamacpp": "llm-local",
    "starlette": "serve",
    "uvicorn": "serve",
    "mcp": "serve",
    "multipart": "serve",
    "python_multipart": "serve",
    "jwt": "serve",
}

_err = Console(stderr=True)


def missing_extra(exc: BaseException) -> tuple[str, str] | None:
    """(module, extra) when ``exc`` is an optional dependency that is not installed."""
    if not isinstance(exc, ModuleNotFoundError) or not exc.name:
        return None
    module = exc.name.split(".")[0]
    extra = EXTRA_OF.get(module)
    return (module, extra) if extra else None


def install_hint(extra: str) -> str:
    return f'pip install -e ".[{extra}]"'


class FolioGroup(TyperGroup):
    """A command group whose commands fail with the extra to install when an optional
    dependency is missing (the whole command tree runs inside the root group's invoke)."""

    def invoke(self, ctx: typer.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ModuleNotFoundError as exc:
            found = missing_extra(exc)
            if found is None:
                raise
            module, extra = found
            command = " ".join(filter(None, (ctx.command_path, ctx.invoked_subcommand)))
            _err.print(f"error: `{command}` needs {module}, an optional dependency: install it "
                       f"with {install_hint(extra)} in the folio folder (or pip install "
                       f"\"folio[{extra}]\" where folio came from a package index)",
                       markup=False, highlight=False, soft_wrap=True)
            raise typer.Exit(1) from None


__all__ = ["EXTRA_OF", "FolioGroup", "folio_typer", "install_hint", "missing_extra", "plural"]


def folio_typer(**kwargs: Any) -> typer.Typer:
    """A ``typer.Typer`` as every Folio command group is made: help as plain text (rich markup
    would eat ``[[page]]`` and show a flag as ``<bool>``; click rewraps each paragraph), and
    the missing-extra message above."""
    kwargs.setdefault("no_args_is_help", True)
    return typer.Typer(cls=FolioGroup, rich_markup_mode=None, add_completion=False,
                       pretty_exceptions_show_locals=False, **kwargs)

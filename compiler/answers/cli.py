"""``folio ask`` (and, later, ``folio answers``): registered on the main app by
:func:`register`, so compiler/cli.py stays a thin list of commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape

from ..settings import FolioSettings
from ..store.cli import WikiOpt
from .guard import served

out = Console()
err = Console(stderr=True)

AsOpt = Annotated[Optional[str], typer.Option(
    "--as", help="answer as this principal (groups from the corpus directory.yaml); "
    "without it you are the operator and see everything")]
GroupOpt = Annotated[Optional[list[str]], typer.Option(
    "--group", help="extra group for --as (repeatable)")]


def ask_cmd(
    question: Annotated[str, typer.Argument(help="a question in plain words")],
    wiki: WikiOpt = "wiki",
    who: AsOpt = None,
    groups: GroupOpt = None,
    backend: Annotated[Optional[str], typer.Option(
        "--backend", help="offline (extractive) or llm (generated, FOLIO_LLM_*); default: "
        "FOLIO_BACKEND")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable answer")] = False,
) -> None:
    """Answer in sentences that each cite the claims they state, from the claims you may see.
    Every answer is stored as a signed answer record (see `folio audit`).

    Exit codes: 0 answered (or no answer); 1 the state does not match the signed wiki, the
    model failed or the budget ran out."""
    from ..build import wiki_state
    from ..extract.base import ExtractionFailed
    from ..views import principal
    from .ask import ask

    settings = FolioSettings()
    try:
        state = wiki_state(wiki)
    except FileNotFoundError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from exc
    mode = backend or settings.backend
    if mode not in ("offline", "llm"):
        err.print(f"[red]error:[/red] --backend {mode!r}: offline or llm")
        raise typer.Exit(2)
    who_p = principal(state, who, groups)
    try:
        result = ask(state, question, who_p, mode, settings, cache_dir=wiki / ".folio")
    except ExtractionFailed as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from exc
    served(wiki, state, result.served_pages(), who_p, settings)
    record = _attest(state, wiki, result, settings)
    if as_json:
        data = result.model_dump(mode="json")
        data["answer_id"] = record
        out.print_json(json.dumps(data))
        return
    out.print(result.text(), highlight=False, markup=False, soft_wrap=True)
    if result.dropped:
        what = ", ".join(f"{k} {v}" for k, v in result.dropped.items())
        err.print(f"sentences dropped: {what}", highlight=False)
    if record:
        from ..store.cli import shown

        out.print(f"answer record: {record} (folio audit {record} --wiki {shown(wiki)})",
                  highlight=False, soft_wrap=True)


def _attest(state, wiki: Path, result, settings: FolioSettings) -> str | None:  # noqa: ANN001
    from ..provenance.answers import attest_answer
    from ..provenance.signers import SigningError
    from ..store.cli import push_answer

    if settings.signing == "off":
        err.print("[yellow]warning:[/yellow] FOLIO_SIGNING=off: the answer is not recorded")
        return None
    try:
        rid = attest_answer(state, wiki, result, settings)
    except SigningError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from exc
    push_answer(wiki, rid)
    return rid


def register(app: typer.Typer) -> None:
    app.command("ask")(ask_cmd)

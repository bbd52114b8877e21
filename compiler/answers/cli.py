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
# the sentence-level detail of each `ask`, beside the compile state (operators' folder)
ASKED_DIR = ".folio/asked"

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
    save: Annotated[bool, typer.Option(
        "--save", help="file the answer back into the wiki as a page of type answer, kept "
        "current by every compile (see `folio answers`)")] = False,
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
    if record:
        # the sentence-level detail beside the signed record, for `folio answers save`
        from ..atomic import write_atomic

        write_atomic(wiki / ASKED_DIR / f"{record}.json",
                     result.model_dump_json().encode("utf-8"))
    page = _save(wiki, state, result, record, settings) if save else None
    if as_json:
        data = result.model_dump(mode="json")
        data["answer_id"] = record
        data["page"] = page
        out.print_json(json.dumps(data))
        return
    if page:
        out.print(f"filed as [[{page}]]", highlight=False, markup=False)
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


def _save(wiki: Path, state, result, record: str | None,  # noqa: ANN001
          settings: FolioSettings, answered_at=None) -> str | None:  # noqa: ANN001
    from datetime import UTC, datetime

    from ..build import CompileError
    from ..store.cli import _REMOTES
    from .filing import refresh_pages
    from ..answer_pages import file_answer

    if wiki in _REMOTES:
        err.print("[red]error:[/red] --save files an answer into a local wiki, not a published "
                  "one")
        raise typer.Exit(1)
    if not result.found:
        err.print("no answer: nothing filed")
        return None
    filed = file_answer(wiki, state, result, record, answered_at or datetime.now(UTC))
    state.close()
    try:
        refresh_pages(wiki, settings)
    except CompileError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from exc
    return filed.page


def _state(wiki: Path):  # noqa: ANN202 - State, imported lazily
    from ..build import wiki_state

    try:
        return wiki_state(wiki)
    except FileNotFoundError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from exc


answers_app = typer.Typer(help="Answers filed back into the wiki as pages of type answer.",
                          no_args_is_help=True)


@answers_app.command("save")
def answers_save(
    answer_id: Annotated[str, typer.Argument(help="id printed by `folio ask`")],
    wiki: WikiOpt = "wiki",
) -> None:
    """File a signed answer (from `folio ask`) back into the wiki as a page. Refused when a
    claim it cites changed since (ask again instead)."""
    from ..provenance.answers import AuditError, audit
    from ..provenance.verify import VerifyError, trust_from
    from .ask import AskAnswer

    settings = FolioSettings()
    state = _state(wiki)
    try:
        report = audit(wiki, state, answer_id, trust_from(settings))
    except (AuditError, VerifyError) as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from exc
    if report.changed:
        err.print(f"[red]error:[/red] answer {answer_id}: what it cites changed since it was "
                  "given (folio audit shows what); ask again with --save")
        raise typer.Exit(1)
    detail = wiki / ASKED_DIR / f"{answer_id}.json"
    if not detail.exists():
        err.print(f"[red]error:[/red] {detail}: no sentence-level detail for this record "
                  "(recorded by `folio query --attest`?); file answers from `folio ask`")
        raise typer.Exit(1)
    result = AskAnswer.model_validate_json(detail.read_bytes())
    cited = {c.claim_id for c in report.trace}
    if {cid for s in result.sentences for cid in s.claims} != cited:
        err.print(f"[red]error:[/red] {detail}: does not match the signed record {answer_id}")
        raise typer.Exit(1)
    page = _save(wiki, state, result, answer_id, settings, report.answered_at)
    out.print(f"filed as [[{page}]]", highlight=False, markup=False)


@answers_app.command("refresh")
def answers_refresh(
    wiki: WikiOpt = "wiki",
    everything: Annotated[bool, typer.Option(
        "--all", help="ask every filed answer again, not only the stale ones")] = False,
) -> None:
    """Ask the stale filed answers again (LLM calls only for those) and re-render their pages."""
    from datetime import UTC, datetime

    from ..build import CompileError
    from ..extract.base import ExtractionFailed
    from ..views import principal
    from .ask import ask
    from .filing import refresh_pages
    from ..answer_pages import file_answer, load_filed, staleness

    settings = FolioSettings()
    state = _state(wiki)
    todo = [f for f in load_filed(wiki) if everything or staleness(state, f)]
    client = None
    for f in todo:
        if f.backend == "llm" and client is None:
            from .ask import llm_client

            client = llm_client(settings, wiki / ".folio")  # one client for every answer
        who = None if f.principal == "operator" else principal(state, f.principal)
        try:
            result = ask(state, f.question, who, f.backend, settings,
                         client=client if f.backend == "llm" else None,
                         cache_dir=wiki / ".folio")
        except ExtractionFailed as exc:
            err.print(f"[red]error:[/red] {escape(str(exc))}")
            raise typer.Exit(1) from exc
        served(wiki, state, result.served_pages(), who, settings)
        record = _attest(state, wiki, result, settings)
        file_answer(wiki, state, result, record, datetime.now(UTC))
        out.print(f"re-asked [[{f.page}]]" + ("" if result.found else " (no answer now)"),
                  highlight=False, markup=False)
    state.close()
    try:
        written, removed = refresh_pages(wiki, settings)
    except CompileError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from exc
    out.print(f"{len(todo)} answers asked again; {len(written)} pages written, "
              f"{len(removed)} removed")


@answers_app.command("list")
def answers_list(wiki: WikiOpt = "wiki") -> None:
    """Filed answers, stale ones marked."""
    from ..answer_pages import load_filed, staleness

    state = _state(wiki)
    for f in load_filed(wiki):
        why = staleness(state, f)
        out.print(f"{'STALE ' if why else ''}[[{f.page}]] {f.question}"
                  + (f" — {'; '.join(why)}" if why else ""), highlight=False, markup=False,
                  soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("ask")(ask_cmd)
    app.add_typer(answers_app, name="answers")

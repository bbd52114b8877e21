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
ASKED_GROUPS = "asked_groups"

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
        "current by every compile, clean rebuilds included (the filed answer is kept beside the "
        "corpus, in .folio-answers/; see `folio answers`)")] = False,
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

        detail = result.model_dump(mode="json")
        # the groups it was asked with (--group narrows): `answers save` files it as that
        detail[ASKED_GROUPS] = list(who_p.groups) if who_p is not None else None
        write_atomic(wiki / ASKED_DIR / f"{record}.json",
                     json.dumps(detail, ensure_ascii=False).encode("utf-8"))
    page = _save(wiki, state, result, record, settings, who=who_p) if save else None
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
          settings: FolioSettings, answered_at=None, who=None) -> str | None:  # noqa: ANN001
    from datetime import UTC, datetime

    from ..answer_pages import file_answer
    from ..store.cli import _REMOTES

    if wiki in _REMOTES:
        err.print("[red]error:[/red] --save files an answer into a local wiki, not a published "
                  "one")
        raise typer.Exit(1)
    if not result.found:
        err.print("no answer: nothing filed")
        return None
    filed = _filed(lambda: file_answer(wiki, state, result, record,
                                       answered_at or datetime.now(UTC), who, write=False))
    state.close()
    _commit(wiki, settings, [filed])
    return filed.page


def _filed(make):  # noqa: ANN001, ANN202 - a FiledAnswer, built by ``make``
    from ..answer_pages import FiledAnswerError

    try:
        return make()
    except FiledAnswerError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from exc


def _commit(wiki: Path, settings: FolioSettings, filed: list, unfile: tuple[str, ...] = ()
            ) -> tuple[list[str], list[str]]:
    """Write these filed answers (and un-file the pages ``unfile``) and bring their pages,
    index.md, log.md and the root up to date; if the pages cannot be brought up to date, the
    filed answers are put back as they were (nothing half-written: a filed answer never runs
    ahead of a failed refresh)."""
    from ..answer_pages import FILED_DIR, FiledAnswerError, answers_home, write_filed
    from ..atomic import write_atomic
    from ..build import CompileError
    from ..store.cli import _REMOTES
    from .filing import refresh_pages

    if wiki in _REMOTES:
        err.print("[red]error:[/red] answers are filed into a local wiki, not a published one "
                  "(file them where the wiki is compiled, then publish it)")
        raise typer.Exit(1)

    names = [p.split("/", 1)[1] + ".json" for p in [*(f.page for f in filed), *unfile]]
    _say_replaced(wiki, filed)
    paths = [folder / n for folder in (answers_home(wiki), wiki / FILED_DIR) for n in names]
    saved = {p: p.read_bytes() if p.exists() else None for p in dict.fromkeys(paths)}
    try:
        for f in filed:
            write_filed(wiki, f)
        for page in unfile:
            name = page.split("/", 1)[1] + ".json"
            for folder in (answers_home(wiki), wiki / FILED_DIR):
                (folder / name).unlink(missing_ok=True)
        return refresh_pages(wiki, settings)
    except (CompileError, FiledAnswerError, OSError) as exc:
        for p, data in saved.items():
            if data is None:
                p.unlink(missing_ok=True)
            else:
                write_atomic(p, data, durable=True)
        err.print(f"[red]error:[/red] {escape(str(exc))}; nothing filed ("
                  f"{escape(', '.join([*(f.page for f in filed), *unfile]))} as before)",
                  highlight=False, soft_wrap=True)
        raise typer.Exit(1) from exc


def _say_replaced(wiki: Path, filed: list) -> None:
    """A question filed again replaces its page (one page per question): say whose answer it
    replaces when someone else asked it, as its reader scope may change with the asker."""
    from ..answer_pages import FiledAnswerError, load_filed

    try:
        before = {f.page: f for f in load_filed(wiki)}
    except FiledAnswerError:
        return
    for f in filed:
        old = before.get(f.page)
        if old is not None and old.principal != f.principal:
            err.print(f"note: [[{f.page}]] was filed by {old.principal} at "
                      f"{old.answered_at.isoformat()}; it is replaced by {f.principal}'s answer",
                      highlight=False, markup=False, soft_wrap=True)


def _state(wiki: Path):  # noqa: ANN202 - State, imported lazily
    from ..build import wiki_state

    try:
        return wiki_state(wiki)
    except FileNotFoundError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from exc


answers_app = typer.Typer(
    help="Answers filed back into the wiki as pages of type answer (`folio ask … --save`). "
    "They are inputs kept beside the corpus (<corpus>/.folio-answers/), so every compile, "
    "clean rebuilds included, renders them; a page goes stale when a claim it cites changed or "
    "a title or value it shows reads otherwise now (folio lint lists it).",
    no_args_is_help=True)


@answers_app.command("save")
def answers_save(
    answer_id: Annotated[str, typer.Argument(help="id printed by `folio ask` (its answer "
                                             "record)")],
    wiki: WikiOpt = "wiki",
) -> None:
    """File a signed answer (from `folio ask`) back into the wiki as a page of type answer.
    Refused when a claim it cites changed since, or now reads otherwise (a renamed page it
    names): ask again with --save instead.

    Filed answers are kept beside the corpus (<corpus>/.folio-answers/), so a clean rebuild
    files them again. Exit codes: 0 filed; 1 refused or failed (nothing filed)."""
    from ..provenance.answers import AuditError, audit
    from ..provenance.verify import VerifyError, trust_from
    from ..views import principal
    from .ask import AskAnswer
    from ..answer_pages import file_answer

    settings = FolioSettings()
    state = _state(wiki)
    try:
        report = audit(wiki, state, answer_id, trust_from(settings))
    except (AuditError, VerifyError) as exc:
        err.print(f"[red]error:[/red] answer {escape(answer_id)}: {escape(str(exc))}",
                  highlight=False, soft_wrap=True)
        raise typer.Exit(1) from exc
    if report.changed:
        err.print(f"[red]error:[/red] answer {answer_id}: what it cites changed since it was "
                  "given (folio audit shows what); ask again with --save")
        raise typer.Exit(1)
    detail = wiki / ASKED_DIR / f"{answer_id}.json"
    if not detail.exists():
        err.print(f"[red]error:[/red] answer {answer_id}: {detail}: no sentence-level detail "
                  "for this record (recorded by `folio query --attest`?); file answers from "
                  "`folio ask`")
        raise typer.Exit(1)
    try:
        raw = json.loads(detail.read_bytes())
        groups = raw.pop(ASKED_GROUPS, None)
        result = AskAnswer.model_validate(raw)
    except (ValueError, AttributeError) as exc:
        err.print(f"[red]error:[/red] answer {answer_id}: {detail}: not an answer's detail "
                  f"({escape(str(exc).splitlines()[0])})")
        raise typer.Exit(1) from exc
    cited = {c.claim_id for c in report.trace}
    if {cid for s in result.sentences for cid in s.claims} != cited:
        err.print(f"[red]error:[/red] answer {answer_id}: {detail}: does not match the signed "
                  "record")
        raise typer.Exit(1)
    if not result.found:
        err.print(f"answer {answer_id}: no answer: nothing filed")
        raise typer.Exit(1)
    who = principal(state, result.principal)
    if who is not None and groups is not None:  # as asked: never more groups than then
        who = who.model_copy(update={"groups": tuple(g for g in who.groups if g in groups)})
    filed = _filed(lambda: file_answer(wiki, state, result, answer_id, report.answered_at,
                                       who, write=False))
    if (moved := _reads_otherwise(result, filed)):
        err.print(f"[red]error:[/red] answer {answer_id}: what it shows changed since it was "
                  f"given ({escape('; '.join(moved))}); ask again with --save",
                  highlight=False, soft_wrap=True)
        raise typer.Exit(1)
    state.close()
    _commit(wiki, settings, [filed])
    out.print(f"filed as [[{filed.page}]]", highlight=False, markup=False)


def _reads_otherwise(result, filed) -> list[str]:  # noqa: ANN001
    """What the answer's sentences show (a page's title, a reference's target title) that the
    wiki now shows otherwise: its claims are unchanged, but filing it would show an old name
    as current."""
    now = {c.claim_id: c for c in filed.citations}
    cited = {cid for s in result.sentences for cid in s.claims}
    moved = []
    for f in result.facts:
        c = now.get(f.claim_id)
        if c is None or f.claim_id not in cited:
            continue
        if c.page_title is not None and f.page_title != c.page_title:
            moved.append(f"{c.page} is now titled {c.page_title} (was {f.page_title})")
        if c.kind == "reference" and f.read_from is None and c.shown is not None \
                and f.value != c.shown:
            moved.append(f"{c.attribute} on {c.page} now reads {c.shown} (was {f.value})")
    return list(dict.fromkeys(moved))


@answers_app.command("refresh")
def answers_refresh(
    wiki: WikiOpt = "wiki",
    everything: Annotated[bool, typer.Option(
        "--all", help="ask every filed answer again, not only the stale ones")] = False,
) -> None:
    """Ask the stale filed answers again (LLM calls only for those) and re-render their pages.

    Every answer is asked before anything is written: if one fails (the model, the budget, a
    state that does not match the signed wiki), nothing is filed and the pages stay as they
    were. Exit codes: 0 refreshed (or nothing stale); 1 failed, nothing changed."""
    from datetime import UTC, datetime

    from ..extract.base import ExtractionFailed
    from .ask import ask
    from ..answer_pages import FiledAnswerError, asker, file_answer, load_filed, staleness

    settings = FolioSettings()
    state = _state(wiki)
    try:
        todo = [f for f in load_filed(wiki) if everything or staleness(state, f)]
    except FiledAnswerError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from exc
    client = None
    asked = []
    for f in todo:
        if f.backend == "llm" and client is None:
            from .ask import llm_client

            client = llm_client(settings, wiki / ".folio")  # one client for every answer
        who = asker(state, f)  # as asked: never with more groups than then
        try:
            result = ask(state, f.question, who, f.backend, settings,
                         client=client if f.backend == "llm" else None,
                         cache_dir=wiki / ".folio")
        except ExtractionFailed as exc:
            err.print(f"[red]error:[/red] {f.page} ({escape(f.question)}): "
                      f"{escape(str(exc))}; nothing refreshed", highlight=False,
                      soft_wrap=True)
            raise typer.Exit(1) from exc
        served(wiki, state, result.served_pages(), who, settings)
        asked.append((f, result, who))
    refiled = []
    for f, result, who in asked:
        record = _attest(state, wiki, result, settings)
        refiled.append(_filed(lambda: file_answer(wiki, state, result, record,
                                                  datetime.now(UTC), who, write=False)))
        out.print(f"re-asked [[{f.page}]]" + ("" if result.found else " (no answer now)"),
                  highlight=False, markup=False)
    state.close()
    written, removed = _commit(wiki, settings, refiled)
    out.print(f"{len(todo)} answers asked again; {len(written)} pages written, "
              f"{len(removed)} removed")


@answers_app.command("remove")
def answers_remove(
    page: Annotated[str, typer.Argument(help="the answer page (answer/<slug>) or its question")],
    wiki: WikiOpt = "wiki",
) -> None:
    """Un-file an answer: its filed answer is deleted (from beside the corpus) and its page,
    sidecar and DBOM removed, index.md, log.md and the root brought up to date. Its signed
    answer record stays (the history of what was asked; folio audit).

    Exit codes: 0 removed; 1 no such filed answer, or failed (nothing changed)."""
    from ..answer_pages import FiledAnswerError, answer_page_id, load_filed

    settings = FolioSettings()
    try:
        filed = load_filed(wiki)
    except FiledAnswerError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from exc
    pages = {f.page for f in filed}
    want = page if page in pages else answer_page_id(page)
    if want not in pages:
        err.print(f"[red]error:[/red] {page!r}: no filed answer of that page or question in "
                  f"{wiki} (folio answers list)", highlight=False, soft_wrap=True)
        raise typer.Exit(1)
    _, removed = _commit(wiki, settings, [], (want,))
    out.print(f"removed [[{want}]]" if want in removed else f"un-filed {want}",
              highlight=False, markup=False)


@answers_app.command("list")
def answers_list(wiki: WikiOpt = "wiki") -> None:
    """Filed answers, stale ones marked (and why), and where they are kept."""
    from ..answer_pages import FiledAnswerError, answers_home, load_filed, staleness

    state = _state(wiki)
    try:
        filed = load_filed(wiki)
    except FiledAnswerError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from exc
    err.print(f"{len(filed)} filed answers, kept in {answers_home(wiki)}", highlight=False,
              soft_wrap=True)
    for f in filed:
        why = staleness(state, f)
        out.print(f"{'STALE ' if why else ''}[[{f.page}]] {f.question}"
                  + (f" — {'; '.join(why)}" if why else ""), highlight=False, markup=False,
                  soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("ask")(ask_cmd)
    app.add_typer(answers_app, name="answers")

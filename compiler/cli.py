"""The compiler's commands of ``folio`` (compile, query, show, lint, export, schemas, and those
its subpackages register). Thin: parse options, call the compiler, print. The ``folio`` app
that adds the connectors' and pipelines' commands is composed above, in pipelines/folio_cli.py."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markdown import Markdown
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .progress_bars import PhaseBars

from .cli_base import folio_typer, plural
from .build import CompileError, CompileReport, compile_wiki, wiki_state
from .answers.guard import served
from .settings import FolioSettings

EXIT_REJECTED = 3

app = folio_typer(help="The compiler's commands (the root of `folio` is pipelines/folio_cli.py).")
export_app = folio_typer(help="Export compiled knowledge in stable machine formats.")
app.add_typer(export_app, name="export")

out = Console()
err = Console(stderr=True)

# a folder, or s3://bucket/prefix / file:///path synced into the cache (compiler/store/cli.py)
from .store.cli import WikiOpt  # noqa: E402
AsOpt = Annotated[Optional[str], typer.Option(
    "--as", help="show what this principal of the corpus directory.yaml may see (an "
    "operator's check, not a security boundary: docs/permissions.md); without it you are the "
    "operator and see everything")]
GroupOpt = Annotated[Optional[list[str]], typer.Option(
    "--group", help="operator's what-if for --as: keep only these of the principal's directory "
    "groups (repeatable); it narrows a view and never widens it")]


def _principal(state, who: str | None, groups: list[str] | None):  # noqa: ANN001, ANN202
    """``--as``: a name the corpus directory does not know is said so; it still sees only
    what public records allow."""
    from .views import principal, stored_directory

    if (who is not None and stored_directory(state).principal(who) is None
            and state.principal_groups(who) is None):
        err.print(f"warning: --as {who}: no such principal in the corpus directory "
                  "(directory.yaml); answering as one with no groups, so everything "
                  "restricted stays hidden", markup=False, highlight=False, soft_wrap=True)
    return principal(state, who, groups)


SUMMARY_NOTE = (
    "re-rendered: pages a change touches (their claims, links or backlinks), rendered again; "
    "written: those whose file came out different and was saved (a page that renders to the "
    "same bytes is left as it is).")


def _summary(report: CompileReport, wiki: Path) -> Table:
    t = Table(title=f"compiled {wiki}" + (" (full rebuild)" if report.full_rebuild else ""),
              show_header=True, header_style="bold")
    t.add_column("what")
    t.add_column("count", justify="right")
    rows = [
        ("input files (changed)", f"{report.files_seen} ({report.files_changed})"),
        ("records in wiki", report.records_seen),
        ("records re-extracted", report.records_extracted),
        ("records removed", report.records_removed),
        ("records relinked", report.records_relinked),
        ("inputs rejected", report.rejected),
        ("claims", report.claims_total),
        ("pages re-rendered", report.pages_rendered),
        ("pages written (file changed)", report.pages_written),
        ("pages removed", report.pages_removed),
        ("pages in wiki", report.pages_total),
        ("conflicts resolved by authority", report.conflicts_resolved),
        ("open contradictions", report.conflicts_open),
        ("seconds", f"{report.seconds:.2f}"),
    ]
    if report.llm:
        rows[-1:-1] = _llm_rows(report)
    for k, v in rows:
        t.add_row(k, str(v))
    return t


def _llm_rows(report: CompileReport) -> list[tuple[str, object]]:
    u = report.llm
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(report.rejected_by_reason.items()))
    rows: list[tuple[str, object]] = [
        ("claims rejected (LLM output)",
         f"{report.claims_rejected}" + (f" ({reasons})" if reasons else "")),
        ("LLM calls (cache hits)", f"{u.get('calls', 0)} ({u.get('cache_hits', 0)})"),
        ("LLM tokens (prompt + completion)",
         f"{u.get('prompt_tokens', 0)} + {u.get('completion_tokens', 0)}"),
        ("LLM cost (USD)", f"{u.get('cost_usd', 0.0):.4f}"),
    ]
    if "pages_synthesized" in u:
        dropped = sum(v for k, v in u.items() if k.startswith(("sentences_", "synthesis_"))
                      and k != "sentences_kept")
        rows.append(("overview sentences kept (dropped)",
                     f"{u.get('sentences_kept', 0)} ({dropped})"))
    return rows


@app.command("compile")
def compile_cmd(
    src: Annotated[Path, typer.Argument(help="corpus folder with sources.yaml (and optional "
                                        "authority.yaml, directory.yaml)")],
    wiki: Annotated[Path, typer.Option("--out", "-o", help="wiki folder to create or update")],
    full: Annotated[bool, typer.Option("--full", help="ignore the compile state and rebuild")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bars")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
    workers: Annotated[int | None, typer.Option(
        "--workers", min=0, help="processes for parsing, linking and rendering (0: one per "
        "core; default from FOLIO_WORKERS, else 0)")] = None,
    force_corpus: Annotated[bool, typer.Option(
        "--force-corpus", help="compile into a wiki that was compiled from another corpus "
        "(its pages this corpus does not support are removed)")] = False,
    allow_foreign_files: Annotated[bool, typer.Option(
        "--allow-foreign-files", help="write the wiki into a folder that already holds other "
        "files, or into the corpus folder (Folio never overwrites a file it did not write; "
        "`folio verify` reports those files, which the signed index root does not cover)")
    ] = False,
) -> None:
    """Compile a corpus into a wiki. Incremental: only changed records are re-extracted and
    only pages whose claims changed are rewritten.

    Exit codes: 0 compiled; 3 compiled, but some inputs were rejected (listed with file and
    record); 1 nothing compiled (bad manifest or policy, wiki locked, or the wiki folder is
    another corpus's wiki or holds files Folio did not write: nothing is changed then)."""
    settings = FolioSettings() if workers is None else FolioSettings(workers=workers)
    try:
        with Progress(TextColumn("{task.description:>8}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=err, disable=quiet or as_json,
                      transient=True) as progress:
            report = compile_wiki(src, wiki, settings, full=full, progress=PhaseBars(progress),
                                  force_corpus=force_corpus,
                                  allow_foreign_files=allow_foreign_files)
    except CompileError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from exc
    if as_json:
        data = {k: v for k, v in report.__dict__.items() if k not in ("errors",)}
        data["errors"] = [str(e) for e in report.errors]
        out.print_json(json.dumps(data, default=str))
    else:
        out.print(_summary(report, wiki))
        out.print(SUMMARY_NOTE, style="dim", highlight=False)
        for e in report.errors[:50]:
            err.print(f"[yellow]rejected:[/yellow] {escape(str(e))}", highlight=False)
        if report.rejected > 50:
            err.print(f"… and {report.rejected - 50} more rejected inputs")
    if report.rejected:
        raise typer.Exit(EXIT_REJECTED)


@app.command()
def query(
    question: Annotated[str, typer.Argument(help="a question in plain words")],
    wiki: WikiOpt = "wiki",
    who: AsOpt = None,
    groups: GroupOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable answer")] = False,
    attest: Annotated[bool, typer.Option(
        "--attest", help="store the answer as a signed answer record and print its id "
        "(see `folio audit`)")] = False,
) -> None:
    """Answer from the wiki's winning claims, each cited as [[page]] and source key@version."""
    from .query import answer

    state = _open(wiki)
    result = answer(state, question, _principal(state, who, groups))
    served(wiki, state, result.served_pages())  # refuse a state the signed wiki contradicts
    record = _attest_answer(state, wiki, result) if attest else None
    if as_json:
        data = result.model_dump(mode="json")
        if record:
            data["answer_id"] = record
        out.print_json(json.dumps(data))
    else:
        out.print(result.text(), highlight=False, markup=False, soft_wrap=True)
        if record:
            from .store.cli import shown

            out.print(f"answer record: {record} (folio audit {record} --wiki {shown(wiki)})",
                      highlight=False, soft_wrap=True)


def _attest_answer(state, wiki: Path, result) -> str:  # noqa: ANN001 - lazily imported types
    from .provenance.answers import attest_answer
    from .provenance.signers import SigningError

    from .store.cli import push_answer

    try:
        rid = attest_answer(state, wiki, result, FolioSettings())
    except SigningError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from exc
    push_answer(wiki, rid)  # a published wiki: the record goes where `folio audit` finds it
    return rid


@app.command()
def show(
    page: Annotated[str, typer.Argument(help="page name (account/globex), title or alias")],
    wiki: WikiOpt = "wiki",
    who: AsOpt = None,
    groups: GroupOpt = None,
    raw: Annotated[bool, typer.Option("--raw", help="print the page markdown as is")] = False,
) -> None:
    """Show a page with its claims, sources and overruled claims (as a principal sees it)."""
    from .views import page_view

    state = _open(wiki)
    eid = state.find_entity(page)
    served(wiki, state, [eid, *state.backlinks(eid)] if eid else [])
    who_p = _principal(state, who, groups)
    view = page_view(state, eid, who_p, looked_up_as=page) if eid else None
    if view is None and eid:  # an answer filed back as a page (compiler/answer_pages.py)
        from .answer_pages import answer_page_text

        if (answer_text := answer_page_text(wiki, state, eid, who_p)):
            sys.stdout.write(answer_text)
            return
    if view is None:
        err.print(f"no page named {page!r} in {wiki}")
        raise typer.Exit(1)
    text = view.markdown()
    if raw or not out.is_terminal:
        sys.stdout.write(text)
    else:
        out.print(Markdown(text.split("---\n", 2)[2]))


@app.command()
def lint(
    wiki: WikiOpt = "wiki",
    who: AsOpt = None,
    groups: GroupOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable findings")] = False,
    now: Annotated[Optional[datetime], typer.Option(
        help="judge freshness as of this time (default: now)")] = None,
) -> None:
    """Report open contradictions, broken links, orphan pages, entities without pages and
    stale sources. Exit 1 when any error (not warning) is found."""
    from .lint import as_json as lint_json
    from .lint import lint as run_lint

    state = _open(wiki)
    when = (now or datetime.now(UTC))
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    report = run_lint(state, wiki, when)
    if who is not None:  # only findings naming nothing hidden from the principal
        from .views import visible_findings

        report = visible_findings(state, report, _principal(state, who, groups))
    if as_json:
        sys.stdout.write(lint_json(report) + "\n")
    else:
        _print_findings(report.findings)
        out.print(f"{plural(report.errors, 'error')}, {plural(report.warnings, 'warning')}",
                  highlight=False)
        if report.unmapped:
            from .lint import unmapped_text

            out.print(unmapped_text(report.unmapped), markup=False)
        if report.induced:
            from .lint import induced_text

            out.print(induced_text(report.induced), markup=False, highlight=False)
    if report.errors:
        raise typer.Exit(1)


WIDE = 120  # columns from which a table shows record keys whole; narrower, a list


def _print_findings(findings) -> None:  # noqa: ANN001 - lint_report.Finding, imported lazily
    """A table on a wide terminal; else (and piped) one block per finding, every record key
    whole on its line: a table at 80 columns cut them mid-word."""
    if out.is_terminal and out.width >= WIDE:
        t = Table(show_header=True, header_style="bold")
        t.add_column("severity")
        t.add_column("check")
        t.add_column("finding", overflow="fold")
        for f in findings:
            color = "red" if f.severity == "error" else "yellow"
            t.add_row(f"[{color}]{f.severity}[/{color}]", f.code, escape(f.message))
        out.print(t)
        return
    for f in findings:
        color = "red" if f.severity == "error" else "yellow"
        out.print(f"[{color}]{f.severity}[/{color}] {f.code}"
                  + (f" {escape(f.page)}" if f.page else ""), highlight=False)
        out.print(f"  {escape(f.message)}", highlight=False, soft_wrap=True)
        for src in f.sources:
            out.print(f"  source: {escape(src)}", highlight=False, soft_wrap=True)


@export_app.command("claims")
def export_claims_cmd(
    wiki: WikiOpt = "wiki",
    fmt: Annotated[str, typer.Option("--format", help="jsonl (the only format)")] = "jsonl",
    who: AsOpt = None,
    groups: GroupOpt = None,
    output: Annotated[Optional[Path], typer.Option("--output", help="file (default stdout)")] = None,
) -> None:
    """One claim per line: subject, attribute, value, status (winner/overruled/contested),
    source key, version, sha256, authority. Layout: docs/export-format.md."""
    from .atomic import write_atomic
    from .export import export_claims

    if fmt != "jsonl":
        err.print(f"unsupported format {fmt!r} (supported: jsonl)")
        raise typer.Exit(2)
    state = _open(wiki)
    served(wiki, state, None)  # every claim is exported: the whole state is checked
    lines = export_claims(state, _principal(state, who, groups))
    if output is None:
        for line in lines:
            sys.stdout.write(line + "\n")
    else:
        write_atomic(output, "".join(line + "\n" for line in lines).encode("utf-8"))


schema_app = folio_typer(help="The corpus schema (docs/schema.md).")
app.add_typer(schema_app, name="schema")


@schema_app.command("induce")
def schema_induce(
    wiki: WikiOpt = Path("wiki"),
    output: Annotated[Optional[Path], typer.Option(
        "--out", help="write the suggested schema.yaml here (never over an existing file); "
        "default: print it")] = None,
) -> None:
    """The field mappings the last compile induced, as a schema.yaml to review and keep.
    Merge what you accept into the corpus's schema.yaml: declared mappings then replace the
    induced ones (claims are no longer marked induced)."""
    import yaml

    from .schema.induce import Induction, suggested_yaml

    state = _open(wiki)
    try:
        raw = state.meta("induced")
    finally:
        state.close()
    induction = Induction.from_json(raw) if raw else Induction()
    if induction.empty:
        out.print("nothing induced: every field is mapped by the schema, or no two systems' "
                  "fields were shown to be one attribute", markup=False)
        return
    text = ("# Suggested by `folio schema induce` from the corpus's own records "
            "(docs/schema.md).\n# Review every mapping before keeping it: each was inferred, "
            "not declared.\n" + "".join(
                f"#   {f.column.label} → {f.entity_type}.{f.attribute}: {f.evidence}\n"
                for f in sorted(induction.fields, key=lambda f: f.column.label))
            + "".join(f"#   prose '{p.attribute}' on {', '.join(p.entity_types)}: {p.evidence}\n"
                      for p in induction.phrases)
            + yaml.safe_dump(suggested_yaml(induction), sort_keys=False, allow_unicode=True))
    if output is None:
        sys.stdout.write(text)
        return
    if output.exists():
        out.print(f"error: {output}: exists; not overwritten (choose another --out)",
                  markup=False)
        raise typer.Exit(2)
    from .atomic import write_atomic

    write_atomic(output, text.encode("utf-8"))
    out.print(f"wrote {output} ({plural(len(induction.fields), 'induced mapping')}, "
              f"{plural(len(induction.phrases), 'induced prose attribute')})",
              markup=False)


@app.command()
def schemas(
    dest: Annotated[Path, typer.Option("--out", help="folder for the JSON Schemas")] = Path(
        "docs/schemas"),
) -> None:
    """Write the JSON Schemas of Folio's models (SourceRecord, Claim, Page, …)."""
    from .schemas import write_schemas

    for path in write_schemas(dest):
        out.print(str(path))


def _register_provenance() -> None:
    from .provenance_cli import register
    from .store.cli import register as register_store

    register(app)
    register_store(app)
    from .answers.cli import register as register_answers

    register_answers(app)  # folio ask, folio answers (compiler/answers/cli.py)


_register_provenance()

from .audience_cli import register as _register_audience  # noqa: E402 - audience vaults

_register_audience(app)


def _open(wiki: Path):  # noqa: ANN202 - State, imported lazily
    try:
        return wiki_state(wiki)
    except FileNotFoundError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from exc


from .serve.cli import register as _register_serve_commands  # noqa: E402

_register_serve_commands(app)

"""CLI bodies of ``folio keys``, ``folio verify`` and ``folio audit``; registered on the main
app by :func:`register` so compiler/cli.py stays a thin list of commands."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .cli_base import folio_typer, plural
from .settings import FolioSettings
from .store.cli import WikiOpt, pull_answer
from .provenance.signers import LocalKeySigner, SigningError, public_key_path

out = Console()
err = Console(stderr=True)

EXIT_FAILED = 1
EXIT_STALE = 2

keys_app = folio_typer(help="Manage the local signing key (FOLIO_KEY_PATH).")

KeyOpt = Annotated[Optional[Path], typer.Option(
    "--key", help="PEM public key to trust (default: FOLIO_TRUSTED_KEY, else the public key of "
    "the local signing key FOLIO_KEY_PATH); never a key found in the wiki")]


@keys_app.command("init")
def keys_init(
    path: Annotated[Optional[Path], typer.Option(
        "--path", help="where to write the key (default: FOLIO_KEY_PATH)")] = None,
    force: Annotated[bool, typer.Option("--force", help="replace an existing key")] = False,
) -> None:
    """Create an ECDSA P-256 signing key (0600) and its public key beside it."""
    target = (path or FolioSettings().key_path).expanduser()
    try:
        signer = LocalKeySigner.generate(target, force=force)
    except SigningError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(EXIT_FAILED) from exc
    out.print(f"private key  {target} (0600)", highlight=False, soft_wrap=True)
    out.print(f"public key   {public_key_path(target)}", highlight=False, soft_wrap=True)
    out.print(f"key id       sha256:{signer.key_id}", highlight=False, soft_wrap=True)


@keys_app.command("show")
def keys_show() -> None:
    """Print the local signing key's id and public key path."""
    target = FolioSettings().key_path.expanduser()
    try:
        signer = LocalKeySigner.load(target)
    except SigningError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(EXIT_FAILED) from exc
    out.print(f"public key   {public_key_path(target)}", highlight=False, soft_wrap=True)
    out.print(f"key id       sha256:{signer.key_id}", highlight=False, soft_wrap=True)


def _trust(key: Path | None):  # noqa: ANN202
    from .provenance.verify import trust_from

    try:
        trust = trust_from(FolioSettings(), key)
    except SigningError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(EXIT_FAILED) from exc
    return trust


def verify_cmd(
    wiki: WikiOpt = "wiki",
    sources: Annotated[Optional[Path], typer.Option(
        "--sources", help="corpus folder: also report pages whose sources changed since the "
        "compile")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable report")] = False,
    key: KeyOpt = None,
) -> None:
    """Check every page against its signed DBOM, every DBOM's signature against the trusted key,
    and the signed index root against the files present.

    Exit codes: 0 verified; 1 a page, manifest, signature or the index root failed; 2 verified
    but some pages are stale (a source changed since the compile, with --sources)."""
    from connectors.loader import current_sources

    from .provenance.verify import report_json, verify_wiki

    if not wiki.is_dir():
        err.print(f"[red]error:[/red] {wiki}: no such wiki folder")
        raise typer.Exit(EXIT_FAILED)
    if sources is not None and sources.is_file():
        err.print(f"[red]error:[/red] {escape(str(sources))} is a file, not a corpus folder "
                  "(--sources takes the folder holding sources.yaml)")
        raise typer.Exit(EXIT_FAILED)
    if sources is not None and not (sources / "sources.yaml").is_file():
        err.print(f"[red]error:[/red] {sources}: not a corpus folder (no sources.yaml)")
        raise typer.Exit(EXIT_FAILED)
    trust = _trust(key)
    report = verify_wiki(wiki, trust, None if sources is None else current_sources(sources))
    _check_state(wiki, trust, report)
    if as_json:
        sys.stdout.write(report_json(report) + "\n")
    else:
        for f in report.findings:
            color = "red" if f.severity == "error" else "yellow"
            label = "FAIL" if f.severity == "error" else "STALE"
            out.print(f"[{color}]{label}[/{color}] {escape(f.message)}", highlight=False,
                      soft_wrap=True)
        for s in report.stale:
            for c in s.sources:
                now = f" → now {c.current_version} {c.current_sha256[:16]}…" if c.current_sha256 else ""
                out.print(f"      {escape(c.key)}@{escape(c.compiled_version)} "
                          f"{c.compiled_sha256[:16]}… {c.state}{escape(now)}", highlight=False,
                          soft_wrap=True)
        verdict = "OK" if report.ok else "FAILED"
        out.print(f"{verdict}: {plural(report.pages, 'page')}, {plural(report.files, 'file')}; "
                  f"{plural(report.errors, 'failure')}, {plural(len(report.stale), 'stale page')}"
                  f"; trusted {escape(report.trusted)}", highlight=False, soft_wrap=True)
    if not report.ok:
        raise typer.Exit(EXIT_FAILED)
    if report.stale:
        raise typer.Exit(EXIT_STALE)


def _check_state(wiki: Path, trust, report) -> None:  # noqa: ANN001 - lazily imported types
    """What the state serves against the signed pages, DBOMs and directory (state_check.py)."""
    from .build import wiki_state
    from .provenance.state_check import StateCheck

    if not (wiki / ".folio" / "state.db").exists():
        return
    state = wiki_state(wiki)
    try:
        check = StateCheck(wiki, state, trust)
        check.check_all()
    finally:
        state.close()
    for problem in check.problems:
        report.add("mismatch", ".folio/state.db", problem)


def audit_cmd(
    answer_id: Annotated[str, typer.Argument(help="id printed by `folio query --attest`")],
    wiki: WikiOpt = "wiki",
    sources: Annotated[Optional[Path], typer.Option(
        "--sources", help="corpus folder: compare cited sources with the corpus as it is now "
        "(default: with the wiki's last compile)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable trace")] = False,
    key: KeyOpt = None,
) -> None:
    """Trace a signed answer: answer → claims → pages → source records at version and sha256,
    each claim checked against the signed DBOM of its page now: flags claims that changed,
    were overruled or retracted, and pages or sources that changed or were deleted since.

    Exit codes: 0 nothing changed; 1 the record is missing or its signature fails; 2 something
    cited changed or was deleted."""
    from connectors.loader import current_sources

    from .build import wiki_state
    from .provenance.answers import AuditError, audit, audit_json
    from .provenance.verify import VerifyError

    try:
        state = wiki_state(wiki)
    except FileNotFoundError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(EXIT_FAILED) from exc
    pull_answer(wiki, answer_id)  # a published wiki: records live beside the generations
    trust = _trust(key)
    try:
        report = audit(wiki, state, answer_id, trust,
                       None if sources is None else current_sources(sources))
    except (AuditError, VerifyError) as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(EXIT_FAILED) from exc
    if as_json:
        sys.stdout.write(audit_json(report) + "\n")
    else:
        out.print(f"answer {report.id} — signature OK ({escape(report.signed_by)})",
                  highlight=False, soft_wrap=True)
        out.print(f"asked by {escape(report.principal)} at {report.answered_at.isoformat()}: "
                  f"{escape(report.question)}", highlight=False, soft_wrap=True)
        out.print(report.answer, highlight=False, markup=False, soft_wrap=True)
        _print_trace(report.trace)
    if report.changed:
        raise typer.Exit(EXIT_STALE)


WIDE = 140  # columns from which the trace table shows ids and keys whole; narrower, a list


def _since(s) -> str:  # noqa: ANN001 - answers.TraceStep
    now = f" (now {s.claim_now})" if s.claim_now else ""
    flags = [f"claim {s.claim}{now}" if s.claim != "unchanged" else "",
             f"page {s.page_flag}" if s.page_flag != "unchanged" else "",
             f"source {s.source_flag}" + (f" (now {s.source_now})" if s.source_now else "")
             if s.source_flag != "unchanged" else ""]
    return "; ".join(f for f in flags if f) or "unchanged"


def _print_trace(trace) -> None:  # noqa: ANN001
    """A table on a wide terminal; else (and piped) one block per claim with its id, page,
    source key and sha256 whole: a table at 80 columns cut them mid-word."""
    if out.is_terminal and out.width >= WIDE:
        t = Table(show_header=True, header_style="bold")
        for col in ("claim", "status", "page", "source (key@version, sha256)", "since"):
            t.add_column(col, overflow="fold")
        for s in trace:
            since = _since(s)
            t.add_row(f"{s.claim_id} {escape(s.attribute)}: {escape(s.value)}", s.status,
                      escape(s.page), f"{escape(s.source)} {s.source_sha256[:16]}…",
                      f"[red]{escape(since)}[/red]" if since != "unchanged" else since)
        out.print(t)
        return
    for s in trace:
        since = _since(s)
        out.print(f"claim {s.claim_id} ({s.status}): {escape(s.attribute)}: {escape(s.value)}",
                  highlight=False, soft_wrap=True)
        out.print(f"  page    {escape(s.page)}", highlight=False, soft_wrap=True)
        out.print(f"  source  {escape(s.source)}", highlight=False, soft_wrap=True)
        out.print(f"  sha256  {s.source_sha256}", highlight=False, soft_wrap=True)
        shown = f"[red]{escape(since)}[/red]" if since != "unchanged" else since
        out.print(f"  since   {shown}", highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.add_typer(keys_app, name="keys")
    app.command("verify")(verify_cmd)
    app.command("audit")(audit_cmd)

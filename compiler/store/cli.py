"""``folio publish`` and ``--wiki s3://…`` for the reading commands (query, show, lint,
export, verify, audit): the store's HEAD is synced into the local cache, then the unchanged
command runs on that folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
)
from rich.table import Table

from compiler.progress_bars import PhaseBars

from ..settings import FolioSettings
from .base import LostUpdate, Store, StoreError
from .url import is_remote, open_store

out = Console()
err = Console(stderr=True)

EXIT_FAILED = 1
EXIT_LOST_UPDATE = 4

# cache folder -> the store it mirrors, for commands that also write back (query --attest)
# or fetch on demand (audit)
_REMOTES: dict[Path, Store] = {}




def _progress(quiet: bool) -> Progress:
    return Progress(TextColumn("{task.description:>8}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=err, disable=quiet, transient=True)


def wiki_option(value: str) -> Path:
    """``--wiki`` callback: a folder stays a folder; ``s3://`` and ``file://`` URLs are synced
    into the cache first (exit 1 naming the key when the store cannot be read or a blob
    fails its digest)."""
    if not is_remote(value):
        path = Path(value)
        if path.is_file():
            raise typer.BadParameter(f"{value} is a file, not a wiki folder")
        return path
    from .materialize import materialize

    try:
        store = open_store(value)
        with _progress(not err.is_terminal) as progress:
            wiki, _synced = materialize(store, progress=PhaseBars(progress))
    except StoreError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_FAILED) from exc
    _REMOTES[wiki] = store
    return wiki


WIKI_HELP = ("compiled wiki folder, or a published one: s3://bucket/prefix or file:///path "
             "(synced into FOLIO_CACHE_DIR first)")
WikiOpt = Annotated[str, typer.Option("--wiki", "-w", help=WIKI_HELP, callback=wiki_option)]


def shown(wiki: Path) -> str:
    """How to name a wiki to the user: the store URL they gave, not the cache folder."""
    store = _REMOTES.get(wiki)
    return store.url if store else str(wiki)


def push_answer(wiki: Path, rid: str) -> None:
    """After ``query --attest`` on a published wiki: store the record where audits find it."""
    store = _REMOTES.get(wiki)
    if store is None:
        return
    from .layout import ANSWERS
    from .publish import ANSWERS_DIR

    try:
        store.put(f"{ANSWERS}{rid}.json", (wiki / ANSWERS_DIR / f"{rid}.json").read_bytes())
    except StoreError as exc:
        err.print(f"[red]error:[/red] answer record {rid} kept only in {wiki}: "
                  f"{escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_FAILED) from exc


def pull_answer(wiki: Path, rid: str) -> None:
    """Before ``audit`` on a published wiki: fetch the answer record if the cache lacks it."""
    store = _REMOTES.get(wiki)
    if store is None:
        return
    from .publish import fetch_answer

    try:
        fetch_answer(store, wiki, rid)
    except StoreError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_FAILED) from exc


def publish_cmd(
    wiki: Annotated[Path, typer.Option("--wiki", "-w", help="compiled wiki folder to publish",
                                       file_okay=False, exists=True)],
    to: Annotated[str, typer.Option(
        "--to", help="s3://bucket/prefix (endpoint: FOLIO_S3_ENDPOINT_URL; credentials: the "
        "AWS chain), file:///path or a folder path")],
    expect_generation: Annotated[Optional[int], typer.Option(
        "--expect-generation", min=0, help="refuse unless HEAD is at this generation "
        "(0: nothing published yet)")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bars")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Publish a compiled wiki to the central index (docs/central-index.md).

    Uploads content-addressed blobs the store lacks, a tree naming them, then HEAD, replaced
    conditionally so a concurrent publish is refused instead of lost. Signing keys and the
    LLM cache are never published.

    Exit codes: 0 published (or already current); 1 failed, HEAD unchanged (rerun to
    finish); 4 another publish moved HEAD first (rerun to publish on top of it)."""
    from .publish import publish_wiki

    settings = FolioSettings()
    try:
        store = open_store(to, settings)
        with _progress(quiet or as_json) as progress:
            report = publish_wiki(wiki, store, settings, PhaseBars(progress), expect_generation)
    except LostUpdate as exc:
        err.print(f"[red]refused:[/red] {escape(str(exc))}; another publish got there first, "
                  "rerun to publish on top of it", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_LOST_UPDATE) from exc
    except StoreError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_FAILED) from exc
    if as_json:
        out.print_json(report.model_dump_json())
        return
    t = Table(title=f"published {wiki} → {report.store}", header_style="bold")
    t.add_column("what")
    t.add_column("value", justify="right")
    gen = f"{report.generation}" + (" (unchanged)" if report.unchanged else "")
    for k, v in (("generation", gen), ("files", report.files),
                 ("blobs uploaded", report.uploaded), ("blobs already there", report.skipped),
                 ("bytes uploaded", f"{report.bytes_uploaded:,}"),
                 ("bytes in wiki", f"{report.bytes_total:,}"),
                 ("answer records uploaded", report.answers_uploaded),
                 ("tree", report.tree[:16] + "…"), ("seconds", f"{report.seconds:.2f}")):
        t.add_row(k, str(v))
    out.print(t)


def _reflow(doc: str) -> str:
    """typer's rich help keeps a docstring's line breaks: rejoin each paragraph."""
    return "\n\n".join(" ".join(p.split()) for p in doc.split("\n\n"))


def register(app: typer.Typer) -> None:
    app.command("publish", help=_reflow(publish_cmd.__doc__ or ""))(publish_cmd)

"""Small invented markdown corpora for the answer tests: written to a folder, compiled for real
(offline backend), and asked offline as the operator. One place for what every answer test
module needs, so that a test module holds only its corpus and its questions."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from compiler.answers.ask import ask
from compiler.build import compile_wiki, wiki_state
from compiler.retrieval import retrieve
from compiler.state import State


def write_markdown_corpus(corpus: Path, tenant: str, pages: Mapping[str, str],
                          schema: str | None = None) -> None:
    """``pages`` (file name → markdown) as one markdown source of tenant ``tenant`` (with the
    corpus's own ``schema.yaml``, given ``schema``)."""
    (corpus / "wiki").mkdir(parents=True)
    if schema is not None:
        (corpus / "schema.yaml").write_text(schema, encoding="utf-8")
    (corpus / "sources.yaml").write_text(
        f"tenant: {tenant}\nsources:\n  - path: wiki\n    system: markdown\n"
        "    instance: intranet\n", encoding="utf-8")
    for name, text in pages.items():
        (corpus / "wiki" / name).write_text(text, encoding="utf-8")


def markdown_state(tmp_path_factory: pytest.TempPathFactory, tenant: str,
                   pages: Mapping[str, str], schema: str | None = None) -> Iterator[State]:
    """The compiled wiki's state of ``pages``, for a module-scoped fixture to ``yield from``."""
    root = tmp_path_factory.mktemp(tenant)
    write_markdown_corpus(root / "corpus", tenant, pages, schema)
    compile_wiki(root / "corpus", root / "wiki")
    state = wiki_state(root / "wiki")
    try:
        yield state
    finally:
        state.close()


def answers(state: State, question: str, value: str, lead_only: bool = False) -> None:
    """``ask`` offline finds an answer holding ``value`` (in its first paragraph: ``lead_only``)."""
    result = ask(state, question, None, "offline")
    assert result.found, question
    text = result.text().split("\n\n")[0] if lead_only else result.text()
    assert value in text, (question, result.text())


def abstains(state: State, question: str) -> None:
    """Neither retrieval nor ``ask`` offline answers ``question``."""
    assert not retrieve(state, question, None).answerable, question
    assert not ask(state, question, None, "offline").found, question

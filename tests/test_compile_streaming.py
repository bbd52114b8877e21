"""A compile streams its corpus: a file's bytes are read as it is parsed, never the whole
corpus first (issue 24, target 5: at 1M records the corpus alone is gigabytes)."""

from __future__ import annotations

import shutil
from pathlib import Path

import compiler.corpus_scan as corpus_scan
import compiler.record_read as record_read
from compiler.build import compile_wiki
from compiler.settings import FolioSettings

ACME = Path(__file__).resolve().parents[1] / "examples" / "acme"


def _trace(monkeypatch) -> list[tuple[str, str]]:
    """Every file read and every file parsed, in the order they happen."""
    events: list[tuple[str, str]] = []
    read, parse = record_read.read_input, record_read.parse_file

    def reading(f, max_bytes):
        events.append(("read", f.rel))
        return read(f, max_bytes)

    def parsing(item):
        events.append(("parse", item[0]))
        return parse(item)

    monkeypatch.setattr(corpus_scan, "read_input", reading)
    monkeypatch.setattr(record_read, "read_input", reading)
    monkeypatch.setattr(record_read, "parse_file", parsing)
    return events


def _most_held(events: list[tuple[str, str]]) -> int:
    """The most files read but not yet parsed at any one time."""
    held = most = 0
    for kind, _ in events:
        held += 1 if kind == "read" else -1
        most = max(most, held)
    return most


def test_a_clean_compile_reads_each_file_as_it_parses_it(tmp_path: Path, monkeypatch) -> None:
    events = _trace(monkeypatch)
    report = compile_wiki(ACME, tmp_path / "wiki", FolioSettings(workers=1), full=True,
                          today="2026-11-20")
    assert not report.errors
    reads = [rel for kind, rel in events if kind == "read"]
    parses = [rel for kind, rel in events if kind == "parse"]
    assert len(reads) > 5 and sorted(reads) == sorted(parses)
    # one file's bytes at a time, not the corpus's
    assert _most_held(events) == 1


def test_an_edit_reads_the_changed_file_once(tmp_path: Path, monkeypatch) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(ACME, corpus)
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki, FolioSettings(workers=1), today="2026-11-20")
    page = next((corpus / "handbook").rglob("*.md"))
    page.write_text(page.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    events = _trace(monkeypatch)
    report = compile_wiki(corpus, wiki, FolioSettings(workers=1), today="2026-11-20")
    rel = page.relative_to(corpus).as_posix()
    assert report.files_changed == 1
    assert events == [("read", rel), ("parse", rel)]


def test_an_unreadable_new_file_is_named_and_the_rest_compiles(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(ACME, corpus)
    blob = next(corpus.rglob("*.json"))
    blob.write_bytes(b'{"results": [\x00\x00]}')
    report = compile_wiki(corpus, tmp_path / "wiki", FolioSettings(workers=1), today="2026-11-20")
    rel = blob.relative_to(corpus).as_posix()
    assert [e.path for e in report.errors] == [rel]
    assert "binary" in report.errors[0].message
    # counted as before: an unreadable file is an error, not a changed file
    assert report.files_changed == report.files_seen - 1 and report.records_seen > 0

"""Replaced and removed files are parked in a trash folder and freed by the reaper thread, not
on the writer's path (compiler/retire.py): a compile's generation and the consumer's record
files. What readers see is the same atomic replace."""

from __future__ import annotations

import os
import shutil
from datetime import timedelta
from pathlib import Path

from compiler import retire
from compiler.build import compile_wiki
from compiler.staging import RETIRED, STATE_DIR
from connectors.bus.base import Topics
from connectors.bus.memory import InProcessBus
from pipelines.consumer import SiteConsumer
from connectors.events import delete_event, encode, record_event
from connectors.site_corpus import TRASH_DIR, SiteCorpus
from eventdata import T0, kafka_settings, pages, ticket

ACME = Path(__file__).resolve().parents[1] / "examples" / "acme"


def _inodes(folder: Path) -> set[int]:
    return {p.stat().st_ino for p in folder.iterdir()} if folder.exists() else set()


def test_replace_parks_the_old_inode_until_the_reaper_frees_it(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    trash = tmp_path / "trash"
    target, new = tmp_path / "page.md", tmp_path / "page.md.new"
    target.write_bytes(b"old")
    old_ino = target.stat().st_ino
    new.write_bytes(b"new")
    with retire.held():
        retire.replace(new, target, trash)
        assert target.read_bytes() == b"new" and not new.exists()
        assert _inodes(trash) == {old_ino}
        gone = tmp_path / "gone.md"
        gone.write_bytes(b"x")
        gone_ino = gone.stat().st_ino
        assert retire.remove(gone, trash) and not gone.exists()
        assert not retire.remove(gone, trash)  # already gone: nothing parked
        assert _inodes(trash) == {old_ino, gone_ino}
        retire.release(trash)
        assert _inodes(trash) == {old_ino, gone_ino}  # held: not freed yet
    retire.drain()
    assert _inodes(trash) == {old_ino, gone_ino}  # within the pool: kept for reuse
    monkeypatch.setattr(retire, "POOL", 1)
    retire.release(trash)
    retire.drain()
    assert len(_inodes(trash)) == 1
    monkeypatch.setattr(retire, "POOL", 0)
    retire.release(trash)
    retire.drain()
    assert _inodes(trash) == set()


def _write_reusing(path: Path, data: bytes, trash: Path) -> bool:
    fd = retire.reuse(path, trash)
    if fd is None:
        return False
    try:
        os.write(fd, data)
        retire.finish(fd, len(data))
    finally:
        os.close(fd)
    return True


def test_a_parked_file_is_reused_cut_to_length(tmp_path: Path) -> None:
    trash = tmp_path / "trash"
    page, tmp = tmp_path / "page.md", tmp_path / ".page.md.tmp"
    page.write_bytes(b"a long first version of the page\n")
    tmp.write_bytes(b"second")
    first = page.stat().st_ino
    with retire.held():
        retire.replace(tmp, page, trash)
        assert _write_reusing(tmp_path / ".page.md.tmp", b"third", trash)
        assert (tmp_path / ".page.md.tmp").stat().st_ino == first  # no new inode
        assert (tmp_path / ".page.md.tmp").read_bytes() == b"third"
        assert _inodes(trash) == set()
        assert not _write_reusing(tmp_path / "other", b"x", trash)  # none left


def test_a_file_linked_or_open_elsewhere_is_never_reused(tmp_path: Path) -> None:
    trash = tmp_path / "trash"
    backup = tmp_path / "backup.md"  # a hard-link backup of the old page
    reader_page = tmp_path / "read.md"
    with retire.held():
        for name, text in (("page.md", b"old page"), ("read.md", b"page being read")):
            (tmp_path / name).write_bytes(text)
        os.link(tmp_path / "page.md", backup)
        with open(reader_page, "rb") as reader:  # a reader of the old generation
            for name in ("page.md", "read.md"):
                new = tmp_path / f"{name}.new"
                new.write_bytes(b"new")
                retire.replace(new, tmp_path / name, trash)
            assert not _write_reusing(tmp_path / ".x.tmp", b"overwritten!", trash)
            assert reader.read() == b"page being read"
        assert backup.read_bytes() == b"old page"


def test_replace_of_a_new_file_parks_nothing(tmp_path: Path) -> None:
    src = tmp_path / "a"
    src.write_bytes(b"a")
    retire.replace(src, tmp_path / "b", tmp_path / "trash")
    assert (tmp_path / "b").read_bytes() == b"a" and not (tmp_path / "trash").exists()


def test_an_incremental_compile_parks_replaced_pages_and_the_next_one_reuses_them(tmp_path: Path) -> None:
    src = tmp_path / "corpus"
    shutil.copytree(ACME, src)
    wiki = tmp_path / "wiki"
    compile_wiki(src, wiki)
    before = {p: p.stat().st_ino for p in wiki.rglob("*.md") if STATE_DIR not in p.parts}
    doc = src / "handbook" / "key-accounts.md"
    doc.write_text(doc.read_text() + "\nGlobex renewed its contract for 3 years.\n")
    with retire.held():
        report = compile_wiki(src, wiki)
        assert report.pages_written >= 1
        replaced = {ino for p, ino in before.items() if p.stat().st_ino != ino}
        assert replaced, "the edit rewrote no page"
        parked = _inodes(wiki / STATE_DIR / RETIRED)
        assert replaced <= parked
        doc.write_text(doc.read_text() + "\nGlobex renewed its contract for 4 years.\n")
        compile_wiki(src, wiki)
        now = {p.stat().st_ino for p in wiki.rglob("*") if p.is_file() and STATE_DIR not in p.parts}
        assert now & parked, "the second compile created every file anew"
    retire.drain()
    clean = tmp_path / "clean"
    compile_wiki(src, clean)
    assert pages(wiki) == pages(clean)


def test_the_consumer_parks_replaced_and_deleted_record_files(tmp_path: Path) -> None:
    bus = InProcessBus(Topics("folio", "acme"), partitions=3)
    corpus = SiteCorpus(tmp_path / "corpus", "acme")
    consumer = SiteConsumer(bus.subscribe("emea", ["jira"]), corpus, tmp_path / "wiki",
                            kafka_settings("unused"))
    bus.publish("jira", [m for n in (1, 2) for m in encode(record_event(ticket("acme", n, 1), "c"))])
    consumer.run_once(wait_s=0)
    one, two = corpus.path_for(ticket("acme", 1).key), corpus.path_for(ticket("acme", 2).key)
    parked = {one.stat().st_ino, two.stat().st_ino}
    bus.publish("jira", encode(record_event(ticket("acme", 1, 2), "u"))
                + encode(delete_event("acme", "jira", "acme-jira", "issue", "10002",
                                       deleted_at=T0 + timedelta(days=1))))
    with retire.held():
        report = consumer.run_once(wait_s=0)
        assert (report.applied.written, report.applied.deleted) == (1, 1)
        assert _inodes(corpus.root / TRASH_DIR) == parked
    retire.drain()
    assert "Revision 2" in (tmp_path / "wiki" / "ticket" / "ops-1.md").read_text()
    assert not (tmp_path / "wiki" / "ticket" / "ops-2.md").exists()
    assert sorted(os.listdir(corpus.root)) == sorted(["sources.yaml", "records", TRASH_DIR])
    assert "ticket/ops-1.md" in pages(tmp_path / "wiki")

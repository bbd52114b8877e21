"""No silent data loss by following the README: a wiki belongs to its corpus, a compile never
writes into a folder of someone else's files, and every refusal leaves every file as it was
(each case hashes the folder before and after)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compiler.build import CompileError, compile_wiki
from compiler.wiki_owner import FolderGuardError
from conftest import ACME, TODAY, flat
from connectors.bus.base import Topics
from connectors.bus.memory import InProcessBus
from pipelines.consumer import SiteConsumer
from connectors.site_corpus import SiteCorpus

REPO = Path(__file__).resolve().parents[1]


def tree_digest(root: Path) -> dict[str, str]:
    """Every file under ``root`` (dot-folders included) → sha256; folders listed too."""
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        out[rel] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "<dir>"
    return out


def _compile(runner: CliRunner, src: Path, out: Path, *extra: str):  # type: ignore[no-untyped-def]
    from pipelines.folio_cli import app

    return runner.invoke(app, ["compile", str(src), "--out", str(out), "-q", *extra])


@pytest.fixture
def acme_wiki_rw(tmp_path: Path, acme_copy: Path) -> Path:
    wiki = tmp_path / "wiki"
    compile_wiki(acme_copy, wiki, today=TODAY)
    return wiki


def _handbook_only(tmp_path: Path) -> Path:
    """Another corpus: Acme's handbook alone, under its own manifest."""
    other = tmp_path / "other"
    shutil.copytree(ACME / "handbook", other / "handbook")
    (other / "sources.yaml").write_text(
        "tenant: acme\nsources:\n  - {path: handbook, system: markdown, instance: handbook, "
        "default_acl: {public: true}}\n")
    return other


# -- a wiki of another corpus ----------------------------------------------------------------

def test_compile_of_another_corpus_into_a_wiki_is_refused_and_changes_nothing(
        runner: CliRunner, tmp_path: Path, acme_copy: Path, acme_wiki_rw: Path) -> None:
    other = _handbook_only(tmp_path)
    before = tree_digest(acme_wiki_rw)
    result = _compile(runner, other, acme_wiki_rw)
    assert result.exit_code == 1, result.output
    text = flat(result.output)
    assert str(acme_copy.resolve()) in text and str(other.resolve()) in text, text
    assert "--force-corpus" in text and "Nothing was changed" in text
    assert tree_digest(acme_wiki_rw) == before


def test_force_corpus_replaces_the_wiki_s_corpus_on_purpose(
        runner: CliRunner, tmp_path: Path, acme_wiki_rw: Path) -> None:
    other = _handbook_only(tmp_path)
    result = _compile(runner, other, acme_wiki_rw, "--force-corpus")
    assert result.exit_code == 0, result.output
    assert not (acme_wiki_rw / "policy" / "return-policy.md").exists()
    # the wiki is the other corpus's now: the first one is refused in turn
    assert _compile(runner, ACME, acme_wiki_rw).exit_code == 1


def test_a_moved_corpus_is_the_same_corpus(tmp_path: Path, acme_copy: Path,
                                           acme_wiki_rw: Path) -> None:
    moved = tmp_path / "moved" / "acme"
    shutil.copytree(acme_copy, moved)
    shutil.rmtree(acme_copy)
    report = compile_wiki(moved, acme_wiki_rw, today=TODAY)
    assert report.pages_removed == 0


def test_connectors_sync_into_another_corpus_s_wiki_is_refused_and_changes_nothing(
        runner: CliRunner, tmp_path: Path, acme_wiki_rw: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's first data loss: the Jira export synced into the Acme wiki removed 24 of
    its 30 pages."""
    from pipelines.folio_cli import app

    monkeypatch.delenv("FOLIO_EVENTS_KAFKA_BOOTSTRAP", raising=False)
    config = tmp_path / "site.yaml"
    shutil.copy(REPO / "examples" / "site.yaml", config)
    before = tree_digest(acme_wiki_rw)
    result = runner.invoke(app, ["connectors", "sync", "jira", "--from-export",
                                 str(ACME / "jira"), "--config", str(config),
                                 "--wiki", str(acme_wiki_rw)])
    assert result.exit_code == 1, result.output
    assert "is the wiki of the corpus" in flat(result.output)
    assert "--wiki NEW" in flat(result.output)
    assert tree_digest(acme_wiki_rw) == before
    assert not (tmp_path / "wiki.corpus").exists()  # no record file written either
    assert not (tmp_path / ".folio-connectors").exists()  # no cursor moved


def test_site_consumer_refuses_another_corpus_s_wiki(tmp_path: Path,
                                                     acme_wiki_rw: Path) -> None:
    before = tree_digest(acme_wiki_rw)
    bus = InProcessBus(Topics(prefix="folio", tenant="acme"))
    corpus = SiteCorpus(tmp_path / "events.corpus", "acme")
    with pytest.raises(FolderGuardError, match="is the wiki of the corpus"):
        SiteConsumer(bus.subscribe("hq", ["jira"]), corpus, acme_wiki_rw)
    assert tree_digest(acme_wiki_rw) == before
    assert not corpus.root.exists()


def test_site_consumer_refuses_a_corpus_folder_of_the_user_s_own(
        tmp_path: Path, acme_copy: Path) -> None:
    """``folio consume --corpus examples/acme`` would have overwritten its sources.yaml."""
    before = tree_digest(acme_copy)
    bus = InProcessBus(Topics(prefix="folio", tenant="acme"))
    with pytest.raises(FolderGuardError, match="sources.yaml the consumer did not write"):
        SiteConsumer(bus.subscribe("hq", ["jira"]), SiteCorpus(acme_copy, "acme"),
                     tmp_path / "events-wiki")
    assert tree_digest(acme_copy) == before


# -- a folder holding files Folio did not write ----------------------------------------------

def _users_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    (folder / "drafts").mkdir(parents=True)
    (folder / "todo.md").write_text("- buy milk\n")
    (folder / "drafts" / "plan.txt").write_text("the plan\n")
    return folder


def test_compile_into_a_folder_of_foreign_files_is_refused_and_changes_nothing(
        runner: CliRunner, tmp_path: Path) -> None:
    folder = _users_folder(tmp_path)
    before = tree_digest(folder)
    result = _compile(runner, ACME, folder)
    assert result.exit_code == 1, result.output
    text = flat(result.output)
    assert "todo.md" in text and "--allow-foreign-files" in text, text
    assert tree_digest(folder) == before


def test_allow_foreign_files_writes_beside_them_and_never_over_them(
        runner: CliRunner, tmp_path: Path) -> None:
    folder = _users_folder(tmp_path)
    before = tree_digest(folder)
    result = _compile(runner, ACME, folder, "--allow-foreign-files")
    assert result.exit_code == 0, result.output
    after = tree_digest(folder)
    assert {k: after[k] for k in before} == before
    assert (folder / "policy" / "return-policy.md").is_file()


def test_allow_foreign_files_still_refuses_a_file_at_a_path_folio_writes(
        runner: CliRunner, tmp_path: Path) -> None:
    folder = _users_folder(tmp_path)
    (folder / "policy").mkdir()
    (folder / "policy" / "return-policy.md").write_text("my own notes on returns\n")
    (folder / "index.md").write_text("# my index\n")
    before = tree_digest(folder)
    result = _compile(runner, ACME, folder, "--allow-foreign-files")
    assert result.exit_code == 1, result.output
    assert "index.md" in flat(result.output) and "policy/return-policy.md" in flat(result.output)
    assert tree_digest(folder) == before


def test_a_compiled_wiki_keeps_compiling_with_the_user_s_notes_in_it(
        tmp_path: Path, acme_copy: Path, acme_wiki_rw: Path) -> None:
    (acme_wiki_rw / "my-notes.txt").write_text("mine\n")
    compile_wiki(acme_copy, acme_wiki_rw, today=TODAY)
    assert (acme_wiki_rw / "my-notes.txt").read_text() == "mine\n"


# -- the corpus folder as output -------------------------------------------------------------

@pytest.mark.parametrize("flag", [[], ["--allow-foreign-files"]])
def test_compile_into_the_corpus_folder_is_refused_and_changes_nothing(
        runner: CliRunner, acme_copy: Path, flag: list[str]) -> None:
    before = tree_digest(acme_copy)
    result = _compile(runner, acme_copy, acme_copy, *flag)
    assert result.exit_code == 1, result.output
    assert tree_digest(acme_copy) == before


def test_compile_wiki_api_refuses_too(tmp_path: Path) -> None:
    folder = _users_folder(tmp_path)
    with pytest.raises(CompileError, match="Folio did not write"):
        compile_wiki(ACME, folder, today=TODAY)


# -- a file where a folder is expected -------------------------------------------------------

def test_a_file_given_as_corpus_or_wiki_says_it_is_a_file(runner: CliRunner,
                                                          tmp_path: Path) -> None:
    from pipelines.folio_cli import app

    a_file = tmp_path / "todo.md"
    a_file.write_text("x\n")
    r = _compile(runner, a_file, tmp_path / "wiki")
    assert r.exit_code == 1 and "is a file" in flat(r.output), r.output
    r = _compile(runner, ACME, a_file)
    assert r.exit_code == 1 and "is a file" in flat(r.output), r.output
    for cmd in (["lint"], ["verify"], ["show", "x"], ["query", "x"], ["export", "claims"]):
        r = runner.invoke(app, [*cmd, "--wiki", str(a_file)])
        assert r.exit_code != 0 and "is a file" in flat(r.output), (cmd, r.output)
    r = runner.invoke(app, ["verify", "--wiki", str(tmp_path), "--sources", str(a_file)])
    assert r.exit_code == 1 and "is a file" in flat(r.output), r.output
    r = runner.invoke(app, ["connectors", "sync", "jira", "--from-export", str(a_file),
                            "--config", str(REPO / "examples" / "site.yaml")])
    assert r.exit_code != 0 and "is a file" in flat(r.output), r.output
    assert a_file.read_text() == "x\n"


def test_allow_foreign_files_refuses_a_symlink_where_pages_would_go(
        runner: CliRunner, tmp_path: Path) -> None:
    folder, elsewhere = _users_folder(tmp_path), tmp_path / "elsewhere"
    elsewhere.mkdir()
    (folder / "policy").symlink_to(elsewhere, target_is_directory=True)
    before = tree_digest(folder), tree_digest(elsewhere)
    result = _compile(runner, ACME, folder, "--allow-foreign-files")
    assert result.exit_code == 1, result.output
    assert "policy/" in flat(result.output)
    assert (tree_digest(folder), tree_digest(elsewhere)) == before


def test_a_new_page_never_overwrites_a_file_someone_put_at_its_path(
        runner: CliRunner, tmp_path: Path, acme_copy: Path, acme_wiki_rw: Path) -> None:
    """An already compiled wiki: a hand-written file where a page appears later is kept, the
    compile refused, every file as it was."""
    doc = acme_copy / "handbook" / "platform-team.md"
    saved = doc.read_bytes()
    doc.unlink()
    compile_wiki(acme_copy, acme_wiki_rw, today=TODAY)
    mine = acme_wiki_rw / "team" / "platform-team.md"
    assert not mine.exists()
    mine.parent.mkdir(exist_ok=True)
    mine.write_text("my own notes on the platform team\n")
    doc.write_bytes(saved)
    before = tree_digest(acme_wiki_rw)
    result = _compile(runner, acme_copy, acme_wiki_rw)
    assert result.exit_code == 1, result.output
    assert "team/platform-team.md" in flat(result.output)
    assert tree_digest(acme_wiki_rw) == before
    mine.unlink()  # moved away: the page comes
    assert _compile(runner, acme_copy, acme_wiki_rw).exit_code == 0
    assert mine.read_text() != "my own notes on the platform team\n"

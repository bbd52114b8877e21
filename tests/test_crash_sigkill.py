"""A real ``folio compile`` process killed with SIGKILL at many points (issue 23, case 3).

Two sweeps per scenario (a clean compile into an empty folder, an incremental compile of an
edit, an addition and a deletion):

- by file operation: ``FOLIO_TEST_KILL_AT=<phase>:<n>`` makes the compile SIGKILL itself at the
  n-th staged file, before its commit, right after it, and at each move or delete of the
  journal (compiler/staging.py);
- by time: the test sends SIGKILL after N ms, N swept over the compile's run time.

After each kill a reader (``verify``) must see the previous generation or the new one, never a
mix, and verify it; the rerun must equal an uninterrupted compile, with no stage and no temp
file left. The figures (points tried, states seen) are printed with ``-s``.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from compiler.build import compile_wiki
from compiler.provenance.reproducible import reproducible_files
from compiler.provenance.verify import trust_from, verify_wiki
from compiler.settings import FolioSettings
from conftest import ACME

REPO = Path(__file__).resolve().parents[1]
FIGURES: dict[str, Counter] = {}


def _change(corpus: Path) -> None:
    """An edit in two records, a new record and a deleted one."""
    prod = corpus / "confluence" / "prod.json"
    text = prod.read_text(encoding="utf-8")
    old = "The uptime SLA of Acme Cloud is 99.95%."
    assert old in text
    prod.write_text(text.replace(old, "The uptime SLA of Acme Cloud is 99.9%."), encoding="utf-8")
    doc = corpus / "handbook" / "returns-handling.md"
    doc.write_text(doc.read_text(encoding="utf-8")
                   + "\nReturned units are inspected within two business days.\n")
    (corpus / "handbook" / "night-shift.md").write_text(
        "---\ntitle: Night Shift Runbook\ntype: process\nupdated: 2026-11-01\n---\n"
        "The night shift hands over to the day shift at 06:00.\n")
    victims = sorted(p for p in (corpus / "handbook").glob("*.md") if p.name != "returns-handling.md"
                     and p.name != "night-shift.md")
    victims[0].unlink()
    for p in (prod, doc):
        os.utime(p, ns=(1, 1))


def _visible(wiki: Path) -> dict[str, bytes]:
    """Every file of the wiki a reader sees (dot-files included), state folder excepted."""
    if not wiki.exists():
        return {}
    return {p.relative_to(wiki).as_posix(): p.read_bytes() for p in sorted(wiki.rglob("*"))
            if p.is_file() and ".folio" not in p.relative_to(wiki).parts}


def _journal_pending(wiki: Path) -> bool:
    db_path = wiki / ".folio" / "state.db"
    if not db_path.exists():
        return False
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        return db.execute("SELECT 1 FROM generation_journal LIMIT 1").fetchone() is not None
    except sqlite3.OperationalError:
        return False
    finally:
        db.close()


def _compile_proc(corpus: Path, wiki: Path, kill_at: str | None) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO), "FOLIO_WORKERS": "1"}
    env.pop("FOLIO_TEST_KILL_AT", None)
    if kill_at:
        env["FOLIO_TEST_KILL_AT"] = kill_at
    return subprocess.Popen(
        [sys.executable, "-c", "from pipelines.folio_cli import app; app()", "compile", str(corpus),
         "--out", str(wiki), "-q"], env=env, cwd=REPO,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _verify_proc(wiki: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("FOLIO_TEST_KILL_AT", None)
    return subprocess.run(
        [sys.executable, "-c", "from pipelines.folio_cli import app; app()", "verify", "--wiki",
         str(wiki)], env=env, cwd=REPO, capture_output=True, text=True, timeout=120)


class Scenario:
    def __init__(self, tmp: Path, kind: str) -> None:
        self.tmp, self.kind = tmp, kind
        self.corpus = tmp / "corpus"
        shutil.copytree(ACME, self.corpus)
        self.base = tmp / "base"  # the previous generation (none for a clean compile)
        if kind == "incremental":
            compile_wiki(self.corpus, self.base)
            _change(self.corpus)
        self.old = _visible(self.base)
        # the new generation, compiled without interruption, and how many file operations
        # of each phase it makes
        ref = tmp / "reference"
        if self.base.exists():
            shutil.copytree(self.base, ref)
        counts: Counter = Counter()
        try:
            from compiler.staging import Generation
        except ImportError:  # the code before generations (to show this test failing there)
            compile_wiki(self.corpus, ref)
            Generation = None  # noqa: N806
        if Generation is None:
            self.counts, self.new = counts, reproducible_files(ref, volatile=())
            self.trust, self.runs = trust_from(FolioSettings()), 0
            return
        real_note, real_plan = Generation.note, Generation.plan

        def note(gen, rel):  # noqa: ANN001, ANN202
            counts["stage"] += 1
            return real_note(gen, rel)

        def plan(gen):  # noqa: ANN001, ANN202
            ops = real_plan(gen)
            counts["apply"] = len(ops)
            return ops

        Generation.note, Generation.plan = note, plan  # type: ignore[method-assign]
        try:
            compile_wiki(self.corpus, ref)
        finally:
            Generation.note, Generation.plan = real_note, real_plan  # type: ignore[method-assign]
        self.counts = counts
        self.new = reproducible_files(ref, volatile=())
        self.trust = trust_from(FolioSettings())
        self.runs = 0

    def fresh(self) -> Path:
        self.runs += 1
        wiki = self.tmp / f"run{self.runs}"
        if self.base.exists():
            shutil.copytree(self.base, wiki)
        return wiki

    def check(self, wiki: Path, label: str, figures: Counter) -> None:
        """The gap after the kill, as a reader sees it, then the rerun."""
        raw = "committed, not yet applied" if _journal_pending(wiki) else None
        if raw:  # the real `folio verify` is the first reader: it rolls the journal forward
            cli = _verify_proc(wiki)
            assert cli.returncode == 0, (label, cli.stdout[-2000:], cli.stderr[-2000:])
            assert not _journal_pending(wiki), label
        report = verify_wiki(wiki, self.trust)
        visible = _visible(wiki)
        if visible == self.old:
            state = "previous generation"
        elif reproducible_files(wiki, volatile=()) == self.new:
            state = "new generation"
        else:
            pytest.fail(f"{self.kind} {label}: a mix of generations is visible: "
                        f"{sorted(set(visible) ^ set(self.old))[:10]}")
        if raw:
            assert state == "new generation", label
            state += " (rolled forward by the reader)"
        figures[state] += 1
        if self.old or state.startswith("new"):
            assert report.ok, (label, [f.message for f in report.findings][:5])
        else:  # nothing compiled yet: verify says so, and only that
            assert [f.code for f in report.findings] == ["root"], label
        assert not [p for p in visible if p.rsplit("/", 1)[-1].startswith(".")], label

        rerun = compile_wiki(self.corpus, wiki)
        assert rerun.rejected == 0
        assert reproducible_files(wiki, volatile=()) == self.new, label
        assert verify_wiki(wiki, self.trust).ok, label
        assert not (wiki / ".folio" / "stage").exists(), label
        assert not list(wiki.rglob("*.tmp")), label
        assert not _journal_pending(wiki), label


# FOLIO_TEST_SWEEP=full: every journal operation and 40 kill times (minutes, not for CI)
FULL = os.environ.get("FOLIO_TEST_SWEEP") == "full"


def _points(counts: Counter) -> list[str]:
    stage, apply = counts["stage"], counts["apply"]
    points = sorted({1, 2, max(1, stage // 3), max(1, stage // 2), max(1, stage - 1), stage})
    out = [f"stage:{n}" for n in points] + ["journal:1", "commit:1"]
    applies = range(1, apply + 1) if FULL else sorted(
        {1, 2, 3, max(1, apply // 2), max(1, apply - 1), apply})
    out += [f"apply:{n}" for n in applies]
    return out


@pytest.mark.parametrize("kind", ["clean", "incremental"])
def test_sigkill_at_every_phase_of_a_compile(tmp_path: Path, kind: str) -> None:
    sc = Scenario(tmp_path, kind)
    assert sc.counts["stage"] > 3 and sc.counts["apply"] >= 3
    figures = FIGURES.setdefault(f"{kind}, by file operation", Counter())
    for point in _points(sc.counts):
        wiki = sc.fresh()
        proc = _compile_proc(sc.corpus, wiki, point)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == -signal.SIGKILL, (point, proc.returncode, err[-2000:])
        figures["points"] += 1
        sc.check(wiki, point, figures)
    # a kill before the commit leaves the previous generation, one after it the new one
    assert figures["previous generation"] > 0
    assert figures["new generation (rolled forward by the reader)"] > 0
    print(f"\n{kind}: {sc.counts['stage']} staged files, {sc.counts['apply']} journal operations;"
          f" {dict(figures)}")


@pytest.mark.parametrize("kind", ["clean", "incremental"])
def test_sigkill_after_n_ms_of_a_compile(tmp_path: Path, kind: str) -> None:
    sc = Scenario(tmp_path, kind)
    # how long an uninterrupted compile runs here, start-up included
    wiki = sc.fresh()
    t0 = time.monotonic()
    proc = _compile_proc(sc.corpus, wiki, None)
    proc.communicate(timeout=120)
    whole = time.monotonic() - t0
    assert proc.returncode == 0
    figures = FIGURES.setdefault(f"{kind}, by time", Counter())
    steps = 40 if FULL else 10
    for i in range(steps):
        # from the end of start-up (imports take the first third) to twice the measured run
        # time: a loaded machine stretches the run, and the commit is near its end
        delay = whole * (0.3 + 1.7 * i / (steps - 1))
        wiki = sc.fresh()
        proc = _compile_proc(sc.corpus, wiki, None)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=120)
        figures["killed" if proc.returncode == -signal.SIGKILL else "finished first"] += 1
        figures["points"] += 1
        sc.check(wiki, f"{delay * 1000:.0f} ms", figures)
    print(f"\n{kind}: compile {whole * 1000:.0f} ms; {dict(figures)}")


@pytest.mark.parametrize("how", ["full", "after a crash"])
def test_temp_files_of_a_killed_writer_are_removed_by_the_next_compile(
        tmp_path: Path, how: str) -> None:
    """An older Folio killed mid-write left zero-byte ``.<name>.<pid>.tmp`` files that survived
    the recovery compile and ``--full``; verify must not pass them, the next compile removes
    them."""
    corpus = tmp_path / "corpus"
    shutil.copytree(ACME, corpus)
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki)
    stale = [wiki / "policy" / ".return-policy.md.4242.tmp", wiki / ".index.md.4242.tmp"]
    for p in stale:
        p.write_bytes(b"")
    report = verify_wiki(wiki, trust_from(FolioSettings()))
    assert sorted(f.path for f in report.findings) == [".index.md.4242.tmp",
                                                        "policy/.return-policy.md.4242.tmp"]
    if how == "after a crash":
        (wiki / ".folio" / "pending.json").write_text("[]")  # what a killed compile leaves
        compile_wiki(corpus, wiki)
    else:
        compile_wiki(corpus, wiki, full=True)
    assert not any(p.exists() for p in stale)
    assert verify_wiki(wiki, trust_from(FolioSettings())).ok


def test_verify_during_live_compiles_always_sees_a_whole_generation(tmp_path: Path) -> None:
    """Readers concurrent with compiles (not killed): every verify passes, each sees one
    generation or the next, while compiles switch the wiki back and forth."""
    import threading

    corpus = tmp_path / "corpus"
    shutil.copytree(ACME, corpus)
    wiki = tmp_path / "wiki"
    compile_wiki(corpus, wiki)
    doc = corpus / "handbook" / "returns-handling.md"
    texts = [doc.read_text(), doc.read_text() + "\nReturned units are inspected within two days.\n"]
    errors: list[BaseException] = []
    done = threading.Event()

    def compiles() -> None:
        try:
            for i in range(6):
                doc.write_text(texts[(i + 1) % 2])
                os.utime(doc, ns=(i + 5, i + 5))
                compile_wiki(corpus, wiki)
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)
        finally:
            done.set()

    trust = trust_from(FolioSettings())
    worker = threading.Thread(target=compiles)
    worker.start()
    verified = 0
    while not done.is_set():
        report = verify_wiki(wiki, trust)
        assert report.ok, [f.message for f in report.findings][:5]
        verified += 1
    worker.join()
    assert not errors, errors
    assert verified > 0 and verify_wiki(wiki, trust).ok

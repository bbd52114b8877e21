"""What a person reads in the first minutes: lint and audit at 80 columns (piped) keep every
record key and id whole, ``--as`` with an unknown principal says so, counts are plural-correct,
and the compile summary says what "re-rendered" and "written" mean."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from typer.testing import CliRunner

from pipelines.folio_cli import app
from conftest import ACME, NOW, TODAY, strip_ansi

NARROW = {"COLUMNS": "80"}
QUESTION = "What is the return window for Enterprise customers?"


def test_lint_at_80_columns_prints_every_record_key_whole(runner: CliRunner,
                                                          acme_wiki: Path) -> None:
    data = json.loads(runner.invoke(app, ["lint", "--wiki", str(acme_wiki), "--now", NOW,
                                          "--json"]).stdout)
    result = runner.invoke(app, ["lint", "--wiki", str(acme_wiki), "--now", NOW], env=NARROW)
    assert result.exit_code == 1
    text = strip_ansi(result.stdout)
    assert "…" not in text
    lines = text.splitlines()
    labels = {s for f in data["findings"] for s in f["sources"]}
    assert len(labels) >= 2
    for label in labels:  # whole, on one line: the two sides of a contradiction are told apart
        assert any(label in ln for ln in lines), (label, text)
    contradiction = next(f for f in data["findings"] if f["code"] == "open-contradiction")
    assert all(f"source: {s}" in text for s in contradiction["sources"])


def test_lint_counts_are_plural_correct(runner: CliRunner, acme_wiki: Path) -> None:
    result = runner.invoke(app, ["lint", "--wiki", str(acme_wiki), "--now", NOW])
    data = json.loads(runner.invoke(app, ["lint", "--wiki", str(acme_wiki), "--now", NOW,
                                          "--json"]).stdout)
    errors, warnings = data["errors"], data["warnings"]
    expected = (f"{errors} error{'' if errors == 1 else 's'}, "
                f"{warnings} warning{'' if warnings == 1 else 's'}")
    assert expected in strip_ansi(result.stdout).splitlines(), result.stdout
    assert not re.search(r"\b1 (errors|warnings)\b", result.stdout)


def test_audit_at_80_columns_prints_ids_keys_and_digests_whole(
        runner: CliRunner, acme_wiki: Path, tmp_path: Path) -> None:
    wiki = tmp_path / "wiki"
    shutil.copytree(acme_wiki, wiki)
    asked = runner.invoke(app, ["query", QUESTION, "--wiki", str(wiki), "--attest"])
    assert asked.exit_code == 0, asked.output
    rid = re.search(r"answer record: (\S+)", asked.stdout).group(1)
    trace = json.loads(runner.invoke(app, ["audit", rid, "--wiki", str(wiki), "--json"]).stdout)
    result = runner.invoke(app, ["audit", rid, "--wiki", str(wiki)], env=NARROW)
    assert result.exit_code == 0, result.output
    text = strip_ansi(result.stdout)
    assert "…" not in text
    for step in trace["trace"]:
        for whole in (step["claim_id"], step["source"], step["source_sha256"], step["page"]):
            assert whole in text, (whole, text)


def test_as_an_unknown_principal_says_so_and_still_hides(runner: CliRunner,
                                                       acme_wiki: Path) -> None:
    known = runner.invoke(app, ["show", "Discount Approval Policy", "--wiki", str(acme_wiki),
                                "--as", "carol"])
    assert "no such principal" not in known.output
    for who in ("carol-typo", "nobody"):
        result = runner.invoke(app, ["show", "Discount Approval Policy", "--wiki",
                                     str(acme_wiki), "--as", who])
        assert result.exit_code == 1
        assert f"--as {who}: no such principal in the corpus directory" in \
            " ".join(result.output.split()), result.output
        assert "Discount Approval" not in result.stdout  # still nothing restricted shown
    q = runner.invoke(app, ["query", QUESTION, "--wiki", str(acme_wiki), "--as", "nobody"])
    assert "no such principal" in " ".join(q.output.split())
    assert "60 days" not in q.stdout  # the policy is for staff only


def test_compile_summary_explains_re_rendered_and_written(runner: CliRunner,
                                                          tmp_path: Path) -> None:
    corpus = tmp_path / "acme"
    shutil.copytree(ACME, corpus)
    result = runner.invoke(app, ["compile", str(corpus), "--out", str(tmp_path / "wiki"), "-q"],
                           env=NARROW)
    assert result.exit_code == 0, result.output
    text = " ".join(strip_ansi(result.stdout).split())
    assert "re-rendered: pages a change touches" in text
    assert "written: those whose file came out different" in text
    assert re.search(r"pages written \(file changed\)", text)


def test_first_compile_log_says_created_and_counts_are_plural(tmp_path: Path) -> None:
    from compiler.build import compile_wiki

    corpus, wiki = tmp_path / "acme", tmp_path / "wiki"
    shutil.copytree(ACME, corpus)
    first = compile_wiki(corpus, wiki, today=TODAY)
    log = (wiki / "log.md").read_text()
    assert (f"**Compile**: {first.records_extracted} records extracted; "
            f"{first.pages_written} pages created") in log
    assert "- updated [[" not in log
    assert log.count("- created [[") == first.pages_written

    doc = corpus / "handbook" / "returns-handling.md"
    doc.write_text(doc.read_text() + "\nReturns are logged in the returns tracker.\n")
    compile_wiki(corpus, wiki, today=TODAY)
    log = (wiki / "log.md").read_text()
    assert "**Compile**: 1 record re-extracted; 1 page updated" in log, log[-400:]
    assert "- updated [[process/returns-handling]]" in log
    assert not re.search(r"\b1 (records|pages)\b", log)


def test_event_reports_count_in_plural_correct_words(capsys) -> None:  # type: ignore[no-untyped-def]
    from compiler.build import CompileReport
    from connectors.api.runner import RunReport
    from pipelines.connectors_cli import _print_batch, _print_run
    from pipelines.consumer import BatchReport
    from connectors.site_corpus import ApplyResult

    _print_batch(BatchReport(events=1, keys=1, applied=ApplyResult(written=1),
                             compile=CompileReport(pages_written=1), latencies=[0.5]))
    _print_run("jira/acme", RunReport(published=1, pages=1))
    text = " ".join(capsys.readouterr().out.split())
    assert "batch: 1 event, 1 key, 1 written" in text, text
    assert "1 page written" in text and "1 page read" in text, text
    assert not re.search(r"\b1 (events|keys|pages)\b", text), text


def test_key_lines_keep_the_key_id_whole_on_a_narrow_terminal(runner: CliRunner) -> None:
    result = runner.invoke(app, ["keys", "show"], env={"COLUMNS": "60"})
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.stdout.splitlines() if ln.startswith("key id"))
    assert re.fullmatch(r"key id\s+sha256:[0-9a-f]{64}", line), result.stdout


def test_lint_as_an_unknown_principal_says_so(runner: CliRunner, acme_wiki: Path) -> None:
    result = runner.invoke(app, ["lint", "--wiki", str(acme_wiki), "--now", NOW, "--as", "nobody"])
    assert "--as nobody: no such principal" in " ".join(result.output.split()), result.output

"""``folio`` with the base install only: every command's help works, and a command that needs an
optional extra names it instead of printing a traceback. The extras are hidden from a real
``folio`` process (``sys.modules[name] = None`` makes their import fail as if not installed),
so the test environment may well have them. Also: help text as a user reads it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.cli_base import EXTRA_OF

REPO = Path(__file__).resolve().parents[1]
BLOCKED = sorted(EXTRA_OF)


def folio_without_extras(*args: str, env: dict[str, str] | None = None,
                         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    code = ("import sys\n"
            f"for m in {BLOCKED!r}: sys.modules[m] = None\n"
            "from pipelines.folio_cli import app\n"
            "app(prog_name='folio')\n")
    full_env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "80", **(env or {})}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=full_env, cwd=cwd or REPO, timeout=120)


def _command_paths() -> list[list[str]]:
    """Every command and group of the CLI, as argv prefixes."""
    import typer.main

    from pipelines.folio_cli import app

    root = typer.main.get_command(app)
    paths: list[list[str]] = [[]]

    def walk(cmd, prefix: list[str]) -> None:  # type: ignore[no-untyped-def]
        for name, sub in getattr(cmd, "commands", {}).items():
            paths.append([*prefix, name])
            walk(sub, [*prefix, name])

    walk(root, [])
    return paths


def test_every_help_works_without_any_extra() -> None:
    paths = _command_paths()
    assert ["connectors", "sync"] in paths and ["pipeline", "run"] in paths
    # one process for all: importing the CLI is what used to fail (httpx at import time)
    code = ("import sys\n"
            f"for m in {BLOCKED!r}: sys.modules[m] = None\n"
            "from typer.testing import CliRunner\n"
            "from pipelines.folio_cli import app\n"
            "bad = []\n"
            f"for p in {paths!r}:\n"
            "    r = CliRunner().invoke(app, [*p, '--help'])\n"
            "    if r.exit_code != 0 or 'Usage:' not in r.output: bad.append((p, r.output))\n"
            "print(bad)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout


def test_top_level_help_as_a_script_without_extras() -> None:
    done = folio_without_extras("--help")
    assert done.returncode == 0, done.stderr
    assert "compile" in done.stdout and "connectors" in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("argv, env, extra", [
    (["connectors", "sync", "jira", "--from-export", "examples/acme/jira",
      "--config", "examples/site.yaml", "--wiki", "{tmp}/events-wiki"], {}, "connectors"),
    (["connectors", "run", "jira", "--config", "examples/site.yaml", "--once",
      "--wiki", "{tmp}/events-wiki"], {}, "connectors"),
    (["consume", "--site", "hq", "--tenant", "acme", "--wiki", "{tmp}/events-wiki"],
     {"FOLIO_EVENTS_KAFKA_BOOTSTRAP": "127.0.0.1:1"}, "kafka"),
    (["pipeline", "run", "-c", "deploy/compose/folio-sites.yaml"], {}, "pipelines"),
    (["pipeline", "llm-limit", "--per-second", "1", "--burst", "1"], {}, "pipelines"),
])
def test_a_missing_extra_is_named_without_a_traceback(
        tmp_path: Path, argv: list[str], env: dict[str, str], extra: str) -> None:
    done = folio_without_extras(*(a.replace("{tmp}", str(tmp_path)) for a in argv), env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert f'pip install -e ".[{extra}]"' in " ".join(done.stderr.split()), done.stderr


def test_s3_wiki_without_boto3_names_the_extra(tmp_path: Path) -> None:
    done = folio_without_extras("lint", "--wiki", "s3://bucket/prefix",
                                env={"FOLIO_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 1
    assert "Traceback" not in done.stderr, done.stderr
    assert "folio[s3]" in " ".join(done.stderr.split()), done.stderr


# -- help text as a user reads it --------------------------------------------------------------

def test_help_keeps_wikilinks_and_shows_flags_as_flags() -> None:
    done = folio_without_extras("query", "--help")
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "cited as [[page]] and source key@version" in text, done.stdout
    assert "<bool>" not in done.stdout
    assert "--attest" in done.stdout


def test_help_descriptions_are_rewrapped_not_hard_broken() -> None:
    """A docstring's own line breaks must not survive as a ragged short line mid-paragraph
    (rich help printed "…(listed with" / "file and" / "record); 1 nothing compiled…")."""
    for command in (["compile"], ["verify"], ["pipeline", "llm-limit"], ["publish"]):
        done = folio_without_extras(*command, "--help")
        assert done.returncode == 0, done.stderr
        head = done.stdout.split("\nArguments:")[0].split("\nOptions:")[0]
        paragraphs = [p.splitlines() for p in head.split("\n\n")[1:]]
        for lines in paragraphs:
            ragged = [ln for ln in lines[:-1] if len(ln.strip()) < 50]
            assert not ragged, (command, ragged, done.stdout)

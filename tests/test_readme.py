"""The README's first hour, run the way a new user runs it.

A copy of the repository's files, a fresh virtual environment made by the README's own "Run it"
lines (read from README.md, so the two cannot drift), the base install with no extras, then
every tour command that follows, each checked for the exit code the README promises. ``HOME`` is
a temp folder (the first compile creates the signing key there) and nothing of the test
process's environment (``PYTHONPATH``, ``FOLIO_*``) leaks in.

pip reaches the package registry for the base dependencies: this is the one test that does,
because a user's first command does too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"

# the tour's commands, by their first words, and the exit code each must end with
EXPECTED = {
    "folio query": 0,
    "folio lint": 1,            # the Acme corpus has an open contradiction (an error finding)
    "folio show": 0,
    "folio export claims": 0,
    "folio verify": 0,
    "folio audit": 0,
}
EXPECTED_AS_CAROL = 1          # `show … --as carol`: the page is not visible to carol


def bash_blocks(section: str) -> list[list[str]]:
    """The ```bash blocks of a README section (its text up to the next ``## ``), as lines."""
    return [[ln for ln in block.splitlines() if ln.strip()]
            for block in re.findall(r"```bash\n(.*?)```", section, re.S)]


def readme_section(text: str, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}[^\n]*\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"README.md has no '## {title}' section"
    return match.group(1)


def run_it_and_tour(text: str) -> tuple[list[str], list[str]]:
    """The "Run it" lines (first bash block of the section) and the tour (the next one)."""
    blocks = bash_blocks(readme_section(text, "Run it"))
    assert len(blocks) >= 2, "README 'Run it' needs the install block and the tour block"
    return blocks[0], blocks[1]


def expected_exit(command: str) -> int:
    if command.startswith("folio show") and "--as carol" in command:
        return EXPECTED_AS_CAROL
    for prefix, code in EXPECTED.items():
        if command.startswith(prefix):
            return code
    raise AssertionError(f"README tour command {command!r}: this test does not know its exit "
                         "code; add it to EXPECTED")


def _tracked_files(dest: Path) -> None:
    """The repository as a clone has it (tracked files, plus new ones not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, check=True, capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = REPO / rel
        if src.is_file() and not src.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def _user_env(home: Path, venv_bin: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("FOLIO_", "PYTHON", "VIRTUAL_ENV", "PREFECT_", "COLUMNS"))}
    env["HOME"] = str(home)
    if venv_bin is not None:
        env["PATH"] = f"{venv_bin}{os.pathsep}{env.get('PATH', '')}"
        env["VIRTUAL_ENV"] = str(venv_bin.parent)
    return env


def _bash(script: str, cwd: Path, env: dict[str, str], timeout: float
          ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_readme_extraction_finds_the_install_line_and_the_tour() -> None:
    run_it, tour = run_it_and_tour(README.read_text(encoding="utf-8"))
    assert any("python3 -m venv" in ln for ln in run_it), run_it
    assert any("pip install -e ." in ln for ln in run_it), run_it
    assert any(ln.startswith("folio audit") for ln in tour), tour
    for command in tour:
        expected_exit(command)  # every tour command has a known exit code


def test_readme_run_it_and_tour_in_a_fresh_virtualenv(tmp_path: Path) -> None:
    repo, home = tmp_path / "folio", tmp_path / "home"
    repo.mkdir()
    home.mkdir()
    _tracked_files(repo)
    run_it, tour = run_it_and_tour((repo / "README.md").read_text(encoding="utf-8"))
    # a fresh environment first on PATH, so that even "Run it" lines that make none install
    # into an empty one, never into the interpreter running this test
    outer = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(outer)], check=True, timeout=300)

    # "Run it", verbatim, as one shell session (its first line makes and activates a venv)
    first = _bash("set -e\n" + "\n".join(run_it), repo, _user_env(home, outer / "bin"),
                  timeout=900)
    report = f"$ {' ; '.join(run_it)}\n--- stdout\n{first.stdout}\n--- stderr\n{first.stderr}"
    assert first.returncode == 0, report
    assert "Traceback" not in first.stderr, report
    made = [p.parent for p in repo.glob("*/bin/folio")]
    venv_bin = made[0] if made else outer / "bin"
    assert (venv_bin / "folio").is_file(), report
    # no extra came with the base install
    probe = subprocess.run([str(venv_bin / "python"), "-c",
                            "import importlib.util as u; print([m for m in ('httpx', 'kafka', "
                            "'boto3', 'prefect', 'litellm') if u.find_spec(m)])"],
                           capture_output=True, text=True, env=_user_env(home, venv_bin))
    assert probe.stdout.strip() == "[]", probe.stdout + probe.stderr
    assert (repo / "wiki" / "index.md").is_file()

    env = _user_env(home, venv_bin)
    answer_id = None
    for command in tour:
        if "<answer-id>" in command:
            assert answer_id, "the tour audits an answer id before any `--attest` printed one"
            command = command.replace("<answer-id>", answer_id)
        done = _bash(command, repo, env, timeout=300)
        shown = f"$ {command}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
        assert done.returncode == expected_exit(command), shown
        assert "Traceback" not in done.stderr, shown
        if "--attest" in command:
            found = re.search(r"answer record: (\S+)", done.stdout)
            assert found, shown
            answer_id = found.group(1)
    assert answer_id is not None
    assert (repo / "claims.jsonl").stat().st_size > 0

    # "Edit one record … and run `folio compile examples/acme --out wiki/` again: the summary
    # shows one record re-extracted and only the pages citing it re-rendered."
    doc = repo / "examples" / "acme" / "handbook" / "returns-handling.md"
    doc.write_text(doc.read_text(encoding="utf-8") + "\nReturned units are logged the same "
                   "day.\n", encoding="utf-8")
    again = _bash("folio compile examples/acme --out wiki/ --json", repo, env, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    summary = json.loads(again.stdout)
    assert summary["records_extracted"] == 1, summary
    assert 1 <= summary["pages_written"] <= summary["pages_rendered"] < summary["pages_total"]


def test_readme_change_events_sync_runs_from_the_repo_root(tmp_path: Path) -> None:
    """The "Change events" embedded example, verbatim from the repository root, after "Run it"
    compiled ``wiki/``: it fills a wiki of its own and leaves ``wiki/`` as it was. Run with
    this interpreter (the connectors extra installed), ``folio`` being its ``pipelines.folio_cli``."""
    repo, home = tmp_path / "folio", tmp_path / "home"
    repo.mkdir()
    home.mkdir()
    _tracked_files(repo)
    text = (repo / "README.md").read_text(encoding="utf-8")
    block = bash_blocks(readme_section(text, "Change events"))[0]
    sync = [ln for ln in block if ln.startswith("folio connectors sync")]
    assert len(sync) == 1, block
    compile_line = next(ln for ln in run_it_and_tour(text)[0] if "folio compile" in ln)
    env = {**_user_env(home, None), "PYTHONPATH": str(repo)}
    folio = f'folio() {{ "{sys.executable}" -m pipelines.folio_cli "$@"; }}\n'
    made = _bash(folio + compile_line.split("&&")[-1].strip(), repo, env, timeout=300)
    assert made.returncode == 0, made.stdout + made.stderr
    wiki_before = {p: p.read_bytes() for p in (repo / "wiki").rglob("*") if p.is_file()}

    done = _bash(folio + sync[0], repo, env, timeout=300)
    shown = f"$ {sync[0]}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    assert done.returncode == 0, shown
    target = re.search(r"--wiki (\S+)", sync[0]).group(1)
    assert list((repo / target).glob("ticket/*.md")), shown
    assert {p: p.read_bytes() for p in (repo / "wiki").rglob("*") if p.is_file()} == wiki_before


if __name__ == "__main__":  # pragma: no cover - `python tests/test_readme.py`
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]))

"""The state the serving commands answer from (``.folio/state.db``) edited behind the compile's
back — a claim's value, a claim's status, an ACL, a principal's groups — in a local wiki and in
a published central index whose state blob, tree and HEAD are rewritten to agree: ``verify``
detects each edit, and ``query``, ``show``, ``ask``, ``export`` and ``audit`` refuse to serve."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compiler.build import compile_wiki, wiki_state
from pipelines.folio_cli import app
from compiler.provenance.state_check import StateCheck
from compiler.provenance.verify import trust_from
from compiler.settings import FolioSettings
from compiler.store import open_store
from compiler.store.layout import HEAD_KEY, Head, Tree, blob_key, tree_key
from compiler.store.publish import publish_wiki
from conftest import TODAY, flat

RETURN_Q = "What is the return window for Enterprise customers?"
PAGE = "policy/return-policy"
DISCOUNT = "Discount Approval Policy"
REFUSED = "does not match the signed wiki"


def _winner_id(db: sqlite3.Connection) -> str:
    (cid,) = db.execute(
        "SELECT id FROM claims WHERE subject=? AND attribute=? AND status='winner' "
        "AND claim_json LIKE '%Enterprise%'", (PAGE, "return window")).fetchone()
    return cid


def edit_value(db: sqlite3.Connection) -> None:
    cid = _winner_id(db)
    db.execute("UPDATE claims SET claim_json=replace(claim_json, '\"60 days\"', '\"365 days\"') "
               "WHERE id=?", (cid,))


def edit_status(db: sqlite3.Connection) -> None:
    cid = _winner_id(db)
    db.execute("UPDATE claims SET status='overruled' WHERE id=?", (cid,))
    db.execute("UPDATE claims SET status='winner' WHERE subject=? AND attribute=? AND id != ? "
               "AND claim_json LIKE '%Enterprise%'", (PAGE, "return window", cid))


def edit_acl(db: sqlite3.Connection) -> None:
    """The finance-only Discount Approval Policy made public."""
    rows = db.execute("SELECT key, provenance_json FROM records WHERE provenance_json LIKE "
                      "'%\"finance\"%'").fetchall()
    assert rows
    for key, js in rows:
        prov = json.loads(js)
        prov["acl"] = {"public": True, "users": [], "groups": []}
        db.execute("UPDATE records SET provenance_json=? WHERE key=?",
                   (json.dumps(prov, separators=(",", ":")), key))


def edit_groups(db: sqlite3.Connection) -> None:
    """The contractor carol put in finance and staff."""
    db.execute("UPDATE principals SET groups_json='[\"finance\",\"staff\"]' WHERE name='carol'")


def edit_directory(db: sqlite3.Connection) -> None:
    """carol put in finance where `--as` resolves principals: the stored directory."""
    (raw,) = db.execute("SELECT value FROM meta WHERE key='directory'").fetchone()
    directory = json.loads(raw)
    directory["users"]["carol"]["groups"] = ["finance", "staff"]
    db.execute("UPDATE meta SET value=? WHERE key='directory'", (json.dumps(directory),))


EDITS: dict[str, Callable[[sqlite3.Connection], None]] = {
    "claim value": edit_value, "claim status": edit_status, "acl": edit_acl,
    "principal groups": edit_groups, "directory": edit_directory,
}


def tamper(state_db: Path, edit: Callable[[sqlite3.Connection], None]) -> None:
    db = sqlite3.connect(state_db)
    edit(db)
    db.commit()
    db.close()


@pytest.fixture
def wiki(acme_copy: Path, tmp_path: Path) -> Path:
    out = tmp_path / "wiki"
    assert compile_wiki(acme_copy, out, today=TODAY).rejected == 0
    return out


def _serving(runner: CliRunner, wiki: str, rid: str | None) -> dict[str, object]:
    """Every serving command, as the principal each edit matters to."""
    runs = {
        "query": ["query", RETURN_Q, "--wiki", wiki],
        "query --as": ["query", "Who approves a discount above 35%?", "--wiki", wiki, "--as",
                       "carol"],
        "show": ["show", PAGE, "--wiki", wiki, "--raw"],
        "show --as": ["show", DISCOUNT, "--wiki", wiki, "--raw", "--as", "carol"],
        "ask": ["ask", RETURN_Q, "--wiki", wiki],
        "export": ["export", "claims", "--wiki", wiki],
    }
    if rid:
        runs["audit"] = ["audit", rid, "--wiki", wiki]
    return {name: runner.invoke(app, args) for name, args in runs.items()}


def test_an_untouched_wiki_is_served_and_verified(wiki: Path, runner: CliRunner) -> None:
    check = StateCheck(wiki, wiki_state(wiki), trust_from(FolioSettings()))
    check.check_all()
    assert check.problems == []
    rid = runner.invoke(app, ["ask", RETURN_Q, "--wiki", str(wiki), "--json"])
    assert rid.exit_code == 0, rid.output
    answer_id = json.loads(rid.stdout)["answer_id"]
    for name, res in _serving(runner, str(wiki), answer_id).items():
        if name == "show --as":  # carol may not see the finance-only policy
            assert res.exit_code == 1 and "no page named" in flat(res.stderr), res.output
            continue
        assert res.exit_code == 0, (name, res.output)
        assert "CFO" not in res.stdout or "--as" not in name
    assert runner.invoke(app, ["verify", "--wiki", str(wiki)]).exit_code == 0


@pytest.mark.parametrize("what", sorted(EDITS))
def test_a_state_edit_is_detected_and_refused(what: str, wiki: Path, runner: CliRunner) -> None:
    res = runner.invoke(app, ["query", RETURN_Q, "--wiki", str(wiki), "--attest"])
    assert res.exit_code == 0, res.output
    rid = flat(res.output).split("answer record: ")[1].split()[0]
    tamper(wiki / ".folio" / "state.db", EDITS[what])

    res = runner.invoke(app, ["verify", "--wiki", str(wiki)])
    assert res.exit_code == 1, res.output
    assert ".folio/state.db" in flat(res.output) or "state.db" in flat(res.output)
    for name, res in _serving(runner, str(wiki), rid).items():
        assert res.exit_code == 1, (what, name, res.output)
        assert REFUSED in flat(res.stderr), (what, name, res.stderr)
        assert "365 days" not in res.stdout
        assert "CFO" not in res.stdout, (what, name)  # the finance-only policy never shows


def test_the_messages_name_what_was_edited(wiki: Path) -> None:
    expected = {"claim value": "differs from its signed DBOM",
                "claim status": "its signed DBOM says winner",
                "acl": "ACL edited", "principal groups": "principal 'carol'",
                "directory": "the directory (principals, groups, identities) differs"}
    for what, edit in EDITS.items():
        copy = wiki.parent / f"copy-{what.replace(' ', '-')}"
        shutil.copytree(wiki, copy)
        tamper(copy / ".folio" / "state.db", edit)
        check = StateCheck(copy, wiki_state(copy), trust_from(FolioSettings()))
        check.check_all()
        assert any(expected[what] in p for p in check.problems), (what, check.problems)


def test_a_large_wiki_checks_the_pages_it_serves(wiki: Path, runner: CliRunner,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Above FULL_CHECK_PAGES only the directory and the served pages are checked: an edit on
    a page the answer cites is still refused, one on a page it does not touch is not."""
    import compiler.provenance.state_check as state_check

    monkeypatch.setattr(state_check, "FULL_CHECK_PAGES", 0)
    tamper(wiki / ".folio" / "state.db", edit_acl)
    res = runner.invoke(app, ["query", RETURN_Q, "--wiki", str(wiki)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["show", DISCOUNT, "--wiki", str(wiki), "--as", "carol"])
    assert res.exit_code == 1 and REFUSED in flat(res.stderr)
    tamper(wiki / ".folio" / "state.db", edit_value)
    res = runner.invoke(app, ["query", RETURN_Q, "--wiki", str(wiki)])
    assert res.exit_code == 1 and REFUSED in flat(res.stderr)


# -- the central index ---------------------------------------------------------------------------
def _forge_state(url: str, edit: Callable[[sqlite3.Connection], None], scratch: Path) -> None:
    """Rewrite the published state blob, and the tree and HEAD to agree with it."""
    import hashlib

    store = open_store(url)
    head = Head.model_validate_json(store.get(HEAD_KEY))
    tree = Tree.model_validate_json(store.get(tree_key(head.tree)))
    entry = tree.files[".folio/state.db"]
    db_path = scratch / "state.db"
    db_path.write_bytes(store.get(blob_key(entry.sha256)))
    tamper(db_path, edit)
    data = db_path.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    store.put(blob_key(sha), data)
    files = dict(tree.files)
    files[".folio/state.db"] = entry.model_copy(update={"sha256": sha, "size": len(data)})
    forged = Tree(files=files)
    store.put(tree_key(forged.digest()), forged.to_bytes())
    store.put(HEAD_KEY, head.model_copy(update={"tree": forged.digest()}).to_bytes())


@pytest.mark.parametrize("what", sorted(EDITS))
def test_a_forged_central_state_is_detected_and_refused(
        what: str, wiki: Path, tmp_path: Path, runner: CliRunner,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FOLIO_CACHE_DIR", str(tmp_path / "cache"))
    url = f"file://{tmp_path / 'central'}"
    publish_wiki(wiki, open_store(url))
    res = runner.invoke(app, ["query", RETURN_Q, "--wiki", url, "--attest"])
    assert res.exit_code == 0, res.output
    rid = flat(res.output).split("answer record: ")[1].split()[0]
    assert runner.invoke(app, ["verify", "--wiki", url]).exit_code == 0

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    _forge_state(url, EDITS[what], scratch)
    res = runner.invoke(app, ["verify", "--wiki", url])
    assert res.exit_code == 1, res.output
    assert "state.db" in flat(res.output)
    for name, res in _serving(runner, url, rid).items():
        assert res.exit_code == 1, (what, name, res.output)
        assert REFUSED in flat(res.stderr), (what, name, res.stderr)

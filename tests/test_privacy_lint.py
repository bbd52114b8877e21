"""A record whose privacy cannot be determined is restricted (never public), and lint says so."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from compiler.build import compile_wiki
from pipelines.folio_cli import app
from conftest import NOW, TODAY

SOURCES = """\
tenant: t
sources:
  - path: crm
    system: salesforce
    instance: prod
    default_acl: {groups: [staff]}
    options:
      sharing_model: {Opportunity: Private}
"""
DIRECTORY = """\
users:
  ann: {groups: [staff], identities: {salesforce: 0055g00000Ann01AAB}}
"""


def _row(rid: str, name: str, owner: str | None) -> dict:
    row = {"attributes": {"type": "Opportunity", "url": f"/services/data/v59.0/sobjects/Opportunity/{rid}"},
           "Id": rid, "Name": name, "Amount": 250000.0, "StageName": "Prospecting",
           "SystemModstamp": "2026-11-01T09:00:00.000+0000"}
    if owner:
        row["OwnerId"] = owner
    return row


def test_undetermined_privacy_is_restricted_and_linted(tmp_path: Path) -> None:
    src = tmp_path / "corpus"
    (src / "crm").mkdir(parents=True)
    (src / "sources.yaml").write_text(SOURCES)
    (src / "directory.yaml").write_text(DIRECTORY)
    rows = [_row("0065g00000000001", "Ann Deal", "0055g00000Ann01AAB"),
            _row("0065g00000000002", "Nobody Knows Deal", None)]
    (src / "crm" / "opps.json").write_text(json.dumps({"totalSize": 2, "done": True,
                                                       "records": rows}))
    wiki = tmp_path / "wiki"
    compile_wiki(src, wiki, today=TODAY)
    runner = CliRunner()

    result = runner.invoke(app, ["lint", "--wiki", str(wiki), "--json", "--now", NOW])
    found = [f for f in json.loads(result.stdout)["findings"] if f["code"] == "privacy-undetermined"]
    assert [f["sources"][0].split("@")[0] for f in found] == [
        "t/salesforce/prod/Opportunity/0065g00000000002"]
    assert "salesforce-Opportunity-owner-missing" in found[0]["message"]
    assert "nobody but the operator" in found[0]["message"]

    # the staff default would have let ann read it: she may not, nor may she see the finding
    shown = runner.invoke(app, ["show", "Nobody Knows Deal", "--wiki", str(wiki), "--as", "ann"])
    assert shown.exit_code == 1
    assert runner.invoke(app, ["show", "Ann Deal", "--wiki", str(wiki), "--as", "ann"]).exit_code == 0
    as_ann = runner.invoke(app, ["lint", "--wiki", str(wiki), "--json", "--now", NOW, "--as", "ann"])
    assert "0065g00000000002" not in as_ann.stdout and "Nobody Knows" not in as_ann.stdout

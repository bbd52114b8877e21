"""A second example company for measuring Folio's quality (issue 20 item 5).

``generate(seed, out)`` writes Corvane Medical's exports (Confluence, Jira, Zendesk, Salesforce,
HubSpot, markdown), its sources.yaml, authority.yaml, directory.yaml and schema.yaml, the ground
truth (truth.yaml, layout in :mod:`companygen.truth`) and a question set (questions.yaml,
format in :mod:`companygen.questions`). Deterministic by seed: the same seed writes the same
bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from .corpus import AUTHORITY, AUTHORITY_HEADER, DIRECTORY, schema, sources
from .questions import build_questions
from .world import Builder

DEFAULT_SEED = 7


def _dump(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def generate(seed: int, out: Path) -> dict[str, Any]:
    """Write the corpus into ``out`` (created; existing generated files are replaced).
    Returns a summary: records per system, facts, conflicts."""
    builder = Builder(seed)
    files, truth = builder.build()
    questions = build_questions(builder)
    out.mkdir(parents=True, exist_ok=True)
    written = {
        "sources.yaml": _dump(sources(builder.lex)),
        "authority.yaml": AUTHORITY_HEADER + _dump(AUTHORITY),
        "directory.yaml": _dump(DIRECTORY),
        "schema.yaml": _dump(schema(builder.lex)),
        "truth.yaml": _dump(truth.as_dict()),
        "questions.yaml": _dump(questions),
    }
    for rel, doc in files.items():
        written[rel] = doc if isinstance(doc, str) else json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    for rel, text in sorted(written.items()):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    t = truth.as_dict()
    return {"seed": seed, "out": str(out), "files": len(files),
            "facts": len(t["facts"]),
            "structured": sum(f["kind"] == "structured" for f in t["facts"]),
            "prose": sum(f["kind"] == "prose" for f in t["facts"]),
            "authority_conflicts": len(t["authority_conflicts"]),
            "recency_conflicts": len(t["recency_conflicts"]), "contested": len(t["contested"]),
            "alias_groups": len(t["alias_groups"]), "injections": len(t["injections"]),
            "restricted": len(t["restricted"]), "questions": len(questions)}

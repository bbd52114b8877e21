"""JSON Schemas of the boundary models, written to ``docs/schemas/`` and checked by a test."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from connectors.base import CorpusManifest
from connectors.events import ChangeBody, ChangeEvent

from .export import ExportedClaim
from .models import EXPORTED_MODELS
from .policy import AuthorityPolicy
from .provenance.answers import AnswerStatement
from .provenance.index_root import IndexBucket, IndexStatement
from .provenance.statement import PageStatement
from .schema.model import Schema


def all_schemas() -> dict[str, dict]:
    models: dict[str, type[BaseModel]] = {
        **EXPORTED_MODELS,
        "ExportedClaim": ExportedClaim,
        "AuthorityPolicy": AuthorityPolicy,
        "Schema": Schema,
        "CorpusManifest": CorpusManifest,
        "ChangeEvent": ChangeEvent,
        "ChangeEventBody": ChangeBody,
        "DBOMStatement": PageStatement,
        "DBOMIndexRoot": IndexStatement,
        "DBOMIndexBucket": IndexBucket,
        "DBOMAnswer": AnswerStatement,
    }
    out = {}
    for name, model in sorted(models.items()):
        schema = model.model_json_schema(mode="serialization", by_alias=True)
        schema["$id"] = f"https://folio.dev/schemas/{name}.schema.json"
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        out[name] = schema
    return out


def write_schemas(dest: Path) -> list[Path]:
    from .atomic import write_atomic

    paths = []
    for name, schema in all_schemas().items():
        path = dest / f"{name}.schema.json"
        write_atomic(path, (json.dumps(schema, indent=2, sort_keys=True) + "\n").encode())
        paths.append(path)
    return paths

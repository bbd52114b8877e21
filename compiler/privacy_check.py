"""Lint check: records whose privacy the connector could not determine.

Such a record was given its source's restricted ACL (connectors/privacy.py: never the public
one, by default nobody but the operator) and the marker group ``folio:undetermined:<why>``.
The wiki is safe, but people who should read the record cannot: the operator fixes the export
(select ``OwnerId``, expand restrictions) or declares the rule in ``sources.yaml``.
"""

from __future__ import annotations

import json

from connectors.privacy import UNDETERMINED

from .lint_report import Finding
from .models import ACL
from .state import State


def _reasons(acl: dict) -> list[str]:
    found = [g[len(UNDETERMINED):] for g in acl.get("groups", ()) if g.startswith(UNDETERMINED)]
    for inner in acl.get("all_of", ()):
        found += _reasons(inner)
    return found


def undetermined_privacy(state: State) -> list[Finding]:
    out = []
    for key, record_json, _, _ in state.load_records(state.all_record_keys()):
        record = json.loads(record_json)
        acl = record.get("acl") or {}
        reasons = _reasons(acl)
        if not reasons:
            continue
        readers = ACL.model_validate(acl)
        granted = [g for g in readers.groups if not g.startswith(UNDETERMINED)]
        who = ", ".join([*readers.users, *granted]) or "nobody but the operator"
        label = f"{key}@{record.get('version', '?')}"
        out.append(Finding(
            severity="warning", code="privacy-undetermined", page=None,
            message=f"{label}: who may read it could not be determined "
                    f"({', '.join(sorted(set(reasons)))}); given the source's restricted "
                    f"readers only: {who}",
            sources=[label]))
    return out

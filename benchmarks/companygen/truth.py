"""The ground truth a generated company is scored against (written as ``truth.yaml``).

Layout (also the layout of ``benchmarks/truth/acme.yaml``)::

    corpus: corvane            # a name
    tenant: corvane
    entities:      [{page, type, name, aliases: [...]}]
    facts:         [{id, page, attribute, qualifiers: {q: v}, type, value, written, kind,
                     source, prose_only}]      # kind: structured | prose; value normalised
    authority_conflicts: [{id, page, attribute, qualifiers, type, winner: {value, sources},
                           overruled: [{value, source}], note}]
    recency_conflicts:   [... same, plus timestamps: {source: iso instant}]
    contested:     [{id, page, attribute, qualifiers, type, values: [{value, source}], why}]
    alias_groups:  [{page, type, members: [{name, source}]}]
    injections:    [{id, source, text, page, attribute, qualifiers, type, value}]
    restricted:    [{source, page, acl, denied: [principals], allowed: [principals]}]

``source`` is a record key ``<tenant>/<system>/<instance>/<type>/<id>``; the bench compares
system, instance and id (a record's type string is the connector's business).
Values are in the export's ``normalized`` form (docs/schema.md): money ``1200000 USD``,
duration ``30 days``, percent ``15``, date ``2026-03-01``, enum the canonical label,
reference the target's page name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Truth:
    corpus: str
    tenant: str
    entities: dict[str, dict[str, Any]] = field(default_factory=dict)
    facts: list[dict[str, Any]] = field(default_factory=list)
    authority_conflicts: list[dict[str, Any]] = field(default_factory=list)
    recency_conflicts: list[dict[str, Any]] = field(default_factory=list)
    contested: list[dict[str, Any]] = field(default_factory=list)
    alias_groups: list[dict[str, Any]] = field(default_factory=list)
    injections: list[dict[str, Any]] = field(default_factory=list)
    restricted: list[dict[str, Any]] = field(default_factory=list)

    def entity(self, page: str, etype: str, name: str, *aliases: str) -> str:
        e = self.entities.setdefault(page, {"page": page, "type": etype, "name": name,
                                            "aliases": []})
        for a in (name, *aliases):
            if a != e["name"] and a not in e["aliases"]:
                e["aliases"].append(a)
        return page

    def fact(self, page: str, attribute: str, vtype: str, value: str, written: str, kind: str,
             source: str, qualifiers: dict[str, str] | None = None) -> dict[str, Any]:
        f = {"id": f"f{len(self.facts) + 1:03d}", "page": page, "attribute": attribute,
             "qualifiers": dict(qualifiers or {}), "type": vtype, "value": value,
             "written": written, "kind": kind, "source": source}
        self.facts.append(f)
        return f

    def as_dict(self) -> dict[str, Any]:
        structured = {(f["page"], f["attribute"], tuple(sorted(f["qualifiers"].items())))
                      for f in self.facts if f["kind"] == "structured"}
        facts = [{**f, "prose_only": f["kind"] == "prose" and (
            f["page"], f["attribute"], tuple(sorted(f["qualifiers"].items()))) not in structured}
            for f in self.facts]
        return {"corpus": self.corpus, "tenant": self.tenant,
                "entities": sorted(self.entities.values(), key=lambda e: e["page"]),
                "facts": facts, "authority_conflicts": self.authority_conflicts,
                "recency_conflicts": self.recency_conflicts, "contested": self.contested,
                "alias_groups": self.alias_groups, "injections": self.injections,
                "restricted": self.restricted}

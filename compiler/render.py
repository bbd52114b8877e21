"""Rendering: claims in, pages out. Pure and deterministic, so an incremental build and a clean
rebuild produce the same bytes. Source text is made inert by :mod:`compiler.sanitize` (the one rule, used for every piece
of source text rendered here), so it can never become markup (HTML, links, tables) of its own."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
import json
import re
from json.encoder import encode_basestring as _encode_str  # json.dumps, ensure_ascii=False


from pydantic import BaseModel, ConfigDict

from .models import (ACL, SCHEMA_VERSION, Authority, Claim, ClaimStatus, Conflict, Entity,
                     Mention, SourceRef)
from . import okf
from .resolve import comparison_value
from .sanitize import (inert, inert_code, inert_inline, inert_value, is_page_id, link_target,
                       page_href)

_SUMMARY_CHARS = 160


class _ClaimOwn(Claim):
    """A claim's own fields, as the state stores them; its record's provenance is set after."""

    source: SourceRef | None = None  # type: ignore[assignment]
    authority: Authority | None = None  # type: ignore[assignment]
    observed_at: datetime | None = None
    acl: ACL | None = None  # type: ignore[assignment]


class _Provenance(BaseModel):
    """The fields every claim of one record shares (``compiler.state_claims.CLAIM_PROVENANCE``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    source: SourceRef
    authority: Authority
    observed_at: datetime | None = None
    acl: ACL


# a claim's stored JSON is its own fields, then its record's provenance (compiler/state_claims.py
# splices them): no string inside either can hold this, its quotes would be escaped
_PROVENANCE_AT = ',"source":{"key":'
_provenance: dict[str, dict] = {}


def stored_claims(jsons: Iterable[str]) -> list[Claim]:
    """Claims from the JSON the state stores (``Claim.model_dump_json()``), each record's
    provenance (source, authority, time, ACL: two thirds of the bytes) validated once instead
    of once per claim. Equal field by field to ``Claim.model_validate_json``; the render only
    reads the claims' fields (never serialises them: the sidecar keeps the stored JSON)."""
    out: list[Claim] = []
    cache = _provenance
    if len(cache) > 20_000:
        cache.clear()
    for js in jsons:
        at = js.rfind(_PROVENANCE_AT)
        if at < 0:
            out.append(Claim.model_validate_json(js))
            continue
        shared = js[at + 1:]
        prov = cache.get(shared)
        if prov is None:
            prov = cache[shared] = dict(_Provenance.model_validate_json("{" + shared).__dict__)
        claim = _ClaimOwn.model_validate_json(js[:at] + "}")
        claim.__dict__.update(prov)
        out.append(claim)
    return out


def escape(text: str) -> str:
    """Source text as inert markdown (one line): see :mod:`compiler.sanitize`, the one rule."""
    return inert(text)


def _inline(text: str) -> str:
    """Like :func:`escape` but keeps edge spaces, so linked fragments join up."""
    return inert_inline(text)


def wikilink(target: str, shown: str, table: bool = False) -> str:
    """Obsidian link to a page id; inside a table the alias bar must be escaped. A target
    that is not a page id renders as inert text."""
    if not is_page_id(target):
        return escape(shown or target)
    bar = "\\|" if table else "|"
    return f"[[{target}{bar}{escape(shown)}]]" if shown else f"[[{target}]]"


def linked_value(value: str, mentions: Sequence[Mention], table: bool = False) -> str:
    """The value with each mentioned entity turned into a wikilink (shown as written)."""
    if not mentions:  # most values link nothing
        return _inline(value).strip()
    out, pos = [], 0
    for m in sorted(mentions, key=lambda m: m.start):
        if m.start < pos:
            continue
        out.append(_inline(value[pos:m.start]))
        out.append(wikilink(m.entity, value[m.start:m.end], table))
        pos = m.end
    out.append(_inline(value[pos:]))
    return "".join(out).strip()


def reference_target(c: Claim) -> str | None:
    """The page a reference claim resolved to (its typed value, linked by its mention), or
    None: a value that names no page the reader may see (compiler/views.py drops both)."""
    if c.kind != "reference" or c.normalized is None:
        return None
    return c.normalized if any(m.entity == c.normalized for m in c.mentions) else None


def shown_value(c: Claim, titles: Mapping[str, str] | None) -> str:
    """A claim's value as a reader sees it: a reference shows its target page's title (the
    source often names the target only by id, "HubSpot company 9284710021"), when the reader
    knows that page (``titles``: page id → title as the reader may see it); else as written."""
    target = reference_target(c) if titles else None
    return titles[target] if target is not None and target in titles else c.value  # type: ignore[index]


def _linked_claim(c: Claim, titles: Mapping[str, str] | None, table: bool) -> str:
    target = reference_target(c) if titles else None
    if target is not None and target in titles:  # type: ignore[operator]
        return wikilink(target, titles[target], table)  # type: ignore[index]
    return linked_value(c.value, c.mentions, table)


def _lead(entity: Entity, claims: Iterable[Claim]) -> Claim | None:
    """The sentence a page's summary is: the first from the best-ranked of the records that
    declare the page, so that a fact another document states about it (filed here) never
    speaks for the page."""
    own = set(entity.declared_by)
    return min((c for c in claims if c.kind in ("statement", "fact") and c.span is not None),
               key=lambda c: (c.source.key not in own, -c.authority.rank, c.source.key,
                              c.span or (0, 0)), default=None)


def summarize(entity: Entity, claims: Sequence[Claim]) -> str:
    """One line for index.md: the first sentence from the best-ranked source, else facts."""
    lead = _lead(entity, claims)
    if lead is not None:
        text = " ".join(lead.quote.split())
    else:
        facts = sorted({f"{c.attribute}: {c.value}" for c in claims
                        if c.kind == "field" and c.attribute != "name"})
        text = "; ".join(facts[:3]) if facts else f"{entity.type} {entity.name}"
    return text if len(text) <= _SUMMARY_CHARS else text[: _SUMMARY_CHARS - 1].rstrip() + "…"


def _sources(claims: Iterable[Claim]) -> list[SourceRef]:
    by_key: dict[str, SourceRef] = {}
    for c in claims:
        by_key[c.source.key] = c.source
    return [by_key[k] for k in sorted(by_key)]


def _frontmatter(entity: Entity, claims: Sequence[Claim], sources: Sequence[SourceRef],
                 conflicts: Sequence[Conflict], status: Mapping[str, ClaimStatus],
                 summary: str, sid: Mapping[str, str], urls: Mapping[str, str | None]) -> str:
    """OKF v0.2 front matter (compiler/okf.py: type, title, description, sources, generated)
    followed by Folio's own fields; ``generated.at`` is ``updated``, a source time, not the
    clock."""
    best = max(claims, key=lambda c: (c.authority.rank, c.source.key))
    # `updated`: when the newest source the page shows as current changed; an overruled
    # source (an old ticket quoting a superseded value) does not make the page newer
    dated = [c for c in claims if c.observed_at is not None]
    standing = [c for c in dated if status.get(c.id) != "overruled"] or dated
    updated = max((c.observed_at for c in standing), default=None)
    data = {
        "type": entity.type,
        "title": entity.name,
        # inert Markdown, exactly as index.md shows it: OKF index generators copy it there
        "description": escape(summary),
        "aliases": list(entity.aliases),
        "sources": okf.source_entries(sources, sid, urls),
        "generated": okf.generated(updated),
        "claims": len(claims),
        "authority": {"rule": best.authority.rule, "rank": best.authority.rank},
        "updated": updated.isoformat() if updated is not None else None,
        "conflicts": {
            "resolved": sum(1 for c in conflicts if c.state == "resolved"),
            "open": sum(1 for c in conflicts if c.state == "open"),
        },
        "folio": {"schema": SCHEMA_VERSION},
    }
    return "---\n" + _yaml_block(data, 0) + "---\n"


# characters a YAML reader refuses (DEL, C1 controls, lone surrogates, non-characters) or reads
# as a line break inside quotes (NEL, U+2028/2029); JSON leaves them raw, so they are written as
# \u escapes, which YAML's double-quoted scalars read back as the same character
_YAML_UNREADABLE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


def _scalar(v: object) -> str:
    # JSON scalars are valid YAML flow scalars, and json is ~50x faster than a YAML emitter;
    # strings, most of them, go straight to the encoder json.dumps would call
    # every string of the front matter may hold source text: inert_value (compiler/sanitize.py)
    out = _encode_str(inert_value(v)) if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    # the usual plain-ASCII value skips the scan (DEL is the one ASCII character it looks for)
    if not (out.isascii() and "\x7f" not in out) and _YAML_UNREADABLE.search(out):
        out = _YAML_UNREADABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", out)
    return out


def frontmatter_fields(data: Mapping[str, object]) -> str:
    """Front matter lines for ``data`` by the emitter pages use (for other page renderers,
    such as the filed answers of compiler/answer_pages.py)."""
    return _yaml_block(data, 0)


def _yaml_block(data: Mapping[str, object], indent: int) -> str:
    pad = " " * indent
    out = []
    for key, value in data.items():
        if isinstance(value, Mapping):
            out.append(f"{pad}{key}:\n{_yaml_block(value, indent + 2)}")
        elif isinstance(value, list):
            # a mapping item (an OKF source entry, scalars only) is its lines, the first one
            # led by a dash; written inline, as pages carry one per source
            items = "".join(
                "".join(f"{pad}{'  ' if i else '- '}{k}: {_scalar(x)}\n"
                        for i, (k, x) in enumerate(v.items()))
                if isinstance(v, Mapping) else f"{pad}- {_scalar(v)}\n"
                for v in value)
            out.append(f"{pad}{key}:\n{items}" if value else f"{pad}{key}: []\n")
        else:
            out.append(f"{pad}{key}: {_scalar(value)}\n")
    return "".join(out)


def render_page(
    entity: Entity,
    claims: Sequence[Claim],
    status: Mapping[str, ClaimStatus],
    conflicts: Sequence[Conflict],
    backlinks: Sequence[tuple[str, str]],
    synthesis: Sequence[tuple[str, Sequence[str]]] | None = None,
    titles: Mapping[str, str] | None = None,
) -> tuple[str, str, list[Claim], list[SourceRef]]:
    """Markdown, one-line summary, the claims in page order and the sources cited.
    ``synthesis``: optional LLM overview sentences with the ids of the claims each cites.
    ``titles``: the titles of the pages its references point to, as the reader may see them
    (:func:`shown_value`); a reference to a page not among them shows its value as written."""
    claims = sorted(claims, key=lambda c: (c.attribute, c.source.key, c.span or (-1, -1), c.id))
    sources = _sources(claims)
    # claims cite their sources by OKF footnotes keyed by a stable id (compiler/okf.py)
    ids = okf.source_ids(sources)
    sid = _Citing({k: okf.footnote(v) for k, v in ids.items()})
    urls = {s.key: link_target(s.url) for s in sources}
    summary = summarize(entity, claims)
    by_id = {c.id: c for c in claims}
    # the summary is said once: a summary that is a statement leads the page, cited, in place
    # of its line under Statements
    lead = _lead(entity, claims)
    lead = lead if lead is not None and lead.kind == "statement" else None
    quote = (f"{linked_value(lead.value, lead.mentions)} {sid[lead.source.key]}"
             if lead is not None else escape(summary))
    lines = [_frontmatter(entity, claims, sources, conflicts, status, summary, ids, urls),
             f"# {escape(entity.name)}", "", f"> {quote}", ""]
    if synthesis:
        lines += ["## Overview", "", _overview(synthesis, by_id, sid), ""]

    # an attribute with qualifiers is its own row: "refund window (Enterprise)"
    open_attrs = {c.label for c in conflicts if c.state == "open"}
    facts: dict[str, list[Claim]] = defaultdict(list)
    for c in claims:
        if c.kind != "statement":
            facts[c.label].append(c)
    if facts:
        lines += ["## Facts", "", "| Attribute | Value | Sources | Authority |", "|---|---|---|---|"]
        for attribute in sorted(facts):
            group = facts[attribute]
            if attribute in open_attrs:
                contested = [c for c in group if status.get(c.id) == "contested"]
                shown = " / ".join(sorted({escape(shown_value(c, titles)) for c in contested}))
                refs = ", ".join(sorted({sid[c.source.key] for c in contested}))
                lines.append(f"| {escape(attribute)} | ⚠ contested: {shown} | {refs} | "
                             f"rank {contested[0].authority.rank} (tie) |")
                continue
            rows: dict[str, list[Claim]] = defaultdict(list)
            for c in group:
                if status.get(c.id) == "winner":
                    rows[comparison_value(c)].append(c)
            # links of one source and authority (every "links to" of a page) fold into one row
            cells: dict[tuple, list[str]] = defaultdict(list)
            for _, winners in sorted(rows.items()):
                first = max(winners, key=lambda c: (c.authority.rank, c.source.key))
                refs = ", ".join(sorted({sid[c.source.key] for c in winners}))
                authority = f"{escape(first.authority.rule)} ({first.authority.rank})"
                fold = first.kind == "reference" and all(c.kind == "reference" for c in winners)
                key = (refs, authority) if fold else (refs, authority, len(cells))
                cells[key].append(_linked_claim(first, titles, table=True))
            for (refs, authority, *_), values in cells.items():
                lines.append(f"| {escape(attribute)} | {', '.join(values)} | {refs} | "
                             f"{authority} |")
        lines.append("")

    statements = [c for c in claims if c.kind == "statement" and c is not lead]
    if statements:
        lines += ["## Statements", ""]
        ordered = sorted(statements, key=lambda c: (c.source.key, c.span or (-1, -1), c.id))
        i = 0
        while i < len(ordered):
            c = ordered[i]
            text = linked_value(c.value, c.mentions)
            # a lead-in ("Comment by Ann on 2024-04-01:") says nothing alone: it stays with the
            # next statement of its source, the text it introduces
            if (c.value.endswith(":") and i + 1 < len(ordered)
                    and ordered[i + 1].source.key == c.source.key):
                i += 1
                text += " " + linked_value(ordered[i].value, ordered[i].mentions)
            lines.append(f"- {text} {sid[c.source.key]}")
            i += 1
        lines.append("")

    if conflicts:
        lines += ["## Conflicts", ""]
        for conflict in conflicts:
            if conflict.state == "open":
                lines.append(f"### {escape(conflict.label)} — open contradiction")
                lines.append("")
                lines.append("Equal authority, different values; not settled until a source or the "
                             "authority policy changes.")
                lines.append("")
                for cid in conflict.contested:
                    c = by_id[cid]
                    lines.append(f"- {escape(c.value)} — {sid[c.source.key]} {inert_code(c.source.label)} "
                                 f"({escape(c.authority.rule)}, rank {c.authority.rank})")
            else:
                lines.append(f"### {escape(conflict.label)} — resolved: "
                             f"{escape(conflict.value or '')}")
                lines.append("")
                for cid in conflict.winners:
                    c = by_id[cid]
                    lines.append(f"- **{escape(c.value)}** — winner — {sid[c.source.key]} "
                                 f"{inert_code(c.source.label)} ({escape(c.authority.rule)}, rank "
                                 f"{c.authority.rank})")
            for o in conflict.overruled:
                c = by_id[o.claim_id]
                lines.append(f"- ~~{escape(o.value)}~~ — overruled — {sid[c.source.key]} "
                             f"{inert_code(o.source)} ({escape(o.rule)}, rank {o.rank}): {escape(o.reason)}")
            lines.append("")

    if backlinks:
        lines += ["## Referenced by", ""]
        lines += [f"- {wikilink(eid, name)}" for eid, name in backlinks]
        lines.append("")

    lines += ["## Sources", "", "| Id | Record | Version | SHA-256 | Title |", "|---|---|---|---|---|"]
    for s in sources:
        url = urls[s.key]
        title = f"[{escape(s.title)}]({url})" if url else escape(s.title)
        lines.append(f"| `{ids[s.key]}` | {inert_code(s.key)} | {escape(s.version)} | "
                     f"`{s.sha256[:16]}` | {title} |")
    lines.append("")
    # a definition for each source the page cites (OKF: every footnote defined and used)
    cited = [s for s in sources if s.key in sid.cited]
    if cited:
        lines += [okf.footnote_definition(ids[s.key], s, urls[s.key]) for s in cited] + [""]
    markdown = "\n".join(lines)
    return markdown, summary, claims, sources


class _Citing(dict[str, str]):
    """Source key → its footnote; remembers the keys the page cited, so that exactly those
    get a footnote definition (OKF: every footnote defined, every definition used)."""

    def __init__(self, refs: Mapping[str, str]) -> None:
        super().__init__(refs)
        self.cited: set[str] = set()

    def __getitem__(self, key: str) -> str:
        self.cited.add(key)
        return super().__getitem__(key)


def _overview(synthesis: Sequence[tuple[str, Sequence[str]]], by_id: Mapping[str, Claim],
              sid: Mapping[str, str]) -> str:
    """Model-written sentences as inert text, each followed by the sources of the claims it
    cites (the claim ids themselves are in the sidecar)."""
    parts = []
    for text, ids in synthesis:
        refs = sorted({sid[by_id[i].source.key] for i in ids if i in by_id})
        parts.append(f"{escape(text)}{''.join(refs)}" if refs else escape(text))
    return " ".join(parts)


def sidecar_bytes(
    name: str,
    entity_json: str,
    summary: str,
    page_sha256: str,
    claim_jsons: Sequence[tuple[str, ClaimStatus]],
    conflict_jsons: Sequence[str],
    sources: Sequence[SourceRef],
    backlinks: Sequence[str],
    synthesis: Sequence[tuple[str, Sequence[str]]] | None = None,
) -> bytes:
    """The page's machine-readable sidecar, assembled from JSON already serialised for the
    state store: a claim's entry is its stored JSON plus its ``status``."""
    claims = ",".join(f'{js[:-1]},"status":"{status}"}}' for js, status in claim_jsons)
    overview = ""
    if synthesis:
        sentences = [{"text": text, "claims": list(ids)} for text, ids in synthesis]
        overview = ',"overview":' + json.dumps(sentences, ensure_ascii=False)
    return (
        f'{{"schema":"folio.page/{SCHEMA_VERSION}","name":{json.dumps(name)},'
        f'"entity":{entity_json},"summary":{json.dumps(summary, ensure_ascii=False)},'
        f'"page_sha256":"{page_sha256}","claims":[{claims}],'
        f'"conflicts":[{",".join(conflict_jsons)}],'
        f'"sources":[{",".join(s.model_dump_json() for s in sources)}],'
        f'"backlinks":{json.dumps(list(backlinks))}{overview}}}\n'
    ).encode("utf-8")


def index_entry(entity_id: str, title: str, summary: str) -> tuple[str, str]:
    """A page's sort key within its type and its line in ``index.md``."""
    href = page_href(entity_id)
    shown = f"[{escape(title)}]({href})" if href else escape(title)
    return title.lower(), f"* {shown} - {escape(summary)}"


def render_index(pages: Iterable[tuple[str, str, str, str]]) -> str:
    """``index.md``: catalogue by type. ``pages`` are (type, id, title, summary)."""
    entries = []
    for etype, eid, title, summary in pages:
        key, line = index_entry(eid, title, summary)
        entries.append((etype, key, eid, line))
    return assemble_index((etype, line) for etype, _, _, line in sorted(entries))


def assemble_index(lines_by_type: Iterable[tuple[str, str]]) -> str:
    """``index.md`` from its page lines, given as (type, line) in order of type, then sort key
    and page id (:func:`index_entry`)."""
    by_type: dict[str, list[str]] = defaultdict(list)
    for etype, line in lines_by_type:
        by_type[etype].append(line)
    # OKF §8: only the bundle root's okf_version as front matter, then headed sections of
    # "* [Title](page.md) - description" entries (Obsidian follows such links too)
    lines = [okf.index_frontmatter() + "# Index", ""]
    for etype, entries in by_type.items():
        lines += [f"## {etype} ({len(entries)})", ""] + entries + [""]
    return "\n".join(lines)


def patch_index(data: bytes, edits: Iterable[tuple[str, str]]) -> bytes | None:
    """``index.md`` with each (old line, new line) replaced, or None when a line is not found
    exactly once. Only valid for pages whose type and title (hence place) did not change and
    when no page came or went: then the result equals :func:`assemble_index` of the new lines,
    and a one-page edit does not re-assemble a 100k-line file."""
    for old, new in edits:
        o, n = f"\n{old}\n".encode("utf-8"), f"\n{new}\n".encode("utf-8")
        if data.count(o) != 1:
            return None
        data = data.replace(o, n)
    return data


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 page``, ``2 pages``, ``0 pages``."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def log_title(*, first: bool, extracted: int, records_removed: int, created: int,
              updated: int, pages_removed: int) -> str:
    """A compile's line in ``log.md``: ``34 records extracted; 30 pages created`` on the first,
    ``1 record re-extracted; 1 page updated`` after."""
    records = [f"{plural(extracted, 'record')} {'extracted' if first else 're-extracted'}"
               ] if extracted else []
    if records_removed:
        records.append(f"{plural(records_removed, 'record')} removed")
    counts = [(n, what) for n, what in ((created, "created"), (updated, "updated"),
                                        (pages_removed, "removed")) if n]
    pages = [f"{plural(n, 'page') if i == 0 else n} {what}" for i, (n, what) in enumerate(counts)]
    parts = [", ".join(records) or "no record changed", ", ".join(pages) or "no page changed"]
    return "; ".join(parts)


def render_log(entries: Iterable[tuple[str, str, str, str]]) -> str:
    """``log.md`` from the stored history: (day, op, title, body), oldest first; written in
    OKF's form (compiler/okf.py), newest day first."""
    return "\n".join(["# Log", ""] + okf.log_lines(entries))

"""The wiki as an Open Knowledge Format (OKF) v0.2 bundle: the mapping from Folio's pages to
OKF's front matter, footnotes and reserved files, and a checker of a bundle against the rules
of the spec (GoogleCloudPlatform/knowledge-catalog, ``okf/SPEC.md``; see docs/okf.md).

Producer side (used by :mod:`compiler.render`): a page's ``sources`` are OKF entries keyed by a
stable ``id`` made from the record key (never a position: pages are rewritten whenever a source
comes or goes), ``generated.at`` is the newest source time, so that a page's bytes depend on its
claims only and an incremental build still equals a clean rebuild.

Checker side (:func:`check_bundle`, :func:`check_page`): pure functions over text that return
the problems found, each naming the file; used by the tests and by anyone validating a wiki.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import date, datetime
import hashlib
from pathlib import Path
import re

import yaml

from . import __version__
from .models import SourceRef
from .sanitize import footnote_label, inert, inert_code

OKF_VERSION = "0.2"
PRODUCER = f"folio/{__version__}"
RESERVED = ("index.md", "log.md")


# -- producer ---------------------------------------------------------------------------------

def source_ids(sources: Sequence[SourceRef]) -> dict[str, str]:
    """Record key → the OKF source id (the footnote label) of each source of one page. Two keys
    that fold to the same label (``a.b``, ``a-b``) are told apart by a hash of the key."""
    labels = {s.key: footnote_label(s.key) for s in sources}
    seen: dict[str, int] = {}
    for label in labels.values():
        seen[label] = seen.get(label, 0) + 1
    return {key: label if seen[label] == 1 else f"{label[:40].rstrip('-')}-{_short_hash(key)}"
            for key, label in labels.items()}


def _short_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def source_entries(sources: Sequence[SourceRef], ids: Mapping[str, str],
                   urls: Mapping[str, str | None]) -> list[dict[str, str]]:
    """The OKF ``sources`` of a page: ``resource`` is the record's URL when it may be a link
    (``urls``: :func:`compiler.sanitize.link_target` of it), else the record key (a descriptor OKF allows);
    ``version`` is Folio's own (the record version the claims were read from)."""
    out = []
    for s in sources:
        entry = {"id": ids[s.key], "resource": urls[s.key] or s.key,
                 "title": s.title or s.key}
        if s.updated_at is not None:
            entry["last_modified"] = s.updated_at.date().isoformat()
        entry["version"] = s.version
        out.append(entry)
    return out


def generated(at: datetime | None) -> dict[str, str]:
    """``generated``: Folio as the actor; ``at`` the newest source time (deterministic)."""
    return {"by": PRODUCER, "at": at.isoformat()} if at is not None else {"by": PRODUCER}


def footnote(label: str) -> str:
    return f"[^{label}]"


def footnote_definition(label: str, s: SourceRef, url: str | None) -> str:
    """One footnote definition: ``Source `key` @ version — title.``. The fixed word and the code
    span after it mean a plain CommonMark reader (no footnote extension) never takes the line
    for a link reference definition (a destination, then a code span, is no valid title), so
    ``[^label]`` stays text there instead of linking to whatever the source wrote."""
    title = f"[{inert(s.title)}]({url})" if url and s.title else inert(s.title or "")
    line = f"{footnote(label)}: Source {inert_code(s.key)} @ {inert(s.version)}"
    # the closing full stop: a line whose last character is no quote or parenthesis can hold
    # no link title either, whatever a record key starts with
    return f"{line} — {title}." if title else f"{line}."


def reference_frontmatter(title: str, description: str) -> str:
    """Front matter of a page Folio writes from its configuration (``SCHEMA.md``): an OKF
    ``Reference`` concept; no ``generated.at`` (no source time, and the clock is not a fact)."""
    return (f'---\ntype: "Reference"\ntitle: "{title}"\ndescription: "{description}"\n'
            f'generated:\n  by: "{PRODUCER}"\n---\n\n')


def index_frontmatter() -> str:
    """The one front matter OKF permits in an ``index.md``: the bundle root's version."""
    return f'---\nokf_version: "{OKF_VERSION}"\n---\n\n'


def log_lines(entries: Iterable[tuple[str, str, str, str]]) -> list[str]:
    """``log.md`` body per OKF §9: date headings (``## YYYY-MM-DD``), newest first; each entry
    a list item led by its bold operation, its details nested under it. ``entries`` are
    (day, op, title, body) oldest first, as stored."""
    by_day: dict[str, list[tuple[str, str, str]]] = {}
    for day, op, title, body in entries:
        by_day.setdefault(day, []).append((op, title, body))
    lines = []
    for day in sorted(by_day, reverse=True):
        lines += [f"## {inert(day)}", ""]
        for op, title, body in reversed(by_day[day]):
            lines.append(f"* **{inert(op.capitalize())}**: {inert(title)}")
            lines += [f"  {ln}" for ln in body.splitlines() if ln.strip()]
        lines.append("")
    return lines


# -- checker ----------------------------------------------------------------------------------

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_ACTOR = re.compile(r"(human|process):\S+|[^\s/:]+/\S+")
_FOOTNOTE_REF = re.compile(r"(?<!\\)\[\^([^\]\s]+)\](?!:)")
_FOOTNOTE_DEF = re.compile(r"^\[\^([^\]\s]+)\]:", re.M)
_CODE_SPAN = re.compile(r"(?<!\\)`[^`\n]*`")
_INDEX_ENTRY = re.compile(r"[*-] \[[^\]\n]*(?:\\\][^\]\n]*)*\]\([^)\s]+\)(?: - .*)?")
_HEADING = re.compile(r"#{1,6} \S.*")


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """(front matter text or None, body)."""
    if not text.startswith("---\n"):
        return None, text
    end = text.find("\n---\n", 3)
    if end < 0:
        return None, text
    return text[4:end + 1], text[end + 5:]


def _is_datetime(v: object) -> bool:
    if isinstance(v, datetime):
        return True
    if not isinstance(v, str):
        return False
    try:
        datetime.fromisoformat(v.replace("Z", "+00:00"))
    except ValueError:
        return False
    return "T" in v or " " in v


def _is_date(v: object) -> bool:
    if isinstance(v, date) and not isinstance(v, datetime):
        return True
    if not isinstance(v, str) or not _ISO_DATE.fullmatch(v):
        return False
    try:
        date.fromisoformat(v)
    except ValueError:
        return False
    return True


def _nonempty_str(v: object) -> bool:
    return isinstance(v, str) and bool(v.strip())


def check_page(text: str, where: str) -> list[str]:
    """Problems of one concept document: OKF §4 and §5 (``type`` required and the types of the
    families when present, ``sources[].resource`` required, the actor convention, footnote
    labels that are ``sources`` ids) and Folio's profile of it (``title``, a one-line
    ``description``, an ``id`` on every source, ``generated``, every footnote defined and used)."""
    raw, body = split_frontmatter(text)
    if raw is None:
        return [f"{where}: no YAML front matter delimited by '---' lines (OKF §4)"]
    try:
        meta = yaml.safe_load(raw)
    except yaml.YAMLError as e:
        return [f"{where}: front matter is not parseable YAML: {e}"]
    if not isinstance(meta, dict):
        return [f"{where}: front matter is not a mapping"]
    problems = []

    def bad(field: str, why: str) -> None:
        problems.append(f"{where}: {field}: {why}")

    if not _nonempty_str(meta.get("type")):
        bad("type", "required, a non-empty string (OKF §4.1)")
    for key in ("title", "description"):
        if key not in meta:
            bad(key, "missing (recommended by OKF §4.1, always written by Folio)")
        elif not _nonempty_str(meta[key]):
            bad(key, "must be a non-empty string")
    if isinstance(meta.get("description"), str) and "\n" in meta["description"].strip():
        bad("description", "must be one line (OKF §4.1: a single sentence)")
    if "resource" in meta and not _nonempty_str(meta["resource"]):
        bad("resource", "must be a URI string")
    tags = meta.get("tags")
    if tags is not None and not (isinstance(tags, list) and all(isinstance(t, str) for t in tags)):
        bad("tags", "must be a list of strings")

    ids: set[str] = set()
    sources = meta.get("sources")
    if sources is not None and not isinstance(sources, list):
        bad("sources", "must be a list of entries (OKF §5.1)")
        sources = []
    for i, entry in enumerate(sources or []):
        f = f"sources[{i}]"
        if not isinstance(entry, dict):
            bad(f, "must be a mapping (OKF §5.1)")
            continue
        if not _nonempty_str(entry.get("resource")):
            bad(f"{f}.resource", "required within an entry (OKF §5.1)")
        sid = entry.get("id")
        if sid is None:
            bad(f"{f}.id", "missing: Folio cites every source by its id")
        elif not isinstance(sid, str) or not re.fullmatch(r"[^\s\[\]^]+", sid):
            bad(f"{f}.id", f"{sid!r} cannot be a footnote label")
        elif sid in ids:
            bad(f"{f}.id", f"{sid!r} is not unique in the page")
        else:
            ids.add(sid)
        for key in ("title", "author"):
            if key in entry and not isinstance(entry[key], str):
                bad(f"{f}.{key}", "must be a string")
        if "usage_count" in entry and (not isinstance(entry["usage_count"], int)
                                       or isinstance(entry["usage_count"], bool)):
            bad(f"{f}.usage_count", "must be an integer")
        if "last_modified" in entry and not _is_date(entry["last_modified"]):
            bad(f"{f}.last_modified", f"{entry['last_modified']!r} is not YYYY-MM-DD (OKF §5.1)")

    gen = meta.get("generated")
    if gen is None:
        bad("generated", "missing: Folio records itself as the producer (OKF §5.2)")
    elif not isinstance(gen, dict):
        bad("generated", "must be a mapping {by, at} (OKF §5.2)")
    else:
        if not (isinstance(gen.get("by"), str) and _ACTOR.fullmatch(gen["by"])):
            bad("generated.by", f"{gen.get('by')!r}: required, an actor (OKF §7)")
        if "at" in gen and not _is_datetime(gen["at"]):
            bad("generated.at", f"{gen['at']!r} is not an ISO 8601 datetime (OKF §5.2)")
    verified = meta.get("verified")
    for j, v in enumerate([verified] if isinstance(verified, dict) else verified or []):
        if not (isinstance(v, dict) and isinstance(v.get("by"), str) and _ACTOR.fullmatch(v["by"])
                and _is_datetime(v.get("at"))):
            bad(f"verified[{j}]", "must be {by: <actor>, at: <ISO 8601 datetime>} (OKF §5.2)")
    if "status" in meta and meta["status"] not in ("draft", "stable", "deprecated"):
        bad("status", f"{meta['status']!r}: one of draft, stable, deprecated (OKF §5.4)")
    if "stale_after" in meta and not _is_date(meta["stale_after"]):
        bad("stale_after", "must be YYYY-MM-DD (OKF §5.5)")

    prose = _CODE_SPAN.sub("", body)
    defined = _FOOTNOTE_DEF.findall(prose)
    cited = _FOOTNOTE_REF.findall(_FOOTNOTE_DEF.sub("", prose))
    for label in sorted(set(cited) - ids):
        bad(f"[^{label}]", "footnote label is not a sources id (OKF §5.1)")
    for label in sorted(set(cited) - set(defined)):
        bad(f"[^{label}]", "footnote cited but never defined")
    for label in sorted(set(defined) - set(cited)):
        bad(f"[^{label}]:", "footnote defined but never cited")
    for label in sorted(set(defined) - ids):
        bad(f"[^{label}]:", "footnote definition is not a sources id (OKF §5.1)")
    if len(defined) != len(set(defined)):
        bad("footnotes", "a label is defined twice")
    return problems


def check_index(text: str, where: str, root: bool) -> list[str]:
    """OKF §8: no front matter except ``okf_version`` at the bundle root; sections of headings
    and list entries ``[Title](target) - description``."""
    raw, body = split_frontmatter(text)
    problems = []
    if raw is not None:
        meta = yaml.safe_load(raw)
        if not root:
            problems.append(f"{where}: front matter in an index.md below the root (OKF §8)")
        elif not (isinstance(meta, dict) and set(meta) == {"okf_version"}
                  and isinstance(meta["okf_version"], str)):
            problems.append(f"{where}: root index.md front matter may hold only okf_version "
                            "as a string (OKF §8, §12)")
    headings = 0
    for n, line in enumerate(body.splitlines(), 1):
        if not line.strip():
            continue
        if _HEADING.fullmatch(line):
            headings += 1
        elif not _INDEX_ENTRY.fullmatch(line):
            problems.append(f"{where}: body line {n} is neither a heading nor an entry "
                            f"'* [Title](target) - description' (OKF §8): {line[:80]!r}")
        elif not headings:
            problems.append(f"{where}: body line {n}: an entry before any section heading")
    return problems


def check_log(text: str, where: str) -> list[str]:
    """OKF §9: a title, then ``## YYYY-MM-DD`` date groups, newest first, of list entries."""
    problems = []
    days: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if line.startswith("## "):
            day = line[3:].strip()
            if not _is_date(day):
                problems.append(f"{where}: line {n}: date heading {day!r} is not YYYY-MM-DD "
                                "(OKF §9)")
            days.append(day)
        elif line.startswith("# ") and n == 1:
            continue
        elif not days:
            problems.append(f"{where}: line {n}: an entry before any date heading (OKF §9)")
        elif not (line.startswith(("* ", "- ")) or line.startswith("  ")):
            problems.append(f"{where}: line {n}: not a list entry (OKF §9): {line[:80]!r}")
    if days != sorted(days, reverse=True) or len(days) != len(set(days)):
        problems.append(f"{where}: date groups are not unique and newest first (OKF §9)")
    return problems


def bundle_files(root: Path) -> Iterator[Path]:
    """Every ``.md`` of the bundle, outside dot-folders (Folio's ``.folio/`` state)."""
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root)
        if not any(part.startswith(".") for part in rel.parts):
            yield path


def check_bundle(root: Path) -> list[str]:
    """Every problem of the bundle at ``root`` against OKF v0.2 (§11) and Folio's profile."""
    problems = []
    for path in bundle_files(root):
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        if path.name == "index.md":
            problems += check_index(text, rel, root=rel == "index.md")
        elif path.name == "log.md":
            problems += check_log(text, rel)
        else:
            problems += check_page(text, rel)
    return problems

"""Narrower attributes a compound modifier names: "the *on-site* response time for Gold
customers" is not the schema's ``response time`` (a help desk's first reply) but a fact of its
own, measured the same way. A declared attribute's name led by a hyphenated modifier of two
words (``on-site``, ``after-hours``, ``in-store``) in a sentence some record states is induced
as an attribute of its own, of the same type, unit and qualifiers, so that sources saying
"on-site response time" are compared with each other, under that name, and never with a
plain "response time" of the same page.

Pure: a function of the records' mapped prose facts (their attribute and quote)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .keys import type_key

if TYPE_CHECKING:
    from .index import Vocabulary
    from .induction import Induction, RecordFields

NARROW_MARK = "induced: a declared attribute narrowed by a compound modifier"


def narrowed_names(text: str, attribute: str) -> list[str]:
    """"on-site response time" for ``response time`` in "the on-site response time for …"."""
    pat = re.compile(rf"(?<![\w-])([a-z]{{2,}}-[a-z]{{2,}})\s+{re.escape(attribute.lower())}\b")
    return sorted({f"{m.group(1)} {attribute.lower()}" for m in pat.finditer(text.lower())})


_HEADING = re.compile(r"^\s*#{1,6}\s+(?P<h>.+?)\s*#*\s*$")


def heading_above(body: str, start: int) -> str | None:
    """The last Markdown heading of ``body`` before offset ``start``."""
    heading = None
    for line in body[:start].splitlines():
        if (h := _HEADING.match(line)) is not None:
            heading = h["h"]
    return heading


def narrowed_rows(claims: Iterable[dict[str, Any]], body: str = "") -> list[list[str]]:
    """(narrowed name, attribute) of an extraction's mapped facts, for induction's rows: from
    the fact's own sentence, or, for a list item that does not say its attribute ("- Gold:
    8 hours"), from the heading above it ("On-site response time")."""
    out: set[tuple[str, str]] = set()
    for c in claims:
        if c.get("kind") != "fact" or not c.get("mapped") or not c.get("attribute"):
            continue
        attribute, quote = str(c["attribute"]), str(c.get("quote") or "")
        texts = [quote]
        span = c.get("span")
        if body and span and attribute.lower() not in quote.lower():
            heading = heading_above(body, int(span[0]))
            if heading:
                texts.append(heading)
        out |= {(n, attribute) for t in texts for n in narrowed_names(t, attribute)}
    return sorted(out)


def compound_words(name: str) -> list[str]:
    """The compound modifiers of a narrowed name as words ("on site" of "on-site response
    time"): prose says the same thing unhyphenated ("an engineer on site within 36 hours")."""
    return [m.group().replace("-", " ") for m in re.finditer(r"[a-z]{2,}(?:-[a-z]{2,})+", name)]


def induce_narrowed(records: Sequence[RecordFields], vocab: Vocabulary, out: Induction) -> None:
    pairs = sorted({p for r in records for p in r.narrowed})
    for narrow, base in pairs:
        if vocab.declared_anywhere(narrow) is not None:
            continue
        for d in vocab.declared():
            if d.name != base or (d.type, narrow) in out.attributes:
                continue
            out.attributes[(d.type, narrow)] = d.spec.model_copy(update={
                "induced": True, "phrases": (), "description": NARROW_MARK, "home": None})


def narrowed(schema_types: dict[str, Any], entity_type: str | None, attribute: str,
             texts: Sequence[str]) -> str | None:
    """The narrower attribute ``texts`` name for ``attribute`` on ``entity_type``, when the
    schema declares one (one only)."""
    found = set()
    for text in texts:
        for name in narrowed_names(text, attribute):
            for tname, etype in schema_types.items():
                if entity_type and type_key(tname) != type_key(entity_type):
                    continue
                spec = etype.attributes.get(name)
                if spec is not None and spec.description == NARROW_MARK:
                    found.add(name)
    return next(iter(found)) if len(found) == 1 else None

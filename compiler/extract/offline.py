"""The offline backend: deterministic extraction with no model.

Structured fields become claims as they are (``structured_claims``). Body text is read line by
line, after wiki markup is blanked (``markup.py``) and instruction-like text screened out
(``screen.py``, counted in ``Extraction.rejected``):

* with a schema, sentences, list items and table rows that name a canonical attribute by one of
  its phrases and hold a value of its type become mapped facts with their qualifiers
  (``prose.py``); a heading or a lead-in line ending in ":" names the attribute or qualifier
  for the lines under it;
* otherwise a sentence of a strong fact shape ("X is Y", "X: Y", "S has a X of Y", "a 30-day
  X", see ``shapes.py``) becomes an unmapped fact under its surface name;
* anything else is a plain statement, which never conflicts with anything.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from ..canonical import content_id
from ..models import SourceRecord
from ..schema.model import Schema
from ..text import collapse, normalize_attribute, sentences
from .base import Extraction, RawClaim
from .markup import readable
from .phrases import Vocabulary, schema_digest, vocabulary
from .prose import Context, Hit, cell_hits, context_of, sentence_hits
from .screen import screened
from .shapes import shape as _shape
from ..tables import Row, pipe_tables, row_line

# Bump when extraction output can change for the same input: it invalidates the cache.
_RULES_VERSION = "offline-9"  # also restate.py: its readings happen at link time
# 5: an unmapped row fact keeps its row, so a rereading at link time keeps rows apart
# 6: both fives together (a heading names one column; rows kept apart at link time)
# 7: rates per different units in one clause are each a value (statement_values); a value
# a question presupposes ("whether this breaks our 99.5% uptime SLA") is stated (restate)
# 8: a count is its attribute's only when it counts that attribute's thing, never a bound or
# a range's end; a reference's value is a name (not "11:30", "locked"); statement clauses
# read a condition's time limit (restate)

_LINE = re.compile(r"[^\n]+")
_HEADING = re.compile(r"^\s*#{1,6}\s+(?P<h>.+?)\s*#*\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_UNASSERTED = re.compile(r"\?\s*$|\bwhether\b|^\s*(?:if|unless|suppose|assuming)\b",
                         re.IGNORECASE)
_MAX_VALUE_WORDS = 12
_MAX_CELL_WORDS = 6

__all__ = ["OfflineBackend", "extract_body", "structured_claims", "_shape"]


def structured_claims(record: SourceRecord, schema: Schema | None = None) -> list[RawClaim]:
    """Name, fields and references: structured data needs no model, whatever the backend.
    With a schema, each field lands on the canonical attribute its mapping names (Salesforce
    ``AnnualRevenue`` and HubSpot ``annualrevenue`` both on ``annual revenue``); a field no
    mapping names keeps its own name, read as words, and is marked unmapped."""
    from ..schema.index import vocabulary
    from ..schema.mapping import field_attribute, source_form

    vocab = vocabulary(schema) if schema is not None else None
    claims: list[RawClaim] = [
        RawClaim(attribute="name", value=record.entity_name, kind="field", field="name",
                 quote=f"name: {record.entity_name}")
    ]
    for field, value in sorted(record.fields.items()):
        if value is None or value == "":
            continue
        shown = source_form(value)
        attribute, mapped, on_type, qualifiers = field_attribute(vocab, record, field)
        claims.append(
            RawClaim(attribute=attribute, value=shown, kind="field", field=field,
                     quote=f"{field}: {shown}", mapped=mapped, qualifiers=qualifiers,
                     subject_type=on_type)
        )
    for ref in record.references:
        claims.append(
            RawClaim(attribute=ref.relation.lower(), value=ref.target_name, kind="reference",
                     quote=f"{ref.relation}: {ref.target_name}", target_type=ref.target_type)
        )
    return claims


def _fact(body: str, start: int, end: int, hit_or_attr: Hit | str, value: str,
          subject_phrase: str | None) -> RawClaim:
    quote = body[start:end]
    if isinstance(hit_or_attr, Hit):
        h = hit_or_attr
        return RawClaim(attribute=h.ref.name, value=value, kind="fact", quote=quote,
                        span=(start, end), subject_phrase=subject_phrase, mapped=True,
                        qualifiers=h.qualifiers, subject_type=h.ref.entity_type)
    return RawClaim(attribute=hit_or_attr, value=value, kind="fact", quote=quote,
                    span=(start, end), subject_phrase=subject_phrase)


def _statement(body: str, text: str, start: int, end: int) -> RawClaim:
    return RawClaim(attribute="statement", value=collapse(text[start:end]), kind="statement",
                    quote=body[start:end], span=(start, end))


class _Reader:
    """One record body, read line by line with what headings and lead-ins say."""

    def __init__(self, body: str, system: str, entity_type: str | None,
                 vocab: Vocabulary | None) -> None:
        self.body, self.vocab, self.entity_type = body, vocab, entity_type
        self.text = readable(body, system)
        self.blocked = screened(self.text)
        self.rejected: Counter[str] = Counter(s.reason for s in self.blocked)
        self.rows = {r.start: r for r in pipe_tables(self.text)}
        self.heading = Context()
        self.lead = Context()

    def _screened(self, start: int, end: int) -> bool:
        return bool(self.blocked) and any(start < s.end and s.start < end for s in self.blocked)

    def claims(self) -> Iterator[RawClaim]:
        text = self.text
        for line in _LINE.finditer(text):
            ls, le = line.start(), line.end()
            raw = line.group()
            if not raw.strip():
                self.lead = Context()
                continue
            if self._screened(ls, le) and all(
                    self._screened(s, e) for s, e in _spans_in(text, ls, le)):
                continue
            first = raw.lstrip()[:1]
            if first == "#" and (h := _HEADING.match(raw)):
                self.heading = self._context(h["h"])
                self.lead = Context()
                continue
            row = self.rows.get(ls)
            if row is None and first == "|":
                continue  # a table's header or separator line: read with its rows
            if row is None and "; " in raw:
                row = row_line(text, ls, le)
            if row is not None and not self._screened(row.start, row.end):
                got = list(self._row(row))
                if got:
                    yield from got
                    continue
            is_item = bool(_LIST_ITEM.match(raw))
            for s, e in _spans_in(text, ls, le):
                if self._screened(s, e):
                    continue
                yield from self._sentence(s, e, is_item)
            stripped = raw.strip()
            if stripped.endswith(":"):
                self.lead = self._context(stripped[:-1])
            elif not is_item:
                self.lead = Context()

    def _context(self, text: str) -> Context:
        return context_of(self.vocab, text) if self.vocab is not None else Context()

    def _merged(self) -> Context:
        attrs = self.lead.attributes or self.heading.attributes
        quals = dict(self.heading.qualifiers)
        quals.update(dict(self.lead.qualifiers))
        return Context(attrs, tuple(sorted(quals.items())))

    def _sentence(self, s: int, e: int, is_item: bool) -> Iterator[RawClaim]:
        text, body = self.text, self.body
        sentence = text[s:e]
        if _UNASSERTED.search(sentence):
            # a question or a hypothesis states nothing ("Is the window 45 days?", "asked
            # whether the window is 45 days", "If the fee is 20%, …")
            yield _statement(body, text, s, e)
            return
        if self.vocab is not None:
            # a heading's or lead-in's attribute reaches items and short lines, not prose
            short = is_item or len(sentence.split()) <= 8
            ctx = self._merged() if short else Context(qualifiers=self._merged().qualifiers)
            hits = sentence_hits(self.vocab, sentence, self.entity_type, ctx)
            if hits:
                phrase = collapse(sentence)
                for h in hits:
                    yield _fact(body, s, e, h, collapse(h.value), phrase)
                return
        found = _shape(collapse(sentence))
        if found is not None:
            subject_phrase, attr_phrase, value = found
            attribute = normalize_attribute(attr_phrase)
            value = collapse(value)
            if attribute and value and len(value.split()) <= _MAX_VALUE_WORDS:
                yield _fact(body, s, e, attribute, value, subject_phrase)
                return
        yield _statement(body, text, s, e)

    def _row_hits(self, row: Row) -> list[list[Hit]]:
        """Each cell's hits. A heading's attribute names at most one column: when it would
        give two cells of one row the same attribute ("## Payer channels" above an "ePA
        channel" and a "Typical decision time" column), the cells whose own header does not
        name it are read without the heading's attribute, each column its own."""
        if self.vocab is None:
            return [[] for _ in row.cells]
        ctx = self._merged()
        label_header = row.label_header.text if row.label_header else None

        def read(c: Context) -> list[list[Hit]]:
            return [cell_hits(self.vocab, h.text, row.label.text, cell.text,  # type: ignore[arg-type]
                              self.entity_type, c, label_header) for h, cell in row.cells]

        hits = read(ctx)
        if not ctx.attributes or len(row.cells) < 2:
            return hits
        named = Counter(h.ref.name for cell in hits for h in cell)
        if all(n < 2 for n in named.values()):
            return hits
        bare = read(Context(qualifiers=ctx.qualifiers))
        return [b if any(named[h.ref.name] > 1 for h in cell) else cell
                for cell, b in zip(hits, bare, strict=True)]

    def _row(self, row: Row) -> Iterator[RawClaim]:
        body = self.body
        for (header, cell), hits in zip(row.cells, self._row_hits(row), strict=True):
            label_of = (normalize_attribute(row.label_header.text) if row.label_header else ""
                        ) or "row"
            for h in hits:
                fact = _fact(body, row.start, row.end, h, collapse(h.value), row.label.text)
                yield fact.model_copy(update={"row": (label_of, collapse(row.label.text))})
            if hits:
                continue
            value = collapse(cell.text)
            attr = normalize_attribute(header.text)
            label = normalize_attribute(row.label.text)
            if attr and label and value and len(value.split()) <= _MAX_CELL_WORDS:
                # unmapped: the row label is part of the attribute so rows never collide
                fact = _fact(body, row.start, row.end, f"{attr} for {label}", value,
                             row.label.text)
                # linking may read it as an attribute (restate.py): the row tells it apart
                yield fact.model_copy(update={"row": (label_of, collapse(row.label.text))})


def _spans_in(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return [(start + s, start + e) for s, e in sentences(text[start:end])]


def extract_body(record: SourceRecord, vocab: Vocabulary | None
                 ) -> tuple[list[RawClaim], dict[str, int]]:
    """Claims of a record's body text, and the instruction-like sentences screened, by reason."""
    reader = _Reader(record.body, record.system, record.entity_type, vocab)
    claims = list(reader.claims())
    return claims, dict(sorted(reader.rejected.items()))


class OfflineBackend:
    name = "offline"
    # pure and cheap: the compile runs it inside its worker processes, uncached
    fork_safe = True

    def __init__(self, schema: Schema | None = None) -> None:
        self.schema = schema
        self.vocab = vocabulary(schema) if schema is not None else None
        self._engine = content_id(self.name, _RULES_VERSION)
        self._digest = (self._engine if schema is None
                        else content_id(self.name, _RULES_VERSION, schema_digest(schema)))

    @property
    def engine_digest(self) -> str:
        """The rules alone: a schema edit re-extracts, it need not rebuild the wiki."""
        return self._engine

    @property
    def digest(self) -> str:
        """Rules and schema: what the output for one record depends on."""
        return self._digest

    def describe(self) -> dict[str, str]:
        return {"backend": self.name, "model": "none", "rules": _RULES_VERSION}

    def extract(self, record: SourceRecord) -> Extraction:
        claims = structured_claims(record, self.schema)
        body_claims, rejected = extract_body(record, self.vocab)
        claims.extend(_defer_to_fields(claims, body_claims, record.entity_type))
        return Extraction(backend=self.digest, claims=tuple(claims), rejected=rejected)


def _defer_to_fields(fields: list[RawClaim], body: list[RawClaim], own_type: str
                     ) -> list[RawClaim]:
    """A record's structured field is its own statement of an attribute: its prose naming the
    same attribute of the same entity (a ticket's "Requester: …" beside its reporter field)
    is a statement, not a second value that could contradict the field."""
    stated = {(c.attribute, c.qualifiers) for c in fields if c.kind == "field"}
    out = []
    for c in body:
        about_itself = c.subject_type is None or c.subject_type == own_type
        if c.kind == "fact" and c.mapped and about_itself and (c.attribute, c.qualifiers) in stated:
            c = RawClaim(attribute="statement", value=collapse(c.quote), kind="statement",
                         quote=c.quote, span=c.span)
        out.append(c)
    return out

"""Prose read again at link time, against the schema *with* what induction added.

Extraction reads a record once, through the declared schema (base plus ``schema.yaml``); schema
induction runs after it, over every record, and may add attributes (fields two systems agree
on, prose names several records state) and customer-segment qualifiers (a CRM's plan field:
Platinum, Gold, Basic). Linking runs with the merged schema, so this module, called by linking,
lets a sentence meet those:

* **qualifiers**: a mapped fact of an attribute that varies by customer segment (one declaring
  qualifiers) gains the induced segment its sentence names ("the RMA window for *Platinum
  customers* is 75 days"), in place of a base qualifier read from the same words ("Basic" is
  the base schema's ``Starter`` only when the corpus has no segment of that name);
* **sentences**: a statement (no phrase of the schema named an attribute) that names an
  entity (or is about the record's own), holds one value of a typed attribute's type, and
  shares a content word with exactly one such attribute of that entity's type (its name or a
  phrase: "Returns from Gold customers are accepted up to 60 days" and ``return window``;
  "Singapore Hub holds up to 8,900 pallets" and ``pallet capacity``) states that attribute;
  an unmapped fact whose value counts something ("Storage: 2,200 pallet positions") states
  the attribute the counted words name; a sentence sharing as many words with an attribute
  induced from several documents' sentences (``induce_statements.py``), with a value of its
  unit, states it, on the attribute's home when it names no entity (only when no attribute
  a name or phrase declares fits);
* **narrower names**: a mapped fact whose sentence (or, for a list item, heading) leads its
  attribute's name with a compound modifier induction declared a narrower attribute for
  ("on-site response time", ``compiler/schema/narrow.py``) states that one.

Pure: a function of the raw claims, the record's type and the merged schema, so an incremental
compile and a clean rebuild (which relink every record when induction changes) agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..schema.keys import type_key
from ..schema.model import Schema, per_schema
from .base import RawClaim
from .phrases import AttrRef, tokens, vocabulary
from ..schema.acronyms import expand
from ..schema.induce_statements import (MIN_CLAUSE_WORDS, STATEMENT_MARK, cites, content_words,
                                        min_shared, near_figures, replaced_values, row_sentence,
                                        statement_clauses, value_clause, value_type)
from ..schema.narrow import NARROW_MARK, compound_words, narrowed
from ..schema.induction import SEGMENT_ROW_MARK
from .prose import _values
from ..tables import row_line
from ..text import normalize_attribute

# a question or a hypothesis states nothing (as in offline.py)
_UNASSERTED_LOOSE = re.compile(r"\?\s*$|\bwhether\b|^\s*(?:if|unless|suppose|assuming)\b",
                               re.IGNORECASE)
# (start, end, entity type) of the entities a text names
Named = Callable[[str], Sequence[tuple[int, int, str]]]

_LOOSE_TYPES = ("duration", "money", "percent", "number", "date")
# words too general to say which attribute a sentence states on their own
_GENERIC = frozenset(
    "time date number period count total rate value amount level day hour week month year "
    "minute size limit term new current standard default maximum minimum max min first last "
    "general main current per of for on in at by to the and or with from within up after "
    "before under over than least most every each data information".split())
_COMPOUND = re.compile(r"\w+(?:-\w+)+")
# English verbs that say an attribute's word without using it: a device "sent back" (or "to
# send devices back") is returned, whatever the policy calls its window
_PHRASAL = ((re.compile(r"\b(?:send|sends|sending|sent)\b(?:\s+[\w-]+){0,2}?\s+back\b",
                        re.IGNORECASE), "return"),
            # what a device does "on a full charge" (or "per charge") it does on its battery
            (re.compile(r"\b(?:on|per)\s+(?:a\s+|one\s+)?(?:single\s+|full\s+)?charge\b",
                        re.IGNORECASE), "battery"))


def _phrasal(text: str) -> set[str]:
    return {word for pat, word in _PHRASAL if pat.search(text)}


# a count and what it counts ("2,200 pallet positions")
_COUNTED_VALUE = re.compile(r"^\d[\d,.]*\s+([a-z][a-z -]*[a-z])$")

_SEGMENT_NOUN = (r"(?:customers?|clients?|accounts?|members?|subscribers?|contracts?|users?|"
                 r"holders?|plans?|tiers?|levels?|packages?)")


@dataclass(frozen=True)
class _Known:
    ref: AttrRef
    words: frozenset[str]
    # one fact several records' sentences state (compiler/schema/induce_statements.py): read
    # only from a sentence with as many of its words, and a value of its unit
    statement: bool = False
    # a name only (a table's column, induced): a sentence states it saying all its words
    whole: bool = False
    # a narrowed name's compound modifiers as words ("on site"): a sentence must say them
    compound: tuple[str, ...] = ()


@per_schema
def _index(schema: Schema) -> tuple[dict[str, tuple[_Known, ...]], tuple[tuple[str, re.Pattern[str],
                                                                            str], ...]]:
    by_type: dict[str, list[_Known]] = {}
    for tname, etype in schema.types.items():
        generic = _GENERIC | {t for t, _, _ in tokens(tname)}
        for aname, spec in etype.attributes.items():
            shaped = spec.type == "text" and spec.induced  # a version, a clock time (induce.py)
            if (spec.type not in _LOOSE_TYPES and not shaped) or spec.cardinality != "single":
                continue
            if spec.induced and spec.description == NARROW_MARK:
                # reached by renaming its wider attribute (_narrowed), or by a sentence that
                # says its modifier unhyphenated ("an engineer on site within 36 hours")
                words = {t for t, _, _ in tokens(_COMPOUND.sub(" ", aname))}
                by_type.setdefault(type_key(tname), []).append(_Known(
                    AttrRef(tname, aname, spec),
                    frozenset(w for w in words if w not in generic and len(w) > 2),
                    compound=tuple(compound_words(aname))))
                continue
            if spec.induced and spec.description == STATEMENT_MARK:
                words = frozenset(w for text in spec.phrases for w in content_words(text))
                by_type.setdefault(type_key(tname), []).append(
                    _Known(AttrRef(tname, aname, spec), words, statement=True))
                continue
            # a hyphenated compound is one word: "money-back period" says nothing of a
            # sentence where something is "sent back", nor "on-site" of a "site"
            words = {t for text in (aname, *spec.phrases)
                     for t, _, _ in tokens(_COMPOUND.sub(" ", text))}
            words = {w for w in words if w not in generic and len(w) > 2 and w.isalpha()}
            if words:
                column = spec.induced and spec.description == SEGMENT_ROW_MARK
                by_type.setdefault(type_key(tname), []).append(
                    _Known(AttrRef(tname, aname, spec), frozenset(words), whole=column,
                           compound=tuple(compound_words(aname)) if column else ()))
    segments = []
    for qname, q in schema.qualifiers.items():
        if not q.description.startswith("induced"):
            continue
        for label, synonyms in q.values.items():
            words = sorted({label.lower(), *(s.lower() for s in synonyms)}, key=len, reverse=True)
            alt = "|".join(re.escape(w) for w in words)
            pat = re.compile(
                # a line led by the segment's name: "Gold — on-site response of 12 hours"
                rf"^\W*(?:{alt})\s*(?:[:—–]|\s-)\s"
                rf"|(?<![\w-])(?:{alt})(?:[- ](?:plan|tier|level|package))?\s+{_SEGMENT_NOUN}\b"
                rf"|\b(?:on|under|with)\s+(?:the|a|their|its)?\s*(?:{alt})\s+"
                rf"(?:plan|tier|level|package|contract)\b", re.IGNORECASE)
            segments.append((qname, pat, label))
    return ({t: tuple(v) for t, v in by_type.items()}, tuple(segments))


def reread(raws: Sequence[RawClaim], own_type: str, schema: Schema | None,
           named: Named, body: str = "", own: str = "") -> list[RawClaim]:
    """``raws`` with induced segment qualifiers added to the facts whose sentence names one,
    and statements that state a typed attribute read as facts of it (module docstring)."""
    raws = _repeated_labels_apart(raws)
    if schema is None:
        return list(raws)
    by_type, segments = _index(schema)
    if not by_type and not segments:
        return list(raws)
    stated = {c.attribute for c in raws if c.kind == "field"}
    # the types of the entities the record refers to (a ticket's customer): a sentence of it
    # naming none may state their attribute ("their contract ends March 31, 2027")
    referred = tuple(dict.fromkeys(t for c in raws if c.kind == "reference"
                                   for _, _, t in named(c.value) if t != own_type))
    # … and, for a value a question presupposes, those another of its sentences names in full
    # ("could not sign in to Kestrel Classroom" beside "our 99.5% uptime SLA for Classroom")
    mentioned = tuple(dict.fromkeys(t for c in raws if c.kind == "statement"
                                    for _, _, t in named(c.value)
                                    if t != own_type and t not in referred))
    # values the record says are replaced ("page after 10 minutes instead of 30 minutes"):
    # a sentence telling of the old one ("the alert waited 30 minutes") states no fact now
    # (each quote once: a sentence's several claims share it)
    replaced = frozenset(v for q in {c.quote for c in raws} for v in replaced_values(q))
    out = []
    for raw in raws:
        if raw.kind == "fact" and raw.row is None and by_type:
            # "they have 60 days after the contract end, so the deadline is 2026-11-29": the
            # sentence states its date as a fact, and its other value may state a fact other
            # documents' sentences state too (only such an attribute: a sentence's one reading
            # by a declared name is the fact above)
            also = _other_value_fact(raw, own_type, schema, by_type, segments, named, stated,
                                     replaced, referred, own)
            if also is not None:
                out.append(also)
        if raw.kind == "fact" and raw.mapped and segments:
            raw = _with_segment(raw, schema, segments)
        elif raw.kind == "statement" and by_type:
            raw = ((_segment_item(raw, body, schema, own_type, by_type)
                    if segments and body else None)
                   or _loose(raw, own_type, schema, by_type, segments, named, stated,
                             replaced, referred=referred, own=own, mentioned=mentioned)
                   or raw)
        elif raw.kind == "fact" and not raw.mapped:
            raw = (_segment_row(raw, own_type, schema)
                   or (_segment_item(raw, body, schema, own_type, by_type)
                       if segments and body else None)
                   or (_loose(raw, own_type, schema, by_type, segments, named, stated,
                               own=own)
                       if by_type else None) or raw)
        out.append(_narrowed(raw, schema, body))
    return out + _row_facts(raws, own_type, schema, by_type, segments, named, stated, replaced,
                            own)


def _other_value_fact(raw: RawClaim, own_type: str, schema: Schema, by_type, segments,
                      named: Named, stated: set[str], replaced: frozenset[str],
                      referred: Sequence[str], own: str) -> RawClaim | None:
    """A fact of an attribute induced from several documents' sentences, read from a fact's
    sentence holding a value other than that fact's."""
    sentence = " ".join(raw.quote.split())
    if not any(v.lower() != raw.value.lower() and v not in raw.value and raw.value not in v
               for _, (_, _, v) in statement_clauses(sentence)):
        return None
    as_said = RawClaim(attribute="statement", value=sentence, kind="statement",
                       quote=raw.quote, span=raw.span)
    got = _loose(as_said, own_type, schema, by_type, segments, named, stated, replaced,
                 only_statements=True, referred=referred, own=own)
    if got is None or got.value == raw.value or got.attribute == raw.attribute:
        return None
    return got


def _repeated_labels_apart(raws: Sequence[RawClaim]) -> Sequence[RawClaim]:
    """Rows of one table sharing a label ("Quarter: Q4 2027; Initiative: Customer API; …"
    and "Quarter: Q4 2027; Initiative: Driver app; …") are different rows, not one row said
    twice: each unmapped fact named by the label ("notes for q4 2027") takes the row's first
    other cell into its name too, so the two rows' notes are never rival values."""
    quotes: dict[str, set[str]] = {}
    for raw in raws:
        if raw.kind == "fact" and not raw.mapped and raw.row is not None:
            quotes.setdefault(raw.attribute, set()).add(raw.quote)
    shared = {a for a, qs in quotes.items() if len(qs) > 1}
    if not shared:
        return raws
    out = []
    for raw in raws:
        if raw.kind == "fact" and not raw.mapped and raw.attribute in shared:
            row = row_line(raw.quote, 0, len(raw.quote))
            if row is not None and row.cells:
                # the cell's lead words: "Electric fleet: 40 electric mini excavators …" is
                # the electric fleet (a long cell's words would name other things)
                lead = re.split(r"[:(,;.]| - | — ", row.cells[0][1].text, maxsplit=1)[0]
                name = normalize_attribute(f"{raw.attribute} {' '.join(lead.split()[:4])}")
                if name:
                    raw = raw.model_copy(update={"attribute": name})
        out.append(raw)
    return out


def _row_facts(raws: Sequence[RawClaim], own_type: str, schema: Schema, by_type, segments,
               named: Named, stated: set[str], replaced: frozenset[str],
               own: str = "") -> list[RawClaim]:
    """A table row whose cells together state a fact several records' sentences state
    ("Refuelling, $9.50 per gallon" beside "is refuelled at $8.75 per gallon",
    ``induce_statements.py``): one fact of it per row, beside the row's own cells' facts."""
    if not any(k.statement for ks in by_type.values() for k in ks):
        return []
    out: list[RawClaim] = []
    seen: set[str] = set()
    for raw in raws:
        if raw.kind != "fact" or raw.row is None or raw.quote in seen:
            continue
        seen.add(raw.quote)
        text = row_sentence(raw.quote)
        if text is None:
            continue
        said = RawClaim(attribute="statement", value=text, kind="statement", quote=raw.quote,
                        span=raw.span)
        got = _loose(said, own_type, schema, by_type, segments, named, stated, replaced,
                     only_statements=True, own=own)
        if got is not None and not any(c.attribute == got.attribute and c.value == got.value
                                       for c in raws):
            out.append(got)
    return out


def _narrowed(raw: RawClaim, schema: Schema, body: str) -> RawClaim:
    """A mapped fact whose sentence (or the heading above its list item) names its attribute
    led by a compound modifier the schema induced a narrower attribute for states that one
    (compiler/schema/narrow.py)."""
    if raw.kind != "fact" or not raw.mapped:
        return raw
    texts = [t for t in (_sentence_of(raw), raw.quote) if "-" in t]
    # the heading names the attribute of a list item that does not name it itself ("- Gold:
    # 8 hours"); a sentence saying "the response time" under it says which one it means
    said = raw.attribute.lower() in f"{_sentence_of(raw)} {raw.quote}".lower()
    if raw.span is not None and body and not said:
        heading = None
        for line in body[:raw.span[0]].splitlines():
            if (h := _HEADING.match(line)) is not None:
                heading = h["h"]
        if heading and "-" in heading:
            texts.append(heading)
    if not texts:
        return raw
    name = narrowed(schema.types, raw.subject_type, raw.attribute, texts)
    return raw if name is None else raw.model_copy(update={"attribute": name})


def _sentence_of(raw: RawClaim) -> str:
    text = raw.subject_phrase if raw.subject_phrase and len(raw.subject_phrase) >= len(
        raw.value) else raw.quote
    return " ".join(text.replace("*", " ").replace("_", " ").split())


def _segments_in(text: str, segments) -> list[tuple[str, str, int, int]]:
    found = []
    for qname, pat, label in segments:
        for m in pat.finditer(text):
            found.append((qname, label, m.start(), m.end()))
    return found


def _with_segment(raw: RawClaim, schema: Schema, segments) -> RawClaim:
    spec = _spec(schema, raw)
    if spec is None or not spec.qualifiers:
        return raw  # an attribute that does not vary by segment
    text = _sentence_of(raw)
    found = _segments_in(text, segments)
    labels = {(q, label) for q, label, _, _ in found}
    if not labels:
        labels = _segment_for_base(raw, text, schema, segments)
    if len({q for q, _ in labels}) != 1 or len(labels) != 1:
        return raw  # none, or several segments in one sentence: not for a guess
    qname, label = next(iter(labels))
    quals = dict(raw.qualifiers)
    # the base schema's reading of the same word ("basic" as Starter) gives way
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", label)}
    base = _base_qualifier_words(schema)
    for q in list(quals):
        if q != qname and any(w in base.get(q, frozenset()) for w in words):
            del quals[q]
    quals[qname] = label
    return raw.model_copy(update={"qualifiers": tuple(sorted(quals.items()))})


_HEADING = re.compile(r"^\s*#{1,6}\s+(?P<h>.+?)\s*#*\s*$")


# "Gold: 60 days", "Gold plan — 60 days", "Basic customers: 45 days": a list item led by a
# segment's name (and a segment noun), then its value
_LED_ITEM = re.compile(r"^\W*(?P<label>[A-Za-z][\w+&' -]*?)\s*(?::|\s[—–-])\s+(?P<v>\S.*)$")
_TRAILING_NOUN = re.compile(rf"(?:[- ](?:plan|tier|level|package|{_SEGMENT_NOUN}))+$",
                            re.IGNORECASE)


def _segment_item(raw: RawClaim, body: str, schema: Schema, own_type: str = "",
                  by_type=None) -> RawClaim | None:
    """"- Gold: 8 hours" under a heading "On-site response time": extraction read the label
    as an attribute of its own, or the item as a statement (it did not know the segment);
    the heading names the attribute, the label is the corpus's segment, the value is of the
    attribute's type. A heading no phrase names ("Return authorisation period") names the
    one typed attribute of the record's type that varies by segment and shares a content
    word with it."""
    if raw.span is None:
        return None
    if raw.kind == "statement":
        m = _LED_ITEM.match(" ".join(raw.value.split()))
        if m is None:
            return None
        said, value_text = m["label"], m["v"]
    else:
        said, value_text = raw.attribute, raw.value
    said = _TRAILING_NOUN.sub("", said.strip()).lower() or said.strip().lower()
    label = next(((q, lab) for q, lab, words in _segment_words(schema) if said in words), None)
    if label is None:
        return None
    heading = None
    for line in body[:raw.span[0]].splitlines():
        if (h := _HEADING.match(line)) is not None:
            heading = h["h"]
    if heading is None:
        return None
    from .prose import context_of

    ctx = context_of(vocabulary(schema), heading)
    if len(ctx.attributes) == 1:
        ref = ctx.attributes[0]
    elif not ctx.attributes and by_type:
        ref = _named_by_words(heading, own_type, by_type)
        if ref is None:
            return None
    else:
        return None
    if ref.spec.type not in _LOOSE_TYPES or not ref.spec.qualifiers:
        return None
    value = _one_value(value_text, ref)
    if value is None:
        return None
    quals = dict(ctx.qualifiers)
    quals[label[0]] = label[1]
    return RawClaim(attribute=ref.name, value=value, kind="fact", quote=raw.quote,
                    span=raw.span, subject_phrase=raw.subject_phrase, mapped=True,
                    qualifiers=tuple(sorted(quals.items())), subject_type=ref.entity_type)


def _named_by_words(heading: str, own_type: str, by_type) -> AttrRef | None:
    """The one attribute of ``own_type`` that varies by segment and shares the most content
    words (at least one) with ``heading``; None when none or several do."""
    words = {t for t, _, _ in tokens(_COMPOUND.sub(" ", heading))}
    scored = [(len(k.words & words), k) for k in by_type.get(type_key(own_type), ())
              if not k.statement and k.ref.spec.qualifiers
              and (not k.whole or k.words <= words)]
    top = max((n for n, _ in scored), default=0)
    best = [k for n, k in scored if n == top]
    return best[0].ref if top and len(best) == 1 else None


_ROW_FACT = re.compile(r"^(?P<column>[a-z][\w' -]*?) for (?P<label>[\w+&' -]+)$")


def _segment_row(raw: RawClaim, own_type: str, schema: Schema) -> RawClaim | None:
    """"Engineer on site for gold" (a table row labelled with a customer segment, read
    without the schema knowing its column): induction declared the column an attribute
    qualified by the segment (compiler/schema/induce.py, ``SEGMENT_ROW_MARK``); the row
    label is the qualifier's value, the cell the attribute's."""
    m = _ROW_FACT.match(raw.attribute)
    if m is None or not raw.subject_phrase or raw.subject_phrase.strip().lower() != m["label"]:
        return None
    for tname, etype in schema.types.items():
        if type_key(tname) != type_key(own_type):
            continue
        # the column's own attribute, or one it is a phrase of (induce.py ``_named_more_fully``)
        from ..schema.index import vocabulary as declared

        d = declared(schema).attribute(tname, m["column"])
        spec = d.spec if d is not None else None
        if spec is None or not spec.qualifiers:
            return None
        name = d.name
        # the corpus's own segments first: an attribute varying by a base qualifier varies
        # by them too (as _with_segment reads them)
        segments = [q for q, v in schema.qualifiers.items() if v.description.startswith("induced")]
        for qname in dict.fromkeys([*segments, *spec.qualifiers]):
            q = schema.qualifiers.get(qname)
            if q is None:
                continue
            label = next((lab for lab, syn in q.values.items()
                          if m["label"] in {lab.lower(), *(x.lower() for x in syn)}), None)
            if label is None:
                continue
            value = _one_value(raw.value, AttrRef(tname, name, spec))
            if value is None:
                return None
            return RawClaim(attribute=name, value=value, kind="fact", quote=raw.quote,
                            span=raw.span, subject_phrase=raw.subject_phrase, mapped=True,
                            qualifiers=((qname, label),), subject_type=tname)
    return None


def _segment_for_base(raw: RawClaim, text: str, schema: Schema, segments
                      ) -> set[tuple[str, str]]:
    """A base qualifier extraction read from a word that names one of the corpus's own
    segments ("Basic: 48 hours" read as the base ``customer tier`` Starter, when the corpus
    segments its customers Platinum, Gold, Basic) is that segment."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    out = set()
    for q, value in raw.qualifiers:
        spec = schema.qualifiers.get(q)
        if spec is None or spec.description.startswith("induced"):
            continue
        said = {w.lower() for w in (value, *spec.values.get(value, ()))} & words
        for qname, label, synonyms in _segment_words(schema):
            if said & synonyms:
                out.add((qname, label))
    return out


def _segment_words(schema: Schema) -> list[tuple[str, str, frozenset[str]]]:
    return [(qname, label, frozenset(w.lower() for w in (label, *syn)))
            for qname, q in schema.qualifiers.items() if q.description.startswith("induced")
            for label, syn in q.values.items()]


def _base_qualifier_words(schema: Schema) -> dict[str, frozenset[str]]:
    return {q: frozenset(w.lower() for label, syn in spec.values.items()
                         for text in (label, *syn) for w in re.findall(r"[A-Za-z]+", text))
            for q, spec in schema.qualifiers.items()}


def _spec(schema: Schema, raw: RawClaim):
    for tname, etype in schema.types.items():
        if raw.subject_type and type_key(tname) != type_key(raw.subject_type):
            continue
        spec = etype.attributes.get(raw.attribute)
        if spec is not None:
            return spec
    return None


# what follows a qualifier's value in prose that states it ("Enterprise customers", "P1
# tickets", "Gold-tier accounts"), or leads it ("in EMEA", "for Enterprise")
_QUALIFIER_SHAPE = re.compile(
    rf"^(?:[- ](?:plan|tier|level|package|priority|severity))?\s*(?:{_SEGMENT_NOUN}|tickets?|"
    r"incidents?|issues?|cases?|requests?|orders?|deals?|contracts?)\b", re.IGNORECASE)
_SHAPE_WORD = re.compile(rf"[\s-](?:plan|tier|level|{_SEGMENT_NOUN})$", re.IGNORECASE)
_QUALIFIER_LEAD = re.compile(r"\b(?:in|for|across|within)\s+(?:the\s+)?$", re.IGNORECASE)
_NUMBER_WORD = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
                          r"twelve|(?:thir|four|fif|six|seven|eigh|nine)teen|twenty|thirty|"
                          r"forty|fifty|sixty|seventy|eighty|ninety|hundred)\b", re.IGNORECASE)


_WORDS: dict[int, tuple[object, frozenset[str]]] = {}


def _all_words(by_type) -> frozenset[str]:
    got = _WORDS.get(id(by_type))
    if got is not None and got[0] is by_type:
        return got[1]
    words = frozenset(w for ks in by_type.values() for k in ks
                      for w in (*k.words, *(t for c in k.compound for t, _, _ in tokens(c))))
    _WORDS.clear()
    _WORDS[id(by_type)] = (by_type, words)
    return words


def _loose(raw: RawClaim, own_type: str, schema: Schema, by_type, segments, named: Named,
           stated: set[str], replaced: frozenset[str] = frozenset(),
           only_statements: bool = False, referred: Sequence[str] = (),
           own: str = "", mentioned: Sequence[str] = ()) -> RawClaim | None:
    """A statement, or an unmapped fact (its surface name, "current firmware", names no
    attribute), that shares a content word with exactly one typed attribute of the entity it
    is about and holds one value of that attribute's type, states that attribute."""
    fact = raw.kind == "fact"
    # emphasis marks are no part of a value: Jira's "a *75-*day return window" is "75-day"
    text = _sentence_of(raw) if fact else raw.value.replace("*", "")
    value_text = raw.value.replace("*", "")
    # a condition leading the clause that states the value ("If no one is home, the courier
    # makes 2 attempts") leaves that clause asserted: only as a fact sentences induced
    conditional = bool(_UNASSERTED_LOOSE.search(text))
    if conditional and not fact and (given := _presupposed(text)) is not None:
        # "asked whether this breaks our 99.5% uptime SLA": the question takes that value as
        # given, so the noun phrase holding it states it
        text = value_text = given
        conditional = False
        referred = (*referred, *mentioned)
    if not _NUMBER_WORD.search(value_text) or (
            conditional and (fact or not statement_clauses(text))):
        return None
    also = _phrasal(raw.attribute if fact else text)
    if fact and (m := _COUNTED_VALUE.match(" ".join(value_text.lower().split()))) is not None:
        # "Storage: 2,200 pallet positions": what the number counts says which attribute
        also |= {t for t, _, _ in tokens(m.group(1))}
    known = _all_words(by_type)
    if not (also & known) and not any(t in known for t, _, _ in tokens(
            raw.attribute if fact else text)) and not (
            fact and any(_says(raw.quote, c) for ks in by_type.values() for k in ks
                         for c in k.compound)):
        return None  # no word of any typed attribute: no need to look for entities
    names = list(named(text))
    spans = [(s, e) for s, e, _ in names]
    if fact:
        # the surface name says which attribute: its words, not the whole sentence's
        words = {t for t, _, _ in tokens(raw.attribute)}
    else:
        words = {t for t, s, e in tokens(text) if not any(s < ne and ns < e for ns, ne in spans)}
    words |= also
    types = list(dict.fromkeys([*(t for _, _, t in names), own_type]))
    # a referred entity the sentence does not name: only with two of its attribute's words
    unnamed = [t for t in referred if t not in types] if not fact else []
    types += unnamed
    if fact and any(k.ref.name == raw.attribute for t in types
                    for k in by_type.get(type_key(t), ())):
        return None  # its own name is an attribute: linking maps it by name
    said = _statement_words(expand(text, _terms(schema))) if not fact else None
    # a company-wide fact (an attribute with a home) is stated in records of any type
    homed = [t for t, ks in by_type.items() if any(k.statement and k.ref.spec.home for k in ks)]
    for etype in [*types, *(t for t in homed if t not in {type_key(x) for x in types})]:
        best: list[tuple[int, _Known, str]] = []
        by_sentence: list[tuple[int, _Known, str]] = []
        for k in by_type.get(type_key(etype), ()):
            if etype == own_type and k.ref.name in stated:
                continue  # the record's own field states it
            if k.statement:
                for words_of, got, near in said or ():
                    if _same_unit(got, k.ref, k.words) and got[2].lower() not in replaced \
                            and near_figures(got[2], k.ref.spec.figures) \
                            and len(k.words & words_of) + _cited(k, text, own) >= min_shared(
                                got[0], got[1]) \
                            and len(k.words & near) >= MIN_CLAUSE_WORDS:
                        by_sentence.append((len(k.words & words_of), k, got[2]))
                continue
            if etype not in types or conditional or only_statements:
                continue
            shared = len(k.words & words)
            if k.whole and not k.compound and not k.words <= words:
                continue
            if etype in unnamed and shared < 2:
                continue
            if k.compound:
                if not all(_says(text, c) or _says(raw.quote, c) for c in k.compound):
                    continue
                shared += len(k.compound)
            if shared and (v := _one_value(value_text, k.ref)) is not None:
                best.append((shared, k, v))
        # an attribute a name or phrase declares first; a fact only sentences induced, after
        for found in (best, by_sentence):
            if not found:
                continue
            top = max(n for n, _, _ in found)
            fitting = [(k, v) for n, k, v in found if n == top]
            if len(fitting) == 1:
                k, v = fitting[0]
                return _fact_of(raw, text, k.ref, v, schema, segments)
            break  # several fit as well: not for a guess
    return None


# a value naming a thing one owns: "our 99.5% uptime SLA", "their 30-day window"
_POSSESSED = re.compile(
    r"(?<![\w-])(?:our|their|your|its)\s+(?:[$€£]\s?)?\d[\d,]*(?:\.\d+)?"
    r"(?:\s?(?:%|percent\b)|[-\s](?:minute|hour|day|week|month|year)s?\b)?\s+[A-Za-z][^,;?!]*?"
    r"(?=[,;?!]|\.(?!\d)|$)", re.IGNORECASE)


def _presupposed(text: str) -> str | None:
    """The one noun phrase of a question (or a "whether" clause) that names a thing of the
    speaker's by its value ("… whether this breaks *our 99.5% uptime SLA for Classroom*"):
    what is asked is something else, that value is taken as given. Not an "if"."""
    if not re.search(r"\?\s*$|\bwhether\b", text, re.IGNORECASE) or re.match(
            r"\s*(?:if|unless|suppose|assuming)\b", text, re.IGNORECASE):
        return None
    found = _POSSESSED.findall(text)
    return found[0] if len(found) == 1 else None


def _cited(k: _Known, text: str, own: str) -> int:
    """1 where an attribute induced from fewer shared words than its kind needs (a sentence
    citing the stating document by its title, induce_statements.cites) is read in that
    document, or in a sentence citing it, else 0."""
    home = k.ref.spec.home
    kind = "quarter" if k.ref.spec.type == "text" else k.ref.spec.type
    if not home or len(k.words) >= min_shared(kind, k.ref.spec.unit or ""):
        return 0
    return int(own.split("/", 1)[-1] == home or cites(text, f"x/{home}"))


def _says(text: str, words: str) -> bool:
    """``text`` says ``words`` as such, hyphenated or not ("on site", "on-site")."""
    pat = r"[\s-]+".join(re.escape(w) for w in words.split())
    return re.search(rf"(?<![\w-]){pat}(?![\w-])", text, re.IGNORECASE) is not None


_DEFINITION = re.compile(r"^([A-Z]{2,5}) \(([a-z' -]+)\)$")


@per_schema
def _terms(schema: Schema) -> dict[str, tuple[str, ...]]:
    """The acronyms statement induction spelled out ("DW (damage waiver)" among an induced
    attribute's phrases): a sentence is read with them spelled out as it was induced."""
    out: dict[str, tuple[str, ...]] = {}
    for etype in schema.types.values():
        for spec in etype.attributes.values():
            if spec.induced and spec.description == STATEMENT_MARK:
                for phrase in spec.phrases:
                    if (m := _DEFINITION.match(phrase)) is not None:
                        out.setdefault(m.group(1), tuple(m.group(2).split()))
    return out


def _statement_words(text: str
                     ) -> list[tuple[frozenset[str], tuple[str, str, str], frozenset[str]]]:
    """Per clause stating a typed value (``statement_clauses``): its content words, the value
    and the words of the part holding it, as statement induction reads them (a clause holding
    values of several kinds gives one entry per kind)."""
    return [(frozenset(content_words(part)), got,
             frozenset(content_words(value_clause(part, got[2]))))
            for part, got in statement_clauses(text)]


def _same_unit(got: tuple[str, str, str], ref: AttrRef, words: frozenset[str] = frozenset()
               ) -> bool:
    kind, unit, _ = got
    if value_type(kind) != ref.spec.type:
        return False
    if kind == "number":
        return unit in words  # a count of the thing the attribute's words count
    if kind == "money":
        return (ref.spec.unit or "") == unit  # a rate per gallon never meets a flat fee
    return kind != "duration" or (ref.spec.unit or "").rstrip("s") == unit


_SHAPED_VALUE = re.compile(r"(?<![\w.:])(?:v?\d+(?:\.\d+){2,3}|\d{1,2}:\d{2}(?:\s?[-–]\s?\d{1,2}:\d{2})?)"
                           r"(?![\w:]|\.\d)")


def _one_value(text: str, ref: AttrRef) -> str | None:
    if ref.spec.type == "text":
        # an induced text attribute is one of shaped values: the one such value is its
        shaped = {m.group() for m in _SHAPED_VALUE.finditer(text)}
        return next(iter(shaped)) if len(shaped) == 1 else None
    found = [f for f in _values(None, ref, text, 0)  # type: ignore[arg-type]
             if ref.spec.type != "number" or any(ch.isdigit() for ch in f.text)]
    distinct = {f.text for f in found}
    return found[0].text if len(distinct) == 1 else None



def _fact_of(raw: RawClaim, text: str, ref: AttrRef, value: str, schema: Schema,
             segments: Sequence[tuple[str, re.Pattern[str], str]]) -> RawClaim | None:
    """``raw`` read as a fact of ``ref`` with ``value``, qualified as its sentence says; None
    when the sentence names a segment it cannot be read as stating one value for."""
    quals = _qualifiers(text, ref, schema, segments)
    if quals is None:
        return None
    return RawClaim(attribute=ref.name, value=value, kind="fact", quote=raw.quote,
                    span=raw.span, subject_phrase=text, mapped=True,
                    qualifiers=quals, subject_type=ref.entity_type, row=raw.row)

def _qualifiers(text: str, ref: AttrRef, schema: Schema, segments
                ) -> tuple[tuple[str, str], ...] | None:
    """The sentence's qualifiers of ``ref``; None when it names a segment it cannot be
    read as stating one value for (two segments, or a segment word in no segment shape):
    an unqualified reading would contradict the segments' own values."""
    declared = set(ref.spec.qualifiers)
    said = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    mentioned = {label for _, label, words in _segment_words(schema) if words & said}
    if not declared:
        return None if mentioned else ()
    quals: dict[str, str] = {}
    vocab = vocabulary(schema)
    found = {(q, label) for q, label, _, _ in _segments_in(text, segments)}
    seg_spans = [(s, e) for _, _, s, e in _segments_in(text, segments)]
    for m in vocab.qualifier_matches(text):
        if any(s <= m.start < e for s, e in seg_spans):
            continue  # the corpus's own segment, read below
        said = text[m.start:m.end]
        if (not _QUALIFIER_SHAPE.match(text[m.end:]) and not _QUALIFIER_LEAD.search(
                text[:m.start]) and not _SHAPE_WORD.search(said)):
            # "Business travel", "a pro-rated refund": a qualifier's word in no qualifier's
            # shape; the loose reading would guess what it qualifies, so it reads nothing
            return None
        for q, canon in m.targets:
            if q in declared:
                quals.setdefault(q, canon)
    if len(found) > 1 or len(mentioned) > len(found):
        return None
    if len(found) == 1:
        qname, label = next(iter(found))
        words = {w.lower() for w in re.findall(r"[A-Za-z]+", label)}
        base = _base_qualifier_words(schema)
        for q in list(quals):
            if any(w in base.get(q, frozenset()) for w in words):
                del quals[q]
        quals[qname] = label
    return tuple(sorted(quals.items()))

"""Schema induction: which fields of different systems name the same attribute, when no
``schema.yaml`` says so.

A corpus nobody wrote a schema for still has evidence of its own: two systems describing the
same entities (a CRM account and a marketing company joined on one page) keep the same fact in
fields named differently (``Contract_Tier__c`` and ``support_level``). Induction finds such
fields so that their claims meet in one (subject, attribute, qualifiers) group and authority,
recency and contested reporting can decide between them.

Evidence, all generic (no word of any one corpus):

* **value agreement on joined entities** (the strongest): two fields of different systems on
  the same entity type whose normalised values agree on most entities both describe, clearly
  more often than chance would give for their value distributions (Cohen's kappa), are one
  attribute. Where they disagree on a few entities, that is exactly the conflict authority
  must decide;
* **names**: field names read as words (camelCase, snake_case, ``__c``, ``hs_``, ``cf_``,
  ``customfield_`` folded), lightly stemmed and with a small generic synonym list, compared
  with each other and with the schema's attribute names and phrases;
* **value types**: dates only with dates, numbers with numbers, short value sets (enums) with
  enums; a field and an attribute of incompatible types never merge.

Merging is conservative (a false merge makes false conflicts): a field joins an attribute the
schema already maps another system's field onto only when the values agree; two unmapped
fields join when they agree, or when their names say the same thing and their types fit. A
group that would pull together fields the schema maps onto two different attributes is left
alone.

The result is a :class:`Induction`: the fields mapped, each with its evidence, and an overlay
schema (new attributes for groups the schema did not know, mappings marked ``induced``) that
the compile merges over the corpus's schema. Pure and deterministic: a function of the
schema and the records' fields only, so an incremental compile and a clean rebuild induce the
same mappings; the compile records the induced schema's digest (in the DBOM, like the
schema's) and relinks every record when it changes.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from .index import Vocabulary, vocabulary
from .induction import (INDUCED_VERSION, SEGMENT_ROW_MARK, Column, InducedField, InducedPhrase, Induction,
                        RecordFields)
from .induce_statements import induce_statements, statement_support
from .narrow import NARROW_MARK, compound_words, induce_narrowed
from .keys import attr_key, type_key, value_key
from .model import Attribute, FieldMap, Schema
from ..text import _LEGAL_SUFFIXES
from .values import format_number, parse_date, parse_number


# a pair of fields is one attribute when, on the entities both describe, ...
MIN_SHARED = 3        # ... at least this many entities carry both
MIN_AGREE = 3         # ... at least this many agree
MIN_AGREE_SHARE = 0.6  # ... and this share of them agree
MIN_KAPPA = 0.5       # ... clearly more than chance agreement for their value distributions
MIN_NAME_SIM = 0.99   # names alone: the same words after folding (no values to compare)
# a group whose values agree takes a declared attribute's name when its words half match
MIN_GROUP_NAME_SIM = 0.5

_PREFIX = re.compile(r"^(?:hs|cf|custom|customfield|x|u|c)$")
_TOKEN = re.compile(r"[0-9a-z]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_CUSTOM = re.compile(r"__(c|r|pc)$", re.IGNORECASE)
_DIGITS = re.compile(r"^\d+$")

# generic synonyms: words enterprise systems use interchangeably in field names
_SYNONYMS = {
    "level": "tier", "grade": "tier", "class": "tier", "plan": "tier", "segment": "tier",
    "package": "tier", "coverage": "tier",
    "expiry": "end", "expiration": "end", "expires": "end", "finish": "end",
    "start": "begin", "commencement": "begin",
    "renewal": "renew", "renews": "renew",
    "org": "organization", "organisation": "organization", "company": "organization",
    "account": "organization",
    "headcount": "employee", "staff": "employee", "employees": "employee",
    "revenue": "revenue", "turnover": "revenue", "sales": "revenue",
    "cost": "price", "fee": "price",
    "sn": "serial", "serialno": "serial",
    "role": "title", "position": "title", "jobtitle": "title",
    "mail": "email", "e": "",
}
_STOP = frozenset({"the", "of", "a", "an", "and", "or", "for", "to", "in", "on", "at", "by",
                   "no", "nr", "num", "number", "id", "value", "field", "date", "c", "pc", ""})
_MONEY_WORDS = frozenset({"revenue", "price", "amount", "budget", "salary", "spend", "arr",
                          "mrr", "income", "value", "limit", "credit"})


def _stem(tok: str) -> str:
    for suffix, keep in (("ies", "y"), ("ing", ""), ("es", ""), ("s", "")):
        if len(tok) > len(suffix) + 3 and tok.endswith(suffix) and not tok.endswith("ss"):
            return tok[: -len(suffix)] + keep
    return tok


def name_tokens(name: str) -> frozenset[str]:
    """The words a field or attribute name says, folded for comparison: ``Contract_Tier__c``
    → {contract, tier}; ``hs_support_level`` → {support, tier}; ``customfield_10042``
    (a Jira id without its ``names`` label) → {} (nothing to say)."""
    base = _CUSTOM.sub("", name.strip())
    toks = [t for t in _TOKEN.findall(_CAMEL.sub(" ", base).lower())]
    while toks and _PREFIX.match(toks[0]) and len(toks) > 1:
        toks = toks[1:]
    out: set[str] = set()
    for t in toks:
        if _DIGITS.match(t):
            continue
        t = _SYNONYMS.get(t, t)
        t = _SYNONYMS.get(_stem(t), _stem(t))
        if t and t not in _STOP:
            out.add(t)
    return frozenset(out)


def name_similarity(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


# -- values ------------------------------------------------------------------------------------
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


def value_kind(value: Any) -> str:
    """``date``, ``number``, ``boolean`` or ``text``: what one field value reads as."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    text = str(value).strip()
    low = text.lower()
    if low in ("true", "false"):
        return "boolean"
    if _ISO_DATE.match(text) and parse_date(text[:10]) is not None:
        return "date"
    if re.fullmatch(r"[-+]?\d+(?:\.\d+)?", text):
        return "number"
    return "text"


def comparison_key(value: Any, kind: str) -> str:
    """The form two systems' values are compared in: a date's day, a number's canonical
    digits, a text's folded words (``Platinum`` = ``platinum``, ``FOOD_BEVERAGES`` =
    ``Food & Beverage``)."""
    if kind == "date":
        return str(value).strip()[:10]
    if kind == "number":
        got = parse_number(str(value).strip().lower()) if not isinstance(value, int | float) \
            else (Decimal(repr(value)), "", None)
        return format_number(got[0]) if got else str(value)
    if kind == "boolean":
        return str(value).strip().lower()
    return value_key(str(value))


# -- the inventory -----------------------------------------------------------------------------
@dataclass
class _Profile:
    column: Column
    values: dict[str, str] = field(default_factory=dict)  # entity id → comparison key
    shown: dict[str, Counter[str]] = field(default_factory=dict)  # key → values as written
    kinds: Counter[str] = field(default_factory=Counter)
    target: str | None = None  # attribute the schema maps it onto (None: unmapped)
    target_type: str | None = None
    declared: Any = None  # (Declared, FieldMap) the schema maps it through, fitting or not

    @property
    def kind(self) -> str:
        if not self.kinds:
            return "text"
        kind, n = self.kinds.most_common(1)[0]
        return kind if n >= 0.8 * sum(self.kinds.values()) else "text"

    def is_enum(self) -> bool:
        distinct = len(set(self.values.values()))
        return self.kind == "text" and 0 < distinct <= max(3, len(self.values) // 2) \
            and all(len(v.split()) <= 5 for v in self.values.values())


# -- induction ---------------------------------------------------------------------------------
def _profiles(records: Iterable[RecordFields], vocab: Vocabulary) -> list[_Profile]:
    by_col: dict[Column, _Profile] = {}
    for r in records:
        for fname, value in r.fields:
            if value is None or value == "" or fname == "name" or isinstance(value, list | dict):
                continue
            col = Column(r.system, r.instance, r.record_type, r.entity_type, fname)
            p = by_col.get(col)
            if p is None:
                p = by_col[col] = _Profile(col)
                hit = vocab.field(r.system, r.instance, r.record_type, r.entity_type, fname)
                if hit is not None:
                    p.target, p.target_type = hit[0].name, hit[0].type
                    p.declared = hit
            kind = value_kind(value)
            p.kinds[kind] += 1
            key = comparison_key(value, kind)
            p.values.setdefault(r.entity, key)
            if kind == "text":
                p.shown.setdefault(key, Counter())[str(value).strip()] += 1
    for p in by_col.values():
        if p.target is not None:
            d = vocab.attribute(p.target_type, p.target)
            if d is not None and not _values_fit(vocab, d, p):
                # mapped by a name whose enum has none of the field's values: no evidence of
                # what the field means, so it is induced like an unmapped one
                p.target = p.target_type = None
    return [by_col[c] for c in sorted(by_col, key=lambda c: c.label)]


def _compatible(a: _Profile, b: _Profile) -> bool:
    return a.kind == b.kind  # short codes and free text agree or not: the values decide


def _agreement(a: _Profile, b: _Profile) -> tuple[int, int, float] | None:
    """(shared entities, agreeing, kappa) of two columns, or None when too few are shared."""
    shared = sorted(set(a.values) & set(b.values))
    if len(shared) < MIN_SHARED:
        return None
    agree = sum(a.values[e] == b.values[e] for e in shared)
    pa = Counter(a.values[e] for e in shared)
    pb = Counter(b.values[e] for e in shared)
    n = len(shared)
    if len(pa) < 2 or len(pb) < 2:
        return n, agree, 0.0  # a constant says nothing: two "false" columns agree by default
    chance = sum(pa[v] * pb.get(v, 0) for v in pa) / (n * n)
    observed = agree / n
    kappa = (observed - chance) / (1.0 - chance) if chance < 1.0 else 0.0
    return n, agree, kappa


def _spec_type(kind: str, enum: bool, words: frozenset[str]) -> dict[str, Any]:
    if kind == "date":
        return {"type": "date"}
    if kind == "number":
        if words & _MONEY_WORDS:
            return {"type": "money", "currency": "USD"}
        return {"type": "number"}
    if kind == "boolean":
        return {"type": "boolean"}
    return {"type": "enum"} if enum else {"type": "text"}


_TYPE_KINDS = {"date": {"date"}, "datetime": {"date"}, "number": {"number"},
               "money": {"number"}, "percent": {"number"}, "duration": {"number"},
               "boolean": {"boolean"}, "enum": {"text"}, "text": {"text"}}


def induce(schema: Schema, records: Iterable[RecordFields]) -> Induction:
    """The fields ``schema`` leaves unmapped that the corpus's own evidence maps (see the
    module docstring)."""
    vocab = vocabulary(schema)
    records = list(records)
    out = induce_fields(records, vocab)
    induce_prose(records, vocab, out)
    return out


# Induction runs in stages, each a function of its own parts of the records and of what the
# stages before it produced, so that the store (induce_store.py) can keep a stage's result for
# as long as its parts of the sample are unchanged: an edited sentence re-runs the statements
# stage alone. A rule added to a stage must read no part of a record the stage does not name.
def induce_fields(records: list[RecordFields], vocab: Vocabulary) -> Induction:
    """The fields stage: reads each record's header (system, instance, record type, entity
    type, entity) and fields, nothing else."""
    profiles = _profiles(records, vocab)
    out = Induction()
    by_type: dict[str, list[_Profile]] = defaultdict(list)
    for p in profiles:
        by_type[type_key(p.column.entity_type)].append(p)
    for _, group in sorted(by_type.items()):
        _induce_type(group, vocab, out)
        _induce_value_maps(group, vocab, out)
    return out


def induce_prose(records: list[RecordFields], vocab: Vocabulary, out: Induction) -> None:
    """The prose stages, in their order."""
    induce_phrases(records, vocab, out)
    induce_statements(records, vocab, out)  # reads the header and statements
    induce_rows(records, vocab, out)


def induce_phrases(records: list[RecordFields], vocab: Vocabulary, out: Induction,
                   sentences: Iterable[RecordFields] | None = None) -> None:
    """The phrases stage: reads each record's header and facts, and only when a name one
    record states needs another's sentence (``statement_support``), every record's header and
    statements, from ``sentences`` (default: ``records``)."""
    _induce_phrases(records, vocab, out, records if sentences is None else sentences)


def induce_rows(records: list[RecordFields], vocab: Vocabulary, out: Induction) -> None:
    """The narrowed names and segment rows stage: reads each record's header, facts and
    narrowed names."""
    induce_narrowed(records, vocab, out)
    # after the narrowed names: a column "On-site response" is the narrowed "on-site
    # response time" a ticket states, not an attribute of its own
    _induce_segment_rows(records, vocab, out)


def _induce_type(profiles: list[_Profile], vocab: Vocabulary, out: Induction) -> None:
    n = len(profiles)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    evidence: dict[int, list[str]] = defaultdict(list)
    toks = [name_tokens(p.column.field) for p in profiles]
    for i in range(n):
        for j in range(i + 1, n):
            a, b = profiles[i], profiles[j]
            if (a.column.system, a.column.instance) == (b.column.system, b.column.instance):
                continue  # one system's two fields are two attributes: it said so itself
            if a.target is not None and b.target is not None:
                continue  # the schema already decided both
            if not _compatible(a, b):
                continue
            why = None
            agreed = _agreement(a, b)
            if agreed is not None:
                shared, agree, kappa = agreed
                if agree >= MIN_AGREE and agree >= MIN_AGREE_SHARE * shared and \
                        kappa >= MIN_KAPPA:
                    why = (f"values agree on {agree} of {shared} shared entities "
                           f"(kappa {kappa:.2f})")
            elif a.target is None and b.target is None and \
                    name_similarity(toks[i], toks[j]) >= MIN_NAME_SIM:
                why = "same words in both names, same value type, no shared entities"
            if why is None:
                continue
            ri, rj = find(i), find(j)
            if ri != rj:
                parent[max(ri, rj)] = min(ri, rj)
            evidence[i].append(f"{why} with {b.column.label}")
            evidence[j].append(f"{why} with {a.column.label}")
    comps: dict[int, list[int]] = defaultdict(list)
    for i in range(n):
        comps[find(i)].append(i)
    for _, members in sorted(comps.items()):
        if len(members) < 2:
            continue
        targets = {(profiles[i].target_type, profiles[i].target) for i in members
                   if profiles[i].target is not None}
        if len(targets) > 1:
            continue  # would join attributes the schema keeps apart: not for induction to say
        unmapped = [i for i in members if profiles[i].target is None]
        if not unmapped:
            continue
        etype = profiles[members[0]].column.entity_type
        if targets:
            ttype, tname = next(iter(targets))
            d = vocab.attribute(ttype, tname)
            if d is None or not all(profiles[i].kind in _TYPE_KINDS.get(d.spec.type, set())
                                    for i in unmapped):
                continue
            for i in unmapped:
                out.fields.append(InducedField(profiles[i].column, d.name, d.type,
                                               "; ".join(evidence[i]), False))
            continue
        name, d = _group_name([profiles[i] for i in members], [toks[i] for i in members], vocab)
        if d is not None:
            if all(profiles[i].kind in _TYPE_KINDS.get(d.spec.type, set()) for i in members) \
                    and all(_values_fit(vocab, d, profiles[i]) for i in members):
                for i in members:
                    out.fields.append(InducedField(
                        profiles[i].column, d.name, d.type,
                        "; ".join([*evidence[i], f"name matches the schema's {d.name!r}"]),
                        False))
                continue
            name = _plain_name([profiles[i] for i in members], vocab)
        words = frozenset().union(*(toks[i] for i in members))
        spec = Attribute.model_validate({**_spec_type(
            profiles[members[0]].kind, profiles[members[0]].is_enum(), words), "induced": True})
        tname = vocab.type_name(etype) or etype
        out.attributes[(tname, name)] = spec
        if spec.type == "enum":
            _segment_qualifier(name, tname, [profiles[i] for i in members], vocab, out)
        for i in members:
            out.fields.append(InducedField(profiles[i].column, name, tname,
                                           "; ".join(evidence[i]), True))


MIN_VALUE_MAP_SHARE = 2 / 3  # of a code's shared entities that carry its partner value


def _induce_value_maps(profiles: list[_Profile], vocab: Vocabulary, out: Induction) -> None:
    """Two systems' fields the schema maps onto one enum attribute but that name its values
    differently (HubSpot's deal stage ``contractsent``, Salesforce's ``Negotiation/Review``):
    a value of one system whose label is none the other system uses is mapped onto the other system's value it stands beside on the
    entities both describe, when it does so consistently (at least 2/3 of those entities,
    and the partner value stands beside no other unknown code). Where they still differ
    after the map, that is a real conflict; a code with no consistent partner stays as it
    is. The reference system is the one more of whose values the attribute knows."""
    declared = [p for p in profiles if p.declared is not None
                and p.declared[0].spec.type == "enum" and not p.declared[1].values]
    taken: set[Column] = set()
    for a in declared:
        for b in declared:
            if a is b or b.column in taken or (a.column.system, a.column.instance) == (
                    b.column.system, b.column.instance):
                continue
            d = a.declared[0]
            if (d.type, d.name) != (b.declared[0].type, b.declared[0].name):
                continue
            if _rank(vocab, d, a) <= _rank(vocab, d, b):
                continue  # a must be the reference
            values = _value_map(vocab, d, a, b)
            if not values:
                continue
            taken.add(b.column)
            out.fields.append(InducedField(
                b.column, d.name, d.type,
                f"its codes stand beside {a.column.label}'s values on the entities both "
                f"describe: " + ", ".join(f"{k} = {v}" for k, v in values),
                False, tuple(values), tuple(sorted(b.declared[1].qualifiers.items()))))


def _known_share(vocab: Vocabulary, d: Any, p: _Profile) -> float:
    keys = set(p.values.values())
    return sum(vocab.enum_label(d, k) is not None for k in keys) / len(keys) if keys else 0.0


def _rank(vocab: Vocabulary, d: Any, p: _Profile) -> tuple[float, int, str]:
    """Which of two systems' fields is the reference: the one more of whose values the
    attribute knows, then the one with the finer vocabulary (more distinct values), then
    by name (deterministic)."""
    return (_known_share(vocab, d, p), len(set(p.values.values())), p.column.label)


def _label(vocab: Vocabulary, d: Any, key: str) -> str:
    return vocab.enum_label(d, key) or key


def _value_map(vocab: Vocabulary, d: Any, a: _Profile, b: _Profile) -> list[tuple[str, str]]:
    shared = sorted(set(a.values) & set(b.values))
    if len(shared) < MIN_SHARED:
        return []
    # b's codes whose label is none of a's: the two systems name these values differently
    a_labels = {_label(vocab, d, k) for k in a.values.values()}
    unknown = {k for k in set(b.values.values()) if _label(vocab, d, k) not in a_labels}
    partners: dict[str, Counter[str]] = defaultdict(Counter)
    for e in shared:
        if b.values[e] in unknown:
            partners[b.values[e]][a.values[e]] += 1
    chosen: dict[str, str] = {}
    for code, c in sorted(partners.items()):
        (top, n), = c.most_common(1)
        if n >= MIN_VALUE_MAP_SHARE * sum(c.values()):
            chosen[code] = top
    # a partner two unknown codes both stand beside names neither of them for sure
    counts = Counter(chosen.values())
    out = []
    for code, top in sorted(chosen.items()):
        if counts[top] > 1:
            continue
        out.append((_shown(b, code), _shown(a, top)))
    return out


def _shown(p: _Profile, key: str) -> str:
    c = p.shown.get(key)
    return sorted(c, key=lambda f: (-c[f], f))[0] if c else key


# the entity type whose enum fields segment customers ("Gold customers", "Enterprise plan")
SEGMENTED_TYPE = "account"
MAX_SEGMENTS = 8
_SEGMENT_VALUE = re.compile(r"^[A-Za-z][A-Za-z+&-]*(?: [A-Za-z][A-Za-z+&-]*)?$")


def _segment_qualifier(name: str, tname: str, members: list[_Profile], vocab: Vocabulary,
                       out: Induction) -> None:
    """An enum two systems agree on for customers (a CRM's ``Service_Plan__c`` and a help
    desk's ``plan_level``: Platinum, Gold, Basic) is how the company segments its customers,
    so prose rules name its values ("for Gold customers", "Platinum accounts"): its values
    become a qualifier's (named like the attribute), as a schema's ``customer tier`` is.
    Not when the schema's qualifiers already name most of them (then they are those)."""
    if type_key(tname) != SEGMENTED_TYPE or vocab.qualifier(name) is not None:
        return
    shown: dict[str, Counter[str]] = defaultdict(Counter)
    for p in members:
        for key, c in p.shown.items():
            shown[key].update(c)
    if not 2 <= len(shown) <= MAX_SEGMENTS:
        return
    values: dict[str, tuple[str, ...]] = {}
    for key, c in sorted(shown.items()):
        forms = sorted(c, key=lambda f: (-c[f], f))
        if not all(_SEGMENT_VALUE.match(f) for f in forms):
            return  # codes, numbers, sentences: not a segment's name
        label = next((f for f in forms if f[:1].isupper()), forms[0].capitalize())
        values[label] = tuple(sorted({f.lower() for f in forms} | {label.lower()}))
    known = sum(any(vocab.qualifier_value(q, label) is not None for q in vocab.qualifier_names())
                for label in values)
    if known * 2 > len(values):
        return
    out.qualifiers[name] = values


def _values_fit(vocab: Vocabulary, d: Any, p: _Profile) -> bool:
    """An enum the schema declares values for takes a field only when most of the field's
    distinct values are among them (a name alone does not make ``Platinum`` a tier of the
    schema's ``Enterprise``/``Standard``)."""
    if d.spec.type != "enum" or not d.spec.values:
        return True
    distinct = set(p.values.values())
    known = sum(vocab.enum_label(d, v) is not None for v in distinct)
    return known * 2 > len(distinct)


def _field_words(field_name: str) -> str:
    base = _CUSTOM.sub("", field_name.strip())
    toks = _TOKEN.findall(_CAMEL.sub(" ", base).lower())
    while toks and _PREFIX.match(toks[0]) and len(toks) > 1:
        toks = toks[1:]
    return " ".join(t for t in toks if not _DIGITS.match(t))


def _group_name(profiles: list[_Profile], toks: list[frozenset[str]], vocab: Vocabulary
                ) -> tuple[str, Any]:
    """A group's attribute: the schema's when a member's name is one of its names or phrases
    (by folded words), else the words of the member named most plainly (fewest words, then
    alphabetical), so the same corpus always gets the same name."""
    etype = profiles[0].column.entity_type
    best: list[tuple[float, str, Any]] = []
    for d in vocab.declared():
        if type_key(d.type) != type_key(etype):
            continue
        if not all(p.kind in _TYPE_KINDS.get(d.spec.type, set()) for p in profiles):
            continue
        score = max((name_similarity(name_tokens(text), t)
                     for text in (d.name, *d.spec.phrases) for t in toks), default=0.0)
        if score >= MIN_GROUP_NAME_SIM:
            best.append((score, d.name, d))
    best.sort(key=lambda x: (-x[0], x[1]))
    # the best-named attribute, unless another names the group as well (then neither)
    if best and (len(best) == 1 or best[0][0] > best[1][0]):
        return best[0][1], best[0][2]
    return _plain_name(profiles, vocab), None


def _plain_name(profiles: list[_Profile], vocab: Vocabulary) -> str:
    """The words of the member named most plainly (fewest words, then alphabetical) that no
    attribute of the schema already uses on any type."""
    names = sorted({_field_words(p.column.field) for p in profiles} - {""},
                   key=lambda w: (len(w.split()), w))
    for name in names:
        if vocab.declared_anywhere(name) is None:
            return name
    return (names[0] if names else attr_key(profiles[0].column.field)) + " (induced)"


def record_fields(record: Any, entity: str) -> RecordFields:
    """What induction reads of a :class:`compiler.models.SourceRecord`."""
    return RecordFields(record.system, record.instance, record.type, record.entity_type,
                        entity, tuple(sorted(record.fields.items())))


def summary(induction: Induction) -> list[dict[str, Any]]:
    return [f.as_dict() for f in sorted(induction.fields, key=lambda f: f.column.label)]


# -- prose ---------------------------------------------------------------------------------
MIN_PHRASE_RECORDS = 2   # records stating a surface attribute before it is one
MIN_PHRASE_TYPED = 0.8   # share of its values that read as one value type
MAX_PHRASE_WORDS = 4
_CURRENCY = re.compile(r"[$€£¥]|\b(?:usd|eur|gbp|dollars?|euros?|pounds?)\b")
# text of one recognisable shape (a version, a clock time or hours): compared as text, but
# unlike free text two such values under one name are the same kind of fact
_SHAPED = re.compile(r"^(?:v|version\s)?\d+(?:\.\d+){2,3}$"
                     r"|^(?:open\s)?\d{1,2}:\d{2}(?:\s?[-–]\s?\d{1,2}:\d{2})?$")


def prose_kind(value: str) -> tuple[str, str | None] | None:
    """The value type (and duration unit) a prose value reads as, when it is typed at all
    (``code``: text of one shape, a version or opening hours): free text (a name, "main ward")
    is never induced, since surface phrases with free-text values are where prose contradicts
    itself without meaning the same fact."""
    from .values import _typed

    low = value.strip().lower()
    if _SHAPED.match(low):
        return "code", None
    if (d := _typed(low, "duration", None, None)) is not None:
        return "duration", d.split()[-1]
    if _typed(low, "date", None, None) is not None and re.search(r"\d{4}", low):
        return "date", None
    if ("%" in low or "percent" in low) and _typed(low, "percent", None, None) is not None:
        return "percent", None
    if _CURRENCY.search(low) and _typed(low, "money", None, None) is not None:
        return "money", None
    if _typed(low, "number", None, None) is not None:
        return "number", None
    return None


# "The battery runtime of Kora ECG Cart", "Storage at Memphis Distribution Hub": a surface
# attribute stated of a capitalised name (linking drops the name it finds in the registry)
_NAMED_TAIL = re.compile(r"\s(?:of|at|for|in|on)\s+(?:the\s+)?"
                         r"([A-Z0-9][\w&'.-]*(?:\s+[A-Z0-9&][\w&'.-]*)*)\s*$")


def prose_fact(attribute: str, subject_phrase: str | None) -> tuple[str, str]:
    """(surface attribute, slug of the name it is stated of or "") of an unmapped prose fact,
    from the record alone: the attribute as linking leaves it once the named entity is
    found, so that the name induction declares is the name the linked claims carry."""
    from ..slug import slugify
    from ..text import normalize_attribute

    if not subject_phrase or attribute != normalize_attribute(subject_phrase):
        return attribute, ""
    m = _NAMED_TAIL.search(subject_phrase)
    if m is None:
        return attribute, ""
    head = normalize_attribute(subject_phrase[:m.start(1)])
    return (head, slugify(m.group(1))) if head else (attribute, "")


def _induce_phrases(records: list[RecordFields], vocab: Vocabulary, out: Induction,
                    sentences: Iterable[RecordFields]) -> None:
    """A surface attribute that several records state, nearly always with a value of one
    type, is an attribute of the types stating it: its claims are then typed and compared,
    so equal-rank sources that disagree on it are reported (and authority decides the
    others). Names the schema declares, and one-off phrases, are left alone."""
    seen: dict[str, set[str]] = defaultdict(set)      # name → record ids
    kinds: dict[str, Counter[tuple[str, str | None]]] = defaultdict(Counter)
    types: dict[str, set[str]] = defaultdict(set)
    # the types of the entities a sentence may name: a comparison page's "battery runtime of
    # Kora ECG Cart" is the product's attribute, not the page's
    named: dict[str, set[str]] = defaultdict(set)
    for r in records:
        named[r.entity.split("/", 1)[-1]].add(r.entity_type)
    stated: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    together: dict[str, dict[str, set[str]]] = defaultdict(dict)  # record → name → values
    for r in records:
        rid = f"{r.system}/{r.instance}/{r.record_type}/{r.entity}"
        for name, value, about in r.facts:
            if not name or len(name.split()) > MAX_PHRASE_WORDS or name in ("statement", "name"):
                continue
            if (m := _ROW_FACT.match(name)) and segment_label(vocab, out, m["label"]):
                continue  # a segment's row of a column: the column's (_induce_segment_rows)
            seen[name].add(rid)
            kinds[name][prose_kind(value) or ("text", None)] += 1
            if about and about not in named and about.rsplit("-", 1)[-1] in _LEGAL_SUFFIXES:
                about = about.rsplit("-", 1)[0]  # "Harbourview Clinics Ltd" is the account's
            types[name] |= named.get(about) or {r.entity_type}
            key = _fact_key(value)
            stated[name][about or r.entity.split("/", 1)[-1]].add(key)
            together[rid].setdefault(name, set()).add(key)
    same = _same_facts(seen, kinds, types, stated, together, vocab)
    # a name one record states, another record's sentence states as well (its words, its
    # entity, a value of its kind): two records state it
    once = {n: set(r) for n, r in seen.items() if len(r) < MIN_PHRASE_RECORDS and n not in same
            and len(n.split()) >= 2}
    for name, rids in statement_support(sentences, once, kinds, stated).items():
        seen[name] = seen[name] | rids
    # a phrase's records are those stating it under any of its names ("Runtime on battery:
    # 10 hours" and "the battery runtime of X is 12 hours" are two records stating one fact,
    # not two records stating two facts once each); only names saying the same words (one
    # holding the other) count: "users affected" shares a word with "units affected", and
    # says something else
    group_records = {name: set(rids) for name, rids in seen.items()}
    members: dict[str, list[str]] = defaultdict(list)
    for other, keep in same.items():
        members[keep].append(other)
    for keep, others in members.items():
        names = [keep, *others]
        for a in names:
            wa = _words_of(a)
            got = set().union(*(seen.get(b, ()) for b in names
                                if (wb := _words_of(b)) and wa and (wa <= wb or wb <= wa)))
            if len(got) > len(group_records[keep]):
                group_records[keep] = got
    for name in sorted(seen):
        if name in same:
            continue  # a second name of another phrase: declared as that one's phrase
        if len(group_records[name]) < MIN_PHRASE_RECORDS:
            continue
        (kind, unit), n = max(sorted(kinds[name].items(), key=lambda kv: str(kv[0])),
                              key=lambda kv: kv[1])
        total = sum(kinds[name].values())
        if kind == "text" or n < MIN_PHRASE_TYPED * total:
            continue
        if vocab.declared_anywhere(name) is not None:
            continue
        spec: dict[str, Any] = {"type": "text" if kind == "code" else kind, "induced": True}
        others = sorted(o for o, keep in same.items() if keep == name)
        if others:
            spec["phrases"] = others
        if kind == "duration":
            units = Counter(u for (k, u), c in kinds[name].items() if k == "duration"
                            for _ in range(c))
            spec["unit"] = sorted(units.items(), key=lambda kv: (-kv[1], str(kv[0])))[0][0]
        if kind == "money":
            spec["currency"] = "USD"
        tnames = []
        for etype in sorted(types[name]):
            tname = vocab.type_name(etype) or etype
            if (tname, name) not in out.attributes:
                out.attributes[(tname, name)] = Attribute.model_validate(spec)
                tnames.append(tname)
        if tnames:
            out.phrases.append(InducedPhrase(
                tuple(tnames), name, kind, len(group_records[name]),
                f"stated by {len(group_records[name])} records, {n} of {total} values read as "
                f"{kind}"))


# "Engineer on site for gold": a table cell (or a "Plan: Gold; X: 8 hours" row) read without
# the schema knowing its column, named "<column> for <row label>" (offline.py)
_ROW_FACT = re.compile(r"^(?P<column>[a-z][\w' -]*?) for (?P<label>[\w+&' -]+)$")
MIN_SEGMENT_ROWS = 2  # segments one record's rows give the column a value for


def segment_label(vocab: Vocabulary, out: Induction, text: str) -> tuple[str, str] | None:
    """(qualifier, value) a row label names: one of the corpus's own customer segments (a CRM
    plan field's values, induced) first, else a declared qualifier's value."""
    key = text.strip().lower()
    for qname, values in sorted(out.qualifiers.items()):
        for label, synonyms in sorted(values.items()):
            if key == label.lower() or key in synonyms:
                return qname, label
    for qname in vocab.qualifier_names():
        if (canon := vocab.qualifier_value(qname, text)) is not None:
            return qname, canon
    return None


def _induce_segment_rows(records: list[RecordFields], vocab: Vocabulary, out: Induction) -> None:
    """A table whose rows are customer segments (Platinum, Gold, Basic) and whose column holds
    a typed value in each ("Service plan | Engineer on site | …") states the column's
    attribute once per segment: the column is an attribute of the record's entity type,
    qualified by that segment, so that another record stating it for one segment ("gives Gold
    customers an engineer on site within 36 hours") meets the row it contradicts. One record
    suffices: its rows are the repeated evidence (at least two segments, every value of one
    type). A column the schema names was mapped at extraction and is not induced again."""
    cols: dict[tuple[str, str, str], dict[str, list[tuple[str, str | None]]]] = defaultdict(
        lambda: defaultdict(list))
    for r in records:
        rid = f"{r.system}/{r.instance}/{r.record_type}/{r.entity}"
        for name, value, _about in r.facts:
            m = _ROW_FACT.match(name)
            if m is None or len(m["column"].split()) > MAX_PHRASE_WORDS:
                continue
            seg = segment_label(vocab, out, m["label"])
            if seg is None:
                continue
            cols[(r.entity_type, m["column"], seg[0])][rid].append(
                (seg[1], *(prose_kind(value) or ("text", None))))  # type: ignore[arg-type]
    for (etype, column, qname), by_record in sorted(cols.items()):
        if vocab.declared_anywhere(column) is not None:
            continue
        kinds: Counter[tuple[str, str | None]] = Counter()
        rows = 0
        for got in by_record.values():
            if len({label for label, _, _ in got}) >= MIN_SEGMENT_ROWS:
                rows += 1
                kinds.update((k, u) for _, k, u in got)
        if not rows or len({k for k, _ in kinds}) != 1:
            continue
        (kind, _), _n = kinds.most_common(1)[0]
        if kind in ("text", "code", "date"):
            continue  # a segment's free text or date is no comparable measure
        spec: dict[str, Any] = {"type": kind, "induced": True, "qualifiers": (qname,),
                                "description": SEGMENT_ROW_MARK}
        if kind == "duration":
            units = Counter(u for (_, u), c in kinds.items() for _ in range(c))
            spec["unit"] = sorted(units.items(), key=lambda kv: (-kv[1], str(kv[0])))[0][0]
        if kind == "money":
            spec["currency"] = "USD"
        tname = vocab.type_name(etype) or etype
        wider = _named_more_fully(out, tname, column, spec["type"])
        if wider is not None:
            # the column names an induced attribute less fully: its phrase (linking maps the
            # rows onto it by that phrase)
            name, known = wider
            if column not in known.phrases:
                out.attributes[(tname, name)] = known.model_copy(
                    update={"phrases": (*known.phrases, column)})
            continue
        if (tname, column) not in out.attributes:
            out.attributes[(tname, column)] = Attribute.model_validate(spec)
            out.phrases.append(InducedPhrase(
                (tname,), column, kind, len(by_record),
                f"a column of {rows} record(s) whose rows are {qname} values, read as {kind}"))


def _named_more_fully(out: Induction, tname: str, column: str, kind: str
                      ) -> tuple[str, Attribute] | None:
    """The one induced attribute of ``tname`` that varies by segment, of the column's value
    type, whose name says the column's words and only general ones more ("on-site response
    time" for a column "On-site response")."""
    words = _words_of(column)
    said = f" {' '.join(_TOKEN.findall(column.lower()))} "
    found = [(name, spec) for (t, name), spec in sorted(out.attributes.items())
             if t == tname and spec.qualifiers and spec.type == kind and name != column
             and ((words and words < _words_of(name)
                   and not (_words_of(name) - words) - _GENERAL_WORDS)
                  # a column saying a narrowed name's modifier ("Engineer on site" and the
                  # "on-site" of "on-site response time"), as a sentence would
                  or (spec.description == NARROW_MARK and compound_words(name) and all(
                      f" {c} " in said for c in compound_words(name))))]
    return found[0] if len(found) == 1 else None


# words too general for two names sharing them to mean one fact without values to show it
_GENERAL_WORDS = frozenset(_stem(w) for w in (
    "time date period hours days count total rate level size limit term window interval "
    "duration number amount value first last maximum minimum current standard new".split()))
MIN_SAME_AGREE = 0.6  # share of the entities two names are both stated of that agree


def _fact_key(value: str) -> str:
    return " ".join(_TOKEN.findall(value.lower()))


MAX_CLOSE_RATIO = 1.5  # two counts of one thing that disagree, not two different counts


def _close(a: set[str], b: set[str]) -> bool:
    """Two entities' counts under two names ("7,600 pallet positions", "pallet capacity
    8,300") that differ, but by less than half: one measure two sources disagree on (a
    conflict for authority to decide), not two measures (a count of beds beside a count of
    wards differs by far more)."""
    def numbers(keys: set[str]) -> list[float]:
        out = []
        for k in keys:
            digits = k.replace(" ", "")
            if digits.isdigit():
                out.append(float(digits))
        return out
    xs, ys = numbers(a), numbers(b)
    return bool(xs and ys) and all(
        0 < min(x, y) and max(x, y) / min(x, y) <= MAX_CLOSE_RATIO for x in xs for y in ys)


def _kind_of(kinds: Counter[tuple[str, str | None]]) -> tuple[tuple[str, str | None], float]:
    (kind, n) = max(sorted(kinds.items(), key=lambda kv: str(kv[0])), key=lambda kv: kv[1])
    return kind, n / sum(kinds.values())


def _words_of(name: str) -> frozenset[str]:
    return frozenset(_stem(t) for t in _TOKEN.findall(name) if t not in _STOP)


def _same_facts(seen: dict[str, set[str]], kinds: dict[str, Counter[tuple[str, str | None]]],
                types: dict[str, set[str]], stated: dict[str, dict[str, set[str]]],
                together: dict[str, dict[str, set[str]]], vocab: Vocabulary) -> dict[str, str]:
    """Prose names that are one fact under two names ("battery life" and "battery runtime",
    "response time" and "on-site response time"): {second name: the name it joins}.

    Evidence, all of it required: both read as the same value type (durations of one unit);
    the names share a content word and either one holds the other with one extra word (a
    modifier: "on-site") or they are the same length; they are stated of the same entity
    type; no record states both with different values (one record naming both with different
    values says they differ); and on the entities both are stated of, their values mostly
    agree, with at least one such entity unless one name holds the other. The name more
    records use is kept."""
    typed = {}
    for name in seen:
        if vocab.declared_anywhere(name) is not None:
            continue
        kind, share = _kind_of(kinds[name])
        if kind[0] != "text" and share >= MIN_PHRASE_TYPED and len(name.split()) >= 2:
            typed[name] = kind
    clash: set[frozenset[str]] = set()
    for names in together.values():
        for a in names:
            for b in names:
                if a < b and names[a] != names[b]:
                    clash.add(frozenset((a, b)))
    ranked = sorted(typed, key=lambda n: (-len(seen[n]), len(n), n))
    out: dict[str, str] = {}
    for i, keep in enumerate(ranked):
        if keep in out:
            continue
        kw = _words_of(keep)
        for other in ranked[i + 1:]:
            if other in out or typed[other] != typed[keep] or types[other] != types[keep]:
                continue
            if frozenset((keep, other)) in clash:
                continue
            ow = _words_of(other)
            small, big = sorted((kw, ow), key=len)
            contains = small < big and len(big - small) == 1 and len(small) >= 2
            if not contains and not (len(kw) == len(ow) and kw & ow):
                continue
            shared = set(stated[keep]) & set(stated[other])
            agree = sum(1 for e in shared if stated[keep][e] & stated[other][e])
            if shared and agree < MIN_SAME_AGREE * len(shared) and not (
                    typed[keep][0] == "number" and (kw & ow) - _GENERAL_WORDS
                    and all(_close(stated[keep][e], stated[other][e]) for e in shared)):
                continue
            if not shared and not contains and not (kw & ow) - _GENERAL_WORDS:
                continue  # names alone: they must share a word that says something
            out[other] = keep
    return out


def apply(schema: Schema, induction: Induction) -> Schema:
    """``schema`` with the induced attributes added (never replacing a declared one) and the
    induced mappings after its own (a declared mapping of a field always wins: induction
    only maps fields nothing maps)."""
    if induction.empty:
        return schema
    overlay = induction.overlay()
    types = dict(schema.types)
    for tname, etype in overlay.types.items():
        hit = next((k for k in types if type_key(k) == type_key(tname)), None)
        if hit is None:
            types[tname] = etype
            continue
        attrs = dict(types[hit].attributes)
        for aname, spec in etype.attributes.items():
            if not any(attr_key(k) == attr_key(aname) for k in attrs):
                attrs[aname] = spec
        types[hit] = types[hit].model_copy(update={"attributes": attrs})
    quals = dict(schema.qualifiers)
    for qname, q in overlay.qualifiers.items():
        if not any(attr_key(k) == attr_key(qname) for k in quals):
            quals[qname] = q
    return schema.model_copy(update={
        "version": f"{schema.version}+{INDUCED_VERSION}", "types": types,
        "qualifiers": quals, "mappings": (*schema.mappings, *overlay.mappings)})


def suggested_yaml(induction: Induction) -> dict[str, Any]:
    """The induced mappings as a ``schema.yaml`` a human can review and keep (docs/schema.md):
    each mapping's evidence is a comment-free ``description`` on the attribute it creates,
    and the ``induced`` marks are dropped (a kept mapping is declared, not induced)."""
    overlay = induction.overlay()
    data: dict[str, Any] = {"version": "1"}
    if overlay.types:
        data["types"] = {t: {"attributes": {a: s.model_dump(exclude_defaults=True,
                                                            exclude={"induced"})
                                            for a, s in e.attributes.items()}}
                         for t, e in overlay.types.items()}
    if not overlay.mappings:
        return data
    data["mappings"] = [
        {"system": m.system, "instance": m.instance, "record_type": m.record_type,
         "entity_type": m.entity_type,
         "fields": {f: (t.attribute if isinstance(t, FieldMap) else t)
                    for f, t in m.fields.items()}}
        for m in overlay.mappings]
    return data

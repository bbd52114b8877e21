"""Schema-driven reading of prose: a sentence (or a list item, a table row) that names a
canonical attribute by one of its phrases, and holds a value of that attribute's type, states
that attribute.

* the attribute: the schema's phrases, token-matched (``phrases.py``), longest first; a
  heading or a lead-in line ("Refund windows by tier:") names it for the items below it;
* the value: of the attribute's type (``values.py``), nearest to the phrase; a bound ("up to",
  "within", "no later than") stays in the quote, the value is the number;
* the qualifiers: the schema's qualifier synonyms in the sentence ("for Enterprise customers",
  "Enterprise-tier"), kept only where the attribute declares that qualifier. A sentence gives
  one claim per attribute, or one per distinct qualifier value when it lists several
  ("60 days for Enterprise and 30 days for Standard customers").

The rules, and why each exists, are listed in ``docs/extraction.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .phrases import AttrRef, Match, Vocabulary, tokens
from .values import TYPED, Found, find_values

_COPULA = re.compile(
    r"^(?P<gap>[^.;:!?]{0,60}?)(?:\s(?:is|are|was|were|will be|has been|have been|remains|"
    r"stays|equals|means|=)\s+|\s*(?<!\d):(?!\d)\s*|\s[—–-]\s)(?P<v>[^;(]+)", re.IGNORECASE)
_VALUE_CUT = re.compile(r",\s|\s[—–-]\s|\.(?:\s|$)|\s\(|;")
_ABBREVIATION = re.compile(r"\b(?:dr|mr|mrs|ms|st|jr|sr|co|inc|ltd|corp|no|vs)$", re.IGNORECASE)


def _cut(raw: str, listing: bool = False) -> str:
    """A value up to where its clause ends: not at the full stop of "Dr." or "Inc.", and not
    at a comma that continues the value ("Monday to Friday, 08:00-18:00", "Jane Doe, CFO";
    every comma of a multi-valued attribute's list), only at one that starts a clause ("…,
    based in Lyon", "…, which …")."""
    for m in _VALUE_CUT.finditer(raw):
        if m.group().startswith(".") and _ABBREVIATION.search(raw[:m.start()]):
            continue
        if m.group().startswith(","):
            rest = raw[m.end():]
            if listing or not rest[:1].islower() or rest.startswith(("and ", "or ")):
                continue
        return raw[:m.start()]
    return raw


_BY = re.compile(r"\b(?:by|to|at|from|with|under)\s*$", re.IGNORECASE)
_DIRECT = re.compile(r"^\s*(?P<v>[^;(]+)")
_MAX_TEXT_VALUE_WORDS = 8
_CODE = r"(?:[A-Za-z]{0,4}\d[\w]*(?:[.:/-]\w+)+|[A-Za-z]+-?\d+\w*|\d+[A-Za-z]+\d*)"
_NEAR_CODE = re.compile(rf"^(?:\s+[a-z]+){{0,4}}?\s+(?P<v>{_CODE})(?=[\s.,;:)]|$)")
_NAME_BEFORE = re.compile(r"^\s*(?P<v>[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){1,3})\s+$")
# "is open 06:00-22:00", "are accepted 06:30-20:30" (a participle: any "-ed" word)
_OPEN_CODE = re.compile(rf"^(?i:open|opens|from|at|by|until|around|approximately|[a-z]{{3,}}ed)\s+"
                        rf"(?P<v>{_CODE}(?:\s+[A-Z]{{2,5}})?)$")  # "… 01:00-03:00 UTC"
_BARE_NUMBER = re.compile(r"^\s*(?:up to |about |~)?\d[\d,]*(?:\.\d+)?\s*$", re.IGNORECASE)
_FORMER = re.compile(
    r"\b(?:used to be|previously|formerly|no longer|was once|until recently|down from|"
    r"up from)\s+(?:(?:up to|about|around|roughly|approximately)\s+)?$", re.IGNORECASE)
_SUPERSEDED = re.compile(
    r"\b(?:from|no longer|previously|formerly|instead of|rather than|used to be|down from|"
    r"up from)\s+(?:(?:up to|about|around|roughly|approximately)\s+)?$", re.IGNORECASE)
_REVERSE = re.compile(
    r"^\s*(?P<v>[A-Z][^,;:()]*?)\s+(?:is|are|was|serves as|acts as|remains)\s+"
    r"(?:the|our|their|its|this|a|an)?\s*(?:\w+\s+)?$")
_MAX_GAP_WORDS = 6
_MAX_GAP_ONE_WORD = 7  # words between a one-word phrase ("fee") and its value
_MAX_GAP_WORDS_TYPED = 12
_LABEL = re.compile(r"^\s*(?P<l>[^:.;!?]{1,60}?)\s*(?::\s|:$|\s[—–]\s|\s(?:is|are|was|were)\s)")
_MAX_LABEL_WORDS = 7
_CLAUSE = re.compile(r"[;,]\s+(?:so|but|and|because|which|while|although|then)\b|;|\s(?:because|"
                     r"so that|although|whereas)\s", re.IGNORECASE)
# words a label may add to an attribute's phrase and still name that attribute
_MODIFIERS = frozenset(
    "for of on in at by with and to per our your their its all any each every customer client "
    "user member account tier plan level class type monthly annual yearly daily weekly hourly "
    "current standard maximum minimum max min total overall guaranteed default new base typical "
    "target committed contractual agreed official general usual normal applicable".split())
_BOUND_WORDS = re.compile(r"\b(?:up to|at most|no more than|not more than|within|no later than|"
                          r"maximum of|minimum of|at least|less than|more than)\b", re.IGNORECASE)
_BOOLEAN_VALUE = re.compile(
    r"^(?:(?:not\s)?(?:enabled|disabled|supported|included|available|required|allowed|"
    r"permitted|offered|provided|mandatory|accepted|active)|yes|no|true|false|on|off)\b",
    re.IGNORECASE)


@dataclass(frozen=True)
class Context:
    """What a heading or a lead-in line says about the lines below it."""

    attributes: tuple[AttrRef, ...] = ()
    qualifiers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Hit:
    ref: AttrRef
    value: str
    start: int  # of the value, in the text read
    end: int
    qualifiers: tuple[tuple[str, str], ...]


def context_of(vocab: Vocabulary, text: str) -> Context:
    """Attributes and qualifiers a heading or a lead-in names."""
    toks = tokens(text)
    attrs: list[AttrRef] = []
    for m in _outside_qualifiers(vocab, text):
        for ref in m.targets:
            if ref not in attrs:
                attrs.append(ref)
    quals = [t for m in vocab.qualifier_matches(text, toks) for t in m.targets]
    return Context(tuple(attrs), _one_per_qualifier(quals))


def _one_per_qualifier(pairs: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """At most one value per qualifier (the first named), sorted."""
    seen: dict[str, str] = {}
    for q, v in pairs:
        seen.setdefault(q, v)
    return tuple(sorted(seen.items()))


def _choose(targets: tuple, entity_type: str | None, text: str) -> AttrRef:
    """One attribute for a phrase several types declare: the record's own type, else one
    whose value type the text holds, else the first."""
    refs: list[AttrRef] = list(targets)
    own = [r for r in refs if r.entity_type == entity_type]
    if own:
        return own[0]
    for r in refs:
        if r.spec.type in TYPED and find_values(text, r.spec.type):
            return r
    return refs[0]


def _values(vocab: Vocabulary, ref: AttrRef, text: str, after: int,
            phrase_start: int | None = None) -> list[Found]:
    found = _candidates(vocab, ref, text, after, phrase_start)
    if ref.spec.type == "reference":
        # a reference names an entity: "Cobalt Logistics", not "11:30" ("our funding account
        # by 11:30 AM"), "2027-02-01" or "locked" ("my account is locked")
        found = [f for f in found if _NAME_LIKE.match(f.text) and not _TIME_OR_DATE.search(f.text)]
    return found


_NAME_LIKE = re.compile(r"^[A-Z]")
_TIME_OR_DATE = re.compile(r"\d{1,2}:\d{2}|\d{4}-\d{2}-\d{2}|^\d")


def _candidates(vocab: Vocabulary, ref: AttrRef, text: str, after: int,
                phrase_start: int | None = None) -> list[Found]:
    """Candidate values of ``ref``'s type in ``text``; text-like types take what follows a
    copula or colon after the attribute phrase (which ends at ``after``)."""
    t = ref.spec.type
    if t in TYPED:
        found = list(find_values(text, t))
        if not found and t == "money":
            # "annual revenue is 22 million": the schema's currency applies
            found = [f for f in find_values(text, "number") if not _is_small_count(f)]
        # "used to be 30 days", "no longer 30 days": an old value is no value of the attribute
        found = [f for f in found if not _FORMER.search(text[max(0, f.start - 30):f.start])]
        if t in ("number", "money"):
            # "customers with more than 500 employees", "fleets of 5 to 75 power units",
            # "revenue over $25 million": a bound or a range describes a class of things, it
            # is no one thing's count or amount
            found = [f for f in found if not _describes_class(text, f)]
        if t == "number":
            found = [f for f in found if _counts_it(text, f, ref)]
        if len(found) > 1:
            # "changed from 30 days to 45 days": the old value goes
            current = [f for f in found if not _SUPERSEDED.search(text[max(0, f.start - 30):f.start])]
            found = current or found
        return found
    if t == "enum":
        return [Found(m.start, m.end, text[m.start:m.end], "enum")
                for m in vocab.enum_matches(ref, text)]
    m = _COPULA.match(text[after:])
    if m and len(m["gap"].split()) <= _MAX_GAP_WORDS:
        v_start, raw = after + m.start("v"), m["v"]
    elif _BY.search(text[:after]) and (d := _DIRECT.match(text[after:])):
        # "owned by People Operations": the phrase ends in its preposition
        v_start, raw = after + d.start("v"), d["v"]
    elif phrase_start is not None and (r := _REVERSE.match(text[:phrase_start])):
        # "Dana Whitfield is the account manager": the value comes first
        value = r["v"].strip()
        if t == "boolean" or not value or len(value.split()) > _MAX_TEXT_VALUE_WORDS:
            return []
        return [Found(r.start("v"), r.start("v") + len(value), value, t)]
    elif t != "boolean" and (c := _NEAR_CODE.match(text[after:])):
        # "runs firmware 4.2.0", "cut-off 15:30": a code or time right after the phrase
        return [Found(after + c.start("v"), after + c.end("v"), c["v"], t)]
    elif (t != "boolean" and phrase_start is not None and not text[after:].strip(" .!")
          and (n := _NAME_BEFORE.match(text[:phrase_start]))):
        # "Hana Kobayashi manages the account.": a name, then the phrase ends the sentence
        # (a name followed by more is the sentence's subject, not its value)
        return [Found(n.start("v"), n.end("v"), n["v"], t)]
    else:
        return []
    listing = ref.spec.cardinality == "multi"
    raw = _cut(raw, listing)
    value = raw.strip().rstrip(".!?")
    if not value:
        return []
    v_start += len(raw) - len(raw.lstrip())
    if (o := _OPEN_CODE.match(value)) and t != "boolean":
        # "is open 06:00-22:00", "from 15:30": the code is the value
        v_start += o.start("v")
        value = o["v"]
    if t == "boolean":
        b = _BOOLEAN_VALUE.match(value)
        return [Found(v_start, v_start + b.end(), b.group(), t)] if b else []
    if len(value.split()) > (_MAX_TEXT_VALUE_WORDS * 2 if listing else _MAX_TEXT_VALUE_WORDS):
        return []
    return [Found(v_start, v_start + len(value), value, t)]


_CLASS_BOUND = re.compile(r"\b(?:over|above|under|below|beyond|exceeding|more\s+than|"
                          r"less\s+than|fewer\s+than|greater\s+than|between)\s+(?:[$€£]\s?)?$",
                          re.IGNORECASE)
_RANGE_END = re.compile(r"\d\s*(?:[$€£]\s?)?(?:[kKmM]|million|thousand|billion)?\s*(?:to|[-–])\s*"
                        r"(?:[$€£]\s?)?$", re.IGNORECASE)
_RANGE_START = re.compile(r"^\s*(?:[kKmM]\b|million\b|thousand\b|billion\b)?\s*(?:to|[-–]|and)\s*"
                          r"(?:[$€£]\s?)?\d", re.IGNORECASE)
_MONTH_BEFORE = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+$",
                           re.IGNORECASE)
_COUNTED_WORD = re.compile(r"^[\s-]+(?P<w>[A-Za-z][A-Za-z-]*)(?:\s+(?P<w2>[A-Za-z][A-Za-z-]*))?")
# words after a number that say nothing of what it counts ("10 or more", "4 per day")
_NOT_COUNTED = frozenset("or and to per a an the of in on at for by from with than total "
                         "each apiece max min".split())


def _describes_class(text: str, f: Found) -> bool:
    """A bound ("over 40", "more than 500") or either end of a range ("5 to 75") names a
    class of things, not one thing's value."""
    before = text[max(0, f.start - 30):f.start]
    return bool(_CLASS_BOUND.search(before) or _RANGE_END.search(before)
                or _RANGE_START.match(text[f.end:f.end + 20]))


def _counts_it(text: str, f: Found, ref: AttrRef) -> bool:
    """A count is its attribute's only when it counts what the attribute names: "640
    employees" is a headcount, "4 bank accounts" (beside "employees") and "one banking day"
    are counts of other things, and "January 20" is a day of a date."""
    if _MONTH_BEFORE.search(text[max(0, f.start - 12):f.start]):
        return False
    m = _COUNTED_WORD.match(text[f.end:f.end + 60])
    if m is None or m["w"].lower() in _NOT_COUNTED:
        return True
    own = {t for phrase in (ref.name, *ref.spec.phrases) for t, _, _ in tokens(phrase)}
    return any(t in own for t, _, _ in tokens(f"{m['w']} {m['w2'] or ''}"))


def _is_small_count(f: Found) -> bool:
    """A bare small number ("3 regions") is no amount of money; "22 million" may be one."""
    digits = f.text.replace(",", "")
    return not re.search(r"(?:k|m|bn|thousand|million|billion|trillion)$", f.text, re.I) and (
        not digits.replace(".", "").isdigit() or float(digits) < 1000)


def _residual(text: str, start: int, end: int, skip: list[tuple[int, int]]) -> list[str]:
    """Words of ``text[start:end]`` other than qualifier mentions, values and modifiers."""
    out = []
    for tok, s, e in tokens(text[start:end]):
        if tok in _MODIFIERS or any(start + s < qe and qs < start + e for qs, qe in skip):
            continue
        out.append(tok)
    return out


def _gap(text: str, m: Match, v: Found) -> str:
    return text[m.end:v.start] if v.start >= m.end else text[v.end:m.start]


def _words_between(text: str, m: Match, v: Found, qmatches: list[Match]) -> int:
    """Words between a phrase and a value, not counting qualifier mentions ("for Enterprise
    customers") or a bound ("up to"), which belong with the value."""
    lo, hi = (m.end, v.start) if v.start >= m.end else (v.end, m.start)
    gap = text[lo:hi]
    for q in qmatches:
        if lo <= q.start and q.end <= hi:
            gap = gap.replace(text[q.start:q.end], " ")
    return len(_BOUND_WORDS.sub(" ", gap).split())


def _distance(m: Match, v: Found) -> float:
    if v.start >= m.end:
        return v.start - m.end
    if v.end <= m.start:
        return (m.start - v.end) + 0.5  # a value after its phrase reads more naturally
    return 1e6  # overlapping: the phrase is not its own value


def sentence_hits(vocab: Vocabulary, text: str, entity_type: str | None,
                  context: Context = Context()) -> list[Hit]:
    """The canonical attributes ``text`` states, with value and qualifiers (spans in ``text``)."""
    if not context.attributes and not vocab.may_name_attribute(text):
        return []
    toks = tokens(text)
    matches = vocab.attribute_matches(text, toks)
    typed = [(f.start, f.end) for t in ("money", "percent", "duration", "date")
             for f in find_values(text, t)]
    # "10 business days" names no "Business" plan: words inside a value qualify nothing
    qmatches = [q for q in vocab.qualifier_matches(text, toks)
                if not any(q.start < e and s < q.end for s, e in typed)]
    # "Platinum plan" names a plan (a qualifier), not the attribute "plan"
    matches = [m for m in matches
               if not any(q.start <= m.start and m.end <= q.end for q in qmatches)]
    label = _LABEL.match(text)
    own_label = False
    if label and len(label["l"].split()) <= _MAX_LABEL_WORDS:
        end = label.end("l")
        qspans = [(q.start, q.end) for q in qmatches] + typed
        # "Product owner: …" is not the schema's "owner": a one-word phrase at the end of a
        # longer label names something more specific, unless the words before it qualify it
        matches = [m for m in matches if m.end > end or m.size > 1
                   or not _residual(text, label.start("l"), m.start, qspans)]
        # a label naming no attribute is its own (unmapped) attribute: no context applies
        own_label = not any(m.end <= end for m in matches) and bool(
            _residual(text, label.start("l"), end, qspans))
    pinned: list[tuple[Match, AttrRef]] = [(m, _choose(m.targets, entity_type, text))
                                           for m in matches]
    if not pinned and len(context.attributes) == 1 and not own_label:
        # a list item or row under a heading / lead-in that named the attribute
        pinned = [(Match(0, 0, 0, context.attributes), context.attributes[0])]
    if not pinned:
        return []
    blocked = [(m.start, m.end) for m in matches] + [(q.start, q.end) for q in qmatches]
    # every (phrase, value) pair by distance; each value goes to its nearest phrase
    pairs: list[tuple[float, int, int, Found]] = []
    for i, (m, ref) in enumerate(pinned):
        for v in _values(vocab, ref, text, m.end, m.start if m.size else None):
            if ref.spec.type != "enum" and any(v.start < e and s < v.end for s, e in blocked):
                continue
            if m.size and _words_between(text, m, v, qmatches) > (
                    _MAX_GAP_ONE_WORD if m.size == 1 else _MAX_GAP_WORDS_TYPED):
                continue  # too far: a one-word phrase names its value close by
            if m.size == 1 and _CLAUSE.search(_gap(text, m, v)):
                continue  # "34 days before the request, so I declined the return"
            pairs.append((_distance(m, v), -m.size, i, v))
    pairs.sort(key=lambda p: (p[0], p[1], p[2], p[3].start))
    taken_values: set[tuple[int, int]] = set()
    by_match: dict[int, list[Found]] = {}
    for dist, _, i, v in pairs:
        if dist >= 1e6 or (v.start, v.end) in taken_values:
            continue
        taken_values.add((v.start, v.end))
        by_match.setdefault(i, []).append(v)
    hits: list[Hit] = []
    seen: set[tuple] = set()
    for i, (m, ref) in enumerate(pinned):
        for hit in _hits_of(ref, by_match.get(i, []), qmatches, context):
            key = (hit.ref.entity_type, hit.ref.name, hit.qualifiers)
            if key not in seen:
                seen.add(key)
                hits.append(hit)
    return hits


def _hits_of(ref: AttrRef, values: list[Found], qmatches: list[Match],
             context: Context) -> list[Hit]:
    """One hit, or one per distinct value of a qualifier the sentence lists several of."""
    if not values:
        return []
    declared = set(ref.spec.qualifiers)
    mentions = [(q, name, canon) for q in qmatches for name, canon in q.targets
                if name in declared]
    base = {q: v for q, v in context.qualifiers if q in declared}
    values = sorted(values, key=lambda v: v.start)
    several = {name for _, name, _ in mentions
               if len({c for _, n, c in mentions if n == name}) > 1}
    if several and len(values) > 1:
        out: list[Hit] = []
        used: set[str] = set()
        for i, v in enumerate(values):
            quals = dict(base)
            for name in sorted(declared):
                named = list(dict.fromkeys(c for _, n, c in mentions if n == name))
                if len(named) == len(values):
                    # "24 hours for express and 96 hours for economy": in order, one each
                    quals[name] = named[i]
                    continue
                near = [(abs(q.start - v.start), canon) for q, n, canon in mentions if n == name]
                if near:
                    quals[name] = min(near)[1]
            key = tuple(sorted(quals.items()))
            if str(key) in used:
                continue
            used.add(str(key))
            out.append(Hit(ref, v.text, v.start, v.end, key))
        return out
    v = values[0]
    quals = dict(base)
    for name in sorted(declared):
        near = [(abs(q.start - v.start), canon) for q, n, canon in mentions if n == name]
        if near:
            quals[name] = min(near)[1]
    return [Hit(ref, v.text, v.start, v.end, tuple(sorted(quals.items())))]


# headers of a transposed table's value column: the row label is the attribute, the cell its value
def _words(text: str) -> str:
    return " ".join(t for t, _, _ in tokens(text))


_VALUE_HEADERS = frozenset(_words(w) for w in (
    "value", "values", "setting", "details", "amount", "current", "answer", "limit", "target"))
_LABEL_HEADERS = frozenset(_words(w) for w in (
    "attribute", "item", "term", "metric", "field", "setting", "parameter", "name"))


def _transposed(vocab: Vocabulary, ref: AttrRef, header: str, label_header: str | None) -> bool:
    """A row label names the attribute of its cells only in a transposed table: its columns
    are qualifier values of that attribute ("Uptime; Enterprise: 99.95%; Team: 99.9%") or a
    bare value column ("Refund window; Value: 30 days"), and the label column has no name of
    its own. A header that is a name of its own ("Role: Account Executive; Level: II; Band
    minimum: $90,000") heads its own attribute: "Account Executive" is the row, and the
    attribute "account" it happens to contain is not what the cells state."""
    if label_header and _words(label_header) not in _LABEL_HEADERS:
        return False
    if _words(header) in _VALUE_HEADERS:
        return True
    declared = set(ref.spec.qualifiers)
    return any(q in declared for q, _ in vocab.qualifier_of(header))


def _outside_qualifiers(vocab: Vocabulary, text: str) -> list[Match]:
    quals = vocab.qualifier_matches(text)
    return [m for m in vocab.attribute_matches(text)
            if not any(q.start <= m.start and m.end <= q.end for q in quals)]


def cell_hits(vocab: Vocabulary, header: str, label: str, cell: str, entity_type: str | None,
              context: Context = Context(), label_header: str | None = None) -> list[Hit]:
    """A table cell under ``header`` in the row labelled ``label``: the attribute is named by
    the header (or the label, in a transposed table, or the context); qualifiers by the
    label, the header and the context. Spans are in ``cell``."""
    h_attrs = _outside_qualifiers(vocab, header)
    l_attrs = _outside_qualifiers(vocab, label)
    if h_attrs:
        ref = _choose(h_attrs[0].targets, entity_type, cell)
    elif l_attrs and _transposed(vocab, _choose(l_attrs[0].targets, entity_type, cell),
                                 header, label_header):
        ref = _choose(l_attrs[0].targets, entity_type, cell)
    elif len(context.attributes) == 1:
        ref = context.attributes[0]
    else:
        return []
    declared = set(ref.spec.qualifiers)
    quals = {q: v for q, v in context.qualifiers if q in declared}
    for source in (label, header):
        for q, v in vocab.qualifier_of(source):
            if q in declared:
                quals[q] = v
    t = ref.spec.type
    if t in TYPED:
        found = find_values(cell, t)
        if not found and t in ("money", "duration", "percent") and _BARE_NUMBER.match(cell):
            # a column "Notice period (days)" holds bare numbers: the schema gives the unit
            found = find_values(cell, "number")
        if not found:
            return []
        v = found[0]
    elif t == "enum":
        em = vocab.enum_matches(ref, cell)
        if not em:
            return []
        v = Found(em[0].start, em[0].end, cell[em[0].start:em[0].end], t)
    else:
        value = cell.strip()
        if not value or len(value.split()) > _MAX_TEXT_VALUE_WORDS:
            return []
        if t == "boolean" and not _BOOLEAN_VALUE.match(value):
            return []
        start = cell.index(value)
        v = Found(start, start + len(value), value, t)
    return [Hit(ref, v.text, v.start, v.end, tuple(sorted(quals.items())))]

"""Prose facts stated across documents: sentences of different records that state one fact
(the same words around one value of one unit) become one induced attribute, so that equal-rank
sources stating it differently are an open contradiction and authority decides the others.

A product page says tests stay available offline "for up to 72 hours"; the review notes say
"the offline window in Assess is 48 hours, after which cached tests are wiped from the
device". Neither sentence names an attribute any schema declares, and no one surface phrase
is stated twice, so neither the schema nor phrase induction (induce.py) brings them together.
What they share is the fact's own words (``offline``, ``tests``, ``device``) and a value of
one kind and unit (hours).

Evidence, all of it required (a false merge makes a false contradiction):

* each sentence holds exactly one value of a duration, percentage or money amount, and is
  neither a question nor a hypothesis;
* two sentences of different records share at least ``MIN_SHARED_WORDS`` content words that
  are neither function words, general words (time, period, number …) nor words of any
  entity's name, and state values of the same unit;
* no record states two sentences of one group with different values (one record stating
  both says they differ).

Where a group's sentences name entities (``On a full charge Helio Warming Cabinet lasts 8
hours``), the attribute is declared on those entities' types, so each sentence is a fact of
the entity it names. Where none names one, the fact is company-wide (two runbooks' SEV1
acknowledgement time): the attribute gets a ``home``, the entity of the member whose name the
other sentences use most (else the first by id), and every sentence's fact is about it.

Pure and deterministic: a function of the records' sentences and entities only.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..tables import row_line
from .acronyms import acronyms_in, expand, glossary
from ..text import stem

if TYPE_CHECKING:
    from .index import Vocabulary
    from .induction import Induction, RecordFields

MIN_SHARED_WORDS = 3
MIN_CLAUSE_WORDS = 2  # of them in the clause that holds the value, in both sentences
MIN_SHARED_SHARE = 0.25  # of the shorter sentence's content words
MAX_POSTING = 200  # a word in more sentences than this says nothing of which fact
MAX_NAME_WORDS = 4
MAX_PHRASE_WORDS = 12
STATEMENT_MARK = "induced: one fact stated in several records' sentences"

_NUM = (r"(?:\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
        r"twelve|fifteen|twenty|thirty|forty|forty-eight|fifty|sixty|seventy-two|ninety)")
_DURATION = re.compile(
    rf"(?<![\w.-]){_NUM}(?:\s*-\s*|\s+)(?:business\s+|working\s+|calendar\s+)?"
    r"(minute|hour|day|week|month|year)s?\b", re.IGNORECASE)
_PERCENT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:%|percent\b)", re.IGNORECASE)
_MONEY = re.compile(r"(?:[$€£]\s?\d[\d,]*(?:\.\d+)?(?:\s?[kKmM]\b)?"
                    r"|\b\d[\d,]*(?:\.\d+)?\s?(?:USD|EUR|GBP)\b)")
_UNASSERTED = re.compile(r"\?\s*$|\bwhether\b|^\s*(?:if|unless|suppose|assuming)\b",
                         re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*")
# function words and words too general to say which fact a sentence states
_SKIP = frozenset("""
a an the of and or for to in on at by with from into onto within up after before under over
than least most every each all any some no not nor is are was were be been being has have had
do does did will would shall should can could may might must it its this that these those
there here their our your his her we you they he she them us who which what when where while
as so if then also only just about per via without until once more less very such other
time date number period count total rate value amount level size limit term new current
standard default maximum minimum max min first last general main data information day hour
week month year minute days hours weeks months years minutes business working calendar
percent usd eur gbp up keep keeps kept get gets make makes made
""".split())


# a calendar quarter a plan names ("ships in Q2 2027"): compared as text
_QUARTER = re.compile(r"(?<![\w-])Q[1-4]\s+(?:FY\s?)?(?:20)?\d{2}(?!\w|\.\d)")
# what a money amount is counted per ("$9.50 per gallon"): part of its unit, so a rate per
# gallon never meets a flat fee
_PER = re.compile(r"\s*(?:per\s+|/\s*|an?\s+|each\s+)(?:(?:calendar|fiscal|business|working|"
                  r"additional|extra)\s+)?([a-z]+)", re.IGNORECASE)
# a unit written short ("/hr", "a yr")
_UNIT_SHORT = {"hr": "hour", "hrs": "hour", "yr": "year", "yrs": "year", "mo": "month",
               "wk": "week", "min": "minute", "mi": "mile", "gal": "gallon"}
# a value the sentence says is replaced ("page after 10 minutes instead of 30 minutes"):
# the record states the other one
_REPLACED = re.compile(r"\b(?:instead\s+of|rather\s+than|replacing|down\s+from|up\s+from)"
                       r"\s+(?:the\s+|a\s+|an\s+)?(?:old\s+|previous\s+|former\s+)?$",
                       re.IGNORECASE)
# kinds whose unit (or shape) says a great deal: two shared words say which fact
_SPECIFIC_MIN_SHARED = 2


# the words _REPLACED ends on, anywhere in a text: without them no value of it is replaced
_REPLACED_ANYWHERE = re.compile(r"\b(?:instead\s+of|rather\s+than|replacing|down\s+from|up\s+from)",
                                re.IGNORECASE)


# memoised: one sentence is read by statement_rows (three ways), statement induction and
# restate's reread, each several times (70k calls for 18k sentences in a 3k-record compile);
# a pure function of the text, so a kept result is the one computing it again gives
@lru_cache(maxsize=32_768)
def _found(text: str) -> tuple[tuple[str, str, str, bool], ...]:
    """(kind, unit, value as written, replaced) of every typed value of ``text``."""
    out: list[tuple[str, str, str, bool]] = []
    maybe_replaced = _REPLACED_ANYWHERE.search(text) is not None

    def add(kind: str, unit: str, m: re.Match[str]) -> None:
        out.append((kind, unit, m.group(),
                    maybe_replaced and _REPLACED.search(text[:m.start()]) is not None))

    for m in _DURATION.finditer(text):
        add("duration", m.group(1).lower(), m)
    for m in _PERCENT.finditer(text):
        add("percent", "%", m)
    for m in _MONEY.finditer(text):
        per = _PER.match(text, m.end())
        unit = per.group(1).lower() if per else ""
        unit = _UNIT_SHORT.get(unit, unit.removesuffix("s") if len(unit) > 3 else unit)
        if unit and stem(unit) in _subject_words(text, m.start()):
            # "an expedited run is billed at $250 per run": the price of the thing the clause
            # is about, as "the expedited run costs $150" says it
            unit = ""
        add("money", unit, m)
    for m in _QUARTER.finditer(text):
        add("quarter", "", m)
    return tuple(out)


def _subject_words(text: str, at: int) -> set[str]:
    """Stems of the words before ``at`` that may say what a price is of: since the last
    amount, leaving out what amounts are per ("$80 per hour, or $95 per hour at night": the
    second is per hour too)."""
    before = text[:at]
    last = None
    for last in _MONEY.finditer(before):
        pass
    if last is not None:
        before = before[last.end():]
    if last is not None:
        before = re.sub(r"^\s*(?:an?|each)\s+\w+", " ", before, flags=re.IGNORECASE)
    before = re.sub(r"\bper\s+\w+", " ", before, flags=re.IGNORECASE)
    return {stem(w) for w in _WORD.findall(before.lower())}


def replaced_values(text: str) -> set[str]:
    """The values ``text`` says are replaced ("… instead of 30 minutes"), lower-cased."""
    if _REPLACED_ANYWHERE.search(text) is None:
        return set()  # read for every quote of every record: most say nothing is replaced
    return {v.lower() for _, _, v, gone in _found(text) if gone}


def statement_value(text: str) -> tuple[str, str, str] | None:
    """(kind, unit, value as written) of the one typed value a sentence holds: a duration
    (unit: minute, hour, day …), a percentage, a money amount (unit: what it is per) or a
    calendar quarter; None when it holds none, several, or is no assertion. A value the
    sentence says is replaced ("instead of 30 minutes") is not one it holds."""
    if _UNASSERTED.search(text):
        return None
    found = [f[:3] for f in _found(text) if not f[3]]
    if len(found) != 1:
        return None
    return found[0]


def statement_values(text: str) -> list[tuple[str, str, str]]:
    """Every kind's one value: "when fewer than 70% of gateways have reported for 15
    minutes" holds a percentage and a duration, and which of them states a fact other
    sentences state is for those sentences to say (the same unit). A kind with two values
    ("every 4 hours and kept for 30 days") gives none. Rates per different units ("$75 per
    hour, capped at $600 per stop") are as different as a duration and a percentage: each is
    offered (a flat amount beside them is one more kind)."""
    if _UNASSERTED.search(text):
        return []
    by_kind: dict[tuple[str, str], list[tuple[str, str, str]]] = defaultdict(list)
    for kind, unit, value, gone in _found(text):
        if not gone:
            by_kind[(kind, unit if kind == "money" else "")].append((kind, unit, value))
    return [vs[0] for _, vs in sorted(by_kind.items()) if len(vs) == 1]


def min_shared(kind: str, unit: str) -> int:
    """Content words two sentences must share to state one fact: a calendar quarter or a
    money rate per some unit ("per gallon", a content word itself) is rare enough that two
    do; a bare duration, percentage or amount needs three."""
    if kind == "quarter" or (kind == "money" and unit):
        return _SPECIFIC_MIN_SHARED
    return MIN_SHARED_WORDS


def value_type(kind: str) -> str:
    """The schema type of an attribute stating values of ``kind``."""
    return "text" if kind == "quarter" else kind


def row_sentence(quote: str) -> str | None:
    """A table row's line ("Charge: Refuelling; Amount: $9.50 per gallon; Notes: …") as the
    sentence its cells say together ("Refuelling, $9.50 per gallon, …"), so a row can state
    the fact a sentence elsewhere states; None when the quote is no row line."""
    row = row_line(quote, 0, len(quote))
    if row is None:
        return None
    return ", ".join([row.label.text, *(cell.text for _, cell in row.cells)])


_CLAUSE_SEP = re.compile(r";\s+|\s+[—–]\s+|,\s+(?=(?:and|but|so|while|whereas)\s)", re.IGNORECASE)
_CONDITION = re.compile(r"^\s*(?:if|unless)\b[^,]*,\s+", re.IGNORECASE)


# a count of a thing: "3 delivery attempts", "30 miles" (a number, then a plural noun, maybe
# with one word before it); read only where a clause holds no duration, percentage or money
_COUNT = re.compile(r"(?<![\w.,$€£-])(\d[\d,]*(?:\.\d+)?)\s+(?:([a-z]{3,})\s+)?([a-z]{3,}s)\b"
                    r"(?!\s*(?:%|percent\b))")


_CLASS_COUNT = re.compile(r"\b(?:over|above|under|below|beyond|exceeding|more\s+than|"
                          r"less\s+than|fewer\s+than|greater\s+than|between)\s+$|"
                          r"\d\s*(?:to|[-–])\s*$", re.IGNORECASE)
_RANGE_NEXT = re.compile(r"^\s*(?:to|[-–]|and)\s*\d", re.IGNORECASE)


def _count_value(text: str) -> tuple[str, str, str] | None:
    """("number", the counted noun's stem, value as written) of the one count a clause holds."""
    if _UNASSERTED.search(text) or _values_in(text):
        return None
    found = [m for m in _COUNT.finditer(text)
             if not re.fullmatch(r"(?:19|20)\d\d", m.group(1))
             # "accounts over 40 power units", "fleets of 5 to 75 power units": a bound or a
             # range's end describes a class of things, no one thing's count
             and not _CLASS_COUNT.search(text[max(0, m.start() - 30):m.start()])
             and not _RANGE_NEXT.match(text[m.end(1):m.end(1) + 12])]
    if len(found) != 1:
        return None
    m = found[0]
    return ("number", stem(m.group(3)), m.group())


def statement_clauses(text: str) -> list[tuple[str, tuple[str, str, str]]]:
    """See ``_statement_clauses`` (a fresh list: the kept one is shared)."""
    return list(_statement_clauses(text))


# memoised like _found: statement_rows, statement induction and restate's _loose each split
# the same sentence
@lru_cache(maxsize=16_384)
def _statement_clauses(text: str) -> tuple[tuple[str, tuple[str, str, str]], ...]:
    """The clauses of a sentence that each state one typed value, with it: the sentence
    itself when it holds one value; else each of its coordinated clauses ("We start renewals
    30 days before the auth expires, and the payer now takes up to 25 days") holding exactly
    one. A leading condition states nothing, its main clause does ("If no one is home, the
    courier makes 2 attempts"), unless the value is in the condition ("If the fee is 20%, …")."""
    cond = _CONDITION.match(text)
    if cond is not None and not text.rstrip().endswith("?"):
        if _values_in(text[:cond.end()]):
            if not _threshold(text[:cond.end()]):
                return ()
            # "If no acknowledgement arrives within 45 minutes, page the on-call": a rule's
            # trigger, its time limit stated as surely as the action it sets off
            text = text[re.match(r"\s*\w+\s+", text).end():]  # type: ignore[union-attr]
        else:
            text = text[cond.end():]
    if _UNASSERTED.search(text):
        return ()
    # one value of each kind it holds ("when fewer than 70% … have reported for 15 minutes":
    # which states the fact, the other sentences' unit says), or a count of a thing
    kept = [f for f in _found(text) if not f[3]]
    kinds = {f[0] for f in kept}
    if kept and len(kinds) == len(kept):
        return tuple((text, got) for got in statement_values(text))
    if not kept:
        got = _count_value(text)
        return ((text, got),) if got is not None else ()
    out = []
    for part in _CLAUSE_SEP.split(text):
        part = re.sub(r"^(?:and|but|so|while|whereas)\s+", "", part.strip(), flags=re.IGNORECASE)
        # "take a reading every 5 minutes and keep the last 30 days": two verbs' clauses
        pieces = re.split(r"\s+and\s+", part) if len(_values_in(part)) > 1 else [part]
        for piece in pieces:
            out += [(_own_part(piece, got), got) for got in statement_values(piece)]
    return tuple(out)


# a time limit: "within 45 minutes", "after 2 hours", "45 days before expiration"
_LIMIT_BEFORE = re.compile(r"\b(?:within|after|for|in|over|past|beyond|more\s+than|longer\s+than|"
                           r"at\s+least)\s+$", re.IGNORECASE)
_LIMIT_AFTER = re.compile(r"^\s+(?:before|after|of|past|prior\s+to|from)\b", re.IGNORECASE)


def _threshold(condition: str) -> bool:
    """A condition whose every value is a time limit ("if no carrier quote is in hand 45 days
    before expiration", "if no acknowledgement arrives within 45 minutes") states when a rule
    applies, unlike one supposing a value ("if the fee is 20%", "if it takes 3 days")."""
    found = [f for f in _found(condition) if not f[3]]
    if not found or any(kind != "duration" for kind, _, _, _ in found):
        return False
    for _, _, value, _ in found:
        at = condition.find(value)
        if not (_LIMIT_BEFORE.search(condition[:at])
                or _LIMIT_AFTER.match(condition[at + len(value):])):
            return False
    return True


def _own_part(text: str, got: tuple[str, str, str]) -> str:
    """``text`` without its comma-parted pieces holding another value of ``got``'s kind: a
    row's cell or an aside holding another amount ("…, capped at $600 per stop") says what
    that amount is, not what ``got`` is."""
    if got[0] != "money":
        return text
    parts = text.split(", ")
    kept = [p for p in parts
            if got[2] in p or not any(k == "money" for k, _, _, _ in _found(p))]
    return ", ".join(kept) if len(kept) < len(parts) else text


def _values_in(text: str) -> list[str]:
    return [v for _, _, v, _ in _found(text)]


def value_clause(text: str, value: str) -> str:
    """The clause of ``text`` (between semicolons) that holds ``value``: "Managers approve
    expense reports up to $2,500; anything above that needs the Finance Director's approval"
    states the $2,500 of expense reports, not of the director's approval."""
    for part in re.split(r";\s+|\s+[—–]\s+", text):
        if value in part:
            return part
    return text


# everyday English for "costs nothing": one word of the fact whichever a document writes
_FREE = re.compile(r"\b(?:free\s+of\s+charge|(?:at\s+)?no\s+(?:extra\s+|additional\s+)?"
                   r"(?:charge|cost)|without\s+(?:extra\s+)?charge|complimentary|free)\b",
                   re.IGNORECASE)


def content_words(text: str, names: frozenset[str] = frozenset()) -> dict[str, str]:
    """stem → the word as written, of the words of ``text`` that may say which fact it
    states (no function or general word, no number, no word of an entity's name)."""
    out: dict[str, str] = {}
    text = _FREE.sub("free", text)
    for m in _WORD.finditer(text):
        w = m.group()
        low = w.lower()
        if low in _SKIP or len(low) < 3:
            continue
        s = stem(low)
        if s in _SKIP or s in names or low in names:
            continue
        out.setdefault(s, low)
    return out


_AMOUNT = re.compile(r"\d[\d,]*(?:\.\d+)?")
_CLOSE = 3.0  # the largest ratio of two figures stated of one fact on weak evidence …
_CLOSE_STRONG = 6.0  # … and on three shared words or more


def figure(value: str) -> float | None:
    """The figure a value states ("$25,000" → 25000.0), None when it states none."""
    m = _AMOUNT.search(value)
    return float(m.group().replace(",", "")) if m is not None else None


def figure_span(figures: Sequence[float]) -> tuple[float, ...]:
    """(low, high): the members' figures' span widened to powers of two, so that an edit
    within it (48 hours → 36) leaves the induced attribute, and what depends on it, as it
    was; () when they state no positive figure."""
    sizes = [f for f in figures if f > 0]
    if not sizes:
        return ()
    return (2.0 ** math.floor(math.log2(min(sizes))), 2.0 ** math.ceil(math.log2(max(sizes))))


def near_figures(value: str, span: Sequence[float]) -> bool:
    """``value`` is of the size of the figures a fact was induced from (``figure_span``),
    within statement induction's strong evidence ratio (``_CLOSE_STRONG``): "a deductible of
    $1,500 per incident" is no reading of a fact stated as $25,000 and $50,000 per incident."""
    f = figure(value)
    if f is None or f <= 0 or len(span) != 2:
        return True
    return span[0] / _CLOSE_STRONG <= f <= span[1] * _CLOSE_STRONG


def _close(a: str, b: str, factor: float) -> bool:
    """Two figures within ``factor`` of each other (text values: True)."""
    x, y = _AMOUNT.search(a), _AMOUNT.search(b)
    if x is None or y is None:
        return True
    p, q = float(x.group().replace(",", "")), float(y.group().replace(",", ""))
    if p <= 0 or q <= 0:
        return p == q
    return max(p, q) / min(p, q) <= factor


@dataclass(frozen=True)
class _Said:
    rid: str
    entity: str
    entity_type: str
    text: str
    kind: str
    unit: str
    value: str
    words: dict[str, str]
    near: frozenset[str]  # the words of the clause holding the value
    about: str  # the known entity the sentence names ("" when none)


def _named(text: str, entities: dict[str, str]) -> str:
    """A known entity (page id) the sentence names in full (its slug's words in a row)."""
    from ..slug import slugify

    words = slugify(text).split("-")
    found = []
    for n in range(min(6, len(words)), 0, -1):
        for i in range(len(words) - n + 1):
            eid = entities.get("-".join(words[i:i + n]))
            if eid is not None and (n > 1 or len(words[i]) > 3):
                found.append(eid)
        if found:
            break
    return found[0] if len(set(found)) == 1 else ""


def _names_in(text: str, entities: dict[str, str]) -> frozenset[str]:
    """The words (and their stems) of every known entity's name the text says in full."""
    from ..slug import slugify

    words = slugify(text).split("-")
    out: set[str] = set()
    for n in range(1, min(6, len(words)) + 1):
        for i in range(len(words) - n + 1):
            run = words[i:i + n]
            if "-".join(run) in entities and (n > 1 or len(run[0]) > 3):
                out.update(run)
                out.update(stem(w) for w in run)
    return frozenset(out)


def cites(text: str, entity: str) -> bool:
    """``text`` names the document ``entity`` (a page id) by its title's last two words or
    more ("per the retention policy" of a "Student Data Retention Policy"): a sentence citing
    the document that states a fact shares one more word with its sentence."""
    from ..slug import slugify

    tail = _title_tail(entity)
    return bool(tail) and tail in f"-{slugify(text)}-"


def _title_tail(entity: str) -> str:
    """The last two words of a page id's name, as ``cites`` looks for them ("" if fewer)."""
    words = entity.split("/", 1)[-1].split("-")
    return f"-{'-'.join(words[-2:])}-" if len(words) >= 2 else ""


def induce_statements(records: Sequence[RecordFields], vocab: Vocabulary,
                      out: Induction) -> None:
    from .model import Attribute

    entities: dict[str, str] = {}  # slug of an entity's page name → its id
    for r in records:
        entities.setdefault(r.entity.split("/", 1)[-1], r.entity)
    # an acronym the corpus spells out says its phrase's words ("DW" of a "damage waiver")
    terms = glossary(entities, (t for r in records for t in r.statements))
    said: list[_Said] = []
    for r in records:
        rid = f"{r.system}/{r.instance}/{r.record_type}/{r.entity}"
        for sentence in r.statements:
            for text, got in statement_clauses(sentence):
                # the words of the names the clause says are no evidence of the fact; a
                # word a name merely shares ("assistance" of a "Financial Assistance
                # Policy" page) is the fact's own word
                named = _names_in(text, entities)
                # what an amount is per ("$2.85 per loaded mile") is its unit, shared by every
                # rate of that unit: no evidence of which fact
                # (the unit itself stays: a rate per gallon and one per gallon share it)
                text = re.sub(re.escape(got[2]) + r"\s+per\s+[\w-]+(?:\s+[\w-]+)?",
                              f"{got[2]} per {got[1]}" if got[0] == "money" and got[1]
                              else got[2], text)
                spelled = expand(text, terms)
                words = content_words(spelled, named)
                if len(words) < min_shared(got[0], got[1]):
                    continue
                near = frozenset(content_words(value_clause(spelled, got[2]), named))
                said.append(_Said(rid, r.entity, r.entity_type, text, *got, words, near,
                                  _named(text, entities)))
    if len(said) < 2:
        return
    posting: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for i, s in enumerate(said):
        for w in s.words:
            posting[(s.kind, s.unit, w)].append(i)
    pairs: Counter[tuple[int, int]] = Counter()
    for ids in posting.values():
        if len(ids) > MAX_POSTING:
            continue
        for x in range(len(ids)):
            for y in range(x + 1, len(ids)):
                pairs[(ids[x], ids[y])] += 1
    # ``cites`` of each pair, its slugs made once per sentence and page id: a pair's test
    # slugified both sentences again (tens of thousands of pairs: most of the stage's time)
    from ..slug import slugify

    slugs = [f"-{slugify(s.text)}-" for s in said]
    tails = {s.entity: _title_tail(s.entity) for s in said}
    linked: dict[tuple[int, int], int] = {}
    for (i, j), n in sorted(pairs.items()):
        a, b = said[i], said[j]
        if a.rid == b.rid:
            continue
        need = min_shared(a.kind, a.unit)
        if n + 1 < need:
            continue  # too few shared words even with a citation (most pairs)
        if a.entity != b.entity and ((tails[b.entity] and tails[b.entity] in slugs[i])
                                     or (tails[a.entity] and tails[a.entity] in slugs[j])):
            n += 1  # one sentence cites the other's document by its title
        if n < need:
            continue
        if not _close(a.value, b.value, _CLOSE if n < MIN_SHARED_WORDS else _CLOSE_STRONG):
            # two figures of one fact are of one size ($9.50 and $8.75 a gallon, 15 and 20
            # minutes), not $0.04 and $2.85 a mile or 2 and 24 hours; on the weak evidence of
            # two shared words (a rate's unit among them) closer still
            continue
        if n < MIN_SHARED_SHARE * min(len(a.words), len(b.words)):
            continue
        if len(a.near & b.words.keys()) < MIN_CLAUSE_WORDS or \
                len(b.near & a.words.keys()) < MIN_CLAUSE_WORDS:
            continue  # the shared words are another clause's, not the value's
        if a.about and b.about and a.about != b.about:
            continue  # two entities' own figures ("Helio lasts 8 hours", "Tessa lasts 10")
        linked[(i, j)] = n
    parent = list(range(len(said)))
    members_of: dict[int, list[int]] = {i: [i] for i in range(len(said))}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    # the best-evidenced pairs first; two groups join only when at least half the pairs
    # across them are linked too: a chain of two facts touching at one pair of sentences (an
    # escalation 14 days before a permit lapses, a reminder 30 days before it) stays two
    for (i, j), _n in sorted(linked.items(), key=lambda kv: (-kv[1], kv[0])):
        ri, rj = find(i), find(j)
        if ri == rj:
            continue
        across = [(min(x, y), max(x, y)) for x in members_of[ri] for y in members_of[rj]]
        if 2 * sum(1 for p in across if p in linked) < len(across):
            continue
        keep, gone = min(ri, rj), max(ri, rj)
        parent[gone] = keep
        members_of[keep] += members_of.pop(gone)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(said)):
        groups[find(i)].append(i)
    # what a record says is replaced ("instead of 30 minutes") it no longer states, though
    # another of its sentences tells the story ("the alert waited 30 minutes")
    replaced: dict[str, set[str]] = defaultdict(set)
    for r in records:
        rid = f"{r.system}/{r.instance}/{r.record_type}/{r.entity}"
        for text in r.statements:
            replaced[rid] |= replaced_values(text)
    taken = {a for (_, a) in out.attributes}
    for _, members in sorted(groups.items()):
        kept = [said[i] for i in members if said[i].value.lower() not in replaced[said[i].rid]]
        if len(kept) < 2:
            continue
        _declare(kept, vocab, out, taken, Attribute, terms)


def _declare(members: list[_Said], vocab: Vocabulary, out: Induction, taken: set[str],
             attribute_cls: Any, terms: dict[str, tuple[str, ...]] | None = None) -> None:
    by_record: dict[str, set[str]] = defaultdict(set)
    for s in members:
        by_record[s.rid].add(s.value.lower())
    if any(len(v) > 1 for v in by_record.values()) or len(by_record) < 2:
        return  # one record stating two values: they are not one fact
    abouts = {s.about for s in members if s.about}
    if len(abouts) > 1:
        return
    counts = Counter(w for s in members for w in s.words)
    shared = sorted((w for w, n in counts.items() if n >= 2), key=lambda w: (-counts[w], w))
    shared = shared[:MAX_PHRASE_WORDS]
    first = min(members, key=lambda s: (len(s.words), s.rid))
    order = [w for w in first.words if w in shared]
    written = {w: s.words[w] for s in sorted(members, key=lambda s: s.rid) for w in s.words}
    name = " ".join(first.words[w] for w in order[:MAX_NAME_WORDS])
    if not name or vocab.declared_anywhere(name) is not None or name in taken:
        return
    kind, unit = members[0].kind, members[0].unit
    spec: dict[str, Any] = {"type": value_type(kind), "induced": True,
                            "description": STATEMENT_MARK,
                            "phrases": (" ".join(written[w] for w in shared),
                                        *_definitions(members, shared, terms or {}))}
    if kind == "duration":
        spec["unit"] = unit + "s"
    if kind == "money":
        spec["currency"] = "USD"
        if unit:
            spec["unit"] = unit  # what the amount is per: a reading must say it too
    spec["figures"] = figure_span([f for s in members if (f := figure(s.value)) is not None])
    if abouts:
        about = next(iter(abouts))
        etype = about.split("/", 1)[0]
        home = about
    else:
        home = _home(members)
        etype = home.split("/", 1)[0]
    tname = vocab.type_name(etype) or etype
    spec["home"] = home.split("/", 1)[1]
    out.attributes[(tname, name)] = attribute_cls.model_validate(spec)
    taken.add(name)
    from .induction import InducedPhrase

    out.phrases.append(InducedPhrase(
        (tname,), name, kind, len(by_record),
        f"{len(by_record)} records' sentences share the words {', '.join(shared)} around one "
        f"{kind} value; about {spec['home']}"))


def _definitions(members: list[_Said], shared: list[str], terms: dict[str, tuple[str, ...]]
                 ) -> list[str]:
    """"DW (damage waiver)" for each acronym a member says whose phrase's words are among the
    shared ones: reading a sentence at link time (restate) spells it out as induction did."""
    out = []
    for acronym, words in sorted(terms.items()):
        if any(acronym in acronyms_in(s.text) for s in members) and \
                set(content_words(" ".join(words))) <= set(shared):
            out.append(f"{acronym} ({' '.join(words)})")
    return out


def _home(members: list[_Said]) -> str:
    """The entity a company-wide fact is about: the member's whose name's words the other
    sentences use most, else the first by id."""
    def used(s: _Said) -> int:
        words = set(s.entity.split("/", 1)[-1].split("-"))
        return sum(1 for o in members if o.entity != s.entity
                   for w in re.findall(r"[a-z0-9]+", o.text.lower()) if w in words and len(w) > 3)
    return max(sorted({s.entity: s for s in members}.values(), key=lambda s: s.entity),
               key=used).entity


# a value of one recognisable shape: a version (4.2.1) or a clock time or range (06:30-20:30)
_SHAPED = re.compile(r"(?<![\w.:])(?:v?\d+(?:\.\d+){2,3}|\d{1,2}:\d{2}(?:\s?[-–]\s?\d{1,2}:\d{2})?)"
                     r"(?![\w:]|\.\d)")


def shaped_value(text: str) -> str | None:
    """The one version or clock time a sentence holds (None: none, or several)."""
    if _UNASSERTED.search(text):
        return None
    found = {m.group() for m in _SHAPED.finditer(text)}
    return next(iter(found)) if len(found) == 1 else None


@lru_cache(maxsize=16_384)  # statement_rows and statement_support read each sentence's
def _kind_of_sentence(text: str) -> tuple[str, str | None] | None:
    """The value kind (and duration unit) of the one typed value a sentence holds, in the
    terms of phrase induction (``prose_kind``)."""
    if shaped_value(text) is not None:
        return ("code", None) if statement_value(text) is None else None
    got = statement_value(text)
    if got is None:
        return None
    kind, unit, _ = got
    return (kind, unit + "s") if kind == "duration" else (kind, None)


_COUNTED = re.compile(r"(?<![\w.,:/-])\d[\d,]*(?:\.\d+)?\s+([a-z][a-z-]*)", re.IGNORECASE)
_NUMBER = re.compile(r"\d")


def _counted(text: str) -> str | None:
    """The word (stemmed) the one number of a sentence counts ("has 400 beds in service":
    bed); None when the sentence holds no number, several, or one that counts nothing."""
    if _UNASSERTED.search(text) or len(re.findall(r"\d[\d,.]*", text)) != 1:
        return None
    m = _COUNTED.search(text)
    return stem(m.group(1).lower()) if m else None


def statement_support(records: Iterable[RecordFields], once: dict[str, set[str]],
                      kinds: dict[str, Counter[tuple[str, str | None]]],
                      stated: dict[str, dict[str, set[str]]]) -> dict[str, set[str]]:
    """Prose names only one record states as a fact ("The current firmware of Orbis Pulse
    Oximeter is 4.2.1"), that another record's sentence states too without the phrase
    shape ("Orbis Pulse Oximeter runs firmware 4.2.0 as current release"): every content
    word of the name, the entity it is stated of, and one value of its kind. {name: the
    records whose sentences state it}; phrase induction counts them as stating it."""
    from ..slug import slugify

    wanted = {}
    for name, rids in once.items():
        words = frozenset(content_words(name))
        kind = max(sorted(kinds[name].items(), key=lambda kv: str(kv[0])), key=lambda kv: kv[1])[0]
        if words and kind[0] != "text":
            wanted[name] = (words, kind, set(stated[name]))
    out: dict[str, set[str]] = defaultdict(set)
    if not wanted:
        return out
    for r in records:
        rid = f"{r.system}/{r.instance}/{r.record_type}/{r.entity}"
        for text in r.statements:
            kind = _kind_of_sentence(text)
            counted = _counted(text)
            if kind is None and counted is None:
                continue
            words = frozenset(content_words(text))
            slug = f"-{slugify(text)}-"
            for name, (need, nkind, abouts) in wanted.items():
                if rid in once[name] or not need <= words:
                    continue
                if nkind[0] == "number":
                    # a count says what it counts: "has 400 beds in service" states `bed
                    # count` when the counted word is one of the name's
                    if counted is None or counted not in need:
                        continue
                elif kind is None or nkind[0] != kind[0]:
                    continue
                if nkind[0] == "duration" and nkind[1] != kind[1]:
                    continue
                if any(f"-{a}-" in slug for a in abouts):
                    out[name].add(rid)
    return out


def statement_rows(claims: Iterable[dict[str, Any]]) -> list[str]:
    """The sentences of an extraction's statements (and its table rows' cells) that hold one
    typed or shaped value, or one number counting something."""
    said = {str(c["value"]) for c in claims if c.get("kind") == "statement"}
    # a fact's sentence holding another value ("they have 60 days after the contract end, so
    # the deadline is 2026-11-29" read as a due date) may state that one too
    said |= {text for c in claims if c.get("kind") == "fact" and not c.get("row")
             and (text := " ".join(str(c.get("quote", "")).split()))
             and any(v.lower() != str(c.get("value", "")).lower()
                     and v not in str(c.get("value", "")) and str(c.get("value", "")) not in v
                     for _, (_, _, v) in statement_clauses(text))}
    # a table row states a fact too, in its cells together (row_sentence)
    said |= {text for c in claims if c.get("kind") == "fact" and c.get("row")
             and (text := row_sentence(str(c.get("quote", "")))) is not None}
    return sorted(t for t in said if _kind_of_sentence(t) is not None or statement_clauses(t)
                  or _counted(t) is not None)

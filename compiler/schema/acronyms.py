"""Acronyms a corpus defines, so that a sentence saying "DW" and one saying "damage waiver"
can be seen to state one fact ("Per DW we cover up to $25,000 per incident" / "The damage
waiver pays up to $50,000 per incident").

An acronym is defined only by the corpus's own words, and only where that reading is the one
reading it has:

* a definition a sentence gives: "The Damage Waiver (DW) limits …";
* else a run of words of a document's name whose initials spell it ("CE" of a "Producer
  Licensing and Continuing Education Policy"; "COI" of a "Certificate of Insurance Issuance
  Policy", a linking word's initial counted or not). A whole name is no term: "DW" of a
  "Dana Whitfield" is a person's initials, not a phrase the corpus writes out.

Two readings (two definitions, or two names' runs) define nothing: an acronym of two letters
is spelled by chance often enough that a guess would join unrelated facts. Pure: a function
of the names and sentences given.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from functools import lru_cache

# two to five capitals, a plural "s" allowed ("COIs"); not inside a word or a code ("SEV-1")
_ACRONYM = re.compile(r"(?<![\w-])([A-Z]{2,5})s?(?![\w-])")
# words that join a phrase: an acronym may or may not keep their initial ("COI", "P&L")
_LINKING = frozenset({"of", "and", "for", "the", "to", "on", "in", "&"})
# capitals that are no abbreviation of a phrase a corpus spells out: times of day, time zones,
# countries, everyday shorthand
_NOT_DEFINED = frozenset("""
AM PM ET PT CT MT UTC GMT EST PST CST EDT PDT US USA UK EU OK ID FAQ ASAP FYI TBD NA
""".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def acronyms_in(text: str) -> set[str]:
    """The capitalised words of ``text`` that may be acronyms ("DW", "COIs" → "COI")."""
    return {m.group(1) for m in _ACRONYM.finditer(text) if m.group(1) not in _NOT_DEFINED}


def _spells(words: list[str], acronym: str) -> bool:
    """The words' initials spell ``acronym``, a linking word's initial counted or skipped;
    the run starts and ends with a word of its own (no linking word)."""
    if not words or words[0].lower() in _LINKING or words[-1].lower() in _LINKING:
        return False
    letters = acronym.lower()

    def fits(i: int, j: int) -> bool:
        if i == len(words):
            return j == len(letters)
        w = words[i].lower()
        if j < len(letters) and w[0] == letters[j] and fits(i + 1, j + 1):
            return True
        return w in _LINKING and fits(i + 1, j)

    return fits(0, 0)


# memoised: a re-run of induction after an edit reads the same documents' names again
@lru_cache(maxsize=65_536)
def _name_terms(words: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(acronym, run) for each run of a name's words that spells one; never the whole name
    ("Dana Whitfield" is someone, "DW" their initials, not a term's)."""
    out = []
    for i in range(len(words)):
        for j in range(i + 2, min(len(words), i + 9) + 1):
            if i == 0 and j == len(words):
                continue
            out += [(a, words[i:j]) for a in sorted(_spellings(words[i:j]))]
    return tuple(out)


def _spellings(run: tuple[str, ...]) -> set[str]:
    """The acronyms a run of words spells (upper case): each word's initial, a linking
    word's kept or not; none when the run starts or ends with a linking word."""
    if run[0] in _LINKING or run[-1] in _LINKING or not all(w[:1].isalpha() or w == "&"
                                                            for w in run):
        return set()
    out = {""}
    for w in run:
        initial = w[0].upper()
        out = {a + initial for a in out} | (out if w in _LINKING else set())
        if len(out) > 64:
            return set()
    return {a for a in out if 2 <= len(a) <= 5}


def _defined_in(sentence: str, acronym: str) -> set[tuple[str, ...]]:
    """Phrases ``sentence`` defines ``acronym`` as: the words right before "(ACR)"."""
    out: set[tuple[str, ...]] = set()
    for m in re.finditer(rf"\(\s*{acronym}s?\s*\)", sentence):
        before = _WORD.findall(sentence[max(0, m.start() - 120):m.start()])
        for n in range(len(acronym), min(len(before), 2 * len(acronym)) + 1):
            run = before[-n:]
            if _spells(run, acronym):
                out.add(tuple(w.lower() for w in run))
                break
    return out


def glossary(names: Iterable[str], sentences: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """{acronym: the words of the one phrase it abbreviates} for each acronym the sentences
    use that one definition, else one run of a name's words, spells out. ``names`` are
    documents' names as words or slugs ("equipment-damage-waiver-policy")."""
    sentences = list(sentences)
    wanted: set[str] = set()
    for s in sentences:
        wanted |= acronyms_in(s)
    if not wanted:
        return {}
    defined: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    for s in sentences:
        for acronym in acronyms_in(s) & wanted:
            defined[acronym] |= _defined_in(s, acronym)
    runs: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    name_words = {tuple(w.lower() for w in re.split(r"[\s_/-]+", n) if w) for n in names}
    for words in name_words:
        for acronym, run in _name_terms(words):
            if acronym in wanted:
                runs[acronym].add(run)
    out: dict[str, tuple[str, ...]] = {}
    for acronym in sorted(wanted):
        found = defined[acronym] or runs[acronym]
        if len(found) == 1:
            out[acronym] = next(iter(found))
    return out


def expand(text: str, terms: Mapping[str, tuple[str, ...]]) -> str:
    """``text`` with each defined acronym written out ("Per DW we cover" → "Per damage
    waiver we cover"), for comparing its words; values and everything else unchanged."""
    if not terms:
        return text

    def spelled(m: re.Match[str]) -> str:
        words = terms.get(m.group(1))
        return " ".join(words) if words else m.group()

    return _ACRONYM.sub(spelled, text)

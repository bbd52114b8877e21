"""Acronyms a question uses that the wiki never does ("which *CSM* manages …" of a wiki that
says "customer success manager"): spelled out from the wiki's own words, else from a small list
of everyday business acronyms.

The wiki's words come first: a definition its sources give ("Customer Success Manager (CSM)",
"CSM (customer success manager)"), else a phrase of its attribute names or page titles whose
words' initials spell the acronym (three letters or more: two initials match too much by
chance). An acronym the wiki itself uses is left alone: its pages answer to it as written.
"""

from __future__ import annotations

import re
from collections import Counter

from ..state import State
from .text import STOPWORDS

# everyday business acronyms (no company's own): used when the wiki neither uses nor spells out
# the acronym. "AM"/"PM" are times of day as often as roles, so they are not here.
GENERAL: dict[str, str] = {
    "csm": "customer success manager", "ae": "account executive",
    "sla": "service level agreement", "eta": "estimated time of arrival",
    "arr": "annual recurring revenue", "mrr": "monthly recurring revenue",
    "po": "purchase order", "sow": "statement of work", "nda": "non-disclosure agreement",
    "rma": "return merchandise authorisation", "poc": "proof of concept",
    "qbr": "quarterly business review", "pto": "paid time off", "hr": "human resources",
    "ceo": "chief executive officer", "cfo": "chief financial officer",
    "cto": "chief technology officer", "coo": "chief operating officer",
    "vp": "vice president", "kpi": "key performance indicator",
    "rfp": "request for proposal", "eol": "end of life",
}

_ACRONYM = re.compile(r"\b([A-Z]{2,6})(s?)\b")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def acronyms_in(question: str) -> list[str]:
    """The upper-case words of a question that may be acronyms ("CSM", "SLAs"), upper case."""
    return list(dict.fromkeys(m.group(1) for m in _ACRONYM.finditer(question)))


def _initials_match(words: list[str], acronym: str) -> bool:
    return (len(words) == len(acronym)
            and all(w[0].lower() == a for w, a in zip(words, acronym.lower()))
            and not any(w.lower() in STOPWORDS for w in words))


def _definitions(state: State, acronym: str) -> Counter:
    """Phrases the sources define the acronym as: "Phrase Words (ACR)" or "ACR (phrase words)"."""
    n = len(acronym)
    found: Counter = Counter()
    before = re.compile(r"((?:[A-Za-z][A-Za-z'-]*[\s-]+){%d})\(\s*%s\s*\)" % (n, acronym))
    after = re.compile(r"\b%s\s*\(\s*((?:[A-Za-z][A-Za-z'-]*[\s-]*){%d})\)" % (acronym, n))
    texts: list[str] = []
    for table, column in (("records_fts", "text"), ("claims_fts", "quote")):
        try:
            texts += [t for (t,) in state.db.execute(
                f"SELECT {column} FROM {table} WHERE {table} MATCH ? LIMIT 50",
                (f'"{acronym.lower()}"',)) if t]
        except Exception:  # noqa: BLE001 - an index this state lacks defines nothing
            continue
    for text in texts:
        for m in (*before.finditer(text), *after.finditer(text)):
            words = _WORD.findall(m.group(1))
            if _initials_match(words, acronym):
                found[" ".join(w.lower() for w in words)] += 1
    return found


def _spelled_out(state: State, acronym: str) -> Counter:
    """Phrases of the wiki's attribute names and page titles whose initials spell it."""
    n = len(acronym)
    found: Counter = Counter()
    rows = state.attribute_names()
    rows += [t for (t,) in state.db.execute("SELECT title FROM pages")]
    # a phrase stands within one part of a name: "Granite Peak - St Luke's Expansion" holds
    # no "GPS"
    parts = [p for text in rows for p in _NAME_PARTS.split(text or "")]
    for text in parts:
        words = _WORD.findall(text)
        for i in range(len(words) - n + 1):
            if _initials_match(words[i:i + n], acronym):
                found[" ".join(w.lower() for w in words[i:i + n])] += 1
    return found


_NAME_PARTS = re.compile(r"\s[-–—|/:]\s|[,;:()\[\]|]")


def expansion(state: State, acronym: str) -> str:
    """What the acronym stands for in this wiki, or in everyday business English, or ""."""
    for found in (_definitions(state, acronym),
                  _spelled_out(state, acronym) if len(acronym) >= 3 else Counter()):
        if not found:
            continue
        best = found.most_common()
        if len(best) == 1 or best[0][1] > best[1][1]:
            return best[0][0]
        general = GENERAL.get(acronym.lower())
        if general in found:
            return general  # a tie the everyday meaning settles
        return ""  # two spellings as likely: guessing would answer another question
    return GENERAL.get(acronym.lower(), "")


def spell_out(question: str, state: State, known) -> str:  # noqa: ANN001
    """The question with every acronym the wiki does not use (``known(word)`` false) spelled
    out; the question unchanged when it has none."""
    for acronym in acronyms_in(question):
        if known(acronym):
            continue
        words = expansion(state, acronym)
        if words:
            question = re.sub(r"\b%ss?\b" % acronym, words, question)
    return question

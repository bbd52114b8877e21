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


# two-letter acronyms that name a role when a question uses them as a noun ("what does *an AM*
# get"), and a time of day after a number ("9 AM"): only read in a noun's place
ROLES: dict[str, str] = {"am": "account manager", "ae": "account executive",
                         "se": "sales engineer", "bd": "business development"}
# a determiner before it, or a possessive after it: the acronym is a noun, not "9 AM"
_AS_NOUN = r"(?:\b(?:a|an|the|our|your|their|my|his|her|each|every|any|which|what|per)\s+%s\b|" \
    r"\b%s'?s\b)"


def _role_spelled_out(state: State, acronym: str) -> Counter:
    """Phrases of the wiki's attribute names (not page titles, where people's names spell any
    two letters) whose initials spell a two-letter acronym and whose head names someone
    ("account manager")."""
    from .coverage import names_an_agent  # late: coverage imports the text helpers
    found: Counter = Counter()
    for text in state.attribute_names():
        for part in _NAME_PARTS.split(text or ""):
            words = _WORD.findall(part)
            for i in range(len(words) - 1):
                if _initials_match(words[i:i + 2], acronym) and names_an_agent(
                        " ".join(words[i:i + 2])):
                    found[" ".join(w.lower() for w in words[i:i + 2])] += 1
    return found


def _as_role(question: str, acronym: str) -> bool:
    return len(acronym) == 2 and bool(re.search(_AS_NOUN % (acronym, acronym), question)) \
        and not re.search(r"\d\s*%s\b" % acronym, question)


def expansion(state: State, acronym: str, question: str = "") -> str:
    """What the acronym stands for in this wiki, or in everyday business English, or "".
    A two-letter one used as a noun ("an AM") may be a role the wiki's attributes name."""
    role = _as_role(question, acronym)
    for found in (_definitions(state, acronym),
                  _spelled_out(state, acronym) if len(acronym) >= 3 else
                  _role_spelled_out(state, acronym) if role else Counter()):
        if not found:
            continue
        best = found.most_common()
        if len(best) == 1 or best[0][1] > best[1][1]:
            return best[0][0]
        general = GENERAL.get(acronym.lower())
        if general in found:
            return general  # a tie the everyday meaning settles
        return ""  # two spellings as likely: guessing would answer another question
    return GENERAL.get(acronym.lower(), "") or (ROLES.get(acronym.lower(), "") if role else "")


def spell_out(question: str, state: State, known) -> str:  # noqa: ANN001
    """The question with every acronym the wiki does not use (``known(word)`` false) spelled
    out; the question unchanged when it has none."""
    for acronym in acronyms_in(question):
        # (a two-letter role, "an AM", is "known" to any wiki that says "9 AM" or "I am")
        if known(acronym) and not _as_role(question, acronym):
            continue
        words = expansion(state, acronym, question)
        if words:
            question = re.sub(r"\b%ss?\b" % acronym, words, question)
    return question

"""Questions of several clauses ("Who leads X, and what does Y cost?"): their clauses, the
anaphors a later clause refers to an earlier one by, and merging their evidence."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .lexicon import PREAMBLE
from .text import question_terms

_CLAUSE = re.compile(r"\s*(?:,|;|\band\b|\balso\b)\s+(?=(?:who|what|when|where|which|how|"
                     r"is|are|does|do|can)(?:['\u2019]s\b|\b(?!['\u2019])))", re.I)
# ("… and can't remember" asks nothing; "…, and what's their title?" does)


# a later clause's reference to what an earlier one is about
_ANAPHOR = re.compile(r"\b(?:(?:that|this|the same|the)\s+(?:account|product|company|customer|"
                      r"deal|opportunity|device|site|team|person|contact|ticket|policy)(?:'s)?|"
                      # "…, and which manager looks after *that district*": any noun after a
                      # demonstrative that ends the clause or is followed by a preposition (not
                      # "the plan *that covers* …", a relative clause)
                      r"(?:that|this|the same|said)\s+(?!is\b|was\b|are\b|were\b|has\b|have\b|"
                      r"had\b|does\b|did\b|can\b|will\b|would\b)[a-z]+(?:'s)?"
                      r"(?=\s*[?.!]?\s*$|\s+(?:in|on|at|for|of|to|with|by|from|under)\b)|"
                      r"them|they|their|it|its)\b", re.I)


def split_question(question: str) -> list[str]:
    """The clauses of a question that asks several things, each starting with a question
    word ("Who …, and what …?"); a one-clause question is returned whole. What the question
    says before its first clause to set the scene (a sentence that asks nothing, "Signing a new
    Plus customer."; a topic put first, "cobalt logistics - …", "video visits: …"; a lead-in,
    "For an Enterprise customer, …") is said of every clause, each asked with it (answer7)."""
    return split_clauses(question)[0]


def split_clauses(question: str) -> tuple[list[str], list[str]]:
    """(:func:`split_question`'s clauses, the same clauses as the question says them, without
    the scene it set before them)."""
    body = PREAMBLE.sub("", question, count=1)
    context, body = _context(body)
    parts = [p.strip(" ,;?") for p in _CLAUSE.split(body)]
    parts = [p for p in parts if p and p.lower() not in ("and", "also")]
    # a condition ("If a customer reports a fault, how soon …") is context, not a question
    # … and so is a short lead-in that asks nothing ("Under the MDR, what class is …", "Hey,
    # which …")
    if len(parts) > 1 and (_CONDITION.match(parts[0]) or (
            not _ASKS.match(parts[0]) and len(parts[0].split()) <= 4)):
        if context is None and len(parts) > 2:
            # (answer7) "For an Enterprise customer, what's X and how quickly Y?": the lead-in
            # is said of each clause after it
            context = (parts[0], ", ")
            parts = parts[1:]
        else:
            parts = [parts[0] + ", " + parts[1], *parts[2:]]
    if len(parts) < 2 or not all(question_terms(p) for p in parts):
        return [question], [question]
    if context is None:
        return parts, parts
    text, glue = context
    return [f"{text}{glue}{p}" for p in parts], parts


# (answer7) what a question says before its first clause, said of each clause:
# a sentence that asks nothing, then the question ("Signing a new Plus customer. What's …")
_SCENE = re.compile(r"^(?P<ctx>.*?[^\s.?!]{2,}[.!])\s+(?P<rest>(?:who|whom|whose|what|when|where|"
                    r"which|how|is|are|was|were|does|do|did|can|could)(?:['\u2019]s\b|\b).*)$",
                    re.I | re.S)
# a topic put first, then the question ("cobalt logistics - who's …", "video visits: what's …")
_TOPIC = re.compile(r"^(?P<ctx>[^:?;,.]{3,60}?)\s*(?::|\s[-\u2013\u2014]\s|\u2014)\s*"
                    r"(?P<rest>(?:who|whom|whose|what|when|where|which|how|is|are|was|were|"
                    r"does|do|did|can|could)(?:['\u2019]s\b|\b).*)$", re.I | re.S)


def _context(question: str) -> tuple[tuple[str, str] | None, str]:
    """(the scene a question sets before its clauses and the glue that joins it to each, the
    rest), or (None, the question) when it sets none or asks only one thing."""
    for pattern, glue in ((_SCENE, " "), (_TOPIC, " - ")):
        m = pattern.match(question)
        if m is None or _ASKS.match(m.group("ctx")) or "?" in m.group("ctx"):
            continue
        rest = m.group("rest")
        if len([p for p in _CLAUSE.split(rest) if p.strip(" ,;?")
                and p.strip(" ,;?").lower() not in ("and", "also")]) < 2:
            continue  # one clause: the question is asked whole, as before
        ctx = m.group("ctx").strip()
        return (ctx if glue == " " else ctx.rstrip(" -:\u2013\u2014"), glue), rest
    return None, question


# "The customer that asked for X - when is *their* contract up?", "The contractor on the
# claim: who are *they*, and …": a noun phrase put first, then questions that refer to it
_FRONTED = re.compile(r"^\s*(?P<topic>(?:the|a|an|our|that|this)\s+[^:?;]{3,}?)\s*"
                      r"(?::|\s[-\u2013\u2014]\s|\u2014)\s*"
                      r"(?P<rest>(?:who|whom|whose|what|when|where|which|how|is|are|was|were|"
                      r"does|do|did|can)\b.*)$", re.I | re.S)
# a clause that asks only who or what the fronted phrase is (the topic's own clause asks it)
_IDENTITY = re.compile(r"^\s*(?:who|what)(?:'s|\s+(?:is|are|was|were))\s+(?:they|it|he|she|"
                       r"that|this|them)\s*$", re.I)
# words that start what describes a fronted noun ("the customer *that* asked", "the deal *with* …")
_DESCRIBES = frozenset("that who which whose where on in at for with from of over about behind "
                       "under".split())
# nouns naming someone: a fronted phrase about one is asked "who is …"
_SOMEONE = frozenset("""customer client account buyer contact person company firm organisation
    organization vendor supplier provider partner contractor subcontractor carrier courier
    agency bank insurer colleague employee manager engineer owner team department
    distributor dealer reseller tenant landlord""".split())


def fronted(question: str) -> list[str] | None:
    """The clauses of a question whose first words are a noun phrase it then refers back to
    ("The customer that asked for X - when is their contract up?"): the phrase asked as a
    clause of its own first ("who is the customer that asked for X"), so that the later
    "their" is what it answered with; None when the question is not of that shape."""
    m = _FRONTED.match(question)
    if not m or not _ANAPHOR.search(m.group("rest")):
        return None
    words = m.group("topic").split()
    noun, tail = words[1].rstrip(","), words[2:]
    if not any(w.lower() in _DESCRIBES or w.lower().endswith("ing") for w in tail):
        return None  # "The Lyon depot: who runs it?" names its topic, asks nothing of it
    if tail and tail[0].lower().endswith("ing"):
        # "the contractor *fighting* us": a reduced relative clause ("that is fighting us"),
        # not a noun phrase going on
        tail = ["that", "is", *tail]
    asked = (f"{'who' if noun.lower().rstrip('s') in _SOMEONE else 'what'} is the "
             f"{' '.join([noun, *tail])}")
    said = [p.strip(" ,;?") for p in _CLAUSE.split(m.group("rest"))]
    said = [p for p in said if p and p.lower() not in ("and", "also") and not _IDENTITY.match(p)]
    return [asked, *split_question(", and ".join(said))] if said else [asked]


# the noun phrase a clause ends with ("which branch first noticed *the September outage*")
_LAST_PHRASE = re.compile(r"\b(?:the|a|an|this|that|our|its|their)\s+(?:[\w'&-]+\s+){0,5}?"
                          r"[\w'&-]+\s*[?.!]?\s*$", re.I)


def elided_topic(clause: str) -> str:
    """What an earlier clause is about, for a later one that leaves it out ("…, and what was
    the underlying cause?" of the outage the first clause names): the noun phrase it ends
    with, or ""."""
    m = _LAST_PHRASE.search(clause)
    return m.group(0).strip(" ?.!") if m else ""


_ASKS = re.compile(r"\s*(?:who|whom|whose|what|when|where|which|why|how|is|are|was|were|does|do|"
                   r"did|can|could|will|would|should|has|have|may|must)\b", re.I)
_CONDITION = re.compile(r"\s*(?:if|when(?!\s+(?:is|are|was|were|does|do|did|will|would|can|could|"
                        r"should|must|has|have)\b)|once|after|before|in case|suppose|assuming|"
                        r"say)\b", re.I)
# ("when *is* it supposed to open" asks a time; "when a customer reports a fault" sets one)


def _interleave(lists: Sequence[Sequence], ident) -> list:  # noqa: ANN001
    out, seen = [], set()
    for i in range(max((len(x) for x in lists), default=0)):
        for x in lists:
            if i < len(x) and ident(x[i]) not in seen:
                seen.add(ident(x[i]))
                out.append(x[i])
    return out

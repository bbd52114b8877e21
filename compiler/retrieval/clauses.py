"""Questions of several clauses ("Who leads X, and what does Y cost?"): their clauses, the
anaphors a later clause refers to an earlier one by, and merging their evidence."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .lexicon import PREAMBLE
from .text import question_terms

_CLAUSE = re.compile(r"\s*(?:,|;|\band\b|\balso\b)\s+(?=(?:who|what|when|where|which|how|"
                     r"is|are|does|do|can)\b(?!'))", re.I)  # "… and can't remember" asks nothing


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
    word ("Who …, and what …?"); a one-clause question is returned whole."""
    parts = [p.strip(" ,;?") for p in _CLAUSE.split(PREAMBLE.sub("", question, count=1))]
    parts = [p for p in parts if p and p.lower() not in ("and", "also")]
    # a condition ("If a customer reports a fault, how soon …") is context, not a question
    # … and so is a short lead-in that asks nothing ("Under the MDR, what class is …", "Hey,
    # which …")
    if len(parts) > 1 and (_CONDITION.match(parts[0]) or (
            not _ASKS.match(parts[0]) and len(parts[0].split()) <= 4)):
        parts = [parts[0] + ", " + parts[1], *parts[2:]]
    return parts if len(parts) > 1 and all(question_terms(p) for p in parts) else [question]


_ASKS = re.compile(r"\s*(?:who|whom|whose|what|when|where|which|why|how|is|are|was|were|does|do|"
                   r"did|can|could|will|would|should|has|have|may|must)\b", re.I)
_CONDITION = re.compile(r"\s*(?:if|when|once|after|before|in case|suppose|assuming|say)\b", re.I)


def _interleave(lists: Sequence[Sequence], ident) -> list:  # noqa: ANN001
    out, seen = [], set()
    for i in range(max((len(x) for x in lists), default=0)):
        for x in lists:
            if i < len(x) and ident(x[i]) not in seen:
                seen.add(ident(x[i]))
                out.append(x[i])
    return out

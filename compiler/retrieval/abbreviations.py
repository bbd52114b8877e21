"""Clipped words of a corpus's own terms ("a *mini ex*" for a *mini excavator*, "a *cat ex*
lease" for a *category exemption*): a question's short word after a word of a term it starts.

People clip a long word of a two-word term they use every day to its first letters. No list
can hold a corpus's terms, so they are learned from the wiki itself: the word pairs of its
attribute names (a table row's label is part of its claims' attributes: "weekly for mini
excavator") and its page names. A question's word of two or three letters that is no word of
the wiki, standing after a word of such a pair, is read as the pair's second word when exactly
one pair starts that way. Nothing here knows a corpus's words.
"""

from __future__ import annotations

import re
from ..state import State
from .text import STOPWORDS

_WORD = re.compile(r"[^\W\d_]+")
_CLIP = (2, 3)  # the lengths of a clipped word: longer ones are words of their own
_MIN_FULL = 5  # … of the word it clips ("ex" of excavator, not "ex" of "exit")


def corpus_pairs(state: State) -> tuple[frozenset[tuple[str, str]], frozenset[str]]:
    """The word pairs of the wiki's attribute and page names, and their words (read once per
    state)."""
    cached = getattr(state, "_clipped_terms", None)
    if cached is not None:
        return cached
    pairs: set[tuple[str, str]] = set()
    words: set[str] = set()
    texts = state.attribute_names()
    texts += [e.replace("-", " ").replace("/", " ")
              for (e,) in state.db.execute("SELECT id FROM entities")]
    for text in texts:
        ws = [w.lower() for w in _WORD.findall(text)]
        words.update(ws)
        pairs.update(zip(ws, ws[1:]))
    found = (frozenset(pairs), frozenset(words))
    try:
        state._clipped_terms = found  # type: ignore[attr-defined]
    except AttributeError:
        pass
    return found


def expand_clipped(question: str, pairs: frozenset[tuple[str, str]],
                   known: frozenset[str]) -> str:
    """The question with each clipped word after a word of a corpus term spelt out."""
    out: list[str] = []
    last = 0
    prev: re.Match | None = None
    for m in _WORD.finditer(question):
        clip, low = m.group(), m.group().lower()
        before = prev.group().lower() if prev is not None else ""
        adjacent = prev is not None and question[prev.end():m.start()].isspace()
        prev = m
        if (not adjacent or len(low) not in _CLIP or low in STOPWORDS or low in known
                or before in STOPWORDS or not clip.islower()
                or question[m.end():m.end() + 1] in ("'", "-")):
            continue
        found = {b for a, b in pairs if a == before and len(b) >= _MIN_FULL
                 and b.startswith(low)}
        if len(found) == 1:
            out.append(question[last:m.start()] + found.pop())
            last = m.end()
    return "".join(out) + question[last:]


def spell_out_clipped(state: State, question: str) -> str:
    """:func:`expand_clipped` with the wiki's own terms."""
    pairs, known = corpus_pairs(state)
    return expand_clipped(question, pairs, known)

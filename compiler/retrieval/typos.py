"""A lower-case word of a question the wiki never uses, one keystroke from exactly one word it
does use ("seatle" of Seattle, "retension" of retention): read as that word. People type questions in a
hurry; sources are edited. Only words of five letters or more (short words are one keystroke
from too many others), and only when the wiki's vocabulary offers a single candidate."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from ..state import State
from .coverage import KIND_WORDS
from .text import FRAME_WORDS, STOPWORDS

_WORD = re.compile(r"[A-Za-z]{5,}")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _edits(word: str) -> set[str]:
    """Every word one transposition, substitution or insertion away: a letter dropped,
    swapped or mistyped ("seatle", "retnetion"). Not a letter too many: a word one letter
    longer than a wiki's word is as often another word ("weight" is no "eight")."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return ({a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
            | {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
            | {a + c + b for a, b in splits for c in _LETTERS})


def vocabulary(state: State) -> frozenset[str]:
    """The words of the wiki's claims and records (their full-text indexes' vocabulary)."""
    return _vocabulary(id(state.db), state)


@lru_cache(maxsize=8)
def _vocabulary(_db: int, state: State) -> frozenset[str]:
    words: set[str] = set()
    for table in ("claims_fts", "records_fts"):
        try:
            state.db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table}_vocab "
                             f"USING fts5vocab(main, '{table}', 'row')")
            words |= {t for (t,) in state.db.execute(f"SELECT term FROM temp.{table}_vocab")}
        except Exception:  # noqa: BLE001 - an index this state lacks has no words
            continue
    return frozenset(w for w in words if w.isalpha())


def names_only(state: State) -> Callable[[str], bool]:
    """Whether the wiki writes a word only capitalised (a name: "Seattle"), never in lower
    case (a common word: "spare")."""
    def is_name(word: str) -> bool:
        texts: list[str] = []
        for table, columns in (("claims_fts", "name, value, quote"), ("records_fts", "text")):
            try:
                texts += [" ".join(str(c) for c in row if c) for row in state.db.execute(
                    f"SELECT {columns} FROM {table} WHERE {table} MATCH ? LIMIT 20",
                    (f'"{word}"',))]
            except Exception:  # noqa: BLE001 - an index this state lacks says nothing
                continue
        said = [m.group(0) for t in texts
                for m in re.finditer(r"\b%s\b" % re.escape(word), t, re.I)]
        return bool(said) and all(w[0].isupper() for w in said)
    return is_name


def correct_typos(question: str, state: State, known: Callable[[str], bool],
                  accept: Callable[[str], bool] | None = None) -> str:
    """The question with each long word the wiki never uses (``known`` false) that is one
    keystroke from exactly one word of the wiki's vocabulary replaced by that word (when
    ``accept`` says yes to it)."""
    vocab: frozenset[str] | None = None

    def fix(m: re.Match) -> str:
        nonlocal vocab
        word = m.group(0)
        # a capitalised word is a name: one the wiki lacks names something it does not know
        # (the unknown-name rule), however close to one of its words
        if known(word) or not word.islower() or word in STOPWORDS or word in FRAME_WORDS:
            return word
        if vocab is None:
            # (answer5) … or a word naming a kind of value, which a reader knows though the
            # wiki may never write it ("distnace": a distance, said by "within 60 miles")
            vocab = vocabulary(state) | frozenset(w for w in KIND_WORDS if len(w) >= 5)
        lower = word.lower()
        near = sorted(w for w in _edits(lower) & vocab if len(w) >= 5 and w != lower)
        if len(near) != 1 or (accept is not None and not accept(near[0])):
            return word
        return near[0]

    return _WORD.sub(fix, question)

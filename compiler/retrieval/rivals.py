"""(answer8) Another amount of the right record: the claim carries a word of the same kind as
one the question says, but another one.

Two rules of English, neither knowing a corpus's words:

- **Stage of an amount**: an amount is estimated, projected, quoted or budgeted before it is
  paid, spent, settled or billed. A question about what was paid ("how much did the insurer
  *end up paying*", "the *actual* cost") is not answered by the *estimated* loss, nor a
  question about the forecast by the amount *invoiced*.
- **The standard kind is not another kind**: a row that names the default of its noun
  ("*standard* commission", "*base* rate", "*regular* hours") does not answer a question that
  names another kind of that noun ("the *contingent* commission", "the *overtime* rate") which
  the claim never says; nor does a row naming a special kind ("*contingent* commission") answer
  a question asking the standard one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from compiler.retrieval.text import key, tokens

# words that place an amount before the fact (what is expected) or after it (what happened)
_BEFORE = frozenset((
    "estimated estimate estimates projected projection projections forecast forecasts "
    "forecasted expected budgeted planned anticipated quoted proposed target targeted").split())
_AFTER = frozenset((
    "actual actually paid spent settled incurred invoiced billed realized realised "
    "final").split())
# a question asks what happened when it says so in the past ("did … pay", "ended up"): a
# future "how much will we pay" may well be answered by an estimate
_ASKS_AFTER = re.compile(
    r"\b(?:actual(?:ly)?|paid|spent|settled|incurred|invoiced|billed|reali[sz]ed|final)\b|"
    r"\bend(?:ed|s)?\s+up\b|\bdid\b(?:\s+\S+){0,6}?\s+(?:pay|paying|spend|spending|cost|"
    r"settle|bill|charge)\b", re.I)
_ASKS_BEFORE = re.compile(
    r"\b(?:estimated?|estimates|projected|projections?|forecast(?:ed)?|expected|budgeted|"
    r"planned|anticipated|quoted|proposed)\b", re.I)

# words naming the default of a noun, which a row may say beside it ("standard commission"),
# compared as words: their keys are cut short enough to meet others' ("regular"/"regulatory")
_DEFAULT = frozenset("standard base basic regular normal default ordinary usual general "
                     "typical".split())


def stage_of_question(question: str) -> str:
    """"after" when the question asks what was paid or happened, "before" when it asks an
    estimate, "" when it names no stage (or both)."""
    after, before = bool(_ASKS_AFTER.search(question)), bool(_ASKS_BEFORE.search(question))
    return "after" if after and not before else "before" if before and not after else ""


def other_stage(question: str, attribute: str) -> bool:
    """The claim's attribute (with its qualifiers) names an amount at another stage than the
    question asks ("estimated loss" for "how much did they end up paying"), and none at the
    asked one."""
    asked = stage_of_question(question)
    if not asked:
        return False
    said = {t.lower() for t in tokens(attribute)}  # as words: keys meet ("final"/"finance")
    mine, rival = (_AFTER, _BEFORE) if asked == "after" else (_BEFORE, _AFTER)
    return bool(said & rival) and not said & mine


def _modifiers(attribute: str, head: str) -> set[str]:
    """The words right before the head noun in the attribute ("standard" of "standard
    commission for X"), lower-cased."""
    words = [t.lower() for t in tokens(attribute)]
    return {words[i - 1] for i, t in enumerate(words) if key(t) == head and i > 0}


def other_kind(phrase: Sequence[str], attribute: str, said: Callable[[str], bool],
               asked: set[str]) -> bool:
    """The question names a kind of its head noun ("*contingent* commission") and the claim's
    attribute names another kind of that noun: the default one ("*standard* commission"),
    while the claim never says the asked kind; or the question asks the default kind
    ("the *standard* rate") and the attribute names a special one the question does not say
    ("*overtime* rate"). ``said`` and ``asked`` hold keys."""
    if len(phrase) < 2:
        return False
    head, mod = key(phrase[-1]), phrase[-2].lower()
    if not head or not mod.isalpha():
        return False
    mine = _modifiers(attribute, head)
    before = mine - {mod}
    if not before or mod in mine:
        return False
    if mod in _DEFAULT:
        # the standard kind asked; a special kind the question never says answers another
        return not mine & _DEFAULT and any(
            m.isalpha() and len(m) > 2 and key(m) not in asked for m in before)
    return bool(before & _DEFAULT) and not said(key(mod))


_CELL_LABEL = re.compile(r"^\s*([^:;]{1,60}):\s*(.*)$", re.S)


def other_cell(quote: str, value: str, noun: Sequence[str], own: Callable[[str], bool]) -> bool:
    """A table row's fact whose quote is the whole row ("Carrier: X; AM Best: A-; Standard
    commission: 10%"): the asked head noun said only by the label of *another* cell of the row
    (not by the claim's attribute, value or schema words: ``own``) asks that cell's column,
    not this one's ("what commission does X pay" is not its AM Best rating)."""
    if not noun or ";" not in quote or any(own(t) for t in noun):
        return False
    cells = [m.groups() for part in quote.split(";") if (m := _CELL_LABEL.match(part))]
    if len(cells) < 2:
        return False
    v = re.sub(r"\s+", " ", value.strip().lower())
    others = [label for label, cell in cells if v not in re.sub(r"\s+", " ", cell.lower())]
    if len(others) == len(cells):
        return False  # the value is in no cell: not a row we can read
    return any(any(key(w) == t for w in tokens(label) for t in noun) for label in others)

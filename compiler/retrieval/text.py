"""Words of questions and sources: tokens, a light stemmer, the keys words are compared by,
stop and frame words of questions, and the synonym lookups built from lexicon.py."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from .coverage import KIND_WORDS
from .lexicon import ATTRIBUTE_GROUPS, PHRASES, SYNONYM_GROUPS

# question words, auxiliaries, pronouns and fillers: they say what kind of answer is wanted,
# never which page has it
STOPWORDS = frozenset(
    """a an the is are was were be been being am what which who whom whose when where why how
    do does did done doing of for to in on at by with from about as and or not no nor our your
    their its it this that these those there here can could should would will shall may might
    must i we you they he she me us him her them my mine his hers ours yours theirs tell please
    give show much many any some know find out get got have has had into onto than then so if
    also just there's what's who's it's let lets need want wants like over under per via
    anyone someone something anything thing things kind sort one ones each every all once
    ever still already yet now today after before during since until besides
    haven hasn hadn isn aren wasn weren don doesn didn won wouldn couldn shouldn""".split()
)
# words that say how a question is asked ("how long does it take", "how quickly"), never what
# it is about: a source rarely uses them, and they must not make a question look unanswerable
FRAME_WORDS = frozenset(
    """long quick quickly soon often take takes took taken taking happen happens happened
    involved involve exactly currently usually typically normally generally based allowed able
    supposed called named say says said mean means go goes going use used using expected
    expect expecting likely set""".split()
)
_TOKEN = re.compile(r"[^\W_]+(?:[.,][0-9]+)*")
KEY_LEN = 6  # stems are compared on their first 6 characters: response/respond, warranty/-ies


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English stemmer (plural, past, gerund, adverb, common derivations): enough for
    question and source words to meet; applied alike to both sides, so over-stemming is
    harmless as long as it is consistent."""
    w = word.lower()
    if len(w) <= 3 or w.isdigit():
        return w
    for suf, rep in (("ational", "ate"), ("ization", "ize"), ("fulness", "ful"),
                     ("iveness", "ive"), ("ousness", "ous"), ("ements", ""), ("ement", ""),
                     ("ments", ""), ("ment", ""), ("ations", "ate"), ("ation", "ate"),
                     ("ities", ""), ("ity", ""), ("ingly", ""), ("edly", ""), ("ings", ""),
                     ("ing", ""), ("ied", "y"), ("ies", "y"), ("ed", ""), ("ly", ""), ("ers", ""),
                     ("er", ""),
                     ("sses", "ss"), ("es", ""), ("s", "")):
        if w.endswith(suf) and len(w) - len(suf) + len(rep) >= 3:
            if suf == "s" and w.endswith(("ss", "us", "is")):
                continue
            if suf == "es" and not w.endswith(("ches", "shes", "xes", "zes", "sses", "oes")):
                w = w[:-1]  # "fees" -> "fee", "policies" handled above, "rates" -> "rate"
                break
            w = w[: len(w) - len(suf)] + rep
            break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]  # "rate"/"rat", "fee"/"fe": both sides alike
    if len(w) > 3 and w.endswith("y"):
        w = w[:-1] + "i"
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]  # "shipped" -> "shipp" -> "ship"
    return w


@lru_cache(maxsize=65536)
def key(word: str) -> str:
    """What two words are compared by: the stem's first :data:`KEY_LEN` characters."""
    return stem(word)[:KEY_LEN]


def _synonyms() -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for group in SYNONYM_GROUPS:
        keys = {key(w) for w in group.replace("-", "").split()}
        for k in keys:
            out.setdefault(k, set()).update(keys - {k})
    return {k: frozenset(v) for k, v in out.items()}


SYNONYMS = _synonyms()


def _groups(groups: Iterable[str]) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for group in groups:
        keys = {key(w) for w in group.split()}
        for k in keys:
            out.setdefault(k, set()).update(keys - {k})
    return {k: frozenset(v) for k, v in out.items()}


ATTRIBUTE_SYNONYMS = _groups(ATTRIBUTE_GROUPS)
_KIND_KEYS = {key(w): shape for w, shape in KIND_WORDS.items()}
SYNONYM_WEIGHT = 0.7


def tokens(text: str) -> list[str]:
    """Lower-cased words and numbers ("1,500", "2.5" stay whole; "$49" is "49")."""
    return [t.replace(",", "") for t in _TOKEN.findall(text.lower())]


def stems(text: str, drop_stopwords: bool = False) -> list[str]:
    out = []
    for t in tokens(text):
        if drop_stopwords and (t in STOPWORDS or t in FRAME_WORDS
                               or (len(t) < 2 and not t.isdigit())):
            continue
        out.append(key(t))
    return out


def _rewrite(question: str) -> str:
    for pattern, repl in PHRASES:
        question = pattern.sub(repl, question)
    return question


def question_terms(question: str) -> list[str]:
    """Content keys of the question, in order, once each."""
    return list(dict.fromkeys(stems(_rewrite(question), drop_stopwords=True)))


def _fts_term(term: str) -> str:
    # a key as a prefix query: "refund" matches refunds, refunded, refundable; a key whose
    # stem rewrote the word's ending ("polici" of policy) is cut back to a true prefix
    if term.isdigit():
        return '"' + term + '"'
    if len(term) > 3 and term[-1] in "ie":  # "citi" of city is "cit*"
        term = term[:-1]
    return '"' + term.replace('"', '""') + '"*'


def expand(terms: Sequence[str]) -> list[str]:
    """The terms with their synonyms (for finding candidates)."""
    return list(dict.fromkeys([*terms, *(a for t in terms for a in sorted(SYNONYMS.get(t, ())))]))

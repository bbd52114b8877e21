"""Fact shapes that need no schema: "X is Y", "X: Y", "X — Y", "S has a X of Y", "a 30-day X".

What they find stays an unmapped attribute under its surface name. Only strong shapes become
facts: a short noun phrase as the attribute and a typed or short value. Ordinary prose ("The
goal is to make returns painless for everyone") is a statement, which never conflicts with
anything: comparing surface phrases as if they were facts gives false contradictions.
"""

from __future__ import annotations

import re

from ..text import normalize_attribute
from .values import typed_whole

_COLON = re.compile(
    r"^(?P<x>[^:]{1,80}?)\s*(?:(?<!\d):(?!\d)|\s[—–]\s|\s-\s)\s*(?P<y>\S.*?)\s*\.?$")
_HAS = re.compile(
    r"^(?P<s>.+?)\s+(?:has|have|had|gets?|offers?|provides?|carries|carry|includes?|comes? with)"
    r"\s+(?:a|an)\s+(?P<x>[^,;]+?)\s+of\s+(?P<y>.+?)\s*\.?$", re.IGNORECASE)
_IS = re.compile(r"^(?P<x>.+?)\s+(?:is|are|was|were)\s+(?P<y>.+?)\s*[.!]?$")
_ADJECTIVAL = re.compile(
    r"^(?P<s>.*?)\b(?:a|an|the)\s+(?P<y>(?:\d+(?:\.\d+)?|(?:one|two|three|four|five|six|"
    r"seven|eight|nine|ten|eleven|twelve|fourteen|fifteen|twenty|thirty|forty|forty-five|"
    r"sixty|ninety))-(?:business-)?"
    r"(?:day|week|month|year|hour|minute))\s+(?P<x>[a-z]+(?:\s[a-z]+){0,2}?)"
    r"(?=\s+(?:for|to|of|and|on|in|with|from|that|which|is|applies|covers)\b|[.,;:]|$)",
    re.IGNORECASE)
# "Harbourview Clinics runs a 660-bed facility": a named subject, a count compounded with the
# thing counted. The value is the count of that thing ("bed count"); measures ("a 40-foot
# container", "a 2-litre bottle") and times (``_ADJECTIVAL``) are sizes, not counts.
_COUNTED = re.compile(
    r"^(?P<s>[A-Z][\w&'.-]*(?:\s+(?:[A-Z0-9&][\w&'.-]*|of|and|de|la))*)\s+"
    r"(?:runs|operates|has|owns|manages|maintains|is|opened|built)\s+(?:a|an)\s+"
    r"(?P<y>\d[\d,]*)-(?P<u>[a-z]{3,})\s+(?P<h>[a-z]+)\s*[.!]?$")
# "Brightwater Regional Hospital operates 210 beds": a named subject holding a number of things
_HOLDS = re.compile(
    r"^(?P<s>[A-Z][\w&'.-]*(?:\s+(?:[A-Z0-9&][\w&'.-]*|of|and|de|la))*)\s+"
    r"(?:runs|operates|owns|manages|maintains)\s+(?P<y>\d[\d,]*)\s+(?P<u>[a-z]{3,}s)\s*[.!]?$")
_MEASURES = frozenset(
    "day days week weeks month months year years hour hours minute minutes second seconds "
    "foot feet inch inches metre meter metres meters mile miles litre liter gallon ton tonne "
    "pound kilogram gram volt watt degree percent page star point person people man woman "
    "step part piece time times".split())
_PRONOUNS = frozenset("it this that these those there he she they we you i which who what "
                      "here one each all some".split())
# heads of phrases that describe prose, not attributes of a thing
_GENERIC = frozenset(
    "goal goals idea ideas plan problem problems issue issues reason reasons result results "
    "answer question point thing things step steps purpose aim focus priority note notes "
    "example examples tip tips warning important fyi summary subject update updates comment "
    "comments re to from cc bcc response reply request thanks context background question "
    "questions outcome next todo action agenda decision decisions takeaway takeaways "
    "impact risk risks concern concerns status quo part case way idea option options "
    "challenge challenges benefit benefits feedback meeting".split())
_VERBISH = frozenset(
    "is are was were be been being will would can could should shall must may might do does "
    "did have has had need needs want wants get gets got make makes made go goes went said "
    "says think thinks know knows see sees use uses let lets please if when because since "
    "while although we you they i he she it our your".split())
_WEAK_VALUE_START = frozenset(
    "to that because when if whether how why what which who where the same not also being "
    "still just more less very so too going likely possible previously formerly once used "
    "no".split())
MAX_ATTRIBUTE_WORDS = 6
MAX_VALUE_WORDS = 5
MAX_COLON_VALUE_WORDS = 8
MAX_COLON_LABEL_WORDS = 6


def _strong_attribute(phrase: str) -> bool:
    attr = normalize_attribute(phrase)
    toks = attr.split()
    if not toks or len(toks) > MAX_ATTRIBUTE_WORDS:
        return False
    if toks[0] in _PRONOUNS or toks[0][0].isdigit():
        return False
    if any(t in _VERBISH for t in toks):
        return False
    head = toks[-1] if "for" not in toks and "of" not in toks else toks[0]
    return head not in _GENERIC and toks[0] not in _GENERIC


def _strong_value(value: str, limit: int) -> bool:
    toks = value.split()
    if not toks:
        return False
    if typed_whole(value):
        return True
    if len(toks) > limit or toks[0].lower() in _WEAK_VALUE_START:
        return False
    return not any(t.lower().strip(",.") in {"i", "we", "you", "they", "he", "she"} for t in toks)


def _value_like(value: str) -> bool:
    """After "is", a value reads as one when it is typed, a name or a code ("Jonas Weber",
    "Okta", "v2.4", "eu-west-1"); lower-case words describe a state ("is short-staffed",
    "is behind schedule", "is fixed"), which changes from one note to the next and would
    only ever make false contradictions."""
    v = value.strip()
    return bool(typed_whole(v)) or v[:1].isupper() or any(ch.isdigit() for ch in v)


def shape(sentence: str) -> tuple[str, str, str] | None:
    """``(subject phrase, attribute phrase, value)`` of a fact-shaped sentence, else None."""
    if (m := _COLON.match(sentence)) and "http" not in m["x"]:
        label = m["x"].strip()
        if (0 < len(label.split()) <= MAX_COLON_LABEL_WORDS and _strong_attribute(label)
                and _strong_value(m["y"], MAX_COLON_VALUE_WORDS)):
            return label, label, m["y"]
        if ":" in sentence and len(label.split()) <= MAX_COLON_LABEL_WORDS:
            # "Note: the fee is 15%": the label is a lead-in, the rest may be a fact
            return shape(sentence[sentence.index(":") + 1:].strip())
        return None
    if (m := _HAS.match(sentence)) and typed_whole(m["y"]) and _strong_attribute(m["x"]):
        return m["s"], m["x"], m["y"]
    if m := _IS.match(sentence):
        x, y = m["x"], m["y"]
        first = x.split()[0].lower() if x.split() else ""
        if first in _PRONOUNS or not _strong_attribute(x):
            return None
        if y.split()[0].lower() in {"a", "an", "not", "also", "being"} and not typed_whole(y):
            return None  # classification or negation: keep the sentence whole
        if not _strong_value(y, MAX_VALUE_WORDS) or not _value_like(y):
            return None
        if len(y.split()) > 1 and y.split()[0].islower() and y.split()[0].endswith("ed"):
            return None  # passive voice ("was escalated to tier 2"): an event, not a value
        return x, x, y
    if (m := _ADJECTIVAL.match(sentence)) and _strong_attribute(m["x"]):
        return m["s"] or m["x"], m["x"], m["y"]
    if (m := _COUNTED.match(sentence)) and m["u"] not in _MEASURES \
            and m["s"].split()[0].lower() not in _PRONOUNS:
        # stated "of" its subject, as "The bed count of Harbourview Clinics is 660" would be
        # (linking finds the named entity, induction the name it is stated of)
        x = f"{m['u']} count of {m['s']}"
        return x, x, m["y"]
    if (m := _HOLDS.match(sentence)) and m["u"] not in _MEASURES \
            and m["s"].split()[0].lower() not in _PRONOUNS:
        x = f"{m['u'][:-1]} count of {m['s']}"
        return x, x, m["y"]
    return None

"""Bands a table row or attribute states by bounds ("discount above 20% up to 35%", "orders
over 500 kg", "between 10 and 50 seats"): a number a question asks about ("who signs off on a
*30%* discount?") is the band's when it lies inside them, though the row never writes it.

Only the bounds' words are read; the unit is not compared (the question's "30%" meets a row
in percent only when the row's other words do, which retrieval already scores)."""

from __future__ import annotations

import re

_NUM = r"(\d+(?:[.,]\d+)*)"
# a bound's word and whether it includes its number
_LOWER = re.compile(r"\b(?:(above|over|more\s+than|greater\s+than|exceeding|beyond|>)"
                    r"|(from|at\s+least|min(?:imum)?|>=|≥))\s*[$€£]?\s*" + _NUM, re.I)
_UPPER = re.compile(r"\b(?:(below|under|less\s+than|<)|(up\s+to|to|at\s+most|"
                    r"max(?:imum)?|not\s+exceeding|<=|≤|through))\s*[$€£]?\s*" + _NUM, re.I)
_BETWEEN = re.compile(r"\bbetween\s*[$€£]?\s*" + _NUM + r"\D{0,6}?\s+and\s+[$€£]?\s*" + _NUM,
                      re.I)
_DASH = re.compile(r"(?<![\d.,])" + _NUM + r"\s*%?\s*(?:-|–|to)\s*[$€£]?\s*" + _NUM + r"(?![\d.,])")


def _n(text: str) -> float:
    return float(text.replace(",", ""))


def band(text: str) -> tuple[float | None, bool, float | None, bool] | None:
    """(low, low included, high, high included) a text's bounds state, or None when it states
    none (a bare number is a value, not a band)."""
    m = _BETWEEN.search(text) or _DASH.search(text)
    if m:
        lo, hi = _n(m.group(1)), _n(m.group(2))
        return (lo, True, hi, True) if lo < hi else None
    lo = hi = None
    lo_in = hi_in = True
    low = _LOWER.search(text)
    if low:
        lo, lo_in = _n(low.group(3)), low.group(2) is not None
    # an upper bound after the lower one ("above 20% up to 35%"), or alone ("up to 20%")
    up = _UPPER.search(text, low.end() if low else 0)
    if up and not low and up.group(2) and up.group(2).lower() in ("to", "through"):
        up = None  # "escalate to 2nd line": a bare "to" bounds only after a lower bound
    if up:
        hi, hi_in = _n(up.group(3)), up.group(2) is not None
    if lo is None and hi is None:
        return None
    if lo is not None and hi is not None and lo >= hi:
        return None
    return lo, lo_in, hi, hi_in


def in_band(text: str, number: float) -> bool:
    """The number lies inside the bounds the text states (False when it states none, or when
    the text writes the number itself: then it is matched as a word)."""
    b = band(text)
    if b is None:
        return False
    lo, lo_in, hi, hi_in = b
    if lo is not None and (number < lo or (number == lo and not lo_in)):
        return False
    if hi is not None and (number > hi or (number == hi and not hi_in)):
        return False
    return True

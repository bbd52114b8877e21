"""The compile's shortcuts (docs/performance.md) give exactly what the long way gives: each skips
work only where the long way provably finds nothing to do."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.extract import values
from compiler.sanitize import _ACTIVE, _ESCAPED, inert_inline
from compiler.text import collapse

# text as prose holds it, and the characters that trip case folding and whitespace classes
_ALPHABET = st.sampled_from(
    list("abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789%$€.,-/:;")
    + ["\t", "\n", "\u00a0", "\u2028", "\u3000", "\u0663", "\u212a", "\u017f", "\u0130",
       "day", "Week", "ſec", "weeK", "per cent", "PCT", "percent", "net", "hrs", "minutes",
       "thirty", "one", "a", "2026-11-20", "March 3, 2026", "USD", "  "])
_TEXT = st.lists(_ALPHABET, max_size=30).map("".join)


def _long_way(text: str, value_type: str) -> tuple[values.Found, ...]:
    """find_values without its hint: every pattern of the type, always."""
    pats = values._BY_TYPE[value_type]
    if value_type == "number":
        taken = [s for p in pats[:4] for s in values._spans(p, text)]
        got = [(s, e) for s, e in values._spans(pats[4], text)
               if not any(s < te and ts < e for ts, te in taken)]
    else:
        got = sorted({s for p in pats for s in values._spans(p, text)})
    out = [values.Found(s, e, text[s:e].strip(), value_type) for s, e in got]
    return tuple(f for f in out if not values._is_year_alone(f, value_type))


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_value_hints_never_hide_a_value(text: str) -> None:
    for value_type in ("money", "percent", "duration", "date", "datetime", "number"):
        assert values.find_values.__wrapped__(text, value_type) == _long_way(text, value_type)


def test_value_hints_on_sentences_that_hold_values() -> None:
    for text, value_type in [("a thirty day window", "duration"), ("an hour", "duration"),
                             ("ſeven ſeconds", "duration"), ("5 weeK", "duration"),
                             ("NET 45", "duration"), ("12 per cent", "percent"),
                             ("twelve PCT", "percent"), ("€ 5", "money"), ("March 2026", "date"),
                             ("\u0663\u0663 days", "duration")]:
        assert values.find_values.__wrapped__(text, value_type) == _long_way(text, value_type)
        assert _long_way(text, value_type), (text, value_type)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_whitespace_shortcuts_equal_the_substitution(text: str) -> None:
    spaced = re.sub(r"\s+", " ", text)
    assert collapse(text) == spaced.strip()
    assert inert_inline(text) == _ACTIVE.sub(lambda m: _ESCAPED[m.group()], spaced)


def test_stored_claims_equal_the_validated_claims(tmp_path) -> None:
    """The render reads each record's provenance once (compiler.render.stored_claims): every
    claim of a compiled wiki comes out equal, field by field, to the validated model."""
    from pathlib import Path

    from compiler.build import compile_wiki, wiki_state
    from compiler.models import Claim
    from compiler.render import stored_claims
    from compiler.settings import FolioSettings

    acme = Path(__file__).resolve().parents[1] / "examples" / "acme"
    compile_wiki(acme, tmp_path / "wiki", FolioSettings(signing="off"), full=True,
                 today="2026-11-20", force_corpus=True)
    st = wiki_state(tmp_path / "wiki")
    try:
        _, claims, _, _ = st.page_inputs(st.page_ids())
    finally:
        st.close()
    jsons = [js for group in claims.values() for js in group]
    assert len(jsons) > 100
    # each record's provenance is shared by its claims: read once, given to every one
    shared = stored_claims(jsons)
    for js, claim in zip(jsons, shared, strict=True):
        assert claim.__dict__ == Claim.model_validate_json(js).__dict__

"""Shared by the serve, MCP and browser tests: the Acme wiki compiled once, a token per
principal, a signed answer per principal, and what each principal must never be shown."""

from __future__ import annotations

import html
import re
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest

from compiler.build import compile_wiki, wiki_state
from compiler.export import export_claims
from compiler.provenance.answers import attest_answer
from compiler.query import answer
from compiler.serve.auth import add_token
from compiler.settings import FolioSettings
from compiler.views import page_view, principal
from conftest import ACME, TODAY

PRINCIPALS = ("alice", "bob", "carol")
QUESTIONS = {
    "bob": "What is the maximum discount without VP approval?",
    "carol": "What do I compare the delivery date with?",
    "alice": "What is the return window for Enterprise customers?",
}
DISCOUNT_PAGE = "policy/discount-approval-policy"


@dataclass(frozen=True)
class Served:
    wiki: Path
    tokens_file: Path
    tokens: dict[str, str]
    answers: dict[str, str]


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Served:
    root = tmp_path_factory.mktemp("served")
    wiki = root / "wiki"
    report = compile_wiki(ACME, wiki, today=TODAY)
    assert report.rejected == 0
    tokens_file = root / "tokens.yaml"
    tokens = {p: add_token(tokens_file, p) for p in PRINCIPALS}
    tokens["operator"] = add_token(tokens_file, "ops", operator=True)
    tokens["stranger"] = add_token(tokens_file, "mallory")  # not in the directory
    answers = {}
    with closing(wiki_state(wiki)) as state:
        for who, q in QUESTIONS.items():
            result = answer(state, q, principal(state, who))
            answers[who] = attest_answer(state, wiki, result, FolioSettings())
    return Served(wiki, tokens_file, tokens, answers)


def forbidden_for(wiki: Path, who: str) -> set[str]:
    """Strings only a hidden claim or a hidden page carries: restricted values and quotes,
    titles, aliases, page ids (link targets) and record keys. A string the principal's own
    visible sources also say (a public handbook naming the Discount Approval Policy) is theirs
    to read, so it is left out; what must not appear is anything beyond it."""
    with closing(wiki_state(wiki)) as state:
        me = principal(state, who)
        mine = [line for line in export_claims(state, me)]
        visible_pages = {eid for eid in state.page_ids() if page_view(state, eid, me)}
        seen = "\n".join(mine).lower()
        for eid in visible_pages:
            v = page_view(state, eid, me)
            seen += "\n" + v.entity.name.lower() + "\n" + "\n".join(v.entity.aliases).lower()
        out: set[str] = set()
        for claim, _ in state.iter_claims():
            if claim.acl.allows(me):
                continue
            for s in (claim.value, claim.quote, claim.source.key, claim.source.title):
                if len(s) >= 4 and s.lower() not in seen:
                    out.add(s)
        for eid in state.page_ids():
            if eid in visible_pages:
                continue
            ent = state.entity(eid)
            for s in (eid, ent.name, *ent.aliases):
                if len(s) >= 4 and s.lower() not in seen:
                    out.add(s)
    return out


def leaks(text: str, forbidden: set[str]) -> list[str]:
    """Forbidden strings found in a response, raw, HTML-escaped or URL-quoted."""
    low = text.lower()
    found = []
    for s in forbidden:
        forms = {s, html.escape(s, quote=True), s.replace("/", "%2F"),
                 re.sub(r"\s+", " ", s)}
        if any(f.lower() in low for f in forms):
            found.append(s)
    return found

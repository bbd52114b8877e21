#!/usr/bin/env python3
"""Near-miss benchmark: does ``ask`` abstain on unanswerable twins of questions it answers?

    python3 benchmarks/near_miss.py                   # every tunable corpus
    python3 benchmarks/near_miss.py -v                # and every twin answered anyway
    python3 benchmarks/near_miss.py --only acme       # sets whose question file names ACME

An independent benchmark's unanswerable questions are rarely absurd: they are *near misses* of
what the wiki holds. From a compiled wiki and an answerable question set this makes such twins by
general transformations, each checked against the wiki's claims (no claim of the page the twin
asks about says the twin's new concept), and measures how often offline ``ask`` answers them
anyway (false answers), beside how often it still answers the originals:

* ``entity``: the question's entity swapped for another of the same type whose page has no
  claim of the asked attribute ("the renewal date of Globex" -> "... of Initech", no renewal
  date on Initech's page);
* ``attribute``: a template question over the wiki ("What is the <attribute> of <entity>?") for
  an attribute other entities of the type have and this one lacks, with its answerable control
  (the same template on an entity that has it);
* ``region``: a place the question names (a value of a city, country, site … attribute)
  swapped for another place of the wiki no claim states the asked attribute for;
* ``qualifier``: a qualifier value the question names (a tier, a region) swapped for another
  value of the same qualifier the entity has no claim for;
* ``year``: a year the question names moved to one its page never mentions, or a question made
  to ask the value in a future year no source decides;
* ``per-unit``: an amount asked "per <unit>" where the page never states a per-unit figure;
* ``when``: a count asked as "when" (no date of it on the page);
* ``sibling``: the asked concept's head noun swapped for a neighbouring concept the page never
  mentions (window -> fee, price -> discount, manager -> deputy …).

Nothing here reads a question set's unanswerable questions, nor the never-tuned sets.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from answer_bench import (ANSWERABLE, NEVER_TUNED, SETS, generated_company,  # noqa: E402
                          markdown_table, same_value)

from compiler.answers.ask import ask  # noqa: E402
from compiler.build import compile_wiki, wiki_state  # noqa: E402
from compiler.models import Claim, Entity  # noqa: E402
from compiler.retrieval.text import (  # noqa: E402
    _KIND_KEYS, ATTRIBUTE_SYNONYMS, STOPWORDS, SYNONYMS, key)
from compiler.views import principal  # noqa: E402

_WORD = re.compile(r"[^\W_]+")
_YEAR = re.compile(r"\b(20[0-9]{2})\b")
# attributes that are a page's identity or plumbing, never what a person asks "the X of"
_PLUMBING = {"name", "links to", "statement", "first name", "last name", "active", "created",
             "updated", "id", "key", "url", "email", "phone", "reporter", "status", "mentions",
             "description", "title", "summary", "labels", "comment", "owner id", "record type"}
# neighbouring concepts: a near miss asks the neighbour of what the wiki states
SIBLINGS = {
    "window": "fee", "fee": "window", "price": "discount", "cost": "discount",
    "discount": "surcharge", "limit": "minimum", "maximum": "minimum", "minimum": "maximum",
    "cap": "floor", "deadline": "extension", "manager": "deputy", "owner": "deputy",
    "lead": "deputy", "revenue": "profit", "headcount": "turnover", "employees": "contractors",
    "rate": "penalty", "hours": "holidays", "period": "grace period",
    "policy": "exception", "address": "postcode", "city": "postcode", "warranty": "insurance",
    "retention": "encryption", "allowance": "carryover", "salary": "bonus", "budget": "overrun",
    "capacity": "occupancy", "temperature": "humidity", "speed": "weight", "tier": "quota",
    "commission": "clawback", "uptime": "penalty", "version": "licence", "language": "timezone",
    "amount": "tax", "stage": "probability", "country": "timezone",
}
UNITS = ("employee", "seat", "user", "hour", "kilogram", "site", "student", "vehicle")


@dataclass
class Twin:
    kind: str
    question: str  # the unanswerable twin
    source: str  # the question (or template control) it was made from
    principal: str | None = None


@dataclass
class Control:
    question: str
    principal: str | None = None


def _keys(text: str) -> set[str]:
    return {key(w) for w in _WORD.findall(text.lower())}


def _forms(k: str) -> set[str]:
    """A key with the retrieval's synonyms for it: a twin is unanswerable only when no claim
    says its concept in any of the words retrieval would accept for it."""
    return {k} | set(SYNONYMS.get(k, ())) | set(ATTRIBUTE_SYNONYMS.get(k, ()))


class Wiki:
    """The claims of a compiled wiki, read once: what each page says, by word."""

    def __init__(self, state) -> None:  # noqa: ANN001
        self.state = state
        self.entities: dict[str, Entity] = {e.id: e for e in state.all_entities()}
        self.claims: dict[str, list[Claim]] = {
            e: state.claims_of_subject(e) for e in self.entities}
        self.by_type: dict[str, list[Entity]] = defaultdict(list)
        for e in self.entities.values():
            self.by_type[e.type].append(e)
        # every claim's words, and the pages whose names a claim's text uses (a deal's text may
        # speak of its account: that account's page is not the only place it is stated)
        self.text: dict[str, list[set[str]]] = {
            e: [_keys(" ".join((c.attribute, " ".join(c.qualifiers.values()), c.value,
                                c.quote))) for c in cs]
            for e, cs in self.claims.items()}

    def says(self, entity: str, words: str) -> bool:
        """A claim of the page, or a claim anywhere that names the page, uses every word (or
        a synonym of it; a word naming a kind of value, "date", "number", is left to the
        value's shape, so it needs saying by none)."""
        need = [_forms(k) for k in _keys(words) if k not in _KIND_KEYS and k not in STOPWORDS]
        if not need:
            return True
        if any(all(f & t for f in need) for t in self.text[entity]):
            return True
        name = _keys(self.entities[entity].name)
        return any(all(f & t for f in need) and name <= t
                   for ts in self.text.values() for t in ts)

    def says_anywhere(self, words: str) -> bool:
        """Some claim of the wiki uses every word (or a synonym)."""
        need = [_forms(k) for k in _keys(words) if k not in _KIND_KEYS and k not in STOPWORDS]
        return any(all(f & t for f in need) for ts in self.text.values() for t in ts)

    def attributes(self, entity: str) -> set[str]:
        return {c.attribute for c in self.claims[entity]}

    def has_attribute_words(self, entity: str, attribute: str) -> bool:
        """The page has the attribute, or a claim saying all its words (or synonyms)."""
        return attribute in self.attributes(entity) or self.says(entity, attribute)


def _answering_claim(wiki: Wiki, q: dict) -> tuple[str, Claim] | None:
    """The claim holding the gold values: an attribute's, else a sentence quoting them."""
    for page in q["gold_pages"]:
        for c in wiki.claims.get(page, []):
            if c.kind in ("field", "fact", "reference") and c.attribute not in _PLUMBING and all(
                    same_value(v, c.value) for v in q["gold_values"]):
                return page, c
    for page in q["gold_pages"]:
        for c in wiki.claims.get(page, []):
            if c.kind == "statement" and q["gold_values"] and all(
                    v.lower() in c.quote.lower() for v in q["gold_values"]):
                return page, c
    return None


def _content(text: str, drop: str) -> list[str]:
    """The question's content words (stop words and the words of ``drop`` left out)."""
    gone = _keys(drop)
    return [w for w in _WORD.findall(text.lower())
            if w not in STOPWORDS and key(w) not in gone and key(w) not in _KIND_KEYS
            and not w.isdigit()]


def _mention(question: str, entity: Entity) -> str | None:
    """How the question names the entity: its name or an alias, else the first word of its
    name when that is a capitalised word of the question ("Globex" of Globex Corporation)."""
    for name in (entity.name, *entity.aliases):
        if len(name) >= 3 and re.search(rf"\b{re.escape(name)}\b", question, re.I):
            return name
    first = entity.name.split()[0] if entity.name.split() else ""
    if len(first) >= 4 and first[0].isupper() and re.search(rf"\b{re.escape(first)}\b",
                                                               question):
        return first
    return None


# attributes whose values are places: a question naming one may be asked of another
_PLACE = re.compile(r"\b(?:city|country|region|location|site|office|hub|branch|state|depot)\b")


def _replace(question: str, old: str, new: str) -> str:
    return re.sub(rf"\b{re.escape(old)}\b", new.replace("\\", r"\\"), question, count=1,
                  flags=re.I)


def twins_of_question(wiki: Wiki, q: dict) -> list[Twin]:
    """The near-miss twins of one answerable question, each checked unanswerable."""
    out: list[Twin] = []
    text, who = q["question"], q.get("principal")
    found = _answering_claim(wiki, q)
    if found is None:
        return out
    page, claim = found
    entity = wiki.entities[page]
    add = lambda kind, t: out.append(Twin(kind, t, text, who))  # noqa: E731
    # entity: another of the type that lacks the attribute
    name = _mention(text, entity)
    # (a sentence's concept is the question's other words: the other page must say under half)
    asked = _content(text, name or "")
    if name:
        for other in sorted(wiki.by_type[entity.type], key=lambda e: e.id):
            lacks = (not wiki.has_attribute_words(other.id, claim.attribute)
                     if claim.kind != "statement" else
                     sum(any(_forms(key(w)) & t for t in wiki.text[other.id]) for w in asked) * 2
                     < len(asked))
            if other.id != page and lacks \
                    and _mention(text, other) is None and other.name.lower() not in text.lower():
                add("entity", _replace(text, name, other.name))
                break
    # region: a place the question names (a value of a place attribute somewhere in the wiki)
    # swapped for another place no claim states the asked attribute for
    places = sorted({c.value for cs in wiki.claims.values() for c in cs
                     if _PLACE.search(c.attribute) and c.kind in ("field", "fact")
                     and re.fullmatch(r"[A-Z][\w .'-]{2,30}", c.value)})
    for place in places:
        if re.search(rf"\b{re.escape(place)}\b", text):
            for other_place in places:
                if other_place != place and not re.search(rf"\b{re.escape(other_place)}\b",
                                                          text) \
                        and not wiki.says(page, other_place) and not wiki.says_anywhere(
                            f"{claim.attribute} {other_place}"):
                    add("region", _replace(text, place, other_place))
                    break
            break
    # qualifier: another value of the same qualifier the page has no claim for
    for qual, val in claim.qualifiers.items():
        if not re.search(rf"\b{re.escape(val)}\b", text, re.I):
            continue
        seen = sorted({c.qualifiers.get(qual) for cs in wiki.claims.values() for c in cs
                       if c.qualifiers.get(qual)} - {val})
        have = {c.qualifiers.get(qual) for c in wiki.claims[page]
                if c.attribute == claim.attribute}
        for other_val in seen:
            if other_val not in have and not wiki.says(page, f"{claim.attribute} {other_val}"):
                add("qualifier", _replace(text, val, other_val))
                break
    # year: a year named moves to one the page never mentions; else ask a future year
    years = _YEAR.findall(text)
    future = str(max([2031] + [int(y) + 5 for y in years]))
    # (not a question of several clauses: one clause answered is a partial answer, by design)
    if not wiki.says(page, future) and q["kind"] != "multi":
        if years:
            add("year", _replace(text, years[0], future))
        elif text.rstrip().endswith("?"):
            add("year", text.rstrip()[:-1].rstrip() + f" in {future}?")
    # per-unit: an amount asked per unit the page never states
    if claim.value_type == "money" or re.match(r"^\s*[$€£]", claim.value):
        if " per " not in f" {text.lower()} " and text.rstrip().endswith("?"):
            for unit in UNITS:
                if not any(key(unit) in t for t in wiki.text[page]):
                    add("per-unit", text.rstrip()[:-1].rstrip() + f" per {unit}?")
                    break
    # when: a count asked as a date
    if re.match(r"^\s*how many\b", text, re.I) and not any(
            c.value_type in ("date", "datetime") for c in wiki.claims[page]):
        counted = re.match(r"^\s*how many\s+((?:[\w-]+\s+){0,2}?[\w-]+?s)\b", text, re.I)
        if counted and key(counted.group(1).split()[-1]) not in _KIND_KEYS:
            add("when", f"When did the number of {counted.group(1)} at {entity.name} last "
                        "change?")
    # sibling: the asked head noun's neighbour, when the page never mentions it
    words = claim.attribute.split() if claim.kind != "statement" else asked
    for word in reversed(words):
        sib = SIBLINGS.get(word.lower())
        if sib and re.search(rf"\b{re.escape(word)}\b", text, re.I) and not any(
                _keys(sib) <= t for t in wiki.text[page]) and not wiki.says(page, sib):
            add("sibling", _replace(text, word, sib))
            break
    return out


def template_pairs(wiki: Wiki, per_type: int = 6) -> tuple[list[Control], list[Twin]]:
    """For attributes some pages of a type have and others lack: "What is the <attribute> of
    <entity>?" on one that has it (the control) and one that lacks it (the twin)."""
    controls: list[Control] = []
    twins: list[Twin] = []
    for etype, ents in sorted(wiki.by_type.items()):
        if len(ents) < 2:
            continue
        holders: dict[str, list[Entity]] = defaultdict(list)
        for e in ents:
            for c in wiki.claims[e.id]:
                a = c.attribute
                if (c.kind in ("field", "fact") and a not in _PLUMBING and not c.qualifiers
                        and 1 <= len(a.split()) <= 3 and all(
                            w.isalpha() and w not in STOPWORDS for w in a.split())
                        and e not in holders[a]):
                    holders[a].append(e)
        made = 0
        for attr, have in sorted(holders.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            lacking = [e for e in ents if e not in have
                       and not wiki.has_attribute_words(e.id, attr)]
            if not lacking or made >= per_type:
                continue
            controls.append(Control(f"What is the {attr} of {have[0].name}?"))
            twins.append(Twin("attribute", f"What is the {attr} of {lacking[0].name}?",
                              controls[-1].question))
            made += 1
    return controls, twins


def run(corpus: Path, questions: Path, verbose: bool) -> dict:
    qs = yaml.safe_load(questions.read_text(encoding="utf-8"))
    wiki_dir = Path(tempfile.mkdtemp(prefix="folio-near-miss-")) / "wiki"
    compile_wiki(corpus, wiki_dir)
    state = wiki_state(wiki_dir)
    wiki = Wiki(state)
    answerable = [q for q in qs if q["kind"] in ANSWERABLE]
    twins = [t for q in answerable for t in twins_of_question(wiki, q)]
    controls, templates = template_pairs(wiki)
    twins += templates
    t: Counter = Counter()
    misses: list[str] = []
    for q in answerable:
        res = ask(state, q["question"], principal(state, q.get("principal")), "offline")
        t["originals"] += 1
        t["originals_answered"] += res.found
    for c in controls:
        res = ask(state, c.question, principal(state, c.principal), "offline")
        t["controls"] += 1
        t["controls_answered"] += res.found
        if not res.found and verbose:
            misses.append(f"control not answered: {c.question}")
    for tw in twins:
        res = ask(state, tw.question, principal(state, tw.principal), "offline")
        t["twins"] += 1
        t[f"twins:{tw.kind}"] += 1
        if res.found:
            t["false"] += 1
            t[f"false:{tw.kind}"] += 1
            if verbose:
                misses.append(f"{tw.kind} answered: {tw.question} -> "
                              f"{res.text().splitlines()[0][:140]}   (from: {tw.source})")
    name = questions.stem if questions.parent.name == "truth" else questions.parent.name
    return {"name": name, "t": t, "misses": misses}


KINDS = ("entity", "attribute", "region", "qualifier", "year", "per-unit", "when", "sibling")


def _rate(a: int, b: int) -> str:
    return f"{a / b:.2f} ({a}/{b})" if b else "n/a"


def table(results: list[dict]) -> str:
    rows = [("set", "twins: false-answer rate", *(f"{k}" for k in KINDS),
             "originals answered", "controls answered")]
    for r in results:
        t = r["t"]
        rows.append((r["name"], _rate(t["false"], t["twins"]),
                     *(_rate(t[f"false:{k}"], t[f"twins:{k}"]) for k in KINDS),
                     _rate(t["originals_answered"], t["originals"]),
                     _rate(t["controls_answered"], t["controls"])))
    return markdown_table(rows)


def tunable_sets() -> list[tuple[Path, Path]]:
    sets = [(c, q) for c, q in SETS if q.exists() and q.stem not in NEVER_TUNED]
    if (company := generated_company()) is not None:
        sets.append(company)
    return sets


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="list every false answer")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="only question sets whose file (or corpus) name contains NAME")
    ap.add_argument("--set", nargs=2, action="append", metavar=("CORPUS", "QUESTIONS"),
                    help="a corpus folder and its question set (repeatable)")
    args = ap.parse_args()
    sets = [(Path(c), Path(q)) for c, q in args.set] if args.set else tunable_sets()
    if args.only:
        sets = [(c, q) for c, q in sets if any(x in f"{c.name} {q.name}" for x in args.only)]
    sets = [(c, q) for c, q in sets if not any(n.split("-")[0] in str(q) for n in NEVER_TUNED)]
    results = [run(c, q, args.verbose) for c, q in sets]
    print(table(results))
    for r in results:
        for m in r["misses"]:
            print(f"  [{r['name']}] {m}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

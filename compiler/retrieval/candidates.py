"""Candidate pages and claims for a question, from the compile state's full-text indexes, as one
principal may see them: document frequencies, names and aliases the question uses, the page
documents BM25 scores, and the wikilinks between candidates."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from ..models import ACL, Claim, Principal
from ..state import State
from ..text import name_key
from .scoring import (_CLAIM_CANDIDATES, _PAGE_CANDIDATES, _RECORD_CANDIDATES, PAGE_FIELDS,
                      _attribute_counter, _counter, _PageDoc, attribute_text)
from .text import STOPWORDS, _fts_term, expand, key as word_key, tokens


# a run of capitalised words ("Harbor Fresh", "Pinecrest Rheumatology"), apostrophe-s aside
_CAPITAL_RUN = re.compile(r"\b[A-Z][\w&-]*(?:'s)?(?:\s+[A-Z][\w&-]*(?:'s)?)*")


_ORGANISATIONS = frozenset("account company customer organisation organization vendor supplier "
                           "partner".split())


def _schema_page(state: State) -> Path | None:
    """The wiki's ``SCHEMA.md`` (its state lives in ``<wiki>/.folio/state.db``), if any."""
    path = getattr(state, "path", None)
    if not isinstance(path, Path):
        return None
    page = path.parent.parent / "SCHEMA.md"
    return page if page.is_file() else None




class CandidateIndex:
    """The state-reading half of a :class:`compiler.retrieval.Retriever`."""

    state: State
    who: Principal | None
    titles: dict[str, str]
    _df: dict[tuple[str, str], int]
    _named: set[str]

    # -- statistics ------------------------------------------------------------------------
    def _df_of(self, kind: str, term: str) -> int:
        key = (kind, term)
        if key not in self._df:
            m = _fts_term(term)
            if kind == "page":
                q = "SELECT count(DISTINCT subject) FROM claims_fts WHERE claims_fts MATCH ?"
            elif kind == "claim":
                q = "SELECT count(*) FROM claims_fts WHERE claims_fts MATCH ?"
            else:
                q = "SELECT count(*) FROM records_fts WHERE records_fts MATCH ?"
            try:
                self._df[key] = self.state.db.execute(q, (m,)).fetchone()[0]
            except Exception:  # noqa: BLE001 - a term FTS5 cannot parse matches nothing
                self._df[key] = 0
        return self._df[key]

    # -- candidates ------------------------------------------------------------------------
    def _alias_pages(self, question: str) -> set[str]:
        """Pages whose name or alias is a phrase of the question (1-5 words)."""
        words = tokens(question)
        hits: set[str] = set()
        said: set[str] = set()  # the words of the names found whole
        for n in range(5, 0, -1):
            for i in range(len(words) - n + 1):
                phrase = words[i:i + n]
                if n == 1 and (phrase[0] in STOPWORDS or len(phrase[0]) < 3):
                    continue
                eid = self.state.lookup_name(name_key(" ".join(phrase)), None)
                if eid:
                    hits.add(eid)
                    said.update(phrase)
        self._short_named = self._short_names(question, hits, said)
        return hits | self._short_named

    def _short_names(self, question: str, hits: set[str], said: set[str]) -> set[str]:
        """(answer6) Pages named by the first words of their name: people say "Harbor Fresh"
        for Harbor Fresh Foods, "the Bluewater renewal" for Bluewater Health Plan's. A run of
        capitalised words of the question (not the sentence's first word, no page's whole name)
        names the one page whose name begins with it; two pages that both begin so (Acme Cloud,
        Acme Edge) leave it unnamed, and a word of a name found whole ("the Orchid renewal") is
        that name's."""
        out: set[str] = set()
        for m in _CAPITAL_RUN.finditer(question):
            words = [w for w in tokens(m.group(0))]
            if m.start() == 0 or question[:m.start()].rstrip().endswith((".", "?", "!", ":")):
                words = words[1:]  # a sentence's first word is capitalised whatever it is
            while words and (words[0] in STOPWORDS or words[0].isdigit()):
                words = words[1:]
            if not words or sum(len(w) for w in words) < 4 or set(words) & said:
                continue  # ("the *Orchid* renewal" names the deal Orchid renewal whole)
            phrase = name_key(" ".join(words))
            if self.state.lookup_name(phrase, None):
                continue  # a whole name: looked up above
            pages = {self.state.lookup_name(k, None)
                     for k in self.state.name_keys_from(phrase) if k != phrase}
            pages.discard(None)
            if len(pages) > 1:
                # "Pinecrest Rheumatology" of Pinecrest Rheumatology Group, not of its deal
                # "Pinecrest Rheumatology - infusion referral agreement": a short name is an
                # organisation's (deals and tickets are named after it)
                pages = {p for p in pages if p.split("/", 1)[0] in _ORGANISATIONS}
            if len(pages) == 1 and not pages & hits:
                out |= pages
        return out

    def _candidates(self, terms: Sequence[str], question: str) -> tuple[set[str], dict[str, str]]:
        match = " OR ".join(_fts_term(t) for t in expand(terms))
        subjects: set[str] = set()
        record_text: dict[str, str] = {}
        try:
            for (subject,) in self.state.db.execute(
                    "SELECT subject FROM claims_fts WHERE claims_fts MATCH ? "
                    "ORDER BY bm25(claims_fts, 0, 0, 2.0, 4.0, 2.0, 1.0) LIMIT ?",
                    (match, _CLAIM_CANDIDATES)):
                subjects.add(subject)
                if len(subjects) >= _PAGE_CANDIDATES:
                    break
            for key, text in self.state.db.execute(
                    "SELECT key, text FROM records_fts WHERE records_fts MATCH ? "
                    "ORDER BY bm25(records_fts) LIMIT ?", (match, _RECORD_CANDIDATES)):
                record_text[key] = text
        except Exception:  # noqa: BLE001 - malformed FTS query: fall back to names only
            pass
        self._named = self._alias_pages(question)
        subjects |= self._named
        return subjects, record_text

    def _records_of(self, keys: Sequence[str]) -> dict[str, tuple[str, ACL]]:
        out: dict[str, tuple[str, ACL]] = {}
        for i in range(0, len(keys), 500):
            chunk = list(keys[i:i + 500])
            q = (f"SELECT key, entity_id, json_extract(record_json, '$.acl') FROM records "
                 f"WHERE key IN ({','.join('?' * len(chunk))})")
            for key, eid, acl in self.state.db.execute(q, chunk):
                out[key] = (eid, ACL.model_validate(json.loads(acl)) if acl else ACL())
        return out

    def _page_docs(self, subjects: set[str], record_text: dict[str, str]
                   ) -> dict[str, _PageDoc]:
        who = self.who
        claims_of: dict[str, list[tuple[Claim, str]]] = {}
        for subject, claim, status in self.state.claims_of_subjects(sorted(subjects)):
            if claim.acl.allows(who):
                claims_of.setdefault(subject, []).append((claim, status))
        if who is not None:
            # names as the principal knows them (compiler/views.py): a page that does not
            # exist for them is no candidate, whatever claims of it they may see
            from ..views import visible_names

            known = visible_names(self.state, set(claims_of), who)
            claims_of = {e: c for e, c in claims_of.items() if e in known}
        visible = set(claims_of)
        decls = self.state.declarations_of_entities(sorted(visible))
        entities = {eid: self.state.entity(eid) for eid in visible}
        texts: dict[str, list[str]] = {}
        for key, (eid, acl) in self._records_of(sorted(record_text)).items():
            if eid in visible and acl.allows(who):
                texts.setdefault(eid, []).append(record_text[key])
        docs: dict[str, _PageDoc] = {}
        for eid, claims in claims_of.items():
            keys = {c.source.key for c, _ in claims}
            names: list[str] = []
            for d in decls.get(eid, []):
                if who is None or d.record_key in keys:
                    names += [d.name, *d.aliases]
            ent = entities.get(eid)
            if not names and ent is not None and who is None:
                names = [ent.name, *ent.aliases]
            if not names:
                continue  # a page whose name only hidden records give does not exist for who
            self.titles[eid] = names[0]
            title = _counter(dict.fromkeys(names))
            attribute = _attribute_counter(attribute_text(c) for c, _ in claims
                                           if c.kind != "statement")
            value = _counter(c.value for c, _ in claims)
            text = _counter([*(c.quote for c, _ in claims if c.kind != "statement"),
                             *texts.get(eid, [])])
            length = sum(PAGE_FIELDS[f] * sum(cnt.values()) for f, cnt in
                         (("title", title), ("attribute", attribute), ("value", value),
                          ("text", text)))
            docs[eid] = _PageDoc(title, attribute, value, text, length, claims)
        return docs

    def _says_word(self, word: str) -> bool:
        """The wiki says the word or an inflection of it ("car", "cars"): unlike the prefix
        query of :meth:`_df_of`, "car" is not found in "carrier", "cargo" or "care"."""
        w = word.lower()
        if not w.isalpha():
            return self._known(w)
        base = w[:-1] if w.endswith("e") else w
        forms = {w, w + "s", w + "es", base + "ed", base + "ing"}
        query = " OR ".join(f'"{f}"' for f in sorted(forms))
        for table in ("claims_fts", "records_fts"):
            try:
                if self.state.db.execute(f"SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT 1",
                                         (query,)).fetchone():
                    return True
            except Exception:  # noqa: BLE001 - an index this state lacks says nothing
                continue
        return False

    def _known(self, word: str) -> bool:
        k = word_key(word)
        return bool(self._df_of("page", k) or self._df_of("record", k))


    def _links(self, pages: set[str]) -> dict[str, set[str]]:
        """Neighbours among the candidate pages: wikilinks either way."""
        out: dict[str, set[str]] = {}
        ids = sorted(pages)
        for i in range(0, len(ids), 400):
            chunk = ids[i:i + 400]
            marks = ",".join("?" * len(chunk))
            for subject, target in self.state.db.execute(
                    f"SELECT subject, entity_id FROM mentions WHERE subject IN ({marks}) "
                    "AND subject != entity_id", chunk):
                if target in pages:
                    out.setdefault(subject, set()).add(target)
                    out.setdefault(target, set()).add(subject)
        return out



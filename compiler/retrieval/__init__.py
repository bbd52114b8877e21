"""Retrieval: which pages and claims answer a question, or that none does.

Pure ranking over what the compile state holds, as one principal may see it:

1. candidates come from the state's full-text indexes (claims, and source record text when the
   site kept it), matched on word stems as prefixes, so "refunds", "refunded" and "refund"
   meet;
2. each candidate page is scored with BM25 over fields (title and aliases weigh most, then
   claim attributes and values, then quotes and record text), each candidate claim with BM25
   over its own fields plus its page's name; a page also gains a share of the score of pages
   it links to or is linked from (wikilinks and shared entities), so that a question spanning
   two pages finds both;
3. a question is answered only when a claim covers what it asks, not only whom it is about
   (compiler/retrieval/coverage.py: the asked aspect and head, the answer type, the names it
   uses), and that claim covers enough of the question's weight (IDF-weighted share of its
   content words found in the claim and its page's name; benchmarks/answer_bench.py).

Nothing here is tuned to one corpus: stems, stop words of questions and an alias lookup of the
question's phrases (so "Platform Engineering" finds the Platform Team page) are generic.

The package, one job a module: :mod:`.text` (tokens, stems, keys, synonyms, phrase rewrites),
:mod:`.scoring` (BM25 over fields, weights), :mod:`.candidates` (full-text candidates, page
documents and links as a principal sees them), :mod:`.answer_types` (the kind of value a
question asks for), :mod:`.aspect` (does a claim answer what is asked), :mod:`.clauses`
(questions of several clauses) and :mod:`.retriever` (ranking and the decision).
"""

from __future__ import annotations

from .answer_types import answer_type
from .aspect import GENERIC_HEADS, LINKS_TO, says_nothing
from .retriever import Evidence, PageHit, Retrieval, Retriever, retrieve
from .scoring import (LINK_SHARE, MIN_ASPECT, MIN_ASPECT_STATEMENT, MIN_COVERAGE,
                      attribute_text, idf)
from .clauses import split_question
from .text import (FRAME_WORDS, PHRASES, STOPWORDS, SYNONYM_GROUPS, SYNONYMS, expand, key,
                   question_terms, stem, stems, tokens)

__all__ = [
    "FRAME_WORDS", "GENERIC_HEADS", "LINKS_TO", "LINK_SHARE", "MIN_ASPECT",
    "MIN_ASPECT_STATEMENT", "MIN_COVERAGE", "PHRASES", "STOPWORDS", "SYNONYMS",
    "SYNONYM_GROUPS", "Evidence", "PageHit", "Retrieval", "Retriever", "answer_type",
    "attribute_text", "expand", "idf", "key", "question_terms", "retrieve", "says_nothing",
    "split_question", "stem", "stems", "tokens",
]

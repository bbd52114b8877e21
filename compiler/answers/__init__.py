"""Answers: generated or extractive answers from retrieved, permitted, verified claims
(:mod:`.ask`), the guard that refuses to serve from a state the signed wiki contradicts
(:mod:`.guard`), answers filed back and refreshed (:mod:`.filing`) and the ``folio ask`` / ``folio answers``
commands (:mod:`.cli`). It stands above retrieval and the compile: the question's language is
:mod:`compiler.retrieval.coverage` / :mod:`compiler.retrieval.lexicon`, the answer pages the
compile renders are :mod:`compiler.answer_pages`."""

"""Answers: generated or extractive answers from retrieved, permitted, verified claims
(:mod:`.ask`), the guard that refuses to serve from a state the signed wiki contradicts
(:mod:`.guard`), and the ``folio ask`` / ``folio answers`` commands (:mod:`.cli`)."""

"""The LLM call cache: (prompt template digest, model, input digest) → the answer.

It lives next to the compile state (``<wiki>/.folio/llm_cache.db``) but in its own SQLite
file with its own connection, committed after every answer. The compile itself runs in one
transaction that is rolled back when it stops early (budget spent, provider down); answers
already paid for must survive that rollback, so that a rerun continues instead of paying again.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from pydantic import BaseModel

_SCHEMA = """
CREATE TABLE IF NOT EXISTS llm_calls (
    template TEXT NOT NULL, model TEXT NOT NULL, input TEXT NOT NULL,
    answer_json TEXT NOT NULL, PRIMARY KEY (template, model, input));
"""


class Answer(BaseModel):
    """What a call returned, as far as Folio uses it."""

    content: str | None
    finish_reason: str | None
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


class CallCache:
    def __init__(self, path: Path | None) -> None:
        """``None``: in memory only (tests, one-off runs)."""
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(":memory:" if path is None else str(path),
                                  isolation_level=None, check_same_thread=False)
        if path is not None:
            self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(_SCHEMA)
        self._lock = threading.Lock()

    def get(self, template: str, model: str, input_digest: str) -> Answer | None:
        with self._lock:
            row = self.db.execute(
                "SELECT answer_json FROM llm_calls WHERE template=? AND model=? AND input=?",
                (template, model, input_digest)).fetchone()
        return Answer.model_validate_json(row[0]) if row else None

    def put(self, template: str, model: str, input_digest: str, answer: Answer) -> None:
        with self._lock:
            self.db.execute("INSERT OR REPLACE INTO llm_calls VALUES (?,?,?,?)",
                            (template, model, input_digest, answer.model_dump_json()))

    def __len__(self) -> int:
        with self._lock:
            return self.db.execute("SELECT count(*) FROM llm_calls").fetchone()[0]

    def close(self) -> None:
        self.db.close()

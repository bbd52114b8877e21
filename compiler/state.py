"""The compile state under ``<wiki>/.folio/state.db`` (SQLite): what each input file and
record was, what each record claimed, which pages exist, and the full-text search index.

A compile runs in one transaction; it commits after every page is on disk, so a crash leaves
the previous state, and the rerun redoes exactly the same work.
"""

from __future__ import annotations

from .state_files import FileRows
from .state_pages import PageRows
from .state_queries import ClaimQueries
from .state_records import RecordRows


class State(FileRows, RecordRows, ClaimQueries, PageRows):
    """The whole state: each group of tables is its own module (state_files, state_records,
    state_entities, state_claims, state_queries, state_pages) on one connection
    (state_db.StateDB, tables in state_schema). One object, as every reader and the compile
    use it: ``State(path)`` for a compile, ``State(path, readonly=True)`` to read."""


__all__ = ["State"]

"""Induction's inputs kept beside the records in the state: one small row per record with
fields (system, instance, type, entity type, the page its entity lands on, the fields), so an
incremental compile refreshes the rows of the records it changed and induces from the rows,
instead of reading every stored record again. A full rebuild, or a state written before this
table existed, fills it from every stored record; either way the rows equal what a clean
rebuild would store, so incremental and clean compiles induce the same mappings.

Induction reads at most a bounded sample of the rows: the rows of the entities whose hash is
lowest (``inputs``). A sample that is a function of the row set keeps incremental == clean, and
taking whole entities (but at the sample's edge) keeps the join across systems that agreement is measured on; it bounds
what every edit of a record with fields costs (re-inducing read every row: 0.7 s of a 0.8 s
1-record edit at 10k records, growing with the wiki) while a few thousand entities are ample
evidence of which columns agree.

Each row is kept in parts (the record's header: system, instance, type, entity type, entity;
its fields; its facts; its statements; its narrowed names), and induction runs in four stages
(``induce.induce_fields``, ``induce_phrases``, ``induce_statements``, ``induce_rows``), each
given only the parts it reads. A stage's result is kept (``induce_memo``) under a digest of
what it read: the basis (schema, settings, ``INDUCED_VERSION``, this store's version), the
result of the stage before it, and its parts of every sampled row in order; the phrases stage
reads the statements only when a name one record states needs another's sentence, and its
digest covers them only when that run read them. A stage whose digest is the kept one is not
run and its parts of the sample are not decoded: an edited sentence runs the statements stage
alone (and the stage after it only if its result changed). Clean and incremental compiles run
the same stages on the same parts, each result passed on in its stored form, so a kept
result is what running the stage again would give; a change of the rules must bump
``INDUCED_VERSION``, as the stored induction already required."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from .induce import induce_fields, induce_phrases, induce_rows, prose_fact
from .induce_statements import induce_statements
from .index import vocabulary
from .induction import INDUCED_VERSION, Induction, RecordFields
from .model import Schema
from .induce_statements import statement_rows
from .narrow import narrowed_rows

_VERSION = "14"  # 2: unmapped prose facts too; 3: the name a fact is stated of; 4: sample bucket;
# 5: statements holding one typed value; 6: or one version or clock time; 7: narrowed names;
# 8: … from the heading above a list item too; 9: statements with a value per clause;
# 10: … and table rows' cells as sentences, counts; 11: header, fields and prose apart, stage memo
# 12: rates per different units offered apart; free / at no charge one word; a citation of
# the stating document by its title is one more shared word
# 13: a condition's time limit is stated ("if no quote 45 days before expiration, escalate");
# bounds and ranges of counts are no counts; a price per the thing it is of is flat
# 14: an acronym the corpus spells out says its phrase's words ("DW", "damage waiver")
_TABLE = ("CREATE TABLE IF NOT EXISTS induce_fields (key TEXT PRIMARY KEY, "
          "bucket INTEGER NOT NULL, head_json TEXT NOT NULL, fields_json TEXT NOT NULL, "
          "facts_json TEXT NOT NULL, statements_json TEXT NOT NULL, narrowed_json TEXT NOT NULL)")
_INDEX = "CREATE INDEX IF NOT EXISTS induce_fields_bucket ON induce_fields (bucket, key)"
_MEMO = ("CREATE TABLE IF NOT EXISTS induce_memo (stage TEXT PRIMARY KEY, digest TEXT NOT NULL, "
         "read_sentences INTEGER NOT NULL, result_json TEXT NOT NULL)")
_PARTS = ("head", "fields", "facts", "statements", "narrowed")
_COLUMNS = ", ".join(f"{p}_json" for p in _PARTS)
_Row = tuple[int, str, str, str, str, str]  # bucket, then each part as JSON

# how often each stage ran (its sampled rows decoded and its rules applied) in this process:
# what tests read to see that an edit left a stage's kept result in use
STAGE_RUNS: Counter[str] = Counter()


def _bucket(entity_id: str) -> int:
    """Where an entity falls in the sample order: a stable hash, so every record of one entity
    shares it (agreement compares one entity's values across systems)."""
    return int.from_bytes(hashlib.blake2b(entity_id.encode(), digest_size=4).digest(), "big")


def _dump(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def _row(entity_id: str, record_json: str, extraction_json: str) -> _Row | None:
    r = json.loads(record_json)
    fields = r.get("fields") or {}
    claims = json.loads(extraction_json).get("claims") or ()
    facts = sorted({(*prose_fact(c["attribute"], c.get("subject_phrase")), c["value"])
                    for c in claims if c.get("kind") == "fact" and not c.get("mapped")})
    statements = statement_rows(claims)
    narrow = narrowed_rows(claims, r.get("body") or "")
    if not fields and not facts and not statements and not narrow:
        return None
    return (_bucket(entity_id or ""),
            _dump([r["system"], r["instance"], r["type"], r.get("entity_type") or "topic",
                   entity_id]),
            _dump(sorted(fields.items())), _dump(facts), _dump(statements), _dump(narrow))


def _chunks(keys: list[str], n: int = 500) -> Iterator[list[str]]:
    for i in range(0, len(keys), n):
        yield keys[i:i + n]


def refresh(db: sqlite3.Connection, version: str | None, changed: Iterable[str],
            removed: Iterable[str], full: bool) -> tuple[str, bool]:
    """Bring the rows up to date with the records table; returns the version to store (the
    caller keeps it in the state's meta, ``induce_fields``) and whether any row changed (a
    compile whose changed records keep the rows they had, such as an edited sentence that
    states no typed fact, need not induce again). Only rows that differ are written: most
    edits leave a record's row as it was, and rewriting it dirtied two index pages a record."""
    if full or version != _VERSION:
        db.execute("DROP TABLE IF EXISTS induce_fields")  # an older version's columns differ
        db.execute("DROP TABLE IF EXISTS induce_memo")
        db.execute(_TABLE)
        db.execute(_INDEX)
        db.execute(_MEMO)
        cur = db.execute("SELECT key, entity_id, record_json, extraction_json FROM records")
        rows = [(k, *row) for k, e, js, ex in cur if (row := _row(e, js, ex)) is not None]
        db.executemany(f"INSERT INTO induce_fields (key, bucket, {_COLUMNS}) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        return _VERSION, True
    keys = sorted(set(changed) | set(removed))
    old: dict[str, _Row] = {}
    new: dict[str, _Row] = {}
    for chunk in _chunks(keys):
        marks = ",".join("?" * len(chunk))
        old.update((k, tuple(row)) for k, *row in db.execute(
            f"SELECT key, bucket, {_COLUMNS} FROM induce_fields WHERE key IN ({marks})", chunk))
        new.update((k, row) for k, e, js, ex in db.execute(
            "SELECT key, entity_id, record_json, extraction_json FROM records "
            f"WHERE key IN ({marks})", chunk) if (row := _row(e, js, ex)) is not None)
    gone = [(k,) for k in old if k not in new]
    put = [(k, *row) for k, row in new.items() if old.get(k) != row]
    db.executemany("DELETE FROM induce_fields WHERE key=?", gone)
    db.executemany(f"INSERT OR REPLACE INTO induce_fields (key, bucket, {_COLUMNS}) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?)", put)
    return _VERSION, bool(gone or put)


_Columns = dict[str, tuple[str, ...]]  # part → each sampled row's JSON of it, in key order


def _sampled(db: sqlite3.Connection, sample: int) -> _Columns:
    """Each part of the sampled rows, in key order, undecoded."""
    picked = db.execute(f"SELECT key, {_COLUMNS} FROM induce_fields ORDER BY bucket, key "
                        "LIMIT ?", (sample,)).fetchall()
    picked.sort()
    columns = list(zip(*picked)) or [()] * (len(_PARTS) + 1)
    return dict(zip(_PARTS, columns[1:], strict=True))


def _digest(*texts: str) -> str:
    # JSON as dumped holds no raw newline or NUL, so the separators keep rows and parts apart
    return hashlib.blake2b("\0".join(texts).encode(), digest_size=20).hexdigest()


def _part(columns: _Columns, part: str) -> str:
    """A digest of one part of every sampled row."""
    return _digest("\n".join(columns[part]))


_EMPTY = "[]"


_Decoded = dict[int, list]  # id of a part's column → its rows decoded (one induced() call)


def _decode(column: tuple[str, ...], memo: _Decoded | None) -> list:
    """A column's rows decoded, once per ``induced`` call (a clean compile runs every stage,
    each reading the headers: 4 decodes of every sampled row's header, and of the facts twice)."""
    if memo is not None and (got := memo.get(id(column))) is not None:
        return got
    out = [json.loads(js) if js != _EMPTY else () for js in column]
    if memo is not None:
        memo[id(column)] = out
    return out


def _records(columns: _Columns, parts: tuple[str, ...],
             memo: _Decoded | None = None) -> list[RecordFields]:
    """The rows as induction reads them, holding only ``parts`` (the others left empty), so
    that a stage can read nothing it is not keyed by. ``memo``: decoded columns kept for the
    columns' lifetime (the caller holds them, so no id is reused meanwhile)."""
    n = len(columns["head"])
    decoded = {p: _decode(columns[p], memo) if p in parts else [()] * n for p in _PARTS[1:]}
    return [RecordFields(*head, tuple((k, v) for k, v in fields),
                         tuple((a, v, about) for a, about, v in facts), tuple(statements),
                         tuple((n_, a) for n_, a in narrowed))
            for head, fields, facts, statements, narrowed in zip(
                _decode(columns["head"], memo), *(decoded[p] for p in _PARTS[1:]), strict=True)]


class _Sentences:
    """Every sampled record's header and statements, decoded when first iterated: the phrases
    stage reads them only when some name needs another record's sentence, and its kept result
    is keyed by them only then."""

    def __init__(self, columns: _Columns, memo: _Decoded | None = None) -> None:
        self._columns = columns
        self._memo = memo
        self.read = False

    def __iter__(self) -> Iterator[RecordFields]:
        self.read = True
        return iter(_records(self._columns, ("statements",), self._memo))


def _stage(db: sqlite3.Connection, stage: str, digest: str, sentences: str,
           run: Callable[[], tuple[str, bool]]) -> str:
    """The stage's result: the kept one when it was computed from what ``digest`` names (and,
    if that run read the sentences, from these ``sentences`` too), else ``run()``'s, kept."""
    got = db.execute("SELECT digest, read_sentences, result_json FROM induce_memo WHERE stage=?",
                     (stage,)).fetchone()
    if got is not None and got[0] == (f"{digest}+{sentences}" if got[1] else digest):
        return got[2]
    STAGE_RUNS[stage] += 1
    result, read = run()
    db.execute("INSERT OR REPLACE INTO induce_memo (stage, digest, read_sentences, result_json) "
               "VALUES (?, ?, ?, ?)",
               (stage, f"{digest}+{sentences}" if read else digest, int(read), result))
    return result


def induced(db: sqlite3.Connection, schema: Schema, basis: str, sample: int) -> Induction:
    """Induction over the sampled rows (``inputs``), each stage run only when what it reads
    differs from what its kept result was computed from (see the module docstring). ``basis``
    names what else the result depends on: the schema and the induction settings."""
    db.execute(_MEMO)
    columns = _sampled(db, sample)
    vocab = vocabulary(schema)
    # a record without fields adds nothing to the fields stage: neither read nor digested
    keep = [i for i, f in enumerate(columns["fields"]) if f != _EMPTY]
    with_fields = {p: tuple(columns[p][i] for i in keep) if p in ("head", "fields") else ()
                   for p in _PARTS}
    digests = {p: _part(columns, p) for p in _PARTS}
    sentences = _digest(digests["head"], digests["statements"])
    memo: _Decoded = {}  # each column decoded once, whichever stages run

    def fields() -> tuple[str, bool]:
        return induce_fields(_records(with_fields, ("fields",), memo), vocab).to_json(), False

    def then(before: str, step: Callable[[list[RecordFields], Induction], bool],
             parts: tuple[str, ...]) -> Callable[[], tuple[str, bool]]:
        def run() -> tuple[str, bool]:
            # each stage starts from the one before's result in its stored form, whether kept
            # or just computed: the same input either way
            out = Induction.from_json(before)
            read = step(_records(columns, parts, memo), out)
            return out.to_json(), read
        return run

    def phrases(records: list[RecordFields], out: Induction) -> bool:
        said = _Sentences(columns, memo)
        induce_phrases(records, vocab, out, said)
        return said.read

    def statements(records: list[RecordFields], out: Induction) -> bool:
        induce_statements(records, vocab, out)
        return False

    def rows(records: list[RecordFields], out: Induction) -> bool:
        induce_rows(records, vocab, out)
        return False

    under = f"{INDUCED_VERSION}:{_VERSION}:{basis}"  # what every stage's result depends on
    result = _stage(db, "fields", _digest(under, _part(with_fields, "head"),
                                          _part(with_fields, "fields")), "", fields)
    # each later stage is keyed by the result before it (an unchanged result: an unchanged
    # input, so one stage run again for nothing stops there) and by its own parts of the rows
    for stage, step, parts in (("phrases", phrases, ("facts",)),
                               ("statements", statements, ("statements",)),
                               ("rows", rows, ("facts", "narrowed"))):
        digest = _digest(under, stage, _digest(result), digests["head"],
                         *(digests[p] for p in parts))
        result = _stage(db, stage, digest, sentences, then(result, step, parts))
    return Induction.from_json(result)


def inputs(db: sqlite3.Connection, sample: int) -> Iterator[RecordFields]:
    """The rows induction reads, in key order: all of them up to ``sample`` rows, else the
    ``sample`` rows lowest in (bucket, key) order (see the module docstring)."""
    yield from _records(_sampled(db, sample), _PARTS[1:])

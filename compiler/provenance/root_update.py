"""Keep the sharded index root current after a compile (format: :mod:`.index_root`).

Only buckets holding a page this compile wrote, re-signed or removed are rebuilt (from the
ledger in the state, :mod:`.ledger`), and the root is re-signed only when one of its subjects
changed: a compile that wrote nothing leaves ``dbom-root.json`` as it was.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..canonical import sha256_hex
from . import ledger
from .index_root import (
    AGGREGATE_FILES, BUCKET_DIR, BUCKETS, ROOT_FILE, bucket_bytes, bucket_file, index_statement,
)
from .signers import Signer
from .statement import PAYLOAD_TYPE, BuildContext, statement_bytes

if TYPE_CHECKING:
    from ..staging import Generation
    from ..state import State


@dataclass
class RootUpdate:
    buckets_written: int = 0
    buckets_removed: int = 0
    signed: bool = False
    files: int = 0


def _buckets_on_disk(out: Path) -> set[str]:
    """Buckets of the current generation (what this compile staged is not there yet)."""
    try:
        return {e.name[:-5] for e in os.scandir(out / BUCKET_DIR) if e.name.endswith(".json")}
    except FileNotFoundError:
        return set()


def update_root(st: State, gen: Generation, signer: Signer, build: BuildContext, pages: int,
                touched: Iterable[str], aggregates: Mapping[str, str], rebuild: bool
                ) -> RootUpdate:
    """Rewrite the buckets in ``touched`` (every bucket when ``rebuild``), record the aggregate
    files' digests (``aggregates``: those the compile knows; the others are read from disk only
    when the ledger has none), and sign the root if anything it pins changed."""
    res = RootUpdate()
    stored = ledger.subjects(st)
    on_disk = _buckets_on_disk(gen.wiki)
    wanted = set(touched)
    if rebuild:
        wanted = {f"{i:02x}" for i in range(BUCKETS)}
    # a bucket file deleted behind the compile's back is rebuilt, as a deleted bundle is
    wanted |= {name.split("/")[1][:-5] for name in stored
               if name.startswith(BUCKET_DIR + "/")} - on_disk
    changed = rebuild
    for bucket in sorted(wanted):
        name = bucket_file(bucket)
        files = ledger.bucket_members(st, bucket)
        if not files:
            if name in stored or bucket in on_disk:
                gen.remove(name)
                ledger.drop_subject(st, name)
                res.buckets_removed += 1
                changed = True
            continue
        data = bucket_bytes(bucket, files)
        sha = sha256_hex(data)
        # the file is compared too: a compile that crashed before its state committed may
        # have left a bucket the rolled-back ledger does not describe
        if (stored.get(name) != (sha, len(files)) or bucket not in on_disk
                or sha256_hex(gen.read_bytes(name)) != sha):
            gen.write(name, data)
            ledger.put_subject(st, name, sha, len(files))
            res.buckets_written += 1
            changed = True
    if rebuild:  # leftovers of another bucketing or of a tampered folder
        for bucket in on_disk - wanted:
            gen.remove(bucket_file(bucket))
    for name in AGGREGATE_FILES:
        sha = aggregates.get(name)
        if sha is None:
            if name in stored and not rebuild:
                continue
            if not gen.exists(name):
                continue
            sha = sha256_hex(gen.read_bytes(name))
        if stored.get(name) != (sha, 1):
            ledger.put_subject(st, name, sha, 1)
            changed = True
    subjects = ledger.subjects(st)
    res.files = sum(n for _, n in subjects.values())
    if changed or not gen.exists(ROOT_FILE):
        stmt = index_statement({k: v[0] for k, v in subjects.items()}, pages, res.files,
                               build.run_details().builder, build.invocation_id,
                               build.finished_on)
        gen.write(ROOT_FILE, signer.sign_bundle(statement_bytes(stmt), PAYLOAD_TYPE))
        res.signed = True
    return res

"""Whose folder is this? The guard that keeps a compile from destroying what it does not own.

A compile removes every page its corpus no longer supports, so compiling corpus B into the wiki
of corpus A deletes A's pages, and compiling into a folder of the user's own files would mix
(and could overwrite) them with pages. So:

- a wiki remembers the corpus it is compiled from (``.folio/corpus.json``: the folder and a
  digest of its ``sources.yaml``); compiling another corpus into it is refused unless asked
  for (``force_corpus``). A corpus that moved (same manifest, new path) is still the same one;
- a first compile into a folder that already holds files, or into the corpus folder itself, is
  refused unless asked for (``allow_foreign``); even then, a file at a path Folio could write
  (a page, sidecar, DBOM or aggregate file name) refuses the compile: Folio never overwrites
  a file it did not write;
- in a wiki already compiled, a page new to it whose path holds a file refuses the compile
  (:func:`foreign_page_files`, checked by the compile before it writes anything).

Nothing here writes until :func:`remember_corpus`, called after a compile succeeded.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel

from .atomic import write_atomic

STATE_DIR = ".folio"
OWNER_FILE = "corpus.json"
_MANIFEST = "sources.yaml"
# names a compile writes: pages, sidecars and DBOMs (<type>/<slug>.*), the aggregate files and
# the index root's buckets
_FOLIO_NAMES = re.compile(
    r"^(?:[a-z0-9-]{1,32}/[a-z0-9-]{1,100}\.(?:md|claims\.json|dbom\.json)"
    r"|index\.md|log\.md|SCHEMA\.md|directory\.json|dbom-root\.json|dbom-root\.d/[^/]+)$")
_SHOWN = 10  # files named in a refusal
_FOLDER = re.compile(r"^(?:[a-z0-9-]{1,32}|dbom-root\.d)$")  # folders a compile writes into


class FolderGuardError(ValueError):
    """A compile or consumer would write where it must not; nothing was changed."""


class CorpusIdentity(BaseModel):
    corpus: str  # the corpus folder, resolved
    manifest_sha256: str | None = None  # of the parsed sources.yaml: survives a move
    tenant: str | None = None


def _owner_path(wiki: Path) -> Path:
    return wiki / STATE_DIR / OWNER_FILE


def recorded_corpus(wiki: Path) -> CorpusIdentity | None:
    try:
        return CorpusIdentity.model_validate_json(_owner_path(wiki).read_bytes())
    except (OSError, ValueError):
        return None  # a wiki compiled before Folio recorded it: adopted by the next compile


def _same(a: CorpusIdentity, b: CorpusIdentity) -> bool:
    return a.corpus == b.corpus or (
        a.manifest_sha256 is not None and a.manifest_sha256 == b.manifest_sha256)


def check_corpus(mine: CorpusIdentity, wiki: Path, *, force: bool = False,
                 how: str = "compile it into a new folder (--out NEW), or pass --force-corpus "
                            "to make this wiki the other corpus's (its pages that corpus does "
                            "not support are then removed)") -> None:
    """Refuse when ``wiki`` was compiled from a corpus other than ``mine`` (what
    :func:`connectors.loader.corpus_identity` reads of the corpus folder)."""
    if force:
        return
    owner = recorded_corpus(wiki)
    if owner is None:
        return
    if _same(owner, mine):
        return
    raise FolderGuardError(
        f"refused: {wiki} is the wiki of the corpus {owner.corpus}"
        + (f" (tenant {owner.tenant})" if owner.tenant else "")
        + f", not of {mine.corpus}; compiling it there would remove every page only the first "
        f"corpus supports. To proceed, {how}. Nothing was changed.")


def check_output_folder(src: Path, wiki: Path, *, allow_foreign: bool = False) -> None:
    """Refuse a wiki folder that is a file, the corpus folder itself, or (on a first compile)
    a folder holding files Folio did not write."""
    if wiki.is_file():
        raise FolderGuardError(f"{wiki} is a file, not a wiki folder")
    if not wiki.is_dir():
        return
    if wiki.resolve() == src.resolve() and not allow_foreign:
        raise FolderGuardError(
            f"refused: {wiki} is the corpus folder itself; a compile writes pages, index.md and "
            "log.md there, among the source files. Choose another --out (or pass "
            "--allow-foreign-files: Folio still never overwrites a file it did not write). "
            "Nothing was changed.")
    if (wiki / STATE_DIR).is_dir():
        return  # Folio's own wiki: a compile writes only the files it wrote before
    entries = sorted(os.listdir(wiki))
    if not entries:
        return
    shown = [e + ("/" if (wiki / e).is_dir() else "") for e in entries]
    listed = ", ".join(shown[:_SHOWN]) + (f" and {len(shown) - _SHOWN} more"
                                          if len(shown) > _SHOWN else "")
    if not allow_foreign:
        raise FolderGuardError(
            f"refused: {wiki} already holds files Folio did not write ({listed}). Compile "
            "into an empty or new folder, or pass --allow-foreign-files to write the wiki "
            "beside them (Folio never overwrites a file it did not write). Nothing was changed.")
    at_risk = _at_risk(wiki, entries)
    if at_risk:
        raise FolderGuardError(
            f"refused: {wiki} holds files Folio did not write at paths a compile writes "
            f"({', '.join(at_risk[:_SHOWN])}); Folio never overwrites them, so move them or "
            "compile into another folder. Nothing was changed.")


def _at_risk(root: Path, entries: list[str]) -> list[str]:
    """Files under ``root`` at a path a compile writes. Such paths are at most two deep
    (``<type>/<slug>.md``, ``dbom-root.d/<xx>.json``), so a large folder is never walked."""
    found = []
    for top in entries:
        path = root / top
        if path.is_symlink() and _FOLDER.match(top):
            found.append(f"{top}/")  # pages would land in wherever it points
        elif path.is_dir() and not path.is_symlink():
            found += [f"{top}/{name}" for name in sorted(os.listdir(path))
                      if _FOLIO_NAMES.match(f"{top}/{name}")]
        elif _FOLIO_NAMES.match(top):
            found.append(top)
    return found


_PAGE_ID = re.compile(r"^[a-z0-9-]{1,32}/[a-z0-9-]{1,100}$")


def foreign_page_files(wiki: Path, new_pages: Iterable[str]) -> list[str]:
    """Files at the paths of pages this wiki has never had (so Folio did not write them):
    a compile must not overwrite, nor remove, them."""
    found = []
    for eid in new_pages:
        if _PAGE_ID.match(eid):  # any other id is refused as unsafe by the render anyway
            found += [f"{eid}{suffix}" for suffix in (".md", ".claims.json", ".dbom.json")
                      if os.path.lexists(wiki / f"{eid}{suffix}")]
    return found


def foreign_pages_error(wiki: Path, found: list[str]) -> FolderGuardError:
    return FolderGuardError(
        f"refused: {wiki} holds files Folio did not write where this compile would write "
        f"pages ({', '.join(found[:_SHOWN])}); Folio never overwrites them: move them and "
        "compile again. Nothing was changed.")


def guard(src: Path, identity: CorpusIdentity, wiki: Path, *, force_corpus: bool = False,
          allow_foreign: bool = False) -> None:
    """Both checks, before a compile of ``src`` (whose identity is ``identity``) into ``wiki``
    writes anything."""
    check_output_folder(src, wiki, allow_foreign=allow_foreign)
    check_corpus(identity, wiki, force=force_corpus)


def remember_corpus(identity: CorpusIdentity, wiki: Path) -> None:
    """After a successful compile: the wiki belongs to the corpus ``identity`` names (written
    only when it changed)."""
    data = (identity.model_dump_json() + "\n").encode("utf-8")
    path = _owner_path(wiki)
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    write_atomic(path, data)


def check_consumer_corpus(corpus_root: Path, manifest: bytes) -> None:
    """A consumer maintains its corpus folder (``sources.yaml`` and ``records/``): refuse a
    folder whose ``sources.yaml`` is someone else's, which the consumer would overwrite."""
    path = corpus_root / _MANIFEST
    try:
        current = path.read_bytes()
    except FileNotFoundError:
        return
    if current != manifest:
        try:
            import yaml

            same = yaml.safe_load(current) == yaml.safe_load(manifest)
        except Exception:  # noqa: BLE001 - unreadable: certainly not the consumer's
            same = False
        if not same:
            raise FolderGuardError(
                f"refused: {corpus_root} holds a sources.yaml the consumer did not write (a "
                "corpus of its own?); the consumer keeps its records in a folder of its own: "
                "give --corpus a new folder. Nothing was changed.")


__all__ = ["CorpusIdentity", "FolderGuardError", "check_consumer_corpus", "check_corpus",
           "check_output_folder", "foreign_page_files", "foreign_pages_error",
           "guard", "recorded_corpus", "remember_corpus"]

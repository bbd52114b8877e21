"""Reading a corpus folder: the manifest, the files each source owns, and their bytes.

Everything that can go wrong with one file becomes a :class:`RecordError` naming it; the
rest of the corpus still compiles.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import ValidationError

from compiler import safe_yaml
from compiler.models import SourceRecord
from compiler.settings import FolioSettings
from compiler.wiki_owner import CorpusIdentity

from .base import CorpusManifest, RecordError, SourceConfig
from .registry import UnknownSystemError, get_connector

MANIFEST = "sources.yaml"


class ManifestError(ValueError):
    """``sources.yaml`` is missing or invalid; nothing can be compiled."""


@dataclass(frozen=True, slots=True)
class InputFile:
    rel: str
    where: str  # the file's path; a string, since every compile lists every corpus file
    source: SourceConfig

    @property
    def path(self) -> Path:
        return Path(self.where)


def load_manifest(root: Path) -> CorpusManifest:
    path = root / MANIFEST
    if not path.is_file():
        raise ManifestError(f"{path}: missing corpus manifest (lists the sources to compile)")
    try:
        raw = safe_yaml.load(path.read_text(encoding="utf-8")) or {}
        return CorpusManifest.model_validate(raw)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ManifestError(f"{path}: cannot read: {exc}") from exc
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise ManifestError(f"{path}: invalid manifest: {problems}") from exc


def discover(root: Path, manifest: CorpusManifest) -> tuple[list[InputFile], list[RecordError]]:
    """Every file each source owns, sorted; unusable sources and files become errors."""
    files: list[InputFile] = []
    errors: list[RecordError] = []
    root_real = root.resolve()
    for i, source in enumerate(manifest.sources):
        try:
            connector = get_connector(source.system)
        except UnknownSystemError as exc:
            errors.append(RecordError(path=MANIFEST, record=f"sources[{i}]", field="system",
                                      message=str(exc)))
            continue
        folder = root / source.path
        if not folder.is_dir():
            errors.append(RecordError(path=MANIFEST, record=f"sources[{i}]", field="path",
                                      message=f"source folder {source.path!r} does not exist"))
            continue
        # symlinked folders are not descended into, so a file that is not itself a symlink
        # lies wherever its source folder does: one realpath per source, not per file
        folder_inside = folder.resolve().is_relative_to(root_real)
        base = folder.relative_to(root).as_posix()
        for rel, entry in _walk(folder, "" if base == "." else base + "/"):
            name = entry.name
            inside = (Path(entry.path).resolve().is_relative_to(root_real)
                      if entry.is_symlink() else folder_inside)
            if not inside:
                errors.append(RecordError(path=rel, message="symlink leads outside the corpus"))
                continue
            if not name.lower().endswith(connector.file_suffixes):
                errors.append(RecordError(
                    path=rel, message=f"not a {source.system} export "
                    f"(expected {', '.join(connector.file_suffixes)})"))
                continue
            files.append(InputFile(rel=rel, where=entry.path, source=source))
    files.sort(key=lambda f: f.rel)
    return files, errors


def _walk(folder: Path, prefix: str) -> Iterator[tuple[str, os.DirEntry]]:
    """(corpus-relative path, entry) of each file under ``folder`` that is not hidden, in the
    order ``os.walk`` gives (files of a folder sorted, then its sub-folders sorted, depth
    first; symlinked folders and unreadable ones skipped). Every incremental compile lists the
    whole corpus: a pathlib object, ``relative_to`` and an ``lstat`` per file cost ~0.3 s at
    10k files, where the listing itself already knows names and symlinks."""
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    dirs = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            is_dir = entry.is_dir()  # follows symlinks, as os.walk does
        except OSError:
            is_dir = False
        if is_dir:
            if not entry.is_symlink():
                dirs.append(entry)
        else:
            yield prefix + entry.name, entry
    for entry in dirs:
        yield from _walk(Path(entry.path), f"{prefix}{entry.name}/")


def read_input(f: InputFile, max_bytes: int) -> bytes | RecordError:
    """The file's bytes, or why it cannot be an export: too large, binary, unreadable."""
    try:
        size = f.path.stat().st_size
        if size > max_bytes:
            return RecordError(path=f.rel, message=f"file is {size:,} bytes, over the "
                               f"{max_bytes:,}-byte limit (FOLIO_MAX_FILE_BYTES)")
        data = f.path.read_bytes()
    except OSError as exc:
        return RecordError(path=f.rel, message=f"cannot read: {exc.strerror or exc}")
    if b"\x00" in data[:8192]:
        return RecordError(path=f.rel, message="binary file (contains NUL bytes), not an export")
    return data


def corpus_records(root: Path, max_bytes: int) -> Iterator[SourceRecord]:
    """Every record of a corpus folder, parsed by the connectors the compile uses (so digests
    are computed the same way); files and records the compile would reject are skipped."""
    manifest = load_manifest(root)
    files, _ = discover(root, manifest)
    for f in files:
        data = read_input(f, max_bytes)
        if isinstance(data, bytes):
            for item in get_connector(f.source.system).parse(f.rel, data, f.source,
                                                             manifest.tenant):
                if isinstance(item, SourceRecord):
                    yield item


def current_sources(corpus: Path, settings: FolioSettings | None = None
                    ) -> dict[str, tuple[str, str]]:
    """key → (version, sha256) of every record in the corpus now, read by the same connectors
    the compile uses (so the digests are computed the same way): what ``folio verify
    --sources`` and an answer's audit hold the signed dependencies against."""
    settings = settings or FolioSettings()
    return {r.key: (r.version, r.sha256)
            for r in corpus_records(corpus, settings.max_file_bytes)}


def corpus_identity(src: Path) -> CorpusIdentity:
    """Which corpus ``src`` is, as a wiki remembers its own (compiler/wiki_owner.py): the
    folder and a digest of its parsed ``sources.yaml``, which survives a move."""
    try:
        manifest = load_manifest(src)
    except (ValueError, OSError):
        return CorpusIdentity(corpus=str(src.resolve()))
    digest = hashlib.sha256(manifest.model_dump_json().encode("utf-8")).hexdigest()
    return CorpusIdentity(corpus=str(src.resolve()), manifest_sha256=digest,
                          tenant=manifest.tenant)

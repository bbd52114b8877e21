"""Reading a corpus folder: the manifest, the files each source owns, and their bytes.

Everything that can go wrong with one file becomes a :class:`RecordError` naming it; the
rest of the corpus still compiles.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import ValidationError

from .base import CorpusManifest, RecordError, SourceConfig
from .registry import UnknownSystemError, get_connector

MANIFEST = "sources.yaml"


class ManifestError(ValueError):
    """``sources.yaml`` is missing or invalid; nothing can be compiled."""


@dataclass(frozen=True, slots=True)
class InputFile:
    rel: str
    path: Path
    source: SourceConfig


def load_manifest(root: Path) -> CorpusManifest:
    path = root / MANIFEST
    if not path.is_file():
        raise ManifestError(f"{path}: missing corpus manifest (lists the sources to compile)")
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
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
        # os.walk does not descend into symlinked folders, so a file that is not itself a
        # symlink lies wherever its source folder does: one realpath per source, not per file
        folder_inside = folder.resolve().is_relative_to(root_real)
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if name.startswith("."):
                    continue
                path = Path(dirpath) / name
                rel = path.relative_to(root).as_posix()
                inside = (path.resolve().is_relative_to(root_real) if os.path.islink(path)
                          else folder_inside)
                if not inside:
                    errors.append(RecordError(path=rel, message="symlink leads outside the corpus"))
                    continue
                if not name.lower().endswith(connector.file_suffixes):
                    errors.append(RecordError(
                        path=rel, message=f"not a {source.system} export "
                        f"(expected {', '.join(connector.file_suffixes)})"))
                    continue
                files.append(InputFile(rel=rel, path=path, source=source))
    files.sort(key=lambda f: f.rel)
    return files, errors


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

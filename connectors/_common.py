"""Plumbing every file-export connector shares: decoding, error reporting, record building.

Kept private to the connectors package: the public surface is each connector's ``parse``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple

import msgspec
import orjson

from pydantic import ValidationError

from compiler.models import SourceRecord

from .base import RecordError


class FieldError(Exception):
    """Raised inside a record builder when one source field cannot be used."""

    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def decode_text(path: str, data: bytes) -> str | RecordError:
    try:
        # utf-8-sig: exports saved by Windows tools often start with a BOM that is not content.
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return RecordError(path=path, message=f"not valid UTF-8 (byte {exc.start}: {exc.reason})")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


def decode_json(path: str, data: bytes) -> Any | RecordError:
    """The parsed document, or one RecordError naming the line and column that broke it."""
    text = decode_text(path, data)
    if isinstance(text, RecordError):
        return text
    try:
        # NaN/Infinity are not JSON and would make record digests platform-dependent.
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        return RecordError(
            path=path, message=f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        )
    except (ValueError, RecursionError) as exc:
        return RecordError(path=path, message=f"invalid JSON: {exc}")


def payload_items(
    path: str, data: bytes, list_key: str,
    single: Callable[[dict[str, Any]], tuple[str, Any] | None], expected: str,
    lazy: bool = True,
) -> tuple[dict[str, Any], list[Item]] | RecordError:
    """An export that is a list response (``{list_key: [...]}``) or one object (``single``
    picks it out of the document): the document and its payload objects, or one RecordError
    saying what the file should have been.

    ``lazy``: the connector builds each object's record from the object and the rest of the
    document alone (not from what it gathers over all of its objects). Then, in a file the
    :class:`ItemMemo` remembers, only the objects whose bytes changed are decoded, and the
    document returned lacks ``list_key``."""
    if lazy:
        got = lazy_items(data, list_key)
        if got is not None:
            return got
    doc = decode_json(path, data)
    if isinstance(doc, RecordError):
        return doc
    if isinstance(doc, dict) and isinstance(doc.get(list_key), list):
        memo_context(list_key, doc)
        objs = doc[list_key]
        raws = raw_list(data, list_key, len(objs))
        return doc, [Item(f"{list_key}[{i}]", obj, raws[i] if raws else None)
                     for i, obj in enumerate(objs)]
    one = single(doc) if isinstance(doc, dict) else None
    if one is None:
        return RecordError(path=path, message=f"not {expected}")
    return doc, [Item(*one)]


_BOM = b"\xef\xbb\xbf"
_RAW_DOC = msgspec.json.Decoder(dict[str, msgspec.Raw])
_RAW_LIST = msgspec.json.Decoder(list[msgspec.Raw])


def _split(data: bytes, list_key: str) -> tuple[dict[str, Any], list[Any]] | None:
    """The document's top-level values and its list's objects, each as its own bytes
    (msgspec.Raw) without the whitespace between tokens, undecoded; None when the document is
    not a JSON object holding that list, or is anything msgspec refuses (the json module then
    decides, and words the error)."""
    try:
        # compact first: an export written again with another indent keeps its digests
        # (strings and numbers are copied as they are, so equal bytes are equal values)
        compact = msgspec.json.format(data[3:] if data.startswith(_BOM) else data, indent=-1)
        top = _RAW_DOC.decode(compact)
        raw = top.get(list_key)
        return (top, _RAW_LIST.decode(raw)) if raw is not None else None
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None


def raw_list(data: bytes, list_key: str, n: int) -> list[Any] | None:
    """The bytes of each of the ``n`` objects of the document's list, for the memo's digests
    (None without a memo, or when they cannot be told apart)."""
    if ITEM_MEMO is None:
        return None
    got = _split(data, list_key)
    return got[1] if got is not None and len(got[1]) == n else None


def _loads(raw: Any) -> Any:
    return json.loads(bytes(raw).decode("utf-8"), parse_constant=_reject_constant)


_UNREAD = object()


def lazy_items(
    data: bytes, list_key: str, needs: Callable[[bytes], bool] | None = None,
    gather: Callable[[list[Any]], Any] | None = None, extra: Callable[[Any, Any], Any] | None = None,
) -> tuple[dict[str, Any], list[Item]] | None:
    """The document (without ``list_key``) and objects of a list export the :class:`ItemMemo`
    remembers, decoding only the objects it does not know by their bytes; None for anything
    else, and for any object or value the json module refuses: the whole file is then decoded
    the usual way, so that its error names the file's line and column.

    For a connector whose records take something it gathers over the file's objects:
    ``gather`` is given the objects ``needs`` picks by their bytes (it must pick every one that
    adds to it), decoded, in file order; ``extra(raw, gathered)`` is what of it an object's
    record takes (its memo digest's ``extra``, as the connector passes to :func:`build_memo`)."""
    memo = ITEM_MEMO
    if memo is None or not memo.known:
        return None
    got = _split(data, list_key)
    if got is None:
        return None
    top, raws = got
    objs: list[Any] = [_UNREAD] * len(raws)
    items: list[Item] = []
    try:
        doc = {k: _loads(v) for k, v in top.items() if k != list_key}
        picked = [i for i, raw in enumerate(raws) if needs(bytes(raw))] if needs else []
        for i in picked:
            objs[i] = _loads(raws[i])
        gathered = gather([objs[i] for i in picked]) if gather else None
        memo_context(list_key, doc)
        for i, raw in enumerate(raws):
            pointer = f"{list_key}[{i}]"
            digest = memo.digest(pointer, raw, extra(raw, gathered) if extra else None)
            known = memo.known_item(digest)
            if known is not None:
                items.append(Item(pointer, None, raw, known))
                continue
            obj = objs[i]
            items.append(Item(pointer, _loads(raw) if obj is _UNREAD else obj, raw))
    except (ValueError, RecursionError, UnicodeDecodeError):
        memo.digests.clear()
        return None
    return doc, items


def raw_value(raw: Any, key: str) -> Any:
    """The value at ``key`` of the object whose bytes are ``raw``, decoded alone (the rest is
    passed over); None when it is not an object or lacks the key. Raises ValueError where
    the json module would refuse the value."""
    try:
        value = _RAW_DOC.decode(raw).get(key)
    except msgspec.DecodeError:
        return None
    return None if value is None else _loads(value)


def origin(path: str, pointer: str) -> str:
    return f"{path}#{pointer}" if pointer else path


def _loc(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _message(err: Any) -> str:
    msg = str(err["msg"])
    return msg.removeprefix("Value error, ")


def build(
    path: str, label: str, make: Callable[[], SourceRecord | None]
) -> SourceRecord | RecordError | None:
    """Run one record's builder; turn any failure into a RecordError for that record alone.

    ``make`` returns None for records that are deliberately skipped (deleted, other types).
    """
    try:
        return make()
    except FieldError as exc:
        return RecordError(path=path, record=label, field=exc.field, message=exc.message)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        first = errors[0]
        message = _message(first)
        if len(errors) > 1:
            rest = "; ".join(f"{_loc(e['loc'])}: {_message(e)}" for e in errors[1:])
            message += f" (also {rest})"
        return RecordError(path=path, record=label, field=_loc(first["loc"]) or None, message=message)
    except Exception as exc:  # noqa: BLE001 - one odd record must never hide the rest of the file
        return RecordError(
            path=path, record=label, message=f"unreadable record ({type(exc).__name__}: {exc})"
        )


def record_label(obj: Any, pointer: str, fallback: str) -> str:
    """How an error names a record: its id, else where it sits in the file."""
    if isinstance(obj, dict) and obj.get("id") not in (None, ""):
        return str(obj["id"])
    return pointer or fallback


class KnownItem(NamedTuple):
    """A payload object the compile built into this very record before (see :class:`ItemMemo`):
    the record is not built again."""

    key: str
    id: str
    sha256: str


class Item(NamedTuple):
    """One payload object of an export: where it sits (``pointer``), the object (None when
    the :class:`ItemMemo` knew it and it was not decoded: ``known`` is then its record), and
    its own bytes in the file (None when they could not be told apart: no memo then)."""

    pointer: str
    obj: Any
    raw: Any = None  # bytes-like (msgspec.Raw)
    known: KnownItem | None = None


class ItemMemo:
    """Set (as ``ITEM_MEMO``) by the compile around the parse of one file of a list export it
    parsed before: an object whose digest (of itself, its place in the file, the rest of the
    document, the file, source and tenant: everything its record is built from) names a record
    the compile still holds with the same content digest comes out as a :class:`KnownItem`,
    unbuilt. An edited export is parsed whole, and most of its objects did not change.

    ``known``: object digest → (record key, id, sha256) of the file's last parse; ``stored``:
    record key → sha256 the compile holds. ``salt``: the file, source, tenant and whatever
    else the compile's parse depends on. ``digests`` collects record key → object digest of
    this parse (None: two objects made one key, which is not remembered)."""

    def __init__(self, known: Mapping[str, tuple[str, str, str]], stored: Mapping[str, str],
                 salt: str) -> None:
        self.known, self.stored, self.salt = known, stored, salt
        self.context: str | None = None
        self.digests: dict[str, str | None] = {}

    def set_context(self, list_key: str, rest: dict[str, Any]) -> None:
        self.context = _digest([self.salt, list_key, rest])

    def digest(self, pointer: str, raw: Any, extra: Any = None) -> str | None:
        """The digest of an object's bytes as they stand in the file (``raw``), its place and
        the context, and ``extra`` (what else of the file its record is built from). Of the
        bytes, not of the decoded object: so an unchanged object need not be decoded at all,
        and an export written again with other spacing or key order is a memo miss (its
        objects are built again: time, never a different wiki)."""
        if self.context is None:
            return None
        h = hashlib.sha256(f"{self.context}\0{pointer}\0".encode())
        if extra is not None:
            h.update(f"{_digest(extra)}\0".encode())
        h.update(raw)
        return h.hexdigest()

    def known_item(self, digest: str | None) -> KnownItem | None:
        hit = self.known.get(digest) if digest is not None else None
        if hit is None or self.stored.get(hit[0]) != hit[2]:
            return None
        self.note(hit[0], digest)
        return KnownItem(*hit)

    def note(self, key: str, digest: str | None) -> None:
        self.digests[key] = None if key in self.digests else digest


def _digest(value: Any) -> str:
    # every payload object of an edited export is digested (a 1 % edit: ~60 per changed
    # record); orjson's sorted dump costs ~1/3 of json.dumps' (the digests only have to be
    # stable within one Folio: the memo is rebuilt once when they change)
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # what orjson does not take (integers beyond 64 bits): the json module
        data = json.dumps(value, sort_keys=True, ensure_ascii=False,
                          separators=(",", ":")).encode()
    return hashlib.sha256(data).hexdigest()


# the memo of the file being parsed in this process, if the caller keeps one (compiler/steps.py)
ITEM_MEMO: ItemMemo | None = None


def build_each(
    path: str, items: Iterable[Item], fallback: str,
    make: Callable[[Any, str], SourceRecord | None],
) -> Iterator[SourceRecord | RecordError | KnownItem]:
    """:func:`build` over a payload's objects, each failure its own error; objects the
    caller's :class:`ItemMemo` knows come out as :class:`KnownItem`."""
    for pointer, obj, raw, known in items:
        if known is not None:
            yield known
            continue
        result = build_memo(path, record_label(obj, pointer, fallback), pointer, raw,
                            lambda obj=obj, pointer=pointer: make(obj, pointer))
        if result is not None:
            yield result


def memo_context(list_key: str, doc: dict[str, Any], derived: dict[str, Any] | None = None) -> None:
    """A list export's document was read: what its objects' records are built from besides
    themselves (the rest of the document, and ``derived``: what the connector gathered from
    all of its objects, such as the users they name) goes into their digests."""
    if ITEM_MEMO is not None:
        rest = {k: v for k, v in doc.items() if k != list_key}
        ITEM_MEMO.set_context(list_key, {**rest, "\0derived": derived} if derived else rest)


def build_memo(
    path: str, label: str, pointer: str, raw: Any, make: Callable[[], SourceRecord | None],
    extra: Any = None,
) -> SourceRecord | RecordError | KnownItem | None:
    """:func:`build`, unless the :class:`ItemMemo` knows the record that the payload object
    of bytes ``raw`` (None: unknown, no memo) and ``extra`` (anything else of the file its
    record is built from) made last time."""
    memo = ITEM_MEMO
    digest = memo.digest(pointer, raw, extra) if memo is not None and raw is not None else None
    if digest is not None:
        known = memo.known_item(digest)  # type: ignore[union-attr]
        if known is not None:
            return known
    result = build(path, label, make)
    if digest is not None and isinstance(result, SourceRecord):
        memo.note(result.key, digest)  # type: ignore[union-attr]
    return result


def sorted_unique(values: Iterable[Any]) -> tuple[str, ...]:
    return tuple(sorted({str(v).strip() for v in values if v is not None and str(v).strip()}))


def as_dict(value: Any) -> dict[str, Any]:
    """Optional sub-objects of API payloads are routinely absent or null."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def text_or_none(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None

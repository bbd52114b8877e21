"""Reading ``schema.yaml``: the bundled base schema, a corpus's own file merged over it, and
errors that name the file, the line and the key.

YAML is composed into nodes first (they carry line marks), then turned into plain data by
a walk that counts every node it visits, aliases included, so a "billion laughs" document
fails fast instead of expanding. Validation errors are mapped back to the line of the key
they are about.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from ..canonical import canonical_json, sha256_hex
from .keys import attr_key, type_key, value_key
from .model import Attribute, EntityType, Mapping, Qualifier, Schema

SCHEMA_FILE = "schema.yaml"
# libyaml's composer when the wheel has it: the same nodes and marks, ~10x faster
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_NODES = 200_000  # scalars, lists and maps visited, aliases counted each time
MAX_BYTES = 4_000_000


class SchemaError(ValueError):
    """``schema.yaml`` is unreadable or invalid; the message names file, line and key."""


Path_ = tuple[str | int, ...]


class _Reader:
    def __init__(self, where: str) -> None:
        self.where = where
        self.lines: dict[Path_, int] = {(): 1}
        self.budget = MAX_NODES

    def fail(self, line: int, key: Path_, message: str) -> SchemaError:
        return SchemaError(f"{self.where}:{line}: {_dotted(key) or '(top level)'}: {message}")

    def data(self, node: yaml.Node, at: Path_) -> Any:
        self.budget -= 1
        if self.budget < 0:
            raise self.fail(node.start_mark.line + 1, at,
                            f"more than {MAX_NODES} YAML nodes (aliases expanded): refused")
        self.lines.setdefault(at, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    raise self.fail(key_node.start_mark.line + 1, at, "keys must be plain text")
                key = str(key_node.value).strip()
                if key == "<<":
                    raise self.fail(key_node.start_mark.line + 1, at, "merge keys are not supported")
                if key in out:
                    raise self.fail(key_node.start_mark.line + 1, (*at, key), "duplicate key")
                self.lines[(*at, key)] = key_node.start_mark.line + 1
                out[key] = self.data(value_node, (*at, key))
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.data(item, (*at, i)) for i, item in enumerate(node.value)]
        # every leaf of a schema is text: a scalar is read as written, so `NO` (Norway) is not
        # false, `1` is the synonym "1" and a date stays the string it was
        if node.tag == "tag:yaml.org,2002:null":
            return None
        return str(node.value)

    def line_of(self, loc: Path_) -> tuple[int, Path_]:
        """Line of the longest known prefix of a validation error's location; pydantic adds
        union member names (``FieldMap``, ``str``) that are not keys, which are skipped."""
        known: list[str | int] = []
        line = 1
        for part in loc:
            trial = (*known, part)
            if trial in self.lines:
                known.append(part)
                line = self.lines[trial]
        return line, tuple(loc)


def _dotted(key: Path_) -> str:
    out = ""
    for part in key:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def parse_schema(text: str, where: str, known_qualifiers: frozenset[str] | None = None
                 ) -> Schema:
    """Validate the text of one schema file (``where`` names it in errors). Qualifiers in
    ``known_qualifiers`` (default: the base schema's) may be used without being declared."""
    if known_qualifiers is None:
        known_qualifiers = frozenset(attr_key(q) for q in base_schema().qualifiers)
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise SchemaError(f"{where}: larger than {MAX_BYTES} bytes: refused")
    reader = _Reader(where)
    try:
        root = yaml.compose(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f"{mark.line + 1}" if mark else "?"
        problem = getattr(exc, "problem", None) or str(exc)
        raise SchemaError(f"{where}:{line}: invalid YAML: {problem}") from None
    data = reader.data(root, ()) if root is not None else {}
    if not isinstance(data, dict):
        raise reader.fail(1, (), f"a schema is a mapping, got {type(data).__name__}")
    try:
        schema = Schema.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        line, loc = reader.line_of(tuple(first["loc"]))
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise reader.fail(line, loc, str(first["msg"]).removeprefix("Value error, ") + more) \
            from None
    for loc, message in _dangling(schema, data, known_qualifiers):
        line, loc = reader.line_of(loc)
        raise reader.fail(line, loc, message)
    return schema


def _dangling(schema: Schema, data: dict[str, Any], known: frozenset[str]
              ) -> list[tuple[Path_, str]]:
    """Names that point nowhere: an attribute's undeclared qualifier, a mapping onto an
    attribute or type nobody declared (checked once merged with the base, see load)."""
    problems: list[tuple[Path_, str]] = []
    raw_types = data.get("types") or {}
    declared_q = {attr_key(q) for q in schema.qualifiers} | known
    for tname, t in raw_types.items():
        seen: dict[str, str] = {}
        for aname in ((t or {}).get("attributes") or {}):
            other = seen.setdefault(attr_key(aname), aname)
            if other != aname:
                problems.append((("types", tname, "attributes", aname),
                                 f"the same attribute as {other!r} (names compare without "
                                 "case, spaces and underscores)"))
        for aname, a in ((t or {}).get("attributes") or {}).items():
            for i, q in enumerate((a or {}).get("qualifiers") or ()):
                if attr_key(str(q)) not in declared_q:
                    problems.append((("types", tname, "attributes", aname, "qualifiers", i),
                                     f"qualifier {q!r} is not declared under 'qualifiers:'"))
    return problems


@lru_cache(maxsize=1)
def base_schema() -> Schema:
    """The bundled base schema: the five systems' standard fields on canonical attributes."""
    text = resources.files(__package__).joinpath("base.yaml").read_text(encoding="utf-8")
    schema = parse_schema(text, "compiler/schema/base.yaml", frozenset())
    return schema


def merge_values(base: dict[str, tuple[str, ...]], over: dict[str, tuple[str, ...]]
                 ) -> dict[str, tuple[str, ...]]:
    """Enum or qualifier values: the corpus's add to the base's, and where the corpus files a
    value under its own label (``Negotiation: [Negotiation/Review, contractsent]``), the base's
    label or synonym for it gives way."""
    taken = {value_key(label) for label in over} | {
        value_key(str(s)) for synonyms in over.values() for s in synonyms}
    values: dict[str, tuple[str, ...]] = {}
    for label, synonyms in base.items():
        if label not in over and value_key(label) in taken:
            continue
        values[label] = tuple(s for s in synonyms if value_key(str(s)) not in taken)
    for label, synonyms in over.items():
        values[label] = tuple(dict.fromkeys((*values.get(label, ()), *synonyms)))
    return values


def _merge_attribute(base: Attribute, over: Attribute) -> Attribute:
    """What the corpus states overrides; phrases and enum synonyms add to the base's."""
    update: dict[str, Any] = {k: getattr(over, k) for k in over.model_fields_set}
    if "phrases" in update:
        update["phrases"] = tuple(dict.fromkeys((*base.phrases, *over.phrases)))
    if "values" in update:
        update["values"] = merge_values(base.values, over.values)
    return Attribute.model_validate({**base.model_dump(exclude_unset=True), **update})


def merge(base: Schema, over: Schema) -> Schema:
    """``over`` (a corpus's file) extends and overrides ``base``: types and attributes are
    matched by key (case, spaces and underscores ignored), mappings are appended (a later
    mapping wins over an equally specific earlier one)."""
    dropped: dict[str, set[str]] = {}  # type key → keys of base attributes the corpus took over
    words = {attr_key(w) for t in over.types.values() for a, spec in t.attributes.items()
             for w in (a, *spec.phrases)}
    types: dict[str, EntityType] = {}
    for tname, t in base.types.items():
        own = next((o for k, o in over.types.items() if type_key(k) == type_key(tname)), None)
        attrs = _yield_to_corpus(t.attributes, own.attributes if own else {}, words,
                                 dropped.setdefault(type_key(tname), set()))
        types[tname] = t.model_copy(update={"attributes": attrs})
    for tname, t in over.types.items():
        match = next((k for k in types if type_key(k) == type_key(tname)), None)
        if match is None:
            types[tname] = t
            continue
        attrs = dict(types[match].attributes)
        for aname, a in t.attributes.items():
            hit = next((k for k in attrs if attr_key(k) == attr_key(aname)), None)
            if hit is None:
                attrs[aname] = a
            else:
                attrs[hit] = _merge_attribute(attrs[hit], a)
        types[match] = EntityType(description=t.description or types[match].description,
                                  attributes=attrs)
    qualifiers: dict[str, Qualifier] = dict(base.qualifiers)
    for qname, q in over.qualifiers.items():
        hit = next((k for k in qualifiers if attr_key(k) == attr_key(qname)), None)
        if hit is None:
            qualifiers[qname] = q
            continue
        qualifiers[hit] = Qualifier(description=q.description or qualifiers[hit].description,
                                    values=merge_values(qualifiers[hit].values, q.values))
    return Schema(
        version=over.version if "version" in over.model_fields_set else base.version,
        types=types, qualifiers=qualifiers,
        mappings=(*_not_overridden(_without(base.mappings, dropped), over.mappings),
                  *over.mappings))


def _yield_to_corpus(attrs: dict[str, Attribute], corpus: dict[str, Attribute],
                     words: set[str], dropped: set[str]) -> dict[str, Attribute]:
    """The base's attributes of a type, minus what the corpus's own words (``words``: the
    names and phrases it declares on any type) take over: a base attribute whose name the
    corpus uses for its own attribute (``refund window`` filed under ``return window``) goes,
    and a base phrase the corpus also uses is left to the corpus's attribute, so the corpus's
    reading of its own words always wins. Attributes the corpus declares on this type
    (``corpus``) merge as usual."""
    own = {attr_key(a) for a in corpus}
    out: dict[str, Attribute] = {}
    for name, a in attrs.items():
        key = attr_key(name)
        if key not in own and key in words:
            dropped.add(key)
            continue
        if key not in own and any(attr_key(p) in words for p in a.phrases):
            a = a.model_copy(update={"phrases": tuple(p for p in a.phrases
                                                      if attr_key(p) not in words)})
        out[name] = a
    return out


def _without(mappings: tuple[Mapping, ...], dropped: dict[str, set[str]]) -> tuple[Mapping, ...]:
    """Base mappings without the fields onto attributes the corpus took over."""
    out: list[Mapping] = []
    for m in mappings:
        gone = dropped.get(type_key(m.entity_type or ""), set())
        fields = {f: t for f, t in m.fields.items()
                  if attr_key(t if isinstance(t, str) else t.attribute) not in gone}
        if fields:
            out.append(m if len(fields) == len(m.fields) else m.model_copy(update={"fields": fields}))
    return tuple(out)


def _not_overridden(base: tuple[Mapping, ...], over: tuple[Mapping, ...]) -> list[Mapping]:
    """The base's mappings without the fields a corpus mapping covering the same records
    names: the corpus's word wins over the base's, however specific either is."""
    out: list[Mapping] = []
    for b in base:
        named = {attr_key(f) for o in over for f in o.fields
                 if attr_key(o.system) == attr_key(b.system)
                 and (o.instance is None or o.instance == b.instance)
                 and (o.record_type is None or b.record_type is None
                      or type_key(o.record_type) == type_key(b.record_type))}
        fields = {f: t for f, t in b.fields.items() if attr_key(f) not in named}
        if fields:
            out.append(b if len(fields) == len(b.fields) else b.model_copy(update={"fields": fields}))
    return out


def load_schema_file(path: Path) -> Schema:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SchemaError(f"{path}: cannot read schema: {exc}") from exc
    return parse_schema(text, str(path))


def load_schema(corpus_dir: Path) -> Schema:
    """The schema a corpus compiles under: the base, with ``schema.yaml`` merged over it
    when the corpus has one."""
    base = base_schema()
    path = Path(corpus_dir) / SCHEMA_FILE
    if not path.exists():
        return base
    merged = merge(base, load_schema_file(path))
    _check_mappings(merged, path)
    return merged


def _check_mappings(schema: Schema, path: Path) -> None:
    from .index import vocabulary

    vocab = vocabulary(schema)
    for i, m in enumerate(schema.mappings):
        for field, target in m.fields.items():
            name = target if isinstance(target, str) else target.attribute
            declared = (vocab.attribute(m.entity_type, name) if m.entity_type
                        else vocab.declared_anywhere(name))
            if declared is None:
                raise SchemaError(
                    f"{path}: mappings[{i}].fields.{field}: attribute {name!r} is not declared"
                    + (f" on type {m.entity_type!r}" if m.entity_type else " on any type"))


def digest(schema: Schema) -> str:
    """sha256 of the schema's canonical JSON: what a DBOM records and a compile compares."""
    return sha256_hex(canonical_json(schema.model_dump(mode="json")))

"""The schema layer: declared entity types, canonical attributes, typed values, mappings.

``load_schema(corpus_dir)`` gives the schema a corpus compiles under (the bundled base with
the corpus's ``schema.yaml`` merged over it); ``digest(schema)`` its identity, recorded in
every DBOM and compared by the incremental compile."""

from .loader import SchemaError, base_schema, digest, load_schema, merge, parse_schema
from .model import Attribute, EntityType, FieldMap, Mapping, Qualifier, Schema

__all__ = ["Attribute", "EntityType", "FieldMap", "Mapping", "Qualifier", "Schema",
           "SchemaError", "base_schema", "digest", "load_schema", "merge", "parse_schema"]

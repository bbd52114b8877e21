"""The schema layer: declared entity types, canonical attributes, typed values, mappings."""

from .model import Attribute, EntityType, FieldMap, Mapping, Qualifier, Schema

__all__ = ["Attribute", "EntityType", "FieldMap", "Mapping", "Qualifier", "Schema"]

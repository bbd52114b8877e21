"""Folio's knowledge compiler: records in, claims out; claims in, pages out."""

__version__ = "0.1.0"

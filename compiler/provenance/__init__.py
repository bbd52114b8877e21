"""Provenance of the compiled wiki: a signed DBOM per page, a signed index root over the whole
wiki, verification, and signed answer records. Formats and commands: docs/provenance.md."""

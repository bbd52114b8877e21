"""The served wiki: ``folio serve`` (web view, JSON API) and ``folio mcp``, each computed for
the authenticated principal only (docs/serve.md)."""

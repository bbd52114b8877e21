"""Connectors that speak each source system's REST API (httpx) and publish change events.

``client.py`` is the HTTP plumbing (auth, retries, 429/Retry-After); ``base.py`` the shared
interface and config; one module per system turns API pages into records by reusing the
export-file parsers of :mod:`connectors` (the API returns the same payloads the exports hold);
``runner.py`` drives a poll with a checkpointed cursor onto an event bus.
"""

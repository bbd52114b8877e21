"""HTTP plumbing every API connector shares: auth, retries with backoff, 429 + Retry-After.

Tokens are :class:`SecretStr` until the moment a request is signed; errors name the URL and
status, never a header.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Generator, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
from pydantic import SecretStr

log = logging.getLogger(__name__)

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


class ApiError(RuntimeError):
    """A request failed for good (after retries, or a status retrying cannot fix)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class ApiAuthError(ApiError):
    """401/403: the credentials are wrong or lack a permission; retrying will not help."""


class BearerAuth(httpx.Auth):
    def __init__(self, token: SecretStr) -> None:
        self._token = token

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = f"Bearer {self._token.get_secret_value()}"
        yield request

    def __repr__(self) -> str:
        return "BearerAuth(token=**********)"


def basic_auth(username: str, token: SecretStr) -> httpx.Auth:
    return httpx.BasicAuth(username, token.get_secret_value())


def _retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait per a Retry-After header: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


class ApiClient:
    def __init__(
        self, base_url: str, auth: httpx.Auth | None, *, timeout_s: float = 30.0,
        max_retries: int = 5, backoff_s: float = 0.5, max_backoff_s: float = 60.0,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._http = httpx.Client(base_url=base_url, auth=auth, timeout=timeout_s,
                                  transport=transport, follow_redirects=True,
                                  headers={"Accept": "application/json", "User-Agent": "folio"})
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.sleep = sleep
        self.requests = 0
        self.retries = 0

    def close(self) -> None:
        self._http.close()

    def _wait(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.max_backoff_s)
        # full jitter: many connectors backing off together must not retry in lockstep
        return random.uniform(0, min(self.max_backoff_s, self.backoff_s * 2**attempt))

    def request(self, method: str, url: str, params: Mapping[str, Any] | None = None,
                json: Any = None) -> httpx.Response:
        """A request with retries; returns a 2xx response or raises :class:`ApiError`.

        Only reads are sent here (GET, and POST for search endpoints that take their query in
        the body), so retrying a POST repeats no side effect.
        """
        attempt = 0
        while True:
            self.requests += 1
            try:
                resp = self._http.request(method, url, params=params, json=json)
            except httpx.TransportError as exc:
                if attempt >= self.max_retries:
                    raise ApiError(f"{method} {url}: {type(exc).__name__}: {exc} "
                                   f"(after {attempt} retries)") from None
                delay = self._wait(attempt, None)
                log.warning("%s %s: %s; retrying in %.1fs", method, url, type(exc).__name__, delay)
            else:
                if resp.is_success:
                    return resp
                where = f"{method} {resp.request.url.copy_with(query=None)}"
                if resp.status_code in (401, 403):
                    raise ApiAuthError(f"{where}: HTTP {resp.status_code}: credentials rejected or "
                                       "missing a permission", resp.status_code)
                if resp.status_code not in RETRY_STATUS or attempt >= self.max_retries:
                    raise ApiError(f"{where}: HTTP {resp.status_code}: {resp.text[:300]}", resp.status_code)
                delay = self._wait(attempt, _retry_after(resp.headers.get("Retry-After")))
                log.warning("%s: HTTP %d; retrying in %.1fs", where, resp.status_code, delay)
            self.retries += 1
            attempt += 1
            self.sleep(delay)

    def get(self, url: str, params: Mapping[str, Any] | None = None) -> httpx.Response:
        """GET with retries; returns a 2xx response or raises :class:`ApiError`."""
        return self.request("GET", url, params)

    def get_json(self, url: str, params: Mapping[str, Any] | None = None) -> tuple[bytes, Any]:
        """The raw body (for the export parsers) and its parsed JSON (for paging)."""
        return self._json("GET", url, self.get(url, params))

    def post_json(self, url: str, body: Any) -> tuple[bytes, Any]:
        """POST a JSON query (a search endpoint); the raw body and its parsed JSON."""
        return self._json("POST", url, self.request("POST", url, json=body))

    @staticmethod
    def _json(method: str, url: str, resp: httpx.Response) -> tuple[bytes, Any]:
        try:
            return resp.content, resp.json()
        except ValueError as exc:
            raise ApiError(f"{method} {url}: response is not JSON: {exc}", resp.status_code) from None

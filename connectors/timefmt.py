"""One timestamp parser for every connector, so all records carry timezone-aware instants."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

# Jira (``+1300``) and Salesforce (``+0000``) omit the colon that older ``fromisoformat``
# implementations insist on; normalising here keeps the parser independent of the Python version.
_COMPACT_OFFSET = re.compile(r"([+-]\d{2})(\d{2})$")


def parse_timestamp(value: str | datetime | date) -> datetime:
    """Parse an ISO 8601 timestamp (or a YAML date/datetime) into an aware ``datetime``.

    A value without an offset is taken as UTC: source exports and frontmatter dates carry no
    zone of their own, and any fixed choice keeps compiles reproducible across machines.
    Raises ``ValueError`` for anything else.
    """
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        text = _COMPACT_OFFSET.sub(r"\1:\2", text) if "T" in text or " " in text else text
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(f"not an ISO 8601 timestamp: {value!r}") from None
    else:
        raise ValueError(f"expected a timestamp string, got {type(value).__name__}")
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)

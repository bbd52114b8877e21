"""The one settings object. Every field can be set by an env var ``FOLIO_<FIELD>``."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from connectors.event_settings import EventSettings


class FolioSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FOLIO_", extra="ignore")

    backend: str = Field("offline", description="extraction backend: offline (default)")
    max_file_bytes: int = Field(
        20 * 1024 * 1024, gt=0, description="input files larger than this are rejected unread"
    )
    full_relink_ratio: float = Field(
        0.2, gt=0, le=1,
        description="above this share of records changed, relink everything instead of "
        "searching for affected records",
    )
    workers: int = Field(
        0, ge=0, description="processes for parsing, linking and rendering; 0 = one per core"
    )
    parallel_min_items: int = Field(
        2_000, ge=1,
        description="a compile phase with fewer records or pages than this runs in one process "
        "(starting workers costs more than it saves)",
    )
    events: EventSettings = Field(
        default_factory=EventSettings, description="event bus and site consumer (FOLIO_EVENTS_*)")

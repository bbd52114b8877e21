"""Which API connector speaks which system."""

from __future__ import annotations

import httpx

from .base import ApiConnector, ApiSourceConfig, ConfigError, make_client
from .confluence import ConfluenceApi
from .hubspot import HubSpotApi
from .jira import JiraApi
from .salesforce import SalesforceApi
from .zendesk import ZendeskApi

API_CONNECTORS: dict[str, type] = {c.system: c for c in (ConfluenceApi, HubSpotApi, JiraApi,
                                                             SalesforceApi, ZendeskApi)}


def make_api_connector(cfg: ApiSourceConfig, tenant: str,
                       transport: httpx.BaseTransport | None = None, **client_kw: object) -> ApiConnector:
    try:
        cls = API_CONNECTORS[cfg.system]
    except KeyError:
        raise ConfigError(f"no API connector for system {cfg.system!r}; known: "
                          f"{', '.join(sorted(API_CONNECTORS))}") from None
    return cls(cfg, tenant, make_client(cfg, transport, **client_kw))

"""Which connector reads which system's export files."""

from __future__ import annotations

from .base import Connector
from .claimset import ClaimSetConnector
from .confluence import ConfluenceConnector
from .hubspot import HubSpotConnector
from .jira import JiraConnector
from .markdown import MarkdownConnector
from .record_json import RecordJsonConnector
from .salesforce import SalesforceConnector
from .zendesk import ZendeskConnector

CONNECTORS: dict[str, type[Connector]] = {
    c.system: c for c in (ConfluenceConnector, JiraConnector, SalesforceConnector, ZendeskConnector,
                          HubSpotConnector, MarkdownConnector, RecordJsonConnector,
                          ClaimSetConnector)
}


class UnknownSystemError(ValueError):
    """A ``sources.yaml`` names a system no connector reads."""

    def __init__(self, system: str) -> None:
        self.system = system
        super().__init__(f"unknown source system {system!r}; known systems: {', '.join(sorted(CONNECTORS))}")


def get_connector(system: str) -> Connector:
    try:
        return CONNECTORS[system]()
    except KeyError:
        raise UnknownSystemError(system) from None

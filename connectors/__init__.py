"""Source connectors: one module per system, each yielding SourceRecords from real API payloads."""

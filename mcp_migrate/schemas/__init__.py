"""Published JSON Schemas: `report.schema.json` describes `mcp-migrate check --format json`."""

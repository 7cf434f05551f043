"""The MCP front end: ``ctxls mcp`` (needs the ``mcp`` extra)."""

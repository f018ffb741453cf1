"""The MCP door: the daemon's tools, resources and persona prompt on the official SDK, over stdio
or Streamable HTTP."""

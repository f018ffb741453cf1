"""What every door shares: where it may listen, the bearer token it checks, the HTTP status a
daemon refusal becomes, the call to the daemon from async code, and the JSON log.

A door (the CLI, MCP, the proxy, the webhooks, the dashboard) translates and calls the daemon;
no door imports another (an import-linter contract), so what two doors need lives here.
"""

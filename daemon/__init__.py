"""agentmemd.daemon — the service: config, socket server, JSON-RPC methods, CLI client."""

__version__ = "0.1.0"

"""The top layer: the `agentmemd` command, the daemon process, the doors people and agents reach it
through (socket, MCP, proxy, webhooks, dashboard) and the services every door calls."""

from agentmemd.memory.core import __version__

__all__ = ["__version__"]

"""MCP over Streamable HTTP as a door the daemon starts (daemon/doors/door.py)."""

from __future__ import annotations

from pathlib import Path

from agentmemd.daemon.doors.door import Door
from agentmemd.memory.core.config import McpConfig


def _arguments(section: McpConfig, socket_path: Path, data_dir: Path) -> list[str]:
    return ["mcp", "--socket", str(socket_path), "--http", section.listen]


MCP = Door(
    "mcp",
    "MCP over Streamable HTTP; every request needs a bearer token.",
    McpConfig,
    "127.0.0.1:8789",
    _arguments,
    path="/mcp",
)

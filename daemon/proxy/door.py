"""The memory proxy as a door the daemon starts (daemon/doors/door.py)."""

from __future__ import annotations

from pathlib import Path

from agentmemd.daemon.doors.door import Door
from agentmemd.memory.core.config import ProxyConfig


def _arguments(section: ProxyConfig, socket_path: Path, data_dir: Path) -> list[str]:
    arguments = ["proxy", "--socket", str(socket_path), "--listen", section.listen]
    arguments += ["--upstream", section.upstream, "--openai-upstream", section.openai_upstream]
    return arguments + ["--memory-timeout", repr(section.memory_timeout_seconds)]


PROXY = Door(
    "proxy",
    "The Anthropic/OpenAI-compatible memory proxy; apps set their base URL to it.",
    ProxyConfig,
    "127.0.0.1:8788",
    _arguments,
)

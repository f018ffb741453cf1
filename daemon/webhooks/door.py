"""The webhook listener as a door the daemon starts (daemon/doors/door.py)."""

from __future__ import annotations

from pathlib import Path

from agentmemd.daemon.doors.door import Door
from agentmemd.memory.core.config import WebhooksConfig


def _arguments(section: WebhooksConfig, socket_path: Path, data_dir: Path) -> list[str]:
    arguments = ["webhooks", "--socket", str(socket_path), "--listen", section.listen]
    arguments += ["--namespace", section.namespace] if section.namespace else []
    for account in section.me:
        arguments += ["--me", account]
    return arguments


WEBHOOKS = Door(
    "webhooks",
    "Chats' live messages: Telegram, Slack and a generic JSON route; secrets from the daemon's environment.",
    WebhooksConfig,
    "127.0.0.1:8790",
    _arguments,
)

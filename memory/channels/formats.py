"""The chat-export formats ``agentmemd import`` reads, by name: one place that maps a name to its parser."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Literal

from agentmemd.memory.channels.chatgpt import read_chatgpt
from agentmemd.memory.channels.claude import read_claude
from agentmemd.memory.channels.discord import read_discord
from agentmemd.memory.channels.slack import read_slack
from agentmemd.memory.channels.telegram import read_telegram
from agentmemd.memory.channels.whatsapp import DateOrder, read_whatsapp
from agentmemd.memory.core.chats import ChatExport

ExportFormat = Literal["whatsapp", "telegram", "slack", "discord", "chatgpt", "claude"]

READERS: dict[str, Callable[[Path], ChatExport]] = {
    "whatsapp": read_whatsapp,
    "telegram": read_telegram,
    "slack": read_slack,
    "discord": read_discord,
    "chatgpt": read_chatgpt,
    "claude": read_claude,
}
DESCRIPTIONS = {
    "whatsapp": "WhatsApp 'Export chat' .txt (Android or iOS), or its .zip with media",
    "telegram": "Telegram Desktop 'Export chat history' result.json (one chat or the whole account)",
    "slack": "Slack workspace export .zip (channels, DMs, group DMs, threads)",
    "discord": "DiscordChatExporter JSON (one channel per file, or a zip of them)",
    "chatgpt": "ChatGPT data export .zip, or its conversations.json",
    "claude": "Claude data export .zip, or its conversations.json",
}


def read_chat_export(format: str, path: Path, *, date_order: DateOrder | None = None) -> ChatExport:
    """Parse ``path`` as ``format``. Only WhatsApp's text has an ambiguous date order to override."""
    if format == "whatsapp":
        return read_whatsapp(Path(path), date_order=date_order)
    return READERS[format](Path(path))

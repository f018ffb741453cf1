"""The dashboard as a door the daemon starts (daemon/doors/door.py)."""

from __future__ import annotations

from pathlib import Path

from agentmemd.daemon.doors.door import Door
from agentmemd.memory.core.config import DashboardConfig


def _arguments(section: DashboardConfig, socket_path: Path, data_dir: Path) -> list[str]:
    arguments = ["dashboard", "--socket", str(socket_path), "--listen", section.listen, "--data-dir", str(data_dir)]
    for host_name in section.host_names:
        arguments += ["--host-name", host_name]
    return arguments


DASHBOARD = Door(
    "dashboard",
    "The web dashboard; its log holds the link with its token.",
    DashboardConfig,
    "127.0.0.1:8791",
    _arguments,
)

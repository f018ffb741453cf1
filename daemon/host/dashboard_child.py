"""The dashboard started and stopped by the daemon itself (``[dashboard] listen``): the same
`agentmemd dashboard` door, as a child process on the daemon's socket, its output in
DATA_DIR/dashboard.log (which holds the link with its token)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

from agentmemd.daemon.doors.listen import is_loopback, parse_listen
from agentmemd.memory.core.config import DashboardConfig
from agentmemd.memory.core.errors import StartupError

log = logging.getLogger("agentmemd")
LOG_FILE = "dashboard.log"


def dashboard_command(cfg: DashboardConfig, socket_path: Path, data_dir: Path) -> list[str] | None:
    """The child's command line (None: not configured); StartupError for a bad ``[dashboard] listen``."""
    if not cfg.listen:
        return None
    try:
        host, _ = parse_listen(cfg.listen)
    except ValueError as exc:
        raise StartupError(f"[dashboard] listen: {exc}") from None
    if not is_loopback(host) and not cfg.allow_remote:
        raise StartupError(
            f"[dashboard] listen {cfg.listen}: {host} is not loopback; set allow_remote = true to listen there"
        )
    command = [sys.executable, "-m", "agentmemd.daemon.cli", "dashboard", "--socket", str(socket_path)]
    command += ["--listen", cfg.listen, "--data-dir", str(data_dir)]
    command += ["--allow-remote"] if cfg.allow_remote else []
    for name in cfg.host_names:
        command += ["--host-name", name]
    return command


def start(command: list[str], data_dir: Path, listen: str) -> subprocess.Popen:
    fd = os.open(Path(data_dir) / LOG_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "ab") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    log.info(
        "dashboard started",
        extra={"url": f"http://{listen}/", "token_file": str(Path(data_dir) / "dashboard.token"), "pid": proc.pid},
    )
    return proc


def stop(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)

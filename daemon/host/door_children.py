"""The doors the daemon starts itself: each declared door (``DOORS``, daemon/doors/door.py) whose
config section sets ``listen`` runs the command a person would run (`agentmemd dashboard`,
`agentmemd proxy`, `agentmemd mcp --http`, `agentmemd webhooks`) as a child process on the daemon's
socket, its output in DATA_DIR/<door>.log (the dashboard's holds its link with the token). A bad listen address refuses the daemon's start;
a child that dies is reported (``health``: running false) and started again a few times at most;
a child whose daemon was killed stops by itself (daemon/doors/parent.py)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentmemd.daemon.dashboard.door import DASHBOARD
from agentmemd.daemon.doors.door import Door
from agentmemd.daemon.doors.listen import is_loopback, parse_listen
from agentmemd.daemon.doors.parent import parent_environment
from agentmemd.daemon.mcp.door import MCP
from agentmemd.daemon.proxy.door import PROXY
from agentmemd.daemon.webhooks.door import WEBHOOKS
from agentmemd.memory.core.config import Config
from agentmemd.memory.core.errors import ConfigError
from agentmemd.memory.core.models import DoorState

log = logging.getLogger("agentmemd")
# Every door the daemon can start, in the order it starts them; a new door is its package's door.py
# and a line here.
DOORS: tuple[Door[Any], ...] = (DASHBOARD, PROXY, MCP, WEBHOOKS)
# A child that exits is started again after 1, 2, then 4 s; past that it stays down (its log says why).
# One that ran this long before it exited starts over with a full allowance.
MAX_RESTARTS = 3
STEADY_SECONDS = 60.0


@dataclass
class DoorChild:
    name: str
    listen: str
    url: str
    command: list[str]
    log: Path
    proc: subprocess.Popen | None = None
    started_at: float = 0.0  # time.monotonic() of the last start
    restarts: int = 0  # in a row, since it last ran STEADY_SECONDS
    given_up: bool = False

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def state(self) -> DoorState:
        return DoorState(
            name=self.name,
            listen=self.listen,
            url=self.url,
            pid=self.proc.pid if self.proc else None,
            running=self.running,
            log=str(self.log),
        )

    def address(self) -> tuple[str, int]:
        host, port = parse_listen(self.listen)
        return host.strip("[]"), port


def configured_doors(config: Config, socket_path: Path, data_dir: Path) -> list[DoorChild]:
    """The doors the config asks the daemon to start, with their command lines; ConfigError (a
    mistake no restart mends: `serve` exits 2) for a listen address that is malformed, beyond
    loopback without allow_remote, or taken by another door."""
    base = [sys.executable, "-m", "agentmemd.daemon.cli"]
    doors: list[DoorChild] = []
    taken: dict[tuple[str, int], str] = {}
    for door in DOORS:
        section = door.section_of(config)
        name = door.name
        if not section.listen:
            continue
        host, port = _checked_listen(name, section.listen, section.allow_remote)
        if (host, port) in taken:
            raise ConfigError(f"[{name}] listen {section.listen}: [{taken[host, port]}] listens there already")
        taken[host, port] = name
        command = [*base, *door.arguments(section, socket_path, data_dir)]
        command += ["--allow-remote"] if section.allow_remote else []
        log_file = Path(data_dir).resolve() / f"{name}.log"
        doors.append(DoorChild(name, section.listen, door.url(section.listen), command, log_file))
    return doors


def _checked_listen(name: str, listen: str, allow_remote: bool) -> tuple[str, int]:
    try:
        host, port = parse_listen(listen)
    except ValueError as exc:
        raise ConfigError(f"[{name}] listen: {exc}") from None
    if not is_loopback(host) and not allow_remote:
        raise ConfigError(f"[{name}] listen {listen}: {host} is not loopback; set allow_remote = true to listen there")
    return host, port


def start(door: DoorChild) -> None:
    """Start the door's process, its stdout and stderr appended to its log file (0600)."""
    fd = os.open(door.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "ab") as out:
        door.proc = subprocess.Popen(
            door.command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=parent_environment()
        )
    door.started_at = time.monotonic()
    log.debug("door started", extra={"door": door.name, "url": door.url, "pid": door.proc.pid, "log": str(door.log)})


def stop(door: DoorChild) -> None:
    """SIGTERM, and SIGKILL if it has not exited 10 s later."""
    proc = door.proc
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def restart_delay(door: DoorChild) -> float | None:
    """For a door whose process has exited: the seconds to wait before starting it again, or None
    when it has used up its restarts (each exit is logged, with its code and log file)."""
    assert door.proc is not None and door.proc.returncode is not None
    if time.monotonic() - door.started_at >= STEADY_SECONDS:
        door.restarts = 0
    facts = {"door": door.name, "code": door.proc.returncode, "log": str(door.log)}
    if door.restarts >= MAX_RESTARTS:
        door.given_up = True
        log.error("door exited; not starting it again (see its log)", extra={**facts, "restarts": door.restarts})
        return None
    delay = float(2**door.restarts)
    door.restarts += 1
    log.warning("door exited; starting it again", extra={**facts, "in_seconds": delay})
    return delay

"""The doors the daemon starts itself: ``[dashboard] listen``, ``[proxy] listen`` and ``[mcp] listen``
each run the command a person would run (`agentmemd dashboard`, `agentmemd proxy`,
`agentmemd mcp --http`) as a child process on the daemon's socket, its output in DATA_DIR/<door>.log
(the dashboard's holds its link with the token). A bad listen address refuses the daemon's start;
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

from agentmemd.daemon.doors.listen import is_loopback, parse_listen
from agentmemd.daemon.doors.parent import parent_environment
from agentmemd.memory.core.config import Config
from agentmemd.memory.core.errors import StartupError
from agentmemd.memory.core.models import DoorState

log = logging.getLogger("agentmemd")
DOOR_NAMES = ("dashboard", "proxy", "mcp")
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
    """The doors the config asks the daemon to start, with their command lines; StartupError for a
    listen address that is malformed, beyond loopback without allow_remote, or taken by another door."""
    base = [sys.executable, "-m", "agentmemd.daemon.cli"]
    doors: list[DoorChild] = []
    taken: dict[tuple[str, int], str] = {}
    for name in DOOR_NAMES:
        section = getattr(config, name)
        if not section.listen:
            continue
        host, port = _checked_listen(name, section.listen, section.allow_remote)
        if (host, port) in taken:
            raise StartupError(f"[{name}] listen {section.listen}: [{taken[host, port]}] listens there already")
        taken[host, port] = name
        command = [*base, *_door_arguments(name, config, socket_path, data_dir)]
        command += ["--allow-remote"] if section.allow_remote else []
        url = f"http://{section.listen}/mcp" if name == "mcp" else f"http://{section.listen}/"
        doors.append(DoorChild(name, section.listen, url, command, Path(data_dir).resolve() / f"{name}.log"))
    return doors


def _checked_listen(name: str, listen: str, allow_remote: bool) -> tuple[str, int]:
    try:
        host, port = parse_listen(listen)
    except ValueError as exc:
        raise StartupError(f"[{name}] listen: {exc}") from None
    if not is_loopback(host) and not allow_remote:
        raise StartupError(f"[{name}] listen {listen}: {host} is not loopback; set allow_remote = true to listen there")
    return host, port


def _door_arguments(name: str, config: Config, socket_path: Path, data_dir: Path) -> list[str]:
    """The door's own command and flags (the same as a person would type)."""
    if name == "dashboard":
        arguments = ["dashboard", "--socket", str(socket_path), "--listen", config.dashboard.listen]
        arguments += ["--data-dir", str(data_dir)]
        for host_name in config.dashboard.host_names:
            arguments += ["--host-name", host_name]
        return arguments
    if name == "proxy":
        proxy = config.proxy
        arguments = ["proxy", "--socket", str(socket_path), "--listen", proxy.listen]
        arguments += ["--upstream", proxy.upstream, "--openai-upstream", proxy.openai_upstream]
        return arguments + ["--memory-timeout", repr(proxy.memory_timeout_seconds)]
    return ["mcp", "--socket", str(socket_path), "--http", config.mcp.listen]


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

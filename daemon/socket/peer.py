"""Which door is at the other end of a socket connection, for an access token's "last used by":
the connecting process's command line says (`agentmemd mcp`, `proxy`, `webhooks`, `dashboard`,
any other `agentmemd` command: the CLI). Asked once per connection that a token's call is noted
on; where the kernel does not say (not Linux), the door is "socket".
"""

from __future__ import annotations

import os
import socket
import struct
from pathlib import Path

DOORS = ("mcp", "proxy", "webhooks", "dashboard")
UNKNOWN = "socket"


def peer_pid(sock: socket.socket | None) -> int | None:
    """The process id at the other end of a Unix socket (SO_PEERCRED), or None."""
    try:
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))  # type: ignore[union-attr]
    except (AttributeError, OSError):
        return None
    pid = struct.unpack("3i", creds)[0]
    return pid or None


def door_of(argv: list[str], pid: int | None = None) -> str:
    """The door a command line is.

    >>> door_of(["/venv/bin/python", "/venv/bin/agentmemd", "--token", "x", "mcp"])
    'mcp'
    >>> door_of(["python3", "-m", "agentmemd.daemon.cli", "webhooks", "--listen", "127.0.0.1:8790"])
    'webhooks'
    >>> door_of(["/venv/bin/python", "/venv/bin/agentmemd", "search", "coffee"])
    'cli'
    >>> door_of(["python3", "-m", "pytest", "tests"], 41)
    'pytest (pid 41)'
    """
    for i, arg in enumerate(argv):
        if Path(arg).name == "agentmemd" or arg == "agentmemd.daemon.cli":
            return next((a for a in argv[i + 1 :] if a in DOORS), "cli")
    if not argv:
        return UNKNOWN
    program = Path(argv[0]).name
    if program.startswith("python") and len(argv) > 1:
        program = argv[2] if argv[1] == "-m" and len(argv) > 2 else Path(argv[1]).name
    return f"{program} (pid {pid})" if pid else program


def peer_door(sock: socket.socket | None) -> str:
    """The door of the process at the other end of ``sock``."""
    pid = peer_pid(sock)
    if pid is None:
        return UNKNOWN
    try:  # os.read, not pathlib: a few µs, paid once per connection a token's call is noted on
        fd = os.open(f"/proc/{pid}/cmdline", os.O_RDONLY)
        try:
            argv = os.read(fd, 65536).split(b"\0")
        finally:
            os.close(fd)
    except OSError:  # gone already, or no /proc
        return f"pid {pid}"
    return door_of([a.decode("utf-8", "replace") for a in argv if a], pid)

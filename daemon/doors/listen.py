"""Where a door listens: HOST:PORT parsed one way for every door, and whether a host is loopback
(a door listens beyond it only when told, `--allow-remote` or `allow_remote = true`)."""

from __future__ import annotations

import ipaddress
import socket

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_listen(value: str) -> tuple[str, int]:
    """`127.0.0.1:8789`, `localhost:8789` or `[::1]:8789` → (host, port); a clear error otherwise."""
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"expected HOST:PORT (e.g. 127.0.0.1:8789), got {value!r}")
    return host, int(port)


def probe_listen(host: str, port: int) -> None:
    """OSError if nothing could listen at (host, port) now (taken, or no such address here); the
    door binds it itself a moment later."""
    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET  # [::1] is IPv6 (create_server's default is v4)
    with socket.create_server((bare, port), family=family):
        pass

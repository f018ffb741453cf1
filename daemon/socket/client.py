"""A small synchronous client for the daemon's socket (used by the CLI, tests, benches)."""

from __future__ import annotations

import itertools
import json
import os
import socket
from pathlib import Path
from typing import Any

from agentmemd.daemon.system_service.places import service_sockets


def default_socket() -> str:
    """The socket every client uses unless told another: $AGENTMEMD_SOCKET, else the installed
    service's when it is there (`agentmemd service install`), else ~/.agentmemd/agentmemd.sock."""
    chosen = os.environ.get("AGENTMEMD_SOCKET")
    if chosen:
        return chosen
    service = next((path for path in service_sockets() if path.exists()), None)
    return str(service or Path.home() / ".agentmemd" / "agentmemd.sock")


class RpcCallError(Exception):
    """The daemon answered with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None):
        super().__init__(f"{message} (code {code})")
        self.code, self.message, self.data = code, message, data


def default_token() -> str | None:
    return os.environ.get("AGENTMEMD_TOKEN") or None


class DaemonUnavailable(ConnectionError):
    """The daemon could not be reached, or did not answer in time (a door says so; it never hangs)."""


def call_once(
    socket_path: str | os.PathLike,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    token: str | None = None,
    timeout: float = 60.0,
) -> Any:
    """One request on a connection of its own, as a door makes it on behalf of a caller.

    Raises RpcCallError when the daemon refuses (its message names the bad field), and
    DaemonUnavailable when there is no daemon, it went away, or it did not answer in ``timeout``.
    """
    try:
        with Client(socket_path, timeout=timeout, token=token) as client:
            return client.call(method, params)
    except TimeoutError:
        raise DaemonUnavailable(f"agentmemd at {socket_path} did not answer {method} within {timeout:g} s") from None
    except ConnectionError as exc:
        raise DaemonUnavailable(
            f"{exc}; is the daemon running? (agentmemd serve --data-dir DIR --socket {socket_path})"
        ) from None


class Client:
    """One connection. With ``token``, its first call is `auth`: every later call is admitted
    against that token's namespaces (a door serving someone else passes their token here)."""

    def __init__(self, socket_path: str | os.PathLike | None = None, timeout: float = 120.0, token: str | None = None):
        self.socket_path = str(socket_path or default_socket())
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        try:
            self._sock.connect(self.socket_path)
        except OSError as exc:
            self._sock.close()
            raise ConnectionError(f"cannot reach agentmemd at {self.socket_path}: {exc.strerror or exc}") from None
        self._file = self._sock.makefile("rb")
        self._ids = itertools.count(1)
        self.scope: dict[str, Any] | None = None  # what `auth` answered, when a token was given
        if token is not None:
            try:
                self.scope = self.call("auth", {"token": token})
            except BaseException:
                self.close()
                raise

    def set_timeout(self, seconds: float) -> None:
        """How long each later call may wait for its answer."""
        self._sock.settimeout(seconds)

    def send_raw(self, line: bytes) -> dict[str, Any] | list[Any]:
        """Send one raw line (newline added if missing) and read one response line."""
        self._sock.sendall(line if line.endswith(b"\n") else line + b"\n")
        reply = self._file.readline()
        if not reply:
            raise ConnectionError("the daemon closed the connection")
        return json.loads(reply)

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        request = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params or {}}
        response = self.send_raw(json.dumps(request).encode("ascii"))
        assert isinstance(response, dict)
        if "error" in response:
            err = response["error"]
            raise RpcCallError(err["code"], err["message"], err.get("data"))
        return response["result"]

    def close(self) -> None:
        try:
            self._file.close()
        finally:
            self._sock.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# What an app may import from here (tests/test_public_surface.py keeps it whole).
__all__ = [
    "Client",
    "call_once",
    "default_socket",
    "default_token",
    "DaemonUnavailable",
    "RpcCallError",
]

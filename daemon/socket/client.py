"""The synchronous client of the daemon's socket: ``call(method, params)`` for the CLI, the doors
and the tests, and every method as a typed call (typed.py, generated from the declarations) for an
app. A refusal raises ``RpcCallError``, as the class of the error tree it came from (``NotFound``,
``InvalidParams``, ``Forbidden`` ...), so an app catches what the library itself would raise.

    from agentmemd.daemon.socket.client import Client

    with Client() as agentmemd:                       # the socket the CLI finds; a token: Client(token=...)
        agentmemd.memory_add(content="Ana lives in Porto", type="fact")
        pack = agentmemd.context_pack(query="where does Ana live?", budget_tokens=400)
        print(pack.text)
"""

from __future__ import annotations

import itertools
import json
import os
import socket
import stat
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from agentmemd.daemon.socket.codes import ERROR_CODES
from agentmemd.daemon.socket.typed import R, TypedCalls
from agentmemd.daemon.system_service.places import installed_socket, service_sockets
from agentmemd.memory.core.errors import AgentmemdError


def default_socket() -> str:
    """The socket every client uses unless told another: $AGENTMEMD_SOCKET, else the installed
    service's (`agentmemd service install`; its socket even while it is stopped, so what fails
    names it), else ~/.agentmemd/agentmemd.sock."""
    chosen = os.environ.get("AGENTMEMD_SOCKET")
    if chosen:
        # An MCP host's config, a service file or a container passes it as written: no shell made ~ home.
        return os.path.expanduser(chosen)
    service = next((path for path in service_sockets() if path.exists()), None) or installed_socket()
    return str(service or Path.home() / ".agentmemd" / "agentmemd.sock")


class RpcCallError(AgentmemdError):
    """The daemon answered with a JSON-RPC error. Raised as ``refusal(code, ...)`` makes it: also an
    instance of the error class the daemon raised (``except NotFound`` catches a missing memory)."""

    def __init__(self, code: int, message: str, data: Any = None):
        Exception.__init__(self, f"{message} (code {code})")
        self.code, self.message, self.data = code, message, data


# One subclass per error class the socket has a code for: RpcCallError and that class at once.
_REFUSALS: dict[int, type[RpcCallError]] = {
    code: type(f"{cls.__name__}Refusal", (RpcCallError, cls), {"__module__": __name__})
    for cls, code in ERROR_CODES.items()
}


def refusal(code: int, message: str, data: Any = None) -> RpcCallError:
    """The exception for the daemon's error answer: of the error tree's class for ``code``."""
    return _REFUSALS.get(code, RpcCallError)(code, message, data)


def default_token() -> str | None:
    """$AGENTMEMD_TOKEN; None when it is unset. Set but empty, it stays "" (refused at `auth`): a
    config whose ${TOKEN} expanded to nothing must fail closed, never act with the owner's access."""
    return os.environ.get("AGENTMEMD_TOKEN")


def _not_a_socket(path: str) -> str:
    """Why ``path`` cannot be a daemon's socket, when it is something else ("" when it may be one):
    a directory answered "Connection refused", which sent people looking for a daemon."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return ""
    if stat.S_ISSOCK(mode):
        return ""
    return "it is a directory, not a socket" if stat.S_ISDIR(mode) else "it is a file, not a socket"


class DaemonUnavailable(ConnectionError):
    """The daemon could not be reached, or did not answer in time (a door says so; it never hangs)."""


def call_once(
    socket_path: str | os.PathLike,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    token: str | None = None,
    timeout: float = 60.0,
    scoped: Callable[[dict[str, Any] | None, dict[str, Any]], dict[str, Any]] | None = None,
) -> Any:
    """One request on a connection of its own, as a door makes it on behalf of a caller.
    ``scoped``: (what `auth` answered, None without a token; the params) -> the params to send.

    Raises RpcCallError when the daemon refuses (its message names the bad field), and
    DaemonUnavailable when there is no daemon, it went away, or it did not answer in ``timeout``.
    """
    try:
        with Client(socket_path, timeout=timeout, token=token) as client:
            return client.call(method, scoped(client.scope, params or {}) if scoped else params)
    except TimeoutError:
        raise DaemonUnavailable(f"agentmemd at {socket_path} did not answer {method} within {timeout:g} s") from None
    except ConnectionError as exc:
        raise DaemonUnavailable(
            f"{exc}; is the daemon running? (agentmemd serve --data-dir DIR --socket {socket_path})"
        ) from None


def request_line(request: dict[str, Any]) -> bytes:
    """A request as the line sent: UTF-8, not ASCII escapes (an emoji is 4 bytes, not 12, so a text
    within the length limits fits the daemon's line); a string no UTF-8 can carry (a lone surrogate)
    goes escaped, and the daemon refuses it naming the field."""
    try:
        return json.dumps(request, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(request).encode("ascii")


def jsonable(value: Any) -> Any:
    """A typed call's argument as JSON: a model as the fields it was given (a default left out, so
    the daemon's applies: a scoped token's namespace), a date or time in ISO 8601."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_unset=True)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    return to_jsonable_python(value)


def given(params: dict[str, Any]) -> dict[str, Any]:
    """The params a typed call sends: those not left None, as JSON."""
    return {name: jsonable(value) for name, value in params.items() if value is not None}


class Client(TypedCalls):
    """One connection. With ``token``, its first call is `auth`: every later call is admitted
    against that token's namespaces (a door serving someone else passes their token here)."""

    def __init__(self, socket_path: str | os.PathLike | None = None, timeout: float = 120.0, token: str | None = None):
        self.socket_path = str(socket_path or default_socket())
        self._timeout, self._token = timeout, token
        self._ids = itertools.count(1)
        self.scope: dict[str, Any] | None = None  # what `auth` answered, when a token was given
        self._connect()

    def _connect(self) -> None:
        """A connection (authenticated with the token, if one was given); DaemonUnavailable if none."""
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(self._timeout)
        try:
            self._sock.connect(self.socket_path)
        except OSError as exc:
            self._sock.close()
            raise DaemonUnavailable(
                f"cannot reach agentmemd at {self.socket_path}: {_not_a_socket(self.socket_path) or exc.strerror or exc}"
            ) from None
        self._file = self._sock.makefile("rb")
        self._broken = False
        if self._token is not None:
            try:
                self.scope = self.call("auth", {"token": self._token})
            except BaseException:
                self.close()
                raise

    def set_timeout(self, seconds: float) -> None:
        """How long each later call may wait for its answer."""
        self._timeout = seconds
        self._sock.settimeout(seconds)

    def send_raw(self, line: bytes) -> dict[str, Any] | list[Any]:
        """Send one raw line (newline added if missing) and read one response line. A connection
        the daemon closed (it restarted) is opened again before the line is sent; one that broke
        after it was sent is not (the call may have been done): DaemonUnavailable, and the next
        call opens a new one."""
        if self._broken:
            self.close()
            self._connect()
        try:
            self._sock.sendall(line if line.endswith(b"\n") else line + b"\n")
        except (BrokenPipeError, ConnectionResetError):  # closed while kept: nothing was delivered
            self.close()
            self._connect()
            self._sock.sendall(line if line.endswith(b"\n") else line + b"\n")
        try:
            reply = self._file.readline()
        except TimeoutError:
            self._broken = True  # a late answer would be read as the next call's
            raise DaemonUnavailable(
                f"agentmemd at {self.socket_path} did not answer within {self._timeout:g} s"
            ) from None
        except OSError as exc:
            self._broken = True
            raise ConnectionError(f"agentmemd at {self.socket_path} closed the connection ({exc})") from None
        if not reply:
            # Not DaemonUnavailable: the daemon was there (it restarted, say), and a caller may ask
            # again on a new connection (the proxy does, once) if its call can be made twice.
            self._broken = True
            raise ConnectionError(f"agentmemd at {self.socket_path} closed the connection before it answered")
        return json.loads(reply)

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        request = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params or {}}
        response = self.send_raw(request_line(request))
        assert isinstance(response, dict)
        if response.get("id") != request["id"] and response.get("id") is not None:
            self._broken = True
            raise RuntimeError(
                "an answer to another call came back: a Client is one connection, for one thread at a time "
                "(give each thread its own, or use AsyncClient)"
            )
        if "error" in response:
            err = response["error"]
            raise refusal(err["code"], err["message"], err.get("data"))
        return response["result"]

    def _typed(self, method: str, result: type[R], params: dict[str, Any]) -> R:
        return result.model_validate(self.call(method, given(params)))

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
    "refusal",
]

"""How a command talks to the daemon: one call, its result printed for a person or as JSON,
and a clear message with the documented exit code when there is no daemon or it refuses."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any, Callable, Literal

import click
from pydantic import BaseModel

from agentmemd.daemon.cli import printers as show
from agentmemd.daemon.socket.client import Client, RpcCallError, default_socket

Printer = Callable[[Any], None]

AUDIENCE = click.option(
    "--audience",
    default=None,
    metavar="AUDIENCE",
    help="Only what a conversation of this audience may hear: user, private:CHAT or group:CHAT (default: everything).",
)


class Settings:
    def __init__(self, socket: str | None, as_json: bool, token: str | None = None):
        self.socket = socket
        self.as_json = as_json
        self.token = token


# Ids and sessions are looked up inside one namespace: another namespace's are "not found".
# Left out, the daemon picks: "default", or with --token the token's first namespace.
NAMESPACE = click.option(
    "--namespace", default=None, help='Namespace (default: "default"; with --token, the token\'s first).'
)


@cache
def bounded(model: type[BaseModel], field: str) -> click.ParamType:
    """An option's type for a params field: an integer or a number within the field's bounds, as
    the model declares them (memory/core/models.py), so the CLI refuses what the daemon would."""
    schema = model.model_json_schema()["properties"][field]
    branch = next(b for b in schema.get("anyOf", [schema]) if b.get("type") in ("integer", "number"))
    low = branch.get("minimum", branch.get("exclusiveMinimum"))
    high = branch.get("maximum", branch.get("exclusiveMaximum"))
    kind = click.IntRange if branch["type"] == "integer" else click.FloatRange
    return kind(low, high, min_open="exclusiveMinimum" in branch, max_open="exclusiveMaximum" in branch)


def given(**values: Any) -> dict[str, Any]:
    """Request params without the options that were not given."""
    return {k: v for k, v in values.items() if v is not None and v != () and v != []}


def call(method: str, params: dict[str, Any] | None = None, printer: Printer = show.print_kv) -> None:
    """One request to the daemon; its result printed for a person (or as JSON with --json)."""
    with connected() as client:
        result = client.call(method, params or {})
    show_result(result, printer)


def show_result(result: Any, printer: Printer) -> None:
    if click.get_current_context().obj.as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        printer(result)


def daemon_socket(chosen: str | None, settings: Settings) -> Path:
    """The daemon's socket for a door: its own ``--socket``, else the global one, else
    ``default_socket()`` ($AGENTMEMD_SOCKET, the installed service's, ~/.agentmemd/agentmemd.sock)."""
    return Path(chosen or settings.socket or default_socket())  # each reads ~ already


class connected:
    """The socket client; no daemon or a refusal ends the command with a clear message."""

    def __enter__(self) -> Client:
        settings: Settings = click.get_current_context().obj
        try:
            self.client = Client(settings.socket or default_socket(), token=settings.token)
        except ConnectionError as exc:
            fail(str(exc), 3)
        except RpcCallError as exc:  # the token was refused
            fail(exc.message, 1)
        return self.client

    def __exit__(self, kind, exc, tb) -> Literal[False]:
        self.client.close()
        if isinstance(exc, RpcCallError):
            fail(exc.message, 1)
        if isinstance(exc, ConnectionError):
            fail(str(exc), 3)
        return False


def fail(message: str, code: int) -> None:
    click.echo(f"agentmemd: {message}", err=True)
    click.get_current_context().exit(code)


def listen_address(option: str, value: str, allow_remote: bool, note: str = "") -> tuple[str, int]:
    """(host, port) of a door's HOST:PORT option; usage error (2) for a malformed one, or a
    non-loopback one without --allow-remote."""
    from agentmemd.daemon.doors.listen import is_loopback, parse_listen, probe_listen

    try:
        host, port = parse_listen(value)
    except ValueError as exc:
        fail(f"{option}: {exc}", 2)
    if not is_loopback(host) and not allow_remote:
        fail(f"{option} {value}: {host} is not loopback; pass --allow-remote to listen there{note}", 2)
    try:  # before a door says where it listens: a port taken is its answer, not a banner and a traceback
        probe_listen(host, port)
    except OSError as exc:
        fail(f"{option} {value}: {os.strerror(exc.errno) if exc.errno else exc}", 1)
    return host, port

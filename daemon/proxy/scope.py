"""Which namespace a proxied call is for: the one it names (`x-agentmemd-namespace`), else its
token's first. A namespace the token may not use is refused before anything goes upstream, as a
bad token is: an app that asked for memory in one namespace never gets a call without it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from agentmemd.daemon.socket.client import RpcCallError
from agentmemd.daemon.socket.codes import FORBIDDEN


class Forbidden(Exception):
    """The token may not use the namespace the call names."""


def scoped_namespace(asked: str | None, scope: dict[str, Any]) -> str:
    """``asked`` (else the token's default namespace, else "default"), if the token's ``scope``
    (what `auth` answered) reaches it; Forbidden otherwise."""
    namespace = asked or scope.get("default_namespace") or "default"
    allowed = scope.get("namespaces")
    if allowed is not None and namespace not in allowed:
        names = ", ".join(allowed) or "none"
        raise Forbidden(f"this token may not use namespace {namespace!r} (it may use: {names})")
    return namespace


@contextmanager
def refused_as_forbidden() -> Iterator[None]:
    """A call the daemon refuses the token (-32004: one that hears a single chat may keep no
    conversation) as Forbidden: a 403, never a call upstream without the memory it asked for."""
    try:
        yield
    except RpcCallError as exc:
        if exc.code == FORBIDDEN:
            raise Forbidden(exc.message) from None
        raise

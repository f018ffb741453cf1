"""Which namespace a proxied call is for: the one it names (`x-agentmemd-namespace`), else its
token's first. A namespace the token may not use is refused before anything goes upstream, as a
bad token is: an app that asked for memory in one namespace never gets a call without it."""

from __future__ import annotations

from typing import Any


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

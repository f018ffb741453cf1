"""What `import agentmemd` gives an app: the typed clients of a running daemon and the errors they
raise. This folder is the ``agentmemd`` package itself (pyproject.toml maps it); the product's
folders are its subpackages (``agentmemd.daemon``, ``agentmemd.memory`` ...). The names load when
first used, so importing any part of agentmemd does not load the clients.

    from agentmemd import Client

    with Client() as agentmemd:
        print(agentmemd.context_pack(query="what does Ana like?", budget_tokens=400).text)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# What an editor and a type checker read; at run time __getattr__ loads each name when first used.
if TYPE_CHECKING:
    from agentmemd.daemon.socket.async_client import AsyncClient  # noqa: F401
    from agentmemd.daemon.socket.client import Client, DaemonUnavailable, RpcCallError  # noqa: F401
    from agentmemd.memory.core.errors import (  # noqa: F401
        AgentmemdError,
        Conflict,
        Forbidden,
        InvalidParams,
        NotFound,
        RequestError,
        StoreUnavailable,
        Timeout,
    )

# Each public name and the module it lives in.
_WHERE = {
    "Client": "agentmemd.daemon.socket.client",
    "AsyncClient": "agentmemd.daemon.socket.async_client",
    "DaemonUnavailable": "agentmemd.daemon.socket.client",
    "RpcCallError": "agentmemd.daemon.socket.client",
    **dict.fromkeys(
        (
            "AgentmemdError",
            "RequestError",
            "InvalidParams",
            "NotFound",
            "Conflict",
            "Forbidden",
            "Timeout",
            "StoreUnavailable",
        ),
        "agentmemd.memory.core.errors",
    ),
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'agentmemd' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


__all__ = list(_WHERE)

"""Session ids scoped by namespace, at the services' edge (memory/core/sessions.py says how).

``by_name`` wraps a service method that takes a request's params: the session it names becomes
the store's key for that namespace, and the answer gives names again, so every door (socket, CLI,
MCP, proxy, dashboard) agrees without knowing keys exist.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from agentmemd.memory.core.sessions import named, session_key


def keyed(params: Any) -> Any:
    """``params`` with its session (and the one it was forked from) as the store's key in its namespace."""
    namespace = getattr(params, "namespace", None)
    update = {
        field: session_key(namespace, value)
        for field in ("session", "forked_from")
        if isinstance(value := getattr(params, field, None), str)
    }
    return params.model_copy(update=update) if update else params


def by_name(method: Callable) -> Callable:
    @functools.wraps(method)
    def run(self, params, *args, **kwargs):
        return named(method(self, keyed(params), *args, **kwargs))

    return run

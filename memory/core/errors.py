"""The one exception tree. Every error agentmemd raises on purpose is an ``AgentmemdError``.

    AgentmemdError                 root: catch this to catch anything agentmemd raises on purpose
    ├── RequestError               a request that cannot be carried out as asked (doors map these)
    │   ├── InvalidParams          params passed the schema but not the rules (field named)
    │   │   └── MalformedExport    a chat export that cannot be read (its line named)
    │   ├── NotFound               no such memory, session, pack or proposal
    │   ├── Conflict               the request contradicts the state (superseded version, no workspace)
    │   ├── Forbidden              the caller's token does not reach that namespace or method
    │   └── Timeout                work the request waits on did not finish in time; it goes on
    ├── ConfigError                agentmemd.toml (or an override) is invalid
    ├── StoreError                 the data dir cannot be used (e.g. DimensionMismatch)
    │   └── StoreUnavailable       the store cannot be reached now (its server went away); try again
    ├── LLMError                   a language-model provider failed (LLMUnavailable, LLMOutputError)
    ├── WorkspaceError             the Markdown workspace (AnnotationError, WriteBackError)
    ├── StartupError               the daemon cannot start; the message says why and what to do
    └── ServiceError               `agentmemd service` cannot install, remove or ask about the service

Errors carry no protocol codes: each door maps classes to its own (the JSON-RPC codes
live in ``daemon/socket/rpc.py``).
"""

from __future__ import annotations


class AgentmemdError(Exception):
    """Root of every error agentmemd raises on purpose."""

    def __init__(self, message: str, data: dict | None = None):
        super().__init__(message)
        self.message = message
        self.data = data


class RequestError(AgentmemdError):
    """A request that cannot be carried out as asked; nothing was changed."""


class InvalidParams(RequestError):
    """Params passed the schema but not the rules (e.g. an embedding of the wrong length)."""

    def __init__(self, field: str, message: str):
        super().__init__(f"invalid params: {field}: {message}", {"field": field})


class MalformedExport(InvalidParams):
    """A chat export that cannot be read; ``data["line"]`` is where (0: the file itself)."""

    def __init__(self, message: str, data: dict):
        AgentmemdError.__init__(self, message, data)


class NotFound(RequestError):
    """No such memory, session, pack or proposal."""


class Conflict(RequestError):
    """The request contradicts the current state."""


class Forbidden(RequestError):
    """The caller's access token does not reach that namespace or method (or its auth failed)."""


class Timeout(RequestError):
    """Work the request waits on did not finish in time; it goes on in the background."""


class ConfigError(AgentmemdError):
    """agentmemd.toml (or an override) is invalid; the message names the key."""


class StoreError(AgentmemdError):
    """The data dir cannot be used as it is."""


class StoreUnavailable(StoreError):
    """The store cannot be reached just now (its server restarted or went away): the request changed
    nothing, and the same request may succeed once it is back."""


# How long background work waits before asking again a store that refused it (a full disk, a server
# gone): 1 s after the first refusal, twice as long after each next one, at most this long, so a
# fault of a moment costs a moment and a long one is asked about four times a minute.
STORE_RETRY_MOST_SECONDS = 15.0


def store_retry_delay(refusals: int) -> float:
    """The seconds to wait after the ``refusals``-th refusal in a row (1 for the first)."""
    return min(2.0 ** max(refusals - 1, 0), STORE_RETRY_MOST_SECONDS)


class LLMError(AgentmemdError):
    """A language-model provider failed."""


class WorkspaceError(AgentmemdError):
    """The Markdown workspace cannot be read or written as asked."""


class StartupError(AgentmemdError):
    """The daemon cannot start; the message says why and what to do."""


class ServiceError(AgentmemdError):
    """`agentmemd service` cannot install, remove or ask about the service (systemd or launchd);
    the message says why, and what was left as it was."""


# What an app may import from here (tests/test_public_surface.py keeps it whole).
__all__ = [
    "AgentmemdError",
    "RequestError",
    "InvalidParams",
    "MalformedExport",
    "NotFound",
    "Conflict",
    "Forbidden",
    "Timeout",
    "ConfigError",
    "StoreError",
    "StoreUnavailable",
    "LLMError",
    "WorkspaceError",
    "StartupError",
    "ServiceError",
]

"""The socket's JSON-RPC error codes, and which of them each agentmemd error is: one map, read by
the server (rpc.py) and by the clients, which raise a refusal as the error class it came from."""

from __future__ import annotations

from agentmemd.memory.core.errors import (
    AgentmemdError,
    Conflict,
    Forbidden,
    InvalidParams,
    NotFound,
    StoreUnavailable,
    Timeout,
)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# Server errors (-32000 to -32099): the exception tree's request errors, mapped here, in the transport.
SERVER_ERROR = -32000
NOT_FOUND = -32001
CONFLICT = -32002
TIMEOUT = -32003
FORBIDDEN = -32004
STORE_UNAVAILABLE = -32005
ERROR_CODES: dict[type[AgentmemdError], int] = {
    InvalidParams: INVALID_PARAMS,
    NotFound: NOT_FOUND,
    Conflict: CONFLICT,
    Timeout: TIMEOUT,
    Forbidden: FORBIDDEN,
    StoreUnavailable: STORE_UNAVAILABLE,
}


def code_of(exc: AgentmemdError) -> int:
    """The JSON-RPC code of an agentmemd error: its class's, or its nearest base's."""
    for cls in type(exc).__mro__:
        if cls in ERROR_CODES:
            return ERROR_CODES[cls]
    return SERVER_ERROR

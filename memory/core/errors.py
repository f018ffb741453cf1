"""Errors the memory service raises; the RPC layer maps each to a JSON-RPC error code."""

from __future__ import annotations


class ServiceError(Exception):
    code = -32000

    def __init__(self, message: str, data: dict | None = None):
        super().__init__(message)
        self.message = message
        self.data = data


class InvalidParams(ServiceError):
    """Params passed the schema but not the store (e.g. embedding length)."""

    code = -32602

    def __init__(self, field: str, message: str):
        super().__init__(f"invalid params: {field}: {message}", {"field": field})


class NotFound(ServiceError):
    code = -32001


class Conflict(ServiceError):
    code = -32002

"""JSON-RPC 2.0 over newline-delimited JSON: parsing, validation, error objects.

Transport-free: ``Dispatcher.handle_line(bytes)`` returns the response line (or None
for a notification), so it is tested without a socket and served by the daemon process (daemon/host/process.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import sys
import time
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from pydantic import BaseModel, ValidationError

from agentmemd.daemon.services.access import NO_ACCESS, OWNER, Scope
from agentmemd.daemon.socket.codes import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    code_of,
)
from agentmemd.memory.core.errors import AgentmemdError
from agentmemd.memory.core.threads import serving_request

log = logging.getLogger("agentmemd")


class Declaration(Protocol):
    """What the dispatcher reads of a method's declaration (socket/methods.py's ``Declared`` says
    what each flag means)."""

    @property
    def params(self) -> type[BaseModel]: ...

    @property
    def result(self) -> type[BaseModel]: ...

    @property
    def summary(self) -> str: ...

    @property
    def waits(self) -> bool: ...

    @property
    def authenticates(self) -> bool: ...

    @property
    def reads(self) -> bool: ...

    @property
    def owner_fields(self) -> tuple[str, ...]: ...


@dataclass
class Method:
    """One JSON-RPC method: its declaration and the one service call that answers it."""

    declaration: Declaration
    handler: Callable[[BaseModel], Any]

    params = property(lambda self: self.declaration.params)
    result = property(lambda self: self.declaration.result)
    summary = property(lambda self: self.declaration.summary)
    waits = property(lambda self: self.declaration.waits)
    authenticates = property(lambda self: self.declaration.authenticates)
    reads = property(lambda self: self.declaration.reads)
    owner_fields = property(lambda self: self.declaration.owner_fields)


def unknown_door() -> str:
    return "socket"


@dataclass
class Caller:
    """One connection's standing: the owner's until an `auth` call binds it to a token."""

    scope: Scope = OWNER
    # Which door this connection is (the host asks the process at its other end, once): a token's
    # last use names it.
    door: Callable[[], str] = unknown_door


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None):
        super().__init__(message)
        self.code, self.message, self.data = code, message, data

    def to_dict(self) -> dict[str, Any]:
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


def encode(obj: Any) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def error_response(req_id: Any, err: RpcError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": req_id, "error": err.to_dict()}


def validation_problems(exc: ValidationError) -> list[dict[str, str]]:
    """Each problem as ``{field, message}``: the field's dotted path and what is wrong with it, without
    pydantic's boilerplate (the docs URL, the echoed input, "Value error, " before our own words).
    Every door words a refusal with it: the socket here, the MCP tools' own argument checks too."""
    problems = []
    for e in exc.errors(include_url=False):
        raised = (e.get("ctx") or {}).get("error")  # a validator's own ValueError: its words alone
        message = str(raised) if raised is not None and e["type"] in ("value_error", "assertion_error") else e["msg"]
        problems.append({"field": ".".join(str(x) for x in e["loc"]) or "params", "message": message})
    return problems


def params_error(exc: ValidationError) -> RpcError:
    errors = validation_problems(exc)
    first = errors[0]
    return RpcError(INVALID_PARAMS, f"invalid params: {first['field']}: {first['message']}", {"errors": errors})


Admit = Callable[[Scope, str, BaseModel], BaseModel]
# Told of each call a token was admitted to: (the caller, the method). Must not block: it runs on the loop.
NoteUse = Callable[[Caller, str], None]


def admit_all(scope: Scope, method: str, params: BaseModel) -> BaseModel:
    return params


class Dispatcher:
    def __init__(
        self,
        methods: dict[str, Method],
        executor: Executor,
        wait_executor: Executor | None = None,
        admit: Admit = admit_all,
        read_executor: Executor | None = None,
        note_use: NoteUse | None = None,
    ):
        self.methods = methods
        self.executor = executor
        self.wait_executor = wait_executor or executor
        self.read_executor = read_executor or self.wait_executor
        self.admit = admit  # the service layer's access check, run on every request's params
        self.note_use = note_use  # a token's last use (access.py), noted after it is admitted

    async def handle_line(self, line: bytes, caller: Caller | None = None) -> bytes | None:
        caller = caller or Caller()
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            return encode(
                error_response(
                    None,
                    RpcError(
                        PARSE_ERROR, f"parse error: request is not valid UTF-8 ({exc.reason} at byte {exc.start})"
                    ),
                )
            )
        try:
            too_long: list[TooLongInteger] = []  # what the parser met: a request is walked for it only then
            payload = json.loads(text, parse_int=lambda digits: _json_int(digits, too_long))
        except json.JSONDecodeError as exc:
            return encode(error_response(None, RpcError(PARSE_ERROR, f"parse error: {exc.msg} at column {exc.colno}")))
        except RecursionError:  # [[[[... a thousand deep: refused, the connection stays usable
            return encode(error_response(None, RpcError(PARSE_ERROR, "parse error: JSON nested too deeply")))
        if isinstance(payload, list):
            if not payload:
                return encode(error_response(None, RpcError(INVALID_REQUEST, "invalid request: empty batch")))
            answered = [await self._handle_one(item, caller, bool(too_long)) for item in payload]
            responses = [r for r in answered if r is not None]
            return encode(responses) if responses else None
        response = await self._handle_one(payload, caller, bool(too_long))
        return encode(response) if response is not None else None

    async def _handle_one(self, req: Any, caller: Caller, holds_too_long: bool = False) -> dict[str, Any] | None:
        if not isinstance(req, dict):
            return error_response(None, RpcError(INVALID_REQUEST, "invalid request: expected a JSON object"))
        too_long = _too_long(req) if holds_too_long else None
        if too_long is not None:
            return _too_long_error(req, too_long)
        req_id = req.get("id")
        if not _valid_id(req_id):
            return error_response(
                None, RpcError(INVALID_REQUEST, 'invalid request: "id" must be a string, number or null')
            )
        if req.get("jsonrpc") != "2.0":
            return error_response(req_id, RpcError(INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"'))
        method_name = req.get("method")
        if not isinstance(method_name, str):
            return error_response(req_id, RpcError(INVALID_REQUEST, 'invalid request: "method" must be a string'))
        is_notification = "id" not in req
        started = time.perf_counter()
        try:
            result = await self._call(method_name, req.get("params"), caller)
        except RpcError as err:
            log.info("request", extra={"method": method_name, "ms": _ms(started), "error": err.code})
            return None if is_notification else error_response(req_id, err)
        log.info("request", extra={"method": method_name, "ms": _ms(started)})
        return None if is_notification else {"jsonrpc": "2.0", "id": req_id, "result": result}

    async def _call(self, method_name: str, raw_params: Any, caller: Caller) -> Any:
        method = self.methods.get(method_name)
        if method is None:
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {method_name}", {"methods": sorted(self.methods)})
        if raw_params is None:
            raw_params = {}
        if not isinstance(raw_params, dict):
            raise RpcError(
                INVALID_PARAMS,
                "invalid params: params must be an object",
                {"errors": [{"field": "params", "message": "must be an object"}]},
            )
        try:
            params = method.params.model_validate(raw_params)
        except ValidationError as exc:
            raise params_error(exc) from None
        loop = asyncio.get_running_loop()
        try:
            params = self.admit(caller.scope, method_name, params)
            if self.note_use is not None and caller.scope.by_token:
                self.note_use(caller, method_name)
            executor = self.read_executor if method.reads else self.wait_executor if method.waits else self.executor
            result = await loop.run_in_executor(executor, _served(method.handler), params)
            if method.authenticates:
                caller.scope, result = result, result.describe()
        except AgentmemdError as exc:
            if method.authenticates:  # a failed auth fails closed: no access until a valid token
                caller.scope = NO_ACCESS
            raise RpcError(code_of(exc), exc.message, exc.data) from None
        except ValidationError as exc:  # a nested model built inside a handler
            raise params_error(exc) from None
        except Exception as exc:  # the daemon never dies of a request
            log.exception("internal error", extra={"method": method_name})
            raise RpcError(INTERNAL_ERROR, f"internal error: {type(exc).__name__}: {exc}") from None
        if method.owner_fields and not caller.scope.everything:
            result = _without(result, method.owner_fields)
        if isinstance(result, method.result):
            return result.model_dump(mode="json")
        try:
            typed = method.result.model_validate(result)
        except ValidationError as exc:  # the service broke its documented shape: our bug, never the client's
            log.error("result does not match its model", extra={"method": method_name, "error": str(exc)})
            raise RpcError(
                INTERNAL_ERROR, f"internal error: the {method_name} result does not match its model"
            ) from None
        # The keys the service gave, typed (an optional key it left out stays out).
        return typed.model_dump(mode="json", exclude_unset=True)


def _without(result: Any, fields: tuple[str, ...]) -> Any:
    """``result`` with ``fields`` left out (a model's are set to None, their default)."""
    if isinstance(result, BaseModel):
        return result.model_copy(update=dict.fromkeys(fields))
    return {k: v for k, v in result.items() if k not in fields} if isinstance(result, dict) else result


def _served(handler: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """The handler, run as a request background work yields to."""

    def serve(params: Any) -> Any:
        with serving_request():
            return handler(params)

    return serve


class TooLongInteger:
    """A JSON integer with more digits than Python converts (``sys.get_int_max_str_digits``, 4,300
    by default): kept as its digit count, so the request is answered with the field it was in
    instead of the parser's ValueError dropping the connection."""

    def __init__(self, digits: int):
        self.digits = digits


def _json_int(text: str, too_long: list[TooLongInteger]) -> int | TooLongInteger:
    limit = sys.get_int_max_str_digits()
    digits = len(text) - text.startswith("-")
    if limit and digits > limit:
        too_long.append(TooLongInteger(digits))
        return too_long[-1]
    return int(text)


def _too_long(value: Any, path: tuple[str, ...] = ()) -> tuple[tuple[str, ...], TooLongInteger] | None:
    """Where in a request the first too-long integer is (its path and itself), if anywhere."""
    if isinstance(value, TooLongInteger):
        return path, value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _too_long(item, (*path, str(key)))
        if found is not None:
            return found
    return None


def _too_long_error(req: dict[str, Any], found: tuple[tuple[str, ...], TooLongInteger]) -> dict[str, Any]:
    path, number = found
    said = f"a number of {number.digits:,} digits (at most {sys.get_int_max_str_digits():,})"
    req_id = req.get("id")
    if path[0] == "params" and len(path) > 1:
        field = ".".join(path[1:])
        error = RpcError(
            INVALID_PARAMS, f"invalid params: {field}: {said}", {"errors": [{"field": field, "message": said}]}
        )
        return error_response(req_id if _valid_id(req_id) else None, error)
    return error_response(
        req_id if path[0] != "id" and _valid_id(req_id) else None,
        RpcError(INVALID_REQUEST, f'invalid request: "{path[0]}" is {said}'),
    )


def _valid_id(req_id: Any) -> bool:
    """JSON-RPC ids: a string, a number (1, 1.5, 1e2; not a boolean) or null."""
    if req_id is None or isinstance(req_id, str):
        return True
    if isinstance(req_id, bool) or not isinstance(req_id, (int, float)):
        return False
    return isinstance(req_id, int) or math.isfinite(req_id)  # 1e400 parses as inf: not a number to echo


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)

"""The Node client's generated files, from the same declarations as the Python client
(daemon/socket/methods.py): ``calls.js`` (a method per socket method and an error class per
refusal code) and ``index.d.ts`` (every params and result model as a TypeScript type, from the
models' JSON schemas). The files hold cog blocks, and `make lint` runs ``cog --check`` on them,
so the client cannot drift from the daemon.

    cog -r daemon/socket/node/calls.js daemon/socket/node/index.d.ts

Hand-written (about 150 lines): the JSON-schema-to-TypeScript libraries are npm packages
(json-schema-to-typescript) that `make lint` would have to install and run in Node, and the
schemas here use a small subset (objects, arrays, unions, enums, refs).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

from agentmemd.daemon.socket.codes import ERROR_CODES
from agentmemd.daemon.socket.methods import METHODS

NODE_DIR = "daemon/socket/node"


def camel(method: str) -> str:
    """A socket method's name as a JavaScript method: ``memory.search`` → ``memorySearch``,
    ``access.tokens.create`` → ``accessTokensCreate``."""
    head, *rest = re.split(r"[._]", method)
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def refusal_classes() -> list[tuple[int, str]]:
    """(code, class name) of each refusal the daemon sends: the error tree's classes the socket has
    a code for, named as in Python (``except NotFound`` there, ``instanceof NotFound`` here)."""
    return sorted(((code, cls.__name__) for cls, code in ERROR_CODES.items()), key=lambda pair: -pair[0])


def calls_source() -> str:
    """The body of calls.js: the error classes and ``TypedCalls``, whose methods send by name."""
    lines = ['import { RpcError } from "./errors.js";', ""]
    for code, name in refusal_classes():
        lines += [
            f"/** The daemon's refusal with code {code}. */",
            f"export class {name} extends RpcError {{}}",
            f'Object.defineProperty({name}.prototype, "name", {{ value: "{name}" }});',
        ]
    lines += [
        "",
        "/** The error class for each refusal code; RpcError for any other. */",
        "export const REFUSALS = new Map([",
        *(f"  [{code}, {name}]," for code, name in refusal_classes()),
        "]);",
        "",
        "/** Every socket method as a call: `params` as the daemon takes them, the answer its result. */",
        "export class TypedCalls {",
    ]
    for declared in METHODS:
        lines += [
            f"  /** {_comment(declared.summary)} (`{declared.name}`) */",
            f"  {camel(declared.name)}(params = {{}}) {{",
            f'    return this.call("{declared.name}", params);',
            "  }",
        ]
    lines += ["}", ""]
    return "\n".join(lines)


def transcript_constants() -> str:
    """The numbers transcript.js shares with the Python side: how a turn is stored and how much
    of a history one request carries."""
    from agentmemd.daemon.doors import history
    from agentmemd.memory.conversation import transcript

    return "\n".join(
        [
            f"export const MAX_TURN_CHARS = {transcript.MAX_TURN_CHARS};",
            f"const KEEP_CHARS = {transcript._KEEP_CHARS};",
            f"const SYNC_FRAME_BYTES = {history.SYNC_FRAME_BYTES};",
            f"const DIGEST_BYTES = {history.DIGEST_BYTES};",
            "",
        ]
    )


def types_source() -> str:
    """The body of index.d.ts: the models as types, then the client's declarations."""
    named: dict[str, str] = {}  # type name -> its declaration
    origins: dict[str, str] = {}  # type name -> the schema it came from, to refuse two shapes under one name
    calls = []
    for declared in METHODS:
        params = _declare(declared.params, "validation", named, origins)
        result = _declare(declared.result, "serialization", named, origins)
        optional = "" if declared.params.model_json_schema().get("required") else "?"
        calls += [
            f"  /** {_comment(declared.summary)} (`{declared.name}`) */",
            f"  {camel(declared.name)}(params{optional}: {params}): Promise<{result}>;",
        ]
    refusals = [f"export declare class {name} extends RpcError {{}}" for _, name in refusal_classes()]
    return "\n".join(
        [
            *(named[name] for name in sorted(named)),
            "",
            *refusals,
            "",
            "/** Every socket method as a call (generated from the daemon's declarations). */",
            "export declare class TypedCalls {",
            "  call(method: string, params?: Record<string, unknown>): Promise<unknown>;",
            *calls,
            "}",
            "",
        ]
    )


def _declare(model: type[BaseModel], mode: str, named: dict[str, str], origins: dict[str, str]) -> str:
    """Declare a model and the models it refers to; its type's name."""
    schema = model.model_json_schema(mode=mode)  # type: ignore[arg-type]
    defs = schema.pop("$defs", {})
    for name, sub in [*defs.items(), (model.__name__, schema)]:
        _remember(name, sub, mode, named, origins)
    return model.__name__


def _remember(name: str, schema: dict[str, Any], mode: str, named: dict[str, str], origins: dict[str, str]) -> None:
    shape = json.dumps(schema, sort_keys=True)
    if name in origins:
        if origins[name] != shape:
            # One name, two shapes (a model whose params and result forms differ): the types
            # would be wrong, so the generation stops and says which.
            raise ValueError(f"{name}: two JSON schemas under one name ({mode} differs); name the models apart")
        return
    origins[name] = shape
    doc = f"/** {_comment(schema['description'])} */\n" if schema.get("description") else ""
    if schema.get("type") == "object" and "properties" in schema:
        named[name] = f"{doc}export interface {name} {_object(schema, indent='')}"
    else:
        named[name] = f"{doc}export type {name} = {ts_type(schema)};"


def _object(schema: dict[str, Any], indent: str) -> str:
    required = set(schema.get("required", ()))
    inner = indent + "  "
    lines = ["{"]
    for key, sub in schema.get("properties", {}).items():
        if sub.get("description"):
            lines.append(f"{inner}/** {_comment(sub['description'])} */")
        mark = "" if key in required else "?"
        lines.append(f"{inner}{_key(key)}{mark}: {ts_type(sub, inner)};")
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        lines.append(f"{inner}[key: string]: {ts_type(extra, inner)};")
    lines.append(indent + "}")
    return "\n".join(lines)


def ts_type(schema: dict[str, Any], indent: str = "") -> str:
    """A JSON schema as a TypeScript type."""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[1]
    for union in ("anyOf", "oneOf"):
        if union in schema:
            return _union([ts_type(branch, indent) for branch in schema[union]])
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return _union([json.dumps(value) for value in schema["enum"]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([ts_type({**schema, "type": one}, indent) for one in kind])
    if kind in ("integer", "number"):
        return "number"
    if kind in ("string", "boolean", "null"):
        return str(kind)
    if kind == "array":
        if "prefixItems" in schema:
            return "[" + ", ".join(ts_type(item, indent) for item in schema["prefixItems"]) + "]"
        item = ts_type(schema.get("items", {}), indent)
        return f"({item})[]" if " | " in item else f"{item}[]"
    if kind == "object":
        if schema.get("properties"):
            return _object(schema, indent)
        extra = schema.get("additionalProperties")
        return f"Record<string, {ts_type(extra, indent) if isinstance(extra, dict) else 'unknown'}>"
    return "unknown"


def _union(kinds: list[str]) -> str:
    unique = list(dict.fromkeys(kinds))
    return " | ".join(unique)


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", key) else json.dumps(key)


def _comment(text: str) -> str:
    """Text safe inside a /** */ comment, on one line."""
    return " ".join(str(text).split()).replace("*/", "*\\/")

"""Each method is declared once (daemon/socket/methods.py); the doors that expose it must agree with
that declaration. A test here fails when a door's surface drifts from its method: an MCP tool's
argument with another type, bound, length or pattern than the params model's field; a CLI option
whose range or choices differ; a method the docs do not list, or one they list that is gone."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import click
import pytest
from conftest import REPO

from agentmemd.daemon.cli.main import cli
from agentmemd.daemon.mcp.server import build_server
from agentmemd.daemon.socket.methods import METHODS, declared

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

CONSTRAINTS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern",
               "minItems", "maxItems")  # fmt: skip
# Tool arguments that are the door's own (not a params field): how the answer is shaped or confirmed.
DOOR_ARGUMENTS = {"with_scores", "confirm"}


def _tools() -> dict[str, Any]:
    server = build_server(Path("/nonexistent.sock"))
    return {tool.name: tool for tool in asyncio.run(server.list_tools())}


def _resolve(schema: dict, defs: dict) -> dict:
    if "$ref" in schema:
        return _resolve(defs[schema["$ref"].rsplit("/", 1)[1]], defs)
    return schema


def _shape(schema: dict, defs: dict) -> dict:
    """What a property accepts: its type and constraints, the null branch of an Optional dropped
    (a tool may make optional what has a default), enums as sets, items likewise."""
    schema = _resolve(schema, defs)
    if "anyOf" in schema:
        branches = [_shape(b, defs) for b in schema["anyOf"] if _resolve(b, defs).get("type") != "null"]
        if len(branches) == 1:
            return branches[0]
        return {"anyOf": branches}
    shape: dict[str, Any] = {k: schema[k] for k in CONSTRAINTS if k in schema}
    if "type" in schema:
        shape["type"] = schema["type"]
    if "enum" in schema:
        shape["enum"] = set(schema["enum"])
    if "const" in schema:
        shape["enum"] = {schema["const"]}
    if "items" in schema:
        shape["items"] = _shape(schema["items"], defs)
    return shape


def _drift(tool_shape: dict, field_shape: dict) -> list[str]:
    """How a tool's argument differs from the field: a narrower enum is a door's choice (memory_add
    offers no `episode`), anything else is drift."""
    problems = []
    for key in set(tool_shape) | set(field_shape):
        mine, theirs = tool_shape.get(key), field_shape.get(key)
        if key == "enum" and mine is not None and theirs is not None and mine <= theirs:
            continue
        if key == "items" and mine is not None and theirs is not None:
            problems += [f"items: {p}" for p in _drift(mine, theirs)]
            continue
        if mine != theirs:
            problems.append(f"{key}: tool {mine!r}, model {theirs!r}")
    return problems


MCP_CASES = [(d.name, tool) for d in METHODS for tool in d.mcp]


@pytest.fixture(scope="module")
def tools():
    return _tools()


def test_every_mcp_tool_is_declared_by_the_methods_it_calls(tools):
    assert set(tools) == {tool for d in METHODS for tool in d.mcp}


@pytest.mark.parametrize("method,tool", MCP_CASES)
def test_an_mcp_tools_arguments_are_its_methods_fields(tools, method, tool):
    d = declared(method)
    model = d.params.model_json_schema()
    fields, model_defs = model["properties"], model.get("$defs", {})
    schema = tools[tool].input_schema
    tool_defs = schema.get("$defs", {})
    problems = []
    for argument, prop in schema["properties"].items():
        if argument in DOOR_ARGUMENTS:
            continue
        if argument not in fields:
            if tool == "memory_forget" and method == "memory.get":
                continue  # the preview reads the memory; confirm is the door's
            problems.append(f"{argument}: not a field of {d.params.__name__}")
            continue
        problems += [f"{argument}: {p}" for p in _drift(_shape(prop, tool_defs), _shape(fields[argument], model_defs))]
    required = set(model.get("required", [])) - {"namespace"}
    missing = required - set(schema["properties"])
    assert not missing or tool == "memory_forget", f"{tool} lacks required {missing}"
    assert not problems, f"{tool} drifts from {method}: " + "; ".join(problems)


def _command(path: str) -> click.Command:
    command: click.Command = cli
    for part in path.split():
        assert isinstance(command, click.Group), f"{path}: {part} is not a subcommand"
        command = command.commands[part]
    return command


def _click_shape(param: click.Parameter) -> dict:
    kind = param.type
    shape: dict[str, Any] = {}
    if isinstance(kind, click.IntRange | click.FloatRange):
        if kind.min is not None:
            shape["exclusiveMinimum" if kind.min_open else "minimum"] = kind.min
        if kind.max is not None:
            shape["exclusiveMaximum" if kind.max_open else "maximum"] = kind.max
    if isinstance(kind, click.Choice):
        shape["enum"] = set(kind.choices)
    return shape


CLI_CASES = [(d.name, d.cli) for d in METHODS if d.cli]


@pytest.mark.parametrize("method,command", CLI_CASES)
def test_a_cli_commands_ranges_and_choices_are_its_methods(method, command):
    """An option named as a params field (or `--budget` for budget_tokens, `--type` for types)
    takes what the field takes: the same bounds, choices within the field's."""
    d = declared(method)
    model = d.params.model_json_schema()
    fields, defs = model["properties"], model.get("$defs", {})
    problems = []
    for param in _command(command).params:
        name = {"budget": "budget_tokens", "type": "types" if "types" in fields else "type", "tag": "tags"}.get(
            param.name, param.name
        )
        if name not in fields:
            continue
        field = _shape(fields[name], defs)
        field = field.get("items", field) if param.multiple or name in ("types", "tags") else field
        mine = _click_shape(param)
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if key in field and mine.get(key) != field[key]:
                problems.append(f"--{param.name}: {key} {mine.get(key)!r}, model {field[key]!r}")
        # An argument may choose between methods (`agentmemd rule add|confirm|…`): options only.
        if isinstance(param, click.Option) and "enum" in mine and "enum" in field and not mine["enum"] <= field["enum"]:
            problems.append(f"--{param.name}: choices {sorted(mine['enum'])} beyond {sorted(field['enum'])}")
    assert not problems, f"agentmemd {command} drifts from {method}: " + "; ".join(problems)


def test_the_docs_list_every_method_and_only_those():
    """docs/methods.md says what each method does in words a reference cannot: it must keep up."""
    table = (REPO / "docs" / "methods.md").read_text(encoding="utf-8")
    listed = set()
    for row in re.findall(r"^\| (`[a-z_.]+`(?: / `[a-z_.]+`)*) \|", table, re.M):
        listed |= set(re.findall(r"`([a-z_.]+)`", row))
    # A row may name two methods "clock.now / clock.advance"; workspace.* are documented with the workspace.
    declared_names = {d.name for d in METHODS}
    assert listed - declared_names == set(), "documented but not declared"
    assert declared_names - listed - {"workspace.status", "workspace.read", "workspace.sync"} == set()


@pytest.mark.parametrize("door", ["mcp", "proxy", "webhooks", "dashboard"])
def test_every_door_names_the_daemons_socket_alike(door):
    options = {opt for param in _command(door).params for opt in getattr(param, "opts", [])}
    assert "--socket" in options


def test_commands_are_filed_by_noun_and_the_old_names_still_run():
    from click.testing import CliRunner

    shown = CliRunner().invoke(cli, ["--help"]).output
    listed = set(re.findall(r"^  ([a-z-]+) ", shown, re.M))
    assert {
        "memory",
        "conversation",
        "persona",
        "chat",
        "job",
        "person",
        "workspace",
        "add",
        "search",
        "pack",
    } <= listed
    assert not {"get", "append", "observe", "memories", "run-job"} & listed  # filed under their nouns
    assert not {"chats", "jobs", "people", "goals", "tokens"} & listed  # one rule: a noun is singular
    nowhere = ["--socket", "/nonexistent/agentmemd.sock"]
    for args in (
        ["memory", "get", "m1"],
        ["get", "m1"],  # the old flat name, hidden
        ["conversation", "chat-1"],  # a noun's default: conversation status chat-1
        ["persona", "--history"],
        ["workspace", "--sync"],
        ["chats"],  # the plural, hidden: the whole group, its default (list)
        ["chats", "messages", "vino"],
        ["chat", "messages", "vino"],
        ["people", "list"],
        ["jobs"],
    ):
        ran = CliRunner().invoke(cli, nowhere + args)
        assert ran.exit_code == 3, (args, ran.output)  # reached the call: no daemon there, not a usage error


@pytest.mark.parametrize("tool", ["memory_search", "context_pack"])
def test_an_mcp_audience_is_never_null_on_the_socket(tools, tool):
    """The socket lets the owner's audience be None (every one); a tool's never is: left out (or
    null), it is the audience the connection's token hears, else the user's own conversations."""
    from agentmemd.daemon.mcp.server import _heard_by_default

    audience = tools[tool].input_schema["properties"]["audience"]
    assert audience["anyOf"][0]["type"] == "string" and audience["anyOf"][0]["pattern"].startswith("^(user|")
    assert "Left out, a token that hears one audience" in audience["description"]
    assert _heard_by_default(None, {"query": "x"}) == {"query": "x", "audience": "user"}
    assert _heard_by_default({"hears": None}, {})["audience"] == "user"
    assert _heard_by_default({"hears": "private:telegram:2002"}, {})["audience"] == "private:telegram:2002"

"""The docs' references, generated from the code: every method from its declaration
(daemon/socket/methods.py), every command from the CLI itself, every config key from the config
model. The pages call these in cog blocks, and `make lint` runs `cog --check` on them, so a
reference that no longer says what the code does fails the build (as simonw/llm does with its
docs/help.md).

    cog -r docs/reference/*.md        # regenerate after changing a method, command or key
"""

from __future__ import annotations

import ast
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import click
from pydantic import BaseModel

from agentmemd.daemon.socket.methods import METHODS, Declared
from agentmemd.memory.core.config import Config

HELP_WIDTH = 100


def _kind(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """A JSON-schema property in a few words: its type and bounds."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        target = defs.get(name, {})
        return _kind(target, defs) if "enum" in target else name
    if "anyOf" in schema:
        return " \\| ".join(_kind(branch, defs) for branch in schema["anyOf"])
    if "enum" in schema:
        return " \\| ".join(f"`{value}`" for value in schema["enum"])
    if "const" in schema:
        return f"`{schema['const']}`"
    kind = schema.get("type", "any")
    if kind == "array":
        inner = _kind(schema.get("items", {}), defs)
        limit = f", at most {schema['maxItems']:,}" if "maxItems" in schema else ""
        return f"[{inner}{limit}]"
    if kind == "object":
        return "object"
    bounds = []
    for key, sign in (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<")):
        if key in schema and abs(schema[key]) < 2**62:
            bounds.append(f"{sign} {schema[key]:,}")
    if "maxLength" in schema:
        bounds.append(f"{schema.get('minLength', 0)}–{schema['maxLength']:,} chars")
    if "format" in schema:
        bounds.append(schema["format"])
    return kind + (f" ({', '.join(bounds)})" if bounds else "")


def _params(model: type[BaseModel]) -> list[str]:
    schema = model.model_json_schema()
    defs, required = schema.get("$defs", {}), set(schema.get("required", []))
    rows = []
    for name, prop in schema.get("properties", {}).items():
        default = (
            ""
            if name in required
            else f", default `{json.dumps(prop['default'])}`"
            if "default" in prop
            else ", optional"
        )
        description = model.model_fields[name].description or prop.get("description") or ""
        rows.append(f"| `{name}` | {_kind(prop, defs)}{default} | {description} |")
    return rows


def _where(d: Declared) -> str:
    if d.reads:
        return "on a reader thread (it only reads)"
    if d.waits:
        return "beside the store thread (it waits on other work)"
    return "on the store thread"


def method_reference() -> str:
    """Every method: what it does, its params with their types and bounds, its result model, who
    may call it, where it runs, and the CLI command and MCP tools that reach it."""
    out = []
    for d in METHODS:
        out.append(f"### `{d.name}`\n\n{d.summary}\n")
        rows = _params(d.params)
        if rows:
            out.append("| param | type | what |\n|---|---|---|\n" + "\n".join(rows) + "\n")
        else:
            out.append("No params.\n")
        doors = [f"CLI `agentmemd {d.cli}`"] if d.cli else []
        doors += [f"MCP `{tool}`" for tool in d.mcp]
        facts = [f"Returns `{d.result.__name__}`", f"runs {_where(d)}"]
        facts.append(
            "owner only (a scoped token may not call it)" if d.owner_only else "scoped tokens: within their namespaces"
        )
        out.append("; ".join(facts) + (". Reached by " + ", ".join(doors) if doors else "") + ".\n")
    return "\n".join(out)


def _commands(group: click.Group, path: list[str]) -> list[tuple[list[str], click.Command]]:
    found = []
    for name in sorted(group.commands):
        command = group.commands[name]
        if command.hidden:  # an old flat name kept for scripts
            continue
        found.append((path + [name], command))
        if isinstance(command, click.Group):
            found += _commands(command, path + [name])
    return found


def cli_reference() -> str:
    """`agentmemd --help` and every command's help, as a person sees them."""
    from click.testing import CliRunner

    from agentmemd.daemon.cli.main import cli

    runner = CliRunner()
    out = []
    for path, _ in [([], cli), *_commands(cli, [])]:
        shown = runner.invoke(cli, [*path, "--help"], prog_name="agentmemd", terminal_width=HELP_WIDTH)
        assert shown.exit_code == 0, shown.output
        out.append(f"### `{' '.join(['agentmemd', *path])}`\n\n```\n{shown.output.rstrip()}\n```\n")
    return "\n".join(out)


def config_reference() -> str:
    """Every `agentmemd.toml` key: its section, type, default and what it does."""
    out = []
    for section, field in Config.model_fields.items():
        model = field.annotation
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            continue
        out.append(f"### `[{section}]`\n")
        if model.__doc__:
            out.append(" ".join(model.__doc__.split()) + "\n")
        schema = model.model_json_schema()
        defs = schema.get("$defs", {})
        rows = []
        for name, prop in schema.get("properties", {}).items():
            info = model.model_fields[name]
            default = info.get_default(call_default_factory=True)
            shown = "(a table)" if isinstance(default, BaseModel) else f"`{json.dumps(default, default=str)}`"
            rows.append(f"| `{name}` | {_kind(prop, defs)} | {shown} | {info.description or ''} |")
        out.append("| key | type | default | what |\n|---|---|---|---|\n" + "\n".join(rows) + "\n")
    return "\n".join(out)


def config_sections() -> str:
    """The config's sections, one line each: its keys (the reference gives each key's type, default
    and meaning)."""
    lines = []
    for section, field in Config.model_fields.items():
        model = field.annotation
        if isinstance(model, type) and issubclass(model, BaseModel):
            lines.append(f"- [`[{section}]`](reference/config.md#{section}): {', '.join(model.model_fields)}")
    return "\n".join(lines)


# ---- the layout: the tree in the order of its layers -------------------------------------------------

# Folders beside the product's packages, as docs/development.md shows them after the layers.
OTHER_FOLDERS = {
    "workspace_template/": "the Markdown workspace `agentmemd init` copies, and the default agentmemd.toml it writes",
    "tests/": "the tiers (inprocess.py, conftest.py: each module names its tier); data/ holds the fixtures",
    "docs/": "this site (mkdocs.yml): the pages, the references generated from the code, the screenshots",
}


NUMBERED_MIGRATION = re.compile(r"^m\d{3}_")


def _summary(path: Path, *, first_sentence: bool) -> str:
    """A file's docstring in one line: its first paragraph, or only its first sentence."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    text = " ".join(doc.split("\n\n", 1)[0].split())
    if first_sentence:
        text = re.split(r"(?<=[.!?])\s+(?=[A-Z`(])", text, maxsplit=1)[0]
    return text


def _module(path: Path, depth: int) -> str:
    said = _summary(path, first_sentence=True)
    return f"{'  ' * depth}- `{path.name}`" + (f": {said}" if said else "")


def _package(root: Path, folder: str, depth: int, *, contents: bool = True) -> list[str]:
    """A package's line, then (``contents``) its modules' lines and its own sub-packages'."""
    here = root / folder
    summary = _summary(here / "__init__.py", first_sentence=False)
    if not summary:
        raise ValueError(f"{folder}/__init__.py has no docstring: say what the folder is for")
    lines = [f"{'  ' * depth}- **`{folder}/`**: {summary}"]
    if contents:
        modules = sorted(p for p in here.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
        numbered = [p for p in modules if NUMBERED_MIGRATION.match(p.stem)]
        for module in (p for p in modules if p not in numbered):
            lines.append(_module(module, depth + 1))
        if numbered:  # one line for the migrations, one a file
            lines.append(
                f"{'  ' * (depth + 1)}- `{numbered[0].name}` … `{numbered[-1].name}`: {len(numbered)} migrations, "
                "one a file, applied in the order of their numbers"
            )
        for nested in sorted(p for p in here.iterdir() if (p / "__init__.py").exists()):
            lines += _package(root, f"{folder}/{nested.name}", depth + 1)
    return lines


def layout_reference(root: Path) -> str:
    """The source tree in the order of the import-linter contracts in ``root``'s pyproject.toml:
    the top-level folders as the top contract lists them, and inside each its sub-folders (or
    modules) as its own contract does, each with its docstring and its modules' first sentences.
    A package or module no contract places, or a package without a docstring, is an error: the
    map shows every folder."""
    contracts = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    layered = [c for c in contracts["contracts"] if c["type"] == "layers"]
    top = next(c["layers"] for c in layered if "containers" not in c)
    inside = {c["containers"][0]: c["layers"] for c in layered if "containers" in c}
    lines: list[str] = []
    for package in top:
        folder = package.removeprefix("agentmemd.")
        lines += _package(root, folder, 0, contents=False)
        order = [name for layer in inside.get(package, []) for name in re.split(r"\s*[:|]\s*", layer)]
        here = root / folder
        present = {p.name for p in here.iterdir() if (p / "__init__.py").exists()}
        present |= {p.stem for p in here.glob("*.py") if p.name != "__init__.py"}
        if present - set(order):
            raise ValueError(f"no contract places {folder}/{', '.join(sorted(present - set(order)))}")
        for name in order:
            if (here / name / "__init__.py").exists():
                lines += _package(root, f"{folder}/{name}", 1)
            else:
                lines.append(_module(here / f"{name}.py", 1))
    lines += [f"- **`{folder}`**: {said}" for folder, said in OTHER_FOLDERS.items()]
    return "\n".join(lines) + "\n"


def doors_reference() -> str:
    """The doors the daemon can start itself (DOORS, each package's door.py), as a Markdown table."""
    from agentmemd.daemon.host.door_children import DOORS

    rows = ["| section | starts | usual address | clients go to |", "|---|---|---|---|"]
    for door in DOORS:
        rows.append(
            f"| `[{door.name}]` | `agentmemd {door.name}`: {door.summary} | `{door.default_listen}` "
            f"| `{door.url('HOST:PORT')}` |"
        )
    return "\n".join(rows)


# ---- the typed clients: every method as a typed call, generated from the declarations -----------------

# The modules whose models a typed call names, as daemon/socket/typed.py imports them.
_MODEL_MODULES = {
    "agentmemd.memory.core.models": "m",
    "agentmemd.memory.core.results": "r",
    "agentmemd.memory.core.chats": "chats",
}


def _annotation(tp: Any) -> str:
    """A params field's type as Python source: the constraints left to the daemon (it validates),
    a nested model also taken as a dict."""
    import datetime
    import types
    import typing

    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is type(None):
        return "None"
    if tp in (str, int, float, bool):
        return tp.__name__
    if tp is datetime.datetime:
        return "datetime"
    if tp is datetime.date:
        return "date"
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return f"{_MODEL_MODULES[tp.__module__]}.{tp.__name__} | dict[str, Any]"
    if origin is typing.Annotated:
        return _annotation(args[0])
    if origin is typing.Literal:
        return f"Literal[{', '.join(repr(a) for a in args)}]"
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_annotation(a) for a in args)
    if origin is list:
        return f"list[{_annotation(args[0])}]"
    if origin is dict:
        return f"dict[{_annotation(args[0])}, {_annotation(args[1])}]"
    return "Any"


def _call_name(method: str) -> str:
    return method.replace(".", "_")


def typed_calls_source(asynchronous: bool) -> str:
    """The class of typed calls, one per declared method (daemon/socket/typed.py holds the
    generated source; `make lint` fails when it no longer matches the declarations)."""
    from agentmemd.daemon.socket.methods import METHODS

    name = "AsyncTypedCalls" if asynchronous else "TypedCalls"
    lines = [
        f"class {name}:",
        f'    """Every socket method as a{"n awaitable" if asynchronous else ""} typed call: keyword arguments are its params,',
        "    the result its model; an argument left None is not sent, so the daemon's default applies",
        '    (the method reference gives each). Generated from daemon/socket/methods.py (cog); do not edit."""',
        "",
        f"    {'async ' if asynchronous else ''}def _typed(self, method: str, result: type[R], params: dict[str, Any]) -> R:",
        "        raise NotImplementedError",
    ]
    for d in METHODS:
        fields = d.params.model_fields
        required = [(n, f) for n, f in fields.items() if f.is_required()]
        optional = [(n, f) for n, f in fields.items() if not f.is_required()]
        signature = ["self"] + (["*"] if fields else [])
        for field_name, info in required:
            signature.append(f"{field_name}: {_annotation(info.annotation)}")
        for field_name, info in optional:
            kind = _annotation(info.annotation)
            signature.append(f"{field_name}: {kind if 'None' in kind.split(' | ') else kind + ' | None'} = None")
        result = f"{_MODEL_MODULES[d.result.__module__]}.{d.result.__name__}"
        call = "await self._typed" if asynchronous else "self._typed"
        given = ", ".join(f'"{n}": {n}' for n in fields)
        lines += [
            "",
            f"    {'async ' if asynchronous else ''}def {_call_name(d.name)}({', '.join(signature)}) -> {result}:",
            f'        """{d.summary} (`{d.name}`)"""',
            f'        return {call}("{d.name}", {result}, {{{given}}})',
        ]
    return _formatted("\n".join(lines) + "\n")


def _formatted(source: str) -> str:
    """Python source as `ruff format` writes it (the project's settings), so the generated file
    passes `make lint`'s format check as it is."""
    import subprocess
    import sys

    ruff = Path(sys.executable).with_name("ruff")
    done = subprocess.run(
        [str(ruff), "format", "--stdin-filename", "typed.py", "-"], input=source, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"ruff format: {done.stderr}")
    return done.stdout

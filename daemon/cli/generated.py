"""The plain commands, generated from their methods' declarations (daemon/socket/methods.py): a
method declared with a ``printer`` gets its `agentmemd` command from the declaration alone. Its
arguments are the params fields the declaration names, in order; every other field is an option
with the type, bounds, choices, default and help its params model declares (memory/core/models.py),
so the CLI refuses what the daemon would; the command's help is the method's summary and example.
The commands with more to them
(forget's preview, imports, sync) are written by hand in main.py."""

from __future__ import annotations

from datetime import datetime
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import click
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from agentmemd.daemon.cli import printers
from agentmemd.daemon.cli.calls import NAMESPACE, bounded, call, given
from agentmemd.daemon.socket.methods import METHODS, Declared


def _plain(annotation: Any) -> Any:
    """The annotation without None (an optional field is an option that may be left out) and
    without its checks (the daemon runs them on what is sent)."""
    if get_origin(annotation) in (Union, UnionType):
        kept = [a for a in get_args(annotation) if a is not type(None)]
        annotation = kept[0] if len(kept) == 1 else annotation
    if get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _type(model: type[BaseModel], name: str, info: FieldInfo) -> click.ParamType:
    kind = _plain(info.annotation)
    if get_origin(kind) is Literal:
        return click.Choice([str(v) for v in get_args(kind)])
    if kind in (int, float):
        return bounded(model, name)
    if kind not in (str, datetime):
        raise TypeError(f"{model.__name__}.{name}: a generated command takes no {kind!r}; write it by hand")
    return click.STRING  # text, and times as ISO 8601 text, which the daemon parses and checks


def _shared(option: Any) -> click.Parameter:
    """The parameter one of calls.py's shared option decorators adds to a command."""

    def holder() -> None: ...

    return option(holder).__click_params__[0]


def _parameters(d: Declared) -> list[click.Parameter]:
    fields = d.params.model_fields
    missing = [name for name in d.arguments if name not in fields]
    if missing:
        raise ValueError(f"{d.name}: arguments {missing} are not fields of {d.params.__name__}")
    params: list[click.Parameter] = [
        click.Argument([name], type=_type(d.params, name, fields[name])) for name in d.arguments
    ]
    for name, info in fields.items():
        if name in d.arguments:
            continue
        if name == "namespace":
            params.append(_shared(NAMESPACE))  # the one --namespace every command has
            continue
        if _plain(info.annotation) is bool:
            params.append(
                click.Option([f"--{name.replace('_', '-')}"], is_flag=True, default=None, help=info.description)
            )
            continue
        default = info.get_default(call_default_factory=True)
        params.append(
            click.Option(
                [f"--{name.replace('_', '-')}", name],
                type=_type(d.params, name, info),
                default=default,  # the model's: what the daemon would take were it not sent
                show_default=default is not None,
                help=info.description,
            )
        )
    return params


def command_for(d: Declared) -> click.Command:
    """The command a declaration with a printer describes."""
    printer = getattr(printers, d.printer or "")

    def run(**values: Any) -> None:
        call(d.name, given(**values), printer=printer)

    leaf = (d.cli or d.name).split()[-1]
    help_text = d.summary + (f"\n\n\b\n    {d.example}" if d.example else "")
    return click.Command(leaf, params=_parameters(d), callback=run, help=help_text)


def add_generated_commands(cli: click.Group) -> None:
    """Every generated command, under its group (``goal`` for "goal add", created by main.py)."""
    for d in METHODS:
        if d.printer is None:
            continue
        path = (d.cli or "").split()
        group: click.Group = cli
        for name in path[:-1]:
            found = group.commands.get(name)
            if not isinstance(found, click.Group):
                raise ValueError(f"{d.name}: `agentmemd {' '.join(path)}` needs the group {name!r}")
            group = found
        group.add_command(command_for(d), path[-1])

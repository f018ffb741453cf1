"""A path given on the command line, as every command takes one."""

from __future__ import annotations

import os
from typing import Any

import click


class HomePath(click.Path):
    """``click.Path`` that reads a leading ``~`` as the home directory, as a shell would: a path
    given quoted, or by a program or a service file, reaches the command as written (``agentmemd
    init '~/agent'`` made a folder named "~")."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, (str, os.PathLike)):
            value = os.path.expanduser(os.fspath(value))
        return super().convert(value, param, ctx)

"""`agentmemd hooks claude-code install | uninstall`: agentmemd inside Claude Code through its
hooks (daemon/claude_code/); `agentmemd hooks openclaw install | uninstall`: agentmemd as
OpenClaw's memory plugin (daemon/openclaw/). These commands translate; the work is there."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from agentmemd.daemon.claude_code import settings as claude_settings
from agentmemd.daemon.claude_code.hooks import DEFAULT_BUDGET
from agentmemd.daemon.cli.calls import Settings, daemon_socket, fail
from agentmemd.daemon.cli.paths import HomePath
from agentmemd.daemon.openclaw import setup as openclaw_setup
from agentmemd.daemon.socket.client import Client
from agentmemd.memory.core.errors import Forbidden
from agentmemd.memory.core.models import NAME_PATTERN


def _namespace(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    # Checked here, not by the daemon at the first hook: a hook's refusal shows only in the host's own log.
    if value is not None and not re.fullmatch(NAME_PATTERN, value):
        raise click.BadParameter(
            f"{value!r} is not a namespace name (1-64 of A-Z a-z 0-9 _ . : @ -, a letter or digit first)"
        )
    return value


NAMESPACE = click.option(
    "--namespace",
    callback=_namespace,
    help="The namespace its memories and conversations are in (default: the daemon's default).",
)


def budget_option(least: int, most: int, help: str):
    """--budget, the tokens of memory a host's prompt gets, within what that host takes."""
    return click.option(
        "--budget",
        "budget_tokens",
        type=click.IntRange(least, most),
        default=DEFAULT_BUDGET,
        show_default=True,
        help=help,
    )


SCOPE = click.option(
    "--scope",
    type=click.Choice(("user", "project", "local")),
    default="user",
    show_default=True,
    help="Which settings: user (~/.claude/settings.json, or $CLAUDE_CONFIG_DIR's), project "
    "(.claude/settings.json, shared with the project) or local (.claude/settings.local.json, this machine's).",
)
SETTINGS_FILE = click.option(
    "--settings",
    "settings_file",
    type=HomePath(dir_okay=False, path_type=Path),
    help="This settings file instead of the scope's.",
)


@click.group("hooks")
def hooks() -> None:
    """Put agentmemd inside the agents you already run, through their hooks.

    \b
        agentmemd hooks claude-code install
        agentmemd hooks claude-code uninstall
        agentmemd hooks openclaw install
        agentmemd hooks openclaw uninstall
    """


@hooks.group("claude-code")
def claude_code() -> None:
    """Claude Code: a memory pack added to the context at a session's start and with each prompt,
    and the session's transcript kept in agentmemd when a turn or the session ends. MCP stays for
    the model's own calls: `claude mcp add agentmemd -- agentmemd mcp`.

    \b
        agentmemd hooks claude-code install
    """


def _target(scope: str, settings_file: Path | None) -> Path:
    return settings_file or claude_settings.settings_path(scope, Path.cwd())  # type: ignore[arg-type]


@claude_code.command()
@SCOPE
@SETTINGS_FILE
@NAMESPACE
@budget_option(
    100, 2000, "Tokens of memory each prompt gets (Claude Code keeps a context under 10,000 characters whole)."
)
@click.pass_context
def install(
    ctx: click.Context, scope: str, settings_file: Path | None, namespace: str | None, budget_tokens: int
) -> None:
    """Write agentmemd's four hooks into Claude Code's settings (again: replaced, not doubled).

    \b
        agentmemd hooks claude-code install
        agentmemd hooks claude-code install --scope project --namespace work
    """
    settings: Settings = ctx.obj
    # The socket found now, written in: Claude Code's environment may not say where it is.
    options = ["--socket", str(daemon_socket(None, settings).resolve())]
    options += (["--namespace", namespace] if namespace else []) + ["--budget", str(budget_tokens)]
    try:
        change = claude_settings.install(_target(scope, settings_file), sys.executable, options)
    except claude_settings.SettingsError as exc:
        fail(str(exc), 1)
    click.echo(f"{change.path}: agentmemd's hooks for {', '.join(change.written)}")
    for other in claude_settings.other_scopes_with_ours(change.path, Path.cwd()):
        click.echo(
            f"note: {other.path} ({other.scope} scope) has agentmemd's hooks too: Claude Code runs every "
            "scope's hooks, so each prompt would get two packs and each session be kept twice; "
            f"`agentmemd hooks claude-code uninstall --scope {other.scope}` takes those out",
            err=True,
        )


@claude_code.command()
@SCOPE
@SETTINGS_FILE
def uninstall(scope: str, settings_file: Path | None) -> None:
    """Take agentmemd's hooks out of Claude Code's settings; every other hook and key stays.

    \b
        agentmemd hooks claude-code uninstall
        agentmemd hooks claude-code uninstall --scope project
    """
    try:
        change = claude_settings.uninstall(_target(scope, settings_file))
    except claude_settings.SettingsError as exc:
        fail(str(exc), 1)
    click.echo(
        f"{change.path}: {change.removed} of agentmemd's hooks removed"
        if change.removed
        else f"{change.path}: no hooks of agentmemd's"
    )


@hooks.group("openclaw")
def openclaw() -> None:
    """OpenClaw: agentmemd as its memory plugin (plugins.slots.memory). A memory pack before each
    prompt, each run's turns kept in agentmemd, and OpenClaw's memory_search and memory_get tools
    answered from agentmemd. Its workspace and agentmemd's are best one folder.

    \b
        agentmemd hooks openclaw install
    """


OPENCLAW_COMMAND = click.option(
    "--openclaw", "openclaw_command", metavar="PATH", help="The openclaw command (default: the one on PATH)."
)


@openclaw.command("install")
@OPENCLAW_COMMAND
@NAMESPACE
@budget_option(50, 8000, "Tokens of memory added before each prompt.")
@click.pass_context
def openclaw_install(
    ctx: click.Context, openclaw_command: str | None, namespace: str | None, budget_tokens: int
) -> None:
    """Install agentmemd's plugin into OpenClaw (linked, so upgrading agentmemd upgrades it) and
    select it as OpenClaw's memory; again: replaced, not doubled. With --token, the plugin uses
    that access token.

    \b
        agentmemd hooks openclaw install
        agentmemd hooks openclaw install --namespace home --budget 1200
    """
    settings: Settings = ctx.obj
    socket = daemon_socket(None, settings).resolve()
    try:
        tool = openclaw_setup.OpenClaw.find(openclaw_command)
        done = openclaw_setup.install(
            tool, openclaw_setup.plugin_config(socket, namespace, budget_tokens, settings.token)
        )
        theirs = openclaw_setup.workspace_of(tool)
    except openclaw_setup.OpenClawError as exc:
        fail(str(exc), 1)
    for line in done:
        click.echo(line)
    click.echo(_workspace_advice(socket, settings.token, theirs))


def _workspace_advice(socket: Path, token: str | None, theirs: Path) -> str:
    """Whether agentmemd's workspace is OpenClaw's, and how to make it so."""
    fix = (
        f"point agentmemd at it: `agentmemd serve --workspace {theirs}` "
        f'or [workspace] path = "{theirs}" in its agentmemd.toml'
    )
    try:
        with Client(socket, timeout=10, token=token) as agentmemd:
            ours = agentmemd.call("workspace.status").get("root")
    except Forbidden as exc:  # the token does not reach the namespace the workspace's items are in
        return (
            f"agentmemd's workspace items are in a namespace this token does not reach ({exc.message}): the "
            "plugin's searches will not find MEMORY.md or USER.md; give a token that reaches it, or set "
            "[workspace] namespace in agentmemd.toml to the plugin's namespace"
        )
    except Exception as exc:  # the plugin is installed either way; this is advice
        return f"OpenClaw's workspace is {theirs}; agentmemd at {socket} did not say its own ({exc}): {fix}"
    if ours and Path(ours).resolve() == theirs.resolve():
        return f"workspace: agentmemd indexes OpenClaw's {theirs} (one set of SOUL.md, USER.md, MEMORY.md)"
    return f"OpenClaw's workspace is {theirs}, agentmemd's is {ours or 'none'}: {fix}"


@openclaw.command("uninstall")
@OPENCLAW_COMMAND
def openclaw_uninstall(openclaw_command: str | None) -> None:
    """Take agentmemd's plugin out of OpenClaw: OpenClaw removes its entries and gives the memory
    slot back to its own memory-core.

    \b
        agentmemd hooks openclaw uninstall
    """
    try:
        openclaw_setup.uninstall(openclaw_setup.OpenClaw.find(openclaw_command))
    except openclaw_setup.OpenClawError as exc:
        fail(str(exc), 1)
    click.echo("OpenClaw: agentmemd's plugin uninstalled; its memory slot is memory-core again")

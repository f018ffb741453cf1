"""`agentmemd hooks claude-code install | uninstall | run`: agentmemd inside Claude Code through its
hooks (daemon/claude_code/). These commands translate; the work is there."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from agentmemd.daemon.claude_code import settings as claude_settings
from agentmemd.daemon.claude_code.hooks import DEFAULT_BUDGET
from agentmemd.daemon.cli.calls import Settings, daemon_socket, fail

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
    type=click.Path(dir_okay=False, path_type=Path),
    help="This settings file instead of the scope's.",
)


@click.group("hooks")
def hooks() -> None:
    """Put agentmemd inside the agents you already run, through their hooks.

    \b
        agentmemd hooks claude-code install
        agentmemd hooks claude-code uninstall
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
@click.option("--namespace", help="The namespace its memories and transcripts are in (default: the daemon's default).")
@click.option(
    "--budget",
    "budget_tokens",
    type=click.IntRange(100, 2000),
    default=DEFAULT_BUDGET,
    show_default=True,
    help="Tokens of memory each prompt gets (Claude Code keeps a context under 10,000 characters whole).",
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

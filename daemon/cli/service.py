"""`agentmemd service install | uninstall | status | logs`: the daemon as a background service of
the user's (a systemd user unit on Linux, a launchd agent on macOS), installed once. The work is
in daemon/system_service/; these commands print what it did."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any, Callable

import click
from pydantic import BaseModel

from agentmemd.daemon.cli.calls import fail
from agentmemd.daemon.cli.paths import HomePath
from agentmemd.daemon.host.door_children import configured_doors
from agentmemd.daemon.socket.client import Client, RpcCallError
from agentmemd.daemon.system_service import manager
from agentmemd.daemon.system_service.models import InstallReport, ServiceStatus, UninstallReport
from agentmemd.memory.core.config import load_config
from agentmemd.memory.core.errors import ConfigError, ServiceError

HEALTH_TIMEOUT = 5.0  # seconds `status` waits for the daemon's answer
NOT_RUNNING = 3  # the CLI's exit code for "no daemon answers"


def ask_health(socket: Path) -> Any:
    """The daemon's `health` on ``socket`` (ServiceError when nothing answers there)."""
    try:
        with Client(socket, timeout=HEALTH_TIMEOUT) as client:
            return client.call("health")
    except TimeoutError:
        raise ServiceError(f"no answer on {socket} within {HEALTH_TIMEOUT:g} s") from None
    except (ConnectionError, RpcCallError) as exc:
        raise ServiceError(str(exc)) from None


def _show(report: BaseModel, printer: Callable[[Any], None]) -> None:
    """For a person, or as JSON with --json."""
    if click.get_current_context().obj.as_json:
        click.echo(json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        printer(report)


@click.group("service")
def service() -> None:
    """The daemon as a background service of yours: a systemd user unit (Linux) or a launchd
    agent (macOS) that runs `agentmemd serve` when you log in and again if it fails.

    \b
        agentmemd service install
        agentmemd service status
    """


@service.command()
@click.option(
    "--data-dir",
    type=HomePath(file_okay=False, path_type=Path),
    help="Where the database lives (default: the installed service's, else $XDG_DATA_HOME/agentmemd, i.e. "
    "~/.local/share/agentmemd; macOS: ~/Library/Application Support/agentmemd).",
)
@click.option(
    "--workspace",
    type=HomePath(file_okay=False, path_type=Path),
    help="A Markdown workspace to index, an existing directory (default: the installed service's, else the "
    "config's [workspace] path).",
)
@click.option(
    "--config",
    type=HomePath(dir_okay=False, path_type=Path),
    help="The config it runs with, written from the defaults if absent, never overwritten (default: the "
    "installed service's, else $XDG_CONFIG_HOME/agentmemd/agentmemd.toml; macOS: in the data dir).",
)
@click.option("--no-start", is_flag=True, help="Write the files only; start nothing.")
@click.option("--print", "print_only", is_flag=True, help="Print the unit (macOS: the plist); write and run nothing.")
def install(data_dir: Path | None, workspace: Path | None, config: Path | None, no_start: bool, print_only: bool):
    """Install the daemon as your service and start it. Run it again to upgrade: it rewrites its
    own unit in place (keeping the places it names unless given new ones) and restarts the
    daemon; it refuses to replace a unit it did not write.

    \b
        agentmemd service install
        agentmemd service install --workspace ~/agent/workspace --no-start
        agentmemd service install --print
    """
    try:
        places, runner = manager.this_machine()
        before = manager.installed(places, runner)
        spec = manager.plan(places, data_dir=data_dir, workspace=workspace, config=config, before=before)
        if spec.config.exists():  # a door's listen address the daemon would refuse as it starts
            configured_doors(load_config(spec.config), spec.socket, spec.data_dir)
        if print_only:
            click.echo(manager.service_manager(places, runner).render(spec).decode(), nl=False)
            return
        report = manager.install(places, runner, spec, start=not no_start)
    except ConfigError as exc:
        fail(f"{exc} (nothing written)", 2)
    except ServiceError as exc:
        fail(str(exc), 1)
    _show(report, _print_install)


def _print_install(report: InstallReport) -> None:
    spec = report.spec
    said = {"installed": "installed", "upgraded": "upgraded in place", "unchanged": "already installed, unchanged"}
    click.echo(f"{said[report.action]}: {report.service_file}")
    rows = {
        "runs": shlex.join(spec.argv()),
        "data dir": spec.data_dir,
        "socket": f"{spec.socket} (agentmemd commands find it without --socket)",
        "config": f"{spec.config} ({'written with the defaults' if report.config_written else 'there already, left as it was'})",
        "workspace": spec.workspace or "the config's [workspace] path, if any",
        "log": report.log,
    }
    for key, value in rows.items():
        click.echo(f"  {key:<10} {value}")
    for argv in report.commands:
        click.echo(f"ran {shlex.join(argv)}")
    if report.started:
        click.echo("check it: agentmemd service status")
    else:
        click.echo("not started (--no-start): `agentmemd service install` starts it")
    for note in report.notes:
        click.echo(note)


@service.command()
def uninstall() -> None:
    """Stop the service and remove its unit (only one `install` wrote); the data dir and the
    config stay where they are.

    \b
        agentmemd service uninstall
    """
    try:
        places, runner = manager.this_machine()
        report = manager.uninstall(places, runner)
    except ServiceError as exc:
        fail(str(exc), 1)
    _show(report, _print_uninstall)


def _print_uninstall(report: UninstallReport) -> None:
    if not report.removed:
        click.echo(f"not installed ({report.service_file} is not there): nothing to remove")
        return
    for argv in report.commands:
        click.echo(f"ran {shlex.join(argv)}")
    for problem in report.problems:
        click.echo(f"warning: {problem}", err=True)
    click.echo(f"removed {report.service_file}")
    for path in report.kept:
        click.echo(f"kept {path} (delete it yourself to forget it)")


@service.command()
def status() -> None:
    """Is the service installed and running? Its pid, version, model, places and doors, and the
    last error in its log. Exit 0 running, 3 not installed, not running or not answering, 1 when
    the service manager cannot be asked (what the socket says is shown all the same).

    \b
        agentmemd service status
    """
    try:
        places, runner = manager.this_machine()
        report = manager.status(places, runner, ask_health)
    except ServiceError as exc:
        fail(str(exc), 1)
    _show(report, _print_status)
    if report.manager_problem:
        fail(report.manager_problem, 1)
    if not (report.running and report.reachable):
        click.get_current_context().exit(NOT_RUNNING)


def _print_status(report: ServiceStatus) -> None:
    said = f"running ({report.manager} says {report.state}, pid {report.pid})" if report.reachable else ""
    click.echo(f"agentmemd service: {report.problem or said}")
    label = {"systemd": "unit", "launchd": "agent", "detached": "runs"}[report.manager]
    rows: dict[str, Any] = {label: report.service_file}
    health, spec = report.health, report.spec
    if health is not None:
        rows |= {"version": health.version, "model": health.status + (f": {health.detail}" if health.detail else "")}
        rows["memories"] = (
            f"{health.memories:,}" if health.memories is not None else "unknown: the store is unavailable"
        ) + (f" (catching up: {', '.join(health.catching_up)})" if health.catching_up else "")
        if health.process:
            rows["started"] = health.process.started
    if spec is not None:
        rows |= {"socket": spec.socket, "data dir": spec.data_dir, "config": spec.config}
        rows["workspace"] = spec.workspace or "the config's [workspace] path, if any"
    if health and health.process:
        rows["workspace"] = health.process.workspace or "none"
        for door in health.process.doors:
            state = "running" if door.running else "stopped"
            rows[door.name] = f"{door.url} (pid {door.pid}, {state}" + (f"; log {door.log})" if door.log else ")")
    rows["log"] = report.log
    if report.installed:
        rows["last error"] = report.last_error or report.log_unreadable or "none"
    for key, value in rows.items():
        click.echo(f"  {key:<10} {value}")
    if report.hint:
        click.echo(f"start it: {report.hint}" if report.installed else f"install it: {report.hint}")


@service.command()
def start() -> None:
    """Start the installed service (without a service manager: as a detached daemon, which is what
    to put in ~/.profile to start it when you log in).

    \b
        agentmemd service start
    """
    _start_or_stop(start=True)


@service.command()
def stop() -> None:
    """Stop the installed service; `agentmemd service start` starts it again.

    \b
        agentmemd service stop
    """
    _start_or_stop(start=False)


def _start_or_stop(start: bool) -> None:
    try:
        places, runner = manager.this_machine()
        name, commands = manager.start_or_stop(places, runner, start)
    except ServiceError as exc:
        fail(str(exc), 1)
    for argv in commands:
        click.echo(f"ran {shlex.join(argv)}")
    if not commands:
        click.echo("already running" if start else "not running")
    elif name == "detached" and start:
        click.echo("started; check it: agentmemd service status")


@service.command()
@click.option(
    "--lines", "-n", type=click.IntRange(0), default=50, show_default=True, help="Show this many lines first."
)
@click.option("--no-follow", is_flag=True, help="Print them and stop (default: follow new lines until Ctrl-C).")
def logs(lines: int, no_follow: bool) -> None:
    """Its log lines (JSON, one per line), followed as they come.

    \b
        agentmemd service logs --lines 100 --no-follow
    """
    try:
        places, runner = manager.this_machine()
        code = manager.logs(places, runner, lines, follow=not no_follow)
    except ServiceError as exc:
        fail(str(exc), 1)
    if code:
        click.get_current_context().exit(code)

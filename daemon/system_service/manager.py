"""`agentmemd service install | uninstall | status | logs`, for systemd (Linux) and launchd
(macOS) alike: the platform's ``Systemd`` or ``Launchd`` writes and reads the service file and
names the commands, a ``Runner`` runs them. Nothing here talks to the daemon's socket: `status`
is handed the function that asks it for `health` (the CLI's socket client)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

from agentmemd.daemon.system_service.detached import Detached
from agentmemd.daemon.system_service.launchd import Launchd
from agentmemd.daemon.system_service.models import InstallReport, ServiceSpec, ServiceStatus, UninstallReport
from agentmemd.daemon.system_service.places import Places, current_places
from agentmemd.daemon.system_service.runner import Runner
from agentmemd.daemon.system_service.systemd import Systemd
from agentmemd.memory.core.config import load_config
from agentmemd.memory.core.errors import ServiceError
from agentmemd.memory.core.models import HealthResult
from agentmemd.memory.workspace.template import write_default_config

ERROR_LEVELS = ("error", "critical")
LOG_LINES_SEARCHED = 500  # the last error is looked for among this many lines of its log
UNIT_MODE = 0o644  # systemd and launchd read it; only its owner writes it
PRIVATE_DIR = 0o700


Manager = Systemd | Launchd | Detached


def service_manager(places: Places, runner: Runner) -> Manager:
    """The service manager of this machine: launchd on macOS; on Linux the one the installed service
    uses, else systemd where a user manager answers, else none (a detached daemon)."""
    if places.platform != "linux":
        return Launchd(places, runner)
    systemd = Systemd(places, runner)
    assert places.detached_file is not None
    if places.service_file.exists():
        return systemd
    if places.detached_file.exists():
        return Detached(places, runner, "installed so")
    missing = systemd.usable()
    return systemd if missing is None else Detached(places, runner, missing)


def this_machine() -> tuple[Places, Runner]:
    """This machine's places and a runner of its service manager's commands (what tests replace)."""
    return current_places(), Runner()


def installed(places: Places, runner: Runner) -> ServiceSpec | None:
    """What the installed service runs, when `install` wrote its unit (else None)."""
    manager = service_manager(places, runner)
    target = manager.service_file
    content = target.read_bytes() if target.exists() else b""
    return manager.read(content) if manager.owned(content) else None


def plan(
    places: Places,
    *,
    data_dir: Path | None = None,
    workspace: Path | None = None,
    config: Path | None = None,
    program: list[str] | None = None,
    before: ServiceSpec | None = None,
) -> ServiceSpec:
    """What the service will run, by the interpreter running this: the places given (absolute),
    else those of the service installed ``before`` (a re-install keeps them), else the
    platform's defaults. ServiceError for a workspace that is not a directory, ConfigError for
    a config that is there but invalid (nothing is written either way)."""
    if not sys.executable and program is None:
        raise ServiceError("cannot tell which Python runs agentmemd (sys.executable is empty)")
    if before is not None:
        data_dir, workspace, config = (
            data_dir or before.data_dir,
            workspace or before.workspace,
            config or before.config,
        )
    chosen_workspace = Path(workspace).expanduser().absolute() if workspace else None
    if chosen_workspace is not None and not chosen_workspace.is_dir():
        raise ServiceError(
            f"workspace {chosen_workspace} is not a directory (make one with `agentmemd init {chosen_workspace}`)"
        )
    config_path = Path(config).expanduser().absolute() if config else places.config
    chosen_data_dir = Path(data_dir).expanduser().absolute() if data_dir else places.data_dir
    if config_path.exists():
        # A person's config is used as it is: refuse one the daemon would refuse, its workspace too
        # (the CLI checks its doors' listen addresses: daemon/host's).
        loaded = load_config(config_path)
        named = loaded.workspace.path
        if chosen_workspace is None and named and not Path(named).expanduser().is_dir():
            raise ServiceError(
                f"{config_path}: [workspace] path {named} is not a directory (make one with `agentmemd init "
                f"{named}`, or correct the path)"
            )
    return ServiceSpec(
        program=program or [sys.executable, "-m", "agentmemd.daemon.cli"],
        data_dir=chosen_data_dir,
        socket=places.socket,
        config=config_path,
        workspace=chosen_workspace,
        runtime_dir=places.runtime_dir,
    )


def install(places: Places, runner: Runner, spec: ServiceSpec, *, start: bool = True) -> InstallReport:
    """Write the config (if absent), the data dir and the service file, then start it (unless
    ``start`` is False). Re-run, it rewrites its own file in place when it changed and restarts
    the daemon; a service file it did not write is refused, with nothing changed."""
    manager = service_manager(places, runner)
    content = manager.render(spec)
    target = manager.service_file
    existing = target.read_bytes() if target.exists() else None
    if existing is not None and not manager.owned(existing):
        raise ServiceError(
            f"{target} is there and was not written by `agentmemd service install`; nothing changed "
            "(move it away to install agentmemd's, or keep running yours)"
        )
    if start and manager.tool is not None and not runner.has(manager.tool):
        raise ServiceError(
            f"{manager.tool} not found, so there is no {manager.name} to run the service; nothing changed "
            "(--no-start writes the files only)"
        )
    action = "installed" if existing is None else "unchanged" if existing == content else "upgraded"
    folders = [spec.data_dir, spec.config.parent]
    if spec.socket.parent != spec.runtime_dir:  # systemd makes the runtime dir itself, at each start
        folders.append(spec.socket.parent)
    if manager.log_file is not None:
        folders.append(manager.log_file.parent)
    for folder in folders:
        _private_dir(folder)
    config_written = write_default_config(spec.config) is not None
    if action != "unchanged":
        _write(target, content)
    try:
        commands = manager.start(action) if start else []
    except ServiceError as exc:
        raise ServiceError(
            f"{exc}. {target} is written: run `agentmemd service install` again once that works"
        ) from None
    return InstallReport(
        manager=manager.name,
        service_file=target,
        action=action,
        spec=spec,
        config_written=config_written,
        started=start,
        commands=commands,
        log=manager.log_place(),
        notes=manager.notes(),
    )


def uninstall(places: Places, runner: Runner) -> UninstallReport:
    """Stop and disable the service and remove its file, only if `install` wrote it; the data
    dir and the config stay. A service manager that cannot be asked (systemctl gone, no user
    manager) does not keep the file: it is removed all the same, and the report says what failed."""
    manager = service_manager(places, runner)
    target = manager.service_file
    if not target.exists():
        return UninstallReport(manager=manager.name, service_file=target, removed=False, commands=[])
    content = target.read_bytes()
    if not manager.owned(content):
        raise ServiceError(
            f"{target} was not written by `agentmemd service install`; it is left as it is (remove it yourself)"
        )
    spec = manager.read(content)
    problems: list[str] = []
    try:
        commands = manager.stop()
    except ServiceError as exc:
        commands, problems = [], [f"could not stop it: {exc}"]
    target.unlink()
    try:
        commands += manager.forget()
    except ServiceError as exc:
        problems.append(str(exc))
    kept = [path for path in (spec.data_dir, spec.config) if path.exists()]
    return UninstallReport(
        manager=manager.name, service_file=target, removed=True, commands=commands, kept=kept, problems=problems
    )


def start_or_stop(places: Places, runner: Runner, start: bool) -> tuple[str, list[list[str]]]:
    """`service start` / `service stop` of the installed service: (its manager, what was run)."""
    manager = service_manager(places, runner)
    if not manager.service_file.exists():
        raise ServiceError(f"not installed ({manager.service_file} is not there): agentmemd service install")
    return manager.name, manager.start_now() if start else manager.stop_now()


def status(places: Places, runner: Runner, ask_health: Callable[[Path], Any]) -> ServiceStatus:
    """Installed? Running (the service manager's word and pid)? Answering on its socket (``health``:
    version, model, doors)? And the last error its log holds. ``ask_health`` raises ServiceError
    when the socket does not answer."""
    manager = service_manager(places, runner)
    target = manager.service_file
    report = ServiceStatus(
        manager=manager.name, service_file=target, installed=target.exists(), state="not installed", running=False,
        reachable=False, log=manager.log_place(),
    )  # fmt: skip
    if not report.installed:
        report.problem = f"not installed ({target} is not there)"
        report.hint = "agentmemd service install"
        return report
    report.spec = manager.read(target.read_bytes())
    try:
        report.state, report.running, report.pid = manager.state()
    except ServiceError as exc:
        report.state, report.manager_problem = "unknown", str(exc)
    try:
        report.health = HealthResult.model_validate(ask_health(report.spec.socket))
        report.reachable = True
    except ServiceError as exc:
        report.problem = (
            f"{manager.name} says {report.state}, but its socket does not answer: {exc}"
            if report.running
            else f"not running ({manager.name} says {report.state})"
        )
    answered = report.health.process if report.health else None
    if report.manager_problem:
        report.problem = f"{manager.name} cannot be asked" + (
            f"; pid {answered.pid} answers on its socket" if answered else "; its socket does not answer"
        )
    elif answered and not report.running:
        report.problem = f"not running ({manager.name} says {report.state}); pid {answered.pid} answers on its socket"
    report.pid = report.pid or (answered.pid if answered else None)
    try:
        report.last_error = last_error(manager.log_lines(LOG_LINES_SEARCHED))
    except ServiceError as exc:
        report.log_unreadable = str(exc)
    if not report.running and not report.manager_problem:
        report.hint = manager.start_hint()
    return report


def last_error(lines: list[str]) -> str | None:
    """The last line that reports an error: a JSON log line at level error or critical, or the
    plain `agentmemd: …` line a daemon that refused to start prints."""
    for line in reversed(lines):
        text = line.strip()
        if text.startswith("agentmemd: "):
            return text
        if text.startswith("{"):
            try:
                entry = json.loads(text)
            except ValueError:
                continue
            if isinstance(entry, dict) and entry.get("level") in ERROR_LEVELS:
                return text
    return None


def logs(places: Places, runner: Runner, lines: int, follow: bool) -> int:
    """Show its log (following it until Ctrl-C unless ``follow`` is False); the exit code."""
    manager = service_manager(places, runner)
    argv = manager.follow(lines, follow)
    if not runner.has(argv[0]):
        raise ServiceError(f"{argv[0]} not found: the log is {manager.log_place()}")
    if manager.log_file is not None and not manager.log_file.exists():
        raise ServiceError(f"no log yet at {manager.log_file}")
    if manager.log_file is not None:
        print(f"{manager.log_file}:", file=sys.stderr)  # where it is, before what it says
    return runner.attach(argv)


def _private_dir(path: Path) -> None:
    """Make a directory the service needs; a new one is its owner's alone."""
    if not path.is_dir():
        path.mkdir(parents=True, mode=PRIVATE_DIR)
        os.chmod(path, PRIVATE_DIR)


def _write(path: Path, content: bytes) -> None:
    """Replace ``path`` at once (a half-written unit is never read), mode 0644."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, UNIT_MODE), "wb") as out:
        os.fchmod(out.fileno(), UNIT_MODE)  # whatever the umask
        out.write(content)
    os.replace(temporary, path)

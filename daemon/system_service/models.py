"""What `agentmemd service` writes to disk (a ``ServiceSpec``, as a unit or a plist) and what its
commands report (printed for a person, or as JSON with --json)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from agentmemd.memory.core.errors import ServiceError
from agentmemd.memory.core.models import HealthResult


class ServiceSpec(BaseModel):
    """What the service runs: `PROGRAM serve --data-dir … --socket … --config … [--workspace …]`."""

    program: list[str]  # the interpreter that installed it, `-m agentmemd.daemon.cli`: any install works
    data_dir: Path
    socket: Path
    config: Path
    workspace: Path | None = None
    runtime_dir: Path | None = None  # systemd makes it (and removes it, the socket with it, on stop)

    def argv(self) -> list[str]:
        places = ["--data-dir", str(self.data_dir), "--socket", str(self.socket), "--config", str(self.config)]
        return [*self.program, "serve", *places, *(["--workspace", str(self.workspace)] if self.workspace else [])]

    @classmethod
    def from_argv(cls, argv: list[str], source: Path) -> "ServiceSpec":
        """The spec of the command line ``argv`` writes (ServiceError naming ``source`` if it is not one)."""
        if "serve" not in argv:
            raise ServiceError(f"{source} does not run `agentmemd serve`")
        at = argv.index("serve")
        options = dict(zip(argv[at + 1 :: 2], argv[at + 2 :: 2]))
        missing = [o for o in ("--data-dir", "--socket", "--config") if o not in options]
        if missing:
            raise ServiceError(f"{source} runs `agentmemd serve` without {', '.join(missing)}")
        return cls(
            program=argv[:at],
            data_dir=options["--data-dir"],
            socket=options["--socket"],
            config=options["--config"],
            workspace=options.get("--workspace"),
        )


Action = Literal["installed", "upgraded", "unchanged"]


class InstallReport(BaseModel):
    manager: Literal["systemd", "launchd", "detached"]
    service_file: Path
    action: Action  # installed: new; upgraded: rewritten in place; unchanged: already as it would be written
    spec: ServiceSpec
    config_written: bool  # False: a config was there and was left as it was
    started: bool  # False with --no-start: only the files were written
    commands: list[list[str]]  # what it ran, in order
    log: str  # where its log lines go
    notes: list[str] = []  # lines for a person: what happens at login and boot


class UninstallReport(BaseModel):
    manager: Literal["systemd", "launchd", "detached"]
    service_file: Path
    removed: bool  # False: nothing was installed
    commands: list[list[str]]
    kept: list[Path] = []  # the data dir and the config, left for the person to keep or delete
    problems: list[str] = []  # what the service manager could not do (its file is removed all the same)


class ServiceStatus(BaseModel):
    manager: Literal["systemd", "launchd", "detached"]
    service_file: Path
    installed: bool
    state: str  # the service manager's word: active, inactive, failed, activating (systemd); running, ... (launchd)
    running: bool  # the service manager says it runs
    reachable: bool  # and its socket answered `health`
    pid: int | None = None
    spec: ServiceSpec | None = None  # read back from the installed file
    health: HealthResult | None = None
    problem: str | None = None  # why it is not running or not reachable, in a line
    last_error: str | None = None  # the last error line of its log
    log_unreadable: str | None = None  # why its log could not be read (journalctl missing, ...)
    log: str  # where its log lines go
    hint: str | None = None  # what to run next
    # Why the service manager could not be asked (no user manager under su or sudo, no systemctl):
    # what the socket says is still reported beside it.
    manager_problem: str | None = None

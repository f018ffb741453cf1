"""The launchd agent (macOS): ~/Library/LaunchAgents/dev.agentmemd.plist, loaded into the
user's GUI domain (`launchctl bootstrap gui/UID`), its output in ~/Library/Logs/agentmemd/."""

from __future__ import annotations

import os
import plistlib
import re
from xml.parsers.expat import ExpatError

from agentmemd.daemon import __version__
from agentmemd.daemon.system_service.models import Action, ServiceSpec
from agentmemd.daemon.system_service.places import LAUNCHD_LABEL, Places
from agentmemd.daemon.system_service.runner import MISSING, Runner, run_each
from agentmemd.memory.core.errors import ServiceError

# plistlib writes no comments: this one goes in after the DOCTYPE, and marks a file install wrote.
MARK = "<!-- Written by `agentmemd service install`"
LAUNCHCTL = "launchctl"
LOG_TAIL_BYTES = 256 * 1024  # enough for the last error line of its log


class Launchd:
    name = "launchd"
    tool = LAUNCHCTL

    def __init__(self, places: Places, runner: Runner, uid: int | None = None):
        self.places, self.runner = places, runner
        self.domain = f"gui/{os.getuid() if uid is None else uid}"
        self.target = f"{self.domain}/{LAUNCHD_LABEL}"
        self.service_file = places.service_file
        self.log_file = places.log_file

    # ---- the file

    def render(self, spec: ServiceSpec) -> bytes:
        assert self.places.log_file is not None
        agent = {
            "Label": LAUNCHD_LABEL,
            "ProgramArguments": spec.argv(),
            "RunAtLoad": True,
            "KeepAlive": {"SuccessfulExit": False},  # started again after a crash, not after a clean stop
            "EnvironmentVariables": {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
            "Umask": 0o077,  # memories are private
            "StandardOutPath": str(self.places.log_file),
            "StandardErrorPath": str(self.places.log_file),
            "ProcessType": "Background",
            "ExitTimeOut": 60,  # it closes the database on SIGTERM; SIGKILL only after this
        }
        xml = plistlib.dumps(agent, fmt=plistlib.FMT_XML, sort_keys=False).decode()
        comment = (
            f"{MARK} (agentmemd {__version__}): run it again to upgrade this file in place;\n"
            "     `agentmemd service uninstall` removes it (never the data dir or the config). -->\n"
        )
        head, _, body = xml.partition("<plist")
        return (head + comment + "<plist" + body).encode()

    @staticmethod
    def owned(content: bytes) -> bool:
        return MARK.encode() in content[:1024]

    def read(self, content: bytes) -> ServiceSpec:
        """What an installed agent runs (ServiceError for a plist `install` did not write)."""
        source = self.places.service_file
        if not self.owned(content):
            raise ServiceError(f"{source} was not written by `agentmemd service install`")
        try:
            agent = plistlib.loads(content)
        except (plistlib.InvalidFileException, ExpatError, ValueError) as exc:
            raise ServiceError(f"{source} is not a readable plist: {exc}") from None
        return ServiceSpec.from_argv([str(a) for a in agent.get("ProgramArguments", [])], source)

    # ---- the service manager

    def loaded(self) -> bool:
        done = self.runner.run([LAUNCHCTL, "print", self.target])
        if done.code == MISSING:
            raise ServiceError("launchctl not found: `agentmemd service` needs macOS's launchd")
        return done.code == 0

    def start(self, action: Action) -> list[list[str]]:
        plist = str(self.places.service_file)
        if not self.loaded():  # enable clears a `launchctl disable` left from before, which bootstrap obeys
            commands = [[LAUNCHCTL, "enable", self.target], [LAUNCHCTL, "bootstrap", self.domain, plist]]
        elif action == "unchanged":  # loaded as written: start it if it is not running
            commands = [[LAUNCHCTL, "kickstart", self.target]]
        else:  # launchd reads a plist when it is bootstrapped: out with the old, in with the new
            commands = [[LAUNCHCTL, "bootout", self.target], [LAUNCHCTL, "bootstrap", self.domain, plist]]
        return run_each(self.runner, commands)

    def stop(self) -> list[list[str]]:
        return run_each(self.runner, [[LAUNCHCTL, "bootout", self.target]]) if self.loaded() else []

    def forget(self) -> list[list[str]]:
        return []  # bootout already unloaded it

    def start_now(self) -> list[list[str]]:
        return self.start("unchanged")

    def stop_now(self) -> list[list[str]]:
        return self.stop()  # launchd would start a KeepAlive agent again: it is unloaded until the next start

    def state(self) -> tuple[str, bool, int | None]:
        done = self.runner.run([LAUNCHCTL, "print", self.target])
        if done.code == MISSING:
            raise ServiceError("launchctl not found: `agentmemd service` needs macOS's launchd")
        if done.code != 0:
            return "not loaded", False, None
        # Its own keys are indented once; nested dictionaries (endpoints, ...) have states of their own.
        state = re.search(r"(?m)^\tstate = (.+)$", done.stdout)
        pid = re.search(r"(?m)^\tpid = (\d+)$", done.stdout)
        word = state.group(1).strip() if state else "loaded"
        return word, word == "running", int(pid.group(1)) if pid else None

    def log_lines(self, count: int) -> list[str]:
        log = self.places.log_file
        assert log is not None
        if not log.exists():
            return []
        with log.open("rb") as f:
            f.seek(max(0, log.stat().st_size - LOG_TAIL_BYTES))
            return f.read().decode(errors="replace").splitlines()[-count:]

    def follow(self, lines: int, follow: bool) -> list[str]:
        return ["tail", "-n", str(lines), *(["-F"] if follow else []), str(self.places.log_file)]

    def log_place(self) -> str:
        return str(self.places.log_file)

    def start_hint(self) -> str:
        return f"launchctl kickstart {self.target}"

    def notes(self) -> list[str]:
        return ["launchd starts it when you log in (RunAtLoad) and again if it crashes (KeepAlive)."]

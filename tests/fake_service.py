"""Stand-ins for systemctl/journalctl and launchctl/tail: recorders that keep the state the real
tools keep and refuse what they would refuse (a unit not loaded, a unit changed on disk without a
daemon-reload, a second bootstrap, a bootout of nothing, a call to the system manager), so a test
of `agentmemd service` fails when it asks the service manager for something that would fail."""

from __future__ import annotations

import configparser
import plistlib
from pathlib import Path

from agentmemd.daemon.system_service.places import LAUNCHD_LABEL, Places
from agentmemd.daemon.system_service.runner import MISSING, Ran, Runner


class FakeRunner(Runner):
    """Records every command; ``programs`` are the ones installed."""

    def __init__(self, programs: set[str]):
        self.programs = set(programs)
        self.calls: list[list[str]] = []
        self.attached: list[list[str]] = []

    def has(self, program: str) -> bool:
        return program in self.programs

    def run(self, argv: list[str]) -> Ran:
        self.calls.append(list(argv))
        if not self.has(argv[0]):
            return Ran(MISSING, stderr=f"{argv[0]}: command not found")
        return self.answer(argv)

    def attach(self, argv: list[str]) -> int:
        self.attached.append(list(argv))
        return 0 if self.has(argv[0]) else MISSING

    def answer(self, argv: list[str]) -> Ran:
        raise NotImplementedError


class FakeSystemd(FakeRunner):
    """The user's systemd: unit files are read from the unit dir at daemon-reload only."""

    def __init__(self, places: Places, programs: set[str] = frozenset({"systemctl", "journalctl"})):
        super().__init__(programs)
        self.unit_dir = places.service_file.parent
        self.loaded: dict[str, bytes] = {}  # unit name -> the file as systemd read it
        self.enabled: set[str] = set()
        self.active: set[str] = set()
        self.pid = 4242  # the main pid systemctl show reports while active
        self.journal: list[str] = []

    def run(self, argv: list[str]) -> Ran:
        if argv[1:] == ["--user", "show-environment"] and self.has(argv[0]):
            return self.answer(argv)  # a question asked before anything is done: not among the calls
        return super().run(argv)

    def answer(self, argv: list[str]) -> Ran:
        if argv[0] == "journalctl":
            if argv[1:5] != ["--user", "-u", "agentmemd.service", "-o"]:
                return Ran(1, stderr=f"unexpected journalctl call {argv}")
            return Ran(0, "".join(line + "\n" for line in self.journal))
        if argv[1:2] != ["--user"]:
            return Ran(1, stderr="the system manager: `agentmemd service` must only use systemctl --user")
        verb, args = argv[2], [a for a in argv[3:] if not a.startswith("-")]
        if verb == "show-environment":  # what tells a user manager is there to talk to
            return Ran(0, "HOME=/home/ana\n")
        if verb == "daemon-reload":
            self.loaded = {p.name: p.read_bytes() for p in self.unit_dir.glob("*.service")}
            self.enabled &= set(self.loaded)
            return Ran(0)
        unit = self._unit(args[0])
        if verb in ("enable", "start", "restart"):
            return self._start(verb, unit, "--now" in argv)
        if verb == "disable":
            if not (self.unit_dir / unit).exists():
                return Ran(1, stderr=f"Failed to disable unit: Unit file {unit} does not exist.")
            self.enabled.discard(unit)
            if "--now" in argv:
                self.active.discard(unit)
            return Ran(0)
        if verb == "is-active":
            return Ran(0, "active\n") if unit in self.active else Ran(3, "inactive\n")
        if verb == "show" and argv[-3:] == ["--property", "MainPID", "--value"]:
            return Ran(0, f"{self.pid if unit in self.active else 0}\n")
        return Ran(1, stderr=f"fake systemctl does not know {argv}")

    @staticmethod
    def _unit(name: str) -> str:
        return name if "." in name else f"{name}.service"

    def _start(self, verb: str, unit: str, now: bool) -> Ran:
        on_disk = self.unit_dir / unit
        if unit not in self.loaded:
            return Ran(5 if verb != "enable" else 1, stderr=f"Failed to {verb} unit: Unit {unit} not found.")
        if not on_disk.exists() or on_disk.read_bytes() != self.loaded[unit]:
            return Ran(1, stderr=f"{unit} changed on disk: run 'systemctl --user daemon-reload' first")
        if verb == "enable":
            parsed = configparser.ConfigParser(strict=False, interpolation=None)
            parsed.read_string(self.loaded[unit].decode())
            if not parsed.has_option("Install", "WantedBy"):
                return Ran(1, stderr=f"The unit files have no installation config (WantedBy=...): {unit}")
            self.enabled.add(unit)
        if verb != "enable" or now:
            self.active.add(unit)
            self.pid += 1
        return Ran(0)


class FakeLaunchd(FakeRunner):
    """launchd's GUI domain of one user: a plist is read when it is bootstrapped."""

    def __init__(self, places: Places, uid: int, programs: set[str] = frozenset({"launchctl", "tail"})):
        super().__init__(programs)
        self.domain = f"gui/{uid}"
        self.target = f"{self.domain}/{LAUNCHD_LABEL}"
        self.loaded: dict | None = None  # the agent as launchd read it
        self.disabled = False
        self.pid = 4242

    def answer(self, argv: list[str]) -> Ran:
        verb, args = argv[1], argv[2:]
        if verb == "bootstrap":
            return self._bootstrap(*args)
        if args != [self.target]:
            return Ran(113, stderr=f"Could not find service in domain for {args}")
        if verb == "enable":
            self.disabled = False
            return Ran(0)
        if self.loaded is None:
            code = 3 if verb == "bootout" else 113
            return Ran(code, stderr=f"Could not find service {LAUNCHD_LABEL!r} in domain {self.domain}")
        if verb == "bootout":
            self.loaded = None
            return Ran(0)
        if verb == "kickstart":
            return Ran(0)
        if verb == "print":
            return Ran(0, f"{self.target} = {{\n\tactive count = 1\n\tstate = running\n\tpid = {self.pid}\n}}\n")
        return Ran(1, stderr=f"fake launchctl does not know {argv}")

    def _bootstrap(self, domain: str, path: str) -> Ran:
        if domain != self.domain:
            return Ran(125, stderr=f"Bootstrap failed: 125: Domain does not support specified action ({domain})")
        if self.loaded is not None:
            return Ran(5, stderr="Bootstrap failed: 5: Input/output error")
        if self.disabled:
            return Ran(119, stderr="Bootstrap failed: 119: Service is disabled")
        agent = plistlib.loads(Path(path).read_bytes())
        if agent.get("Label") != Path(path).stem or not agent.get("ProgramArguments"):
            return Ran(5, stderr="Bootstrap failed: 5: Input/output error (no Label or ProgramArguments)")
        self.loaded = agent
        self.pid += 1
        return Ran(0)

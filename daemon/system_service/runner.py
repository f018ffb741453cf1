"""How `agentmemd service` runs systemctl, journalctl, launchctl and tail: one small class, so
the tests put a recorder in its place that refuses what the real tools would refuse."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from dataclasses import dataclass

from agentmemd.memory.core.errors import ServiceError


@dataclass(frozen=True)
class Ran:
    """What a command did: its exit code and what it printed."""

    code: int
    stdout: str = ""
    stderr: str = ""

    @property
    def said(self) -> str:
        """Its message for a person: stderr, else stdout, on one line."""
        return " ".join((self.stderr.strip() or self.stdout.strip()).split())


MISSING = 127  # a shell's code for a command that is not there


class Runner:
    """Runs a service manager's commands on this machine."""

    def has(self, program: str) -> bool:
        """Whether ``program`` is installed (on PATH)."""
        return shutil.which(program) is not None

    def run(self, argv: list[str]) -> Ran:
        """Run to the end, capturing its output (exit code 127 when the program is not installed)."""
        if not self.has(argv[0]):
            return Ran(MISSING, stderr=f"{argv[0]}: command not found")
        done = subprocess.run(argv, capture_output=True, text=True, errors="replace", stdin=subprocess.DEVNULL)
        return Ran(done.returncode, done.stdout, done.stderr)

    def attach(self, argv: list[str]) -> int:
        """Run on this terminal (a log followed until Ctrl-C); its exit code."""
        if not self.has(argv[0]):
            return MISSING
        try:
            return subprocess.call(argv)
        except KeyboardInterrupt:
            return 0


def run_each(runner: Runner, commands: list[list[str]]) -> list[list[str]]:
    """Run ``commands`` in order; the first that fails stops them (ServiceError with what it said)."""
    for argv in commands:
        done = runner.run(argv)
        if done.code != 0:
            raise ServiceError(f"`{shlex.join(argv)}` failed (exit {done.code}): {done.said}")
    return commands

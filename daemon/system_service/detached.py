"""The daemon without a service manager (Linux with no systemd user manager: a container, WSL
without systemd, a minimal VM): `install` writes what it runs to $XDG_CONFIG_HOME/agentmemd/
service.json and starts it detached from the terminal (its own session), its pid and log in
$XDG_STATE_HOME/agentmemd. Nothing starts it again when it stops or at login: `agentmemd service
start` does, and a line in ~/.profile can (install says which).
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import time
from pathlib import Path

from agentmemd.daemon import __version__
from agentmemd.daemon.system_service.models import Action, ServiceSpec
from agentmemd.daemon.system_service.places import Places
from agentmemd.daemon.system_service.runner import Runner
from agentmemd.memory.core.errors import ServiceError

MARK = "agentmemd service install"  # the file's "written_by": uninstall removes only such a file
STOP_SECONDS = 60.0  # SIGTERM, then this long for the daemon to close its store, then SIGKILL
STARTED_SECONDS = 120.0  # how long a start waits for the socket (the model loads on a shared CPU)
LOG_TAIL_BYTES = 256_000


class Detached:
    name = "detached"
    tool = None  # needs no service manager

    def __init__(self, places: Places, runner: Runner, reason: str = ""):
        assert places.detached_file is not None and places.state_dir is not None
        self.places, self.runner, self.reason = places, runner, reason
        self.service_file: Path = places.detached_file
        self.pid_file = places.state_dir / "agentmemd.pid"
        self.log_file: Path | None = places.state_dir / "agentmemd.log"

    # ---- the file

    def render(self, spec: ServiceSpec) -> bytes:
        written = {"written_by": MARK, "version": __version__, "argv": spec.argv()}
        return (json.dumps(written, indent=2) + "\n").encode()

    @staticmethod
    def owned(content: bytes) -> bool:
        try:
            written = json.loads(content)
        except ValueError:
            return False
        return isinstance(written, dict) and written.get("written_by") == MARK

    def read(self, content: bytes) -> ServiceSpec:
        if not self.owned(content):
            raise ServiceError(f"{self.service_file} was not written by `agentmemd service install`")
        argv = json.loads(content).get("argv")
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            raise ServiceError(f"{self.service_file} names no command line")
        return ServiceSpec.from_argv(argv, self.service_file)

    def _spec(self) -> ServiceSpec:
        return self.read(self.service_file.read_bytes())

    # ---- running it

    def start(self, action: Action) -> list[list[str]]:
        running = self._pid()
        if running and action == "unchanged":
            return []
        commands = self.stop() if running else []
        return commands + self.start_now()

    def start_now(self) -> list[list[str]]:
        """Start it detached (its own session, no terminal), unless it runs; wait for its socket."""
        if self._pid():
            return []
        spec = self._spec()
        assert self.log_file is not None
        self.log_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        with open(os.open(self.log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "ab") as log:
            proc = subprocess.Popen(
                spec.argv(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,  # not stopped with the terminal that started it
                umask=0o077,  # memories are private, as the systemd unit's UMask says
            )
        self._write_pid(proc.pid)
        deadline = time.monotonic() + STARTED_SECONDS
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                self.pid_file.unlink(missing_ok=True)
                last = self.log_lines(5)
                raise ServiceError(
                    f"agentmemd exited with {proc.returncode} as it started; its log ({self.log_file}) ends:\n  "
                    + "\n  ".join(last)
                )
            if _listening(spec.socket):  # not a socket file a killed daemon left: one that answers
                break
            time.sleep(0.2)
        return [spec.argv()]

    def stop(self) -> list[list[str]]:
        """SIGTERM (it closes its store and stops its doors), SIGKILL if it has not gone in time."""
        pid = self._pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            return []
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.1)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
        self.pid_file.unlink(missing_ok=True)
        return [["kill", "-TERM", str(pid)]]

    stop_now = stop

    def forget(self) -> list[list[str]]:
        self.pid_file.unlink(missing_ok=True)
        return []

    def state(self) -> tuple[str, bool, int | None]:
        pid = self._pid()
        if pid is not None:
            return "running", True, pid
        return (
            ("stopped (its pid file names a process that has gone)" if self.pid_file.exists() else "stopped"),
            False,
            None,
        )

    def _pid(self) -> int | None:
        """The pid in the pid file, if that process runs and is this service's daemon."""
        try:
            pid = int(self.pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return None
        ours = b"serve" in cmdline and str(self._spec().data_dir).encode() in cmdline
        return pid if ours and _alive(pid) else None

    def _write_pid(self, pid: int) -> None:
        temporary = self.pid_file.with_name(".agentmemd.pid.tmp")
        temporary.write_text(f"{pid}\n")
        os.replace(temporary, self.pid_file)

    # ---- its log

    def log_lines(self, count: int) -> list[str]:
        log = self.log_file
        if log is None or not log.exists():
            return []
        with log.open("rb") as f:
            f.seek(max(0, log.stat().st_size - LOG_TAIL_BYTES))
            return f.read().decode(errors="replace").splitlines()[-count:]

    def follow(self, lines: int, follow: bool) -> list[str]:
        return ["tail", "-n", str(lines), *(["-F"] if follow else []), str(self.log_file)]

    def log_place(self) -> str:
        return str(self.log_file)

    def start_hint(self) -> str:
        return "agentmemd service start"

    def notes(self) -> list[str]:
        start = shlex.join([*self._spec().program, "service", "start"])
        return [
            f"No systemd user manager here ({self.reason}).",
            f"agentmemd runs as a detached daemon, its pid in {self.pid_file}.",
            "Nothing starts it again if it stops, or when you log in: to start it when you log in, add",
            "this line to ~/.profile (or your shell's login file):",
            f"    {start} >/dev/null 2>&1",
        ]


def _listening(path: Path) -> bool:
    """Whether a process accepts connections on the socket at ``path``."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(1.0)
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def _alive(pid: int) -> bool:
    """Runs (a zombie, exited and not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False

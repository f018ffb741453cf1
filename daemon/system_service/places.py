"""Where a daemon installed as a service keeps its files, by each platform's conventions.

    Linux   data dir  $XDG_DATA_HOME/agentmemd            (default ~/.local/share/agentmemd)
            socket    $XDG_RUNTIME_DIR/agentmemd/agentmemd.sock (unset: in the default data dir)
            config    $XDG_CONFIG_HOME/agentmemd/agentmemd.toml (default ~/.config/...)
            unit      $XDG_CONFIG_HOME/systemd/user/agentmemd.service; its log: the user journal
            without a systemd user manager (a container, WSL, a minimal VM): a detached daemon,
            $XDG_CONFIG_HOME/agentmemd/service.json what it runs, its pid and log in
            $XDG_STATE_HOME/agentmemd (default ~/.local/state/agentmemd)
    macOS   data dir  ~/Library/Application Support/agentmemd (the socket and the config in it)
            agent     ~/Library/LaunchAgents/dev.agentmemd.plist; its log: ~/Library/Logs/agentmemd/

The socket stays where clients look for it even when `install --data-dir` moves the data, so
every `agentmemd` command finds the service without `--socket` (``service_sockets``).
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Mapping

from agentmemd.memory.core.errors import ServiceError

Platform = Literal["linux", "darwin"]
NAME = "agentmemd"
SOCKET_FILE = "agentmemd.sock"
CONFIG_FILE = "agentmemd.toml"
UNIT_FILE = "agentmemd.service"
LAUNCHD_LABEL = "dev.agentmemd"


@dataclass(frozen=True)
class Places:
    """The default places of one platform for one home (what `install` uses unless told otherwise)."""

    platform: Platform
    home: Path
    data_dir: Path
    socket: Path
    config: Path
    service_file: Path  # the systemd unit or the launchd agent's plist
    log_file: Path | None  # launchd's stdout and stderr; None on Linux (the journal has them)
    runtime_dir: Path | None  # $XDG_RUNTIME_DIR/agentmemd, when the socket is there (systemd makes it)
    # Linux without a systemd user manager: what the detached daemon runs, and where its pid and
    # log are (None on macOS).
    detached_file: Path | None = None
    state_dir: Path | None = None


def _xdg(env: Mapping[str, str], name: str, fallback: Path) -> Path:
    """An XDG base directory: the variable when it is an absolute path (the spec says to ignore a
    relative one), else its default."""
    value = env.get(name, "")
    return Path(value) if value and os.path.isabs(value) else fallback


def places_for(platform: str, env: Mapping[str, str], home: Path) -> Places:
    """The places for ``platform`` (a ``sys.platform`` value), these environment variables and
    this home; ServiceError for a platform with neither systemd nor launchd support."""
    if platform.startswith("linux"):
        data_dir = _xdg(env, "XDG_DATA_HOME", home / ".local" / "share") / NAME
        config_home = _xdg(env, "XDG_CONFIG_HOME", home / ".config")
        runtime = env.get("XDG_RUNTIME_DIR", "")
        runtime_dir = Path(runtime) / NAME if runtime and os.path.isabs(runtime) else None
        return Places(
            platform="linux",
            home=home,
            data_dir=data_dir,
            socket=(runtime_dir or data_dir) / SOCKET_FILE,
            config=config_home / NAME / CONFIG_FILE,
            service_file=config_home / "systemd" / "user" / UNIT_FILE,
            log_file=None,
            runtime_dir=runtime_dir,
            detached_file=config_home / NAME / "service.json",
            state_dir=_xdg(env, "XDG_STATE_HOME", home / ".local" / "state") / NAME,
        )
    if platform == "darwin":
        data_dir = home / "Library" / "Application Support" / NAME
        return Places(
            platform="darwin",
            home=home,
            data_dir=data_dir,
            socket=data_dir / SOCKET_FILE,
            config=data_dir / CONFIG_FILE,
            service_file=home / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist",
            log_file=home / "Library" / "Logs" / NAME / f"{NAME}.log",
            runtime_dir=None,
        )
    raise ServiceError(
        f"`agentmemd service` knows systemd (Linux) and launchd (macOS), not {platform}; "
        "run `agentmemd serve` under this system's own supervisor instead"
    )


def current_places() -> Places:
    """The places of this machine, this user and this environment."""
    return places_for(sys.platform, os.environ, Path.home())


def service_sockets() -> list[Path]:
    """Where an installed service's socket may be, most likely first: the one its service file
    names (whatever this shell's $XDG_RUNTIME_DIR: sudo, su and cron set another or none), the
    runtime dir, then the data dir (a unit written where $XDG_RUNTIME_DIR was unset). Empty on
    other platforms."""
    try:
        here = current_places()
    except ServiceError:
        return []
    fallback = here.data_dir / SOCKET_FILE
    found = [recorded_socket(here), here.socket, fallback]
    return list(dict.fromkeys(p for p in found if p is not None))


def installed_socket() -> Path | None:
    """The socket of a service installed here (running or not), so a client that finds no daemon
    names the service's socket, not another place: None when none is installed."""
    try:
        here = current_places()
    except ServiceError:
        return None
    files = [here.service_file, *([here.detached_file] if here.detached_file else [])]
    if not any(f.exists() for f in files):
        return None
    return recorded_socket(here) or here.socket


def exec_words(line: str) -> list[str]:
    """The words of an ExecStart written by systemd.py's ``_word`` (the inverse: % and $ undoubled)."""
    return [w.replace("%%", "%").replace("$$", "$") for w in shlex.split(line)]


def recorded_socket(here: Places) -> Path | None:
    """The --socket the installed service's own file runs the daemon with (a Linux unit's
    ExecStart, a detached daemon's service.json); None when there is none, or it cannot be read.

    The managers' ``read`` says the same of their files, as a ``ServiceSpec``; every client finds
    its socket through here (a Claude Code hook on each prompt), and the managers' models import
    the pydantic API models: 74 ms to import the hooks became 209 ms when this asked them."""
    import json

    argv: list[str] = []
    try:
        if here.detached_file is not None and here.detached_file.is_file():
            written = json.loads(here.detached_file.read_text(encoding="utf-8"))
            argv = written.get("argv") or [] if isinstance(written, dict) else []
        elif here.platform == "linux" and here.service_file.is_file():
            for line in here.service_file.read_text(encoding="utf-8", errors="replace").splitlines():
                if line.startswith("ExecStart="):
                    argv = exec_words(line[len("ExecStart=") :])
    except (OSError, ValueError):
        return None
    if "--socket" in argv[:-1]:
        given = argv[argv.index("--socket") + 1]
        return Path(given) if isinstance(given, str) and os.path.isabs(given) else None
    return None

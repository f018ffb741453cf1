"""`agentmemd service`: the systemd unit and the launchd plist it writes for a temporary home,
checked by systemd's own parser and plistlib; install, upgrade, uninstall, status and logs
against recorders that refuse what systemctl and launchctl would refuse (tests/fake_service.py).
Nothing here runs the real service managers (the tests' machine has no user systemd)."""

from __future__ import annotations

import configparser
import json
import os
import plistlib
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_service import FakeLaunchd, FakeSystemd

from agentmemd.daemon import __version__
from agentmemd.daemon.cli.main import cli
from agentmemd.daemon.socket.client import default_socket
from agentmemd.daemon.system_service import manager
from agentmemd.daemon.system_service.launchd import Launchd
from agentmemd.daemon.system_service.places import Places, places_for
from agentmemd.daemon.system_service.runner import Ran
from agentmemd.daemon.system_service.systemd import Systemd
from agentmemd.memory.core.errors import ServiceError

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

ERROR_LINE = json.dumps({"ts": "2026-01-01T00:00:00Z", "level": "error", "event": "workspace sync failed"})


def linux(root: Path, runtime: bool = True) -> Places:
    env = {"XDG_RUNTIME_DIR": str(root / "run")} if runtime else {}
    return places_for("linux", env, root / "home")


def macos(root: Path) -> Places:
    return places_for("darwin", {}, root / "home")


@pytest.fixture
def machine(monkeypatch):
    """Point `agentmemd service` at these places and this fake service manager."""

    def use(places: Places, runner):
        monkeypatch.setattr(manager, "this_machine", lambda: (places, runner))
        return runner

    return use


def agentmemd(*args: str):
    return CliRunner().invoke(cli, list(args))


def unit_sections(path: Path) -> configparser.ConfigParser:
    parsed = configparser.ConfigParser(strict=False, interpolation=None, comment_prefixes=("#",))
    parsed.optionxform = str  # systemd keys are case-sensitive
    parsed.read_string(path.read_text())
    return parsed


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*"))


# ---- places ---------------------------------------------------------------------------------


def test_linux_places_follow_the_xdg_variables(tmp_path):
    home = tmp_path / "home"
    env = {"XDG_DATA_HOME": "/d", "XDG_CONFIG_HOME": "/c", "XDG_RUNTIME_DIR": "/r"}
    here = places_for("linux", env, home)
    assert (here.data_dir, here.socket, here.config) == (
        Path("/d/agentmemd"),
        Path("/r/agentmemd/agentmemd.sock"),
        Path("/c/agentmemd/agentmemd.toml"),
    )
    assert here.service_file == Path("/c/systemd/user/agentmemd.service") and here.log_file is None
    # Unset (or relative, which the XDG spec says to ignore): the defaults; no runtime dir: the data dir.
    default = places_for("linux", {"XDG_DATA_HOME": "rel", "XDG_RUNTIME_DIR": "run"}, home)
    assert default.data_dir == home / ".local/share/agentmemd"
    assert default.socket == home / ".local/share/agentmemd/agentmemd.sock" and default.runtime_dir is None
    assert default.service_file == home / ".config/systemd/user/agentmemd.service"


def test_macos_places_are_in_library(tmp_path):
    here = macos(tmp_path)
    library = tmp_path / "home/Library"
    assert here.data_dir == library / "Application Support/agentmemd"
    assert here.socket == here.data_dir / "agentmemd.sock"
    assert here.service_file == library / "LaunchAgents/dev.agentmemd.plist"
    assert here.log_file == library / "Logs/agentmemd/agentmemd.log"


def test_other_platforms_are_refused_by_name(tmp_path):
    with pytest.raises(ServiceError, match="win32"):
        places_for("win32", {}, tmp_path)


def test_the_cli_finds_the_services_socket_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    monkeypatch.delenv("AGENTMEMD_SOCKET", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    legacy = str(tmp_path / ".agentmemd/agentmemd.sock")
    assert default_socket() == legacy  # no service socket there
    in_data_dir = tmp_path / ".local/share/agentmemd/agentmemd.sock"  # a unit written without a runtime dir
    in_data_dir.parent.mkdir(parents=True)
    in_data_dir.touch()
    assert default_socket() == str(in_data_dir)
    in_runtime = tmp_path / "run/agentmemd/agentmemd.sock"
    in_runtime.parent.mkdir(parents=True)
    in_runtime.touch()
    assert default_socket() == str(in_runtime)  # the runtime dir first
    monkeypatch.setenv("AGENTMEMD_SOCKET", "/elsewhere.sock")
    assert default_socket() == "/elsewhere.sock"  # the variable wins


# ---- the systemd unit -----------------------------------------------------------------------


def test_the_unit_runs_this_python_and_systemd_accepts_it(tmp_path, machine):
    here = linux(tmp_path)
    # Spaces and a quote, and % and $, which systemd expands unless doubled (%z is not even a specifier).
    workspace = tmp_path / "my agent's 100%z $HOME workspace"
    workspace.mkdir()
    machine(here, FakeSystemd(here))
    done = agentmemd("service", "install", "--no-start", "--workspace", str(workspace))
    assert done.exit_code == 0, done.output
    unit = here.service_file
    assert unit == tmp_path / "home/.config/systemd/user/agentmemd.service"
    assert unit.read_text().startswith(f"# Written by `agentmemd service install` (agentmemd {__version__})")
    parsed = unit_sections(unit)
    service = parsed["Service"]
    assert service["Restart"] == "on-failure" and int(service["RestartSec"]) >= 1
    assert service["Environment"].split() == ["HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1"]
    assert service["UMask"] == "0077"
    assert (service["RuntimeDirectory"], service["RuntimeDirectoryMode"]) == ("agentmemd", "0700")
    assert parsed["Install"]["WantedBy"] == "default.target"
    expected = [sys.executable, "-m", "agentmemd.daemon.cli", "serve", "--data-dir", str(here.data_dir)]
    expected += ["--socket", str(here.socket), "--config", str(here.config), "--workspace", str(workspace)]
    assert '"' + str(workspace).replace("%", "%%").replace("$", "$$") + '"' in service["ExecStart"]
    words = [w.replace("%%", "%").replace("$$", "$") for w in shlex.split(service["ExecStart"])]
    assert words == expected
    assert Systemd(here, FakeSystemd(here)).read(unit.read_bytes()).workspace == workspace

    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed: the unit was checked by our own parser only")
    # --user needs a runtime dir; --man=no: no man pages here. A unit it dislikes gets a warning on
    # stderr (an unknown key, a bad value, an executable that is not there), not always an exit code.
    (tmp_path / "run").mkdir(mode=0o700)
    checked = subprocess.run(
        [analyze, "verify", "--user", "--man=no", str(unit)],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_RUNTIME_DIR": str(tmp_path / "run"), "HOME": str(tmp_path / "home")},
    )
    assert checked.returncode == 0 and checked.stderr.strip() == "" and checked.stdout.strip() == "", checked


def test_without_a_runtime_dir_the_socket_is_in_the_data_dir(tmp_path, machine):
    here = linux(tmp_path, runtime=False)
    machine(here, FakeSystemd(here))
    assert agentmemd("service", "install", "--no-start").exit_code == 0
    service = unit_sections(here.service_file)["Service"]
    assert f"--socket {here.data_dir / 'agentmemd.sock'}" in service["ExecStart"]
    assert "RuntimeDirectory" not in service  # systemd would make (and remove) a dir the socket is not in


def test_install_writes_private_dirs_a_0644_unit_and_the_default_config(tmp_path, machine):
    here = linux(tmp_path)
    systemd = machine(here, FakeSystemd(here))
    old = os.umask(0o077)  # a strict umask must not make the unit unreadable to systemd
    try:
        done = agentmemd("service", "install")
    finally:
        os.umask(old)
    assert done.exit_code == 0, done.output
    assert mode(here.service_file) == 0o644
    assert mode(here.data_dir) == 0o700 and mode(here.config.parent) == 0o700
    assert here.config.read_text() == (Path(__file__).parent.parent / "agentmemd.toml").read_text()
    assert not (tmp_path / "run/agentmemd").exists()  # the runtime dir is systemd's to make, at each start
    assert systemd.calls == [
        ["systemctl", "--user", "daemon-reload"],
        ["systemctl", "--user", "enable", "--now", "agentmemd.service"],
    ]
    assert systemd.enabled == systemd.active == {"agentmemd.service"}
    assert "installed: " in done.output and "ran systemctl --user enable --now agentmemd.service" in done.output
    assert "loginctl enable-linger $USER" in done.output  # explained, not run
    assert not any("loginctl" in call for call in systemd.calls)


def test_install_never_overwrites_a_persons_config(tmp_path, machine):
    here = linux(tmp_path)
    machine(here, FakeSystemd(here))
    mine = tmp_path / "mine.toml"
    mine.write_text('[server]\nlog_level = "debug"\n')
    done = agentmemd("service", "install", "--config", str(mine))
    assert done.exit_code == 0, done.output
    assert mine.read_text() == '[server]\nlog_level = "debug"\n' and not here.config.exists()
    assert f"--config {mine}" in here.service_file.read_text() and "left as it was" in done.output


def test_reinstalling_changes_nothing(tmp_path, machine):
    here = linux(tmp_path)
    systemd = machine(here, FakeSystemd(here))
    assert agentmemd("service", "install").exit_code == 0
    unit, config = here.service_file.read_bytes(), here.config.read_bytes()
    here.config.write_text(config.decode() + "# my note\n")  # the person edits the config
    systemd.calls.clear()
    again = agentmemd("service", "install")
    assert again.exit_code == 0 and "already installed, unchanged" in again.output
    assert here.service_file.read_bytes() == unit
    assert [p.name for p in here.service_file.parent.iterdir()] == ["agentmemd.service"]  # no second file, no temp
    assert here.config.read_text().endswith("# my note\n")
    assert ["systemctl", "--user", "restart", "agentmemd.service"] not in systemd.calls  # nothing to restart for


def test_reinstalling_upgrades_an_older_unit_in_place_and_restarts(tmp_path, machine):
    here = linux(tmp_path)
    systemd = machine(here, FakeSystemd(here))
    assert agentmemd("service", "install").exit_code == 0
    current = here.service_file.read_text()
    older = current.replace(f"(agentmemd {__version__})", "(agentmemd 0.0.1)").replace("UMask=0077\n", "")
    here.service_file.write_text(older)
    systemd.calls.clear()
    done = agentmemd("service", "install")
    assert done.exit_code == 0 and "upgraded in place" in done.output, done.output
    assert here.service_file.read_text() == current
    assert systemd.calls == [
        ["systemctl", "--user", "daemon-reload"],  # the fake refuses a restart on a unit changed since
        ["systemctl", "--user", "enable", "--now", "agentmemd.service"],
        ["systemctl", "--user", "restart", "agentmemd.service"],  # the running daemon is the old one
    ]


def test_reinstalling_keeps_the_places_the_unit_names_unless_given_new_ones(tmp_path, machine):
    here = linux(tmp_path)
    machine(here, FakeSystemd(here))
    workspace, data = tmp_path / "workspace", tmp_path / "data"
    workspace.mkdir()
    assert agentmemd("service", "install", "--workspace", str(workspace), "--data-dir", str(data)).exit_code == 0
    assert agentmemd("service", "install").exit_code == 0  # an upgrade, run with no options
    spec = manager.installed(here, FakeSystemd(here))
    assert (spec.workspace, spec.data_dir) == (workspace, data)
    elsewhere = tmp_path / "elsewhere"
    moved = agentmemd("service", "install", "--data-dir", str(elsewhere))
    assert moved.exit_code == 0 and "upgraded in place" in moved.output
    spec = manager.installed(here, FakeSystemd(here))
    assert (spec.workspace, spec.data_dir) == (workspace, elsewhere)


def test_install_refuses_a_unit_it_did_not_write(tmp_path, machine):
    here = linux(tmp_path)
    systemd = machine(here, FakeSystemd(here))
    here.service_file.parent.mkdir(parents=True)
    hand_written = "[Service]\nExecStart=/usr/local/bin/agentmemd serve --data-dir /srv/mem\n"
    here.service_file.write_text(hand_written)
    done = agentmemd("service", "install")
    assert done.exit_code == 1 and "not written by `agentmemd service install`" in done.stderr
    assert here.service_file.read_text() == hand_written
    assert not here.config.exists() and not here.data_dir.exists() and systemd.calls == []


@pytest.mark.parametrize(
    "args, code, says",
    [
        (["--workspace", "/nonexistent/workspace"], 1, "is not a directory"),
        (["--config", "BAD"], 2, "invalid config"),
        # Configs the daemon refused only as it started (the unit then restarted it in vain):
        (["--config", "REMOTE"], 2, "0.0.0.0 is not loopback"),
        (["--config", "TWICE"], 2, "listens there already"),
        (["--config", "NO_WORKSPACE"], 1, "[workspace] path /nonexistent/ws is not a directory"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(tmp_path, machine, args, code, says):
    here = linux(tmp_path)
    systemd = machine(here, FakeSystemd(here))
    bad = tmp_path / "bad.toml"
    bad.write_text({
        "BAD": "[server]\nlog_level = 7\n",
        "REMOTE": '[mcp]\nlisten = "0.0.0.0:19255"\n',
        "TWICE": '[mcp]\nlisten = "127.0.0.1:19255"\n[dashboard]\nlisten = "127.0.0.1:19255"\n',
        "NO_WORKSPACE": '[workspace]\npath = "/nonexistent/ws"\n',
    }.get(args[-1], ""))  # fmt: skip
    args = [str(bad) if a in ("BAD", "REMOTE", "TWICE", "NO_WORKSPACE") else a for a in args]
    done = agentmemd("service", "install", *args)
    assert done.exit_code == code and says in done.stderr, done.output
    assert files_under(tmp_path) == [bad] and systemd.calls == []


def test_without_a_systemd_user_manager_install_writes_a_detached_service_and_no_unit(tmp_path, machine):
    """No systemctl (a container), or one with no user manager to reach (WSL, su): said before
    anything is written, and the service is a detached daemon instead (started for real in
    tests/test_service_daemon.py)."""
    here = linux(tmp_path)
    for systemd, why in (
        (FakeSystemd(here, programs={"journalctl"}), "systemctl not found"),
        (FakeSystemd(here), "Failed to connect to bus: No medium found"),
    ):
        if "bus" in why:
            systemd.answer = lambda argv: Ran(1, stderr="Failed to connect to bus: No medium found")
        machine(here, systemd)
        done = agentmemd("service", "install", "--no-start")
        assert done.exit_code == 0, done.output
        argv = json.loads(here.detached_file.read_text())["argv"]
        assert not here.service_file.exists() and argv[argv.index("--socket") + 1] == str(here.socket)
        assert "No systemd user manager here (" in done.output and why in done.output and "~/.profile" in done.output
        assert "service start" in done.output
        removed = agentmemd("service", "uninstall")
        assert removed.exit_code == 0 and not here.detached_file.exists(), removed.output


def test_install_says_when_systemd_cannot_start_it(tmp_path, machine):
    here = linux(tmp_path)
    systemd = machine(here, FakeSystemd(here))
    answer = systemd.answer
    systemd.answer = lambda argv: answer(argv) if "show-environment" in argv else Ran(1, stderr="Job failed")
    done = agentmemd("service", "install")
    assert done.exit_code == 1 and "`systemctl --user daemon-reload` failed (exit 1): Job failed" in done.stderr
    assert f"{here.service_file} is written: run `agentmemd service install` again" in done.stderr
    assert systemd.calls[-1] == ["systemctl", "--user", "daemon-reload"]  # it stopped at the first failure


def test_uninstall_removes_the_unit_even_when_systemd_cannot_be_asked(tmp_path, machine):
    here = linux(tmp_path)
    systemd = machine(here, FakeSystemd(here))
    assert agentmemd("service", "install").exit_code == 0
    systemd.programs.discard("systemctl")
    done = agentmemd("service", "uninstall")
    assert done.exit_code == 0 and not here.service_file.exists(), done.output
    assert "warning: could not stop it" in done.stderr and "systemctl" in done.stderr


def test_print_shows_the_unit_and_writes_nothing(tmp_path, machine):
    here = linux(tmp_path)
    systemd = machine(here, FakeSystemd(here))
    done = agentmemd("service", "install", "--print")
    assert done.exit_code == 0 and done.stdout.startswith("# Written by `agentmemd service install`")
    assert "[Service]" in done.stdout and files_under(tmp_path) == [] and systemd.calls == []


def test_uninstall_removes_only_the_unit_and_keeps_the_data(tmp_path, machine):
    here = linux(tmp_path)
    systemd = machine(here, FakeSystemd(here))
    assert agentmemd("service", "install").exit_code == 0
    (here.data_dir / "agentmemd.db").write_text("memories")
    systemd.calls.clear()
    done = agentmemd("service", "uninstall")
    assert done.exit_code == 0, done.output
    assert not here.service_file.exists()
    assert (here.data_dir / "agentmemd.db").read_text() == "memories" and here.config.exists()
    assert systemd.calls == [
        ["systemctl", "--user", "disable", "--now", "agentmemd.service"],
        ["systemctl", "--user", "daemon-reload"],
    ]
    assert systemd.active == systemd.enabled == set() and systemd.loaded == {}
    assert f"kept {here.data_dir}" in done.output and f"kept {here.config}" in done.output
    again = agentmemd("service", "uninstall")
    assert again.exit_code == 0 and "nothing to remove" in again.output


def test_uninstall_refuses_a_unit_it_did_not_write(tmp_path, machine):
    here = linux(tmp_path)
    systemd = machine(here, FakeSystemd(here))
    here.service_file.parent.mkdir(parents=True)
    here.service_file.write_text("[Service]\nExecStart=/bin/true\n")
    done = agentmemd("service", "uninstall")
    assert done.exit_code == 1 and "not written by `agentmemd service install`" in done.stderr
    assert here.service_file.exists() and systemd.calls == []


# ---- status and logs ------------------------------------------------------------------------


def no_daemon(socket: Path):
    raise ServiceError(f"cannot reach agentmemd at {socket}: No such file or directory")


def test_status_of_nothing_installed_exits_3(tmp_path, machine):
    here = linux(tmp_path)
    machine(here, FakeSystemd(here))
    done = agentmemd("service", "status")
    assert done.exit_code == 3 and "not installed" in done.output and "agentmemd service install" in done.output


def test_status_of_a_stopped_service_exits_3_with_its_last_error(tmp_path, machine):
    here = linux(tmp_path)
    systemd = machine(here, FakeSystemd(here))
    assert agentmemd("service", "install", "--no-start").exit_code == 0
    systemd.journal = [ERROR_LINE, json.dumps({"level": "info", "event": "stopped"}), "not json"]
    done = agentmemd("service", "status")
    assert done.exit_code == 3, done.output
    assert done.output.splitlines()[0] == "agentmemd service: not running (systemd says inactive)"
    assert f"last error {ERROR_LINE}" in done.output and "start it: systemctl --user start agentmemd" in done.output
    as_json = agentmemd("--json", "service", "status")
    assert as_json.exit_code == 3
    shown = json.loads(as_json.stdout)
    assert (shown["running"], shown["reachable"], shown["state"]) == (False, False, "inactive")
    assert shown["last_error"] == ERROR_LINE and shown["spec"]["socket"] == str(here.socket)


def test_status_says_when_systemd_runs_it_but_the_socket_does_not_answer(tmp_path, machine):
    here = linux(tmp_path)
    systemd = machine(here, FakeSystemd(here, programs={"systemctl"}))  # and no journalctl
    assert agentmemd("service", "install").exit_code == 0
    systemd.journal = []
    done = agentmemd("service", "status")
    assert done.exit_code == 3
    assert "systemd says active, but its socket does not answer: cannot reach agentmemd" in done.output
    assert "journalctl: command not found" in done.output  # the log could not be read, and it says so


def test_status_refuses_to_guess_without_systemd(tmp_path, machine):
    here = linux(tmp_path)
    systemd = machine(here, FakeSystemd(here))
    assert agentmemd("service", "install", "--no-start").exit_code == 0
    systemd.programs = set()
    done = agentmemd("service", "status")
    assert done.exit_code == 1 and "systemctl --user is-active" in done.stderr
    systemd.programs.add("systemctl")  # there, but with no user manager to talk to (su, sudo, no login)
    systemd.answer = lambda argv: Ran(1, stderr="Failed to connect to bus: No medium found")
    done = agentmemd("service", "status")
    assert done.exit_code == 1 and "No medium found (no systemd user manager in this session" in done.stderr
    # What can be known is still said: the unit's places, and that its socket does not answer.
    assert "systemd cannot be asked; its socket does not answer" in done.output
    assert str(manager.plan(here).socket) in done.output


def test_status_reads_health_from_the_units_socket(tmp_path):
    here = linux(tmp_path)
    systemd = FakeSystemd(here)
    spec = manager.plan(here)
    manager.install(here, systemd, spec)
    asked = []
    health = {"status": "starting", "version": "9.9", "memories": 3, "catching_up": ["workspace"]}
    report = manager.status(here, systemd, lambda socket: asked.append(socket) or health)
    assert asked == [here.socket] and report.running and report.reachable and report.pid == systemd.pid
    assert report.health.status == "starting" and report.problem is None


def test_the_last_error_is_the_last_error_level_line():
    lines = [
        ERROR_LINE,
        json.dumps({"level": "critical", "event": "later"}),
        json.dumps({"level": "warning", "event": "latest"}),
        "{not json",
    ]
    assert json.loads(manager.last_error(lines))["event"] == "later"
    assert manager.last_error(["agentmemd: another daemon is already listening on /x", ERROR_LINE]) == ERROR_LINE
    assert manager.last_error([ERROR_LINE, "agentmemd: invalid config x: server.log_level"]).startswith("agentmemd: ")
    assert manager.last_error([json.dumps({"level": "info"})]) is None


def test_logs_follow_the_journal(tmp_path, machine):
    here = linux(tmp_path)
    systemd = machine(here, FakeSystemd(here))
    assert agentmemd("service", "logs").exit_code == 0
    assert agentmemd("service", "logs", "--lines", "5", "--no-follow").exit_code == 0
    assert systemd.attached == [
        ["journalctl", "--user", "-u", "agentmemd.service", "-o", "cat", "-n", "50", "-f"],
        ["journalctl", "--user", "-u", "agentmemd.service", "-o", "cat", "-n", "5", "--no-pager"],
    ]
    systemd.programs.discard("journalctl")
    done = agentmemd("service", "logs")
    assert done.exit_code == 1 and "journalctl not found" in done.stderr


# ---- the launchd agent ----------------------------------------------------------------------


def test_the_plist_is_a_launchd_agent_that_runs_this_python(tmp_path, machine):
    here = macos(tmp_path)
    launchd = machine(here, FakeLaunchd(here, os.getuid()))
    done = agentmemd("service", "install")
    assert done.exit_code == 0, done.output
    agent = plistlib.loads(here.service_file.read_bytes())
    assert agent["Label"] == "dev.agentmemd" and here.service_file.name == "dev.agentmemd.plist"
    assert agent["ProgramArguments"] == [
        *[sys.executable, "-m", "agentmemd.daemon.cli", "serve"],
        *["--data-dir", str(here.data_dir), "--socket", str(here.data_dir / "agentmemd.sock")],
        *["--config", str(here.data_dir / "agentmemd.toml")],
    ]
    assert agent["RunAtLoad"] is True and agent["KeepAlive"] == {"SuccessfulExit": False}
    assert agent["EnvironmentVariables"] == {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    assert agent["StandardOutPath"] == agent["StandardErrorPath"] == str(here.log_file)
    assert agent["ProcessType"] == "Background" and agent["Umask"] == 0o077
    assert mode(here.service_file) == 0o644 and mode(here.data_dir) == 0o700 and mode(here.log_file.parent) == 0o700
    assert launchd.calls[-2:] == [
        ["launchctl", "enable", f"gui/{os.getuid()}/dev.agentmemd"],
        ["launchctl", "bootstrap", f"gui/{os.getuid()}", str(here.service_file)],
    ]
    assert launchd.loaded == agent
    assert Launchd(here, launchd).read(here.service_file.read_bytes()).data_dir == here.data_dir


def test_launchd_reinstall_and_upgrade_and_uninstall(tmp_path, machine):
    here = macos(tmp_path)
    launchd = machine(here, FakeLaunchd(here, os.getuid()))
    target = f"gui/{os.getuid()}/dev.agentmemd"
    assert agentmemd("service", "install").exit_code == 0
    launchd.calls.clear()
    assert agentmemd("service", "install").exit_code == 0  # loaded and unchanged: started if it had stopped
    assert launchd.calls == [["launchctl", "print", target], ["launchctl", "kickstart", target]]
    here.service_file.write_bytes(here.service_file.read_bytes().replace(__version__.encode(), b"0.0.1"))
    launchd.calls.clear()
    done = agentmemd("service", "install")
    assert done.exit_code == 0 and "upgraded in place" in done.output
    assert launchd.calls[1:] == [
        ["launchctl", "bootout", target],  # launchd reads a plist at bootstrap: the fake refuses a second one
        ["launchctl", "bootstrap", f"gui/{os.getuid()}", str(here.service_file)],
    ]
    status = agentmemd("service", "status")
    assert status.exit_code == 3 and "launchd says running, but its socket does not answer" in status.output
    here.log_file.write_text(ERROR_LINE + "\n")
    assert f"last error {ERROR_LINE}" in agentmemd("service", "status").output
    assert agentmemd("service", "logs", "--no-follow").exit_code == 0
    assert launchd.attached == [["tail", "-n", "50", str(here.log_file)]]
    done = agentmemd("service", "uninstall")
    assert done.exit_code == 0 and not here.service_file.exists() and launchd.loaded is None
    assert here.data_dir.is_dir() and here.log_file.exists()


def test_the_launchd_reader_refuses_a_plist_it_did_not_write(tmp_path):
    here = macos(tmp_path)
    other = plistlib.dumps({"Label": "dev.agentmemd", "ProgramArguments": ["/bin/true"]})
    with pytest.raises(ServiceError, match="not written by"):
        Launchd(here, FakeLaunchd(here, 0)).read(other)


def test_the_cli_finds_the_socket_the_installed_service_runs_with_whatever_this_shells_runtime_dir(
    tmp_path, monkeypatch
):
    """Installed with XDG_RUNTIME_DIR=/run/user/1000; under sudo, su or cron it is another or unset:
    clients looked for the socket where this shell's variables put it, and found none."""
    from agentmemd.daemon.system_service.places import installed_socket

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("AGENTMEMD_SOCKET", raising=False)
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR"):
        monkeypatch.delenv(name, raising=False)
    runs = tmp_path / "run" / "user" / "1000" / "agentmemd" / "agentmemd.sock"
    runs.parent.mkdir(parents=True)
    runs.touch()
    written = tmp_path / ".config" / "agentmemd" / "service.json"
    written.parent.mkdir(parents=True)
    argv = ["/opt/venv/bin/python", "-m", "agentmemd.daemon.cli", "serve", "--data-dir", str(tmp_path / "d"),
            "--socket", str(runs), "--config", str(tmp_path / "c.toml")]  # fmt: skip
    written.write_text(json.dumps({"written_by": "agentmemd service install", "version": "1", "argv": argv}))
    assert default_socket() == str(runs) and installed_socket() == runs
    written.unlink()
    unit = tmp_path / ".config" / "systemd" / "user" / "agentmemd.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("# written by agentmemd\n[Service]\nExecStart=" + " ".join(argv) + "\n")
    assert default_socket() == str(runs) and installed_socket() == runs

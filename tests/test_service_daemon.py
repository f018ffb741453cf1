"""A daemon started from the command line and environment of the unit `agentmemd service install`
writes, as systemd would start it, and `agentmemd service status` reporting it from its `health`
(pid, version, places, the dashboard it started); every `agentmemd` command finds its socket with
no --socket. systemctl itself is a recorder (tests/fake_service.py): this machine has no user systemd."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import time

import pytest
from click.testing import CliRunner
from conftest import NO_JOBS, free_port, wait_for, write_config
from fake_service import FakeSystemd
from test_service import mode, unit_sections

from agentmemd.daemon import __version__
from agentmemd.daemon.cli.main import cli
from agentmemd.daemon.socket.client import Client
from agentmemd.daemon.system_service import manager
from agentmemd.daemon.system_service.places import places_for
from agentmemd.daemon.system_service.runner import Ran

pytestmark = pytest.mark.process  # the tier (pyproject.toml)


def wait_until_ok(socket, proc: subprocess.Popen, log, timeout: float = 90.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the daemon exited with {proc.returncode}:\n{log.read_text()}"
        try:
            with Client(socket, timeout=5) as client:
                health = client.call("health")
            if health["status"] == "ok" and all(door["running"] for door in health["process"]["doors"]):
                return health
        except (ConnectionError, OSError):
            pass
        time.sleep(0.1)
    pytest.fail(f"the daemon did not come up:\n{log.read_text()}")


def test_the_units_daemon_runs_and_status_reports_it(short_tmp, monkeypatch):
    runtime = short_tmp / "r"  # short: a Unix socket path has 108 bytes
    here = places_for("linux", {"XDG_RUNTIME_DIR": str(runtime)}, short_tmp / "h")
    systemd = FakeSystemd(here)
    monkeypatch.setattr(manager, "this_machine", lambda: (here, systemd))
    port = free_port()
    config = write_config(short_tmp / "agentmemd.toml", {"jobs": NO_JOBS, "dashboard": {"listen": f"127.0.0.1:{port}"}})
    installed = CliRunner().invoke(cli, ["service", "install", "--no-start", "--config", str(config)])
    assert installed.exit_code == 0, installed.output

    # What systemd does with the unit: the runtime dir (0700), the environment, the umask, then ExecStart.
    service = unit_sections(here.service_file)["Service"]
    argv = [w.replace("%%", "%").replace("$$", "$") for w in shlex.split(service["ExecStart"])]
    environment = dict(pair.split("=", 1) for pair in service["Environment"].split())
    umask = int(service["UMask"], 8)
    (runtime / service["RuntimeDirectory"]).mkdir(parents=True, mode=int(service["RuntimeDirectoryMode"], 8))
    log = short_tmp / "journal.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            argv,
            env={**os.environ, **environment},
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=lambda: os.umask(umask),
        )
    try:
        wait_until_ok(here.socket, proc, log)
        systemd.active.add("agentmemd.service")  # as systemd would say of the daemon it started
        systemd.pid = proc.pid
        systemd.journal = log.read_text().splitlines()

        status = CliRunner().invoke(cli, ["service", "status"])
        assert status.exit_code == 0, status.output
        lines = [line.strip() for line in status.output.splitlines()]
        assert lines[0] == f"agentmemd service: running (systemd says active, pid {proc.pid})"
        for shown in (f"version    {__version__}", "model      ok", f"socket     {here.socket}"):
            assert shown in lines, (shown, status.output)
        assert f"data dir   {here.data_dir}" in lines and "last error none" in lines
        assert any(line.startswith(f"dashboard  http://127.0.0.1:{port}/ (pid ") for line in lines), status.output

        reported = json.loads(CliRunner().invoke(cli, ["--json", "service", "status"]).stdout)
        process = reported["health"]["process"]
        assert (process["pid"], process["data_dir"], process["socket"]) == (
            proc.pid,
            str(here.data_dir),
            str(here.socket),
        )
        assert [door["name"] for door in process["doors"]] == ["dashboard"] and process["doors"][0]["running"]

        # No user manager to ask (su, sudo, a container): exit 1, and what the socket says all the same.
        answer = systemd.answer
        systemd.answer = lambda argv: Ran(1, stderr="Failed to connect to bus: No medium found")
        unasked = CliRunner().invoke(cli, ["service", "status"])
        systemd.answer = answer
        assert unasked.exit_code == 1 and "no systemd user manager" in unasked.stderr
        assert f"agentmemd service: systemd cannot be asked; pid {proc.pid} answers on its socket" in unasked.stdout
        assert f"version    {__version__}" in unasked.stdout

        # Any other command finds the service's socket by itself.
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
        monkeypatch.delenv("AGENTMEMD_SOCKET", raising=False)
        health = CliRunner().invoke(cli, ["--json", "health"])
        assert health.exit_code == 0 and json.loads(health.stdout)["process"]["pid"] == proc.pid
        assert mode(here.data_dir) == 0o700 and mode(here.socket) == 0o600

        proc.send_signal(signal.SIGTERM)  # systemctl --user stop
        assert proc.wait(60) == 0
        systemd.active.clear()
        stopped = CliRunner().invoke(cli, ["service", "status"])
        assert stopped.exit_code == 3 and stopped.output.startswith("agentmemd service: not running"), stopped.output
    finally:
        if proc.poll() is None:  # SIGTERM, as systemd stops it: the daemon stops the dashboard it started
            proc.terminate()
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(30)


def test_without_systemd_the_service_is_a_detached_daemon_every_command_finds(short_tmp, monkeypatch):
    """A machine with no systemd user manager (this one, a container, WSL): install starts a real
    detached daemon; status, logs, doctor and a plain `agentmemd health` find it with no --socket;
    stop, start and uninstall work without systemctl; the data stays."""
    home = short_tmp / "h"
    env = {"HOME": str(home), "XDG_RUNTIME_DIR": str(short_tmp / "r")}
    here = places_for("linux", env, home)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AGENTMEMD_SOCKET", raising=False)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("pathlib.Path.home", lambda: home)
    (short_tmp / "r").mkdir(mode=0o700)
    no_systemd = FakeSystemd(here, programs={"tail"})  # no systemctl at all
    no_systemd.attach = lambda argv: subprocess.call(argv)  # the real tail prints the real log
    monkeypatch.setattr(manager, "this_machine", lambda: (here, no_systemd))
    config = write_config(short_tmp / "agentmemd.toml", {"jobs": NO_JOBS})
    agentmemd = CliRunner().invoke

    installed = agentmemd(cli, ["service", "install", "--config", str(config)])
    try:
        assert installed.exit_code == 0, installed.output
        assert "No systemd user manager here (systemctl not found)" in installed.output
        assert here.detached_file.exists() and not here.service_file.exists()
        pid = int((here.state_dir / "agentmemd.pid").read_text())
        with Client(here.socket, timeout=30) as client:
            wait = time.monotonic() + 120
            while client.call("health")["status"] != "ok" and time.monotonic() < wait:
                time.sleep(0.2)
        status = agentmemd(cli, ["service", "status"])
        assert status.exit_code == 0 and f"running (detached says running, pid {pid})" in status.output, status.output
        health = agentmemd(cli, ["--json", "health"])  # no --socket: the installed service's
        assert health.exit_code == 0 and json.loads(health.output)["process"]["pid"] == pid
        logs = agentmemd(cli, ["service", "logs", "--no-follow", "--lines", "5"])
        assert logs.exit_code == 0 and str(here.state_dir / "agentmemd.log") in logs.stderr
        assert (here.state_dir / "agentmemd.log").stat().st_mode & 0o777 == 0o600

        stopped = agentmemd(cli, ["service", "stop"])
        assert stopped.exit_code == 0 and f"kill -TERM {pid}" in stopped.output
        down = agentmemd(cli, ["service", "status"])
        assert down.exit_code == 3 and "start it: agentmemd service start" in down.output
        doctor = agentmemd(cli, ["doctor"])
        assert str(here.socket) in doctor.output and "agentmemd service start" in doctor.output, doctor.output
        assert "~/.agentmemd" not in doctor.output  # not a second, empty store
        refused = agentmemd(cli, ["health"])
        assert refused.exit_code != 0 and str(here.socket) in refused.output  # it names the service's socket

        started = agentmemd(cli, ["service", "start"])
        assert started.exit_code == 0 and "started" in started.output, started.output
        # Killed, its socket file left behind, and a config it refuses: the start says so (it said
        # "started", the stale socket file taken for the new daemon's).
        killed = int((here.state_dir / "agentmemd.pid").read_text())
        os.kill(killed, signal.SIGKILL)
        wait_for(lambda: agentmemd(cli, ["service", "status"]).exit_code == 3, 60)
        assert here.socket.exists()
        good = config.read_text()
        config.write_text(good + "\n[server\n")
        refused = agentmemd(cli, ["service", "start"])
        assert refused.exit_code != 0 and "not valid TOML" in refused.output, refused.output
        config.write_text(good)
        again = agentmemd(cli, ["service", "start"])
        assert again.exit_code == 0 and "started" in again.output, again.output
    finally:
        removed = agentmemd(cli, ["service", "uninstall"])
    assert removed.exit_code == 0 and "kill -TERM" in removed.output, removed.output
    assert not here.detached_file.exists() and here.data_dir.exists()
    assert not here.socket.exists()

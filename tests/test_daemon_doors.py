"""The doors a daemon starts from its config (`[dashboard]`, `[proxy]`, `[mcp]` listen): real
`agentmemd serve` processes, their door children on free loopback ports, real HTTP against each,
local fake upstreams for the proxy. And `agentmemd proxy --config`: the file's [proxy] section,
its flags winning over it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess

import httpx2
import pytest
from conftest import DaemonProcess, free_port, wait_for, write_config
from doors import start_door, stop
from fake_anthropic import FakeAnthropic

from agentmemd.daemon.dashboard.access import TOKEN_FILE
from agentmemd.daemon.host.door_children import MAX_RESTARTS

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)

ANTHROPIC = {"anthropic-version": "2023-06-01"}  # what tells the proxy a passed-through call is Anthropic's
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}


def log_entries(d: DaemonProcess) -> list[dict]:
    return [json.loads(line) for line in d.log().splitlines()]


def ready(d: DaemonProcess) -> dict:
    [line] = wait_for(lambda: [e for e in log_entries(d) if e["event"] == "ready"], timeout=120)
    return line


def doors_of(d: DaemonProcess) -> dict[str, dict]:
    return {door["name"]: door for door in d.call("health")["process"]["doors"]}


def accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def test_the_daemon_starts_every_configured_door_and_stops_them_with_it(spawn):
    ports = {name: free_port() for name in ("dashboard", "proxy", "mcp")}
    listen = {name: f"127.0.0.1:{port}" for name, port in ports.items()}
    with FakeAnthropic() as anthropic, FakeAnthropic() as openai:
        config = {
            "dashboard": {"listen": listen["dashboard"]},
            "proxy": {"listen": listen["proxy"], "upstream": anthropic.base_url, "openai_upstream": openai.base_url},
            "mcp": {"listen": listen["mcp"]},
        }
        d = spawn(config, start=False)
        try:
            d.start()
            line = ready(d)
            doors = doors_of(d)
            assert list(doors) == ["dashboard", "proxy", "mcp"]
            for name, door in doors.items():
                assert door["listen"] == listen[name] and door["running"] and door["pid"] > 0
                assert door["log"] == str(d.data_dir.resolve() / f"{name}.log")
            assert [door["url"] for door in doors.values()] == [
                f"http://{listen['dashboard']}/",
                f"http://{listen['proxy']}/",
                f"http://{listen['mcp']}/mcp",
            ]
            assert line["doors"] == list(doors.values())  # the ready line names them as health does

            dashboard = f"http://{listen['dashboard']}/memories"
            token = (d.data_dir / TOKEN_FILE).read_text().strip()
            assert httpx2.get(dashboard).status_code == 401
            assert httpx2.get(dashboard, headers={"Authorization": f"Bearer {token}"}).status_code == 200

            # Passed through to the upstreams the config names: by the anthropic-version header.
            assert httpx2.get(f"http://{listen['proxy']}/v1/models", headers=ANTHROPIC).status_code == 200
            assert httpx2.get(f"http://{listen['proxy']}/v1/models").status_code == 200
            assert [r["path"] for r in anthropic.requests] == ["/v1/models"]
            assert [r["path"] for r in openai.requests] == ["/v1/models"]

            mcp = f"http://{listen['mcp']}/mcp"
            missing = httpx2.post(mcp, json=INITIALIZE, headers=MCP_HEADERS, timeout=30)
            assert missing.status_code == 401 and "token create" in missing.json()["error"]
            secret = d.call("access.tokens.create", {"name": "mcp-http", "namespaces": ["default"]})["secret"]
            bearer = {**MCP_HEADERS, "authorization": f"Bearer {secret}"}
            answered = httpx2.post(mcp, json=INITIALIZE, headers=bearer, timeout=30)
            assert answered.status_code == 200 and '"serverInfo"' in answered.text

            for name in ports:
                assert (d.data_dir / f"{name}.log").stat().st_mode & 0o777 == 0o600
            assert f"http://{listen['proxy']}" in (d.data_dir / "proxy.log").read_text()
        finally:
            assert d.terminate() == 0  # SIGTERM, whatever happened: the daemon stops its doors
    assert not any(accepts(port) for port in ports.values())  # stopped with the daemon
    for door in doors.values():
        with pytest.raises(ProcessLookupError):
            os.kill(door["pid"], 0)
    assert [e for e in log_entries(d) if e["level"] != "info"] == []


def _gone(pid: int) -> bool:
    """No such process, or one that has exited and waits to be reaped by whoever adopted it."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def test_the_doors_of_a_killed_daemon_stop_by_themselves(spawn):
    """kill -9 gives the daemon no chance to stop its doors: they see their parent gone and stop,
    freeing their ports, instead of serving on in front of a dead socket."""
    ports = {name: free_port() for name in ("dashboard", "proxy", "mcp")}
    with FakeAnthropic() as upstream:
        config = {
            "dashboard": {"listen": f"127.0.0.1:{ports['dashboard']}"},
            "proxy": {"listen": f"127.0.0.1:{ports['proxy']}", "upstream": upstream.base_url},
            "mcp": {"listen": f"127.0.0.1:{ports['mcp']}"},
        }
        d = spawn(config, start=False)
        d.start()
        ready(d)
        wait_for(lambda: all(accepts(port) for port in ports.values()), timeout=60)
        pids = [door["pid"] for door in doors_of(d).values()]
        d.proc.kill()
        d.proc.wait(timeout=30)
        wait_for(lambda: all(_gone(pid) for pid in pids), timeout=60)
        assert not any(accepts(port) for port in ports.values())
        for name in ports:
            assert "the daemon that started this door is gone; stopping" in (d.data_dir / f"{name}.log").read_text()


def test_a_door_that_exits_is_reported_and_started_again_a_bounded_number_of_times(spawn):
    held = socket.create_server(("127.0.0.1", 0))  # the dashboard's port, taken: its process cannot listen
    mcp_port = free_port()
    config = {
        "dashboard": {"listen": f"127.0.0.1:{held.getsockname()[1]}"},
        "mcp": {"listen": f"127.0.0.1:{mcp_port}"},
    }
    d = spawn(config, start=False)
    try:
        d.start()
        wait_for(lambda: accepts(mcp_port), timeout=60)
        first = doors_of(d)["mcp"]["pid"]
        os.kill(first, signal.SIGKILL)
        again = wait_for(lambda: (door := doors_of(d)["mcp"])["running"] and door["pid"] != first and door, timeout=60)
        wait_for(lambda: accepts(mcp_port), timeout=60)
        assert again["url"] == f"http://127.0.0.1:{mcp_port}/mcp"

        gave_up = wait_for(lambda: [e for e in log_entries(d) if e["level"] == "error"], timeout=120)
        assert not doors_of(d)["dashboard"]["running"]
        assert [(e["event"], e["door"], e["restarts"]) for e in gave_up] == [
            ("door exited; not starting it again (see its log)", "dashboard", MAX_RESTARTS)
        ]
        restarts = [e for e in log_entries(d) if e["event"] == "door exited; starting it again"]
        assert [e["door"] for e in restarts].count("dashboard") == MAX_RESTARTS
        assert [e["door"] for e in restarts].count("mcp") == 1 and restarts[0]["log"].endswith(".log")
        assert "address already in use" in (d.data_dir / "dashboard.log").read_text().lower()
    finally:
        d.terminate()  # SIGTERM, whatever happened: the daemon stops its doors
        held.close()


@pytest.mark.parametrize(
    ("config", "refusal"),
    [
        (
            {"proxy": {"listen": "0.0.0.0:1"}},
            "[proxy] listen 0.0.0.0:1: 0.0.0.0 is not loopback; set allow_remote = true",
        ),
        ({"mcp": {"listen": "localhost"}}, "[mcp] listen: expected HOST:PORT (e.g. 127.0.0.1:8789), got 'localhost'"),
        (
            {"dashboard": {"listen": "127.0.0.1:1"}, "mcp": {"listen": "127.0.0.1:1"}},
            "[mcp] listen 127.0.0.1:1: [dashboard] listens there already",
        ),
    ],
)
def test_a_bad_listen_address_refuses_the_start_and_creates_nothing(short_tmp, config, refusal):
    """Exit 2, a config mistake: a service unit does not restart it in vain (it exited 1)."""
    d = DaemonProcess(short_tmp, config)
    refused = subprocess.run(d.command(), capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and refused.stderr.startswith(f"agentmemd: {refusal}")
    assert not d.data_dir.exists()


def test_the_proxy_command_reads_its_config_section_and_its_flags_win(short_tmp):
    port = free_port()
    with FakeAnthropic() as anthropic, FakeAnthropic() as openai:
        path = write_config(
            short_tmp / "proxy.toml",
            {
                "proxy": {
                    "listen": f"127.0.0.1:{port}",
                    "upstream": anthropic.base_url,
                    "openai_upstream": openai.base_url,
                }
            },
        )
        nobody = str(short_tmp / "nobody.sock")  # passing through needs no daemon
        proc = start_door(["proxy", "--socket", nobody, "--config", str(path)], port, short_tmp / "file.log")
        try:
            assert httpx2.get(f"http://127.0.0.1:{port}/v1/models", headers=ANTHROPIC).status_code == 200
        finally:
            stop(proc)
        assert [r["path"] for r in anthropic.requests] == ["/v1/models"]
        assert [r["path"] for r in openai.requests] == ["/"]  # start_door's probe: no anthropic-version

        flagged = free_port()
        args = ["proxy", "--socket", nobody, "--config", str(path), "--listen", f"127.0.0.1:{flagged}"]
        proc = start_door([*args, "--upstream", openai.base_url], flagged, short_tmp / "flags.log")
        try:
            assert httpx2.get(f"http://127.0.0.1:{flagged}/v1/models", headers=ANTHROPIC).status_code == 200
        finally:
            stop(proc)
        assert [r["path"] for r in anthropic.requests] == ["/v1/models"]  # the flag's upstream, not the file's
        assert [r["path"] for r in openai.requests] == ["/", "/", "/v1/models"]
        assert (
            f"agentmemd proxy: http://127.0.0.1:{flagged} -> {openai.base_url}"
            in (short_tmp / "flags.stdout").read_text() + (short_tmp / "flags.log").read_text()
        )


def test_every_door_section_of_the_config_is_a_declared_door_whose_command_line_the_cli_takes():
    """A door is declared once (its package's door.py, listed in DOORS): the config's door sections
    are exactly the declared doors, and the command line the daemon starts each with is one its CLI
    command accepts (a renamed flag fails here, not in a daemon's log)."""
    from pathlib import Path

    from agentmemd.daemon.cli.main import cli
    from agentmemd.daemon.host.door_children import DOORS
    from agentmemd.memory.core.config import Config, DoorSection, load_config

    sections = {name for name, f in Config.model_fields.items() if issubclass(f.annotation, DoorSection)}
    assert sections == {door.name for door in DOORS}
    everything = {"listen": "127.0.0.1:1", "allow_remote": True}
    extras = {"dashboard": {"host_names": ["box.local"]}, "webhooks": {"namespace": "live", "me": ["telegram:1"]}}
    for door in DOORS:
        config = load_config(None, {door.name: everything | extras.get(door.name, {})})
        name, *arguments = door.arguments(door.section_of(config), Path("/run/a.sock"), Path("/data"))
        assert name == door.name
        command = cli.commands[name]
        command.make_context(name, [*arguments, "--allow-remote"])  # a usage error raises


def test_the_daemon_starts_the_webhooks_door_with_its_section_and_its_environment_s_secret(spawn, monkeypatch):
    monkeypatch.setenv("AGENTMEMD_TELEGRAM_SECRET", "s3cret")
    port = free_port()
    config = {"webhooks": {"listen": f"127.0.0.1:{port}", "namespace": "live", "me": ["telegram:user1001"]}}
    d = spawn(config, start=False)
    try:
        d.start()
        ready(d)
        door = doors_of(d)["webhooks"]
        assert door["url"] == f"http://127.0.0.1:{port}/" and door["running"]
        wait_for(lambda: accepts(port), timeout=60)
        update = {
            "update_id": 1,
            "message": {
                "message_id": 7,
                "from": {"id": 1001, "is_bot": False, "first_name": "Carla"},
                "chat": {"id": -100300, "type": "supergroup", "title": "Pottery night"},
                "date": 1710234940,
                "text": "Kiln party at mine on Saturday",
            },
        }
        url = f"http://127.0.0.1:{port}/telegram"
        assert httpx2.post(url, json=update).status_code == 401  # no secret: refused
        sent = httpx2.post(url, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": "s3cret"})
        assert sent.status_code == 200 and sent.json()["stored"] == 1, sent.text
        [turn] = d.call("conversation.search", {"query": "kiln party", "namespace": "live"})["turns"]
        assert turn["person"] == "user"  # [webhooks] me: Carla is the user
    finally:
        assert d.terminate() == 0
    assert not accepts(port)

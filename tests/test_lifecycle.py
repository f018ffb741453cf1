"""The process: lock file, clean SIGTERM, kill -9 durability, stale lock/socket, bad config."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time

import pytest
from conftest import DaemonProcess

pytestmark = pytest.mark.process  # the tier (pyproject.toml)


def test_second_daemon_on_same_data_dir_is_refused(spawn, short_tmp):
    first = spawn()
    second = DaemonProcess(short_tmp, {})
    second.socket = short_tmp / "other.sock"
    proc = subprocess.run(second.command(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "another agentmemd" in proc.stderr and str(first.data_dir) in proc.stderr
    assert first.call("health")["status"] == "ok"


def test_sigterm_shuts_down_cleanly(spawn):
    d = spawn()
    mid = d.call("memory.add", {"content": "Saved right before shutdown.", "type": "fact"})["id"]
    assert d.terminate(signal.SIGTERM) == 0
    assert not d.socket.exists()
    assert '"event": "stopped"' in d.log()
    again = DaemonProcess(d.root, {}).start()
    try:
        assert again.call("memory.get", {"id": mid})["content"] == "Saved right before shutdown."
    finally:
        again.terminate()


def test_acknowledged_writes_survive_kill_9(spawn):
    d = spawn()
    acked: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def writer(n: int) -> None:
        try:
            with d.client() as c:
                i = 0
                while not stop.is_set():
                    mid = c.call("memory.add", {"content": f"writer {n} fact {i}: the kettle is blue", "type": "fact"})[
                        "id"
                    ]
                    with lock:
                        acked.append(mid)
                    i += 1
        except (ConnectionError, OSError, ValueError):
            pass  # the daemon died under us: expected

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    while len(acked) < 60:
        time.sleep(0.05)
    d.kill9()
    stop.set()
    for t in threads:
        t.join(10)
    assert d.socket.exists() and (d.data_dir / "agentmemd.lock").exists()  # stale leftovers
    restarted = DaemonProcess(d.root, {}).start()  # not blocked by them
    try:
        with restarted.client() as c:
            for mid in acked:
                assert c.call("memory.get", {"id": mid})["id"] == mid
    finally:
        restarted.terminate()


def test_socket_path_that_is_a_regular_file_is_not_replaced(short_tmp):
    d = DaemonProcess(short_tmp, {})
    d.socket.write_text("not a socket")
    proc = subprocess.run(d.command(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "is not a socket" in proc.stderr
    assert d.socket.read_text() == "not a socket"


@pytest.mark.parametrize(
    "config, needle",
    [
        ("[scoring]\nsimilarity = 'high'\n", "scoring.similarity"),
        ("[decay]\nactive_above = 0.2\n", "decay tiers"),
        ("[nonsense]\nx = 1\n", "nonsense"),
        ("[server\n", "not valid TOML"),
    ],
)
def test_bad_config_is_a_clear_error(short_tmp, config, needle):
    path = short_tmp / "bad.toml"
    path.write_text(config)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agentmemd.daemon.cli",
            "serve",
            "--data-dir",
            str(short_tmp / "d"),
            "--config",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and needle in proc.stderr

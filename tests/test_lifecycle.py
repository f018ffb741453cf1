"""The process: lock file, clean SIGTERM, kill -9 durability, stale lock/socket, bad config."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest
from conftest import NO_JOBS, DaemonProcess, wait_for

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


@pytest.fixture
def small_disk(short_tmp):
    """A 48 MB tmpfs to fill; the test is skipped where this user may not mount one."""
    disk = short_tmp / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_on_a_full_disk_writes_are_the_stores_error_reads_go_on_and_sigterm_stops_cleanly(short_tmp, small_disk):
    """Before: every failed write was an internal error with a traceback, and SIGTERM exited 1 with a
    raw traceback on stderr (the WAL checkpoint raised) and no `stopped` line."""
    from agentmemd.daemon.socket.client import RpcCallError

    d = DaemonProcess(short_tmp, {"jobs": NO_JOBS})
    d.data_dir = small_disk / "data"
    d.start()
    with d.client() as c:
        kept = c.call("memory.add", {"content": "The user keeps bees in the garden", "type": "fact"})["id"]
        free = shutil.disk_usage(small_disk).free
        (small_disk / "filler").write_bytes(b"\0" * (free - 64 * 1024))  # 64 kB left
        codes = []
        vector = [1.0] + [0.0] * 383  # the caller's own: no model time
        for i in range(40):
            try:
                note = {"content": f"Long note {i}: " + "honey and wax " * 2000, "type": "fact", "embedding": vector}
                c.call("memory.add", note)
            except RpcCallError as exc:
                codes.append((exc.code, (exc.data or {}).get("fault")))
                if len(codes) == 3:
                    break
        assert codes and set(codes) == {(-32005, "disk_full")}
        assert c.call("memory.get", {"id": kept})["content"] == "The user keeps bees in the garden"
        # health said "ok" (exit 0) while every write failed
        health = c.call("health")
        assert health["status"] == "store_unavailable" and "disk full" in health["detail"], health
        (small_disk / "filler").unlink()  # room again: the next write succeeds, and health says so
        c.call("memory.add", {"content": "The bees swarmed on Sunday", "type": "fact", "embedding": vector})
        assert c.call("health")["status"] == "ok"
    assert d.terminate(signal.SIGTERM) == 0
    log = d.log()
    assert '"event": "stopped"' in log and "Traceback" not in log
    again = DaemonProcess(short_tmp, {"jobs": NO_JOBS})
    again.data_dir = d.data_dir
    again.start()
    try:
        assert again.call("memory.get", {"id": kept})["id"] == kept  # nothing acknowledged was lost
    finally:
        again.terminate()


def test_a_workspace_the_full_disk_kept_from_being_indexed_is_indexed_once_it_has_room(short_tmp, small_disk):
    """The start-up catch-up failed on a full disk and was never tried again: the workspace stayed
    unindexed (health said nothing was catching up) until a restart or a --sync by hand."""
    workspace = short_tmp / "ws"
    workspace.mkdir()
    for i in range(30):
        (workspace / f"topic-{i:02}.md").write_text(
            f"# Topic {i}\n\n- The quilting fair note {i} is " + "long " * 400 + "\n"
        )
    first = DaemonProcess(short_tmp, {"jobs": NO_JOBS})
    first.data_dir = small_disk / "data"
    first.start()  # the store made, with room
    assert first.terminate(signal.SIGTERM) == 0
    free = shutil.disk_usage(small_disk).free
    (small_disk / "filler").write_bytes(b"\0" * (free - 64 * 1024))  # 64 kB left
    d = DaemonProcess(short_tmp, {"jobs": NO_JOBS, "workspace": {"path": str(workspace)}})
    d.data_dir = first.data_dir
    d.start(caught_up=False)
    try:
        wait_for(lambda: "workspace catch-up waits for the store" in d.log(), timeout=120)
        assert "workspace" in d.call("health")["catching_up"]  # said, while it waits
        (small_disk / "filler").unlink()
        wait_for(lambda: d.call("health")["catching_up"] == [], timeout=120)
        found = d.call("memory.search", {"query": "quilting fair note 7"})["results"]
        assert any("note 7 " in h["content"] for h in found)
        assert "workspace catch-up failed" not in d.log()
    finally:
        d.terminate()


def test_a_ready_daemon_freezes_its_start_up_objects_and_hands_the_gil_over_often(spawn, short_tmp, monkeypatch):
    """Python's full collections walked the ~430,000 objects start-up made (torch, the model) in
    ~250 ms holding the GIL, every 20-30 s of an import, and every request waited; a request's
    thread also waited up to 5 ms (the default switch interval) each time it took the GIL back
    from a background thread. Read from inside the process as it exits."""
    site = short_tmp / "site"
    site.mkdir()
    report = short_tmp / "interpreter.json"
    (site / "sitecustomize.py").write_text(
        "import atexit, gc, json, os, sys\n"
        "def _report():\n"
        "    with open(os.environ['AGENTMEMD_TEST_REPORT'], 'w') as f:\n"
        "        json.dump({'frozen': gc.get_freeze_count(), 'switch': sys.getswitchinterval(),\n"
        "                   'collecting': gc.isenabled()}, f)\n"
        "atexit.register(_report)\n"
    )
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("AGENTMEMD_TEST_REPORT", str(report))
    d = spawn()
    deadline = time.monotonic() + 60
    while '"event": "ready"' not in d.log():
        assert time.monotonic() < deadline, d.log()[-2000:]
        time.sleep(0.05)
    assert d.terminate() == 0
    seen = json.loads(report.read_text())
    assert seen["frozen"] > 100_000  # the model's objects, and the rest of start-up
    assert seen["switch"] <= 0.001
    assert seen["collecting"]  # off through start-up only


def test_consolidations_libraries_load_at_ready_only_where_a_consolidation_is_scheduled(spawn, short_tmp):
    """Imported by the first scheduled consolidation, scikit-learn's ~0.7 s of imports stalled every
    request beside it, so a daemon with a schedule imports them once it is ready. One without a
    schedule is spared them (~85 MB, and every test daemon's stop waited for the import)."""
    loaded = '"event": "consolidation\'s libraries loaded"'
    for name in ("scheduled", "unscheduled"):
        (short_tmp / name).mkdir()
    scheduled = spawn({"jobs": {**NO_JOBS, "consolidate": "30 3 * * *"}}, root=short_tmp / "scheduled")
    unscheduled = spawn(root=short_tmp / "unscheduled")
    deadline = time.monotonic() + 120
    while loaded not in scheduled.log() or '"event": "ready"' not in unscheduled.log():
        assert time.monotonic() < deadline, scheduled.log()[-2000:] + unscheduled.log()[-2000:]
        time.sleep(0.05)
    # The import is chosen (or not) as the ready line is written, and stopping waits for it.
    assert unscheduled.terminate() == 0
    assert loaded not in unscheduled.log() and '"event": "stopped"' in unscheduled.log()
    assert scheduled.terminate() == 0


def test_bench_start_times_a_fresh_daemon_to_its_answer_its_ready_and_its_stop():
    from click.testing import CliRunner

    from agentmemd.daemon.cli.main import cli

    done = CliRunner().invoke(cli, ["bench", "start", "--rounds", "1"])
    assert done.exit_code == 0, done.output
    figures = json.loads(done.stdout)
    (one,) = figures["each"]
    assert 0 < one["first_answer_s"] <= one["ready_s"]  # the socket answers before the model is loaded
    assert 0 < one["model_load_s"] < one["ready_s"]  # read from the daemon's ready line
    assert one["stop_s"] > 0 and one["daemon_cpu_s"] > 0
    assert figures["ready_s"] == {"p50": one["ready_s"], "max": one["ready_s"]}

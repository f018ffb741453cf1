"""`agentmemd doctor` against a real daemon (with a workspace and the dashboard it starts), a
daemon that answers what the test wants (tests/fake_daemon.py), and no daemon at all."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import NO_JOBS, DaemonProcess, free_port, wait_for
from fake_daemon import FakeDaemon

from agentmemd.daemon import __version__
from agentmemd.daemon.cli import doctor
from agentmemd.daemon.cli.main import cli

pytestmark = pytest.mark.process  # the tier (pyproject.toml)


def run(socket_path: Path, *args: str):
    return CliRunner().invoke(cli, ["--socket", str(socket_path), *args])


def findings(socket_path: Path, *args: str) -> tuple[int, dict[str, dict]]:
    """The exit code and each check's finding, by check name (`--json`)."""
    result = run(socket_path, "--json", "doctor", *args)
    return result.exit_code, {f["check"]: f for f in json.loads(result.stdout)}


def statuses(found: dict[str, dict]) -> dict[str, str]:
    return {check: f["status"] for check, f in found.items()}


@pytest.fixture(scope="module")
def served():
    """A daemon with a workspace and the dashboard it starts itself ([dashboard] listen)."""
    root = Path(tempfile.mkdtemp(prefix="amd", dir="/tmp"))
    (root / "ws").mkdir()
    config = {
        "jobs": NO_JOBS,
        "workspace": {"path": str(root / "ws")},
        "dashboard": {"listen": f"127.0.0.1:{free_port()}"},
    }
    d = DaemonProcess(root, config).start()
    try:
        # The dashboard child is started beside the daemon: wait until it accepts.
        wait_for(lambda: findings(d.socket)[0] == 0, timeout=60)
        yield d
    finally:
        d.terminate()
        shutil.rmtree(root, ignore_errors=True)


def test_a_healthy_daemon_passes_every_check(served):
    code, found = findings(served.socket)
    assert code == 0
    assert statuses(found) == {
        "daemon": "ok",
        "version": "ok",
        "model": "ok",
        "socket": "ok",
        "data dir": "ok",
        "data files": "ok",
        "database": "ok",  # read whole beside the running daemon
        "disk": "ok",
        "workspace": "ok",
        "door dashboard": "ok",
        "secrets": "ok",
    }, found
    assert __version__ in found["version"]["detail"]
    assert str(served.root / "ws") in found["workspace"]["detail"]
    # A person reads one line per check: status, what, detail.
    lines = run(served.socket, "doctor").stdout.splitlines()
    assert len(lines) == len(found) and all(line.startswith("ok  ") for line in lines)
    assert any(line.split()[:3] == ["ok", "door", "dashboard"] for line in lines)


def test_a_loosened_data_dir_file_or_socket_fails_naming_the_fix(served):
    data_dir, database = served.data_dir.resolve(), next(p for p in served.data_dir.iterdir() if p.suffix == ".db")
    try:
        data_dir.chmod(0o755)
        database.chmod(0o644)
        served.socket.chmod(0o666)
        result = run(served.socket, "doctor")
        code, found = findings(served.socket)
    finally:
        data_dir.chmod(0o700)
        database.chmod(0o600)
        served.socket.chmod(0o600)
    assert result.exit_code == code == 1
    assert found["data dir"]["status"] == "fail" and found["data dir"]["fix"] == f"chmod 700 {data_dir}"
    assert "0755" in found["data dir"]["detail"]
    assert found["data files"]["status"] == "fail" and str(database.resolve()) in found["data files"]["fix"]
    assert f"{database.name} 0644" in found["data files"]["detail"]
    assert found["socket"]["status"] == "fail" and found["socket"]["fix"] == f"chmod 600 {served.socket}"
    [line] = [line for line in result.stdout.splitlines() if line.split()[:3] == ["fail", "data", "dir"]]
    assert line.endswith(f"{data_dir} is 0755: others may read memories; fix: chmod 700 {data_dir}")
    assert findings(served.socket)[0] == 0  # tightened again: all ok


def test_a_missing_workspace_fails(served):
    workspace = served.root / "ws"
    workspace.rename(served.root / "ws-moved")
    try:
        code, found = findings(served.socket)
    finally:
        (served.root / "ws-moved").rename(workspace)
    assert code == 1 and found["workspace"]["status"] == "fail"
    assert (
        "does not exist" in found["workspace"]["detail"] and f"agentmemd init {workspace}" in found["workspace"]["fix"]
    )


def test_a_door_the_daemon_started_that_died_fails(spawn, short_tmp):
    d = spawn({"dashboard": {"listen": f"127.0.0.1:{free_port()}"}})
    wait_for(lambda: findings(d.socket)[0] == 0, timeout=60)
    [door] = d.call("health")["process"]["doors"]
    os.kill(door["pid"], signal.SIGKILL)
    wait_for(lambda: not d.call("health")["process"]["doors"][0]["running"])
    code, found = findings(d.socket)
    assert code == 1 and found["door dashboard"]["status"] == "fail"
    assert "not running" in found["door dashboard"]["detail"] and door["log"] in found["door dashboard"]["detail"]
    assert {c for c, s in statuses(found).items() if s != "ok"} == {"door dashboard"}


# ---- a daemon that answers health as the test wants ------------------------------------------


@pytest.fixture
def fake(short_tmp):
    """A fake daemon on short_tmp/s.sock; its health answer is the dict yielded, as the test changes it."""
    (short_tmp / "data").mkdir(mode=0o700)
    process = {"pid": os.getpid(), "started": "2026-01-01T00:00:00Z", "data_dir": str(short_tmp / "data")}
    process |= {"socket": str(short_tmp / "s.sock"), "workspace": None, "doors": []}
    answer = {"status": "ok", "version": __version__, "memories": 3, "catching_up": [], "process": process}
    with FakeDaemon(short_tmp / "s.sock", lambda method, params: {"result": answer}):
        (short_tmp / "s.sock").chmod(0o600)  # as the daemon makes it
        assert findings(short_tmp / "s.sock")[0] == 0  # as it stands, every check passes
        yield answer


def test_a_daemon_of_another_version_fails_naming_both(fake, short_tmp):
    fake["version"] = "9.9.9"
    code, found = findings(short_tmp / "s.sock")
    assert code == 1 and found["version"]["status"] == "fail"
    assert "9.9.9" in found["version"]["detail"] and __version__ in found["version"]["detail"]
    assert found["daemon"]["status"] == "ok"


def test_a_daemon_whose_health_this_cli_cannot_read_fails_naming_both_versions(fake, short_tmp):
    for key in ("status", "process"):
        del fake[key]  # as an older daemon answered
    fake["version"] = "0.0.1"
    code, found = findings(short_tmp / "s.sock")
    assert code == 1 and statuses(found) == {"daemon": "ok", "version": "fail"}
    assert "0.0.1" in found["version"]["detail"] and __version__ in found["version"]["detail"]


def test_a_door_that_runs_but_does_not_listen_fails(fake, short_tmp):
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))  # bound, never listening: a connection to it is refused
        listen = f"127.0.0.1:{held.getsockname()[1]}"
        door = {"name": "proxy", "listen": listen, "url": f"http://{listen}/", "pid": os.getpid(), "running": True}
        fake["process"]["doors"] = [door | {"log": str(short_tmp / "proxy.log")}]
        code, found = findings(short_tmp / "s.sock")
        held.listen()
        assert findings(short_tmp / "s.sock")[0] == 0  # once it listens, it passes
    assert code == 1 and found["door proxy"]["status"] == "fail"
    assert f"nothing accepts on {listen}" in found["door proxy"]["detail"]
    assert str(short_tmp / "proxy.log") in found["door proxy"]["detail"]


def test_a_model_that_failed_fails_saying_why_and_one_still_loading_warns(fake, short_tmp):
    fake |= {"status": "model_failed", "detail": "no weights at /nowhere"}
    code, found = findings(short_tmp / "s.sock")
    assert code == 1 and found["model"]["status"] == "fail" and "no weights at /nowhere" in found["model"]["detail"]
    fake |= {"status": "starting", "detail": None}
    code, found = findings(short_tmp / "s.sock")
    assert code == 0 and found["model"]["status"] == "warn"  # warnings alone exit 0
    assert "still loading" in found["model"]["detail"]
    # The store away (a PostgreSQL restart): the daemon's check fails saying so; the model is not blamed.
    fake |= {"status": "store_unavailable", "detail": "cannot connect to the PostgreSQL store: connection is bad"}
    code, found = findings(short_tmp / "s.sock")
    assert code == 1 and found["model"]["status"] == "warn" and "reinstall" not in found["model"].get("fix", "")
    assert "cannot reach its store" in found["model"]["detail"]


def test_disk_space_warns_then_fails_under_its_thresholds(fake, short_tmp, monkeypatch):
    free = shutil.disk_usage(short_tmp).free
    monkeypatch.setattr(doctor, "DISK_WARN_BYTES", free * 2)
    code, found = findings(short_tmp / "s.sock")
    assert code == 0 and found["disk"]["status"] == "warn"
    monkeypatch.setattr(doctor, "DISK_FAIL_BYTES", free * 2)
    code, found = findings(short_tmp / "s.sock")
    assert code == 1 and found["disk"]["status"] == "fail" and "writes will fail" in found["disk"]["detail"]


# ---- no daemon -----------------------------------------------------------------------------------


def test_no_daemon_fails_saying_how_to_start_it_and_still_checks_what_is_on_disk(short_tmp):
    sock, data = short_tmp / "s.sock", short_tmp / "data"
    data.mkdir(mode=0o700)
    (data / "agentmemd.db").touch(mode=0o644)
    code, found = findings(sock, "--data-dir", str(data))
    assert code == 1 and found["daemon"]["status"] == "fail" and "not reachable" in found["daemon"]["detail"]
    assert f"agentmemd serve --data-dir {data} --socket {sock}" in found["daemon"]["fix"]
    assert statuses(found) == {
        "daemon": "fail",
        "socket": "ok",
        "data dir": "ok",
        "data files": "fail",
        "database": "ok",  # an empty file is a new database
        "disk": "ok",
    }
    assert "agentmemd.db 0644" in found["data files"]["detail"]
    # Without --data-dir, it says what it could not check.
    code, found = findings(sock)
    assert found["data dir"]["status"] == "warn" and found["data dir"]["fix"] == "agentmemd doctor --data-dir DIR"


def test_a_database_cut_short_fails_here_and_serve_says_so_without_a_traceback(short_tmp):
    """A file cut short (a disk that failed, a copy interrupted): `serve` printed a 46-line
    traceback and this said the data dir was fine, its fix the start that crashed."""
    from agentmemd.memory.store.database import Store

    sock, data = short_tmp / "s.sock", short_tmp / "data"
    data.mkdir(mode=0o700)
    db = data / "agentmemd.db"
    Store(db, dim=384, model="all-MiniLM-L6-v2").close()
    size = db.stat().st_size
    with db.open("r+b") as f:  # cut short, as a disk that filled or a copy interrupted leaves it
        f.truncate(size // 2)
    code, found = findings(sock, "--data-dir", str(data))
    assert code == 1 and found["database"]["status"] == "fail"
    assert "malformed" in found["database"]["detail"] and ".recover" in found["database"]["fix"]
    done = CliRunner().invoke(cli, ["serve", "--data-dir", str(data), "--socket", str(sock)])
    assert done.exit_code == 1 and "Traceback" not in done.output
    assert f"the database {db} cannot be read" in done.output and "Nothing was changed" in done.output
    directory = CliRunner().invoke(cli, ["serve", "--data-dir", str(data), "--config", str(short_tmp)])
    assert directory.exit_code == 2 and "is a directory" in directory.output  # a bad config: not restarted


SPANISH = [
    "Mañana a las nueve tengo la revisión del coche en el taller de la calle Mayor",
    "Mi hermana llega el viernes por la noche desde Valencia con los niños",
    "El alquiler del piso sube cincuenta euros a partir de enero, qué rabia",
    "Hemos quedado para cenar en casa de Lucía el sábado, llevo el vino",
    "No encuentro las llaves del trastero, creo que se quedaron en la oficina",
    "La reunión con el banco se ha movido al martes que viene por la tarde",
    "Mi madre quiere que vayamos todos a la playa en agosto, como cada año",
    "He empezado a correr por el parque tres veces a la semana antes del trabajo",
    "El médico dice que tengo que dejar el café por las tardes para dormir mejor",
    "Los vecinos de arriba hacen obras y el ruido empieza a las ocho de la mañana",
    "Para el cumpleaños de papá pensamos regalarle una cafetera italiana nueva",
    "El tren a Madrid sale a las siete y media desde la estación del norte",
]


def test_memories_in_languages_the_model_does_not_serve_warn_with_the_model_that_does(spawn):
    """A person whose chats are in Spanish, on the English-only default model: a question finds
    them by their words alone (10 of 24 answers in a stranger's WhatsApp chats, 15 with e5), and
    nothing said so."""
    d = spawn()
    english = [
        f"The user mentioned item {i} of the shopping list: apples, bread and milk for the week" for i in range(10)
    ]
    d.call("memory.add_many", {"items": [{"content": t, "type": "fact"} for t in [*SPANISH, *SPANISH[:10], *english]]})
    stats = d.call("stats", {})
    assert stats["languages"]["spanish"] >= 20 and stats["languages_unserved"] == {
        "spanish": stats["languages"]["spanish"]
    }
    code, found = findings(d.socket)
    assert code == 0 and found["languages"]["status"] == "warn"
    assert "all-MiniLM-L6-v2 does not serve" in found["languages"]["detail"]
    assert 'model = "multilingual-e5-small"' in found["languages"]["fix"]


def test_a_stale_socket_file_warns_and_a_file_that_is_no_socket_fails(short_tmp):
    sock = short_tmp / "s.sock"
    left = socket.socket(socket.AF_UNIX)
    left.bind(str(sock))
    left.close()  # a daemon killed with -9 leaves its socket file
    code, found = findings(sock)
    assert code == 1 and found["socket"]["status"] == "warn" and "stale" in found["socket"]["detail"]
    sock.unlink()
    sock.write_text("not a socket")
    code, found = findings(sock)
    assert found["socket"]["status"] == "fail" and "not a socket" in found["socket"]["detail"]
    assert found["socket"]["fix"] == f"move {sock} away"


def test_a_workspace_file_not_indexed_as_written_warns_naming_the_line(spawn, short_tmp):
    workspace = short_tmp / "ws"
    workspace.mkdir()
    # A Windows editor's byte order mark, then a code fence someone forgot to close.
    (workspace / "MEMORY.md").write_text(
        "\ufeff# Notes\n\n- Ana likes green tea\n\n```\nssh ana@box\n\n- Ben's birthday is 3 May\n", encoding="utf-8"
    )
    d = spawn({"workspace": {"path": str(workspace)}})
    d.call("workspace.sync")
    listed = [m["content"] for m in d.call("memory.list", {"source": "MEMORY.md"})["items"]]
    assert "Notes" not in " ".join(listed) and "Ana likes green tea" in listed  # the mark is not a memory
    code, found = findings(d.socket)
    assert found["workspace"]["status"] == "warn", found["workspace"]
    assert "MEMORY.md: line 5: a code fence (```) is never closed" in found["workspace"]["detail"]
    assert code == 0


def test_a_database_overwritten_in_the_middle_is_refused_by_serve(short_tmp):
    """Pages in the middle of the file overwritten (the header and schema whole): `serve` opened it,
    said ready, took writes into the broken file, and `doctor` beside it said all was well."""
    import sqlite3

    from agentmemd.memory.store.database import Store

    sock, data = short_tmp / "s.sock", short_tmp / "data"
    data.mkdir(mode=0o700)
    db = data / "agentmemd.db"
    Store(db, dim=384, model="all-MiniLM-L6-v2").close()
    with sqlite3.connect(db) as conn:  # pages enough to break some in the middle
        conn.execute("CREATE TABLE filler (n INTEGER PRIMARY KEY, words TEXT)")
        conn.executemany("INSERT INTO filler (words) VALUES (?)", [(f"words {i} " * 40,) for i in range(3000)])
        conn.execute("CREATE INDEX filler_words ON filler (words)")
    conn.close()
    pages = db.stat().st_size // 4096
    with db.open("r+b") as f:
        f.seek(4096 * (pages // 2))
        f.write(b"\xff" * 4096 * 20)
    serve = [sys.executable, "-m", "agentmemd.daemon.cli", "serve", "--data-dir", str(data), "--socket", str(sock)]
    try:  # a daemon that starts on it serves until stopped: that is the failure
        done = subprocess.run(serve, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("serve started on a damaged database")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"the database {db} cannot be read" in done.stderr and ".recover" in done.stderr
    code, found = findings(sock, "--data-dir", str(data))
    assert code == 1 and found["database"]["status"] == "fail"


def test_a_nearly_full_disk_says_how_much_is_left_in_mib(tmp_path, monkeypatch):
    """34 MiB free was said as "0.0 GiB free … (under 100 MiB)"."""
    from collections import namedtuple

    from agentmemd.daemon.cli import doctor

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(doctor.shutil, "disk_usage", lambda path: usage(10 * 1024**3, 0, 34 * 1024**2))
    found = doctor.check_disk(tmp_path)
    assert found.status == "fail" and found.detail.startswith("34 MiB free"), found

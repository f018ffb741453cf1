"""A daemon's first run, as a person sees it: a real `agentmemd serve` on a fresh data dir logs JSON
lines only (no progress bar, no third party's raw text, no warning) and one "ready" line that says
everything; a data dir made open beforehand is tightened with a warning; a data dir an older
agentmemd wrote is migrated with one line, one a newer agentmemd wrote is refused (exit 1); a Python
warning is a JSON line too."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import DaemonProcess, wait_for
from schema_dirs import OLD_SCHEMA, fingerprint, newer_data_dir, older_data_dir

from agentmemd.memory.core import __version__
from agentmemd.memory.store.schema import known_migrations

pytestmark = pytest.mark.process  # the tier (pyproject.toml)

PROGRESS_BAR_MARKS = ("\r", "█", "it/s")


def log_lines(d: DaemonProcess) -> list[dict]:
    """Every line the daemon wrote (stdout and stderr), each of which must be a JSON object."""
    raw = d.log()
    for mark in PROGRESS_BAR_MARKS:
        assert mark not in raw, f"{mark!r} in the daemon's log:\n{raw}"
    lines = []
    for text in raw.splitlines():
        entry = json.loads(text)  # a line that is not JSON fails here, named in the error
        assert isinstance(entry, dict), text
        lines.append(entry)
    return lines


def ready_lines(d: DaemonProcess) -> list[dict]:
    return [e for e in log_lines(d) if e["event"] == "ready"]


def serve_until_ready(d: DaemonProcess) -> dict:
    d.start()  # by the spawn fixture, which kills it after a test that failed
    wait_for(lambda: ready_lines(d), timeout=120)
    return d.call("health")


def test_a_first_run_logs_json_lines_only_and_one_ready_line_that_says_everything(spawn):
    d = spawn(start=False)
    health = serve_until_ready(d)
    assert d.terminate() == 0
    lines = log_lines(d)
    assert [e for e in lines if e["level"] not in ("debug", "info")] == []  # not one warning on a clean first run
    [ready] = [e for e in lines if e["event"] == "ready"]
    assert ready["level"] == "info" and ready["logger"] == "agentmemd"
    assert ready["socket"] == str(d.socket.resolve()) and ready["data_dir"] == str(d.data_dir.resolve())
    assert ready["workspace"] is None and ready["version"] == __version__
    assert ready["pid"] == d.proc.pid == health["process"]["pid"]
    assert ready["model"]["name"] == "all-MiniLM-L6-v2" and 0 < ready["model"]["load_seconds"] < 120
    assert ready["doors"] == []
    assert health["status"] == "ok"
    assert os.stat(d.data_dir).st_mode & 0o777 == 0o700  # made private, so nothing needed tightening
    events = [e["event"] for e in lines]
    assert events.index("ready") < events.index("shutting down")


def test_a_data_dir_made_open_beforehand_is_tightened_with_one_warning(spawn):
    d = spawn(start=False)
    d.data_dir.mkdir(mode=0o755)
    d.data_dir.chmod(0o755)  # whatever the umask: as `mkdir -p` leaves it
    serve_until_ready(d)
    assert d.terminate() == 0
    warned = [e for e in log_lines(d) if e["level"] != "info"]
    assert [(e["level"], e["event"]) for e in warned] == [
        ("warning", "data dir permissions tightened (memories are private)")
    ]
    assert warned[0]["changed"] == ["data 0o755 -> 0o700"]
    assert os.stat(d.data_dir).st_mode & 0o777 == 0o700


@pytest.mark.sqlite_file
def test_an_older_data_dir_is_migrated_and_logged_in_one_line(spawn):
    d = spawn(start=False)
    older_data_dir(d.data_dir)
    serve_until_ready(d)
    assert d.terminate() == 0
    [upgraded] = [e for e in log_lines(d) if "upgraded" in e["event"]]
    assert upgraded["level"] == "info" and upgraded["event"] == "data dir upgraded"
    assert upgraded["migrations"] == known_migrations()[known_migrations().index(OLD_SCHEMA) :]
    assert (upgraded["from_schema"], upgraded["to_schema"]) == ("m019", known_migrations()[-1][:4])
    assert (upgraded["from_version"], upgraded["to_version"]) == (None, __version__)
    assert [e for e in log_lines(d) if e["level"] != "info"] == []


@pytest.mark.sqlite_file
def test_a_newer_data_dir_is_refused_with_both_versions_and_left_unchanged(spawn):
    d = spawn(start=False)
    newer_data_dir(d.data_dir)
    before = fingerprint(d.data_dir)
    try:
        refused = subprocess.run(d.command(), capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the daemon started on a data dir a newer agentmemd wrote")
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr == (
        f"agentmemd: this data dir was written by agentmemd 0.3.0 (schema m031); this is agentmemd {__version__} "
        f"(schema up to {known_migrations()[-1][:4]}): upgrade agentmemd, or use another --data-dir\n"
    )
    assert fingerprint(d.data_dir) == before


def test_a_python_warning_is_one_json_line_with_its_category_and_place():
    code = (
        "import warnings\n"
        "from agentmemd.daemon.doors.logs import setup_logging\n"
        "setup_logging('info')\n"
        "warnings.warn('this call is going away', DeprecationWarning)\n"
    )
    out = subprocess.run([sys.executable, "-W", "always", "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout == ""
    [line] = [json.loads(text) for text in out.stderr.splitlines()]
    assert (line["level"], line["logger"], line["event"]) == ("warning", "py.warnings", "this call is going away")
    assert line["category"] == "DeprecationWarning" and line["source"] == "<string>:4"

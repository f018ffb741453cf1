"""Scheduled jobs (issue 3): cron from the config, catch-up, no overlap. In-process daemons,
except where only a process shows it (a run killed with -9, the CLI)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest
from click.testing import CliRunner
from conftest import DaemonProcess, write_config

from agentmemd.cron.scheduler import Job, JobRunner
from agentmemd.daemon.cli.main import cli
from agentmemd.daemon.socket.client import RpcCallError
from agentmemd.memory.core.clock import ManualClock, parse_time
from agentmemd.memory.core.errors import Conflict
from agentmemd.memory.store.database import Store

pytestmark = pytest.mark.process  # the tier (pyproject.toml)

JOBS = {
    "timezone": "UTC",
    "decay_sweep": "17 * * * *",
    "consolidate": "30 3 * * *",
    "daily_log": "*/10 * * * *",
    "goals_due": "",
}


def config(start: str) -> dict:
    return {"clock": {"start": start}, "jobs": JOBS}


def jobs_by_name(d: DaemonProcess) -> dict[str, dict]:
    return {j["name"]: j for j in d.call("jobs.list")["jobs"]}


def test_jobs_list_shows_cron_next_run_and_last_result(in_process):
    d = in_process(config("2026-11-20T12:00:00Z"), fake_embedder=True)
    jobs = jobs_by_name(d)
    assert set(jobs) == {"decay_sweep", "consolidate", "daily_log", "goals_due"}
    assert jobs["consolidate"]["cron"] == "30 3 * * *"
    assert jobs["consolidate"]["next_run"] == "2026-11-21T03:30:00.000000Z"
    assert jobs["decay_sweep"]["next_run"] == "2026-11-20T12:17:00.000000Z"
    assert jobs["daily_log"]["next_run"] == "2026-11-20T12:10:00.000000Z"
    assert all(j["runs"] == 0 and j["last_run"] is None for j in jobs.values())  # a first start missed nothing
    assert (
        jobs["goals_due"]["cron"] is None and jobs["goals_due"]["next_run"] is None
    )  # off here; every minute by default

    run = d.call("jobs.run", {"name": "decay_sweep"})
    assert (run["status"], run["trigger"], run["result"]) == ("ok", "manual", {"archived": 0})
    last = jobs_by_name(d)["decay_sweep"]
    assert last["runs"] == 1 and last["last_run"]["id"] == run["id"]
    # A manual run does not move the schedule.
    assert last["next_run"] == "2026-11-20T12:17:00.000000Z"

    with pytest.raises(RpcCallError) as err:
        d.call("jobs.run", {"name": "defragment"})
    assert err.value.code == -32001 and "decay_sweep" in err.value.message


def test_clock_advance_runs_the_jobs_that_came_due_once_each(in_process):
    d = in_process(config("2026-11-20T12:00:00Z"), fake_embedder=True)
    ran = d.call("clock.advance", {"hours": 1})["jobs_ran"]  # 12:10 ... 13:00 is six daily_log fire times
    assert sorted(r["name"] for r in ran) == ["daily_log", "decay_sweep"]
    assert all(r["trigger"] == "schedule" and r["status"] == "ok" for r in ran)
    assert d.call("clock.advance", {"hours": 0.05})["jobs_ran"] == []  # 13:03: nothing due
    ran = d.call("clock.advance", {"hours": 15})["jobs_ran"]  # past 03:30 next day
    assert "consolidate" in [r["name"] for r in ran]
    jobs = jobs_by_name(d)
    assert jobs["consolidate"]["runs"] == 1
    assert jobs["consolidate"]["next_run"] == "2026-11-22T03:30:00.000000Z"


def test_a_job_missed_while_the_daemon_was_down_runs_once_at_start(in_process):
    d = in_process(config("2026-11-20T12:00:00Z"), fake_embedder=True)
    assert all(j["runs"] == 0 for j in jobs_by_name(d).values())
    # Down from Nov 20 12:00 to Nov 23 10:00: three 03:30 consolidations, ~400 daily logs missed.
    d.terminate()
    d = in_process(config("2026-11-23T10:00:00Z"), fake_embedder=True, root=d.root)
    jobs = jobs_by_name(d)
    for name in ("consolidate", "daily_log", "decay_sweep"):
        assert jobs[name]["runs"] == 1, name
        assert jobs[name]["last_run"]["trigger"] == "catch-up"
        assert jobs[name]["last_run"]["status"] == "ok"
    assert jobs["consolidate"]["next_run"] == "2026-11-24T03:30:00.000000Z"
    # Restarted again with nothing missed since: no second catch-up.
    d.terminate()
    d = in_process(config("2026-11-23T10:05:00Z"), fake_embedder=True, root=d.root)
    assert {n: j["runs"] for n, j in jobs_by_name(d).items()} == {
        "decay_sweep": 1,
        "consolidate": 1,
        "daily_log": 1,
        "goals_due": 0,
    }
    runs = d.call("jobs.runs", {"name": "consolidate"})["runs"]
    assert [r["trigger"] for r in runs] == ["catch-up"]


@pytest.mark.sqlite_file
def test_a_killed_run_is_marked_interrupted_and_the_daemon_restarts(spawn):
    d = spawn(config("2026-11-20T12:00:00Z"))
    d.kill9()
    # Simulate a daemon that died inside a job: its run row says 'running'.
    store = Store(d.data_dir / "agentmemd.db", dim=384, model="all-MiniLM-L6-v2")
    store.conn.execute(
        "INSERT INTO job_runs(name, trigger, started, status) VALUES ('consolidate', 'schedule', "
        "'2026-11-20T12:00:00.000000Z', 'running')"
    )
    store.close()
    d.start()
    runs = d.call("jobs.runs", {"name": "consolidate"})["runs"]
    assert [r["status"] for r in runs] == ["interrupted"]
    assert jobs_by_name(d)["consolidate"]["running"] is False


def test_runs_of_one_job_never_overlap(in_process):
    """System clock: three clients ask for the same job at once."""
    d = in_process({"jobs": {**JOBS, "timezone": "UTC"}}, fake_embedder=True)
    d.call(
        "memory.add_many",
        {
            "items": [
                {"content": f"Melanie took the kids to the {place} on day {i}", "type": "fact"}
                for i, place in enumerate(["beach", "lake", "museum", "park", "zoo", "beach", "lake", "museum"] * 25)
            ]
        },
    )
    runs: list[dict] = []

    def ask() -> None:
        runs.append(d.call("jobs.run", {"name": "consolidate"}))

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r["status"] for r in runs] == ["ok"] * 3
    spans = sorted((parse_time(r["started"]), parse_time(r["finished"])) for r in runs)
    for (_, end), (start, _) in zip(spans, spans[1:]):
        assert start >= end  # each run started after the previous one finished
    # The second and third runs found the tree they would build already stored.
    assert sorted(r["result"].get("added", 0) for r in runs)[:2] == [0, 0]


def test_the_runner_refuses_to_start_a_job_that_is_already_running(tmp_path):
    store = Store(tmp_path / "db", dim=4, model="test")
    runner = JobRunner(store, ManualClock(parse_time("2026-11-20T12:00:00Z")), parse_time("2026-01-01").tzinfo)
    seen: list[str] = []

    def reenter() -> dict:
        try:
            runner.run("slow", "manual")
        except Conflict as exc:
            seen.append(exc.message)
        return {"ok": 1}

    runner.add(Job("slow", "calls itself", reenter))
    assert runner.run("slow", "manual")["status"] == "ok"
    assert seen == ["job 'slow' is already running"]
    store.close()


def test_a_failing_job_is_recorded_and_the_daemon_keeps_serving(tmp_path):
    store = Store(tmp_path / "db", dim=4, model="test")
    runner = JobRunner(store, ManualClock(parse_time("2026-11-20T12:00:00Z")), parse_time("2026-01-01").tzinfo)
    runner.add(Job("broken", "always fails", lambda: 1 / 0))
    run = runner.run("broken", "manual")
    assert run["status"] == "error" and run["error"] == "ZeroDivisionError: division by zero"
    store.close()


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"consolidate": "every night"}, "not a crontab expression"),
        ({"consolidate": "61 3 * * *"}, "not a crontab expression"),
        ({"timezone": "Mars/Olympus"}, "unknown time zone"),
    ],
)
def test_bad_schedules_are_config_errors_naming_the_key(tmp_path, bad, message):
    path = write_config(tmp_path / "a.toml", {"jobs": bad})
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "agentmemd.daemon.cli",
            "serve",
            "--data-dir",
            str(tmp_path / "d"),
            "--config",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert message in out.stderr and f"jobs.{next(iter(bad))}" in out.stderr


def test_cli_jobs_and_run_job(spawn):
    d = spawn(config("2026-11-20T12:00:00Z"))

    def cli_run(*args: str):
        return CliRunner().invoke(cli, ["--socket", str(d.socket), *args])

    out = cli_run("run-job", "decay_sweep")
    assert out.exit_code == 0 and "decay_sweep [manual] ok" in out.stdout
    out = cli_run("jobs")
    assert out.exit_code == 0
    assert "cron times in UTC" in out.stdout and "consolidate  30 3 * * *" in out.stdout
    assert "next 2026-11-21T03:30:00.000000Z" in out.stdout
    out = cli_run("--json", "jobs")
    assert json.loads(out.stdout)["jobs"][0]["last_run"]["result"] == {"archived": 0}
    out = cli_run("run-job", "nope")
    # Refused before the daemon is asked, naming the jobs there are.
    assert (
        out.exit_code == 2
        and "'nope' is not one of 'decay_sweep', 'consolidate', 'daily_log', 'goals_due'" in out.stderr
    )

"""The job runner: cron schedules from agentmemd.toml, runs recorded in SQLite.

apscheduler's ``CronTrigger`` computes every fire time. Two things drive the runner:

* with the system clock, an apscheduler ``AsyncIOScheduler`` fires each job on time
  (``max_instances=1``, ``coalesce=True``);
* with a manual clock, ``clock.advance`` calls :meth:`JobRunner.run_due`, so schedules are
  tested without sleeping.

Either way the decision "is this job due?" is made here against the one clock, from
``job_state.checked_through``: every fire time up to that instant has been handled. A
job whose fire time passed while the daemon was down is due at the next start and runs
once, however many fire times it missed.
"""

from __future__ import annotations

import json
import logging
import threading
import traceback
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Any, Callable, Literal

from apscheduler.triggers.cron import CronTrigger

from agentmemd.memory.core.clock import Clock, format_time, parse_time, to_utc
from agentmemd.memory.core.errors import Conflict, NotFound
from agentmemd.memory.core.threads import return_freed_memory, run_here
from agentmemd.memory.store.database import Store
from agentmemd.memory.store.job_tables import JobTables

log = logging.getLogger("agentmemd.cron")

Trigger = Literal["schedule", "catch-up", "manual"]


@dataclass(frozen=True)
class Job:
    name: str
    description: str
    run: Callable[[], dict[str, Any]]
    cron: str = ""  # "" = only by `run-job`
    # False: the whole job runs on the store thread. True: it runs on the caller's thread and hands
    # its SQLite steps to the store thread itself, so its model work (clustering, embedding) does not
    # hold up requests.
    prepares: bool = False


class JobRunner:
    """Runs jobs on the caller's thread (the daemon calls it on its one store thread)."""

    def __init__(self, store: Store, clock: Clock, zone: tzinfo, run_on_store=None):
        self.store = store
        self.tables = JobTables(store)
        self.clock = clock
        self.zone = zone
        self.run_on_store = run_on_store or run_here
        self.jobs: dict[str, Job] = {}
        self.triggers: dict[str, CronTrigger] = {}
        self._running: set[str] = set()
        self._guard = threading.Lock()
        # Runs are one at a time (re-entrant, so a job that asks for itself is refused, not deadlocked).
        self._serial = threading.RLock()

    def add(self, job: Job) -> None:
        self.jobs[job.name] = job
        if job.cron:
            self.triggers[job.name] = CronTrigger.from_crontab(job.cron, timezone=self.zone)

    # ---- schedule arithmetic ----------------------------------------------------

    def next_fire(self, name: str, after: datetime) -> datetime | None:
        """The first fire time strictly after ``after`` (None: no schedule)."""
        trigger = self.triggers.get(name)
        if trigger is None:
            return None
        # CronTrigger answers "first fire time >= now" at one-second resolution.
        start = after.astimezone(self.zone).replace(microsecond=0) + timedelta(seconds=1)
        fire = trigger.get_next_fire_time(None, start)
        return to_utc(fire) if fire is not None else None

    def _checked_through(self) -> dict[str, datetime]:
        return {name: parse_time(at) for name, at in self.tables.checked_through().items()}

    def _set_checked_through(self, name: str, at: datetime) -> None:
        self.tables.set_checked_through(name, format_time(at))

    def due(self, now: datetime) -> list[str]:
        """Jobs with a fire time in (checked_through, now]. A job seen for the first time is
        not due: it starts counting from now (nothing was missed before it existed)."""
        checked = self._checked_through()
        out = []
        for name in self.triggers:
            if name not in checked:
                self._set_checked_through(name, now)
                continue
            fire = self.next_fire(name, checked[name])
            if fire is not None and fire <= now:
                out.append(name)
        return out

    # ---- running ---------------------------------------------------------------

    def catch_up(self) -> list[dict[str, Any]]:
        """At start: each job that missed one or more fire times runs once."""
        # A run the daemon died in the middle of (kill -9, power loss) is over.
        self.run_on_store(self.tables.interrupt_running)
        now = self.clock.now()
        return self._ran([self.run(name, "catch-up", now) for name in self.run_on_store(lambda: self.due(now))])

    def run_due(self) -> list[dict[str, Any]]:
        """Run the jobs whose fire time has come (never on the store thread: runs hop to it)."""
        now = self.clock.now()
        return self._ran([self.run(name, "schedule", now) for name in self.run_on_store(lambda: self.due(now))])

    @staticmethod
    def _ran(runs: list[dict[str, Any] | None]) -> list[dict[str, Any]]:
        """The runs this daemon made (None: another daemon sharing the store claimed that fire time)."""
        return [run for run in runs if run is not None]

    def run(self, name: str, trigger: Trigger, now: datetime | None = None) -> dict[str, Any] | None:
        """Run one job now and record the run. A job already running is not started twice."""
        job = self.jobs.get(name)
        if job is None:
            raise NotFound(f"no job named {name!r}; jobs: {', '.join(sorted(self.jobs))}", {"name": name})
        with self._serial:
            with self._guard:
                if name in self._running:
                    raise Conflict(f"job {name!r} is already running", {"name": name})
                self._running.add(name)
            try:
                return self._run(job, trigger, now or self.clock.now())
            finally:
                with self._guard:
                    self._running.discard(name)

    def _run(self, job: Job, trigger: Trigger, now: datetime) -> dict[str, Any] | None:
        run_id = self.run_on_store(lambda: self._start(job.name, trigger, now))
        if run_id is None:
            log.info("job run by another daemon", extra={"job": job.name, "trigger": trigger})
            return None
        try:
            result = job.run() if job.prepares else self.run_on_store(job.run)
            status, error = "ok", None
        except Exception as exc:  # a failed job is recorded, never fatal to the daemon
            log.error("job failed", extra={"job": job.name, "error": traceback.format_exc(limit=5)})
            result, status, error = None, "error", f"{type(exc).__name__}: {exc}"
        finished = format_time(self.clock.now())
        outcome = json.dumps(result) if result is not None else None
        self.run_on_store(lambda: self.tables.finish_run(run_id, finished, status, outcome, error))
        log.info("job ran", extra={"job": job.name, "trigger": trigger, "status": status, "result": result})
        return_freed_memory()
        return self.run_on_store(lambda: self._run_row(run_id))

    def _start(self, name: str, trigger: Trigger, now: datetime) -> int | None:
        """The run's id, or None when the fire time is no longer due: daemons sharing one store (on
        PostgreSQL) each find it due, and the first to advance ``checked_through`` runs it. The
        check and the claim are one transaction, and a store's write transactions run one at a
        time (SQLite's one writer; PostgreSQL's write lock), so exactly one daemon wins."""
        with self.store.transaction():
            if name in self.triggers and trigger != "manual":
                checked = self._checked_through().get(name)
                fire = self.next_fire(name, checked) if checked is not None else now
                if fire is None or fire > now:
                    return None
                # Before the work, so a job that crashes the daemon is not re-run in a loop at every start.
                self._set_checked_through(name, now)
            return self.tables.start_run(name, trigger, format_time(now))

    # ---- reporting ---------------------------------------------------------------

    def _run_row(self, run_id: int) -> dict[str, Any]:
        return _run_dict(self.tables.run(run_id))

    def runs(self, name: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """The latest ``limit`` runs (of one job, or all), oldest first."""
        return [_run_dict(r) for r in self.tables.latest_runs(name, limit)]

    def runs_between(self, start: datetime, end: datetime) -> list[dict[str, Any]]:
        return [_run_dict(r) for r in self.tables.runs_started_between(format_time(start), format_time(end))]

    def status(self) -> list[dict[str, Any]]:
        checked = self._checked_through()
        now = self.clock.now()
        out = []
        for name, job in self.jobs.items():
            last = self.runs(name, limit=1)
            count = self.tables.count_runs(name)
            nxt = self.next_fire(name, checked.get(name, now))
            out.append(
                {
                    "name": name,
                    "description": job.description,
                    "cron": job.cron or None,
                    "next_run": format_time(nxt) if nxt else None,
                    "running": name in self._running,
                    "runs": count,
                    "last_run": last[0] if last else None,
                }
            )
        return out


def _run_dict(row: tuple) -> dict[str, Any]:
    run_id, name, trigger, started, finished, status, result, error = row
    return {
        "id": run_id,
        "name": name,
        "trigger": trigger,
        "started": started,
        "finished": finished,
        "status": status,
        "result": json.loads(result) if result else None,
        "error": error,
    }

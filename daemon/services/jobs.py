"""JobService: the scheduled jobs, their runs, consolidation's nodes, and the daemon's clock."""

from __future__ import annotations

from typing import Any

from agentmemd.cron.scheduler import JobRunner
from agentmemd.memory.consolidation.consolidator import Consolidator
from agentmemd.memory.core.clock import Clock, ManualClock, format_time
from agentmemd.memory.core.errors import Conflict, InvalidParams
from agentmemd.memory.core.models import ClockAdvanceParams, ConsolidationListParams, JobRunParams, JobRunsParams
from agentmemd.memory.core.threads import RunOnStore, run_here


class JobService:
    def __init__(
        self, runner: JobRunner, consolidator: Consolidator, clock: Clock, run_in_background: RunOnStore = run_here
    ):
        self.runner = runner
        self.consolidator = consolidator
        self.clock = clock
        # A job someone asked for is background work all the same: on a thread of its own, niced,
        # its embeddings behind a request's (a memory.add waited 1.5 s behind a consolidation).
        self.run_in_background = run_in_background

    def list(self) -> dict[str, Any]:
        return {"timezone": str(self.runner.zone), "jobs": self.runner.status()}

    def run(self, p: JobRunParams) -> dict[str, Any]:
        """Run one job now and wait for it."""
        return self.run_in_background(lambda: self.runner.run(p.name, "manual"))

    def runs(self, p: JobRunsParams) -> dict[str, Any]:
        return {"runs": self.runner.runs(p.name, p.limit)}

    def consolidation(self, p: ConsolidationListParams) -> dict[str, Any]:
        return {"nodes": self.consolidator.nodes(p.namespace, p.level)}

    def now(self) -> dict[str, Any]:
        return {"now": format_time(self.clock.now()), "manual": isinstance(self.clock, ManualClock)}

    def advance_clock(self, p: ClockAdvanceParams) -> dict[str, Any]:
        """Move a manual clock forward; the scheduled jobs that came due run now."""
        if not isinstance(self.clock, ManualClock):
            raise Conflict("the clock is the system clock; set [clock] start in the config for a manual clock")
        try:
            now = self.clock.advance(p.hours)
        except OverflowError:
            raise InvalidParams("hours", "moves the clock past the year 9999") from None
        return {"now": format_time(now), "manual": True, "jobs_ran": self.runner.run_due()}

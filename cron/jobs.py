"""The daemon's scheduled jobs, each a function of the running service.

* ``decay_sweep``: move memories that decayed below the Cold tier to the archive.
* ``consolidate``: the nightly 4-level consolidation of every namespace; the workspace's
  namespace is also written to MEMORY.md's owned section.
* ``daily_log``: what was learned and observed today, the day's SyncScore line, and the jobs
  that changed something, into ``memory/YYYY-MM-DD.md``'s owned section.
* ``goals_due``: open goals whose due time has come are marked as fallen due, with a note.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from agentmemd.cron.scheduler import Job, JobRunner
from agentmemd.memory.consolidation.consolidator import Consolidator, render_section
from agentmemd.memory.core.clock import parse_time
from agentmemd.memory.core.config import Config
from agentmemd.memory.core.disclosure import USER
from agentmemd.memory.retrieval.memories import Memories
from agentmemd.memory.safety.secrets import mask
from agentmemd.memory.workspace import daily_log
from agentmemd.memory.workspace.owned_sections import neutralise
from agentmemd.memory.workspace.writeback import WorkspaceWriter
from agentmemd.persona.goals.goals import Goals
from agentmemd.persona.goals.goals_file import GOALS_FILE, taken_over
from agentmemd.persona.goals.goals_file import render_section as render_goals
from agentmemd.persona.tracking.tracker import sync_day_summary


def _masked(rows: list[dict[str, Any]], known: dict[str, str]) -> list[dict[str, Any]]:
    """``rows`` with the secrets said elsewhere masked where their words repeat them (the agent's
    "Noted: Tortuga$Lenta42"): a person's file shows none (each line masks its own too)."""
    return [{**r, "content": mask(r["content"], values=known)} for r in rows] if known else rows


def register_jobs(
    runner: JobRunner,
    service: Memories,
    config: Config,
    writer: WorkspaceWriter | None,
    workspace_namespace: str,
    *,
    summarise=None,
    goals: Goals | None = None,
) -> None:
    """``summarise(texts, namespace) -> str``: the language model's summaries for consolidated nodes
    (the `anthropic` provider); None keeps them extractive."""
    schedule = config.jobs.schedule()
    run_on_store = runner.run_on_store
    consolidator = Consolidator(service, config.consolidation, run_on_store, summarise)

    def consolidate() -> dict[str, Any]:
        """Runs beside the store thread: each namespace is clustered and embedded here and
        committed there in one short transaction (Job.prepares)."""
        now = service.clock.now()
        totals: dict[str, Any] = {"namespaces": 0}
        for namespace in run_on_store(consolidator.namespaces):
            counts = consolidator.run(namespace, now)
            totals["namespaces"] += 1
            for key, value in counts.items():
                totals[key] = totals.get(key, 0) + value
        if writer is not None:
            result = run_on_store(
                lambda: writer.write(
                    config.consolidation.memory_file,
                    # MEMORY.md is the user's: only the nodes their own conversations may hear.
                    render_section(
                        _masked(
                            [
                                n
                                for n in consolidator.nodes(workspace_namespace)
                                if service.may_hear(USER, n["audience"])
                            ],
                            service.known_secrets.of(workspace_namespace),
                        )
                    ),
                    now,
                    create_header="# MEMORY\n",
                )
            )
            totals["memory_file_changed"] = result.changed
            totals["kept_person_lines"] = result.kept_person_lines
        return totals

    def write_daily_log() -> dict[str, Any]:
        if writer is None:
            return {"skipped": "no workspace"}
        now = service.clock.now()
        today = now.astimezone(runner.zone).date()
        # Also finish the days since the last write (learned after it, before midnight).
        last = [r for r in runner.runs("daily_log", limit=5) if r["status"] == "ok" and r["finished"]]
        first = parse_time(last[-1]["started"]).astimezone(runner.zone).date() if last else today
        first = max(first, today - timedelta(days=7))
        written = 0
        day = first
        heard = daily_log.heard_in_the_log(service.store, workspace_namespace, service.may_hear)
        while day <= today:
            start, end = daily_log.day_bounds(day, runner.zone)
            memories, total = daily_log.learned(
                service.store, workspace_namespace, start, end, config.daily_log.max_items, heard
            )
            seen, seen_total = daily_log.observed(
                service.store, workspace_namespace, start, end, config.daily_log.max_items, heard
            )
            sync = sync_day_summary(service.store, workspace_namespace, start, end)
            known = service.known_secrets.of(workspace_namespace)
            memories, seen = _masked(memories, known), _masked(seen, known)
            body = daily_log.render(
                runner.zone, memories, total, runner.runs_between(start, end), seen, seen_total, sync, day
            )
            if body is not None:
                result = writer.write(daily_log.log_path(day), body, now, create_header=f"# {day.isoformat()}\n")
                written += int(result.changed)
            day += timedelta(days=1)
        return {"files_written": written}

    runner.add(
        Job("decay_sweep", "archive memories that decayed below the Cold tier", service.sweep, schedule["decay_sweep"])
    )
    runner.add(
        Job(
            "consolidate",
            "4-level consolidation: patterns, principles, insights (into MEMORY.md)",
            consolidate,
            schedule["consolidate"],
            prepares=True,
        )
    )
    runner.add(
        Job("daily_log", "what was learned today, into memory/YYYY-MM-DD.md", write_daily_log, schedule["daily_log"])
    )
    if goals is not None:

        def surface_goals() -> dict[str, Any]:
            """On the store thread, as every job that does not prepare. Then GOALS.md's daemon section
            (the goals added by a door), once there is one to list or the section exists."""
            with service.store.transaction():
                fallen = goals.surface_due()
            out: dict[str, Any] = {"fell_due": len(fallen), "goals": [g["id"] for g in fallen]}
            listed = goals.written_by_doors(workspace_namespace) if writer is not None else []
            last = writer.last_written(GOALS_FILE) if writer is not None else None
            if writer is not None and (listed or last is not None):
                moving = taken_over(writer.section_now(GOALS_FILE), last)  # ticked or edited there
                body = render_goals([g for g in listed if g["id"] not in moving], neutralise)
                result = writer.write(GOALS_FILE, body, service.clock.now(), create_header="# GOALS\n")
                out["goals_file_changed"] = result.changed
            return out

        runner.add(
            Job(
                "goals_due",
                "mark open goals whose due time has come; the goals added by a door into GOALS.md",
                surface_goals,
                schedule["goals_due"],
            )
        )

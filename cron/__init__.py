"""agentmemd.cron — scheduled jobs: ``scheduler`` (cron triggers, catch-up, run records)
and ``jobs`` (decay sweep, nightly consolidation, daily log)."""

"""agentmemd.cron — scheduled jobs (issue 3 moves them onto apscheduler).

Today the daemon runs one periodic job itself: the decay sweep
(``MemoryService.sweep``), every ``[server] sweep_interval_minutes``.
"""

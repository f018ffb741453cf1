"""Who the agent is, above what it remembers: its identity and goals, SyncScore and drift repair,
the persona's track over time, what it makes of the people it meets, and the context a model
call gets."""

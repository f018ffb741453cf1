"""Benchmarks, SyncScore calibration and the scripted drift conversation: `agentmemd bench …` and
`agentmemd calibrate` (the optional `bench` extra; nothing at run time imports them)."""

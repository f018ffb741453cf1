"""Benchmarks, SyncScore calibration and the scripted drift conversation: `agentmemd bench …` and
`agentmemd calibrate`. They are not in the wheel: a clone installed with the `bench` extra has
them, and nothing at run time imports them."""

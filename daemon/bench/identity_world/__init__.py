"""Benchmark data for `agentmemd bench identity`: four agents' persona files (SOUL.md, IDENTITY.md,
USER.md), quiz.json, situations.json, situations_blind.json and the competing-memory generator (competitors.py). See README.md."""

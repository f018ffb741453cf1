"""The agent's goals: kept, reached by situations, and written in GOALS.md."""
